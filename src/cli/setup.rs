//! Shared set-up of the commands: which GPU recorded a file, its canonical counters, the searchers.

use super::args::{CountersArg, ExpertArgs, RulesArgs, SearchArgs, SearcherKind};
use crate::counters::{CounterValues, Generation};
use crate::data::Dataset;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::expert::{ExpertOptions, REQUIRED_COUNTERS};
use crate::model::CounterModel;
use crate::rules::Rules;
use crate::search::profile::{
    Predictions, ProfileFactory, ProfileSetup, ScoreOptions, SearchSettings, ZeroPolicy,
};
use crate::search::{RandomFactory, SearcherFactory};
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
    if kind == SearcherKind::Random {
        return Ok(PreparedSearch {
            factory: Box::new(RandomFactory {
                size: dataset.len(),
            }),
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
/// published guidance and normalisation whatever `search` says, `ProfileLocal` the previous default.
pub fn profile_setup(
    kind: SearcherKind,
    predictions: Predictions,
    prediction_generation: Generation,
    device: DeviceInfo,
    rules: &Rules,
    search: &SearchArgs,
    space: &TuningSpace,
) -> ProfileSetup {
    let settings = match kind {
        SearcherKind::ProfilePaper => SearchSettings::paper(),
        SearcherKind::ProfileLocal => SearchSettings::local(),
        SearcherKind::Random | SearcherKind::Profile => search.settings(),
    };
    let expert = ExpertOptions::new(&rules.reaction, search.compute_bound, search.formula.into());
    let mut setup = settings_setup(
        predictions,
        prediction_generation,
        device,
        rules,
        expert,
        search.zero_policy.into(),
        &settings,
    );
    setup.space = Arc::new(space.clone());
    setup.label = kind.name().into();
    setup
}

/// The profile-based searcher's set-up for named `settings`, over an empty space (set `space`
/// before use when the guidance needs neighbourhoods or restarts).
pub fn settings_setup(
    predictions: Predictions,
    prediction_generation: Generation,
    device: DeviceInfo,
    rules: &Rules,
    expert: ExpertOptions,
    zero_policy: ZeroPolicy,
    settings: &SearchSettings,
) -> ProfileSetup {
    ProfileSetup {
        predictions,
        prediction_generation,
        device,
        expert,
        score: ScoreOptions {
            scale: settings.score_scale,
            ..ScoreOptions::new(&rules.reaction, zero_policy)
        },
        plain_tests: rules.reaction.plain_tests_per_profile,
        guidance: settings.guidance.clone(),
        space: Arc::new(TuningSpace::new(Vec::new())),
        label: settings.name.clone(),
    }
}
