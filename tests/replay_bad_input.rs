//! Bad input gives one clear error naming the file and the line, column or value at fault; no panic.

mod common;

use pcsearch::backend::{Backend, ReplayBackend, TimeModel};
use pcsearch::data::{self, Dataset, ReadOptions};
use pcsearch::experiment::SpaceFacts;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use tempfile::TempDir;

const HEADER: &str = "Kernel name,Computation duration (us),Global size,Local size,A,B,dram_utilization,Registers count";

/// Writes `text` to `name` in a fresh temporary directory (kept alive by the returned guard).
fn write(name: &str, text: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn read(path: &Path) -> pcsearch::Result<Dataset> {
    data::load(path, &ReadOptions::default())
}

/// The error of reading `text` as file `name`; asserts it names the file.
fn error_of(name: &str, text: &str) -> String {
    let (_dir, path) = write(name, text);
    let err = read(&path)
        .expect_err("bad input must be rejected")
        .to_string();
    assert!(
        err.starts_with(&path.display().to_string()),
        "error does not name the file: {err}"
    );
    err
}

fn csv(rows: &[&str]) -> String {
    let mut text = format!("{HEADER}\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    text
}

#[test]
fn a_well_formed_small_file_reads() {
    let (_dir, path) = write(
        "good.csv",
        &csv(&[
            "k,10,64,32,1,0,3,12",
            "k,12,64,32,1,1,4,12",
            "k,30,64,32,2,0,1,12",
        ]),
    );
    let d = read(&path).unwrap();
    assert_eq!(d.space.parameters(), ["A", "B"]);
    assert_eq!(d.metric_names, ["dram_utilization"]);
    assert_eq!((d.len(), d.valid_count()), (3, 3));
    assert_eq!(SpaceFacts::of(&d).well_performing, 1);
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.csv");
    let err = read(&path).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("No such file"), "{err}");
}

#[test]
fn wrong_field_count_names_the_line() {
    let err = error_of(
        "short.csv",
        &csv(&["k,10,64,32,1,0,3,12", "k,12,64,32,1,1,4"]),
    );
    assert!(err.contains("short.csv:3:"), "{err}");
    assert!(err.contains("7 fields, but the header has 8"), "{err}");
    let err = error_of("long.csv", &csv(&["k,10,64,32,1,0,3,12,99"]));
    assert!(
        err.contains("long.csv:2:") && err.contains("9 fields"),
        "{err}"
    );
}

#[test]
fn non_numeric_value_names_column_value_and_line() {
    let err = error_of(
        "text.csv",
        &csv(&[
            "k,10,64,32,1,0,3,12",
            "k,12,64,32,1,1,4,12",
            "k,12,64,32,two,1,4,12",
        ]),
    );
    assert!(err.contains("text.csv:4:"), "{err}");
    assert!(
        err.contains("column `A`") && err.contains("`two` is not a number"),
        "{err}"
    );
    let err = error_of("runtime.csv", &csv(&["k,fast,64,32,1,0,3,12"]));
    assert!(err.contains("runtime.csv:2:"), "{err}");
    assert!(
        err.contains("`Computation duration (us)`") && err.contains("`fast`"),
        "{err}"
    );
}

#[test]
fn nan_is_rejected_with_its_column_and_line() {
    let err = error_of(
        "nan.csv",
        &csv(&["k,10,64,32,1,0,3,12", "k,12,64,32,1,1,NaN,12"]),
    );
    assert!(err.contains("nan.csv:3:"), "{err}");
    assert!(
        err.contains("column `dram_utilization`: `NaN` is not a finite number"),
        "{err}"
    );
    let err = error_of("nanrt.csv", &csv(&["k,nan,64,32,1,0,3,12"]));
    assert!(
        err.contains("nanrt.csv:2:") && err.contains("`nan` is not a finite number"),
        "{err}"
    );
    let err = error_of("inf.csv", &csv(&["k,10,64,32,inf,0,3,12"]));
    assert!(
        err.contains("inf.csv:2:") && err.contains("column `A`: `inf`"),
        "{err}"
    );
}

#[test]
fn empty_and_header_only_files() {
    let err = error_of("empty.csv", "");
    assert!(err.contains("empty"), "{err}");
    let err = error_of("blank.csv", "\n  \n");
    assert!(err.contains("empty"), "{err}");
    let err = error_of("header.csv", &csv(&[]));
    assert!(err.contains("no configurations"), "{err}");
    let err = error_of("empty.json", "");
    assert!(err.contains("empty"), "{err}");
}

#[test]
fn duplicate_configuration_names_both_lines() {
    let err = error_of(
        "dup.csv",
        &csv(&[
            "k,10,64,32,1,0,3,12",
            "k,11,64,32,2,0,3,12",
            "k,12,64,32,1,0,4,12",
        ]),
    );
    assert!(err.contains("dup.csv:4:"), "{err}");
    assert!(
        err.contains("duplicate configuration A=1,B=0 (first on line 2)"),
        "{err}"
    );
}

#[test]
fn a_row_without_runtime_is_an_invalid_configuration() {
    // Line 3 failed: no runtime and no counters. It counts in N, not in the valid ones.
    let (_dir, path) = write(
        "failed.csv",
        &csv(&[
            "k,10,64,32,1,0,3,12",
            "k,,64,32,1,1,,",
            "k,30,64,32,2,0,1,12",
        ]),
    );
    let d = Arc::new(read(&path).unwrap());
    let facts = SpaceFacts::of(&d);
    assert_eq!(
        (facts.configurations, facts.valid, facts.well_performing),
        (3, 2, 1)
    );
    assert!((facts.expected_random_steps - 4.0 / 2.0).abs() < 1e-12);
    let failed = d.space.parse_assignment("A=1,B=1").unwrap();
    assert_eq!(d.records[failed].runtime_us, None);
    assert!(d.records[failed].metrics.iter().all(|m| m.is_nan()));
    // Selecting it costs a test and yields no runtime.
    let mut backend = ReplayBackend::new(d.clone(), None, TimeModel::default());
    let m = backend.measure(failed, false).unwrap();
    assert_eq!(m.runtime_us, None);
    assert!(m.failure.is_some());
    assert!(m.cost_s > 0.0, "a failed test still costs time");
    let ok = backend
        .measure(d.space.parse_assignment("A=2,B=0").unwrap(), false)
        .unwrap();
    assert_eq!(ok.runtime_us, Some(30.0));
    // A measured configuration must have its counters: a missing one is an error, not a NaN.
    let err = error_of("nocounter.csv", &csv(&["k,10,64,32,1,0,,12"]));
    assert!(
        err.contains("nocounter.csv:2:") && err.contains("`dram_utilization`"),
        "{err}"
    );
}

#[test]
fn a_file_where_every_configuration_failed_is_rejected() {
    let err = error_of(
        "allfailed.csv",
        &csv(&["k,,64,32,1,0,,", "k,0,64,32,2,0,,"]),
    );
    assert!(err.contains("every one failed"), "{err}");
}

#[test]
fn unknown_parameter_in_parameters_option() {
    let (_dir, path) = write("params.csv", &csv(&["k,10,64,32,1,0,3,12"]));
    let options = ReadOptions {
        parameters: Some(vec!["A".into(), "NOPE".into()]),
    };
    let err = data::load(&path, &options).unwrap_err().to_string();
    assert!(err.contains("params.csv"), "{err}");
    assert!(
        err.contains("`NOPE`") && err.contains("not a column"),
        "{err}"
    );
    // Naming the parameters explicitly works, and the other unknown columns become counters.
    let options = ReadOptions {
        parameters: Some(vec!["B".into()]),
    };
    let d = data::load(&path, &options).unwrap();
    assert_eq!(d.space.parameters(), ["B"]);
    assert_eq!(d.metric_names, ["A", "dram_utilization"]);
    let d = data::load(
        &path,
        &ReadOptions {
            parameters: Some(vec!["A".into(), "B".into()]),
        },
    )
    .unwrap();
    assert_eq!(d.space.parameters(), ["A", "B"]);
}

#[test]
fn malformed_json_names_the_line() {
    let text =
        "{\n  \"Metadata\": {},\n  \"Results\": [\n    { \"Configuration\": [ oops ] }\n  ]\n}\n";
    let err = error_of("broken.json", text);
    assert!(err.contains("broken.json:4:"), "{err}");
    let err = error_of(
        "noresults.json",
        "{\n  \"Metadata\": {},\n  \"Results\": []\n}\n",
    );
    assert!(err.contains("no configurations"), "{err}");
}

#[test]
fn duplicate_configuration_in_json() {
    let entry = |x: u32, t: f64| {
        format!(
            "{{\"Configuration\": [{{\"Name\": \"X\", \"Value\": {x}}}], \"Status\": \"Ok\", \"TotalDuration\": {t}, \"ComputationResults\": []}}"
        )
    };
    let text = format!(
        "{{\"Metadata\": {{}}, \"Results\": [{}, {}, {}]}}",
        entry(1, 5.0),
        entry(2, 6.0),
        entry(1, 7.0)
    );
    let err = error_of("dup.json", &text);
    assert!(
        err.contains("Results[2]") && err.contains("X=1") && err.contains("Results[0]"),
        "{err}"
    );
}

#[test]
fn unknown_format_is_named() {
    let err = error_of("notes.txt", "just some text\n");
    assert!(err.contains("unknown format"), "{err}");
}

fn pcsearch(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .output()
        .unwrap()
}

fn assert_clean_failure(out: &std::process::Output, wanted: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "should fail; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout on failure");
    for w in wanted {
        assert!(stderr.contains(w), "stderr lacks `{w}`: {stderr}");
    }
}

