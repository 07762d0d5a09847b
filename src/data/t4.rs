//! The T4 open autotuning results schema (JSON): `results[]` with `configuration`, `invalidity`,
//! `objectives` and named `measurements`.

use super::catalogue::is_known_non_parameter;
use super::{Dataset, DatasetReader, ReadOptions, Record};
use crate::error::{Error, Result};
use crate::space::TuningSpace;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// Reader of T4 results files.
pub struct T4Reader;

#[derive(Deserialize)]
struct File {
    results: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    configuration: Map<String, Value>,
    invalidity: String,
    #[serde(default)]
    objectives: Vec<String>,
    #[serde(default)]
    measurements: Vec<Measurement>,
}

#[derive(Deserialize)]
struct Measurement {
    name: String,
    value: Value,
    #[serde(default)]
    unit: String,
}

/// Microseconds per unit of a time measurement.
fn microseconds_per(unit: &str) -> Option<f64> {
    match unit {
        "s" => Some(1e6),
        "ms" | "" => Some(1e3),
        "us" | "µs" => Some(1.0),
        "ns" => Some(1e-3),
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
        let parameters: Vec<String> = options
            .parameters
            .clone()
            .unwrap_or_else(|| first.configuration.keys().cloned().collect());
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
        let mut records = Vec::new();
        for (i, r) in file.results.iter().enumerate() {
            let at = |msg: String| Error::file(path, format!("results[{i}]: {msg}"));
            let config = parameters
                .iter()
                .map(|p| {
                    let v = r
                        .configuration
                        .get(p)
                        .ok_or_else(|| at(format!("no value for tuning parameter `{p}`")))?;
                    v.as_f64()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| at(format!("value {v} of `{p}` is not a finite number")))
                })
                .collect::<Result<Vec<f64>>>()?;
            let objective = r.objectives.first().map_or("time", String::as_str);
            let runtime = r
                .measurements
                .iter()
                .find(|m| m.name == objective)
                .map(|m| {
                    let scale = microseconds_per(&m.unit).ok_or_else(|| {
                        at(format!(
                            "unit `{}` of `{objective}` is not a time unit",
                            m.unit
                        ))
                    })?;
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
            if let Err(first) = space.push(&config) {
                return Err(at(format!(
                    "duplicate configuration {} (first at results[{first}])",
                    space.describe(first)
                )));
            }
            records.push(Record {
                runtime_us: if valid { runtime } else { None },
                global_size: f64::NAN,
                local_size: f64::NAN,
                metrics,
                overhead_us: None,
                failure: (!valid).then(|| r.invalidity.clone()),
            });
        }
        Ok(Dataset {
            source: path.to_path_buf(),
            kernel: String::new(),
            device_name: None,
            space,
            metric_names,
            records,
        })
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
}
