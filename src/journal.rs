//! The results journal of live tuning: one JSON line per measured test, written as it is measured.
//!
//! The first line is a header naming the kernel description, a hash of it and of the kernel source,
//! the seed and the searcher; a resumed run must match all four, because replaying the journal only
//! reproduces the interrupted run when the searcher makes the same decisions. Each further line is
//! a [`JournalEntry`]. Lines are written whole and synced, so a killed run loses at most the line it
//! was writing; such a torn last line is dropped (with a warning) when the journal is resumed.

use crate::backend::Measurement;
use crate::counters::{Counter, CounterValues};
use crate::error::{Error, Result};
use crate::space::TuningSpace;
use crate::tuning::Step;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Marker of the header line.
const MAGIC: &str = "pcsearch-journal";

/// What a journal was measured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalHeader {
    /// Always `pcsearch-journal`.
    pub journal: String,
    /// Format version.
    pub version: u32,
    /// The kernel description file, as given.
    pub kernel_file: String,
    /// Hash of the description and the kernel source.
    pub kernel_hash: String,
    /// Searcher seed.
    pub seed: u64,
    /// Searcher name (`random`, `profile`, `record`).
    pub searcher: String,
    /// Tuning parameter names, in configuration order.
    pub parameters: Vec<String>,
    /// GPU the tests ran on.
    #[serde(default)]
    pub device: Option<String>,
}

impl JournalHeader {
    /// A header for a run.
    pub fn new(
        kernel_file: &Path,
        kernel_hash: &str,
        seed: u64,
        searcher: &str,
        space: &TuningSpace,
    ) -> Self {
        JournalHeader {
            journal: MAGIC.into(),
            version: 1,
            kernel_file: kernel_file.display().to_string(),
            kernel_hash: kernel_hash.into(),
            seed,
            searcher: searcher.into(),
            parameters: space.parameters().to_vec(),
            device: None,
        }
    }
}

/// One measured test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Parameter values by name.
    pub config: BTreeMap<String, f64>,
    /// Whether counters were requested.
    pub profiled: bool,
    /// Median runtime, µs; absent when the configuration failed.
    #[serde(default)]
    pub runtime_us: Option<f64>,
    /// Why the configuration failed.
    #[serde(default)]
    pub failure: Option<String>,
    /// NVRTC's log, when compilation failed.
    #[serde(default)]
    pub compiler_log: Option<String>,
    /// Total threads launched.
    #[serde(default)]
    pub global_size: Option<f64>,
    /// Threads per block.
    #[serde(default)]
    pub local_size: Option<f64>,
    /// Why a profiled test that ran has no counters.
    #[serde(default)]
    pub counters_unavailable: Option<String>,
    /// Raw profiler metric values by metric name.
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
    /// Canonical counters by short name.
    #[serde(default)]
    pub counters: BTreeMap<String, f64>,
    /// What NVRTC built (`sm_90` machine code, or `compute_90` PTX).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Seconds spent compiling and loading (zero when the module was reused).
    #[serde(default)]
    pub compile_s: f64,
    /// Seconds spent preparing, checking and timing runs.
    #[serde(default)]
    pub run_s: f64,
    /// Seconds spent collecting counters.
    #[serde(default)]
    pub profile_s: f64,
    /// Wall time of the test, seconds.
    pub cost_s: f64,
    /// Time since the start of tuning (of the run that measured it), seconds.
    pub elapsed_s: f64,
}

impl JournalEntry {
    /// The entry of a step; backend details (metrics, log, geometry) are filled in by the caller.
    pub fn from_step(space: &TuningSpace, step: &Step) -> JournalEntry {
        let m = &step.measurement;
        JournalEntry {
            config: space
                .parameters()
                .iter()
                .cloned()
                .zip(space.config(step.config).iter().copied())
                .collect(),
            profiled: step.profiled,
            runtime_us: m.runtime_us,
            failure: m.failure.clone(),
            compiler_log: None,
            global_size: None,
            local_size: None,
            counters_unavailable: None,
            metrics: BTreeMap::new(),
            counters: m
                .counters
                .map(|c| {
                    Counter::ALL
                        .iter()
                        .filter(|&&k| c[k].is_finite())
                        .map(|&k| (k.short().to_string(), c[k]))
                        .collect()
                })
                .unwrap_or_default(),
            target: None,
            compile_s: 0.0,
            run_s: 0.0,
            profile_s: 0.0,
            cost_s: m.cost_s,
            elapsed_s: step.elapsed_s,
        }
    }

