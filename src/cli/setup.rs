//! Shared set-up of the commands: which GPU recorded a file, its canonical counters, the searchers.

use super::args::{CountersArg, ExpertArgs, RulesArgs, SearchArgs, SearcherKind};
use crate::counters::{CounterValues, Generation};
use crate::data::Dataset;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::expert::{ExpertOptions, REQUIRED_COUNTERS};
use crate::model::CounterModel;
use crate::rules::Rules;
use crate::search::profile::{Guidance, Predictions, ProfileFactory, ProfileSetup, ScoreOptions};
use crate::search::{
    BasinHoppingFactory, BayesianFactory, DualAnnealingFactory, GeneticFactory, Grid,
    RandomFactory, SearcherFactory, StarchartFactory,
};
use crate::space::TuningSpace;
use std::sync::Arc;

/// Loads the rules named by the arguments.
pub fn load_rules(args: &RulesArgs) -> Result<Rules> {
    Rules::load(args.rules.as_deref(), args.devices.as_deref())
}

/// The GPU that recorded `dataset`: `--gpu`, else the file's metadata or name prefix.
pub fn resolve_device(dataset: &Dataset, rules: &Rules, gpu: Option<&str>) -> Result<DeviceInfo> {
    let known = || rules.devices.keys().join(", ");
    if let Some(key) = gpu {
        return rules
            .devices
            .by_key(key)
            .or_else(|| rules.devices.by_name(key))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "unknown GPU `{key}` given with --gpu; known: {} (add yours with --devices FILE)",
                    known()
                ))
            });
    }
    let hint = dataset.gpu_hint();
    hint.as_deref()
        .and_then(|h| rules.devices.by_key(h).or_else(|| rules.devices.by_name(h)))
        .ok_or_else(|| {
            let said = hint.map_or("nothing".to_string(), |h| format!("`{h}`"));
            Error::file(
                &dataset.source,
                format!(
                    "cannot tell which GPU recorded this file (it says {said}); name it with --gpu KEY, one of: {}",
                    known()
                ),
            )
        })
}

/// Canonical counters of every configuration of `dataset`, recorded on `device`.
pub fn exact_counters(
    dataset: &Dataset,
    rules: &Rules,
    device: &DeviceInfo,
) -> Result<Vec<CounterValues>> {
    let generation = Generation::of_compute_capability(device.compute_capability);
    let mapped = rules.counter_map(generation).resolve(&dataset.metric_names);
    mapped.require(
        REQUIRED_COUNTERS,
        &format!(
            "{} (read with the {} counter map for {})",
            dataset.source.display(),
            generation.name(),
            device.name
        ),
    )?;
    Ok((0..dataset.len())
        .map(|id| dataset.counters(&mapped, id))
        .collect())
}

/// The counters candidates are scored on, and their generation: a model's predictions in the
/// model GPU's generation, or without a model the space's own recorded `counters` on `device`.
pub fn predictions(
    dataset: &Dataset,
    counters: &[CounterValues],
    device: &DeviceInfo,
    model: Option<&CounterModel>,
) -> Result<(Predictions, Generation)> {
    Ok(match model {
        Some(m) => {
            m.check_space(&dataset.space)?;
            (
                Predictions::new(&m.predict(&dataset.space)?),
                m.generation(),
            )
        }
        None => (
            Predictions::new(counters),
            Generation::of_compute_capability(device.compute_capability),
        ),
    })
}

/// A searcher ready for repeated replay runs.
pub struct PreparedSearch {
    /// Builds the seeded runs.
    pub factory: Box<dyn SearcherFactory>,
    /// Canonical counters a profiled replay test returns (none for searchers that never profile).
    pub counters: Option<Arc<Vec<CounterValues>>>,
}

/// The searcher `kind` on `dataset`.
///
/// With a `model`, candidates are scored on the model's predictions in the model GPU's counter
/// generation; without one, on the recorded counters of the space itself (exact counters).
pub fn searcher_factory(
    kind: SearcherKind,
    dataset: &Arc<Dataset>,
    args: &ExpertArgs,
    model: Option<&CounterModel>,
) -> Result<PreparedSearch> {
    if let Some(factory) = runtime_only_factory(kind, &dataset.space) {
        return Ok(PreparedSearch {
            factory,
            counters: None,
        });
    }
    let rules = load_rules(&args.rules)?;
    let device = resolve_device(dataset, &rules, args.gpu.as_deref())?;
    let counters = exact_counters(dataset, &rules, &device)?;
    let (predictions, prediction_generation) = predictions(dataset, &counters, &device, model)?;
    let setup = profile_setup(
        kind,
        predictions,
        prediction_generation,
        device,
        &rules,
        &args.search,
        &dataset.space,
    );
    Ok(PreparedSearch {
        factory: Box::new(ProfileFactory::new(setup)),
        counters: Some(Arc::new(counters)),
    })
}

/// The searchers that read only runtimes (random search and the baselines from the field) over
/// `space`; `None` for the profile-based ones.
pub fn runtime_only_factory(
    kind: SearcherKind,
    space: &TuningSpace,
) -> Option<Box<dyn SearcherFactory>> {
    let grid = || Arc::new(Grid::new(space));
    Some(match kind {
        SearcherKind::Random => Box::new(RandomFactory { size: space.len() }),
        SearcherKind::BasinHopping => Box::new(BasinHoppingFactory::new(grid())),
        SearcherKind::DualAnnealing => Box::new(DualAnnealingFactory::new(grid())),
        SearcherKind::Genetic => Box::new(GeneticFactory::new(grid())),
        SearcherKind::Bayesian => Box::new(BayesianFactory::new(&grid())),
        SearcherKind::Starchart => Box::new(StarchartFactory::new(Arc::new(space.clone()))),
        SearcherKind::Profile | SearcherKind::ProfilePaper => return None,
    })
}

/// The model named by `--model`, if any, checked against `--counters`.
pub fn load_model(args: &ExpertArgs) -> Result<Option<CounterModel>> {
    match (args.counters, args.model.as_deref()) {
        (Some(CountersArg::Exact), Some(path)) => Err(Error::invalid(format!(
            "--counters exact scores with the space's recorded counters, so --model {} would be ignored; give one of them",
            path.display()
        ))),
        (Some(CountersArg::Model), None) => Err(Error::invalid(
            "--counters model needs --model FILE (a model from `pcsearch train`)",
        )),
        (_, path) => path.map(CounterModel::load).transpose(),
    }
}

/// The profile-based searcher's shared set-up from its parts; `kind` `ProfilePaper` forces the
/// published guidance and normalisation whatever `search` says.
pub fn profile_setup(
    kind: SearcherKind,
    predictions: Predictions,
    prediction_generation: Generation,
    device: DeviceInfo,
    rules: &Rules,
    search: &SearchArgs,
    space: &TuningSpace,
) -> ProfileSetup {
    let paper = kind == SearcherKind::ProfilePaper;
    ProfileSetup {
        predictions,
        prediction_generation,
        device,
        expert: ExpertOptions::new(&rules.reaction, search.compute_bound, search.formula.into()),
        score: ScoreOptions {
            scale: if paper { 0.0 } else { search.score_scale },
            ..ScoreOptions::new(&rules.reaction, search.zero_policy.into())
        },
        plain_tests: rules.reaction.plain_tests_per_profile,
        guidance: if paper {
            Guidance::paper()
        } else {
            search.guidance()
        },
        space: Arc::new(space.clone()),
        label: kind.name().into(),
    }
}
