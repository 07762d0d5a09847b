//! Files a command writes: reserved before any work, replaced in one step at the end.
//!
//! An output named like an input would replace the recording it was made from; an existing file
//! is only replaced with `--force`; an unwritable place is found before a long training rather
//! than after it. The content goes to a temporary file beside the target and is renamed over it,
//! so a failed or interrupted write never leaves half a file.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A reserved output file.
#[derive(Debug)]
pub struct OutFile {
    path: PathBuf,
    temp: tempfile::NamedTempFile,
}

/// Whether `a` and `b` name the same existing file (through links, `.` and `..` too).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

impl OutFile {
    /// Checks `path` (given with `flag`) against the command's `inputs` and `force`, and opens a
    /// temporary file beside it, creating its directory if needed.
    pub fn reserve(path: &Path, flag: &str, inputs: &[&Path], force: bool) -> Result<OutFile> {
        let shown = path.display();
        if let Some(input) = inputs.iter().find(|i| same_file(path, i)) {
            return Err(Error::invalid(format!(
                "{flag} {shown} is the input {}: writing it would destroy that file; name another output file",
                input.display()
            )));
        }
        if path.is_dir() {
            return Err(Error::invalid(format!(
                "{flag} {shown} is a directory; name a file"
            )));
        }
        if path.exists() && !force {
            return Err(Error::invalid(format!(
                "{flag} {shown} already exists; pass --force to replace it"
            )));
        }
        let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| {
                    Error::invalid(format!("{flag} {shown}: cannot create its directory: {e}"))
                })?;
                dir.to_path_buf()
            }
            None => PathBuf::from("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".pcsearch-")
            .tempfile_in(&dir)
            .map_err(|e| Error::invalid(format!("{flag} {shown} cannot be written: {e}")))?;
        Ok(OutFile {
            path: path.to_path_buf(),
            temp,
        })
    }

    /// Writes `bytes` and puts the file in place.
    pub fn commit(mut self, bytes: &[u8]) -> Result<()> {
        let path = self.path;
        let file = self.temp.as_file_mut();
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(&path, e))?;
        self.temp
            .persist(&path)
            .map(|_| ())
            .map_err(|e| Error::io(&path, e.error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_existing_files_and_directories_are_refused_before_work() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("680-x_output.csv");
        std::fs::write(&input, "data").unwrap();
        let err = OutFile::reserve(&input, "--out", &[&input], true).unwrap_err();
        assert!(err.to_string().contains("is the input"), "{err}");
        let other = dir.path().join("./sub/../680-x_output.csv");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = OutFile::reserve(&other, "--out", &[&input], true).unwrap_err();
        assert!(err.to_string().contains("is the input"), "{err}");
        let model = dir.path().join("m.json");
        std::fs::write(&model, "old").unwrap();
        let err = OutFile::reserve(&model, "--out", &[&input], false).unwrap_err();
        assert!(err.to_string().contains("pass --force"), "{err}");
        let err = OutFile::reserve(dir.path(), "--out", &[], true).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let out = OutFile::reserve(&model, "--out", &[&input], true).unwrap();
        out.commit(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&model).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "data");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 3, "no temporary file is left behind");
    }

    #[test]
    fn an_unwritable_directory_is_found_at_once() {
        let err = OutFile::reserve(Path::new("/proc/pcsearch/m.json"), "--out", &[], false)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("--out /proc/pcsearch/m.json"), "{err}");
    }
}
