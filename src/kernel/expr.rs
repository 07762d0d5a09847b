//! Expressions of a kernel description (constraints, launch sizes, buffer lengths), in evalexpr.
//!
//! Variables are the problem sizes and the tuning parameters; an expression is compiled once at
//! load time, its variables checked against the names the file declares, and evaluated per
//! configuration.

use crate::error::{Error, Result};
use evalexpr::{ContextWithMutableVariables, HashMapContext, Node, Value};
use std::path::{Path, PathBuf};

/// Longest expression accepted, in characters: real constraints and launch sizes are a line.
pub const MAX_LENGTH: usize = 1_000;
/// Deepest parenthesis nesting accepted.
pub const MAX_NESTING: usize = 32;

/// Refuses text the parser would take too long or too deep a recursion on: evalexpr parses
/// recursively (200,000 nested parentheses overflow the stack) and a run of unary minus signs in
/// quadratic time. This scan is linear; within its bounds the parser is fast and shallow.
fn check_size(text: &str) -> std::result::Result<(), String> {
    let length = text.chars().count();
    if length > MAX_LENGTH {
        return Err(format!(
            "is {length} characters long; at most {MAX_LENGTH} are accepted"
        ));
    }
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "nests parentheses deeper than {MAX_NESTING} levels, the most accepted"
                    ));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Values of the names an expression may use, for one configuration.
pub type Scope = HashMapContext;

/// Builds the scope of a configuration: problem sizes, then tuning parameters.
pub fn scope<'a>(values: impl IntoIterator<Item = (&'a str, f64)>) -> Scope {
    let mut scope = Scope::new();
    for (name, v) in values {
        let value = if v.fract() == 0.0 && v.abs() < 9.0e15 {
            Value::Int(v as i64)
        } else {
            Value::Float(v)
        };
        // A name is set once per scope, so the type-safety check of evalexpr cannot fail here.
        let _ = scope.set_value(name.to_string(), value);
    }
    scope
}

/// A compiled expression and where it came from, for error messages.
#[derive(Debug, Clone)]
pub struct Expr {
    /// The expression as written.
    pub text: String,
    /// What the expression is (`constraint \`fits\``, `launch.grid[0]`, …).
    pub role: String,
    path: PathBuf,
    line: usize,
    node: Node,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.text == other.text && self.role == other.role
    }
}

impl Expr {
    /// Compiles `text` and checks that it uses only `known` names.
    pub fn compile(
        text: &str,
        role: &str,
        path: &Path,
        line: usize,
        known: &[String],
    ) -> Result<Expr> {
        check_size(text)
            .map_err(|e| Error::parse(path, line, format!("{role}: the expression {e}")))?;
        let node = evalexpr::build_operator_tree(text)
            .map_err(|e| Error::parse(path, line, format!("{role}: cannot parse `{text}`: {e}")))?;
        for name in node.iter_variable_identifiers() {
            if !known.iter().any(|k| k == name) {
                return Err(Error::parse(
                    path,
                    line,
                    format!(
                        "{role}: unknown name `{name}` in `{text}`; known names are {}",
                        known.join(", ")
                    ),
                ));
            }
        }
        Ok(Expr {
            text: text.to_string(),
            role: role.to_string(),
            path: path.to_path_buf(),
            line,
            node,
        })
    }

    /// The file and line the expression is on.
    pub fn location(&self) -> (&Path, usize) {
        (&self.path, self.line)
    }

    fn eval(&self, scope: &Scope) -> std::result::Result<Value, String> {
        self.node
            .eval_with_context(scope)
            .map_err(|e| format!("{} `{}`: {e}", self.role, self.text))
    }

    /// Evaluates to a number (integers and floats alike).
    pub fn number(&self, scope: &Scope) -> std::result::Result<f64, String> {
        match self.eval(scope)? {
            Value::Int(i) => Ok(i as f64),
            Value::Float(f) => Ok(f),
            other => Err(format!(
                "{} `{}` gives {other}, not a number",
                self.role, self.text
            )),
        }
    }

    /// Evaluates to an integer; a float with a fractional part is an error.
    pub fn integer(&self, scope: &Scope) -> std::result::Result<i64, String> {
        let v = self.number(scope)?;
        if v.fract() != 0.0 || !v.is_finite() {
            return Err(format!(
                "{} `{}` gives {v}, not an integer",
                self.role, self.text
            ));
        }
        Ok(v as i64)
    }

