//! The summary score: performance relative to random search at each point of a budget,
//! aggregated over spaces (after Willemsen et al., "A methodology for comparing auto-tuning
//! optimization algorithms", FGCS 2024). The exact definition is in `docs/comparing.md`.

use super::curves::{best_after_tests, best_at_time, Scale};
use super::trace::{mean_plain_cost, random_budget_tests};
use super::RunTrace;
use crate::backend::TimeModel;
use crate::data::Dataset;

/// Points at which the time budget (and every plotted summary curve) is evaluated.
pub const BUDGET_POINTS: usize = 100;

/// A space's budget and random search's exact expected progress over it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpaceBudget {
    /// Budget in tests: ⌈(N+1)/(K+1)⌉, what random search needs on average for a well-performing
    /// configuration.
    pub tests: usize,
    /// Mean cost of a random test, seconds; the time budget is `tests` of them.
    pub test_cost_s: f64,
    /// Optimum and fallback of the space's curves.
    pub scale: Scale,
    /// Random search's expected best runtime after 0, 1, …, `tests` tests, µs (after 0 tests, an
    /// untuned configuration: the same as after 1).
    pub random_best_us: Vec<f64>,
    /// Random search's mean best runtime over seeded runs at 1/BUDGET_POINTS … 1 of the time
    /// budget, µs (empty until [`SpaceBudget::with_random_runs`]).
    pub random_by_time_us: Vec<f64>,
}

impl SpaceBudget {
    /// The budget of `dataset` under the clock `time`.
    pub fn of(dataset: &Dataset, time: &TimeModel) -> SpaceBudget {
        let runtimes: Vec<Option<f64>> = dataset.records.iter().map(|r| r.runtime_us).collect();
        let tests = random_budget_tests(dataset);
        SpaceBudget::new(&runtimes, tests, mean_plain_cost(dataset, time))
    }

    /// The budget of a space with these `runtimes` (`None`: failed) over `tests` tests costing
    /// `test_cost_s` each on average.
    pub fn new(runtimes: &[Option<f64>], tests: usize, test_cost_s: f64) -> SpaceBudget {
        let valid = runtimes.iter().flatten().copied();
        let optimum_us = valid.clone().fold(f64::INFINITY, f64::min);
        let worst_us = valid.fold(f64::NEG_INFINITY, f64::max);
        let random_best_us = random_expected_best(runtimes, worst_us, tests);
        SpaceBudget {
            tests,
            test_cost_s,
            scale: Scale {
                optimum_us,
                unmeasured_us: random_best_us[0],
            },
            random_best_us,
            random_by_time_us: Vec::new(),
        }
    }

    /// The budget with its time baseline taken from random search's runs `traces`.
    ///
    /// In time, random search's progress depends on which configurations it drew (each costs its
    /// own compilation and runtime), which no closed formula captures; its mean over seeded runs
    /// does, and equals the random searcher's own curve when that runs with the same seed.
    pub fn with_random_runs(mut self, traces: &[RunTrace]) -> SpaceBudget {
        let n = traces.len().max(1) as f64;
        self.random_by_time_us = (1..=BUDGET_POINTS)
            .map(|j| {
                let t = self.time_point(j);
                traces
                    .iter()
                    .map(|tr| best_at_time(tr, t, self.scale))
                    .sum::<f64>()
                    / n
            })
            .collect();
        self
    }

    /// Seconds at `j`/BUDGET_POINTS of the time budget.
    pub fn time_point(&self, j: usize) -> f64 {
        self.seconds() * j as f64 / BUDGET_POINTS as f64
    }

    /// The time budget, seconds.
    pub fn seconds(&self) -> f64 {
        self.tests as f64 * self.test_cost_s
    }
}

/// Expected best runtime of random search without replacement after 0..=`max_tests` tests, a
/// failed configuration counting as `worst_us`; after 0 tests, that of one test (an untuned
/// configuration).
///
/// With the N values sorted ascending, the best of m distinct draws is at rank j or worse with
/// probability S_j = C(N−j+1, m) / C(N, m), so the expectation is Σ_j v_j (S_j − S_{j+1}).
pub fn random_expected_best(runtimes: &[Option<f64>], worst_us: f64, max_tests: usize) -> Vec<f64> {
    let mut v: Vec<f64> = runtimes.iter().map(|r| r.unwrap_or(worst_us)).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (0..=max_tests)
        .map(|m| {
            let m = m.max(1);
            if n == 0 {
                return worst_us;
            }
            let mut expected = 0.0;
            let mut survive = 1.0; // S_j
            for (j, &value) in v.iter().enumerate() {
                let left = (n - j) as f64; // N − j + 1 with 1-based j
                let next = if left > m as f64 {
                    survive * (left - m as f64) / left
                } else {
                    0.0
                };
                expected += value * (survive - next);
                survive = next;
                if survive == 0.0 {
                    break;
                }
            }
            expected
        })
        .collect()
}

