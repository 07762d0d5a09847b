//! Fitting one counter's tree: candidate trees over random 50/50 splits and depths, then selection.

use super::accuracy::{CounterAccuracy, Errors};
use super::tree::{FlatTree, SmartTree};
use crate::counters::Counter;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::arrays::Array;
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_regressor::DecisionTreeRegressorParameters;

/// How the stored tree is chosen among the candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// Pick the depth with the lowest MAE averaged over all splits (ties: RMSE, then the shallower),
    /// then refit at that depth on all data. Accuracy = the mean held-out errors at that depth.
    Refit,
    /// The paper's rule: keep the single candidate (depth, split) with the lowest held-out MAE (ties:
    /// RMSE). It was fitted on half the data, and its error is that of one lucky split.
    BestCandidate,
}

/// Settings of [`super::CounterModel::train`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainOptions {
    /// Seed of the splits and of smartcore; equal seeds give identical models.
    pub seed: u64,
    /// Random 50/50 train/test splits evaluated per depth.
    pub splits: usize,
    /// Maximum tree depths tried.
    pub depths: Vec<u16>,
    /// How the stored tree is chosen.
    pub selection: Selection,
    /// Most rows the depth is chosen on (a seeded random sample when there are more); the stored
    /// tree is still refitted on every row. `None`: all rows.
    #[serde(default)]
    pub selection_rows: Option<usize>,
}

/// Default of [`TrainOptions::selection_rows`]: above it, held-out errors no longer change the
/// chosen depth's accuracy measurably, while 150 candidate fits per counter on 200,000 rows take
/// minutes (see docs/robustness.md).
pub const SELECTION_ROWS: usize = 10_000;

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            seed: 1,
            splits: 10,
            depths: (2..=16).collect(),
            selection: Selection::Refit,
            selection_rows: Some(SELECTION_ROWS),
        }
    }
}

impl TrainOptions {
    /// Checks the settings can produce a model.
    pub fn validate(&self) -> Result<(), String> {
        if self.splits == 0 {
            return Err("at least one train/test split is needed".into());
        }
        if self.depths.is_empty() || self.depths.contains(&0) {
            return Err("tree depths must be given and positive".into());
        }
        if self.selection_rows.is_some_and(|r| r < 4) {
            return Err("depth selection needs at least 4 rows".into());
        }
        Ok(())
    }
}

/// Training data of one counter: configurations (row-major, one feature per TP) and values.
pub struct Samples<'a> {
    /// Row-major features, `features` per row.
    pub x: &'a [f64],
    /// Features per row.
    pub features: usize,
    /// Measured counter values, one per row, all finite.
    pub y: &'a [f64],
}

impl Samples<'_> {
    fn rows(&self) -> usize {
        self.y.len()
    }

    fn matrix(&self, rows: &[usize]) -> Result<(DenseMatrix<f64>, Vec<f64>), String> {
        let mut values = Vec::with_capacity(rows.len() * self.features);
        for &r in rows {
            values.extend_from_slice(&self.x[r * self.features..(r + 1) * self.features]);
        }
        let x = DenseMatrix::new(rows.len(), self.features, values, false)
            .map_err(|e| e.to_string())?;
        Ok((x, rows.iter().map(|&r| self.y[r]).collect()))
    }
}

/// Row orders of the random splits: the first half of each trains, the second half tests. With
/// more rows than `options.selection_rows`, the splits are drawn from a seeded random sample.
fn split_orders(rows: usize, options: &TrainOptions) -> Vec<Vec<usize>> {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let pool: Option<Vec<usize>> =
        options
            .selection_rows
            .filter(|&limit| rows > limit)
            .map(|limit| {
                // Its own generator: spaces below the limit keep exactly the splits they always had.
                let mut sample_rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x5E1E_C7ED);
                let mut all: Vec<usize> = (0..rows).collect();
                all.shuffle(&mut sample_rng);
                all.truncate(limit);
                all
            });
    let size = pool.as_ref().map_or(rows, Vec::len);
    (0..options.splits)
        .map(|_| {
            let mut order: Vec<usize> = (0..size).collect();
            order.shuffle(&mut rng);
            if let Some(pool) = &pool {
                order.iter_mut().for_each(|i| *i = pool[*i]);
            }
            order
        })
        .collect()
}

