//! The profile-based searcher on the real recorded data, end to end through the command line: the
//! shipped GTX 1070 models, `explain`, and refused inputs. Every file and cross-GPU pair under
//! seeds 1, 2 and 3 is checked in `transfer.rs`. Figures are deterministic for `--seed 1`.

mod common;

use serde_json::Value;
use std::process::Command;

fn pcsearch(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .args(["--format", "json", "--runs", "1000", "--seed", "1"])
        .output()
        .expect("run pcsearch");
    assert!(
        out.status.success(),
        "pcsearch {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn file(bench: &str, gpu: &str) -> String {
    common::replay_file(&format!("ktt-paper/{bench}/{gpu}-{bench}_output.csv"))
        .display()
        .to_string()
}

fn number(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("no {key} in {v}"))
}

#[test]
fn the_shipped_1070_model_steers_tuning_on_the_gtx680() {
    if common::skip_without_data() {
        return;
    }
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/mtran-1070.json");
    let space = file("mtran", "680");
    let report = pcsearch(&[
        "simulate",
        "--searcher",
        "profile",
        "--space",
        &space,
        "--model",
        model,
    ]);
    // Random search needs (1784+1)/(9+1) = 178.5 tests on average here.
    assert_eq!(number(&report, "not_found"), 0.0);
    assert!(number(&report, "mean_steps") < 178.5 / 3.0, "{report}");
    assert_eq!(number(&report, "configurations"), 1784.0);
    assert_eq!(number(&report, "well_performing"), 9.0);
}

fn failure(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .output()
        .expect("run pcsearch");
    assert!(!out.status.success(), "pcsearch {args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn mismatched_models_and_counter_sources_are_refused_with_the_reason() {
    if common::skip_without_data() {
        return;
    }
    let mtran_model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/mtran-1070.json");
    let coulomb = file("coulomb", "680");
    let err = failure(&[
        "simulate",
        "--searcher",
        "profile",
        "--space",
        &coulomb,
        "--model",
        mtran_model,
    ]);
    assert!(
        err.contains("mtran-1070.json") && err.contains("WORK_GROUP_SIZE_Z"),
        "{err}"
    );
    let err = failure(&[
        "simulate",
        "--searcher",
        "profile",
        "--space",
        &coulomb,
        "--counters",
        "model",
    ]);
    assert!(err.contains("--counters model needs --model"), "{err}");
    let err = failure(&[
        "simulate",
        "--searcher",
        "profile",
        "--space",
        &coulomb,
        "--counters",
        "exact",
        "--model",
        mtran_model,
    ]);
    assert!(err.contains("--counters exact"), "{err}");
    let err = failure(&[
        "simulate",
        "--searcher",
        "profile",
        "--space",
        &coulomb,
        "--gpu",
        "9999",
    ]);
    assert!(err.contains("unknown GPU `9999`"), "{err}");
}

#[test]
fn explain_reads_the_papers_manual_tuning_example() {
    if common::skip_without_data() {
        return;
    }
    // Paper §2.3: the first Coulomb configuration on the GTX 680 is L2-read and FP32 heavy; reusing
    // loaded atoms over more z iterations is the cure.
    let space = file("coulomb", "680");
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(["explain", "--space", &space, "--format", "json", "--top", "5", "--config"])
        .arg("WORK_GROUP_SIZE_X=16,WORK_GROUP_SIZE_Y=4,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=1,INNER_UNROLL_FACTOR=0,USE_SOA=0,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1")
        .output()
        .expect("run pcsearch");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let l2_read = 69206555.0 / (69206555.0 + 2097153.0) * 0.2;
    assert!((number(&report["bottlenecks"], "l2_read") - l2_read).abs() < 1e-9);
    assert!((number(&report["delta_pc"], "L2_RT") + l2_read).abs() < 1e-9);
    assert!((number(&report, "runtime_over_best") - 19106.0 / 4613.0).abs() < 1e-9);
    let candidates = report["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 5);
    for c in candidates {
        let config = c["configuration"].as_str().unwrap();
        assert!(
            config.contains("Z_ITERATIONS=16") || config.contains("Z_ITERATIONS=32"),
            "{config}"
        );
        assert!(number(c, "runtime_over_best") <= 1.1, "{c}");
        assert!(number(c, "score") > 0.18, "{c}");
    }
}

#[test]
fn matrix_needs_two_gpus_and_trains_its_own_models() {
    if common::skip_without_data() {
        return;
    }
    let one = file("coulomb", "680");
    let err = failure(&["matrix", "--space", &one]);
    assert!(err.contains("at least two GPUs"), "{err}");
    let two = file("coulomb", "750");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/coulomb-1070.json");
    let err = failure(&["matrix", "--space", &one, &two, "--model", model]);
    assert!(err.contains("unexpected argument '--model'"), "{err}");
}
