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
