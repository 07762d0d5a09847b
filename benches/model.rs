//! Counter model costs: training on the largest recorded space (mtran, 1,784 configurations) and
//! predicting a 200,000-configuration space, the work done once per tuning run.

use criterion::{criterion_group, criterion_main, Criterion};
use pcsearch::data::{self, ReadOptions};
use pcsearch::datadir::Lookup;
use pcsearch::model::{CounterModel, TrainOptions};
use pcsearch::rules::Rules;
use pcsearch::space::TuningSpace;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const MTRAN: &str = "ktt-paper/mtran/1070-mtran_output.csv";

/// The first `limit` configurations of the cross product of `values`, over `names`.
fn cross_product(names: &[String], values: &[Vec<f64>], limit: usize) -> TuningSpace {
    let mut space = TuningSpace::new(names.to_vec());
    let total: usize = values.iter().map(Vec::len).product();
    let mut config = vec![0.0; values.len()];
    for mut i in 0..total.min(limit) {
        for (p, vals) in values.iter().enumerate().rev() {
            config[p] = vals[i % vals.len()];
            i /= vals.len();
        }
        space.push(&config).unwrap();
    }
    space
}

fn model(c: &mut Criterion) {
    let Some(dir) = Lookup::from_env_at(None, Path::new(env!("CARGO_MANIFEST_DIR"))).find() else {
        eprintln!("benches/model.rs: the recorded data set is missing; get it with `cargo run --release -- data fetch`");
        return;
    };
    let dataset = data::load(&dir.path.join(MTRAN), &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = Rules::builtin().unwrap();
    let gpu = rules.devices.by_key("1070").unwrap();
    let options = TrainOptions::default();

    let mut group = c.benchmark_group("model");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("train mtran (1784 configs, 9 TPs)", |b| {
        b.iter(|| CounterModel::train(black_box(&dataset), &rules, &gpu, &options).unwrap())
    });

    let model = CounterModel::train(&dataset, &rules, &gpu, &options).unwrap();
    // The recorded values plus one unseen value for four TPs: 200,704 combinations, most never
    // measured, cut to 200,000.
    let mut values = dataset.space.parameter_values();
    for (name, extra) in [
        ("VECTOR_TYPE", 8.0),
        ("WORK_GROUP_SIZE_X", 128.0),
        ("TILE_SIZE_X", 128.0),
    ] {
        let p = dataset.space.parameter_index(name).unwrap();
        values[p].push(extra);
    }
    let space = cross_product(dataset.space.parameters(), &values, 200_000);
    assert_eq!(space.len(), 200_000);
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("predict 200k configs", |b| {
        b.iter(|| model.predict(black_box(&space)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, model);
criterion_main!(benches);
