//! Counter collection with CUPTI's range profiler and profiler host APIs (CUPTI 12.6+).
//!
//! Set-up, once per context: initialise the profiler, enable the range profiler on the context,
//! read the chip name and counter availability, build a host object and a configuration image with
//! the requested metrics. Per profiled test: a fresh counter-data image, `SetConfig` with automatic
//! ranges and kernel replay (CUPTI replays the one launch as many passes as the metrics need and
//! restores memory between passes), decode, and evaluate the metrics of the single range.
//!
//! Not run on hardware by this project's CI (no GPU): the call sequence follows the CUPTI 12.6
//! range-profiling sample; see the README ("Tests on a GPU machine") for the tests to run on a GPU.

use cudarc::cupti::sys;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;

type Failure = String;

fn check(call: &str, r: sys::CUptiResult) -> Result<(), Failure> {
    if r == sys::CUptiResult::CUPTI_SUCCESS {
        return Ok(());
    }
    let mut text: *const c_char = std::ptr::null();
    // SAFETY: cuptiGetResultString writes a pointer to a static string or leaves it null.
    let described = unsafe { sys::cuptiGetResultString(r, &mut text) }
        == sys::CUptiResult::CUPTI_SUCCESS
        && !text.is_null();
    let message = if described {
        // SAFETY: non-null and NUL-terminated, per CUPTI.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    } else {
        format!("{r:?}")
    };
    Err(format!("CUPTI {call} failed: {message}"))
}

/// Zero-initialised CUPTI parameter struct with its `structSize` set.
macro_rules! params {
    ($ty:ty, $size:expr) => {{
        // SAFETY: CUPTI parameter structs are plain C structs (integers, pointers and enums whose
        // zero value is a declared variant); all-zero is their documented initial state.
        #[allow(unused_unsafe)]
        let mut p: $ty = unsafe { std::mem::zeroed() };
        p.structSize = $size as usize;
        p
    }};
}

/// A range profiler bound to one context, configured for a fixed metric list.
pub struct RangeProfiler {
    object: *mut sys::CUpti_RangeProfiler_Object,
    host: *mut sys::CUpti_Profiler_Host_Object,
    config_image: Vec<u8>,
    names: Vec<CString>,
    /// Replay passes the metric list needs.
    pub passes: usize,
}

