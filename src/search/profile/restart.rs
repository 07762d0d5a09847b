//! Restarts: a run that stopped improving profiles a fresh configuration and follows its counters.
//!
//! Run lengths of the profile-based searcher are heavy-tailed: most runs find a well-performing
//! configuration quickly, a few follow counters into a region that holds none and stay there,
//! because a round that finds nothing faster leaves the scores unchanged. Restarting is the classic
//! remedy for such distributions (Luby, Sinclair & Zuckerman 1993; Gomes, Selman & Kautz 1998).
//! Nothing is forgotten: tested configurations stay tested and the best stays the best.

use crate::space::{hamming_distance, ConfigId, TuningSpace};
use rand::Rng;
use serde::Serialize;

/// How the number of stale rounds before each restart grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RestartSchedule {
    /// The same number of stale rounds before every restart.
    Fixed,
    /// Luby's universal sequence 1, 1, 2, 1, 1, 2, 4, … times the base.
    Luby,
}

/// Which configuration a restart profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RestartPoint {
    /// A uniformly random unexplored configuration.
    Random,
    /// An unexplored configuration as far as possible (in differing tuning parameters) from the
    /// best one, chosen at random among the farthest.
    Distant,
}

/// When and from where a stale run starts over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Restart {
    /// Rounds without a new best before the first restart (the schedule's unit).
    pub after: u32,
    /// How that number grows with each restart.
    pub schedule: RestartSchedule,
    /// Where a restart starts from.
    pub from: RestartPoint,
}

impl Restart {
    /// Stale rounds that trigger restart number `k` (counting from 1).
    pub fn threshold(&self, k: u32) -> u32 {
        let factor = match self.schedule {
            RestartSchedule::Fixed => 1,
            RestartSchedule::Luby => luby(k),
        };
        self.after.saturating_mul(factor).max(1)
    }

    /// The configuration restart should profile, if any is unexplored.
    pub fn pick(
        &self,
        rng: &mut impl Rng,
        space: &TuningSpace,
        explored: &[bool],
        best: Option<ConfigId>,
    ) -> Option<ConfigId> {
        let unexplored: Vec<ConfigId> = (0..explored.len()).filter(|&c| !explored[c]).collect();
        let candidates = match (self.from, best) {
            (RestartPoint::Distant, Some(best)) => {
                let centre = space.config(best);
                let distance = |c: ConfigId| hamming_distance(space.config(c), centre);
                let far = unexplored.iter().map(|&c| distance(c)).max()?;
                unexplored
                    .into_iter()
                    .filter(|&c| distance(c) == far)
                    .collect()
            }
            _ => unexplored,
        };
        if candidates.is_empty() {
            return None;
        }
        Some(candidates[rng.random_range(0..candidates.len())])
    }
}

/// Term `k` (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, …
pub fn luby(k: u32) -> u32 {
    let k = k.max(1);
    let mut size = 1u32;
    let mut power = 0u32;
    // The smallest complete block 2^p − 1 that reaches k.
    while size < k {
        power += 1;
        size = (1u32 << (power + 1).min(31)) - 1;
    }
    if size == k {
        return 1 << power;
    }
    luby(k - (size >> 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn luby_sequence_starts_as_published() {
        let terms: Vec<u32> = (1..=15).map(luby).collect();
        assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
        let r = Restart {
            after: 2,
            schedule: RestartSchedule::Luby,
            from: RestartPoint::Random,
        };
        assert_eq!(
            (1..=7).map(|k| r.threshold(k)).collect::<Vec<_>>(),
            [2, 2, 4, 2, 2, 4, 8]
        );
    }

    #[test]
    fn distant_restarts_differ_from_the_best_in_every_parameter_they_can() {
        let space = crate::space::grid_space(3, 3);
        let mut explored = vec![false; 9];
        explored[0] = true; // (0, 0), the best
        let r = Restart {
            after: 1,
            schedule: RestartSchedule::Fixed,
            from: RestartPoint::Distant,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..20 {
            let c = r.pick(&mut rng, &space, &explored, Some(0)).unwrap();
            assert_eq!(hamming_distance(space.config(c), space.config(0)), 2);
        }
        let all = vec![true; 9];
        assert_eq!(r.pick(&mut rng, &space, &all, Some(0)), None);
    }
}
