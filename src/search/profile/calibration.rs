//! Checking the counter predictions against the counters actually profiled on the GPU being tuned.
//!
//! The method rests on TP → PC_ops relations being the same on the model's GPU and the tuned one.
//! Where a relation is not (DRAM traffic shaped by a different cache, say), the model steers the
//! search the wrong way. Every profiled configuration shows, on the tuned GPU, how a counter really
//! changed between configurations; a counter whose predicted changes disagree with the measured ones
//! is trusted less in the score.

use crate::counters::{Counter, CounterValues};
use crate::expert::DeltaPc;
use crate::space::ConfigId;

use super::Predictions;

/// Relative change of `b` against `a`, in −1..1 (0 when both vanish).
fn relative(a: f64, b: f64) -> Option<f64> {
    if !(a.is_finite() && b.is_finite()) {
        return None;
    }
    let sum = a + b;
    Some(if sum == 0.0 { 0.0 } else { (b - a) / sum })
}

/// Trust in the predictions of `counter`, in 0..1: the cosine similarity between the measured and
/// the predicted relative changes over all pairs of profiled configurations, clipped at 0; 1 while
/// there is no evidence (fewer than two profiles, or no predicted change).
pub fn trust(
    counter: Counter,
    profiled: &[(ConfigId, CounterValues)],
    predictions: &Predictions,
) -> f64 {
    let (mut dot, mut measured_sq, mut predicted_sq) = (0.0, 0.0, 0.0);
    for (i, (ci, mi)) in profiled.iter().enumerate() {
        for (cj, mj) in &profiled[i + 1..] {
            let m = relative(mi[counter], mj[counter]);
            let p = relative(predictions.get(counter, *ci), predictions.get(counter, *cj));
            if let (Some(m), Some(p)) = (m, p) {
                dot += m * p;
                measured_sq += m * m;
                predicted_sq += p * p;
            }
        }
    }
    if predicted_sq < 1e-12 {
        return 1.0;
    }
    if measured_sq < 1e-12 {
        // The model predicts changes the GPU never showed.
        return 0.0;
    }
    (dot / (measured_sq.sqrt() * predicted_sq.sqrt())).max(0.0)
}

/// `delta` with each counter's desired change scaled by the trust in its predictions.
pub fn calibrated(
    delta: &DeltaPc,
    profiled: &[(ConfigId, CounterValues)],
    predictions: &Predictions,
) -> DeltaPc {
    let mut out = *delta;
    for (counter, d) in delta.active() {
        out.0[counter.index()] = d * trust(counter, profiled, predictions);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(x: f64) -> CounterValues {
        let mut v = CounterValues::default();
        v[Counter::DramRt] = x;
        v
    }

    #[test]
    fn agreeing_predictions_keep_full_trust_and_contrary_ones_lose_it() {
        let predictions = Predictions::new(&[values(100.0), values(200.0), values(400.0)]);
        let agree = [(0, values(10.0)), (1, values(25.0)), (2, values(35.0))];
        let t = trust(Counter::DramRt, &agree, &predictions);
        assert!(t > 0.95 && t <= 1.0, "{t}");
        let contrary = [(0, values(40.0)), (1, values(20.0)), (2, values(10.0))];
        assert_eq!(trust(Counter::DramRt, &contrary, &predictions), 0.0);
        assert_eq!(
            trust(Counter::DramRt, &agree[..1], &predictions),
            1.0,
            "one profile: no evidence"
        );
    }
}
