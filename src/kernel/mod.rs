//! Kernel description files: what a user writes once to tune a CUDA kernel live.
//!
//! A TOML file names the CUDA source and kernel, the problem sizes, the tuning parameters and their
//! values, constraints between them, the launch geometry and the kernel's arguments, all sizes being
//! expressions of problem sizes and parameters. The README ("The kernel description file") is the reference.

pub mod args;
pub mod defines;
pub mod expr;
mod file;
pub mod geometry;
mod space;
pub mod validate;

pub use args::{Argument, ArgumentKind, Element, HostData, Init};
pub use expr::{Expr, Scope};
pub use geometry::{DeviceLimits, LaunchGeometry, LaunchSpec};

use crate::error::{Error, Result};
use crate::space::{ConfigId, TuningSpace};
use file::{line_of, RawArgument, RawFile};
use std::path::{Path, PathBuf};

/// Most timed or warm-up runs per test: more would take hours per configuration, and the timing
/// events of every repetition are held at once.
const MAX_RUNS: i64 = 100_000;

/// Default `kernel.timeout_s`: far above any kernel worth tuning, far below a hung GPU's patience.
const DEFAULT_TIMEOUT_S: f64 = 10.0;

/// Largest `kernel.timeout_s` accepted, seconds.
const MAX_TIMEOUT_S: f64 = 3600.0;

/// A tuning parameter and the values it takes, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Name, also the preprocessor macro.
    pub name: String,
    /// Values.
    pub values: Vec<f64>,
}

/// A named constraint: configurations for which it is false are not in the space.
#[derive(Debug, Clone)]
pub struct Constraint {
    /// Name given in `[constraints]`.
    pub name: String,
    /// The condition.
    pub expr: Expr,
}

/// The correctness check: a configuration whose output differs from the reference is invalid.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// Index of the buffer argument compared.
    pub output: usize,
    /// Accepted error, relative (absolute below magnitude 1).
    pub tolerance: f64,
    /// The configuration whose output is the reference (values in parameter order); `None`: the
    /// first configuration of the space.
    pub reference: Option<Vec<f64>>,
}

impl Check {
    /// The reference configuration's id in `space`.
    pub fn reference_config(&self, space: &TuningSpace, path: &Path) -> Result<ConfigId> {
        match &self.reference {
            None => Ok(0),
            Some(values) => space.find(values).ok_or_else(|| {
                Error::file(
                    path,
                    "check.reference is not a configuration of the space (it violates a constraint)",
                )
            }),
        }
    }
}

/// A validated kernel description.
#[derive(Debug, Clone)]
pub struct KernelDescription {
    /// The description file.
    pub path: PathBuf,
    /// The CUDA source file, resolved against the description's directory.
    pub source_path: PathBuf,
    /// Kernel function name (`extern "C"`).
    pub name: String,
    /// Extra NVRTC options.
    pub compiler_options: Vec<String>,
    /// Timed runs per test; the median is reported.
    pub repetitions: usize,
    /// Untimed runs before timing.
    pub warmup: usize,
    /// Longest one launch may run before the test is abandoned as runaway, seconds.
    pub timeout_s: f64,
    /// Problem sizes, in file order.
    pub problem: Vec<(String, f64)>,
    /// Tuning parameters, in file order.
    pub parameters: Vec<Parameter>,
    /// Constraints, in file order.
    pub constraints: Vec<Constraint>,
    /// Grid, block and shared memory.
    pub launch: LaunchSpec,
    /// Kernel arguments in call order, plus `__constant__` data.
    pub arguments: Vec<Argument>,
    /// Output check.
    pub check: Option<Check>,
}

impl KernelDescription {
    /// Reads and validates a description file.
    pub fn load(path: &Path) -> Result<KernelDescription> {
        let text = crate::input::read_text_bounded(path, crate::input::MAX_SMALL_FILE_BYTES)?;
        KernelDescription::parse(&text, path)
    }

