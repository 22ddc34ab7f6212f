//! Issue 6: certify checks certificates from files alone; verify --prove settles optimality.

use crate::common::{liquid, succeed};
use crate::snap;

#[test]
fn certify_accepts_the_papers_liquid_schedule() {
    snap!(
        "certify@paper-fig1-liquid",
        liquid().args([
            "certify",
            "models/paper-fig1.yaml",
            "--schedule",
            "models/paper-fig1-liquid-schedule.yaml"
        ])
    );
}

#[test]
fn certify_rejects_a_tampered_schedule() {
    for s in ["conflict", "missing", "duplicated"] {
        let file = format!("tests/fixtures/schedules/{s}.yaml");
        let out = liquid()
            .args(["certify", "models/paper-fig1.yaml", "--schedule", &file])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{s}");
        snap!(
            format!("certify@rejects-{s}"),
            liquid().args(["certify", "models/paper-fig1.yaml", "--schedule", &file])
        );
    }
}

#[test]
fn certify_says_what_a_valid_non_liquid_schedule_proves() {
    snap!(
        "certify@not-liquid",
        liquid().args([
            "certify",
            "models/paper-fig1.yaml",
            "--schedule",
            "tests/fixtures/schedules/not-liquid.yaml"
        ])
    );
}

#[test]
fn certify_accepts_a_proof_for_no_team_and_rejects_a_tampered_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("proof");
    let p = proof.to_str().expect("UTF-8 path");
    succeed(liquid().args(["prove", "models/no-team.yaml", "--out", p]));
    let out = liquid()
        .args(["certify", "models/no-team.yaml", "--proof", p])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not liquid: a checked proof that 2 timeframes do not suffice"),
        "{text}"
    );

    // Optimal: a schedule of 3 with the proof that 2 do not suffice.
    let sched = dir.path().join("s.yaml");
    std::fs::write(
        &sched,
        "model: no-team\ntimeframes:\n  - [x]\n  - [\"y\"]\n  - [z]\n",
    )
    .expect("write");
    let out = liquid()
        .args([
            "certify",
            "models/no-team.yaml",
            "--proof",
            p,
            "--schedule",
            sched.to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("optimal: a schedule of length 3"));

    // One deleted proof step: rejected.
    let lrat = proof.join("proof.lrat");
    let text = std::fs::read_to_string(&lrat).expect("proof");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(0);
    std::fs::write(&lrat, lines.join("\n") + "\n").expect("write");
    let out = liquid()
        .args(["certify", "models/no-team.yaml", "--proof", p])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("rejected: the proof is invalid"));

    // A proof of another model: rejected.
    let out = liquid()
        .args(["certify", "models/odd-cycle.yaml", "--proof", p])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn certify_needs_a_certificate() {
    let out = liquid()
        .args(["certify", "models/no-team.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn verify_prove_finds_a_shorter_schedule_or_writes_a_proof() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The 7-timeframe round-robin schedule of paper-fig1 is not optimal.
    let d1 = dir.path().join("rr");
    let out = liquid()
        .args([
            "verify",
            "models/paper-fig1.yaml",
            "tests/fixtures/schedules/not-liquid.yaml",
            "--prove",
            d1.to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runs");
    // Shown not optimal: a negative answer (exit 1), the shorter schedule written.
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("not optimal: a valid schedule of 6 timeframes exists"));
    let shorter = d1.join("shorter-schedule.yaml");
    let out = liquid()
        .args([
            "verify",
            "models/paper-fig1.yaml",
            shorter.to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&out.stdout).contains("liquid: true"));

    // A 4-timeframe schedule of odd-wheel (Λ = 2) is optimal, and the proof checks.
    let sched = dir.path().join("ow.yaml");
    let out = liquid()
        .args([
            "solve",
            "models/odd-wheel.yaml",
            "--engine",
            "exact",
            "--schedule-out",
            sched.to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let d2 = dir.path().join("ow-proof");
    let out = liquid()
        .args([
            "verify",
            "models/odd-wheel.yaml",
            sched.to_str().expect("UTF-8"),
            "--prove",
            d2.to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("optimal: proven (checked proof) that 3 timeframes do not suffice"));
    let out = liquid()
        .args([
            "check-proof",
            "models/odd-wheel.yaml",
            d2.to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
}
