//! Counter collection with CUPTI's range profiler and profiler host APIs (CUPTI 12.6+).
//!
//! The call order is the one of NVIDIA's `range_profiling` sample. Set-up, once per context:
//! initialise the profiler; read the chip name and the counter availability (which CUPTI may refuse
//! to report while profiling is active, so before enabling); build a host object and a
//! configuration image with the requested metrics; enable the range profiler on the context. Per
//! profiled test: a fresh counter-data image, `SetConfig` with automatic ranges and kernel replay
//! (CUPTI replays the one launch as many passes as the metrics need and restores memory between
//! passes), decode, and evaluate the metrics of the single range.
//!
//! Every CUPTI call goes through the [`Cupti`] trait: [`Library`] makes the real calls, and the
//! tests drive the same sequence through a fake that records it. Buffers CUPTI keeps pointers to
//! (chip name, availability image, configuration and counter-data images) live in the profiler
//! until it is dropped, after CUPTI has been disabled.

use cudarc::cupti::sys;
use cudarc::driver::sys::CUcontext;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;

type Failure = String;

/// The CUPTI calls the range profiler makes, one method per call.
pub trait Cupti {
    /// `cuptiProfilerInitialize`.
    fn initialize(&mut self) -> Result<(), Failure>;
    /// `cuptiDeviceGetChipName` of CUDA device `ordinal`.
    fn chip_name(&mut self, ordinal: usize) -> Result<CString, Failure>;
    /// `cuptiProfilerGetCounterAvailability` (size query, then the image).
    fn counter_availability(&mut self, ctx: CUcontext) -> Result<Vec<u8>, Failure>;
    /// `cuptiProfilerHostInitialize` for the range profiler; `chip` and `availability` must outlive
    /// the host object.
    fn host_initialize(
        &mut self,
        chip: &CStr,
        availability: &[u8],
    ) -> Result<*mut sys::CUpti_Profiler_Host_Object, Failure>;
    /// `cuptiProfilerHostConfigAddMetrics` of one metric; `false` when the chip lacks it.
    fn add_metric(&mut self, host: *mut sys::CUpti_Profiler_Host_Object, metric: &CStr) -> bool;
    /// `cuptiProfilerHostGetConfigImageSize` and `…GetConfigImage`.
    fn config_image(
        &mut self,
        host: *mut sys::CUpti_Profiler_Host_Object,
    ) -> Result<Vec<u8>, Failure>;
    /// `cuptiProfilerHostGetNumOfPasses` of a configuration image.
    fn passes(&mut self, config: &mut [u8]) -> Result<usize, Failure>;
    /// `cuptiRangeProfilerEnable` on `ctx`.
    fn enable(&mut self, ctx: CUcontext) -> Result<*mut sys::CUpti_RangeProfiler_Object, Failure>;
    /// `cuptiRangeProfilerGetCounterDataSize` and `…CounterDataImageInitialize` for one range.
    fn counter_data(
        &mut self,
        object: *mut sys::CUpti_RangeProfiler_Object,
        metrics: &mut [*const c_char],
    ) -> Result<Vec<u8>, Failure>;
    /// `cuptiRangeProfilerSetConfig`; CUPTI keeps `data` until the next call.
    fn set_config(
        &mut self,
        object: *mut sys::CUpti_RangeProfiler_Object,
        config: &[u8],
        data: &mut [u8],
    ) -> Result<(), Failure>;
    /// `cuptiRangeProfilerStart`.
    fn start(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) -> Result<(), Failure>;
    /// `cuptiRangeProfilerStop`; `true` once every replay pass has been submitted.
    fn stop(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) -> Result<bool, Failure>;
    /// `cuptiRangeProfilerDecodeData`; the number of ranges dropped.
    fn decode(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) -> Result<usize, Failure>;
    /// `cuptiRangeProfilerGetCounterDataInfo`; the number of ranges recorded.
    fn ranges(&mut self, data: &[u8]) -> Result<usize, Failure>;
    /// `cuptiProfilerHostEvaluateToGpuValues` of range 0.
    fn evaluate(
        &mut self,
        host: *mut sys::CUpti_Profiler_Host_Object,
        data: &[u8],
        metrics: &mut [*const c_char],
    ) -> Result<Vec<f64>, Failure>;
    /// `cuptiRangeProfilerDisable`.
    fn disable(&mut self, object: *mut sys::CUpti_RangeProfiler_Object);
    /// `cuptiProfilerHostDeinitialize`.
    fn host_deinitialize(&mut self, host: *mut sys::CUpti_Profiler_Host_Object);
    /// `cuptiProfilerDeInitialize`.
    fn deinitialize(&mut self);
}

