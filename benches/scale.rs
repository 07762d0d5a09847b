//! Scale: a generated 200,000-configuration space with RTX 2080 counters (no data file).
//!
//! `cargo bench --bench scale`. Targets: the profile-based searcher with exact counters at most
//! 0.1 s per run on average (the benchmark runs 100 seeded runs per iteration), training under
//! 60 s. Peak memory is measured on the command line (docs/robustness.md).

use criterion::{criterion_group, criterion_main, Criterion};
use pcsearch::backend::TimeModel;
use pcsearch::counters::Generation;
use pcsearch::experiment::{self, Repetition, StepStats};
use pcsearch::expert::{ExpertOptions, REQUIRED_COUNTERS};
use pcsearch::model::{CounterModel, TrainOptions};
use pcsearch::rules::Rules;
use pcsearch::search::profile::{
    Predictions, ProfileFactory, ProfileSetup, ScoreOptions, SearchSettings, ZeroPolicy,
};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

fn scale(c: &mut Criterion) {
    let dataset = Arc::new(pcsearch::synthetic::transpose_space(200_000, 1));
    let rules = Rules::builtin().unwrap();
    let device = rules.devices.by_key("2080").unwrap();
    let generation = Generation::of_compute_capability(device.compute_capability);
    let mapped = rules.counter_map(generation).resolve(&dataset.metric_names);
    mapped.require(REQUIRED_COUNTERS, "synthetic").unwrap();
    let counters: Vec<_> = (0..dataset.len())
        .map(|id| dataset.counters(&mapped, id))
        .collect();
    // What `simulate --searcher profile --counters exact` sets up, with its default options.
    let default = SearchSettings::default_settings();
    let setup = ProfileSetup {
        predictions: Predictions::new(&counters),
        prediction_generation: generation,
        device: device.clone(),
        expert: ExpertOptions::new(&rules.reaction, false, Default::default()),
        score: ScoreOptions {
            scale: default.score_scale,
            ..ScoreOptions::new(&rules.reaction, ZeroPolicy::SkipZero)
        },
        plain_tests: rules.reaction.plain_tests_per_profile,
        guidance: default.guidance,
        space: Arc::new(dataset.space.clone()),
        label: "profile".into(),
    };
    let factory = ProfileFactory::new(setup);
    let counters = Some(Arc::new(counters));
    let rep = Repetition {
        runs: 100,
        seed: 1,
        time_model: TimeModel::default(),
        max_tests: None,
    };
    let mut group = c.benchmark_group("scale 200k");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(60));
    group.bench_function("100 profile runs, exact counters", |b| {
        b.iter(|| {
            let results = experiment::repeat(&dataset, counters.clone(), &factory, &rep).unwrap();
            StepStats::of(&results).mean_steps
        })
    });
    group.measurement_time(Duration::from_secs(200));
    group.bench_function("train", |b| {
        b.iter(|| {
            CounterModel::train(
                black_box(&dataset),
                &rules,
                &device,
                &TrainOptions::default(),
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
