//! Expressions of a kernel description (constraints, launch sizes, buffer lengths), in evalexpr.
//!
//! Variables are the problem sizes and the tuning parameters; an expression is compiled once at
//! load time, its variables checked against the names the file declares, and evaluated per
//! configuration.

use crate::error::{Error, Result};
use evalexpr::{ContextWithMutableVariables, HashMapContext, Node, Value};
use std::path::{Path, PathBuf};

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
