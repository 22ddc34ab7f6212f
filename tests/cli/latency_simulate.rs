//! Issue 17: `liquid generate multi-cluster`, the `multi-cluster:` spec and
//! `liquid latency simulate` (tiny runs; timings redacted).

use serde_json::Value;

use crate::common::{liquid, succeed};
use crate::snap;

fn rate_filters() -> Vec<(&'static str, &'static str)> {
    vec![(r#"("?flit_moves_per_s"?:\s*)[0-9.eE+-]+"#, "$1[rate]")]
}

#[test]
fn generate_a_small_multi_cluster_system() {
    snap!(
        "generate@multi-cluster-4-1-2",
        liquid().args(["generate", "multi-cluster", "4,1+2", "--form", "network"])
    );
    snap!(
        "analyze-spec@multi-cluster-4-1-2",
        liquid().args(["analyze", "multi-cluster:4,1+2", "--format", "json"])
    );
}

#[test]
fn a_tiny_simulation_is_deterministic() {
    let args = [
        "latency",
        "simulate",
        "4,1+2",
        "--rate",
        "0.005,0.02",
        "--flits",
        "8",
        "--messages",
        "500",
        "--warmup",
        "50",
        "--drain",
        "50",
        "--replications",
        "2",
        "--per-cluster",
    ];
    snap!(
        "latency-simulate@4-1-2",
        liquid().args(args),
        rate_filters()
    );
    let once = succeed(liquid().args(args).args(["--format", "json"]));
    let twice = succeed(liquid().args(args).args(["--format", "json"]));
    let strip = |o: &std::process::Output| {
        let mut v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        v["time_s"] = Value::Null;
        v["flit_moves_per_s"] = Value::Null;
        v
    };
    assert_eq!(strip(&once), strip(&twice));
    let v = strip(&once);
    // The two replications differ, and every point counted its messages.
    let p = &v["points"][0];
    assert_ne!(p["runs"][0]["latency"], p["runs"][1]["latency"]);
    assert_eq!(p["messages"], 1000);
}

#[test]
fn zero_load_latency_through_the_command() {
    // Two clusters of one 4-port switch: routes of 2 channels (intra) and 6 (inter); at
    // negligible load a message takes (D + M - 1)·t with t = 0.522.
    let out = succeed(liquid().args([
        "latency",
        "simulate",
        "multi-cluster:4,2x1",
        "--rate",
        "1e-8",
        "--flits",
        "4",
        "--messages",
        "300",
        "--warmup",
        "0",
        "--drain",
        "0",
        "--replications",
        "1",
        "--format",
        "json",
    ]));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let p = &v["points"][0];
    let inter = p["inter_cluster"].as_f64().expect("count");
    let expected = ((300.0 - inter) * 5.0 + inter * 9.0) * 0.522 / 300.0;
    let got = p["latency"]["mean"].as_f64().expect("mean");
    assert!((got - expected).abs() < 1e-3, "{got} vs {expected}");
}

#[test]
fn bad_latency_input_is_named() {
    for (name, args) in [
        (
            "bad-ports",
            vec!["latency", "simulate", "5,1", "--rate", "0.1"],
        ),
        (
            "zero-rate",
            vec!["latency", "simulate", "4,1+2", "--rate", "0"],
        ),
        (
            "no-replications",
            vec![
                "latency",
                "simulate",
                "4,1+2",
                "--rate",
                "0.1",
                "--replications",
                "0",
            ],
        ),
        (
            "too-big",
            vec!["latency", "simulate", "4,2x10", "--rate", "0.1"],
        ),
        ("bad-spec", vec!["analyze", "multi-cluster:4"]),
    ] {
        snap!(format!("bad-latency@{name}"), liquid().args(&args));
    }
}

#[test]
fn a_time_limit_stops_the_run() {
    let out = succeed(liquid().args([
        "latency",
        "simulate",
        "8,12x1+16x2+4x3",
        "--rate",
        "1e-4,2e-4",
        "--time-limit",
        "0",
        "--format",
        "json",
    ]));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["stopped"], "time limit");
    assert_eq!(v["points"].as_array().expect("points").len(), 1);
    assert_eq!(v["points"][0]["completed"], false);
    // Said on stderr too, as simulate and teams say it.
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        err.contains("warning: the runs stopped (time limit)") && err.contains("--time-limit"),
        "{err}"
    );
}

/// The run has a limit by default, stated in --help: 100 M messages at a low rate ran
/// without end before, with nothing on stderr.
#[test]
fn the_run_states_its_default_limit() {
    let out = succeed(liquid().args(["latency", "simulate", "--help"]));
    let help = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(help.contains("(default 300 s)"), "{help}");
}

#[test]
fn a_schedule_as_a_plan() {
    // The round-robin schedule of the all-to-all: frame by frame no message waits, all at
    // once they queue; random destinations for comparison. Deterministic.
    snap!(
        "latency-simulate-plan@4-1-2",
        liquid().args([
            "latency",
            "simulate",
            "4,1+2",
            "--engine",
            "round-robin",
            "--flits",
            "8",
        ]),
        rate_filters()
    );
    let out = succeed(liquid().args([
        "latency",
        "simulate",
        "4,2x1",
        "--engine",
        "round-robin",
        "--flits",
        "8",
        "--format",
        "json",
    ]));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let frames = &v["plan"]["runs"][0];
    assert_eq!(frames["mode"], "frames");
    assert_eq!(frames["source_wait"], 0.0);
    assert_eq!(frames["messages"], 56);
}
