//! Thompson sampling over guidance strengths: which arm's draws find fast configurations.

use rand::Rng;
use rand_distr::{Beta, Distribution};

/// Beta-Bernoulli Thompson sampling over a few arms.
#[derive(Debug, Clone)]
pub struct Bandit {
    successes: Vec<f64>,
    failures: Vec<f64>,
}

impl Bandit {
    /// A bandit over `arms` arms with uniform priors.
    pub fn new(arms: usize) -> Self {
        Bandit {
            successes: vec![0.0; arms],
            failures: vec![0.0; arms],
        }
    }

    /// The arm to pull: the largest draw from each arm's posterior. A single arm needs no draw, so
    /// a searcher without a bandit consumes no randomness here.
    pub fn choose(&self, rng: &mut impl Rng) -> usize {
        if self.successes.len() <= 1 {
            return 0;
        }
        let mut best = (0, f64::NEG_INFINITY);
        for (arm, (s, f)) in self.successes.iter().zip(&self.failures).enumerate() {
            let sample = Beta::new(1.0 + s, 1.0 + f).map_or(0.5, |b| b.sample(rng));
            if sample > best.1 {
                best = (arm, sample);
            }
        }
        best.0
    }

    /// Records the outcome of pulling `arm`.
    pub fn reward(&mut self, arm: usize, success: bool) {
        if success {
            self.successes[arm] += 1.0;
        } else {
            self.failures[arm] += 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn prefers_the_arm_that_succeeds() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut b = Bandit::new(2);
        for _ in 0..20 {
            b.reward(0, false);
            b.reward(1, true);
        }
        let picks = (0..1000).filter(|_| b.choose(&mut rng) == 1).count();
        assert!(picks > 990, "{picks}");
        assert_eq!(Bandit::new(1).choose(&mut rng), 0);
    }
}
