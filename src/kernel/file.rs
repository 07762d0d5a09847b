//! The kernel description file as written: TOML tables deserialised with their positions.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    pub kernel: RawKernel,
    #[serde(default)]
    pub problem: BTreeMap<String, Spanned<toml::Value>>,
    pub parameters: BTreeMap<String, Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    pub constraints: BTreeMap<String, Spanned<String>>,
    pub launch: RawLaunch,
    #[serde(default, rename = "argument")]
    pub arguments: Vec<Spanned<RawArgument>>,
    pub check: Option<Spanned<RawCheck>>,
}

/// `[kernel]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawKernel {
    pub name: String,
    pub source: String,
    #[serde(default)]
    pub compiler_options: Vec<String>,
    pub repetitions: Option<Spanned<i64>>,
    pub warmup: Option<Spanned<i64>>,
    pub timeout_s: Option<Spanned<f64>>,
}

/// `[launch]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLaunch {
    pub grid: Spanned<Vec<String>>,
    pub block: Spanned<Vec<String>>,
    pub shared_memory: Option<Spanned<String>>,
}

/// One `[[argument]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawArgument {
    pub name: String,
    pub kind: String,
    #[serde(rename = "type")]
    pub element: String,
    pub length: Option<String>,
    pub value: Option<String>,
    pub init: Option<String>,
    pub seed: Option<u64>,
    pub stride: Option<u64>,
    pub offset: Option<u64>,
    pub scale: Option<f64>,
    pub when: Option<String>,
}

/// `[check]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCheck {
    pub output: String,
    pub tolerance: f64,
    #[serde(default)]
    pub reference: BTreeMap<String, toml::Value>,
}

/// Line (1-based) of a byte offset in `text`.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}
