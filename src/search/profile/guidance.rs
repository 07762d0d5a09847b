//! How the profile-based searcher turns scores into draws, and how that adapts during a run.

use super::restart::Restart;
use serde::Serialize;

/// What to do when no unexplored configuration scores above zero, i.e. the counters ask for changes
/// that nothing left can deliver.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum WhenNoGain {
    /// Keep drawing by score (the paper): the draws pile onto configurations that merely look
    /// neutral (score 0).
    Scores,
    /// Draw uniformly among the unexplored configurations.
    Uniform,
    /// Draw by score among the unexplored configurations within `radius` tuning parameters of the
    /// best one, widening the ring when it is used up (local search, paper §3.9.1).
    Local {
        /// Largest number of tuning parameters in which a neighbour differs from the best.
        radius: usize,
    },
}

/// One way of turning scores into weights, among which the bandit picks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Arm {
    /// Factor on the exponent: 1 is the paper's sharpness, 0 uniform draws.
    pub strength: f64,
    /// Score scale of the normalisation (see `ScoreOptions::scale`); `None` keeps the searcher's.
    pub scale: Option<f64>,
}

impl Arm {
    /// The searcher's own mapping at full strength.
    pub const FULL: Arm = Arm {
        strength: 1.0,
        scale: None,
    };
}

/// The searcher's guidance policy. [`Guidance::paper`] is the published behaviour.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Guidance {
    /// Profile the best configuration every round even when its counters are already known.
    pub reprofile_known: bool,
    /// Multiply the exponent by this after each round that did not improve on the best.
    pub stale_decay: Option<f64>,
    /// Behaviour when no candidate scores above zero.
    pub when_no_gain: WhenNoGain,
    /// Score-to-weight mappings among which a Thompson-sampling bandit picks for every plain test;
    /// a single entry means no bandit.
    pub arms: Vec<Arm>,
    /// A plain test counts as a success for its arm when its runtime is at most this factor times
    /// the best runtime measured before it.
    pub success_factor: f64,
    /// Scale each counter's desired change by how well its predicted changes between the profiled
    /// configurations agreed with the measured ones (see `calibration`).
    pub calibrate: bool,
    /// Start over from a fresh configuration after rounds without a new best (none: never).
    pub restart: Option<Restart>,
    /// Share of plain tests drawn, by score, among the unexplored nearest neighbours of the best
    /// configuration (one tuning parameter changed, more once those are used up) instead of the
    /// whole space; 0 draws every plain test from the whole space.
    pub near_share: f64,
    /// Rounds without a new best before plain tests are drawn near the best (0: from the start):
    /// while the counters lead to better configurations, every test follows them.
    pub near_after: u32,
}

impl Guidance {
    /// As published: fixed exponent, re-profiling, scores even when nothing scores above zero.
    pub fn paper() -> Self {
        Guidance {
            reprofile_known: true,
            stale_decay: None,
            when_no_gain: WhenNoGain::Scores,
            arms: vec![Arm::FULL],
            success_factor: 1.0,
            calibrate: false,
            restart: None,
            near_share: 0.0,
            near_after: 0,
        }
    }

    /// The paper's loop without spending tests on re-profiling known configurations.
    pub fn fixed() -> Self {
        Guidance {
            reprofile_known: false,
            ..Guidance::paper()
        }
    }

    /// Exponent tempering by `decay` per stale round.
    pub fn tempered(decay: f64) -> Self {
        Guidance {
            stale_decay: Some(decay),
            ..Guidance::fixed()
        }
    }

    /// Uniform draws when nothing scores above zero.
    pub fn uniform() -> Self {
        Guidance {
            when_no_gain: WhenNoGain::Uniform,
            ..Guidance::fixed()
        }
    }

    /// Local search around the best when nothing scores above zero.
    pub fn local(radius: usize) -> Self {
        Guidance {
            when_no_gain: WhenNoGain::Local { radius },
            ..Guidance::fixed()
        }
    }

    /// Local search when nothing scores above zero, plus a bandit between full guidance and
    /// uniform draws that learns, per run, whether guided picks beat unguided ones.
    pub fn adaptive(radius: usize) -> Self {
        Guidance {
            arms: vec![
                Arm::FULL,
                Arm {
                    strength: 0.0,
                    scale: None,
                },
            ],
            success_factor: 1.2,
            ..Guidance::local(radius)
        }
    }

    /// Local search plus a bandit between the searcher's own mapping and a damped one (`scale`),
    /// learning per run whether small predicted differences are worth following.
    pub fn damping(radius: usize, scale: f64, success_factor: f64) -> Self {
        Guidance {
            arms: vec![
                Arm::FULL,
                Arm {
                    strength: 1.0,
                    scale: Some(scale),
                },
            ],
            success_factor,
            ..Guidance::local(radius)
        }
    }

    /// Local search plus calibration of the predictions against the profiled counters.
    pub fn calibrated(radius: usize) -> Self {
        Guidance {
            calibrate: true,
            ..Guidance::local(radius)
        }
    }

    /// This guidance with restarts.
    pub fn with_restart(self, restart: Restart) -> Self {
        Guidance {
            restart: Some(restart),
            ..self
        }
    }

    /// This guidance drawing `share` of the plain tests near the best configuration once `after`
    /// rounds in a row found no new best.
    pub fn with_near_share(self, share: f64, after: u32) -> Self {
        Guidance {
            near_share: share,
            near_after: after,
            ..self
        }
    }

    /// Exponent factor after `stale_rounds` rounds without improvement.
    pub fn temper(&self, stale_rounds: u32) -> f64 {
        self.stale_decay
            .map_or(1.0, |d| d.powi(stale_rounds.min(1000) as i32))
    }
}
