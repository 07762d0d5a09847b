//! Argument groups shared by the commands.

use crate::backend::TimeModel;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Autotune GPU kernels faster by reading hardware performance counters.
#[derive(Debug, Parser)]
#[command(name = "pcsearch", version, about)]
pub struct Cli {
    /// Worker threads for repeated runs (default: all cores). Results do not depend on it.
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one searcher many times on recorded data and report steps to a well-performing configuration.
    Simulate(SimulateArgs),
    /// Run several searchers on the same recorded data and report each one's improvement over the first.
    Compare(CompareArgs),
    /// Tune a kernel live on the GPU of this machine (NVRTC, CUDA events, CUPTI).
    Tune(TuneArgs),
    /// Measure and profile every configuration of a kernel on this GPU and write replay data.
    Record(RecordArgs),
}

/// Searchers that can be named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearcherKind {
    /// Random search without replacement.
    Random,
    /// Profile-based search (expert system + counters).
    Profile,
}

impl SearcherKind {
    /// Name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            SearcherKind::Random => "random",
            SearcherKind::Profile => "profile",
        }
    }
}

/// Output format of reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text for people.
    Table,
    /// One JSON object with stable field names, for scripts.
    Json,
}

/// Which recorded space to read.
#[derive(Debug, Args)]
pub struct SpaceArgs {
    /// Recorded tuning space (KTT CSV or KTT JSON).
    #[arg(long)]
    pub space: PathBuf,
    /// Comma-separated columns to take as tuning parameters (default: every column that is not a known counter).
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<String>>,
}

/// How runs are repeated and reported.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Number of seeded runs.
    #[arg(long, default_value_t = 1000)]
    pub runs: usize,
    /// Master seed; every random choice of every run derives from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Give a run up after this many tests (default: twice the number of configurations).
    #[arg(long)]
    pub max_tests: Option<usize>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub time: TimeArgs,
}

/// The simulated cost of tests (replay's time model).
#[derive(Debug, Args)]
pub struct TimeArgs {
    /// Seconds to compile and set up one configuration.
    #[arg(long, default_value_t = TimeModel::default().compile_s)]
    pub compile_s: f64,
    /// Kernel runs per plain test.
    #[arg(long, default_value_t = TimeModel::default().runs_per_test)]
    pub runs_per_test: f64,
    /// Kernel replays per profiled test (one per counter pass).
    #[arg(long, default_value_t = TimeModel::default().profiling_passes)]
    pub profiling_passes: f64,
    /// Fixed seconds of profiler set-up per profiled test.
    #[arg(long, default_value_t = TimeModel::default().profiler_overhead_s)]
    pub profiler_overhead_s: f64,
    /// Ignore per-configuration overheads recorded in the file and use --compile-s everywhere.
    #[arg(long)]
    pub ignore_recorded_overhead: bool,
}

impl TimeArgs {
    /// The time model these arguments describe.
    pub fn model(&self) -> TimeModel {
        TimeModel {
            compile_s: self.compile_s,
            runs_per_test: self.runs_per_test,
            profiling_passes: self.profiling_passes,
            profiler_overhead_s: self.profiler_overhead_s,
            use_recorded_overhead: !self.ignore_recorded_overhead,
        }
    }
}

/// Arguments of `simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// The searcher to run.
    #[arg(long, value_enum, default_value_t = SearcherKind::Random)]
    pub searcher: SearcherKind,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// Comma-separated searchers; improvements are relative to the first.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "random,profile")]
    pub searchers: Vec<SearcherKind>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// What live commands share: the kernel, the GPU and the journal.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Kernel description file (TOML; see docs/tuning-on-your-gpu.md).
    #[arg(long)]
    pub kernel: PathBuf,
    /// CUDA device ordinal of the GPU to use.
    #[arg(long, default_value_t = 0)]
    pub gpu_index: usize,
    /// Results journal, one JSON line per measured test (default: derived from the kernel file).
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Continue the run recorded in the journal without re-running its tests.
    #[arg(long)]
    pub resume: bool,
}

/// Arguments of `tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// The searcher.
    #[arg(long, value_enum, default_value_t = SearcherKind::Random)]
    pub searcher: SearcherKind,
    /// Counter model for the profile-based searcher (models/NAME.json).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Seed of the searcher's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop after this many tests.
    #[arg(long)]
    pub budget: Option<usize>,
    /// Stop after this many seconds of testing.
    #[arg(long)]
    pub time: Option<f64>,
}

/// Arguments of `record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Where to write the replay data (KTT CSV, readable by `simulate --space`).
    #[arg(long)]
    pub out: PathBuf,
}
