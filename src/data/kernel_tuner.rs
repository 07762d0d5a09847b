//! Kernel Tuner cache files (JSON, schema 1.x): one `cache` entry per configuration, times in ms.

use super::catalogue::is_known_non_parameter;
use super::t4::parameter_json;
use super::values::{numeric, text, ValueEncoding};
use super::{Dataset, DatasetReader, ReadOptions, Record};
use crate::error::{Error, Result};
use crate::space::TuningSpace;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// Reader of Kernel Tuner cache files (`tune_params_keys`, `tune_params`, `cache`).
pub struct KernelTunerCacheReader;

#[derive(Deserialize)]
struct File {
    device_name: Option<String>,
    kernel_name: Option<String>,
    /// A number, a list of numbers or a string; rendered as the input's label.
    problem_size: Option<Value>,
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

/// Entry keys pcsearch adds for the launch sizes (total threads, threads per block), which Kernel
/// Tuner's caches lack and the profile-based searcher's parallelism bottleneck needs; Kernel Tuner
/// ignores keys it does not know.
const GLOBAL_SIZE: &str = "global_size";
/// See [`GLOBAL_SIZE`].
const LOCAL_SIZE: &str = "local_size";

/// Kernel Tuner's old marker of a failed configuration, before failures became strings.
const FAILED_TIME_MS: f64 = 1e20;

impl DatasetReader for KernelTunerCacheReader {
    fn format(&self) -> &'static str {
        "Kernel Tuner cache"
    }

