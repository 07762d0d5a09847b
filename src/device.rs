//! Device facts (compute capability, SM count, FP32 cores per SM) from a user-extensible table.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the expert system must know about a GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Short key accepted by `--gpu`.
    pub key: String,
    /// Full name as drivers report it.
    pub name: String,
    /// Compute capability, e.g. 6.1.
    pub compute_capability: f64,
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// FP32 cores per SM.
    pub fp32_cores_per_sm: u32,
}

impl DeviceInfo {
    /// FP32 cores of the whole GPU.
    pub fn cores(&self) -> f64 {
        f64::from(self.multiprocessors) * f64::from(self.fp32_cores_per_sm)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Architecture {
    min_compute_capability: f64,
    fp32_cores_per_sm: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeviceEntry {
    key: String,
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    compute_capability: f64,
    multiprocessors: u32,
    fp32_cores_per_sm: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    #[serde(default)]
    architecture: Vec<Architecture>,
    #[serde(default)]
    device: Vec<DeviceEntry>,
}

/// The device table: `expert_rules/devices.toml` plus any user file merged over it.
#[derive(Debug, Clone, Default)]
pub struct DeviceTable {
    architecture: Vec<Architecture>,
    devices: Vec<DeviceEntry>,
}

impl DeviceTable {
    /// Parses a table file; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<DeviceTable> {
        let mut table = DeviceTable::default();
        table.merge(text, path)?;
        Ok(table)
    }

    /// Adds the entries of another table file; a device with an existing key replaces it.
    pub fn merge(&mut self, text: &str, path: &Path) -> Result<()> {
        let file: TableFile =
            toml::from_str(text).map_err(|e| Error::file(path, format!("malformed: {e}")))?;
        for d in &file.device {
            let cc_ok =
                d.compute_capability.is_finite() && (1.0..=20.0).contains(&d.compute_capability);
            let sm_ok = (1..=10_000).contains(&d.multiprocessors);
            let cores_ok = d.fp32_cores_per_sm.is_none_or(|c| (1..=4096).contains(&c));
            if !(cc_ok && sm_ok && cores_ok) {
                return Err(Error::file(
                    path,
                    format!(
                        "device `{}`: compute_capability must be from 1 to 20, multiprocessors from 1 to 10000 and fp32_cores_per_sm from 1 to 4096",
                        d.key
                    ),
                ));
            }
        }
        for a in &file.architecture {
            let ok =
                a.min_compute_capability.is_finite() && (1..=4096).contains(&a.fp32_cores_per_sm);
            if !ok {
                return Err(Error::file(
                    path,
                    "[[architecture]]: min_compute_capability must be a finite number and fp32_cores_per_sm from 1 to 4096",
                ));
            }
        }
        self.architecture.extend(file.architecture);
        self.architecture.sort_by(|a, b| {
            a.min_compute_capability
                .total_cmp(&b.min_compute_capability)
        });
        for d in file.device {
            self.devices.retain(|e| e.key != d.key);
            self.devices.push(d);
        }
        for d in &self.devices {
            if d.fp32_cores_per_sm.is_none() && self.cores_for(d.compute_capability).is_none() {
                return Err(Error::file(
                    path,
                    format!(
                        "device `{}` gives no fp32_cores_per_sm and no [[architecture]] covers compute capability {}",
                        d.key, d.compute_capability
                    ),
                ));
            }
        }
        Ok(())
    }

    fn cores_for(&self, cc: f64) -> Option<u32> {
        self.architecture
            .iter()
            .rev()
            .find(|a| a.min_compute_capability <= cc + 1e-9)
            .map(|a| a.fp32_cores_per_sm)
    }

    fn info(&self, d: &DeviceEntry) -> DeviceInfo {
        DeviceInfo {
            key: d.key.clone(),
            name: d.name.clone(),
            compute_capability: d.compute_capability,
            multiprocessors: d.multiprocessors,
            fp32_cores_per_sm: d
                .fp32_cores_per_sm
                .or_else(|| self.cores_for(d.compute_capability))
                .unwrap_or(64),
        }
    }

    /// The device with key `key` (case-insensitive).
    pub fn by_key(&self, key: &str) -> Option<DeviceInfo> {
        self.devices
            .iter()
            .find(|d| d.key.eq_ignore_ascii_case(key))
            .map(|d| self.info(d))
    }

    /// The device whose full name or an alias equals `name` (case-insensitive, `NVIDIA ` optional).
    pub fn by_name(&self, name: &str) -> Option<DeviceInfo> {
        let norm = |s: &str| {
            let s = s.trim().to_ascii_lowercase();
            s.strip_prefix("nvidia ").map(str::to_string).unwrap_or(s)
        };
        let wanted = norm(name);
        self.devices
            .iter()
            .find(|d| {
                std::iter::once(&d.name)
                    .chain(&d.aliases)
                    .any(|n| norm(n) == wanted)
            })
            .map(|d| self.info(d))
    }

    /// A device built from facts a driver reported, when the table does not know it.
    pub fn from_facts(
        &self,
        name: &str,
        compute_capability: f64,
        multiprocessors: u32,
    ) -> DeviceInfo {
        let mut info = self.by_name(name).unwrap_or_else(|| DeviceInfo {
            key: name.to_string(),
            name: name.to_string(),
            compute_capability,
            multiprocessors,
            fp32_cores_per_sm: self.cores_for(compute_capability).unwrap_or(64),
        });
        info.compute_capability = compute_capability;
        info.multiprocessors = multiprocessors;
        info
    }

    /// Keys of all known devices, for error messages.
    pub fn keys(&self) -> Vec<String> {
        self.devices.iter().map(|d| d.key.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> DeviceTable {
        DeviceTable::parse(
            include_str!("../expert_rules/devices.toml"),
            Path::new("devices.toml"),
        )
        .unwrap()
    }

    #[test]
    fn data_set_gpus_are_known_with_their_cores() {
        let t = table();
        let cores = |k: &str| t.by_key(k).unwrap().cores();
        assert_eq!(cores("680"), 8.0 * 192.0);
        assert_eq!(cores("750"), 4.0 * 128.0);
        assert_eq!(cores("1070"), 15.0 * 128.0);
        assert_eq!(cores("2080"), 46.0 * 64.0);
        assert_eq!(t.by_key("a100").unwrap().fp32_cores_per_sm, 64);
        assert_eq!(t.by_key("3090").unwrap().fp32_cores_per_sm, 128);
    }

    #[test]
    fn names_match_with_or_without_vendor_prefix() {
        let t = table();
        assert_eq!(
            t.by_name("NVIDIA GeForce RTX 2080 Ti").unwrap().key,
            "2080ti"
        );
        assert_eq!(t.by_name("GeForce GTX 1070").unwrap().key, "1070");
        assert!(t.by_name("Radeon VII").is_none());
    }

    #[test]
    fn user_file_adds_and_replaces_devices() {
        let mut t = table();
        t.merge(
            "[[device]]\nkey = \"l4\"\nname = \"NVIDIA L4\"\ncompute_capability = 8.9\nmultiprocessors = 58\n",
            Path::new("mine.toml"),
        )
        .unwrap();
        assert_eq!(t.by_key("L4").unwrap().fp32_cores_per_sm, 128);
        let err = t
            .merge("[[device]]\nkey = 1\n", Path::new("mine.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("mine.toml"), "{err}");
    }
}
