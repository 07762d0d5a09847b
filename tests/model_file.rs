//! Counter model files, space checks and prediction over configurations the model never saw.

mod common;

use clap::Parser;
use pcsearch::cli::{self, Cli};
use pcsearch::counters::{Counter, Generation};
use pcsearch::data::{self, Dataset, ReadOptions};
use pcsearch::model::{CounterModel, TrainOptions};
use pcsearch::rules::Rules;
use pcsearch::space::TuningSpace;
use std::path::{Path, PathBuf};

fn file(bench: &str, gpu: &str) -> PathBuf {
    common::replay_file(&format!("ktt-paper/{bench}/{gpu}-{bench}_output.csv"))
}

fn load(bench: &str, gpu: &str) -> Dataset {
    data::load(&file(bench, gpu), &ReadOptions::default()).unwrap()
}

fn train(bench: &str, gpu: &str, seed: u64) -> CounterModel {
    let rules = Rules::builtin().unwrap();
    let device = rules.devices.by_key(gpu).unwrap();
    let options = TrainOptions {
        seed,
        ..TrainOptions::default()
    };
    CounterModel::train(&load(bench, gpu), &rules, &device, &options).unwrap()
}

const COULOMB_TPS: [&str; 8] = [
    "WORK_GROUP_SIZE_X",
    "WORK_GROUP_SIZE_Y",
    "WORK_GROUP_SIZE_Z",
    "Z_ITERATIONS",
    "INNER_UNROLL_FACTOR",
    "USE_SOA",
    "USE_CONSTANT_MEMORY",
    "VECTOR_SIZE",
];

#[test]
fn saved_model_describes_itself_and_round_trips() {
    if common::skip_without_data() {
        return;
    }
    let model = train("coulomb", "1070", 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coulomb.json");
    model.save(&path).unwrap();

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["format"], "pcsearch-counter-model");
    assert_eq!(json["version"], 3);
    assert_eq!(json["parameters"], serde_json::json!(COULOMB_TPS));
    assert_eq!(json["generation"], "maxwell-pascal");
    assert_eq!(json["gpu"]["key"], "1070");
    assert_eq!(json["gpu"]["compute_capability"], 6.1);
    assert_eq!(json["training_file"], "1070-coulomb_output.csv");
    assert_eq!(json["options"]["seed"], 1);
    assert_eq!(json["trees"][0]["counter"], "DRAM_RT");
    assert_eq!(json["accuracy"][0]["counter"], "DRAM_RT");

    let back = CounterModel::load(&path).unwrap();
    assert_eq!(back.parameters(), COULOMB_TPS);
    assert_eq!(back.generation(), Generation::MaxwellPascal);
    assert_eq!(back.compute_capability(), 6.1);
    assert_eq!(back.accuracy(), model.accuracy());
    let space = &load("coulomb", "1070").space;
    assert_eq!(
        format!("{:?}", back.predict(space).unwrap()),
        format!("{:?}", model.predict(space).unwrap())
    );
    // Every predicted counter of the 1070 is modelled; three are constant zero on coulomb.
    assert_eq!(model.counters(), Counter::predicted().collect::<Vec<_>>());
    assert!(model.skipped().is_empty());
    let constant: Vec<Counter> = model
        .accuracy()
        .iter()
        .filter(|a| a.depth.is_none())
        .map(|a| a.counter)
        .collect();
    assert_eq!(constant, [Counter::ShrLt, Counter::ShrWt, Counter::InstF64]);
}

#[test]
fn training_is_reproducible_from_its_seed() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = |m: &CounterModel, name: &str| {
        let p = dir.path().join(name);
        m.save(&p).unwrap();
        std::fs::read_to_string(p).unwrap()
    };
    let a = text(&train("coulomb", "1070", 7), "a.json");
    let b = text(&train("coulomb", "1070", 7), "b.json");
    assert_eq!(a, b);
}

