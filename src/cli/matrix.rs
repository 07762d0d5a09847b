//! `matrix`: for one benchmark recorded on several GPUs or inputs, train a model on each space and
//! tune each space with each model (the paper's Tables 6 and 7).

use super::args::{Format, MatrixArgs};
use super::setup::{load_rules, resolve_device};
use super::simulate::{load_spaces, plot_stems, repetition, run_traced};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::experiment::{
    geometric_mean, plot_dir, plot_space, plot_summary, print_scores, progress_bar, scores_json,
    searchers_json, summary_scores, RunsContext, RunsWriter, SearcherOutcome, SpaceSetup,
    StepStats, SummaryScore,
};
use crate::model::{CounterModel, TrainOptions};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One cell: a space tuned with the model of another (or the same) GPU.
struct Cell {
    tuned: usize,
    model: usize,
    stats: Vec<(String, StepStats)>,
    outcomes: Vec<SearcherOutcome>,
}

impl Cell {
    fn improvement(&self, searcher: usize) -> f64 {
        self.stats[0].1.mean_steps / self.stats[searcher].1.mean_steps
    }
}

/// `pcsearch matrix`.
pub fn matrix(args: &MatrixArgs) -> Result<()> {
    let rules = load_rules(&args.expert.rules)?;
    let expert = args.expert.expert_args();
    let spaces = load_spaces(&args.spaces)?;
    if spaces.len() < 2 {
        return Err(Error::invalid(
            "matrix needs the same benchmark recorded on at least two GPUs or inputs (--space A B …, or a name such as paper:mtran)",
        ));
    }
    let mut gpus = Vec::new();
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
        gpus.push(device.key);
    }
    let labels = space_labels(&spaces, &gpus, args.label.as_deref())?;
    let rep = repetition(&args.run)?;
    let plots = args.plot.as_deref().map(plot_dir).transpose()?;
    let mut runs_out = args
        .run
        .runs_out
        .as_deref()
        .map(RunsWriter::create)
        .transpose()?;
    let files: Vec<String> = spaces
        .iter()
        .map(|d| d.source.display().to_string())
        .collect();
    let stems = plot_stems(&files);
    let searchers = &args.spaces.searchers;
    let bar = progress_bar((spaces.len() * models.len() * searchers.len() * args.run.runs) as u64);
    let mut cells = Vec::new();
    for (t, dataset) in spaces.iter().enumerate() {
        let setup = SpaceSetup::of(dataset, &rep, plots.is_some())?;
        for (m, model) in models.iter().enumerate() {
            let mut outcomes = Vec::new();
            for &kind in searchers {
                bar.set_message(format!(
                    "{} with the {} model: {}",
                    labels[t],
                    labels[m],
                    kind.name()
                ));
                let traces = run_traced(
                    kind,
                    dataset,
                    &rep,
                    &expert,
                    Some(model),
                    setup.horizon,
                    &bar,
                )?;
                if let Some(w) = &mut runs_out {
                    let context = RunsContext {
                        searcher: kind.name(),
                        space: &files[t],
                        model: Some(&labels[m]),
                        seed: args.run.seed,
                    };
                    w.write(context, &traces)?;
                }
                outcomes.push(SearcherOutcome::of(kind.name(), &traces, &setup));
            }
            if let Some(dir) = &plots {
                let stem = format!("{}-model-{}", stems[t], labels[m]);
                let title = format!("{} tuned with the {} model", stems[t], labels[m]);
                plot_space(dir, &stem, &title, &outcomes)?;
            }
            cells.push(Cell {
                tuned: t,
                model: m,
                stats: outcomes
                    .iter()
                    .map(|o| (o.name.clone(), o.stats.clone()))
                    .collect(),
                outcomes,
            });
        }
    }
    bar.finish_and_clear();
    if let Some(w) = runs_out {
        w.finish()?;
    }
    let per_cell: Vec<&[SearcherOutcome]> = cells.iter().map(|c| c.outcomes.as_slice()).collect();
    let scores = summary_scores(&per_cell);
    if let Some(dir) = &plots {
        let title = format!("summary score over {} tuned/model pairs", cells.len());
        plot_summary(&dir.join("summary.svg"), &title, &scores)?;
    }
    if args.run.format == Format::Json {
        print_json(&labels, &gpus, &spaces, &cells, &scores, args.run.seed)?;
    } else {
        print_tables(&labels, &cells, searchers.len())?;
        print_scores(&scores, cells.len(), "tuned/model pairs")?;
    }
    Ok(())
}

