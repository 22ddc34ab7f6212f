//! Issue 2: analyze, expand and verify on every model, and every input error.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{
    check_schedule, expand, files_in, link_sets, liquid, models, optimum, root, stem, succeed,
};
use crate::snap;

/// The snapshot shows the whole report; independently of it, the counts and Λ agree with
/// the model's link sets read without liquid ([`link_sets`]).
#[test]
fn analyze_every_model() {
    for m in models() {
        let out = succeed(liquid().args(["analyze", &m, "--format", "json"]));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let sets = link_sets(&m);
        let mut load: BTreeMap<&String, usize> = BTreeMap::new();
        for l in sets.values().flatten() {
            *load.entry(l).or_default() += 1;
        }
        assert_eq!(v["transfers"], sets.len(), "{m}");
        assert_eq!(v["links"], load.len(), "{m}");
        assert_eq!(
            v["duration"],
            load.values().max().copied().unwrap_or(0),
            "{m}"
        );
        snap!(
            format!("analyze@{}", stem(&m)),
            liquid().args(["analyze", &m])
        );
    }
}

#[test]
fn analyze_json_has_the_documented_keys() {
    let out = liquid()
        .args(["analyze", "models/paper-fig1.yaml", "--format", "json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["transfers"], 25);
    assert_eq!(v["links"], 12);
    assert_eq!(v["duration"], 6);
    assert_eq!(v["bottlenecks"], serde_json::json!(["l11", "l12"]));
    assert_eq!(v["liquid_throughput"], 416.67);
    assert!(v["conflict_edges"].is_u64());
}

/// A large traffic's report lists at most 32 bottlenecks and the users of the first 4,
/// says how many there are and what it left out; `--all-bottlenecks` lists every one with
/// its users. Independently of liquid's report, the full list is the set of links at Λ in
/// the expansion.
#[test]
fn analyze_lists_a_bounded_sample_of_many_bottlenecks() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["analyze", "fat-tree:8,3", "--format", "json"];
        args.extend_from_slice(extra);
        serde_json::from_slice(&succeed(liquid().args(&args)).stdout).expect("JSON")
    };
    let some = json(&[]);
    let all = json(&["--all-bottlenecks"]);
    let mut load: BTreeMap<String, usize> = BTreeMap::new();
    for (_, path) in expand("fat-tree:8,3") {
        for l in path {
            *load.entry(l).or_default() += 1;
        }
    }
    let lambda = load.values().max().copied().expect("links");
    let at_lambda: BTreeSet<String> = load
        .into_iter()
        .filter(|&(_, n)| n == lambda)
        .map(|(l, _)| l)
        .collect();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .expect("list")
            .iter()
            .map(|x| x.as_str().expect("name").to_string())
            .collect()
    };
    let every = names(&all["bottlenecks"]);
    assert_eq!(every.iter().cloned().collect::<BTreeSet<_>>(), at_lambda);
    assert_eq!(every.len(), 256);
    assert_eq!(all["bottleneck_count"], 256);
    assert_eq!(all["bottleneck_users"].as_array().expect("list").len(), 256);
    assert!(all.get("bottlenecks_note").is_none());
    assert_eq!(names(&some["bottlenecks"]), every[..32]);
    assert_eq!(some["bottleneck_count"], 256);
    let users = some["bottleneck_users"].as_array().expect("list");
    assert_eq!(users.len(), 4);
    assert_eq!(
        users[..],
        all["bottleneck_users"].as_array().expect("list")[..4]
    );
    for u in users {
        assert_eq!(u["users"].as_array().expect("users").len(), lambda);
    }
    let note = some["bottlenecks_note"].as_str().expect("a note");
    assert!(
        note.contains("32 of the 256") && note.contains("--all-bottlenecks"),
        "{note}"
    );
    // A few bottlenecks: every one is listed, and no note.
    let small = serde_json::from_slice::<serde_json::Value>(
        &succeed(liquid().args(["analyze", "models/paper-fig1.yaml", "--format", "json"])).stdout,
    )
    .expect("JSON");
    assert_eq!(small["bottleneck_count"], 2);
    assert_eq!(small["bottleneck_users"].as_array().expect("list").len(), 2);
    assert!(small.get("bottlenecks_note").is_none());
}

