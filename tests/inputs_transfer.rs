//! A model trained on one input steers tuning on another (the paper's Table 7): GEMM on the GTX
//! 1070 at three inputs, `matrix` across inputs, and the model's flags where it extrapolates.

mod common;

use pcsearch::model::{CounterModel, TrainOptions};
use pcsearch::rules::Rules;
use serde_json::Value;
use std::process::Command;

const INPUTS: [&str; 3] = ["16-4096-4096", "4096-16-4096", "128-128-128"];

fn gemm(input: &str) -> String {
    common::replay_file(&format!(
        "ktt-paper/gemm-inputs/1070-gemm-{input}_output.csv"
    ))
    .display()
    .to_string()
}

fn pcsearch(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .output()
        .expect("run pcsearch")
}

fn json_of(args: &[&str]) -> Value {
    let out = pcsearch(args);
    assert!(
        out.status.success(),
        "pcsearch {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// Improvement of the default searcher over random search in every cell, by (tuned, model).
fn table7(seed: &str) -> Vec<(String, String, f64)> {
    let files: Vec<String> = INPUTS.iter().map(|i| gemm(i)).collect();
    let mut args = vec!["matrix", "--space"];
    args.extend(files.iter().map(String::as_str));
    args.extend([
        "--searchers",
        "random,profile",
        "--runs",
        "1000",
        "--seed",
        seed,
        "--format",
        "json",
    ]);
    let report = json_of(&args);
    assert_eq!(report["labels"], serde_json::json!(INPUTS), "{report}");
    report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let profile = c["searchers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["searcher"] == "profile")
                .unwrap();
            (
                c["tuned"].as_str().unwrap().to_string(),
                c["model"].as_str().unwrap().to_string(),
                profile["improvement"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn geometric_mean(values: &[f64]) -> f64 {
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()
}

#[test]
fn every_model_beats_random_search_on_every_input_for_three_seeds() {
    if common::skip_without_data() {
        return;
    }
    for seed in ["1", "2", "3"] {
        let cells = table7(seed);
        assert_eq!(cells.len(), 9);
        for (tuned, model, improvement) in &cells {
            // Measured: at least 1.24x with seeds 1-3 (docs/results.md, docs/inputs.md).
            assert!(
                *improvement >= 1.0,
                "seed {seed}: {tuned} tuned with the {model} model: {improvement:.2}x"
            );
        }
        if seed == "1" {
            // Each model on the two inputs it was not trained on. Measured: 2.09, 2.09, 2.08.
            for model in INPUTS {
                let others: Vec<f64> = cells
                    .iter()
                    .filter(|(t, m, _)| m == model && t != model)
                    .map(|c| c.2)
                    .collect();
                let geo = geometric_mean(&others);
                assert!(
                    geo >= 2.0,
                    "the {model} model steers the others at {geo:.2}x"
                );
            }
        }
    }
}

#[test]
fn a_model_flags_the_configurations_of_another_input_it_never_saw() {
    if common::skip_without_data() {
        return;
    }
    let rules = Rules::builtin().unwrap();
    let gpu = rules.devices.by_key("1070").unwrap();
    let load = |input: &str| {
        common::load(&format!(
            "ktt-paper/gemm-inputs/1070-gemm-{input}_output.csv"
        ))
    };
    let (narrow, wide, cube) = (load(INPUTS[0]), load(INPUTS[1]), load(INPUTS[2]));
    let model = CounterModel::train(&narrow, &rules, &gpu, &TrainOptions::default()).unwrap();
    // Trained on M = 16, the model saw only MWG = 16 (and MDIMC, MDIMA up to 16, VWM up to 2).
    let domain = model.training_domain().unwrap();
    let mwg = model.parameters().iter().position(|p| p == "MWG").unwrap();
    assert_eq!(domain.values(mwg), [16.0]);
    let novelty = |space: &pcsearch::space::TuningSpace| -> Vec<usize> {
        let flags = model.extrapolations(space).unwrap();
        (0..=4)
            .map(|n| flags.iter().filter(|e| e.novelty() == n).count())
            .collect()
    };
    assert_eq!(novelty(&narrow.space), [narrow.len(), 0, 0, 0, 0]);
    // By the number of parameters with unseen values: only the 100 configurations with MWG = 16
    // are inside the range; most of the others have two or three unseen values.
    assert_eq!(novelty(&wide.space), [100, 320, 304, 48, 0]);
    assert_eq!(novelty(&cube.space), [772, 2432, 2236, 348, 0]);
    // The model of the 128 x 128 x 128 space saw every value and combination of the other two.
    let full = CounterModel::train(&cube, &rules, &gpu, &TrainOptions::default()).unwrap();
    for space in [&narrow.space, &wide.space] {
        assert!(full
            .extrapolations(space)
            .unwrap()
            .iter()
            .all(|e| !e.is_flagged()));
    }
}

#[test]
fn explain_names_the_values_a_model_never_saw() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("narrow.json");
    let out = pcsearch(&[
        "train",
        "--space",
        &gemm(INPUTS[0]),
        "--out",
        model.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = "MWG=64,NWG=16,KWG=32,MDIMC=32,NDIMC=8,MDIMA=32,NDIMB=16,KWI=2,VWM=1,VWN=1,STRM=0,STRN=0,SA=1,SB=1,PRECISION=32";
    let report = json_of(&[
        "explain",
        "--space",
        &gemm(INPUTS[1]),
        "--model",
        model.to_str().unwrap(),
        "--config",
        config,
        "--top",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(
        report["extrapolation"],
        "MWG=64 unseen (trained on 16); MDIMC=32 unseen (trained on 8, 16); MDIMA=32 unseen (trained on 8, 16)"
    );
    // Three unseen values at the default trust of 0.5 each.
    assert_eq!(report["trust"], 0.125);
    let text = pcsearch(&[
        "explain",
        "--space",
        &gemm(INPUTS[1]),
        "--model",
        model.to_str().unwrap(),
        "--config",
        config,
        "--top",
        "3",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("outside the training range of 1070-gemm-16-4096-4096_output.csv (trust 0.12): MWG=64 unseen (trained on 16)"),
        "{text}"
    );
}

#[test]
fn matrix_labels_spaces_by_input_or_asks_for_labels() {
    if common::skip_without_data() {
        return;
    }
    let narrow = gemm(INPUTS[0]);
    let out = pcsearch(&["matrix", "--space", &narrow, &narrow, "--runs", "2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot tell the spaces apart") && err.contains("--label"),
        "{err}"
    );
    let report = json_of(&[
        "matrix",
        "--space",
        &narrow,
        &narrow,
        "--label",
        "first,second",
        "--searchers",
        "random,profile",
        "--runs",
        "20",
        "--format",
        "json",
    ]);
    assert_eq!(report["labels"], serde_json::json!(["first", "second"]));
    assert_eq!(report["gpus"], serde_json::json!(["1070", "1070"]));
    let out = pcsearch(&["matrix", "--space", &narrow, &narrow, "--label", "one"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--label needs one distinct name per --space"),
        "{err}"
    );
}
