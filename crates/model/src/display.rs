//! Rounding of figures for reports: every report rounds the same way, so the same
//! figure reads the same in `analyze`, `solve` and the studies; and how error messages
//! show the overlong numbers a user may give.

/// Rounds a throughput for display (MB/s, two decimals).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Rounds a ratio for display (four decimals).
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Rounds a figure for people to `digits` significant digits (`0.07340031999999999` →
/// `0.0734` with 4); non-finite values and zero unchanged.
pub fn round_significant(x: f64, digits: usize) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.*e}", digits.saturating_sub(1))
        .parse()
        .unwrap_or(x)
}

/// The longest run of digits an error message shows in full: a 300-digit number (a
/// user's overflowing integer, or 1e308 written out) is cut to its first digits and its
/// length.
pub const MAX_DIGITS: usize = 24;

/// `message` with every run of more than [`MAX_DIGITS`] digits shortened.
pub fn shorten_numbers(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if digits.len() > MAX_DIGITS {
            out.push_str(&digits[..12]);
            out.push_str(&format!("…({} digits)", digits.len()));
        } else {
            out.push_str(digits);
        }
        digits.clear();
    };
    for c in message.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_away_from_zero_at_the_stated_decimals() {
        assert_eq!(round2(1.005_1), 1.01);
        assert_eq!(round2(-2.344), -2.34);
        assert_eq!(round_significant(123456.0, 4), 123500.0);
        assert_eq!(round_significant(-0.000123456, 4), -0.0001235);
        assert_eq!(round_significant(0.005834009400324152, 4), 0.005834);
        assert_eq!(round4(0.123_45), 0.1235);
        assert_eq!(round4(2.0 / 3.0), 0.6667);
    }

    #[test]
    fn long_digit_runs_are_cut_to_twelve_digits_and_their_length() {
        let long = "1".repeat(309);
        assert_eq!(
            shorten_numbers(&format!("--size {long}.5 is too large")),
            "--size 111111111111…(309 digits).5 is too large"
        );
        let edge = "9".repeat(MAX_DIGITS);
        assert_eq!(shorten_numbers(&format!("a{edge}b")), format!("a{edge}b"));
        assert_eq!(shorten_numbers("line 3, column 12"), "line 3, column 12");
    }
}