/// A range profiler bound to one context, configured for a fixed metric list.
pub struct RangeProfiler<C: Cupti = Library> {
    api: C,
    initialized: bool,
    object: *mut sys::CUpti_RangeProfiler_Object,
    host: *mut sys::CUpti_Profiler_Host_Object,
    chip: CString,
    availability: Vec<u8>,
    config_image: Vec<u8>,
    counter_data: Vec<u8>,
    names: Vec<CString>,
    /// Replay passes the metric list needs.
    pub passes: usize,
}

impl<C: Cupti> RangeProfiler<C> {
    /// Sets up profiling of `metrics` on `ctx` (device `ordinal`) through `api`; returns the
    /// profiler and the metrics the chip accepted (a metric it does not know is left out rather
    /// than failing all).
    pub fn with_api(
        mut api: C,
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
    ) -> Result<(Self, Vec<String>), Failure> {
        api.initialize()?;
        // From here on, an early return drops the profiler, which undoes what was set up so far.
        let mut p = RangeProfiler {
            api,
            initialized: true,
            object: std::ptr::null_mut(),
            host: std::ptr::null_mut(),
            chip: CString::default(),
            availability: Vec::new(),
            config_image: Vec::new(),
            counter_data: Vec::new(),
            names: Vec::new(),
            passes: 0,
        };
        p.chip = p.api.chip_name(ordinal)?;
        p.availability = p.api.counter_availability(ctx)?;
        p.host = p.api.host_initialize(&p.chip, &p.availability)?;
        // One at a time, so that a metric the chip lacks costs only itself.
        let mut accepted = Vec::new();
        for name in metrics {
            let Ok(c) = CString::new(name.as_str()) else {
                continue;
            };
            if p.api.add_metric(p.host, &c) {
                p.names.push(c);
                accepted.push(name.clone());
            }
        }
        if accepted.is_empty() {
            return Err("CUPTI accepted none of the requested metrics on this GPU".into());
        }
        p.config_image = p.api.config_image(p.host)?;
        p.passes = p.api.passes(&mut p.config_image)?;
        p.object = p.api.enable(ctx)?;
        Ok((p, accepted))
    }

    /// Profiles what `launch` submits (one kernel launch) and returns the metric values, aligned
    /// with the accepted metric list.
    pub fn profile(
        &mut self,
        launch: &mut dyn FnMut() -> Result<(), Failure>,
    ) -> Result<Vec<f64>, Failure> {
        let mut ptrs: Vec<*const c_char> = self.names.iter().map(|n| n.as_ptr()).collect();
        let mut data = self.api.counter_data(self.object, &mut ptrs)?;
        self.api
            .set_config(self.object, &self.config_image, &mut data)?;
        // CUPTI now points into `data`: it stays in the profiler until the next configuration.
        self.counter_data = data;
        // Kernel replay submits every pass within one launch; the loop guards the API contract.
        let mut rounds = 0;
        loop {
            self.api.start(self.object)?;
            let launched = launch();
            let all_submitted = self.api.stop(self.object)?;
            launched?;
            rounds += 1;
            if all_submitted {
                break;
            }
            if rounds > self.passes.max(1) + 1 {
                return Err("CUPTI did not finish its replay passes".into());
            }
        }
        if self.api.decode(self.object)? > 0 {
            return Err("CUPTI dropped the profiled range".into());
        }
        if self.api.ranges(&self.counter_data)? == 0 {
            return Err("CUPTI recorded no range: the kernel did not run".into());
        }
        self.api.evaluate(self.host, &self.counter_data, &mut ptrs)
    }
}

impl RangeProfiler<Library> {
    /// Sets up profiling of `metrics` on `ctx` with the CUPTI library.
    pub fn new(
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
    ) -> Result<(Self, Vec<String>), Failure> {
        Self::with_api(Library, ctx, ordinal, metrics)
    }
}

