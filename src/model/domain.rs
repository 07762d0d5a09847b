//! A model's training range: the values each tuning parameter took and the pairs of values that
//! never occurred together. A configuration outside it gets an extrapolated prediction.
//!
//! Trees answer anything outside their training range with the nearest leaf, so an unseen value
//! (a 64-wide tile when training saw only 16) is predicted as if it were a seen one. Flagging such
//! configurations lets the searcher trust their predictions less and lets `explain` say why.

use serde::{Deserialize, Serialize};

/// The training range of a model, in the model's parameter order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingDomain {
    /// Per parameter, the distinct values of the training configurations, ascending.
    values: Vec<Vec<f64>>,
    /// Pairs of values each seen in training but never in the same configuration:
    /// `[parameter a, value of a, parameter b, value of b]` with `a < b`.
    unseen_pairs: Vec<[f64; 4]>,
}

/// How a configuration lies outside a model's training range.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extrapolation {
    /// Parameters (model order) whose value no training configuration had.
    pub unseen_values: Vec<usize>,
    /// Pairs of parameters (model order) whose values were seen, but never together.
    pub unseen_pairs: Vec<(usize, usize)>,
}

impl Extrapolation {
    /// Whether the configuration lies outside the training range at all.
    pub fn is_flagged(&self) -> bool {
        !self.unseen_values.is_empty() || !self.unseen_pairs.is_empty()
    }

    /// How far outside: the number of parameters with unseen values, or 1 when only a combination
    /// of seen values is new.
    pub fn novelty(&self) -> usize {
        match self.unseen_values.len() {
            0 => usize::from(!self.unseen_pairs.is_empty()),
            n => n,
        }
    }
}

impl TrainingDomain {
    /// The range of `configs` (rows of `parameters` values, in model order).
    pub fn of<'a>(parameters: usize, configs: impl Iterator<Item = &'a [f64]> + Clone) -> Self {
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); parameters];
        for config in configs.clone() {
            for (seen, &v) in values.iter_mut().zip(config) {
                seen.push(v);
            }
        }
        for seen in &mut values {
            seen.sort_by(f64::total_cmp);
            seen.dedup();
        }
        let mut together: Vec<Vec<bool>> = pairs(parameters)
            .map(|(a, b)| vec![false; values[a].len() * values[b].len()])
            .collect();
        let index = |p: usize, v: f64| values[p].binary_search_by(|x| x.total_cmp(&v)).ok();
        for config in configs {
            let at: Vec<Option<usize>> = (0..parameters).map(|p| index(p, config[p])).collect();
            for (k, (a, b)) in pairs(parameters).enumerate() {
                if let (Some(i), Some(j)) = (at[a], at[b]) {
                    together[k][i * values[b].len() + j] = true;
                }
            }
        }
        let mut unseen_pairs = Vec::new();
        for (k, (a, b)) in pairs(parameters).enumerate() {
            for (i, &va) in values[a].iter().enumerate() {
                for (j, &vb) in values[b].iter().enumerate() {
                    if !together[k][i * values[b].len() + j] {
                        unseen_pairs.push([a as f64, va, b as f64, vb]);
                    }
                }
            }
        }
        TrainingDomain {
            values,
            unseen_pairs,
        }
    }

    /// The values parameter `p` (model order) took in training, ascending.
    pub fn values(&self, p: usize) -> &[f64] {
        &self.values[p]
    }

    /// Checks the range fits a model of `parameters` parameters.
    pub fn validate(&self, parameters: usize) -> Result<(), String> {
        if self.values.len() != parameters {
            return Err(format!(
                "the training range lists {} parameters, the model has {parameters}",
                self.values.len()
            ));
        }
        for (p, seen) in self.values.iter().enumerate() {
            if seen.is_empty() || seen.iter().any(|v| !v.is_finite()) {
                return Err(format!(
                    "the training range of parameter {p} is empty or not finite"
                ));
            }
            if seen.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!(
                    "the training range of parameter {p} is not strictly ascending"
                ));
            }
        }
        for &[a, va, b, vb] in &self.unseen_pairs {
            let known = |p: f64, v: f64| {
                p.fract() == 0.0
                    && p >= 0.0
                    && (p as usize) < parameters
                    && self.values[p as usize].contains(&v)
            };
            if !(known(a, va) && known(b, vb) && a < b) {
                return Err(format!(
                    "unseen pair [{a}, {va}, {b}, {vb}] does not name two parameters in order with seen values"
                ));
            }
        }
        Ok(())
    }

    /// How `config` (model order) lies outside the training range.
    pub fn extrapolation(&self, config: &[f64]) -> Extrapolation {
        let mut out = Extrapolation::default();
        for (p, (&v, seen)) in config.iter().zip(&self.values).enumerate() {
            if seen.binary_search_by(|x| x.total_cmp(&v)).is_err() {
                out.unseen_values.push(p);
            }
        }
        for &[a, va, b, vb] in &self.unseen_pairs {
            let (a, b) = (a as usize, b as usize);
            if config[a] == va && config[b] == vb {
                out.unseen_pairs.push((a, b));
            }
        }
        out
    }
}

/// Every pair `(a, b)` with `a < b < parameters`, in order.
fn pairs(parameters: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..parameters).flat_map(move |a| (a + 1..parameters).map(move |b| (a, b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unseen_values_and_combinations_are_flagged() {
        // Training: X in {1, 2}, Y in {10, 20}, but X = 2 only with Y = 10; Z constant.
        let rows: [[f64; 3]; 3] = [[1.0, 10.0, 5.0], [1.0, 20.0, 5.0], [2.0, 10.0, 5.0]];
        let domain = TrainingDomain::of(3, rows.iter().map(|r| r.as_slice()));
        assert_eq!(domain.values(0), [1.0, 2.0]);
        assert_eq!(domain.unseen_pairs, vec![[0.0, 2.0, 1.0, 20.0]]);
        assert!(domain.validate(3).is_ok());
        for r in &rows {
            assert!(!domain.extrapolation(r).is_flagged(), "{r:?}");
        }
        let pair = domain.extrapolation(&[2.0, 20.0, 5.0]);
        assert_eq!(pair.unseen_pairs, vec![(0, 1)]);
        assert_eq!((pair.is_flagged(), pair.novelty()), (true, 1));
        // Between seen values counts as unseen too: trees do not interpolate.
        let values = domain.extrapolation(&[1.5, 20.0, 7.0]);
        assert_eq!(values.unseen_values, vec![0, 2]);
        assert_eq!(values.novelty(), 2);
    }

    #[test]
    fn inconsistent_ranges_are_refused() {
        let rows: [[f64; 2]; 2] = [[1.0, 10.0], [2.0, 20.0]];
        let domain = TrainingDomain::of(2, rows.iter().map(|r| r.as_slice()));
        assert!(domain.validate(3).unwrap_err().contains("2 parameters"));
        let mut bad = domain.clone();
        bad.values[0] = vec![2.0, 1.0];
        assert!(bad.validate(2).unwrap_err().contains("ascending"));
        let mut bad = domain.clone();
        bad.unseen_pairs.push([1.0, 10.0, 0.0, 1.0]);
        assert!(bad.validate(2).unwrap_err().contains("does not name"));
    }
}
