//! Several searchers on several spaces: each searcher's runs reduced to statistics, curves and
//! budget performance, then plots per space and the summary score across spaces.

use super::curves::{found_within, relative_best_by_tests, relative_best_by_time, Band};
use super::plot::{self, BandSeries, StepsSeries};
use super::score::{SpaceBudget, SpacePerformance, SummaryScore};
use super::trace::{repeat_traced, Horizon};
use super::{Repetition, RunResult, RunTrace, StepStats};
use crate::data::Dataset;
use crate::error::Result;
use crate::search::RandomFactory;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Points of the time axis of convergence curves.
const TIME_POINTS: usize = 200;

/// What reports need of one space before any searcher runs: how far runs go and the budget.
#[derive(Debug, Clone)]
pub struct SpaceSetup {
    /// How far every run goes.
    pub horizon: Horizon,
    /// Budget and random search's exact expectation over it.
    pub budget: SpaceBudget,
}

impl SpaceSetup {
    /// The set-up of `dataset` for runs repeated as `rep` (to the longer horizon of `plots`):
    /// random search runs the same number of seeded runs to give the time budget its baseline.
    pub fn of(dataset: &Arc<Dataset>, rep: &Repetition, plots: bool) -> Result<SpaceSetup> {
        let horizon = Horizon::for_space(dataset, &rep.time_model, plots);
        let random = RandomFactory {
            size: dataset.len(),
        };
        let traces = repeat_traced(dataset, None, &random, rep, horizon, None)?;
        Ok(SpaceSetup {
            horizon,
            budget: SpaceBudget::of(dataset, &rep.time_model).with_random_runs(&traces),
        })
    }
}

/// One searcher's runs on one space, reduced.
#[derive(Debug, Clone)]
pub struct SearcherOutcome {
    /// Searcher name.
    pub name: String,
    /// Steps and time to a well-performing configuration.
    pub stats: StepStats,
    /// Best-so-far relative to the optimum over the horizon's tests.
    pub by_tests: Band,
    /// Best-so-far relative to the optimum over the horizon's seconds.
    pub by_time: Band,
    /// Share of runs done within 1, 2, … tests, up to the slowest run.
    pub found_within: Vec<f64>,
    /// Performance relative to random search over the budget.
    pub performance: SpacePerformance,
}

impl SearcherOutcome {
    /// Reduces the runs `traces` of searcher `name` on a space set up as `setup`.
    pub fn of(name: &str, traces: &[RunTrace], setup: &SpaceSetup) -> SearcherOutcome {
        let results: Vec<RunResult> = traces.iter().map(|t| t.result).collect();
        let stats = StepStats::of(&results);
        let scale = setup.budget.scale;
        SearcherOutcome {
            name: name.to_string(),
            by_tests: relative_best_by_tests(traces, setup.horizon.tests, scale),
            by_time: relative_best_by_time(traces, setup.horizon.seconds, TIME_POINTS, scale),
            found_within: found_within(traces, stats.max_steps),
            performance: SpacePerformance::of(&setup.budget, traces),
            stats,
        }
    }
}

/// Writes the three plots of one space into `dir`, named after `stem`; returns their paths.
pub fn plot_space(
    dir: &Path,
    stem: &str,
    title: &str,
    outcomes: &[SearcherOutcome],
) -> Result<Vec<PathBuf>> {
    let bands = |by_time: bool| -> Vec<BandSeries> {
        outcomes
            .iter()
            .map(|o| BandSeries {
                name: &o.name,
                band: if by_time { &o.by_time } else { &o.by_tests },
            })
            .collect()
    };
    let tests = dir.join(format!("{stem}-tests.svg"));
    plot::convergence_by_tests(
        &tests,
        &format!("{title}: convergence in tests"),
        &bands(false),
    )?;
    let time = dir.join(format!("{stem}-time.svg"));
    plot::convergence_by_time(
        &time,
        &format!("{title}: convergence in time"),
        &bands(true),
    )?;
    let steps = dir.join(format!("{stem}-steps.svg"));
    let series: Vec<StepsSeries> = outcomes
        .iter()
        .map(|o| StepsSeries {
            name: &o.name,
            found_within: &o.found_within,
            stats: &o.stats,
        })
        .collect();
    plot::steps_distribution(
        &steps,
        &format!("{title}: steps to well-performing"),
        &series,
    )?;
    Ok(vec![tests, time, steps])
}

/// Each searcher's summary score over `spaces` (each a list of outcomes in the same searcher
/// order).
pub fn summary_scores(spaces: &[&[SearcherOutcome]]) -> Vec<(String, SummaryScore)> {
    let Some(first) = spaces.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|i| {
            let per_space: Vec<&SpacePerformance> =
                spaces.iter().map(|s| &s[i].performance).collect();
            (first[i].name.clone(), SummaryScore::of(&per_space))
        })
        .collect()
}
