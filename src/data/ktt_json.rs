//! KTT 2.x JSON output: `Metadata` plus one `Results` entry per configuration.

use super::{Dataset, DatasetReader, ReadOptions, Record};
use crate::error::{Error, Result};
use crate::space::TuningSpace;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// Reader of KTT 2.x JSON tuning output.
pub struct KttJsonReader;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct File {
    #[serde(default)]
    metadata: Metadata,
    results: Vec<ResultEntry>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
struct Metadata {
    device: Option<String>,
    global_size_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ResultEntry {
    configuration: Vec<Pair>,
    #[serde(default)]
    computation_results: Vec<Computation>,
    status: Option<String>,
    kernel_name: Option<String>,
    total_duration: Option<f64>,
    total_overhead: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Pair {
    name: String,
    value: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Computation {
    duration: Option<f64>,
    overhead: Option<f64>,
    global_size: Option<Dim3>,
    local_size: Option<Dim3>,
    profiling_data: Option<Profiling>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
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
#[serde(rename_all = "PascalCase")]
struct Profiling {
    #[serde(default)]
    counters: Vec<CounterEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct CounterEntry {
    name: String,
    value: serde_json::Value,
}

impl DatasetReader for KttJsonReader {
    fn format(&self) -> &'static str {
        "KTT JSON"
    }

    fn read(&self, path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset> {
        let file: File = serde_json::from_slice(bytes)
            .map_err(|e| Error::parse(path, e.line(), format!("not KTT JSON output: {e}")))?;
        // CUDA-style sizes give the grid in blocks; OpenCL-style give total threads.
        let cuda_grid = file
            .metadata
            .global_size_type
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("CUDA"));
        let first = file
            .results
            .first()
            .ok_or_else(|| Error::file(path, "`Results` is empty: no configurations"))?;
        let parameters: Vec<String> = match &options.parameters {
            Some(p) => p.clone(),
            None => first.configuration.iter().map(|p| p.name.clone()).collect(),
        };
        let mut metric_names: Vec<String> = Vec::new();
        let mut metric_index: HashMap<String, usize> = HashMap::new();
        for r in &file.results {
            for c in r.computation_results.iter().take(1) {
                for m in c.profiling_data.iter().flat_map(|p| &p.counters) {
                    if !metric_index.contains_key(&m.name) {
                        metric_index.insert(m.name.clone(), metric_names.len());
                        metric_names.push(m.name.clone());
                    }
                }
            }
        }
        let mut space = TuningSpace::new(parameters.clone());
        let mut records = Vec::new();
        let mut kernel = String::new();
        for (i, r) in file.results.iter().enumerate() {
            let at = |msg: String| Error::file(path, format!("Results[{i}]: {msg}"));
            let mut config = Vec::with_capacity(parameters.len());
            for p in &parameters {
                let pair = r
                    .configuration
                    .iter()
                    .find(|c| &c.name == p)
                    .ok_or_else(|| at(format!("no value for tuning parameter `{p}`")))?;
                let v = json_number(&pair.value).ok_or_else(|| {
                    at(format!(
                        "value of `{p}` is not a finite number: {}",
                        pair.value
                    ))
                })?;
                config.push(v);
            }
            if kernel.is_empty() {
                kernel = r.kernel_name.clone().unwrap_or_default();
            }
            let ok = r.status.as_deref().is_none_or(|s| s == "Ok");
            let comp = r.computation_results.first();
            let duration = r
                .total_duration
                .or_else(|| comp.and_then(|c| c.duration))
                .filter(|t| *t > 0.0);
            if let Some(t) = duration {
                if !t.is_finite() {
                    return Err(at("duration is not finite".into()));
                }
            }
            let mut metrics = vec![f64::NAN; metric_names.len()];
            for m in comp
                .and_then(|c| c.profiling_data.as_ref())
                .iter()
                .flat_map(|p| &p.counters)
            {
                metrics[metric_index[&m.name]] = json_number(&m.value).ok_or_else(|| {
                    at(format!(
                        "counter `{}` is not a finite number: {}",
                        m.name, m.value
                    ))
                })?;
            }
            let local = comp
                .and_then(|c| c.local_size.as_ref())
                .map_or(f64::NAN, Dim3::product);
            let global = comp
                .and_then(|c| c.global_size.as_ref())
                .map_or(f64::NAN, |g| {
                    if cuda_grid {
                        g.product() * local
                    } else {
                        g.product()
                    }
                });
            let valid = ok && duration.is_some();
            let record = Record {
                runtime_us: if valid { duration } else { None },
                global_size: global,
                local_size: local,
                metrics,
                overhead_us: comp.and_then(|c| c.overhead).or(r.total_overhead),
                failure: (!valid).then(|| r.status.clone().unwrap_or_else(|| "no duration".into())),
            };
            if let Err(first) = space.push(&config) {
                return Err(at(format!(
                    "duplicate configuration {} (first at Results[{first}])",
                    space.describe(first)
                )));
            }
            records.push(record);
        }
        Ok(Dataset {
            source: path.to_path_buf(),
            kernel,
            device_name: file.metadata.device,
            input: None,
            space,
            metric_names,
            records,
            warnings: Vec::new(),
        })
    }
}

fn json_number(v: &serde_json::Value) -> Option<f64> {
    let x = match v {
        serde_json::Value::Number(n) => n.as_f64()?,
        serde_json::Value::String(s) => s.trim().parse().ok()?,
        serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
        _ => return None,
    };
    x.is_finite().then_some(x)
}