fn fit(samples: &Samples, rows: &[usize], depth: u16, seed: u64) -> Result<SmartTree, String> {
    let (x, y) = samples.matrix(rows)?;
    let params = DecisionTreeRegressorParameters {
        seed: Some(seed),
        ..Default::default()
    }
    .with_max_depth(depth);
    SmartTree::fit(&x, &y, params).map_err(|e| e.to_string())
}

fn held_out(samples: &Samples, tree: &SmartTree, rows: &[usize]) -> Result<Errors, String> {
    let (x, y) = samples.matrix(rows)?;
    let predicted = tree.predict(&x).map_err(|e| e.to_string())?;
    debug_assert_eq!(predicted.shape(), y.len());
    Ok(Errors::of(&y, &predicted))
}

/// Fits the tree of one counter.
pub fn train_counter(
    counter: Counter,
    samples: &Samples,
    options: &TrainOptions,
) -> Result<(FlatTree, CounterAccuracy), String> {
    let n = samples.rows();
    let mean = samples.y.iter().sum::<f64>() / n as f64;
    let first = samples.y[0];
    if samples.y.iter().all(|&v| v == first) {
        let accuracy = CounterAccuracy {
            counter,
            depth: None,
            nodes: 1,
            samples: n,
            mean,
            errors: Errors::default(),
        };
        return Ok((FlatTree::constant(first), accuracy));
    }
    if n < 4 {
        return Err(format!(
            "only {n} measurements, too few to split for testing"
        ));
    }
    // Same seed for every counter: counters measured on all rows share the same splits.
    let orders = split_orders(n, options);
    let half = orders.first().map_or(0, |o| o.len() / 2);
    let keep_trees = options.selection == Selection::BestCandidate;
    // Every (depth, split) candidate in parallel; reduced below in depth-then-split order, so the
    // result does not depend on the number of threads.
    let candidates: Vec<Vec<(Option<SmartTree>, Errors)>> = options
        .depths
        .par_iter()
        .map(|&depth| {
            orders
                .iter()
                .map(|order| {
                    let (train, test) = order.split_at(half);
                    let tree = fit(samples, train, depth, options.seed)?;
                    let errors = held_out(samples, &tree, test)?;
                    Ok((keep_trees.then_some(tree), errors))
                })
                .collect()
        })
        .collect::<Result<_, String>>()?;
    let mut best_depth: Option<(u16, Errors)> = None;
    let mut best_candidate: Option<(SmartTree, u16, Errors)> = None;
    for (&depth, per_split) in options.depths.iter().zip(candidates) {
        let mut errors_of_splits = Vec::with_capacity(per_split.len());
        for (tree, errors) in per_split {
            errors_of_splits.push(errors);
            if let Some(tree) = tree {
                if best_candidate
                    .as_ref()
                    .is_none_or(|b| errors.better_than(&b.2))
                {
                    best_candidate = Some((tree, depth, errors));
                }
            }
        }
        let mean_errors = Errors::mean(&errors_of_splits);
        // Strictly better only: on ties the shallower depth, tried first, stays.
        if best_depth.is_none_or(|b| mean_errors.better_than(&b.1)) {
            best_depth = Some((depth, mean_errors));
        }
    }
    let (tree, depth, errors) = match options.selection {
        Selection::Refit => {
            let (depth, errors) = best_depth.ok_or("no depth to try")?;
            let all: Vec<usize> = (0..n).collect();
            (fit(samples, &all, depth, options.seed)?, depth, errors)
        }
        Selection::BestCandidate => best_candidate.ok_or("no candidate tree")?,
    };
    let flat = FlatTree::from_smartcore(&tree)?;
    let accuracy = CounterAccuracy {
        counter,
        depth: Some(depth),
        nodes: flat.len(),
        samples: n,
        mean,
        errors,
    };
    Ok((flat, accuracy))
}
