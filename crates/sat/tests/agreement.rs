//! Property: on random small traffics, the SAT engine and a brute-force colouring (in this
//! test, sharing no code with any engine) agree on liquidity and the optimal length; and
//! every "k - 1 timeframes do not suffice" answer has an LRAT proof that liquid-certify
//! accepts.

use liquid_model::{check_outcome, Limits, Verdict};
use liquid_sat::{prove, solve, solve_with, EncodeOptions, Proved, SatOptions};
use proptest::prelude::*;
use std::sync::atomic::AtomicU64;

mod common;
use common::{build, colourable};

fn traffic_strategy() -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(prop::collection::btree_set(0usize..6, 1..4), 1..9)
        .prop_map(|v| v.into_iter().map(|s| s.into_iter().collect()).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn sat_agrees_with_brute_force(paths in traffic_strategy()) {
        let t = build(&paths);
        let lam = t.duration();
        let optimum = (1..=paths.len()).find(|&k| colourable(&paths, k)).expect("n suffice");
        let o = solve(&t, &Limits::default()).outcome;
        check_outcome(&t, &o).map_err(TestCaseError::fail)?;
        let len = o.schedule().map(|s| s.len());
        prop_assert_eq!(len, Some(optimum));
        prop_assert_eq!(o.lower_bound(&t).value, optimum);
        let expected = if optimum == lam { Verdict::Liquid } else { Verdict::Optimal };
        prop_assert_eq!(o.verdict(), expected);
        // The optimum minus one has a proof that the independent checker accepts.
        if optimum > 1 {
            match prove(&t, optimum - 1, &EncodeOptions::default(), None).expect("runs") {
                Some(Proved::Unsat(p)) => {
                    // Against a fresh encoding, not the proof's own formula.
                    let expected = liquid_sat::encode(&t, optimum - 1, &EncodeOptions::default())
                        .expect("encodes")
                        .dimacs();
                    liquid_certify::check_refutation(&expected, optimum - 1, &p.cnf, &p.lrat)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
                other => prop_assert!(false, "expected a proof, got {:?}", other.map(|_| ())),
            }
        }
    }

    #[test]
    fn the_incremental_engine_agrees_and_its_proofs_check(paths in traffic_strategy()) {
        let t = build(&paths);
        let optimum = (1..=paths.len()).find(|&k| colourable(&paths, k)).expect("n suffice");
        // From one transfer per timeframe and without the tabu search, the solver goes
        // down through satisfiable runs before the one that refutes.
        let singletons = liquid_model::Schedule::new(t.transfer_ids().map(|x| vec![x]).collect());
        // The first with a (distant) time limit: the deadline's machinery must take clauses
        // added between runs.
        let limited = Limits { time: Some(std::time::Duration::from_secs(600)), nodes: None };
        for (start, tabu, limits) in [(Some(singletons), false, limited), (None, true, Limits::default())] {
            let opts = SatOptions {
                proofs: true,
                incremental: true,
                tabu,
                start,
                ..Default::default()
            };
            let r = solve_with(&t, &limits, &opts, &AtomicU64::new(0)).expect("runs");
            let o = &r.answer.outcome;
            check_outcome(&t, o).map_err(TestCaseError::fail)?;
            prop_assert_eq!(o.schedule().map(|s| s.len()), Some(optimum));
            prop_assert_eq!(o.lower_bound(&t).value, optimum);
            match &r.refutation {
                // The refutation of optimum - 1 timeframes: its formula is the encoder's
                // (with the closed timeframes of the runs before), its proof checks.
                Some(p) => {
                    prop_assert_eq!(p.colours + 1, optimum);
                    let expected = liquid_sat::encode(&t, p.colours, &p.options)
                        .expect("encodes")
                        .dimacs();
                    liquid_certify::check_refutation(&expected, p.colours, &p.cnf, &p.lrat)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
                None => prop_assert_eq!(optimum, t.duration()),
            }
        }
    }

    #[test]
    fn every_encoding_choice_gives_the_same_answer(paths in traffic_strategy()) {
        use liquid_sat::{decide, AmoEncoding};
        let t = build(&paths);
        let lam = t.duration();
        let liquid = colourable(&paths, lam);
        for amo in AmoEncoding::ALL {
            for (team, symmetry, transfer_amo) in [(false, false, false), (true, true, true)] {
                // Also in the variables of more timeframes, the extra ones closed by units
                // (the incremental engine's formula).
                for frames in [None, Some(lam + 1), Some(lam + 3)] {
                    let opts = EncodeOptions { amo, team, symmetry, transfer_amo, frames };
                    let (_, r) = decide(&t, lam, &opts, None).expect("runs");
                    let r = r.expect("no deadline");
                    prop_assert_eq!(r.is_some(), liquid, "{:?}", opts);
                    if let Some(s) = r {
                        let rep = liquid_model::validate(&t, &s)
                            .map_err(|e| TestCaseError::fail(e.to_string()))?;
                        prop_assert!(rep.length <= lam, "{:?}", opts);
                    }
                }
            }
        }
    }
}
