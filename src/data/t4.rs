//! The T4 open autotuning results schema (JSON): `results[]` with `configuration`, `invalidity`,
//! `objectives` and named `measurements`, as Kernel Tuner and KTT 2.x write it.
//!
//! KTT writes every parameter value as a string (`"16"`, `"0.500000"`, or a name), its time
//! measurement with an empty unit meaning `metadata.timeunit`, and launch sizes under
//! `compilation_data` (a CUDA grid in blocks when `metadata.compute_api` is `CUDA`).

use super::catalogue::is_known_non_parameter;
use super::values::ValueEncoding;
use super::{Dataset, DatasetReader, ReadOptions, Record};
use crate::error::{Error, Result};
use crate::space::TuningSpace;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// Reader of T4 results files.
pub struct T4Reader;

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    metadata: Metadata,
    results: Vec<Entry>,
}

#[derive(Deserialize, Default)]
struct Metadata {
    device: Option<String>,
    kernel: Option<String>,
    timeunit: Option<String>,
    compute_api: Option<String>,
}

#[derive(Deserialize)]
struct Entry {
    configuration: Map<String, Value>,
    invalidity: String,
    #[serde(default)]
    objectives: Vec<String>,
    #[serde(default)]
    measurements: Vec<Measurement>,
    #[serde(default)]
    times: Times,
    compilation_data: Option<CompilationData>,
}

#[derive(Deserialize, Default)]
struct Times {
    compilation_time: Option<f64>,
}

#[derive(Deserialize)]
struct CompilationData {
    global_size: Option<Dim3>,
    local_size: Option<Dim3>,
}

#[derive(Deserialize)]
struct Dim3 {
    x: f64,
    y: f64,
    z: f64,
}

impl Dim3 {
    fn product(&self) -> f64 {
        self.x * self.y * self.z
    }
}

#[derive(Deserialize)]
struct Measurement {
    name: String,
    value: Value,
    #[serde(default)]
    unit: String,
}

/// Microseconds per unit of a time measurement or of KTT's `metadata.timeunit`.
fn microseconds_per(unit: &str) -> Option<f64> {
    match unit {
        "s" | "seconds" => Some(1e6),
        "ms" | "milliseconds" => Some(1e3),
        "us" | "µs" | "microseconds" => Some(1.0),
        "ns" | "nanoseconds" => Some(1e-3),
        _ => None,
    }
}

