//! Fixtures and brute-force references shared by the engines' unit tests.

use liquid_model::{Traffic, TransferId};
use proptest::prelude::*;

/// A random small traffic: up to `n` transfers over `links` links.
pub(crate) fn arb_traffic(n: usize, links: usize) -> impl Strategy<Value = Traffic> {
    prop::collection::vec(prop::collection::btree_set(0..links, 1..=3), 1..=n).prop_map(|paths| {
        let ts: Vec<(String, Vec<String>)> = paths
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    format!("t{i}"),
                    p.into_iter().map(|l| format!("l{l}")).collect(),
                )
            })
            .collect();
        Traffic::from_paths("random", &ts).expect("valid")
    })
}

/// The paths of the no-team traffic: three transfers pairwise sharing a link (a triangle:
/// Λ = 2, optimum 3), to extend with more transfers.
pub(crate) fn no_team_paths() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("x", vec!["a", "b"]),
        ("y", vec!["b", "c"]),
        ("z", vec!["a", "c"]),
    ]
}

/// The no-team traffic (the same as [`no_team_paths`]).
pub(crate) fn no_team() -> Traffic {
    liquid_model::examples::no_team()
}

/// Whether two transfers share a link, from their paths alone (not the model's conflict
/// analysis, which the engines use).
fn share_a_link(t: &Traffic, a: usize, b: usize) -> bool {
    let pb = &t.transfer(TransferId(b as u32)).path;
    t.transfer(TransferId(a as u32))
        .path
        .iter()
        .any(|l| pb.contains(l))
}

/// Brute force: does some assignment of `k` colours colour the conflict graph?
pub(crate) fn colourable(t: &Traffic, k: usize) -> bool {
    fn rec(t: &Traffic, i: usize, k: usize, col: &mut Vec<usize>) -> bool {
        if i == col.len() {
            return true;
        }
        for c in 0..k {
            if (0..i).all(|j| col[j] != c || !share_a_link(t, i, j)) {
                col[i] = c;
                if rec(t, i + 1, k, col) {
                    return true;
                }
            }
        }
        false
    }
    rec(t, 0, k, &mut vec![0; t.len()])
}

/// Brute force chromatic number: the smallest k with a proper k-colouring.
pub(crate) fn brute_chromatic(t: &Traffic) -> usize {
    (1..=t.len())
        .find(|&k| colourable(t, k))
        .expect("n colours suffice")
}
