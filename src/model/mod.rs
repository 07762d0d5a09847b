//! Per-kernel models from tuning parameters to PC_ops counters (decision trees).
