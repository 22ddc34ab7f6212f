//! Issue 6: crosscheck agrees on the bundled models and catches deliberately wrong engines.

use crate::common::liquid;
use crate::snap;

/// The bundled models, schedule file included (it is checked against its model).
fn all_model_files() -> Vec<String> {
    crate::common::files_in("models", |_| true)
}

#[test]
fn crosscheck_of_every_model_agrees() {
    let files = all_model_files();
    let out = liquid()
        .arg("crosscheck")
        .args(&files)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    snap!("crosscheck@models", liquid().arg("crosscheck").args(&files));
}

#[test]
fn crosscheck_yaml_report() {
    snap!(
        "crosscheck@yaml",
        liquid().args([
            "crosscheck",
            "models/no-team.yaml",
            "models/paper-fig1.yaml",
            "--format",
            "yaml"
        ])
    );
}

#[test]
fn an_engine_that_drops_a_transfer_is_a_contradiction() {
    let out = liquid()
        .args([
            "crosscheck",
            "models/paper-fig1.yaml",
            "--engines",
            "dsatur,test-drop-transfer",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("is in no timeframe"), "{text}");
    snap!(
        "crosscheck@drop-transfer",
        liquid().args([
            "crosscheck",
            "models/paper-fig1.yaml",
            "--engines",
            "dsatur,test-drop-transfer"
        ])
    );
}

#[test]
fn a_false_non_liquid_claim_is_a_contradiction() {
    let out = liquid()
        .args([
            "crosscheck",
            "models/paper-fig1.yaml",
            "--engines",
            "dsatur,test-false-non-liquid",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(4));
    snap!(
        "crosscheck@false-non-liquid",
        liquid().args([
            "crosscheck",
            "models/paper-fig1.yaml",
            "--engines",
            "dsatur,test-false-non-liquid",
            "--format",
            "json"
        ])
    );
}

#[test]
fn an_invalid_schedule_file_is_a_contradiction() {
    snap!(
        "crosscheck@invalid-schedule",
        liquid().args([
            "crosscheck",
            "models/paper-fig1.yaml",
            "tests/fixtures/schedules/conflict.yaml"
        ])
    );
}

#[test]
fn a_schedule_without_its_model_is_an_input_error() {
    let out = liquid()
        .args([
            "crosscheck",
            "models/no-team.yaml",
            "models/paper-fig1-liquid-schedule.yaml",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn solve_refuses_a_wrong_engine_answer() {
    let out = liquid()
        .args([
            "solve",
            "models/paper-fig1.yaml",
            "--engine",
            "test-drop-transfer",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3));
    assert!(
        out.stdout.is_empty(),
        "a wrong answer is never printed as a result"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("internal error"));
}
