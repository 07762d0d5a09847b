//! The expert system: counters → bottlenecks → desired counter changes (ΔPC).
