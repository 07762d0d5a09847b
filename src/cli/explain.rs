//! `explain`: what the expert system reads off one profiled configuration, as a developer would.

use super::args::{ExplainArgs, Format};
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
    let (predictions, generation) = predictions(&dataset, &counters, &device, model.as_ref())?;
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
    let best = dataset.best().map_or(f64::NAN, |(_, t)| t);
    let runtime = |c: ConfigId| dataset.records[c].runtime_us;
    let ratio = |c: ConfigId| runtime(c).map(|t| t / best);

    if args.format == Format::Json {
        let v = json!({
            "configuration": dataset.space.describe(id),
            "gpu": device.name,
            "runtime_us": runtime(id),
            "runtime_over_best": ratio(id),
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
    crate::outln!("\ncounters ({} map)", generation.name());
    for &c in Counter::ALL {
        let v = counters[id][c];
        if v.is_finite() {
            crate::outln!("  {:<13} {:>16}  {}", c.short(), number(v), kind_label(c));
        }
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
    }
    Ok(())
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
