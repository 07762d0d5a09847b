//! The expert system: counters → bottlenecks → desired counter changes (ΔPC).
//!
//! [`analyze`] reads the counters of the profiled configuration on the GPU being tuned and scores
//! each subsystem's bottleneck in 0..1. [`react`] turns bottlenecks into ΔPC, the direction and
//! urgency (−1..1) in which each counter should move, expressed with the rules of the counter
//! generation of the GPU whose counters will be compared (the model's GPU). Keeping the two apart is
//! what lets a model trained on one GPU steer tuning on another.

mod bottlenecks;
mod reaction;

pub use bottlenecks::{analyze, Bottlenecks, REQUIRED_COUNTERS};
pub use reaction::{react, DeltaPc, ExpertOptions, Formula};
