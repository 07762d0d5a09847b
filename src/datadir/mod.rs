//! The data directory: where recorded tuning data lives on this machine, and short names for it.
//!
//! The recorded data set is third-party data, so the repository never holds it. pcsearch looks for
//! it in `--data-dir`, then `$PCSEARCH_DATA`, then `./replay_data`, then `../shared/replay_data`;
//! `pcsearch data fetch` downloads it from its publisher into the first of those that applies.

pub mod fetch;
pub mod manifest;
pub mod names;

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Environment variable naming the data directory.
pub const ENV: &str = "PCSEARCH_DATA";

/// Where a data directory was found, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `--data-dir DIR`.
    Flag,
    /// `$PCSEARCH_DATA`.
    Env,
    /// `./replay_data`, next to the working directory.
    Local,
    /// `../shared/replay_data`, beside the working directory.
    Shared,
}

impl Origin {
    /// How the user named it.
    pub fn describe(self) -> &'static str {
        match self {
            Origin::Flag => "--data-dir",
            Origin::Env => "PCSEARCH_DATA",
            Origin::Local => "./replay_data",
            Origin::Shared => "../shared/replay_data",
        }
    }
}

/// A data directory and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    /// The directory.
    pub path: PathBuf,
    /// Which rule chose it.
    pub origin: Origin,
}

/// How to look for the data directory: the command line's choice, the environment's, and the
/// directory relative names are taken from (the working directory for the CLI, the crate root for
/// tests).
#[derive(Debug, Clone)]
pub struct Lookup {
    /// `--data-dir`, if given.
    pub flag: Option<PathBuf>,
    /// `$PCSEARCH_DATA`, if set and not empty.
    pub env: Option<PathBuf>,
    /// Base of relative paths.
    pub base: PathBuf,
}

impl Lookup {
    /// The lookup of this process: `flag`, the environment, relative to the working directory.
    pub fn from_env(flag: Option<&Path>) -> Self {
        // An empty base keeps relative paths as the user would write them (`replay_data`).
        Lookup::from_env_at(flag, Path::new(""))
    }

    /// The lookup of this process with relative paths taken from `base`.
    pub fn from_env_at(flag: Option<&Path>, base: &Path) -> Self {
        Lookup {
            flag: flag.map(Path::to_path_buf),
            env: std::env::var_os(ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            base: base.to_path_buf(),
        }
    }

    /// The directories to consider, in order. An explicit choice (flag, then environment) is the
    /// only candidate: a user who names a directory never wants another one silently.
    pub fn candidates(&self) -> Vec<DataDir> {
        if let Some(path) = &self.flag {
            return vec![DataDir {
                path: self.base.join(path),
                origin: Origin::Flag,
            }];
        }
        if let Some(path) = &self.env {
            return vec![DataDir {
                path: self.base.join(path),
                origin: Origin::Env,
            }];
        }
        vec![
            DataDir {
                path: self.base.join("replay_data"),
                origin: Origin::Local,
            },
            DataDir {
                path: self.base.join("../shared/replay_data"),
                origin: Origin::Shared,
            },
        ]
    }

    /// The data directory to read: the explicit one if given, else the first candidate holding
    /// data.
    pub fn find(&self) -> Option<DataDir> {
        let explicit = self.flag.is_some() || self.env.is_some();
        self.candidates()
            .into_iter()
            .find(|c| explicit || holds_data(&c.path))
    }

    /// Like [`Lookup::find`], but an absent data set is an error that says where pcsearch looked
    /// and how to get the data.
    pub fn require(&self) -> Result<DataDir> {
        match self.find() {
            Some(dir) if dir.path.is_dir() => Ok(dir),
            Some(dir) => Err(Error::invalid(format!(
                "the data directory {} (from {}) does not exist; {}",
                dir.path.display(),
                dir.origin.describe(),
                HOW_TO_GET
            ))),
            None => Err(Error::invalid(format!(
                "the recorded data set was not found (looked in {}); {}",
                self.candidates()
                    .iter()
                    .map(|c| c.path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                HOW_TO_GET
            ))),
        }
    }

    /// Where `data fetch` writes: the explicit directory, else the first candidate already
    /// holding data, else `./replay_data` (whose contents git ignores).
    pub fn fetch_target(&self) -> DataDir {
        self.find().unwrap_or_else(|| DataDir {
            path: self.base.join("replay_data"),
            origin: Origin::Local,
        })
    }
}

/// Whether `dir` holds recorded data in the data set's layout (`ktt-paper/` or `ktt2/`).
///
/// The repository's own `replay_data/` holds only documentation until data is fetched into it.
pub fn holds_data(dir: &Path) -> bool {
    manifest::LAYOUT_DIRS.iter().any(|d| dir.join(d).is_dir())
}

/// The one sentence that tells a user how to get the data.
pub const HOW_TO_GET: &str = "download it with `pcsearch data fetch`, or name a directory holding it with --data-dir DIR or PCSEARCH_DATA=DIR (see replay_data/README.md)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_candidate_holding_data_is_chosen_and_an_explicit_one_always_wins() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().join("repo");
        std::fs::create_dir_all(base.join("replay_data")).unwrap();
        std::fs::create_dir_all(root.path().join("shared/replay_data/ktt-paper")).unwrap();
        // ./replay_data holds only documentation: it does not count.
        let at = |flag: Option<&Path>| Lookup {
            flag: flag.map(Path::to_path_buf),
            env: None,
            base: base.clone(),
        };
        let found = at(None).find().unwrap();
        assert_eq!(found.origin, Origin::Shared);
        std::fs::create_dir_all(base.join("replay_data/ktt2")).unwrap();
        assert_eq!(at(None).find().unwrap().origin, Origin::Local);
        let empty = root.path().join("empty");
        let chosen = at(Some(&empty)).find().unwrap();
        assert_eq!((chosen.origin, chosen.path), (Origin::Flag, empty.clone()));
        let err = at(Some(&empty)).require().unwrap_err().to_string();
        assert!(
            err.contains("does not exist") && err.contains("pcsearch data fetch"),
            "{err}"
        );
    }

    #[test]
    fn no_data_anywhere_says_where_it_looked_and_how_to_get_it() {
        let root = tempfile::tempdir().unwrap();
        let lookup = Lookup {
            flag: None,
            env: None,
            base: root.path().to_path_buf(),
        };
        let err = lookup.require().unwrap_err().to_string();
        assert!(
            err.contains("replay_data and ")
                && err.contains("shared/replay_data")
                && err.contains("pcsearch data fetch"),
            "{err}"
        );
        assert_eq!(lookup.fetch_target().path, root.path().join("replay_data"));
    }
}