impl DatasetReader for T4Reader {
    fn format(&self) -> &'static str {
        "T4 results"
    }

    fn read(&self, path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset> {
        let file: File = serde_json::from_slice(bytes)
            .map_err(|e| Error::parse(path, e.line(), format!("not a T4 results file: {e}")))?;
        let first = file
            .results
            .first()
            .ok_or_else(|| Error::file(path, "`results` is empty: no configurations"))?;
        // An empty unit is the file's time unit (KTT); without one, Kernel Tuner's milliseconds.
        let default_unit = match file.metadata.timeunit.as_deref() {
            Some(u) => microseconds_per(u).ok_or_else(|| {
                Error::file(path, format!("metadata.timeunit `{u}` is not a time unit"))
            })?,
            None => 1e3,
        };
        let cuda_grid = file
            .metadata
            .compute_api
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case("CUDA"));
        let parameters: Vec<String> = options
            .parameters
            .clone()
            .unwrap_or_else(|| first.configuration.keys().cloned().collect());
        let mut columns: Vec<Vec<&Value>> = vec![Vec::new(); parameters.len()];
        for (i, r) in file.results.iter().enumerate() {
            for (p, name) in parameters.iter().enumerate() {
                let v = r.configuration.get(name).ok_or_else(|| {
                    Error::file(
                        path,
                        format!("results[{i}]: no value for tuning parameter `{name}`"),
                    )
                })?;
                columns[p].push(v);
            }
        }
        let encoding = ValueEncoding::decide(&columns, None);
        let metric_names: Vec<String> = file
            .results
            .iter()
            .flat_map(|r| &r.measurements)
            .map(|m| &m.name)
            .filter(|n| is_known_non_parameter(n))
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut space = TuningSpace::new(parameters.clone());
        encoding.label(&mut space);
        let mut records = Vec::new();
        for (i, r) in file.results.iter().enumerate() {
            let at = |msg: String| Error::file(path, format!("results[{i}]: {msg}"));
            let config = (0..parameters.len())
                .map(|p| {
                    encoding.encode(p, columns[p][i]).ok_or_else(|| {
                        at(format!(
                            "value {} of `{}` is not a finite number",
                            columns[p][i], parameters[p]
                        ))
                    })
                })
                .collect::<Result<Vec<f64>>>()?;
            let objective = r.objectives.first().map_or("time", String::as_str);
            let runtime = r
                .measurements
                .iter()
                .find(|m| m.name == objective)
                .map(|m| {
                    let scale = if m.unit.is_empty() {
                        default_unit
                    } else {
                        microseconds_per(&m.unit).ok_or_else(|| {
                            at(format!(
                                "unit `{}` of `{objective}` is not a time unit",
                                m.unit
                            ))
                        })?
                    };
                    m.value
                        .as_f64()
                        .filter(|t| t.is_finite())
                        .map(|t| t * scale)
                        .ok_or_else(|| {
                            at(format!("`{objective}` is not a finite number: {}", m.value))
                        })
                })
                .transpose()?;
            let valid = r.invalidity == "correct" && runtime.is_some_and(|t| t > 0.0);
            let mut metrics = vec![f64::NAN; metric_names.len()];
            for m in &r.measurements {
                if let Some(k) = metric_names.iter().position(|n| n == &m.name) {
                    metrics[k] = m.value.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                        at(format!(
                            "measurement `{}` is not a finite number: {}",
                            m.name, m.value
                        ))
                    })?;
                }
            }
            let sizes = r.compilation_data.as_ref();
            let local = sizes
                .and_then(|c| c.local_size.as_ref())
                .map_or(f64::NAN, Dim3::product);
            let global = sizes
                .and_then(|c| c.global_size.as_ref())
                .map_or(f64::NAN, |g| {
                    if cuda_grid {
                        g.product() * local
                    } else {
                        g.product()
                    }
                });
            if let Err(first) = space.push(&config) {
                return Err(at(format!(
                    "duplicate configuration {} (first at results[{first}])",
                    space.describe(first)
                )));
            }
            records.push(Record {
                runtime_us: if valid { runtime } else { None },
                global_size: global,
                local_size: local,
                metrics,
                overhead_us: r.times.compilation_time.map(|t| t * default_unit),
                failure: (!valid).then(|| r.invalidity.clone()),
            });
        }
        Ok(Dataset {
            source: path.to_path_buf(),
            kernel: file.metadata.kernel.unwrap_or_default(),
            device_name: file.metadata.device,
            input: None,
            space,
            metric_names,
            records,
            warnings: Vec::new(),
        })
    }
}

