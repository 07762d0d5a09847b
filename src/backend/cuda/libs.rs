//! Finding and loading the CUDA libraries, before any cudarc call.
//!
//! cudarc loads libcuda, libnvrtc and libcupti by bare name at first use and panics when one is
//! missing. Two things go wrong with that on real machines: the toolkit's folders (NVRTC in
//! `lib64`, CUPTI in `extras/CUPTI/lib64`) are often not on the loader's path, and CUDA 13 names its
//! libraries `.so.13`. So pcsearch looks in the usual toolkit folders itself and loads what it finds
//! by full path first: the dynamic loader then hands cudarc's later load by soname
//! (`libnvrtc.so.13`, `libcupti.so.12`, …) the library already in the process. Absence becomes a
//! one-sentence error instead of a panic.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The sentence `tune` and `record` stop with on a machine without the NVIDIA driver.
pub const NO_DRIVER: &str = "the CUDA driver library (libcuda.so) was not found: tune and record need an NVIDIA GPU with its driver installed";

/// The sentence for a missing NVRTC.
pub const NO_NVRTC: &str = "the NVRTC library (libnvrtc.so) was not found: install the CUDA toolkit (12.x or 13.x), or set CUDA_HOME to it";

/// CUDA major versions whose libraries pcsearch loads, newest first.
const MAJORS: [u32; 2] = [13, 12];

/// Environment variables that may name a CUDA toolkit, in the order they are consulted.
const TOOLKIT_VARIABLES: [&str; 3] = ["PCSEARCH_CUDA_HOME", "CUDA_HOME", "CUDA_PATH"];

/// Folders, relative to a toolkit's root, that hold its libraries.
const LIBRARY_FOLDERS: [&str; 4] = [
    "lib64",
    "targets/x86_64-linux/lib",
    "extras/CUPTI/lib64",
    "lib",
];

/// Toolkit roots to search: the ones the environment names, then `/usr/local/cuda`, then versioned
/// installs (`/usr/local/cuda-13.0`, …), newest first.
pub fn toolkit_roots(env: &dyn Fn(&str) -> Option<String>, installed: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = TOOLKIT_VARIABLES
        .iter()
        .filter_map(|v| env(v))
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut versioned: Vec<(Vec<u32>, PathBuf)> = installed
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let version = name.strip_prefix("cuda-")?;
            let parts: Option<Vec<u32>> = version.split('.').map(|n| n.parse().ok()).collect();
            Some((parts?, p.clone()))
        })
        .collect();
    versioned.sort_by(|a, b| b.0.cmp(&a.0));
    roots.extend(versioned.into_iter().map(|(_, p)| p));
    roots.dedup();
    roots
}

/// File names a library `stem` (`nvrtc`, `cupti`) may have, most specific first: CUDA 13's and 12's
/// sonames, then the toolkit's unversioned link.
pub fn file_names(stem: &str) -> Vec<String> {
    MAJORS
        .iter()
        .map(|m| format!("lib{stem}.so.{m}"))
        .chain(std::iter::once(format!("lib{stem}.so")))
        .collect()
}

/// Candidate full paths of library `stem` under `roots`, in search order.
pub fn candidate_paths(stem: &str, roots: &[PathBuf]) -> Vec<PathBuf> {
    let names = file_names(stem);
    let mut paths = Vec::new();
    for root in roots {
        for folder in LIBRARY_FOLDERS {
            for name in &names {
                paths.push(root.join(folder).join(name));
            }
        }
    }
    paths
}

/// Versioned toolkit installs under `/usr/local`.
fn installed_toolkits() -> Vec<PathBuf> {
    std::fs::read_dir("/usr/local")
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Loads the first existing candidate of `stem` by full path and keeps it loaded for the
/// process's lifetime; returns its path, or `None` when no toolkit folder holds it.
fn preload(stem: &str) -> Option<PathBuf> {
    let env = |v: &str| std::env::var(v).ok();
    let roots = toolkit_roots(&env, &installed_toolkits());
    candidate_paths(stem, &roots)
        .into_iter()
        .filter(|p| p.is_file())
        .find(|p| {
            // SAFETY: loading a CUDA library runs only its initialisers, as cudarc's own load
            // would; the handle is leaked on purpose so the library stays for cudarc to find.
            match unsafe { libloading::Library::new(p) } {
                Ok(lib) => {
                    std::mem::forget(lib);
                    true
                }
                Err(_) => false,
            }
        })
}

/// Where NVRTC and CUPTI were found in toolkit folders (each looked for once per process).
fn preloaded() -> &'static (Option<PathBuf>, Option<PathBuf>) {
    static FOUND: OnceLock<(Option<PathBuf>, Option<PathBuf>)> = OnceLock::new();
    FOUND.get_or_init(|| (preload("nvrtc"), preload("cupti")))
}

/// The NVRTC and CUPTI files loaded from toolkit folders, for reports (`None`: left to the loader's
/// own search path, or absent).
pub fn loaded_paths() -> (Option<&'static Path>, Option<&'static Path>) {
    let (n, c) = preloaded();
    (n.as_deref(), c.as_deref())
}

