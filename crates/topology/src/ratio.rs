//! Exact non-negative rationals, for comparing liquid throughputs without floats.

use std::cmp::Ordering;
use std::fmt;

/// A reduced fraction `num/den` with `den > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: u64,
    den: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ratio {
    /// `num/den`, reduced. Panics when `den == 0` (callers divide by a duration ≥ 1).
    pub fn new(num: u64, den: u64) -> Ratio {
        assert!(den > 0, "Ratio with a zero denominator");
        let g = gcd(num, den).max(1);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    /// Numerator (reduced).
    pub fn num(self) -> u64 {
        self.num
    }

    /// Denominator (reduced).
    pub fn den(self) -> u64 {
        self.den
    }

    /// The value as a float (for plots and reports only).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num as u128 * other.den as u128).cmp(&(other.num as u128 * self.den as u128))
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_and_orders_exactly() {
        assert_eq!(Ratio::new(6, 4), Ratio::new(3, 2));
        assert_eq!(Ratio::new(6, 4).to_string(), "3/2");
        assert!(Ratio::new(1, 3) < Ratio::new(334, 1000));
        assert!(Ratio::new(2, 3) > Ratio::new(666_666_666, 1_000_000_000));
        assert_eq!(Ratio::new(0, 5), Ratio::new(0, 1));
    }
}