/// Writes a dataset as T4 results: times in milliseconds (Kernel Tuner's unit, also named in
/// `metadata.timeunit` for KTT), counters as further measurements, launch sizes in total threads.
pub fn write_t4(dataset: &Dataset, path: &Path) -> Result<()> {
    let space = &dataset.space;
    let results: Vec<Value> = dataset
        .records
        .iter()
        .enumerate()
        .map(|(id, r)| {
            let configuration: Map<String, Value> = space
                .parameters()
                .iter()
                .zip(space.config(id))
                .enumerate()
                .map(|(p, (name, v))| (name.clone(), parameter_json(space, p, *v)))
                .collect();
            let ms = r.runtime_us.map(|t| t / 1e3);
            let mut measurements = vec![json!({"name": "time", "value": ms.unwrap_or(0.0), "unit": "ms"})];
            for (name, v) in dataset.metric_names.iter().zip(&r.metrics) {
                if v.is_finite() {
                    measurements.push(json!({"name": name, "value": v, "unit": ""}));
                }
            }
            let mut times = Map::new();
            if let Some(o) = r.overhead_us {
                times.insert("compilation_time".into(), json!(o / 1e3));
            }
            times.insert("runtimes".into(), json!(ms.map_or(Vec::new(), |t| vec![t])));
            let mut entry = json!({
                "configuration": configuration,
                "objectives": ["time"],
                "times": times,
                "invalidity": if r.runtime_us.is_some() { "correct" } else { invalidity(r.failure.as_deref()) },
                "correctness": if r.runtime_us.is_some() { 1 } else { 0 },
                "measurements": measurements,
            });
            if r.global_size.is_finite() && r.local_size.is_finite() {
                entry["compilation_data"] = json!({
                    "global_size": {"x": r.global_size, "y": 1, "z": 1},
                    "local_size": {"x": r.local_size, "y": 1, "z": 1},
                });
            }
            entry
        })
        .collect();
    let mut metadata = json!({"autotuner": "pcsearch", "autotuner_version": env!("CARGO_PKG_VERSION"), "timeunit": "milliseconds"});
    if let Some(d) = &dataset.device_name {
        metadata["device"] = json!(d);
    }
    if !dataset.kernel.is_empty() {
        metadata["kernel"] = json!(dataset.kernel);
    }
    let file = json!({"schema_version": "1.0.0", "metadata": metadata, "results": results});
    super::write_json(&file, path)
}

