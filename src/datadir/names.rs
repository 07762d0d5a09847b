//! Short names for files of the data directory, so that commands read the same on every machine:
//! `paper:coulomb/680`, `paper:mtran`, `paper:all`, `ktt2:coulomb-2080ti`, `all`, or a benchmark
//! name such as `nbody`.

use super::Lookup;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// What a `--space` argument stands for: the path itself when it exists, else the data directory
/// files of its name. A name that matches no file is an error naming what exists.
pub fn expand(spec: &Path, lookup: &Lookup) -> Result<Vec<PathBuf>> {
    if spec.exists() {
        return Ok(vec![spec.to_path_buf()]);
    }
    let Some(text) = spec.to_str().filter(|t| is_name(t)) else {
        // Not a name: let the reader say the file does not exist, with the path as given.
        return Ok(vec![spec.to_path_buf()]);
    };
    if text == "all" {
        return all_recordings(lookup);
    }
    let dir = lookup.require()?;
    let files = resolve(text, &dir.path)?;
    if files.is_empty() {
        return Err(Error::invalid(format!(
            "`{text}` names no file in the data directory {} (from {}); {}",
            dir.path.display(),
            dir.origin.describe(),
            available(&dir.path)
        )));
    }
    Ok(files)
}

/// pcsearch's own recordings, kept in the repository (measured with `pcsearch record`), relative to
/// the working directory.
pub const OWN_RECORDINGS: &str = "replay_data/h100";

/// `all`: every file of the data directory and pcsearch's own recordings. Without a data
/// directory, the own recordings alone, so that a fresh clone still replays real data.
fn all_recordings(lookup: &Lookup) -> Result<Vec<PathBuf>> {
    let own = files_in(&lookup.base.join(OWN_RECORDINGS), "csv");
    let Some(dir) = lookup.find().filter(|d| d.path.is_dir()) else {
        if own.is_empty() {
            lookup.require()?;
        }
        eprintln!(
            "note: the recorded data set was not found, so `all` is pcsearch's own recordings in {OWN_RECORDINGS}; {}",
            super::HOW_TO_GET
        );
        return Ok(own);
    };
    let mut files = resolve("all", &dir.path)?;
    let known: Vec<PathBuf> = files.iter().filter_map(|f| f.canonicalize().ok()).collect();
    files.extend(
        own.into_iter()
            .filter(|f| f.canonicalize().is_ok_and(|c| !known.contains(&c))),
    );
    Ok(files)
}

/// Whether `text` has the form of a name rather than of a path.
pub fn is_name(text: &str) -> bool {
    text == "all"
        || text.starts_with("paper:")
        || text.starts_with("ktt2:")
        || (!text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
}

/// The files of `name` inside data directory `dir`, in a stable order.
pub fn resolve(name: &str, dir: &Path) -> Result<Vec<PathBuf>> {
    let paper = dir.join("ktt-paper");
    if name == "all" {
        let mut files = resolve("paper:all", dir)?;
        files.extend(resolve("ktt2:all", dir)?);
        return Ok(files);
    }
    if let Some(rest) = name.strip_prefix("ktt2:") {
        let files = files_in(&dir.join("ktt2"), "json");
        return Ok(if rest == "all" {
            files
        } else {
            files
                .into_iter()
                .filter(|f| f.file_stem().is_some_and(|s| s == rest))
                .collect()
        });
    }
    let rest = name.strip_prefix("paper:").unwrap_or(name);
    if rest == "all" {
        return Ok(subdirs(&paper)
            .iter()
            .flat_map(|d| files_in(d, "csv"))
            .collect());
    }
    let (bench, gpu) = rest.split_once('/').unwrap_or((rest, ""));
    let files = files_in(&paper.join(bench), "csv");
    Ok(if gpu.is_empty() {
        files
    } else {
        let prefix = format!("{gpu}-");
        files
            .into_iter()
            .filter(|f| {
                f.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix))
            })
            .collect()
    })
}

