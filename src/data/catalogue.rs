//! Column names that are never tuning parameters: tuner bookkeeping, compile data and counters.

/// Bookkeeping and compile-data columns of KTT outputs.
const TUNER_COLUMNS: &[&str] = &[
    "Kernel name",
    "Computation duration (us)",
    "Computation duration",
    "Global size",
    "Local size",
    "Maximum work-group size",
    "Local memory size",
    "Private memory size",
    "Constant memory size",
    "Registers count",
    "Status",
    "Validation",
    "Total duration (us)",
    "Total overhead (us)",
    "Overhead (us)",
];

/// nvprof metric names that appear in recordings besides those the counter maps read.
const NVPROF_METRICS: &[&str] = &[
    "achieved_occupancy",
    "cf_fu_utilization",
    "double_precision_fu_utilization",
    "dram_read_transactions",
    "dram_utilization",
    "dram_write_transactions",
    "flop_dp_efficiency",
    "flop_hp_efficiency",
    "flop_sp_efficiency",
    "gld_efficiency",
    "gst_efficiency",
    "half_precision_fu_utilization",
    "inst_bit_convert",
    "inst_compute_ld_st",
    "inst_control",
    "inst_executed",
    "inst_fp_16",
    "inst_fp_32",
    "inst_fp_64",
    "inst_integer",
    "inst_inter_thread_communication",
    "inst_misc",
    "ipc",
    "issue_slot_utilization",
    "l2_read_transactions",
    "l2_utilization",
    "l2_write_transactions",
    "ldst_fu_utilization",
    "local_load_transactions",
    "local_memory_overhead",
    "local_store_transactions",
    "shared_efficiency",
    "shared_load_transactions",
    "shared_store_transactions",
    "shared_utilization",
    "single_precision_fu_utilization",
    "sm_efficiency",
    "special_fu_utilization",
    "tex_cache_transactions",
    "tex_fu_utilization",
    "tex_utilization",
    "warp_execution_efficiency",
    "warp_nonpred_execution_efficiency",
];

/// Whether a column is known not to be a tuning parameter.
///
/// Nsight Compute / CUPTI profiler metrics all have the form `unit__counter.rollup`, so they are
/// recognised by shape rather than listed.
pub fn is_known_non_parameter(name: &str) -> bool {
    TUNER_COLUMNS.contains(&name)
        || NVPROF_METRICS.contains(&name)
        || (name.contains("__") && name.contains('.'))
}

/// Whether a known non-parameter column is tuner bookkeeping rather than a counter.
pub fn is_tuner_column(name: &str) -> bool {
    TUNER_COLUMNS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_counters_of_both_profilers_and_leaves_parameters() {
        assert!(is_known_non_parameter("dram_utilization"));
        assert!(is_known_non_parameter("smsp__inst_executed.sum"));
        assert!(is_known_non_parameter("Registers count"));
        assert!(!is_known_non_parameter("WORK_GROUP_SIZE_X"));
        assert!(!is_known_non_parameter("TILE_SIZE_X"));
    }
}
