//! scipy's L-BFGS-B as Kernel Tuner's basin hopping runs it, on a cost constant per grid cell.
//!
//! Kernel Tuner 1.5 scales every parameter so that one value step is `eps` wide (see
//! [`super::grid::Scaled`]) and snaps each continuous point L-BFGS-B asks for to the nearest
//! value. Here points are kept in value-index units: value `i` covers `[i − ½, i + ½]` and the
//! bounds are `[−½, n − ½]`. Traced on Kernel Tuner 1.5 with scipy 1.17 (n-body 2080, 1009
//! minimisations), a minimisation on such a cost is almost always:
//!
//! 1. the start, projected onto the bounds, and a one-sided finite-difference gradient with a step
//!    of one value (backwards where the forward step leaves the bounds);
//! 2. one trial, the generalised Cauchy point of the first iteration: the start moved by the
//!    scaled negative gradient, `−slope / eps²` values per parameter, and projected onto the
//!    bounds; when a parameter that can still move has an infinite slope (an illegal probe costs
//!    the largest float), every parameter with a slope goes to its bound instead;
//! 3. the trial's own gradient, then the end: a lower trial is kept but its next line search
//!    fails (scipy reports failure); a higher one, illegal included, is backtracked from into the
//!    start cell, where L-BFGS-B converges (success) at its start; an equal one fails at once.
//!
//! In those traces backtracking after a higher or illegal trial never tested a new configuration
//! (it re-evaluates the start cell, a cache hit); only 25 minimisations tested more than the
//! points above, all but 2 after a lower trial. Those extra iterations are left out.

use super::ask_tell::Stop;
use super::objective::Objective;

/// Where a minimisation ended, as scipy's `OptimizeResult` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Minimum {
    /// The continuous point returned, in value-index units.
    pub x: Vec<f64>,
    /// Its cost.
    pub cost: f64,
    /// scipy's `success`; basin hopping's acceptance test reads it.
    pub converged: bool,
}

/// Minimises from `start` (value-index units) on the grid with `sizes` values per parameter and
/// Kernel Tuner's step width `eps`.
pub async fn minimise(
    objective: &Objective,
    sizes: &[usize],
    eps: f64,
    start: Vec<f64>,
) -> Result<Minimum, Stop> {
    let x0 = clip(&start, sizes);
    let f0 = cost_at(objective, sizes, &x0).await?;
    let g0 = gradient(objective, sizes, &x0, f0).await?;
    let at_start = |converged| Minimum {
        x: x0.clone(),
        cost: f0,
        converged,
    };
    let Some(trial) = cauchy_trial(&x0, sizes, eps, &g0) else {
        return Ok(at_start(true));
    };
    let ft = cost_at(objective, sizes, &trial).await?;
    // scipy evaluates the cost and its gradient together, so the trial's probes are made even
    // when the line search goes on to reject it.
    gradient(objective, sizes, &trial, ft).await?;
    Ok(if ft < f0 {
        Minimum {
            x: trial,
            cost: ft,
            converged: false,
        }
    } else {
        at_start(ft > f0)
    })
}

/// The grid point Kernel Tuner snaps `x` to: the nearest value, the lower one on a tie.
pub fn snap(x: &[f64], sizes: &[usize]) -> Vec<u32> {
    x.iter()
        .zip(sizes)
        .map(|(&u, &n)| (u - 0.5).ceil().clamp(0.0, (n - 1) as f64) as u32)
        .collect()
}

/// `x` projected onto the bounds.
fn clip(x: &[f64], sizes: &[usize]) -> Vec<f64> {
    x.iter()
        .zip(sizes)
        .map(|(&u, &n)| u.clamp(-0.5, n as f64 - 0.5))
        .collect()
}

async fn cost_at(objective: &Objective, sizes: &[usize], x: &[f64]) -> Result<f64, Stop> {
    objective.at(&snap(x, sizes)).await
}

