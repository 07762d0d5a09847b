//! The crate's error type: every failure names the file, line, parameter or value at fault.

use std::path::{Path, PathBuf};

/// Everything that can go wrong in pcsearch, each variant carrying what a user needs to fix it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A file was read but its content is wrong at a known place.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// A file is wrong as a whole (empty, no valid configuration, unknown format).
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A user-supplied value (option, configuration, parameter) is invalid.
    #[error("{0}")]
    Invalid(String),
    /// Standard output could not be written (a closed pipe, a full disk).
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
    /// A GPU or driver facility is missing or failed.
    #[error("{0}")]
    Device(String),
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A content error at `line` (1-based) of `path`.
    pub fn parse(path: &Path, line: usize, message: impl Into<String>) -> Self {
        Error::Parse {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// A whole-file error.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Error::File {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    /// Whether the error is a reader closing standard output early (`| head`): not a failure.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// An invalid user value.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::Invalid(message.into())
    }
}

/// Result with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