impl RangeProfiler {
    /// Sets up profiling of `metrics` on `ctx` (device `ordinal`); returns the profiler and the
    /// metrics the chip accepted (a metric it does not know is left out rather than failing all).
    pub fn new(
        ctx: cudarc::driver::sys::CUcontext,
        ordinal: usize,
        metrics: &[String],
    ) -> Result<(RangeProfiler, Vec<String>), Failure> {
        // SAFETY: every call below receives a correctly sized parameter struct whose pointers
        // point to live buffers of the stated sizes; the order is the one CUPTI documents.
        unsafe {
            let mut init = params!(
                sys::CUpti_Profiler_Initialize_Params,
                sys::Profiler_Initialize_Params_STRUCT_SIZE
            );
            check(
                "cuptiProfilerInitialize",
                sys::cuptiProfilerInitialize(&mut init),
            )?;
            // From here on, an early return drops the guard, which undoes what was set up so far.
            let mut profiler = RangeProfiler {
                object: std::ptr::null_mut(),
                host: std::ptr::null_mut(),
                config_image: Vec::new(),
                names: Vec::new(),
                passes: 0,
            };

            let mut chip = params!(
                sys::CUpti_Device_GetChipName_Params,
                sys::Device_GetChipName_Params_STRUCT_SIZE
            );
            chip.deviceIndex = ordinal;
            check(
                "cuptiDeviceGetChipName",
                sys::cuptiDeviceGetChipName(&mut chip),
            )?;
            let chip_name = CStr::from_ptr(chip.pChipName).to_owned();

            let mut enable = params!(
                sys::CUpti_RangeProfiler_Enable_Params,
                sys::RangeProfiler_Enable_Params_STRUCT_SIZE
            );
            enable.ctx = ctx;
            check(
                "cuptiRangeProfilerEnable",
                sys::cuptiRangeProfilerEnable(&mut enable),
            )?;
            profiler.object = enable.pRangeProfilerObject;

            let mut avail = params!(
                sys::CUpti_Profiler_GetCounterAvailability_Params,
                sys::Profiler_GetCounterAvailability_Params_STRUCT_SIZE
            );
            avail.ctx = ctx;
            check(
                "cuptiProfilerGetCounterAvailability",
                sys::cuptiProfilerGetCounterAvailability(&mut avail),
            )?;
            let mut availability = vec![0u8; avail.counterAvailabilityImageSize];
            avail.pCounterAvailabilityImage = availability.as_mut_ptr();
            check(
                "cuptiProfilerGetCounterAvailability",
                sys::cuptiProfilerGetCounterAvailability(&mut avail),
            )?;

            let mut host_init = params!(
                sys::CUpti_Profiler_Host_Initialize_Params,
                sys::Profiler_Host_Initialize_Params_STRUCT_SIZE
            );
            host_init.profilerType = sys::CUpti_ProfilerType::CUPTI_PROFILER_TYPE_RANGE_PROFILER;
            host_init.pChipName = chip_name.as_ptr();
            host_init.pCounterAvailabilityImage = availability.as_ptr();
            check(
                "cuptiProfilerHostInitialize",
                sys::cuptiProfilerHostInitialize(&mut host_init),
            )?;
            let host = host_init.pHostObject;
            profiler.host = host;
            // One at a time, so that a metric the chip lacks costs only itself.
            let mut accepted = Vec::new();
            for name in metrics {
                let Ok(c) = CString::new(name.as_str()) else {
                    continue;
                };
                let mut ptrs = [c.as_ptr()];
                let mut add = params!(
                    sys::CUpti_Profiler_Host_ConfigAddMetrics_Params,
                    sys::Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE
                );
                add.pHostObject = host;
                add.ppMetricNames = ptrs.as_mut_ptr();
                add.numMetrics = 1;
                if sys::cuptiProfilerHostConfigAddMetrics(&mut add)
                    == sys::CUptiResult::CUPTI_SUCCESS
                {
                    profiler.names.push(c);
                    accepted.push(name.clone());
                }
            }
            if accepted.is_empty() {
                return Err("CUPTI accepted none of the requested metrics on this GPU".into());
            }

            let mut size = params!(
                sys::CUpti_Profiler_Host_GetConfigImageSize_Params,
                sys::Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE
            );
            size.pHostObject = host;
            check(
                "cuptiProfilerHostGetConfigImageSize",
                sys::cuptiProfilerHostGetConfigImageSize(&mut size),
            )?;
            profiler.config_image = vec![0u8; size.configImageSize];
            let mut image = params!(
                sys::CUpti_Profiler_Host_GetConfigImage_Params,
                sys::Profiler_Host_GetConfigImage_Params_STRUCT_SIZE
            );
            image.pHostObject = host;
            image.configImageSize = profiler.config_image.len();
            image.pConfigImage = profiler.config_image.as_mut_ptr();
            check(
                "cuptiProfilerHostGetConfigImage",
                sys::cuptiProfilerHostGetConfigImage(&mut image),
            )?;

            let mut passes = params!(
                sys::CUpti_Profiler_Host_GetNumOfPasses_Params,
                sys::Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE
            );
            passes.configImageSize = profiler.config_image.len();
            passes.pConfigImage = profiler.config_image.as_mut_ptr();
            check(
                "cuptiProfilerHostGetNumOfPasses",
                sys::cuptiProfilerHostGetNumOfPasses(&mut passes),
            )?;
            profiler.passes = passes.numOfPasses;
            Ok((profiler, accepted))
        }
    }

