//! The profile-based searcher (paper §3.7, Algorithm 1).
//!
//! Profile the best configuration found so far; let the expert system say which counters should
//! change; score every unexplored configuration by how its predicted counters move that way; test
//! `n` configurations drawn with probability proportional to their weights; repeat.

mod bandit;
mod calibration;
mod guidance;
mod restart;
mod score;
mod settings;
mod weighted;

pub use guidance::{Arm, Guidance, WhenNoGain};
pub use restart::{luby, Restart, RestartPoint, RestartSchedule};
pub use score::{
    extrapolation_trust, extremes, raw_scores, weights, Predictions, ScoreOptions, ZeroPolicy,
};
pub use settings::{SearchSettings, LOCAL_SCORE_SCALE};

use bandit::Bandit;

use super::sampler::SumTree;
use super::{Request, SearchRng, Searcher, SearcherFactory};
use crate::backend::Measurement;
use crate::counters::{CounterValues, Generation};
use crate::device::DeviceInfo;
use crate::expert::{analyze, react, ExpertOptions};
use crate::space::{hamming_distance, ConfigId, TuningSpace};
use rand::{Rng, SeedableRng};
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
    /// Sampling weights per guidance arm.
    weights: Vec<Vec<f64>>,
    /// `weights` in sum trees, for O(log N) draws and removals.
    trees: Vec<SumTree>,
    /// Weight 1 for each unexplored configuration, 0 once explored (uniform draws).
    unexplored: SumTree,
    bandit: Bandit,
    /// Arm that chose the plain test in flight.
    pending_arm: Option<usize>,
    best: Option<(ConfigId, f64)>,
    started: bool,
    batch_left: usize,
    best_at_round_start: Option<ConfigId>,
    stale_rounds: u32,
    /// Restarts made so far.
    restarts: u32,
    /// Rounds without a new best since the last restart (or the last improvement).
    restart_stale: u32,
    local_active: bool,
    /// Ring (Hamming distance to the best) the draws are restricted to while `local_active`.
    ring: u32,
    /// Distances of every configuration to the configuration named, cached across rounds.
    distance: (Option<ConfigId>, Vec<u32>),
    /// Per arm, the score extremes its weights were normalised by.
    extremes: Vec<(f64, f64)>,
    /// Counters measured on the tuned GPU for every profiled configuration.
    profiled: Vec<(ConfigId, CounterValues)>,
    /// The weights of the unexplored nearest neighbours of `near_centre` (all others 0), for the
    /// plain tests drawn near the best (`Guidance::near_share`).
    near: SumTree,
    /// The best configuration `near` was built around; `None` once the weights changed.
    near_centre: Option<ConfigId>,
}

impl ProfileSearch {
    /// A run over `setup` whose random choices derive from `seed`.
    pub fn new(setup: Arc<ProfileSetup>, seed: u64) -> Self {
        let n = setup.predictions.len();
        let arms = setup.guidance.arms.len().max(1);
        ProfileSearch {
            rng: SearchRng::seed_from_u64(seed),
            explored: vec![false; n],
            counters_known: vec![false; n],
            raw: Vec::with_capacity(n),
            // No profile yet: every configuration is equally likely.
            weights: vec![vec![1.0; n]; arms],
            trees: vec![SumTree::from_weights(&vec![1.0; n]); arms],
            unexplored: SumTree::from_weights(&vec![1.0; n]),
            bandit: Bandit::new(arms),
            pending_arm: None,
            best: None,
            started: false,
            batch_left: 0,
            best_at_round_start: None,
            stale_rounds: 0,
            restarts: 0,
            restart_stale: 0,
            local_active: false,
            ring: 0,
            distance: (None, Vec::new()),
            extremes: vec![(0.0, 0.0); arms],
            profiled: Vec::new(),
            near: SumTree::from_weights(&vec![0.0; n]),
            near_centre: None,
            setup,
        }
    }

    /// The configuration to profile at the start of a round, if any.
    fn profile_target(&mut self) -> Option<ConfigId> {
        if !self.started {
            self.started = true;
            return weighted::draw(&mut self.rng, &self.trees[0], &self.unexplored);
        }
        let (best, _) = self.best?;
        (self.setup.guidance.reprofile_known || !self.counters_known[best]).then_some(best)
    }

