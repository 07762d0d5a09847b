//! Bottleneck analysis (paper §3.5; the README's "How it works", step 2): each entry in 0..1, higher is more limiting.

use super::reaction::{ExpertOptions, Formula};
use crate::counters::{Counter, CounterValues, Generation};
use crate::device::DeviceInfo;
use serde::Serialize;

/// Counters [`analyze`] reads; a recording without them cannot drive the profile-based searcher.
pub const REQUIRED_COUNTERS: &[Counter] = &[
    Counter::DramRt,
    Counter::DramWt,
    Counter::DramU,
    Counter::L2Rt,
    Counter::L2Wt,
    Counter::L2U,
    Counter::TexU,
    Counter::LocO,
    Counter::ShrLt,
    Counter::ShrWt,
    Counter::ShrU,
    Counter::InstF32,
    Counter::InstF64,
    Counter::InstInt,
    Counter::InstMisc,
    Counter::InstLdst,
    Counter::InstCont,
    Counter::InstBconv,
    Counter::InstExe,
    Counter::InstIssueU,
    Counter::SmE,
    Counter::WarpE,
    Counter::WarpNpE,
];

/// The bottleneck vector B of one profiled configuration.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Bottlenecks {
    /// DRAM reads.
    pub dram_read: f64,
    /// DRAM writes.
    pub dram_write: f64,
    /// L2 reads.
    pub l2_read: f64,
    /// L2 writes.
    pub l2_write: f64,
    /// Texture / L1 cache.
    pub tex: f64,
    /// Local memory (register spills).
    pub local: f64,
    /// Shared memory reads.
    pub shr_read: f64,
    /// Shared memory writes.
    pub shr_write: f64,
    /// FP32 instructions.
    pub f32: f64,
    /// FP64 instructions.
    pub f64: f64,
    /// Integer instructions.
    pub int: f64,
    /// Miscellaneous instructions.
    pub misc: f64,
    /// Load/store instructions.
    pub ldst: f64,
    /// Control-flow instructions.
    pub cont: f64,
    /// Bit-conversion instructions.
    pub bconv: f64,
    /// Special function units.
    pub sfu: f64,
    /// Instruction issue (latency-bound: issue slots idle while one unit is busy).
    pub issue: f64,
    /// Idle SMs (1 − SM efficiency).
    pub sm: f64,
    /// Too few threads for the GPU's cores.
    pub parallelism: f64,
}

