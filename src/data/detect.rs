//! Which reader a recorded file needs, judged from its content.
//!
//! JSON formats are told apart by their top-level keys, read from the whole document (a telltale
//! key may come after megabytes of other data); CSV by the runtime column of its header. A UTF-8
//! byte-order mark, as some editors write, is skipped.

use super::ktt_csv::RUNTIME;
use crate::error::{Error, Result};
use serde::de::IgnoredAny;
use std::collections::BTreeMap;
use std::path::Path;

/// The recorded-data formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// KTT 1.x CSV.
    KttCsv,
    /// KTT 2.x JSON output.
    KttJson,
    /// Kernel Tuner cache file.
    KernelTuner,
    /// T4 open autotuning results.
    T4,
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The format of `bytes` (already without a byte-order mark), read from `path`.
pub fn detect(path: &Path, bytes: &[u8]) -> Result<Format> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return Err(Error::file(path, "the file is empty"));
    };
    if bytes[start] == b'{' {
        let keys: BTreeMap<String, IgnoredAny> = match serde_json::from_slice(bytes) {
            Ok(keys) => keys,
            Err(e) => {
                // A Kernel Tuner cache of an interrupted run is left unclosed; Kernel Tuner reads
                // it after closing it, and so does pcsearch.
                let text = String::from_utf8_lossy(bytes);
                let (closed, _) = super::kernel_tuner::close_like_kernel_tuner(&text);
                match serde_json::from_str::<BTreeMap<String, IgnoredAny>>(&closed) {
                    Ok(keys) if keys.contains_key("tune_params_keys") => keys,
                    _ => return Err(Error::parse(path, e.line(), format!("not valid JSON: {e}"))),
                }
            }
        };
        let has = |k: &str| keys.contains_key(k);
        return if has("tune_params_keys") || has("cache") {
            Ok(Format::KernelTuner)
        } else if has("results") {
            Ok(Format::T4)
        } else if has("Results") {
            Ok(Format::KttJson)
        } else {
            Err(Error::file(
                path,
                format!(
                    "unknown JSON format: expected `Results` (KTT JSON output), `results` (T4 results) or `cache` and `tune_params_keys` (Kernel Tuner cache); top-level keys are {}",
                    if keys.is_empty() {
                        "none".to_string()
                    } else {
                        keys.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                    }
                ),
            ))
        };
    }
    let first_line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    if String::from_utf8_lossy(first_line).contains(RUNTIME) {
        return Ok(Format::KttCsv);
    }
    Err(Error::file(
        path,
        format!("unknown format: expected a KTT CSV (header with `{RUNTIME}`), KTT JSON output, a Kernel Tuner cache file or T4 results"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format_of(text: &[u8]) -> Result<Format> {
        detect(Path::new("f"), strip_bom(text))
    }

    #[test]
    fn formats_are_told_by_top_level_keys_anywhere_and_a_bom_is_skipped() {
        let padding = " ".repeat(10_000);
        let late =
            format!("{{\"metadata\": {{}},{padding}\"tune_params_keys\": [], \"cache\": {{}}}}");
        assert_eq!(format_of(late.as_bytes()).unwrap(), Format::KernelTuner);
        assert_eq!(
            format_of(b"\xEF\xBB\xBF{\"Results\": []}").unwrap(),
            Format::KttJson
        );
        assert_eq!(format_of(b"{\"results\": []}").unwrap(), Format::T4);
        assert_eq!(
            format_of(b"\xEF\xBB\xBFKernel name,Computation duration (us),A\n").unwrap(),
            Format::KttCsv
        );
        let err = format_of(b"{\"x\": 1}").unwrap_err().to_string();
        assert!(err.contains("top-level keys are `x`"), "{err}");
        let err = format_of(b"{\"x\": ").unwrap_err().to_string();
        assert!(err.starts_with("f:1: not valid JSON"), "{err}");
        let err = format_of(b" \n ").unwrap_err().to_string();
        assert_eq!(err, "f: the file is empty");
    }
}
