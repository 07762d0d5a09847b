//! `holdout`: leave-one-benchmark-out over recorded benchmarks. Every candidate setting of the
//! profile-based searcher runs on every cell (each file with its own counters, and with the model
//! of every GPU of its benchmark); each benchmark in turn is left out, a setting is chosen on the
//! others and reported on it.

use super::args::{Format, HoldoutArgs};
use super::setup::{exact_counters, load_rules, resolve_device, settings_setup};
use super::simulate::{expand_spaces, load_dataset};
use crate::backend::TimeModel;
use crate::counters::{CounterValues, Generation};
use crate::data::Dataset;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::experiment::holdout::{benchmarks, choose, folds, judge, CellRun, Verdict};
use crate::experiment::{self, Repetition, StepStats};
use crate::expert::{ExpertOptions, Formula};
use crate::model::{CounterModel, TrainOptions};
use crate::rules::Rules;
use crate::search::profile::{Predictions, ProfileFactory, SearchSettings, ZeroPolicy};
use crate::search::RandomFactory;
use indicatif::ProgressBar;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// A recorded space and what the experiment needs of it.
struct Space {
    dataset: Arc<Dataset>,
    device: DeviceInfo,
    counters: Arc<Vec<CounterValues>>,
    /// Trained on this space, when it takes part in the model cells.
    model: Option<CounterModel>,
}

/// Files sharing one set of tuning parameters.
struct Benchmark {
    name: String,
    spaces: Vec<Space>,
}

/// `pcsearch holdout`.
pub fn holdout(args: &HoldoutArgs) -> Result<()> {
    if args.runs == 0 {
        return Err(Error::invalid("--runs must be at least 1"));
    }
    if args.seeds.is_empty() {
        return Err(Error::invalid("--seeds needs at least one seed"));
    }
    let candidates = chosen_candidates(args.candidates.as_deref())?;
    let rules = load_rules(&args.rules)?;
    let benchmarks_in = group(args, &rules)?;
    if benchmarks_in.len() < 2 {
        return Err(Error::invalid(
            "holdout needs at least two benchmarks (files with different tuning parameters) to leave one out",
        ));
    }
    let cells: usize = benchmarks_in
        .iter()
        .map(|b| {
            let modelled = b.spaces.iter().filter(|s| s.model.is_some()).count();
            b.spaces.len() + modelled * modelled
        })
        .sum();
    eprintln!(
        "holdout: {} candidates on {cells} cells x {} seeds, {} runs each",
        candidates.len(),
        args.seeds.len(),
        args.runs
    );
    // Every cell runs the published searcher and each candidate; every tuned space random search.
    let spaces: usize = benchmarks_in.iter().map(|b| b.spaces.len()).sum();
    let searches = cells * (candidates.len() + 1) + spaces;
    let bar = experiment::progress_bar((searches * args.seeds.len() * args.runs) as u64);
    let mut runs = Vec::new();
    for b in &benchmarks_in {
        for &seed in &args.seeds {
            bar.set_message(format!("{}, seed {seed}", b.name));
            runs.extend(benchmark_runs(
                b,
                &rules,
                &candidates,
                args.runs,
                seed,
                &bar,
            )?);
        }
    }
    bar.finish_and_clear();
    if args.format == Format::Json {
        print_json(&runs, &candidates, args)
    } else {
        print_table(&runs, &candidates, args)
    }
}

/// The candidates named by `--candidates` (`default` is the shipped default), or all of them.
fn chosen_candidates(names: Option<&[String]>) -> Result<Vec<SearchSettings>> {
    let all = SearchSettings::candidates();
    let Some(names) = names else {
        return Ok(all);
    };
    names
        .iter()
        .map(|name| {
            if name == "default" {
                return Ok(SearchSettings::default_settings());
            }
            all.iter()
                .find(|s| &s.name == name)
                .cloned()
                .ok_or_else(|| {
                    let known: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
                    Error::invalid(format!(
                        "unknown candidate `{name}` given with --candidates; known: default, {}",
                        known.join(", ")
                    ))
                })
        })
        .collect()
}

