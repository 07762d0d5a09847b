//! `train`: fit a counter model on a recorded space and write it to a model file.

use super::args::{SelectionArg, TrainArgs};
use super::out_file::OutFile;
use super::setup::{load_rules, resolve_device};
use super::simulate::load_space;
use crate::error::Result;
use crate::model::{CounterModel, Selection, TrainOptions};
use std::time::Instant;

/// `pcsearch train`.
pub fn train(args: &TrainArgs) -> Result<()> {
    let mut inputs = vec![args.space.space.as_path()];
    inputs.extend(args.rules.devices.as_deref());
    let out = OutFile::reserve(&args.out, "--out", &inputs, args.force)?;
    let rules = load_rules(&args.rules)?;
    let dataset = load_space(&args.space)?;
    let device = resolve_device(&dataset, &rules, args.gpu.as_deref())?;
    let options = TrainOptions {
        seed: args.seed,
        splits: args.splits,
        depths: args.depths.clone(),
        selection: match args.selection {
            SelectionArg::Refit => Selection::Refit,
            SelectionArg::BestCandidate => Selection::BestCandidate,
        },
        ..TrainOptions::default()
    };
    let start = Instant::now();
    let model = CounterModel::train(&dataset, &rules, &device, &options)?;
    let elapsed = start.elapsed().as_secs_f64();
    out.commit(&model.to_file_bytes()?)?;
    crate::out!("{}", report(&model));
    crate::outln!("trained in {elapsed:.2} s; wrote {}", args.out.display());
    Ok(())
}

/// The accuracy table and what it was measured on.
pub fn report(model: &CounterModel) -> String {
    let o = model.options();
    let gpu = model.gpu();
    let mut s = format!(
        "model of {} from {} ({}, CC {}, {} counters)\n{} valid configurations, tuning parameters: {}\n",
        model.kernel(),
        model.training_file(),
        gpu.name,
        gpu.compute_capability,
        model.generation().name(),
        model.configurations(),
        model.parameters().join(", ")
    );
    s += &match o.selection {
        Selection::Refit => format!(
            "held-out errors: mean over {} random 50/50 splits (seed {}) at the chosen depth; stored tree refitted on all data\n",
            o.splits, o.seed
        ),
        Selection::BestCandidate => format!(
            "held-out errors: the kept candidate's test half (best of {} splits x {} depths, seed {})\n",
            o.splits,
            o.depths.len(),
            o.seed
        ),
    };
    s += &format!(
        "{:<13} {:>5} {:>6} {:>12} {:>12} {:>8} {:>7}\n",
        "counter", "depth", "nodes", "mean", "MAE", "rel.err", "R2"
    );
    for a in model.accuracy() {
        let depth = a.depth.map_or("const".to_string(), |d| d.to_string());
        let r2 = a.errors.r2.map_or("-".to_string(), |r| format!("{r:.4}"));
        s += &format!(
            "{:<13} {:>5} {:>6} {:>12.4e} {:>12.4e} {:>7.2}% {:>7}\n",
            a.counter.short(),
            depth,
            a.nodes,
            a.mean,
            a.errors.mae,
            100.0 * a.errors.relative_error,
            r2
        );
    }
    for k in model.skipped() {
        s += &format!("{:<13} not modelled: {}\n", k.counter.short(), k.reason);
    }
    s
}
