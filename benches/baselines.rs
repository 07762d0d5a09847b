//! Speed of the baseline searchers.
//!
//! `cargo bench --bench baselines`. Two targets of the issue: the seven searchers × 1000 runs on
//! the largest recorded space (gemm 128-128-128 on the GTX 1070, 5788 configurations) in under
//! 60 s on 2 cores, the sum of the per-searcher medians below; and one Bayesian-optimisation
//! step on a 10,000-configuration space under 50 ms.

use clap::Parser;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use pcsearch::backend::{Measurement, TimeModel};
use pcsearch::cli::setup::searcher_factory;
use pcsearch::cli::{Cli, Command};
use pcsearch::data::{self, ReadOptions};
use pcsearch::datadir::Lookup;
use pcsearch::experiment::{self, Repetition, StepStats};
use pcsearch::search::bayesian::Bayesian;
use pcsearch::search::Searcher;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The largest recorded space, inside the data directory.
const GEMM: &str = "ktt-paper/gemm-inputs/1070-gemm-128-128-128_output.csv";

fn seven_searchers(c: &mut Criterion) {
    let Some(dir) = Lookup::from_env_at(None, Path::new(env!("CARGO_MANIFEST_DIR"))).find() else {
        eprintln!("benches/baselines.rs: the recorded data set is missing; get it with `cargo run --release -- data fetch`");
        return;
    };
    let gemm = dir.path.join(GEMM);
    let cli = Cli::parse_from([
        "pcsearch",
        "compare",
        "--space",
        gemm.to_str().unwrap_or_default(),
        "--searchers",
        "random,profile,basin-hopping,dual-annealing,genetic,bayesian,starchart",
    ]);
    let Command::Compare(args) = cli.command else {
        unreachable!("parsed a compare command")
    };
    let dataset = Arc::new(data::load(&gemm, &ReadOptions::default()).expect("data"));
    let rep = Repetition {
        runs: 1000,
        seed: 1,
        time_model: TimeModel::default(),
        max_tests: None,
    };
    let mut group = c.benchmark_group("1000 runs on gemm-128 1070");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    for &kind in &args.spaces.searchers {
        let prepared = searcher_factory(kind, &dataset, &args.expert, None).expect("searcher");
        group.bench_function(kind.name(), |b| {
            b.iter(|| {
                let results = experiment::repeat(
                    &dataset,
                    prepared.counters.clone(),
                    prepared.factory.as_ref(),
                    &rep,
                )
                .unwrap();
                StepStats::of(&results).mean_steps
            })
        });
    }
    group.finish();
}

/// One step (observe a test, choose the next) after `observed` tests on a 10,000-point space.
fn bayesian_step(c: &mut Criterion) {
    const DIMS: usize = 6;
    const SIZE: usize = 10_000;
    // A 10 × 10 × 10 × 10 × 10 × 10 grid thinned to 10,000 points, coordinates in [0, 1].
    let coords: Vec<f64> = (0..SIZE)
        .flat_map(|i| {
            let j = i * 97 % 1_000_000;
            (0..DIMS).map(move |d| ((j / 10usize.pow(d as u32)) % 10) as f64 / 10.0 + 0.05)
        })
        .collect();
    let runtime = |id: usize| {
        let x = &coords[id * DIMS..(id + 1) * DIMS];
        100.0 + x.iter().map(|v| (v - 0.3) * (v - 0.3)).sum::<f64>() * 1000.0
    };
    let mut group = c.benchmark_group("bayesian step, 10000 configurations");
    group.sample_size(20);
    for observed in [50usize, 200] {
        let mut bo = Bayesian::new(coords.clone(), DIMS, 1);
        let step = |bo: &mut Bayesian| {
            let r = bo.next().expect("a candidate");
            bo.observe(
                r,
                &Measurement {
                    runtime_us: Some(runtime(r.config)),
                    counters: None,
                    failure: None,
                    cost_s: 0.0,
                },
            );
        };
        for _ in 0..observed {
            step(&mut bo);
        }
        group.bench_function(format!("after {observed} tests"), |b| {
            b.iter_batched(
                || bo.clone(),
                |mut bo| {
                    step(&mut bo);
                    black_box(bo)
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, seven_searchers, bayesian_step);
criterion_main!(benches);
