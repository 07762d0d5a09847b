//! Bayesian optimisation over the discrete space, after Willemsen, van Nieuwpoort and van Werkhoven,
//! "Bayesian optimization for auto-tuning GPU kernels" (PMBS 2021) and Kernel Tuner's
//! `strategy="bayes_opt"` defaults: a Gaussian process with a Matérn 3/2 kernel of length scale
//! 1.5 on Kernel Tuner's scaled coordinates, standardised observations, an initial sample of 20
//! random configurations, then each test at the untested configuration of highest expected
//! improvement.
//!
//! Differences from Kernel Tuner, both for speed or robustness: the initial sample is uniform
//! random instead of a Latin hypercube, and the acquisition is expected improvement alone
//! (exploration ξ = 0.01 in standardised units) instead of its default portfolio of three
//! acquisition functions. Failed configurations cost a test and stay out of the model. The GP
//! noise is 10⁻⁶ instead of 10⁻¹⁰: with a length scale longer than the space, neighbouring points
//! correlate above 0.98 and the smaller jitter loses positive definiteness.

mod gp;

pub use gp::{CandidateGp, Posterior};

use super::grid::{Grid, Scaled};
use super::{Request, SearchRng, Searcher, SearcherFactory};
use crate::backend::Measurement;
use crate::space::ConfigId;
use rand::SeedableRng;
use std::sync::Arc;

/// Kernel Tuner's defaults.
const INITIAL_SAMPLE: usize = 20;
const LENGTH_SCALE: f64 = 1.5;
const NOISE: f64 = 1e-6;
const EXPLORATION: f64 = 0.01;

/// Builds [`Bayesian`] searchers over one space.
pub struct BayesianFactory {
    coords: Arc<Vec<f64>>,
    dims: usize,
}

impl BayesianFactory {
    /// Bayesian optimisation over `grid`.
    pub fn new(grid: &Grid) -> Self {
        let scaled = Scaled::new(grid.sizes());
        let coords = (0..grid.len())
            .flat_map(|id| scaled.to_coords(grid.point(id)))
            .collect();
        BayesianFactory {
            coords: Arc::new(coords),
            dims: grid.dims(),
        }
    }
}

impl SearcherFactory for BayesianFactory {
    fn name(&self) -> String {
        "bayesian".into()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        Box::new(Bayesian::new(self.coords.to_vec(), self.dims, seed))
    }
}

/// One Bayesian-optimisation run.
#[derive(Clone)]
pub struct Bayesian {
    gp: CandidateGp,
    tested: Vec<bool>,
    initial: Vec<ConfigId>,
    /// Fastest runtime observed, µs.
    best: f64,
}

impl Bayesian {
    /// A run over candidates at `coords` (`dims` per configuration) seeded by `seed`.
    pub fn new(coords: Vec<f64>, dims: usize, seed: u64) -> Self {
        let gp = CandidateGp::new(coords, dims, LENGTH_SCALE, NOISE);
        let n = gp.candidates();
        let mut rng = SearchRng::seed_from_u64(seed);
        let mut initial = rand::seq::index::sample(&mut rng, n, INITIAL_SAMPLE.min(n)).into_vec();
        // Popped from the back: reverse to test in drawing order.
        initial.reverse();
        Bayesian {
            gp,
            tested: vec![false; n],
            initial,
            best: f64::INFINITY,
        }
    }

    /// The untested configuration of highest expected improvement (the first one on ties).
    pub fn most_promising(&self) -> Option<ConfigId> {
        let posterior = self.gp.posterior();
        let mut pick: Option<(ConfigId, f64)> = None;
        for id in (0..self.tested.len()).filter(|&id| !self.tested[id]) {
            let ei = expected_improvement(
                self.best,
                posterior.mean[id],
                posterior.std[id],
                posterior.spread,
            );
            if pick.is_none_or(|(_, b)| ei > b) {
                pick = Some((id, ei));
            }
        }
        pick.map(|(id, _)| id)
    }
}

impl Searcher for Bayesian {
    fn next(&mut self) -> Option<Request> {
        let config = match self.initial.pop() {
            Some(id) => id,
            None => self.most_promising()?,
        };
        Some(Request {
            config,
            profile: false,
        })
    }

    fn observe(&mut self, request: Request, outcome: &Measurement) {
        self.tested[request.config] = true;
        if let Some(t) = outcome.runtime_us {
            self.best = self.best.min(t);
            self.gp.observe(request.config, t);
        }
    }
}

/// Expected improvement below `best` of a normal N(mean, std²), with exploration ξ·`scale`
/// (`scale`: the observations' standard deviation, so ξ is in standardised units).
pub fn expected_improvement(best: f64, mean: f64, std: f64, scale: f64) -> f64 {
    let improvement = best - mean - EXPLORATION * scale;
    if std <= 1e-12 {
        return improvement.max(0.0);
    }
    let z = improvement / std;
    let cdf = 0.5 * libm::erfc(-z / std::f64::consts::SQRT_2);
    let pdf = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
    improvement * cdf + std * pdf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_improvement_of_known_normals() {
        // z = 0: EI = σ φ(0).
        let ei = expected_improvement(1.0 + EXPLORATION, 1.0, 2.0, 1.0);
        assert!((ei - 2.0 / (2.0 * std::f64::consts::PI).sqrt()).abs() < 1e-12);
        assert_eq!(expected_improvement(0.0, 1.0, 0.0, 1.0), 0.0);
        assert!(expected_improvement(0.0, 1.0, 1.0, 1.0) > 0.0);
    }
}
