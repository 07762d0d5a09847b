//! Runs recorded test by test, continued past their first well-performing configuration to a
//! common horizon, so that convergence curves and budget-based scores compare like with like.

use super::{derive_seed, Repetition, RunResult};
use crate::backend::{Measurement, ReplayBackend, TimeModel};
use crate::counters::CounterValues;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::search::{Request, Searcher, SearcherFactory};
use crate::tuning::{tune, StopRule};
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::sync::Arc;

/// One run, test by test.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTrace {
    /// Index of the run under the master seed.
    pub run: usize,
    /// Steps, time and profiled tests to the first well-performing configuration.
    pub result: RunResult,
    /// Best runtime measured so far after each test, µs; NaN until a test succeeds.
    pub best_us: Vec<f64>,
    /// Simulated seconds spent after each test.
    pub elapsed_s: Vec<f64>,
}

/// How far every run goes even after it has found a well-performing configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Horizon {
    /// Tests every run makes at least.
    pub tests: usize,
    /// Simulated seconds every run spends at least.
    pub seconds: f64,
}

impl Horizon {
    /// No horizon: a run stops at its first well-performing configuration.
    pub const NONE: Horizon = Horizon {
        tests: 0,
        seconds: 0.0,
    };

    /// The horizon of comparisons on `dataset`: the summary score's budget, the tests random
    /// search needs on average for a well-performing configuration and as many tests' worth of its
    /// mean test cost; twice that for `plots`, so that convergence curves show what follows.
    pub fn for_space(dataset: &Dataset, time: &TimeModel, plots: bool) -> Horizon {
        let tests = if plots { 2 } else { 1 } * random_budget_tests(dataset);
        Horizon {
            tests,
            seconds: tests as f64 * mean_plain_cost(dataset, time),
        }
    }
}

/// Tests random search without replacement needs on average for a well-performing
/// configuration, rounded up: ⌈(N+1)/(K+1)⌉.
pub fn random_budget_tests(dataset: &Dataset) -> usize {
    let n = dataset.len();
    let k = dataset.well_performing().iter().filter(|&&w| w).count();
    (n + 1).div_ceil(k + 1)
}

/// Mean cost of a plain test over all configurations: what a random search's test costs on
/// average.
pub fn mean_plain_cost(dataset: &Dataset, time: &TimeModel) -> f64 {
    let total: f64 = dataset
        .records
        .iter()
        .map(|r| time.cost(r.runtime_us, r.overhead_us, false))
        .sum();
    total / dataset.len().max(1) as f64
}

/// Lets a searcher go on until it has found a well-performing configuration and reached the
/// horizon, then reports that it has nothing left (which ends the tuning loop).
struct UntilHorizon {
    inner: Box<dyn Searcher>,
    threshold: f64,
    horizon: Horizon,
    tests: usize,
    elapsed: f64,
    found: bool,
}

impl Searcher for UntilHorizon {
    fn next(&mut self) -> Option<Request> {
        if self.found && self.tests >= self.horizon.tests && self.elapsed >= self.horizon.seconds {
            return None;
        }
        self.inner.next()
    }

    fn observe(&mut self, request: Request, outcome: &Measurement) {
        self.tests += 1;
        self.elapsed += outcome.cost_s;
        self.found |= outcome.runtime_us.is_some_and(|t| t <= self.threshold);
        self.inner.observe(request, outcome);
    }
}

/// Runs `factory`'s searcher `rep.runs` times on `dataset`, in parallel, each until it has found
/// a well-performing configuration and reached `horizon` (or hit the test cap), recording every
/// test. Results are in run order and identical for any thread count; `progress` advances by one
/// per finished run.
pub fn repeat_traced(
    dataset: &Arc<Dataset>,
    counters: Option<Arc<Vec<CounterValues>>>,
    factory: &dyn SearcherFactory,
    rep: &Repetition,
    horizon: Horizon,
    progress: Option<&ProgressBar>,
) -> Result<Vec<RunTrace>> {
    if rep.runs == 0 {
        return Err(Error::invalid("--runs must be at least 1"));
    }
    if rep.max_tests == Some(0) {
        return Err(Error::invalid("--max-tests must be at least 1"));
    }
    let threshold = dataset.well_performing_threshold();
    let stop = StopRule {
        target_runtime_us: None,
        max_tests: Some(rep.max_tests.unwrap_or(2 * dataset.len())),
        max_time_s: None,
    };
    let backend = ReplayBackend::new(dataset.clone(), counters, rep.time_model.clone());
    (0..rep.runs)
        .into_par_iter()
        .map(|i| {
            let mut backend = backend.clone();
            let mut searcher = UntilHorizon {
                inner: factory.build(derive_seed(rep.seed, i as u64)),
                threshold,
                horizon,
                tests: 0,
                elapsed: 0.0,
                found: false,
            };
            let history = tune(&mut backend, &mut searcher, &stop, &[], &mut |_| Ok(()))?;
            let mut best = f64::NAN;
            let best_us: Vec<f64> = history
                .steps
                .iter()
                .map(|s| {
                    if let Some(t) = s.measurement.runtime_us {
                        best = best.min(t);
                    }
                    best
                })
                .collect();
            let elapsed_s: Vec<f64> = history.steps.iter().map(|s| s.elapsed_s).collect();
            let first = history
                .steps
                .iter()
                .position(|s| s.measurement.runtime_us.is_some_and(|t| t <= threshold));
            let steps = first.map_or(history.steps.len(), |p| p + 1);
            let result = RunResult {
                steps,
                profiled: history.steps[..steps].iter().filter(|s| s.profiled).count(),
                time_s: if steps == 0 {
                    0.0
                } else {
                    elapsed_s[steps - 1]
                },
                found: first.is_some(),
            };
            if let Some(bar) = progress {
                bar.inc(1);
            }
            Ok(RunTrace {
                run: i,
                result,
                best_us,
                elapsed_s,
            })
        })
        .collect()
}