#[test]
fn volta_training_skips_the_counter_it_has_no_metric_for() {
    if common::skip_without_data() {
        return;
    }
    let model = train("coulomb", "2080", 1);
    assert_eq!(model.generation(), Generation::Volta);
    assert_eq!(model.skipped().len(), 1);
    assert_eq!(model.skipped()[0].counter, Counter::Fp32Eff);
    assert!(model.skipped()[0]
        .reason
        .contains("volta counter map does not define it"));
    let predicted = model.predict(&load("coulomb", "2080").space).unwrap();
    assert!(predicted[0][Counter::Fp32Eff].is_nan());
    assert!(predicted[0][Counter::InstF32] > 0.0);
}

#[test]
fn a_space_with_other_parameters_is_refused_naming_the_difference() {
    if common::skip_without_data() {
        return;
    }
    let model = train("coulomb", "1070", 1);
    let mut names: Vec<String> = COULOMB_TPS.iter().map(|s| s.to_string()).collect();
    names.retain(|n| n != "USE_SOA");
    names.push("TILE".into());
    let err = model
        .check_space(&TuningSpace::new(names))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the space lacks USE_SOA; the model does not know TILE"),
        "{err}"
    );
    let err = model
        .predict(&load("mtran", "1070").space)
        .unwrap_err()
        .to_string();
    assert!(err.contains("trained on 1070-coulomb_output.csv"), "{err}");
    assert!(
        err.contains("the space lacks WORK_GROUP_SIZE_Z, Z_ITERATIONS"),
        "{err}"
    );
}

/// The cross product of the recorded TP values, in reversed parameter order: half of it was never
/// measured, and the model must map parameters by name.
#[test]
fn unseen_configurations_are_predicted_and_parameters_map_by_name() {
    if common::skip_without_data() {
        return;
    }
    let model = train("coulomb", "1070", 1);
    let recorded = load("coulomb", "1070").space;
    let values = recorded.parameter_values();
    let mut names = recorded.parameters().to_vec();
    names.reverse();
    let mut space = TuningSpace::new(names);
    let mut config = vec![0.0; values.len()];
    let total: usize = values.iter().map(Vec::len).product();
    for mut i in 0..total {
        for (p, vals) in values.iter().enumerate() {
            config[values.len() - 1 - p] = vals[i % vals.len()];
            i /= vals.len();
        }
        space.push(&config).unwrap();
    }
    assert_eq!((total, recorded.len()), (432, 210));
    let predicted = model.predict(&space).unwrap();
    assert_eq!(predicted.len(), total);
    for v in &predicted {
        for c in Counter::ALL {
            assert_eq!(v[*c].is_finite(), model.counters().contains(c), "{c}");
        }
    }
    // Every value was seen, so only combinations are new: each of the 222 unrecorded ones has a
    // pair of values never seen together; the recorded ones are inside the training range
    // whatever the parameter order.
    let flags = model.extrapolations(&space).unwrap();
    assert!(flags.iter().all(|e| e.unseen_values.is_empty()));
    assert_eq!(flags.iter().filter(|e| e.is_flagged()).count(), 222);
    for id in 0..recorded.len() {
        let mut reversed = recorded.config(id).to_vec();
        reversed.reverse();
        assert!(!flags[space.find(&reversed).unwrap()].is_flagged());
    }
    // Recorded configurations get the same prediction whatever the parameter order.
    let direct = model.predict(&recorded).unwrap();
    for id in [0, 17, 209] {
        let mut reversed = recorded.config(id).to_vec();
        reversed.reverse();
        let other = space.find(&reversed).unwrap();
        assert_eq!(
            format!("{:?}", predicted[other]),
            format!("{:?}", direct[id])
        );
    }
}

