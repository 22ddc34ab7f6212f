//! Issue 31: `--stream` for solve, verify and analyze: a user's commands end to end, and
//! the streaming validator's exit codes and messages.

use crate::common::{liquid, succeed};

/// `solve --stream` writes the compact file, `verify --stream` accepts it (exit 0), and
/// the YAML form written by the same command is a schedule the in-memory `verify` accepts.
#[test]
fn solve_stream_then_verify_stream_and_yaml() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let frames = dir.path().join("s.frames");
    let out = succeed(
        liquid()
            .args(["solve", "fat-tree:8,3", "--stream", "--schedule-out"])
            .arg(&frames)
            .args(["--format", "json"]),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["verdict"], "liquid");
    assert_eq!(report["frames_made"], 127);
    assert_eq!(report["validation"]["loads_match_closed_form"], true);
    let out = succeed(
        liquid()
            .args(["verify", "fat-tree:8,3"])
            .arg(&frames)
            .args(["--stream", "--format", "json"]),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["valid"], true);
    assert_eq!(report["report"]["liquid"], true);
    let yaml = dir.path().join("s.yaml");
    succeed(
        liquid()
            .args(["solve", "fat-tree:4,3", "--stream", "--schedule-out"])
            .arg(&yaml),
    );
    let out = succeed(liquid().args(["verify", "fat-tree:4,3"]).arg(&yaml));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("liquid: true"), "{text}");
}

/// A schedule with a frame missing is rejected with exit 1, naming a missing transfer;
/// a file for another model and a YAML file are bad input (exit 2).
#[test]
fn verify_stream_rejects_and_refuses() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let prefix = dir.path().join("p.frames");
    succeed(
        liquid()
            .args([
                "solve",
                "fat-tree:4,3",
                "--stream",
                "--prefix",
                "14",
                "--schedule-out",
            ])
            .arg(&prefix),
    );
    let out = liquid()
        .args(["verify", "fat-tree:4,3"])
        .arg(&prefix)
        .arg("--stream")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("is in no timeframe"), "{text}");
    // As a prefix it is valid.
    succeed(
        liquid()
            .args(["verify", "fat-tree:4,3"])
            .arg(&prefix)
            .args(["--stream", "--prefix", "14"]),
    );
    let out = liquid()
        .args(["verify", "fat-tree:4,2"])
        .arg(&prefix)
        .arg("--stream")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not for \"fat-tree-4-2\""));
    let out = liquid()
        .args([
            "verify",
            "fat-tree:4,3",
            "models/paper-fig1.yaml",
            "--stream",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = liquid()
        .args(["analyze", "ring:4,1", "--stream"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// `analyze --stream` accepts 65,536 hosts and reports the closed forms.
#[test]
fn analyze_stream_at_65536_hosts() {
    let out = succeed(liquid().args(["analyze", "fat-tree:64,3", "--stream", "--format", "json"]));
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(a["hosts"], 65_536);
    assert_eq!(a["transfers"], 4_294_901_760u64);
    assert_eq!(a["duration"], 65_535);
    assert_eq!(a["bottleneck_links"], 131_072);
}
