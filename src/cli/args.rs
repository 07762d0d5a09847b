//! Argument groups shared by the commands.

use super::bounds::{float_in, int_in, MAX_DEPTH, MAX_RUNS, MAX_SECONDS, MAX_SPLITS, MAX_THREADS};
use crate::backend::{ClockCalibration, TimeModel};
use crate::expert::Formula;
use crate::search::profile::{
    Guidance, Restart, RestartPoint, RestartSchedule, SearchSettings, ZeroPolicy,
};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Autotune GPU kernels faster by reading hardware performance counters.
#[derive(Debug, Parser)]
#[command(name = "pcsearch", version, about)]
pub struct Cli {
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
    /// Show one configuration's counters, bottlenecks, desired counter changes and best-scored candidates.
    Explain(ExplainArgs),
    /// For one benchmark recorded on several GPUs: train a model on each, tune each with each (Table 6).
    Matrix(MatrixArgs),
    /// Leave-one-benchmark-out: choose the searcher's settings on all benchmarks but one, report on that one.
    Holdout(HoldoutArgs),
    /// Train a counter model (decision trees from tuning parameters to counters) on a recorded space.
    Train(TrainArgs),
    /// Tune a kernel live on the GPU of this machine (NVRTC, CUDA events, CUPTI).
    Tune(TuneArgs),
    /// Measure and profile every configuration of a kernel on this GPU and write replay data.
    Record(RecordArgs),
    /// Show what pcsearch reads from this machine's GPU: facts, CUDA libraries, counter support.
    Device(DeviceArgs),
    /// Validate a kernel description, and a model's fit to its space, without a GPU or driver.
    Check(CheckArgs),
    /// Convert a recorded space to T4 results, a Kernel Tuner cache or KTT CSV.
    Export(ExportArgs),
    /// Get the recorded data set: `pcsearch data fetch` downloads and verifies it.
    #[command(subcommand)]
    Data(DataCommand),
}

impl Command {
    /// The worker threads the command was given, for those that run work in parallel.
    pub fn threads(&self) -> Option<usize> {
        match self {
            Command::Simulate(a) => a.run.threads.threads,
            Command::Compare(a) => a.run.threads.threads,
            Command::Matrix(a) => a.run.threads.threads,
            Command::Holdout(a) => a.threads.threads,
            Command::Train(a) => a.threads.threads,
            _ => None,
        }
    }
}

/// Worker threads of the commands that run in parallel.
#[derive(Debug, Args)]
pub struct ThreadsArg {
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_parser = int_in(1, MAX_THREADS))]
    pub threads: Option<usize>,
}

/// Arguments of `device`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pcsearch device")]
pub struct DeviceArgs {
    /// CUDA device ordinal of the GPU to describe.
    #[arg(long, default_value_t = 0)]
    pub gpu_index: usize,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pcsearch check --kernel examples/coulomb/coulomb.toml")]
pub struct CheckArgs {
    /// Kernel description file (TOML; see the README, "Tuning on your GPU").
    #[arg(long)]
    pub kernel: PathBuf,
    /// Counter model (from `pcsearch train`) to check against the kernel's space.
    #[arg(long)]
    pub model: Option<PathBuf>,
}

/// Formats `export`, `record` and `tune` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// T4 open autotuning results (JSON), read by KTT 2.x and autotuning tools.
    T4,
    /// A Kernel Tuner cache file, replayed by Kernel Tuner's simulation mode.
    KernelTuner,
    /// KTT 1.x CSV, the recorded data set's format.
    KttCsv,
}

impl From<ExportFormat> for crate::data::OutputFormat {
    fn from(f: ExportFormat) -> Self {
        match f {
            ExportFormat::T4 => crate::data::OutputFormat::T4,
            ExportFormat::KernelTuner => crate::data::OutputFormat::KernelTuner,
            ExportFormat::KttCsv => crate::data::OutputFormat::KttCsv,
        }
    }
}

