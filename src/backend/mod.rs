//! Backends answer "run this configuration" and "profile this configuration".
//!
//! The tuning loop talks to a [`Backend`]; searchers never see it. Replay answers from recorded data,
//! the CUDA backend from a real GPU.

mod calibration;
pub mod cuda;
mod replay;
mod time_model;

pub use calibration::ClockCalibration;
pub use replay::ReplayBackend;
pub use time_model::TimeModel;

use crate::counters::CounterValues;
use crate::error::Result;
use crate::space::{ConfigId, TuningSpace};

/// The outcome of one empirical test.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Runtime in microseconds; `None` when the configuration failed.
    pub runtime_us: Option<f64>,
    /// Canonical counters, when the test was profiled and succeeded.
    pub counters: Option<CounterValues>,
    /// Why the configuration failed (compiler log, launch error), when it did.
    pub failure: Option<String>,
    /// Wall time the test cost, in seconds (simulated in replay).
    pub cost_s: f64,
}

impl Measurement {
    /// A failed test.
    pub fn failed(reason: impl Into<String>, cost_s: f64) -> Self {
        Measurement {
            runtime_us: None,
            counters: None,
            failure: Some(reason.into()),
            cost_s,
        }
    }
}

/// Something that runs configurations of a tuning space.
pub trait Backend {
    /// The space the backend runs.
    fn space(&self) -> &TuningSpace;
    /// Runs configuration `config`, collecting counters when `profile` is set.
    ///
    /// A configuration that fails is a successful call returning a failed [`Measurement`]; `Err`
    /// means the backend itself is broken and tuning cannot go on.
    fn measure(&mut self, config: ConfigId, profile: bool) -> Result<Measurement>;
}
