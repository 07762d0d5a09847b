//! Kernel Tuner's genetic algorithm (`strategy="genetic_algorithm"`, Kernel Tuner 1.5), with its
//! defaults: population 26, 90 generations, single-point crossover, mutation chance 1 in 55,
//! constraint-aware (children off the space are repaired onto a random neighbour).
//!
//! Each generation is evaluated, sorted by runtime, and the next one is bred from parents drawn
//! with index `⌊Beta(1, 2.5) × size⌋` (the fastest most often). Members repeated from earlier
//! generations are free, as in Kernel Tuner's cache. When the 90 generations are over (or the
//! population runs dry), the algorithm starts again from a fresh random population: Kernel Tuner
//! would stop there; the restart keeps a run going until it finds a well-performing configuration.

use super::ask_tell::{AskTell, Evaluator, Stop};
use super::grid::Grid;
use super::objective::Objective;
use super::{SearchRng, Searcher, SearcherFactory};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_distr::{Beta, Distribution};
use std::sync::Arc;

/// Kernel Tuner's defaults.
const POPULATION: usize = 26;
const GENERATIONS: usize = 90;
const MUTATION_CHANCE: f64 = 55.0;

/// Builds [`Genetic`] searchers over one space.
pub struct GeneticFactory {
    grid: Arc<Grid>,
}

impl GeneticFactory {
    /// The genetic algorithm over `grid`.
    pub fn new(grid: Arc<Grid>) -> Self {
        GeneticFactory { grid }
    }
}

impl SearcherFactory for GeneticFactory {
    fn name(&self) -> String {
        "genetic".into()
    }

    fn build(&self, seed: u64) -> Box<dyn Searcher> {
        let grid = self.grid.clone();
        Box::new(AskTell::new(grid.len(), move |eval| async move {
            let mut ga = Genetic::new(grid, eval, seed);
            // Stop only ends the run.
            let _ = ga.run().await;
        }))
    }
}

/// One run of the genetic algorithm.
struct Genetic {
    cost: Objective,
    rng: SearchRng,
    pop_size: usize,
    parent_index: Beta<f64>,
}

type Dna = Vec<u32>;

impl Genetic {
    fn new(grid: Arc<Grid>, eval: Evaluator, seed: u64) -> Self {
        let n = grid.len();
        let mut pop_size = POPULATION;
        // Kernel Tuner shrinks the population on spaces smaller than twice its size.
        if pop_size > n / 2 {
            let scaled = (n as f64 / GENERATIONS as f64 * 3.0).round() as usize;
            pop_size = scaled.max(2).min(pop_size);
        }
        Genetic {
            cost: Objective {
                grid,
                eval,
                invalid: f64::MAX,
            },
            rng: SearchRng::seed_from_u64(seed),
            pop_size,
            parent_index: Beta::new(1.0, 2.5).expect("valid Beta parameters"),
        }
    }

    fn grid(&self) -> &Grid {
        &self.cost.grid
    }

    async fn run(&mut self) -> Result<(), Stop> {
        loop {
            self.cost.eval.check_open()?;
            self.one_run().await?;
        }
    }

    async fn one_run(&mut self) -> Result<(), Stop> {
        let n = self.grid().len();
        let mut population: Vec<Dna> =
            rand::seq::index::sample(&mut self.rng, n, self.pop_size.min(n))
                .into_iter()
                .map(|id| self.grid().point(id).to_vec())
                .collect();
        // Kernel Tuner replaces the first member by its (random) start position.
        let start = self.rng.random_range(0..n);
        population[0] = self.grid().point(start).to_vec();
        let mut evaluated = 0;
        for _ in 0..GENERATIONS {
            let mut weighted = Vec::with_capacity(population.len());
            for dna in population.drain(..) {
                let t = self.cost.at(&dna).await?;
                weighted.push((dna, t));
            }
            evaluated += weighted.len();
            // Stable, like Python's sort.
            weighted.sort_by(|a, b| a.1.total_cmp(&b.1));
            if weighted.len() < 2 {
                // Kernel Tuner would draw two distinct parents forever here.
                return Ok(());
            }
            while population.len() < self.pop_size && n > evaluated + population.len() {
                let (a, b) = self.parents(&weighted);
                let pos = (self.rng.random::<f64>() * a.len() as f64) as usize;
                let child1 = [&a[..pos], &b[pos..]].concat();
                let child2 = [&b[..pos], &a[pos..]].concat();
                for child in [child1, child2] {
                    let child = self.repair(child);
                    let child = self.mutate(child);
                    if !population.contains(&child) && self.grid().find(&child).is_some() {
                        population.push(child);
                    }
                    if population.len() >= self.pop_size {
                        break;
                    }
                }
            }
            if population.is_empty() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Two distinct parents, fitter ones (earlier in `weighted`) more likely.
    fn parents(&mut self, weighted: &[(Dna, f64)]) -> (Dna, Dna) {
        let size = weighted.len();
        let first = self.parent(size);
        let mut second = self.parent(size);
        while second == first {
            second = self.parent(size);
        }
        (weighted[first].0.clone(), weighted[second].0.clone())
    }

    fn parent(&mut self, size: usize) -> usize {
        ((self.parent_index.sample(&mut self.rng) * size as f64) as usize).min(size - 1)
    }

    /// A child off the space becomes a random adjacent neighbour, else a random one-parameter
    /// neighbour, else stays (and is then not admitted).
    fn repair(&mut self, dna: Dna) -> Dna {
        if self.grid().find(&dna).is_some() {
            return dna;
        }
        let adjacent = self.grid().adjacent(&dna);
        let candidates = if adjacent.is_empty() {
            self.grid().hamming(&dna)
        } else {
            adjacent
        };
        match candidates.choose(&mut self.rng) {
            Some(&id) => self.grid().point(id).to_vec(),
            None => dna,
        }
    }

    /// With chance 1 in 55, a random configuration differing in one parameter.
    fn mutate(&mut self, dna: Dna) -> Dna {
        if (self.rng.random::<f64>() * MUTATION_CHANCE) as usize != 0 {
            return dna;
        }
        let neighbours = self.grid().hamming(&dna);
        match neighbours.choose(&mut self.rng) {
            Some(&id) => self.grid().point(id).to_vec(),
            None => dna,
        }
    }
}