/// Arguments of `export`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example: pcsearch export --space paper:coulomb/680 --to kernel-tuner --out 680-coulomb_cache.json"
)]
pub struct ExportArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// Format to write.
    #[arg(long, value_enum)]
    pub to: ExportFormat,
    /// File to write (never the file read).
    #[arg(long)]
    pub out: PathBuf,
}

/// Extra copies of live results in the ecosystem's formats.
#[derive(Debug, Args)]
pub struct ResultFilesArgs {
    /// Also write the results as T4 open autotuning results (JSON).
    #[arg(long, value_name = "FILE")]
    pub t4: Option<PathBuf>,
    /// Also write the results as a Kernel Tuner cache file (for its simulation mode).
    #[arg(long, value_name = "FILE")]
    pub kernel_tuner: Option<PathBuf>,
}

/// What `pcsearch data` does.
#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Download the published data sets into the data directory and verify every file (SHA-256
    /// and format); files already there and valid are kept without a download.
    ///
    /// Example: pcsearch data fetch
    Fetch(FetchArgs),
}

/// Arguments of `data fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    #[command(flatten)]
    pub data: DataDirArg,
    /// Install from a local archive (zip or tar.gz) or directory instead of downloading.
    #[arg(long, value_name = "ARCHIVE|DIR")]
    pub from: Option<PathBuf>,
    /// Download a source from another address, e.g. `ktt-paper=https://mirror/data.zip` (an
    /// address ending in .zip, .tar.gz or .tgz is read as an archive).
    #[arg(long, value_name = "SOURCE=URL")]
    pub url: Vec<String>,
}

/// Where recorded data is looked for.
#[derive(Debug, Args, Clone, Default)]
pub struct DataDirArg {
    /// Data directory that names such as `paper:coulomb/680` refer to (default: $PCSEARCH_DATA,
    /// else ./replay_data, else ../shared/replay_data).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

/// Searchers that can be named on the command line (described in the searcher flags' help, as a
/// per-value description would switch `--help` to its long layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearcherKind {
    // Random search without replacement.
    Random,
    // Profile-based search (expert system + counters) with restarts: the default.
    Profile,
    // Profile-based search exactly as published.
    ProfilePaper,
    // The default before restarts, whatever the searcher knobs say: local search around the best
    // when nothing scores above zero, score scale 0.004, no restarts.
    ProfileLocal,
    // Kernel Tuner's basin hopping (local descent, random hops, Metropolis at T = 1).
    BasinHopping,
    // Kernel Tuner's dual annealing (scipy's generalised simulated annealing).
    DualAnnealing,
    // Kernel Tuner's genetic algorithm.
    Genetic,
    // Bayesian optimisation: Gaussian process and expected improvement.
    Bayesian,
    // Starchart's regression tree on runtimes (validation, training, then predicted order).
    Starchart,
}

impl SearcherKind {
    /// Name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            SearcherKind::Random => "random",
            SearcherKind::Profile => "profile",
            SearcherKind::ProfilePaper => "profile-paper",
            SearcherKind::ProfileLocal => "profile-local",
            SearcherKind::BasinHopping => "basin-hopping",
            SearcherKind::DualAnnealing => "dual-annealing",
            SearcherKind::Genetic => "genetic",
            SearcherKind::Bayesian => "bayesian",
            SearcherKind::Starchart => "starchart",
        }
    }

    /// Whether the searcher reads counters (the profile-based ones); the others need only runtimes.
    pub fn uses_counters(self) -> bool {
        matches!(
            self,
            SearcherKind::Profile | SearcherKind::ProfilePaper | SearcherKind::ProfileLocal
        )
    }
}

/// Output format of reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    // Aligned text for people.
    Table,
    // One JSON object with stable field names, for scripts.
    Json,
}

/// Which recorded space to read.
#[derive(Debug, Args)]
pub struct SpaceArgs {
    /// Recorded tuning space (KTT CSV, KTT JSON, Kernel Tuner cache or T4 results), or a name of
    /// the data directory such as `paper:coulomb/680`.
    #[arg(long)]
    pub space: PathBuf,
    #[command(flatten)]
    pub data: DataDirArg,
    /// Comma-separated columns to take as tuning parameters (default: every column that is not a known counter).
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<String>>,
}

