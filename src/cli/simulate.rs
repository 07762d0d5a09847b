//! `simulate` and `compare`: repeated seeded searches on recorded data.

use super::args::{
    CompareArgs, ExpertArgs, Format, RunArgs, SearcherKind, SimulateArgs, SpaceArgs, SpacesArgs,
};
use super::setup::{load_model, searcher_factory};
use crate::data::{self, Dataset, ReadOptions};
use crate::error::Result;
use crate::experiment::{
    self, print_comparison, print_simulation, print_summary, Repetition, SpaceFacts, StepStats,
};
use crate::model::CounterModel;
use std::path::Path;
use std::sync::Arc;

/// Reads one recorded space, taking `parameters` (when given) as its tuning parameters.
pub fn load_dataset(path: &Path, parameters: &Option<Vec<String>>) -> Result<Arc<Dataset>> {
    let options = ReadOptions {
        parameters: parameters.clone(),
    };
    Ok(Arc::new(data::load(path, &options)?))
}

/// Reads the space named by `args`.
pub fn load_space(args: &SpaceArgs) -> Result<Arc<Dataset>> {
    load_dataset(&args.space, &args.parameters)
}

/// Reads every space named by `args`, failing on the first bad file before any search runs.
pub fn load_spaces(args: &SpacesArgs) -> Result<Vec<Arc<Dataset>>> {
    args.space
        .iter()
        .map(|path| load_dataset(path, &args.parameters))
        .collect()
}

/// The repetition settings of `run`.
pub fn repetition(run: &RunArgs) -> Repetition {
    Repetition {
        runs: run.runs,
        seed: run.seed,
        time_model: run.time.model(),
        max_tests: run.max_tests,
    }
}

fn run_one(
    kind: SearcherKind,
    dataset: &Arc<Dataset>,
    run: &RunArgs,
    expert: &ExpertArgs,
    model: Option<&CounterModel>,
) -> Result<StepStats> {
    let prepared = searcher_factory(kind, dataset, expert, model)?;
    let results = experiment::repeat(
        dataset,
        prepared.counters,
        prepared.factory.as_ref(),
        &repetition(run),
    )?;
    Ok(StepStats::of(&results))
}

/// `pcsearch simulate`.
pub fn simulate(args: &SimulateArgs) -> Result<()> {
    let dataset = load_space(&args.space)?;
    let stats = run_one(
        args.searcher,
        &dataset,
        &args.run,
        &args.expert,
        load_model(&args.expert)?.as_ref(),
    )?;
    print_simulation(
        &SpaceFacts::of(&dataset),
        args.searcher.name(),
        args.run.seed,
        &stats,
        args.run.format == Format::Json,
    );
    Ok(())
}

/// `pcsearch compare`.
pub fn compare(args: &CompareArgs) -> Result<()> {
    let json = args.run.format == Format::Json;
    let model = load_model(&args.expert)?;
    let mut rows = Vec::new();
    for dataset in load_spaces(&args.spaces)? {
        let mut results = Vec::new();
        for &kind in &args.spaces.searchers {
            results.push((
                kind.name().to_string(),
                run_one(kind, &dataset, &args.run, &args.expert, model.as_ref())?,
            ));
        }
        let facts = SpaceFacts::of(&dataset);
        if !json {
            print_comparison(&facts, args.run.seed, &results);
            println!();
        }
        rows.push((facts, results));
    }
    print_summary(&rows, args.run.seed, json);
    Ok(())
}
