//! Random search without replacement: the robust baseline every searcher is measured against.

use super::{Request, SearchRng, Searcher, SearcherFactory};
use crate::backend::Measurement;
use crate::space::ConfigId;
use rand::{Rng, SeedableRng};

/// Tests configurations in a uniformly random order, each at most once, never profiling.
pub struct RandomSearch {
    order: Vec<ConfigId>,
    drawn: usize,
    rng: SearchRng,
}

impl RandomSearch {
    /// Random search over `size` configurations.
    pub fn new(size: usize, seed: u64) -> Self {
        RandomSearch {
            order: (0..size).collect(),
            drawn: 0,
            rng: SearchRng::seed_from_u64(seed),
        }
    }
}

impl Searcher for RandomSearch {
    fn next(&mut self) -> Option<Request> {
        if self.drawn == self.order.len() {
            return None;
        }
        // One step of a lazy Fisher–Yates shuffle: O(1) per draw, no full shuffle up front.
        let pick = self.rng.random_range(self.drawn..self.order.len());
        self.order.swap(self.drawn, pick);
        self.drawn += 1;
        Some(Request {
            config: self.order[self.drawn - 1],
            profile: false,
        })
    }

    fn observe(&mut self, _request: Request, _outcome: &Measurement) {}
}

/// Builds [`RandomSearch`] instances over a space of a given size.
pub struct RandomFactory {
    /// Number of configurations in the space.
    pub size: usize,
}

impl SearcherFactory for RandomFactory {
    fn name(&self) -> String {
        "random".into()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        Box::new(RandomSearch::new(self.size, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_every_configuration_once_and_repeats_with_the_seed() {
        let draw = |seed| {
            let mut s = RandomSearch::new(50, seed);
            std::iter::from_fn(|| s.next().map(|r| r.config)).collect::<Vec<_>>()
        };
        let a = draw(7);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
    }
}
