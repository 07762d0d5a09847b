//! `pcsearch data fetch`: download the published data sets into the data directory and verify
//! every file (its SHA-256 where the project knows it, and always that a reader accepts it with the
//! expected number of configurations).

use super::manifest::{KnownFile, Manifest, SourceKind};
use crate::data::{self, ReadOptions};
use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Largest download accepted, bytes (the data set is about 10 MB).
const MAX_DOWNLOAD: u64 = 1 << 30;

/// What became of one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// It was already there and verified.
    Present(Verified),
    /// It was downloaded (or copied from `--from`) and verified.
    Installed(Verified),
    /// It is not there and could not be obtained.
    Missing(String),
    /// A copy was obtained but failed verification; it was not installed.
    Rejected(String),
}

impl Outcome {
    /// Whether the file is in place and verified.
    pub fn is_ok(&self) -> bool {
        matches!(self, Outcome::Present(_) | Outcome::Installed(_))
    }
}

/// What verification established.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// Configurations the reader found.
    pub configurations: usize,
    /// Whether the SHA-256 was checked (the project knows it).
    pub checksum: bool,
}

/// The result of a fetch, file by file.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Known files, in manifest order, with what became of each.
    pub files: Vec<(String, Outcome)>,
    /// Files not in the manifest that came with a download and were installed after a format check.
    pub extra: Vec<(String, Outcome)>,
}

impl Report {
    /// Known files that are not in place.
    pub fn missing(&self) -> Vec<&str> {
        self.files
            .iter()
            .filter(|(_, o)| !o.is_ok())
            .map(|(p, _)| p.as_str())
            .collect()
    }
}

/// Where copies of the files come from.
pub enum Origin<'a> {
    /// The sources of the manifest, over the network.
    Network,
    /// A local archive (zip or tar.gz) or a directory holding the files anywhere below it.
    Local(&'a Path),
}

/// Makes `target` hold every file of `manifest`, verified; files already there and valid are kept
/// without any download.
pub fn fetch(manifest: &Manifest, target: &Path, origin: Origin<'_>) -> Result<Report> {
    let mut report = Report::default();
    let mut wanted: Vec<(&KnownFile, Option<String>)> = Vec::new();
    for file in &manifest.files {
        let path = target.join(&file.path);
        if path.exists() {
            match verify_file(&path, file) {
                Ok(v) => {
                    report.files.push((file.path.clone(), Outcome::Present(v)));
                    continue;
                }
                Err(why) => wanted.push((file, Some(why))),
            }
        } else {
            wanted.push((file, None));
        }
    }
    if wanted.is_empty() {
        return Ok(report);
    }
    let mut copies = Copies::default();
    match origin {
        Origin::Local(path) => copies.add_local(path)?,
        Origin::Network => {
            for source in &manifest.sources {
                let names: Vec<&KnownFile> = wanted
                    .iter()
                    .filter(|(f, _)| f.source == source.name)
                    .map(|(f, _)| *f)
                    .collect();
                if names.is_empty() {
                    continue;
                }
                match source.kind {
                    SourceKind::Archive => match download(&source.url) {
                        Ok(bytes) => copies.add_archive(&bytes, &source.url)?,
                        Err(e) => copies.fail_source(&source.name, e.to_string()),
                    },
                    SourceKind::File => match download(&source.url) {
                        Ok(bytes) => copies.add(names[0].file_name(), bytes),
                        Err(e) => copies.fail_source(&source.name, e.to_string()),
                    },
                    SourceKind::Files => {
                        for f in names {
                            let url = format!("{}{}", source.url, f.file_name());
                            match download(&url) {
                                Ok(bytes) => copies.add(f.file_name(), bytes),
                                // No answer at all (no network, no such host): the other files
                                // of the source cannot come either.
                                Err(e) if !e.to_string().contains("status code") => {
                                    copies.fail_source(&source.name, e.to_string());
                                    break;
                                }
                                Err(e) => copies.fail_file(f.file_name(), e.to_string()),
                            }
                        }
                    }
                }
            }
        }
    }
    let mut installed_names = Vec::new();
    for (file, earlier) in wanted {
        let outcome = match copies.take(file.file_name()) {
            Some(bytes) => install(target, file, &bytes),
            None => Outcome::Missing(copies.why_missing(file, earlier)),
        };
        installed_names.push(file.file_name().to_string());
        report.files.push((file.path.clone(), outcome));
    }
    report.files.sort_by_key(|(p, _)| {
        manifest
            .files
            .iter()
            .position(|f| &f.path == p)
            .unwrap_or(usize::MAX)
    });
    for (name, bytes) in copies.extras() {
        let Some(place) = extra_place(&name) else {
            continue;
        };
        if target.join(&place).exists() || installed_names.contains(&name) {
            continue;
        }
        let file = KnownFile {
            path: place.clone(),
            source: String::new(),
            sha256: None,
            configurations: None,
        };
        report.extra.push((place, install(target, &file, &bytes)));
    }
    Ok(report)
}

