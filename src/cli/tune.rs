//! `pcsearch tune`: live tuning of a kernel description on this machine's GPU.

use super::args::{SearchArgs, SearcherKind, TuneArgs};
use super::check::check_model;
use super::export::write_result_files;
use super::record;
use super::setup::{model_predictions, profile_setup, runtime_only_factory};
use crate::backend::cuda::{libs, CudaBackend, DetailsSlot, TestDetails};
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::journal::{self, Journal, JournalEntry, JournalHeader};
use crate::kernel::validate::validate;
use crate::kernel::KernelDescription;
use crate::model::CounterModel;
use crate::rules::Rules;
use crate::search::profile::ProfileSearch;
use crate::search::Searcher;
use crate::space::TuningSpace;
use crate::tuning::{self, History, Step, StopRule};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Builds the searcher of a live run from the space, its launch sizes (global size of each
/// configuration, NaN where it cannot launch), the device and the seed.
///
/// The profile-based searcher needs a model: on a live GPU no other configuration's counters are
/// known, so the model's predictions stand in for them (paper §3.6).
#[allow(clippy::too_many_arguments)] // one call site each in tune and its tests
pub fn build_searcher(
    kind: SearcherKind,
    model: Option<&Path>,
    space: &TuningSpace,
    launch_sizes: &[f64],
    device: &DeviceInfo,
    rules: &Rules,
    search: &SearchArgs,
    seed: u64,
) -> Result<Box<dyn Searcher>> {
    if let Some(factory) = runtime_only_factory(kind, space) {
        if model.is_some() {
            return Err(Error::invalid("--model applies only to --searcher profile"));
        }
        return Ok(factory.build(seed));
    }
    // The profile-based searchers.
    let path = model.ok_or_else(|| {
        Error::invalid(
            "--searcher profile needs --model FILE (a model from `pcsearch train`, e.g. models/coulomb-1070.json)",
        )
    })?;
    let model = CounterModel::load(path)?;
    model.check_space(space)?;
    let predictions = model_predictions(&model, space, launch_sizes, kind, search)?;
    let setup = profile_setup(
        kind,
        predictions,
        model.generation(),
        device.clone(),
        rules,
        search,
        space,
    );
    Ok(Box::new(ProfileSearch::new(Arc::new(setup), seed)))
}

/// The stop rule of `--budget` and `--time`.
pub fn stop_rule(budget: Option<usize>, time: Option<f64>) -> Result<StopRule> {
    if budget == Some(0) {
        return Err(Error::invalid("--budget must be at least 1"));
    }
    if time.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err(Error::invalid(
            "--time must be a positive number of seconds",
        ));
    }
    Ok(StopRule {
        target_runtime_us: None,
        max_tests: budget,
        max_time_s: time,
    })
}

/// Default journal of a tuning run: `<kernel stem>-<searcher>-seed<seed>.journal.jsonl` in the
/// current directory.
pub fn default_journal(kernel: &Path, searcher: &str, seed: u64) -> PathBuf {
    let stem = kernel
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("kernel");
    PathBuf::from(format!("{stem}-{searcher}-seed{seed}.journal.jsonl"))
}

/// A journal opened for a run, with the steps of an earlier interrupted run when resuming.
pub struct OpenJournal {
    /// The journal.
    pub journal: Journal,
    /// Steps recorded so far.
    pub steps: Vec<Step>,
    /// Entries recorded so far.
    pub entries: Vec<JournalEntry>,
}

/// Creates the journal, or with `resume` reopens it and loads its steps.
pub fn open_journal(
    path: &Path,
    header: &JournalHeader,
    resume: bool,
    space: &TuningSpace,
) -> Result<OpenJournal> {
    if !resume {
        return Ok(OpenJournal {
            journal: Journal::create(path, header)?,
            steps: Vec::new(),
            entries: Vec::new(),
        });
    }
    if !path.exists() {
        return Err(Error::file(
            path,
            "no journal to resume: run once without --resume",
        ));
    }
    let resumed = Journal::resume(path, header)?;
    for w in &resumed.warnings {
        eprintln!("warning: {w}");
    }
    let steps = journal::steps(path, space, &resumed.entries)?;
    Ok(OpenJournal {
        journal: resumed.journal,
        steps,
        entries: resumed.entries,
    })
}

/// The journal entry of a fresh step, with the backend's details.
pub fn entry(space: &TuningSpace, step: &Step, details: Option<TestDetails>) -> JournalEntry {
    let mut e = JournalEntry::from_step(space, step);
    if let Some(d) = details {
        e.metrics = d
            .metrics
            .into_iter()
            .filter(|(_, v)| v.is_finite())
            .collect();
        e.compiler_log = d.compiler_log;
        e.global_size = d.geometry.map(|g| g.global_size() as f64);
        e.local_size = d.geometry.map(|g| g.local_size() as f64);
        e.counters_unavailable = d.counters_unavailable;
        e.target = d.target;
        e.compile_s = d.phases.compile_s;
        e.run_s = d.phases.run_s;
        e.profile_s = d.phases.profile_s;
    }
    e
}

