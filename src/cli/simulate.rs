//! `simulate` and `compare`: repeated seeded searches on recorded data.

use super::args::{
    CompareArgs, DataDirArg, ExpertArgs, Format, RunArgs, SearcherKind, SimulateArgs, SpaceArgs,
    SpacesArgs,
};
use super::setup::{load_model, searcher_factory};
use crate::data::{self, Dataset, ReadOptions};
use crate::datadir::{names, Lookup};
use crate::error::{Error, Result};
use crate::experiment::{
    self, plot_dir, plot_space, plot_summary, print_comparison, print_simulation, print_summary,
    progress_bar, short_name, summary_scores, Horizon, Repetition, RunTrace, RunsContext,
    RunsWriter, SearcherOutcome, SpaceFacts, SpaceSetup, StepStats,
};
use crate::model::CounterModel;
use crate::search::starchart;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reads one recorded space, taking `parameters` (when given) as its tuning parameters.
pub fn load_dataset(path: &Path, parameters: &Option<Vec<String>>) -> Result<Arc<Dataset>> {
    let options = ReadOptions {
        parameters: parameters.clone(),
    };
    let dataset = data::load(path, &options)?;
    for w in &dataset.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(Arc::new(dataset))
}

/// Reads the space named by `args`: a file, or a name of the data directory that stands for one.
pub fn load_space(args: &SpaceArgs) -> Result<Arc<Dataset>> {
    let lookup = Lookup::from_env(args.data.data_dir.as_deref());
    let mut files = names::expand(&args.space, &lookup)?;
    if files.len() > 1 {
        return Err(Error::invalid(format!(
            "`{}` stands for {} files, but this command reads one: name one of them, e.g. {}",
            args.space.display(),
            files.len(),
            files[0].display()
        )));
    }
    load_dataset(&files.remove(0), &args.parameters)
}

/// The files that `specs` (files or data-directory names such as `paper:mtran`) stand for, in order.
pub fn expand_spaces(specs: &[PathBuf], data: &DataDirArg) -> Result<Vec<PathBuf>> {
    let lookup = Lookup::from_env(data.data_dir.as_deref());
    let mut files = Vec::new();
    for spec in specs {
        files.extend(names::expand(spec, &lookup)?);
    }
    Ok(files)
}

/// Reads every space named by `args` (files or data-directory names), failing on the first bad
/// file before any search runs.
pub fn load_spaces(args: &SpacesArgs) -> Result<Vec<Arc<Dataset>>> {
    expand_spaces(&args.space, &args.data)?
        .iter()
        .map(|path| load_dataset(path, &args.parameters))
        .collect()
}

/// The repetition settings of `run`, with its clock checked.
pub fn repetition(run: &RunArgs) -> Result<Repetition> {
    Ok(Repetition {
        runs: run.runs,
        seed: run.seed,
        time_model: run.time.model()?,
        max_tests: run.max_tests,
    })
}

/// Runs searcher `kind` on `dataset` to `horizon`, advancing `bar` per run.
pub fn run_traced(
    kind: SearcherKind,
    dataset: &Arc<Dataset>,
    rep: &Repetition,
    expert: &ExpertArgs,
    model: Option<&CounterModel>,
    horizon: Horizon,
    bar: &ProgressBar,
) -> Result<Vec<RunTrace>> {
    let prepared = searcher_factory(kind, dataset, expert, model)?;
    experiment::repeat_traced(
        dataset,
        prepared.counters,
        prepared.factory.as_ref(),
        rep,
        horizon,
        Some(bar),
    )
}

/// A name for each space's plots, unique among `files` (the file's stem, numbered on a clash).
pub fn plot_stems(files: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashMap::new();
    files
        .iter()
        .map(|f| {
            let stem = short_name(f);
            let n = seen.entry(stem.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                stem
            } else {
                format!("{stem}-{n}")
            }
        })
        .collect()
}

/// `pcsearch simulate`.
pub fn simulate(args: &SimulateArgs) -> Result<()> {
    let dataset = load_space(&args.space)?;
    let model = load_model(&args.expert)?;
    let rep = repetition(&args.run)?;
    let mut runs_out = args
        .run
        .runs_out
        .as_deref()
        .map(RunsWriter::create)
        .transpose()?;
    let facts = SpaceFacts::of(&dataset);
    let bar = progress_bar(args.run.runs as u64);
    bar.set_message(args.searcher.name());
    let traces = run_traced(
        args.searcher,
        &dataset,
        &rep,
        &args.expert,
        model.as_ref(),
        Horizon::NONE,
        &bar,
    )?;
    bar.finish_and_clear();
    if let Some(w) = &mut runs_out {
        w.write(
            RunsContext {
                searcher: args.searcher.name(),
                space: &facts.file,
                model: model_label(&args.expert).as_deref(),
                seed: args.run.seed,
            },
            &traces,
        )?;
    }
    if let Some(w) = runs_out {
        w.finish()?;
    }
    let results: Vec<_> = traces.iter().map(|t| t.result).collect();
    let json = args.run.format == Format::Json;
    print_simulation(
        &facts,
        args.searcher.name(),
        args.run.seed,
        &StepStats::of(&results),
        json,
    )?;
    if args.searcher == SearcherKind::Starchart && !json {
        print_starchart_phases(&dataset, &args.run)?;
    }
    Ok(())
}

