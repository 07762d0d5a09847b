//! Repeated, seeded searches over recorded data, and their statistics.

mod comparison;
mod curves;
pub mod holdout;
mod plot;
mod progress;
mod report;
mod runs_out;
mod score;
mod stats;
mod trace;

pub use comparison::{plot_space, summary_scores, SearcherOutcome, SpaceSetup};
pub use curves::{best_after_tests, best_at_time, Band, Scale};
pub use plot::{plot_dir, summary as plot_summary};
pub use progress::progress_bar;
pub use report::{
    geometric_mean, print_comparison, print_scores, print_simulation, print_summary, scores_json,
    searchers_json, short_name, SpaceFacts,
};
pub use runs_out::{RunsContext, RunsWriter};
pub use score::{
    random_expected_best, relative_performance, SpaceBudget, SpacePerformance, SummaryScore,
    BUDGET_POINTS,
};
pub use stats::{derive_seed, StepStats};
pub use trace::{mean_plain_cost, random_budget_tests, repeat_traced, Horizon, RunTrace};

use crate::backend::TimeModel;
use crate::counters::CounterValues;
use crate::data::Dataset;
use crate::error::Result;
use crate::search::SearcherFactory;
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
    let traces = repeat_traced(dataset, counters, factory, rep, Horizon::NONE, None)?;
    Ok(traces.into_iter().map(|t| t.result).collect())
}
