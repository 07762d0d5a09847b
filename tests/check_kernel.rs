//! `pcsearch check` gives the right verdict on kernel descriptions and models without a GPU, and
//! `tune` / `record` run the same checks before looking for the driver.

use std::path::{Path, PathBuf};
use std::process::Command;

fn pcsearch(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the pcsearch binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// The transpose example with `from` replaced by `to`, next to a copy of its source.
fn broken_transpose(dir: &Path, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(example("transpose/transpose.toml")).unwrap();
    assert!(text.contains(from), "{from}");
    std::fs::copy(example("transpose/transpose.cu"), dir.join("transpose.cu")).unwrap();
    let path = dir.join("transpose.toml");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

/// `check` fails with one error line containing every piece of `wanted`.
fn refused(kernel: &Path, wanted: &[&str]) {
    let (ok, _, stderr) = pcsearch(&["check", "--kernel", kernel.to_str().unwrap()]);
    assert!(!ok, "accepted: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for w in wanted {
        assert!(stderr.contains(w), "`{w}` not in: {stderr}");
    }
}

#[test]
fn both_examples_are_valid_with_their_space_sizes() {
    let (ok, stdout, stderr) = pcsearch(&["check", "--kernel", "examples/coulomb/coulomb.toml"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("kernel coulomb_sum in examples/coulomb/coulomb.toml: valid")
            && stdout.contains("423 configurations of 7 parameters"),
        "{stdout}"
    );
    let (ok, stdout, stderr) =
        pcsearch(&["check", "--kernel", "examples/transpose/transpose.toml"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("192 configurations of 6 parameters (4 constraints)"),
        "{stdout}"
    );
    // 2 × 4096² floats.
    assert!(stdout.contains("largest buffers 128.0 MiB"), "{stdout}");
    assert!(!stdout.contains("warning"), "{stdout}");
}

#[test]
fn a_missing_source_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(
        dir.path(),
        "source = \"transpose.cu\"",
        "source = \"nope.cu\"",
    );
    refused(&k, &["nope.cu", "No such file"]);
}

#[test]
fn a_constraint_with_an_unknown_name_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(dir.path(), "TILE % WPT == 0", "TILE % WPTT == 0");
    refused(&k, &["transpose.toml:", "WPTT"]);
}

#[test]
fn a_launch_expression_that_fails_for_some_configuration_names_it() {
    let dir = tempfile::tempdir().unwrap();
    // UNROLL is 0 in half the space: a division by zero there.
    let k = broken_transpose(
        dir.path(),
        "block = [\"TILE\", \"TILE / WPT\"]",
        "block = [\"TILE\", \"TILE / UNROLL\"]",
    );
    refused(
        &k,
        &[
            "transpose.toml",
            "for configuration TILE=",
            "UNROLL=0",
            "TILE / UNROLL",
        ],
    );
}

#[test]
fn a_launch_over_the_limits_of_every_gpu_is_a_warning_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(
        dir.path(),
        "block_fits = \"TILE * TILE / WPT <= 1024\"",
        "block_fits = \"TILE * TILE / WPT <= 4096\"",
    );
    let (ok, stdout, stderr) = pcsearch(&["check", "--kernel", k.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("216 configurations")
            && stdout.contains("warning: 24 configurations exceed the launch limits")
            && stdout.contains("block of 4096 threads exceeds the device limit of 1024"),
        "{stdout}"
    );
}

#[test]
fn an_argument_length_that_is_not_positive_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(
        dir.path(),
        "length = \"N * N\"",
        "length = \"N * N * (USE_SHARED - 1)\"",
    );
    refused(&k, &["lengths must be positive", "USE_SHARED=0"]);
}

#[test]
fn a_constant_larger_than_constant_memory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(
        dir.path(),
        "[check]",
        "[[argument]]\nname = \"table\"\nkind = \"constant\"\ntype = \"f32\"\nlength = \"N * 8\"\ninit = \"zeros\"\n\n[check]",
    );
    refused(
        &k,
        &[
            "`N * 8` gives 32768 elements",
            "65536 bytes of __constant__ memory",
        ],
    );
}

#[test]
fn an_empty_space_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(dir.path(), "TILE % WPT == 0", "TILE > 1000");
    refused(&k, &["transpose.toml"]);
}

#[test]
fn a_model_for_another_space_is_refused_naming_the_difference() {
    let (ok, _, stderr) = pcsearch(&[
        "check",
        "--kernel",
        "examples/transpose/transpose.toml",
        "--model",
        "models/mtran-1070.json",
    ]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("models/mtran-1070.json") && stderr.contains("TILE"),
        "{stderr}"
    );
}

#[test]
fn tune_and_record_check_the_description_before_looking_for_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let k = broken_transpose(dir.path(), "TILE % WPT == 0", "TILE % WPTT == 0");
    let (ok, _, stderr) = pcsearch(&["tune", "--kernel", k.to_str().unwrap(), "--budget", "3"]);
    assert!(!ok);
    assert!(
        stderr.contains("WPTT") && !stderr.contains("libcuda"),
        "{stderr}"
    );
    let out = dir.path().join("t.csv");
    let (ok, _, stderr) = pcsearch(&[
        "record",
        "--kernel",
        k.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("WPTT") && !stderr.contains("libcuda"),
        "{stderr}"
    );
    let (ok, _, stderr) = pcsearch(&[
        "tune",
        "--kernel",
        "examples/transpose/transpose.toml",
        "--searcher",
        "profile",
    ]);
    assert!(!ok);
    assert!(stderr.contains("needs --model"), "{stderr}");
    let (ok, _, stderr) = pcsearch(&[
        "tune",
        "--kernel",
        "examples/transpose/transpose.toml",
        "--searcher",
        "profile",
        "--model",
        "models/coulomb-1070.json",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("models/coulomb-1070.json") && !stderr.contains("libcuda"),
        "{stderr}"
    );
}
