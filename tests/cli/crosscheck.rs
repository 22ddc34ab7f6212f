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

/// The snapshot shows the report; independently of it, the engines agree (exit 0).
#[test]
fn crosscheck_yaml_report() {
    let out = liquid()
        .args([
            "crosscheck",
            "models/no-team.yaml",
            "models/paper-fig1.yaml",
            "--format",
            "yaml",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
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
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("is in no timeframe"), "{text}");
    assert!(!text.contains("all engines agree"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("crosscheck: contradiction (exit 3)"), "{err}");
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
    assert_eq!(out.status.code(), Some(3));
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

/// The snapshot shows the report; independently of it, the exit code is a rejected
/// schedule's (1: the user's schedule is wrong, no engine is), said on stderr, and the
/// report names the schedule file.
#[test]
fn an_invalid_schedule_file_is_rejected() {
    let out = liquid()
        .args([
            "crosscheck",
            "models/paper-fig1.yaml",
            "tests/fixtures/schedules/conflict.yaml",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("conflict.yaml"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("crosscheck: schedule rejected (exit 1)"),
        "{err}"
    );
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

/// A small seeded traffic in the explicit form (2 to 8 transfers over 2 to 6 links, paths
/// of 1 to 3 links, no two with the same link set).
fn random_small_yaml(seed: u64) -> String {
    use liquid_model::examples::{random_paths, Draws, RandomShape};
    let mut draws = Draws::new(seed);
    let transfers = 2 + draws.below(7) as usize;
    let links = 2 + draws.below(5) as usize;
    let shape = RandomShape {
        transfers,
        links,
        path: (1, links.min(3)),
        distinct: true,
    };
    let paths = random_paths(&mut draws, &shape);
    let t = liquid_model::Traffic::from_paths(&format!("random-{seed}"), &paths).expect("valid");
    liquid_model::yaml::write_explicit(&t)
}

/// Every engine `solve` offers that accepts these traffics (all but round-robin, which
/// takes all-to-alls only; repair refuses only traffics whose links × Λ far exceed their
/// size, which these small ones never do), read from the registry, run by `crosscheck`
/// side by side on seeded random traffics: no two contradict (each engine's answers are
/// judged on their own by the conformance suite, `crates/engine/tests/conformance.rs`).
#[test]
fn no_two_engines_contradict_on_random_traffics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut files = Vec::new();
    for seed in 100..120u64 {
        let file = dir.path().join(format!("random-{seed}.yaml"));
        std::fs::write(&file, random_small_yaml(seed)).expect("write");
        files.push(file.to_str().expect("UTF-8 path").to_string());
    }
    let engines: Vec<&str> = liquid_engine::visible()
        .filter(|e| e.accepts_every_traffic() || e.name() == "repair")
        .map(|e| e.name())
        .collect();
    assert_eq!(
        engines.len() + 2,
        liquid_engine::visible().count(),
        "only round-robin and closed-form (all-to-alls, generated machines' only) are left out"
    );
    let engines = engines.join(",");
    let out = liquid()
        .args(["crosscheck", "--engines", &engines, "--format", "json"])
        .args(&files)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The runs happened: one answer per engine and model.
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = v.to_string();
    for e in engines.split(',') {
        assert!(
            text.contains(&format!("\"{e}\"")),
            "{e} did not run: {text}"
        );
    }
}

/// An engine that declines a model (sat and ilp past their encoding's size, round-robin
/// on a traffic without senders) is its documented limit, not a failure: its row says
/// `declined` with the reason, and the run exits 0 while another engine checked the
/// model. When every engine declined a model, nothing about it was checked: exit 1,
/// `unchecked`.
#[test]
fn an_engine_that_declines_a_model_is_not_a_failure() {
    let out = liquid()
        .args(["crosscheck", "torus:8x8,2", "models/no-team.yaml"])
        .args([
            "--engines",
            "dsatur,sat,ilp,round-robin",
            "--format",
            "json",
        ])
        .args(["--time-limit", "2"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let status = |m: usize, engine: &str| {
        let row = r["models"][m]["engines"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|row| row["engine"] == engine)
            .expect("row")
            .clone();
        (row["status"].as_str().expect("status").to_string(), row)
    };
    for (m, engine, want) in [
        (0, "dsatur", "ok"),
        (0, "sat", "declined"),
        (0, "ilp", "declined"),
        (0, "round-robin", "ok"),
        (1, "dsatur", "ok"),
        (1, "round-robin", "declined"),
    ] {
        let (got, row) = status(m, engine);
        assert_eq!(got, want, "{engine} on model {m}: {row}");
        if want == "declined" {
            assert!(
                row["problem"].as_str().is_some_and(|p| !p.is_empty()),
                "{row}"
            );
        }
    }
    assert!(status(0, "sat").1["problem"]
        .as_str()
        .expect("reason")
        .contains("too large for the SAT engine"));

    let out = liquid()
        .args(["crosscheck", "torus:8x8,2", "--engines", "sat,ilp"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("crosscheck: unchecked (exit 1)")
            && err.contains("1 model checked by no engine: every engine declined it"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("    declined: torus-8x8-k2"));
}

/// Round-robin splits each phase into its fewest timeframes, an exact colouring that ran
/// past 20 minutes on a phase of `torus:8x8,2` whatever the limit: the limit now stops it
/// inside a phase too (`unknown`, no schedule, the phases coloured before it).
#[test]
fn round_robin_stops_at_the_time_limit_inside_a_phase() {
    let out = liquid()
        .args(["solve", "torus:8x8,2", "--engine", "round-robin"])
        .args(["--time-limit", "1", "--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["verdict"], "unknown", "{r}");
    assert!(r["length"].is_null(), "{r}");
    let (done, phases) = (&r["stats"]["phases_coloured"], &r["stats"]["phases"]);
    assert_eq!(phases, 127, "{r}");
    assert!(done.as_u64().expect("count") < 127, "{r}");
}