/// How runs are repeated and reported.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Number of seeded runs.
    #[arg(long, default_value_t = 1000, value_parser = int_in(1, MAX_RUNS))]
    pub runs: usize,
    /// Master seed; every random choice of every run derives from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Give a run up after this many tests (default: twice the number of configurations).
    #[arg(long, value_parser = int_in(1, usize::MAX))]
    pub max_tests: Option<usize>,
    /// Report format: `table`, or `json` (one object with stable field names) for scripts.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write every run (searcher, space, seed, steps, time, best runtime after each test)
    /// to this file: CSV if it ends in .csv, JSON lines if in .jsonl.
    #[arg(long)]
    pub runs_out: Option<PathBuf>,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub time: TimeArgs,
}

/// The simulated cost of tests (replay's clock; see docs/comparing.md).
#[derive(Debug, Args)]
#[command(next_help_heading = "Replay clock (docs/comparing.md)")]
pub struct TimeArgs {
    /// Seconds to compile one configuration (files that record compilation times use theirs).
    #[arg(long, default_value_t = TimeModel::default().compile_s, allow_negative_numbers = true,
          value_parser = float_in(0.0, MAX_SECONDS))]
    pub compile_s: f64,
    /// Seconds each test spends besides compiling and running (buffer transfers, output check).
    #[arg(long, default_value_t = TimeModel::default().test_overhead_s, allow_negative_numbers = true,
          value_parser = float_in(0.0, MAX_SECONDS))]
    pub test_overhead_s: f64,
    /// Timed kernel runs per test.
    #[arg(long, default_value_t = TimeModel::default().runs_per_test, allow_negative_numbers = true,
          value_parser = float_in(0.0, 1e6))]
    pub runs_per_test: f64,
    /// Extra kernel replays per profiled test (one per counter pass).
    #[arg(long, default_value_t = TimeModel::default().profiling_passes, allow_negative_numbers = true,
          value_parser = float_in(0.0, 1e4))]
    pub profiling_passes: f64,
    /// Fixed seconds of profiler set-up per profiled test.
    #[arg(long, default_value_t = TimeModel::default().profiler_overhead_s, allow_negative_numbers = true,
          value_parser = float_in(0.0, MAX_SECONDS))]
    pub profiler_overhead_s: f64,
    /// Multiply every recorded kernel runtime by this in the clock (e.g. 64 for an all-pairs
    /// n-body on 8x the bodies); steps and reported runtimes do not change.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true,
          value_parser = float_in(1e-6, 1e6))]
    pub runtime_scale: f64,
    /// Ignore per-configuration compilation times recorded in the file and use --compile-s everywhere.
    #[arg(long)]
    pub ignore_recorded_overhead: bool,
    /// Fit the clock's constants to the per-test overheads of this KTT 2 JSON output instead.
    #[arg(long, conflicts_with_all = ["compile_s", "test_overhead_s", "runs_per_test", "profiling_passes", "profiler_overhead_s"])]
    pub clock_from: Option<PathBuf>,
}

impl TimeArgs {
    /// The clock these arguments describe, checked.
    pub fn model(&self) -> crate::Result<TimeModel> {
        let model = match &self.clock_from {
            Some(path) => {
                let mut m = ClockCalibration::from_ktt2_json(path)?.time_model(self.runtime_scale);
                m.use_recorded_overhead = !self.ignore_recorded_overhead;
                m
            }
            None => TimeModel {
                compile_s: self.compile_s,
                test_overhead_s: self.test_overhead_s,
                runs_per_test: self.runs_per_test,
                profiling_passes: self.profiling_passes,
                profiler_overhead_s: self.profiler_overhead_s,
                runtime_scale: self.runtime_scale,
                use_recorded_overhead: !self.ignore_recorded_overhead,
            },
        };
        model.validate()?;
        Ok(model)
    }
}

