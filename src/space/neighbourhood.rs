//! Distances between configurations, for the neighbourhood-restricted scoring of huge spaces.

/// Number of tuning parameters in which two configurations differ.
pub fn hamming_distance(a: &[f64], b: &[f64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_differing_parameters() {
        assert_eq!(
            super::hamming_distance(&[1.0, 2.0, 3.0], &[1.0, 5.0, 4.0]),
            2
        );
    }
}
