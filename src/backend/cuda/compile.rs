//! NVRTC compilation to the GPU's own machine code (CUBIN), with PTX as the fallback.
//!
//! PTX must be compiled again by the driver when the module is loaded, and a driver older than
//! NVRTC refuses PTX of a newer ISA version (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`), as happens with
//! a CUDA 13.1 toolkit on a 13.0 driver. A CUBIN for `sm_XY` needs no driver compiler, so it is
//! tried first. When this NVRTC does not know the GPU's architecture (a toolkit older than the
//! GPU), PTX for the newest architecture it knows is the fallback: the driver compiles it forward.

use cudarc::nvrtc::result::{self, NvrtcError};
use cudarc::nvrtc::sys::{self, nvrtcResult};
use cudarc::nvrtc::Ptx;
use std::ffi::{c_char, CString};

/// Which kind of code a compilation produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Machine code for `sm_XY`.
    Cubin(u32),
    /// PTX for `compute_XY`, compiled by the driver at load time.
    Ptx(u32),
}

impl Target {
    /// The NVRTC option that selects this target.
    pub fn option(self) -> String {
        match self {
            Target::Cubin(a) => format!("--gpu-architecture=sm_{a}"),
            Target::Ptx(a) => format!("--gpu-architecture=compute_{a}"),
        }
    }
}

/// A failed compilation: why, and NVRTC's log when the source was at fault.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// One sentence.
    pub reason: String,
    /// The compiler's log.
    pub log: Option<String>,
}

/// The architecture number of a compute capability (8.6 → 86).
pub fn arch(compute_capability: f64) -> u32 {
    (compute_capability * 10.0).round() as u32
}

/// The PTX target when NVRTC does not know `device`: the newest of `supported` not above it.
pub fn fallback(device: u32, supported: &[u32]) -> Option<Target> {
    supported
        .iter()
        .copied()
        .filter(|a| *a <= device)
        .max()
        .map(Target::Ptx)
}

/// Compiles `source` for a GPU of `compute_capability` with `options`; returns the loadable image
/// and the target it was built for.
pub fn compile(
    source: &str,
    name: &str,
    options: &[String],
    compute_capability: f64,
) -> Result<(Ptx, Target), Failure> {
    if let Some(bad) = options.iter().find(|o| o.contains('\0')) {
        return Err(Failure {
            reason: format!("compiler option {bad:?} contains a NUL character"),
            log: None,
        });
    }
    let device = arch(compute_capability);
    match build(source, name, options, Target::Cubin(device)) {
        Err(BuildError::Nvrtc(NvrtcError(nvrtcResult::NVRTC_ERROR_INVALID_OPTION))) => {
            let target = fallback(device, &supported_archs()).ok_or_else(|| Failure {
                reason: format!(
                    "this NVRTC supports no architecture up to sm_{device}: install a CUDA toolkit that supports the GPU"
                ),
                log: None,
            })?;
            build(source, name, options, target)
                .map(|p| (p, target))
                .map_err(BuildError::into_failure)
        }
        other => other
            .map(|p| (p, Target::Cubin(device)))
            .map_err(BuildError::into_failure),
    }
}

enum BuildError {
    Source(String),
    Nvrtc(NvrtcError),
}

impl BuildError {
    fn into_failure(self) -> Failure {
        match self {
            BuildError::Source(log) => Failure {
                reason: "compilation failed (see compiler_log)".into(),
                log: Some(log),
            },
            BuildError::Nvrtc(e) => Failure {
                reason: format!("NVRTC failed: {:?}", e.0),
                log: None,
            },
        }
    }
}

/// The program, destroyed when dropped.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `create_program` and destroyed only here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

fn build(source: &str, name: &str, options: &[String], target: Target) -> Result<Ptx, BuildError> {
    let src = CString::new(source)
        .map_err(|_| BuildError::Source("the kernel source contains a NUL character".into()))?;
    let name = CString::new(name).unwrap_or_default();
    let program = Program(result::create_program(&src, Some(&name)).map_err(BuildError::Nvrtc)?);
    let mut all = options.to_vec();
    all.push(target.option());
    // SAFETY: `program` is live; options hold no NUL (checked by `compile`).
    match unsafe { result::compile_program(program.0, &all) } {
        Ok(()) => {}
        Err(NvrtcError(nvrtcResult::NVRTC_ERROR_COMPILATION)) => {
            // SAFETY: as above.
            let log = unsafe { result::get_program_log(program.0) }
                .map(|l| text(&l))
                .unwrap_or_default();
            return Err(BuildError::Source(log));
        }
        Err(e) => return Err(BuildError::Nvrtc(e)),
    }
    match target {
        Target::Cubin(_) => {
            let mut size = 0usize;
            // SAFETY: as above; the buffer has the size NVRTC reports.
            unsafe { sys::nvrtcGetCUBINSize(program.0, &mut size) }
                .result()
                .map_err(BuildError::Nvrtc)?;
            let mut cubin = vec![0u8; size];
            unsafe { sys::nvrtcGetCUBIN(program.0, cubin.as_mut_ptr().cast()) }
                .result()
                .map_err(BuildError::Nvrtc)?;
            Ok(Ptx::from_binary(cubin))
        }
        Target::Ptx(_) => {
            // SAFETY: as above.
            let ptx = unsafe { result::get_ptx(program.0) }.map_err(BuildError::Nvrtc)?;
            Ok(Ptx::from_src(text(&ptx)))
        }
    }
}

/// NUL-terminated C text as a string.
fn text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .map(|c| *c as u8)
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Architectures this NVRTC compiles for (empty when it cannot say).
fn supported_archs() -> Vec<u32> {
    let mut n = 0;
    // SAFETY: plain queries into buffers of the reported size.
    if unsafe { sys::nvrtcGetNumSupportedArchs(&mut n) }
        .result()
        .is_err()
        || n <= 0
    {
        return Vec::new();
    }
    let mut archs = vec![0; n as usize];
    if unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }
        .result()
        .is_err()
    {
        return Vec::new();
    }
    archs.into_iter().map(|a| a.max(0) as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_gets_machine_code_for_its_own_architecture() {
        assert_eq!(arch(9.0), 90);
        assert_eq!(arch(8.6), 86);
        assert_eq!(Target::Cubin(90).option(), "--gpu-architecture=sm_90");
        assert_eq!(Target::Ptx(75).option(), "--gpu-architecture=compute_75");
    }

    #[test]
    fn an_older_nvrtc_falls_back_to_its_newest_ptx_below_the_device() {
        assert_eq!(fallback(100, &[75, 80, 86, 89, 90]), Some(Target::Ptx(90)));
        assert_eq!(fallback(86, &[75, 80, 90]), Some(Target::Ptx(80)));
        assert_eq!(fallback(60, &[75, 80]), None);
    }

    #[test]
    fn c_text_stops_at_the_terminator() {
        let raw: Vec<c_char> = b"log\0rest".iter().map(|b| *b as c_char).collect();
        assert_eq!(text(&raw), "log");
    }
}
