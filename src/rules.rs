//! Loading `expert_rules/`: counter maps per generation, reaction constants, device table.
//!
//! The files shipped in `expert_rules/` are compiled in; `--rules DIR` replaces any of them with a
//! file of the same name from DIR, and `--devices FILE` adds devices to the table.

use crate::counters::{CounterMap, Generation};
use crate::device::DeviceTable;
use crate::error::{Error, Result};
use crate::input::{read_text_bounded, MAX_SMALL_FILE_BYTES};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Constants of the reaction and of the search loop (`expert_rules/reaction.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReactionConstants {
    /// Instruction bottlenecks below this cause no reaction.
    pub inst_reaction: f64,
    /// `inst_reaction` for kernels declared compute-bound.
    pub inst_reaction_compute_bound: f64,
    /// Exponent of the score-to-weight mapping.
    pub exponent: f64,
    /// Scores at or below this get the floor weight.
    pub cutoff: f64,
    /// Smallest weight of an unexplored configuration.
    pub floor: f64,
    /// Plain tests between two profiled tests.
    pub plain_tests_per_profile: usize,
    /// Threads per FP32 core below which parallelism is a bottleneck.
    pub threads_per_core: f64,
}

impl ReactionConstants {
    fn validate(&self, path: &Path) -> Result<()> {
        let check = |key: &str, value: f64, ok: bool, range: &str| {
            if ok && value.is_finite() {
                Ok(())
            } else {
                Err(Error::file(
                    path,
                    format!("key `{key}` = {value} is out of range: it must be {range}"),
                ))
            }
        };
        let r = self;
        check(
            "inst_reaction",
            r.inst_reaction,
            (0.0..1.0).contains(&r.inst_reaction),
            "from 0 to below 1",
        )?;
        check(
            "inst_reaction_compute_bound",
            r.inst_reaction_compute_bound,
            (0.0..1.0).contains(&r.inst_reaction_compute_bound),
            "from 0 to below 1",
        )?;
        // Weights are (1 + s)^exponent with 1 + s up to 2: beyond 64 they overflow to infinity.
        check(
            "exponent",
            r.exponent,
            r.exponent > 0.0 && r.exponent <= 64.0,
            "above 0 and at most 64",
        )?;
        check(
            "cutoff",
            r.cutoff,
            (-1.0..=0.0).contains(&r.cutoff),
            "from -1 to 0",
        )?;
        check(
            "floor",
            r.floor,
            r.floor > 0.0 && r.floor < 1.0,
            "above 0 and below 1",
        )?;
        let tests = r.plain_tests_per_profile;
        check(
            "plain_tests_per_profile",
            tests as f64,
            (1..=1000).contains(&tests),
            "a whole number from 1 to 1000",
        )?;
        check(
            "threads_per_core",
            r.threads_per_core,
            r.threads_per_core > 0.0 && r.threads_per_core <= 1e6,
            "above 0 and at most 1000000",
        )?;
        Ok(())
    }
}

/// Everything in `expert_rules/`, loaded and validated.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Counter maps, one per generation.
    pub counter_maps: Vec<CounterMap>,
    /// Reaction and search constants.
    pub reaction: ReactionConstants,
    /// Known devices.
    pub devices: DeviceTable,
}

const BUILTIN: &[(&str, &str)] = &[
    (
        "counters-kepler.toml",
        include_str!("../expert_rules/counters-kepler.toml"),
    ),
    (
        "counters-maxwell-pascal.toml",
        include_str!("../expert_rules/counters-maxwell-pascal.toml"),
    ),
    (
        "counters-volta.toml",
        include_str!("../expert_rules/counters-volta.toml"),
    ),
    (
        "reaction.toml",
        include_str!("../expert_rules/reaction.toml"),
    ),
    ("devices.toml", include_str!("../expert_rules/devices.toml")),
];

impl Rules {
    /// The compiled-in rules.
    pub fn builtin() -> Result<Rules> {
        Rules::load(None, None)
    }

    /// Rules with files from `dir` overriding the compiled-in ones and `devices` merged in.
    pub fn load(dir: Option<&Path>, devices: Option<&Path>) -> Result<Rules> {
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(Error::invalid(format!(
                    "--rules {}: {}; it must name a directory of rules files (counters-*.toml, reaction.toml, devices.toml)",
                    dir.display(),
                    if dir.exists() { "not a directory" } else { "no such directory" }
                )));
            }
        }
        let read = |name: &str| -> Result<(PathBuf, String)> {
            if let Some(dir) = dir {
                let path = dir.join(name);
                if path.exists() {
                    let text = read_text_bounded(&path, MAX_SMALL_FILE_BYTES)?;
                    return Ok((path, text));
                }
            }
            let text = BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.to_string())
                .unwrap_or_default();
            Ok((Path::new("expert_rules").join(name), text))
        };
        let mut counter_maps = Vec::new();
        for generation in Generation::ALL {
            let (path, text) = read(&format!("counters-{}.toml", generation.name()))?;
            let map = CounterMap::parse(&text, &path)?;
            if map.generation != generation {
                return Err(Error::file(
                    &path,
                    format!(
                        "key `generation` says {:?}, expected {}",
                        map.generation,
                        generation.name()
                    ),
                ));
            }
            counter_maps.push(map);
        }
        let (path, text) = read("reaction.toml")?;
        let reaction: ReactionConstants =
            toml::from_str(&text).map_err(|e| Error::file(&path, format!("malformed: {e}")))?;
        reaction.validate(&path)?;
        let (path, text) = read("devices.toml")?;
        let mut table = DeviceTable::parse(&text, &path)?;
        if let Some(extra) = devices {
            let text = read_text_bounded(extra, MAX_SMALL_FILE_BYTES)?;
            table.merge(&text, extra)?;
        }
        Ok(Rules {
            counter_maps,
            reaction,
            devices: table,
        })
    }

    /// The counter map of a generation.
    pub fn counter_map(&self, generation: Generation) -> &CounterMap {
        self.counter_maps
            .iter()
            .find(|m| m.generation == generation)
            .expect("Rules::load keeps one map per generation")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rules_load_with_the_papers_constants() {
        let rules = Rules::builtin().unwrap();
        assert_eq!(rules.reaction.inst_reaction, 0.7);
        assert_eq!(rules.reaction.inst_reaction_compute_bound, 0.5);
        assert_eq!(rules.reaction.exponent, 8.0);
        assert_eq!(rules.reaction.cutoff, -0.25);
        assert_eq!(rules.reaction.plain_tests_per_profile, 5);
        assert_eq!(rules.counter_maps.len(), 3);
    }

    #[test]
    fn an_override_directory_replaces_a_file_and_bad_keys_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("reaction.toml"),
            "inst_reaction = 1.5\ninst_reaction_compute_bound = 0.5\nexponent = 8.0\ncutoff = -0.25\nfloor = 0.0001\nplain_tests_per_profile = 5\nthreads_per_core = 5.0\n",
        )
        .unwrap();
        let err = Rules::load(Some(dir.path()), None).unwrap_err().to_string();
        assert!(
            err.contains("reaction.toml") && err.contains("inst_reaction"),
            "{err}"
        );
        std::fs::write(dir.path().join("reaction.toml"), "inst_reaction = 0.7\n").unwrap();
        let err = Rules::load(Some(dir.path()), None).unwrap_err().to_string();
        assert!(
            err.contains("reaction.toml") && err.contains("missing field"),
            "{err}"
        );
    }
}
