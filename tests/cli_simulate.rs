//! `pcsearch simulate` on recorded files: the JSON object's stable fields and the table's figures.

mod common;

use pcsearch::experiment::StepStats;
use serde_json::Value;
use std::process::Command;

fn simulate(space: &str, extra: &[&str]) -> std::process::Output {
    let path = common::replay_file(space);
    Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args([
            "simulate",
            "--space",
            path.to_str().unwrap(),
            "--searcher",
            "random",
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn json_output_is_one_object_with_stable_fields() {
    if common::skip_without_data() {
        return;
    }
    let file = "ktt-paper/coulomb/680-coulomb_output.csv";
    let out = simulate(file, &["--runs", "1000", "--seed", "1", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Exactly one JSON value on stdout.
    let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    let v = stream.next().unwrap().unwrap();
    assert!(stream.next().is_none(), "more than one JSON value: {text}");
    let o = v.as_object().expect("an object");
    for field in [
        "mean_steps",
        "median_steps",
        "p90_steps",
        "max_steps",
        "configurations",
        "valid",
        "well_performing",
        "best_runtime_us",
        "best_configuration",
        "expected_random_steps",
        "runs",
        "seed",
        "searcher",
    ] {
        assert!(o.contains_key(field), "missing `{field}` in {text}");
    }
    // Values from the file (see tests/replay_data_sets.rs for how they were obtained).
    assert_eq!(o["configurations"], 210);
    assert_eq!(o["valid"], 210);
    assert_eq!(o["well_performing"], 23);
    assert_eq!(o["best_runtime_us"].as_f64(), Some(4613.0));
    assert_eq!(
        o["best_configuration"],
        "WORK_GROUP_SIZE_X=16,WORK_GROUP_SIZE_Y=8,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=32,\
         INNER_UNROLL_FACTOR=0,USE_SOA=1,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1"
    );
    assert!((o["expected_random_steps"].as_f64().unwrap() - 211.0 / 24.0).abs() < 1e-9);
    assert_eq!(o["runs"], 1000);
    assert_eq!(o["seed"], 1);
    assert_eq!(o["searcher"], "random");
    // The step statistics are those of the library's runs with the same seed, whatever the threads.
    let d = common::load(file);
    let stats = StepStats::of(&common::random_runs(&d, 1000, 1));
    assert_eq!(o["mean_steps"].as_f64(), Some(stats.mean_steps));
    assert_eq!(o["median_steps"].as_f64(), Some(stats.median_steps));
    assert_eq!(o["p90_steps"].as_u64(), Some(stats.p90_steps as u64));
    assert_eq!(o["max_steps"].as_u64(), Some(stats.max_steps as u64));
    let mean = stats.mean_steps;
    assert!((mean / (211.0 / 24.0) - 1.0).abs() < 0.05, "mean {mean}");
}

#[test]
fn same_seed_same_output_whatever_the_thread_count() {
    if common::skip_without_data() {
        return;
    }
    let file = "ktt-paper/mtran/750-mtran_output.csv";
    let run = |threads: &str, seed: &str| {
        let out = simulate(
            file,
            &[
                "--runs",
                "300",
                "--seed",
                seed,
                "--format",
                "json",
                "--threads",
                threads,
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let one = run("1", "5");
    assert_eq!(one, run("2", "5"));
    assert_ne!(one, run("2", "6"));
}

#[test]
fn table_output_prints_the_exact_expectation_beside_the_measured_mean() {
    if common::skip_without_data() {
        return;
    }
    let out = simulate("ktt2/coulomb-2080ti.json", &["--runs", "200"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("210 (210 valid), 35 well-performing"),
        "{text}"
    );
    assert!(
        text.contains("exact expectation (N+1)/(K+1) = 5.86"),
        "{text}"
    );
    assert!(text.contains("measured mean"), "{text}");
    assert!(text.contains("769.7 us"), "{text}");
}

#[test]
fn help_fits_on_a_screen_with_an_example_and_without_research_flags() {
    for command in [
        "simulate", "compare", "explain", "matrix", "holdout", "train", "tune", "record",
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pcsearch"))
            .args([command, "--help"])
            .output()
            .expect("run pcsearch");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.lines().count() < 60, "{command}: {help}");
        assert!(help.contains("Example: pcsearch"), "{command}: {help}");
        for hidden in [
            "--zero-policy",
            "--formula",
            "--score-scale",
            "--restart-from",
        ] {
            assert!(!help.contains(hidden), "{command} shows {hidden}");
        }
    }
}
