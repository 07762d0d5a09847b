//! Launch geometry: grid and block sizes evaluated for a configuration and checked against limits.

use super::expr::{Expr, Scope};

/// What the device allows; defaults are those of every GPU since compute capability 3.0.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceLimits {
    /// Threads per block.
    pub max_threads_per_block: u64,
    /// Block size per dimension.
    pub max_block: [u64; 3],
    /// Grid size per dimension.
    pub max_grid: [u64; 3],
    /// Static plus dynamic shared memory per block, bytes, when known.
    pub max_shared_memory_per_block: Option<u64>,
}

impl Default for DeviceLimits {
    fn default() -> Self {
        DeviceLimits {
            max_threads_per_block: 1024,
            max_block: [1024, 1024, 64],
            max_grid: [(1 << 31) - 1, 65535, 65535],
            max_shared_memory_per_block: None,
        }
    }
}

/// `[launch]` of the description.
#[derive(Debug, Clone)]
pub struct LaunchSpec {
    /// Grid size in blocks, x/y/z (missing dimensions are 1).
    pub grid: Vec<Expr>,
    /// Block size in threads, x/y/z.
    pub block: Vec<Expr>,
    /// Dynamic shared memory bytes.
    pub shared_memory: Option<Expr>,
}

/// The launch of one configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchGeometry {
    /// Blocks per dimension.
    pub grid: [u32; 3],
    /// Threads per block per dimension.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub shared_memory_bytes: u32,
}

impl LaunchGeometry {
    /// Threads per block (the recorded *Local size*), saturating at `u64::MAX`.
    pub fn local_size(&self) -> u64 {
        product(&self.block)
    }

    /// Threads launched in total (the recorded *Global size*), saturating at `u64::MAX`: six
    /// 32-bit factors can exceed 64 bits before the device limits are checked.
    pub fn global_size(&self) -> u64 {
        self.local_size().saturating_mul(product(&self.grid))
    }
}

fn product(sizes: &[u32; 3]) -> u64 {
    sizes
        .iter()
        .fold(1u64, |p, &s| p.saturating_mul(u64::from(s)))
}

fn dims(exprs: &[Expr], scope: &Scope, what: &str, max: &[u64; 3]) -> Result<[u32; 3], String> {
    let mut out = [1u32; 3];
    for (d, e) in exprs.iter().enumerate() {
        let v = e.integer(scope)?;
        if v < 1 {
            return Err(format!(
                "{} `{}` gives {v}; sizes must be positive",
                e.role, e.text
            ));
        }
        let v = v as u64;
        if v > max[d] {
            return Err(format!(
                "{what} dimension {} is {v}, above the device limit of {}",
                ["x", "y", "z"][d],
                max[d]
            ));
        }
        out[d] = v as u32;
    }
    Ok(out)
}

impl LaunchSpec {
    /// Evaluates and validates the geometry of a configuration; `Err` says why it cannot launch.
    pub fn evaluate(&self, scope: &Scope, limits: &DeviceLimits) -> Result<LaunchGeometry, String> {
        let grid = dims(&self.grid, scope, "grid", &limits.max_grid)?;
        let block = dims(&self.block, scope, "block", &limits.max_block)?;
        let shared = match &self.shared_memory {
            Some(e) => {
                let v = e.integer(scope)?;
                if v < 0 {
                    return Err(format!(
                        "{} `{}` gives {v}, a negative size",
                        e.role, e.text
                    ));
                }
                v as u64
            }
            None => 0,
        };
        let geometry = LaunchGeometry {
            grid,
            block,
            shared_memory_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
        };
        if geometry.local_size() > limits.max_threads_per_block {
            return Err(format!(
                "block of {} threads exceeds the device limit of {}",
                geometry.local_size(),
                limits.max_threads_per_block
            ));
        }
        if let Some(max) = limits.max_shared_memory_per_block {
            if shared > max {
                return Err(format!(
                    "{shared} bytes of dynamic shared memory exceed the device limit of {max}"
                ));
            }
        }
        Ok(geometry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::scope;
    use std::path::Path;

    fn spec(grid: &[&str], block: &[&str]) -> LaunchSpec {
        let known: Vec<String> = ["N", "TILE", "WPT"].iter().map(|s| s.to_string()).collect();
        let compile = |what: &str, v: &[&str]| {
            v.iter()
                .enumerate()
                .map(|(i, t)| {
                    Expr::compile(
                        t,
                        &format!("launch.{what}[{i}]"),
                        Path::new("k.toml"),
                        1,
                        &known,
                    )
                    .unwrap()
                })
                .collect()
        };
        LaunchSpec {
            grid: compile("grid", grid),
            block: compile("block", block),
            shared_memory: None,
        }
    }

    #[test]
    fn geometry_is_evaluated_with_default_dimensions_and_sizes() {
        let s = spec(&["N / TILE", "N / TILE"], &["TILE", "TILE / WPT"]);
        let sc = scope([("N", 4096.0), ("TILE", 32.0), ("WPT", 4.0)]);
        let g = s.evaluate(&sc, &DeviceLimits::default()).unwrap();
        assert_eq!(g.grid, [128, 128, 1]);
        assert_eq!(g.block, [32, 8, 1]);
        assert_eq!(g.local_size(), 256);
        assert_eq!(g.global_size(), 4096 * 4096 / 4);
    }

    #[test]
    fn sizes_beyond_64_bits_saturate() {
        let g = LaunchGeometry {
            grid: [u32::MAX; 3],
            block: [u32::MAX; 3],
            shared_memory_bytes: 0,
        };
        assert_eq!(g.local_size(), u64::MAX);
        assert_eq!(g.global_size(), u64::MAX);
    }

    #[test]
    fn oversized_zero_and_fractional_launches_are_refused() {
        let s = spec(&["N / TILE"], &["TILE", "TILE"]);
        let limits = DeviceLimits::default();
        let err = s
            .evaluate(
                &scope([("N", 4096.0), ("TILE", 64.0), ("WPT", 1.0)]),
                &limits,
            )
            .unwrap_err();
        assert_eq!(
            err,
            "block of 4096 threads exceeds the device limit of 1024"
        );
        let err = s
            .evaluate(&scope([("N", 16.0), ("TILE", 32.0), ("WPT", 1.0)]), &limits)
            .unwrap_err();
        assert!(err.contains("gives 0; sizes must be positive"), "{err}");
        let s = spec(&["N / 3.0"], &["TILE"]);
        let err = s
            .evaluate(&scope([("N", 16.0), ("TILE", 32.0), ("WPT", 1.0)]), &limits)
            .unwrap_err();
        assert!(err.contains("not an integer"), "{err}");
        let s = spec(&["1"], &["1", "1", "TILE"]);
        let err = s
            .evaluate(
                &scope([("N", 16.0), ("TILE", 128.0), ("WPT", 1.0)]),
                &limits,
            )
            .unwrap_err();
        assert_eq!(
            err,
            "block dimension z is 128, above the device limit of 64"
        );
    }
}
