//! A generation's metric map: how canonical counters are read from a recording's metric names.

use super::{Counter, CounterValues, Generation};
use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// How one canonical counter is obtained from raw metrics.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CounterSource {
    /// Raw metrics summed to give the counter (usually one).
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Raw metrics summed to give a denominator, for ratios such as Volta's local-memory overhead.
    #[serde(default)]
    pub divide_by: Vec<String>,
    /// Factor applied after summing and dividing (e.g. 0.1 to bring a percentage to the 0..10 scale).
    #[serde(default = "one")]
    pub scale: f64,
    /// Upper bound applied after scaling, for approximations that can overshoot the quantity they
    /// stand for (a percentage of traffic cannot exceed 100).
    pub max: Option<f64>,
    /// A fixed value used when the generation has no such metric (Kepler's warp efficiencies).
    pub constant: Option<f64>,
    /// The value used when the recording lacks the metrics (instead of reporting them missing).
    pub default: Option<f64>,
    /// Why the mapping is what it is, for readers of the rules file.
    #[serde(default)]
    pub note: String,
}

fn one() -> f64 {
    1.0
}

/// A counter generation's map, as read from `expert_rules/counters-<generation>.toml`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CounterMap {
    /// Generation the map is for.
    pub generation: Generation,
    /// Lowest compute capability of the generation (inclusive).
    pub min_compute_capability: f64,
    /// Canonical short name → source.
    pub counters: BTreeMap<String, CounterSource>,
    /// Sources from hardware counters alone, for counters whose usual metrics need SASS
    /// patching: CUPTI's range profiler accepts those but evaluates every one to the same number.
    /// The live profiler reads these instead, and replay falls back to them when a recording lacks
    /// the usual metrics (as pcsearch's own recordings do).
    #[serde(default)]
    pub hardware: BTreeMap<String, CounterSource>,
}

impl CounterMap {
    /// Parses and validates a map file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<CounterMap> {
        let map: CounterMap =
            toml::from_str(text).map_err(|e| Error::file(path, format!("malformed: {e}")))?;
        for (name, src) in map.counters.iter().chain(&map.hardware) {
            if Counter::from_short(name).is_none() {
                return Err(Error::file(
                    path,
                    format!("key `counters.{name}` is not a canonical counter"),
                ));
            }
            if src.metrics.is_empty() && src.constant.is_none() {
                return Err(Error::file(
                    path,
                    format!("key `counters.{name}` needs `metrics` or `constant`"),
                ));
            }
            if src.max.is_some_and(|m| !m.is_finite()) {
                return Err(Error::file(
                    path,
                    format!("key `counters.{name}.max` is not finite"),
                ));
            }
            if !src.scale.is_finite() {
                return Err(Error::file(
                    path,
                    format!("key `counters.{name}.scale` is not finite"),
                ));
            }
        }
        Ok(map)
    }

    /// The map the live profiler uses: hardware sources in place of the usual ones.
    pub fn live(&self) -> CounterMap {
        let mut counters = self.counters.clone();
        counters.extend(self.hardware.clone());
        CounterMap {
            generation: self.generation,
            min_compute_capability: self.min_compute_capability,
            counters,
            hardware: BTreeMap::new(),
        }
    }

    /// The source of a canonical counter, if the generation has one.
    pub fn source(&self, counter: Counter) -> Option<&CounterSource> {
        self.counters.get(counter.short())
    }

    /// Every raw metric name this map reads (what a profiler must collect).
    pub fn metric_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .counters
            .values()
            .flat_map(|s| s.metrics.iter().chain(&s.divide_by).cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Resolves the map against the metric names of a recording.
    pub fn resolve(&self, metric_names: &[String]) -> MappedMetrics {
        let find = |m: &String| metric_names.iter().position(|n| n == m);
        let mut plans = Vec::new();
        let mut missing = Vec::new();
        for &counter in Counter::ALL {
            let Some(src) = self.source(counter) else {
                continue;
            };
            if let Some(c) = src.constant {
                plans.push((counter, Plan::Constant(c)));
                continue;
            }
            let metrics_of = |src: &CounterSource| {
                let num: Option<Vec<usize>> = src.metrics.iter().map(find).collect();
                let den: Option<Vec<usize>> = src.divide_by.iter().map(find).collect();
                Some(Plan::Metrics {
                    num: num?,
                    den: den?,
                    scale: src.scale,
                    max: src.max.unwrap_or(f64::INFINITY),
                })
            };
            let hardware = self.hardware.get(counter.short());
            let plan = metrics_of(src)
                .or_else(|| hardware.and_then(metrics_of))
                .or(src.default.map(Plan::Constant));
            match plan {
                Some(plan) => plans.push((counter, plan)),
                None => {
                    let absent = src
                        .metrics
                        .iter()
                        .chain(&src.divide_by)
                        .filter(|m| find(m).is_none())
                        .cloned()
                        .collect();
                    missing.push((counter, absent));
                }
            }
        }
        MappedMetrics {
            generation: self.generation,
            plans,
            missing,
        }
    }
}

#[derive(Debug, Clone)]
enum Plan {
    Constant(f64),
    Metrics {
        num: Vec<usize>,
        den: Vec<usize>,
        scale: f64,
        max: f64,
    },
}

/// A counter map bound to one recording's metric columns.
#[derive(Debug, Clone)]
pub struct MappedMetrics {
    /// Generation of the map.
    pub generation: Generation,
    plans: Vec<(Counter, Plan)>,
    /// Counters the map knows but the recording lacks, with the absent metric names.
    pub missing: Vec<(Counter, Vec<String>)>,
}

