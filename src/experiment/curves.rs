//! Convergence curves: best-so-far runtime against tests and against simulated seconds, as a
//! mean with a standard deviation over runs, and the distribution of steps.

use super::RunTrace;

/// The optimum curves are divided by, and what a run that has measured nothing yet is credited
/// with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// Best runtime of the space, µs.
    pub optimum_us: f64,
    /// Runtime credited before the first successful test, µs: the mean over the space (a failed
    /// configuration at the slowest valid runtime), what an untuned configuration chosen at random
    /// gives on average.
    pub unmeasured_us: f64,
}

impl Scale {
    fn or_unmeasured(&self, best_us: f64) -> f64 {
        if best_us.is_nan() {
            self.unmeasured_us
        } else {
            best_us
        }
    }
}

/// Best runtime (µs) of `trace` after `tests` tests (≥ 1); a run that ended earlier keeps its
/// last value.
pub fn best_after_tests(trace: &RunTrace, tests: usize, scale: Scale) -> f64 {
    match trace.best_us.len().min(tests) {
        0 => scale.unmeasured_us,
        k => scale.or_unmeasured(trace.best_us[k - 1]),
    }
}

/// Best runtime (µs) of `trace` among the tests finished within `seconds`.
pub fn best_at_time(trace: &RunTrace, seconds: f64, scale: Scale) -> f64 {
    match trace.elapsed_s.partition_point(|&e| e <= seconds) {
        0 => scale.unmeasured_us,
        k => scale.or_unmeasured(trace.best_us[k - 1]),
    }
}

/// A mean curve with its standard deviation over runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Points on the horizontal axis.
    pub x: Vec<f64>,
    /// Mean over runs at each point.
    pub mean: Vec<f64>,
    /// Standard deviation over runs at each point (population).
    pub std: Vec<f64>,
}

fn band(x: Vec<f64>, traces: &[RunTrace], value: impl Fn(&RunTrace, f64) -> f64) -> Band {
    let n = traces.len().max(1) as f64;
    let (mut mean, mut std) = (Vec::with_capacity(x.len()), Vec::with_capacity(x.len()));
    for &p in &x {
        let values: Vec<f64> = traces.iter().map(|t| value(t, p)).collect();
        let m = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n;
        mean.push(m);
        std.push(var.sqrt());
    }
    Band { x, mean, std }
}

/// Best-so-far runtime relative to the optimum after 1, 2, …, `horizon` tests.
pub fn relative_best_by_tests(traces: &[RunTrace], horizon: usize, scale: Scale) -> Band {
    let x = (1..=horizon).map(|m| m as f64).collect();
    band(x, traces, |t, m| {
        best_after_tests(t, m as usize, scale) / scale.optimum_us
    })
}

/// Best-so-far runtime relative to the optimum at `points` + 1 evenly spaced times from 0 to
/// `horizon_s` seconds.
pub fn relative_best_by_time(
    traces: &[RunTrace],
    horizon_s: f64,
    points: usize,
    scale: Scale,
) -> Band {
    let x = (0..=points)
        .map(|j| horizon_s * j as f64 / points.max(1) as f64)
        .collect();
    band(x, traces, |t, s| {
        best_at_time(t, s, scale) / scale.optimum_us
    })
}

/// Share of runs that had found a well-performing configuration within each number of tests
/// 1..=`max_steps` (the empirical distribution function of steps; runs that never found one
/// never count).
pub fn found_within(traces: &[RunTrace], max_steps: usize) -> Vec<f64> {
    let mut counts = vec![0usize; max_steps + 1];
    for t in traces.iter().filter(|t| t.result.found) {
        if t.result.steps <= max_steps {
            counts[t.result.steps] += 1;
        }
    }
    let n = traces.len().max(1) as f64;
    let mut cumulative = 0;
    counts[1..]
        .iter()
        .map(|c| {
            cumulative += c;
            cumulative as f64 / n
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::RunResult;

    fn trace(best_us: &[f64], elapsed_s: &[f64], steps: usize) -> RunTrace {
        RunTrace {
            run: 0,
            result: RunResult {
                steps,
                profiled: 0,
                time_s: elapsed_s[steps - 1],
                found: true,
            },
            best_us: best_us.to_vec(),
            elapsed_s: elapsed_s.to_vec(),
        }
    }

    const SCALE: Scale = Scale {
        optimum_us: 10.0,
        unmeasured_us: 80.0,
    };

    #[test]
    fn best_so_far_by_tests_and_by_time() {
        let t = trace(&[f64::NAN, 40.0, 10.0], &[1.0, 2.5, 3.0], 3);
        assert_eq!(best_after_tests(&t, 1, SCALE), 80.0);
        assert_eq!(best_after_tests(&t, 2, SCALE), 40.0);
        assert_eq!(best_after_tests(&t, 9, SCALE), 10.0);
        assert_eq!(best_at_time(&t, 0.5, SCALE), 80.0);
        assert_eq!(best_at_time(&t, 2.5, SCALE), 40.0);
        assert_eq!(best_at_time(&t, 2.9, SCALE), 40.0);
        assert_eq!(best_at_time(&t, 3.0, SCALE), 10.0);
    }

    #[test]
    fn band_mean_and_deviation_over_two_runs() {
        let a = trace(&[20.0, 10.0], &[1.0, 2.0], 2);
        let b = trace(&[40.0, 40.0, 10.0], &[1.0, 2.0, 3.0], 3);
        let band = relative_best_by_tests(&[a.clone(), b.clone()], 3, SCALE);
        assert_eq!(band.mean, vec![3.0, 2.5, 1.0]);
        assert_eq!(band.std, vec![1.0, 1.5, 0.0]);
        let by_time = relative_best_by_time(&[a.clone(), b.clone()], 2.0, 2, SCALE);
        assert_eq!(by_time.x, vec![0.0, 1.0, 2.0]);
        assert_eq!(by_time.mean, vec![8.0, 3.0, 2.5]);
        assert_eq!(found_within(&[a, b], 4), vec![0.0, 0.5, 1.0, 1.0]);
    }
}
