//! The `pcsearch` command line.

use clap::Parser;

fn main() {
    let cli = pcsearch::cli::Cli::parse();
    let result = pcsearch::cli::run(cli).and_then(|()| pcsearch::output::flush_stdout());
    match result {
        Ok(()) => {}
        // `pcsearch … | head`: the reader has what it wanted.
        Err(e) if e.is_closed_pipe() => {}
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
