//! Finite fields GF(q), `q = p^k` a prime power: elements `0..q` as base-`p` digit strings
//! (least significant digit first: the coefficients of a polynomial over GF(p)), added
//! digit-wise mod `p`, multiplied through tables of a primitive element's powers (the
//! powers of `x` modulo a primitive polynomial of degree `k`, found by search). Memory
//! `O(q)`; used by the closed-form schedules of dragonflies ([`crate::dragonfly`], whose
//! groups are the lines of the affine plane over GF(q)) and HyperX ([`crate::hyperx`],
//! coordinates and multipliers of a dimension).

/// The field GF(q).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    q: usize,
    p: usize,
    /// `exp[i] = α^i` for `i < q − 1`.
    exp: Vec<u32>,
    /// `log[a]` for `a ≠ 0` (`log[0]` unused).
    log: Vec<u32>,
}

impl Field {
    /// GF(q), or `None` when `q` is not a prime power (or is below 2).
    pub fn new(q: usize) -> Option<Field> {
        if q < 2 || q > u32::MAX as usize {
            return None;
        }
        let p = (2..=q)
            .find(|x| q % x == 0 || x * x > q)
            .filter(|x| q % x == 0)
            .unwrap_or(q);
        let mut k = 0;
        let mut power = 1;
        while power < q {
            power *= p;
            k += 1;
        }
        if power != q {
            return None;
        }
        let digits = |a: usize| -> Vec<usize> { (0..k).map(|i| a / p.pow(i as u32) % p).collect() };
        let number = |d: &[usize]| d.iter().rev().fold(0, |acc, &c| acc * p + c);
        // a·x mod f (f monic of degree k, given by its k low coefficients).
        let mul_x = |a: usize, f: &[usize]| -> usize {
            let mut d = digits(a);
            let top = d[k - 1];
            d.rotate_right(1);
            d[0] = 0;
            for (i, c) in d.iter_mut().enumerate() {
                *c = (*c + (p - top) * f[i] % p) % p;
            }
            number(&d)
        };
        let mut exp = Vec::with_capacity(q - 1);
        for code in 0..q {
            let f = digits(code);
            exp.clear();
            let mut a = 1;
            while exp.len() < q - 1 {
                exp.push(a as u32);
                a = mul_x(a, &f);
                if a == 1 || a == 0 {
                    break;
                }
            }
            if exp.len() == q - 1 && a == 1 {
                break;
            }
        }
        if exp.len() != q - 1 {
            return None;
        }
        let mut log = vec![0u32; q];
        for (i, &e) in exp.iter().enumerate() {
            log[e as usize] = i as u32;
        }
        Some(Field { q, p, exp, log })
    }

    /// The number of elements, `q`.
    pub fn order(&self) -> usize {
        self.q
    }

    /// `α^i` for the primitive element `α` (the class of `x`), `i < q − 1`.
    pub fn power(&self, i: usize) -> usize {
        self.exp[i % (self.q - 1)] as usize
    }

    /// `a + b`.
    pub fn add(&self, a: usize, b: usize) -> usize {
        if self.p == 2 {
            return a ^ b;
        }
        let (mut a, mut b, mut sum, mut place) = (a, b, 0, 1);
        while a > 0 || b > 0 {
            sum += (a % self.p + b % self.p) % self.p * place;
            a /= self.p;
            b /= self.p;
            place *= self.p;
        }
        sum
    }

    /// `a · b`.
    pub fn mul(&self, a: usize, b: usize) -> usize {
        if a == 0 || b == 0 {
            return 0;
        }
        let i = (self.log[a] as usize + self.log[b] as usize) % (self.q - 1);
        self.exp[i] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_prime_power_orders_only() {
        for q in [2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49, 64, 81, 125, 128] {
            let f = Field::new(q).expect("prime power");
            // Every nonzero element has an inverse; distributivity; addition a group.
            for a in 0..q {
                assert_eq!((0..q).filter(|&b| f.add(a, b) == 0).count(), 1, "q={q}");
                if a > 0 {
                    assert_eq!((1..q).filter(|&b| f.mul(a, b) == 1).count(), 1, "q={q}");
                }
            }
            for a in (0..q).step_by(q / 8 + 1) {
                for b in 0..q {
                    for c in (0..q).step_by(3) {
                        assert_eq!(
                            f.mul(a, f.add(b, c)),
                            f.add(f.mul(a, b), f.mul(a, c)),
                            "q={q}"
                        );
                        assert_eq!(f.mul(f.mul(a, b), c), f.mul(a, f.mul(b, c)), "q={q}");
                    }
                }
            }
        }
        for q in [0, 1, 6, 10, 12, 18, 24, 36, 100] {
            assert!(Field::new(q).is_none(), "q={q}");
        }
    }
}
