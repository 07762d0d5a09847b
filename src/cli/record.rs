//! `pcsearch record`: measure and profile the whole space and write replay data.

use super::args::RecordArgs;
use super::export::write_result_files;
use super::out_file::OutFile;
use super::tune::{open_journal, progress, run_live};
use crate::backend::cuda::{libs, CudaBackend};
use crate::backend::Measurement;
use crate::data::{ktt_csv_bytes, Dataset, Record};
use crate::error::{Error, Result};
use crate::journal::{JournalEntry, JournalHeader};
use crate::kernel::validate::validate;
use crate::kernel::KernelDescription;
use crate::rules::Rules;
use crate::search::{Request, Searcher};
use crate::space::TuningSpace;
use crate::tuning::StopRule;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Visits every configuration once, in id order, profiling each when counters are available.
pub struct Exhaustive {
    next: usize,
    size: usize,
    profile: bool,
}

impl Exhaustive {
    /// Over `size` configurations.
    pub fn new(size: usize, profile: bool) -> Self {
        Exhaustive {
            next: 0,
            size,
            profile,
        }
    }
}

impl Searcher for Exhaustive {
    fn next(&mut self) -> Option<Request> {
        (self.next < self.size).then(|| {
            self.next += 1;
            Request {
                config: self.next - 1,
                profile: self.profile,
            }
        })
    }

    fn observe(&mut self, _request: Request, _outcome: &Measurement) {}
}

/// The journal next to the output: `<out>.journal.jsonl`.
pub fn default_journal(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".journal.jsonl");
    PathBuf::from(name)
}

