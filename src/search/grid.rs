//! The tuning space as a grid of value indices, the coordinates Kernel Tuner's strategies work in.
//!
//! Each parameter's distinct values, sorted, are numbered 0, 1, …; a configuration is a point of
//! that grid. Points of the Cartesian product that are not configurations of the space are
//! "not legal": a strategy may step on them, but they are no tests (Kernel Tuner rejects them
//! before running anything).

use crate::space::{ConfigId, TuningSpace};
use std::collections::HashMap;

/// Value indices of every configuration, with the reverse look-up.
#[derive(Debug, Clone)]
pub struct Grid {
    /// Number of values of each parameter.
    sizes: Vec<usize>,
    /// Row-major value indices, one row per configuration.
    indices: Vec<u32>,
    lookup: HashMap<Vec<u32>, ConfigId>,
}

impl Grid {
    /// The grid of `space`.
    pub fn new(space: &TuningSpace) -> Grid {
        let values = space.parameter_values();
        let sizes: Vec<usize> = values.iter().map(Vec::len).collect();
        let mut indices = Vec::with_capacity(space.len() * sizes.len());
        let mut lookup = HashMap::with_capacity(space.len());
        for (id, config) in space.configs().enumerate() {
            let row: Vec<u32> = config
                .iter()
                .zip(&values)
                .map(|(v, vals)| {
                    // Every value comes from the space, so it is present.
                    vals.binary_search_by(|x| x.total_cmp(v)).unwrap_or(0) as u32
                })
                .collect();
            indices.extend_from_slice(&row);
            lookup.insert(row, id);
        }
        Grid {
            sizes,
            indices,
            lookup,
        }
    }

    /// Number of parameters.
    pub fn dims(&self) -> usize {
        self.sizes.len()
    }

    /// Number of configurations.
    pub fn len(&self) -> usize {
        self.lookup.len()
    }

    /// True when the grid holds no configuration.
    pub fn is_empty(&self) -> bool {
        self.lookup.is_empty()
    }

    /// Number of values of each parameter.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Value indices of configuration `id`.
    pub fn point(&self, id: ConfigId) -> &[u32] {
        let d = self.dims();
        &self.indices[id * d..(id + 1) * d]
    }

    /// The configuration at a grid point, if the point is one.
    pub fn find(&self, point: &[u32]) -> Option<ConfigId> {
        self.lookup.get(point).copied()
    }

    /// Configurations whose every value index differs from `point`'s by at most one
    /// (Kernel Tuner's "strictly-adjacent" neighbours), `point` itself excluded.
    ///
    /// Kernel Tuner's "adjacent" neighbourhood allows a jump to the nearest index present in the
    /// space; every index of a grid built from a space is present, so the two coincide here.
    pub fn adjacent(&self, point: &[u32]) -> Vec<ConfigId> {
        self.rows()
            .filter(|(_, row)| {
                row != &point && row.iter().zip(point).all(|(&a, &b)| a.abs_diff(b) <= 1)
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// Configurations that differ from `point` in exactly one parameter (Kernel Tuner's "Hamming").
    pub fn hamming(&self, point: &[u32]) -> Vec<ConfigId> {
        self.rows()
            .filter(|(_, row)| row.iter().zip(point).filter(|(a, b)| a != b).count() == 1)
            .map(|(id, _)| id)
            .collect()
    }

    fn rows(&self) -> impl Iterator<Item = (ConfigId, &[u32])> {
        self.indices.chunks_exact(self.dims().max(1)).enumerate()
    }
}

/// Kernel Tuner's scaled coordinates: value index `i` of every parameter sits at `(i + ½)·eps`,
/// with `eps = 1 / (most values of any parameter)`, so one value step has the same width in every
/// dimension and the longest parameter spans [0, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct Scaled {
    /// Width of one value step.
    pub eps: f64,
    /// Upper bound of each coordinate (`eps × values`); every lower bound is 0.
    pub upper: Vec<f64>,
}

impl Scaled {
    /// The scaling of a grid with `sizes` values per parameter.
    pub fn new(sizes: &[usize]) -> Scaled {
        let eps = 1.0 / sizes.iter().copied().max().unwrap_or(1).max(1) as f64;
        Scaled {
            eps,
            upper: sizes.iter().map(|&n| eps * n as f64).collect(),
        }
    }

    /// The scaled coordinates of a grid point.
    pub fn to_coords(&self, point: &[u32]) -> Vec<f64> {
        point
            .iter()
            .map(|&i| (f64::from(i) + 0.5) * self.eps)
            .collect()
    }

    /// The grid point nearest to `x` (each coordinate snapped to its nearest value, clamped).
    pub fn snap(&self, x: &[f64]) -> Vec<u32> {
        x.iter()
            .zip(&self.upper)
            .map(|(&v, &hi)| {
                let last = (hi / self.eps).round() - 1.0;
                ((v / self.eps - 0.5).round().clamp(0.0, last.max(0.0))) as u32
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> TuningSpace {
        let mut s = TuningSpace::new(vec!["A".into(), "B".into()]);
        for a in [1.0, 2.0, 4.0] {
            for b in [10.0, 20.0] {
                if !(a == 4.0 && b == 20.0) {
                    s.push(&[a, b]).unwrap();
                }
            }
        }
        s
    }

    #[test]
    fn points_neighbours_and_snapping() {
        let g = Grid::new(&space());
        assert_eq!(g.sizes(), &[3, 2]);
        assert_eq!(g.point(3), &[1, 1]);
        assert_eq!(g.find(&[2, 1]), None);
        let mut adj = g.adjacent(&[0, 0]);
        adj.sort();
        assert_eq!(adj, vec![1, 2, 3]);
        assert_eq!(g.hamming(&[2, 1]), vec![1, 3, 4]);
        let s = Scaled::new(g.sizes());
        assert!((s.eps - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.snap(&s.to_coords(&[2, 1])), vec![2, 1]);
        assert_eq!(s.snap(&[-5.0, 9.0]), vec![0, 1]);
    }
}
