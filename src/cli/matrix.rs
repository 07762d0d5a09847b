//! `matrix`: for one benchmark recorded on several GPUs, train a model on each GPU and tune on each
//! GPU with each model (the paper's Table 6).

use super::args::{Format, MatrixArgs};
use super::setup::{load_rules, resolve_device, searcher_factory};
use super::simulate::{load_spaces, repetition};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::experiment::{self, geometric_mean, searchers_json, StepStats};
use crate::model::{CounterModel, TrainOptions};
use serde_json::{json, Value};
use std::sync::Arc;

/// One cell: a space tuned with the model of another (or the same) GPU.
struct Cell {
    tuned: usize,
    model: usize,
    stats: Vec<(String, StepStats)>,
}

impl Cell {
    fn improvement(&self, searcher: usize) -> f64 {
        self.stats[0].1.mean_steps / self.stats[searcher].1.mean_steps
    }
}

/// `pcsearch matrix`.
pub fn matrix(args: &MatrixArgs) -> Result<()> {
    if args.spaces.space.len() < 2 {
        return Err(Error::invalid(
            "matrix needs the same benchmark recorded on at least two GPUs (--space A B …)",
        ));
    }
    if args.expert.model.is_some() {
        return Err(Error::invalid(
            "matrix trains its own models: leave out --model",
        ));
    }
    if let Some(gpu) = &args.expert.gpu {
        return Err(Error::invalid(format!(
            "matrix takes each file's GPU from its metadata or its name prefix (`2080-…`), so one --gpu {gpu} cannot name them all: leave out --gpu and rename the files"
        )));
    }
    let rules = load_rules(&args.expert.rules)?;
    let spaces = load_spaces(&args.spaces)?;
    let mut labels = Vec::new();
    let mut models = Vec::new();
    for dataset in &spaces {
        let device = resolve_device(dataset, &rules, None).map_err(|_| {
            Error::file(
                &dataset.source,
                format!(
                    "cannot tell which GPU recorded this file: matrix reads it from the file's metadata or its name prefix (`2080-…`); rename the file after a device-table key ({}) or add the GPU with --devices FILE",
                    rules.devices.keys().join(", ")
                ),
            )
        })?;
        let train = TrainOptions {
            seed: args.train_seed,
            ..TrainOptions::default()
        };
        models.push(CounterModel::train(dataset, &rules, &device, &train)?);
        labels.push(device.key);
    }
    let mut cells = Vec::new();
    for (t, dataset) in spaces.iter().enumerate() {
        for (m, model) in models.iter().enumerate() {
            let mut stats = Vec::new();
            for &kind in &args.spaces.searchers {
                let prepared = searcher_factory(kind, dataset, &args.expert, Some(model))?;
                let results = experiment::repeat(
                    dataset,
                    prepared.counters,
                    prepared.factory.as_ref(),
                    &repetition(&args.run),
                )?;
                stats.push((kind.name().to_string(), StepStats::of(&results)));
            }
            cells.push(Cell {
                tuned: t,
                model: m,
                stats,
            });
        }
    }
    if args.run.format == Format::Json {
        print_json(&labels, &spaces, &cells, args.run.seed)?;
    } else {
        print_tables(&labels, &cells, args.spaces.searchers.len())?;
    }
    Ok(())
}

fn print_tables(labels: &[String], cells: &[Cell], searchers: usize) -> Result<()> {
    for s in 1..searchers {
        let name = &cells[0].stats[s].0;
        crate::outln!(
            "improvement over {} (mean steps) of {name}: rows GPU tuned, columns GPU of the model",
            cells[0].stats[0].0
        );
        crate::out!("{:<10}", "tuned");
        for l in labels {
            crate::out!(" {l:>8}");
        }
        crate::outln!();
        for (t, l) in labels.iter().enumerate() {
            crate::out!("{l:<10}");
            for c in cells.iter().filter(|c| c.tuned == t) {
                crate::out!(" {:>7.2}x", c.improvement(s));
            }
            crate::outln!();
        }
        let all: Vec<f64> = cells.iter().map(|c| c.improvement(s)).collect();
        let worst = cells
            .iter()
            .min_by(|a, b| a.improvement(s).total_cmp(&b.improvement(s)))
            .map(|c| (c.improvement(s), &labels[c.tuned], &labels[c.model]));
        if let Some((w, t, m)) = worst {
            crate::outln!(
                "geometric mean {:.2}x; worst {:.2}x ({t} tuned with the {m} model); {} of {} pairs below 1x\n",
                geometric_mean(&all),
                w,
                all.iter().filter(|x| **x < 1.0).count(),
                all.len()
            );
        }
    }
    crate::outln!("steps per cell: mean / median / p90");
    crate::out!("{:<10} {:<8}", "tuned", "model");
    for (name, _) in &cells[0].stats {
        crate::out!(" {name:>20}");
    }
    crate::outln!();
    for c in cells {
        crate::out!("{:<10} {:<8}", labels[c.tuned], labels[c.model]);
        for (_, s) in &c.stats {
            crate::out!(
                " {:>20}",
                format!(
                    "{:.1} / {:.0} / {}",
                    s.mean_steps, s.median_steps, s.p90_steps
                )
            );
        }
        crate::outln!();
    }
    Ok(())
}

fn print_json(labels: &[String], spaces: &[Arc<Dataset>], cells: &[Cell], seed: u64) -> Result<()> {
    let cell_values: Vec<Value> = cells
        .iter()
        .map(|c| {
            let searchers = searchers_json(&c.stats);
            json!({
                "tuned": labels[c.tuned],
                "model": labels[c.model],
                "file": spaces[c.tuned].source.display().to_string(),
                "searchers": searchers,
            })
        })
        .collect();
    let summary: serde_json::Map<String, Value> = cells[0]
        .stats
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let all: Vec<f64> = cells.iter().map(|c| c.improvement(i)).collect();
            (
                name.clone(),
                json!({
                    "geometric_mean_improvement": geometric_mean(&all),
                    "worst_improvement": all.iter().copied().fold(f64::INFINITY, f64::min),
                    "pairs_below_1x": all.iter().filter(|x| **x < 1.0).count(),
                }),
            )
        })
        .collect();
    let v = json!({ "seed": seed, "gpus": labels, "cells": cell_values, "summary": summary });
    crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    Ok(())
}
