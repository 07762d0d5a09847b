//! Facts about the GPU: from the driver (always) and NVML (when it loads).

use crate::error::{Error, Result};
use crate::kernel::DeviceLimits;
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// What pcsearch reports and uses about the GPU being tuned.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceFacts {
    /// CUDA device ordinal.
    pub ordinal: usize,
    /// Name as the driver reports it.
    pub name: String,
    /// Compute capability, e.g. 8.6.
    pub compute_capability: f64,
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Maximum SM clock, MHz.
    pub sm_clock_mhz: Option<u32>,
    /// Maximum memory clock, MHz.
    pub memory_clock_mhz: Option<u32>,
    /// Device memory, bytes.
    pub memory_bytes: u64,
    /// Driver version, from NVML.
    pub driver_version: Option<String>,
    /// UUID in NVML's `GPU-xxxxxxxx-…` form.
    pub uuid: Option<String>,
    /// Launch limits.
    pub limits: DeviceLimits,
}

impl DeviceFacts {
    /// One line for the start of a session.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} (compute capability {:.1}, {} SMs, {:.1} GiB",
            self.name,
            self.compute_capability,
            self.multiprocessors,
            self.memory_bytes as f64 / (1u64 << 30) as f64
        );
        if let Some(c) = self.sm_clock_mhz {
            s.push_str(&format!(", {c} MHz"));
        }
        if let Some(c) = self.memory_clock_mhz {
            s.push_str(&format!(", memory {c} MHz"));
        }
        if let Some(v) = &self.driver_version {
            s.push_str(&format!(", driver {v}"));
        }
        s.push(')');
        s
    }
}

/// NVML's spelling of a CUDA device UUID (`GPU-` and the 16 bytes as 8-4-4-4-12 hex digits).
pub fn nvml_uuid(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

fn device_error(what: &str, e: impl std::fmt::Debug) -> Error {
    Error::Device(format!("{what}: {e:?}"))
}

/// Queries the driver for the facts of `ctx`'s device, then completes them from NVML.
pub fn query(ctx: &Arc<CudaContext>) -> Result<DeviceFacts> {
    let attr = |a: Attr| {
        ctx.attribute(a)
            .map_err(|e| device_error("device attribute", e))
    };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| device_error("compute capability", e))?;
    let uuid = ctx.uuid().ok().map(|u| {
        let bytes: [u8; 16] = u.bytes.map(|b| b as u8);
        nvml_uuid(&bytes)
    });
    let limits = DeviceLimits {
        max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u64,
        max_block: [
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)? as u64,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)? as u64,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)? as u64,
        ],
        max_grid: [
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)? as u64,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)? as u64,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)? as u64,
        ],
        // The opt-in limit (227 KiB on Hopper) where the driver knows one: the backend opts in for
        // kernels that ask for more than the default 48 KiB.
        max_shared_memory_per_block: Some(
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                .or_else(|_| attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK))?
                as u64,
        ),
    };
    let mut facts = DeviceFacts {
        ordinal: ctx.ordinal(),
        name: ctx.name().map_err(|e| device_error("device name", e))?,
        compute_capability: f64::from(major) + f64::from(minor) / 10.0,
        multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        sm_clock_mhz: attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
            .ok()
            .map(|k| k as u32 / 1000),
        memory_clock_mhz: attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)
            .ok()
            .map(|k| k as u32 / 1000),
        memory_bytes: ctx
            .total_mem()
            .map_err(|e| device_error("device memory", e))? as u64,
        driver_version: None,
        uuid,
        limits,
    };
    complete_from_nvml(&mut facts);
    Ok(facts)
}

/// NVML knows clocks and the driver version better; its absence only loses those details.
fn complete_from_nvml(facts: &mut DeviceFacts) {
    let Ok(nvml) = nvml_wrapper::Nvml::init() else {
        return;
    };
    facts.driver_version = nvml.sys_driver_version().ok();
    // NVML numbers devices differently from CUDA (CUDA_VISIBLE_DEVICES, PCI order): match by UUID.
    let Some(device) = facts
        .uuid
        .as_ref()
        .and_then(|u| nvml.device_by_uuid(u.as_str()).ok())
    else {
        return;
    };
    use nvml_wrapper::enum_wrappers::device::Clock;
    if let Ok(c) = device.max_clock_info(Clock::SM) {
        facts.sm_clock_mhz = Some(c);
    }
    if let Ok(c) = device.max_clock_info(Clock::Memory) {
        facts.memory_clock_mhz = Some(c);
    }
    if let Ok(m) = device.memory_info() {
        facts.memory_bytes = m.total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_spelled_like_nvml() {
        let bytes = [
            0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
            0xcd, 0xef,
        ];
        assert_eq!(
            nvml_uuid(&bytes),
            "GPU-12345678-9abc-def0-0123-456789abcdef"
        );
    }

    #[test]
    fn summary_lists_what_is_known() {
        let facts = DeviceFacts {
            ordinal: 0,
            name: "NVIDIA GeForce RTX 3090".into(),
            compute_capability: 8.6,
            multiprocessors: 82,
            sm_clock_mhz: Some(2100),
            memory_clock_mhz: None,
            memory_bytes: 24 << 30,
            driver_version: Some("550.54.14".into()),
            uuid: None,
            limits: DeviceLimits::default(),
        };
        assert_eq!(
            facts.summary(),
            "NVIDIA GeForce RTX 3090 (compute capability 8.6, 82 SMs, 24.0 GiB, 2100 MHz, driver 550.54.14)"
        );
    }
}