impl MappedMetrics {
    /// Canonical values from one row of raw metrics plus the launch geometry.
    pub fn values(&self, metrics: &[f64], global_size: f64, local_size: f64) -> CounterValues {
        let mut out = CounterValues::default();
        for (counter, plan) in &self.plans {
            out[*counter] = match plan {
                Plan::Constant(c) => *c,
                Plan::Metrics {
                    num,
                    den,
                    scale,
                    max,
                } => {
                    let n: f64 = num.iter().map(|&i| metrics[i]).sum();
                    let value = if den.is_empty() {
                        n * scale
                    } else {
                        let d: f64 = den.iter().map(|&i| metrics[i]).sum();
                        if d > 0.0 {
                            n / d * scale
                        } else {
                            0.0
                        }
                    };
                    value.min(*max)
                }
            };
        }
        out[Counter::GlobalSize] = global_size;
        out[Counter::LocalSize] = local_size;
        out
    }

    /// Fails, naming the absent metrics, unless every counter in `needed` can be read.
    pub fn require(&self, needed: &[Counter], what: &str) -> Result<()> {
        let absent: Vec<String> = self
            .missing
            .iter()
            .filter(|(c, _)| needed.contains(c))
            .map(|(c, m)| format!("{c} (needs {})", m.join(" + ")))
            .collect();
        if absent.is_empty() {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "{what} lacks counters the expert system needs: {}",
                absent.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"
generation = "volta"
min_compute_capability = 7.0
[counters.DRAM_U]
metrics = ["dram_pct"]
scale = 0.1
[counters.LOC_O]
metrics = ["loc_ld", "loc_st"]
divide_by = ["l2_rd", "l2_wr"]
scale = 100.0
[counters.WARP_E]
constant = 100.0
[counters.SFU_U]
metrics = ["sfu"]
default = 0.0
[counters.L2_U]
metrics = ["l2_pct"]
"#;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn maps_scales_ratios_constants_and_defaults() {
        let map = CounterMap::parse(MAP, Path::new("m.toml")).unwrap();
        let bound = map.resolve(&names(&["l2_rd", "dram_pct", "loc_st", "loc_ld", "l2_wr"]));
        let v = bound.values(&[30.0, 55.0, 1.0, 2.0, 10.0], 1024.0, 64.0);
        assert!((v[Counter::DramU] - 5.5).abs() < 1e-12);
        assert!((v[Counter::LocO] - 7.5).abs() < 1e-12);
        assert_eq!(v[Counter::WarpE], 100.0);
        assert_eq!(v[Counter::SfuU], 0.0);
        assert_eq!(v[Counter::GlobalSize], 1024.0);
        assert!(v[Counter::L2U].is_nan());
        let err = bound
            .require(&[Counter::L2U, Counter::DramU], "x.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("L2_U (needs l2_pct)"), "{err}");
    }

    #[test]
    fn a_bound_caps_an_approximation_that_overshoots() {
        let capped = MAP.replace("[counters.WARP_E]", "max = 100.0\n[counters.WARP_E]");
        let map = CounterMap::parse(&capped, Path::new("m.toml")).unwrap();
        let bound = map.resolve(&names(&["l2_rd", "dram_pct", "loc_st", "loc_ld", "l2_wr"]));
        // Local sectors 3 times the L2 sectors: 300 % before the cap.
        let v = bound.values(&[1.0, 55.0, 1.5, 1.5, 0.0], 1024.0, 64.0);
        assert_eq!(v[Counter::LocO], 100.0);
        let v = bound.values(&[30.0, 55.0, 1.0, 2.0, 10.0], 1024.0, 64.0);
        assert!(
            (v[Counter::LocO] - 7.5).abs() < 1e-12,
            "below the cap: unchanged"
        );
        let err = CounterMap::parse(
            "generation = \"volta\"\nmin_compute_capability = 7.0\n[counters.LOC_O]\nmetrics=[\"a\"]\nmax = nan\n",
            Path::new("bad.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("counters.LOC_O.max"), "{err}");
    }

    #[test]
    fn hardware_sources_serve_the_live_profiler_and_recordings_without_the_usual_metrics() {
        let text =
            format!("{MAP}[hardware.L2_U]\nmetrics = [\"l2_hw_a\", \"l2_hw_b\"]\nscale = 2.0\n");
        let map = CounterMap::parse(&text, Path::new("m.toml")).unwrap();
        let live = map.live();
        assert_eq!(
            live.source(Counter::L2U).unwrap().metrics,
            ["l2_hw_a", "l2_hw_b"]
        );
        assert!(!live.metric_names().contains(&"l2_pct".to_string()));
        // A recording of the live profiler: the usual metric is absent, the hardware ones present.
        let bound = map.resolve(&names(&["l2_hw_b", "l2_hw_a"]));
        assert_eq!(bound.values(&[1.0, 2.0], 0.0, 0.0)[Counter::L2U], 6.0);
        // Where both are present, the usual metric wins.
        let bound = map.resolve(&names(&["l2_pct", "l2_hw_a", "l2_hw_b"]));
        assert_eq!(bound.values(&[7.0, 1.0, 2.0], 0.0, 0.0)[Counter::L2U], 7.0);
    }

    #[test]
    fn unknown_counter_key_is_named() {
        let err = CounterMap::parse(
            "generation = \"volta\"\nmin_compute_capability = 7.0\n[counters.FOO]\nmetrics=[\"a\"]\n",
            Path::new("bad.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("bad.toml") && err.contains("counters.FOO"),
            "{err}"
        );
    }
}
