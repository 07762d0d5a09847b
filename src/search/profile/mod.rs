//! The profile-based searcher (paper §3.7, Algorithm 1).
//!
//! Profile the best configuration found so far; let the expert system say which counters should
//! change; score every unexplored configuration by how its predicted counters move that way; test
//! `n` configurations drawn with probability proportional to their weights; repeat.

mod score;
mod weighted;

pub use score::{raw_scores, weights, Predictions, ScoreOptions, ZeroPolicy};

use super::{Request, SearchRng, Searcher, SearcherFactory};
use crate::backend::Measurement;
use crate::counters::Generation;
use crate::device::DeviceInfo;
use crate::expert::{analyze, react, ExpertOptions};
use crate::space::ConfigId;
use rand::SeedableRng;
use std::sync::Arc;

/// Everything the searcher's runs share: built once, used by every seeded run.
#[derive(Debug, Clone)]
pub struct ProfileSetup {
    /// Predicted (model) or recorded (exact) counters of every configuration.
    pub predictions: Predictions,
    /// Counter generation of the predictions (the model's GPU, or the tuned GPU when exact).
    pub prediction_generation: Generation,
    /// The GPU being tuned, whose profiled counters are analysed.
    pub device: DeviceInfo,
    /// Expert system settings.
    pub expert: ExpertOptions,
    /// Score-to-weight settings.
    pub score: ScoreOptions,
    /// Plain tests between profiled tests.
    pub plain_tests: usize,
    /// Profile the best configuration again even when its counters are already known (the paper's
    /// loop, which spends a test on it).
    pub reprofile_known: bool,
    /// Label for reports (e.g. `profile(exact)`).
    pub label: String,
}

/// Builds seeded [`ProfileSearch`] runs over a shared [`ProfileSetup`].
pub struct ProfileFactory {
    setup: Arc<ProfileSetup>,
}

impl ProfileFactory {
    /// A factory over `setup`.
    pub fn new(setup: ProfileSetup) -> Self {
        ProfileFactory {
            setup: Arc::new(setup),
        }
    }
}

impl SearcherFactory for ProfileFactory {
    fn name(&self) -> String {
        self.setup.label.clone()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        Box::new(ProfileSearch::new(self.setup.clone(), seed))
    }
}

/// One run of the profile-based searcher.
pub struct ProfileSearch {
    setup: Arc<ProfileSetup>,
    rng: SearchRng,
    explored: Vec<bool>,
    counters_known: Vec<bool>,
    raw: Vec<f64>,
    weights: Vec<f64>,
    best: Option<(ConfigId, f64)>,
    started: bool,
    batch_left: usize,
}

impl ProfileSearch {
    /// A run over `setup` whose random choices derive from `seed`.
    pub fn new(setup: Arc<ProfileSetup>, seed: u64) -> Self {
        let n = setup.predictions.len();
        ProfileSearch {
            setup,
            rng: SearchRng::seed_from_u64(seed),
            explored: vec![false; n],
            counters_known: vec![false; n],
            raw: Vec::with_capacity(n),
            // No profile yet: every configuration is equally likely.
            weights: vec![1.0; n],
            best: None,
            started: false,
            batch_left: 0,
        }
    }

    /// The configuration to profile at the start of a round, if any.
    fn profile_target(&mut self) -> Option<ConfigId> {
        if !self.started {
            self.started = true;
            return weighted::draw(&mut self.rng, &self.weights, &self.explored);
        }
        let (best, _) = self.best?;
        (self.setup.reprofile_known || !self.counters_known[best]).then_some(best)
    }

    fn rescore(&mut self, profiled: ConfigId, measurement: &Measurement) {
        let Some(counters) = &measurement.counters else {
            return;
        };
        let s = &*self.setup;
        let bottlenecks = analyze(counters, &s.device, &s.expert);
        let delta = react(&bottlenecks, s.prediction_generation, &s.expert);
        raw_scores(
            &s.predictions,
            profiled,
            &delta,
            s.score.zero_policy,
            &mut self.raw,
        );
        weights(&self.raw, &self.explored, &s.score, &mut self.weights);
    }
}

impl Searcher for ProfileSearch {
    fn next(&mut self) -> Option<Request> {
        if self.batch_left == 0 {
            self.batch_left = self.setup.plain_tests;
            if let Some(config) = self.profile_target() {
                return Some(Request {
                    config,
                    profile: true,
                });
            }
        }
        let config = weighted::draw(&mut self.rng, &self.weights, &self.explored)?;
        self.batch_left -= 1;
        Some(Request {
            config,
            profile: false,
        })
    }

    fn observe(&mut self, request: Request, outcome: &Measurement) {
        let c = request.config;
        self.explored[c] = true;
        self.weights[c] = 0.0;
        if let Some(t) = outcome.runtime_us {
            if self.best.is_none_or(|(_, b)| t < b) {
                self.best = Some((c, t));
            }
        }
        if request.profile && outcome.counters.is_some() {
            self.counters_known[c] = true;
            self.rescore(c, outcome);
        }
    }
}
