//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test crate uses a different subset

use pcsearch::backend::TimeModel;
use pcsearch::data::{self, Dataset, ReadOptions};
use pcsearch::datadir::Lookup;
use pcsearch::experiment::{self, Repetition, RunResult};
use pcsearch::search::RandomFactory;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};

/// Set to 1 (as CI does) to make a test that lacks the recorded data fail instead of skipping.
pub const REQUIRE_DATA: &str = "PCSEARCH_REQUIRE_DATA";

/// The recorded data set's directory, found as the command line finds it ($PCSEARCH_DATA, else
/// ./replay_data, else ../shared/replay_data), relative to the crate root.
pub fn data_dir() -> Option<PathBuf> {
    Lookup::from_env_at(None, Path::new(env!("CARGO_MANIFEST_DIR")))
        .find()
        .filter(|d| d.path.is_dir())
        .map(|d| d.path)
}

static SKIP_NOTICE: Once = Once::new();

/// True when the recorded data set is absent and the calling test should return at once.
///
/// Says so once per test binary, on the terminal (not captured by the test harness); with
/// `PCSEARCH_REQUIRE_DATA=1` an absent data set fails the test instead.
pub fn skip_without_data() -> bool {
    if data_dir().is_some() {
        return false;
    }
    if std::env::var(REQUIRE_DATA).is_ok_and(|v| v == "1") {
        panic!(
            "{REQUIRE_DATA}=1 but the recorded data set was not found (PCSEARCH_DATA, ./replay_data, ../shared/replay_data); get it with `cargo run --release -- data fetch`"
        );
    }
    SKIP_NOTICE.call_once(|| {
        let binary = std::env::args()
            .next()
            .and_then(|a| {
                let name = Path::new(&a).file_name()?.to_string_lossy().into_owned();
                // Cargo names test binaries `<test>-<hash>`.
                Some(name.rsplit_once('-').map_or(name.clone(), |(t, _)| t.to_string()))
            })
            .unwrap_or_default();
        // Written to the terminal directly: the harness captures only print!/eprint!.
        let _ = writeln!(
            std::io::stderr(),
            "note: {binary}: tests that need the recorded data set are SKIPPED (not found in $PCSEARCH_DATA, ./replay_data or ../shared/replay_data); get it with `cargo run --release -- data fetch`; {REQUIRE_DATA}=1 makes this a failure"
        );
    });
    true
}

/// Path of a file of the recorded data set, e.g. `ktt-paper/coulomb/680-coulomb_output.csv`
/// (call [`skip_without_data`] first).
pub fn replay_file(relative: &str) -> PathBuf {
    data_dir()
        .expect("the recorded data set is present (checked with skip_without_data)")
        .join(relative)
}

/// Reads a recorded space with default options, panicking with the reader's message on error.
pub fn load(relative: &str) -> Arc<Dataset> {
    let path = replay_file(relative);
    let dataset = data::load(&path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Arc::new(dataset)
}

/// `runs` seeded random-search runs on `dataset`, as `pcsearch simulate --searcher random` does them.
pub fn random_runs(dataset: &Arc<Dataset>, runs: usize, seed: u64) -> Vec<RunResult> {
    let factory = RandomFactory {
        size: dataset.len(),
    };
    let rep = Repetition {
        runs,
        seed,
        time_model: TimeModel::default(),
        max_tests: None,
    };
    experiment::repeat(dataset, None, &factory, &rep).expect("replay cannot fail")
}

/// Number of well-performing configurations K (runtime ≤ 1.1 × best).
pub fn well_performing_count(dataset: &Dataset) -> usize {
    dataset.well_performing().iter().filter(|&&w| w).count()
}
