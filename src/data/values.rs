//! Tuning parameter values as tuners write them (numbers, numeric strings, booleans, names) turned
//! into the numbers a [`TuningSpace`] holds, keeping names as labels so they can be written back.

use crate::space::TuningSpace;
use serde_json::Value;

/// How each tuning parameter's values become numbers: numeric parameters keep their value, a
/// parameter with any non-numeric value is labelled (value `i` stands for label `i`).
#[derive(Debug, Clone)]
pub struct ValueEncoding {
    labels: Vec<Vec<String>>,
}

/// A value as a number: JSON numbers, numeric strings (KTT writes `"16"`, `"0.500000"`), booleans.
pub fn numeric(v: &Value) -> Option<f64> {
    let x = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// A value as text: a string's content, any other value's JSON text.
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl ValueEncoding {
    /// Decides from the values each parameter takes (`values[p]`, in file order). `declared[p]`,
    /// when given (Kernel Tuner's `tune_params`), fixes the order of a labelled parameter's labels;
    /// otherwise labels are numbered in order of first appearance.
    pub fn decide(values: &[Vec<&Value>], declared: Option<&[Vec<Value>]>) -> Self {
        let labels = values
            .iter()
            .enumerate()
            .map(|(p, vals)| {
                if vals.iter().all(|v| numeric(v).is_some()) {
                    return Vec::new();
                }
                let mut labels: Vec<String> = declared
                    .and_then(|d| d.get(p))
                    .map(|d| d.iter().map(text).collect())
                    .unwrap_or_default();
                for v in vals {
                    let t = text(v);
                    if !labels.contains(&t) {
                        labels.push(t);
                    }
                }
                labels
            })
            .collect();
        ValueEncoding { labels }
    }

    /// Value `v` of parameter `p` as a number; `None` for a value that is neither numeric nor a
    /// label of a labelled parameter.
    pub fn encode(&self, p: usize, v: &Value) -> Option<f64> {
        let labels = &self.labels[p];
        if labels.is_empty() {
            numeric(v)
        } else {
            let t = text(v);
            labels.iter().position(|l| *l == t).map(|i| i as f64)
        }
    }

    /// Gives the labelled parameters of `space` their labels.
    pub fn label(&self, space: &mut TuningSpace) {
        for (p, labels) in self.labels.iter().enumerate() {
            if !labels.is_empty() {
                space.set_labels(p, labels.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numeric_strings_stay_numbers_and_names_become_labels() {
        let a = [json!("16"), json!("0.500000"), json!(8)];
        let b = [json!("float"), json!("double"), json!("float")];
        let values = vec![a.iter().collect(), b.iter().collect()];
        let e = ValueEncoding::decide(&values, None);
        assert_eq!(e.encode(0, &json!("0.500000")), Some(0.5));
        assert_eq!(e.encode(1, &json!("double")), Some(1.0));
        assert_eq!(e.encode(1, &json!("half")), None);
        let mut space = TuningSpace::new(vec!["A".into(), "B".into()]);
        e.label(&mut space);
        space.push(&[16.0, 1.0]).unwrap();
        assert_eq!(space.describe(0), "A=16,B=double");
        assert_eq!(space.parse_assignment("B=double,A=16").unwrap(), 0);
    }

    #[test]
    fn declared_lists_fix_the_label_order() {
        let b = [json!("double")];
        let declared = vec![vec![json!("float"), json!("double")]];
        let e = ValueEncoding::decide(&[b.iter().collect()], Some(&declared));
        assert_eq!(e.encode(0, &json!("double")), Some(1.0));
    }
}