/// Performance at one budget point: 0 is random search's expected best, 1 the optimum, and
/// negative worse than random (0 where random search is certain to hold the optimum already).
pub fn relative_performance(random_us: f64, searcher_us: f64, optimum_us: f64) -> f64 {
    let gap = random_us - optimum_us;
    if gap <= 0.0 {
        0.0
    } else {
        (random_us - searcher_us) / gap
    }
}

/// One searcher's performance over one space's budget.
#[derive(Debug, Clone, PartialEq)]
pub struct SpacePerformance {
    /// After 1, 2, …, budget tests.
    pub by_tests: Vec<f64>,
    /// At 1/BUDGET_POINTS, 2/BUDGET_POINTS, …, 1 of the time budget (empty without a time
    /// baseline).
    pub by_time: Vec<f64>,
}

impl SpacePerformance {
    /// The performance of the runs `traces` over `budget`, from their mean best-so-far runtime:
    /// by tests against random search's exact expectation, in time against its seeded runs.
    pub fn of(budget: &SpaceBudget, traces: &[RunTrace]) -> SpacePerformance {
        let n = traces.len().max(1) as f64;
        let opt = budget.scale.optimum_us;
        let by_tests = (1..=budget.tests)
            .map(|m| {
                let mean = traces
                    .iter()
                    .map(|t| best_after_tests(t, m, budget.scale))
                    .sum::<f64>()
                    / n;
                relative_performance(budget.random_best_us[m], mean, opt)
            })
            .collect();
        let by_time = budget
            .random_by_time_us
            .iter()
            .enumerate()
            .map(|(i, &random)| {
                let t = budget.time_point(i + 1);
                let mean = traces
                    .iter()
                    .map(|tr| best_at_time(tr, t, budget.scale))
                    .sum::<f64>()
                    / n;
                relative_performance(random, mean, opt)
            })
            .collect();
        SpacePerformance { by_tests, by_time }
    }

    /// Mean performance over the test budget.
    pub fn score_tests(&self) -> f64 {
        mean(&self.by_tests)
    }

    /// Mean performance over the time budget.
    pub fn score_time(&self) -> f64 {
        mean(&self.by_time)
    }

    /// Performance at `j`/BUDGET_POINTS of the test budget: after ⌈j·budget/BUDGET_POINTS⌉ tests.
    fn at_budget_point(&self, j: usize) -> f64 {
        let budget = self.by_tests.len();
        let m = (j * budget).div_ceil(BUDGET_POINTS).clamp(1, budget.max(1));
        self.by_tests.get(m - 1).copied().unwrap_or(f64::NAN)
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One searcher's score over several spaces.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryScore {
    /// Mean over spaces of the mean performance over each space's test budget.
    pub tests: f64,
    /// The same over each space's time budget.
    pub time: f64,
    /// Mean over spaces at 1/BUDGET_POINTS … 1 of the test budget.
    pub curve_tests: Vec<f64>,
    /// Mean over spaces at 1/BUDGET_POINTS … 1 of the time budget.
    pub curve_time: Vec<f64>,
}

impl SummaryScore {
    /// Aggregates one searcher's performance on every space (equal weight per space).
    pub fn of(spaces: &[&SpacePerformance]) -> SummaryScore {
        let n = spaces.len().max(1) as f64;
        let curve_tests = (1..=BUDGET_POINTS)
            .map(|j| spaces.iter().map(|s| s.at_budget_point(j)).sum::<f64>() / n)
            .collect();
        let curve_time = (0..BUDGET_POINTS)
            .map(|j| {
                spaces
                    .iter()
                    .map(|s| s.by_time.get(j).copied().unwrap_or(f64::NAN))
                    .sum::<f64>()
                    / n
            })
            .collect();
        SummaryScore {
            tests: spaces.iter().map(|s| s.score_tests()).sum::<f64>() / n,
            time: spaces.iter().map(|s| s.score_time()).sum::<f64>() / n,
            curve_tests,
            curve_time,
        }
    }

    /// The test-budget curve at 10 %, 20 %, …, 100 % of the budget.
    pub fn tests_by_tenths(&self) -> Vec<f64> {
        (1..=10)
            .map(|i| self.curve_tests[i * BUDGET_POINTS / 10 - 1])
            .collect()
    }

