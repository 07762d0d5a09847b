//! The `pcsearch` command line.

use clap::Parser;

fn main() {
    let cli = pcsearch::cli::Cli::parse();
    if let Err(e) = pcsearch::cli::run(cli) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
