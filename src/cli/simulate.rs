//! `simulate` and `compare`: repeated seeded searches on recorded data.

use super::args::{CompareArgs, Format, RunArgs, SearcherKind, SimulateArgs, SpaceArgs};
use crate::counters::CounterValues;
use crate::data::{self, Dataset, ReadOptions};
use crate::error::{Error, Result};
use crate::experiment::{
    self, print_comparison, print_simulation, Repetition, SpaceFacts, StepStats,
};
use crate::search::{RandomFactory, SearcherFactory};
use std::sync::Arc;

/// Reads the space named by `args`.
pub fn load_space(args: &SpaceArgs) -> Result<Arc<Dataset>> {
    let options = ReadOptions {
        parameters: args.parameters.clone(),
    };
    Ok(Arc::new(data::load(&args.space, &options)?))
}

fn repetition(run: &RunArgs) -> Repetition {
    Repetition {
        runs: run.runs,
        seed: run.seed,
        time_model: run.time.model(),
        max_tests: run.max_tests,
    }
}

type Prepared = (Box<dyn SearcherFactory>, Option<Arc<Vec<CounterValues>>>);

fn prepare(kind: SearcherKind, dataset: &Arc<Dataset>) -> Result<Prepared> {
    match kind {
        SearcherKind::Random => Ok((
            Box::new(RandomFactory {
                size: dataset.len(),
            }),
            None,
        )),
        SearcherKind::Profile => Err(Error::invalid(
            "the profile-based searcher is not available yet",
        )),
    }
}

fn run_one(kind: SearcherKind, dataset: &Arc<Dataset>, run: &RunArgs) -> Result<StepStats> {
    let (factory, counters) = prepare(kind, dataset)?;
    let results = experiment::repeat(dataset, counters, factory.as_ref(), &repetition(run))?;
    Ok(StepStats::of(&results))
}

/// `pcsearch simulate`.
pub fn simulate(args: &SimulateArgs) -> Result<()> {
    let dataset = load_space(&args.space)?;
    let stats = run_one(args.searcher, &dataset, &args.run)?;
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
    let dataset = load_space(&args.space)?;
    let mut results = Vec::new();
    for &kind in &args.searchers {
        results.push((kind.name().to_string(), run_one(kind, &dataset, &args.run)?));
    }
    print_comparison(
        &SpaceFacts::of(&dataset),
        args.run.seed,
        &results,
        args.run.format == Format::Json,
    );
    Ok(())
}
