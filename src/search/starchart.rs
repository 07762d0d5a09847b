//! Starchart (Jia, Shaw and Martonosi, "Starchart: hardware and software optimization using
//! recursive partitioning regression trees", PACT 2013) run by the protocol the profile-based
//! searcher's paper compares with (Filipovič et al., JPDC 2021, §4.8, Table 8).
//!
//! Model build: 200 random validation configurations, then training samples in steps of 20 until
//! the median relative error of a regression tree fitted to the training runtimes is below 15 %
//! on the validation set (or 200 training samples). Tuning: the configurations not yet measured,
//! in the order of their predicted runtime. Every validation and training sample is a test, as in
//! the paper's counts (which exceed the size of the 210-configuration Coulomb space): training
//! samples are drawn from the whole space, so they may repeat a validation configuration.

use super::{Request, SearchRng, Searcher, SearcherFactory};
use crate::backend::Measurement;
use crate::model::FlatTree;
use crate::space::{ConfigId, TuningSpace};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_regressor::{
    DecisionTreeRegressor, DecisionTreeRegressorParameters,
};
use std::collections::HashMap;
use std::sync::Arc;

/// The protocol's constants (paper §4.8).
const VALIDATION: usize = 200;
const TRAINING_STEP: usize = 20;
const TRAINING_MAX: usize = 200;
const TARGET_ERROR: f64 = 0.15;

/// Builds [`Starchart`] searchers over one space.
pub struct StarchartFactory {
    space: Arc<TuningSpace>,
}

impl StarchartFactory {
    /// Starchart over `space`.
    pub fn new(space: Arc<TuningSpace>) -> Self {
        StarchartFactory { space }
    }
}

impl SearcherFactory for StarchartFactory {
    fn name(&self) -> String {
        "starchart".into()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        Box::new(Starchart::new(self.space.clone(), seed))
    }
}

/// What the searcher is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Measuring the validation set.
    Validation,
    /// Measuring training samples.
    Training,
    /// Testing configurations in the order of predicted runtime.
    Tuning,
}

/// One Starchart run.
pub struct Starchart {
    space: Arc<TuningSpace>,
    rng: SearchRng,
    phase: Phase,
    /// Tests requested in the current phase, in order; `next` walks it.
    queue: Vec<ConfigId>,
    at: usize,
    validation: Vec<(ConfigId, Option<f64>)>,
    training: Vec<(ConfigId, Option<f64>)>,
    /// Training candidates not yet drawn, shuffled.
    pool: Vec<ConfigId>,
    measured: HashMap<ConfigId, Option<f64>>,
    build_tests: usize,
    ranking: Vec<ConfigId>,
}

