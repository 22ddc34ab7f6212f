//! Helpers shared by the CLI tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (tests run the binary from there, so paths in output are stable).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `liquid` command, run from the repository root. `LIQUID_TEST_BIN` names another
/// binary to test instead of this build's (an older build, to see which tests fail
/// before a fix: `LIQUID_TEST_BIN=/path/to/old/liquid cargo test --test cli hostile`).
pub fn liquid() -> Command {
    let bin = std::env::var_os("LIQUID_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| insta_cmd::get_cargo_bin("liquid"));
    let mut c = Command::new(bin);
    c.current_dir(root());
    c
}

/// Runs a command that must succeed, showing its stderr when it does not.
pub fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The model files in `models/` (schedule files, `*-schedule.yaml`, excluded), sorted.
pub fn models() -> Vec<String> {
    files_in("models", |name| !name.ends_with("-schedule.yaml"))
}

/// The `.yaml` files of a directory (relative to the root), sorted, filtered by name.
pub fn files_in(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
        .expect("directory exists")
        .map(|e| {
            e.expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".yaml") && keep(n))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    v.sort();
    v
}

/// The file stem, for snapshot names.
pub fn stem(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// `liquid expand MODEL` as (transfer id, links) pairs, in model order, read from the
/// explicit form's one-line flow mappings (quoted scalars unquoted).
pub fn expand(model: &str) -> Vec<(String, Vec<String>)> {
    let out = succeed(liquid().args(["expand", model]));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let unquote = |x: &str| x.trim_matches('"').to_string();
    text.lines()
        .filter_map(|l| l.strip_prefix("  - {id: "))
        .map(|l| {
            let id = unquote(l.split(',').next().expect("id"));
            let path = l
                .split("path: [")
                .nth(1)
                .expect("path")
                .trim_end_matches("]}");
            (id, path.split(", ").map(unquote).collect())
        })
        .collect()
}

/// Insta filters that redact timings (`time_s: 0.0012`, `"time_s": 1e-5`, `12.3 s`).
pub fn timing_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r#"("?time_s"?:\s*)[0-9.eE+-]+"#, "$1[time]"),
        (
            r"\b[0-9]+(\.[0-9]+)?(e-?[0-9]+)? ?(s|ms|µs)\b",
            "[duration]",
        ),
    ]
}

/// Insta filters that redact what an external solver chooses rather than what liquid
/// promises: the schedule a solver (HiGHS, varisat) picked among the optimal ones (tests
/// validate it before snapshotting), and the size and shape of varisat's LRAT proofs (line,
/// byte, step and hint counts). Verdicts, lengths, bounds, witness kinds and our own
/// encoding sizes stay in the snapshot.
pub fn solver_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            r"(?m)^timeframes:\n(?:(?:- |  ).*\n)*",
            "timeframes: [the solver's choice, validated by the test]\n",
        ),
        (
            r"(?m)^(\s*(?:proof_lines|proof_bytes|added|deleted|hints): )[0-9]+$",
            "$1[lrat]",
        ),
        (
            r"proof line [0-9]+: step [0-9]+: hint [0-9]+",
            "proof line [n]: step [n]: hint [n]",
        ),
    ]
}

/// The optimal schedule length of every bundled model, as the model files and the README
/// document them; the conformance suite (`crates/engine/tests/conformance.rs`) recomputes
/// each by brute force from the link sets.
pub const OPTIMA: &[(&str, usize)] = &[
    ("no-team", 3),
    ("odd-cycle", 3),
    ("odd-wheel", 4),
    ("paper-fig1", 6),
    ("paper-fig1-explicit", 6),
    ("paper-fig2", 6),
    ("wheel-team", 4),
];

/// The documented optimum of a bundled model (panics for a model without one: a new
/// bundled model needs its entry in [`OPTIMA`]).
pub fn optimum(model: &str) -> usize {
    let s = stem(model);
    OPTIMA
        .iter()
        .find(|(m, _)| *m == s)
        .unwrap_or_else(|| panic!("{model}: no documented optimum in OPTIMA"))
        .1
}

/// A bundled model's transfers and link sets, read straight from the YAML file with the
/// explicit form's rules (`count: n` gives copies `id#k` with the virtual link `id#k~v` or
/// the k-th of `virtual_links`), without liquid's parser. The network-form
/// `paper-fig1.yaml` is read from `paper-fig1-explicit.yaml`, which holds its link sets
/// (the `expand@paper-fig1` snapshot shows the same ones).
pub fn link_sets(model: &str) -> BTreeMap<String, BTreeSet<String>> {
    #[derive(serde::Deserialize)]
    struct File {
        transfers: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        id: String,
        path: Vec<String>,
        count: Option<usize>,
        virtual_links: Option<Vec<String>>,
    }
    let file = if model == "models/paper-fig1.yaml" {
        "models/paper-fig1-explicit.yaml"
    } else {
        model
    };
    let text = std::fs::read_to_string(root().join(file)).expect("readable model");
    let parsed: File = serde_yaml::from_str(&text).expect("an explicit-form model");
    let mut sets = BTreeMap::new();
    for e in parsed.transfers {
        let path: BTreeSet<String> = e.path.into_iter().collect();
        match e.count {
            None | Some(1) => {
                sets.insert(e.id, path);
            }
            Some(n) => {
                for k in 1..=n {
                    let mut p = path.clone();
                    p.insert(match &e.virtual_links {
                        Some(v) => v[k - 1].clone(),
                        None => format!("{}#{k}~v", e.id),
                    });
                    sets.insert(format!("{}#{k}", e.id), p);
                }
            }
        }
    }
    sets
}

/// Checks a JSON report's `timeframes` against the model's link sets ([`link_sets`]):
/// every transfer exactly once, no two in one timeframe sharing a link. Returns the length.
pub fn check_schedule(model: &str, report: &serde_json::Value) -> usize {
    let sets = link_sets(model);
    let frames: Vec<Vec<String>> =
        serde_json::from_value(report["timeframes"].clone()).expect("a schedule");
    let mut seen = BTreeSet::new();
    for (i, f) in frames.iter().enumerate() {
        for (a, x) in f.iter().enumerate() {
            let px = sets
                .get(x)
                .unwrap_or_else(|| panic!("{model}: unknown {x}"));
            assert!(seen.insert(x.clone()), "{model}: {x} twice");
            for y in &f[a + 1..] {
                assert!(
                    px.is_disjoint(&sets[y]),
                    "{model}: timeframe {i}: {x} and {y} congest"
                );
            }
        }
    }
    assert_eq!(seen.len(), sets.len(), "{model}: transfers missing");
    frames.len()
}

/// Snapshots a command's stdout, stderr and exit code with timings redacted (and, with a
/// third argument, more filters: [`solver_filters`]).
#[macro_export]
macro_rules! snap {
    ($name:expr, $cmd:expr) => {
        $crate::snap!($name, $cmd, Vec::<(&str, &str)>::new())
    };
    ($name:expr, $cmd:expr, $filters:expr) => {{
        let mut settings = insta::Settings::clone_current();
        for (re, rep) in $crate::common::timing_filters().into_iter().chain($filters) {
            settings.add_filter(re, rep);
        }
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| {
            insta_cmd::assert_cmd_snapshot!($name, $cmd);
        });
    }};
}

/// Asserts exit 2, no panic or abort, and a message holding every needle.
pub fn refused(out: &std::process::Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "exit code 2: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    err
}