    fn read(&self, path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset> {
        let raw = String::from_utf8_lossy(bytes);
        let (json_text, unclosed) = close_like_kernel_tuner(&raw);
        let file: File = serde_json::from_str(&json_text).map_err(|e| {
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
        let mut columns: Vec<Vec<&Value>> = vec![Vec::new(); parameters.len()];
        for (key, entry) in &file.cache {
            let at = |msg: String| Error::file(path, format!("cache entry \"{key}\": {msg}"));
            let entry = entry
                .as_object()
                .ok_or_else(|| at("is not an object".into()))?;
            for (p, name) in parameters.iter().enumerate() {
                columns[p].push(
                    entry
                        .get(name)
                        .ok_or_else(|| at(format!("no value for tuning parameter `{name}`")))?,
                );
            }
        }
        let declared: Vec<Vec<Value>> = parameters
            .iter()
            .map(|p| {
                file.tune_params
                    .get(p)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        let encoding = ValueEncoding::decide(&columns, Some(&declared));
        let mut space = TuningSpace::new(parameters.clone());
        encoding.label(&mut space);
        let mut records = Vec::new();
        let mut first_key: Vec<&str> = Vec::new();
        for (i, (key, entry)) in file.cache.iter().enumerate() {
            let at = |msg: String| Error::file(path, format!("cache entry \"{key}\": {msg}"));
            let entry = entry
                .as_object()
                .ok_or_else(|| at("is not an object".into()))?;
            let mut config = Vec::with_capacity(parameters.len());
            for (p, name) in parameters.iter().enumerate() {
                let v = columns[p][i];
                let declared_here = declared[p].is_empty()
                    || declared[p].contains(v)
                    || declared[p]
                        .iter()
                        .any(|d| numeric(d).is_some() && numeric(d) == numeric(v));
                let x = encoding.encode(p, v).filter(|_| declared_here).ok_or_else(|| {
                    at(format!(
                        "value {v} of `{name}` is neither a number nor one of tune_params[\"{name}\"]"
                    ))
                })?;
                config.push(x);
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
            let size = |k: &str| entry.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
            let record = Record {
                runtime_us,
                global_size: size(GLOBAL_SIZE),
                local_size: size(LOCAL_SIZE),
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
        let mut warnings = Vec::new();
        if unclosed {
            warnings.push(format!(
                "the cache was not closed (its tuning run was interrupted?): read as Kernel Tuner reads it, with {} configurations; replay takes them for the whole space",
                records.len()
            ));
        }
        let unseen: Vec<String> = parameters
            .iter()
            .enumerate()
            .flat_map(|(p, name)| {
                let seen = &columns[p];
                declared[p]
                    .iter()
                    .filter(|d| {
                        !seen
                            .iter()
                            .any(|v| *v == *d || (numeric(v).is_some() && numeric(v) == numeric(d)))
                    })
                    .map(move |d| format!("{name}={}", text(d)))
            })
            .collect();
        if !unseen.is_empty() {
            warnings.push(format!(
                "it holds only part of the space: no configuration has {} (values listed in tune_params); replay takes the {} configurations present for the whole space",
                unseen.join(", "),
                records.len()
            ));
        }
        Ok(Dataset {
            source: path.to_path_buf(),
            kernel: file.kernel_name.unwrap_or_default(),
            device_name: file.device_name,
            input: file.problem_size.as_ref().and_then(problem_size_label),
            space,
            metric_names,
            records,
            warnings,
        })
    }
}

/// `problem_size` as a label: `4096`, `[4096, 16]` → `4096-16`, a string as it is.
fn problem_size_label(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(|v| v.as_number().map(ToString::to_string))
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.join("-")),
        _ => None,
    }
}

/// A cache as Kernel Tuner reads it: one whose run was interrupted lacks the closing `}\n}` and
/// may end in a comma after its last entry; Kernel Tuner drops the comma and closes it. Returns
/// the text and whether it had to be closed.
pub fn close_like_kernel_tuner(text: &str) -> (String, bool) {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.ends_with("}\n}") || trimmed.ends_with("}}}") {
        return (text.to_string(), false);
    }
    let body = trimmed.strip_suffix(',').unwrap_or(trimmed);
    (format!("{body}}}\n}}"), true)
}

/// Writes a dataset as a closed Kernel Tuner cache (schema 1.2) that Kernel Tuner's simulation
/// mode replays: keys are the parameter values joined by commas as Kernel Tuner forms them, times
/// in milliseconds, failures as Kernel Tuner's error strings.
pub fn write_kernel_tuner_cache(dataset: &Dataset, path: &Path) -> Result<()> {
    let space = &dataset.space;
    let tune_params: Map<String, Value> = space
        .parameters()
        .iter()
        .zip(space.parameter_values())
        .enumerate()
        .map(|(p, (name, values))| {
            let values: Vec<Value> = values
                .iter()
                .map(|v| parameter_json(space, p, *v))
                .collect();
            (name.clone(), Value::Array(values))
        })
        .collect();
    let mut cache = Map::new();
    for (id, r) in dataset.records.iter().enumerate() {
        let config = space.config(id);
        let key = config
            .iter()
            .enumerate()
            .map(|(p, v)| space.value_text(p, *v))
            .collect::<Vec<_>>()
            .join(",");
        let mut entry = Map::new();
        for (p, (name, v)) in space.parameters().iter().zip(config).enumerate() {
            entry.insert(name.clone(), parameter_json(space, p, *v));
        }
        let compile_ms = r.overhead_us.map(|o| o / 1e3);
        match r.runtime_us {
            Some(t) => {
                let ms = t / 1e3;
                entry.insert("time".into(), json!(ms));
                entry.insert("times".into(), json!([ms]));
                entry.insert("benchmark_time".into(), json!(ms));
            }
            None => {
                let failure = r
                    .failure
                    .as_deref()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let error = match failure.as_str() {
                    f if f.contains("compil") => "CompilationFailedConfig",
                    f if f.contains("constraint") || f == "invalidconfig" => "InvalidConfig",
                    _ => "RuntimeFailedConfig",
                };
                entry.insert("time".into(), json!(error));
                entry.insert("benchmark_time".into(), json!(0.0));
            }
        }
        // Unknown compile times are left out rather than written as 0: pcsearch would read a 0
        // back as a measured overhead (Kernel Tuner needs them only to simulate a time limit).
        if let Some(ms) = compile_ms {
            entry.insert("compile_time".into(), json!(ms));
        }
        entry.insert("verification_time".into(), json!(0.0));
        entry.insert("strategy_time".into(), json!(0.0));
        entry.insert("framework_time".into(), json!(0.0));
        entry.insert("timestamp".into(), json!(""));
        for (name, v) in dataset.metric_names.iter().zip(&r.metrics) {
            if v.is_finite() {
                entry.insert(name.clone(), json!(v));
            }
        }
        for (k, v) in [(GLOBAL_SIZE, r.global_size), (LOCAL_SIZE, r.local_size)] {
            if v.is_finite() {
                entry.insert(k.into(), json!(v));
            }
        }
        cache.insert(key, Value::Object(entry));
    }
    let header = json!({
        "schema_version": "1.2.0",
        "device_name": dataset.device_name.clone().unwrap_or_default(),
        "kernel_name": dataset.kernel,
        "tune_params_keys": space.parameters(),
        "tune_params": tune_params,
        "objective": "time",
    });
    // Kernel Tuner appends to and closes a cache by its last three characters, `}\n}`: `cache`
    // must come last, whatever order a JSON map would give it.
    let pretty = |v: &Value| {
        serde_json::to_string_pretty(v)
            .map_err(|e| Error::file(path, format!("cannot serialise: {e}")))
    };
    let header = pretty(&header)?;
    let header = header
        .trim_end()
        .strip_suffix('}')
        .unwrap_or(&header)
        .trim_end();
    let text = format!(
        "{header},\n\"cache\": {}\n}}\n",
        pretty(&Value::Object(cache))?
    );
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
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
        assert_eq!(ds.space.describe(best), "block_size_x=128,precision=float");
        assert_eq!(ds.records[best].overhead_us, Some(110_000.0));
        assert_eq!(ds.records[best].metrics, vec![125000.0]);
        assert_eq!(ds.metric_names, vec!["dram__sectors_read.sum".to_string()]);
        let failed = ds
            .space
            .parse_assignment("block_size_x=256,precision=double")
            .unwrap();
        assert_eq!(
            ds.records[failed].failure.as_deref(),
            Some("CompilationFailedConfig")
        );
        assert!(ds.records[failed].metrics[0].is_nan());
        assert_eq!(ds.device_name.as_deref(), Some("NVIDIA GeForce RTX 3090"));
        assert_eq!(ds.input_hint().as_deref(), Some("1000000"));
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
