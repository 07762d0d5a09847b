//! `tune` and `record` on a machine without the NVIDIA driver stop with one sentence.

use std::process::Command;

const SENTENCE: &str = "the CUDA driver library (libcuda.so) was not found: tune and record need an NVIDIA GPU with its driver installed";

fn driver_present() -> bool {
    // SAFETY: only tries to load the library.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pcsearch"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the pcsearch binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tune_without_a_driver_says_so_in_one_sentence() {
    if driver_present() {
        eprintln!("libcuda present: the no-driver path cannot be tested here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let (ok, stderr) = run(&[
        "tune",
        "--kernel",
        "examples/coulomb/coulomb.toml",
        "--budget",
        "5",
        "--journal",
        journal.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert_eq!(stderr.trim_end(), format!("error: {SENTENCE}"));
    assert!(!journal.exists(), "nothing is written without a GPU");
}

#[test]
fn record_without_a_driver_says_so_in_one_sentence() {
    if driver_present() {
        eprintln!("libcuda present: the no-driver path cannot be tested here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.csv");
    let (ok, stderr) = run(&[
        "record",
        "--kernel",
        "examples/transpose/transpose.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert_eq!(stderr.trim_end(), format!("error: {SENTENCE}"));
    assert!(!out.exists());
}
