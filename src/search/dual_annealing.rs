//! Dual annealing as Kernel Tuner runs it (`strategy="dual_annealing"`, Kernel Tuner 1.5, which
//! calls scipy's `dual_annealing` on its scaled coordinates), with scipy's defaults: visiting
//! parameter qv = 2.62, acceptance parameter qa = −5, initial temperature 5230, re-annealing below
//! 2·10⁻⁵ of it, 1000 iterations, and Kernel Tuner's budget of as many cost calls as the space has
//! configurations (scipy counts every call, repeats and points off the space included).
//!
//! Each iteration runs a Markov chain of 2·d visits: the first d move every coordinate by a
//! Tsallis-distributed jump (wrapped into the bounds), the next d one coordinate each; a better
//! point is taken, a worse one with the generalised Metropolis probability of qa. When the chain
//! improved the best point, a local search starts from it ([`super::local_descent`] stands in
//! for COBYLA). Points off the space and failed configurations cost infinity. When the budget or
//! the iterations are spent Kernel Tuner stops; this searcher starts again from a random
//! configuration, known configurations staying free.

use super::ask_tell::{AskTell, Evaluator, Stop};
use super::grid::{Grid, Scaled};
use super::local_descent::descend;
use super::objective::Objective;
use super::{SearchRng, Searcher, SearcherFactory};
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use std::f64::consts::PI;
use std::sync::Arc;

const QV: f64 = 2.62;
const QA: f64 = -5.0;
const INITIAL_TEMP: f64 = 5230.0;
const RESTART_TEMP_RATIO: f64 = 2e-5;
const MAX_ITER: usize = 1000;
const TAIL_LIMIT: f64 = 1e8;
const MIN_VISIT_BOUND: f64 = 1e-10;
const MAX_REINIT: usize = 1000;
/// scipy's first "no improvement for too long" limit, in chains.
const NOT_IMPROVED_MAX: usize = 1000;

/// Builds dual-annealing searchers over one space.
pub struct DualAnnealingFactory {
    grid: Arc<Grid>,
}

impl DualAnnealingFactory {
    /// Dual annealing over `grid`.
    pub fn new(grid: Arc<Grid>) -> Self {
        DualAnnealingFactory { grid }
    }
}

impl SearcherFactory for DualAnnealingFactory {
    fn name(&self) -> String {
        "dual-annealing".into()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        let grid = self.grid.clone();
        Box::new(AskTell::new(grid.len(), move |eval| async move {
            let mut annealing = Annealing::new(grid, eval, seed);
            let _ = annealing.run().await;
        }))
    }
}

/// The budget of cost calls is spent.
struct Exhausted;

/// Why an annealing step ended the run.
enum Halt {
    Budget,
    Stop(Stop),
}

impl From<Stop> for Halt {
    fn from(s: Stop) -> Self {
        Halt::Stop(s)
    }
}

impl From<Exhausted> for Halt {
    fn from(_: Exhausted) -> Self {
        Halt::Budget
    }
}

struct Annealing {
    cost: Objective,
    scaled: Scaled,
    visit: Visiting,
    rng: SearchRng,
    calls: usize,
    max_calls: usize,
    local_calls: usize,
    // Energy state.
    current: Vec<f64>,
    current_e: f64,
    best: Vec<f64>,
    best_e: f64,
    // Strategy chain state.
    xmin: Vec<f64>,
    emin: f64,
    not_improved: usize,
    not_improved_max: usize,
    improved: bool,
    temperature_step: f64,
}

impl Annealing {
    fn new(grid: Arc<Grid>, eval: Evaluator, seed: u64) -> Self {
        let scaled = Scaled::new(grid.sizes());
        let d = grid.dims();
        let max_calls = grid.len();
        Annealing {
            cost: Objective {
                grid,
                eval,
                invalid: f64::INFINITY,
            },
            scaled,
            visit: Visiting::new(),
            rng: SearchRng::seed_from_u64(seed),
            calls: 0,
            max_calls,
            // scipy's local search budget: 6 calls per dimension, within [100, 1000].
            local_calls: (6 * d).clamp(100, 1000),
            current: Vec::new(),
            current_e: f64::INFINITY,
            best: Vec::new(),
            best_e: f64::INFINITY,
            xmin: Vec::new(),
            emin: f64::INFINITY,
            not_improved: 0,
            not_improved_max: NOT_IMPROVED_MAX,
            improved: false,
            temperature_step: 0.0,
        }
    }

    fn dims(&self) -> usize {
        self.scaled.upper.len()
    }

