//! Small named traffics from the papers, for examples, tests and benchmarks.

use crate::traffic::Traffic;

/// Three transfers pairwise sharing three different links (004 makes the same point with
/// its Fig. 8): Λ = 2, every link a bottleneck, no team, optimum 3. The same traffic as
/// `models/no-team.yaml`.
pub fn no_team() -> Traffic {
    Traffic::from_paths(
        "no-team",
        &[
            ("x", vec!["a", "b"]),
            ("y", vec!["b", "c"]),
            ("z", vec!["a", "c"]),
        ],
    )
    .expect("the no-team traffic is valid")
}

/// Five transfers in a ring, `t_i` on links `e_i` and `e_{i+1 mod 5}`: the conflict graph
/// is an odd cycle, Λ = 2, no liquid schedule, optimum 3. The same traffic as
/// `models/odd-cycle.yaml`.
pub fn odd_cycle() -> Traffic {
    let paths: Vec<(String, Vec<String>)> = (0..5)
        .map(|i| {
            (
                format!("t{i}"),
                vec![format!("e{i}"), format!("e{}", (i + 1) % 5)],
            )
        })
        .collect();
    Traffic::from_paths("odd-cycle", &paths).expect("the odd-cycle traffic is valid")
}

/// The n × n queen graph as a traffic (n ≥ 1): a transfer `q{r}_{c}` per square on the
/// links of its row, its column and its two diagonals, so two transfers congest exactly
/// when two queens there would attack each other. Λ = n; the optimum is n for n = 1 and
/// n > 3 with n coprime to 6, more otherwise (queen8_8: 9; `models/hard/queen8_8.yaml`).
pub fn queens(n: usize) -> Traffic {
    let paths: Vec<(String, Vec<String>)> = (0..n)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .map(|(r, c)| {
            (
                format!("q{r}_{c}"),
                vec![
                    format!("row{r}"),
                    format!("col{c}"),
                    format!("diag{}", r + n - c),
                    format!("anti{}", r + c),
                ],
            )
        })
        .collect();
    Traffic::from_paths(&format!("queen{n}_{n}"), &paths).expect("a queen graph is a valid traffic")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_have_their_documented_shape() {
        let c = odd_cycle();
        assert_eq!((c.len(), c.duration()), (5, 2));
        // Each transfer congests its two neighbours on the ring.
        assert_eq!(c.conflict_degrees(), vec![2; 5]);
        // queen8_8: 64 vertices, 728 edges (the DIMACS instance), Λ = 8.
        let q = queens(8);
        assert_eq!((q.len(), q.duration()), (64, 8));
        assert_eq!(q.conflict_degrees().iter().sum::<u64>(), 2 * 728);
    }
}

/// Seeded draws for random instances: xorshift64 (Marsaglia's 13/7/17 triple) from
/// `seed · 0x9E3779B97F4A7C15 | 1`, the same stream on every platform. Benchmarks, the
/// conformance suite and the CLI tests draw their random traffics from it through
/// [`random_paths`], so that a seed names one instance everywhere.
#[derive(Debug, Clone)]
pub struct Draws(u64);

impl Draws {
    /// The draws of `seed`.
    pub fn new(seed: u64) -> Draws {
        Draws(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `m` (`m` ≥ 1), by reduction modulo `m`.
    pub fn below(&mut self, m: u64) -> u64 {
        let s = &mut self.0;
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s % m
    }
}

/// The shape of a random traffic ([`random_paths`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomShape {
    /// Transfers wanted.
    pub transfers: usize,
    /// Links `l0 ..` to draw from (at least `path.1`).
    pub links: usize,
    /// Fewest and most links of a path (each length equally likely).
    pub path: (usize, usize),
    /// Whether two transfers may not have the same link set: a path an earlier transfer
    /// has is drawn again, up to 1000 paths drawn in all (so a small network may give
    /// fewer transfers than wanted).
    pub distinct: bool,
}

/// Seeded random paths: transfer `t{i}` gets a path of distinct links `l{j}`, in the
/// order drawn. Ready for [`Traffic::from_paths`].
pub fn random_paths(draws: &mut Draws, shape: &RandomShape) -> Vec<(String, Vec<String>)> {
    let (lo, hi) = shape.path;
    let mut paths: Vec<Vec<usize>> = Vec::new();
    let mut tries = 0;
    while paths.len() < shape.transfers && (!shape.distinct || tries < 1000) {
        tries += 1;
        let len = lo + draws.below((hi - lo + 1) as u64) as usize;
        let mut path: Vec<usize> = Vec::with_capacity(len);
        while path.len() < len {
            let l = draws.below(shape.links as u64) as usize;
            if !path.contains(&l) {
                path.push(l);
            }
        }
        let same_set = |p: &Vec<usize>| p.len() == path.len() && p.iter().all(|l| path.contains(l));
        if shape.distinct && paths.iter().any(same_set) {
            continue;
        }
        paths.push(path);
    }
    paths
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            (
                format!("t{i}"),
                p.into_iter().map(|l| format!("l{l}")).collect(),
            )
        })
        .collect()
}

#[cfg(test)]
mod random_tests {
    use super::*;

    #[test]
    fn a_seed_names_one_instance_and_shapes_hold() {
        let shape = RandomShape {
            transfers: 12,
            links: 6,
            path: (2, 3),
            distinct: true,
        };
        let a = random_paths(&mut Draws::new(5), &shape);
        assert_eq!(a, random_paths(&mut Draws::new(5), &shape));
        assert_ne!(a, random_paths(&mut Draws::new(6), &shape));
        assert_eq!(a.len(), 12);
        let mut sets = std::collections::BTreeSet::new();
        for (_, p) in &a {
            assert!((2..=3).contains(&p.len()), "{p:?}");
            let set: std::collections::BTreeSet<&String> = p.iter().collect();
            assert_eq!(set.len(), p.len(), "links of a path are distinct");
            assert!(sets.insert(set), "link sets are distinct");
        }
        // Four links hold only 4 + 6 + 4 distinct paths of 1 to 3 links (C(4,1..=3) = 14):
        // 20 distinct ones cannot be drawn, and the draws stop.
        let small = RandomShape {
            transfers: 20,
            links: 4,
            path: (1, 3),
            distinct: true,
        };
        assert_eq!(random_paths(&mut Draws::new(1), &small).len(), 14);
    }
}
