//! Replay speed: 1000 seeded random-search runs on the largest recorded space.
//!
//! `cargo bench --bench search`. The space is mtran on the GTX 680 (1784 configurations, K = 9
//! well-performing): the slowest random case, about 178 tests per run. The issue asks for under 2 s
//! on 2 cores.

use criterion::{criterion_group, criterion_main, Criterion};
use pcsearch::backend::TimeModel;
use pcsearch::data::{self, ReadOptions};
use pcsearch::datadir::Lookup;
use pcsearch::experiment::{self, Repetition, StepStats};
use pcsearch::search::RandomFactory;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const MTRAN_680: &str = "ktt-paper/mtran/680-mtran_output.csv";

fn random_runs(c: &mut Criterion) {
    let Some(dir) = Lookup::from_env_at(None, Path::new(env!("CARGO_MANIFEST_DIR"))).find() else {
        eprintln!("benches/search.rs: the recorded data set is missing; get it with `cargo run --release -- data fetch`");
        return;
    };
    let dataset = Arc::new(
        data::load(&dir.path.join(MTRAN_680), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let factory = RandomFactory {
        size: dataset.len(),
    };
    let rep = Repetition {
        runs: 1000,
        seed: 1,
        time_model: TimeModel::default(),
        max_tests: None,
    };
    let mut group = c.benchmark_group("replay");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("1000 random runs on mtran 680", |b| {
        b.iter(|| {
            let results = experiment::repeat(&dataset, None, &factory, &rep).unwrap();
            StepStats::of(&results).mean_steps
        })
    });
    group.bench_function("read mtran 680 CSV", |b| {
        b.iter(|| {
            data::load(Path::new(MTRAN_680), &ReadOptions::default())
                .unwrap()
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, random_runs);
criterion_main!(benches);
