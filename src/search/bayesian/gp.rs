//! A Gaussian process over a fixed set of candidate points, updated one observation at a time.
//!
//! Kernel Tuner's Bayesian optimisation fixes the kernel's hyperparameters (Matérn ν = 3/2,
//! length scale 1.5, on the scaled coordinates), so a new observation only appends a row to the
//! Cholesky factor L of the training covariance. The posterior over all candidates needs
//! V = L⁻¹ K(train, candidates); appending an observation appends one row to V, so a step costs
//! O(n·m) for n observations and m candidates instead of the O(n²·m) of refitting.

use nalgebra::{DMatrix, DVector};

/// Matérn ν = 3/2 correlation at distance `r` with length scale `length`.
fn matern32(r: f64, length: f64) -> f64 {
    let s = 3f64.sqrt() * r / length;
    (1.0 + s) * (-s).exp()
}

/// The posterior of a zero-mean, unit-variance GP on standardised observations.
#[derive(Clone)]
pub struct CandidateGp {
    /// Candidate coordinates, row-major, `dims` per candidate.
    points: Vec<f64>,
    dims: usize,
    length: f64,
    noise: f64,
    /// Lower Cholesky factor of the training covariance (plus noise).
    l: DMatrix<f64>,
    /// Rows of V = L⁻¹ K(train, candidates).
    v: Vec<DVector<f64>>,
    /// Column sums of V², the explained part of each candidate's prior variance.
    explained: DVector<f64>,
    /// Observed values, in training order.
    y: Vec<f64>,
}

/// Posterior mean and standard deviation of every candidate, in units of the observations.
pub struct Posterior {
    /// Mean per candidate.
    pub mean: DVector<f64>,
    /// Standard deviation per candidate.
    pub std: DVector<f64>,
    /// Standard deviation of the observations (1 when they do not vary).
    pub spread: f64,
}

impl CandidateGp {
    /// A GP over `points` (`dims` coordinates each) with a Matérn 3/2 kernel.
    pub fn new(points: Vec<f64>, dims: usize, length: f64, noise: f64) -> Self {
        let m = points.len() / dims.max(1);
        CandidateGp {
            points,
            dims,
            length,
            noise,
            l: DMatrix::zeros(0, 0),
            v: Vec::new(),
            explained: DVector::zeros(m),
            y: Vec::new(),
        }
    }

    /// Number of candidates.
    pub fn candidates(&self) -> usize {
        self.explained.len()
    }

    /// Number of observations in the model.
    pub fn observations(&self) -> usize {
        self.y.len()
    }

    fn point(&self, i: usize) -> &[f64] {
        &self.points[i * self.dims..(i + 1) * self.dims]
    }

    /// Correlations of candidate `c` with every candidate.
    fn kernel_row(&self, c: usize) -> DVector<f64> {
        let x = self.point(c);
        DVector::from_iterator(
            self.candidates(),
            (0..self.candidates()).map(|j| {
                let d2: f64 = self
                    .point(j)
                    .iter()
                    .zip(x)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                matern32(d2.sqrt(), self.length)
            }),
        )
    }

    /// Adds the observation `y` at candidate `c`. Returns false, leaving the model unchanged, when
    /// the point is numerically indistinguishable from the observations already in it.
    pub fn observe(&mut self, c: usize, y: f64) -> bool {
        let n = self.observations();
        let k_all = self.kernel_row(c);
        // The new row of L is L⁻¹ K(train, c): V's column c.
        let l_row = DVector::from_iterator(n, self.v.iter().map(|row| row[c]));
        let d2 = 1.0 + self.noise - l_row.norm_squared();
        if d2 <= 1e-12 {
            return false;
        }
        let d = d2.sqrt();
        let mut new_row = k_all;
        for (li, row) in l_row.iter().zip(&self.v) {
            new_row.axpy(-li, row, 1.0);
        }
        new_row /= d;
        self.explained += new_row.component_mul(&new_row);
        self.v.push(new_row);
        let mut l = self.l.clone().resize(n + 1, n + 1, 0.0);
        for (i, li) in l_row.iter().enumerate() {
            l[(n, i)] = *li;
        }
        l[(n, n)] = d;
        self.l = l;
        self.y.push(y);
        true
    }

    /// The posterior of every candidate, with the observations standardised (mean 0, standard
    /// deviation 1) for the fit and mapped back, as scikit-learn's `normalize_y` does.
    pub fn posterior(&self) -> Posterior {
        let m = self.candidates();
        let n = self.observations();
        if n == 0 {
            return Posterior {
                mean: DVector::zeros(m),
                std: DVector::from_element(m, 1.0),
                spread: 1.0,
            };
        }
        let mean_y = self.y.iter().sum::<f64>() / n as f64;
        let var_y = self.y.iter().map(|v| (v - mean_y).powi(2)).sum::<f64>() / n as f64;
        let std_y = if var_y > 0.0 { var_y.sqrt() } else { 1.0 };
        let y = DVector::from_iterator(n, self.y.iter().map(|v| (v - mean_y) / std_y));
        let z = self
            .l
            .solve_lower_triangular(&y)
            .unwrap_or_else(|| DVector::zeros(n));
        let mut mean = DVector::zeros(m);
        for (zi, row) in z.iter().zip(&self.v) {
            mean.axpy(*zi, row, 1.0);
        }
        mean.apply(|v| *v = *v * std_y + mean_y);
        let std = self.explained.map(|e| (1.0 - e).max(0.0).sqrt() * std_y);
        Posterior {
            mean,
            std,
            spread: std_y,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_observations_and_is_unsure_far_away() {
        let points: Vec<f64> = (0..11).map(|i| i as f64 / 10.0).collect();
        let mut gp = CandidateGp::new(points, 1, 0.3, 1e-10);
        assert!(gp.observe(0, 5.0));
        assert!(gp.observe(10, 1.0));
        assert!(gp.observe(5, 2.0));
        let p = gp.posterior();
        for (c, y) in [(0, 5.0), (10, 1.0), (5, 2.0)] {
            assert!((p.mean[c] - y).abs() < 1e-6, "{c}: {}", p.mean[c]);
            assert!(p.std[c] < 1e-3);
        }
        assert!(p.std[2] > p.std[1] && p.std[2] > 0.1);
    }
}
