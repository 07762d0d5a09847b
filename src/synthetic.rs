//! Generated recorded spaces of any size, for scale benchmarks and tests.
//!
//! The recorded data sets stop at a few thousand configurations, while real spaces (the paper's
//! GEMM-full) reach 200,000. [`transpose_space`] builds a matrix-transposition-like space with
//! runtimes and Turing (RTX 2080) counters under their Nsight metric names, entirely from formulas
//! and a seed, so a benchmark needs no data file.

use crate::data::{Dataset, Record};
use crate::space::TuningSpace;
use std::path::PathBuf;

/// Tuning parameters and their values: 4 · 2 · 2 · 2 · 8 · 8 · 8 · 8 · 2 = 262,144 combinations.
const PARAMETERS: &[(&str, &[f64])] = &[
    ("VECTOR_TYPE", &[1.0, 2.0, 4.0, 8.0]),
    ("CR", &[0.0, 1.0]),
    ("LOCAL_MEM", &[0.0, 1.0]),
    ("PADD_LOCAL", &[0.0, 1.0]),
    (
        "WORK_GROUP_SIZE_X",
        &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0],
    ),
    (
        "WORK_GROUP_SIZE_Y",
        &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0],
    ),
    (
        "TILE_SIZE_X",
        &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0],
    ),
    (
        "TILE_SIZE_Y",
        &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0],
    ),
    ("DIAGONAL_MAP", &[0.0, 1.0]),
];

/// Largest space [`transpose_space`] can build.
pub const MAX_CONFIGURATIONS: usize = 262_144;

/// Side of the transposed matrix.
const N: f64 = 8192.0;

/// Uniform in [0, 1) from (seed, index, stream): SplitMix64 finaliser.
fn unit(seed: u64, index: u64, stream: u64) -> f64 {
    let mut z = seed
        .wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The first `configurations` (at most [`MAX_CONFIGURATIONS`]) of a transposition-like space
/// recorded on an RTX 2080 (the file name says `2080-…`, so the GPU is recognised), with every
/// counter the profile-based searcher reads. Equal seeds give equal spaces.
pub fn transpose_space(configurations: usize, seed: u64) -> Dataset {
    let count = configurations.min(MAX_CONFIGURATIONS);
    let names: Vec<String> = PARAMETERS.iter().map(|(n, _)| n.to_string()).collect();
    let mut space = TuningSpace::new(names);
    let mut records = Vec::with_capacity(count);
    let mut config = vec![0.0; PARAMETERS.len()];
    for id in 0..count {
        let mut rest = id;
        for (p, (_, values)) in PARAMETERS.iter().enumerate().rev() {
            config[p] = values[rest % values.len()];
            rest /= values.len();
        }
        // The cross product has no duplicates.
        let _ = space.push(&config);
        records.push(record(&config, seed, id as u64));
    }
    Dataset {
        source: PathBuf::from(format!("2080-synthetic{count}_output.csv")),
        kernel: "transpose_synthetic".into(),
        device_name: None,
        space,
        metric_names: METRICS.iter().map(|m| m.to_string()).collect(),
        records,
        input: None,
        warnings: Vec::new(),
    }
}

/// Metric names, in the order [`record`] fills them.
const METRICS: &[&str] = &[
    "dram__sectors_read.sum",
    "dram__sectors_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.avg.pct_of_peak_sustained_active",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_misc_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_memory_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_control_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_conversion_pred_on.sum",
    "smsp__inst_executed.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__thread_inst_executed_per_inst_executed.pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
];

/// Runtime and counters of one configuration, from the parameters and seeded noise.
fn record(c: &[f64], seed: u64, id: u64) -> Record {
    let [vector, cr, local, padd, wgx, wgy, tx, ty, diagonal] = c else {
        unreachable!("PARAMETERS has nine entries")
    };
    let threads_per_block = wgx * wgy;
    let global = (N / tx).ceil() * (N / ty).ceil() * threads_per_block / vector;
    let noise = |stream: u64| 1.0 + 0.04 * (unit(seed, id, stream) - 0.5);
    if threads_per_block > 1024.0 {
        return Record {
            runtime_us: None,
            global_size: global,
            local_size: threads_per_block,
            metrics: vec![f64::NAN; METRICS.len()],
            overhead_us: None,
            failure: Some("invalid launch".into()),
        };
    }
    let elements = N * N;
    // Uncoalesced writes without local memory, fewer with wide vectors and wide groups.
    let coalescing = if *local == 1.0 {
        1.0 + 0.3 * (1.0 - padd)
    } else {
        1.0 + 6.0 / wgx.min(32.0) * (1.0 + cr)
    };
    let tile_fit = ((tx * ty).log2() - 11.0).abs() / 4.0 + 1.0;
    let vector_fit = 1.0 + ((vector.log2() - 1.5).abs()) * 0.15;
    let diagonal_fit = 1.0 + 0.05 * (1.0 - diagonal) * (*local);
    let runtime =
        900.0 * coalescing * tile_fit * vector_fit * diagonal_fit * noise(1) * (1.0 + 0.1 * cr);
    let dram_read = elements / 8.0 * noise(2);
    let dram_write = elements / 8.0 * coalescing.min(4.0) * noise(3);
    let l2_read = dram_read * (1.0 + 0.5 * cr) * noise(4);
    let l2_write = dram_write * noise(5);
    let shared = if *local == 1.0 {
        elements / 32.0 * (1.0 + 0.5 * (1.0 - padd) * 31.0) / vector
    } else {
        0.0
    };
    let instructions = elements * (6.0 + 2.0 * cr + 3.0 * local) / vector * noise(6);
    let warp_instructions = instructions / 32.0;
    let busy = (100.0 / (coalescing * tile_fit)).min(100.0);
    let metrics = vec![
        dram_read,
        dram_write,
        busy * 0.9 * noise(7),
        l2_read,
        l2_write,
        busy * 0.7 * noise(8),
        dram_read / 4.0 * vector.recip().max(0.25),
        busy * 0.5 * noise(9),
        shared,
        shared,
        if *local == 1.0 { busy * 0.4 } else { 0.0 },
        0.0,
        0.0,
        elements * 0.01 * noise(10),
        0.0,
        instructions * 0.5,
        instructions * 0.05,
        instructions * 0.2,
        instructions * 0.15,
        instructions * 0.02,
        warp_instructions,
        (busy * 0.6 * noise(11)).min(100.0),
        1.0,
        (99.0 * noise(12)).min(100.0),
        32.0 * (wgx.min(32.0) / 32.0).max(1.0 / 32.0),
        100.0 * (wgx.min(32.0) / 32.0),
        (100.0 * threads_per_block / 1024.0).min(100.0),
    ];
    Record {
        runtime_us: Some(runtime),
        global_size: global,
        local_size: threads_per_block,
        metrics,
        overhead_us: None,
        failure: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_are_seeded_and_complete() {
        let a = transpose_space(5_000, 7);
        let b = transpose_space(5_000, 7);
        assert_eq!(a.len(), 5_000);
        // Failed configurations hold NaN counters: compare the printed records.
        let printed = |d: &Dataset| format!("{:?}", d.records);
        assert_eq!(printed(&a), printed(&b));
        assert_ne!(printed(&a), printed(&transpose_space(5_000, 8)));
        assert_eq!(a.metric_names.len(), a.records[0].metrics.len());
        assert!(a.valid_count() > 1_000, "{}", a.valid_count());
        assert_eq!(a.gpu_hint().as_deref(), Some("2080"));
    }
}
