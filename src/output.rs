//! Writing reports to standard output without panicking.
//!
//! `println!` panics when standard output fails: `pcsearch explain … | head -1` closes the pipe,
//! `> /dev/full` fills the disk. Reports go through [`outln!`] and [`out!`] instead, which turn a
//! failed write into [`Error::Output`]; `main` ends quietly on a closed pipe, as Unix tools do,
//! and prints one error line for anything else.

use crate::error::{Error, Result};
use std::io::Write;

/// Writes formatted text, and a newline when `newline`, to standard output.
pub fn write_stdout(args: std::fmt::Arguments, newline: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .map_err(Error::Output)
}

/// Flushes standard output; what is still buffered must reach the file before the exit status
/// says success.
pub fn flush_stdout() -> Result<()> {
    std::io::stdout().flush().map_err(Error::Output)
}

/// `println!` that returns [`Error::Output`] from the enclosing function instead of panicking.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::write_stdout(format_args!(""), true)?
    };
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!($($arg)*), true)?
    };
}

/// `print!` that returns [`Error::Output`] from the enclosing function instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!($($arg)*), false)?
    };
}
