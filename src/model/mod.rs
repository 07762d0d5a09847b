//! Per-kernel models from tuning parameters to PC_ops counters (decision trees).
//!
//! A model is trained once, on one GPU's recorded space, and predicts the counters of every
//! configuration of a space with the same tuning parameters, on any GPU or input: the amount of work
//! a configuration does depends on the TPs far more than on the GPU.

mod accuracy;
mod domain;
mod file;
mod train;
mod tree;

pub use accuracy::{CounterAccuracy, Errors};
pub use domain::{Extrapolation, TrainingDomain};
/// Signs hand-written model JSON, so tests can write model files this build accepts.
#[cfg(test)]
pub(crate) use file::to_bytes as signed_model_bytes;
pub use file::{FORMAT, VERSION};
pub use train::{Selection, TrainOptions};
pub use tree::{FlatTree, Node};

use crate::counters::{Counter, CounterValues, Generation};
use crate::data::Dataset;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::rules::Rules;
use crate::space::TuningSpace;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use train::Samples;

/// The GPU a model was trained on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingGpu {
    /// Device-table key (`1070`).
    pub key: String,
    /// Full name.
    pub name: String,
    /// Compute capability, e.g. 6.1.
    pub compute_capability: f64,
}

/// A predicted counter that the model does not predict, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedCounter {
    /// The counter.
    pub counter: Counter,
    /// Why it was left out.
    pub reason: String,
}

/// One counter's tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CounterTree {
    counter: Counter,
    nodes: FlatTree,
}

/// A trained per-kernel counter model, as stored in a model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterModel {
    format: String,
    version: u64,
    kernel: String,
    training_file: String,
    gpu: TrainingGpu,
    generation: Generation,
    parameters: Vec<String>,
    options: TrainOptions,
    configurations: usize,
    skipped: Vec<SkippedCounter>,
    accuracy: Vec<CounterAccuracy>,
    /// The training range (version 2 on; version 1 files have none, so nothing is flagged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    domain: Option<TrainingDomain>,
    /// Node layout: `[feature, value, yes, no]`; feature −1 marks a leaf whose value is the prediction,
    /// otherwise `x[feature] <= value` goes to node `yes`, else to node `no`.
    trees: Vec<CounterTree>,
    /// File the model was loaded from, to name it in messages.
    #[serde(skip)]
    origin: Option<PathBuf>,
}

impl CounterModel {
    /// Trains trees for every predicted counter the dataset has, on its valid configurations.
    pub fn train(
        dataset: &Dataset,
        rules: &Rules,
        device: &DeviceInfo,
        options: &TrainOptions,
    ) -> Result<CounterModel> {
        let source = dataset.source.display();
        options
            .validate()
            .map_err(|e| Error::invalid(format!("training on {source}: {e}")))?;
        let generation = Generation::of_compute_capability(device.compute_capability);
        let map = rules.counter_map(generation);
        let mapped = map.resolve(&dataset.metric_names);
        let valid: Vec<usize> = (0..dataset.len())
            .filter(|&id| dataset.records[id].runtime_us.is_some())
            .collect();
        let features = dataset.space.parameters().len();
        if features == 0 {
            return Err(Error::file(
                &dataset.source,
                "no tuning parameters to train on",
            ));
        }
        let counters: Vec<_> = valid
            .iter()
            .map(|&id| dataset.counters(&mapped, id))
            .collect();
        let wanted: Vec<Counter> = Counter::predicted().collect();
        let outcomes: Vec<_> = wanted
            .par_iter()
            .map(|&counter| {
                // Global size comes from the launch geometry, not from a metric.
                if map.source(counter).is_none() && counter != Counter::GlobalSize {
                    return Err(format!(
                        "the {} counter map does not define it",
                        generation.name()
                    ));
                }
                if let Some((_, metrics)) = mapped.missing.iter().find(|(c, _)| *c == counter) {
                    return Err(format!("the file lacks {}", metrics.join(" + ")));
                }
                let (mut x, mut y) = (Vec::new(), Vec::new());
                for (&id, values) in valid.iter().zip(&counters) {
                    if values[counter].is_finite() {
                        x.extend_from_slice(dataset.space.config(id));
                        y.push(values[counter]);
                    }
                }
                if y.is_empty() {
                    return Err("no configuration has a value".to_string());
                }
                let samples = Samples {
                    x: &x,
                    features,
                    y: &y,
                };
                train::train_counter(counter, &samples, options)
            })
            .collect();
        let mut model = CounterModel {
            format: FORMAT.to_string(),
            version: VERSION,
            kernel: dataset.kernel.clone(),
            training_file: dataset
                .source
                .file_name()
                .map_or_else(|| source.to_string(), |n| n.to_string_lossy().into_owned()),
            gpu: TrainingGpu {
                key: device.key.clone(),
                name: device.name.clone(),
                compute_capability: device.compute_capability,
            },
            generation,
            parameters: dataset.space.parameters().to_vec(),
            options: options.clone(),
            configurations: valid.len(),
            skipped: Vec::new(),
            accuracy: Vec::new(),
            domain: Some(TrainingDomain::of(
                features,
                valid.iter().map(|&id| dataset.space.config(id)),
            )),
            trees: Vec::new(),
            origin: None,
        };
        for (counter, outcome) in wanted.into_iter().zip(outcomes) {
            match outcome {
                Ok((nodes, accuracy)) => {
                    model.trees.push(CounterTree { counter, nodes });
                    model.accuracy.push(accuracy);
                }
                Err(reason) => model.skipped.push(SkippedCounter { counter, reason }),
            }
        }
        if model.trees.is_empty() {
            return Err(Error::file(
                &dataset.source,
                format!(
                    "no counter could be modelled with the {} counter map: {}",
                    generation.name(),
                    model
                        .skipped
                        .iter()
                        .map(|s| format!("{}: {}", s.counter, s.reason))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ));
        }
        Ok(model)
    }

    /// The model file's content; a model that loading would refuse is not written.
    pub fn to_file_bytes(&self) -> Result<Vec<u8>> {
        let refuse = |e: String| Error::invalid(format!("{}: cannot be written: {e}", self.name()));
        self.validate().map_err(refuse)?;
        file::to_bytes(self).map_err(refuse)
    }

    /// Writes the model as JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        file::write(path, &self.to_file_bytes()?)
    }

