//! Weighted random choice among unexplored configurations.

use crate::space::ConfigId;
use rand::Rng;

/// Whether some unexplored configuration has a positive weight.
pub fn any_positive(weights: &[f64], explored: &[bool]) -> bool {
    weights
        .iter()
        .zip(explored)
        .any(|(w, e)| !*e && w.is_finite() && *w > 0.0)
}

/// Draws an unexplored configuration with probability proportional to its weight; uniformly among
/// the unexplored ones when no weight is positive. `None` when everything is explored.
pub fn draw(rng: &mut impl Rng, weights: &[f64], explored: &[bool]) -> Option<ConfigId> {
    let total: f64 = weights
        .iter()
        .zip(explored)
        .filter(|(w, e)| !**e && w.is_finite() && **w > 0.0)
        .map(|(w, _)| *w)
        .sum();
    if total > 0.0 {
        let mut target = rng.random::<f64>() * total;
        let mut last = None;
        for (i, (&w, &e)) in weights.iter().zip(explored).enumerate() {
            if e || !(w.is_finite() && w > 0.0) {
                continue;
            }
            last = Some(i);
            if target < w {
                return Some(i);
            }
            target -= w;
        }
        // Rounding can leave a sliver of `target`: it belongs to the last candidate.
        return last;
    }
    let left = explored.iter().filter(|e| !**e).count();
    if left == 0 {
        return None;
    }
    let k = rng.random_range(0..left);
    explored
        .iter()
        .enumerate()
        .filter(|(_, e)| !**e)
        .nth(k)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn frequencies_follow_weights_and_skip_explored() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let weights = [1.0, 3.0, 100.0, 0.0];
        let explored = [false, false, true, false];
        let mut counts = [0usize; 4];
        for _ in 0..40_000 {
            counts[draw(&mut rng, &weights, &explored).unwrap()] += 1;
        }
        assert_eq!(counts[2], 0);
        assert_eq!(
            counts[3], 0,
            "zero weight is never drawn while others are positive"
        );
        let ratio = counts[1] as f64 / counts[0] as f64;
        assert!((ratio - 3.0).abs() < 0.15, "{ratio}");
    }

    #[test]
    fn falls_back_to_uniform_and_ends_when_all_explored() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        assert_eq!(draw(&mut rng, &[0.0, 0.0], &[true, false]), Some(1));
        assert_eq!(draw(&mut rng, &[1.0, 1.0], &[true, true]), None);
    }
}
