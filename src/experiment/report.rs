//! Human-readable tables and stable JSON objects for `simulate` and `compare`.

use super::{StepStats, SummaryScore};
use crate::data::Dataset;
use crate::error::Result;
use serde::Serialize;
use serde_json::{json, Value};

/// Facts about a recorded space that every report starts with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpaceFacts {
    /// File the space was read from.
    pub file: String,
    /// Kernel name.
    pub kernel: String,
    /// Number of configurations N.
    pub configurations: usize,
    /// Configurations that ran.
    pub valid: usize,
    /// Well-performing configurations K (runtime ≤ 1.1 × best).
    pub well_performing: usize,
    /// Best runtime, µs.
    pub best_runtime_us: f64,
    /// Best configuration as `NAME=V,…`.
    pub best_configuration: String,
    /// Exact mean steps of random search without replacement: (N+1)/(K+1).
    pub expected_random_steps: f64,
}

impl SpaceFacts {
    /// Facts of `dataset`.
    pub fn of(dataset: &Dataset) -> SpaceFacts {
        let (best_id, best) = dataset.best().unwrap_or((0, f64::NAN));
        let n = dataset.len();
        let k = dataset.well_performing().iter().filter(|&&w| w).count();
        SpaceFacts {
            file: dataset.source.display().to_string(),
            kernel: dataset.kernel.clone(),
            configurations: n,
            valid: dataset.valid_count(),
            well_performing: k,
            best_runtime_us: best,
            best_configuration: dataset.space.describe(best_id),
            expected_random_steps: (n as f64 + 1.0) / (k as f64 + 1.0),
        }
    }
}

fn merge(facts: &SpaceFacts, extra: Value) -> Value {
    let mut v = serde_json::to_value(facts).unwrap_or(Value::Null);
    if let (Value::Object(a), Value::Object(b)) = (&mut v, extra) {
        a.extend(b);
    }
    v
}

fn print_facts(facts: &SpaceFacts) -> Result<()> {
    crate::outln!("space          {} ({})", facts.file, facts.kernel);
    crate::outln!(
        "configurations {} ({} valid), {} well-performing (<= 1.1 x best)",
        facts.configurations,
        facts.valid,
        facts.well_performing
    );
    crate::outln!(
        "best           {:.1} us  {}",
        facts.best_runtime_us,
        facts.best_configuration
    );
    Ok(())
}

fn stats_row(name: &str, s: &StepStats) -> String {
    format!(
        "{name:<16} {:>8.2} {:>7.1} {:>6} {:>6} {:>6.1}% {:>9.1} {:>9.1}",
        s.mean_steps,
        s.median_steps,
        s.p90_steps,
        s.max_steps,
        100.0 * s.share_over_100,
        s.mean_time_s,
        s.median_time_s
    )
}

const STATS_HEADER: &str =
    "searcher             mean  median    p90    max  >100   mean s  median s";

/// Prints one searcher's results on one space, as a table or a JSON object.
pub fn print_simulation(
    facts: &SpaceFacts,
    searcher: &str,
    seed: u64,
    stats: &StepStats,
    json: bool,
) -> Result<()> {
    let is_random = searcher == "random";
    if json {
        let mut v = merge(facts, json!({ "searcher": searcher, "seed": seed }));
        if let (Value::Object(o), Ok(Value::Object(s))) = (&mut v, serde_json::to_value(stats)) {
            o.extend(s);
            if !is_random {
                o.remove("expected_random_steps");
            }
        }
        crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }
    print_facts(facts)?;
    crate::outln!("runs           {} (seed {seed})", stats.runs);
    crate::outln!("{STATS_HEADER}");
    crate::outln!("{}", stats_row(searcher, stats));
    if is_random {
        crate::outln!(
            "exact expectation (N+1)/(K+1) = {:.2}  (measured mean {:.2}, {:+.1}%)",
            facts.expected_random_steps,
            stats.mean_steps,
            100.0 * (stats.mean_steps / facts.expected_random_steps - 1.0)
        );
    }
    if stats.not_found > 0 {
        crate::outln!(
            "{} runs hit the test cap without a well-performing configuration",
            stats.not_found
        );
    }
    Ok(())
}

/// Prints several searchers on one space with each one's improvement over the first, in steps
/// and in simulated time.
pub fn print_comparison(
    facts: &SpaceFacts,
    seed: u64,
    results: &[(String, StepStats)],
) -> Result<()> {
    let base = results.first().map_or(f64::NAN, |(_, s)| s.mean_steps);
    let base_time = results.first().map_or(f64::NAN, |(_, s)| s.mean_time_s);
    print_facts(facts)?;
    crate::outln!(
        "runs           {} (seed {seed}); random without replacement needs (N+1)/(K+1) = {:.2}",
        results.first().map_or(0, |r| r.1.runs),
        facts.expected_random_steps
    );
    crate::outln!("{STATS_HEADER}  improvement: steps   time");
    for (name, s) in results {
        crate::outln!(
            "{}  {:>18.2}x {:>6.2}x",
            stats_row(name, s),
            base / s.mean_steps,
            base_time / s.mean_time_s
        );
    }
    Ok(())
}

/// Each searcher's statistics as JSON, with its name and its improvement over the first searcher.
pub fn searchers_json(results: &[(String, StepStats)]) -> Vec<Value> {
    let base = results.first().map_or(f64::NAN, |(_, s)| s.mean_steps);
    let base_time = results.first().map_or(f64::NAN, |(_, s)| s.mean_time_s);
    results
        .iter()
        .map(|(name, s)| {
            let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
            if let Value::Object(o) = &mut v {
                o.insert("searcher".into(), json!(name));
                o.insert("improvement".into(), json!(base / s.mean_steps));
                o.insert("time_improvement".into(), json!(base_time / s.mean_time_s));
            }
            v
        })
        .collect()
}