    /// Reads a model file, refusing other formats, other versions, inconsistent content and
    /// content changed after training.
    pub fn load(path: &Path) -> Result<CounterModel> {
        let bytes = crate::input::read_bounded(path, crate::input::MAX_MODEL_BYTES)?;
        CounterModel::parse(path, &bytes)
    }

    /// [`CounterModel::load`] on the `bytes` of a file; `path` names it in messages.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<CounterModel> {
        let stored = file::parse(path, bytes)?;
        let mut model: CounterModel = serde_json::from_value(stored.value.clone())
            .map_err(|e| Error::file(path, format!("malformed model: {e}")))?;
        model
            .validate()
            .map_err(|e| Error::file(path, format!("inconsistent model: {e}")))?;
        stored.verify(path)?;
        model.origin = Some(path.to_path_buf());
        Ok(model)
    }

    fn validate(&self) -> std::result::Result<(), String> {
        let unique: BTreeSet<&String> = self.parameters.iter().collect();
        if self.parameters.is_empty() || unique.len() != self.parameters.len() {
            return Err("`parameters` must list distinct tuning parameters".into());
        }
        let expected = Generation::of_compute_capability(self.gpu.compute_capability);
        if expected != self.generation {
            return Err(format!(
                "generation {} does not match compute capability {}",
                self.generation.name(),
                self.gpu.compute_capability
            ));
        }
        if self.trees.is_empty() {
            return Err("no trees: the model predicts no counter".into());
        }
        if let Some(domain) = &self.domain {
            domain.validate(self.parameters.len())?;
        }
        if !self.gpu.compute_capability.is_finite() {
            return Err("the compute capability is not a finite number".into());
        }
        for a in &self.accuracy {
            let e = &a.errors;
            let values = [a.mean, e.mae, e.rmse, e.relative_error, e.r2.unwrap_or(0.0)];
            if values.iter().any(|v| !v.is_finite()) {
                return Err(format!("the accuracy of {} is not finite", a.counter));
            }
        }
        let mut seen = BTreeSet::new();
        for t in &self.trees {
            if !seen.insert(t.counter) {
                return Err(format!("counter {} has two trees", t.counter));
            }
            if !Counter::predicted().any(|c| c == t.counter) {
                return Err(format!("counter {} is not one a model predicts", t.counter));
            }
            t.nodes
                .validate(self.parameters.len())
                .map_err(|e| format!("tree of {}: {e}", t.counter))?;
        }
        Ok(())
    }

    /// Counter generation of the training GPU (the counter set predictions are expressed in).
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// Compute capability of the training GPU.
    pub fn compute_capability(&self) -> f64 {
        self.gpu.compute_capability
    }

    /// The training GPU.
    pub fn gpu(&self) -> &TrainingGpu {
        &self.gpu
    }

    /// Tuning parameter names, in the order the trees index them.
    pub fn parameters(&self) -> &[String] {
        &self.parameters
    }

    /// Kernel name of the training data.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// File name of the training data.
    pub fn training_file(&self) -> &str {
        &self.training_file
    }

    /// Valid configurations the model was trained on.
    pub fn configurations(&self) -> usize {
        self.configurations
    }

    /// The options it was trained with.
    pub fn options(&self) -> &TrainOptions {
        &self.options
    }

    /// Counters the model predicts, in index order.
    pub fn counters(&self) -> Vec<Counter> {
        self.trees.iter().map(|t| t.counter).collect()
    }

    /// Counters it does not predict, with the reason.
    pub fn skipped(&self) -> &[SkippedCounter] {
        &self.skipped
    }

    /// Per-counter held-out accuracy and chosen depth.
    pub fn accuracy(&self) -> &[CounterAccuracy] {
        &self.accuracy
    }

    /// The training range, when the model file records it (version 2 on).
    pub fn training_domain(&self) -> Option<&TrainingDomain> {
        self.domain.as_ref()
    }

    /// How each configuration of `space` lies outside the training range, by configuration id
    /// (nothing is flagged when the model does not record its range).
    pub fn extrapolations(&self, space: &TuningSpace) -> Result<Vec<Extrapolation>> {
        self.check_space(space)?;
        let Some(domain) = &self.domain else {
            return Ok(vec![Extrapolation::default(); space.len()]);
        };
        let columns = self.columns(space);
        Ok((0..space.len())
            .into_par_iter()
            .map(|id| {
                let config = space.config(id);
                let row: Vec<f64> = columns.iter().map(|&c| config[c]).collect();
                domain.extrapolation(&row)
            })
            .collect())
    }

    /// A configuration's extrapolation in words: `MWG=64 unseen (trained on 16)`, …; empty when it
    /// lies inside the training range.
    pub fn describe_extrapolation(
        &self,
        e: &Extrapolation,
        space: &TuningSpace,
        id: usize,
    ) -> String {
        let Some(domain) = &self.domain else {
            return String::new();
        };
        let config = space.config(id);
        let columns = self.columns(space);
        let value = |p: usize| crate::space::format_value(config[columns[p]]);
        let mut parts: Vec<String> = e
            .unseen_values
            .iter()
            .map(|&p| {
                let seen: Vec<String> = domain
                    .values(p)
                    .iter()
                    .map(|&v| crate::space::format_value(v))
                    .collect();
                format!(
                    "{}={} unseen (trained on {})",
                    self.parameters[p],
                    value(p),
                    seen.join(", ")
                )
            })
            .collect();
        parts.extend(e.unseen_pairs.iter().map(|&(a, b)| {
            format!(
                "{}={} with {}={} never seen together",
                self.parameters[a],
                value(a),
                self.parameters[b],
                value(b)
            )
        }));
        parts.join("; ")
    }

    /// For each model parameter, its column in `space` (which `check_space` has accepted).
    fn columns(&self, space: &TuningSpace) -> Vec<usize> {
        self.parameters
            .iter()
            .filter_map(|p| space.parameter_index(p))
            .collect()
    }

    fn name(&self) -> String {
        match &self.origin {
            Some(p) => format!("model {}", p.display()),
            None => format!("the model trained on {}", self.training_file),
        }
    }

    /// Checks the space has the model's tuning parameters (any order), naming any difference.
    pub fn check_space(&self, space: &TuningSpace) -> Result<()> {
        let missing: Vec<&str> = self
            .parameters
            .iter()
            .filter(|p| space.parameter_index(p).is_none())
            .map(String::as_str)
            .collect();
        let extra: Vec<&str> = space
            .parameters()
            .iter()
            .filter(|p| !self.parameters.contains(p))
            .map(String::as_str)
            .collect();
        if missing.is_empty() && extra.is_empty() {
            return Ok(());
        }
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!("the space lacks {}", missing.join(", ")));
        }
        if !extra.is_empty() {
            parts.push(format!("the model does not know {}", extra.join(", ")));
        }
        Err(Error::invalid(format!(
            "{} does not fit the tuning space: {} (model parameters: {})",
            self.name(),
            parts.join("; "),
            self.parameters.join(", ")
        )))
    }

    /// Predicted counters of every configuration of `space`, by configuration id; counters the
    /// model does not predict are `NaN`. Values the model never saw are predicted as well.
    pub fn predict(&self, space: &TuningSpace) -> Result<Vec<CounterValues>> {
        self.check_space(space)?;
        let columns = self.columns(space);
        let in_order = columns.iter().enumerate().all(|(i, &c)| i == c);
        // Initialised in parallel: at 200,000 configurations the output alone is 46 MB.
        let mut out: Vec<CounterValues> = (0..space.len())
            .into_par_iter()
            .map(|_| CounterValues::default())
            .collect();
        // Chunks amortise the per-task overhead; within a chunk trees are the outer loop so that one
        // tree's nodes stay in cache while every configuration walks it.
        const CHUNK: usize = 1024;
        let width = columns.len();
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(chunk, values)| {
                let first = chunk * CHUNK;
                let mut rows = Vec::with_capacity(values.len() * width);
                for id in first..first + values.len() {
                    let config = space.config(id);
                    if in_order {
                        rows.extend_from_slice(config);
                    } else {
                        rows.extend(columns.iter().map(|&c| config[c]));
                    }
                }
                let mut predicted = vec![0.0; values.len()];
                for t in &self.trees {
                    t.nodes.predict_rows(&rows, width, &mut predicted);
                    for (v, &p) in values.iter_mut().zip(&predicted) {
                        v[t.counter] = p;
                    }
                }
            });
        Ok(out)
    }
}
