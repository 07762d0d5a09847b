//! Scoring candidates by how their predicted counters move in the ΔPC direction (paper §3.6).

use crate::counters::{Counter, CounterValues};
use crate::expert::DeltaPc;
use crate::rules::ReactionConstants;
use crate::space::ConfigId;
use serde::Serialize;

/// Which counters take part in a candidate's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum ZeroPolicy {
    /// Leave a counter out when it is zero for the profiled or the candidate configuration (the
    /// paper's PC_used): a counter that is zero on one side says "absent", not "infinitely better".
    #[default]
    SkipZero,
    /// Include a counter whenever the two values do not sum to zero (the older implementation).
    NonzeroSum,
}

/// Constants of the score-to-weight mapping.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreOptions {
    /// Exponent of `(1 ± s/s_extreme)`.
    pub exponent: f64,
    /// Scores at or below this get `floor`.
    pub cutoff: f64,
    /// Smallest weight of an unexplored configuration.
    pub floor: f64,
    /// Which counters take part.
    pub zero_policy: ZeroPolicy,
    /// Smallest score magnitude treated as a real difference: scores are normalised by
    /// `max(s_max, scale)` and `min(s_min, −scale)`, so when every candidate is predicted to change
    /// the counters by a negligible amount the weights stay near uniform instead of the exponent
    /// blowing model noise up into a 256:1 preference. 0 is the paper's mapping.
    pub scale: f64,
}

impl ScoreOptions {
    /// Options from the rules' constants, with the paper's normalisation (no score scale).
    pub fn new(constants: &ReactionConstants, zero_policy: ZeroPolicy) -> Self {
        ScoreOptions {
            exponent: constants.exponent,
            cutoff: constants.cutoff,
            floor: constants.floor,
            zero_policy,
            scale: 0.0,
        }
    }
}

/// Predicted (or exactly known) counters of every configuration, stored per counter so that
/// scoring a whole space streams through contiguous memory.
#[derive(Debug, Clone)]
pub struct Predictions {
    columns: Vec<Option<Vec<f64>>>,
    len: usize,
    /// Per configuration, how far its predictions are trusted (1: fully); `None`: all fully.
    trust: Option<Vec<f64>>,
    /// Counters known exactly for every configuration (launch geometry), never discounted.
    exact: [bool; Counter::COUNT],
}

impl Predictions {
    /// Column-major copy of `values`; counters that are NaN everywhere are dropped.
    pub fn new(values: &[CounterValues]) -> Self {
        let columns = Counter::ALL
            .iter()
            .map(|&c| {
                let col: Vec<f64> = values.iter().map(|v| v[c]).collect();
                col.iter().any(|x| x.is_finite()).then_some(col)
            })
            .collect();
        Predictions {
            columns,
            len: values.len(),
            trust: None,
            exact: [false; Counter::COUNT],
        }
    }

    /// The same predictions, trusted per configuration by `trust` (each in 0..=1, one per
    /// configuration): a model's extrapolations are less reliable than its interpolations.
    pub fn with_trust(mut self, trust: Vec<f64>) -> Self {
        debug_assert_eq!(trust.len(), self.len);
        self.trust = Some(trust);
        self
    }

    /// Replaces the column of `counter` by values known exactly for every configuration (such as
    /// the launch size): they are never discounted as extrapolations.
    pub fn with_exact(mut self, counter: Counter, values: Vec<f64>) -> Self {
        debug_assert_eq!(values.len(), self.len);
        self.columns[counter.index()] = Some(values);
        self.exact[counter.index()] = true;
        self
    }

    /// The trust in the predictions of configuration `id` (1 when none was given).
    pub fn trust(&self, id: ConfigId) -> f64 {
        self.trust.as_ref().map_or(1.0, |t| t[id])
    }

    /// Number of configurations.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no configurations.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The prediction of `counter` for every configuration, if any is known.
    pub fn column(&self, counter: Counter) -> Option<&[f64]> {
        self.columns[counter.index()].as_deref()
    }

    /// The prediction of `counter` for configuration `id` (NaN if unknown).
    pub fn get(&self, counter: Counter, id: ConfigId) -> f64 {
        self.column(counter).map_or(f64::NAN, |c| c[id])
    }
}

