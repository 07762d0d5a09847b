//! Model files: versioned JSON, indented for reading but one tree node per line to stay small.

use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::Value;
use std::io;
use std::path::Path;

/// `format` field every model file carries.
pub const FORMAT: &str = "pcsearch-counter-model";
/// Version of the file layout this build writes: 3 has the training range (`domain`) and a
/// checksum. Version 1 files (neither) are still read; version 2 was never released.
pub const VERSION: u64 = 3;

/// Versions this build reads.
const READABLE: [u64; 2] = [1, VERSION];
/// Field holding the digest of everything else in the file.
const CHECKSUM: &str = "checksum";

/// The model and its checksum, the last field of the file.
#[derive(serde::Serialize)]
struct Signed<'a, T> {
    #[serde(flatten)]
    model: &'a T,
    checksum: String,
}

/// FNV-1a digest of the canonical JSON of `value` (keys sorted, no spaces), as 16 hex digits.
/// Numbers print back exactly as parsed (`float_roundtrip`), so a file read back unchanged gives
/// the digest it was written with, whatever its layout.
fn digest(value: &Value) -> String {
    use std::hash::Hasher;
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(value.to_string().as_bytes());
    format!("{:016x}", hasher.finish())
}

/// The file content of `model`: indented JSON with a checksum as the last field.
pub fn to_bytes<T: serde::Serialize>(model: &T) -> std::result::Result<Vec<u8>, String> {
    let value = serde_json::to_value(model).map_err(|e| e.to_string())?;
    let signed = Signed {
        model,
        checksum: digest(&value),
    };
    let mut bytes = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, LayoutFormatter::default());
    signed.serialize(&mut ser).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes `bytes` to `path`, creating its directory.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// A model file's JSON, without its checksum, and the checksum it carried.
#[derive(Debug)]
pub struct Stored {
    /// The model fields.
    pub value: Value,
    checksum: Option<String>,
    /// Whether the version carries a checksum (version 1 predates them).
    signed: bool,
}

impl Stored {
    /// Refuses a file whose content no longer matches its checksum: edited after training (a
    /// reordered `parameters` list, say, would make every tree test the wrong parameter).
    pub fn verify(&self, path: &Path) -> Result<()> {
        match &self.checksum {
            Some(sum) if *sum == digest(&self.value) => Ok(()),
            Some(_) => Err(Error::file(
                path,
                "the model's content does not match its checksum: the file was changed after training; retrain it with `pcsearch train`",
            )),
            None if !self.signed => Ok(()),
            None => Err(Error::file(
                path,
                format!("the model has no `{CHECKSUM}`; retrain it with `pcsearch train`"),
            )),
        }
    }
}

/// Reads the `bytes` of model file `path` as JSON and checks it is a model file of the version
/// this build reads.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Stored> {
    let mut value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Error::parse(path, e.line(), format!("not valid JSON: {e}")))?;
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(Error::file(
            path,
            format!("not a pcsearch counter model (no `\"format\": \"{FORMAT}\"`)"),
        ));
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if READABLE.contains(&v) => {}
        Some(v) => return Err(Error::file(
            path,
            format!("model format version {v} is not supported; this pcsearch reads versions 1 and 3 (retrain with `pcsearch train`)"),
        )),
        None => return Err(Error::file(path, "the model has no numeric `version`")),
    }
    let checksum = value
        .as_object_mut()
        .and_then(|m| m.remove(CHECKSUM))
        .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string));
    let signed = value.get("version").and_then(Value::as_u64) != Some(1);
    Ok(Stored {
        value,
        checksum,
        signed,
    })
}

/// serde_json's pretty layout, except that an array inside an array (a tree node) is written on
/// one line: a pretty-printed node takes six lines and would make model files several times larger.
#[derive(Default)]
struct LayoutFormatter {
    indent: usize,
    has_value: bool,
    /// Open containers, `true` for arrays.
    open: Vec<bool>,
    /// Nesting level at which compact output started; 0 when not compact.
    compact_from: usize,
}

impl LayoutFormatter {
    fn newline<W: ?Sized + io::Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        w.write_all("  ".repeat(self.indent).as_bytes())
    }

    fn begin<W: ?Sized + io::Write>(&mut self, w: &mut W, array: bool) -> io::Result<()> {
        if self.compact_from == 0 && array && self.open.last() == Some(&true) {
            self.compact_from = self.open.len() + 1;
        }
        self.open.push(array);
        self.indent += 1;
        self.has_value = false;
        w.write_all(if array { b"[" } else { b"{" })
    }

    fn end<W: ?Sized + io::Write>(&mut self, w: &mut W, array: bool) -> io::Result<()> {
        self.indent -= 1;
        if self.compact_from == 0 && self.has_value {
            self.newline(w)?;
        }
        if self.compact_from == self.open.len() {
            self.compact_from = 0;
        }
        self.open.pop();
        w.write_all(if array { b"]" } else { b"}" })
    }

    fn item<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.compact_from == 0 {
            self.newline(w)?;
        }
        Ok(())
    }
}

impl Formatter for LayoutFormatter {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin(w, true)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end(w, true)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin(w, false)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end(w, false)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.compact_from == 0 { b": " } else { b":" })
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_arrays_are_written_on_one_line() {
        let v = serde_json::json!({"a": [1], "e": {}, "t": [[0, 1.5, 1, 2], [-1, 3.0, 0, 0]]});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/m.json");
        write(&path, &to_bytes(&v).unwrap()).unwrap();
        let s = std::fs::read_to_string(&path).unwrap();
        let sum = digest(&v);
        assert_eq!(
            s,
            format!("{{\n  \"a\": [\n    1\n  ],\n  \"e\": {{}},\n  \"t\": [\n    [0,1.5,1,2],\n    [-1,3.0,0,0]\n  ],\n  \"checksum\": \"{sum}\"\n}}\n")
        );
        let mut back: Value = serde_json::from_str(&s).unwrap();
        back.as_object_mut().unwrap().remove("checksum");
        assert_eq!(back, v);
    }

    #[test]
    fn wrong_format_or_version_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(
            &path,
            "{\"format\": \"pcsearch-counter-model\", \"version\": 99}",
        )
        .unwrap();
        let err = parse(&path, &std::fs::read(&path).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("m.json") && err.contains("version 99"),
            "{err}"
        );
        std::fs::write(&path, "{\"x\": 1}").unwrap();
        let err = parse(&path, &std::fs::read(&path).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("m.json") && err.contains("not a pcsearch counter model"),
            "{err}"
        );
        std::fs::write(&path, "{\"format\": ").unwrap();
        let err = parse(&path, &std::fs::read(&path).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("m.json:1") && err.contains("not valid JSON"),
            "{err}"
        );
    }
}
