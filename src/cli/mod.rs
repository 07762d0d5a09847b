//! Command-line interface: argument definitions and the commands they run.

mod args;
mod bounds;
mod check;
mod data;
mod device;
mod explain;
mod export;
mod holdout;
mod matrix;
mod out_file;
mod record;
pub mod setup;
mod simulate;
mod train;
mod tune;

pub use args::{Cli, Command, DataCommand};

use crate::error::Result;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    if let Some(threads) = cli.command.threads() {
        // Ignore the error of a second initialisation (tests run several commands per process).
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
    match cli.command {
        Command::Simulate(a) => simulate::simulate(&a),
        Command::Compare(a) => simulate::compare(&a),
        Command::Explain(a) => explain::explain(&a),
        Command::Train(a) => train::train(&a),
        Command::Matrix(a) => matrix::matrix(&a),
        Command::Holdout(a) => holdout::holdout(&a),
        Command::Tune(a) => tune::tune(&a),
        Command::Record(a) => record::record(&a),
        Command::Device(a) => device::device(&a),
        Command::Check(a) => check::check(&a),
        Command::Export(a) => export::export(&a),
        Command::Data(DataCommand::Fetch(a)) => data::fetch(&a),
    }
}
