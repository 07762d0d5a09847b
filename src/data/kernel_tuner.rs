//! Kernel Tuner cache files (JSON, schema 1.x): one `cache` entry per configuration, times in ms.

use super::catalogue::is_known_non_parameter;
use super::{Dataset, DatasetReader, ReadOptions, Record};
use crate::error::{Error, Result};
use crate::space::TuningSpace;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// Reader of Kernel Tuner cache files (`tune_params_keys`, `tune_params`, `cache`).
pub struct KernelTunerCacheReader;

#[derive(Deserialize)]
struct File {
    device_name: Option<String>,
    kernel_name: Option<String>,
    tune_params_keys: Vec<String>,
    #[serde(default)]
    tune_params: Map<String, Value>,
    cache: Map<String, Value>,
}

/// Entry keys that are Kernel Tuner's bookkeeping, not counters.
const BOOKKEEPING: &[&str] = &[
    "time",
    "times",
    "compile_time",
    "verification_time",
    "benchmark_time",
    "strategy_time",
    "framework_time",
    "timestamp",
    "GFLOP/s",
];

/// Kernel Tuner's old marker of a failed configuration, before failures became strings.
const FAILED_TIME_MS: f64 = 1e20;

impl DatasetReader for KernelTunerCacheReader {
    fn format(&self) -> &'static str {
        "Kernel Tuner cache"
    }

    fn read(&self, path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset> {
        let file: File = serde_json::from_slice(bytes).map_err(|e| {
            Error::parse(
                path,
                e.line(),
                format!("not a Kernel Tuner cache file: {e}"),
            )
        })?;
        let parameters = options
            .parameters
            .clone()
            .unwrap_or_else(|| file.tune_params_keys.clone());
        // Metric names: every numeric entry key that is a known counter (e.g. from the NCU observer).
        let metric_names: Vec<String> = file
            .cache
            .values()
            .filter_map(Value::as_object)
            .flat_map(|e| e.keys())
            .filter(|k| {
                !BOOKKEEPING.contains(&k.as_str())
                    && !parameters.contains(k)
                    && is_known_non_parameter(k)
            })
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut space = TuningSpace::new(parameters.clone());
        let mut records = Vec::new();
        let mut first_key: Vec<&str> = Vec::new();
        for (key, entry) in &file.cache {
            let at = |msg: String| Error::file(path, format!("cache entry \"{key}\": {msg}"));
            let entry = entry
                .as_object()
                .ok_or_else(|| at("is not an object".into()))?;
            let mut config = Vec::with_capacity(parameters.len());
            for p in &parameters {
                let v = entry
                    .get(p)
                    .ok_or_else(|| at(format!("no value for tuning parameter `{p}`")))?;
                config.push(parameter_value(p, v, &file.tune_params).ok_or_else(|| {
                    at(format!(
                        "value {v} of `{p}` is neither a number nor one of tune_params[\"{p}\"]"
                    ))
                })?);
            }
            let (runtime_us, failure) = match entry.get("time") {
                Some(Value::Number(n)) => match n.as_f64() {
                    Some(ms) if ms.is_finite() && ms > 0.0 && ms < FAILED_TIME_MS => {
                        (Some(ms * 1000.0), None)
                    }
                    _ => (None, Some(format!("time {n}"))),
                },
                Some(Value::String(s)) => (None, Some(s.clone())),
                _ => return Err(at("no `time`".into())),
            };
            let mut metrics = vec![f64::NAN; metric_names.len()];
            for (i, name) in metric_names.iter().enumerate() {
                if let Some(v) = entry.get(name) {
                    metrics[i] = v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                        at(format!("counter `{name}` is not a finite number: {v}"))
                    })?;
                }
            }
            let record = Record {
                runtime_us,
                global_size: f64::NAN,
                local_size: f64::NAN,
                metrics,
                overhead_us: entry
                    .get("compile_time")
                    .and_then(Value::as_f64)
                    .map(|ms| ms * 1000.0),
                failure,
            };
            if let Err(first) = space.push(&config) {
                return Err(at(format!(
                    "duplicate configuration {} (first in entry \"{}\")",
                    space.describe(first),
                    first_key[first]
                )));
            }
            first_key.push(key);
            records.push(record);
        }
        Ok(Dataset {
            source: path.to_path_buf(),
            kernel: file.kernel_name.unwrap_or_default(),
            device_name: file.device_name,
            space,
            metric_names,
            records,
        })
    }
}