/// Names of the spaces in the tables: `--label` when given, else the GPU key, the input or both,
/// whichever tells the spaces apart (the input comes from the file's metadata or name).
fn space_labels(
    spaces: &[Arc<Dataset>],
    gpus: &[String],
    given: Option<&[String]>,
) -> Result<Vec<String>> {
    if let Some(given) = given {
        let distinct: BTreeSet<&String> = given.iter().collect();
        if given.len() != spaces.len() || distinct.len() != given.len() {
            return Err(Error::invalid(format!(
                "--label needs one distinct name per --space: {} names for {} spaces",
                given.len(),
                spaces.len()
            )));
        }
        return Ok(given.to_vec());
    }
    let inputs: Vec<Option<String>> = spaces.iter().map(|d| d.input_hint()).collect();
    let gpus_differ = gpus.iter().collect::<BTreeSet<_>>().len() > 1;
    let inputs_differ = inputs.iter().collect::<BTreeSet<_>>().len() > 1;
    let labels: Vec<String> = gpus
        .iter()
        .zip(&inputs)
        .map(|(gpu, input)| match (gpus_differ, inputs_differ, input) {
            (true, true, Some(input)) => format!("{gpu} {input}"),
            (false, true, Some(input)) => input.clone(),
            _ => gpu.clone(),
        })
        .collect();
    let distinct: BTreeSet<&String> = labels.iter().collect();
    if distinct.len() < labels.len() {
        let files: Vec<String> = spaces
            .iter()
            .map(|d| d.source.display().to_string())
            .collect();
        return Err(Error::invalid(format!(
            "matrix cannot tell the spaces apart by GPU or input (they read as {}): name them with --label A,B,… in the order of --space ({})",
            labels.join(", "),
            files.join(", ")
        )));
    }
    Ok(labels)
}

fn print_tables(labels: &[String], cells: &[Cell], searchers: usize) -> Result<()> {
    for s in 1..searchers {
        let name = &cells[0].stats[s].0;
        crate::outln!(
            "improvement over {} (mean steps) of {name}: rows space tuned, columns space of the model",
            cells[0].stats[0].0
        );
        let width = labels.iter().map(String::len).max().unwrap_or(0).max(8);
        crate::out!("{:<width$}", "tuned");
        for l in labels {
            crate::out!(" {l:>width$}");
        }
        crate::outln!();
        for (t, l) in labels.iter().enumerate() {
            crate::out!("{l:<width$}");
            for c in cells.iter().filter(|c| c.tuned == t) {
                crate::out!(" {:>w$.2}x", c.improvement(s), w = width - 1);
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
    crate::outln!("steps per cell: mean / median / p90, and mean simulated seconds");
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(8);
    crate::out!("{:<width$} {:<width$}", "tuned", "model");
    for (name, _) in &cells[0].stats {
        crate::out!(" {name:>28}");
    }
    crate::outln!();
    for c in cells {
        crate::out!("{:<width$} {:<width$}", labels[c.tuned], labels[c.model]);
        for (_, s) in &c.stats {
            crate::out!(
                " {:>28}",
                format!(
                    "{:.1} / {:.0} / {}, {:.1} s",
                    s.mean_steps, s.median_steps, s.p90_steps, s.mean_time_s
                )
            );
        }
        crate::outln!();
    }
    crate::outln!();
    Ok(())
}

fn print_json(
    labels: &[String],
    gpus: &[String],
    spaces: &[Arc<Dataset>],
    cells: &[Cell],
    scores: &[(String, SummaryScore)],
    seed: u64,
) -> Result<()> {
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
    let v = json!({
        "seed": seed,
        "labels": labels,
        "gpus": gpus,
        "cells": cell_values,
        "summary": summary,
        "summary_score": scores_json(scores),
    });
    crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    Ok(())
}
