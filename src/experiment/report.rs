//! Human-readable tables and stable JSON objects for `simulate` and `compare`.

use super::StepStats;
use crate::data::Dataset;
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

fn print_facts(facts: &SpaceFacts) {
    println!("space          {} ({})", facts.file, facts.kernel);
    println!(
        "configurations {} ({} valid), {} well-performing (<= 1.1 x best)",
        facts.configurations, facts.valid, facts.well_performing
    );
    println!(
        "best           {:.1} us  {}",
        facts.best_runtime_us, facts.best_configuration
    );
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
) {
    let is_random = searcher == "random";
    if json {
        let mut v = merge(facts, json!({ "searcher": searcher, "seed": seed }));
        if let (Value::Object(o), Ok(Value::Object(s))) = (&mut v, serde_json::to_value(stats)) {
            o.extend(s);
            if !is_random {
                o.remove("expected_random_steps");
            }
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return;
    }
    print_facts(facts);
    println!("runs           {} (seed {seed})", stats.runs);
    println!("{STATS_HEADER}");
    println!("{}", stats_row(searcher, stats));
    if is_random {
        println!(
            "exact expectation (N+1)/(K+1) = {:.2}  (measured mean {:.2}, {:+.1}%)",
            facts.expected_random_steps,
            stats.mean_steps,
            100.0 * (stats.mean_steps / facts.expected_random_steps - 1.0)
        );
    }
    if stats.not_found > 0 {
        println!(
            "{} runs hit the test cap without a well-performing configuration",
            stats.not_found
        );
    }
}

/// Prints several searchers on one space with each one's improvement over the first.
pub fn print_comparison(
    facts: &SpaceFacts,
    seed: u64,
    results: &[(String, StepStats)],
    json: bool,
) {
    let base = results.first().map_or(f64::NAN, |(_, s)| s.mean_steps);
    let base_median = results.first().map_or(f64::NAN, |(_, s)| s.median_steps);
    if json {
        let searchers: Vec<Value> = results
            .iter()
            .map(|(name, s)| {
                let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                if let Value::Object(o) = &mut v {
                    o.insert("searcher".into(), json!(name));
                    o.insert("improvement".into(), json!(base / s.mean_steps));
                    o.insert(
                        "median_improvement".into(),
                        json!(base_median / s.median_steps),
                    );
                }
                v
            })
            .collect();
        let v = merge(
            facts,
            json!({ "seed": seed, "baseline": results.first().map(|r| r.0.clone()), "searchers": searchers }),
        );
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return;
    }
    print_facts(facts);
    println!(
        "runs           {} (seed {seed}); random without replacement needs (N+1)/(K+1) = {:.2}",
        results.first().map_or(0, |r| r.1.runs),
        facts.expected_random_steps
    );
    println!("{STATS_HEADER}  improvement");
    for (name, s) in results {
        println!("{}  {:>10.2}x", stats_row(name, s), base / s.mean_steps);
    }
}