/// Fails with [`NO_DRIVER`] unless the driver library can be loaded.
pub fn require_driver() -> Result<()> {
    // SAFETY: only tries to dlopen candidate names; no symbol is called.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::Device(NO_DRIVER.into()))
    }
}

/// Fails with [`NO_NVRTC`] unless NVRTC can be loaded.
pub fn require_nvrtc() -> Result<()> {
    preloaded();
    // SAFETY: as above.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::Device(NO_NVRTC.into()))
    }
}

/// Why counters cannot be collected, if CUPTI or its range-profiler API is missing.
pub fn cupti_problem() -> Option<String> {
    preloaded();
    // SAFETY: as above.
    if !unsafe { cudarc::cupti::sys::is_culib_present() } {
        return Some(
            "the CUPTI library (libcupti.so) was not found: install the CUDA toolkit's CUPTI (extras/CUPTI/lib64) or set CUDA_HOME to the toolkit".into(),
        );
    }
    // The range profiler and profiler host APIs appeared in CUPTI 12.6; an older library would
    // make cudarc panic on the first missing symbol, so look them up by name first.
    const NEEDED: &[&str] = &[
        "cuptiProfilerInitialize",
        "cuptiDeviceGetChipName",
        "cuptiProfilerGetCounterAvailability",
        "cuptiRangeProfilerEnable",
        "cuptiRangeProfilerSetConfig",
        "cuptiRangeProfilerStart",
        "cuptiRangeProfilerStop",
        "cuptiRangeProfilerDecodeData",
        "cuptiRangeProfilerGetCounterDataSize",
        "cuptiRangeProfilerCounterDataImageInitialize",
        "cuptiRangeProfilerGetCounterDataInfo",
        "cuptiProfilerHostInitialize",
        "cuptiProfilerHostConfigAddMetrics",
        "cuptiProfilerHostGetConfigImageSize",
        "cuptiProfilerHostGetConfigImage",
        "cuptiProfilerHostGetNumOfPasses",
        "cuptiProfilerHostEvaluateToGpuValues",
    ];
    // SAFETY: the library is present (checked above); `get` only resolves the symbol.
    let lib = unsafe { cudarc::cupti::sys::culib() };
    let missing: Vec<&str> = NEEDED
        .iter()
        .copied()
        .filter(|name| unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err())
        .collect();
    if missing.is_empty() {
        None
    } else {
        Some(format!(
            "the CUPTI library lacks the range profiler API ({}): counters need CUPTI from CUDA 12.6 or newer",
            missing.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_driver_is_one_sentence() {
        match require_driver() {
            // A machine with a driver cannot test the message; the check itself still ran.
            Ok(()) => eprintln!("libcuda present: skipping the no-driver assertion"),
            Err(e) => {
                let text = e.to_string();
                assert_eq!(text, NO_DRIVER);
                assert_eq!(text.matches(". ").count(), 0, "one sentence");
            }
        }
    }

    #[test]
    fn cuda_13_names_come_before_12_and_the_unversioned_link() {
        assert_eq!(
            file_names("cupti"),
            ["libcupti.so.13", "libcupti.so.12", "libcupti.so"]
        );
    }

    #[test]
    fn roots_follow_the_environment_then_the_newest_install() {
        let env = |v: &str| match v {
            "CUDA_HOME" => Some("/opt/cuda".to_string()),
            "CUDA_PATH" => Some(String::new()),
            _ => None,
        };
        let installed = [
            PathBuf::from("/usr/local/cuda-12.8"),
            PathBuf::from("/usr/local/cuda-13.0"),
            PathBuf::from("/usr/local/cuda-12.10"),
            PathBuf::from("/usr/local/bin"),
        ];
        let roots = toolkit_roots(&env, &installed);
        let roots: Vec<&str> = roots.iter().filter_map(|p| p.to_str()).collect();
        assert_eq!(
            roots,
            [
                "/opt/cuda",
                "/usr/local/cuda",
                "/usr/local/cuda-13.0",
                "/usr/local/cuda-12.10",
                "/usr/local/cuda-12.8"
            ]
        );
    }

    #[test]
    fn cupti_is_looked_for_in_the_extras_folder() {
        let paths = candidate_paths("cupti", &[PathBuf::from("/usr/local/cuda")]);
        assert!(paths.contains(&PathBuf::from(
            "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"
        )));
        assert_eq!(
            paths[0],
            PathBuf::from("/usr/local/cuda/lib64/libcupti.so.13")
        );
    }

    #[test]
    fn a_real_file_in_a_toolkit_folder_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("extras/CUPTI/lib64");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join("libcupti.so.13"), b"").unwrap();
        let found = candidate_paths("cupti", &[dir.path().to_path_buf()])
            .into_iter()
            .find(|p| p.is_file());
        assert_eq!(found, Some(lib.join("libcupti.so.13")));
    }
}
