//! Step statistics over repeated runs, and per-run seed derivation.

use super::RunResult;
use serde::Serialize;

/// Seed of run `index` under master seed `seed` (SplitMix64 of both), so runs are independent of
/// the order and the thread they execute on.
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed
        ^ index
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Distribution of steps (and simulated time) over runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepStats {
    /// Number of runs.
    pub runs: usize,
    /// Mean steps to a well-performing configuration.
    pub mean_steps: f64,
    /// Median steps.
    pub median_steps: f64,
    /// 90th percentile of steps (nearest rank).
    pub p90_steps: usize,
    /// Largest number of steps.
    pub max_steps: usize,
    /// Share of runs needing more than 100 steps.
    pub share_over_100: f64,
    /// Mean profiled tests per run.
    pub mean_profiled: f64,
    /// Mean simulated seconds to a well-performing configuration.
    pub mean_time_s: f64,
    /// Median simulated seconds.
    pub median_time_s: f64,
    /// Runs that hit the test cap without finding a well-performing configuration.
    pub not_found: usize,
}

impl StepStats {
    /// Statistics of `results` (must not be empty).
    pub fn of(results: &[RunResult]) -> StepStats {
        let n = results.len().max(1);
        let mut steps: Vec<usize> = results.iter().map(|r| r.steps).collect();
        steps.sort_unstable();
        let mut times: Vec<f64> = results.iter().map(|r| r.time_s).collect();
        times.sort_by(f64::total_cmp);
        let median_of = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else if v.len() % 2 == 1 {
                v[v.len() / 2]
            } else {
                (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
            }
        };
        let steps_f: Vec<f64> = steps.iter().map(|&s| s as f64).collect();
        let rank90 = ((0.9 * steps.len() as f64).ceil() as usize).clamp(1, steps.len().max(1)) - 1;
        StepStats {
            runs: results.len(),
            mean_steps: steps_f.iter().sum::<f64>() / n as f64,
            median_steps: median_of(&steps_f),
            p90_steps: steps.get(rank90).copied().unwrap_or(0),
            max_steps: steps.last().copied().unwrap_or(0),
            share_over_100: steps.iter().filter(|&&s| s > 100).count() as f64 / n as f64,
            mean_profiled: results.iter().map(|r| r.profiled as f64).sum::<f64>() / n as f64,
            mean_time_s: times.iter().sum::<f64>() / n as f64,
            median_time_s: median_of(&times),
            not_found: results.iter().filter(|r| !r.found).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(steps: usize) -> RunResult {
        RunResult {
            steps,
            profiled: 0,
            time_s: steps as f64,
            found: true,
        }
    }

    #[test]
    fn statistics_of_a_known_sample() {
        let results: Vec<RunResult> = (1..=10).map(run).chain([run(200)]).collect();
        let s = StepStats::of(&results);
        assert_eq!(s.runs, 11);
        assert!((s.mean_steps - 255.0 / 11.0).abs() < 1e-12);
        assert_eq!(s.median_steps, 6.0);
        assert_eq!(s.p90_steps, 10);
        assert_eq!(s.max_steps, 200);
        assert!((s.share_over_100 - 1.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn derived_seeds_differ_per_run() {
        let seeds: std::collections::HashSet<u64> = (0..1000).map(|i| derive_seed(42, i)).collect();
        assert_eq!(seeds.len(), 1000);
        assert_eq!(derive_seed(42, 3), derive_seed(42, 3));
    }
}