/// Reads every file, trains the models and groups the files into benchmarks by their tuning
/// parameters, each named after the folder of its first file.
fn group(args: &HoldoutArgs, rules: &Rules) -> Result<Vec<Benchmark>> {
    let mut out: Vec<(Vec<String>, Benchmark)> = Vec::new();
    let mut files = Vec::new();
    for (specs, modelled) in [(&args.space, true), (&args.exact_only, false)] {
        let expanded = expand_spaces(specs, &args.data)?;
        files.extend(expanded.into_iter().map(|p| (p, modelled)));
    }
    for (path, modelled) in files {
        let dataset = load_dataset(&path, &args.parameters)?;
        let device = resolve_device(&dataset, rules, None)?;
        let counters = Arc::new(exact_counters(&dataset, rules, &device)?);
        let model = if modelled {
            let options = TrainOptions {
                seed: args.train_seed,
                ..TrainOptions::default()
            };
            Some(CounterModel::train(&dataset, rules, &device, &options)?)
        } else {
            None
        };
        let mut key: Vec<String> = dataset.space.parameters().to_vec();
        key.sort();
        let space = Space {
            dataset,
            device,
            counters,
            model,
        };
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, b)) => b.spaces.push(space),
            None => {
                let name = benchmark_name(&path, out.len());
                out.push((
                    key,
                    Benchmark {
                        name,
                        spaces: vec![space],
                    },
                ));
            }
        }
    }
    Ok(out.into_iter().map(|(_, b)| b).collect())
}

/// The folder a file lies in, as the name of its benchmark.
fn benchmark_name(path: &Path, index: usize) -> String {
    path.parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .map_or_else(|| format!("benchmark{}", index + 1), str::to_string)
}

/// Every cell of one benchmark under one seed.
fn benchmark_runs(
    b: &Benchmark,
    rules: &Rules,
    candidates: &[SearchSettings],
    runs: usize,
    seed: u64,
    bar: &ProgressBar,
) -> Result<Vec<CellRun>> {
    let rep = Repetition {
        runs,
        seed,
        time_model: TimeModel::default(),
        max_tests: None,
    };
    let mut out = Vec::new();
    for tuned in &b.spaces {
        let random_factory = RandomFactory {
            size: tuned.dataset.len(),
        };
        let random = StepStats::of(&experiment::repeat(
            &tuned.dataset,
            None,
            &random_factory,
            &rep,
        )?);
        bar.inc(runs as u64);
        let exact = (
            Predictions::new(&tuned.counters),
            Generation::of_compute_capability(tuned.device.compute_capability),
        );
        let mut sources = vec![("exact".to_string(), exact)];
        if tuned.model.is_some() {
            for m in b.spaces.iter().filter_map(|s| s.model.as_ref()) {
                m.check_space(&tuned.dataset.space)?;
                let predictions = Predictions::new(&m.predict(&tuned.dataset.space)?);
                sources.push((m.gpu().key.clone(), (predictions, m.generation())));
            }
        }
        for (counters, (predictions, generation)) in sources {
            let stats = |settings: &SearchSettings| -> Result<StepStats> {
                let expert = ExpertOptions::new(&rules.reaction, false, Formula::Implementation);
                let mut setup = settings_setup(
                    predictions.clone(),
                    generation,
                    tuned.device.clone(),
                    rules,
                    expert,
                    ZeroPolicy::SkipZero,
                    settings,
                );
                setup.space = Arc::new(tuned.dataset.space.clone());
                let factory = ProfileFactory::new(setup);
                let results = experiment::repeat(
                    &tuned.dataset,
                    Some(tuned.counters.clone()),
                    &factory,
                    &rep,
                )?;
                bar.inc(runs as u64);
                Ok(StepStats::of(&results))
            };
            out.push(CellRun {
                benchmark: b.name.clone(),
                tuned: tuned.device.key.clone(),
                counters,
                seed,
                random: random.clone(),
                paper: stats(&SearchSettings::paper())?,
                candidates: candidates.iter().map(stats).collect::<Result<_>>()?,
            });
        }
    }
    Ok(out)
}

