//! Issue 5: the ILP engine (`solve --engine ilp [--decide]`) and the LP export
//! (`encode --format lp`).

use crate::common::{check_schedule, liquid, models, optimum, solver_filters, stem, succeed};
use crate::snap;

/// The ILP engine finds the documented optimum of every model, with a schedule that holds
/// against the model's link sets; the snapshot freezes the report but not which optimal
/// schedule HiGHS picked.
#[test]
fn ilp_solves_every_model() {
    for m in models() {
        let out = succeed(liquid().args(["solve", &m, "--engine", "ilp", "--format", "json"]));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(check_schedule(&m, &v), optimum(&m), "{m}");
        snap!(
            format!("solve-ilp@{}", stem(&m)),
            liquid().args(["solve", &m, "--engine", "ilp"]),
            solver_filters()
        );
    }
}

/// Dual bound = objective = schedule length on every bundled model HiGHS is run on, and the
/// verdict is proven (liquid or optimal): the ILP engine settles all of them. HiGHS is not
/// run when DSatur's starting schedule already has Λ timeframes (then `liquid`, said in the
/// `stopped` stat); it runs on every model that is not liquid.
#[test]
fn ilp_dual_bound_meets_the_objective_on_every_model() {
    let mut highs_runs = 0;
    for m in models() {
        let out = liquid()
            .args(["solve", &m, "--engine", "ilp", "--format", "json"])
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{m}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let length = v["length"].as_u64().expect("a schedule");
        if v["stats"]["stopped"] == "starting schedule meets the bound" {
            assert_eq!(v["verdict"], "liquid", "{m}");
            assert_eq!(v["duration"].as_u64(), Some(length), "{m}");
            continue;
        }
        highs_runs += 1;
        assert_eq!(v["stats"]["objective"].as_u64(), Some(length), "{m}");
        let bound = v["stats"]["dual_bound"].as_f64().expect("a dual bound");
        assert!((bound - length as f64).abs() < 1e-6, "{m}: bound {bound}");
        assert_eq!(v["stats"]["gap"].as_f64(), Some(0.0), "{m}");
        assert_eq!(v["lower_bound"].as_u64(), Some(length), "{m}");
        let verdict = v["verdict"].as_str().expect("verdict");
        let expected = if length == v["duration"].as_u64().expect("duration") {
            "liquid"
        } else {
            "optimal"
        };
        assert_eq!(verdict, expected, "{m}");
    }
    // no-team, odd-cycle, odd-wheel and wheel-team are not liquid: HiGHS proves them.
    assert!(highs_runs >= 4, "HiGHS ran on {highs_runs} models");
}

#[test]
fn ilp_no_team_is_optimal_at_three_by_dual_bound() {
    let out = liquid()
        .args([
            "solve",
            "models/no-team.yaml",
            "--engine",
            "ilp",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "optimal");
    assert_eq!(v["length"], 3);
    assert_eq!(v["lower_bound_witness"]["kind"], "dual-bound");
}

#[test]
fn ilp_decide() {
    snap!(
        "solve-ilp-decide@no-team",
        liquid().args([
            "solve",
            "models/no-team.yaml",
            "--engine",
            "ilp",
            "--decide"
        ])
    );
    let m = "models/paper-fig1.yaml";
    let out = succeed(liquid().args([
        "solve", m, "--engine", "ilp", "--decide", "--format", "json",
    ]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "liquid");
    assert_eq!(check_schedule(m, &v), 6);
    snap!(
        "solve-ilp-decide@paper-fig1",
        liquid().args(["solve", m, "--engine", "ilp", "--decide"]),
        solver_filters()
    );
}

#[test]
fn decide_needs_the_ilp_engine() {
    snap!(
        "solve-decide-dsatur",
        liquid().args([
            "solve",
            "models/no-team.yaml",
            "--engine",
            "dsatur",
            "--decide"
        ])
    );
}

#[test]
fn encode_lp() {
    snap!(
        "encode-lp@paper-fig1",
        liquid().args(["encode", "models/paper-fig1.yaml", "--format", "lp"])
    );
    snap!(
        "encode-lp-colours@no-team",
        liquid().args([
            "encode",
            "models/no-team.yaml",
            "--format",
            "lp",
            "--colours",
            "4"
        ])
    );
}

#[test]
fn encode_lp_rejects_fewer_colours_than_the_duration() {
    snap!(
        "encode-lp-too-few-colours",
        liquid().args([
            "encode",
            "models/no-team.yaml",
            "--format",
            "lp",
            "--colours",
            "1"
        ])
    );
}
