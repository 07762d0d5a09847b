//! Tuning spaces: named tuning parameters and the valid configurations over them.

mod neighbourhood;

pub use neighbourhood::hamming_distance;

use crate::error::{Error, Result};
use std::collections::HashMap;

/// Index of a configuration inside its [`TuningSpace`].
pub type ConfigId = usize;

/// A tuning space: parameter names and every valid configuration, one value per parameter.
///
/// Values are numeric (every tuner we read from encodes TPs as numbers); configurations are stored
/// row-major so scoring and model prediction can walk them without pointer chasing.
#[derive(Debug, Clone, PartialEq)]
pub struct TuningSpace {
    parameters: Vec<String>,
    values: Vec<f64>,
    index: HashMap<Vec<u64>, ConfigId>,
    labels: Vec<Vec<String>>,
}

impl TuningSpace {
    /// An empty space over `parameters`.
    pub fn new(parameters: Vec<String>) -> Self {
        let labels = vec![Vec::new(); parameters.len()];
        TuningSpace {
            parameters,
            values: Vec::new(),
            index: HashMap::new(),
            labels,
        }
    }

    /// Names the values of parameter `p`: value `i` (0, 1, 2, …) stands for `labels[i]`.
    ///
    /// Tuners allow non-numeric values (Kernel Tuner's `"float"`, KTT's string parameters); the
    /// space stores their positions, the labels keep what the file said so it can be written back.
    pub fn set_labels(&mut self, p: usize, labels: Vec<String>) {
        self.labels[p] = labels;
    }

    /// The label of value `v` of parameter `p`, when its values are labelled.
    pub fn label(&self, p: usize, v: f64) -> Option<&str> {
        let labels = &self.labels[p];
        (v >= 0.0 && v.fract() == 0.0)
            .then(|| labels.get(v as usize))
            .flatten()
            .map(String::as_str)
    }

    /// Whether parameter `p` has labelled (non-numeric) values.
    pub fn is_labelled(&self, p: usize) -> bool {
        !self.labels[p].is_empty()
    }

    /// Value `v` of parameter `p` as text: its label, else the number.
    pub fn value_text(&self, p: usize, v: f64) -> String {
        self.label(p, v)
            .map_or_else(|| format_value(v), str::to_string)
    }

    /// Adds a configuration; returns the id it already had if it is a duplicate.
    pub fn push(&mut self, config: &[f64]) -> std::result::Result<ConfigId, ConfigId> {
        debug_assert_eq!(config.len(), self.parameters.len());
        let key = key_of(config);
        if let Some(&id) = self.index.get(&key) {
            return Err(id);
        }
        let id = self.len();
        self.values.extend_from_slice(config);
        self.index.insert(key, id);
        Ok(id)
    }

    /// Tuning parameter names, in configuration order.
    pub fn parameters(&self) -> &[String] {
        &self.parameters
    }

    /// Number of configurations.
    pub fn len(&self) -> usize {
        if self.parameters.is_empty() {
            0
        } else {
            self.values.len() / self.parameters.len()
        }
    }

    /// True when the space holds no configuration.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The parameter values of configuration `id`.
    pub fn config(&self, id: ConfigId) -> &[f64] {
        let n = self.parameters.len();
        &self.values[id * n..(id + 1) * n]
    }