#[test]
fn cli_unknown_searcher_is_named() {
    if common::skip_without_data() {
        return;
    }
    let space = common::replay_file("ktt-paper/coulomb/680-coulomb_output.csv");
    let out = pcsearch(&[
        "simulate",
        "--space",
        space.to_str().unwrap(),
        "--searcher",
        "bogus",
    ]);
    assert_clean_failure(&out, &["bogus", "--searcher"]);
}

#[test]
fn cli_bad_file_errors_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.csv");
    let out = pcsearch(&["simulate", "--space", missing.to_str().unwrap()]);
    assert_clean_failure(&out, &["error:", "missing.csv"]);
    let (_dir, bad) = write(
        "bad.csv",
        &csv(&["k,10,64,32,1,0,3,12", "k,12,64,32,1,x,4,12"]),
    );
    let out = pcsearch(&["simulate", "--space", bad.to_str().unwrap(), "--runs", "10"]);
    assert_clean_failure(&out, &["bad.csv:3:", "column `B`", "`x`"]);
    let out = pcsearch(&[
        "simulate",
        "--space",
        bad.to_str().unwrap(),
        "--parameters",
        "A,ZZ",
    ]);
    assert_clean_failure(&out, &["bad.csv", "`ZZ`"]);
}

#[test]
fn cli_zero_runs_is_an_error() {
    if common::skip_without_data() {
        return;
    }
    let space = common::replay_file("ktt-paper/coulomb/680-coulomb_output.csv");
    let out = pcsearch(&[
        "simulate",
        "--space",
        space.to_str().unwrap(),
        "--runs",
        "0",
    ]);
    assert_clean_failure(&out, &["--runs"]);
}

