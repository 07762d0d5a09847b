//! Argument groups shared by the commands.

use crate::backend::TimeModel;
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
}

/// Searchers that can be named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearcherKind {
    /// Random search without replacement.
    Random,
    /// Profile-based search (expert system + counters) with restarts: the default.
    Profile,
    /// Profile-based search exactly as published.
    ProfilePaper,
    /// The default before restarts, whatever the searcher knobs say: local search around the best
    /// when nothing scores above zero, score scale 0.004, no restarts.
    ProfileLocal,
}

impl SearcherKind {
    /// Name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            SearcherKind::Random => "random",
            SearcherKind::Profile => "profile",
            SearcherKind::ProfilePaper => "profile-paper",
            SearcherKind::ProfileLocal => "profile-local",
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
    /// Recorded tuning space (KTT CSV, KTT JSON, Kernel Tuner cache or T4 results).
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
    /// The recorded counters of the space itself (the paper's Table 5 experiment).
    Exact,
    /// A counter model's predictions (`--model FILE`).
    Model,
}

/// Settings of the expert system and the profile-based searcher.
#[derive(Debug, Args)]
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
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Directory whose rules files replace the built-in `expert_rules/` ones of the same name.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra device table (TOML, as `expert_rules/devices.toml`) merged over the built-in one.
    #[arg(long)]
    pub devices: Option<PathBuf>,
}

/// Knobs of the expert system and the profile-based searcher, shared by replay and live tuning.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The kernel is compute-bound: react to instruction bottlenecks above 0.5 instead of 0.7.
    #[arg(long)]
    pub compute_bound: bool,
    /// Formulas where the paper and the authors' implementation differ.
    #[arg(long, value_enum, default_value_t = FormulaArg::Implementation)]
    pub formula: FormulaArg,
    /// Which counters take part in a candidate's score.
    #[arg(long, value_enum, default_value_t = ZeroPolicyArg::SkipZero)]
    pub zero_policy: ZeroPolicyArg,
    /// Smallest score treated as a real predicted change when mapping scores to weights (0: the
    /// paper's normalisation by the extreme scores alone; chosen by `pcsearch holdout`, see
    /// docs/transfer.md).
    #[arg(long, default_value_t = SearchSettings::default_settings().score_scale)]
    pub score_scale: f64,
    /// Tuning parameters a neighbour of the best configuration may differ in, for the local search
    /// that takes over when no candidate scores above zero.
    #[arg(long, default_value_t = 1)]
    pub radius: usize,
    /// Rounds without a new best after which the search profiles a fresh configuration and follows
    /// its counters, keeping everything tested (0: never restart; chosen by `pcsearch holdout`).
    #[arg(long, default_value_t = default_restart().map_or(0, |r| r.after))]
    pub restart_after: u32,
    /// How the rounds before each restart grow: `fixed`, or `luby` (1, 1, 2, 1, 1, 2, 4, … times
    /// --restart-after).
    #[arg(long, value_enum, default_value_t = RestartScheduleArg::Fixed)]
    pub restart_schedule: RestartScheduleArg,
    /// Where a restart starts: a `random` unexplored configuration, or a `distant` one (differing
    /// from the best in as many tuning parameters as possible).
    #[arg(long, value_enum, default_value_t = RestartPointArg::Random)]
    pub restart_from: RestartPointArg,
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

/// Where a restart starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RestartPointArg {
    /// A random unexplored configuration.
    Random,
    /// An unexplored configuration far from the best.
    Distant,
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
            guidance,
            score_scale: self.score_scale,
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
    #[command(flatten)]
    pub expert: ExpertArgs,
}

/// Several recorded spaces and the searchers to run on each.
#[derive(Debug, Args)]
pub struct SpacesArgs {
    /// Recorded tuning spaces (KTT CSV, KTT JSON, Kernel Tuner cache or T4 results).
    #[arg(long, num_args = 1.., required = true)]
    pub space: Vec<PathBuf>,
    /// Comma-separated columns to take as tuning parameters (default: every column that is not a known counter).
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<String>>,
    /// Comma-separated searchers; improvements are relative to the first.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "random,profile-paper,profile"
    )]
    pub searchers: Vec<SearcherKind>,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub spaces: SpacesArgs,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub expert: ExpertArgs,
}

/// Arguments of `explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub space: SpaceArgs,
    /// The configuration, as `NAME=V,NAME=V,…` (every tuning parameter).
    #[arg(long)]
    pub config: String,
    /// How many best-scored candidates to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub expert: ExpertArgs,
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
pub struct TuneArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub search: SearchArgs,
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

/// Arguments of `matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// The same benchmark recorded on several GPUs, one file per GPU.
    #[command(flatten)]
    pub spaces: SpacesArgs,
    /// Seed of model training.
    #[arg(long, default_value_t = 1)]
    pub train_seed: u64,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub expert: ExpertArgs,
}

/// Arguments of `holdout`.
#[derive(Debug, Args)]
pub struct HoldoutArgs {
    /// Recorded spaces. Files with the same tuning parameters form one benchmark, named after the
    /// folder of its first file; each file is tuned with its own counters and with a model trained
    /// on each file of its benchmark.
    #[arg(long, num_args = 1.., required = true)]
    pub space: Vec<PathBuf>,
    /// Spaces tuned only with their own counters: no model is trained on them or used for them.
    #[arg(long, num_args = 1..)]
    pub exact_only: Vec<PathBuf>,
    /// Comma-separated columns to take as tuning parameters (default: every column that is not a known counter).
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<String>>,
    /// Comma-separated candidate settings to weigh (`default` is the shipped default; default: the
    /// whole grid of `docs/transfer.md`).
    #[arg(long, value_delimiter = ',')]
    pub candidates: Option<Vec<String>>,
    /// Seeded runs per cell and seed.
    #[arg(long, default_value_t = 300)]
    pub runs: usize,
    /// Comma-separated master seeds; every cell runs under each.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub seeds: Vec<u64>,
    /// Seed of model training.
    #[arg(long, default_value_t = 1)]
    pub train_seed: u64,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub rules: RulesArgs,
}
