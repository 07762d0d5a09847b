//! Presence checks of the CUDA libraries, made before any cudarc call.
//!
//! cudarc loads libcuda, libnvrtc and libcupti at first use and panics when one is missing; these
//! checks turn absence into a one-sentence error instead.

use crate::error::{Error, Result};

/// The sentence `tune` and `record` stop with on a machine without the NVIDIA driver.
pub const NO_DRIVER: &str = "the CUDA driver library (libcuda.so) was not found: tune and record need an NVIDIA GPU with its driver installed";

/// The sentence for a missing NVRTC.
pub const NO_NVRTC: &str = "the NVRTC library (libnvrtc.so) was not found: install the CUDA toolkit (12.x) and put its lib64 directory on LD_LIBRARY_PATH";

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
    // SAFETY: as above.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::Device(NO_NVRTC.into()))
    }
}

/// Why counters cannot be collected, if CUPTI or its range-profiler API is missing.
pub fn cupti_problem() -> Option<String> {
    // SAFETY: as above.
    if !unsafe { cudarc::cupti::sys::is_culib_present() } {
        return Some(
            "the CUPTI library (libcupti.so) was not found: add the CUDA toolkit's extras/CUPTI/lib64 directory to LD_LIBRARY_PATH".into(),
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
}
