//! The tuning loop: searcher proposes, backend measures, history records.

use crate::backend::{Backend, Measurement};
use crate::error::Result;
use crate::search::Searcher;
use crate::space::ConfigId;

/// One empirical test as it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Configuration tested.
    pub config: ConfigId,
    /// Whether counters were collected.
    pub profiled: bool,
    /// The measurement.
    pub measurement: Measurement,
    /// Time spent from the start of tuning up to the end of this test, seconds.
    pub elapsed_s: f64,
}

/// When to stop a tuning run; the first condition met ends it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StopRule {
    /// Stop once a configuration at least this fast (µs) has been measured.
    pub target_runtime_us: Option<f64>,
    /// Stop after this many tests.
    pub max_tests: Option<usize>,
    /// Stop once this much (simulated or real) time has been spent, seconds.
    pub max_time_s: Option<f64>,
}

impl StopRule {
    fn reached(&self, steps: &[Step]) -> bool {
        // Checked before looking at the last test, so that a cap of 0 tests makes none.
        if self.max_tests.is_some_and(|n| steps.len() >= n) {
            return true;
        }
        let Some(last) = steps.last() else {
            return false;
        };
        self.target_runtime_us
            .is_some_and(|t| last.measurement.runtime_us.is_some_and(|r| r <= t))
            || self.max_time_s.is_some_and(|t| last.elapsed_s >= t)
    }
}

/// Everything a tuning run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// Tests in the order they were made.
    pub steps: Vec<Step>,
}

impl History {
    /// The fastest successful test.
    pub fn best(&self) -> Option<&Step> {
        self.steps
            .iter()
            .filter(|s| s.measurement.runtime_us.is_some())
            .min_by(|a, b| {
                a.measurement
                    .runtime_us
                    .partial_cmp(&b.measurement.runtime_us)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
    }
}

/// Runs `searcher` against `backend` until `stop` holds or the searcher has nothing left.
///
/// `on_step` sees every new test as soon as it is measured (journals, progress bars). `journal`
/// holds tests made by an earlier, interrupted run with the same seed: when the searcher asks for
/// one of them again, the recorded measurement is replayed instead of running the backend, so a
/// resumed run repeats the interrupted one's decisions without repeating its tests.
pub fn tune(
    backend: &mut dyn Backend,
    searcher: &mut dyn Searcher,
    stop: &StopRule,
    journal: &[Step],
    on_step: &mut dyn FnMut(&Step) -> Result<()>,
) -> Result<History> {
    let mut recorded: std::collections::HashMap<(ConfigId, bool), &Step> = journal
        .iter()
        .map(|s| ((s.config, s.profiled), s))
        .collect();
    let mut history = History::default();
    let mut elapsed = 0.0;
    while !stop.reached(&history.steps) {
        let Some(request) = searcher.next() else {
            break;
        };
        let (measurement, fresh) = match recorded.remove(&(request.config, request.profile)) {
            Some(old) => (old.measurement.clone(), false),
            None => (backend.measure(request.config, request.profile)?, true),
        };
        elapsed += measurement.cost_s;
        searcher.observe(request, &measurement);
        let step = Step {
            config: request.config,
            profiled: request.profile,
            measurement,
            elapsed_s: elapsed,
        };
        if fresh {
            on_step(&step)?;
        }
        history.steps.push(step);
    }
    Ok(history)
}
