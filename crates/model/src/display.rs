//! Rounding of figures for reports: every report rounds the same way, so the same
//! figure reads the same in `analyze`, `solve` and the studies.

/// Rounds a throughput for display (MB/s, two decimals).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Rounds a ratio for display (four decimals).
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_away_from_zero_at_the_stated_decimals() {
        assert_eq!(round2(1.005_1), 1.01);
        assert_eq!(round2(-2.344), -2.34);
        assert_eq!(round4(0.123_45), 0.1235);
        assert_eq!(round4(2.0 / 3.0), 0.6667);
    }
}
