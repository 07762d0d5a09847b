//! Searchers decide which configuration to test next, and whether to profile it.
//!
//! The tuning loop asks a [`Searcher`] for a [`Request`], runs it on a backend the searcher never
//! sees, and reports the [`Measurement`] back. Every random choice comes from the searcher's own
//! generator, seeded at construction, so a run is reproducible from its seed alone.

mod ask_tell;
mod basin_hopping;
pub mod bayesian;
mod dual_annealing;
mod genetic;
mod grid;
mod lbfgsb;
mod local_descent;
mod objective;
pub mod profile;
mod random;
pub mod sampler;
pub mod starchart;

pub use basin_hopping::BasinHoppingFactory;
pub use bayesian::BayesianFactory;
pub use dual_annealing::DualAnnealingFactory;
pub use genetic::GeneticFactory;
pub use grid::{Grid, Scaled};
pub use random::{RandomFactory, RandomSearch};
pub use starchart::StarchartFactory;

use crate::backend::Measurement;
use crate::space::ConfigId;

/// What the searcher wants tested next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Configuration to run.
    pub config: ConfigId,
    /// Whether to collect counters.
    pub profile: bool,
}

/// A search strategy over one tuning space.
pub trait Searcher {
    /// The next test, or `None` when the searcher has nothing left to try.
    fn next(&mut self) -> Option<Request>;
    /// The outcome of the test last requested.
    fn observe(&mut self, request: Request, outcome: &Measurement);
}

/// Builds independent, seeded searchers for repeated runs; expensive shared state (predictions,
/// counters) is built once and shared.
pub trait SearcherFactory: Sync {
    /// Name shown in reports.
    fn name(&self) -> String;
    /// A fresh searcher whose random choices all derive from `seed`.
    fn build(&self, seed: u64) -> Box<dyn Searcher>;
}

/// The searcher's random generator: fast, seedable, identical on every platform.
pub type SearchRng = rand_chacha::ChaCha8Rng;
