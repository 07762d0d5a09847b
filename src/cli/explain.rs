//! `explain`: what the expert system reads off one profiled configuration, as a developer would.

use super::args::{ExplainArgs, Format, SearcherKind};
use super::setup::{exact_counters, load_model, load_rules, predictions, resolve_device};
use super::simulate::load_space;
use crate::counters::Counter;
use crate::error::{Error, Result};
use crate::expert::{analyze, react, ExpertOptions};
use crate::search::profile::{raw_scores, weights, ScoreOptions};
use crate::space::ConfigId;
use serde_json::json;

/// `pcsearch explain`.
pub fn explain(args: &ExplainArgs) -> Result<()> {
    let dataset = load_space(&args.space)?;
    let rules = load_rules(&args.expert.rules)?;
    let device = resolve_device(&dataset, &rules, args.expert.gpu.as_deref())?;
    let counters = exact_counters(&dataset, &rules, &device)?;
    let id = dataset.space.parse_assignment(&args.config)?;
    if dataset.records[id].runtime_us.is_none() {
        return Err(Error::invalid(format!(
            "--config {}: this configuration failed in {} ({}), so it has no counters to explain; name one that ran",
            dataset.space.describe(id),
            dataset.source.display(),
            dataset.records[id].failure.as_deref().unwrap_or("no runtime")
        )));
    }
    let model = load_model(&args.expert)?;
    let (predictions, generation) = predictions(
        &dataset,
        &counters,
        &device,
        model.as_ref(),
        SearcherKind::Profile,
        &args.expert.search,
    )?;
    let expert = ExpertOptions::new(
        &rules.reaction,
        args.expert.search.compute_bound,
        args.expert.search.formula.into(),
    );
    let bottlenecks = analyze(&counters[id], &device, &expert);
    let delta = react(&bottlenecks, generation, &expert);
    let mut raw = Vec::new();
    raw_scores(
        &predictions,
        id,
        &delta,
        args.expert.search.zero_policy.into(),
        &mut raw,
    );
    let mut explored = vec![false; dataset.len()];
    explored[id] = true;
    let mut w = Vec::new();
    weights(
        &raw,
        &explored,
        &ScoreOptions::new(&rules.reaction, args.expert.search.zero_policy.into()),
        1.0,
        &mut w,
    );
    let total: f64 = w.iter().sum();
    let mut ranked: Vec<ConfigId> = (0..dataset.len()).filter(|&c| c != id).collect();
    ranked.sort_by(|&a, &b| raw[b].total_cmp(&raw[a]).then(a.cmp(&b)));
    ranked.truncate(args.top);
    // Where the model extrapolates, in words; empty inside its training range or without a model.
    let flags = match &model {
        Some(m) => Some(m.extrapolations(&dataset.space)?),
        None => None,
    };
    let outside = |c: ConfigId| match (&model, &flags) {
        (Some(m), Some(f)) => m.describe_extrapolation(&f[c], &dataset.space, c),
        _ => String::new(),
    };
    let best = dataset.best().map_or(f64::NAN, |(_, t)| t);
    let runtime = |c: ConfigId| dataset.records[c].runtime_us;
    let ratio = |c: ConfigId| runtime(c).map(|t| t / best);

    if args.format == Format::Json {
        let v = json!({
            "configuration": dataset.space.describe(id),
            "gpu": device.name,
            "runtime_us": runtime(id),
            "runtime_over_best": ratio(id),
            "extrapolation": outside(id),
            "trust": predictions.trust(id),
            "counters": Counter::ALL.iter().filter(|&&c| counters[id][c].is_finite())
                .map(|&c| (c.short().to_string(), json!(counters[id][c]))).collect::<serde_json::Map<_, _>>(),
            "bottlenecks": serde_json::to_value(bottlenecks).unwrap_or_default(),
            "delta_pc": delta.active().map(|(c, d)| (c.short().to_string(), json!(d))).collect::<serde_json::Map<_, _>>(),
            "candidates": ranked.iter().map(|&c| json!({
                "configuration": dataset.space.describe(c),
                "score": raw[c],
                "probability": w[c] / total,
                "runtime_us": runtime(c),
                "runtime_over_best": ratio(c),
                "extrapolation": outside(c),
                "trust": predictions.trust(c),
            })).collect::<Vec<_>>(),
        });
        crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }

    let fmt_rt = |c: ConfigId| match (runtime(c), ratio(c)) {
        (Some(t), Some(r)) => format!("{t:>10.1} us {r:>6.2}x best"),
        _ => "    failed".to_string(),
    };
    crate::outln!("configuration  {}", dataset.space.describe(id));
    crate::outln!(
        "GPU            {} (CC {:.1}, {} SMs)",
        device.name,
        device.compute_capability,
        device.multiprocessors
    );
    crate::outln!("runtime        {}", fmt_rt(id));
    if let Some(m) = &model {
        let range = if m.training_domain().is_none() {
            "unknown: the model file predates training ranges (retrain it to flag extrapolations)"
                .to_string()
        } else if outside(id).is_empty() {
            format!("inside the training range of {}", m.training_file())
        } else {
            format!(
                "outside the training range of {} (trust {:.2}): {}",
                m.training_file(),
                predictions.trust(id),
                outside(id)
            )
        };
        crate::outln!("model          {range}");
    }
    crate::outln!("\ncounters ({} map)", generation.name());
    for &c in Counter::ALL {
        let v = counters[id][c];
        if v.is_finite() {
            crate::outln!("  {:<13} {:>16}  {}", c.short(), number(v), kind_label(c));
        }
    }
    if let Some(note) = cache_resident_note(&counters[id]) {
        crate::outln!("\nnote: {note}");
    }
    crate::outln!("\nbottlenecks (0 = none, 1 = saturated)");
    let mut entries = bottlenecks.entries().to_vec();
    entries.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (name, b) in entries.iter().filter(|(_, b)| *b > 0.0) {
        crate::outln!("  {name:<18} {b:>6.3}  {}", bar(*b));
    }
    crate::outln!(
        "\nreaction: desired counter changes (ΔPC in {} counters, − decrease / + increase)",
        generation.name()
    );
    for (c, d) in delta.active() {
        crate::outln!("  {:<13} {:>+7.3}", c.short(), d);
    }
    crate::outln!(
        "\n{} best-scored candidates (score > 0 moves counters as asked)",
        ranked.len()
    );
    crate::outln!(
        "  {:>8} {:>7}  {:<30}  configuration",
        "score",
        "P(pick)",
        "recorded runtime"
    );
    for &c in &ranked {
        crate::outln!(
            "  {:>+8.4} {:>6.2}%  {:<30}  {}",
            raw[c],
            100.0 * w[c] / total,
            fmt_rt(c),
            dataset.space.describe(c)
        );
        let why = outside(c);
        if !why.is_empty() {
            crate::outln!(
                "  {:>8} extrapolated, trust {:.2}: {why}",
                "",
                predictions.trust(c)
            );
        }
    }
    Ok(())
}

