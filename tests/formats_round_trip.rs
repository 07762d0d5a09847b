//! Recorded data converted with `pcsearch export` replays identically: KTT CSV → T4 → pcsearch and
//! KTT CSV → Kernel Tuner cache → pcsearch give the same `simulate` results, for random search and
//! for the profile-based searcher on the file's own counters; T4 written the way KTT writes it and
//! Kernel Tuner caches left open by an interrupted run are read.

mod common;

use pcsearch::data::{self, ReadOptions};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn pcsearch(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the pcsearch binary runs");
    assert!(
        out.status.success(),
        "pcsearch {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `simulate --format json` without the file name, the one field a conversion changes.
fn simulate(space: &Path, searcher: &str) -> Value {
    let mut v: Value = serde_json::from_str(&pcsearch(&[
        "simulate",
        "--space",
        space.to_str().unwrap(),
        "--searcher",
        searcher,
        "--runs",
        "300",
        "--gpu",
        "680",
        "--format",
        "json",
    ]))
    .unwrap();
    v.as_object_mut().unwrap().remove("file");
    v
}

fn round_trip(to: &str, name: &str) {
    if common::skip_without_data() {
        return;
    }
    let csv = common::replay_file("ktt-paper/coulomb/680-coulomb_output.csv");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    let said = pcsearch(&[
        "export",
        "--space",
        csv.to_str().unwrap(),
        "--to",
        to,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        said.contains("wrote 210 configurations (210 valid)"),
        "{said}"
    );
    for searcher in ["random", "profile"] {
        let original = simulate(&csv, searcher);
        assert_eq!(original["configurations"], 210);
        assert_eq!(simulate(&out, searcher), original, "{to}, {searcher}");
    }
    // And back to KTT CSV: the same space, runtimes and counters.
    let back = dir.path().join("680-back_output.csv");
    pcsearch(&[
        "export",
        "--space",
        out.to_str().unwrap(),
        "--to",
        "ktt-csv",
        "--out",
        back.to_str().unwrap(),
    ]);
    let a = data::load(&csv, &ReadOptions::default()).unwrap();
    let b = data::load(&back, &ReadOptions::default()).unwrap();
    assert_eq!(a.space, b.space);
    // Times pass through milliseconds: equal up to the rounding of a unit conversion.
    for (x, y) in a.records.iter().zip(&b.records) {
        let (x_us, y_us) = (x.runtime_us.unwrap(), y.runtime_us.unwrap());
        assert!((x_us - y_us).abs() <= 1e-12 * x_us, "{x_us} vs {y_us}");
        assert_eq!(x.global_size, y.global_size);
        let by_name = |d: &pcsearch::data::Dataset, m: &[f64]| {
            d.metric_names
                .iter()
                .cloned()
                .zip(m.iter().map(|v| v.to_bits()))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        assert_eq!(by_name(&a, &x.metrics), by_name(&b, &y.metrics));
    }
}

#[test]
fn ktt_csv_to_t4_replays_identically() {
    round_trip("t4", "680-coulomb.t4.json");
}

#[test]
fn ktt_csv_to_kernel_tuner_cache_replays_identically() {
    round_trip("kernel-tuner", "680-coulomb_cache.json");
}

#[test]
fn export_refuses_to_write_over_the_file_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.csv");
    std::fs::write(
        &path,
        "Kernel name,Computation duration (us),Global size,Local size,A\nk,10,64,32,1\nk,20,64,32,2\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args([
            "export",
            "--space",
            path.to_str().unwrap(),
            "--to",
            "t4",
            "--out",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the file being read"));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .starts_with("Kernel name"));
}

/// A Kernel Tuner cache with a string-valued parameter, closed or as an interrupted run leaves it.
const CACHE_HEAD: &str = r#"{
"schema_version": "1.2.0",
"device_name": "NVIDIA A100",
"kernel_name": "vadd",
"tune_params_keys": ["block_size_x", "precision"],
"tune_params": {"block_size_x": [64, 128, 256], "precision": ["float", "double"]},
"objective": "time",
"cache": {
"64,float": {"block_size_x": 64, "precision": "float", "time": 0.5, "compile_time": 10.0},
"128,float": {"block_size_x": 128, "precision": "float", "time": 0.25, "compile_time": 10.0},
"64,double": {"block_size_x": 64, "precision": "double", "time": "CompilationFailedConfig", "compile_time": 3.0},"#;

#[test]
fn an_interrupted_kernel_tuner_cache_is_read_with_a_warning_and_string_values_survive_conversion() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("vadd_cache.json");
    std::fs::write(&open, CACHE_HEAD).unwrap();
    let d = data::load(&open, &ReadOptions::default()).unwrap();
    assert_eq!((d.len(), d.valid_count()), (3, 2));
    assert_eq!(
        d.space.describe(d.best().unwrap().0),
        "block_size_x=128,precision=float"
    );
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("not closed"), "{}", d.warnings[0]);
    assert!(
        d.warnings[1].contains("only part of the space")
            && d.warnings[1].contains("block_size_x=256"),
        "{}",
        d.warnings[1]
    );
    // The command says so on standard error and goes on.
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(["simulate", "--runs", "10", "--space"])
        .arg(&open)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("not closed"),
        "{stderr}"
    );

    // Kernel Tuner cache → T4 → Kernel Tuner cache keeps the names of string values.
    let t4 = dir.path().join("vadd.t4.json");
    data::write_t4(&d, &t4).unwrap();
    let from_t4 = data::load(&t4, &ReadOptions::default()).unwrap();
    assert_eq!(
        from_t4.space.describe(2),
        "block_size_x=64,precision=double"
    );
    let cache = dir.path().join("again_cache.json");
    data::write_kernel_tuner_cache(&from_t4, &cache).unwrap();
    let text = std::fs::read_to_string(&cache).unwrap();
    // Closed the way Kernel Tuner checks it, with `cache` last.
    assert!(text.trim_end().ends_with("}\n}"), "{text}");
    let cached: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        cached["cache"]["64,double"]["time"],
        "CompilationFailedConfig"
    );
    assert_eq!(cached["cache"]["128,float"]["precision"], "float");
    assert_eq!(cached["cache"]["128,float"]["time"], 0.25);
    let again = data::load(&cache, &ReadOptions::default()).unwrap();
    assert_eq!(again.space, from_t4.space);
}