impl<C: Cupti> Drop for RangeProfiler<C> {
    fn drop(&mut self) {
        // In reverse order of set-up; the buffers are freed only after this body has run.
        if !self.object.is_null() {
            self.api.disable(self.object);
        }
        if !self.host.is_null() {
            self.api.host_deinitialize(self.host);
        }
        if self.initialized {
            self.api.deinitialize();
        }
    }
}

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

/// `SetConfig` parameters: one automatic range per pass, kernel replay, one nesting level (the
/// sample's values: the target level counts from `minNestingLevel`, which is 1).
pub fn set_config_params(
    object: *mut sys::CUpti_RangeProfiler_Object,
    config: &[u8],
    data: &mut [u8],
) -> sys::CUpti_RangeProfiler_SetConfig_Params {
    let mut p = params!(
        sys::CUpti_RangeProfiler_SetConfig_Params,
        sys::RangeProfiler_SetConfig_Params_STRUCT_SIZE
    );
    p.pRangeProfilerObject = object;
    p.configSize = config.len();
    p.pConfig = config.as_ptr();
    p.counterDataImageSize = data.len();
    p.pCounterDataImage = data.as_mut_ptr();
    p.range = sys::CUpti_ProfilerRange::CUPTI_AutoRange;
    p.replayMode = sys::CUpti_ProfilerReplayMode::CUPTI_KernelReplay;
    p.maxRangesPerPass = 1;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    p
}

/// The CUPTI library, through cudarc's bindings.
pub struct Library;

// SAFETY (all methods): every call receives a correctly sized parameter struct whose pointers point
// to live buffers of the stated sizes; callers keep those buffers alive as the trait documents.
impl Cupti for Library {
    fn initialize(&mut self) -> Result<(), Failure> {
        let mut p = params!(
            sys::CUpti_Profiler_Initialize_Params,
            sys::Profiler_Initialize_Params_STRUCT_SIZE
        );
        check("cuptiProfilerInitialize", unsafe {
            sys::cuptiProfilerInitialize(&mut p)
        })
    }

    fn chip_name(&mut self, ordinal: usize) -> Result<CString, Failure> {
        let mut p = params!(
            sys::CUpti_Device_GetChipName_Params,
            sys::Device_GetChipName_Params_STRUCT_SIZE
        );
        p.deviceIndex = ordinal;
        check("cuptiDeviceGetChipName", unsafe {
            sys::cuptiDeviceGetChipName(&mut p)
        })?;
        if p.pChipName.is_null() {
            return Err("CUPTI cuptiDeviceGetChipName returned no name".into());
        }
        // SAFETY: non-null and NUL-terminated, per CUPTI; copied at once.
        Ok(unsafe { CStr::from_ptr(p.pChipName) }.to_owned())
    }

    fn counter_availability(&mut self, ctx: CUcontext) -> Result<Vec<u8>, Failure> {
        let mut p = params!(
            sys::CUpti_Profiler_GetCounterAvailability_Params,
            sys::Profiler_GetCounterAvailability_Params_STRUCT_SIZE
        );
        p.ctx = ctx;
        let call = "cuptiProfilerGetCounterAvailability";
        check(call, unsafe {
            sys::cuptiProfilerGetCounterAvailability(&mut p)
        })?;
        let mut image = vec![0u8; p.counterAvailabilityImageSize];
        p.pCounterAvailabilityImage = image.as_mut_ptr();
        check(call, unsafe {
            sys::cuptiProfilerGetCounterAvailability(&mut p)
        })?;
        Ok(image)
    }

    fn host_initialize(
        &mut self,
        chip: &CStr,
        availability: &[u8],
    ) -> Result<*mut sys::CUpti_Profiler_Host_Object, Failure> {
        let mut p = params!(
            sys::CUpti_Profiler_Host_Initialize_Params,
            sys::Profiler_Host_Initialize_Params_STRUCT_SIZE
        );
        p.profilerType = sys::CUpti_ProfilerType::CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip.as_ptr();
        p.pCounterAvailabilityImage = availability.as_ptr();
        check("cuptiProfilerHostInitialize", unsafe {
            sys::cuptiProfilerHostInitialize(&mut p)
        })?;
        Ok(p.pHostObject)
    }

