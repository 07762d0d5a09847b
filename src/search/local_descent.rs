//! Local minimisers of the basin-hopping and dual-annealing baselines, on the grid.
//!
//! Kernel Tuner hands scipy's continuous minimisers (L-BFGS-B for basin hopping, COBYLA for dual
//! annealing) a cost that is constant on each grid cell. [`gradient_steps`] reproduces what
//! L-BFGS-B does with such a cost (traced on Kernel Tuner 1.5 itself): a forward finite-difference
//! gradient with a step of one value per parameter, then a line-search trial a unit step along
//! the negative gradient in Kernel Tuner's scaled coordinates, which lands on the bounds of most
//! parameters. [`descend`] stands in for COBYLA: best-improvement descent over one-parameter
//! moves of one value.

use super::ask_tell::Stop;
use super::objective::Objective;

/// Where a descent ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Descent {
    /// The best grid point found.
    pub point: Vec<u32>,
    /// Its cost.
    pub cost: f64,
    /// Cost calls made (free ones included), the unit of scipy's `maxfun`.
    pub calls: usize,
}

/// L-BFGS-B on a cost constant per grid cell: evaluate `start` and its forward probes (one value
/// up in each parameter, one down at the top value), try the point a unit step (`1/eps` values)
/// along the negative gradient, projected onto the bounds, with its own probes; move there and
/// repeat while it lowers the cost, else stop at the last point. scipy's backtracking after a
/// failed trial is left out: with an illegal trial (the largest float) it gives up at once.
pub async fn gradient_steps(
    objective: &Objective,
    sizes: &[usize],
    eps: f64,
    start: Vec<u32>,
    max_calls: usize,
) -> Result<Descent, Stop> {
    let cost = objective.at(&start).await?;
    let mut at = Descent {
        point: start,
        cost,
        calls: 1,
    };
    let mut slopes = probe_slopes(objective, sizes, &at.point, at.cost, &mut at.calls).await?;
    while at.calls < max_calls {
        let Some(trial) = gradient_trial(&at.point, sizes, eps, &slopes) else {
            break;
        };
        let c = objective.at(&trial).await?;
        at.calls += 1;
        let trial_slopes = if c < objective.invalid {
            Some(probe_slopes(objective, sizes, &trial, c, &mut at.calls).await?)
        } else {
            None
        };
        match trial_slopes {
            Some(s) if c < at.cost => {
                at.point = trial;
                at.cost = c;
                slopes = s;
            }
            _ => break,
        }
    }
    Ok(at)
}

/// Cost change per value step of each parameter at `point` (`f(probe) − f(point)`, signed by
/// the probe's direction); a parameter with a single value has slope 0 and costs no call.
async fn probe_slopes(
    objective: &Objective,
    sizes: &[usize],
    point: &[u32],
    cost: f64,
    calls: &mut usize,
) -> Result<Vec<f64>, Stop> {
    let mut slopes = vec![0.0; sizes.len()];
    for (p, slope) in slopes.iter_mut().enumerate() {
        if sizes[p] < 2 {
            continue;
        }
        let i = point[p];
        let (moved, sign) = if i as usize + 1 < sizes[p] {
            (i + 1, 1.0)
        } else {
            (i - 1, -1.0)
        };
        let mut probe = point.to_vec();
        probe[p] = moved;
        let c = objective.at(&probe).await?;
        *calls += 1;
        *slope = sign * (c - cost);
    }
    Ok(slopes)
}

/// The grid point a unit step (in scaled coordinates, `1/eps` values) along the negative
/// gradient, clamped to the bounds; `None` when the gradient vanishes or the point stays put.
/// Infinite slopes (an illegal probe) dominate: the step follows them alone.
fn gradient_trial(point: &[u32], sizes: &[usize], eps: f64, slopes: &[f64]) -> Option<Vec<u32>> {
    let infinite = slopes
        .iter()
        .any(|s| !s.is_finite() || s.abs() >= f64::MAX / 2.0);
    let direction: Vec<f64> = if infinite {
        slopes
            .iter()
            .map(|s| {
                if !s.is_finite() || s.abs() >= f64::MAX / 2.0 {
                    -s.signum()
                } else {
                    0.0
                }
            })
            .collect()
    } else {
        slopes.iter().map(|s| -s).collect()
    };
    let norm = direction.iter().map(|d| d * d).sum::<f64>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return None;
    }
    let trial: Vec<u32> = point
        .iter()
        .zip(sizes)
        .zip(&direction)
        .map(|((&i, &n), d)| {
            let x = f64::from(i) + d / norm / eps;
            x.round().clamp(0.0, (n - 1) as f64) as u32
        })
        .collect();
    (trial != point).then_some(trial)
}

/// Descends from `start` (whose cost is evaluated first) with at most `max_calls` cost calls.
pub async fn descend(
    objective: &Objective,
    sizes: &[usize],
    start: Vec<u32>,
    max_calls: usize,
) -> Result<Descent, Stop> {
    let cost = objective.at(&start).await?;
    let mut best = Descent {
        point: start,
        cost,
        calls: 1,
    };
    loop {
        let mut step: Option<(Vec<u32>, f64)> = None;
        for p in 0..sizes.len() {
            for up in [false, true] {
                if best.calls >= max_calls {
                    return Ok(best);
                }
                let i = best.point[p];
                let moved = match up {
                    false if i > 0 => i - 1,
                    true if i as usize + 1 < sizes[p] => i + 1,
                    _ => continue,
                };
                let mut probe = best.point.clone();
                probe[p] = moved;
                let c = objective.at(&probe).await?;
                best.calls += 1;
                if c < step.as_ref().map_or(best.cost, |s| s.1) {
                    step = Some((probe, c));
                }
            }
        }
        match step {
            Some((point, cost)) => {
                best.point = point;
                best.cost = cost;
            }
            None => return Ok(best),
        }
    }
}
