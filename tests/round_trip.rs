//! Writers never write what the readers refuse: generated datasets go through the KTT CSV writer
//! and back through the loader, generated spaces through training, the model writer and the model
//! loader (property tests).

use pcsearch::data::{self, ktt_csv_bytes, Dataset, ReadOptions, Record};
use pcsearch::model::{CounterModel, TrainOptions};
use pcsearch::rules::Rules;
use pcsearch::space::TuningSpace;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Counter columns the CSV reader recognises as metrics, not tuning parameters.
const METRICS: &[&str] = &["dram_read_transactions", "inst_fp_32", "sm_efficiency"];

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1000i64..1000).prop_map(|v| v as f64),
        -1e6f64..1e6,
        Just(0.5),
    ]
}

/// A record as the writer's callers produce it: a measured configuration has every counter.
fn record() -> impl Strategy<Value = Record> {
    (
        prop::option::of(1e-3f64..8e10),
        prop::option::of(1u32..1_000_000),
        prop::collection::vec(-1e17f64..1e17, METRICS.len()),
    )
        .prop_map(|(runtime, threads, metrics)| Record {
            runtime_us: runtime,
            global_size: threads.map_or(f64::NAN, f64::from),
            local_size: threads.map_or(f64::NAN, |t| f64::from(t.min(1024))),
            metrics: if runtime.is_some() {
                metrics
            } else {
                vec![f64::NAN; METRICS.len()]
            },
            overhead_us: None,
            failure: runtime.is_none().then(|| "no runtime recorded".to_string()),
        })
}

fn dataset() -> impl Strategy<Value = Dataset> {
    (1usize..4)
        .prop_flat_map(|p| {
            (
                Just(p),
                prop::collection::vec(prop::collection::vec(value(), p), 1..40),
            )
        })
        .prop_flat_map(|(p, configs)| {
            let n = configs.len();
            (Just(p), Just(configs), prop::collection::vec(record(), n))
        })
        .prop_filter_map(
            "at least one measured configuration",
            |(p, configs, records)| {
                let mut space = TuningSpace::new((0..p).map(|i| format!("TP_{i}")).collect());
                let mut kept = Vec::new();
                for (c, r) in configs.iter().zip(records) {
                    if space.push(c).is_ok() {
                        kept.push(r);
                    }
                }
                kept.iter()
                    .any(|r| r.runtime_us.is_some())
                    .then(|| Dataset {
                        source: PathBuf::from("generated.csv"),
                        kernel: "k".into(),
                        device_name: None,
                        space,
                        metric_names: METRICS.iter().map(|m| m.to_string()).collect(),
                        records: kept,
                        input: None,
                        warnings: Vec::new(),
                    })
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn ktt_csv_written_is_read_back_unchanged(ds in dataset()) {
        let bytes = ktt_csv_bytes(&ds).expect("a valid dataset is written");
        let back = data::parse(Path::new("generated.csv"), &bytes, &ReadOptions::default())
            .expect("what is written is read");
        prop_assert_eq!(back.space.parameters(), ds.space.parameters());
        prop_assert_eq!(back.len(), ds.len());
        for id in 0..ds.len() {
            prop_assert_eq!(back.space.config(id), ds.space.config(id));
            let (a, b) = (&back.records[id], &ds.records[id]);
            prop_assert_eq!(a.runtime_us, b.runtime_us);
            prop_assert_eq!(format!("{:?}", a.metrics), format!("{:?}", b.metrics));
            prop_assert_eq!(format!("{:?}", (a.global_size, a.local_size)),
                            format!("{:?}", (b.global_size, b.local_size)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn trained_models_are_written_and_read_back_equal(size in 300usize..1500, seed in 0u64..1000) {
        let ds = pcsearch::synthetic::transpose_space(size, seed);
        let rules = Rules::builtin().unwrap();
        let gpu = rules.devices.by_key("2080").unwrap();
        let options = TrainOptions { seed, splits: 2, depths: vec![2, 5], ..TrainOptions::default() };
        let model = CounterModel::train(&ds, &rules, &gpu, &options).unwrap();
        let bytes = model.to_file_bytes().expect("a trained model is written");
        let back = CounterModel::parse(Path::new("m.json"), &bytes).expect("and read back");
        // Equal content: written again, the loaded model gives the same bytes.
        prop_assert_eq!(back.to_file_bytes().unwrap(), bytes);
        prop_assert_eq!(back.parameters(), model.parameters());
    }
}

#[test]
fn the_writer_refuses_what_the_reader_would() {
    let mut ds = pcsearch::synthetic::transpose_space(50, 1);
    let measured = (0..ds.len())
        .find(|&i| ds.records[i].runtime_us.is_some())
        .unwrap();
    ds.records[measured].metrics[0] = f64::NAN;
    let err = ktt_csv_bytes(&ds).unwrap_err();
    assert!(
        err.contains("ran but has no value for `dram__sectors_read.sum`"),
        "{err}"
    );
    ds.records[measured].metrics[0] = 1e300;
    let err = ktt_csv_bytes(&ds).unwrap_err();
    assert!(err.contains("counter value 1e300"), "{err}");
}
