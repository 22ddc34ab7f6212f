//! Issue 7 (scale): instances beyond an engine's memory are refused up front, exit 2.
//! Issue 11 §3: a time limit stops every engine, at any size, with a checked answer.

use crate::common::{liquid, succeed};

/// The number that follows `before` in `text` (digits only).
fn number_after(text: &str, before: &str) -> u64 {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} not in {text}"))
        + before.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {before:?} in {text}"))
}

/// The 128-host fat-tree all-to-all with k = Λ = 127 is beyond the SAT encoding's limit:
/// `encode` and `solve --engine sat` say so before allocating it, with exit code 2. The
/// message names the estimated size and the limit (2^26 literals), and the estimate is
/// above the limit: the refusal comes from the size estimate, not from a failed
/// allocation or another error.
#[test]
fn sat_encoding_too_large_is_refused_up_front() {
    for args in [
        vec!["encode", "fat-tree:8,3"],
        vec!["solve", "fat-tree:8,3", "--engine", "sat"],
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("beyond the limit"), "{args:?}: {err}");
        assert!(
            err.contains("too large for the SAT engine"),
            "{args:?}: {err}"
        );
        let estimate = number_after(&err, "would hold about ");
        let limit = number_after(&err, "beyond the limit of ");
        assert_eq!(limit, 1 << 26, "{args:?}: {err}");
        assert!(estimate > limit, "{args:?}: {err}");
    }
}

/// The 250-host fat-tree all-to-all (62,250 transfers, Λ = 249) is beyond the ILP model's
/// limit: `solve --engine ilp` (both modes) and `encode --format lp` refuse it up front,
/// before DSatur even runs, with exit code 2.
#[test]
fn ilp_model_too_large_is_refused_up_front() {
    for args in [
        vec!["solve", "fat-tree:10,3", "--engine", "ilp"],
        vec!["solve", "fat-tree:10,3", "--engine", "ilp", "--decide"],
        vec!["encode", "fat-tree:10,3", "--format", "lp"],
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("too large for the ILP engine"),
            "{args:?}: {err}"
        );
    }
}

/// The 128-host fat-tree all-to-all (16,256 transfers) keeps the native search and the
/// portfolio busy for well over a minute without a limit (measured in the debug profile).
/// With `--time-limit 0.5` each must stop and answer through the gate: `unknown` (or, if
/// it happens to be fast, a liquid or optimal answer), and any schedule it prints must
/// pass `liquid verify`. No wall time is asserted.
#[test]
fn a_half_second_limit_stops_long_searches_with_a_checked_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    for engine in ["native", "portfolio"] {
        let schedule = dir.path().join(format!("{engine}.yaml"));
        let mut cmd = liquid();
        cmd.args(["solve", "fat-tree:8,3", "--engine", engine])
            .args(["--time-limit", "0.5", "--format", "json"]);
        let out = succeed(&mut cmd);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let verdict = report["verdict"].as_str().expect("a verdict");
        assert!(
            ["unknown", "liquid", "optimal"].contains(&verdict),
            "{engine}: {verdict}"
        );
        assert_eq!(report["transfers"], 16256, "{engine}");
        match report["timeframes"].as_array() {
            None => assert_eq!(verdict, "unknown", "{engine}: no schedule"),
            Some(frames) => {
                // Printed: it must be a valid schedule of the whole traffic (JSON is YAML).
                let file = serde_json::json!({ "timeframes": frames });
                std::fs::write(&schedule, file.to_string()).expect("writes");
                succeed(liquid().args(["verify", "fat-tree:8,3"]).arg(&schedule));
            }
        }
    }
}

/// Issue 14: `--engine structured` finds the liquid schedule of a fat-tree all-to-all from
/// the translations of its hosts' labels, detected from the traffic alone: for the spec
/// and for the explicit model file `liquid expand` writes of it, whose transfers name their
/// end points but nothing of the tree. The schedule it prints passes `liquid verify`.
#[test]
fn the_structured_engine_schedules_fat_tree_all_to_alls_from_the_traffic() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("fat-tree-4-3.yaml");
    let expanded = succeed(liquid().args(["expand", "fat-tree:4,3"]));
    std::fs::write(&model, &expanded.stdout).expect("writes");
    let spec = std::path::PathBuf::from("fat-tree:8,3");
    for (input, transfers) in [(&spec, 16256), (&model, 240)] {
        let schedule = dir.path().join("schedule.yaml");
        let mut cmd = liquid();
        cmd.arg("solve")
            .arg(input)
            .args(["--engine", "structured", "--format", "json"]);
        let out = succeed(&mut cmd);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(report["verdict"], "liquid", "{input:?}");
        assert_eq!(report["transfers"], transfers, "{input:?}");
        assert_eq!(report["stats"]["decided_by"], "structure", "{input:?}");
        let group = report["stats"]["structure"].as_str().expect("a group");
        assert!(group.starts_with("digit-wise translations"), "{group}");
        let frames = report["timeframes"].as_array().expect("a schedule");
        let file = serde_json::json!({ "timeframes": frames });
        std::fs::write(&schedule, file.to_string()).expect("writes");
        succeed(liquid().arg("verify").arg(input).arg(&schedule));
    }
}
