//! Shared set-up of the commands: which GPU recorded a file, its canonical counters, the searchers.

use super::args::{CountersArg, ExpertArgs, RulesArgs, SearchArgs, SearcherKind};
use crate::counters::{Counter, CounterValues, Generation};
use crate::data::Dataset;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::expert::{ExpertOptions, REQUIRED_COUNTERS};
use crate::model::CounterModel;
use crate::rules::Rules;
use crate::search::profile::{
    extrapolation_trust, Predictions, ProfileFactory, ProfileSetup, ScoreOptions, SearchSettings,
    ZeroPolicy,
};
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
/// model GPU's generation (see [`model_predictions`]), or without a model the space's own recorded
/// `counters` on `device`.
pub fn predictions(
    dataset: &Dataset,
    counters: &[CounterValues],
    device: &DeviceInfo,
    model: Option<&CounterModel>,
    kind: SearcherKind,
    search: &SearchArgs,
) -> Result<(Predictions, Generation)> {
    Ok(match model {
        Some(m) => {
            let sizes: Vec<f64> = dataset.records.iter().map(|r| r.global_size).collect();
            (
                model_predictions(m, &dataset.space, &sizes, kind, search)?,
                m.generation(),
            )
        }
        None => (
            Predictions::new(counters),
            Generation::of_compute_capability(device.compute_capability),
        ),
    })
}

/// A model's predictions for `space`, as the profile-based searcher `kind` uses them.
///
/// The published searcher (`profile-paper`) takes them as they are. The default replaces the
/// predicted launch size by `launch_sizes` (the global size of each configuration, known before it
/// runs; NaN where unknown), and trusts predictions outside the model's training range less, by
/// `--extrapolation-trust` per tuning parameter with an unseen value.
pub fn model_predictions(
    model: &CounterModel,
    space: &TuningSpace,
    launch_sizes: &[f64],
    kind: SearcherKind,
    search: &SearchArgs,
) -> Result<Predictions> {
    let predicted = model.predict(space)?;
    let predictions = Predictions::new(&predicted);
    if kind == SearcherKind::ProfilePaper {
        return Ok(predictions);
    }
    let known = |x: f64| x.is_finite() && x > 0.0;
    let predictions = if launch_sizes.iter().any(|&x| known(x)) {
        let sizes = launch_sizes
            .iter()
            .zip(&predicted)
            .map(|(&x, p)| if known(x) { x } else { p[Counter::GlobalSize] })
            .collect();
        predictions.with_exact(Counter::GlobalSize, sizes)
    } else {
        predictions
    };
    let trust: Vec<f64> = model
        .extrapolations(space)?
        .iter()
        .map(|e| extrapolation_trust(e.novelty(), search.extrapolation_trust))
        .collect();
    Ok(if trust.iter().any(|&t| t < 1.0) {
        predictions.with_trust(trust)
    } else {
        predictions
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
    let (predictions, prediction_generation) =
        predictions(dataset, &counters, &device, model, kind, &args.search)?;
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
        SearcherKind::Profile | SearcherKind::ProfilePaper | SearcherKind::ProfileLocal => {
            return None
        }
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
        _ => search.settings(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::TuningSpace;

    /// A model of one parameter X trained on X in {1, 2}: global size 100 and DRAM reads 7 everywhere.
    const MODEL: &str = r#"{
  "format": "pcsearch-counter-model", "version": 3, "kernel": "k", "training_file": "t.csv",
  "gpu": {"key": "1070", "name": "NVIDIA GeForce GTX 1070", "compute_capability": 6.1},
  "generation": "maxwell-pascal", "parameters": ["X"],
  "options": {"seed": 1, "splits": 10, "depths": [2], "selection": "refit"},
  "configurations": 2, "skipped": [], "accuracy": [],
  "domain": {"values": [[1.0, 2.0]], "unseen_pairs": []},
  "trees": [{"counter": "DRAM_RT", "nodes": [[-1, 7.0, 0, 0]]},
            {"counter": "GLOBAL_SIZE", "nodes": [[-1, 100.0, 0, 0]]}]
}"#;

    fn search_args(extra: &[&str]) -> SearchArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            search: SearchArgs,
        }
        Wrapper::parse_from(["pcsearch"].iter().chain(extra)).search
    }

    #[test]
    fn known_launch_sizes_replace_predicted_ones_and_extrapolations_are_trusted_less() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let value: serde_json::Value = serde_json::from_str(MODEL).unwrap();
        std::fs::write(&path, crate::model::signed_model_bytes(&value).unwrap()).unwrap();
        let model = CounterModel::load(&path).unwrap();
        let mut space = TuningSpace::new(vec!["X".into()]);
        for x in [1.0, 2.0, 3.0] {
            space.push(&[x]).unwrap();
        }
        let sizes = [10.0, f64::NAN, 30.0];
        let default = search_args(&[]);
        let p = model_predictions(&model, &space, &sizes, SearcherKind::Profile, &default).unwrap();
        let global: Vec<f64> = (0..3).map(|c| p.get(Counter::GlobalSize, c)).collect();
        assert_eq!(global, [10.0, 100.0, 30.0], "unknown sizes stay predicted");
        assert_eq!(
            (0..3).map(|c| p.trust(c)).collect::<Vec<_>>(),
            [1.0, 1.0, 0.5]
        );
        let full = search_args(&["--extrapolation-trust", "1"]);
        let p = model_predictions(&model, &space, &sizes, SearcherKind::Profile, &full).unwrap();
        assert_eq!(p.trust(2), 1.0);
        let paper = model_predictions(&model, &space, &sizes, SearcherKind::ProfilePaper, &default)
            .unwrap();
        assert_eq!(
            paper.get(Counter::GlobalSize, 0),
            100.0,
            "the published searcher predicts"
        );
        assert_eq!(paper.trust(2), 1.0);
    }

    #[test]
    fn a_trust_outside_0_to_1_is_refused_naming_the_flag() {
        use clap::Parser;
        #[derive(Parser, Debug)]
        struct Wrapper {
            #[command(flatten)]
            search: SearchArgs,
        }
        let err = Wrapper::try_parse_from(["pcsearch", "--extrapolation-trust", "1.5"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--extrapolation-trust") && err.contains("not a number from 0 to 1"),
            "{err}"
        );
    }
}
