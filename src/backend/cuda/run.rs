//! Device buffers, kernel launches, failure classification and timing with CUDA events.

use crate::kernel::{HostData, LaunchGeometry};
use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

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

/// Runs `repetitions` timed launches, each between two CUDA events, and returns their times in µs.
pub fn time_launches(
    stream: &Arc<CudaStream>,
    repetitions: usize,
    launch_once: &mut dyn FnMut() -> Result<(), DriverError>,
) -> Result<Vec<f64>, DriverError> {
    let ctx = stream.context();
    let mut events = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let start = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        start.record(stream)?;
        launch_once()?;
        end.record(stream)?;
        events.push((start, end));
    }
    stream.synchronize()?;
    events
        .iter()
        .map(|(s, e)| s.elapsed_ms(e).map(|ms| f64::from(ms) * 1000.0))
        .collect()
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
