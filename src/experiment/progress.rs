//! Progress of long experiments on standard error (indicatif draws nothing when it is not a
//! terminal, so redirected output stays clean).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `runs` seeded runs; its message names the space and searcher being run.
pub fn progress_bar(runs: u64) -> ProgressBar {
    let bar = ProgressBar::new(runs);
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {pos}/{len} runs, {eta} left  {msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar
}
