//! Repeated, seeded searches over recorded data, and their statistics.

pub mod holdout;
mod report;
mod stats;

pub use report::{
    geometric_mean, print_comparison, print_simulation, print_summary, searchers_json, SpaceFacts,
};
pub use stats::{derive_seed, StepStats};

use crate::backend::{ReplayBackend, TimeModel};
use crate::counters::CounterValues;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::search::SearcherFactory;
use crate::tuning::{tune, StopRule};
use rayon::prelude::*;
use std::sync::Arc;

/// How one search run went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunResult {
    /// Empirical tests until the first well-performing configuration was measured (or the cap).
    pub steps: usize,
    /// Of those, profiled tests.
    pub profiled: usize,
    /// Simulated time until then, seconds.
    pub time_s: f64,
    /// Whether a well-performing configuration was found within the cap.
    pub found: bool,
}

/// Settings of a repeated experiment.
#[derive(Debug, Clone)]
pub struct Repetition {
    /// Number of runs.
    pub runs: usize,
    /// Master seed; run `i` uses [`derive_seed`]`(seed, i)`.
    pub seed: u64,
    /// Cost of tests in simulated time.
    pub time_model: TimeModel,
    /// Tests after which a run gives up (default: twice the space size).
    pub max_tests: Option<usize>,
}

/// Runs `factory`'s searcher `rep.runs` times on `dataset`, in parallel, each until the first
/// well-performing configuration. Results are in run order and identical for any thread count.
pub fn repeat(
    dataset: &Arc<Dataset>,
    counters: Option<Arc<Vec<CounterValues>>>,
    factory: &dyn SearcherFactory,
    rep: &Repetition,
) -> Result<Vec<RunResult>> {
    if rep.runs == 0 {
        return Err(Error::invalid("--runs must be at least 1"));
    }
    if rep.max_tests == Some(0) {
        return Err(Error::invalid("--max-tests must be at least 1"));
    }
    let threshold = dataset.well_performing_threshold();
    let stop = StopRule {
        target_runtime_us: Some(threshold),
        max_tests: Some(rep.max_tests.unwrap_or(2 * dataset.len())),
        max_time_s: None,
    };
    let backend = ReplayBackend::new(dataset.clone(), counters, rep.time_model.clone());
    (0..rep.runs)
        .into_par_iter()
        .map(|i| {
            let mut backend = backend.clone();
            let mut searcher = factory.build(derive_seed(rep.seed, i as u64));
            let history = tune(&mut backend, searcher.as_mut(), &stop, &[], &mut |_| Ok(()))?;
            let found = history
                .steps
                .last()
                .and_then(|s| s.measurement.runtime_us)
                .is_some_and(|t| t <= threshold);
            Ok(RunResult {
                steps: history.steps.len(),
                profiled: history.steps.iter().filter(|s| s.profiled).count(),
                time_s: history.steps.last().map_or(0.0, |s| s.elapsed_s),
                found,
            })
        })
        .collect()
}
