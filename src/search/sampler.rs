//! A sum tree over non-negative weights: a weighted draw and a weight change both cost O(log N).
//!
//! The profile-based searcher draws a handful of configurations between two rescorings and removes
//! each drawn one from the pool; over a 200,000-configuration space a linear scan per draw costs
//! more than the scoring itself. Each inner node holds the exact sum of its two children
//! (recomputed, never accumulated by differences), so no rounding drift builds up over updates and
//! a draw never lands on a zero weight while some weight is positive.

/// Weights in a complete binary tree of sums.
#[derive(Debug, Clone, Default)]
pub struct SumTree {
    len: usize,
    /// Number of leaves: `len` rounded up to a power of two.
    width: usize,
    /// `nodes[1]` is the root, `nodes[width + i]` the weight of item `i`; `nodes[0]` is unused.
    nodes: Vec<f64>,
}

/// A weight as the tree stores it: negative, NaN and infinite weights count as zero.
fn clean(w: f64) -> f64 {
    if w.is_finite() && w > 0.0 {
        w
    } else {
        0.0
    }
}

impl SumTree {
    /// A tree of `len` zero weights.
    pub fn new(len: usize) -> SumTree {
        let width = len.next_power_of_two().max(1);
        SumTree {
            len,
            width,
            nodes: vec![0.0; 2 * width],
        }
    }

    /// A tree holding `weights`, built in O(N).
    pub fn from_weights(weights: &[f64]) -> SumTree {
        let mut tree = SumTree::new(weights.len());
        tree.rebuild(weights);
        tree
    }

    /// Replaces every weight (the length must not change), in O(N).
    pub fn rebuild(&mut self, weights: &[f64]) {
        debug_assert_eq!(weights.len(), self.len);
        let width = self.width;
        for (leaf, &w) in self.nodes[width..].iter_mut().zip(weights) {
            *leaf = clean(w);
        }
        self.nodes[width + weights.len()..].fill(0.0);
        for i in (1..width).rev() {
            self.nodes[i] = self.nodes[2 * i] + self.nodes[2 * i + 1];
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Weight of item `i`.
    pub fn get(&self, i: usize) -> f64 {
        self.nodes[self.width + i]
    }

    /// Sum of all weights.
    pub fn total(&self) -> f64 {
        self.nodes[1]
    }

    /// Sets the weight of item `i`, in O(log N).
    pub fn set(&mut self, i: usize, w: f64) {
        let mut node = self.width + i;
        self.nodes[node] = clean(w);
        while node > 1 {
            node /= 2;
            self.nodes[node] = self.nodes[2 * node] + self.nodes[2 * node + 1];
        }
    }

    /// The item whose share of the cumulative weight contains `target` (items in index order, each
    /// covering `[prefix, prefix + weight)`), in O(log N). A target past the total, as rounding can
    /// produce, gives the last positive item; `None` when every weight is zero.
    pub fn find(&self, target: f64) -> Option<usize> {
        if self.total() <= 0.0 {
            return None;
        }
        let mut target = target.max(0.0);
        let mut node = 1;
        while node < self.width {
            let (left, right) = (self.nodes[2 * node], self.nodes[2 * node + 1]);
            // A side without weight is never entered, whatever rounding did to `target`.
            node = if right <= 0.0 || (target < left && left > 0.0) {
                2 * node
            } else {
                target -= left;
                2 * node + 1
            };
        }
        Some(node - self.width)
    }

    /// An item drawn with probability proportional to its weight, for `u` uniform in [0, 1).
    pub fn sample(&self, u: f64) -> Option<usize> {
        self.find(u * self.total())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_follows_prefix_sums_and_skips_zero_weights() {
        let t = SumTree::from_weights(&[1.0, 0.0, 3.0, f64::NAN, 2.0]);
        assert_eq!(t.total(), 6.0);
        assert_eq!(t.find(0.0), Some(0));
        assert_eq!(t.find(0.999), Some(0));
        assert_eq!(t.find(1.0), Some(2), "item 1 weighs nothing");
        assert_eq!(t.find(3.999), Some(2));
        assert_eq!(t.find(4.0), Some(4), "NaN counts as zero");
        assert_eq!(
            t.find(6.5),
            Some(4),
            "past the total: the last positive item"
        );
        assert_eq!(t.find(-1.0), Some(0));
    }

    #[test]
    fn set_keeps_sums_exact_and_all_zero_finds_nothing() {
        let mut t = SumTree::from_weights(&[0.25; 7]);
        for i in 0..7 {
            assert_eq!(t.total(), 0.25 * (7 - i) as f64);
            t.set(i, 0.0);
        }
        assert_eq!(t.total(), 0.0);
        assert_eq!(t.find(0.0), None);
        t.set(6, 2.0);
        assert_eq!(t.sample(0.99), Some(6));
        assert_eq!(SumTree::new(0).sample(0.5), None);
        assert_eq!(SumTree::from_weights(&[5.0]).sample(0.3), Some(0));
    }

    #[test]
    fn counts_find_the_kth_item() {
        let flags = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let t = SumTree::from_weights(&flags);
        let found: Vec<_> = (0..4).map(|k| t.find(k as f64 + 0.5).unwrap()).collect();
        assert_eq!(found, vec![0, 2, 3, 5]);
    }
}