/// Share of L2 traffic below which DRAM counters say more about the cache than about the kernel.
const CACHE_RESIDENT_SHARE: f64 = 0.05;

/// A warning when DRAM traffic is a small fraction of L2 traffic: the working set stayed in L2, as
/// happens on GPUs with large L2 caches (40–50 MB on Ampere and Hopper), so the DRAM bottlenecks
/// read near zero where an older GPU's recording of the same kernel shows real DRAM traffic.
fn cache_resident_note(c: &crate::counters::CounterValues) -> Option<String> {
    let dram = c[Counter::DramRt] + c[Counter::DramWt];
    let l2 = c[Counter::L2Rt] + c[Counter::L2Wt];
    (dram.is_finite() && l2 > 0.0 && dram < CACHE_RESIDENT_SHARE * l2).then(|| {
        format!(
            "DRAM moved {:.1} % of the sectors L2 served: the working set stayed in L2, so DRAM bottlenecks read small here; a GPU with a smaller L2 would show this kernel's DRAM traffic",
            100.0 * dram / l2
        )
    })
}

fn kind_label(c: Counter) -> &'static str {
    match c.kind() {
        crate::counters::CounterKind::Ops => "ops",
        crate::counters::CounterKind::Stress => "stress",
        crate::counters::CounterKind::Launch => "launch",
    }
}

fn bar(x: f64) -> String {
    "#".repeat((x * 30.0).round() as usize)
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::CounterValues;

    #[test]
    fn small_dram_traffic_next_to_l2_traffic_is_pointed_out() {
        let mut c = CounterValues::default();
        c[Counter::L2Rt] = 1000.0;
        c[Counter::L2Wt] = 1000.0;
        c[Counter::DramRt] = 50.0;
        c[Counter::DramWt] = 0.0;
        let note = cache_resident_note(&c).unwrap();
        assert!(
            note.starts_with("DRAM moved 2.5 % of the sectors L2 served"),
            "{note}"
        );
        c[Counter::DramWt] = 200.0;
        assert_eq!(cache_resident_note(&c), None);
    }
}