    /// Iterator over all configurations in id order.
    pub fn configs(&self) -> impl ExactSizeIterator<Item = &[f64]> + '_ {
        self.values.chunks_exact(self.parameters.len().max(1))
    }

    /// The id of a configuration given by its values, if it is in the space.
    pub fn find(&self, config: &[f64]) -> Option<ConfigId> {
        self.index.get(&key_of(config)).copied()
    }

    /// Position of a parameter by name.
    pub fn parameter_index(&self, name: &str) -> Option<usize> {
        self.parameters.iter().position(|p| p == name)
    }

    /// The distinct values each parameter takes, sorted ascending.
    pub fn parameter_values(&self) -> Vec<Vec<f64>> {
        (0..self.parameters.len())
            .map(|p| {
                let mut vals: Vec<f64> = self.configs().map(|c| c[p]).collect();
                vals.sort_by(f64::total_cmp);
                vals.dedup();
                vals
            })
            .collect()
    }

    /// `NAME=V,NAME=V` text of configuration `id`, the form `--config` accepts.
    pub fn describe(&self, id: ConfigId) -> String {
        self.parameters
            .iter()
            .zip(self.config(id))
            .enumerate()
            .map(|(i, (p, v))| format!("{p}={}", self.value_text(i, *v)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Parses `NAME=V,NAME=V,…` (every parameter exactly once) into a configuration id.
    pub fn parse_assignment(&self, text: &str) -> Result<ConfigId> {
        let mut config = vec![f64::NAN; self.parameters.len()];
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| Error::invalid(format!("`{part}` is not of the form NAME=VALUE")))?;
            let name = name.trim();
            let idx = self.parameter_index(name).ok_or_else(|| {
                Error::invalid(format!(
                    "unknown tuning parameter `{name}`; the space has {}",
                    self.parameters.join(", ")
                ))
            })?;
            let value = value.trim();
            let value: f64 = match self.labels[idx].iter().position(|l| l == value) {
                Some(i) => i as f64,
                None => value.parse().map_err(|_| {
                    Error::invalid(format!("value `{value}` of `{name}` is not a number"))
                })?,
            };
            if !config[idx].is_nan() {
                return Err(Error::invalid(format!("`{name}` is given twice")));
            }
            config[idx] = value;
        }
        let missing: Vec<&str> = self
            .parameters
            .iter()
            .zip(&config)
            .filter(|(_, v)| v.is_nan())
            .map(|(p, _)| p.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(Error::invalid(format!(
                "configuration `{text}` lacks {}",
                missing.join(", ")
            )));
        }
        self.find(&config).ok_or_else(|| {
            Error::invalid(format!("configuration `{text}` is not in the tuning space"))
        })
    }
}

/// Formats a parameter value without a trailing `.0` for integers.
pub fn format_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn key_of(config: &[f64]) -> Vec<u64> {
    // Normalise -0.0 so that it equals 0.0 as a key.
    config.iter().map(|v| (v + 0.0).to_bits()).collect()
}

/// The full grid of parameters `A` (values `0..a`) and `B` (values `0..b`), `A` varying slowest:
/// a space for tests.
#[cfg(test)]
pub(crate) fn grid_space(a: u32, b: u32) -> TuningSpace {
    let mut s = TuningSpace::new(vec!["A".into(), "B".into()]);
    for x in 0..a {
        for y in 0..b {
            s.push(&[f64::from(x), f64::from(y)])
                .expect("the points of a grid are distinct");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> TuningSpace {
        let mut s = TuningSpace::new(vec!["A".into(), "B".into()]);
        for a in [1.0, 2.0] {
            for b in [0.0, 1.0, 4.0] {
                s.push(&[a, b]).unwrap();
            }
        }
        s
    }

    #[test]
    fn duplicates_are_reported_with_the_first_id() {
        let mut s = small();
        assert_eq!(s.push(&[2.0, 1.0]), Err(4));
        assert_eq!(s.len(), 6);
    }

    #[test]
    fn assignment_round_trips_and_names_errors() {
        let s = small();
        let id = s.parse_assignment("B=4, A=2").unwrap();
        assert_eq!(s.config(id), &[2.0, 4.0]);
        assert_eq!(s.describe(id), "A=2,B=4");
        let err = s.parse_assignment("A=2,C=1").unwrap_err().to_string();
        assert!(err.contains("unknown tuning parameter `C`"), "{err}");
        let err = s.parse_assignment("A=2").unwrap_err().to_string();
        assert!(err.contains("lacks B"), "{err}");
        let err = s.parse_assignment("A=3,B=0").unwrap_err().to_string();
        assert!(err.contains("not in the tuning space"), "{err}");
    }

    #[test]
    fn parameter_values_are_sorted_and_distinct() {
        assert_eq!(
            small().parameter_values(),
            vec![vec![1.0, 2.0], vec![0.0, 1.0, 4.0]]
        );
    }
}
