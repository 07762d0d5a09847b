//! Recorded tuning data: complete tuning spaces with runtimes and raw counter values.
//!
//! Readers turn a file into a [`Dataset`]; which reader is used is decided by the file's content, so
//! a user never has to say what format a file is in.

mod catalogue;
mod detect;
mod kernel_tuner;
mod ktt_csv;
mod ktt_json;
mod limits;
mod t4;
mod values;

pub use catalogue::is_known_non_parameter;
pub use kernel_tuner::{write_kernel_tuner_cache, KernelTunerCacheReader};
pub use ktt_csv::{ktt_csv_bytes, write_ktt_csv, KttCsvReader};
pub use ktt_json::KttJsonReader;
pub use t4::{write_t4, T4Reader};
pub use values::ValueEncoding;

use crate::counters::{CounterValues, MappedMetrics};
use crate::error::{Error, Result};
use crate::space::{ConfigId, TuningSpace};
use std::path::{Path, PathBuf};

/// Runtime tolerance that defines a well-performing configuration (≤ 1.1 × best).
pub const WELL_PERFORMING_FACTOR: f64 = 1.1;

/// One measured configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Kernel runtime in microseconds; `None` when the configuration failed (an invalid one).
    pub runtime_us: Option<f64>,
    /// Total threads launched.
    pub global_size: f64,
    /// Threads per block.
    pub local_size: f64,
    /// Raw metric values, aligned with [`Dataset::metric_names`]; `NaN` where absent.
    pub metrics: Vec<f64>,
    /// Tuner overhead recorded for this configuration (compilation, data movement), if any.
    pub overhead_us: Option<f64>,
    /// Why the configuration failed, when it did.
    pub failure: Option<String>,
}

/// A complete tuning space with one [`Record`] per configuration.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// File the data came from.
    pub source: PathBuf,
    /// Kernel name.
    pub kernel: String,
    /// GPU name from the file's metadata, when the format has it.
    pub device_name: Option<String>,
    /// The input (problem size) from the file's metadata, when the format has it, e.g. `4096-4096`.
    pub input: Option<String>,
    /// The configurations.
    pub space: TuningSpace,
    /// Raw metric (counter) names as recorded.
    pub metric_names: Vec<String>,
    /// Measurements, indexed by configuration id.
    pub records: Vec<Record>,
    /// What a user should know about the file although it was read (e.g. it holds only part of a
    /// space).
    pub warnings: Vec<String>,
}

/// How to read a file.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Columns to take as tuning parameters, overriding the catalogue of known column names.
    pub parameters: Option<Vec<String>>,
}

/// A recorded-data format.
pub trait DatasetReader {
    /// Short format name for messages.
    fn format(&self) -> &'static str;
    /// Reads a whole file's `bytes` (without a byte-order mark); `path` names it in messages.
    fn read(&self, path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset>;
}

/// A format pcsearch writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// KTT 1.x CSV, as the recorded data set.
    KttCsv,
    /// T4 open autotuning results.
    T4,
    /// A Kernel Tuner cache file, for its simulation mode.
    KernelTuner,
}

/// Writes `dataset` to `path` in `format`.
pub fn write(dataset: &Dataset, format: OutputFormat, path: &Path) -> Result<()> {
    match format {
        OutputFormat::KttCsv => {
            let space = &dataset.space;
            if let Some(p) = (0..space.parameters().len()).find(|&p| space.is_labelled(p)) {
                return Err(Error::file(
                    path,
                    format!(
                        "tuning parameter `{}` has non-numeric values, which KTT CSV cannot hold: write T4 or a Kernel Tuner cache instead",
                        space.parameters()[p]
                    ),
                ));
            }
            write_ktt_csv(dataset, path)
        }
        OutputFormat::T4 => write_t4(dataset, path),
        OutputFormat::KernelTuner => write_kernel_tuner_cache(dataset, path),
    }
}