/// Where an unlisted `<gpu>-<bench>_output.csv` goes: `ktt-paper/<bench>/`.
fn extra_place(name: &str) -> Option<String> {
    let stem = name.strip_suffix("_output.csv")?;
    let (gpu, bench) = stem.split_once('-')?;
    (!gpu.is_empty() && !bench.is_empty() && !bench.contains(['/', '\\']))
        .then(|| format!("ktt-paper/{bench}/{name}"))
}

/// Checks the checksum, writes the file beside its place, checks that a reader accepts it, then
/// moves it into place; nothing unverified is left behind.
fn install(target: &Path, file: &KnownFile, bytes: &[u8]) -> Outcome {
    if let Some(expected) = &file.sha256 {
        let got = sha256_hex(bytes);
        if &got != expected {
            return Outcome::Rejected(format!(
                "checksum mismatch: SHA-256 {got}, expected {expected}"
            ));
        }
    }
    let place = target.join(&file.path);
    let result = (|| -> Result<Verified> {
        let parent = place.parent().unwrap_or(target);
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        let partial = place.with_extension("partial");
        std::fs::write(&partial, bytes).map_err(|e| Error::io(&partial, e))?;
        let verified = verify_format(&partial, file);
        match verified {
            Ok(v) => {
                std::fs::rename(&partial, &place).map_err(|e| Error::io(&place, e))?;
                Ok(v)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                Err(e)
            }
        }
    })();
    match result {
        Ok(v) => Outcome::Installed(Verified {
            checksum: file.sha256.is_some(),
            ..v
        }),
        Err(e) => Outcome::Rejected(e.to_string()),
    }
}

/// Verifies a file in place: checksum (when known) and format.
fn verify_file(path: &Path, file: &KnownFile) -> std::result::Result<Verified, String> {
    if let Some(expected) = &file.sha256 {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let got = sha256_hex(&bytes);
        if &got != expected {
            return Err(format!(
                "the copy there has SHA-256 {got}, expected {expected}"
            ));
        }
    }
    verify_format(path, file)
        .map(|v| Verified {
            checksum: file.sha256.is_some(),
            ..v
        })
        .map_err(|e| e.to_string())
}

/// A reader accepts the file and finds the expected number of configurations.
fn verify_format(path: &Path, file: &KnownFile) -> Result<Verified> {
    let dataset = data::load(path, &ReadOptions::default())?;
    if let Some(n) = file.configurations {
        if dataset.len() != n {
            return Err(Error::file(
                path,
                format!("{} configurations, expected {n}", dataset.len()),
            ));
        }
    }
    Ok(Verified {
        configurations: dataset.len(),
        checksum: false,
    })
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Downloads `url` over HTTP(S).
pub fn download(url: &str) -> Result<Vec<u8>> {
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(20))
        .timeout_read(Duration::from_secs(120))
        .build();
    let response = agent
        .get(url)
        .call()
        // ureq's message starts with the address.
        .map_err(|e| Error::invalid(format!("could not download {e}")))?;
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(MAX_DOWNLOAD)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(format!("could not download {url}: {e}")))?;
    Ok(bytes)
}

/// Copies of files obtained so far, by file name, and why others could not be obtained.
#[derive(Default)]
struct Copies {
    by_name: BTreeMap<String, Vec<u8>>,
    source_failures: BTreeMap<String, String>,
    file_failures: BTreeMap<String, String>,
    looked_in: Option<String>,
}