impl Starchart {
    /// A run over `space` whose samples and tie-breaks derive from `seed`.
    pub fn new(space: Arc<TuningSpace>, seed: u64) -> Self {
        let mut rng = SearchRng::seed_from_u64(seed);
        let n = space.len();
        let queue = rand::seq::index::sample(&mut rng, n, VALIDATION.min(n)).into_vec();
        let mut pool: Vec<ConfigId> = (0..n).collect();
        pool.shuffle(&mut rng);
        Starchart {
            space,
            rng,
            phase: Phase::Validation,
            queue,
            at: 0,
            validation: Vec::new(),
            training: Vec::new(),
            pool,
            measured: HashMap::new(),
            build_tests: 0,
            ranking: Vec::new(),
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Tests spent building the model (validation and training), once tuning has begun.
    pub fn model_build_tests(&self) -> Option<usize> {
        (self.phase == Phase::Tuning).then_some(self.build_tests)
    }

    /// Draws the next 20 training samples (fewer when the space runs out).
    fn draw_training(&mut self) {
        let take = TRAINING_STEP.min(self.pool.len());
        self.queue = self.pool.split_off(self.pool.len() - take);
        self.at = 0;
    }

    /// After a phase's tests are all measured: the next phase's tests.
    fn advance(&mut self) {
        match self.phase {
            Phase::Validation => {
                self.phase = Phase::Training;
                self.draw_training();
            }
            Phase::Training => {
                let tree = self.fit();
                let done = self.training.len() >= TRAINING_MAX
                    || self.pool.is_empty()
                    || tree
                        .as_ref()
                        .is_some_and(|t| self.validation_error(t) < TARGET_ERROR);
                if done {
                    self.start_tuning(tree);
                } else {
                    self.draw_training();
                }
            }
            Phase::Tuning => {}
        }
    }

    fn start_tuning(&mut self, tree: Option<FlatTree>) {
        self.phase = Phase::Tuning;
        self.build_tests = self.validation.len() + self.training.len();
        let mut order: Vec<ConfigId> = (0..self.space.len()).collect();
        // Shuffled first so that ties in the (piecewise constant) prediction break at random.
        order.shuffle(&mut self.rng);
        if let Some(tree) = tree {
            let predicted: Vec<f64> = (0..self.space.len())
                .map(|id| tree.predict(self.space.config(id)))
                .collect();
            order.sort_by(|&a, &b| predicted[a].total_cmp(&predicted[b]));
        }
        self.ranking = order;
        self.queue = self
            .ranking
            .iter()
            .copied()
            .filter(|id| !self.measured.contains_key(id))
            .collect();
        self.at = 0;
    }

    /// Every configuration in the order of predicted runtime, once tuning has begun.
    pub fn ranking(&self) -> &[ConfigId] {
        &self.ranking
    }

    /// A regression tree of runtime on the parameters, fitted to the successful training samples.
    fn fit(&self) -> Option<FlatTree> {
        let rows: Vec<(ConfigId, f64)> = self
            .training
            .iter()
            .filter_map(|&(id, t)| t.map(|t| (id, t)))
            .collect();
        if rows.is_empty() {
            return None;
        }
        let width = self.space.parameters().len();
        let mut x = Vec::with_capacity(rows.len() * width);
        for &(id, _) in &rows {
            x.extend_from_slice(self.space.config(id));
        }
        let y: Vec<f64> = rows.iter().map(|&(_, t)| t).collect();
        if y.iter().all(|&t| t == y[0]) {
            return Some(FlatTree::constant(y[0]));
        }
        let x = DenseMatrix::new(rows.len(), width, x, false).ok()?;
        let params = DecisionTreeRegressorParameters {
            seed: Some(0),
            ..Default::default()
        };
        let tree = DecisionTreeRegressor::fit(&x, &y, params).ok()?;
        FlatTree::from_smartcore(&tree).ok()
    }

    /// Median of |predicted − measured| / measured over the successful validation samples.
    fn validation_error(&self, tree: &FlatTree) -> f64 {
        let mut errors: Vec<f64> = self
            .validation
            .iter()
            .filter_map(|&(id, t)| t.map(|t| (tree.predict(self.space.config(id)) - t).abs() / t))
            .collect();
        if errors.is_empty() {
            return 0.0;
        }
        errors.sort_by(f64::total_cmp);
        let m = errors.len();
        if m % 2 == 1 {
            errors[m / 2]
        } else {
            (errors[m / 2 - 1] + errors[m / 2]) / 2.0
        }
    }
}

impl Searcher for Starchart {
    fn next(&mut self) -> Option<Request> {
        while self.at == self.queue.len() {
            if self.phase == Phase::Tuning {
                return None;
            }
            self.advance();
        }
        let config = self.queue[self.at];
        self.at += 1;
        Some(Request {
            config,
            profile: false,
        })
    }

    fn observe(&mut self, request: Request, outcome: &Measurement) {
        let sample = (request.config, outcome.runtime_us);
        self.measured.insert(request.config, outcome.runtime_us);
        match self.phase {
            Phase::Validation => self.validation.push(sample),
            Phase::Training => self.training.push(sample),
            Phase::Tuning => {}
        }
    }
}

/// Mean tests of the two phases of Table 8 over runs with `seeds`: model build (validation and
/// training) and tuning, the position in the predicted order of the first well-performing
/// configuration (the tests the model's order needs on its own, as if nothing had been measured
/// while building it).
pub fn phase_steps(
    space: &Arc<TuningSpace>,
    runtimes: &[Option<f64>],
    threshold: f64,
    seeds: impl Iterator<Item = u64>,
) -> (f64, f64) {
    let mut build = 0.0;
    let mut tuning = 0.0;
    let mut runs = 0.0_f64;
    for seed in seeds {
        let mut s = Starchart::new(space.clone(), seed);
        while let Some(r) = s.next() {
            if s.phase() == Phase::Tuning {
                break;
            }
            let outcome = Measurement {
                runtime_us: runtimes[r.config],
                counters: None,
                failure: None,
                cost_s: 0.0,
            };
            s.observe(r, &outcome);
        }
        build += s.model_build_tests().unwrap_or(0) as f64;
        let good = |id: &ConfigId| runtimes[*id].is_some_and(|t| t <= threshold);
        tuning += s.ranking().iter().position(good).map_or(0, |p| p + 1) as f64;
        runs += 1.0;
    }
    (build / runs.max(1.0), tuning / runs.max(1.0))
}
