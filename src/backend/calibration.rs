//! Fits the replay clock to the per-test overheads a KTT 2.x JSON output records.
//!
//! KTT 2 profiles every test when asked to and splits each test's wall time into compilation
//! (`ComputationResults[].Overhead`), data movement, validation and searcher time, and reports the
//! sum of all of them plus the profiling runs as `TotalOverhead`. What is left after subtracting
//! the parts is what profiling cost, which grows linearly with the kernel's runtime (one replay
//! per counter pass) on top of a fixed session cost; a least-squares line gives both.

use super::TimeModel;
use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::Path;

/// Clock constants fitted to one KTT 2 recording.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockCalibration {
    /// Tests that had every overhead field and a runtime.
    pub tests: usize,
    /// Mean compilation time per test, seconds.
    pub compile_s: f64,
    /// Mean data movement + validation + searcher time per test, seconds.
    pub test_overhead_s: f64,
    /// Slope of profiling time against kernel runtime: kernel replays per profiled test.
    pub profiling_passes: f64,
    /// Intercept of profiling time: fixed cost of a profiled test, seconds.
    pub profiler_overhead_s: f64,
    /// Share of the variance of profiling time the line explains.
    pub r_squared: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct File {
    results: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Entry {
    status: Option<String>,
    total_duration: Option<f64>,
    total_overhead: Option<f64>,
    data_movement_overhead: Option<f64>,
    validation_overhead: Option<f64>,
    searcher_overhead: Option<f64>,
    #[serde(default)]
    computation_results: Vec<Computation>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Computation {
    overhead: Option<f64>,
}

/// One test's parts, seconds.
struct Parts {
    runtime: f64,
    compile: f64,
    other: f64,
    profiling: f64,
}

impl Entry {
    fn parts(&self) -> Option<Parts> {
        if self.status.as_deref().is_some_and(|s| s != "Ok") {
            return None;
        }
        if self.computation_results.is_empty() {
            return None;
        }
        let compile: f64 = self
            .computation_results
            .iter()
            .map(|c| c.overhead)
            .sum::<Option<f64>>()?;
        let other =
            self.data_movement_overhead? + self.validation_overhead? + self.searcher_overhead?;
        let total = self.total_overhead?;
        Some(Parts {
            runtime: self.total_duration? * 1e-6,
            compile: compile * 1e-6,
            other: other * 1e-6,
            profiling: (total - compile - other) * 1e-6,
        })
    }
}

impl ClockCalibration {
    /// Fits the clock to the KTT 2 JSON output at `path`.
    pub fn from_ktt2_json(path: &Path) -> Result<ClockCalibration> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let file: File = serde_json::from_str(&text).map_err(|e| {
            Error::parse(
                path,
                e.line(),
                format!("not KTT 2 JSON output with per-test overheads: {e}"),
            )
        })?;
        let parts: Vec<Parts> = file.results.iter().filter_map(Entry::parts).collect();
        if parts.len() < 2 {
            return Err(Error::file(
                path,
                "fewer than two successful tests with TotalDuration, TotalOverhead, DataMovementOverhead, ValidationOverhead, SearcherOverhead and a compilation Overhead: nothing to fit the clock to",
            ));
        }
        let n = parts.len() as f64;
        let mean = |f: &dyn Fn(&Parts) -> f64| parts.iter().map(f).sum::<f64>() / n;
        let mean_rt = mean(&|p| p.runtime);
        let mean_prof = mean(&|p| p.profiling);
        let sxx = parts
            .iter()
            .map(|p| (p.runtime - mean_rt).powi(2))
            .sum::<f64>();
        let sxy = parts
            .iter()
            .map(|p| (p.runtime - mean_rt) * (p.profiling - mean_prof))
            .sum::<f64>();
        if sxx <= 0.0 {
            return Err(Error::file(
                path,
                "every test has the same runtime, so profiling time cannot be split into a per-run and a fixed part",
            ));
        }
        let slope = sxy / sxx;
        let intercept = mean_prof - slope * mean_rt;
        let syy = parts
            .iter()
            .map(|p| (p.profiling - mean_prof).powi(2))
            .sum::<f64>();
        let residual = parts
            .iter()
            .map(|p| (p.profiling - intercept - slope * p.runtime).powi(2))
            .sum::<f64>();
        Ok(ClockCalibration {
            tests: parts.len(),
            compile_s: mean(&|p| p.compile),
            test_overhead_s: mean(&|p| p.other),
            profiling_passes: slope,
            profiler_overhead_s: intercept,
            r_squared: if syy > 0.0 { 1.0 - residual / syy } else { 1.0 },
        })
    }

    /// The clock with these constants: KTT times one run per test, and the recording's own
    /// compilation times are used where a replayed file has them.
    pub fn time_model(&self, runtime_scale: f64) -> TimeModel {
        TimeModel {
            compile_s: self.compile_s,
            test_overhead_s: self.test_overhead_s,
            runs_per_test: 1.0,
            profiling_passes: self.profiling_passes.max(0.0),
            profiler_overhead_s: self.profiler_overhead_s.max(0.0),
            runtime_scale,
            use_recorded_overhead: true,
        }
    }
}