    /// Parses and validates a description's text; `path` names it in errors and anchors `source`.
    pub fn parse(text: &str, path: &Path) -> Result<KernelDescription> {
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            Error::parse(path, line, e.message().trim().to_string())
        })?;
        let at = |span: std::ops::Range<usize>| line_of(text, span.start);
        let kernel_line = text.find("[kernel]").map_or(1, |i| line_of(text, i));

        let mut problem: Vec<(usize, String, f64)> = Vec::new();
        for (name, v) in &raw.problem {
            check_identifier(name, "problem", path, at(v.span()))?;
            let value = number(v.get_ref()).ok_or_else(|| {
                Error::parse(
                    path,
                    at(v.span()),
                    format!("problem size `{name}` must be a number"),
                )
            })?;
            problem.push((v.span().start, name.clone(), value));
        }
        problem.sort_by_key(|p| p.0);
        let problem: Vec<(String, f64)> = problem.into_iter().map(|(_, n, v)| (n, v)).collect();

        let mut parameters: Vec<(usize, Parameter)> = Vec::new();
        for (name, v) in &raw.parameters {
            let line = at(v.span());
            check_identifier(name, "parameters", path, line)?;
            if problem.iter().any(|(p, _)| p == name) {
                return Err(Error::parse(
                    path,
                    line,
                    format!("`{name}` is both a problem size and a tuning parameter"),
                ));
            }
            let mut values = Vec::new();
            for item in v.get_ref() {
                let x = number(item).ok_or_else(|| {
                    Error::parse(
                        path,
                        line,
                        format!("parameter `{name}`: value `{item}` is not a number"),
                    )
                })?;
                if values.contains(&x) {
                    return Err(Error::parse(
                        path,
                        line,
                        format!("parameter `{name}`: value {item} is listed twice"),
                    ));
                }
                values.push(x);
            }
            if values.is_empty() {
                return Err(Error::parse(
                    path,
                    line,
                    format!("parameter `{name}` has no values"),
                ));
            }
            parameters.push((
                v.span().start,
                Parameter {
                    name: name.clone(),
                    values,
                },
            ));
        }
        if parameters.is_empty() {
            return Err(Error::file(
                path,
                "`[parameters]` declares no tuning parameter",
            ));
        }
        parameters.sort_by_key(|p| p.0);
        let parameters: Vec<Parameter> = parameters.into_iter().map(|(_, p)| p).collect();

        let known: Vec<String> = problem
            .iter()
            .map(|(n, _)| n.clone())
            .chain(parameters.iter().map(|p| p.name.clone()))
            .collect();

        let mut constraints: Vec<(usize, Constraint)> = Vec::new();
        for (name, e) in &raw.constraints {
            let role = format!("constraint `{name}`");
            let expr = Expr::compile(e.get_ref(), &role, path, at(e.span()), &known)?;
            constraints.push((
                e.span().start,
                Constraint {
                    name: name.clone(),
                    expr,
                },
            ));
        }
        constraints.sort_by_key(|c| c.0);
        let constraints = constraints.into_iter().map(|(_, c)| c).collect();

        let dims = |what: &str, v: &toml::Spanned<Vec<String>>| -> Result<Vec<Expr>> {
            let line = at(v.span());
            if v.get_ref().is_empty() || v.get_ref().len() > 3 {
                return Err(Error::parse(
                    path,
                    line,
                    format!("launch.{what} needs 1 to 3 expressions (x, y, z)"),
                ));
            }
            v.get_ref()
                .iter()
                .enumerate()
                .map(|(i, t)| Expr::compile(t, &format!("launch.{what}[{i}]"), path, line, &known))
                .collect()
        };
        let launch = LaunchSpec {
            grid: dims("grid", &raw.launch.grid)?,
            block: dims("block", &raw.launch.block)?,
            shared_memory: raw
                .launch
                .shared_memory
                .as_ref()
                .map(|e| {
                    Expr::compile(
                        e.get_ref(),
                        "launch.shared_memory",
                        path,
                        at(e.span()),
                        &known,
                    )
                })
                .transpose()?,
        };

        let mut arguments = Vec::new();
        for (i, a) in raw.arguments.iter().enumerate() {
            let line = at(a.span());
            let arg = argument(a.get_ref(), i, path, line, &known)?;
            if arguments.iter().any(|b: &Argument| b.name == arg.name) {
                return Err(Error::parse(
                    path,
                    line,
                    format!("argument `{}` is declared twice", arg.name),
                ));
            }
            arguments.push(arg);
        }
        if !arguments
            .iter()
            .any(|a| !matches!(a.kind, ArgumentKind::Constant { .. }))
        {
            return Err(Error::file(
                path,
                "no `[[argument]]`: the kernel must receive at least one",
            ));
        }

        let check = match &raw.check {
            None => None,
            Some(c) => Some(check(
                c.get_ref(),
                at(c.span()),
                path,
                &arguments,
                &parameters,
            )?),
        };

        let positive = |v: Option<&toml::Spanned<i64>>, key: &str, default: usize, min: i64| match v
        {
            None => Ok(default),
            Some(s) if (min..=MAX_RUNS).contains(s.get_ref()) => Ok(*s.get_ref() as usize),
            Some(s) => Err(Error::parse(
                path,
                at(s.span()),
                format!("kernel.{key} must be between {min} and {MAX_RUNS}"),
            )),
        };
        let repetitions = positive(raw.kernel.repetitions.as_ref(), "repetitions", 10, 1)?;
        let warmup = positive(raw.kernel.warmup.as_ref(), "warmup", 1, 0)?;
        let timeout_s = match &raw.kernel.timeout_s {
            None => DEFAULT_TIMEOUT_S,
            Some(t) if (0.001..=MAX_TIMEOUT_S).contains(t.get_ref()) => *t.get_ref(),
            Some(t) => {
                return Err(Error::parse(
                    path,
                    at(t.span()),
                    format!("kernel.timeout_s must be between 0.001 and {MAX_TIMEOUT_S} seconds"),
                ))
            }
        };
        check_identifier(&raw.kernel.name, "kernel.name", path, kernel_line)?;
        if raw.kernel.compiler_options.iter().any(|o| o.contains('\0')) {
            return Err(Error::parse(
                path,
                kernel_line,
                "kernel.compiler_options contains a NUL byte",
            ));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        Ok(KernelDescription {
            path: path.to_path_buf(),
            source_path: dir.join(&raw.kernel.source),
            name: raw.kernel.name.clone(),
            compiler_options: raw.kernel.compiler_options.clone(),
            repetitions,
            warmup,
            timeout_s,
            problem,
            parameters,
            constraints,
            launch,
            arguments,
            check,
        })
    }

    /// Tuning parameter names, in configuration order.
    pub fn parameter_names(&self) -> Vec<String> {
        self.parameters.iter().map(|p| p.name.clone()).collect()
    }

    /// Every configuration that satisfies the constraints, in a fixed order (the first parameter
    /// varies slowest, as in nested loops written in file order).
    pub fn enumerate(&self) -> Result<TuningSpace> {
        space::enumerate(self)
    }

    /// The scope of a configuration: problem sizes and the configuration's parameter values.
    pub fn scope(&self, config: &[f64]) -> Scope {
        expr::scope(
            self.problem.iter().map(|(n, v)| (n.as_str(), *v)).chain(
                self.parameters
                    .iter()
                    .map(|p| p.name.as_str())
                    .zip(config.iter().copied()),
            ),
        )
    }

    /// Preprocessor defines of a configuration.
    pub fn defines(&self, config: &[f64]) -> Vec<(String, String)> {
        defines::defines(
            self.problem.iter().map(|(n, v)| (n.as_str(), *v)),
            self.parameters
                .iter()
                .map(|p| p.name.as_str())
                .zip(config.iter().copied()),
        )
    }

    /// The full NVRTC option list of a configuration: defines, then the file's options.
    pub fn compile_options(&self, config: &[f64]) -> Vec<String> {
        let mut options = defines::define_options(&self.defines(config));
        options.extend(self.compiler_options.iter().cloned());
        options
    }

    /// Reads the CUDA source file.
    pub fn read_source(&self) -> Result<String> {
        let text = std::fs::read_to_string(&self.source_path)
            .map_err(|e| Error::io(&self.source_path, e))?;
        if text.contains('\0') {
            return Err(Error::file(
                &self.source_path,
                "the source contains a NUL byte",
            ));
        }
        Ok(text)
    }

    /// A hash of the description and the kernel source: what a journal was measured with.
    pub fn fingerprint(&self) -> Result<String> {
        let description = std::fs::read(&self.path).map_err(|e| Error::io(&self.path, e))?;
        let source = self.read_source()?;
        Ok(format!(
            "{:016x}",
            fnv1a(&[&description, source.as_bytes()])
        ))
    }
}

