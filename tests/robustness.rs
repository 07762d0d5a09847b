//! Every failure of the hostile-user report (issue 13), reproduced: no panic, no lost data, no
//! file written that the readers refuse, no silent wrong number, bounds on what a user can ask,
//! and messages that say what is wrong. Each test names the item of the report it covers.

mod common;

use clap::Parser;
use common::replay_file;
use pcsearch::cli::Cli;
use pcsearch::data::{self, ReadOptions};
use pcsearch::model::CounterModel;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const COULOMB_680: &str = "ktt-paper/coulomb/680-coulomb_output.csv";
const KTT2: &str = "ktt2/coulomb-2080ti.json";
const FIRST_COULOMB: &str = "WORK_GROUP_SIZE_X=16,WORK_GROUP_SIZE_Y=4,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=1,INNER_UNROLL_FACTOR=0,USE_SOA=0,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1";

fn pcsearch() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pcsearch"))
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 test paths")
}

/// The error of `pcsearch ARGS…` run in-process.
fn run_err(args: &[&str]) -> String {
    let mut all = vec!["pcsearch"];
    all.extend_from_slice(args);
    match Cli::try_parse_from(&all) {
        Err(e) => e.to_string(),
        Ok(cli) => pcsearch::cli::run(cli)
            .expect_err("the command must fail")
            .to_string(),
    }
}

fn load_err(path: &Path) -> String {
    data::load(path, &ReadOptions::default())
        .expect_err("the file must be refused")
        .to_string()
}

/// The KTT JSON recording with `edit` applied, written to `dir/name`.
fn edited_ktt2(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let text = std::fs::read_to_string(replay_file(KTT2)).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    edit(&mut value);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&value).unwrap()).unwrap();
    path
}

// 1. Panics.

#[test]
fn a_closed_pipe_ends_explain_quietly_with_status_0() {
    if common::skip_without_data() {
        return;
    }
    let mut child = pcsearch()
        .args(["explain", "--space"])
        .arg(replay_file(COULOMB_680))
        .args(["--config", FIRST_COULOMB, "--top", "2000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // `| head -1`: the reader goes away after one line of about 200 kB of output.
    let out = child.wait_with_output().unwrap();
    assert!(
        first.starts_with("configuration  WORK_GROUP_SIZE_X=16"),
        "{first}"
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn a_full_disk_is_one_error_line_not_a_panic() {
    if common::skip_without_data() {
        return;
    }
    let out = pcsearch()
        .args(["simulate", "--runs", "10", "--space"])
        .arg(replay_file(COULOMB_680))
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot write the output: No space left on device (os error 28)\n"
    );
}

// 2. Lost data.

#[test]
fn train_refuses_to_write_its_model_over_the_recording() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let space = dir.path().join("680-coulomb_output.csv");
    std::fs::copy(replay_file(COULOMB_680), &space).unwrap();
    let before = std::fs::read(&space).unwrap();
    let spelled = dir.path().join(".").join("680-coulomb_output.csv");
    let err = run_err(&[
        "train",
        "--space",
        path_str(&space),
        "--out",
        path_str(&spelled),
        "--force",
    ]);
    assert!(
        err.contains("is the input") && err.contains("name another output file"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&space).unwrap(),
        before,
        "the recording is intact"
    );

    let model = dir.path().join("m.json");
    std::fs::write(&model, "keep").unwrap();
    let err = run_err(&[
        "train",
        "--space",
        path_str(&space),
        "--out",
        path_str(&model),
    ]);
    assert!(
        err.ends_with("already exists; pass --force to replace it"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&model).unwrap(), "keep");
    // An unwritable place is found before the training, not after it.
    let start = std::time::Instant::now();
    let err = run_err(&[
        "train",
        "--space",
        path_str(&space),
        "--out",
        "/proc/pcsearch-test/m.json",
    ]);
    assert!(
        err.starts_with("--out /proc/pcsearch-test/m.json: cannot create its directory"),
        "{err}"
    );
    assert!(start.elapsed().as_secs_f64() < 1.0);
}

// 3. Files written that the readers refuse.

#[test]
fn huge_counters_and_launch_sizes_are_refused_when_read_so_no_model_gets_null() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let csv = std::fs::read_to_string(replay_file(COULOMB_680)).unwrap();
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let dram = header
        .iter()
        .position(|h| *h == "dram_read_transactions")
        .unwrap();
    let global = header.iter().position(|h| *h == "Global size").unwrap();
    for (column, what) in [(dram, "counter value 1e308"), (global, "global size 1e308")] {
        let mut row: Vec<String> = lines[3].split(',').map(String::from).collect();
        row[column] = "1e308".into();
        let mut edited = lines.clone();
        edited[3] = row.join(",");
        let path = dir.path().join("680-coulomb_output.csv");
        std::fs::write(&path, edited.join("\n")).unwrap();
        let err = load_err(&path);
        assert!(
            err.contains(what) && err.contains("accepted range"),
            "{err}"
        );
    }
    lines.truncate(1);
}

#[test]
fn repeated_parameter_names_are_refused_in_every_reader_and_flag() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = edited_ktt2(dir.path(), "2080ti-dup.json", |v| {
        let pairs = v["Results"][0]["Configuration"].as_array_mut().unwrap();
        let first = pairs[0].clone();
        pairs.push(first);
    });
    let err = load_err(&json);
    assert!(err.contains("appears twice"), "{err}");
    let cache = dir.path().join("dup_cache.json");
    std::fs::write(
        &cache,
        r#"{"tune_params_keys": ["X", "X"], "tune_params": {"X": [32]},
            "cache": {"32": {"X": 32, "time": 1.0}}}"#,
    )
    .unwrap();
    let err = load_err(&cache);
    assert!(
        err.contains("tuning parameters: `X` appears twice"),
        "{err}"
    );
    let err = run_err(&[
        "simulate",
        "--space",
        path_str(&replay_file(COULOMB_680)),
        "--parameters",
        "USE_SOA,USE_SOA",
    ]);
    assert_eq!(err, "--parameters: `USE_SOA` appears twice");
}