/// Geometric mean of positive values (NaN when there are none).
pub fn geometric_mean(values: &[f64]) -> f64 {
    let logs: Vec<f64> = values
        .iter()
        .filter(|v| **v > 0.0)
        .map(|v| v.ln())
        .collect();
    if logs.is_empty() {
        f64::NAN
    } else {
        (logs.iter().sum::<f64>() / logs.len() as f64).exp()
    }
}

/// One searcher's improvement on one space's results: (results, searcher index) → ratio.
type Improvement<'a> = &'a dyn Fn(&[(String, StepStats)], usize) -> f64;

/// Prints, for several spaces, each searcher's mean steps and mean simulated seconds with the
/// improvement over the first searcher, and the geometric means of the improvements; as JSON,
/// every space's full statistics; then the summary `scores`.
pub fn print_summary(
    rows: &[(SpaceFacts, Vec<(String, StepStats)>)],
    scores: &[(String, SummaryScore)],
    seed: u64,
    json: bool,
) -> Result<()> {
    let names: Vec<String> = rows
        .first()
        .map(|(_, r)| r.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let improvement = |r: &[(String, StepStats)], i: usize| r[0].1.mean_steps / r[i].1.mean_steps;
    let time_improvement =
        |r: &[(String, StepStats)], i: usize| r[0].1.mean_time_s / r[i].1.mean_time_s;
    let geo = |f: Improvement| -> Vec<f64> {
        (0..names.len())
            .map(|i| geometric_mean(&rows.iter().map(|(_, r)| f(r, i)).collect::<Vec<_>>()))
            .collect()
    };
    let geo_steps = geo(&improvement);
    let geo_time = geo(&time_improvement);
    if json {
        let spaces: Vec<Value> = rows
            .iter()
            .map(|(facts, results)| {
                let searchers = searchers_json(results);
                merge(facts, json!({ "searchers": searchers }))
            })
            .collect();
        let by_name = |g: &[f64]| -> serde_json::Map<String, Value> {
            names
                .iter()
                .zip(g)
                .map(|(n, g)| (n.clone(), json!(g)))
                .collect()
        };
        let v = json!({
            "seed": seed,
            "baseline": names.first(),
            "spaces": spaces,
            "geometric_mean_improvement": by_name(&geo_steps),
            "geometric_mean_time_improvement": by_name(&geo_time),
            "summary_score": scores_json(scores),
        });
        crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }
    if rows.len() < 2 {
        print_scores(scores, rows.len(), "space")?;
        return Ok(());
    }
    for (what, by_time) in [("mean/median steps", false), ("mean seconds", true)] {
        crate::out!("{:<28} {:>6} {:>4}", "space", "N", "K");
        for n in &names {
            crate::out!(" {:>22}", format!("{n} {what}"));
        }
        crate::outln!();
        for (facts, results) in rows {
            crate::out!(
                "{:<28} {:>6} {:>4}",
                short_name(&facts.file),
                facts.configurations,
                facts.well_performing
            );
            for (i, (_, s)) in results.iter().enumerate() {
                let cell = if by_time {
                    format!(
                        "{:.1} ({:.2}x)",
                        s.mean_time_s,
                        time_improvement(results, i)
                    )
                } else {
                    format!(
                        "{:.1}/{:.0} ({:.2}x)",
                        s.mean_steps,
                        s.median_steps,
                        improvement(results, i)
                    )
                };
                crate::out!(" {cell:>22}");
            }
            crate::outln!();
        }
        crate::out!("{:<40}", "geometric mean of improvements");
        for g in if by_time { &geo_time } else { &geo_steps } {
            crate::out!(" {:>22}", format!("{g:.2}x"));
        }
        crate::outln!("\n");
    }
    print_scores(scores, rows.len(), "spaces")?;
    Ok(())
}

/// Prints each searcher's summary score over `spaces` spaces (or tuned/model pairs, as `what`
/// says) and its curve at tenths of the budget.
pub fn print_scores(scores: &[(String, SummaryScore)], spaces: usize, what: &str) -> Result<()> {
    crate::outln!(
        "summary score over {spaces} {what}: performance relative to random search over each \
         space's budget (0 = random search, 1 = the optimum at once, < 0 worse than random)"
    );
    crate::outln!("{:<18} {:>7} {:>7}", "searcher", "tests", "time");
    for (name, s) in scores {
        crate::outln!("{name:<18} {:>7.3} {:>7.3}", s.tests, s.time);
    }
    crate::outln!("curves at 10 %, 20 %, ..., 100 % of the budget");
    for (name, s) in scores {
        for (what, curve) in [("tests", s.tests_by_tenths()), ("time", s.time_by_tenths())] {
            crate::out!("{:<24}", format!("{name} ({what})"));
            for v in curve {
                crate::out!(" {v:>6.2}");
            }
            crate::outln!();
        }
    }
    Ok(())
}

/// The summary scores as JSON: both numbers and both curves at tenths of the budget.
pub fn scores_json(scores: &[(String, SummaryScore)]) -> Value {
    let map: serde_json::Map<String, Value> = scores
        .iter()
        .map(|(name, s)| {
            (
                name.clone(),
                json!({
                    "tests": s.tests,
                    "time": s.time,
                    "curve_tests": s.tests_by_tenths(),
                    "curve_time": s.time_by_tenths(),
                }),
            )
        })
        .collect();
    Value::Object(map)
}

/// The file name without directory, extension and KTT's `_output` suffix (`680-coulomb`).
pub fn short_name(path: &str) -> String {
    let p = std::path::Path::new(path);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or(path);
    stem.trim_end_matches("_output").to_string()
}
