//! The SAT engine on small traffics, with its refutations checked by liquid-certify.

use std::sync::atomic::AtomicU64;

use liquid_model::examples::no_team;
use liquid_model::{check_outcome, Evidence, Limits, Traffic, Verdict};
use liquid_sat::{dimacs, prove, solve, solve_with, EncodeOptions, Proved, SatOptions};

/// Five transfers in a cycle, each sharing one link with the next: Λ = 2, optimum 3.
fn c5() -> Traffic {
    let paths: Vec<(String, Vec<String>)> = (0..5)
        .map(|i| {
            (
                format!("t{i}"),
                vec![format!("e{i}"), format!("e{}", (i + 1) % 5)],
            )
        })
        .collect();
    Traffic::from_paths("c5", &paths).expect("valid")
}

#[test]
fn no_team_is_optimal_at_three_and_without_proofs_says_so_as_a_claim() {
    let t = no_team();
    let o = solve(&t, &Limits::default()).outcome;
    check_outcome(&t, &o).expect("outcome passes the gate");
    assert_eq!(o.verdict(), Verdict::Optimal);
    assert_eq!(o.lower_bound(&t).value, 3);
    assert!(matches!(
        o.lower_bound(&t).evidence,
        Evidence::SolverClaim { .. }
    ));
    let Some(Proved::Unsat(p)) = prove(&t, 2, &EncodeOptions::default(), None).expect("runs")
    else {
        panic!("no-team is not 2-colourable");
    };
    // Against a fresh encoding, not the proof's own formula.
    let expected = dimacs(&t, 2, &EncodeOptions::default()).expect("encodes");
    let r = liquid_certify::check_refutation(&expected, 2, &p.cnf, &p.lrat).expect("proof checks");
    assert!(r.report().added >= 1);
}

#[test]
fn with_proofs_the_refutation_is_of_the_bound_minus_one_and_checks() {
    let t = c5();
    let opts = SatOptions {
        proofs: true,
        ..Default::default()
    };
    let r = solve_with(&t, &Limits::default(), &opts, &AtomicU64::new(0)).expect("runs");
    let o = &r.answer.outcome;
    check_outcome(&t, o).expect("outcome passes the gate");
    assert_eq!(o.verdict(), Verdict::Optimal);
    assert_eq!(o.schedule().map(|s| s.len()), Some(3));
    let refutation = r.refutation.expect("a refutation of 2 timeframes");
    assert_eq!(refutation.colours, 2);
    // The CNF is the model's encoding, byte for byte, and the proof refutes it.
    let expected = dimacs(&t, 2, &EncodeOptions::default()).expect("encodes");
    liquid_certify::check_refutation(&expected, 2, &refutation.cnf, &refutation.lrat)
        .expect("the refutation checks");
}

#[test]
fn a_liquid_answer_carries_no_refutation() {
    let t = Traffic::from_paths("t", &[("x", vec!["a"]), ("y", vec!["b"])]).expect("valid");
    let opts = SatOptions {
        proofs: true,
        ..Default::default()
    };
    let r = solve_with(&t, &Limits::default(), &opts, &AtomicU64::new(0)).expect("runs");
    assert_eq!(r.answer.verdict(), Verdict::Liquid);
    assert!(r.refutation.is_none());
}

#[test]
fn satisfiable_k_gives_a_schedule_not_a_proof() {
    let t = c5();
    let Some(Proved::Sat(s)) = prove(&t, 3, &EncodeOptions::default(), None).expect("runs") else {
        panic!("c5 has a 3-timeframe schedule");
    };
    assert_eq!(liquid_model::validate(&t, &s).expect("valid").length, 3);
}

#[test]
fn k_below_duration_is_refuted_by_propagation() {
    let t = c5();
    let Some(Proved::Unsat(p)) = prove(&t, 1, &EncodeOptions::default(), None).expect("runs")
    else {
        panic!("one timeframe cannot hold congesting transfers");
    };
    let expected = dimacs(&t, 1, &EncodeOptions::default()).expect("encodes");
    liquid_certify::check_refutation(&expected, 1, &p.cnf, &p.lrat).expect("proof checks");
}

