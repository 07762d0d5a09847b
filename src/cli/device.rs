//! `pcsearch device`: what pcsearch reads from this machine's GPU, before any tuning.

use super::args::DeviceArgs;
use crate::backend::cuda::{self, libs};
use crate::error::Result;
use crate::rules::Rules;

/// Prints the GPU's facts, where the CUDA libraries were found, and which counters CUPTI accepts.
pub fn device(args: &DeviceArgs) -> Result<()> {
    libs::require_driver()?;
    let rules = Rules::builtin()?;
    let report = cuda::describe_device(args.gpu_index, &rules)?;
    crate::out!("{report}");
    Ok(())
}
