//! What the project knows about the published data sets: where each comes from and, per file, its
//! place in the data directory, SHA-256 and configuration count (`replay_data/published.toml`).

use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::Path;

/// Top-level directories of the data set's layout inside a data directory.
pub const LAYOUT_DIRS: &[&str] = &["ktt-paper", "ktt2"];

/// The manifest shipped with pcsearch.
const PUBLISHED: &str = include_str!("../../replay_data/published.toml");

/// How a source's files are downloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// One archive (zip or tar.gz) holding the files, found in it by name.
    Archive,
    /// Each file at `url` + its file name.
    Files,
    /// `url` is the one file of the source.
    File,
}

/// Where a set of files is published.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Short name, used by `--url NAME=URL`.
    pub name: String,
    /// What the data is.
    pub description: String,
    /// Whom to cite.
    pub reference: String,
    /// Download address.
    pub url: String,
    /// What the address serves.
    pub kind: SourceKind,
}

/// One file of a data set.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownFile {
    /// Place inside the data directory, `/`-separated.
    pub path: String,
    /// Name of its [`Source`].
    pub source: String,
    /// SHA-256 of the published file, lower-case hex, when the project knows it.
    pub sha256: Option<String>,
    /// Number of configurations a reader must find in it.
    pub configurations: Option<usize>,
}

impl KnownFile {
    /// The file name (last path component).
    pub fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

/// The published data sets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Where files come from.
    #[serde(rename = "source")]
    pub sources: Vec<Source>,
    /// The files.
    #[serde(rename = "file")]
    pub files: Vec<KnownFile>,
}

impl Manifest {
    /// The manifest shipped with pcsearch.
    pub fn published() -> Result<Manifest> {
        Manifest::parse(PUBLISHED, Path::new("replay_data/published.toml"))
    }

    /// Parses a manifest, checking that every file names a known source.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest> {
        let manifest: Manifest =
            toml::from_str(text).map_err(|e| Error::file(path, e.to_string()))?;
        for f in &manifest.files {
            if manifest.source(&f.source).is_none() {
                return Err(Error::file(
                    path,
                    format!("file {} names unknown source `{}`", f.path, f.source),
                ));
            }
            if f.path.split('/').any(|c| c.is_empty() || c == "..") {
                return Err(Error::file(
                    path,
                    format!("file path `{}` must be relative and plain", f.path),
                ));
            }
        }
        Ok(manifest)
    }

    /// The source called `name`.
    pub fn source(&self, name: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.name == name)
    }

    /// Points source `name` at `url`; an address ending in `.zip`, `.tar.gz` or `.tgz` is an
    /// archive, any other keeps the source's kind.
    pub fn set_url(&mut self, name: &str, url: &str) -> Result<()> {
        let known = self
            .sources
            .iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
            .join(", ");
        let source = self
            .sources
            .iter_mut()
            .find(|s| s.name == name)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "--url names unknown source `{name}`; known: {known}"
                ))
            })?;
        source.url = url.to_string();
        if [".zip", ".tar.gz", ".tgz"].iter().any(|s| url.ends_with(s)) {
            source.kind = SourceKind::Archive;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_manifest_lists_every_recorded_file_with_its_checksum() {
        let m = Manifest::published().unwrap();
        assert_eq!(m.files.len(), 16);
        assert!(m
            .files
            .iter()
            .all(|f| f.sha256.as_ref().is_some_and(|h| h.len() == 64)));
        let coulomb = m
            .files
            .iter()
            .find(|f| f.path == "ktt-paper/coulomb/680-coulomb_output.csv")
            .unwrap();
        assert_eq!(coulomb.configurations, Some(210));
        assert_eq!(coulomb.file_name(), "680-coulomb_output.csv");
        assert_eq!(m.source("ktt2").unwrap().kind, SourceKind::File);
    }

    #[test]
    fn an_archive_address_makes_the_source_an_archive_and_unknown_names_are_refused() {
        let mut m = Manifest::published().unwrap();
        m.set_url("ktt-paper", "http://127.0.0.1:1/data.tar.gz")
            .unwrap();
        assert_eq!(m.source("ktt-paper").unwrap().kind, SourceKind::Archive);
        let err = m.set_url("nope", "x").unwrap_err().to_string();
        assert!(
            err.contains("unknown source `nope`") && err.contains("ktt2"),
            "{err}"
        );
    }
}