    /// The step this entry records, located in `space`.
    pub fn to_step(&self, space: &TuningSpace) -> std::result::Result<Step, String> {
        let mut values = Vec::with_capacity(space.parameters().len());
        for p in space.parameters() {
            values.push(
                *self
                    .config
                    .get(p)
                    .ok_or_else(|| format!("the configuration lacks `{p}`"))?,
            );
        }
        let config = space
            .find(&values)
            .ok_or_else(|| "the configuration is not in the tuning space".to_string())?;
        let counters = if self.counters.is_empty() {
            None
        } else {
            let mut c = CounterValues::default();
            for (name, v) in &self.counters {
                let k = Counter::from_short(name)
                    .ok_or_else(|| format!("`{name}` is not a canonical counter"))?;
                c[k] = *v;
            }
            Some(c)
        };
        Ok(Step {
            config,
            profiled: self.profiled,
            measurement: Measurement {
                runtime_us: self.runtime_us,
                counters,
                failure: self.failure.clone(),
                cost_s: self.cost_s,
            },
            elapsed_s: self.elapsed_s,
        })
    }
}

/// An open journal, appended to line by line.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

/// A journal reopened for resuming.
#[derive(Debug)]
pub struct Resumed {
    /// The journal, positioned for appending.
    pub journal: Journal,
    /// Entries recorded so far, in order.
    pub entries: Vec<JournalEntry>,
    /// Problems that did not stop the resume (a torn last line).
    pub warnings: Vec<String>,
}

impl Journal {
    /// Starts a new journal; refuses to overwrite one that holds results.
    pub fn create(path: &Path, header: &JournalHeader) -> Result<Journal> {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            return Err(Error::file(
                path,
                "a journal already exists: pass --resume to continue it, or remove it (or name another with --journal)",
            ));
        }
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut journal = Journal {
            path: path.to_path_buf(),
            file,
        };
        journal.write_line(header)?;
        Ok(journal)
    }

    /// Reopens a journal, checks it was written for the same run, and reads its entries.
    pub fn resume(path: &Path, expected: &JournalHeader) -> Result<Resumed> {
        let text = crate::input::read_text_bounded(path, crate::input::MAX_SPACE_BYTES)?;
        let mut warnings = Vec::new();
        // Only complete lines count: a kill mid-write leaves a last line without its newline.
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        let mut good_len = complete;
        if complete < text.len() {
            warnings.push(format!(
                "{}: ignoring an incomplete last line (the run was killed while writing it)",
                path.display()
            ));
        }
        let lines: Vec<&str> = text[..complete].lines().collect();
        let Some(first) = lines.first() else {
            return Err(Error::file(
                path,
                "the journal is empty: start a new run without --resume",
            ));
        };
        let header: JournalHeader = serde_json::from_str(first)
            .ok()
            .filter(|h: &JournalHeader| h.journal == MAGIC)
            .ok_or_else(|| Error::parse(path, 1, "not a pcsearch journal (no header line)"))?;
        check_header(path, &header, expected)?;
        let mut entries = Vec::new();
        for (i, line) in lines.iter().enumerate().skip(1) {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<JournalEntry>(line) {
                Ok(e) => entries.push(e),
                Err(e) if i + 1 == lines.len() => {
                    // A complete but garbled last line is a torn write too.
                    warnings.push(format!(
                        "{}:{}: ignoring an unreadable last line ({e})",
                        path.display(),
                        i + 1
                    ));
                    good_len = complete - line.len() - 1;
                }
                Err(e) => return Err(Error::parse(path, i + 1, format!("unreadable entry: {e}"))),
            }
        }
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        // Cut the torn tail so that the next entry starts on a line of its own.
        file.set_len(good_len as u64)
            .map_err(|e| Error::io(path, e))?;
        let mut file = file;
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0))
            .map_err(|e| Error::io(path, e))?;
        Ok(Resumed {
            journal: Journal {
                path: path.to_path_buf(),
                file,
            },
            entries,
            warnings,
        })
    }

    /// Appends an entry and syncs it to disk.
    pub fn append(&mut self, entry: &JournalEntry) -> Result<()> {
        self.write_line(entry)
    }

    /// The journal's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_line<T: Serialize>(&mut self, value: &T) -> Result<()> {
        let mut line = serde_json::to_string(value)
            .map_err(|e| Error::file(&self.path, format!("cannot encode an entry: {e}")))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| Error::io(&self.path, e))
    }
}