#[test]
fn version_1_files_load_and_predict_without_a_training_range() {
    if common::skip_without_data() {
        return;
    }
    let model = train("coulomb", "1070", 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.json");
    model.save(&path).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(json["domain"]["values"].is_array());
    let object = json.as_object_mut().unwrap();
    object.remove("domain");
    object.remove("checksum");
    object.insert("version".into(), 1.into());
    let old = dir.path().join("v1.json");
    std::fs::write(&old, serde_json::to_string(&json).unwrap()).unwrap();
    let loaded = CounterModel::load(&old).unwrap();
    assert!(loaded.training_domain().is_none());
    let space = &load("coulomb", "1070").space;
    assert_eq!(
        format!("{:?}", loaded.predict(space).unwrap()),
        format!("{:?}", model.predict(space).unwrap())
    );
    assert!(loaded
        .extrapolations(space)
        .unwrap()
        .iter()
        .all(|e| !e.is_flagged()));
}

#[test]
fn broken_model_files_are_refused_naming_the_file() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    train("coulomb", "1070", 1).save(&good).unwrap();
    let text = std::fs::read_to_string(&good).unwrap();
    let bad = dir.path().join("bad.json");
    let err_of = |content: &str| {
        std::fs::write(&bad, content).unwrap();
        CounterModel::load(&bad).unwrap_err().to_string()
    };

    let err = err_of(&text[..text.len() / 2]);
    assert!(
        err.contains("bad.json") && err.contains("not valid JSON"),
        "{err}"
    );
    let err = err_of(&text.replacen("\"version\": 3", "\"version\": 4", 1));
    assert!(
        err.contains("bad.json") && err.contains("version 4 is not supported"),
        "{err}"
    );
    let err = err_of(&text.replacen(
        "\"generation\": \"maxwell-pascal\"",
        "\"generation\": \"volta\"",
        1,
    ));
    assert!(
        err.contains("bad.json") && err.contains("does not match compute capability 6.1"),
        "{err}"
    );
    let err = err_of(&text.replacen("\"counter\": \"DRAM_RT\"", "\"counter\": \"FOO\"", 1));
    assert!(
        err.contains("bad.json") && err.contains("malformed model") && err.contains("FOO"),
        "{err}"
    );
    // A child pointing back to the root would make prediction loop forever.
    let first_split = text.find("[0,").or_else(|| text.find("[1,")).unwrap();
    let end = first_split + text[first_split..].find(']').unwrap();
    let err = err_of(&format!(
        "{}[0,1.0,0,0{}",
        &text[..first_split],
        &text[end..]
    ));
    assert!(
        err.contains("bad.json") && err.contains("out of order"),
        "{err}"
    );
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["trees"] = serde_json::json!([]);
    let err = err_of(&value.to_string());
    assert!(
        err.contains("bad.json") && err.contains("no trees"),
        "{err}"
    );
    let err = CounterModel::load(Path::new("/nonexistent/m.json"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("/nonexistent/m.json"), "{err}");
}

#[test]
fn train_command_writes_a_model_and_asks_for_the_gpu_when_it_cannot_tell() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("models/m.json");
    let run = |args: &[&str]| cli::run(Cli::parse_from(args));
    let space = file("coulomb", "1070");
    run(&[
        "pcsearch",
        "train",
        "--space",
        space.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "3",
        "--splits",
        "4",
        "--depths",
        "2,4,8",
        "--selection",
        "best-candidate",
    ])
    .unwrap();
    let model = CounterModel::load(&out).unwrap();
    assert_eq!(model.options().seed, 3);
    assert_eq!(model.options().depths, [2, 4, 8]);
    assert_eq!(model.gpu().key, "1070");
    let err = run(&[
        "pcsearch",
        "train",
        "--space",
        space.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("m.json") && err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        CounterModel::load(&out).unwrap().options().seed,
        3,
        "left as it was"
    );

    // A copy whose name does not start with a GPU key.
    let anonymous = dir.path().join("coulomb.csv");
    std::fs::copy(&space, &anonymous).unwrap();
    let err = run(&[
        "pcsearch",
        "train",
        "--space",
        anonymous.to_str().unwrap(),
        "--force",
        "--out",
        out.to_str().unwrap(),
    ])
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("coulomb.csv") && err.contains("--gpu KEY"),
        "{err}"
    );
    let err = run(&[
        "pcsearch",
        "train",
        "--space",
        anonymous.to_str().unwrap(),
        "--force",
        "--out",
        out.to_str().unwrap(),
        "--gpu",
        "9999",
    ])
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown GPU `9999`"), "{err}");
    // Depth 0 is refused by the argument parser.
    Cli::try_parse_from([
        "pcsearch",
        "train",
        "--space",
        anonymous.to_str().unwrap(),
        "--force",
        "--out",
        out.to_str().unwrap(),
        "--gpu",
        "1070",
        "--depths",
        "0",
    ])
    .unwrap_err();
}