    /// The fresh configuration to profile when the run has gone stale long enough to restart.
    fn restart_target(&mut self) -> Option<ConfigId> {
        let restart = self.setup.guidance.restart?;
        if self.restart_stale < restart.threshold(self.restarts + 1) {
            return None;
        }
        self.restarts += 1;
        self.restart_stale = 0;
        let best = self.best.map(|(c, _)| c);
        restart.pick(&mut self.rng, &self.setup.space, &self.explored, best)
    }

    /// Counts rounds without improvement and re-weights: the exponent may depend on staleness, and
    /// the candidates that scored above zero may all have been tested since the last profile.
    fn start_round(&mut self) {
        let best = self.best.map(|(c, _)| c);
        let stale = best.is_some() && best == self.best_at_round_start;
        self.stale_rounds = if stale { self.stale_rounds + 1 } else { 0 };
        self.restart_stale = if stale { self.restart_stale + 1 } else { 0 };
        self.best_at_round_start = best;
        self.reweight();
    }

    /// Zeroes the weights outside the smallest ring around the best configuration that still holds
    /// an unexplored configuration: radius `radius`, widened as the nearer ones are used up.
    /// Hamming distances of every configuration to `centre`, recomputed only when it changes.
    fn distances_to(&mut self, centre: ConfigId) -> &[u32] {
        if self.distance.0 != Some(centre) {
            let space = &self.setup.space;
            let c = space.config(centre);
            self.distance.1.clear();
            self.distance
                .1
                .extend((0..space.len()).map(|id| hamming_distance(space.config(id), c) as u32));
            self.distance.0 = Some(centre);
        }
        &self.distance.1
    }

    /// The smallest ring around the best configuration, at least `radius`, that holds an
    /// unexplored configuration.
    fn ring_around_best(&mut self, radius: usize) -> Option<u32> {
        let (best, _) = self.best?;
        self.distances_to(best);
        let nearest = self
            .distance
            .1
            .iter()
            .zip(&self.explored)
            .filter(|(_, e)| !**e)
            .map(|(d, _)| *d)
            .min()?;
        Some((radius as u32).max(nearest))
    }

    fn restrict_to_neighbourhood(&mut self, radius: usize) {
        let Some(ring) = self.ring_around_best(radius) else {
            return;
        };
        let distance = &self.distance.1;
        for (tree, weights) in self.trees.iter_mut().zip(&self.weights) {
            let inside: Vec<f64> = weights
                .iter()
                .zip(distance)
                .map(|(&w, &d)| if d > ring { 0.0 } else { w })
                .collect();
            tree.rebuild(&inside);
        }
        self.ring = ring;
        self.local_active = true;
    }

    /// Widens a used-up ring around the best configuration. The weights of the configurations
    /// it adds are those a full [`Self::reweight`] would give unless an extreme score has been
    /// explored since, so only the new ring's configurations are touched, O(k log N).
    fn widen_ring(&mut self, radius: usize) {
        let guidance = &self.setup.guidance;
        let unchanged = self.extremes.iter().enumerate().all(|(arm, &used)| {
            let scale = guidance
                .arms
                .get(arm)
                .and_then(|a| a.scale)
                .unwrap_or(self.setup.score.scale);
            extremes(&self.raw, &self.explored, scale) == used
        });
        if !unchanged {
            self.reweight();
            return;
        }
        let old = self.ring;
        let Some(ring) = self.ring_around_best(radius) else {
            return;
        };
        for (c, &d) in self.distance.1.iter().enumerate() {
            if d > old && d <= ring && !self.explored[c] {
                for (tree, weights) in self.trees.iter_mut().zip(&self.weights) {
                    tree.set(c, weights[c]);
                }
            }
        }
        self.ring = ring;
    }

    fn reweight(&mut self) {
        if self.raw.is_empty() {
            return;
        }
        let guidance = &self.setup.guidance;
        let no_gain = !self
            .raw
            .iter()
            .zip(&self.explored)
            .any(|(s, e)| !*e && *s > 0.0);
        let mode = if no_gain {
            guidance.when_no_gain
        } else {
            WhenNoGain::Scores
        };
        let temper = guidance.temper(self.stale_rounds);
        for (index, weights_of_arm) in self.weights.iter_mut().enumerate() {
            let arm = guidance.arms.get(index).copied().unwrap_or(Arm::FULL);
            let strength = match mode {
                WhenNoGain::Uniform => 0.0,
                _ => arm.strength * temper,
            };
            let options = ScoreOptions {
                scale: arm.scale.unwrap_or(self.setup.score.scale),
                ..self.setup.score.clone()
            };
            weights(
                &self.raw,
                &self.explored,
                &options,
                strength,
                weights_of_arm,
            );
            self.extremes[index] = extremes(&self.raw, &self.explored, options.scale);
        }
        self.local_active = false;
        self.near_centre = None;
        if let WhenNoGain::Local { radius } = mode {
            self.restrict_to_neighbourhood(radius);
        } else {
            for (tree, weights) in self.trees.iter_mut().zip(&self.weights) {
                tree.rebuild(weights);
            }
        }
    }

