//! A synthetic space built so that the counters mislead near the optimum (issue "robust guidance").
//!
//! Three TPs A, B, C ∈ 0..10. Configurations with C = 0 read DRAM: DRAM_RT = 1000 − 100·A + 10·B, and
//! the DRAM is busy, so the expert system asks for fewer DRAM reads. Configurations with C ≥ 1 stage
//! data elsewhere: their DRAM counters are zero, so they are left out of every score (score 0,
//! "neutral"), but they are slow. The optimum is at A = 9, B ≥ 7, C = 0 (K = 3 well-performing).
//! Guidance leads quickly to (9, 0, 0), the fewest DRAM reads; profiled there, no configuration
//! offers fewer reads, every C = 0 candidate scores below zero and the 900 neutral C ≥ 1
//! configurations take nearly all the weight: the paper's searcher is then trapped, worse than
//! random. The default guidance searches the neighbourhood of the best instead and escapes.

use pcsearch::backend::TimeModel;
use pcsearch::counters::{Counter, CounterValues, Generation};
use pcsearch::data::{Dataset, Record};
use pcsearch::device::DeviceInfo;
use pcsearch::experiment::{repeat, Repetition, StepStats};
use pcsearch::expert::{ExpertOptions, Formula};
use pcsearch::rules::Rules;
use pcsearch::search::profile::{
    Guidance, Predictions, ProfileFactory, ProfileSetup, ScoreOptions, ZeroPolicy,
};
use pcsearch::search::RandomFactory;
use pcsearch::space::TuningSpace;
use std::path::PathBuf;
use std::sync::Arc;

fn trap_space() -> (Arc<Dataset>, Vec<CounterValues>) {
    space_with_failures(|_, _, _| false)
}

/// The trap space where configurations for which `fails` holds failed (no runtime, no counters).
fn space_with_failures(
    fails: impl Fn(u32, u32, u32) -> bool,
) -> (Arc<Dataset>, Vec<CounterValues>) {
    let mut space = TuningSpace::new(vec!["A".into(), "B".into(), "C".into()]);
    let mut records = Vec::new();
    let mut counters = Vec::new();
    for a in 0..10u32 {
        for b in 0..10u32 {
            for c in 0..10u32 {
                space.push(&[a as f64, b as f64, c as f64]).unwrap();
                let (ai, bi) = (a, b);
                let (a, b) = (f64::from(a), f64::from(b));
                let runtime = if c == 0 {
                    100.0 - 5.0 * a - if a == 9.0 { 1.5 * b } else { 0.0 }
                } else {
                    200.0 + a + b + f64::from(c)
                };
                let failed = fails(ai, bi, c);
                records.push(Record {
                    runtime_us: (!failed).then_some(runtime),
                    global_size: 1e7,
                    local_size: 256.0,
                    metrics: Vec::new(),
                    overhead_us: None,
                    failure: failed.then(|| "too many resources requested".to_string()),
                });
                if failed {
                    counters.push(CounterValues::default());
                    continue;
                }
                let mut v = CounterValues::default();
                v[Counter::DramRt] = if c == 0 {
                    1000.0 - 100.0 * a + 10.0 * b
                } else {
                    0.0
                };
                v[Counter::DramU] = if c == 0 { 8.0 } else { 0.5 };
                v[Counter::InstIssueU] = 30.0;
                v[Counter::SmE] = 100.0;
                v[Counter::WarpE] = 100.0;
                v[Counter::WarpNpE] = 100.0;
                v[Counter::GlobalSize] = 1e7;
                counters.push(v);
            }
        }
    }
    let dataset = Dataset {
        source: PathBuf::from("synthetic-trap"),
        kernel: "trap".into(),
        device_name: None,
        input: None,
        space,
        metric_names: Vec::new(),
        records,
        warnings: Vec::new(),
    };
    (Arc::new(dataset), counters)
}

fn mean_steps(guidance: Guidance) -> StepStats {
    steps_on(trap_space(), guidance)
}

fn steps_on(
    (dataset, counters): (Arc<Dataset>, Vec<CounterValues>),
    guidance: Guidance,
) -> StepStats {
    let rules = Rules::builtin().unwrap();
    let setup = ProfileSetup {
        predictions: Predictions::new(&counters),
        prediction_generation: Generation::Volta,
        device: DeviceInfo {
            key: "synthetic".into(),
            name: "synthetic".into(),
            compute_capability: 7.5,
            multiprocessors: 46,
            fp32_cores_per_sm: 64,
        },
        expert: ExpertOptions::new(&rules.reaction, false, Formula::Implementation),
        score: ScoreOptions::new(&rules.reaction, ZeroPolicy::SkipZero),
        plain_tests: rules.reaction.plain_tests_per_profile,
        guidance,
        space: Arc::new(dataset.space.clone()),
        label: "profile".into(),
    };
    let rep = Repetition {
        runs: 300,
        seed: 11,
        time_model: TimeModel::default(),
        max_tests: None,
    };
    let results = repeat(
        &dataset,
        Some(Arc::new(counters)),
        &ProfileFactory::new(setup),
        &rep,
    )
    .unwrap();
    StepStats::of(&results)
}

#[test]
fn the_trap_is_real_and_the_default_escapes_it() {
    let (dataset, _) = trap_space();
    assert_eq!(dataset.well_performing().iter().filter(|w| **w).count(), 3);
    let random_expected = 1001.0 / 4.0;
    let random = StepStats::of(
        &repeat(
            &dataset,
            None,
            &RandomFactory { size: 1000 },
            &Repetition {
                runs: 300,
                seed: 11,
                time_model: TimeModel::default(),
                max_tests: None,
            },
        )
        .unwrap(),
    );
    assert!(
        (random.mean_steps / random_expected - 1.0).abs() < 0.15,
        "{random:?}"
    );
    let paper = mean_steps(Guidance::paper());
    let fixed = mean_steps(Guidance::fixed());
    let local = mean_steps(Guidance::local(1));
    eprintln!("random {random:?}\npaper {paper:?}\nfixed {fixed:?}\nlocal {local:?}");
    assert!(
        paper.mean_steps > 1.5 * random_expected,
        "trap not reproduced: {paper:?}"
    );
    assert!(
        fixed.mean_steps > random_expected,
        "trap not reproduced: {fixed:?}"
    );
    assert!(
        local.mean_steps < 0.25 * random_expected,
        "default did not escape: {local:?}"
    );
    assert!(local.max_steps < 150, "{local:?}");
}

#[test]
fn failing_configurations_cost_a_test_and_do_not_stall_the_search() {
    // A third of the space fails, including half of the slow neutral block and some of the path
    // towards the optimum; the searcher must still find the optimum every time.
    let space =
        space_with_failures(|a, b, c| (a + b + c) % 3 == 0 && !(a == 9 && b >= 7 && c == 0));
    assert_eq!(space.0.valid_count(), 1000 - 333);
    let local = steps_on(space, Guidance::local(1));
    assert_eq!(local.not_found, 0, "{local:?}");
    assert!(local.mean_steps < 0.25 * 1001.0 / 4.0, "{local:?}");
}