impl Copies {
    fn add(&mut self, name: &str, bytes: Vec<u8>) {
        self.by_name.entry(name.to_string()).or_insert(bytes);
    }

    fn fail_source(&mut self, source: &str, why: String) {
        self.source_failures.insert(source.to_string(), why);
    }

    fn fail_file(&mut self, name: &str, why: String) {
        self.file_failures.insert(name.to_string(), why);
    }

    fn take(&mut self, name: &str) -> Option<Vec<u8>> {
        self.by_name.remove(name)
    }

    fn extras(self) -> impl Iterator<Item = (String, Vec<u8>)> {
        self.by_name.into_iter()
    }

    fn why_missing(&self, file: &KnownFile, earlier: Option<String>) -> String {
        let base = if let Some(why) = self.file_failures.get(file.file_name()) {
            why.clone()
        } else if let Some(why) = self.source_failures.get(&file.source) {
            why.clone()
        } else if let Some(place) = &self.looked_in {
            format!("{} holds no file named {}", place, file.file_name())
        } else {
            format!("the download holds no file named {}", file.file_name())
        };
        match earlier {
            Some(why) => format!("{base} (and {why})"),
            None => base,
        }
    }

    /// Reads an archive or a directory given with `--from`.
    fn add_local(&mut self, path: &Path) -> Result<()> {
        self.looked_in = Some(path.display().to_string());
        if path.is_dir() {
            for file in walk(path) {
                let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                let name = name.to_string();
                if !self.by_name.contains_key(&name) {
                    let bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
                    self.add(&name, bytes);
                }
            }
            return Ok(());
        }
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        self.add_archive(&bytes, &path.display().to_string())
    }

    /// Every regular file of a zip or tar.gz archive, by its file name (directories ignored).
    fn add_archive(&mut self, bytes: &[u8], what: &str) -> Result<()> {
        let bad = |e: String| Error::invalid(format!("{what} is not a readable archive: {e}"));
        if bytes.starts_with(b"PK\x03\x04") {
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
                .map_err(|e| bad(e.to_string()))?;
            for i in 0..zip.len() {
                let mut entry = zip.by_index(i).map_err(|e| bad(e.to_string()))?;
                if !entry.is_file() {
                    continue;
                }
                let Some(name) = base_name(entry.name()) else {
                    continue;
                };
                let mut content = Vec::new();
                (&mut entry)
                    .take(MAX_DOWNLOAD)
                    .read_to_end(&mut content)
                    .map_err(|e| bad(e.to_string()))?;
                self.add(&name, content);
            }
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            let gz = flate2::read::GzDecoder::new(bytes);
            let mut tar = tar::Archive::new(gz);
            for entry in tar.entries().map_err(|e| bad(e.to_string()))? {
                let mut entry = entry.map_err(|e| bad(e.to_string()))?;
                if !entry.header().entry_type().is_file() {
                    continue;
                }
                let path = entry.path().map_err(|e| bad(e.to_string()))?;
                let Some(name) = path.to_str().and_then(base_name) else {
                    continue;
                };
                let mut content = Vec::new();
                (&mut entry)
                    .take(MAX_DOWNLOAD)
                    .read_to_end(&mut content)
                    .map_err(|e| bad(e.to_string()))?;
                self.add(&name, content);
            }
        } else {
            return Err(bad("neither zip nor gzip-compressed tar".into()));
        }
        Ok(())
    }
}

/// The last component of an archive entry's path, if it is a plain file name.
fn base_name(entry: &str) -> Option<String> {
    let name = entry.rsplit(['/', '\\']).next()?;
    (!name.is_empty() && name != "." && name != "..").then(|| name.to_string())
}

/// Every file below `dir`, depth first, in name order.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.is_file() {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlisted_output_files_go_under_their_benchmark() {
        assert_eq!(
            extra_place("2080-conv_output.csv").as_deref(),
            Some("ktt-paper/conv/2080-conv_output.csv")
        );
        assert_eq!(extra_place("README.md"), None);
        assert_eq!(
            base_name("data/ktt/680-x_output.csv").as_deref(),
            Some("680-x_output.csv")
        );
        assert_eq!(base_name("data/"), None);
    }

    #[test]
    fn sha256_of_a_known_string() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
