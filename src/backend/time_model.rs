//! The cost of an empirical test in replay: what makes "random vs profile-based in seconds" honest.

use serde::{Deserialize, Serialize};

/// Simulated cost of tests: compilation, timed runs and, for a profiled test, the profiler's passes.
///
/// A plain test costs `compile_s + runs × runtime`; a profiled test additionally replays the kernel
/// once per counter pass and pays a fixed profiler start-up. When a recording carries a
/// per-configuration tuner overhead (KTT JSON), it replaces `compile_s` if `use_recorded_overhead`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeModel {
    /// Compilation and set-up of one configuration, seconds.
    pub compile_s: f64,
    /// Kernel runs per plain test (warm-up and repetitions).
    pub runs_per_test: f64,
    /// Kernel replays a profiled test needs to collect all counters.
    pub profiling_passes: f64,
    /// Fixed cost of starting a profiling session, seconds.
    pub profiler_overhead_s: f64,
    /// Use the recording's per-configuration overhead instead of `compile_s` where it exists.
    pub use_recorded_overhead: bool,
}

impl Default for TimeModel {
    fn default() -> Self {
        // NVRTC compiles of tuned kernels take a few hundred ms; CUPTI needs tens of passes for the
        // ~40 metrics of expert_rules/counters-volta.toml and about a second to set up its session.
        TimeModel {
            compile_s: 0.5,
            runs_per_test: 3.0,
            profiling_passes: 40.0,
            profiler_overhead_s: 1.0,
            use_recorded_overhead: true,
        }
    }
}

impl TimeModel {
    /// Seconds a test of a kernel with `runtime_us` costs (`None`: a failed configuration).
    pub fn cost(
        &self,
        runtime_us: Option<f64>,
        recorded_overhead_us: Option<f64>,
        profiled: bool,
    ) -> f64 {
        let setup = match recorded_overhead_us {
            Some(o) if self.use_recorded_overhead => o * 1e-6,
            _ => self.compile_s,
        };
        let Some(rt) = runtime_us else {
            return setup;
        };
        let run = rt * 1e-6;
        let mut cost = setup + self.runs_per_test * run;
        if profiled {
            cost += self.profiling_passes * run + self.profiler_overhead_s;
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiling_adds_passes_and_fixed_overhead() {
        let m = TimeModel::default();
        let plain = m.cost(Some(1000.0), None, false);
        let prof = m.cost(Some(1000.0), None, true);
        assert!((plain - (0.5 + 0.003)).abs() < 1e-12);
        assert!((prof - plain - (0.04 + 1.0)).abs() < 1e-12);
        assert!((m.cost(None, Some(28_000.0), true) - 0.028).abs() < 1e-12);
    }
}