/// A progress bar over `len` tests.
pub fn progress(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} tests  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
    bar.set_style(style);
    bar
}

/// `best 412.3 µs` for the progress bar.
pub fn best_message(best: Option<f64>) -> String {
    best.map_or_else(
        || "no valid configuration yet".into(),
        |t| format!("best {t:.1} µs"),
    )
}

/// The closing summary of a run.
pub fn summary(history: &History, space: &TuningSpace, resumed: usize) -> String {
    let tests = history.steps.len();
    let failed = history
        .steps
        .iter()
        .filter(|s| s.measurement.runtime_us.is_none())
        .count();
    let profiled = history.steps.iter().filter(|s| s.profiled).count();
    let elapsed = history.steps.last().map_or(0.0, |s| s.elapsed_s);
    let mut out = format!(
        "tested {tests} configurations ({failed} failed, {profiled} profiled) in {elapsed:.1} s"
    );
    if resumed > 0 {
        out.push_str(&format!("; {resumed} replayed from the journal"));
    }
    out.push('\n');
    match history.best() {
        Some(best) => out.push_str(&format!(
            "best: {:.1} µs  {}\n",
            best.measurement.runtime_us.unwrap_or(f64::NAN),
            space.describe(best.config)
        )),
        None => out.push_str("best: none (every tested configuration failed)\n"),
    }
    out
}

/// Where the time of the journaled tests went: mean seconds per test of compilation, runs and
/// counter collection, or `None` for an empty journal.
pub fn phase_costs(entries: &[JournalEntry]) -> Option<String> {
    let n = entries.len();
    if n == 0 {
        return None;
    }
    let mean = |f: fn(&JournalEntry) -> f64| entries.iter().map(f).sum::<f64>() / n as f64;
    let profiled: Vec<&JournalEntry> = entries.iter().filter(|e| e.profile_s > 0.0).collect();
    let mut out = format!(
        "time per test (mean of {n}): compile {:.3} s, runs {:.3} s, total {:.3} s",
        mean(|e| e.compile_s),
        mean(|e| e.run_s),
        mean(|e| e.cost_s)
    );
    if !profiled.is_empty() {
        let p = profiled.iter().map(|e| e.profile_s).sum::<f64>() / profiled.len() as f64;
        out.push_str(&format!(
            "; counter collection {p:.3} s per profiled test ({} profiled)",
            profiled.len()
        ));
    }
    Some(out)
}

/// Runs the tuning loop with journaling and a progress bar; shared by `tune` and `record`.
pub fn run_live(
    backend: &mut CudaBackend,
    searcher: &mut dyn Searcher,
    stop: &StopRule,
    open: &mut OpenJournal,
    bar: &ProgressBar,
) -> Result<History> {
    let space = tuning_space(backend);
    let details: DetailsSlot = backend.details();
    let mut best: Option<f64> = None;
    let journal = &mut open.journal;
    let entries = &mut open.entries;
    let history = tuning::tune(backend, searcher, stop, &open.steps, &mut |step| {
        let e = entry(&space, step, details.borrow_mut().take());
        journal.append(&e)?;
        entries.push(e);
        if let Some(t) = step.measurement.runtime_us {
            best = Some(best.map_or(t, |b: f64| b.min(t)));
        }
        bar.inc(1);
        bar.set_message(best_message(best));
        Ok(())
    });
    bar.finish_and_clear();
    history
}

fn tuning_space(backend: &CudaBackend) -> TuningSpace {
    use crate::backend::Backend;
    backend.space().clone()
}