/// Which formulas to follow where the paper's text and the authors' implementation differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormulaArg {
    /// The authors' implementation (KTT's profile-based searcher).
    Implementation,
    /// The paper's printed formulas.
    Paper,
}

impl From<FormulaArg> for Formula {
    fn from(f: FormulaArg) -> Formula {
        match f {
            FormulaArg::Implementation => Formula::Implementation,
            FormulaArg::Paper => Formula::Paper,
        }
    }
}

/// Which counters take part in a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ZeroPolicyArg {
    /// Skip a counter that is zero for either configuration (the paper's PC_used).
    SkipZero,
    /// Include a counter whenever the two values do not both vanish (older implementation).
    NonzeroSum,
}

impl From<ZeroPolicyArg> for ZeroPolicy {
    fn from(z: ZeroPolicyArg) -> ZeroPolicy {
        match z {
            ZeroPolicyArg::SkipZero => ZeroPolicy::SkipZero,
            ZeroPolicyArg::NonzeroSum => ZeroPolicy::NonzeroSum,
        }
    }
}

/// Where the profile-based searcher's candidate counters come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CountersArg {
    // The recorded counters of the space itself (the paper's Table 5 experiment).
    Exact,
    // A counter model's predictions (`--model FILE`).
    Model,
}

/// Settings of the expert system and the profile-based searcher.
#[derive(Debug, Args)]
#[command(next_help_heading = "Profile-based searcher")]
pub struct ExpertArgs {
    /// Which counters score the candidates: the space's own recorded ones (`exact`, the default
    /// without `--model`) or a model's predictions (`model`, needs `--model`).
    #[arg(long, value_enum)]
    pub counters: Option<CountersArg>,
    /// Counter model (from `pcsearch train`) whose predictions score the candidates; without it the
    /// space's own recorded counters are used (exact counters).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// GPU that recorded the space (a key of the device table, e.g. 1070); default: from the file.
    #[arg(long)]
    pub gpu: Option<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Where the expert rules and the device table come from.
#[derive(Debug, Args, Clone)]
pub struct RulesArgs {
    /// Directory whose rules files replace the built-in `expert_rules/` ones of the same name.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra device table (TOML, as `expert_rules/devices.toml`) merged over the built-in one.
    #[arg(long)]
    pub devices: Option<PathBuf>,
}

/// Knobs of the expert system and the profile-based searcher, shared by replay and live tuning.
/// Those a user rarely touches are hidden from `--help` and documented with the experiments that
/// chose their defaults (docs/transfer.md, docs/inputs.md, docs/results.md).
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Profile-based searcher")]
pub struct SearchArgs {
    /// The kernel is compute-bound: react to instruction bottlenecks above 0.5 instead of 0.7.
    #[arg(long)]
    pub compute_bound: bool,
    /// Formulas where the paper and the authors' implementation differ.
    #[arg(hide = true, long, value_enum, default_value_t = FormulaArg::Implementation)]
    pub formula: FormulaArg,
    /// Which counters take part in a candidate's score.
    #[arg(hide = true, long, value_enum, default_value_t = ZeroPolicyArg::SkipZero)]
    pub zero_policy: ZeroPolicyArg,
    /// Smallest score treated as a real predicted change when mapping scores to weights (0: the
    /// paper's normalisation by the extreme scores alone; chosen by `pcsearch holdout`, see
    /// docs/transfer.md).
    #[arg(hide = true, long, default_value_t = SearchSettings::default_settings().score_scale, allow_negative_numbers = true, value_parser = float_in(0.0, 1.0))]
    pub score_scale: f64,
    /// Tuning parameters a neighbour of the best configuration may differ in, for the local search
    /// that takes over when no candidate scores above zero.
    #[arg(hide = true, long, default_value_t = 1, value_parser = int_in(0usize, 1_000))]
    pub radius: usize,
    /// Rounds without a new best after which the search profiles a fresh configuration and follows
    /// its counters, keeping everything tested (0: never restart; chosen by `pcsearch holdout`).
    #[arg(long, default_value_t = default_restart().map_or(0, |r| r.after), value_parser = int_in(0u32, 1_000))]
    pub restart_after: u32,
    /// How the rounds before each restart grow: `fixed`, or `luby` (1, 1, 2, 1, 1, 2, 4, … times
    /// --restart-after).
    #[arg(hide = true, long, value_enum, default_value_t = default_restart().map_or(RestartScheduleArg::Fixed, |r| r.schedule.into()))]
    pub restart_schedule: RestartScheduleArg,
    /// Where a restart starts: a `random` unexplored configuration, or a `distant` one (differing
    /// from the best in as many tuning parameters as possible).
    #[arg(hide = true, long, value_enum, default_value_t = default_restart().map_or(RestartPointArg::Random, |r| r.from.into()))]
    pub restart_from: RestartPointArg,
    /// Share of plain tests drawn by score among the nearest unexplored neighbours of the best
    /// configuration (0: all from the whole space; chosen by `pcsearch holdout`).
    #[arg(hide = true, long, default_value_t = SearchSettings::default_settings().guidance.near_share, value_parser = float_in(0.0, 1.0))]
    pub near_share: f64,
    /// Rounds without a new best before plain tests are drawn near the best (0: from the start).
    #[arg(hide = true, long, default_value_t = SearchSettings::default_settings().guidance.near_after, value_parser = int_in(0u32, 1_000))]
    pub near_after: u32,
    /// Trust in a model's prediction for a configuration outside its training range, per tuning
    /// parameter with a value the model never saw (1: trust fully; the default was chosen by
    /// leave-one-input-out on GEMM inputs, see docs/inputs.md).
    #[arg(hide = true, long, default_value_t = 0.5, value_parser = trust_in_unit_range)]
    pub extrapolation_trust: f64,
}

/// The restarts of the shipped default.
fn default_restart() -> Option<Restart> {
    SearchSettings::default_settings().guidance.restart
}

/// How the rounds before each restart grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RestartScheduleArg {
    /// The same number every time.
    Fixed,
    /// Luby's universal sequence.
    Luby,
}

