//! The ranges recorded values must lie in, checked for every reader alike.
//!
//! A value outside them is a corrupt or hostile file, not a measurement: a runtime of 1e306 s, a
//! negative compile overhead or a counter near the largest double would otherwise turn into
//! infinite seconds, NaN scores or a model file that cannot be read back.

use super::Record;
use std::collections::BTreeSet;

/// Longest runtime or overhead accepted, in microseconds (one day).
pub const MAX_MICROSECONDS: f64 = 86_400.0 * 1e6;
/// Largest counter magnitude accepted: 1e18 is a million times a large kernel's instruction
/// count, and sums and squares of 200,000 such values stay finite.
pub const MAX_COUNTER: f64 = 1e18;
/// Largest launch size (total threads) accepted: CUDA's largest grid of largest blocks is below.
pub const MAX_THREADS: f64 = 1e15;

/// `v` as a message shows it: exponent notation for huge magnitudes (1e308, not 309 digits).
fn shown(v: f64) -> String {
    if v.abs() >= 1e15 {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Checks one record's runtime, overhead, launch sizes and counters.
pub fn check_record(r: &Record) -> Result<(), String> {
    if let Some(t) = r.runtime_us {
        if !(t > 0.0 && t <= MAX_MICROSECONDS) {
            return Err(format!(
                "runtime {} us is outside the accepted range 0 < runtime <= {MAX_MICROSECONDS:e} us (one day)",
                shown(t)
            ));
        }
    }
    if let Some(o) = r.overhead_us {
        if !(0.0..=MAX_MICROSECONDS).contains(&o) {
            return Err(format!(
                "overhead {} us is outside the accepted range 0 <= overhead <= {MAX_MICROSECONDS:e} us (one day)",
                shown(o)
            ));
        }
    }
    for (what, v) in [("local size", r.local_size), ("global size", r.global_size)] {
        // NaN: the format does not record it.
        if !v.is_nan() && !(1.0..=MAX_THREADS).contains(&v) {
            return Err(format!(
                "{what} {} is outside the accepted range 1 <= threads <= {MAX_THREADS:e}",
                shown(v)
            ));
        }
    }
    if let Some(v) = r
        .metrics
        .iter()
        .find(|v| v.abs() > MAX_COUNTER || v.is_infinite())
    {
        return Err(format!(
            "counter value {} is outside the accepted range -{MAX_COUNTER:e} <= value <= {MAX_COUNTER:e}",
            shown(*v)
        ));
    }
    Ok(())
}

/// Checks that tuning-parameter names are distinct and not empty.
pub fn check_names(names: &[String]) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for name in names {
        if name.trim().is_empty() {
            return Err("a tuning parameter has an empty name".into());
        }
        if !seen.insert(name) {
            return Err(format!("`{name}` appears twice"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record {
            runtime_us: Some(100.0),
            global_size: 1024.0,
            local_size: 64.0,
            metrics: vec![5.0, f64::NAN],
            overhead_us: Some(0.0),
            failure: None,
        }
    }

    #[test]
    fn out_of_range_values_are_named_with_the_range() {
        assert_eq!(check_record(&record()), Ok(()));
        let bad = |f: fn(&mut Record)| {
            let mut r = record();
            f(&mut r);
            check_record(&r).unwrap_err()
        };
        assert!(bad(|r| r.runtime_us = Some(f64::INFINITY)).contains("runtime inf us"));
        assert!(bad(|r| r.runtime_us = Some(1e12)).contains("one day"));
        assert!(bad(|r| r.overhead_us = Some(-1.0)).contains("0 <= overhead"));
        assert!(bad(|r| r.local_size = -64.0).contains("local size -64"));
        assert!(bad(|r| r.global_size = 1e308).contains("global size"));
        assert!(bad(|r| r.metrics[0] = 1e308).contains("counter value 1e308"));
        assert_eq!(check_names(&["A".into(), "B".into()]), Ok(()));
        assert_eq!(
            check_names(&["X".into(), "X".into()]),
            Err("`X` appears twice".to_string())
        );
    }
}