/// The snapshot shows the explicit form; independently of it, its link sets are the
/// model's read without liquid.
#[test]
fn expand_every_model() {
    for m in models() {
        let expanded: BTreeMap<String, BTreeSet<String>> = expand(&m)
            .into_iter()
            .map(|(id, p)| (id, p.into_iter().collect()))
            .collect();
        assert_eq!(expanded, link_sets(&m), "{m}");
        snap!(
            format!("expand@{}", stem(&m)),
            liquid().args(["expand", &m])
        );
    }
}

/// The network form of Fig. 1 expands to exactly the 25 link sets printed in the papers
/// (the explicit model transcribes them; read here without liquid), and an expansion reads
/// back as the same traffic.
#[test]
fn network_form_expands_to_the_printed_link_sets() {
    let expanded: BTreeMap<String, BTreeSet<String>> = expand("models/paper-fig1.yaml")
        .into_iter()
        .map(|(id, p)| (id, p.into_iter().collect()))
        .collect();
    assert_eq!(expanded.len(), 25);
    assert_eq!(expanded, link_sets("models/paper-fig1-explicit.yaml"));
    // Round trip: the expansion is itself a model with the same expansion, byte for byte.
    let raw = |m: &str| liquid().args(["expand", m]).output().expect("runs").stdout;
    let net = raw("models/paper-fig1.yaml");
    let dir = tempfile::tempdir().expect("temp dir");
    let f = dir.path().join("expanded.yaml");
    std::fs::write(&f, &net).expect("write");
    assert_eq!(raw(f.to_str().expect("UTF-8 path")), net);
}

/// The snapshot shows the report; independently of it, the schedule file is checked here
/// against the model's link sets: 6 timeframes, every transfer once, none congesting.
#[test]
fn verify_accepts_the_papers_liquid_schedule() {
    #[derive(serde::Deserialize)]
    struct File {
        timeframes: Vec<Vec<String>>,
    }
    let text = std::fs::read_to_string(root().join("models/paper-fig1-liquid-schedule.yaml"))
        .expect("readable");
    let file: File = serde_yaml::from_str(&text).expect("a schedule file");
    let report = serde_json::json!({ "timeframes": file.timeframes });
    assert_eq!(check_schedule("models/paper-fig1.yaml", &report), 6);
    let out = liquid()
        .args([
            "verify",
            "models/paper-fig1.yaml",
            "models/paper-fig1-liquid-schedule.yaml",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    snap!(
        "verify@paper-fig1-liquid",
        liquid().args([
            "verify",
            "models/paper-fig1.yaml",
            "models/paper-fig1-liquid-schedule.yaml"
        ])
    );
}

/// Every fixture is a schedule that is wrong in the way its name says (or, `not-liquid`,
/// valid but longer than Λ); the snapshots show each report. Independently of them: the
/// wrong ones exit non-zero, the valid one exits 0.
#[test]
fn verify_reports_every_schedule_fixture() {
    for s in files_in("tests/fixtures/schedules", |_| true) {
        let out = liquid()
            .args(["verify", "models/paper-fig1.yaml", &s])
            .output()
            .expect("runs");
        assert_eq!(out.status.success(), stem(&s) == "not-liquid", "{s}");
        snap!(
            format!("verify@{}", stem(&s)),
            liquid().args(["verify", "models/paper-fig1.yaml", &s])
        );
    }
}

#[test]
fn every_bad_model_is_a_clear_input_error() {
    for m in files_in("tests/fixtures/bad", |_| true) {
        let out = liquid().args(["analyze", &m]).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{m}: exit code 2 for bad input");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("error: {m}")),
            "{m}: the message names the file: {err}"
        );
        assert!(!err.contains("panicked"), "{m}: no panic");
        snap!(format!("bad@{}", stem(&m)), liquid().args(["analyze", &m]));
    }
}

#[test]
fn a_missing_file_is_an_input_error() {
    let out = liquid()
        .args(["analyze", "models/does-not-exist.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: models/does-not-exist.yaml"),
        "{err}"
    );
    snap!(
        "bad@missing-file",
        liquid().args(["analyze", "models/does-not-exist.yaml"])
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = liquid().args(["analyze"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// The snapshots show DSatur's reports; independently of them, each schedule is checked
/// against the model's link sets and is no shorter than the documented optimum.
#[test]
fn solve_dsatur_on_every_model() {
    for m in models() {
        let out = succeed(liquid().args(["solve", &m, "--engine", "dsatur", "--format", "json"]));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert!(check_schedule(&m, &v) >= optimum(&m), "{m}");
        snap!(
            format!("solve-dsatur@{}", stem(&m)),
            liquid().args(["solve", &m, "--engine", "dsatur"])
        );
    }
}