/// A TP value as a number: itself when numeric, else its position in the parameter's value list
/// (Kernel Tuner allows strings such as `"float"`; trees and neighbourhoods only need an order).
fn parameter_value(name: &str, value: &Value, tune_params: &Map<String, Value>) -> Option<f64> {
    if let Some(x) = value.as_f64().filter(|x| x.is_finite()) {
        return Some(x);
    }
    if let Some(b) = value.as_bool() {
        return Some(f64::from(u8::from(b)));
    }
    tune_params
        .get(name)?
        .as_array()?
        .iter()
        .position(|v| v == value)
        .map(|i| i as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::load;

    const CACHE: &str = r#"{
  "schema_version": "1.1.0",
  "device_name": "NVIDIA GeForce RTX 3090",
  "kernel_name": "vector_add",
  "problem_size": 1000000,
  "tune_params_keys": ["block_size_x", "precision"],
  "tune_params": {"block_size_x": [64, 128, 256], "precision": ["float", "double"]},
  "objective": "time",
  "cache": {
    "64,float": {"block_size_x": 64, "precision": "float", "time": 0.5, "times": [0.5], "compile_time": 120.0, "verification_time": 0, "benchmark_time": 3.0, "strategy_time": 0, "framework_time": 1.0, "timestamp": "2024-01-01 00:00:00+00:00", "dram__sectors_read.sum": 125000},
    "128,float": {"block_size_x": 128, "precision": "float", "time": 0.25, "times": [0.25], "compile_time": 110.0, "verification_time": 0, "benchmark_time": 3.0, "strategy_time": 0, "framework_time": 1.0, "timestamp": "2024-01-01 00:00:01+00:00", "dram__sectors_read.sum": 125000},
    "256,double": {"block_size_x": 256, "precision": "double", "time": "CompilationFailedConfig", "compile_time": 50.0, "verification_time": 0, "benchmark_time": 0, "strategy_time": 0, "framework_time": 1.0, "timestamp": "2024-01-01 00:00:02+00:00"}
  }
}"#;

    #[test]
    fn reads_configurations_times_failures_and_counters() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vector_add_cache.json");
        std::fs::write(&path, CACHE).unwrap();
        let ds = load(&path, &ReadOptions::default()).unwrap();
        assert_eq!(ds.len(), 3);
        assert_eq!(ds.valid_count(), 2);
        let (best, runtime) = ds.best().unwrap();
        assert_eq!(runtime, 250.0, "0.25 ms is 250 us");
        assert_eq!(ds.space.describe(best), "block_size_x=128,precision=0");
        assert_eq!(ds.records[best].overhead_us, Some(110_000.0));
        assert_eq!(ds.records[best].metrics, vec![125000.0]);
        assert_eq!(ds.metric_names, vec!["dram__sectors_read.sum".to_string()]);
        let failed = ds
            .space
            .parse_assignment("block_size_x=256,precision=1")
            .unwrap();
        assert_eq!(
            ds.records[failed].failure.as_deref(),
            Some("CompilationFailedConfig")
        );
        assert!(ds.records[failed].metrics[0].is_nan());
        assert_eq!(ds.device_name.as_deref(), Some("NVIDIA GeForce RTX 3090"));
    }

    #[test]
    fn a_value_outside_tune_params_names_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad_cache.json");
        std::fs::write(
            &path,
            CACHE.replace(
                "\"precision\": \"double\", \"time\"",
                "\"precision\": \"half\", \"time\"",
            ),
        )
        .unwrap();
        let err = load(&path, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("bad_cache.json")
                && err.contains("256,double")
                && err.contains("precision"),
            "{err}"
        );
    }
}
