//! KTT 1.x CSV output: one row per configuration, columns told apart by name.

use super::catalogue::{is_known_non_parameter, is_tuner_column};
use super::{Dataset, DatasetReader, ReadOptions, Record};
use crate::error::{Error, Result};
use crate::space::{format_value, TuningSpace};
use std::path::Path;

pub(super) const RUNTIME: &str = "Computation duration (us)";

/// Reader of KTT 1.x CSV files (`Kernel name,Computation duration (us),Global size,…`).
pub struct KttCsvReader;

enum Column {
    Kernel,
    Runtime,
    Global,
    Local,
    Parameter(usize),
    Metric(usize),
    Ignored,
}

impl DatasetReader for KttCsvReader {
    fn format(&self) -> &'static str {
        "KTT CSV"
    }

    fn read(&self, path: &Path, bytes: &[u8], options: &ReadOptions) -> Result<Dataset> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(bytes);
        let header = reader
            .headers()
            .map_err(|e| Error::parse(path, 1, e.to_string()))?
            .clone();
        let (columns, parameters, metric_names) = classify(path, &header, options)?;
        let mut space = TuningSpace::new(parameters.clone());
        let mut records = Vec::new();
        let mut first_line = Vec::new();
        let mut kernel = String::new();
        for row in reader.records() {
            let row = row.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line() as usize);
                Error::parse(path, line, e.to_string())
            })?;
            let line = row.position().map_or(0, |p| p.line() as usize);
            if row.len() != header.len() {
                return Err(Error::parse(
                    path,
                    line,
                    format!("{} fields, but the header has {}", row.len(), header.len()),
                ));
            }
            let mut config = vec![0.0; parameters.len()];
            let mut record = Record {
                runtime_us: None,
                global_size: f64::NAN,
                local_size: f64::NAN,
                metrics: vec![f64::NAN; metric_names.len()],
                overhead_us: None,
                failure: None,
            };
            let mut metric_cells = Vec::new();
            for ((column, cell), name) in columns.iter().zip(row.iter()).zip(header.iter()) {
                match column {
                    Column::Kernel => {
                        if kernel.is_empty() {
                            kernel = cell.to_string();
                        }
                    }
                    Column::Runtime => {
                        if cell.is_empty() || cell.eq_ignore_ascii_case("failed") {
                            record.failure = Some("no runtime recorded".into());
                        } else {
                            let t = number(path, line, name, cell)?;
                            if t <= 0.0 {
                                record.failure = Some(format!("runtime {cell}"));
                            } else {
                                record.runtime_us = Some(t);
                            }
                        }
                    }
                    Column::Global => record.global_size = optional_number(path, line, name, cell)?,
                    Column::Local => record.local_size = optional_number(path, line, name, cell)?,
                    Column::Parameter(i) => config[*i] = number(path, line, name, cell)?,
                    Column::Metric(i) => metric_cells.push((*i, name, cell)),
                    Column::Ignored => {}
                }
            }
            for (i, name, cell) in metric_cells {
                // A failed configuration may have no counters; a measured one must have them all.
                record.metrics[i] = if cell.is_empty() && record.runtime_us.is_none() {
                    f64::NAN
                } else {
                    number(path, line, name, cell)?
                };
            }
            if let Err(first) = space.push(&config) {
                return Err(Error::parse(
                    path,
                    line,
                    format!(
                        "duplicate configuration {} (first on line {})",
                        space.describe(first),
                        first_line[first]
                    ),
                ));
            }
            first_line.push(line);
            records.push(record);
        }
        Ok(Dataset {
            source: path.to_path_buf(),
            kernel,
            device_name: None,
            input: None,
            space,
            metric_names,
            records,
            warnings: Vec::new(),
        })
    }
}

type Classified = (Vec<Column>, Vec<String>, Vec<String>);

