//! The one seeded generator of liquid: SplitMix64 (Steele, Lea and Flood), a small,
//! well-mixed generator whose streams are the same on every platform, so that a `--seed`
//! gives the same answer everywhere. The native engines draw from it, the flit simulator
//! seeds its xoshiro256++ state with it, and [`mix`] is its output function alone, a
//! 64-bit hash.

/// SplitMix64 state: the next output is [`mix`] of the state advanced by the golden gamma.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function of one step from `x`: a well-mixed 64-bit hash of `x`
/// (`SplitMix64(x).next() == mix(x)`).
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SplitMix64 {
    /// The next 64 random bits.
    // An inherent `next`, not an `Iterator`: the stream never ends.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let r = mix(self.0);
        self.0 = self.0.wrapping_add(GAMMA);
        r
    }

    /// A number below `n` (`n` ≥ 1), by reduction modulo `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_stream() {
        // SplitMix64 seeded with 0 (the reference implementation's first outputs).
        let mut r = SplitMix64(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next(), 0x06C4_5D18_8009_454F);
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
    }
}
