//! Which profiler metrics a device is asked for, and how their values become canonical counters.
//!
//! GPU-free: the list comes from the generation's counter map in `expert_rules/`, and evaluation is
//! the map applied to the values CUPTI returns, in the order the names were requested.

use crate::counters::{CounterValues, Generation, MappedMetrics};
use crate::rules::Rules;

/// The failure of a profiled test on a GPU older than Volta.
pub const PRE_VOLTA: &str = "counters need compute capability 7.0+ (CUPTI range profiler)";

/// The metrics requested on a device and their mapping to canonical counters.
#[derive(Debug, Clone)]
pub struct MetricPlan {
    /// Metric names, in request order.
    pub names: Vec<String>,
    mapped: MappedMetrics,
    rules_generation: Generation,
}

impl MetricPlan {
    /// The plan for a compute capability: the Volta+ metric names, or [`PRE_VOLTA`] below 7.0.
    pub fn for_device(rules: &Rules, compute_capability: f64) -> Result<MetricPlan, String> {
        let generation = Generation::of_compute_capability(compute_capability);
        if generation != Generation::Volta {
            return Err(PRE_VOLTA.into());
        }
        let map = rules.counter_map(generation).live();
        let names = map.metric_names();
        let mapped = map.resolve(&names);
        Ok(MetricPlan {
            names,
            mapped,
            rules_generation: generation,
        })
    }

    /// Keeps only the metrics the profiler accepted (a chip may lack some); counters that need a
    /// dropped metric fall back to the map's default or stay unmeasured (`NaN`).
    pub fn restrict(&mut self, rules: &Rules, accepted: &[String]) {
        self.names.retain(|n| accepted.contains(n));
        self.mapped = rules
            .counter_map(self.rules_generation)
            .live()
            .resolve(&self.names);
    }

    /// Canonical counters from raw values aligned with [`MetricPlan::names`].
    pub fn counters(&self, raw: &[f64], global_size: f64, local_size: f64) -> CounterValues {
        self.mapped.values(raw, global_size, local_size)
    }

    /// Canonical counters the map knows but the plan cannot measure, with the absent metrics.
    pub fn unmeasured(&self) -> Vec<String> {
        self.mapped
            .missing
            .iter()
            .map(|(c, m)| format!("{c} (needs {})", m.join(" + ")))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::Counter;

    #[test]
    fn volta_and_newer_request_the_nsight_metrics_of_the_rules() {
        let rules = Rules::builtin().unwrap();
        for cc in [7.0, 7.5, 8.0, 8.6, 8.9, 9.0] {
            let plan = MetricPlan::for_device(&rules, cc).unwrap();
            assert_eq!(
                plan.names,
                rules.counter_map(Generation::Volta).live().metric_names()
            );
        }
        let plan = MetricPlan::for_device(&rules, 8.6).unwrap();
        assert_eq!(plan.names.len(), 27);
        // The range profiler cannot collect SASS-patched metrics: none is requested.
        assert!(
            plan.names.iter().all(|n| !n.contains("sass")),
            "{:?}",
            plan.names
        );
        assert!(plan
            .names
            .iter()
            .any(|n| n == "smsp__inst_executed_pipe_fma.sum"));
        for name in [
            "dram__sectors_read.sum",
            "lts__t_sectors_op_write.sum",
            "smsp__inst_executed.sum",
            "smsp__thread_inst_executed_per_inst_executed.ratio",
            "sm__warps_active.avg.pct_of_peak_sustained_active",
            "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        ] {
            assert!(plan.names.iter().any(|n| n == name), "{name}");
        }
        assert!(plan.unmeasured().is_empty(), "{:?}", plan.unmeasured());
    }

    #[test]
    fn older_gpus_get_a_clear_refusal() {
        let rules = Rules::builtin().unwrap();
        for cc in [3.0, 5.0, 6.1] {
            assert_eq!(MetricPlan::for_device(&rules, cc).unwrap_err(), PRE_VOLTA);
        }
    }

    #[test]
    fn raw_values_evaluate_to_canonical_counters() {
        let rules = Rules::builtin().unwrap();
        let plan = MetricPlan::for_device(&rules, 7.5).unwrap();
        let mut raw = vec![0.0; plan.names.len()];
        let set = |raw: &mut Vec<f64>, name: &str, v: f64| {
            let i = plan.names.iter().position(|n| n == name).unwrap();
            raw[i] = v;
        };
        set(
            &mut raw,
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            55.0,
        );
        set(
            &mut raw,
            "smsp__thread_inst_executed_per_inst_executed.ratio",
            16.0,
        );
        set(
            &mut raw,
            "sm__warps_active.avg.pct_of_peak_sustained_active",
            50.0,
        );
        set(&mut raw, "lts__t_sectors_op_read.sum", 300.0);
        set(&mut raw, "lts__t_sectors_op_write.sum", 100.0);
        set(
            &mut raw,
            "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
            30.0,
        );
        set(
            &mut raw,
            "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
            10.0,
        );
        set(&mut raw, "smsp__inst_executed.sum", 1234.0);
        let c = plan.counters(&raw, 4096.0, 256.0);
        assert!((c[Counter::DramU] - 5.5).abs() < 1e-12);
        assert!((c[Counter::WarpE] - 50.0).abs() < 1e-12);
        assert!((c[Counter::Occ] - 0.5).abs() < 1e-12);
        assert!((c[Counter::LocO] - 10.0).abs() < 1e-12);
        assert_eq!(c[Counter::L2Rt], 300.0);
        assert_eq!(c[Counter::InstExe], 1234.0);
        assert_eq!(c[Counter::GlobalSize], 4096.0);
        assert_eq!(c[Counter::LocalSize], 256.0);
    }

    #[test]
    fn metrics_a_chip_rejects_are_dropped_from_the_plan() {
        let rules = Rules::builtin().unwrap();
        let mut plan = MetricPlan::for_device(&rules, 8.0).unwrap();
        let accepted: Vec<String> = plan
            .names
            .iter()
            .filter(|n| {
                !n.starts_with("smsp__inst_executed_pipe_xu.avg")
                    && !n.starts_with("dram__sectors_read")
            })
            .cloned()
            .collect();
        plan.restrict(&rules, &accepted);
        assert_eq!(plan.names.len(), 25);
        // SFU_U has a default in the rules; DRAM_RT has none and is reported unmeasured.
        assert_eq!(
            plan.unmeasured(),
            vec!["DRAM_RT (needs dram__sectors_read.sum)"]
        );
        let c = plan.counters(&[1.0; 25], 1.0, 1.0);
        assert_eq!(c[Counter::SfuU], 0.0);
        assert!(c[Counter::DramRt].is_nan());
    }
}