/// scipy's one-sided difference quotients with a step of one value, in cost per value: forward,
/// backward where the forward step leaves the bounds, and to the farther bound where neither fits
/// (a parameter with one value, whose probe stays in its cell).
async fn gradient(
    objective: &Objective,
    sizes: &[usize],
    x: &[f64],
    cost: f64,
) -> Result<Vec<f64>, Stop> {
    let mut slopes = Vec::with_capacity(x.len());
    for (p, &n) in sizes.iter().enumerate() {
        let hi = n as f64 - 0.5;
        let h = if x[p] + 1.0 <= hi {
            1.0
        } else if x[p] - 1.0 >= -0.5 {
            -1.0
        } else if hi - x[p] >= x[p] + 0.5 {
            hi - x[p]
        } else {
            -0.5 - x[p]
        };
        let mut probe = x.to_vec();
        probe[p] += h;
        let c = cost_at(objective, sizes, &probe).await?;
        slopes.push(if c == cost { 0.0 } else { (c - cost) / h });
    }
    Ok(slopes)
}

/// An illegal point costs the largest float, so a slope towards or away from one overflows
/// once scaled.
fn infinite(slope: f64) -> bool {
    !slope.is_finite() || slope.abs() >= f64::MAX / 2.0
}

/// The first iteration's trial point (see the module documentation); `None` when the projected
/// gradient vanishes or the point stays put, where L-BFGS-B reports convergence.
fn cauchy_trial(x: &[f64], sizes: &[usize], eps: f64, slopes: &[f64]) -> Option<Vec<f64>> {
    let bound = |p: usize, s: f64| if s > 0.0 { -0.5 } else { sizes[p] as f64 - 0.5 };
    let movable = |p: usize| slopes[p] != 0.0 && x[p] != bound(p, slopes[p]);
    let steep = (0..x.len()).any(|p| movable(p) && infinite(slopes[p]));
    let trial: Vec<f64> = (0..x.len())
        .map(|p| {
            let s = slopes[p];
            if s == 0.0 {
                x[p]
            } else if steep || infinite(s) {
                bound(p, s)
            } else {
                (x[p] - s / (eps * eps)).clamp(-0.5, sizes[p] as f64 - 0.5)
            }
        })
        .collect();
    (trial != x).then_some(trial)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapping_ties_go_to_the_lower_value() {
        let sizes = [3, 3];
        assert_eq!(snap(&[-0.5, 0.5], &sizes), vec![0, 0]);
        assert_eq!(snap(&[1.5, 2.5], &sizes), vec![1, 2]);
        assert_eq!(snap(&[1.51, 9.0], &sizes), vec![2, 2]);
    }

    #[test]
    fn the_trial_follows_the_scaled_gradient_or_goes_to_the_bounds() {
        let sizes = [7, 7, 7];
        let eps = 1.0 / 7.0;
        // −slope/eps² values: 0.01 × 49 = 0.49 up, 1 × 49 down to the bound.
        let t = cauchy_trial(&[3.0, 3.0, 3.0], &sizes, eps, &[-0.01, 1.0, 0.0]).unwrap();
        assert!((t[0] - 3.49).abs() < 1e-9 && t[1] == -0.5 && t[2] == 3.0);
        // An infinite slope that can move sends every sloped parameter to its bound.
        let t = cauchy_trial(&[3.0, 3.0, 3.0], &sizes, eps, &[-0.01, f64::MAX, 0.0]).unwrap();
        assert_eq!(t, vec![6.5, -0.5, 3.0]);
        // One that cannot (already at its bound) leaves the others on the gradient.
        let t = cauchy_trial(&[3.0, -0.5, 3.0], &sizes, eps, &[-0.01, f64::MAX, 0.0]).unwrap();
        assert!((t[0] - 3.49).abs() < 1e-9 && t[1] == -0.5);
        assert_eq!(
            cauchy_trial(&[3.0, -0.5], &sizes[..2], eps, &[0.0, 1.0]),
            None
        );
    }
}