/// Writes a JSON value to `path`, pretty-printed, naming the file on failure.
pub fn write_json(value: &serde_json::Value, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::file(path, format!("cannot serialise: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

/// Reads recorded data in any supported format.
pub fn load(path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let bytes = crate::input::read_bounded(path, crate::input::MAX_SPACE_BYTES)?;
    parse(path, &bytes, options)
}

/// Reads recorded data from the `bytes` of a file; `path` names it in messages.
pub fn parse(path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset> {
    if let Some(wanted) = &options.parameters {
        limits::check_names(wanted).map_err(|e| Error::invalid(format!("--parameters: {e}")))?;
    }
    let bytes = detect::strip_bom(bytes);
    let reader: &dyn DatasetReader = match detect::detect(path, bytes)? {
        detect::Format::KernelTuner => &KernelTunerCacheReader,
        detect::Format::T4 => &T4Reader,
        detect::Format::KttJson => &KttJsonReader,
        detect::Format::KttCsv => &KttCsvReader,
    };
    let dataset = reader.read(path, bytes, options)?;
    dataset.validate()?;
    Ok(dataset)
}

impl Dataset {
    fn validate(&self) -> Result<()> {
        limits::check_names(self.space.parameters())
            .map_err(|e| Error::file(&self.source, format!("tuning parameters: {e}")))?;
        for (id, record) in self.records.iter().enumerate() {
            limits::check_record(record).map_err(|e| {
                Error::file(
                    &self.source,
                    format!("configuration {}: {e}", self.space.describe(id)),
                )
            })?;
        }
        if self.space.is_empty() {
            return Err(Error::file(&self.source, "no configurations in the file"));
        }
        if self.best().is_none() {
            return Err(Error::file(
                &self.source,
                "no configuration has a runtime: every one failed",
            ));
        }
        Ok(())
    }

    /// Number of configurations (valid and invalid).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when there is no configuration.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Number of configurations that ran.
    pub fn valid_count(&self) -> usize {
        self.records
            .iter()
            .filter(|r| r.runtime_us.is_some())
            .count()
    }

    /// The fastest configuration and its runtime.
    pub fn best(&self) -> Option<(ConfigId, f64)> {
        self.records
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.runtime_us.map(|t| (i, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Runtime at or below which a configuration is well-performing.
    pub fn well_performing_threshold(&self) -> f64 {
        self.best()
            .map_or(f64::NAN, |(_, t)| t * WELL_PERFORMING_FACTOR)
    }

    /// Whether each configuration is well-performing (runtime ≤ 1.1 × best).
    pub fn well_performing(&self) -> Vec<bool> {
        let limit = self.well_performing_threshold();
        self.records
            .iter()
            .map(|r| r.runtime_us.is_some_and(|t| t <= limit))
            .collect()
    }

    /// Canonical counters of configuration `id` under a resolved counter map.
    pub fn counters(&self, mapped: &MappedMetrics, id: ConfigId) -> CounterValues {
        let r = &self.records[id];
        mapped.values(&r.metrics, r.global_size, r.local_size)
    }

    /// What the file says about its GPU: metadata device name, else the file-name prefix (`2080-…`).
    pub fn gpu_hint(&self) -> Option<String> {
        self.device_name.clone().or_else(|| {
            let stem = self.source.file_stem()?.to_str()?;
            let prefix = stem.split(['-', '_']).next()?;
            (!prefix.is_empty() && prefix != stem).then(|| prefix.to_string())
        })
    }

    /// What the file says about its input: the metadata's problem size, else the sizes that end
    /// the file name `<gpu>-<bench>-<sizes>_output.csv` (`1070-gemm-16-4096-4096_output.csv` gives
    /// `16-4096-4096`).
    pub fn input_hint(&self) -> Option<String> {
        self.input
            .clone()
            .or_else(|| input_from_file_name(self.source.file_name()?.to_str()?))
    }
}

/// The numeric fields after `<gpu>-<bench>` in a recording's file name, joined by `-`.
fn input_from_file_name(name: &str) -> Option<String> {
    let stem = name.split('.').next()?;
    let stem = stem.strip_suffix("_output").unwrap_or(stem);
    let fields: Vec<&str> = stem.split('-').collect();
    let sizes: Vec<&str> = fields
        .iter()
        .skip(2)
        .rev()
        .take_while(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
        .copied()
        .collect();
    (!sizes.is_empty()).then(|| sizes.into_iter().rev().collect::<Vec<_>>().join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_is_read_from_the_file_name_after_gpu_and_benchmark() {
        let cases = [
            ("1070-gemm-16-4096-4096_output.csv", Some("16-4096-4096")),
            ("1070-gemm-128-128-128_output.csv", Some("128-128-128")),
            ("2080-nbody-16384.json", Some("16384")),
            ("1070-coulomb_output.csv", None),
            ("coulomb-2080ti.json", None),
            ("1070-gemm-a-16_output.csv", Some("16")),
            ("1070-16_output.csv", None),
        ];
        for (name, expected) in cases {
            assert_eq!(input_from_file_name(name).as_deref(), expected, "{name}");
        }
    }
}