#[test]
fn a_zero_time_limit_answers_unknown_at_once() {
    // The deadline has passed before the starting DSatur run, so nothing is settled: the
    // engine says so rather than guess, and the answer still passes the gate.
    let t = c5();
    let limits = Limits {
        time: Some(std::time::Duration::ZERO),
        nodes: None,
    };
    let o = solve(&t, &limits).outcome;
    check_outcome(&t, &o).expect("outcome passes the gate");
    assert_eq!(o.verdict(), Verdict::Unknown);
    assert_eq!(o.schedule(), None);
}

#[test]
fn a_given_start_replaces_dsatur() {
    // Starting from a 5-frame schedule of c5 (one transfer per frame), SAT still finds 3.
    let t = c5();
    let one_each =
        liquid_model::Schedule::new(t.transfer_ids().map(|x| vec![x]).collect::<Vec<_>>());
    let opts = SatOptions {
        start: Some(one_each),
        ..Default::default()
    };
    let r = solve_with(&t, &Limits::default(), &opts, &AtomicU64::new(0)).expect("runs");
    assert_eq!(r.answer.outcome.schedule().map(|s| s.len()), Some(3));
    assert!(r
        .answer
        .stats
        .iter()
        .any(|(k, v)| k == "start_length" && *v == liquid_model::StatValue::Count(5)));
}

#[test]
fn a_satisfiable_run_below_the_start_leaves_the_proof_to_one_more_run() {
    // From five frames without the tabu search, varisat alone: k = 2 runs without the LRAT
    // writer (its "unsatisfiable" would not be final, 2 < 5 − 1), k = 3 finds a schedule,
    // and one more run refutes 2 timeframes with a proof, which checks against the
    // model's encoding.
    let t = c5();
    let one_each =
        liquid_model::Schedule::new(t.transfer_ids().map(|x| vec![x]).collect::<Vec<_>>());
    let opts = SatOptions {
        start: Some(one_each.clone()),
        proofs: true,
        tabu: false,
        team_cover: false,
        ..Default::default()
    };
    let r = solve_with(&t, &Limits::default(), &opts, &AtomicU64::new(0)).expect("runs");
    assert_eq!(r.answer.verdict(), Verdict::Optimal);
    let count = |name: &str, r: &liquid_sat::SatRun| {
        r.answer.stats.iter().find_map(|(k, v)| match v {
            liquid_model::StatValue::Count(c) if k == name => Some(*c),
            _ => None,
        })
    };
    assert_eq!(count("sat_calls", &r), Some(2));
    assert_eq!(count("proof_runs", &r), Some(1));
    let refutation = r.refutation.expect("a refutation of 2 timeframes");
    assert_eq!(refutation.colours, 2);
    let expected = dimacs(&t, 2, &EncodeOptions::default()).expect("encodes");
    liquid_certify::check_refutation(&expected, 2, &refutation.cnf, &refutation.lrat)
        .expect("the refutation checks");

    // With the tabu search, the start shrinks to 3 = Λ + 1 first, so the one SAT run (k = 2)
    // is the final one and carries the proof itself.
    let opts = SatOptions { tabu: true, ..opts };
    let r = solve_with(&t, &Limits::default(), &opts, &AtomicU64::new(0)).expect("runs");
    assert_eq!(r.answer.verdict(), Verdict::Optimal);
    assert_eq!(count("tabu_length", &r), Some(3));
    assert_eq!(count("sat_calls", &r), Some(1));
    assert_eq!(count("proof_runs", &r), None);
    let refutation = r.refutation.expect("a refutation of 2 timeframes");
    liquid_certify::check_refutation(&expected, 2, &refutation.cnf, &refutation.lrat)
        .expect("the refutation checks");

    // With the team-cover search (the default), k = Λ = 2 is its answer, with its own
    // proof (the five links of the odd cycle have no full team): one varisat run, k = 3.
    let opts = SatOptions {
        tabu: false,
        team_cover: true,
        ..opts
    };
    let r = solve_with(&t, &Limits::default(), &opts, &AtomicU64::new(0)).expect("runs");
    assert_eq!(r.answer.verdict(), Verdict::Optimal);
    assert_eq!(count("sat_calls", &r), Some(1));
    assert_eq!(count("proof_runs", &r), None);
    assert!(r.answer.stats.iter().any(|(k, _)| k == "team_cover"));
    let refutation = r.refutation.expect("a refutation of 2 timeframes");
    liquid_certify::check_refutation(&expected, 2, &refutation.cnf, &refutation.lrat)
        .expect("the team-cover refutation checks");
}
