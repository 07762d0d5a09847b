//! Replay: answers tests from a recorded complete tuning space, with simulated time.

use super::{Backend, Measurement, TimeModel};
use crate::counters::CounterValues;
use crate::data::Dataset;
use crate::error::Result;
use crate::space::{ConfigId, TuningSpace};
use std::sync::Arc;

/// A backend that looks measurements up in a [`Dataset`].
#[derive(Clone)]
pub struct ReplayBackend {
    dataset: Arc<Dataset>,
    counters: Option<Arc<Vec<CounterValues>>>,
    time: TimeModel,
}

impl ReplayBackend {
    /// Replays `dataset`; `counters` are the canonical counters of every configuration, returned
    /// by profiled tests (without them a profiled test returns only the runtime).
    pub fn new(
        dataset: Arc<Dataset>,
        counters: Option<Arc<Vec<CounterValues>>>,
        time: TimeModel,
    ) -> Self {
        ReplayBackend {
            dataset,
            counters,
            time,
        }
    }

    /// The recorded data.
    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }
}

impl Backend for ReplayBackend {
    fn space(&self) -> &TuningSpace {
        &self.dataset.space
    }

    fn measure(&mut self, config: ConfigId, profile: bool) -> Result<Measurement> {
        let r = &self.dataset.records[config];
        let cost_s = self.time.cost(r.runtime_us, r.overhead_us, profile);
        let Some(runtime) = r.runtime_us else {
            let reason = r.failure.clone().unwrap_or_else(|| "failed".into());
            return Ok(Measurement::failed(reason, cost_s));
        };
        Ok(Measurement {
            runtime_us: Some(runtime),
            counters: if profile {
                self.counters.as_ref().map(|c| c[config])
            } else {
                None
            },
            failure: None,
            cost_s,
        })
    }
}