/// FNV-1a over byte strings, each followed by a separator so that splits cannot collide.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) if f.is_finite() => Some(*f),
        toml::Value::Boolean(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn check_identifier(name: &str, table: &str, path: &Path, line: usize) -> Result<()> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::parse(
            path,
            line,
            format!("{table}: `{name}` is not a C identifier (letters, digits, `_`)"),
        ))
    }
}

fn argument(
    a: &RawArgument,
    index: usize,
    path: &Path,
    line: usize,
    known: &[String],
) -> Result<Argument> {
    let bad = |m: String| Error::parse(path, line, format!("argument `{}`: {m}", a.name));
    check_identifier(&a.name, "argument", path, line)?;
    let element = Element::parse(&a.element).ok_or_else(|| {
        bad(format!(
            "type `{}` is not one of f32, f64, i32, u32",
            a.element
        ))
    })?;
    let compile = |text: &str, key: &str| {
        Expr::compile(
            text,
            &format!("argument `{}` {key}", a.name),
            path,
            line,
            known,
        )
    };
    let init = || -> Result<Init> {
        let stride = a.stride.unwrap_or(1);
        let offset = a.offset.unwrap_or(0);
        let scale = a.scale.unwrap_or(1.0);
        match a.init.as_deref().unwrap_or("zeros") {
            "zeros" => Ok(Init::Zeros),
            "random" => Ok(Init::Random {
                seed: a.seed.unwrap_or(index as u64 + 1),
                stride,
                offset,
                scale,
            }),
            "index" => Ok(Init::Index {
                stride,
                offset,
                scale,
            }),
            "constant" => {
                let v = a
                    .value
                    .as_deref()
                    .ok_or_else(|| bad("init = \"constant\" needs `value`".into()))?;
                Ok(Init::Constant(compile(v, "value")?))
            }
            other => Err(bad(format!(
                "init `{other}` is not one of zeros, random, index, constant"
            ))),
        }
    };
    let length = || -> Result<Expr> {
        let text = a
            .length
            .as_deref()
            .ok_or_else(|| bad(format!("a {} needs `length`", a.kind)))?;
        compile(text, "length")
    };
    let kind = match a.kind.as_str() {
        "buffer" => ArgumentKind::Buffer {
            length: length()?,
            init: init()?,
        },
        "scalar" => {
            let text = a
                .value
                .as_deref()
                .ok_or_else(|| bad("a scalar needs `value`".into()))?;
            ArgumentKind::Scalar {
                value: compile(text, "value")?,
            }
        }
        "constant" => ArgumentKind::Constant {
            length: length()?,
            init: init()?,
            when: a.when.as_deref().map(|w| compile(w, "when")).transpose()?,
        },
        other => {
            return Err(bad(format!(
                "kind `{other}` is not one of buffer, scalar, constant"
            )))
        }
    };
    if a.when.is_some() && !matches!(kind, ArgumentKind::Constant { .. }) {
        return Err(bad("`when` applies only to kind = \"constant\"".into()));
    }
    Ok(Argument {
        name: a.name.clone(),
        element,
        kind,
    })
}

