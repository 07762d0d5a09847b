//! Checks of a kernel description over its whole space that need no GPU: every expression of every
//! configuration evaluates, argument sizes are sane, the check's reference is in the space.
//!
//! `pcsearch check` runs them, and so do `tune` and `record` before looking for the driver, so a
//! description can be put right on a laptop before it reaches a GPU machine.

use super::args::{self, ArgumentKind, Init};
use super::geometry::DeviceLimits;
use super::KernelDescription;
use crate::error::{Error, Result};
use crate::space::TuningSpace;

/// What validation found: the space, and what will fail on every GPU.
#[derive(Debug, Clone)]
pub struct Validation {
    /// The configurations that satisfy the constraints.
    pub space: TuningSpace,
    /// Configurations whose launch exceeds the limits every CUDA GPU has (invalid on any GPU),
    /// with the first one's reason.
    pub over_limits: Option<(usize, String)>,
    /// Largest total of buffer bytes a configuration allocates.
    pub largest_buffers_bytes: u64,
}

/// Validates `desc` over every configuration of its space.
///
/// An expression that cannot be evaluated for some configuration (an unknown name, a division by
/// zero, a length that is not a positive integer, a scalar outside its type) is a mistake in the
/// description: the error names the file, the line, the expression and the configuration. A
/// launch outside the device limits is not: such configurations are only counted, because on a
/// GPU they are recorded as failed like any other invalid configuration.
pub fn validate(desc: &KernelDescription) -> Result<Validation> {
    desc.read_source()?;
    let space = desc.enumerate()?;
    if let Some(check) = &desc.check {
        check.reference_config(&space, &desc.path)?;
    }
    let limits = DeviceLimits::default();
    let mut over_limits: Option<(usize, String)> = None;
    let mut largest = 0u64;
    for id in 0..space.len() {
        let config = space.config(id);
        let scope = desc.scope(config);
        let at = |message: String| {
            Error::file(
                &desc.path,
                format!("for configuration {}: {message}", space.describe(id)),
            )
        };
        let all_dims = |e: &super::Expr| e.integer(&scope).map(|_| ()).map_err(&at);
        for e in desc.launch.grid.iter().chain(&desc.launch.block) {
            all_dims(e)?;
        }
        if let Some(e) = &desc.launch.shared_memory {
            all_dims(e)?;
        }
        if let Err(why) = desc.launch.evaluate(&scope, &limits) {
            let entry = over_limits.get_or_insert((0, why));
            entry.0 += 1;
        }
        let mut buffers = 0u64;
        for arg in &desc.arguments {
            match &arg.kind {
                ArgumentKind::Scalar { value } => {
                    let v = value.number(&scope).map_err(&at)?;
                    args::scalar(&arg.name, arg.element, v).map_err(&at)?;
                }
                ArgumentKind::Buffer { length, init } => {
                    let n = positive_length(length, &scope).map_err(&at)?;
                    init_value(init, &scope).map_err(&at)?;
                    let bytes = (n as u64).saturating_mul(arg.element.size() as u64);
                    buffers = buffers.saturating_add(bytes);
                }
                ArgumentKind::Constant { length, init, when } => {
                    if let Some(w) = when {
                        if !w.boolean(&scope).map_err(&at)? {
                            continue;
                        }
                    }
                    let n = positive_length(length, &scope).map_err(&at)?;
                    args::check_size(
                        arg.element,
                        length,
                        n,
                        args::CONSTANT_BYTES,
                        "__constant__ memory",
                    )
                    .map_err(&at)?;
                    init_value(init, &scope).map_err(&at)?;
                }
            }
        }
        largest = largest.max(buffers);
    }
    Ok(Validation {
        space,
        over_limits,
        largest_buffers_bytes: largest,
    })
}

fn positive_length(
    length: &super::Expr,
    scope: &super::expr::Scope,
) -> std::result::Result<usize, String> {
    let n = length.integer(scope)?;
    if n < 1 {
        return Err(format!(
            "{} `{}` gives {n}; lengths must be positive",
            length.role, length.text
        ));
    }
    usize::try_from(n)
        .map_err(|_| format!("{} `{}` gives {n}, too large", length.role, length.text))
}

fn init_value(init: &Init, scope: &super::expr::Scope) -> std::result::Result<(), String> {
    match init {
        Init::Constant(e) => e.number(scope).map(|_| ()),
        _ => Ok(()),
    }
}