    fn add_metric(&mut self, host: *mut sys::CUpti_Profiler_Host_Object, metric: &CStr) -> bool {
        let mut ptrs = [metric.as_ptr()];
        let mut p = params!(
            sys::CUpti_Profiler_Host_ConfigAddMetrics_Params,
            sys::Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE
        );
        p.pHostObject = host;
        p.ppMetricNames = ptrs.as_mut_ptr();
        p.numMetrics = 1;
        let r = unsafe { sys::cuptiProfilerHostConfigAddMetrics(&mut p) };
        r == sys::CUptiResult::CUPTI_SUCCESS
    }

    fn config_image(
        &mut self,
        host: *mut sys::CUpti_Profiler_Host_Object,
    ) -> Result<Vec<u8>, Failure> {
        let mut size = params!(
            sys::CUpti_Profiler_Host_GetConfigImageSize_Params,
            sys::Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE
        );
        size.pHostObject = host;
        check("cuptiProfilerHostGetConfigImageSize", unsafe {
            sys::cuptiProfilerHostGetConfigImageSize(&mut size)
        })?;
        let mut image = vec![0u8; size.configImageSize];
        let mut p = params!(
            sys::CUpti_Profiler_Host_GetConfigImage_Params,
            sys::Profiler_Host_GetConfigImage_Params_STRUCT_SIZE
        );
        p.pHostObject = host;
        p.configImageSize = image.len();
        p.pConfigImage = image.as_mut_ptr();
        check("cuptiProfilerHostGetConfigImage", unsafe {
            sys::cuptiProfilerHostGetConfigImage(&mut p)
        })?;
        Ok(image)
    }

    fn passes(&mut self, config: &mut [u8]) -> Result<usize, Failure> {
        let mut p = params!(
            sys::CUpti_Profiler_Host_GetNumOfPasses_Params,
            sys::Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE
        );
        p.configImageSize = config.len();
        p.pConfigImage = config.as_mut_ptr();
        check("cuptiProfilerHostGetNumOfPasses", unsafe {
            sys::cuptiProfilerHostGetNumOfPasses(&mut p)
        })?;
        Ok(p.numOfPasses)
    }

    fn enable(&mut self, ctx: CUcontext) -> Result<*mut sys::CUpti_RangeProfiler_Object, Failure> {
        let mut p = params!(
            sys::CUpti_RangeProfiler_Enable_Params,
            sys::RangeProfiler_Enable_Params_STRUCT_SIZE
        );
        p.ctx = ctx;
        check("cuptiRangeProfilerEnable", unsafe {
            sys::cuptiRangeProfilerEnable(&mut p)
        })?;
        Ok(p.pRangeProfilerObject)
    }

    fn counter_data(
        &mut self,
        object: *mut sys::CUpti_RangeProfiler_Object,
        metrics: &mut [*const c_char],
    ) -> Result<Vec<u8>, Failure> {
        let mut size = params!(
            sys::CUpti_RangeProfiler_GetCounterDataSize_Params,
            sys::RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE
        );
        size.pRangeProfilerObject = object;
        size.pMetricNames = metrics.as_mut_ptr();
        size.numMetrics = metrics.len();
        size.maxNumOfRanges = 1;
        size.maxNumRangeTreeNodes = 1;
        check("cuptiRangeProfilerGetCounterDataSize", unsafe {
            sys::cuptiRangeProfilerGetCounterDataSize(&mut size)
        })?;
        let mut data = vec![0u8; size.counterDataSize];
        let mut p = params!(
            sys::CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
            sys::RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE
        );
        p.pRangeProfilerObject = object;
        p.counterDataSize = data.len();
        p.pCounterData = data.as_mut_ptr();
        check("cuptiRangeProfilerCounterDataImageInitialize", unsafe {
            sys::cuptiRangeProfilerCounterDataImageInitialize(&mut p)
        })?;
        Ok(data)
    }

    fn set_config(
        &mut self,
        object: *mut sys::CUpti_RangeProfiler_Object,
        config: &[u8],
        data: &mut [u8],
    ) -> Result<(), Failure> {
        let mut p = set_config_params(object, config, data);
        check("cuptiRangeProfilerSetConfig", unsafe {
            sys::cuptiRangeProfilerSetConfig(&mut p)
        })
    }

