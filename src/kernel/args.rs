//! Kernel arguments: buffers (with length and initialisation), scalars, and `__constant__` data.
//!
//! Host data is generated here, without a GPU, so that what a kernel receives is testable and
//! identical on every machine: random initialisation is a counter-based hash of (seed, index), which
//! lets an array-of-structures buffer and its structure-of-arrays views hold the same numbers.

use super::expr::{Expr, Scope};

/// Element type of a buffer or scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `int`.
    I32,
    /// `unsigned int`.
    U32,
}

impl Element {
    /// Parses `f32`, `f64`, `i32` or `u32` (and their C names).
    pub fn parse(text: &str) -> Option<Element> {
        match text {
            "f32" | "float" => Some(Element::F32),
            "f64" | "double" => Some(Element::F64),
            "i32" | "int" => Some(Element::I32),
            "u32" | "unsigned" | "uint" => Some(Element::U32),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Element::F64 => 8,
            _ => 4,
        }
    }
}

/// How a buffer's elements are set before the first launch.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    /// All zeros.
    Zeros,
    /// `scale × u`, with u uniform in [0, 1) from the hash of (seed, offset + stride × i).
    Random {
        /// Seed of the hash.
        seed: u64,
        /// Index stride.
        stride: u64,
        /// Index offset.
        offset: u64,
        /// Multiplier.
        scale: f64,
    },
    /// `scale × (offset + stride × i)`.
    Index {
        /// Index stride.
        stride: u64,
        /// Index offset.
        offset: u64,
        /// Multiplier.
        scale: f64,
    },
    /// Every element equals the value of an expression.
    Constant(Expr),
}

/// Where an argument goes.
#[derive(Debug, Clone)]
pub enum ArgumentKind {
    /// A device buffer passed by pointer.
    Buffer {
        /// Number of elements.
        length: Expr,
        /// Initial content.
        init: Init,
    },
    /// A value passed by value.
    Scalar {
        /// The value.
        value: Expr,
    },
    /// Data copied into the module's `__constant__` symbol of the same name (not a kernel argument).
    Constant {
        /// Number of elements.
        length: Expr,
        /// Initial content.
        init: Init,
        /// Copy only when this holds for the configuration (the symbol may be compiled out).
        when: Option<Expr>,
    },
}

/// One `[[argument]]` of the description.
#[derive(Debug, Clone)]
pub struct Argument {
    /// Name (the `__constant__` symbol's name for constants).
    pub name: String,
    /// Element type.
    pub element: Element,
    /// Buffer, scalar or constant.
    pub kind: ArgumentKind,
}

/// Host-side data of one buffer or scalar.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    /// `float` elements.
    F32(Vec<f32>),
    /// `double` elements.
    F64(Vec<f64>),
    /// `int` elements.
    I32(Vec<i32>),
    /// `unsigned int` elements.
    U32(Vec<u32>),
}

impl HostData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::F64(v) => v.len(),
            HostData::I32(v) => v.len(),
            HostData::U32(v) => v.len(),
        }
    }

    /// True when there is no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements as `f64`, for comparisons.
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            HostData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            HostData::F64(v) => v.clone(),
            HostData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            HostData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        }
    }
}

/// A uniform number in [0, 1) from (seed, index): SplitMix64 finalisation of their mix.
pub fn hash_unit(seed: u64, index: u64) -> f64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Bytes of `__constant__` memory on every CUDA device.
pub const CONSTANT_BYTES: u64 = 65536;

/// Checks that `n` elements of `element`, the value of `length`, fit in `limit` bytes of `memory`,
/// before any host data is generated: billions of elements would otherwise abort the allocation.
pub fn check_size(
    element: Element,
    length: &Expr,
    n: usize,
    limit: u64,
    memory: &str,
) -> Result<(), String> {
    let bytes = n
        .checked_mul(element.size())
        .and_then(|b| u64::try_from(b).ok());
    match bytes {
        Some(b) if b <= limit => Ok(()),
        _ => Err(format!(
            "{} `{}` gives {n} elements of {} bytes, more than the {limit} bytes of {memory}",
            length.role,
            length.text,
            element.size()
        )),
    }
}

