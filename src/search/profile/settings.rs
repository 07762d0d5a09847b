//! Named settings of the profile-based searcher: the published behaviour, the default, and the
//! variants the leave-one-benchmark-out protocol (`pcsearch holdout`) weighs against each other.

use super::{Guidance, Restart, RestartPoint, RestartSchedule};
use serde::Serialize;

/// How scores steer one searcher: its guidance policy and score normalisation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchSettings {
    /// Short name used in reports.
    pub name: String,
    /// Guidance policy.
    pub guidance: Guidance,
    /// Smallest score treated as a real predicted change (see `ScoreOptions::scale`).
    pub score_scale: f64,
}

/// Score scale of the local-search guidance, chosen on coulomb and transposition together before
/// the leave-one-benchmark-out protocol existed, and kept by it.
pub const LOCAL_SCORE_SCALE: f64 = 0.004;

impl SearchSettings {
    /// The published searcher: re-profiling, the paper's normalisation, no fallback.
    pub fn paper() -> Self {
        SearchSettings {
            name: "paper".into(),
            guidance: Guidance::paper(),
            score_scale: 0.0,
        }
    }

    /// Local search around the best when nothing scores above zero, damped normalisation, no
    /// restarts (the default before restarts).
    pub fn local() -> Self {
        SearchSettings {
            name: "local".into(),
            guidance: Guidance::local(1),
            score_scale: LOCAL_SCORE_SCALE,
        }
    }

    /// `local` plus restarts.
    pub fn restarting(after: u32, schedule: RestartSchedule, from: RestartPoint) -> Self {
        let schedule_name = match schedule {
            RestartSchedule::Fixed => "fixed",
            RestartSchedule::Luby => "luby",
        };
        let from_name = match from {
            RestartPoint::Random => "random",
            RestartPoint::Distant => "distant",
        };
        let local = SearchSettings::local();
        SearchSettings {
            name: format!("restart-{schedule_name}{after}-{from_name}"),
            guidance: local.guidance.with_restart(Restart {
                after,
                schedule,
                from,
            }),
            ..local
        }
    }

    /// The same settings under another name.
    pub fn named(self, name: &str) -> Self {
        SearchSettings {
            name: name.into(),
            ..self
        }
    }

    /// The shipped default: what `pcsearch holdout` chooses on all recorded benchmarks (coulomb,
    /// transposition, n-body; 1000 runs, seeds 1-3; docs/transfer.md).
    pub fn default_settings() -> Self {
        SearchSettings::restarting(2, RestartSchedule::Fixed, RestartPoint::Random)
            .scaled(0.002)
            .near(0.25, 1)
    }

    /// The same settings with another score scale, named after it.
    pub fn scaled(self, score_scale: f64) -> Self {
        SearchSettings {
            name: format!("{}-scale{score_scale}", self.name),
            score_scale,
            ..self
        }
    }

    /// The same settings drawing `share` of the plain tests near the best configuration once
    /// `after` rounds in a row found no new best.
    pub fn near(self, share: f64, after: u32) -> Self {
        let stale = if after > 0 {
            format!("-after{after}")
        } else {
            String::new()
        };
        SearchSettings {
            name: format!("{}-near{share}{stale}", self.name),
            guidance: self.guidance.with_near_share(share, after),
            ..self
        }
    }

    /// The same settings, also scaling each counter's desired change by the agreement between its
    /// predicted and measured changes over the profiled configurations.
    pub fn calibrated(self) -> Self {
        SearchSettings {
            name: format!("{}-calibrated", self.name),
            guidance: Guidance {
                calibrate: true,
                ..self.guidance
            },
            ..self
        }
    }

    /// The settings the leave-one-benchmark-out protocol weighs: the default before restarts;
    /// restarts after 1 to 5 stale rounds, at a fixed interval or on Luby's schedule, from a random
    /// (or, for some, a distant) configuration; other score scales and counter calibration with
    /// restarts; the guidance variants measured before restarts existed; and shares of plain tests
    /// drawn near the best, from the start or after 1 or 2 stale rounds.
    pub fn candidates() -> Vec<SearchSettings> {
        use RestartPoint::{Distant, Random};
        use RestartSchedule::{Fixed, Luby};
        let mut all = vec![SearchSettings::local()];
        for schedule in [Fixed, Luby] {
            for after in 1..=3 {
                all.push(SearchSettings::restarting(after, schedule, Random));
            }
        }
        for after in [4, 5] {
            all.push(SearchSettings::restarting(after, Fixed, Random));
            all.push(SearchSettings::restarting(after, Fixed, Random).scaled(0.0));
        }
        for after in [1, 3] {
            all.push(SearchSettings::restarting(after, Fixed, Distant));
        }
        all.push(SearchSettings::restarting(1, Luby, Distant));
        for after in [1, 3] {
            for scale in [0.0, 0.002, 0.008] {
                all.push(SearchSettings::restarting(after, Fixed, Random).scaled(scale));
            }
            all.push(SearchSettings::restarting(after, Fixed, Random).calibrated());
        }
        let radius = 1;
        all.extend([
            SearchSettings {
                name: "fixed".into(),
                guidance: Guidance::fixed(),
                score_scale: LOCAL_SCORE_SCALE,
            },
            SearchSettings {
                name: "uniform".into(),
                guidance: Guidance::uniform(),
                score_scale: LOCAL_SCORE_SCALE,
            },
            SearchSettings {
                name: "tempered-0.5-scale0.02".into(),
                guidance: Guidance::tempered(0.5),
                score_scale: 0.02,
            },
            SearchSettings {
                name: "adaptive-scale0.02".into(),
                guidance: Guidance::adaptive(radius),
                score_scale: 0.02,
            },
            SearchSettings {
                name: "damping-0.02".into(),
                guidance: Guidance::damping(radius, 0.02, 1.1),
                score_scale: 0.0,
            },
            SearchSettings {
                name: "calibrated".into(),
                guidance: Guidance::calibrated(radius),
                score_scale: 0.0,
            },
        ]);
        let restarting = SearchSettings::restarting(3, Fixed, Random).scaled(0.002);
        for share in [0.25, 0.5, 1.0] {
            for after in [0, 1, 2] {
                all.push(restarting.clone().near(share, after));
            }
        }
        for share in [0.15, 0.35] {
            all.push(restarting.clone().near(share, 1));
        }
        for after in [2, 4] {
            let other = SearchSettings::restarting(after, Fixed, Random).scaled(0.002);
            all.push(other.near(0.25, 1));
        }
        all
    }
}