/// The names a data directory offers, for error messages.
pub fn available(dir: &Path) -> String {
    let benches: Vec<String> = subdirs(&dir.join("ktt-paper"))
        .iter()
        .filter_map(|d| d.file_name()?.to_str().map(|s| format!("paper:{s}")))
        .collect();
    let ktt2: Vec<String> = files_in(&dir.join("ktt2"), "json")
        .iter()
        .filter_map(|f| f.file_stem()?.to_str().map(|s| format!("ktt2:{s}")))
        .collect();
    if benches.is_empty() && ktt2.is_empty() {
        return "it holds no recorded data".into();
    }
    format!(
        "names there: all, paper:all, {} (add /GPU, e.g. paper:coulomb/680)",
        benches
            .into_iter()
            .chain(ktt2)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Files of `dir` with extension `ext`, GPU prefixes in numeric order (680 before 1070).
fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort_by_key(|p| {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let number = name
            .split('-')
            .next()
            .and_then(|g| g.parse::<u64>().ok())
            .unwrap_or(u64::MAX);
        (number, name)
    });
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "ktt-paper/coulomb/1070-coulomb_output.csv",
            "ktt-paper/coulomb/680-coulomb_output.csv",
            "ktt-paper/mtran/750-mtran_output.csv",
            "ktt-paper/gemm-inputs/1070-gemm-16-4096-4096_output.csv",
            "ktt2/coulomb-2080ti.json",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        dir
    }

    fn names(name: &str, dir: &Path) -> Vec<String> {
        resolve(name, dir)
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn names_stand_for_files_in_numeric_gpu_order() {
        let d = data_dir();
        let d = d.path();
        assert_eq!(
            names("paper:coulomb", d),
            [
                "ktt-paper/coulomb/680-coulomb_output.csv",
                "ktt-paper/coulomb/1070-coulomb_output.csv"
            ]
        );
        assert_eq!(
            names("coulomb/1070", d),
            ["ktt-paper/coulomb/1070-coulomb_output.csv"]
        );
        assert_eq!(
            names("paper:gemm-inputs/1070", d),
            ["ktt-paper/gemm-inputs/1070-gemm-16-4096-4096_output.csv"]
        );
        assert_eq!(names("paper:all", d).len(), 4);
        assert_eq!(names("all", d).len(), 5);
        assert_eq!(
            names("ktt2:coulomb-2080ti", d),
            ["ktt2/coulomb-2080ti.json"]
        );
        assert!(names("paper:coulomb/2080", d).is_empty());
    }

    #[test]
    fn all_adds_pcsearchs_own_recordings_and_falls_back_to_them_alone() {
        let root = tempfile::tempdir().unwrap();
        let clone = root.path().join("pcsearch");
        let own = clone.join(OWN_RECORDINGS).join("h100-transpose_output.csv");
        std::fs::create_dir_all(own.parent().unwrap()).unwrap();
        std::fs::write(&own, "x").unwrap();
        let lookup = Lookup {
            flag: None,
            env: None,
            base: clone.clone(),
        };
        // A fresh clone: no data set anywhere, the own recordings alone.
        assert_eq!(
            expand(Path::new("all"), &lookup).unwrap(),
            std::slice::from_ref(&own)
        );
        // With the data set beside the clone: its files, then the own recordings.
        let shared = root.path().join("shared/replay_data/ktt2");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("coulomb-2080ti.json"), "x").unwrap();
        let files = expand(Path::new("all"), &lookup).unwrap();
        assert_eq!(files.len(), 2);
        assert!(files[0].ends_with("ktt2/coulomb-2080ti.json"));
        assert_eq!(files[1], own);
    }

    #[test]
    fn paths_are_not_names_and_a_name_without_files_lists_what_exists() {
        assert!(is_name("paper:coulomb/680") && is_name("nbody") && is_name("all"));
        assert!(!is_name("data/x.csv") && !is_name("x.json"));
        let d = data_dir();
        let lookup = Lookup {
            flag: Some(d.path().to_path_buf()),
            env: None,
            base: PathBuf::from("."),
        };
        let err = expand(Path::new("paper:gemm"), &lookup)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`paper:gemm` names no file")
                && err
                    .contains("paper:coulomb, paper:gemm-inputs, paper:mtran, ktt2:coulomb-2080ti"),
            "{err}"
        );
        assert_eq!(
            expand(Path::new("no/such.csv"), &lookup).unwrap(),
            [PathBuf::from("no/such.csv")]
        );
    }
}
