//! Writes a generated transposition-like space (RTX 2080 counters) as KTT CSV, for measuring
//! `pcsearch simulate` and `train` at scale from the command line.
//!
//! `cargo run --release --example synthetic_space -- 200000 /tmp/2080-synthetic_output.csv [SEED]`

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: synthetic_space CONFIGURATIONS OUT.csv [SEED]";
    let (Some(count), Some(out)) = (args.next(), args.next()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let seed = args.next().map_or(Ok(1), |s| s.parse::<u64>());
    let (Ok(count), Ok(seed)) = (count.parse::<usize>(), seed) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let dataset = pcsearch::synthetic::transpose_space(count, seed);
    if let Err(e) = pcsearch::data::write_ktt_csv(&dataset, &PathBuf::from(&out)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    println!(
        "wrote {out}: {} configurations, {} valid",
        dataset.len(),
        dataset.valid_count()
    );
}