fn classify(path: &Path, header: &csv::StringRecord, options: &ReadOptions) -> Result<Classified> {
    if let Some(wanted) = &options.parameters {
        for p in wanted {
            if !header.iter().any(|h| h == p) {
                return Err(Error::file(
                    path,
                    format!(
                        "parameter `{p}` named with --parameters is not a column of the header"
                    ),
                ));
            }
        }
    }
    let mut columns = Vec::new();
    let mut parameters = Vec::new();
    let mut metrics = Vec::new();
    for name in header.iter() {
        if header.iter().filter(|h| *h == name).count() > 1 {
            return Err(Error::parse(
                path,
                1,
                format!("column `{name}` appears twice"),
            ));
        }
        let column = match name {
            "Kernel name" => Column::Kernel,
            RUNTIME => Column::Runtime,
            "Global size" => Column::Global,
            "Local size" => Column::Local,
            _ => {
                let is_parameter = match &options.parameters {
                    Some(wanted) => wanted.iter().any(|p| p == name),
                    None => !is_known_non_parameter(name),
                };
                if is_parameter {
                    parameters.push(name.to_string());
                    Column::Parameter(parameters.len() - 1)
                } else if is_tuner_column(name) {
                    Column::Ignored
                } else {
                    metrics.push(name.to_string());
                    Column::Metric(metrics.len() - 1)
                }
            }
        };
        columns.push(column);
    }
    if !header.iter().any(|h| h == RUNTIME) {
        return Err(Error::parse(path, 1, format!("no `{RUNTIME}` column")));
    }
    if parameters.is_empty() {
        return Err(Error::parse(
            path,
            1,
            "no tuning-parameter column found (name them with --parameters)",
        ));
    }
    Ok((columns, parameters, metrics))
}

fn number(path: &Path, line: usize, column: &str, cell: &str) -> Result<f64> {
    let v: f64 = cell.parse().map_err(|_| {
        Error::parse(
            path,
            line,
            format!("column `{column}`: `{cell}` is not a number"),
        )
    })?;
    if !v.is_finite() {
        return Err(Error::parse(
            path,
            line,
            format!("column `{column}`: `{cell}` is not a finite number"),
        ));
    }
    Ok(v)
}

fn optional_number(path: &Path, line: usize, column: &str, cell: &str) -> Result<f64> {
    if cell.is_empty() {
        Ok(f64::NAN)
    } else {
        number(path, line, column, cell)
    }
}

/// Writes a dataset as KTT 1.x CSV, readable by [`KttCsvReader`] and by KTT's own scripts.
pub fn write_ktt_csv(dataset: &Dataset, path: &Path) -> Result<()> {
    let bytes = ktt_csv_bytes(dataset).map_err(|e| Error::file(path, e))?;
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// A dataset as KTT 1.x CSV text.
pub fn ktt_csv_bytes(dataset: &Dataset) -> std::result::Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| e.to_string();
    let mut header = vec![
        "Kernel name".to_string(),
        RUNTIME.to_string(),
        "Global size".to_string(),
        "Local size".to_string(),
    ];
    header.extend(dataset.space.parameters().iter().cloned());
    header.extend(dataset.metric_names.iter().cloned());
    w.write_record(&header).map_err(io)?;
    let cell = |v: f64| {
        if v.is_nan() {
            String::new()
        } else {
            format!("{v}")
        }
    };
    for (id, r) in dataset.records.iter().enumerate() {
        // Refuse here what the reader would refuse there.
        let config = || dataset.space.describe(id);
        super::limits::check_record(r).map_err(|e| format!("configuration {}: {e}", config()))?;
        if let (Some(_), Some(k)) = (r.runtime_us, r.metrics.iter().position(|v| v.is_nan())) {
            return Err(format!(
                "configuration {} ran but has no value for `{}`; the reader needs every counter of a measured configuration",
                config(),
                dataset.metric_names[k]
            ));
        }
        let mut row = vec![
            dataset.kernel.clone(),
            r.runtime_us.map(cell).unwrap_or_default(),
            cell(r.global_size),
            cell(r.local_size),
        ];
        row.extend(dataset.space.config(id).iter().map(|v| format_value(*v)));
        row.extend(r.metrics.iter().map(|v| cell(*v)));
        w.write_record(&row).map_err(io)?;
    }
    w.into_inner().map_err(|e| e.to_string())
}
