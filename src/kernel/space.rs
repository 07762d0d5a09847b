//! Enumeration of a description's tuning space: the cross product filtered by the constraints.

use super::KernelDescription;
use crate::error::{Error, Result};
use crate::space::{format_value, TuningSpace};

/// Spaces larger than this are refused rather than enumerated for minutes.
const MAX_CROSS_PRODUCT: u128 = 50_000_000;

pub(super) fn enumerate(desc: &KernelDescription) -> Result<TuningSpace> {
    let total: u128 = desc
        .parameters
        .iter()
        .map(|p| p.values.len() as u128)
        .product();
    if total > MAX_CROSS_PRODUCT {
        return Err(Error::file(
            &desc.path,
            format!("the parameters span {total} combinations, more than {MAX_CROSS_PRODUCT}; add values sparingly"),
        ));
    }
    let mut space = TuningSpace::new(desc.parameter_names());
    let mut digits = vec![0usize; desc.parameters.len()];
    let mut config = vec![0.0; desc.parameters.len()];
    'outer: loop {
        for (i, p) in desc.parameters.iter().enumerate() {
            config[i] = p.values[digits[i]];
        }
        let scope = desc.scope(&config);
        let mut valid = true;
        for c in &desc.constraints {
            match c.expr.boolean(&scope) {
                Ok(true) => {}
                Ok(false) => {
                    valid = false;
                    break;
                }
                Err(e) => {
                    let at: Vec<String> = desc
                        .parameters
                        .iter()
                        .zip(&config)
                        .map(|(p, v)| format!("{}={}", p.name, format_value(*v)))
                        .collect();
                    return Err(c.expr.fail(format!("{e} (at {})", at.join(","))));
                }
            }
        }
        if valid {
            // Values within a parameter are distinct, so configurations are too.
            let _ = space.push(&config);
        }
        // Odometer step: the last parameter varies fastest.
        for i in (0..digits.len()).rev() {
            digits[i] += 1;
            if digits[i] < desc.parameters[i].values.len() {
                continue 'outer;
            }
            digits[i] = 0;
        }
        break;
    }
    if space.is_empty() {
        return Err(Error::file(
            &desc.path,
            "no configuration satisfies every constraint",
        ));
    }
    Ok(space)
}
