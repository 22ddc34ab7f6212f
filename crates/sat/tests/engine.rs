//! The SAT engine on small traffics, with its proofs checked by liquid-certify.

use liquid_model::examples::no_team;
use liquid_model::{check_outcome, Limits, Traffic, Verdict, Witness};
use liquid_sat::{prove, solve, solve_with, EncodeOptions, Proved, SatOptions};

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
fn no_team_is_optimal_at_three_with_a_checked_proof() {
    let t = no_team();
    let o = solve(&t, &Limits::default());
    check_outcome(&t, &o).expect("outcome passes the gate");
    assert_eq!(o.verdict, Verdict::Optimal);
    assert_eq!(o.lower_bound.value, 3);
    assert!(matches!(o.lower_bound.witness, Witness::Unsat { .. }));
    let Some(Proved::Unsat(p)) = prove(&t, 2, &EncodeOptions::default(), None).expect("runs")
    else {
        panic!("no-team is not 2-colourable");
    };
    let r = liquid_certify::check_texts(&p.cnf, &p.lrat).expect("proof checks");
    assert!(r.added >= 1);
}

#[test]
fn c5_is_optimal_at_three_and_the_proof_checks() {
    let t = c5();
    let dir = std::env::temp_dir().join(format!("liquid-sat-c5-{}", std::process::id()));
    let opts = SatOptions {
        prove_dir: Some(dir.clone()),
        ..Default::default()
    };
    let o = solve_with(&t, &Limits::default(), &opts).expect("runs");
    check_outcome(&t, &o).expect("outcome passes the gate");
    assert_eq!(o.verdict, Verdict::Optimal);
    assert_eq!(o.schedule.as_ref().map(|s| s.len()), Some(3));
    assert!(matches!(o.lower_bound.witness, Witness::SatProof { .. }));
    let cnf = std::fs::read_to_string(dir.join("formula.cnf")).expect("cnf written");
    let lrat = std::fs::read_to_string(dir.join("proof.lrat")).expect("proof written");
    liquid_certify::check_texts(&cnf, &lrat).expect("proof checks");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn satisfiable_k_gives_no_proof() {
    let t = c5();
    assert!(matches!(
        prove(&t, 3, &EncodeOptions::default(), None).expect("runs"),
        Some(Proved::Sat)
    ));
}

#[test]
fn k_below_duration_is_refuted_by_propagation() {
    let t = c5();
    let Some(Proved::Unsat(p)) = prove(&t, 1, &EncodeOptions::default(), None).expect("runs")
    else {
        panic!("one timeframe cannot hold congesting transfers");
    };
    liquid_certify::check_texts(&p.cnf, &p.lrat).expect("proof checks");
}

#[test]
fn a_zero_time_limit_still_gives_a_checked_answer() {
    let t = c5();
    let limits = Limits {
        time: Some(std::time::Duration::ZERO),
        nodes: None,
    };
    let o = solve(&t, &limits);
    check_outcome(&t, &o).expect("outcome passes the gate");
    // Either varisat answered before the (immediate) deadline or DSatur's schedule stands.
    assert!(
        matches!(o.verdict, Verdict::Feasible | Verdict::Optimal),
        "{:?}",
        o.verdict
    );
}