    async fn energy(&mut self, x: &[f64]) -> Result<f64, Stop> {
        self.calls += 1;
        self.cost.at(&self.scaled.snap(x)).await
    }

    fn budget(&self) -> Result<(), Exhausted> {
        if self.calls >= self.max_calls {
            Err(Exhausted)
        } else {
            Ok(())
        }
    }

    async fn run(&mut self) -> Result<(), Stop> {
        loop {
            self.cost.eval.check_open()?;
            match self.one_run().await {
                Ok(()) | Err(Halt::Budget) => {}
                Err(Halt::Stop(s)) => return Err(s),
            }
        }
    }

    /// One call of scipy's `dual_annealing`, from a random configuration (Kernel Tuner's x0).
    async fn one_run(&mut self) -> Result<(), Halt> {
        self.calls = 0;
        let grid = self.cost.grid.clone();
        let start = self.rng.random_range(0..grid.len());
        let x0 = self.scaled.to_coords(grid.point(start));
        self.best_e = f64::INFINITY;
        self.best.clear();
        self.reset(Some(x0)).await?;
        self.xmin = self.current.clone();
        self.emin = self.current_e;
        self.not_improved = 0;
        self.not_improved_max = NOT_IMPROVED_MAX;
        let t1 = ((QV - 1.0) * 2f64.ln()).exp() - 1.0;
        let restart_below = INITIAL_TEMP * RESTART_TEMP_RATIO;
        let mut iteration = 0;
        loop {
            for i in 0..MAX_ITER {
                let s = i as f64 + 2.0;
                let t2 = ((QV - 1.0) * s.ln()).exp() - 1.0;
                let temperature = INITIAL_TEMP * t1 / t2;
                if iteration >= MAX_ITER {
                    return Ok(());
                }
                if temperature < restart_below {
                    self.reset(None).await?;
                    break;
                }
                self.chain(i, temperature).await?;
                self.local_search().await?;
                iteration += 1;
            }
        }
    }

    /// scipy's `EnergyState.reset`: start at `x0` or a uniform random point, retrying random
    /// points while the energy is not finite.
    async fn reset(&mut self, x0: Option<Vec<f64>>) -> Result<(), Halt> {
        self.current = match x0 {
            Some(x) => x,
            None => self.uniform_point(),
        };
        let mut tries = 0;
        loop {
            self.current_e = self.energy(&self.current.clone()).await?;
            if self.current_e.is_finite() || tries >= MAX_REINIT {
                break;
            }
            self.current = self.uniform_point();
            tries += 1;
        }
        if self.best.is_empty() {
            self.best = self.current.clone();
            self.best_e = self.current_e;
        }
        Ok(())
    }

    fn uniform_point(&mut self) -> Vec<f64> {
        let upper = self.scaled.upper.clone();
        upper
            .iter()
            .map(|&hi| self.rng.random_range(0.0..hi))
            .collect()
    }

    /// scipy's `StrategyChain.run`.
    async fn chain(&mut self, step: usize, temperature: f64) -> Result<(), Halt> {
        self.temperature_step = temperature / (step as f64 + 1.0);
        self.not_improved += 1;
        for j in 0..2 * self.dims() {
            if j == 0 {
                self.improved = step == 0;
            }
            let x = self.visiting(j, temperature);
            let e = self.energy(&x).await?;
            if e < self.current_e {
                self.current = x.clone();
                self.current_e = e;
                if e < self.best_e {
                    self.best = x;
                    self.best_e = e;
                    self.improved = true;
                    self.not_improved = 0;
                }
            } else {
                self.accept_reject(j, e, x);
            }
            self.budget()?;
        }
        Ok(())
    }

    fn accept_reject(&mut self, j: usize, e: f64, x: Vec<f64>) {
        let r: f64 = self.rng.random();
        let pqv_temp = 1.0 - (1.0 - QA) * (e - self.current_e) / self.temperature_step;
        let pqv = if pqv_temp <= 0.0 {
            0.0
        } else {
            (pqv_temp.ln() / (1.0 - QA)).exp()
        };
        if r <= pqv {
            self.current = x;
            self.current_e = e;
            self.xmin = self.current.clone();
        }
        if self.not_improved >= self.not_improved_max && (j == 0 || self.current_e < self.emin) {
            self.emin = self.current_e;
            self.xmin = self.current.clone();
        }
    }