    /// Draws a plain test among the nearest unexplored neighbours of the best configuration: by
    /// score when some of them score, else uniformly among them. Fast configurations cluster in
    /// the tuning space: on every recorded file of Coulomb, transposition and n-body, a neighbour
    /// of a configuration within 1.1-1.3x of the optimum is well-performing 1.2 to 11 times as
    /// often as a random one, whatever the counters say (docs/transfer.md).
    fn draw_near(&mut self) -> Option<ConfigId> {
        let (best, _) = self.best?;
        if self.near_centre != Some(best) || !weighted::any_positive(&self.near) {
            let ring = self.ring_around_best(1)?;
            let (distance, explored, weights) =
                (&self.distance.1, &self.explored, &self.weights[0]);
            let inside = |c: usize| !explored[c] && distance[c] <= ring;
            let scored = (0..explored.len()).any(|c| inside(c) && weights[c] > 0.0);
            let near: Vec<f64> = (0..explored.len())
                .map(|c| match (inside(c), scored) {
                    (false, _) => 0.0,
                    (true, true) => weights[c],
                    (true, false) => 1.0,
                })
                .collect();
            self.near.rebuild(&near);
            self.near_centre = Some(best);
        }
        weighted::draw(&mut self.rng, &self.near, &self.unexplored)
    }