fn check(
    c: &file::RawCheck,
    line: usize,
    path: &Path,
    arguments: &[Argument],
    parameters: &[Parameter],
) -> Result<Check> {
    let output = arguments
        .iter()
        .position(|a| a.name == c.output && matches!(a.kind, ArgumentKind::Buffer { .. }))
        .ok_or_else(|| {
            Error::parse(
                path,
                line,
                format!("check.output `{}` is not a buffer argument", c.output),
            )
        })?;
    if !(c.tolerance >= 0.0 && c.tolerance.is_finite()) {
        return Err(Error::parse(
            path,
            line,
            "check.tolerance must be a non-negative number",
        ));
    }
    for name in c.reference.keys() {
        if !parameters.iter().any(|p| &p.name == name) {
            return Err(Error::parse(
                path,
                line,
                format!("check.reference: `{name}` is not a tuning parameter"),
            ));
        }
    }
    let mut reference = Vec::new();
    for p in parameters {
        let v = match c.reference.get(&p.name) {
            None => None,
            Some(v) => Some(number(v).ok_or_else(|| {
                Error::parse(
                    path,
                    line,
                    format!("check.reference: `{}` must be a number", p.name),
                )
            })?),
        };
        reference.push(v);
    }
    let reference = if c.reference.is_empty() {
        None
    } else if reference.iter().all(Option::is_some) {
        Some(reference.into_iter().flatten().collect())
    } else {
        return Err(Error::parse(
            path,
            line,
            "check.reference must give every tuning parameter (or be left out)",
        ));
    };
    Ok(Check {
        output,
        tolerance: c.tolerance,
        reference,
    })
}

#[cfg(test)]
mod tests;