/// Builds replay data from journal entries (the last entry of each configuration counts).
///
/// Columns of metrics are the union of the metric names measured. A configuration that ran but has
/// no counters while others have them is recorded as failed: replay data must be complete, and a
/// runtime without counters would mislead the profile-based searcher. Returns the dataset and how
/// many configurations were so dropped.
pub fn dataset(
    kernel: &str,
    device: Option<String>,
    space: &TuningSpace,
    entries: &[JournalEntry],
    out: &Path,
) -> Result<(Dataset, usize)> {
    let mut last: Vec<Option<&JournalEntry>> = vec![None; space.len()];
    for e in entries {
        let values: Option<Vec<f64>> = space
            .parameters()
            .iter()
            .map(|p| e.config.get(p).copied())
            .collect();
        if let Some(id) = values.and_then(|v| space.find(&v)) {
            last[id] = Some(e);
        }
    }
    let metric_names: Vec<String> = entries
        .iter()
        .flat_map(|e| e.metrics.keys().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut dropped = 0;
    let mut records = Vec::with_capacity(space.len());
    for e in &last {
        let Some(e) = e else {
            records.push(Record {
                runtime_us: None,
                global_size: f64::NAN,
                local_size: f64::NAN,
                metrics: vec![f64::NAN; metric_names.len()],
                overhead_us: None,
                failure: Some(NOT_MEASURED.into()),
            });
            continue;
        };
        let metrics: Vec<f64> = metric_names
            .iter()
            .map(|m| e.metrics.get(m).copied().unwrap_or(f64::NAN))
            .collect();
        let complete = metrics.iter().all(|v| v.is_finite());
        let mut runtime = e.runtime_us;
        let mut failure = e.failure.clone();
        if runtime.is_some() && !complete {
            dropped += 1;
            runtime = None;
            failure = Some(match &e.counters_unavailable {
                Some(reason) => format!("counters unavailable: {reason}"),
                None => "counters unavailable".into(),
            });
        }
        records.push(Record {
            runtime_us: runtime,
            global_size: e.global_size.unwrap_or(f64::NAN),
            local_size: e.local_size.unwrap_or(f64::NAN),
            metrics: if runtime.is_some() {
                metrics
            } else {
                vec![f64::NAN; metric_names.len()]
            },
            overhead_us: None,
            failure,
        });
    }
    if !records.iter().any(|r| r.runtime_us.is_some()) {
        return Err(Error::file(
            out,
            "no configuration ran successfully: nothing to record (see the journal for the reasons)",
        ));
    }
    Ok((
        Dataset {
            source: out.to_path_buf(),
            kernel: kernel.to_string(),
            device_name: device,
            input: None,
            space: space.clone(),
            metric_names,
            records,
            warnings: Vec::new(),
        },
        dropped,
    ))
}

/// Failure reason of a configuration a run did not measure.
const NOT_MEASURED: &str = "not measured";

/// The configurations of `data` that were measured, for result files of a partial run.
pub fn measured_only(data: &Dataset) -> Dataset {
    let mut space = TuningSpace::new(data.space.parameters().to_vec());
    let mut records = Vec::new();
    for (id, r) in data.records.iter().enumerate() {
        if r.failure.as_deref() != Some(NOT_MEASURED) {
            // Ids of a subset of a space are distinct: push cannot fail.
            let _ = space.push(data.space.config(id));
            records.push(r.clone());
        }
    }
    Dataset {
        space,
        records,
        ..data.clone()
    }
}

/// `pcsearch record`.
pub fn record(args: &RecordArgs) -> Result<()> {
    // Everything that can be checked without a GPU is checked before looking for the driver.
    let journal = args
        .live
        .journal
        .clone()
        .unwrap_or_else(|| default_journal(&args.out));
    let out = OutFile::reserve(
        &args.out,
        "--out",
        &[args.live.kernel.as_path(), journal.as_path()],
        args.force,
    )?;
    let desc = KernelDescription::load(&args.live.kernel)?;
    let space = validate(&desc)?.space;
    libs::require_driver()?;
    let rules = Rules::builtin()?;
    let mut header =
        JournalHeader::new(&args.live.kernel, &desc.fingerprint()?, 0, "record", &space);
    let mut backend = CudaBackend::open(desc.clone(), space.clone(), args.live.gpu_index, rules)?;
    let facts = backend.facts().clone();
    header.device = Some(facts.name.clone());
    // Set up here, not at the first profiled test, so that the reason is said once up front.
    let profile = match backend.enable_profiling() {
        Ok(passes) => {
            crate::outln!("counters: {passes} replay passes per configuration");
            true
        }
        Err(reason) => {
            eprintln!(
                "warning: hardware counters are unavailable because {reason}; recording runtimes only"
            );
            false
        }
    };
    let path = journal;
    let mut open = open_journal(&path, &header, args.live.resume, &space)?;
    crate::outln!(
        "pcsearch record: kernel {} on {}",
        desc.name,
        facts.summary()
    );
    crate::outln!(
        "space: {} configurations of {} parameters; {}; journal {}",
        space.len(),
        space.parameters().len(),
        if profile {
            "profiling every one"
        } else {
            "timing every one"
        },
        path.display()
    );
    let bar = progress(space.len() as u64);
    bar.set_position(open.steps.len().min(space.len()) as u64);
    let mut searcher = Exhaustive::new(space.len(), profile);
    run_live(
        &mut backend,
        &mut searcher,
        &StopRule::default(),
        &mut open,
        &bar,
    )?;
    let (data, dropped) = dataset(
        &desc.name,
        Some(facts.name.clone()),
        &space,
        &open.entries,
        &args.out,
    )?;
    if dropped > 0 {
        eprintln!("warning: {dropped} configurations ran but have no counters; recorded as failed");
    }
    out.commit(&ktt_csv_bytes(&data).map_err(|e| Error::file(&args.out, e))?)?;
    write_result_files(&data, &args.results)?;
    if let Some(costs) = super::tune::phase_costs(&open.entries) {
        crate::outln!("{costs}");
    }
    crate::outln!(
        "wrote {} configurations ({} valid, {} metrics each) to {}",
        data.len(),
        data.valid_count(),
        data.metric_names.len(),
        args.out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::write_ktt_csv;
    use crate::data::{self, ReadOptions};
    use std::collections::BTreeMap;

    fn space() -> TuningSpace {
        let mut s = TuningSpace::new(vec!["TILE".into(), "USE_SHARED".into()]);
        for t in [16.0, 32.0] {
            for u in [0.0, 1.0] {
                s.push(&[t, u]).unwrap();
            }
        }
        s
    }

    fn entry(
        tile: f64,
        shared: f64,
        runtime: Option<f64>,
        metrics: &[(&str, f64)],
    ) -> JournalEntry {
        JournalEntry {
            config: BTreeMap::from([("TILE".into(), tile), ("USE_SHARED".into(), shared)]),
            profiled: true,
            runtime_us: runtime,
            failure: runtime
                .is_none()
                .then(|| "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES".into()),
            compiler_log: None,
            global_size: Some(4096.0),
            local_size: Some(tile * tile),
            counters_unavailable: None,
            metrics: metrics.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            counters: BTreeMap::new(),
            target: Some("sm_90".into()),
            compile_s: 0.2,
            run_s: 0.2,
            profile_s: 0.1,
            cost_s: 0.5,
            elapsed_s: 0.5,
        }
    }

    #[test]
    fn a_partial_run_writes_result_files_of_the_configurations_it_tested() {
        let dir = tempfile::tempdir().unwrap();
        let m = [("dram__sectors_read.sum", 10.0)];
        let entries = vec![
            entry(32.0, 1.0, Some(60.0), &m),
            entry(16.0, 0.0, None, &[]),
        ];
        let out = dir.path().join("results");
        let (d, _) = dataset(
            "transpose",
            Some("RTX 3090".into()),
            &space(),
            &entries,
            &out,
        )
        .unwrap();
        let tested = measured_only(&d);
        assert_eq!(tested.len(), 2);
        assert_eq!(tested.space.describe(0), "TILE=16,USE_SHARED=0");
        assert_eq!(tested.space.describe(1), "TILE=32,USE_SHARED=1");
        let files = crate::cli::args::ResultFilesArgs {
            t4: Some(dir.path().join("r.t4.json")),
            kernel_tuner: Some(dir.path().join("r_cache.json")),
        };
        super::write_result_files(&tested, &files).unwrap();
        for f in [files.t4.unwrap(), files.kernel_tuner.unwrap()] {
            let back = data::load(&f, &ReadOptions::default()).unwrap();
            assert_eq!((back.len(), back.valid_count()), (2, 1), "{}", f.display());
            assert_eq!(back.best(), Some((1, 60.0)));
            assert_eq!(back.device_name.as_deref(), Some("RTX 3090"));
        }
    }

    #[test]
    fn exhaustive_visits_every_configuration_in_order() {
        let mut s = Exhaustive::new(3, true);
        let got: Vec<Request> = std::iter::from_fn(|| s.next()).collect();
        assert_eq!(
            got.iter().map(|r| r.config).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert!(got.iter().all(|r| r.profile));
    }

    #[test]
    fn recorded_data_reads_back_as_a_replay_space() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("3090-mtran_output.csv");
        let m = |a, b| {
            vec![
                ("dram__sectors_read.sum", a),
                ("smsp__inst_executed.sum", b),
            ]
        };
        let entries = vec![
            entry(16.0, 0.0, Some(120.5), &m(10.0, 100.0)),
            entry(16.0, 1.0, Some(80.25), &m(12.0, 90.0)),
            entry(32.0, 0.0, None, &[]),
            entry(32.0, 1.0, Some(60.0), &m(9.0, 70.0)),
        ];
        let (d, dropped) = dataset(
            "transpose",
            Some("RTX 3090".into()),
            &space(),
            &entries,
            &out,
        )
        .unwrap();
        assert_eq!(dropped, 0);
        write_ktt_csv(&d, &out).unwrap();
        let back = data::load(&out, &ReadOptions::default()).unwrap();
        assert_eq!(
            back.space.parameters(),
            &["TILE".to_string(), "USE_SHARED".to_string()]
        );
        assert_eq!(back.len(), 4);
        assert_eq!(back.valid_count(), 3);
        assert_eq!(back.best(), Some((3, 60.0)));
        assert_eq!(
            back.metric_names,
            vec!["dram__sectors_read.sum", "smsp__inst_executed.sum"]
        );
        assert_eq!(back.records[1].metrics, vec![12.0, 90.0]);
        assert_eq!(back.records[1].local_size, 256.0);
        assert_eq!(back.gpu_hint().as_deref(), Some("3090"));
    }

    #[test]
    fn runtimes_without_counters_are_dropped_when_others_have_them() {
        let out = Path::new("x.csv");
        let entries = vec![
            entry(16.0, 0.0, Some(1.0), &[("a.sum", 1.0)]),
            entry(16.0, 1.0, Some(2.0), &[]),
        ];
        let (d, dropped) = dataset("k", None, &space(), &entries, out).unwrap();
        assert_eq!(dropped, 1);
        assert_eq!(d.records[1].runtime_us, None);
        assert_eq!(
            d.records[1].failure.as_deref(),
            Some("counters unavailable")
        );
        let mut without = entries[1].clone();
        without.counters_unavailable = Some("CUPTI is too old".into());
        let (d, _) = dataset(
            "k",
            None,
            &space(),
            &[entries[0].clone(), without.clone()],
            out,
        )
        .unwrap();
        assert_eq!(
            d.records[1].failure.as_deref(),
            Some("counters unavailable: CUPTI is too old")
        );
        // With no counters anywhere, runtimes are recorded as they are.
        let (d, dropped) = dataset("k", None, &space(), &[without], out).unwrap();
        assert_eq!((dropped, d.records[1].runtime_us), (0, Some(2.0)));
        assert_eq!(d.records[2].failure.as_deref(), Some("not measured"));
        let e = dataset("k", None, &space(), &[entry(16.0, 0.0, None, &[])], out).unwrap_err();
        assert!(e.to_string().contains("no configuration ran successfully"));
    }

    #[test]
    fn journal_sits_next_to_the_output() {
        assert_eq!(
            default_journal(Path::new("out/3090-coulomb_output.csv")),
            PathBuf::from("out/3090-coulomb_output.csv.journal.jsonl")
        );
    }
}
