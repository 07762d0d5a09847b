//! `pcsearch data fetch`: get the recorded data set into the data directory.

use super::args::FetchArgs;
use crate::datadir::fetch::{self, Origin, Outcome, Report};
use crate::datadir::manifest::Manifest;
use crate::datadir::Lookup;
use crate::error::{Error, Result};

/// `pcsearch data fetch`.
pub fn fetch(args: &FetchArgs) -> Result<()> {
    let mut manifest = Manifest::published()?;
    for pair in &args.url {
        let (name, url) = pair.split_once('=').ok_or_else(|| {
            Error::invalid(format!(
                "--url `{pair}` is not of the form SOURCE=URL (e.g. ktt-paper=https://…/data.zip)"
            ))
        })?;
        manifest.set_url(name.trim(), url.trim())?;
    }
    let target = Lookup::from_env(args.data.data_dir.as_deref()).fetch_target();
    crate::outln!(
        "data directory: {} (from {})",
        target.path.display(),
        target.origin.describe()
    );
    let origin = match &args.from {
        Some(path) => Origin::Local(path),
        None => Origin::Network,
    };
    let report = fetch::fetch(&manifest, &target.path, origin)?;
    crate::out!("{}", describe(&report));
    let missing = report.missing();
    if missing.is_empty() {
        return Ok(());
    }
    let references: Vec<String> = manifest
        .sources
        .iter()
        .filter(|s| {
            manifest
                .files
                .iter()
                .any(|f| f.source == s.name && missing.contains(&f.path.as_str()))
        })
        .map(|s| format!("{} ({})", s.name, s.reference))
        .collect();
    Err(Error::invalid(format!(
        "{} of {} files of the data set are missing or failed verification ({}); get {} by hand and run `pcsearch data fetch --from ARCHIVE_OR_DIR`, or point --data-dir / PCSEARCH_DATA at a directory holding it",
        missing.len(),
        report.files.len(),
        missing.join(", "),
        references.join(" and ")
    )))
}

/// One line per file that is in place or was rejected, and one per reason files are missing for.
pub fn describe(report: &Report) -> String {
    let mut out = String::new();
    let mut missing: Vec<(&str, Vec<&str>)> = Vec::new();
    for (path, outcome) in report.files.iter().chain(&report.extra) {
        let text = match outcome {
            Outcome::Present(v) => format!(
                "present, {} configurations{}",
                v.configurations,
                checked(v.checksum)
            ),
            Outcome::Installed(v) => format!(
                "installed, {} configurations{}",
                v.configurations,
                checked(v.checksum)
            ),
            Outcome::Rejected(why) => format!("REJECTED: {why}"),
            Outcome::Missing(why) => {
                match missing.iter_mut().find(|(w, _)| w == why) {
                    Some((_, paths)) => paths.push(path),
                    None => missing.push((why, vec![path])),
                }
                continue;
            }
        };
        out.push_str(&format!("  {path}: {text}\n"));
    }
    for (why, paths) in missing {
        match paths.as_slice() {
            [one] => out.push_str(&format!("  {one}: MISSING: {why}\n")),
            many => out.push_str(&format!("  {} files MISSING: {why}\n", many.len())),
        }
    }
    out
}

fn checked(checksum: bool) -> &'static str {
    if checksum {
        ", SHA-256 verified"
    } else {
        " (no checksum known; format checked)"
    }
}