    fn start(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) -> Result<(), Failure> {
        let mut p = params!(
            sys::CUpti_RangeProfiler_Start_Params,
            sys::RangeProfiler_Start_Params_STRUCT_SIZE
        );
        p.pRangeProfilerObject = object;
        check("cuptiRangeProfilerStart", unsafe {
            sys::cuptiRangeProfilerStart(&mut p)
        })
    }

    fn stop(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) -> Result<bool, Failure> {
        let mut p = params!(
            sys::CUpti_RangeProfiler_Stop_Params,
            sys::RangeProfiler_Stop_Params_STRUCT_SIZE
        );
        p.pRangeProfilerObject = object;
        check("cuptiRangeProfilerStop", unsafe {
            sys::cuptiRangeProfilerStop(&mut p)
        })?;
        Ok(p.isAllPassSubmitted != 0)
    }

    fn decode(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) -> Result<usize, Failure> {
        let mut p = params!(
            sys::CUpti_RangeProfiler_DecodeData_Params,
            sys::RangeProfiler_DecodeData_Params_STRUCT_SIZE
        );
        p.pRangeProfilerObject = object;
        check("cuptiRangeProfilerDecodeData", unsafe {
            sys::cuptiRangeProfilerDecodeData(&mut p)
        })?;
        Ok(p.numOfRangeDropped)
    }

    fn ranges(&mut self, data: &[u8]) -> Result<usize, Failure> {
        let mut p = params!(
            sys::CUpti_RangeProfiler_GetCounterDataInfo_Params,
            sys::RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE
        );
        p.pCounterDataImage = data.as_ptr();
        p.counterDataImageSize = data.len();
        check("cuptiRangeProfilerGetCounterDataInfo", unsafe {
            sys::cuptiRangeProfilerGetCounterDataInfo(&mut p)
        })?;
        Ok(p.numTotalRanges)
    }

    fn evaluate(
        &mut self,
        host: *mut sys::CUpti_Profiler_Host_Object,
        data: &[u8],
        metrics: &mut [*const c_char],
    ) -> Result<Vec<f64>, Failure> {
        let mut values = vec![f64::NAN; metrics.len()];
        let mut p = params!(
            sys::CUpti_Profiler_Host_EvaluateToGpuValues_Params,
            sys::Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE
        );
        p.pHostObject = host;
        p.pCounterDataImage = data.as_ptr();
        p.counterDataImageSize = data.len();
        p.rangeIndex = 0;
        p.ppMetricNames = metrics.as_mut_ptr();
        p.numMetrics = metrics.len();
        p.pMetricValues = values.as_mut_ptr();
        check("cuptiProfilerHostEvaluateToGpuValues", unsafe {
            sys::cuptiProfilerHostEvaluateToGpuValues(&mut p)
        })?;
        Ok(values)
    }

    fn disable(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) {
        let mut p = params!(
            sys::CUpti_RangeProfiler_Disable_Params,
            sys::RangeProfiler_Disable_Params_STRUCT_SIZE
        );
        p.pRangeProfilerObject = object;
        let _ = unsafe { sys::cuptiRangeProfilerDisable(&mut p) };
    }

    fn host_deinitialize(&mut self, host: *mut sys::CUpti_Profiler_Host_Object) {
        let mut p = params!(
            sys::CUpti_Profiler_Host_Deinitialize_Params,
            sys::Profiler_Host_Deinitialize_Params_STRUCT_SIZE
        );
        p.pHostObject = host;
        let _ = unsafe { sys::cuptiProfilerHostDeinitialize(&mut p) };
    }

