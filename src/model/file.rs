//! Model files: versioned JSON, indented for reading but one tree node per line to stay small.

use crate::error::{Error, Result};
use serde_json::ser::Formatter;
use serde_json::Value;
use std::io;
use std::path::Path;

/// `format` field every model file carries.
pub const FORMAT: &str = "pcsearch-counter-model";
/// Version of the file layout this build writes. Version 2 added the training range (`domain`);
/// version 1 files are still read, without it.
pub const VERSION: u64 = 2;

/// Versions this build reads.
const READABLE: [u64; 2] = [1, 2];

/// Writes `model` as JSON to `path`.
pub fn write<T: serde::Serialize>(path: &Path, model: &T) -> Result<()> {
    let mut bytes = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, LayoutFormatter::default());
    model
        .serialize(&mut ser)
        .map_err(|e| Error::file(path, format!("cannot serialise the model: {e}")))?;
    bytes.push(b'\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// Reads `path` as JSON and checks it is a model file of the version this build reads.
pub fn read(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Error::parse(path, e.line(), format!("not valid JSON: {e}")))?;
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(Error::file(
            path,
            format!("not a pcsearch counter model (no `\"format\": \"{FORMAT}\"`)"),
        ));
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if READABLE.contains(&v) => Ok(value),
        Some(v) => Err(Error::file(
            path,
            format!("model format version {v} is not supported; this pcsearch reads versions 1 and 2 (retrain with `pcsearch train`)"),
        )),
        None => Err(Error::file(path, "the model has no numeric `version`")),
    }
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
        write(&path, &v).unwrap();
        let s = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            s,
            "{\n  \"a\": [\n    1\n  ],\n  \"e\": {},\n  \"t\": [\n    [0,1.5,1,2],\n    [-1,3.0,0,0]\n  ]\n}\n"
        );
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
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
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.contains("m.json") && err.contains("version 99"),
            "{err}"
        );
        std::fs::write(&path, "{\"x\": 1}").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.contains("m.json") && err.contains("not a pcsearch counter model"),
            "{err}"
        );
        std::fs::write(&path, "{\"format\": ").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.contains("m.json:1") && err.contains("not valid JSON"),
            "{err}"
        );
    }
}
