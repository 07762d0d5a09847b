//! Basin hopping as Kernel Tuner runs it (`strategy="basinhopping"`, Kernel Tuner 1.5, which
//! calls scipy's `basinhopping`), with its defaults: temperature T = 1.0 on runtimes in ms, step
//! size one value of a parameter, 100 hops, 100 cost calls per local minimisation, scipy's
//! adaptive step size (every 50 hops, ×1/0.9 when more than half were accepted, else ×0.9).
//!
//! A run minimises locally from a random configuration, then repeats: displace the continuous
//! point the current minimisation returned (not its grid cell: scipy knows no grid) by a uniform
//! random offset in [−step, step] value indices per parameter, minimise locally (see
//! [`super::lbfgsb`] for what L-BFGS-B does on the grid: the point, its d one-sided neighbours,
//! one trial along the scaled gradient and the trial's neighbours), and accept the new minimum by
//! scipy's Metropolis test. Points off the space cost nothing and count as the worst runtime.
//! After the 100 hops Kernel Tuner stops; this searcher starts again from a fresh random
//! configuration, known configurations staying free. (100 cost calls per minimisation, L-BFGS-B's
//! `maxfun`, is never reached: a minimisation makes at most 2(d + 1).)

use super::ask_tell::{AskTell, Evaluator, Stop};
use super::grid::Grid;
use super::grid::Scaled;
use super::lbfgsb::{minimise, Minimum};
use super::objective::Objective;
use super::{SearchRng, Searcher, SearcherFactory};
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Metropolis temperature, in ms of runtime.
const TEMPERATURE: f64 = 1.0;
/// scipy's `niter`.
const HOPS: usize = 100;
/// scipy's adaptive step size: interval, factor and target acceptance rate.
const ADAPT_INTERVAL: usize = 50;
const ADAPT_FACTOR: f64 = 0.9;
const TARGET_ACCEPT: f64 = 0.5;

/// Builds basin-hopping searchers over one space.
pub struct BasinHoppingFactory {
    grid: Arc<Grid>,
}

impl BasinHoppingFactory {
    /// Basin hopping over `grid`.
    pub fn new(grid: Arc<Grid>) -> Self {
        BasinHoppingFactory { grid }
    }
}

impl SearcherFactory for BasinHoppingFactory {
    fn name(&self) -> String {
        "basin-hopping".into()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        let grid = self.grid.clone();
        Box::new(AskTell::new(grid.len(), move |eval| async move {
            let _ = run(grid, eval, seed).await;
        }))
    }
}

async fn run(grid: Arc<Grid>, eval: Evaluator, seed: u64) -> Result<(), Stop> {
    let mut rng = SearchRng::seed_from_u64(seed);
    let cost = Objective {
        grid: grid.clone(),
        eval,
        invalid: f64::MAX,
    };
    let sizes = grid.sizes().to_vec();
    let eps = Scaled::new(&sizes).eps;
    loop {
        cost.eval.check_open()?;
        let start = grid.point(rng.random_range(0..grid.len()));
        let start = start.iter().map(|&i| f64::from(i)).collect();
        let mut current = minimise(&cost, &sizes, eps, start).await?;
        let mut step = 1.0;
        let mut accepted = 0;
        for hop in 1..=HOPS {
            if hop % ADAPT_INTERVAL == 0 {
                if accepted as f64 / hop as f64 > TARGET_ACCEPT {
                    step /= ADAPT_FACTOR;
                } else {
                    step *= ADAPT_FACTOR;
                }
            }
            let trial = displace(&current.x, step, &mut rng);
            let found = minimise(&cost, &sizes, eps, trial).await?;
            if metropolis(&current, &found, &mut rng) {
                current = found;
                accepted += 1;
            }
        }
    }
}

/// `x` moved by U(−step, step) value indices per parameter (L-BFGS-B projects it onto the bounds).
fn displace(x: &[f64], step: f64, rng: &mut SearchRng) -> Vec<f64> {
    x.iter()
        .map(|&u| u + rng.random_range(-step..=step))
        .collect()
}

/// scipy's Metropolis test: accept a lower cost, a higher one with probability `exp(−Δ/T)`, and
/// either only when the new minimisation succeeded or the current one failed too. On a cost
/// constant per cell L-BFGS-B fails whenever it moves, so a hop is mostly accepted where its
/// minimisation stayed at the displaced point; a lower trial is tested but not walked to.
fn metropolis(old: &Minimum, new: &Minimum, rng: &mut SearchRng) -> bool {
    let w = (-(new.cost - old.cost) / TEMPERATURE).min(0.0).exp();
    w >= rng.random::<f64>() && (new.converged || !old.converged)
}
