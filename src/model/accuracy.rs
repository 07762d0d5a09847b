//! Held-out accuracy of a counter's tree: MAE, RMSE, relative error, R².

use crate::counters::Counter;
use serde::{Deserialize, Serialize};

/// Prediction errors on data the tree was not fitted on.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Errors {
    /// Mean absolute error, in the counter's unit.
    pub mae: f64,
    /// Root mean squared error.
    pub rmse: f64,
    /// MAE divided by the mean absolute measured value (0 when both are 0).
    pub relative_error: f64,
    /// Coefficient of determination; `None` when the measured values do not vary.
    pub r2: Option<f64>,
}

impl Errors {
    /// Errors of `predicted` against `measured`.
    pub fn of(measured: &[f64], predicted: &[f64]) -> Errors {
        debug_assert_eq!(measured.len(), predicted.len());
        let n = measured.len().max(1) as f64;
        let mean = measured.iter().sum::<f64>() / n;
        let (mut abs, mut sq, mut tot, mut scale) = (0.0, 0.0, 0.0, 0.0);
        for (m, p) in measured.iter().zip(predicted) {
            abs += (m - p).abs();
            sq += (m - p) * (m - p);
            tot += (m - mean) * (m - mean);
            scale += m.abs();
        }
        Errors {
            mae: abs / n,
            rmse: (sq / n).sqrt(),
            // Relative to the mean magnitude, not per sample: counters are often exactly 0.
            relative_error: if scale > 0.0 { abs / scale } else { 0.0 },
            r2: (tot > 0.0).then(|| 1.0 - sq / tot),
        }
    }

    /// Component-wise mean of several error sets (R² averaged over those that have one).
    pub fn mean(all: &[Errors]) -> Errors {
        let n = all.len().max(1) as f64;
        let r2s: Vec<f64> = all.iter().filter_map(|e| e.r2).collect();
        Errors {
            mae: all.iter().map(|e| e.mae).sum::<f64>() / n,
            rmse: all.iter().map(|e| e.rmse).sum::<f64>() / n,
            relative_error: all.iter().map(|e| e.relative_error).sum::<f64>() / n,
            r2: (!r2s.is_empty()).then(|| r2s.iter().sum::<f64>() / r2s.len() as f64),
        }
    }

    /// Whether `self` beats `other` under the paper's rule: lower MAE, ties broken by RMSE.
    pub fn better_than(&self, other: &Errors) -> bool {
        match self.mae.total_cmp(&other.mae) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => self.rmse < other.rmse,
        }
    }
}

/// What the model knows about how well one counter is predicted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterAccuracy {
    /// The counter.
    pub counter: Counter,
    /// Chosen maximum tree depth; `None` for a counter constant over the training data.
    pub depth: Option<u16>,
    /// Nodes in the stored tree.
    pub nodes: usize,
    /// Configurations the counter was trained on.
    pub samples: usize,
    /// Mean measured value, for reading the MAE.
    pub mean: f64,
    /// Held-out errors (see [`super::Selection`] for which held-out data).
    #[serde(flatten)]
    pub errors: Errors,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_have_their_textbook_values() {
        let e = Errors::of(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 6.0]);
        assert_eq!(e.mae, 0.5);
        assert_eq!(e.rmse, 1.0);
        assert_eq!(e.relative_error, 0.2);
        assert_eq!(e.r2, Some(1.0 - 4.0 / 5.0));
        let flat = Errors::of(&[0.0, 0.0], &[0.0, 0.0]);
        assert_eq!((flat.relative_error, flat.r2), (0.0, None));
        let worse = Errors { rmse: 2.0, ..e };
        assert!(e.better_than(&worse) && !worse.better_than(&e));
    }
}