    fn deinitialize(&mut self) {
        let mut p = params!(
            sys::CUpti_Profiler_DeInitialize_Params,
            sys::Profiler_DeInitialize_Params_STRUCT_SIZE
        );
        let _ = unsafe { sys::cuptiProfilerDeInitialize(&mut p) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Records every call, checks that buffers handed to CUPTI are still the profiler's when later
    /// calls use them, and fails the call named `fail_at`.
    #[derive(Default, Clone)]
    struct Fake {
        calls: Rc<RefCell<Vec<&'static str>>>,
        fail_at: Option<&'static str>,
        /// Chip and availability pointers given to the host object.
        host_inputs: Rc<RefCell<Option<(usize, usize)>>>,
        /// The counter-data pointer given to SetConfig.
        configured_data: Rc<RefCell<Option<usize>>>,
        stops_until_done: usize,
    }

    impl Fake {
        fn call(&self, name: &'static str) -> Result<(), Failure> {
            self.calls.borrow_mut().push(name);
            if self.fail_at == Some(name) {
                Err(format!("{name} failed"))
            } else {
                Ok(())
            }
        }
        fn calls(&self) -> Vec<&'static str> {
            self.calls.borrow().clone()
        }
    }

    const OBJECT: usize = 0x10;
    const HOST: usize = 0x20;

    impl Cupti for Fake {
        fn initialize(&mut self) -> Result<(), Failure> {
            self.call("initialize")
        }
        fn chip_name(&mut self, _ordinal: usize) -> Result<CString, Failure> {
            self.call("chip_name")?;
            Ok(CString::new("GH100").unwrap())
        }
        fn counter_availability(&mut self, _ctx: CUcontext) -> Result<Vec<u8>, Failure> {
            self.call("counter_availability")?;
            Ok(vec![1; 64])
        }
        fn host_initialize(
            &mut self,
            chip: &CStr,
            availability: &[u8],
        ) -> Result<*mut sys::CUpti_Profiler_Host_Object, Failure> {
            self.call("host_initialize")?;
            *self.host_inputs.borrow_mut() =
                Some((chip.as_ptr() as usize, availability.as_ptr() as usize));
            Ok(HOST as *mut _)
        }
        fn add_metric(&mut self, _host: *mut sys::CUpti_Profiler_Host_Object, m: &CStr) -> bool {
            self.calls.borrow_mut().push("add_metric");
            !m.to_bytes().starts_with(b"unknown")
        }
        fn config_image(
            &mut self,
            _host: *mut sys::CUpti_Profiler_Host_Object,
        ) -> Result<Vec<u8>, Failure> {
            self.call("config_image")?;
            Ok(vec![2; 32])
        }
        fn passes(&mut self, _config: &mut [u8]) -> Result<usize, Failure> {
            self.call("passes")?;
            Ok(3)
        }
        fn enable(
            &mut self,
            _ctx: CUcontext,
        ) -> Result<*mut sys::CUpti_RangeProfiler_Object, Failure> {
            self.call("enable")?;
            Ok(OBJECT as *mut _)
        }
        fn counter_data(
            &mut self,
            _object: *mut sys::CUpti_RangeProfiler_Object,
            _metrics: &mut [*const c_char],
        ) -> Result<Vec<u8>, Failure> {
            self.call("counter_data")?;
            Ok(vec![0; 128])
        }
        fn set_config(
            &mut self,
            _object: *mut sys::CUpti_RangeProfiler_Object,
            _config: &[u8],
            data: &mut [u8],
        ) -> Result<(), Failure> {
            self.call("set_config")?;
            *self.configured_data.borrow_mut() = Some(data.as_ptr() as usize);
            Ok(())
        }
        fn start(&mut self, _object: *mut sys::CUpti_RangeProfiler_Object) -> Result<(), Failure> {
            self.call("start")
        }
        fn stop(&mut self, _object: *mut sys::CUpti_RangeProfiler_Object) -> Result<bool, Failure> {
            self.call("stop")?;
            self.stops_until_done = self.stops_until_done.saturating_sub(1);
            Ok(self.stops_until_done == 0)
        }
        fn decode(
            &mut self,
            _object: *mut sys::CUpti_RangeProfiler_Object,
        ) -> Result<usize, Failure> {
            self.call("decode")?;
            Ok(0)
        }
        fn ranges(&mut self, data: &[u8]) -> Result<usize, Failure> {
            self.call("ranges")?;
            // CUPTI reads the image it was configured with.
            assert_eq!(Some(data.as_ptr() as usize), *self.configured_data.borrow());
            Ok(1)
        }
        fn evaluate(
            &mut self,
            _host: *mut sys::CUpti_Profiler_Host_Object,
            _data: &[u8],
            metrics: &mut [*const c_char],
        ) -> Result<Vec<f64>, Failure> {
            self.call("evaluate")?;
            Ok((0..metrics.len()).map(|i| i as f64).collect())
        }
        fn disable(&mut self, object: *mut sys::CUpti_RangeProfiler_Object) {
            assert_eq!(object as usize, OBJECT);
            self.calls.borrow_mut().push("disable");
        }
        fn host_deinitialize(&mut self, host: *mut sys::CUpti_Profiler_Host_Object) {
            assert_eq!(host as usize, HOST);
            self.calls.borrow_mut().push("host_deinitialize");
        }
        fn deinitialize(&mut self) {
            self.calls.borrow_mut().push("deinitialize");
        }
    }

    fn metrics() -> Vec<String> {
        vec![
            "dram__sectors_read.sum".into(),
            "unknown__metric".into(),
            "smsp__inst_executed.sum".into(),
        ]
    }

    #[test]
    fn set_up_follows_the_sample_order_and_keeps_unknown_metrics_out() {
        let fake = Fake::default();
        let (p, accepted) =
            RangeProfiler::with_api(fake.clone(), std::ptr::null_mut(), 0, &metrics()).unwrap();
        assert_eq!(
            fake.calls(),
            [
                "initialize",
                "chip_name",
                "counter_availability",
                "host_initialize",
                "add_metric",
                "add_metric",
                "add_metric",
                "config_image",
                "passes",
                "enable"
            ]
        );
        assert_eq!(
            accepted,
            ["dram__sectors_read.sum", "smsp__inst_executed.sum"]
        );
        assert_eq!(p.passes, 3);
        // The host object's inputs are the profiler's own buffers, alive as long as it is.
        let (chip, availability) = fake.host_inputs.borrow().unwrap();
        assert_eq!(chip, p.chip.as_ptr() as usize);
        assert_eq!(availability, p.availability.as_ptr() as usize);
        drop(p);
        assert_eq!(
            fake.calls()[10..],
            ["disable", "host_deinitialize", "deinitialize"]
        );
    }

    #[test]
    fn a_profiled_launch_keeps_its_counter_data_image() {
        let fake = Fake {
            stops_until_done: 2,
            ..Fake::default()
        };
        let (mut p, _) =
            RangeProfiler::with_api(fake.clone(), std::ptr::null_mut(), 0, &metrics()).unwrap();
        let mut launches = 0;
        let values = p
            .profile(&mut || {
                launches += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!(values, [0.0, 1.0]);
        assert_eq!(launches, 2);
        assert_eq!(
            fake.calls()[10..],
            [
                "counter_data",
                "set_config",
                "start",
                "stop",
                "start",
                "stop",
                "decode",
                "ranges",
                "evaluate"
            ]
        );
        assert_eq!(
            *fake.configured_data.borrow(),
            Some(p.counter_data.as_ptr() as usize)
        );
    }

    #[test]
    fn a_failed_set_up_undoes_only_what_it_did() {
        let fake = Fake {
            fail_at: Some("config_image"),
            ..Fake::default()
        };
        let err = RangeProfiler::with_api(fake.clone(), std::ptr::null_mut(), 0, &metrics())
            .err()
            .unwrap();
        assert_eq!(err, "config_image failed");
        let calls = fake.calls();
        assert_eq!(
            calls[calls.len() - 2..],
            ["host_deinitialize", "deinitialize"]
        );
        assert!(!calls.contains(&"enable") && !calls.contains(&"disable"));
    }

    #[test]
    fn set_config_targets_the_first_nesting_level_with_kernel_replay() {
        let config = [0u8; 8];
        let mut data = [0u8; 16];
        let p = set_config_params(std::ptr::null_mut(), &config, &mut data);
        assert_eq!(p.targetNestingLevel, 1);
        assert_eq!(p.minNestingLevel, 1);
        assert_eq!(p.numNestingLevels, 1);
        assert_eq!(p.maxRangesPerPass, 1);
        assert_eq!(p.range, sys::CUpti_ProfilerRange::CUPTI_AutoRange);
        assert_eq!(
            p.replayMode,
            sys::CUpti_ProfilerReplayMode::CUPTI_KernelReplay
        );
        assert_eq!(p.counterDataImageSize, 16);
    }
}