/// How per-run results name the model: its file, when one is given.
fn model_label(expert: &ExpertArgs) -> Option<String> {
    expert.model.as_ref().map(|p| p.display().to_string())
}

/// Starchart's two phases as the paper's Table 8 reports them: tests to build the model, then
/// tests in predicted order until a well-performing configuration.
fn print_starchart_phases(dataset: &Arc<Dataset>, run: &RunArgs) -> Result<()> {
    let runtimes: Vec<Option<f64>> = dataset.records.iter().map(|r| r.runtime_us).collect();
    let (build, tuning) = starchart::phase_steps(
        &Arc::new(dataset.space.clone()),
        &runtimes,
        dataset.well_performing_threshold(),
        (0..run.runs as u64).map(|i| experiment::derive_seed(run.seed, i)),
    );
    crate::outln!("starchart phases (mean of {} runs): model build {build:.1} tests, tuning {tuning:.1} tests", run.runs);
    Ok(())
}

/// `pcsearch compare`.
pub fn compare(args: &CompareArgs) -> Result<()> {
    let json = args.run.format == Format::Json;
    let model = load_model(&args.expert)?;
    let rep = repetition(&args.run)?;
    let datasets = load_spaces(&args.spaces)?;
    let plots = args.plot.as_deref().map(plot_dir).transpose()?;
    let mut runs_out = args
        .run
        .runs_out
        .as_deref()
        .map(RunsWriter::create)
        .transpose()?;
    let label = model_label(&args.expert);
    let searchers = &args.spaces.searchers;
    let bar = progress_bar((datasets.len() * searchers.len() * args.run.runs) as u64);
    let files: Vec<String> = datasets
        .iter()
        .map(|d| d.source.display().to_string())
        .collect();
    let stems = plot_stems(&files);
    let mut rows = Vec::new();
    let mut outcomes = Vec::new();
    for (dataset, stem) in datasets.iter().zip(&stems) {
        let setup = SpaceSetup::of(dataset, &rep, plots.is_some())?;
        let facts = SpaceFacts::of(dataset);
        let mut space_outcomes = Vec::new();
        for &kind in searchers {
            bar.set_message(format!("{stem}: {}", kind.name()));
            let traces = run_traced(
                kind,
                dataset,
                &rep,
                &args.expert,
                model.as_ref(),
                setup.horizon,
                &bar,
            )?;
            if let Some(w) = &mut runs_out {
                let context = RunsContext {
                    searcher: kind.name(),
                    space: &facts.file,
                    model: label.as_deref(),
                    seed: args.run.seed,
                };
                w.write(context, &traces)?;
            }
            space_outcomes.push(SearcherOutcome::of(kind.name(), &traces, &setup));
        }
        let results: Vec<(String, StepStats)> = space_outcomes
            .iter()
            .map(|o| (o.name.clone(), o.stats.clone()))
            .collect();
        if !json {
            bar.suspend(|| -> Result<()> {
                print_comparison(&facts, args.run.seed, &results)?;
                crate::outln!();
                Ok(())
            })?;
        }
        if let Some(dir) = &plots {
            let title = match &label {
                Some(_) => format!("{stem} (model scores)"),
                None => stem.clone(),
            };
            plot_space(dir, stem, &title, &space_outcomes)?;
        }
        rows.push((facts, results));
        outcomes.push(space_outcomes);
    }
    bar.finish_and_clear();
    if let Some(w) = runs_out {
        w.finish()?;
    }
    let per_space: Vec<&[SearcherOutcome]> = outcomes.iter().map(Vec::as_slice).collect();
    let scores = summary_scores(&per_space);
    if let Some(dir) = &plots {
        let title = format!(
            "summary score over {} space{}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" }
        );
        plot_summary(&dir.join("summary.svg"), &title, &scores)?;
    }
    print_summary(&rows, &scores, args.run.seed, json)?;
    Ok(())
}
