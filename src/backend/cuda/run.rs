//! Device buffers, kernel launches, failure classification and timing with CUDA events.

use crate::kernel::{HostData, LaunchGeometry};
use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a test went wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Fail {
    /// The configuration is invalid (compile error, too many resources, wrong result): tuning goes on.
    Invalid(String),
    /// The kernel broke the CUDA context (illegal address…): no further test can run in it.
    Fatal(String),
}

/// A device buffer of one of the supported element types.
pub enum DeviceBuf {
    /// `float`.
    F32(CudaSlice<f32>),
    /// `double`.
    F64(CudaSlice<f64>),
    /// `int`.
    I32(CudaSlice<i32>),
    /// `unsigned int`.
    U32(CudaSlice<u32>),
}

/// A kernel argument as passed at launch.
pub enum ArgRef<'a> {
    /// A buffer, by pointer.
    Buffer(&'a DeviceBuf),
    /// A scalar, by value (the first element of the host data).
    Scalar(&'a HostData),
}

/// The driver's name and description of an error.
pub fn describe(e: DriverError) -> String {
    // Asking the driver for the text needs the driver: without it (tests), the code name suffices.
    // SAFETY: only tries to load the library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return format!("{:?}", e.0);
    }
    match e.error_string() {
        Ok(s) => format!("{:?}: {}", e.0, s.to_string_lossy()),
        Err(_) => format!("{:?}", e.0),
    }
}

/// Sorts a driver error into an invalid configuration or a broken context.
pub fn classify(e: DriverError) -> Fail {
    use CUresult::*;
    // These errors are sticky: the context cannot be used again (CUDA programming guide).
    let sticky = matches!(
        e.0,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
    );
    if sticky {
        Fail::Fatal(describe(e))
    } else {
        Fail::Invalid(describe(e))
    }
}

/// Copies host data to a new device buffer.
pub fn upload(stream: &Arc<CudaStream>, data: &HostData) -> Result<DeviceBuf, DriverError> {
    Ok(match data {
        HostData::F32(v) => DeviceBuf::F32(stream.clone_htod(v)?),
        HostData::F64(v) => DeviceBuf::F64(stream.clone_htod(v)?),
        HostData::I32(v) => DeviceBuf::I32(stream.clone_htod(v)?),
        HostData::U32(v) => DeviceBuf::U32(stream.clone_htod(v)?),
    })
}

/// Copies host data into an existing buffer of the same type and length (restoring inputs).
pub fn refill(
    stream: &Arc<CudaStream>,
    buf: &mut DeviceBuf,
    data: &HostData,
) -> Result<(), DriverError> {
    match (buf, data) {
        (DeviceBuf::F32(d), HostData::F32(v)) if d.len() == v.len() => stream.memcpy_htod(v, d),
        (DeviceBuf::F64(d), HostData::F64(v)) if d.len() == v.len() => stream.memcpy_htod(v, d),
        (DeviceBuf::I32(d), HostData::I32(v)) if d.len() == v.len() => stream.memcpy_htod(v, d),
        (DeviceBuf::U32(d), HostData::U32(v)) if d.len() == v.len() => stream.memcpy_htod(v, d),
        // Both come from the same argument; a mismatch would be a bug here, not a reason to panic.
        _ => Err(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE)),
    }
}

/// Copies a device buffer back, as `f64` for comparisons.
pub fn download(stream: &Arc<CudaStream>, buf: &DeviceBuf) -> Result<Vec<f64>, DriverError> {
    Ok(match buf {
        DeviceBuf::F32(s) => stream.clone_dtoh(s)?.into_iter().map(f64::from).collect(),
        DeviceBuf::F64(s) => stream.clone_dtoh(s)?,
        DeviceBuf::I32(s) => stream.clone_dtoh(s)?.into_iter().map(f64::from).collect(),
        DeviceBuf::U32(s) => stream.clone_dtoh(s)?.into_iter().map(f64::from).collect(),
    })
}

/// Sets a device buffer to zeros (before a correctness check, so stale results cannot pass).
pub fn zero(stream: &Arc<CudaStream>, buf: &mut DeviceBuf) -> Result<(), DriverError> {
    match buf {
        DeviceBuf::F32(s) => stream.memset_zeros(s),
        DeviceBuf::F64(s) => stream.memset_zeros(s),
        DeviceBuf::I32(s) => stream.memset_zeros(s),
        DeviceBuf::U32(s) => stream.memset_zeros(s),
    }
}

