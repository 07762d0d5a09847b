//! pcsearch: GPU kernel autotuning guided by hardware performance counters.
//!
//! The profile-based searcher of Filipovič et al. (JPDC 2021): profile a configuration, turn its
//! counters into bottlenecks ([`expert`]), predict every configuration's counters ([`model`]),
//! score how each would relieve the bottlenecks, and bias a random search towards the best scored.

pub mod backend;
pub mod cli;
pub mod counters;
pub mod data;
pub mod datadir;
pub mod device;
pub mod error;
pub mod experiment;
pub mod expert;
pub mod input;
pub mod journal;
pub mod kernel;
pub mod model;
pub mod output;
pub mod rules;
pub mod search;
pub mod space;
pub mod synthetic;
pub mod tuning;

pub use error::{Error, Result};
