//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test crate uses a different subset

use pcsearch::backend::TimeModel;
use pcsearch::data::{self, Dataset, ReadOptions};
use pcsearch::experiment::{self, Repetition, RunResult};
use pcsearch::search::RandomFactory;
use std::path::PathBuf;
use std::sync::Arc;

/// The shared recorded data set, next to the repository (never copied into it).
pub const REPLAY_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/replay_data");

/// Absolute path of a file under the shared replay data, e.g. `ktt-paper/coulomb/680-coulomb_output.csv`.
pub fn replay_file(relative: &str) -> PathBuf {
    PathBuf::from(REPLAY_DATA).join(relative)
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
