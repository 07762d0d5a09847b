//! Fitting one counter's tree: candidate trees over random 50/50 splits and depths, then selection.

use super::accuracy::{CounterAccuracy, Errors};
use super::tree::{FlatTree, SmartTree};
use crate::counters::Counter;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
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
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            seed: 1,
            splits: 10,
            depths: (2..=16).collect(),
            selection: Selection::Refit,
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

/// Row orders of the random splits: the first half of each trains, the second half tests.
fn split_orders(rows: usize, options: &TrainOptions) -> Vec<Vec<usize>> {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    (0..options.splits)
        .map(|_| {
            let mut order: Vec<usize> = (0..rows).collect();
            order.shuffle(&mut rng);
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
    let half = n / 2;
    let mut best_depth: Option<(u16, Errors)> = None;
    let mut best_candidate: Option<(SmartTree, u16, Errors)> = None;
    for &depth in &options.depths {
        let mut per_split = Vec::with_capacity(orders.len());
        for order in &orders {
            let (train, test) = order.split_at(half);
            let tree = fit(samples, train, depth, options.seed)?;
            let errors = held_out(samples, &tree, test)?;
            per_split.push(errors);
            if best_candidate
                .as_ref()
                .is_none_or(|b| errors.better_than(&b.2))
            {
                best_candidate = Some((tree, depth, errors));
            }
        }
        let mean_errors = Errors::mean(&per_split);
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