    /// The time-budget curve at 10 %, 20 %, …, 100 % of the budget.
    pub fn time_by_tenths(&self) -> Vec<f64> {
        (1..=10)
            .map(|i| self.curve_time[i * BUDGET_POINTS / 10 - 1])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::RunResult;

    fn trace(best_us: &[f64]) -> RunTrace {
        let tests = best_us.len();
        RunTrace {
            run: 0,
            result: RunResult {
                steps: tests,
                profiled: 0,
                time_s: tests as f64,
                found: true,
            },
            best_us: best_us.to_vec(),
            // Every test costs one second, the mean test cost of the budgets below.
            elapsed_s: (1..=tests).map(|i| i as f64).collect(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn random_expectation_by_hand() {
        let r = random_expected_best(&[Some(3.0), Some(1.0), Some(4.0), Some(2.0)], 4.0, 4);
        // min of 1 draw: 2.5; of 2: (1·3 + 2·2 + 3·1)/6; of 3: (1·3 + 2·1)/4; of 4: 1.
        let expected = [2.5, 2.5, 10.0 / 6.0, 1.25, 1.0];
        assert!(r.iter().zip(expected).all(|(a, b)| close(*a, b)), "{r:?}");
        // A failed configuration counts as the slowest valid one.
        let r = random_expected_best(&[Some(1.0), None, Some(3.0)], 3.0, 1);
        assert!(close(r[1], 7.0 / 3.0));
    }

    /// Two spaces, worked out by hand in docs/comparing.md ("The summary score").
    #[test]
    fn summary_score_of_a_tiny_case() {
        // Space A: runtimes 1..4, K = 1, budget ⌈5/2⌉ = 3 tests; random 2.5, 5/3, 5/4.
        let a = SpaceBudget::new(&[Some(1.0), Some(2.0), Some(3.0), Some(4.0)], 3, 1.0);
        // Two runs: one finds the optimum first, one after 3 tests: mean best 2.5, 1.5, 1.
        let pa = SpacePerformance::of(&a, &[trace(&[1.0, 1.0, 1.0]), trace(&[4.0, 2.0, 1.0])]);
        let want = [0.0, 0.25, 1.0];
        assert!(pa.by_tests.iter().zip(want).all(|(a, b)| close(*a, b)));
        assert!(close(pa.score_tests(), 1.25 / 3.0));
        // Space B: runtimes 2, 2, 4, 8, budget 2 tests; random 4 then 7/3; one run: 8, then 2.
        let b = SpaceBudget::new(&[Some(2.0), Some(2.0), Some(4.0), Some(8.0)], 2, 1.0);
        assert!(close(b.random_best_us[2], 7.0 / 3.0));
        let pb = SpacePerformance::of(&b, &[trace(&[8.0, 2.0])]);
        assert!(close(pb.by_tests[0], -2.0) && close(pb.by_tests[1], 1.0));
        let s = SummaryScore::of(&[&pa, &pb]);
        assert!(close(s.tests, (1.25 / 3.0 - 0.5) / 2.0), "{}", s.tests);
        // Time: every test takes one second. Random search's runs in A are 3, 2, 1 and 2, 2, 1
        // (mean 2.5, 2, 1 after each second), in B 4, 2 (mean 4, 2). Before its first test a run
        // is credited the space's mean runtime (2.5 in A, 4 in B).
        let a = a.with_random_runs(&[trace(&[3.0, 2.0, 1.0]), trace(&[2.0, 2.0, 1.0])]);
        let b = b.with_random_runs(&[trace(&[4.0, 2.0])]);
        let pa = SpacePerformance::of(&a, &[trace(&[1.0, 1.0, 1.0]), trace(&[4.0, 2.0, 1.0])]);
        let pb = SpacePerformance::of(&b, &[trace(&[8.0, 2.0])]);
        // A's budget is 3 s: points 1–33 (< 1 s) have no test anywhere: 0. Points 34–66 (one test)
        // compare 2.5 with random's 2.5: 0. Points 67–99 (two tests) 1.5 with 2: (2 − 1.5) /
        // (2 − 1) = 0.5. Point 100 (three tests) 1 with 1: random holds the optimum, 0.
        assert!(close(pa.by_time[32], 0.0) && close(pa.by_time[65], 0.0));
        assert!(close(pa.by_time[66], 0.5) && close(pa.by_time[98], 0.5));
        assert!(close(pa.by_time[99], 0.0));
        assert!(close(pa.score_time(), 33.0 * 0.5 / 100.0));
        // B's budget is 2 s: points 1–49: 0; 50–99 (one test): (4 − 8) / (4 − 2) = −2; point 100
        // (two tests): 2 against 2, 0.
        assert!(close(pb.by_time[48], 0.0) && close(pb.by_time[49], -2.0));
        assert!(close(pb.score_time(), 50.0 * -2.0 / 100.0));
        let s = SummaryScore::of(&[&pa, &pb]);
        assert!(close(s.time, (0.165 - 1.0) / 2.0), "{}", s.time);
        // The test curve at the end of the budget averages the last points: (1 + 1) / 2.
        assert!(close(s.tests_by_tenths()[9], 1.0));
        // At 10 % of the budget both spaces are at their first test: (0 − 2) / 2.
        assert!(close(s.tests_by_tenths()[0], -1.0));
    }
}