/// Submits one launch of `func` with `args`.
pub fn launch(
    stream: &Arc<CudaStream>,
    func: &CudaFunction,
    geometry: &LaunchGeometry,
    args: &[ArgRef<'_>],
) -> Result<(), DriverError> {
    let mut builder = stream.launch_builder(func);
    for a in args {
        match a {
            ArgRef::Buffer(DeviceBuf::F32(s)) => builder.arg(s),
            ArgRef::Buffer(DeviceBuf::F64(s)) => builder.arg(s),
            ArgRef::Buffer(DeviceBuf::I32(s)) => builder.arg(s),
            ArgRef::Buffer(DeviceBuf::U32(s)) => builder.arg(s),
            ArgRef::Scalar(HostData::F32(v)) => builder.arg(&v[0]),
            ArgRef::Scalar(HostData::F64(v)) => builder.arg(&v[0]),
            ArgRef::Scalar(HostData::I32(v)) => builder.arg(&v[0]),
            ArgRef::Scalar(HostData::U32(v)) => builder.arg(&v[0]),
        };
    }
    let [gx, gy, gz] = geometry.grid;
    let [bx, by, bz] = geometry.block;
    let config = LaunchConfig {
        grid_dim: (gx, gy, gz),
        block_dim: (bx, by, bz),
        shared_mem_bytes: geometry.shared_memory_bytes,
    };
    // SAFETY: the description declares the arguments in the kernel's parameter order with their
    // types; buffers are as long as it says. A kernel that disagrees is the user's bug, and its
    // faults surface as sticky driver errors classified as fatal.
    unsafe { builder.launch(config) }.map(|_| ())
}

/// Runs `repetitions` timed launches, each between two CUDA events, and returns their times in µs;
/// gives up as [`wait`] does once `deadline` has passed.
pub fn time_launches(
    stream: &Arc<CudaStream>,
    repetitions: usize,
    launch_once: &mut dyn FnMut() -> Result<(), DriverError>,
    deadline: Duration,
) -> Result<Vec<f64>, Fail> {
    let ctx = stream.context();
    let mut events = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let event = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        let (start, end) = (event().map_err(classify)?, event().map_err(classify)?);
        start.record(stream).map_err(classify)?;
        launch_once().map_err(classify)?;
        end.record(stream).map_err(classify)?;
        events.push((start, end));
    }
    wait(stream, deadline)?;
    events
        .iter()
        .map(|(s, e)| s.elapsed_ms(e).map(|ms| f64::from(ms) * 1000.0))
        .collect::<Result<_, _>>()
        .map_err(classify)
}

/// Waits for the work submitted to `stream`, polling, and gives up once `deadline` has passed: a
/// runaway kernel (an endless loop, a deadlock) must stop the tuner with a message, not hang it.
pub fn wait(stream: &Arc<CudaStream>, deadline: Duration) -> Result<(), Fail> {
    let done = stream.record_event(None).map_err(classify)?;
    let start = Instant::now();
    let mut pause = Duration::from_micros(10);
    loop {
        if done.try_is_complete().map_err(classify)? {
            return Ok(());
        }
        if start.elapsed() > deadline {
            return Err(Fail::Fatal(overran(deadline)));
        }
        std::thread::sleep(pause);
        // Short kernels are noticed at once, long ones cost few wake-ups.
        pause = (pause * 2).min(Duration::from_millis(2));
    }
}

/// Why a test was abandoned after `deadline`.
pub fn overran(deadline: Duration) -> String {
    format!(
        "the kernel was still running after {:.3} s (raise kernel.timeout_s if that is expected); the GPU stays busy until it ends",
        deadline.as_secs_f64()
    )
}

/// The deadline of `launches` launches of `timeout_s` each.
pub fn deadline(timeout_s: f64, launches: usize) -> Duration {
    Duration::from_secs_f64((timeout_s * launches.max(1) as f64).min(86_400.0))
}

/// The median of a non-empty sample (mean of the middle two for even sizes).
pub fn median(times: &[f64]) -> f64 {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    let n = t.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        t[n / 2]
    } else {
        (t[n / 2 - 1] + t[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn deadlines_scale_with_launches_and_say_what_to_raise() {
        assert_eq!(deadline(0.5, 4), Duration::from_secs(2));
        assert_eq!(deadline(2.0, 0), Duration::from_secs(2));
        assert_eq!(deadline(1e9, 1e9 as usize), Duration::from_secs(86_400));
        assert!(overran(Duration::from_millis(1500)).contains("1.500 s (raise kernel.timeout_s"));
    }

    #[test]
    fn resource_errors_invalidate_and_faults_are_fatal() {
        let kind = |r| match classify(DriverError(r)) {
            Fail::Invalid(_) => "invalid",
            Fail::Fatal(_) => "fatal",
        };
        assert_eq!(
            kind(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES),
            "invalid"
        );
        assert_eq!(kind(CUresult::CUDA_ERROR_INVALID_VALUE), "invalid");
        assert_eq!(kind(CUresult::CUDA_ERROR_INVALID_PTX), "invalid");
        assert_eq!(kind(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS), "fatal");
        assert_eq!(kind(CUresult::CUDA_ERROR_LAUNCH_FAILED), "fatal");
    }
}