// 4. Silent wrong numbers.

#[test]
fn clock_and_guidance_options_are_range_checked_naming_the_flag() {
    if common::skip_without_data() {
        return;
    }
    let space = replay_file(COULOMB_680);
    let space = path_str(&space);
    for (args, flag, range) in [
        (vec!["--compile-s=-10"], "--compile-s", "from 0 to 86400"),
        (vec!["--compile-s", "-10"], "--compile-s", "from 0 to 86400"),
        (vec!["--compile-s", "nan"], "--compile-s", "from 0 to 86400"),
        (
            vec!["--profiling-passes", "nan"],
            "--profiling-passes",
            "from 0 to 10000",
        ),
        (vec!["--score-scale", "inf"], "--score-scale", "from 0 to 1"),
    ] {
        let mut all = vec!["simulate", "--space", space];
        all.extend(args);
        let err = run_err(&all);
        assert!(err.contains(flag) && err.contains(range), "{err}");
    }
}

#[test]
fn impossible_overheads_runtimes_and_launch_sizes_are_refused_naming_the_configuration() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, edit, said) in [
        (
            "neg.json",
            ("Overhead", Value::from(-5.0)),
            "overhead -5 us",
        ),
        (
            "huge.json",
            ("Overhead", Value::from(1e300)),
            "overhead 1e300 us",
        ),
        (
            "local.json",
            ("LocalSize", serde_json::json!({"X": -16, "Y": 4, "Z": 1})),
            "local size -64",
        ),
    ] {
        let path = edited_ktt2(dir.path(), name, |v| {
            v["Results"][5]["ComputationResults"][0][edit.0] = edit.1.clone();
        });
        let err = load_err(&path);
        assert!(
            err.contains(said) && err.contains("accepted range"),
            "{err}"
        );
        assert!(
            err.contains("configuration "),
            "names the configuration: {err}"
        );
    }
    let cache = dir.path().join("neg_cache.json");
    std::fs::write(
        &cache,
        r#"{"tune_params_keys": ["X"], "cache": {"32": {"X": 32, "time": 1.0, "compile_time": -3}}}"#,
    )
    .unwrap();
    assert!(load_err(&cache).contains("overhead -3000 us"));
    let t4 = dir.path().join("t4.json");
    std::fs::write(
        &t4,
        r#"{"results": [{"configuration": {"X": 1}, "invalidity": "correct",
            "measurements": [{"name": "time", "value": 1e306, "unit": "s"}]}]}"#,
    )
    .unwrap();
    let err = load_err(&t4);
    assert!(
        err.contains("runtime inf us") && err.contains("one day"),
        "{err}"
    );
}

#[test]
fn explain_refuses_a_failed_configuration() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = edited_ktt2(dir.path(), "2080ti-failed.json", |v| {
        v["Results"][3]["Status"] = Value::from("ComputationFailed");
    });
    let ds = data::load(&path, &ReadOptions::default()).unwrap();
    let failed = ds.space.describe(3);
    let err = run_err(&[
        "explain",
        "--space",
        path_str(&path),
        "--gpu",
        "2080ti",
        "--config",
        &failed,
    ]);
    assert!(
        err.contains("failed") && err.contains("no counters to explain"),
        "{err}"
    );
}

#[test]
fn edited_models_are_refused_reordered_parameters_and_bad_features_alike() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/coulomb-1070.json");
    std::fs::copy(&shipped, &good).unwrap();
    let model = CounterModel::load(&good).unwrap();
    let text = std::fs::read_to_string(&good).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["parameters"].as_array_mut().unwrap().swap(0, 1);
    let reordered = dir.path().join("reordered.json");
    std::fs::write(&reordered, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let err = CounterModel::load(&reordered).unwrap_err().to_string();
    assert!(err.contains("does not match its checksum"), "{err}");
    // A node testing feature -5: refused, not read as a leaf.
    let split = text.find("[0,").unwrap();
    let bad = dir.path().join("feature.json");
    std::fs::write(
        &bad,
        format!("{}[-5,{}", &text[..split], &text[split + 3..]),
    )
    .unwrap();
    let err = CounterModel::load(&bad).unwrap_err().to_string();
    assert!(err.contains("node feature -5 is neither -1"), "{err}");
    // What is written is what loads.
    let bytes = model.to_file_bytes().unwrap();
    assert_eq!(
        bytes,
        text.as_bytes(),
        "the shipped file is exactly what is written"
    );
    assert_eq!(CounterModel::parse(&good, &bytes).unwrap(), model);
}

