//! Property: the native colouring search's refutations (`prove_by_search`) are LRAT proofs
//! of the very CNF `liquid encode` prints, accepted by liquid-certify, exactly when a
//! brute-force colouring (sharing no code with any engine) finds no schedule.

use liquid_model::{validate, Traffic};
use liquid_sat::teams::{self, Covered};
use liquid_sat::{encode, prove_by_search, EncodeOptions, SearchProved};
use proptest::prelude::*;

mod common;
use common::{build, colourable};

/// Runs the search at `k`, checks what it says against brute force, and any proof with
/// liquid-certify against the CNF of `encode` (byte for byte).
fn agree(t: &Traffic, k: usize, fits: bool) -> Result<(), TestCaseError> {
    match prove_by_search(t, k, None).map_err(|e| TestCaseError::fail(e.to_string()))? {
        SearchProved::Unsat { refutation, .. } => {
            prop_assert!(!fits, "refuted {k} timeframes, which suffice");
            let cnf = encode(t, k, &EncodeOptions::default())
                .expect("encodes")
                .dimacs();
            liquid_certify::check_refutation(&cnf, k, &refutation.cnf, &refutation.lrat)
                .map_err(|e| TestCaseError::fail(format!("k = {k}: {e}")))?;
        }
        SearchProved::Sat(s) => {
            prop_assert!(fits, "a schedule of {k} timeframes, which do not suffice");
            let r = validate(t, &s).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(r.length <= k);
        }
        SearchProved::Stopped => prop_assert!(false, "no deadline was set"),
    }
    Ok(())
}

/// Traffics of `count` transfers, each on `size` distinct links out of `links`.
fn paths_over(
    links: usize,
    size: std::ops::Range<usize>,
    count: std::ops::Range<usize>,
) -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(prop::collection::btree_set(0..links, size), count)
        .prop_map(|v| v.into_iter().map(|s| s.into_iter().collect()).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// On crowded traffics (transfers of two or three links out of five), where Λ often
    /// does not suffice.
    #[test]
    fn team_cover_answers_agree_with_brute_force(
        paths in paths_over(5, 2..4, 3..13),
    ) {
        let t = build(&paths);
        let k = t.duration();
        let e = encode(&t, k, &EncodeOptions::default()).expect("encodes");
        match teams::refute(&t, &e, u64::MAX, None).map_err(|e| TestCaseError::fail(e.to_string()))? {
            Covered::Unsat { lrat, .. } => {
                prop_assert!(!colourable(&paths, k), "refuted Λ = {k}, which suffices");
                liquid_certify::check_texts(&e.dimacs(), &lrat)
                    .map_err(|e| TestCaseError::fail(format!("Λ = {k}: {e}")))?;
            }
            Covered::Sat(s) => {
                let r = validate(&t, &s).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert!(r.length <= k);
            }
            // A cover of the bottleneck transfers the others did not fit in greedily:
            // then Λ timeframes may or may not suffice.
            Covered::Declined(why) => prop_assert!(why.contains("greedily"), "{why}"),
            Covered::Stopped { .. } => prop_assert!(false, "no deadline was set"),
        }
    }

    #[test]
    fn search_proofs_check_exactly_when_no_schedule_exists(
        paths in paths_over(7, 1..4, 1..12),
    ) {
        let t = build(&paths);
        let lam = t.duration();
        for k in lam..=lam + 2 {
            agree(&t, k, colourable(&paths, k))?;
        }
    }
}

#[test]
fn known_non_liquid_traffics_have_checked_search_proofs() {
    for (t, k) in [
        (liquid_model::examples::no_team(), 2),
        (liquid_model::examples::odd_cycle(), 2),
        (liquid_model::examples::queens(6), 6),
        (liquid_model::examples::queens(8), 8),
    ] {
        let r = prove_by_search(&t, k, None).expect("runs");
        let SearchProved::Unsat {
            refutation, steps, ..
        } = r
        else {
            panic!("{}: expected a refutation of {k} timeframes", t.name());
        };
        assert!(steps >= 1);
        // Against a fresh encoding, not the proof's own formula.
        let cnf = encode(&t, k, &EncodeOptions::default())
            .expect("encodes")
            .dimacs();
        let refuted = liquid_certify::check_refutation(&cnf, k, &refutation.cnf, &refutation.lrat)
            .unwrap_or_else(|e| panic!("{}: {e}", t.name()));
        assert_eq!(refuted.report().added, steps as u64, "{}", t.name());
    }
}

#[test]
fn k_outside_the_search_range_is_refused() {
    let t = liquid_model::examples::odd_cycle();
    assert!(prove_by_search(&t, 1, None).is_err(), "below Λ");
    assert!(
        prove_by_search(&t, 33, None).is_err(),
        "beyond 32 timeframes"
    );
}

/// The frame search's proof of this core once named, after a lemma whose re-assertion
/// conflicted, every later lemma by the id of the one before it (the lemma was written
/// but never entered the clause database): `liquid explain random-1021-146` exited 3 with
/// "hint 1731 has 2 unassigned literals". Its 65,433 full teams are past the team-cover
/// search's work cap, so the frame search refutes it.
#[test]
fn the_frame_search_proof_of_a_random_core_checks() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/random-1021-146-core.yaml");
    let t = liquid_model::yaml::load_model(&path).expect("loads");
    let k = t.duration();
    assert_eq!((t.len(), k), (78, 4));
    let e = encode(&t, k, &EncodeOptions::default()).expect("encodes");
    match teams::refute(&t, &e, u64::MAX, None).expect("runs") {
        Covered::Declined(why) => assert!(why.contains("65433 full teams"), "{why}"),
        other => panic!("the team-cover search should decline: {other:?}"),
    }
    let r = prove_by_search(&t, k, None).expect("runs");
    let SearchProved::Unsat {
        refutation, search, ..
    } = r
    else {
        panic!("the core has no schedule of {k} timeframes");
    };
    assert_eq!(search, "frame search");
    liquid_certify::check_refutation(&e.dimacs(), k, &refutation.cnf, &refutation.lrat)
        .expect("the frame search's proof checks");
}