impl From<RestartSchedule> for RestartScheduleArg {
    fn from(s: RestartSchedule) -> Self {
        match s {
            RestartSchedule::Fixed => RestartScheduleArg::Fixed,
            RestartSchedule::Luby => RestartScheduleArg::Luby,
        }
    }
}

impl From<RestartPoint> for RestartPointArg {
    fn from(p: RestartPoint) -> Self {
        match p {
            RestartPoint::Random => RestartPointArg::Random,
            RestartPoint::Distant => RestartPointArg::Distant,
        }
    }
}

/// Where a restart starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RestartPointArg {
    /// A random unexplored configuration.
    Random,
    /// An unexplored configuration far from the best.
    Distant,
}

/// Parses a trust in 0..=1.
fn trust_in_unit_range(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("`{text}` is not a number from 0 to 1")),
    }
}

impl SearchArgs {
    /// The searcher settings these arguments select.
    pub fn settings(&self) -> SearchSettings {
        let mut guidance = Guidance::local(self.radius);
        if self.restart_after > 0 {
            guidance.restart = Some(Restart {
                after: self.restart_after,
                schedule: match self.restart_schedule {
                    RestartScheduleArg::Fixed => RestartSchedule::Fixed,
                    RestartScheduleArg::Luby => RestartSchedule::Luby,
                },
                from: match self.restart_from {
                    RestartPointArg::Random => RestartPoint::Random,
                    RestartPointArg::Distant => RestartPoint::Distant,
                },
            });
        }
        SearchSettings {
            name: "profile".into(),
            guidance: guidance.with_near_share(self.near_share, self.near_after),
            score_scale: self.score_scale,
        }
    }
}

/// Arguments of `simulate`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pcsearch simulate --space paper:nbody/2080 --searcher profile")]
pub struct SimulateArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// The searcher to run: random; profile (the default profile-based searcher); profile-paper (as published); profile-local (the default before restarts); baselines from the field: basin-hopping, dual-annealing, genetic, bayesian, starchart (docs/baselines.md).
    #[arg(long, value_enum, default_value_t = SearcherKind::Random, hide_possible_values = true)]
    pub searcher: SearcherKind,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub expert: ExpertArgs,
}