impl Bottlenecks {
    /// Named entries, for reports.
    pub fn entries(&self) -> [(&'static str, f64); 19] {
        [
            ("DRAM read", self.dram_read),
            ("DRAM write", self.dram_write),
            ("L2 read", self.l2_read),
            ("L2 write", self.l2_write),
            ("texture/L1", self.tex),
            ("local memory", self.local),
            ("shared read", self.shr_read),
            ("shared write", self.shr_write),
            ("FP32 inst", self.f32),
            ("FP64 inst", self.f64),
            ("integer inst", self.int),
            ("misc inst", self.misc),
            ("load/store inst", self.ldst),
            ("control inst", self.cont),
            ("bit-convert inst", self.bconv),
            ("special functions", self.sfu),
            ("instruction issue", self.issue),
            ("idle SMs", self.sm),
            ("parallelism", self.parallelism),
        ]
    }
}

/// Splits a memory subsystem's utilisation (0..10) between its reads and writes.
fn read_write(read: f64, write: f64, utilisation: f64) -> (f64, f64) {
    let total = read + write;
    if total > 0.0 && utilisation > 0.0 {
        let u = (utilisation / 10.0).clamp(0.0, 1.0);
        (read / total * u, write / total * u)
    } else {
        (0.0, 0.0)
    }
}

/// Ratio that treats 0/0 (nothing executed) as 0 instead of NaN.
fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// The bottlenecks of a profiled configuration from its counters on `device` (the GPU tuned).
///
/// Missing counters are taken as 0 (no evidence of a bottleneck); callers check
/// [`REQUIRED_COUNTERS`] up front so that a recording lacking them is refused, not misread.
pub fn analyze(pc: &CounterValues, device: &DeviceInfo, options: &ExpertOptions) -> Bottlenecks {
    let v = |c: Counter| {
        let x = pc[c];
        if x.is_finite() {
            x
        } else {
            0.0
        }
    };
    let mut b = Bottlenecks::default();
    (b.dram_read, b.dram_write) =
        read_write(v(Counter::DramRt), v(Counter::DramWt), v(Counter::DramU));
    (b.l2_read, b.l2_write) = read_write(v(Counter::L2Rt), v(Counter::L2Wt), v(Counter::L2U));
    (b.shr_read, b.shr_write) = read_write(v(Counter::ShrLt), v(Counter::ShrWt), v(Counter::ShrU));
    b.tex = (v(Counter::TexU) / 10.0).clamp(0.0, 1.0);
    let busiest_memory = v(Counter::DramU).max(v(Counter::L2U)).max(v(Counter::TexU)) / 10.0;
    b.local = (v(Counter::LocO) / 100.0 * busiest_memory).clamp(0.0, 1.0);

    // Thread instructions the warps would have executed at full efficiency.
    let warp_e = v(Counter::WarpE);
    let warp_np_e = v(Counter::WarpNpE);
    let fitted = if warp_e > 0.0 && warp_np_e > 0.0 {
        32.0 * v(Counter::InstExe) * (100.0 / warp_e) * (100.0 / warp_np_e)
    } else {
        0.0
    };
    let issue_u = v(Counter::InstIssueU);
    // Volta and newer issue two instruction types per cycle, so 50 % issue already saturates one.
    let ins_util =
        if Generation::of_compute_capability(device.compute_capability) == Generation::Volta {
            (issue_u / 50.0).min(1.0)
        } else {
            issue_u / 100.0
        };
    let inst = |c: Counter| share(v(c), fitted);
    let kinds = [
        Counter::InstF32,
        Counter::InstF64,
        Counter::InstInt,
        Counter::InstMisc,
        Counter::InstLdst,
        Counter::InstCont,
        Counter::InstBconv,
    ];
    let busy = |c: Counter| (inst(c) * ins_util).clamp(0.0, 1.0);
    b.f32 = busy(Counter::InstF32);
    b.f64 = busy(Counter::InstF64);
    b.int = busy(Counter::InstInt);
    b.misc = busy(Counter::InstMisc);
    b.ldst = busy(Counter::InstLdst);
    b.cont = busy(Counter::InstCont);
    b.bconv = busy(Counter::InstBconv);
    b.sfu = (v(Counter::SfuU) / 10.0).clamp(0.0, 1.0);
    let mut util_max = kinds.iter().map(|&c| inst(c)).fold(0.0, f64::max);
    let idle_issue = ((100.0 - issue_u) / 100.0).clamp(0.0, 1.0);
    b.issue = match options.formula {
        Formula::Implementation => {
            util_max = util_max.max(b.sfu);
            let r = options.inst_reaction;
            let weight = if util_max > r {
                (util_max - r) / (1.0 - r)
            } else {
                0.0
            };
            idle_issue * weight.min(1.0)
        }
        Formula::Paper => (util_max.min(1.0) * idle_issue).clamp(0.0, 1.0),
    };

    b.sm = ((100.0 - v(Counter::SmE)) / 100.0).clamp(0.0, 1.0);
    let enough = device.cores() * options.threads_per_core;
    // A recording without launch geometry (e.g. a Kernel Tuner cache) says nothing about it: an
    // unknown thread count must not read as "no threads at all".
    let threads = pc[Counter::GlobalSize];
    b.parallelism = if enough > 0.0 && threads.is_finite() {
        ((enough - threads) / enough).clamp(0.0, 1.0)
    } else {
        0.0
    };
    b
}