#[test]
fn test_cap_is_honoured_and_zero_is_rejected() {
    if common::skip_without_data() {
        return;
    }
    let d = common::load("ktt-paper/mtran/680-mtran_output.csv");
    let factory = pcsearch::search::RandomFactory { size: d.len() };
    let mut rep = pcsearch::experiment::Repetition {
        runs: 200,
        seed: 3,
        time_model: TimeModel::default(),
        max_tests: Some(5),
    };
    let runs = pcsearch::experiment::repeat(&d, None, &factory, &rep).unwrap();
    assert!(runs
        .iter()
        .all(|r| r.steps <= 5 && (r.found || r.steps == 5)));
    // K = 9 of 1784: most runs give up at the cap.
    assert!(runs.iter().filter(|r| !r.found).count() > 150);
    // A cap of 0 tests made one test before; it is now an error naming the option.
    rep.max_tests = Some(0);
    let err = pcsearch::experiment::repeat(&d, None, &factory, &rep)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--max-tests"), "{err}");
    // And the tuning loop itself makes no test under a cap of 0.
    let mut backend = ReplayBackend::new(d.clone(), None, TimeModel::default());
    let mut searcher = pcsearch::search::RandomSearch::new(d.len(), 1);
    let stop = pcsearch::tuning::StopRule {
        max_tests: Some(0),
        ..Default::default()
    };
    let history =
        pcsearch::tuning::tune(&mut backend, &mut searcher, &stop, &[], &mut |_| Ok(())).unwrap();
    assert!(history.steps.is_empty());
    let out = pcsearch(&[
        "simulate",
        "--space",
        common::replay_file("ktt-paper/coulomb/680-coulomb_output.csv")
            .to_str()
            .unwrap(),
        "--max-tests",
        "0",
    ]);
    assert_clean_failure(&out, &["--max-tests"]);
}
