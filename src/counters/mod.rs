//! Canonical performance counters (paper, Table 1) and their per-generation metric maps.
//!
//! Counters have short names that do not depend on the GPU (`DRAM_RT`, `INST_F32`, …). What a GPU
//! generation calls them, and how its values are scaled to the canonical scale, is data in
//! `expert_rules/counters-*.toml`; [`CounterMap`] applies such a file to a recording's metric names.

mod map;

pub use map::{CounterMap, CounterSource, MappedMetrics};

use serde::{Deserialize, Serialize};

/// What a counter measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CounterKind {
    /// An amount of work (PC_ops): depends on the TPs, stable across GPUs, predicted by the model.
    Ops,
    /// Utilisation of a subsystem (PC_stress): read only from the profiled configuration.
    Stress,
    /// Launch geometry the tuner knows without profiling.
    Launch,
}

macro_rules! counters {
    ($($variant:ident = $short:literal, $kind:ident, $doc:literal;)*) => {
        /// A canonical counter.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Counter {
            $(#[doc = $doc] #[serde(rename = $short)] $variant,)*
        }

        impl Counter {
            /// Every canonical counter, in index order.
            pub const ALL: &'static [Counter] = &[$(Counter::$variant,)*];
            /// Number of canonical counters.
            pub const COUNT: usize = Counter::ALL.len();

            /// The short name used in rules files, models and reports.
            pub fn short(self) -> &'static str {
                match self { $(Counter::$variant => $short,)* }
            }

            /// Whether the counter is work, stress or launch geometry.
            pub fn kind(self) -> CounterKind {
                match self { $(Counter::$variant => CounterKind::$kind,)* }
            }
        }
    };
}

counters! {
    DramRt = "DRAM_RT", Ops, "DRAM read transactions (sectors).";
    DramWt = "DRAM_WT", Ops, "DRAM write transactions (sectors).";
    L2Rt = "L2_RT", Ops, "L2 read transactions (sectors).";
    L2Wt = "L2_WT", Ops, "L2 write transactions (sectors).";
    TexRwt = "TEX_RWT", Ops, "Texture/L1 cache transactions.";
    LocO = "LOC_O", Ops, "Local memory overhead, percent of memory traffic.";
    ShrLt = "SHR_LT", Ops, "Shared memory load transactions.";
    ShrWt = "SHR_WT", Ops, "Shared memory store transactions.";
    InstF32 = "INST_F32", Ops, "FP32 thread instructions.";
    InstF64 = "INST_F64", Ops, "FP64 thread instructions.";
    InstInt = "INST_INT", Ops, "Integer thread instructions.";
    InstMisc = "INST_MISC", Ops, "Miscellaneous thread instructions.";
    InstLdst = "INST_LDST", Ops, "Load/store thread instructions.";
    InstCont = "INST_CONT", Ops, "Control-flow thread instructions.";
    InstBconv = "INST_BCONV", Ops, "Bit-conversion thread instructions.";
    InstExe = "INST_EXE", Ops, "Warp instructions executed.";
    InstIssueU = "INST_ISSUE_U", Ops, "Issue slot utilisation, percent.";
    Fp32Eff = "FP32_EFF", Ops, "FP32 efficiency, percent of peak (pre-Volta flop_sp_efficiency).";
    DramU = "DRAM_U", Stress, "DRAM utilisation, 0..10.";
    L2U = "L2_U", Stress, "L2 utilisation, 0..10.";
    TexU = "TEX_U", Stress, "Texture/L1 utilisation, 0..10.";
    ShrU = "SHR_U", Stress, "Shared memory utilisation, 0..10.";
    SfuU = "SFU_U", Stress, "Special function unit utilisation, 0..10.";
    SmE = "SM_E", Stress, "SM efficiency (active cycles), percent.";
    WarpE = "WARP_E", Stress, "Warp execution efficiency, percent.";
    WarpNpE = "WARP_NP_E", Stress, "Warp non-predicated execution efficiency, percent.";
    Occ = "OCC", Stress, "Achieved occupancy, 0..1.";
    GlobalSize = "GLOBAL_SIZE", Launch, "Total threads launched.";
    LocalSize = "LOCAL_SIZE", Launch, "Threads per block.";
}

impl Counter {
    /// Position of the counter in [`Counter::ALL`] and in [`CounterValues`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Looks a counter up by its short name.
    pub fn from_short(name: &str) -> Option<Counter> {
        Counter::ALL.iter().copied().find(|c| c.short() == name)
    }

    /// Counters a model predicts and the scorer compares: the work counters, plus the stress and
    /// launch counters that the reaction can ask to change (SM efficiency, global size).
    pub fn predicted() -> impl Iterator<Item = Counter> {
        Counter::ALL.iter().copied().filter(|c| {
            c.kind() == CounterKind::Ops || matches!(c, Counter::SmE | Counter::GlobalSize)
        })
    }
}

impl std::fmt::Display for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.short())
    }
}

/// One value per canonical counter; `NaN` where the counter was not measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterValues(pub [f64; Counter::COUNT]);

impl Default for CounterValues {
    fn default() -> Self {
        CounterValues([f64::NAN; Counter::COUNT])
    }
}

impl std::ops::Index<Counter> for CounterValues {
    type Output = f64;
    fn index(&self, c: Counter) -> &f64 {
        &self.0[c.index()]
    }
}

impl std::ops::IndexMut<Counter> for CounterValues {
    fn index_mut(&mut self, c: Counter) -> &mut f64 {
        &mut self.0[c.index()]
    }
}

/// GPU counter generations: each has its own metric names and scales.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generation {
    /// Compute capability 3.x, nvprof metrics without warp efficiencies.
    Kepler,
    /// Compute capability 5.x and 6.x, nvprof metrics.
    MaxwellPascal,
    /// Compute capability 7.0 and newer, Nsight Compute / CUPTI profiler metrics.
    Volta,
}

impl Generation {
    /// The generation of a compute capability such as 6.1.
    pub fn of_compute_capability(cc: f64) -> Generation {
        if cc < 5.0 {
            Generation::Kepler
        } else if cc < 7.0 {
            Generation::MaxwellPascal
        } else {
            Generation::Volta
        }
    }

    /// Every generation.
    pub const ALL: [Generation; 3] = [
        Generation::Kepler,
        Generation::MaxwellPascal,
        Generation::Volta,
    ];

    /// The name used in rules file names and model files.
    pub fn name(self) -> &'static str {
        match self {
            Generation::Kepler => "kepler",
            Generation::MaxwellPascal => "maxwell-pascal",
            Generation::Volta => "volta",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_round_trip() {
        for &c in Counter::ALL {
            assert_eq!(Counter::from_short(c.short()), Some(c));
        }
        assert_eq!(Counter::COUNT, 29);
    }

    #[test]
    fn generation_follows_compute_capability() {
        assert_eq!(Generation::of_compute_capability(3.0), Generation::Kepler);
        assert_eq!(
            Generation::of_compute_capability(6.1),
            Generation::MaxwellPascal
        );
        assert_eq!(Generation::of_compute_capability(7.5), Generation::Volta);
    }
}
