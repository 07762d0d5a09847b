//! Leave-one-benchmark-out: settings are chosen on some benchmarks and judged on another, so that a
//! default is never credited with figures from the data it was chosen on.
//!
//! Every benchmark contributes cells (a recorded space tuned with its own counters or with the
//! model of some GPU), each run under one or more seeds. A candidate *violates* a cell when it needs
//! more steps on average than random search, or when its median is more than
//! [`MEDIAN_TOLERANCE`] times the published searcher's median. The chosen candidate has the fewest
//! violations on the benchmarks it is chosen on, then the largest geometric mean of improvements
//! over random search, each benchmark weighing the same.

use super::StepStats;
use serde::Serialize;

/// How far a candidate's median may exceed the published searcher's before the cell counts
/// against it.
pub const MEDIAN_TOLERANCE: f64 = 1.1;

/// One cell under one seed: what random search, the published searcher and every candidate did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellRun {
    /// Benchmark the cell belongs to.
    pub benchmark: String,
    /// GPU (or file) tuned.
    pub tuned: String,
    /// Where the candidates' counters came from: `exact`, or the GPU whose model was used.
    pub counters: String,
    /// Master seed of the runs.
    pub seed: u64,
    /// Random search on the tuned space.
    pub random: StepStats,
    /// The published searcher.
    pub paper: StepStats,
    /// Each candidate, in candidate order.
    pub candidates: Vec<StepStats>,
}

impl CellRun {
    /// Random search's mean steps over candidate `c`'s.
    pub fn improvement(&self, c: usize) -> f64 {
        self.random.mean_steps / self.candidates[c].mean_steps
    }

    /// Candidate `c`'s median steps over the published searcher's.
    pub fn median_ratio(&self, c: usize) -> f64 {
        self.candidates[c].median_steps / self.paper.median_steps
    }

    /// Whether candidate `c` loses to random search or strays too far from the published median.
    pub fn violated_by(&self, c: usize) -> bool {
        self.improvement(c) < 1.0 || self.median_ratio(c) > MEDIAN_TOLERANCE
    }
}

/// How one candidate did on a set of benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Cells (times seeds) judged.
    pub cells: usize,
    /// Of those, cells the candidate violates.
    pub violations: usize,
    /// Geometric mean of the improvements, each benchmark weighing the same.
    pub geometric_mean: f64,
    /// Smallest improvement.
    pub worst: f64,
    /// Largest median ratio to the published searcher.
    pub worst_median_ratio: f64,
}

/// Candidate `c`'s verdict on the cells of `benchmarks`.
pub fn judge(runs: &[CellRun], c: usize, benchmarks: &[&str]) -> Verdict {
    let mut logs = Vec::new();
    let (mut cells, mut violations) = (0, 0);
    let (mut worst, mut worst_median_ratio) = (f64::INFINITY, 0.0f64);
    for b in benchmarks {
        let of_b: Vec<&CellRun> = runs.iter().filter(|r| r.benchmark == *b).collect();
        if of_b.is_empty() {
            continue;
        }
        let sum: f64 = of_b.iter().map(|r| r.improvement(c).ln()).sum();
        logs.push(sum / of_b.len() as f64);
        for r in of_b {
            cells += 1;
            violations += usize::from(r.violated_by(c));
            worst = worst.min(r.improvement(c));
            worst_median_ratio = worst_median_ratio.max(r.median_ratio(c));
        }
    }
    let geometric_mean = if logs.is_empty() {
        f64::NAN
    } else {
        (logs.iter().sum::<f64>() / logs.len() as f64).exp()
    };
    Verdict {
        cells,
        violations,
        geometric_mean,
        worst,
        worst_median_ratio,
    }
}

/// The candidate chosen on `benchmarks`: fewest violations, then the largest geometric mean; ties
/// go to the earlier candidate.
pub fn choose(runs: &[CellRun], candidates: usize, benchmarks: &[&str]) -> usize {
    let mut best = 0;
    let mut best_verdict = judge(runs, 0, benchmarks);
    for c in 1..candidates {
        let v = judge(runs, c, benchmarks);
        let better = v.violations < best_verdict.violations
            || (v.violations == best_verdict.violations
                && v.geometric_mean > best_verdict.geometric_mean);
        if better {
            best = c;
            best_verdict = v;
        }
    }
    best
}

/// One fold: the candidate chosen without a benchmark, and how it did there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fold {
    /// The benchmark left out of the choice.
    pub held_out: String,
    /// Index of the candidate chosen on the other benchmarks.
    pub chosen: usize,
    /// Its verdict on the benchmarks it was chosen on.
    pub training: Verdict,
    /// Its verdict on the held-out benchmark.
    pub held_out_verdict: Verdict,
}

/// The benchmarks of `runs`, in order of first appearance.
pub fn benchmarks(runs: &[CellRun]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        if !names.contains(&r.benchmark) {
            names.push(r.benchmark.clone());
        }
    }
    names
}

/// Every leave-one-benchmark-out fold of `runs`.
pub fn folds(runs: &[CellRun], candidates: usize) -> Vec<Fold> {
    let names = benchmarks(runs);
    names
        .iter()
        .map(|held_out| {
            let training: Vec<&str> = names
                .iter()
                .filter(|n| *n != held_out)
                .map(String::as_str)
                .collect();
            let chosen = choose(runs, candidates, &training);
            Fold {
                held_out: held_out.clone(),
                chosen,
                training: judge(runs, chosen, &training),
                held_out_verdict: judge(runs, chosen, &[held_out.as_str()]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(mean: f64, median: f64) -> StepStats {
        StepStats {
            runs: 100,
            mean_steps: mean,
            median_steps: median,
            p90_steps: 0,
            max_steps: 0,
            share_over_100: 0.0,
            mean_profiled: 0.0,
            mean_time_s: 0.0,
            median_time_s: 0.0,
            not_found: 0,
        }
    }

    /// Candidate 0 shines on `a` and `b` but loses to random on `c`; candidate 1 is steady.
    fn runs() -> Vec<CellRun> {
        let cell = |benchmark: &str, means: [f64; 2]| CellRun {
            benchmark: benchmark.into(),
            tuned: "x".into(),
            counters: "exact".into(),
            seed: 1,
            random: stats(40.0, 30.0),
            paper: stats(20.0, 10.0),
            candidates: means.iter().map(|&m| stats(m, 10.0)).collect(),
        };
        vec![
            cell("a", [5.0, 10.0]),
            cell("b", [5.0, 10.0]),
            cell("c", [80.0, 10.0]),
        ]
    }

    #[test]
    fn judges_violations_and_a_benchmark_balanced_geometric_mean() {
        let v = judge(&runs(), 0, &["a", "c"]);
        assert_eq!((v.cells, v.violations), (2, 1));
        assert!((v.geometric_mean - (8.0f64 * 0.5).sqrt()).abs() < 1e-12);
        assert_eq!(v.worst, 0.5);
        assert_eq!(v.worst_median_ratio, 1.0);
    }

    #[test]
    fn each_fold_chooses_without_its_benchmark() {
        let f = folds(&runs(), 2);
        assert_eq!(f.len(), 3);
        // Without c, candidate 0's 8x wins; judged on c, it loses to random.
        assert_eq!((f[2].held_out.as_str(), f[2].chosen), ("c", 0));
        assert_eq!(f[2].held_out_verdict.violations, 1);
        // With c among the training benchmarks, its violation rules candidate 0 out.
        assert_eq!(f[0].chosen, 1);
        assert_eq!(choose(&runs(), 2, &["a", "b", "c"]), 1);
    }
}
