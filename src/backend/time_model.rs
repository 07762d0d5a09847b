//! The cost of an empirical test in replay: what makes "random vs profile-based in seconds" honest.

use serde::{Deserialize, Serialize};

/// Simulated cost of tests (see `docs/comparing.md`, "The clock").
///
/// A plain test costs `compile_s + test_overhead_s + runs_per_test × runtime`; a profiled test
/// additionally replays the kernel once per counter pass and pays a fixed profiler start-up. Every
/// kernel runtime is first multiplied by `runtime_scale`. When a recording carries a
/// per-configuration compilation overhead (KTT JSON, Kernel Tuner cache), it replaces `compile_s`
/// if `use_recorded_overhead`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeModel {
    /// Compilation of one configuration, seconds.
    pub compile_s: f64,
    /// Per-test cost besides compilation and kernel runs (buffer transfers, output check), seconds.
    pub test_overhead_s: f64,
    /// Timed kernel runs per test.
    pub runs_per_test: f64,
    /// Extra kernel replays a profiled test needs to collect all counters.
    pub profiling_passes: f64,
    /// Fixed cost of a profiled test besides its replays (profiler session set-up), seconds.
    pub profiler_overhead_s: f64,
    /// Factor applied to every recorded kernel runtime (e.g. 64 for an O(n²) kernel on 8× the input).
    pub runtime_scale: f64,
    /// Use the recording's per-configuration compilation overhead instead of `compile_s` where it exists.
    pub use_recorded_overhead: bool,
}

impl Default for TimeModel {
    fn default() -> Self {
        // Fitted to the per-test overheads KTT 2.1 recorded for Coulomb on an RTX 2080 Ti
        // (`ClockCalibration::from_ktt2_json`): mean compilation 0.263 s, 0.047 s of data
        // movement, validation and searcher time per test, one timed run per test, and profiled
        // tests costing 1.03 s + 5.97 × runtime more. Rounded so the defaults read as settings.
        TimeModel {
            compile_s: 0.26,
            test_overhead_s: 0.047,
            runs_per_test: 1.0,
            profiling_passes: 6.0,
            profiler_overhead_s: 1.03,
            runtime_scale: 1.0,
            use_recorded_overhead: true,
        }
    }
}

impl TimeModel {
    /// Seconds a test of a kernel with `runtime_us` costs (`None`: a failed configuration, which
    /// is compiled and set up but yields no run).
    pub fn cost(
        &self,
        runtime_us: Option<f64>,
        recorded_overhead_us: Option<f64>,
        profiled: bool,
    ) -> f64 {
        let compile = match recorded_overhead_us {
            Some(o) if self.use_recorded_overhead => o * 1e-6,
            _ => self.compile_s,
        };
        let setup = compile + self.test_overhead_s;
        let Some(rt) = runtime_us else {
            return setup;
        };
        let run = rt * 1e-6 * self.runtime_scale;
        let mut cost = setup + self.runs_per_test * run;
        if profiled {
            cost += self.profiling_passes * run + self.profiler_overhead_s;
        }
        cost
    }

    /// Checks that every constant is a finite, non-negative number (the runtime scale positive),
    /// naming the command-line flag of the first one that is not.
    pub fn validate(&self) -> crate::Result<()> {
        let fields = [
            ("--compile-s", self.compile_s),
            ("--test-overhead-s", self.test_overhead_s),
            ("--runs-per-test", self.runs_per_test),
            ("--profiling-passes", self.profiling_passes),
            ("--profiler-overhead-s", self.profiler_overhead_s),
        ];
        for (flag, value) in fields {
            if !value.is_finite() || value < 0.0 {
                return Err(crate::Error::invalid(format!(
                    "{flag} must be a non-negative number of seconds or runs, not {value}"
                )));
            }
        }
        if !self.runtime_scale.is_finite() || self.runtime_scale <= 0.0 {
            return Err(crate::Error::invalid(format!(
                "--runtime-scale must be a positive factor, not {}",
                self.runtime_scale
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> TimeModel {
        TimeModel {
            compile_s: 0.5,
            test_overhead_s: 0.05,
            runs_per_test: 3.0,
            profiling_passes: 40.0,
            profiler_overhead_s: 1.0,
            runtime_scale: 1.0,
            use_recorded_overhead: true,
        }
    }

    #[test]
    fn profiling_adds_passes_and_fixed_overhead() {
        let m = model();
        let plain = m.cost(Some(1000.0), None, false);
        let prof = m.cost(Some(1000.0), None, true);
        assert!((plain - (0.5 + 0.05 + 0.003)).abs() < 1e-12);
        assert!((prof - plain - (0.04 + 1.0)).abs() < 1e-12);
        assert!((m.cost(None, Some(28_000.0), true) - 0.078).abs() < 1e-12);
    }

    #[test]
    fn runtime_scale_multiplies_only_kernel_runs() {
        let m = TimeModel {
            runtime_scale: 64.0,
            ..model()
        };
        let plain = m.cost(Some(1000.0), None, false);
        let prof = m.cost(Some(1000.0), None, true);
        assert!((plain - (0.55 + 3.0 * 0.064)).abs() < 1e-12);
        assert!((prof - plain - (40.0 * 0.064 + 1.0)).abs() < 1e-12);
        assert!((m.cost(None, None, false) - 0.55).abs() < 1e-12);
    }

    #[test]
    fn bad_constants_name_their_flag() {
        let m = TimeModel {
            runtime_scale: 0.0,
            ..model()
        };
        assert!(m
            .validate()
            .unwrap_err()
            .to_string()
            .contains("--runtime-scale"));
        let m = TimeModel {
            profiling_passes: f64::NAN,
            ..model()
        };
        assert!(m
            .validate()
            .unwrap_err()
            .to_string()
            .contains("--profiling-passes"));
        assert!(TimeModel::default().validate().is_ok());
    }
}
