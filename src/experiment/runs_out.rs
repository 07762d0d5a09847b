//! Per-run results for analysis elsewhere: one row (CSV) or one object (JSON lines) per run.

use super::RunTrace;
use crate::error::{Error, Result};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Which searcher ran where: the columns every run of one batch shares.
#[derive(Debug, Clone, Copy)]
pub struct RunsContext<'a> {
    /// Searcher name.
    pub searcher: &'a str,
    /// File of the tuned space.
    pub space: &'a str,
    /// GPU whose model scored the candidates, when one did.
    pub model: Option<&'a str>,
    /// Master seed of the experiment.
    pub seed: u64,
}

#[derive(Serialize)]
struct Row<'a> {
    searcher: &'a str,
    space: &'a str,
    model: Option<&'a str>,
    seed: u64,
    run: usize,
    found: bool,
    steps: usize,
    profiled: usize,
    time_s: f64,
    tests: usize,
    best_us: Vec<Option<f64>>,
    elapsed_s: Vec<f64>,
}

enum Sink {
    Csv(Box<csv::Writer<File>>),
    JsonLines(BufWriter<File>),
}

/// Writes per-run results as CSV (`.csv`) or JSON lines (`.jsonl`, `.ndjson`), by extension.
pub struct RunsWriter {
    path: PathBuf,
    sink: Sink,
}

/// Seconds rounded to the microsecond, so files stay readable.
fn seconds(s: f64) -> f64 {
    (s * 1e6).round() / 1e6
}

fn joined<T>(values: &[T], cell: impl Fn(&T) -> String) -> String {
    values.iter().map(cell).collect::<Vec<_>>().join(";")
}

impl RunsWriter {
    /// Creates (truncates) `path`; its extension chooses the format.
    pub fn create(path: &Path) -> Result<RunsWriter> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let json = match ext.as_deref() {
            Some("csv") => false,
            Some("jsonl" | "ndjson") => true,
            _ => {
                return Err(Error::invalid(format!(
                    "--runs-out {}: name the file .csv (CSV) or .jsonl (JSON lines)",
                    path.display()
                )))
            }
        };
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let sink = if json {
            Sink::JsonLines(BufWriter::new(file))
        } else {
            let mut w = csv::Writer::from_writer(file);
            w.write_record([
                "searcher",
                "space",
                "model",
                "seed",
                "run",
                "found",
                "steps",
                "profiled",
                "time_s",
                "tests",
                "best_us",
                "elapsed_s",
            ])
            .map_err(|e| Error::file(path, e.to_string()))?;
            Sink::Csv(Box::new(w))
        };
        Ok(RunsWriter {
            path: path.to_path_buf(),
            sink,
        })
    }

    /// Appends one row per run of `traces`. In CSV the per-test lists are `;`-separated and a
    /// test before any successful one has an empty best runtime; in JSON it is `null`.
    pub fn write(&mut self, context: RunsContext, traces: &[RunTrace]) -> Result<()> {
        for t in traces {
            let row = Row {
                searcher: context.searcher,
                space: context.space,
                model: context.model,
                seed: context.seed,
                run: t.run,
                found: t.result.found,
                steps: t.result.steps,
                profiled: t.result.profiled,
                time_s: seconds(t.result.time_s),
                tests: t.best_us.len(),
                best_us: t
                    .best_us
                    .iter()
                    .map(|&b| (!b.is_nan()).then_some(b))
                    .collect(),
                elapsed_s: t.elapsed_s.iter().map(|&s| seconds(s)).collect(),
            };
            let written = match &mut self.sink {
                Sink::JsonLines(w) => serde_json::to_writer(&mut *w, &row)
                    .map_err(|e| e.to_string())
                    .and_then(|()| w.write_all(b"\n").map_err(|e| e.to_string())),
                Sink::Csv(w) => w
                    .write_record([
                        row.searcher.to_string(),
                        row.space.to_string(),
                        row.model.unwrap_or_default().to_string(),
                        row.seed.to_string(),
                        row.run.to_string(),
                        row.found.to_string(),
                        row.steps.to_string(),
                        row.profiled.to_string(),
                        row.time_s.to_string(),
                        row.tests.to_string(),
                        joined(&row.best_us, |b| b.map_or(String::new(), |v| v.to_string())),
                        joined(&row.elapsed_s, f64::to_string),
                    ])
                    .map_err(|e| e.to_string()),
            };
            written.map_err(|e| Error::file(&self.path, format!("cannot write runs: {e}")))?;
        }
        Ok(())
    }

    /// Flushes the file.
    pub fn finish(self) -> Result<()> {
        let flushed = match self.sink {
            Sink::Csv(mut w) => w.flush(),
            Sink::JsonLines(mut w) => w.flush(),
        };
        flushed.map_err(|e| Error::io(&self.path, e))
    }
}
