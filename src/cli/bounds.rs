//! Range-checked parsers of numeric options: a value outside its range is refused by the argument
//! parser with the flag's name and the allowed range, before any file is read.

use std::fmt::Display;
use std::str::FromStr;

/// Parser of a finite number in `min..=max`.
pub fn float_in(min: f64, max: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |text| {
        let v: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a number"))?;
        if v.is_finite() && (min..=max).contains(&v) {
            Ok(v)
        } else {
            Err(format!("must be a finite number from {min} to {max}"))
        }
    }
}

/// Parser of an integer in `min..=max`.
pub fn int_in<T>(min: T, max: T) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync,
{
    move |text| {
        let v: Option<T> = text.trim().parse().ok();
        match v {
            Some(v) if v >= min && v <= max => Ok(v),
            _ => Err(format!("must be a whole number from {min} to {max}")),
        }
    }
}

/// Most seeded runs one experiment may ask for (1000 is the paper's count).
pub const MAX_RUNS: usize = 1_000_000;
/// Most worker threads: more than any machine's cores only adds scheduling overhead.
pub const MAX_THREADS: usize = 256;
/// Most random train/test splits per depth (each costs a full set of tree fits).
pub const MAX_SPLITS: usize = 100;
/// Deepest tree `train` may try: a balanced tree of depth 32 already has 4 billion leaves.
pub const MAX_DEPTH: u16 = 32;
/// Longest simulated duration of one step of the cost model, in seconds (one day).
pub const MAX_SECONDS: f64 = 86_400.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_enforced_with_the_range_in_the_message() {
        let seconds = float_in(0.0, MAX_SECONDS);
        assert_eq!(seconds("0.5"), Ok(0.5));
        for bad in ["-10", "nan", "inf", "1e300"] {
            assert_eq!(
                seconds(bad),
                Err("must be a finite number from 0 to 86400".to_string()),
                "{bad}"
            );
        }
        assert_eq!(seconds("ten"), Err("`ten` is not a number".to_string()));
        let runs = int_in(1usize, MAX_RUNS);
        assert_eq!(runs("1000"), Ok(1000));
        assert!(runs("0").is_err());
        assert!(runs("18446744073709551615")
            .unwrap_err()
            .contains("1000000"));
    }
}