    /// Profiles what `launch` submits (one kernel launch) and returns the metric values, aligned
    /// with the accepted metric list.
    pub fn profile(
        &mut self,
        launch: &mut dyn FnMut() -> Result<(), Failure>,
    ) -> Result<Vec<f64>, Failure> {
        let mut ptrs: Vec<*const c_char> = self.names.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: as in `new`; the counter-data image outlives every call that points to it.
        unsafe {
            let mut size = params!(
                sys::CUpti_RangeProfiler_GetCounterDataSize_Params,
                sys::RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE
            );
            size.pRangeProfilerObject = self.object;
            size.pMetricNames = ptrs.as_mut_ptr();
            size.numMetrics = ptrs.len();
            size.maxNumOfRanges = 1;
            size.maxNumRangeTreeNodes = 1;
            check(
                "cuptiRangeProfilerGetCounterDataSize",
                sys::cuptiRangeProfilerGetCounterDataSize(&mut size),
            )?;
            let mut data = vec![0u8; size.counterDataSize];

            let mut init = params!(
                sys::CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                sys::RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE
            );
            init.pRangeProfilerObject = self.object;
            init.counterDataSize = data.len();
            init.pCounterData = data.as_mut_ptr();
            check(
                "cuptiRangeProfilerCounterDataImageInitialize",
                sys::cuptiRangeProfilerCounterDataImageInitialize(&mut init),
            )?;

            let mut config = params!(
                sys::CUpti_RangeProfiler_SetConfig_Params,
                sys::RangeProfiler_SetConfig_Params_STRUCT_SIZE
            );
            config.pRangeProfilerObject = self.object;
            config.configSize = self.config_image.len();
            config.pConfig = self.config_image.as_ptr();
            config.counterDataImageSize = data.len();
            config.pCounterDataImage = data.as_mut_ptr();
            config.range = sys::CUpti_ProfilerRange::CUPTI_AutoRange;
            config.replayMode = sys::CUpti_ProfilerReplayMode::CUPTI_KernelReplay;
            config.maxRangesPerPass = 1;
            config.numNestingLevels = 1;
            config.minNestingLevel = 1;
            config.passIndex = 0;
            config.targetNestingLevel = 0;
            check(
                "cuptiRangeProfilerSetConfig",
                sys::cuptiRangeProfilerSetConfig(&mut config),
            )?;

            // Kernel replay submits every pass within one launch; the loop guards the API contract.
            let mut rounds = 0;
            loop {
                let mut start = params!(
                    sys::CUpti_RangeProfiler_Start_Params,
                    sys::RangeProfiler_Start_Params_STRUCT_SIZE
                );
                start.pRangeProfilerObject = self.object;
                check(
                    "cuptiRangeProfilerStart",
                    sys::cuptiRangeProfilerStart(&mut start),
                )?;
                let launched = launch();
                let mut stop = params!(
                    sys::CUpti_RangeProfiler_Stop_Params,
                    sys::RangeProfiler_Stop_Params_STRUCT_SIZE
                );
                stop.pRangeProfilerObject = self.object;
                check(
                    "cuptiRangeProfilerStop",
                    sys::cuptiRangeProfilerStop(&mut stop),
                )?;
                launched?;
                rounds += 1;
                if stop.isAllPassSubmitted != 0 {
                    break;
                }
                if rounds > self.passes.max(1) + 1 {
                    return Err("CUPTI did not finish its replay passes".into());
                }
            }

            let mut decode = params!(
                sys::CUpti_RangeProfiler_DecodeData_Params,
                sys::RangeProfiler_DecodeData_Params_STRUCT_SIZE
            );
            decode.pRangeProfilerObject = self.object;
            check(
                "cuptiRangeProfilerDecodeData",
                sys::cuptiRangeProfilerDecodeData(&mut decode),
            )?;
            if decode.numOfRangeDropped > 0 {
                return Err("CUPTI dropped the profiled range".into());
            }

            let mut info = params!(
                sys::CUpti_RangeProfiler_GetCounterDataInfo_Params,
                sys::RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE
            );
            info.pCounterDataImage = data.as_ptr();
            info.counterDataImageSize = data.len();
            check(
                "cuptiRangeProfilerGetCounterDataInfo",
                sys::cuptiRangeProfilerGetCounterDataInfo(&mut info),
            )?;
            if info.numTotalRanges == 0 {
                return Err("CUPTI recorded no range: the kernel did not run".into());
            }

            let mut values = vec![f64::NAN; ptrs.len()];
            let mut eval = params!(
                sys::CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                sys::Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE
            );
            eval.pHostObject = self.host;
            eval.pCounterDataImage = data.as_ptr();
            eval.counterDataImageSize = data.len();
            eval.rangeIndex = 0;
            eval.ppMetricNames = ptrs.as_mut_ptr();
            eval.numMetrics = ptrs.len();
            eval.pMetricValues = values.as_mut_ptr();
            check(
                "cuptiProfilerHostEvaluateToGpuValues",
                sys::cuptiProfilerHostEvaluateToGpuValues(&mut eval),
            )?;
            Ok(values)
        }
    }
}

impl Drop for RangeProfiler {
    fn drop(&mut self) {
        // SAFETY: the objects were created in `new` (null when set-up stopped before them) and are
        // released once, in reverse order.
        unsafe {
            if !self.object.is_null() {
                let mut disable = params!(
                    sys::CUpti_RangeProfiler_Disable_Params,
                    sys::RangeProfiler_Disable_Params_STRUCT_SIZE
                );
                disable.pRangeProfilerObject = self.object;
                let _ = sys::cuptiRangeProfilerDisable(&mut disable);
            }
            if !self.host.is_null() {
                let mut deinit = params!(
                    sys::CUpti_Profiler_Host_Deinitialize_Params,
                    sys::Profiler_Host_Deinitialize_Params_STRUCT_SIZE
                );
                deinit.pHostObject = self.host;
                let _ = sys::cuptiProfilerHostDeinitialize(&mut deinit);
            }
            let mut done = params!(
                sys::CUpti_Profiler_DeInitialize_Params,
                sys::Profiler_DeInitialize_Params_STRUCT_SIZE
            );
            let _ = sys::cuptiProfilerDeInitialize(&mut done);
        }
    }
}