    fn rescore(&mut self, profiled: ConfigId, measurement: &Measurement) {
        let Some(counters) = &measurement.counters else {
            return;
        };
        let s = &*self.setup;
        let bottlenecks = analyze(counters, &s.device, &s.expert);
        let mut delta = react(&bottlenecks, s.prediction_generation, &s.expert);
        self.profiled.push((profiled, *counters));
        if s.guidance.calibrate {
            delta = calibration::calibrated(&delta, &self.profiled, &s.predictions);
        }
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
            let target = if self.started {
                self.restart_target().or_else(|| self.profile_target())
            } else {
                self.profile_target()
            };
            if let Some(config) = target {
                return Some(Request {
                    config,
                    profile: true,
                });
            }
        }
        if self.local_active && !weighted::any_positive(&self.trees[0]) {
            // The ring around the best is used up: widen it.
            if let WhenNoGain::Local { radius } = self.setup.guidance.when_no_gain {
                self.widen_ring(radius);
            } else {
                self.reweight();
            }
        }
        let guidance = &self.setup.guidance;
        let share = guidance.near_share;
        if share > 0.0
            && self.best.is_some()
            && self.stale_rounds >= guidance.near_after
            && self.rng.random::<f64>() < share
        {
            let config = self.draw_near()?;
            self.batch_left -= 1;
            return Some(Request {
                config,
                profile: false,
            });
        }
        // Arms only differ once there are scores; before that, no arm deserves credit.
        let arm = if self.raw.is_empty() {
            None
        } else {
            Some(self.bandit.choose(&mut self.rng))
        };
        let config = weighted::draw(
            &mut self.rng,
            &self.trees[arm.unwrap_or(0)],
            &self.unexplored,
        )?;
        self.pending_arm = arm;
        self.batch_left -= 1;
        Some(Request {
            config,
            profile: false,
        })
    }

    fn observe(&mut self, request: Request, outcome: &Measurement) {
        let c = request.config;
        self.explored[c] = true;
        for (weights, tree) in self.weights.iter_mut().zip(&mut self.trees) {
            weights[c] = 0.0;
            tree.set(c, 0.0);
        }
        self.unexplored.set(c, 0.0);
        self.near.set(c, 0.0);
        if let (Some(arm), false) = (self.pending_arm.take(), request.profile) {
            let success = match (outcome.runtime_us, self.best) {
                (Some(t), Some((_, b))) => t <= b * self.setup.guidance.success_factor,
                (Some(_), None) => true,
                (None, _) => false,
            };
            self.bandit.reward(arm, success);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::Counter;
    use crate::rules::Rules;

    /// A searcher over 200 configurations whose counters never point anywhere, with `restart`.
    fn searcher(restart: Option<Restart>) -> ProfileSearch {
        let mut space = TuningSpace::new(vec!["A".into()]);
        let mut counters = Vec::new();
        for a in 0..200 {
            space.push(&[f64::from(a)]).unwrap();
            let mut v = CounterValues::default();
            v[Counter::DramRt] = 100.0;
            counters.push(v);
        }
        let rules = Rules::builtin().unwrap();
        let setup = ProfileSetup {
            predictions: Predictions::new(&counters),
            prediction_generation: Generation::Volta,
            device: DeviceInfo {
                key: "t".into(),
                name: "t".into(),
                compute_capability: 7.5,
                multiprocessors: 1,
                fp32_cores_per_sm: 64,
            },
            expert: ExpertOptions::new(
                &rules.reaction,
                false,
                crate::expert::Formula::Implementation,
            ),
            score: ScoreOptions::new(&rules.reaction, ZeroPolicy::SkipZero),
            plain_tests: 5,
            guidance: Guidance {
                restart,
                ..Guidance::local(1)
            },
            space: Arc::new(space),
            label: "t".into(),
        };
        ProfileSearch::new(Arc::new(setup), 3)
    }

    /// The rounds (from 1) that start with a profiled test, over `rounds` rounds of 5 plain tests
    /// in which only the first test ever improves on the best.
    fn profiled_rounds(restart: Option<Restart>, rounds: usize) -> Vec<usize> {
        let mut s = searcher(restart);
        let (mut out, mut plain, mut first) = (Vec::new(), 0, true);
        while plain < 5 * rounds {
            let r = s.next().unwrap();
            let mut counters = CounterValues::default();
            counters[Counter::DramRt] = 100.0;
            if r.profile {
                out.push(plain / 5 + 1);
            } else {
                plain += 1;
            }
            let measurement = Measurement {
                runtime_us: Some(if first { 1.0 } else { 2.0 }),
                counters: r.profile.then_some(counters),
                failure: None,
                cost_s: 0.0,
            };
            first = false;
            s.observe(r, &measurement);
        }
        out
    }

    #[test]
    fn near_draws_take_the_neighbours_of_the_best_first() {
        // A 10 x 10 grid whose counters never point anywhere; only the first test is fast.
        let space = crate::space::grid_space(10, 10);
        let base = searcher(None);
        let mut counters = CounterValues::default();
        counters[Counter::DramRt] = 100.0;
        let setup = ProfileSetup {
            predictions: Predictions::new(&vec![counters; 100]),
            guidance: Guidance::local(1).with_near_share(1.0, 0),
            space: Arc::new(space),
            ..(*base.setup).clone()
        };
        let mut s = ProfileSearch::new(Arc::new(setup.clone()), 5);
        let first = s.next().unwrap();
        assert!(first.profile);
        let measure = |fast: bool, profile: bool| Measurement {
            runtime_us: Some(if fast { 1.0 } else { 2.0 }),
            counters: profile.then_some(counters),
            failure: None,
            cost_s: 0.0,
        };
        s.observe(first, &measure(true, true));
        let best = setup.space.config(first.config).to_vec();
        // 9 + 9 neighbours differ from the best in one parameter; they come before anything else.
        for k in 0..18 {
            let r = s.next().unwrap();
            assert!(!r.profile);
            let d = hamming_distance(setup.space.config(r.config), &best);
            assert_eq!(d, 1, "test {k} is {d} parameters away from the best");
            s.observe(r, &measure(false, false));
        }
        let r = s.next().unwrap();
        assert_eq!(hamming_distance(setup.space.config(r.config), &best), 2);
    }

    #[test]
    fn restarts_follow_their_schedule_and_never_otherwise() {
        assert_eq!(profiled_rounds(None, 12), [1], "no restarts: one profile");
        let fixed = Restart {
            after: 1,
            schedule: RestartSchedule::Fixed,
            from: RestartPoint::Random,
        };
        // Round 2 is the first without a new best; every later round restarts.
        assert_eq!(profiled_rounds(Some(fixed), 6), [1, 3, 4, 5, 6]);
        let luby = Restart {
            schedule: RestartSchedule::Luby,
            ..fixed
        };
        // 1, 1, 2, 1, 1, 2 stale rounds before restarts 1 to 6.
        assert_eq!(profiled_rounds(Some(luby), 14), [1, 3, 4, 6, 7, 8, 10, 14]);
    }
}