    /// scipy's `StrategyChain.local_search` (its probabilistic branch never fires: K = 100·d).
    async fn local_search(&mut self) -> Result<(), Halt> {
        if self.improved {
            let (e, x) = self.minimise(self.best.clone(), self.best_e).await?;
            if e < self.best_e {
                self.not_improved = 0;
                self.best = x.clone();
                self.best_e = e;
                self.current = x;
                self.current_e = e;
            }
            self.budget()?;
        }
        if self.not_improved >= self.not_improved_max {
            let (e, x) = self.minimise(self.xmin.clone(), self.emin).await?;
            self.xmin = x.clone();
            self.emin = e;
            self.not_improved = 0;
            self.not_improved_max = self.dims();
            if e < self.best_e {
                self.best = x.clone();
                self.best_e = e;
                self.current = x;
                self.current_e = e;
            }
            self.budget()?;
        }
        Ok(())
    }

    /// A local search from `x`, kept only when it is finite and better than `e`.
    async fn minimise(&mut self, x: Vec<f64>, e: f64) -> Result<(f64, Vec<f64>), Stop> {
        let sizes = self.cost.grid.sizes().to_vec();
        let found = descend(&self.cost, &sizes, self.scaled.snap(&x), self.local_calls).await?;
        self.calls += found.calls;
        if found.cost.is_finite() && found.cost < e {
            Ok((found.cost, self.scaled.to_coords(&found.point)))
        } else {
            Ok((e, x))
        }
    }

    /// scipy's `VisitingDistribution.visiting`.
    fn visiting(&mut self, step: usize, temperature: f64) -> Vec<f64> {
        let d = self.dims();
        let mut x = self.current.clone();
        if step < d {
            let mut visits: Vec<f64> = (0..d)
                .map(|_| self.visit.sample(temperature, &mut self.rng))
                .collect();
            let upper_sample: f64 = self.rng.random();
            let lower_sample: f64 = self.rng.random();
            for v in &mut visits {
                if *v > TAIL_LIMIT {
                    *v = TAIL_LIMIT * upper_sample;
                } else if *v < -TAIL_LIMIT {
                    *v = -TAIL_LIMIT * lower_sample;
                }
            }
            for (k, v) in visits.into_iter().enumerate() {
                x[k] = self.wrap(k, x[k] + v);
            }
        } else {
            let mut v = self.visit.sample(temperature, &mut self.rng);
            if v > TAIL_LIMIT {
                v = TAIL_LIMIT * self.rng.random::<f64>();
            } else if v < -TAIL_LIMIT {
                v = -TAIL_LIMIT * self.rng.random::<f64>();
            }
            let k = step - d;
            x[k] = self.wrap(k, x[k] + v);
        }
        x
    }

    /// Wraps a coordinate into [0, upper) as scipy does (`fmod` twice), nudging it off the bound.
    fn wrap(&self, k: usize, v: f64) -> f64 {
        let range = self.scaled.upper[k];
        let b = (v % range) + range;
        let w = b % range;
        if w.abs() < MIN_VISIT_BOUND {
            w + MIN_VISIT_BOUND
        } else {
            w
        }
    }
}

/// scipy's Tsallis visiting distribution (`VisitingDistribution.visit_fn`).
struct Visiting {
    factor4_p: f64,
    factor6: f64,
}

impl Visiting {
    fn new() -> Self {
        let factor2 = ((4.0 - QV) * (QV - 1.0).ln()).exp();
        let factor3 = ((2.0 - QV) * 2f64.ln() / (QV - 1.0)).exp();
        let factor4_p = PI.sqrt() * factor2 / (factor3 * (3.0 - QV));
        let factor5 = 1.0 / (QV - 1.0) - 0.5;
        let d1 = 2.0 - factor5;
        let factor6 = PI * (1.0 - factor5) / (PI * (1.0 - factor5)).sin() / libm::lgamma(d1).exp();
        Visiting { factor4_p, factor6 }
    }

    fn sample(&self, temperature: f64, rng: &mut SearchRng) -> f64 {
        let x: f64 = rng.sample(StandardNormal);
        let y: f64 = rng.sample(StandardNormal);
        let factor1 = (temperature.ln() / (QV - 1.0)).exp();
        let factor4 = self.factor4_p * factor1;
        let sigma = (-(QV - 1.0) * (self.factor6 / factor4).ln() / (3.0 - QV)).exp();
        let den = ((QV - 1.0) * y.abs().ln() / (3.0 - QV)).exp();
        x * sigma / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visiting_constants_match_scipy() {
        // scipy 1.x, VisitingDistribution(qv = 2.62): _factor4_p and _factor6.
        let v = Visiting::new();
        assert!(
            (v.factor4_p - 11.833986526687411).abs() < 1e-9,
            "{}",
            v.factor4_p
        );
        assert!(
            (v.factor6 - 8.054035404548975).abs() < 1e-9,
            "{}",
            v.factor6
        );
    }
}
