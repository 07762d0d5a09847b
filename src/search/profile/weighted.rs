//! Weighted random choice among unexplored configurations, in O(log N) per draw.
//!
//! Explored configurations carry weight 0 in the weight trees, so a draw never repeats a test.

use crate::search::sampler::SumTree;
use crate::space::ConfigId;
use rand::Rng;

/// Whether some unexplored configuration has a positive weight.
pub fn any_positive(weights: &SumTree) -> bool {
    weights.total() > 0.0
}

/// Draws a configuration with probability proportional to its weight; uniformly among the
/// `unexplored` ones (weight 1 each, 0 once explored) when no weight is positive. `None` when
/// everything is explored.
pub fn draw(rng: &mut impl Rng, weights: &SumTree, unexplored: &SumTree) -> Option<ConfigId> {
    if weights.total() > 0.0 {
        return weights.sample(rng.random::<f64>());
    }
    // Counts of at most 2^53 are exact in f64.
    let left = unexplored.total() as usize;
    if left == 0 {
        return None;
    }
    let k = rng.random_range(0..left);
    unexplored.find(k as f64 + 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn frequencies_follow_weights_and_skip_explored() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        // Configuration 2 is explored: its weight 100 was set to 0.
        let weights = SumTree::from_weights(&[1.0, 3.0, 0.0, 0.0]);
        let unexplored = SumTree::from_weights(&[1.0, 1.0, 0.0, 1.0]);
        let mut counts = [0usize; 4];
        for _ in 0..40_000 {
            counts[draw(&mut rng, &weights, &unexplored).unwrap()] += 1;
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
        let none = SumTree::from_weights(&[0.0, 0.0]);
        let second = SumTree::from_weights(&[0.0, 1.0]);
        assert_eq!(draw(&mut rng, &none, &second), Some(1));
        assert_eq!(draw(&mut rng, &none, &none), None);
    }
}