fn check_header(path: &Path, found: &JournalHeader, expected: &JournalHeader) -> Result<()> {
    let refuse = |what: String| Err(Error::file(path, what));
    if found.kernel_hash != expected.kernel_hash || found.parameters != expected.parameters {
        return refuse(format!(
            "the journal was written for kernel {} (hash {}), not for {} (hash {}) as it is now: remove the journal or name another with --journal",
            found.kernel_file, found.kernel_hash, expected.kernel_file, expected.kernel_hash
        ));
    }
    if found.searcher != expected.searcher {
        return refuse(format!(
            "the journal was written by the {} searcher, not {}: pass --searcher {} to resume it",
            found.searcher, expected.searcher, found.searcher
        ));
    }
    // Runtimes and counters of another GPU would mix with this one's in the same search.
    if let (Some(f), Some(e)) = (&found.device, &expected.device) {
        if f != e {
            return refuse(format!(
                "the journal was measured on {f}, not on {e}: resume it on {f}, or remove it (or name another with --journal)"
            ));
        }
    }
    if found.seed != expected.seed {
        return refuse(format!(
            "the journal was written with --seed {}, not {}: pass --seed {} to resume it",
            found.seed, expected.seed, found.seed
        ));
    }
    Ok(())
}

/// Steps of resumed entries, located in `space`; errors name the journal line.
pub fn steps(path: &Path, space: &TuningSpace, entries: &[JournalEntry]) -> Result<Vec<Step>> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| e.to_step(space).map_err(|m| Error::parse(path, i + 2, m)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::search::RandomSearch;
    use crate::space::ConfigId;
    use crate::tuning::{tune, StopRule};

    fn space() -> TuningSpace {
        crate::space::grid_space(5, 4)
    }

    fn header(seed: u64) -> JournalHeader {
        JournalHeader::new(Path::new("k.toml"), "00ff", seed, "random", &space())
    }

    /// A backend that counts the tests it really runs.
    struct Counting {
        space: TuningSpace,
        runs: Vec<ConfigId>,
    }

    impl Backend for Counting {
        fn space(&self) -> &TuningSpace {
            &self.space
        }
        fn measure(&mut self, config: ConfigId, profile: bool) -> Result<Measurement> {
            self.runs.push(config);
            if config % 7 == 3 {
                return Ok(Measurement::failed(
                    "too many resources requested for launch",
                    0.5,
                ));
            }
            let mut counters = None;
            if profile {
                let mut c = CounterValues::default();
                c[Counter::DramRt] = config as f64 * 10.0;
                counters = Some(c);
            }
            Ok(Measurement {
                runtime_us: Some(100.0 + config as f64),
                counters,
                failure: None,
                cost_s: 1.0,
            })
        }
    }

    fn run(
        path: &Path,
        steps_before: &[Step],
        max_tests: usize,
        journal: &mut Journal,
    ) -> (Vec<ConfigId>, Vec<Step>) {
        let mut backend = Counting {
            space: space(),
            runs: Vec::new(),
        };
        let mut searcher = RandomSearch::new(20, 5);
        let stop = StopRule {
            max_tests: Some(max_tests),
            ..StopRule::default()
        };
        let sp = space();
        let history = tune(&mut backend, &mut searcher, &stop, steps_before, &mut |s| {
            journal.append(&JournalEntry::from_step(&sp, s))
        })
        .unwrap();
        let _ = path;
        (backend.runs, history.steps)
    }

    #[test]
    fn entries_round_trip_with_counters_and_failures() {
        let sp = space();
        let mut c = CounterValues::default();
        c[Counter::InstF32] = 12.5;
        let step = Step {
            config: 6,
            profiled: true,
            measurement: Measurement {
                runtime_us: Some(3.5),
                counters: Some(c),
                failure: None,
                cost_s: 0.25,
            },
            elapsed_s: 9.0,
        };
        let mut e = JournalEntry::from_step(&sp, &step);
        assert_eq!(
            e.config,
            BTreeMap::from([("A".into(), 1.0), ("B".into(), 2.0)])
        );
        assert_eq!(e.counters, BTreeMap::from([("INST_F32".into(), 12.5)]));
        e.metrics.insert("smsp__inst_executed.sum".into(), 4.0);
        let text = serde_json::to_string(&e).unwrap();
        let back: JournalEntry = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e);
        let s = back.to_step(&sp).unwrap();
        assert_eq!(s.config, 6);
        assert_eq!(s.measurement.counters.unwrap()[Counter::InstF32], 12.5);
        assert!(s.measurement.counters.unwrap()[Counter::DramRt].is_nan());
        let failed = Step {
            measurement: Measurement::failed("nvrtc: error", 0.1),
            ..step
        };
        let e = JournalEntry::from_step(&sp, &failed);
        let back = e.to_step(&sp).unwrap();
        assert_eq!(back.measurement, failed.measurement);
    }

    #[test]
    fn a_resumed_run_repeats_no_test_and_ends_like_an_uninterrupted_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        // Interrupted after 6 tests.
        let mut j = Journal::create(&path, &header(5)).unwrap();
        let (first_runs, _) = run(&path, &[], 6, &mut j);
        drop(j);
        assert_eq!(first_runs.len(), 6);
        // Resume to 12 tests.
        let resumed = Journal::resume(&path, &header(5)).unwrap();
        assert!(resumed.warnings.is_empty());
        assert_eq!(resumed.entries.len(), 6);
        let before = steps(&path, &space(), &resumed.entries).unwrap();
        let mut j = resumed.journal;
        let (second_runs, resumed_steps) = run(&path, &before, 12, &mut j);
        drop(j);
        assert_eq!(second_runs.len(), 6, "only the 6 new tests run");
        assert!(second_runs.iter().all(|c| !first_runs.contains(c)));
        // The same as 12 tests in one go.
        let other = dir.path().join("once.jsonl");
        let mut j = Journal::create(&other, &header(5)).unwrap();
        let (_, once) = run(&other, &[], 12, &mut j);
        let configs = |s: &[Step]| s.iter().map(|s| s.config).collect::<Vec<_>>();
        assert_eq!(configs(&resumed_steps), configs(&once));
        assert_eq!(
            resumed_steps.last().unwrap().elapsed_s,
            once.last().unwrap().elapsed_s
        );
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines, 13, "header + 12 entries");
    }

    #[test]
    fn a_torn_last_line_is_dropped_with_a_warning_and_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let mut j = Journal::create(&path, &header(5)).unwrap();
        run(&path, &[], 3, &mut j);
        drop(j);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"config\":{\"A\":1,");
        std::fs::write(&path, &text).unwrap();
        let resumed = Journal::resume(&path, &header(5)).unwrap();
        assert_eq!(resumed.entries.len(), 3);
        assert_eq!(resumed.warnings.len(), 1);
        assert!(
            resumed.warnings[0].contains("incomplete last line"),
            "{:?}",
            resumed.warnings
        );
        let mut j = resumed.journal;
        j.append(&resumed.entries[0]).unwrap();
        drop(j);
        let again = Journal::resume(&path, &header(5)).unwrap();
        assert_eq!(again.entries.len(), 4);
        assert!(again.warnings.is_empty());
    }

    #[test]
    fn a_garbled_middle_line_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let mut j = Journal::create(&path, &header(5)).unwrap();
        run(&path, &[], 3, &mut j);
        drop(j);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[2] = "{oops";
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let err = Journal::resume(&path, &header(5)).unwrap_err().to_string();
        assert!(err.contains("run.jsonl:3: unreadable entry"), "{err}");
    }

    #[test]
    fn journals_of_other_runs_are_refused_and_existing_ones_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        Journal::create(&path, &header(5)).unwrap();
        let err = Journal::create(&path, &header(5)).unwrap_err().to_string();
        assert!(err.contains("pass --resume"), "{err}");
        let err = Journal::resume(&path, &header(6)).unwrap_err().to_string();
        assert!(err.contains("written with --seed 5, not 6"), "{err}");
        let mut other = header(5);
        other.kernel_hash = "1234".into();
        let err = Journal::resume(&path, &other).unwrap_err().to_string();
        assert!(
            err.contains("was written for kernel k.toml (hash 00ff)"),
            "{err}"
        );
        let mut other = header(5);
        other.searcher = "profile".into();
        let err = Journal::resume(&path, &other).unwrap_err().to_string();
        assert!(err.contains("by the random searcher, not profile"), "{err}");
        let mut other = header(5);
        other.device = Some("NVIDIA A100".into());
        let on = |device: &str| {
            let path = dir.path().join(format!("{device}.jsonl"));
            let mut h = header(5);
            h.device = Some(device.into());
            Journal::create(&path, &h).unwrap();
            path
        };
        let err = Journal::resume(&on("NVIDIA GeForce RTX 3090"), &other)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("measured on NVIDIA GeForce RTX 3090, not on NVIDIA A100"),
            "{err}"
        );
        assert!(Journal::resume(&on("NVIDIA A100"), &other).is_ok());
        std::fs::write(&path, "hello\n").unwrap();
        let err = Journal::resume(&path, &header(5)).unwrap_err().to_string();
        assert!(err.contains("not a pcsearch journal"), "{err}");
    }
}