/// A verdict as `geometric mean / worst / violations`.
fn verdict_text(v: &Verdict) -> String {
    format!(
        "{:.2}x / {:.2}x / {}",
        v.geometric_mean, v.worst, v.violations
    )
}

/// The candidates' verdicts per benchmark, the folds and the choice, as text.
fn print_table(runs: &[CellRun], candidates: &[SearchSettings], args: &HoldoutArgs) -> Result<()> {
    let names = benchmarks(runs);
    let seeds: Vec<String> = args.seeds.iter().map(u64::to_string).collect();
    crate::outln!(
        "leave-one-benchmark-out; {} runs per cell, seeds {}",
        args.runs,
        seeds.join(",")
    );
    crate::outln!(
        "each entry: geometric mean of improvements over random / worst cell / cells violated \
         (worse than random, or median > 1.1 x the published searcher's)"
    );
    crate::out!("{:<26}", "candidate");
    for n in &names {
        let cells = runs.iter().filter(|r| &r.benchmark == n).count();
        crate::out!(" {:>24}", format!("{n} ({cells})"));
    }
    crate::outln!(" {:>24}", "all");
    let all: Vec<&str> = names.iter().map(String::as_str).collect();
    for (c, settings) in candidates.iter().enumerate() {
        crate::out!("{:<26}", settings.name);
        for n in &names {
            crate::out!(" {:>24}", verdict_text(&judge(runs, c, &[n.as_str()])));
        }
        crate::outln!(" {:>24}", verdict_text(&judge(runs, c, &all)));
    }
    crate::outln!();
    crate::outln!(
        "{:<10} {:<26} {:>24} {:>24}",
        "held out",
        "chosen without it",
        "on the others",
        "on the held-out one"
    );
    for f in folds(runs, candidates.len()) {
        crate::outln!(
            "{:<10} {:<26} {:>24} {:>24}",
            f.held_out,
            candidates[f.chosen].name,
            verdict_text(&f.training),
            verdict_text(&f.held_out_verdict)
        );
    }
    let chosen = choose(runs, candidates.len(), &all);
    crate::outln!(
        "chosen on all benchmarks: {} ({})",
        candidates[chosen].name,
        verdict_text(&judge(runs, chosen, &all))
    );
    Ok(())
}

/// The same as [`print_table`], and every cell, as one JSON object.
fn print_json(runs: &[CellRun], candidates: &[SearchSettings], args: &HoldoutArgs) -> Result<()> {
    let names = benchmarks(runs);
    let all: Vec<&str> = names.iter().map(String::as_str).collect();
    let verdicts: Vec<_> = candidates
        .iter()
        .enumerate()
        .map(|(c, s)| {
            let per: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .map(|n| (n.clone(), json!(judge(runs, c, &[n.as_str()]))))
                .collect();
            json!({ "candidate": s.name, "benchmarks": per, "all": judge(runs, c, &all) })
        })
        .collect();
    let folds: Vec<_> = folds(runs, candidates.len())
        .into_iter()
        .map(|f| {
            json!({
                "held_out": f.held_out,
                "chosen": candidates[f.chosen].name,
                "training": f.training,
                "held_out_verdict": f.held_out_verdict,
            })
        })
        .collect();
    let chosen = choose(runs, candidates.len(), &all);
    let v = json!({
        "runs": args.runs,
        "seeds": args.seeds,
        "candidates": candidates.iter().map(|s| &s.name).collect::<Vec<_>>(),
        "benchmarks": names,
        "verdicts": verdicts,
        "folds": folds,
        "chosen_on_all": candidates[chosen].name,
        "cells": runs,
    });
    let text = serde_json::to_string_pretty(&v)
        .map_err(|e| Error::invalid(format!("cannot write the report as JSON: {e}")))?;
    crate::outln!("{text}");
    Ok(())
}
