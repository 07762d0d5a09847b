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
use crate::space::{hamming_distance, ConfigId, TuningSpace};
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
    /// How strongly scores steer the draws, and how that adapts.
    pub guidance: Guidance,
    /// The tuning space (for neighbourhoods).
    pub space: Arc<TuningSpace>,
    /// Label for reports (e.g. `profile(exact)`).
    pub label: String,
}

/// How the searcher uses its scores (DESIGN.md §4; issue "robust guidance").
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum Guidance {
    /// As published: fixed exponent, and the best configuration is profiled every round even when
    /// its counters are already known (spending a test to learn nothing new).
    Paper,
    /// Fixed exponent, but a configuration whose counters are known is never profiled again.
    Fixed,
    /// Like `Fixed`, and every round that fails to improve on the best configuration multiplies the
    /// exponent by `decay` (back to full strength on improvement). When the counters ask for changes
    /// no remaining configuration delivers, guidance fades into random search instead of piling the
    /// draws onto configurations that merely look neutral.
    Tempered {
        /// Factor applied to the exponent per stale round, in 0..1.
        decay: f64,
    },
    /// Like `Fixed`, but when no candidate scores above zero (the counters ask for changes nothing
    /// left can deliver), draw uniformly among the unexplored configurations.
    Uniform,
    /// Like `Fixed`, but when no candidate scores above zero, restrict the draws to the unexplored
    /// configurations within `radius` tuning parameters of the best one (still weighted by score),
    /// falling back to the whole space when that neighbourhood is exhausted.
    Local {
        /// Largest number of differing tuning parameters of a neighbour.
        radius: usize,
    },
}

impl Guidance {
    fn reprofiles_known(self) -> bool {
        self == Guidance::Paper
    }

    fn temper(self, stale_rounds: u32) -> f64 {
        match self {
            Guidance::Tempered { decay } => decay.powi(stale_rounds as i32),
            _ => 1.0,
        }
    }
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
    best_at_round_start: Option<ConfigId>,
    stale_rounds: u32,
    local_active: bool,
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
            best_at_round_start: None,
            stale_rounds: 0,
            local_active: false,
        }
    }

    /// The configuration to profile at the start of a round, if any.
    fn profile_target(&mut self) -> Option<ConfigId> {
        if !self.started {
            self.started = true;
            return weighted::draw(&mut self.rng, &self.weights, &self.explored);
        }
        let (best, _) = self.best?;
        (self.setup.guidance.reprofiles_known() || !self.counters_known[best]).then_some(best)
    }

    /// Counts rounds without improvement and re-weights when the guidance strength depends on it.
    fn start_round(&mut self) {
        let best = self.best.map(|(c, _)| c);
        let stale = if best.is_some() && best == self.best_at_round_start {
            self.stale_rounds + 1
        } else {
            0
        };
        self.best_at_round_start = best;
        if stale != self.stale_rounds {
            self.stale_rounds = stale;
            self.reweight();
        }
    }

    /// Zeroes the weights outside the smallest ring around the best configuration that still holds
    /// an unexplored configuration: radius `radius`, widened as the nearer ones are used up.
    fn restrict_to_neighbourhood(&mut self, radius: usize) {
        let Some((best, _)) = self.best else {
            return;
        };
        let space = &self.setup.space;
        let centre = space.config(best);
        let distance: Vec<usize> = (0..space.len())
            .map(|id| hamming_distance(space.config(id), centre))
            .collect();
        let nearest = distance
            .iter()
            .zip(&self.explored)
            .filter(|(_, e)| !**e)
            .map(|(d, _)| *d)
            .min();
        let Some(nearest) = nearest else {
            return;
        };
        let ring = radius.max(nearest);
        for (w, d) in self.weights.iter_mut().zip(&distance) {
            if *d > ring {
                *w = 0.0;
            }
        }
        self.local_active = true;
    }

    fn reweight(&mut self) {
        if self.raw.is_empty() {
            return;
        }
        let no_positive = !self
            .raw
            .iter()
            .zip(&self.explored)
            .any(|(s, e)| !*e && *s > 0.0);
        self.local_active = false;
        if no_positive {
            match self.setup.guidance {
                Guidance::Uniform => {
                    for (w, e) in self.weights.iter_mut().zip(&self.explored) {
                        *w = if *e { 0.0 } else { 1.0 };
                    }
                    return;
                }
                Guidance::Local { radius } => {
                    weights(
                        &self.raw,
                        &self.explored,
                        &self.setup.score,
                        1.0,
                        &mut self.weights,
                    );
                    self.restrict_to_neighbourhood(radius);
                    return;
                }
                _ => {}
            }
        }
        let temper = self.setup.guidance.temper(self.stale_rounds);
        weights(
            &self.raw,
            &self.explored,
            &self.setup.score,
            temper,
            &mut self.weights,
        );
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
        self.reweight();
    }
}

impl Searcher for ProfileSearch {
    fn next(&mut self) -> Option<Request> {
        if self.batch_left == 0 {
            self.batch_left = self.setup.plain_tests;
            self.start_round();
            if let Some(config) = self.profile_target() {
                return Some(Request {
                    config,
                    profile: true,
                });
            }
        }
        if self.local_active && !weighted::any_positive(&self.weights, &self.explored) {
            // The ring around the best is used up: widen it.
            self.reweight();
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
