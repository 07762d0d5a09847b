//! `pcsearch check`: validate a kernel description, and a model's fit to its space, without a GPU.

use super::args::CheckArgs;
use crate::error::Result;
use crate::kernel::validate::{validate, Validation};
use crate::kernel::KernelDescription;
use crate::model::CounterModel;
use crate::space::TuningSpace;
use std::path::Path;

/// `pcsearch check`.
pub fn check(args: &CheckArgs) -> Result<()> {
    let desc = KernelDescription::load(&args.kernel)?;
    let validation = validate(&desc)?;
    crate::out!("{}", report(&desc, &validation));
    if let Some(path) = &args.model {
        let model = check_model(path, &validation.space)?;
        crate::outln!(
            "model {}: fits (kernel {} trained on {}, compute capability {}; predicts {} counters for all {} configurations)",
            path.display(),
            model.kernel(),
            model.gpu().name,
            model.gpu().compute_capability,
            model.generation().name(),
            validation.space.len()
        );
    }
    Ok(())
}

/// Loads a model and checks that it predicts every configuration of `space`.
pub fn check_model(path: &Path, space: &TuningSpace) -> Result<CounterModel> {
    let model = CounterModel::load(path)?;
    model.check_space(space)?;
    model.predict(space)?;
    Ok(model)
}

/// What `check` says about a valid description.
pub fn report(desc: &KernelDescription, v: &Validation) -> String {
    let mut out = format!(
        "kernel {} in {}: valid\n  source {}\n  space: {} configurations of {} parameters ({} constraints)\n  every launch, argument and constant expression evaluates for every configuration; largest buffers {:.1} MiB\n",
        desc.name,
        desc.path.display(),
        desc.source_path.display(),
        v.space.len(),
        v.space.parameters().len(),
        desc.constraints.len(),
        v.largest_buffers_bytes as f64 / (1024.0 * 1024.0)
    );
    if let Some((n, first)) = &v.over_limits {
        out.push_str(&format!(
            "  warning: {n} configurations exceed the launch limits of every CUDA GPU and will be recorded as failed (first: {first})\n"
        ));
    }
    out
}