/// `pcsearch tune`.
pub fn tune(args: &TuneArgs) -> Result<()> {
    // Everything that can be checked without a GPU is checked before looking for the driver.
    let stop = stop_rule(args.budget, args.time)?;
    let desc = KernelDescription::load(&args.live.kernel)?;
    let space = validate(&desc)?.space;
    match (args.searcher, &args.model) {
        (SearcherKind::Random, Some(_)) => {
            return Err(Error::invalid("--model applies only to --searcher profile"))
        }
        (SearcherKind::Random, None) => {}
        (_, None) => {
            return Err(Error::invalid(
                "--searcher profile needs --model FILE (a model from `pcsearch train`, e.g. models/coulomb-1070.json)",
            ))
        }
        (_, Some(path)) => {
            check_model(path, &space)?;
        }
    }
    libs::require_driver()?;
    let rules = Rules::builtin()?;
    let header = JournalHeader::new(
        &args.live.kernel,
        &desc.fingerprint()?,
        args.seed,
        args.searcher.name(),
        &space,
    );
    let mut backend = CudaBackend::open(
        desc.clone(),
        space.clone(),
        args.live.gpu_index,
        rules.clone(),
    )?;
    if args.searcher.uses_counters() {
        // Without counters the profile-based searcher could only re-profile its best configuration
        // round after round; say so before spending any test.
        if let Err(reason) = backend.enable_profiling() {
            return Err(Error::Device(format!(
                "the profile-based searcher needs hardware counters, which are unavailable ({reason}); use --searcher random"
            )));
        }
    }
    let facts = backend.facts().clone();
    let device =
        rules
            .devices
            .from_facts(&facts.name, facts.compute_capability, facts.multiprocessors);
    // Only the profile-based searcher scores launch sizes; evaluating them costs an expression
    // evaluation per configuration.
    let launch_sizes: Vec<f64> = if args.searcher == SearcherKind::Random {
        Vec::new()
    } else {
        space
            .configs()
            .map(|c| {
                desc.launch
                    .evaluate(&desc.scope(c), &facts.limits)
                    .map_or(f64::NAN, |g| g.global_size() as f64)
            })
            .collect()
    };
    let mut searcher = build_searcher(
        args.searcher,
        args.model.as_deref(),
        &space,
        &launch_sizes,
        &device,
        &rules,
        &args.search,
        args.seed,
    )?;
    let path = args
        .live
        .journal
        .clone()
        .unwrap_or_else(|| default_journal(&args.live.kernel, args.searcher.name(), args.seed));
    let mut header = header;
    header.device = Some(facts.name.clone());
    let mut open = open_journal(&path, &header, args.live.resume, &space)?;
    let resumed = open.steps.len();
    crate::outln!("pcsearch tune: kernel {} on {}", desc.name, facts.summary());
    crate::outln!(
        "space: {} configurations of {} parameters; searcher {}, seed {}; journal {}",
        space.len(),
        space.parameters().len(),
        args.searcher.name(),
        args.seed,
        path.display()
    );
    let len = stop.max_tests.unwrap_or(space.len()).min(space.len()) as u64;
    let bar = progress(len);
    // Replayed tests do not pass through the journal callback: start the bar where they end.
    bar.set_position(resumed.min(len as usize) as u64);
    let history = run_live(&mut backend, searcher.as_mut(), &stop, &mut open, &bar)?;
    crate::out!(
        "{}",
        summary(&history, &space, resumed.min(history.steps.len()))
    );
    if let Some(costs) = phase_costs(&open.entries[resumed.min(open.entries.len())..]) {
        crate::outln!("{costs}");
    }
    if args.results.t4.is_some() || args.results.kernel_tuner.is_some() {
        let out = args
            .results
            .t4
            .as_ref()
            .or(args.results.kernel_tuner.as_ref());
        let (data, _) = record::dataset(
            &desc.name,
            Some(facts.name.clone()),
            &space,
            &open.entries,
            out.map_or(Path::new("results"), PathBuf::as_path),
        )?;
        write_result_files(&record::measured_only(&data), &args.results)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Measurement;

    fn space() -> TuningSpace {
        let mut s = TuningSpace::new(vec!["TILE".into(), "WPT".into()]);
        for t in [16.0, 32.0] {
            for w in [1.0, 2.0] {
                s.push(&[t, w]).unwrap();
            }
        }
        s
    }

    #[test]
    fn budget_and_time_become_the_stop_rule() {
        let s = stop_rule(Some(50), Some(120.0)).unwrap();
        assert_eq!(
            (s.max_tests, s.max_time_s, s.target_runtime_us),
            (Some(50), Some(120.0), None)
        );
        assert_eq!(stop_rule(None, None).unwrap(), StopRule::default());
        assert!(stop_rule(Some(0), None)
            .unwrap_err()
            .to_string()
            .contains("--budget"));
        assert!(stop_rule(None, Some(-1.0))
            .unwrap_err()
            .to_string()
            .contains("--time"));
    }

    fn search_args() -> SearchArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            search: SearchArgs,
        }
        Wrapper::parse_from(["pcsearch"]).search
    }

    #[test]
    fn random_is_built_and_profile_needs_a_model_of_this_space() {
        let rules = Rules::builtin().unwrap();
        let device = rules.devices.from_facts("NVIDIA GeForce RTX 3090", 8.6, 82);
        let build = |kind, model: Option<&str>| {
            build_searcher(
                kind,
                model.map(Path::new),
                &space(),
                &[],
                &device,
                &rules,
                &search_args(),
                3,
            )
        };
        let mut s = build(SearcherKind::Random, None).unwrap();
        assert!(s.next().is_some());
        let e = build(SearcherKind::Profile, None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("needs --model"), "{e}");
        let e = build(SearcherKind::Profile, Some("no/such/model.json"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no/such/model.json"), "{e}");
        let e = build(SearcherKind::Random, Some("m.json"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--model applies only"), "{e}");
    }

    #[test]
    fn default_journal_names_kernel_searcher_and_seed() {
        assert_eq!(
            default_journal(Path::new("examples/coulomb/coulomb.toml"), "random", 7),
            PathBuf::from("coulomb-random-seed7.journal.jsonl")
        );
    }

    #[test]
    fn summary_reports_counts_and_best() {
        let sp = space();
        let ok = |config, t: f64, elapsed| Step {
            config,
            profiled: false,
            measurement: Measurement {
                runtime_us: Some(t),
                counters: None,
                failure: None,
                cost_s: 1.0,
            },
            elapsed_s: elapsed,
        };
        let history = History {
            steps: vec![
                ok(0, 50.0, 1.0),
                Step {
                    config: 1,
                    profiled: false,
                    measurement: Measurement::failed("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", 0.5),
                    elapsed_s: 1.5,
                },
                ok(3, 41.25, 2.5),
            ],
        };
        assert_eq!(
            summary(&history, &sp, 1),
            "tested 3 configurations (1 failed, 0 profiled) in 2.5 s; 1 replayed from the journal\nbest: 41.2 µs  TILE=32,WPT=2\n"
        );
    }

    #[test]
    fn entries_carry_metrics_log_and_geometry() {
        let sp = space();
        let step = Step {
            config: 2,
            profiled: true,
            measurement: Measurement::failed("compilation failed (see compiler_log)", 0.3),
            elapsed_s: 0.3,
        };
        let details = TestDetails {
            metrics: vec![
                ("dram__sectors_read.sum".into(), 7.0),
                ("x.sum".into(), f64::NAN),
            ],
            compiler_log: Some("error: identifier \"TILEX\" is undefined".into()),
            geometry: Some(crate::kernel::LaunchGeometry {
                grid: [4, 4, 1],
                block: [32, 8, 1],
                shared_memory_bytes: 0,
            }),
            counters_unavailable: None,
            target: Some("sm_90".into()),
            phases: crate::backend::cuda::Phases {
                compile_s: 0.25,
                run_s: 0.0,
                profile_s: 0.0,
            },
        };
        let e = entry(&sp, &step, Some(details));
        assert_eq!(e.target.as_deref(), Some("sm_90"));
        assert_eq!(e.compile_s, 0.25);
        assert_eq!(e.metrics.len(), 1);
        assert_eq!(e.global_size, Some(4096.0));
        assert_eq!(e.local_size, Some(256.0));
        assert!(e.compiler_log.unwrap().contains("TILEX"));
    }

    #[test]
    fn phase_costs_average_over_tests_and_profiles_over_profiled_ones() {
        let sp = space();
        let step = |profiled| Step {
            config: 1,
            profiled,
            measurement: Measurement {
                runtime_us: Some(12.5),
                counters: None,
                failure: None,
                cost_s: 1.0,
            },
            elapsed_s: 1.0,
        };
        let mut plain = JournalEntry::from_step(&sp, &step(false));
        plain.compile_s = 0.25;
        plain.run_s = 0.5;
        let mut profiled = JournalEntry::from_step(&sp, &step(true));
        profiled.compile_s = 0.75;
        profiled.run_s = 0.25;
        profiled.profile_s = 2.0;
        assert_eq!(phase_costs(&[]), None);
        assert_eq!(
            phase_costs(&[plain, profiled]).unwrap(),
            "time per test (mean of 2): compile 0.500 s, runs 0.375 s, total 1.000 s; counter collection 2.000 s per profiled test (1 profiled)"
        );
    }

    #[test]
    fn a_profiled_test_without_counters_keeps_its_runtime_and_the_reason() {
        let sp = space();
        let step = Step {
            config: 1,
            profiled: true,
            measurement: Measurement {
                runtime_us: Some(12.5),
                counters: None,
                failure: None,
                cost_s: 0.2,
            },
            elapsed_s: 0.2,
        };
        let details = TestDetails {
            counters_unavailable: Some("the CUPTI library (libcupti.so) was not found".into()),
            ..TestDetails::default()
        };
        let e = entry(&sp, &step, Some(details));
        assert_eq!(e.runtime_us, Some(12.5));
        assert_eq!(e.failure, None);
        assert!(e.counters_unavailable.unwrap().contains("libcupti.so"));
    }
}
