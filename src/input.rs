//! Reading input files with a size limit: a file is never read unbounded into memory.
//!
//! `--space /dev/zero` or a mistyped multi-gigabyte path would otherwise grow until the machine
//! runs out of memory. Each kind of input has a limit far above any real file of its kind.

use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

/// Largest recorded tuning space read (a 200,000-configuration KTT CSV with 60 columns is about
/// 30 MiB).
pub const MAX_SPACE_BYTES: u64 = 256 << 20;
/// Largest model file read (the shipped models are under 1 MiB).
pub const MAX_MODEL_BYTES: u64 = 256 << 20;
/// Largest rules, device table or kernel description read.
pub const MAX_SMALL_FILE_BYTES: u64 = 16 << 20;

/// The bytes of `path`, refused with a message naming the file when it holds more than `limit`.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    // Device files (/dev/zero) report no length: the limit is enforced on what is read.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(Error::file(
            path,
            format!(
                "the file is larger than {} MiB, the most pcsearch reads for this kind of file",
                limit >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// The text of `path` (UTF-8), with the size limit of [`read_bounded`].
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        Error::file(
            path,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_oversized_files_are_refused_naming_the_file() {
        let err = read_bounded(Path::new("/dev/zero"), 1 << 20)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "/dev/zero: the file is larger than 1 MiB, the most pcsearch reads for this kind of file"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.toml");
        std::fs::write(&path, b"a = 1\n\xff").unwrap();
        assert_eq!(read_bounded(&path, 7).unwrap().len(), 7);
        let err = read_text_bounded(&path, 7).unwrap_err().to_string();
        assert!(
            err.ends_with("not UTF-8 text (invalid byte at offset 6)"),
            "{err}"
        );
    }
}
