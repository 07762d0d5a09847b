//! Kernel Tuner's cost function over grid points: what its strategies minimise.

use super::ask_tell::{Evaluator, Stop};
use super::grid::Grid;
use crate::space::ConfigId;
use std::sync::Arc;

/// Runtimes in milliseconds (Kernel Tuner's `time`, the unit its annealing temperatures are
/// tuned for); a point that is no configuration, or a configuration that failed, costs `invalid`.
#[derive(Clone)]
pub struct Objective {
    /// The grid the points live on.
    pub grid: Arc<Grid>,
    /// The measurements.
    pub eval: Evaluator,
    /// Cost of an illegal point or a failed configuration (Kernel Tuner: the largest float for
    /// most strategies, infinity for dual annealing).
    pub invalid: f64,
}

impl Objective {
    /// Cost of grid point `point`; only a configuration never measured before is a test.
    pub async fn at(&self, point: &[u32]) -> Result<f64, Stop> {
        match self.grid.find(point) {
            Some(id) => self.of(id).await,
            None => Ok(self.invalid),
        }
    }

    /// Cost of configuration `id`.
    pub async fn of(&self, id: ConfigId) -> Result<f64, Stop> {
        Ok(self
            .eval
            .runtime(id)
            .await?
            .map_or(self.invalid, |us| us / 1000.0))
    }
}