/// Generates `length` elements of `element` as `init` says; `name` is the argument's, for errors.
pub fn generate(
    name: &str,
    element: Element,
    init: &Init,
    length: usize,
    scope: &Scope,
) -> Result<HostData, String> {
    let value = |i: usize| -> Result<f64, String> {
        let i = i as u64;
        Ok(match init {
            Init::Zeros | Init::Constant(_) => 0.0,
            // The hash input only has to be distinct per element: wrapping keeps that.
            Init::Random {
                seed,
                stride,
                offset,
                scale,
            } => scale * hash_unit(*seed, offset.wrapping_add(stride.wrapping_mul(i))),
            Init::Index {
                stride,
                offset,
                scale,
            } => {
                let index = stride
                    .checked_mul(i)
                    .and_then(|x| x.checked_add(*offset))
                    .ok_or_else(|| {
                        format!(
                            "argument `{name}`: init index offset {offset} + stride {stride} × {i} exceeds 64 bits"
                        )
                    })?;
                scale * index as f64
            }
        })
    };
    let constant = match init {
        Init::Constant(e) => {
            let v = e.number(scope)?;
            // The whole buffer holds this value: refuse what the element type cannot hold.
            if integral(element, v).is_none() {
                return Err(format!(
                    "{} `{}` gives {v}, {}",
                    e.role,
                    e.text,
                    not_integral(element)
                ));
            }
            Some(v)
        }
        _ => None,
    };
    let at = |i| constant.map_or_else(|| value(i), Ok);
    Ok(match element {
        Element::F32 => HostData::F32(
            (0..length)
                .map(|i| at(i).map(|v| v as f32))
                .collect::<Result<_, _>>()?,
        ),
        Element::F64 => HostData::F64((0..length).map(at).collect::<Result<_, _>>()?),
        Element::I32 => HostData::I32(
            (0..length)
                .map(|i| at(i).map(|v| v as i32))
                .collect::<Result<_, _>>()?,
        ),
        Element::U32 => HostData::U32(
            (0..length)
                .map(|i| at(i).map(|v| v as u32))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// `value` when it is exactly representable in an integer `element`; floats always pass.
fn integral(element: Element, value: f64) -> Option<f64> {
    let range = match element {
        Element::F32 | Element::F64 => return Some(value),
        Element::I32 => f64::from(i32::MIN)..=f64::from(i32::MAX),
        Element::U32 => 0.0..=f64::from(u32::MAX),
    };
    (value.fract() == 0.0 && range.contains(&value)).then_some(value)
}

fn not_integral(element: Element) -> &'static str {
    match element {
        Element::U32 => "not an integer between 0 and 4294967295 (u32)",
        _ => "not an integer between -2147483648 and 2147483647 (i32)",
    }
}

/// Converts scalar argument `name`'s value to its element type; integers must be exact and in range.
pub fn scalar(name: &str, element: Element, value: f64) -> Result<HostData, String> {
    let Some(value) = integral(element, value) else {
        return Err(format!(
            "argument `{name}`: value {value} is {}",
            not_integral(element)
        ));
    };
    Ok(match element {
        Element::F32 => HostData::F32(vec![value as f32]),
        Element::F64 => HostData::F64(vec![value]),
        Element::I32 => HostData::I32(vec![value as i32]),
        Element::U32 => HostData::U32(vec![value as u32]),
    })
}

/// Compares a kernel's output with the reference: every element must satisfy
/// |out − ref| ≤ tolerance × max(1, |ref|) (absolute near zero, relative elsewhere).
pub fn compare(output: &[f64], reference: &[f64], tolerance: f64) -> Result<(), String> {
    if output.len() != reference.len() {
        return Err(format!(
            "output has {} elements, the reference {}",
            output.len(),
            reference.len()
        ));
    }
    let mut worst: Option<(usize, f64)> = None;
    for (i, (&o, &r)) in output.iter().zip(reference).enumerate() {
        let err = (o - r).abs() / r.abs().max(1.0);
        if err.is_nan() || err > tolerance {
            let err = if err.is_nan() { f64::INFINITY } else { err };
            if worst.is_none_or(|(_, w)| err > w) {
                worst = Some((i, err));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((i, err)) => Err(format!(
            "wrong result: element {i} is {} instead of {} (error {err:.3e} > tolerance {tolerance:e})",
            output[i], reference[i]
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::scope;

    #[test]
    fn random_views_of_one_stream_agree() {
        let s = scope([]);
        let aos = Init::Random {
            seed: 7,
            stride: 1,
            offset: 0,
            scale: 10.0,
        };
        let y = Init::Random {
            seed: 7,
            stride: 4,
            offset: 1,
            scale: 10.0,
        };
        let HostData::F32(aos) = generate("a", Element::F32, &aos, 16, &s).unwrap() else {
            panic!("f32 expected")
        };
        let HostData::F32(y) = generate("a", Element::F32, &y, 4, &s).unwrap() else {
            panic!("f32 expected")
        };
        assert_eq!(y, vec![aos[1], aos[5], aos[9], aos[13]]);
        assert!(aos.iter().all(|&v| (0.0..10.0).contains(&v)));
        assert_ne!(aos[0], aos[1]);
    }

    #[test]
    fn index_and_zero_initialisation() {
        let s = scope([]);
        let idx = Init::Index {
            stride: 2,
            offset: 1,
            scale: 1.0,
        };
        assert_eq!(
            generate("a", Element::I32, &idx, 4, &s).unwrap(),
            HostData::I32(vec![1, 3, 5, 7])
        );
        assert_eq!(
            generate("a", Element::F64, &Init::Zeros, 2, &s).unwrap(),
            HostData::F64(vec![0.0, 0.0])
        );
        assert_eq!(
            scalar("n", Element::U32, 4096.0).unwrap(),
            HostData::U32(vec![4096])
        );
    }

    fn expr(text: &str, role: &str) -> Expr {
        let known = vec!["N".to_string()];
        Expr::compile(text, role, std::path::Path::new("k.toml"), 1, &known).unwrap()
    }

    #[test]
    fn index_overflow_is_an_error_and_random_wraps() {
        let s = scope([]);
        let idx = Init::Index {
            stride: 1 << 63,
            offset: 0,
            scale: 1.0,
        };
        let err = generate("in", Element::F32, &idx, 3, &s).unwrap_err();
        assert!(
            err.starts_with("argument `in`: init index offset 0"),
            "{err}"
        );
        let rnd = Init::Random {
            seed: 1,
            stride: u64::MAX,
            offset: u64::MAX,
            scale: 1.0,
        };
        assert_eq!(generate("in", Element::F32, &rnd, 3, &s).unwrap().len(), 3);
    }

    #[test]
    fn integer_scalars_and_constants_must_fit_exactly() {
        assert_eq!(
            scalar("n", Element::I32, -5.0).unwrap(),
            HostData::I32(vec![-5])
        );
        assert_eq!(
            scalar("x", Element::F32, 2.5).unwrap(),
            HostData::F32(vec![2.5])
        );
        let err = scalar("n", Element::I32, 2.5).unwrap_err();
        assert!(
            err.starts_with("argument `n`: value 2.5 is not an integer"),
            "{err}"
        );
        assert!(scalar("n", Element::I32, 3e9).is_err());
        assert!(scalar("n", Element::U32, -1.0).is_err());
        assert!(scalar("n", Element::U32, 5e9).is_err());
        assert!(scalar("n", Element::U32, f64::NAN).is_err());
        let s = scope([("N", 0.5)]);
        let init = Init::Constant(expr("N", "argument `c` value"));
        let err = generate("c", Element::U32, &init, 2, &s).unwrap_err();
        assert!(err.starts_with("argument `c` value `N` gives 0.5"), "{err}");
    }

    #[test]
    fn sizes_are_checked_before_generation() {
        let len = expr("N * N", "argument `a` length");
        assert!(check_size(
            Element::F64,
            &len,
            8192,
            CONSTANT_BYTES,
            "__constant__ memory"
        )
        .is_ok());
        let err = check_size(
            Element::F64,
            &len,
            8193,
            CONSTANT_BYTES,
            "__constant__ memory",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "argument `a` length `N * N` gives 8193 elements of 8 bytes, more than the 65536 bytes of __constant__ memory"
        );
        assert!(check_size(Element::F32, &len, usize::MAX, u64::MAX, "device memory").is_err());
    }

    #[test]
    fn comparison_reports_the_worst_element() {
        assert!(compare(&[1.0, 100.0], &[1.0, 100.05], 1e-3).is_ok());
        let err = compare(&[1.0, 2.0, 5.0], &[1.0, 2.5, 3.0], 1e-3).unwrap_err();
        assert!(
            err.starts_with("wrong result: element 2 is 5 instead of 3"),
            "{err}"
        );
        assert!(compare(&[f64::NAN], &[1.0], 1e-3).is_err());
        assert!(compare(&[1.0], &[1.0, 2.0], 1e-3).is_err());
    }
}