/// A parameter value for a JSON file: its label, else the number (integral values as integers).
pub fn parameter_json(space: &TuningSpace, p: usize, v: f64) -> Value {
    if let Some(label) = space.label(p, v) {
        json!(label)
    } else if v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// The T4 invalidity of a failure reason (`runtime` when nothing more specific is known).
fn invalidity(failure: Option<&str>) -> &'static str {
    match failure.unwrap_or_default().to_ascii_lowercase().as_str() {
        f if f.contains("compil") => "compile",
        f if f.contains("correct") || f.contains("wrong result") => "correctness",
        f if f.contains("timeout") => "timeout",
        f if f.contains("constraint") => "constraints",
        _ => "runtime",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::load;

    const T4: &str = r#"{"schema_version": "1.0.0", "results": [
  {"timestamp": "t", "configuration": {"block_size_x": 64, "tile": 2}, "objectives": ["time"],
   "times": {"compilation_time": 0.1, "runtimes": [0.002]}, "invalidity": "correct", "correctness": 1,
   "measurements": [{"name": "time", "value": 2.0, "unit": "ms"}, {"name": "dram__sectors_read.sum", "value": 1000, "unit": ""}]},
  {"timestamp": "t", "configuration": {"block_size_x": 128, "tile": 2}, "objectives": ["time"],
   "times": {}, "invalidity": "compile", "correctness": 0, "measurements": []},
  {"timestamp": "t", "configuration": {"block_size_x": 128, "tile": 4}, "objectives": ["time"],
   "times": {}, "invalidity": "correct", "correctness": 1,
   "measurements": [{"name": "time", "value": 0.0015, "unit": "s"}]}
]}"#;

    #[test]
    fn reads_configurations_units_failures_and_counters() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        std::fs::write(&path, T4).unwrap();
        let ds = load(&path, &ReadOptions::default()).unwrap();
        assert_eq!((ds.len(), ds.valid_count()), (3, 2));
        let (best, t) = ds.best().unwrap();
        assert_eq!(t, 1500.0, "0.0015 s");
        assert_eq!(ds.space.describe(best), "block_size_x=128,tile=4");
        assert_eq!(ds.records[0].runtime_us, Some(2000.0));
        assert_eq!(ds.records[0].metrics, vec![1000.0]);
        assert_eq!(ds.records[1].failure.as_deref(), Some("compile"));
        let bad = T4.replace("\"unit\": \"s\"", "\"unit\": \"parsec\"");
        std::fs::write(&path, bad).unwrap();
        let err = load(&path, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("results[2]") && err.contains("parsec"),
            "{err}"
        );
    }

    /// Two results as KTT 2.2 writes them (its T4 serializer): every parameter value a string,
    /// the time's unit empty (the metadata's microseconds), a CUDA grid in blocks.
    const KTT_T4: &str = r#"{
  "metadata": {"autotuner": "KTT", "autotuner_version": "2.2.0", "compute_api": "CUDA",
               "device": "NVIDIA RTX 500 Ada Generation Laptop GPU", "platform": "NVIDIA CUDA",
               "timestamp": "2026-03-05 09:00:49 UTC", "timeunit": "microseconds"},
  "results": [
    {"compilation_data": {"constant_memory_size": 0, "global_size": {"x": 16, "y": 64, "z": 256},
       "local_memory_size": 0, "local_size": {"x": 16, "y": 4, "z": 1}, "max_work_group_size": 1024,
       "private_memory_size": 0, "registers": 44},
     "configuration": {"PRECISION": "float", "SCALE": "0.500000", "WORK_GROUP_SIZE_X": "16"},
     "correctness": 1, "invalidity": "correct",
     "measurements": [{"name": "time", "unit": "", "value": 4164.159},
                      {"name": "dram__sectors_read.sum", "type": "Double", "unit": "", "value": 4716.0}],
     "objectives": ["time"], "times": {"compilation_time": 14958.313, "runtimes": [4164.159]},
     "timestamp": "2026-03-05 08:58:2 UTC"},
    {"configuration": {"PRECISION": "double", "SCALE": "1.000000", "WORK_GROUP_SIZE_X": "32"},
     "correctness": 1, "invalidity": "compile",
     "measurements": [{"name": "time", "unit": "", "value": 0.0}],
     "objectives": ["time"], "times": {"compilation_time": 10.0, "runtimes": [0.0]},
     "timestamp": "2026-03-05 08:58:3 UTC"}
  ]
}"#;

    #[test]
    fn reads_what_ktt_writes_string_values_time_unit_and_launch_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("coulomb.t4.json");
        std::fs::write(&path, KTT_T4).unwrap();
        let ds = load(&path, &ReadOptions::default()).unwrap();
        assert_eq!((ds.len(), ds.valid_count()), (2, 1));
        assert_eq!(ds.records[0].runtime_us, Some(4164.159), "microseconds");
        assert_eq!(ds.records[0].overhead_us, Some(14958.313));
        assert_eq!(ds.records[0].local_size, 64.0);
        assert_eq!(
            ds.records[0].global_size,
            16.0 * 64.0 * 256.0 * 64.0,
            "grid × block"
        );
        assert_eq!(ds.records[0].metrics, vec![4716.0]);
        assert_eq!(
            ds.space.describe(0),
            "PRECISION=float,SCALE=0.5,WORK_GROUP_SIZE_X=16"
        );
        assert_eq!(ds.records[1].failure.as_deref(), Some("compile"));
        assert_eq!(
            ds.device_name.as_deref(),
            Some("NVIDIA RTX 500 Ada Generation Laptop GPU")
        );
        // Written back as T4 and read again: the same space, the names kept.
        let again = dir.path().join("again.t4.json");
        write_t4(&ds, &again).unwrap();
        let back = load(&again, &ReadOptions::default()).unwrap();
        assert_eq!(back.space, ds.space);
        assert_eq!(back.records[0].runtime_us, Some(4164.159));
        assert_eq!(back.records[0].global_size, ds.records[0].global_size);
        assert_eq!(back.records[1].failure.as_deref(), Some("compile"));
    }
}