/// Several recorded spaces and the searchers to run on each.
#[derive(Debug, Args)]
pub struct SpacesArgs {
    /// Recorded tuning spaces (KTT CSV, KTT JSON, Kernel Tuner cache or T4 results), or names of
    /// the data directory: `all`, `paper:all`, `paper:mtran`, `paper:coulomb/680`, `ktt2:all`.
    #[arg(long, num_args = 1.., required = true)]
    pub space: Vec<PathBuf>,
    #[command(flatten)]
    pub data: DataDirArg,
    /// Comma-separated columns to take as tuning parameters (default: every column that is not a known counter).
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<String>>,
    /// Comma-separated searchers, improvements relative to the first: random; profile (the default profile-based searcher); profile-paper (as published); profile-local (the default before restarts); baselines from the field: basin-hopping, dual-annealing, genetic, bayesian, starchart (docs/baselines.md).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "random,profile-paper,profile",
        hide_possible_values = true
    )]
    pub searchers: Vec<SearcherKind>,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pcsearch compare --space paper:all --runs 1000 --plot plots/")]
pub struct CompareArgs {
    #[command(flatten)]
    pub spaces: SpacesArgs,
    /// Write SVG plots into this directory: per space convergence in tests and in time and the
    /// distribution of steps, and the summary score's curves.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub expert: ExpertArgs,
}

/// Arguments of `explain`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example: pcsearch explain --space paper:coulomb/680 --config WORK_GROUP_SIZE_X=16,WORK_GROUP_SIZE_Y=4,WORK_GROUP_SIZE_Z=1,Z_ITERATIONS=1,INNER_UNROLL_FACTOR=0,USE_SOA=0,USE_CONSTANT_MEMORY=0,VECTOR_SIZE=1"
)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// The configuration, as `NAME=V,NAME=V,…` (every tuning parameter).
    #[arg(long)]
    pub config: String,
    /// How many best-scored candidates to list.
    #[arg(long, default_value_t = 10, value_parser = int_in(0, usize::MAX))]
    pub top: usize,
    /// Report format: `table`, or `json` (one object with stable field names) for scripts.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub expert: ExpertArgs,
}

/// How a model's tree is chosen (see docs/models.md, "How a tree is chosen").
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SelectionArg {
    // Depth with the lowest mean held-out MAE over all splits, refitted on all data.
    Refit,
    // The paper's rule: the single candidate tree with the lowest held-out MAE.
    BestCandidate,
}

/// Arguments of `train`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example: pcsearch train --space paper:coulomb/1070 --out models/coulomb-1070.json"
)]
pub struct TrainArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// Model file to write (JSON); an existing file is replaced only with --force.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// GPU the space was recorded on, as a device-table key (default: from the file's metadata or name).
    #[arg(long)]
    pub gpu: Option<String>,
    /// Seed of the train/test splits; equal seeds give identical models.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random 50/50 train/test splits evaluated per depth.
    #[arg(long, default_value_t = 10, value_parser = int_in(1, MAX_SPLITS))]
    pub splits: usize,
    /// Comma-separated maximum tree depths to try.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
        value_parser = int_in(1, MAX_DEPTH)
    )]
    pub depths: Vec<u16>,
    /// How the stored tree is chosen: `refit` (the depth with the lowest mean held-out error over
    /// all splits, refitted on all data) or `best-candidate` (the paper's rule: the single
    /// candidate tree with the lowest held-out error).
    #[arg(long, value_enum, default_value_t = SelectionArg::Refit)]
    pub selection: SelectionArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub rules: RulesArgs,
}