#[test]
fn rules_directories_and_out_of_range_constants_are_refused() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let space = replay_file(COULOMB_680);
    let run = |extra: &[&str]| {
        let mut all = vec![
            "simulate",
            "--searcher",
            "profile",
            "--runs",
            "1",
            "--space",
            path_str(&space),
        ];
        all.extend_from_slice(extra);
        run_err(&all)
    };
    let missing = dir.path().join("nope");
    let err = run(&["--rules", path_str(&missing)]);
    assert!(err.contains("no such directory"), "{err}");
    let plain = dir.path().join("plain.toml");
    std::fs::write(&plain, "").unwrap();
    let err = run(&["--rules", path_str(&plain)]);
    assert!(err.contains("not a directory"), "{err}");
    let reaction = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("expert_rules/reaction.toml"),
    )
    .unwrap();
    for (key, from, to) in [
        ("exponent", "exponent = 8.0", "exponent = 1e300"),
        (
            "threads_per_core",
            "threads_per_core = 5.0",
            "threads_per_core = inf",
        ),
    ] {
        std::fs::write(dir.path().join("reaction.toml"), reaction.replace(from, to)).unwrap();
        let err = run(&["--rules", path_str(dir.path())]);
        assert!(
            err.contains(&format!("key `{key}`")) && err.contains("out of range"),
            "{err}"
        );
    }
    std::fs::remove_file(dir.path().join("reaction.toml")).unwrap();
    let devices = dir.path().join("devices.toml");
    std::fs::write(
        &devices,
        "[[device]]\nkey = \"680\"\nname = \"x\"\ncompute_capability = 3.0\nmultiprocessors = 8\nfp32_cores_per_sm = 0\n",
    )
    .unwrap();
    let err = run(&["--devices", path_str(&devices)]);
    assert!(err.contains("fp32_cores_per_sm from 1 to 4096"), "{err}");
}

// 5. Bounds.

#[test]
fn runs_splits_threads_and_endless_inputs_are_bounded() {
    if common::skip_without_data() {
        return;
    }
    let space = replay_file(COULOMB_680);
    let space = path_str(&space);
    let err = run_err(&[
        "simulate",
        "--space",
        space,
        "--runs",
        "18446744073709551615",
    ]);
    assert!(
        err.contains("--runs") && err.contains("from 1 to 1000000"),
        "{err}"
    );
    let err = run_err(&["simulate", "--space", space, "--threads", "20000"]);
    assert!(
        err.contains("--threads") && err.contains("from 1 to 256"),
        "{err}"
    );
    let err = run_err(&[
        "train",
        "--space",
        space,
        "--out",
        "m.json",
        "--splits",
        "100000000",
    ]);
    assert!(
        err.contains("--splits") && err.contains("from 1 to 100"),
        "{err}"
    );
    let err = run_err(&["simulate", "--space", "/dev/zero"]);
    assert!(
        err.starts_with("/dev/zero: the file is larger than 256 MiB"),
        "{err}"
    );
}

// 6. Misleading messages.

#[test]
fn a_bom_late_keys_and_empty_t4_results_get_the_right_reader() {
    if common::skip_without_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(replay_file(KTT2)).unwrap();
    let bom = dir.path().join("coulomb-2080ti.json");
    std::fs::write(&bom, [b"\xEF\xBB\xBF".as_slice(), &text].concat()).unwrap();
    let ds = data::load(&bom, &ReadOptions::default()).unwrap();
    assert_eq!((ds.len(), ds.valid_count()), (210, 210));
    let t4 = dir.path().join("empty-t4.json");
    std::fs::write(&t4, r#"{"schema_version": "1.0.0", "results": []}"#).unwrap();
    assert!(load_err(&t4).ends_with("`results` is empty: no configurations"));
}

#[test]
fn flags_that_would_do_nothing_are_not_offered() {
    // Worker threads only where runs are repeated or models trained; matrix trains its own models
    // and reads each file's GPU.
    for args in [
        &[
            "explain",
            "--space",
            "s.csv",
            "--config",
            "X=1",
            "--threads",
            "2",
        ][..],
        &["tune", "--kernel", "k.toml", "--threads", "2"],
        &[
            "record",
            "--kernel",
            "k.toml",
            "--out",
            "o.csv",
            "--threads",
            "2",
        ],
        &["matrix", "--space", "a.csv", "b.csv", "--model", "m.json"],
        &["matrix", "--space", "a.csv", "b.csv", "--gpu", "1070"],
    ] {
        let err = run_err(args);
        assert!(err.contains("unexpected argument"), "{args:?}: {err}");
    }
    assert!(Cli::try_parse_from([
        "pcsearch",
        "train",
        "--space",
        "s.csv",
        "--out",
        "m.json",
        "--threads",
        "2"
    ])
    .is_ok());
}