    /// Evaluates to a truth value.
    pub fn boolean(&self, scope: &Scope) -> std::result::Result<bool, String> {
        match self.eval(scope)? {
            Value::Boolean(b) => Ok(b),
            other => Err(format!(
                "{} `{}` gives {other}, not true or false",
                self.role, self.text
            )),
        }
    }

    /// Turns an evaluation failure into a file error at the expression's line.
    pub fn fail(&self, message: String) -> Error {
        Error::parse(&self.path, self.line, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        vec!["N".into(), "TILE".into()]
    }

    #[test]
    fn integers_floats_and_booleans_evaluate() {
        let s = scope([("N", 1000.0), ("TILE", 32.0)]);
        let p = Path::new("k.toml");
        let e = Expr::compile("(N + TILE - 1) / TILE", "launch.grid[0]", p, 3, &known()).unwrap();
        assert_eq!(e.integer(&s), Ok(32));
        let c = Expr::compile(
            "N % TILE == 0 || TILE <= 8",
            "constraint `d`",
            p,
            4,
            &known(),
        )
        .unwrap();
        assert_eq!(c.boolean(&s), Ok(false));
        let f = Expr::compile("N / 3.0", "x", p, 5, &known()).unwrap();
        let err = f.integer(&s).unwrap_err();
        assert!(err.contains("not an integer"), "{err}");
    }

    #[test]
    fn unknown_names_and_syntax_errors_name_file_line_and_role() {
        let p = Path::new("k.toml");
        let err = Expr::compile("TILE * BLOCK", "constraint `fits`", p, 7, &known())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("k.toml:7: constraint `fits`: unknown name `BLOCK`"),
            "{err}"
        );
        let err = Expr::compile("TILE * (", "launch.block[1]", p, 9, &known())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("k.toml:9: launch.block[1]: cannot parse"),
            "{err}"
        );
    }

    #[test]
    fn hostile_expressions_are_refused_or_parsed_quickly_without_deep_recursion() {
        let p = Path::new("k.toml");
        let compile = |text: &str| Expr::compile(text, "constraint `c`", p, 2, &known());
        let nested = format!("{}N{}", "(".repeat(200_000), ")".repeat(200_000));
        let err = compile(&nested).unwrap_err().to_string();
        assert_eq!(
            err,
            "k.toml:2: constraint `c`: the expression is 400001 characters long; at most 1000 are accepted"
        );
        let err = compile(&format!("{}N{}", "(".repeat(33), ")".repeat(33)))
            .unwrap_err()
            .to_string();
        assert!(err.contains("deeper than 32 levels"), "{err}");
        let chain = vec!["N"; 200_000].join("+");
        assert!(compile(&chain)
            .unwrap_err()
            .to_string()
            .contains("characters long"));
        assert!(compile(&format!("{}N", "-".repeat(100_000))).is_err());
        // The worst cases within the bounds parse and evaluate at once, on a test thread's stack.
        let start = std::time::Instant::now();
        let s = scope([("N", 3.0), ("TILE", 2.0)]);
        let e = compile(&format!("{}N", "-".repeat(999))).unwrap();
        assert_eq!(e.number(&s), Ok(-3.0));
        let e = compile(&vec!["N"; 500].join("+")).unwrap();
        assert_eq!(e.number(&s), Ok(1500.0));
        let e = compile(&format!("{}N{}", "(".repeat(32), ")".repeat(32))).unwrap();
        assert_eq!(e.number(&s), Ok(3.0));
        assert!(start.elapsed().as_secs_f64() < 1.0, "{:?}", start.elapsed());
    }

    #[test]
    fn wrong_result_types_are_reported() {
        let s = scope([("N", 8.0), ("TILE", 2.0)]);
        let e = Expr::compile(
            "N > TILE",
            "launch.grid[0]",
            Path::new("k.toml"),
            1,
            &known(),
        )
        .unwrap();
        assert!(e.integer(&s).unwrap_err().contains("not a number"));
        let e = Expr::compile(
            "N / TILE",
            "constraint `c`",
            Path::new("k.toml"),
            1,
            &known(),
        )
        .unwrap();
        assert!(e.boolean(&s).unwrap_err().contains("not true or false"));
    }
}
