//! Scoring a whole tuning space for one profiling step (issue: < 1 ms for 10,000 configurations).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pcsearch::counters::{Counter, CounterValues, Generation};
use pcsearch::device::DeviceInfo;
use pcsearch::expert::{analyze, react, ExpertOptions, Formula};
use pcsearch::rules::Rules;
use pcsearch::search::profile::{raw_scores, weights, Predictions, ScoreOptions, ZeroPolicy};
use rand::{Rng, SeedableRng};
use std::hint::black_box;

/// Synthetic counters: every predicted counter positive and varying, so every term is computed.
fn synthetic(n: usize) -> Vec<CounterValues> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    (0..n)
        .map(|_| {
            let mut v = CounterValues::default();
            for &c in Counter::ALL {
                v[c] = rng.random_range(1.0..1e9);
            }
            v[Counter::DramU] = rng.random_range(0.0..10.0);
            v[Counter::L2U] = rng.random_range(0.0..10.0);
            v[Counter::ShrU] = rng.random_range(0.0..10.0);
            v[Counter::InstIssueU] = 60.0;
            v[Counter::WarpE] = 100.0;
            v[Counter::WarpNpE] = 100.0;
            v[Counter::SmE] = 80.0;
            v
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rules = Rules::builtin().expect("built-in rules");
    let device = DeviceInfo {
        key: "bench".into(),
        name: "bench".into(),
        compute_capability: 7.5,
        multiprocessors: 46,
        fp32_cores_per_sm: 64,
    };
    let expert = ExpertOptions::new(&rules.reaction, true, Formula::Implementation);
    let score = ScoreOptions::new(&rules.reaction, ZeroPolicy::SkipZero);
    let mut group = c.benchmark_group("score_space");
    for n in [10_000usize, 200_000] {
        let values = synthetic(n);
        let predictions = Predictions::new(&values);
        let explored = vec![false; n];
        let delta = react(
            &analyze(&values[0], &device, &expert),
            Generation::Volta,
            &expert,
        );
        let (mut raw, mut w) = (Vec::new(), Vec::new());
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                raw_scores(&predictions, 0, &delta, ZeroPolicy::SkipZero, &mut raw);
                weights(&raw, &explored, &score, 1.0, &mut w);
                black_box(&w);
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
