//! The DSatur engine under a time limit: `--time-limit 0` stops it before it colours
//! anything, so the answer is `unknown` with Λ as the bound and no schedule.

use crate::common::{liquid, models, stem};
use crate::snap;

#[test]
fn dsatur_time_limit_zero_is_unknown() {
    snap!(
        "solve-dsatur-time-limit-0",
        liquid().args([
            "solve",
            "models/no-team.yaml",
            "--engine",
            "dsatur",
            "--time-limit",
            "0"
        ])
    );
    for m in models() {
        let out = liquid()
            .args(["solve", &m, "--engine", "dsatur", "--time-limit", "0"])
            .args(["--format", "json"])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{}", stem(&m));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(v["verdict"], "unknown", "{m}");
        assert_eq!(v["timeframes"], serde_json::Value::Null, "{m}");
        assert_eq!(v["lower_bound"], v["duration"], "{m}");
    }
}

/// A generous limit changes nothing: the same answer as without one.
#[test]
fn dsatur_generous_time_limit_changes_nothing() {
    for m in models() {
        let run = |extra: &[&str]| {
            let out = liquid()
                .args(["solve", &m, "--engine", "dsatur", "--format", "json"])
                .args(extra)
                .output()
                .expect("runs");
            assert!(out.status.success(), "{m}");
            let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            v["stats"]["time_s"] = serde_json::Value::Null;
            v
        };
        assert_eq!(run(&[]), run(&["--time-limit", "600"]), "{m}");
    }
}
