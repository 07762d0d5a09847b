//! `pcsearch export`: convert a recorded space to T4 results, a Kernel Tuner cache or KTT CSV.

use super::args::{ExportArgs, ResultFilesArgs};
use super::simulate::load_space;
use crate::data::{self, Dataset, OutputFormat};
use crate::error::{Error, Result};
use std::path::Path;

/// `pcsearch export`.
pub fn export(args: &ExportArgs) -> Result<()> {
    let dataset = load_space(&args.space)?;
    refuse_overwriting_input(&dataset.source, &args.out)?;
    data::write(&dataset, args.to.into(), &args.out)?;
    crate::outln!(
        "wrote {} configurations ({} valid) of {} to {}",
        dataset.len(),
        dataset.valid_count(),
        dataset.source.display(),
        args.out.display()
    );
    Ok(())
}

/// Writes the extra result files asked for with `--t4` and `--kernel-tuner`.
pub fn write_result_files(dataset: &Dataset, files: &ResultFilesArgs) -> Result<()> {
    for (path, format) in [
        (&files.t4, OutputFormat::T4),
        (&files.kernel_tuner, OutputFormat::KernelTuner),
    ] {
        if let Some(path) = path {
            data::write(dataset, format, path)?;
            crate::outln!(
                "wrote {} configurations to {}",
                dataset.len(),
                path.display()
            );
        }
    }
    Ok(())
}

fn refuse_overwriting_input(input: &Path, out: &Path) -> Result<()> {
    let same = match (input.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(Error::invalid(format!(
            "--out {} is the file being read: choose another name",
            out.display()
        )));
    }
    Ok(())
}
