//! Reaction (paper §3.5; the README's "How it works", step 2): from bottlenecks to the desired change of each counter.

use super::Bottlenecks;
use crate::counters::{Counter, Generation};
use crate::rules::ReactionConstants;
use serde::Serialize;

/// Which published formulas to follow where the paper's text and the authors' code differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Formula {
    /// The authors' implementation (KTT's profile-based searcher): the default.
    #[default]
    Implementation,
    /// The formulas as printed in the paper.
    Paper,
}

/// Settings of the expert system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpertOptions {
    /// Instruction bottlenecks at or below this cause no reaction.
    pub inst_reaction: f64,
    /// Threads per FP32 core below which parallelism is a bottleneck.
    pub threads_per_core: f64,
    /// Implementation or paper formulas.
    pub formula: Formula,
}

impl ExpertOptions {
    /// Options from the rules' constants; `compute_bound` lowers the instruction threshold.
    pub fn new(constants: &ReactionConstants, compute_bound: bool, formula: Formula) -> Self {
        ExpertOptions {
            inst_reaction: if compute_bound {
                constants.inst_reaction_compute_bound
            } else {
                constants.inst_reaction
            },
            threads_per_core: constants.threads_per_core,
            formula,
        }
    }
}

/// ΔPC: for each canonical counter, the desired direction and urgency of change in −1..1
/// (0: leave it out of the score).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeltaPc(pub [f64; Counter::COUNT]);

impl Default for DeltaPc {
    fn default() -> Self {
        DeltaPc([0.0; Counter::COUNT])
    }
}

impl std::ops::Index<Counter> for DeltaPc {
    type Output = f64;
    fn index(&self, c: Counter) -> &f64 {
        &self.0[c.index()]
    }
}

impl DeltaPc {
    fn set(&mut self, c: Counter, value: f64) {
        self.0[c.index()] = value.clamp(-1.0, 1.0);
    }

    /// The counters with a non-zero desired change.
    pub fn active(&self) -> impl Iterator<Item = (Counter, f64)> + '_ {
        Counter::ALL
            .iter()
            .map(|&c| (c, self[c]))
            .filter(|(_, d)| *d != 0.0)
    }
}

/// ΔPC for `b`, expressed in the counters of `generation` (the GPU whose counters are compared).
pub fn react(b: &Bottlenecks, generation: Generation, options: &ExpertOptions) -> DeltaPc {
    let mut d = DeltaPc::default();
    d.set(Counter::DramRt, -b.dram_read);
    d.set(Counter::DramWt, -b.dram_write);
    d.set(Counter::L2Rt, -b.l2_read);
    d.set(Counter::L2Wt, -b.l2_write);
    d.set(Counter::TexRwt, -b.tex);
    d.set(Counter::LocO, -b.local);
    d.set(Counter::ShrLt, -b.shr_read);
    d.set(Counter::ShrWt, -b.shr_write);

    let r = options.inst_reaction;
    let above = |x: f64| if x > r { (x - r) / (1.0 - r) } else { 0.0 };
    let implementation = options.formula == Formula::Implementation;
    let volta = generation == Generation::Volta;
    for (counter, bottleneck) in [
        (Counter::InstF32, b.f32),
        (Counter::InstF64, b.f64),
        (Counter::InstInt, b.int),
        (Counter::InstMisc, b.misc),
        (Counter::InstLdst, b.ldst),
        (Counter::InstCont, b.cont),
        (Counter::InstBconv, b.bconv),
    ] {
        let floating = matches!(counter, Counter::InstF32 | Counter::InstF64);
        let change = if implementation && volta && floating {
            // The authors' Volta rule: react with the full bottleneck once past the threshold.
            if bottleneck > r {
                bottleneck
            } else {
                0.0
            }
        } else {
            above(bottleneck)
        };
        d.set(counter, -change);
    }
    if implementation {
        // Busy FP32 units are better used (higher efficiency) as well as relieved (fewer instructions).
        if !volta && b.f32 > r {
            d.set(Counter::Fp32Eff, above(b.f32));
        }
        // Latency-bound: ask for higher issue utilisation; the threshold is already in b.issue.
        d.set(Counter::InstIssueU, b.issue);
    } else {
        d.set(Counter::InstIssueU, -above(b.issue));
    }
    d.set(Counter::SmE, b.sm);
    d.set(Counter::GlobalSize, b.parallelism);
    d
}
