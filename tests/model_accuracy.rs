//! Held-out accuracy of counter models trained on the GTX 1070 recordings.
//!
//! A model is trained on a random half of a file and judged on the other half, which it never saw:
//! exactly the situation of configurations outside the training data.

mod common;

use pcsearch::counters::{Counter, CounterValues, Generation};
use pcsearch::data::{self, Dataset, ReadOptions};
use pcsearch::model::{CounterModel, Errors, Selection, TrainOptions};
use pcsearch::rules::Rules;
use pcsearch::space::TuningSpace;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::path::Path;

fn load(bench: &str) -> Dataset {
    let path = common::replay_file(&format!("ktt-paper/{bench}/1070-{bench}_output.csv"));
    data::load(Path::new(&path), &ReadOptions::default()).unwrap()
}

/// The dataset restricted to `ids`, in that order.
fn subset(d: &Dataset, ids: &[usize]) -> Dataset {
    let mut space = TuningSpace::new(d.space.parameters().to_vec());
    for &id in ids {
        space.push(d.space.config(id)).unwrap();
    }
    Dataset {
        space,
        records: ids.iter().map(|&id| d.records[id].clone()).collect(),
        ..d.clone()
    }
}

/// Valid configurations split in two halves by a seed independent of the training seed.
fn halves(d: &Dataset, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut ids: Vec<usize> = (0..d.len())
        .filter(|&i| d.records[i].runtime_us.is_some())
        .collect();
    ids.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let test = ids.split_off(ids.len() / 2);
    (ids, test)
}

/// Errors of the predictions against the measured counters, on `ids`, per predicted counter.
fn errors(
    d: &Dataset,
    model: &CounterModel,
    predicted: &[CounterValues],
    ids: &[usize],
) -> Vec<(Counter, Errors)> {
    let rules = Rules::builtin().unwrap();
    let mapped = rules
        .counter_map(Generation::MaxwellPascal)
        .resolve(&d.metric_names);
    model
        .counters()
        .into_iter()
        .map(|c| {
            let measured: Vec<f64> = ids.iter().map(|&i| d.counters(&mapped, i)[c]).collect();
            let guessed: Vec<f64> = ids.iter().map(|&i| predicted[i][c]).collect();
            (c, Errors::of(&measured, &guessed))
        })
        .collect()
}

fn held_out(bench: &str, selection: Selection, seed: u64) -> Vec<(Counter, Errors)> {
    let d = load(bench);
    let (train, test) = halves(&d, seed);
    let rules = Rules::builtin().unwrap();
    let gpu = rules.devices.by_key("1070").unwrap();
    let options = TrainOptions {
        selection,
        ..TrainOptions::default()
    };
    let model = CounterModel::train(&subset(&d, &train), &rules, &gpu, &options).unwrap();
    let predicted = model.predict(&d.space).unwrap();
    errors(&d, &model, &predicted, &test)
}

fn get(errors: &[(Counter, Errors)], c: Counter) -> Errors {
    errors.iter().find(|(k, _)| *k == c).unwrap().1
}

/// Bounds: the scorer compares counters through (c − p)/(c + p), so what matters is the error
/// relative to a counter's size (MAE / mean) and whether the model orders configurations right (R²).
/// Measured over ten random halvings, INST_EXE's held-out relative error is 0.9–3.3 % on mtran (892
/// training configurations) but 0–6.7 % on coulomb, whose 105 training configurations leave some TP
/// combinations unseen; so mtran is judged on one split and coulomb on the mean of five. The bounds
/// leave room above the measured means (1.8 %, 3.5 %); R² above 0.95 / 0.9 means the model explains
/// nearly all of the variation between configurations the scorer relies on.
#[test]
fn instruction_counts_are_predicted_on_configurations_never_seen() {
    if common::skip_without_data() {
        return;
    }
    let e = held_out("mtran", Selection::Refit, 99);
    let exe = get(&e, Counter::InstExe);
    assert!(exe.relative_error < 0.04, "mtran INST_EXE {exe:?}");
    assert!(exe.r2.unwrap() > 0.95, "mtran INST_EXE {exe:?}");
    // Transpose reads every element once through L2 whatever the configuration.
    let l2 = get(&e, Counter::L2Rt);
    assert!(
        l2.relative_error < 0.01 && l2.r2.unwrap() > 0.99,
        "mtran L2_RT {l2:?}"
    );

    let splits: Vec<_> = (1..=5)
        .map(|seed| held_out("coulomb", Selection::Refit, seed))
        .collect();
    let exe = Errors::mean(
        &splits
            .iter()
            .map(|e| get(e, Counter::InstExe))
            .collect::<Vec<_>>(),
    );
    assert!(exe.relative_error < 0.05, "coulomb INST_EXE {exe:?}");
    assert!(exe.r2.unwrap() > 0.9, "coulomb INST_EXE {exe:?}");
    // Coulomb's FP32 work is a function of the TPs that a tree represents exactly.
    for e in &splits {
        assert_eq!(get(e, Counter::InstF32).mae, 0.0);
    }
}

/// Mean errors over ten random halvings.
fn mean_held_out(bench: &str, selection: Selection) -> Vec<(Counter, Errors)> {
    let runs: Vec<_> = (1..=10)
        .map(|seed| held_out(bench, selection, seed))
        .collect();
    runs[0]
        .iter()
        .map(|(c, _)| {
            let all: Vec<Errors> = runs.iter().map(|r| get(r, *c)).collect();
            (*c, Errors::mean(&all))
        })
        .collect()
}

/// Prints held-out and whole-space errors for both selection rules (`-- --ignored --nocapture`).
#[test]
#[ignore]
fn report_accuracy() {
    if common::skip_without_data() {
        return;
    }
    for bench in ["coulomb", "mtran"] {
        let refit = mean_held_out(bench, Selection::Refit);
        let best = mean_held_out(bench, Selection::BestCandidate);
        let d = load(bench);
        let rules = Rules::builtin().unwrap();
        let gpu = rules.devices.by_key("1070").unwrap();
        let all: Vec<usize> = (0..d.len())
            .filter(|&i| d.records[i].runtime_us.is_some())
            .collect();
        let mut whole = Vec::new();
        for selection in [Selection::Refit, Selection::BestCandidate] {
            let options = TrainOptions {
                selection,
                ..TrainOptions::default()
            };
            let model = CounterModel::train(&d, &rules, &gpu, &options).unwrap();
            whole.push(errors(&d, &model, &model.predict(&d.space).unwrap(), &all));
        }
        println!("\n{bench}: trained on half, errors on the other half (mean of 10 halvings) | trained on all, errors on all");
        println!(
            "| counter | refit rel.err | refit R² | best-candidate rel.err | best-candidate R² | all: refit rel.err | all: best-candidate rel.err |"
        );
        println!("|---|---|---|---|---|---|---|");
        let r2 = |e: Errors| e.r2.map_or("–".into(), |v| format!("{v:.3}"));
        for (i, (c, r)) in refit.iter().enumerate() {
            let b = best[i].1;
            println!(
                "| {} | {:.2} % | {} | {:.2} % | {} | {:.2} % | {:.2} % |",
                c.short(),
                100.0 * r.relative_error,
                r2(*r),
                100.0 * b.relative_error,
                r2(b),
                100.0 * whole[0][i].1.relative_error,
                100.0 * whole[1][i].1.relative_error
            );
        }
    }
}
