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
    /// Train a counter model (decision trees from tuning parameters to counters) on a recorded space.
    Train(TrainArgs),
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
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "random,profile"
    )]
    pub searchers: Vec<SearcherKind>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// How a model's tree is chosen (see `docs/model.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SelectionArg {
    /// Depth with the lowest mean held-out MAE over all splits, refitted on all data.
    Refit,
    /// The paper's rule: the single candidate tree with the lowest held-out MAE.
    BestCandidate,
}

/// Arguments of `train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// Model file to write (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// GPU the space was recorded on, as a device-table key (default: from the file's metadata or name).
    #[arg(long)]
    pub gpu: Option<String>,
    /// Seed of the train/test splits; equal seeds give identical models.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random 50/50 train/test splits evaluated per depth.
    #[arg(long, default_value_t = 10)]
    pub splits: usize,
    /// Comma-separated maximum tree depths to try.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"
    )]
    pub depths: Vec<u16>,
    /// How the stored tree is chosen among the candidates.
    #[arg(long, value_enum, default_value_t = SelectionArg::Refit)]
    pub selection: SelectionArg,
    /// Directory whose files replace the built-in expert_rules/ files of the same name.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra device table (TOML) merged over the built-in one.
    #[arg(long)]
    pub devices: Option<PathBuf>,
}