/// Raw scores `s(c) = Σ ΔPC_k · (pc_k(c) − pc_k(p)) / (pc_k(c) + pc_k(p))` of every configuration
/// against the profiled configuration `profiled`; positive means "moves the counters as asked".
pub fn raw_scores(
    predictions: &Predictions,
    profiled: ConfigId,
    delta: &DeltaPc,
    policy: ZeroPolicy,
    out: &mut Vec<f64>,
) {
    out.clear();
    out.resize(predictions.len(), 0.0);
    if predictions.trust.is_none() {
        add_terms(predictions, profiled, delta, policy, out, |_| true);
        return;
    }
    add_terms(predictions, profiled, delta, policy, out, |c| {
        !predictions.exact[c.index()]
    });
    discount_untrusted(predictions, profiled, out);
    add_terms(predictions, profiled, delta, policy, out, |c| {
        predictions.exact[c.index()]
    });
}

/// Adds the score terms of the counters `include` selects.
fn add_terms(
    predictions: &Predictions,
    profiled: ConfigId,
    delta: &DeltaPc,
    policy: ZeroPolicy,
    out: &mut [f64],
    include: impl Fn(Counter) -> bool,
) {
    for (counter, d) in delta.active() {
        let Some(column) = predictions.column(counter).filter(|_| include(counter)) else {
            continue;
        };
        let p = column[profiled];
        if !p.is_finite() || (policy == ZeroPolicy::SkipZero && p == 0.0) {
            continue;
        }
        for (s, &c) in out.iter_mut().zip(column) {
            let sum = c + p;
            let used = match policy {
                ZeroPolicy::SkipZero => c != 0.0,
                ZeroPolicy::NonzeroSum => sum != 0.0,
            };
            if used && c.is_finite() {
                *s += d * (c - p) / sum;
            }
        }
    }
}

/// Shrinks the predicted part of each score towards the mean score, by the trust in the less
/// trusted of the two configurations it compares: an extrapolated prediction then makes a
/// candidate neither more nor less attractive than an average one. (Shrinking towards 0 instead
/// makes every trusted candidate that promises a gain more attractive than all extrapolated ones,
/// which traps the search in the corner of the space the model was trained on.)
fn discount_untrusted(predictions: &Predictions, profiled: ConfigId, out: &mut [f64]) {
    let Some(trust) = &predictions.trust else {
        return;
    };
    let mean = out.iter().sum::<f64>() / out.len().max(1) as f64;
    let p = trust[profiled];
    for (s, &c) in out.iter_mut().zip(trust) {
        *s = mean + p.min(c) * (*s - mean);
    }
}

/// Trust in a prediction `novelty` steps outside the model's training range (the number of tuning
/// parameters with unseen values, see `model::Extrapolation::novelty`): `trust` per step.
pub fn extrapolation_trust(novelty: usize, trust: f64) -> f64 {
    trust.powi(i32::try_from(novelty).unwrap_or(i32::MAX))
}

/// The smallest and largest score of the unexplored configurations, at least `scale` away from 0:
/// what [`weights`] normalises by.
pub fn extremes(raw: &[f64], explored: &[bool], scale: f64) -> (f64, f64) {
    let (mut s_min, mut s_max) = (-scale, scale);
    for (&s, &e) in raw.iter().zip(explored) {
        if !e {
            s_min = s_min.min(s);
            s_max = s_max.max(s);
        }
    }
    (s_min, s_max)
}