/// What live commands share: the kernel, the GPU and the journal.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Kernel description file (TOML; see the README, "Tuning on your GPU").
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
#[command(
    after_help = "Example: pcsearch tune --kernel examples/transpose/transpose.toml --searcher profile --model models/mtran-1070.json --budget 50"
)]
pub struct TuneArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    /// The searcher: random; profile (the default profile-based searcher); profile-paper (as published); profile-local (the default before restarts); baselines from the field: basin-hopping, dual-annealing, genetic, bayesian, starchart (docs/baselines.md).
    #[arg(long, value_enum, default_value_t = SearcherKind::Random, hide_possible_values = true)]
    pub searcher: SearcherKind,
    /// Counter model for the profile-based searcher (models/NAME.json).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Seed of the searcher's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop after this many tests.
    #[arg(long, value_parser = int_in(1, usize::MAX))]
    pub budget: Option<usize>,
    /// Stop after this many seconds of testing.
    #[arg(long, allow_negative_numbers = true, value_parser = float_in(0.0, 1e7))]
    pub time: Option<f64>,
    #[command(flatten)]
    pub results: ResultFilesArgs,
}

/// Arguments of `record`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example: pcsearch record --kernel examples/transpose/transpose.toml --out transpose_output.csv"
)]
pub struct RecordArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Where to write the replay data (KTT CSV, readable by `simulate --space`).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub results: ResultFilesArgs,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `matrix`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pcsearch matrix --space paper:mtran")]
pub struct MatrixArgs {
    /// The same benchmark recorded on several GPUs or inputs, one file per space.
    #[command(flatten)]
    pub spaces: SpacesArgs,
    /// Seed of model training.
    #[arg(long, default_value_t = 1)]
    pub train_seed: u64,
    /// Write SVG plots into this directory: per cell convergence in tests and in time and the
    /// distribution of steps, and the summary score's curves.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Comma-separated names of the spaces in the tables, in the order of --space (default: the
    /// GPU, the input from the file's metadata or name, or both, whichever tells them apart).
    #[arg(long, value_delimiter = ',')]
    pub label: Option<Vec<String>>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub expert: MatrixExpertArgs,
}

/// The expert settings of `matrix`, which trains its own models and reads each file's GPU.
#[derive(Debug, Args)]
#[command(next_help_heading = "Profile-based searcher")]
pub struct MatrixExpertArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

impl MatrixExpertArgs {
    /// The same settings as the other replay commands take them, without a model or GPU.
    pub fn expert_args(&self) -> ExpertArgs {
        ExpertArgs {
            counters: None,
            model: None,
            gpu: None,
            rules: self.rules.clone(),
            search: self.search.clone(),
        }
    }
}

/// Arguments of `holdout`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example: pcsearch holdout --space paper:coulomb paper:mtran paper:nbody --runs 1000 --seeds 1,2,3"
)]
pub struct HoldoutArgs {
    /// Recorded spaces, or names of the data directory such as `paper:nbody`. Files with the same
    /// tuning parameters form one benchmark, named after the folder of its first file; each file
    /// is tuned with its own counters and with a model trained on each file of its benchmark.
    #[arg(long, num_args = 1.., required = true)]
    pub space: Vec<PathBuf>,
    /// Spaces tuned only with their own counters: no model is trained on them or used for them.
    #[arg(long, num_args = 1..)]
    pub exact_only: Vec<PathBuf>,
    #[command(flatten)]
    pub data: DataDirArg,
    /// Comma-separated columns to take as tuning parameters (default: every column that is not a known counter).
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<String>>,
    /// Comma-separated candidate settings to weigh (`default` is the shipped default; default: the
    /// whole grid of `docs/transfer.md`).
    #[arg(long, value_delimiter = ',')]
    pub candidates: Option<Vec<String>>,
    /// Seeded runs per cell and seed.
    #[arg(long, default_value_t = 300, value_parser = int_in(1, MAX_RUNS))]
    pub runs: usize,
    /// Comma-separated master seeds; every cell runs under each.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub seeds: Vec<u64>,
    /// Seed of model training.
    #[arg(long, default_value_t = 1)]
    pub train_seed: u64,
    /// Report format: `table`, or `json` for scripts.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub rules: RulesArgs,
}
