//! The local minimiser of the dual-annealing baseline, on the grid.
//!
//! Kernel Tuner hands scipy's COBYLA a cost that is constant on each grid cell; [`descend`] stands
//! in for it: best-improvement descent over one-parameter moves of one value. (Basin hopping's
//! L-BFGS-B is reproduced in [`super::lbfgsb`].)

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