/// Maps raw scores to sampling weights: `(1 + s/s_max)^e` above zero, `(1 − s/s_min)^e` between the
/// cutoff and zero, the floor below; explored configurations get 0.
///
/// `temper` in 0..=1 scales the exponent (and the floor's, `floor^temper`), so 1 is the paper's
/// mapping and 0 makes every unexplored configuration equally likely, i.e. random search.
pub fn weights(
    raw: &[f64],
    explored: &[bool],
    options: &ScoreOptions,
    temper: f64,
    out: &mut Vec<f64>,
) {
    let exponent = options.exponent * temper;
    let floor = options.floor.powf(temper);
    // The paper's exponent 8 is an integer: three multiplications instead of a general power,
    // which dominated a whole search on a 200,000-configuration space.
    let integral = exponent.fract() == 0.0 && exponent.abs() <= 64.0;
    let pow = |base: f64| {
        if integral {
            base.powi(exponent as i32)
        } else {
            base.powf(exponent)
        }
    };
    let (s_min, s_max) = extremes(raw, explored, options.scale);
    out.clear();
    out.extend(raw.iter().zip(explored).map(|(&s, &e)| {
        if e {
            0.0
        } else if s > 0.0 {
            pow(1.0 + s / s_max)
        } else if s > options.cutoff && s_min < 0.0 {
            pow(1.0 - s / s_min).max(floor)
        } else if s > options.cutoff {
            1.0
        } else {
            floor
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(dram_rt: &[f64]) -> Vec<CounterValues> {
        dram_rt
            .iter()
            .map(|&x| {
                let mut v = CounterValues::default();
                v[Counter::DramRt] = x;
                v[Counter::InstF32] = 100.0;
                v
            })
            .collect()
    }

    fn delta(dram_rt: f64) -> DeltaPc {
        let mut d = DeltaPc::default();
        d.0[Counter::DramRt.index()] = dram_rt;
        d.0[Counter::InstF32.index()] = -1.0;
        d
    }

    #[test]
    fn fewer_transactions_score_positive_when_asked_to_reduce() {
        let p = Predictions::new(&values(&[100.0, 50.0, 300.0, 0.0]));
        let mut s = Vec::new();
        raw_scores(&p, 0, &delta(-0.5), ZeroPolicy::SkipZero, &mut s);
        // -0.5 * (50-100)/150 = 1/6; -0.5 * (300-100)/400 = -1/4; zero candidate skipped.
        assert!((s[1] - 1.0 / 6.0).abs() < 1e-12);
        assert!((s[2] + 0.25).abs() < 1e-12);
        assert_eq!(s[3], 0.0);
        raw_scores(&p, 0, &delta(-0.5), ZeroPolicy::NonzeroSum, &mut s);
        assert!((s[3] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn untrusted_predictions_shrink_towards_the_mean_and_exact_counters_do_not() {
        let p = Predictions::new(&values(&[100.0, 50.0, 300.0, 100.0]));
        let mut plain = Vec::new();
        raw_scores(&p, 0, &delta(-0.5), ZeroPolicy::SkipZero, &mut plain);
        // DRAM_RT scores 0, 1/6, -1/4, 0: mean -1/48. Candidate 1 is half trusted, 2 not at all.
        let trusted = p.with_trust(vec![1.0, 0.5, 0.0, 1.0]);
        let mut s = Vec::new();
        raw_scores(&trusted, 0, &delta(-0.5), ZeroPolicy::SkipZero, &mut s);
        let mean = -1.0 / 48.0;
        assert!((s[1] - (mean + 0.5 * (1.0 / 6.0 - mean))).abs() < 1e-12);
        assert!((s[2] - mean).abs() < 1e-12);
        assert_eq!((s[0], s[3]), (plain[0], plain[3]));
        // Profiling an untrusted configuration makes every comparison untrusted.
        raw_scores(&trusted, 2, &delta(-0.5), ZeroPolicy::SkipZero, &mut s);
        let spread = s.iter().fold(0.0f64, |m, x| m.max((x - s[0]).abs()));
        assert!(spread < 1e-12, "{s:?}");
        // A counter known exactly keeps its full weight whatever the trust.
        let exact = trusted.with_exact(Counter::DramRt, vec![100.0, 50.0, 300.0, 100.0]);
        raw_scores(&exact, 0, &delta(-0.5), ZeroPolicy::SkipZero, &mut s);
        assert_eq!(s, plain);
        assert_eq!(extrapolation_trust(0, 0.5), 1.0);
        assert_eq!(extrapolation_trust(3, 0.5), 0.125);
    }

    #[test]
    fn weights_follow_the_normalisation() {
        let opts = ScoreOptions {
            exponent: 8.0,
            cutoff: -0.25,
            floor: 1e-4,
            zero_policy: ZeroPolicy::SkipZero,
            scale: 0.0,
        };
        let raw = [0.0, 0.2, 0.1, -0.1, -0.3, 0.4];
        let explored = [true, false, false, false, false, true];
        let mut w = Vec::new();
        weights(&raw, &explored, &opts, 1.0, &mut w);
        assert_eq!(w[0], 0.0);
        assert_eq!(w[5], 0.0);
        assert!((w[1] - 256.0).abs() < 1e-9, "s = s_max gives 2^8");
        assert!((w[2] - 1.5f64.powi(8)).abs() < 1e-9);
        assert!((w[3] - (1.0 - 0.1 / 0.3f64).powi(8)).abs() < 1e-9);
        assert_eq!(w[4], 1e-4);
        weights(&raw, &explored, &opts, 0.5, &mut w);
        assert!((w[1] - 16.0).abs() < 1e-9, "half the exponent: 2^4");
        assert!((w[4] - 1e-2).abs() < 1e-12, "floor^0.5");
        weights(&raw, &explored, &opts, 0.0, &mut w);
        assert!(
            w[1..5].iter().all(|&x| x == 1.0),
            "temper 0 is uniform: {w:?}"
        );
    }
}
