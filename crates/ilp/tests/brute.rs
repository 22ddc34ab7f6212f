//! The ILP optimum equals a brute-force optimum on tiny random traffics, and decision mode
//! finds a liquid schedule exactly when one exists.

use liquid_model::{check_outcome, Limits, Traffic, TransferId, Verdict};
use proptest::prelude::*;

/// Whether two transfers share a link, from their paths (not the model's conflict analysis).
fn congest(t: &Traffic, a: usize, b: usize) -> bool {
    let pb = &t.transfer(TransferId(b as u32)).path;
    t.transfer(TransferId(a as u32))
        .path
        .iter()
        .any(|l| pb.contains(l))
}

/// Whether the transfers can be coloured with `k` colours (plain backtracking).
fn colourable(t: &Traffic, k: usize, colour: &mut Vec<usize>) -> bool {
    let v = colour.len();
    if v == t.len() {
        return true;
    }
    for c in 0..k {
        let ok = (0..v).all(|u| colour[u] != c || !congest(t, u, v));
        if ok {
            colour.push(c);
            if colourable(t, k, colour) {
                return true;
            }
            colour.pop();
        }
    }
    false
}

fn brute_optimum(t: &Traffic) -> usize {
    (1..=t.len())
        .find(|&k| colourable(t, k, &mut Vec::new()))
        .expect("n colours always suffice")
}

fn traffic() -> impl Strategy<Value = Traffic> {
    (1usize..=6).prop_flat_map(|links| {
        prop::collection::vec(
            prop::collection::btree_set(0..links, 1..=links.min(3)),
            1..=8,
        )
        .prop_map(|paths| {
            let ps: Vec<(String, Vec<String>)> = paths
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("t{i}"), p.iter().map(|l| format!("l{l}")).collect()))
                .collect();
            Traffic::from_paths("random", &ps).expect("valid traffic")
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn ilp_optimum_is_the_brute_force_optimum(t in traffic()) {
        let best = brute_optimum(&t);
        let o = liquid_ilp::solve(&t, &Limits::default(), &std::sync::atomic::AtomicU64::new(0))
            .expect("solves")
            .outcome;
        check_outcome(&t, &o).expect("passes the gate");
        let len = o.schedule().expect("a schedule").len();
        prop_assert_eq!(len, best);
        prop_assert_eq!(o.lower_bound(&t).value, best);
        let expected = if best == t.duration() { Verdict::Liquid } else { Verdict::Optimal };
        prop_assert_eq!(o.verdict(), expected);

        let d = liquid_ilp::decide_liquid(&t, &Limits::default()).expect("runs").outcome;
        check_outcome(&t, &d).expect("passes the gate");
        let liquid = best == t.duration();
        prop_assert_eq!(d.verdict(), if liquid { Verdict::Liquid } else { Verdict::Unknown });
    }
}
