//! Trust: the set-up detects what the build really loads; a proof is called a proof only
//! after the checker accepted it; every engine's optimal answer can come with a
//! certificate that `certify` accepts; `--require-proof` reports how strong the evidence
//! is.

use std::process::Command;

use serde_json::Value;

use crate::common::{liquid, root};

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(liquid().args(args).args(["--format", "json"]));
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, v)
}

/// `scripts/setup --check` on library directories made for the purpose: bindgen loads
/// `libclang.so`, `libclang-N.so` or `libclang.so.N`; `libclang-cpp.so.N` (what Debian's
/// LLVM runtime ships) is another library and must not count.
#[test]
fn setup_detects_libclang_as_bindgen_loads_it() {
    let check = |files: &[&str]| {
        let dir = tempfile::tempdir().expect("temp dir");
        for f in files {
            std::fs::write(dir.path().join(f), b"").expect("file");
        }
        let out = Command::new("bash")
            .arg(root().join("scripts/setup"))
            .arg("--check")
            .env("LIQUID_SETUP_LIBDIRS", dir.path())
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let cpp_only = check(&["libclang-cpp.so.14"]);
    assert!(cpp_only.contains("libclang-dev"), "{cpp_only}");
    for good in [
        "libclang.so.1",
        "libclang-14.so",
        "libclang.so",
        "libclang-14.so.1",
    ] {
        let out = check(&["libclang-cpp.so.14", good]);
        assert!(!out.contains("libclang-dev"), "{good}: {out}");
    }
    let empty = check(&[]);
    assert!(empty.contains("libclang-dev"), "{empty}");
}

/// Without proofs an exhaustive search is the engine's word; asked for checked evidence,
/// the gate refutes the bound with SAT and checks the refutation before it says so.
#[test]
fn require_proof_upgrades_an_engine_s_word_to_a_checked_proof() {
    let (code, v) = json(&["solve", "models/wheel-team.yaml", "--engine", "native"]);
    assert_eq!(code, 0);
    assert_eq!(v["verdict"], "non-liquid");
    assert_eq!(v["evidence"], "exhaustive-search");
    assert_eq!(v["certified"], false);
    let (code, v) = json(&[
        "solve",
        "models/wheel-team.yaml",
        "--engine",
        "native",
        "--require-proof",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["lower_bound_witness"]["kind"], "sat-proof");
    assert_eq!(v["evidence"], "checked");
    assert_eq!(v["certified"], true);
    // A MIP dual bound likewise.
    let (code, v) = json(&[
        "solve",
        "models/odd-wheel.yaml",
        "--engine",
        "ilp",
        "--require-proof",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        (v["verdict"].as_str(), v["length"].as_u64()),
        (Some("optimal"), Some(4))
    );
    assert_eq!(v["evidence"], "checked");
}

/// A false claim meets the certification: SAT finds a schedule below the claimed bound,
/// and the answer is refused as wrong (exit 3), not reported.
#[test]
fn a_false_non_liquid_claim_is_caught_by_certification() {
    let (code, out, err) = run(liquid().args([
        "solve",
        "models/paper-fig1.yaml",
        "--engine",
        "test-false-non-liquid",
        "--require-proof",
    ]));
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("found a valid schedule of 6"), "{err}");
    assert!(out.is_empty(), "nothing reported: {out}");
}

/// Every engine that answers `optimal` can hand over a certificate (the schedule and a
/// proof directory) that `certify` accepts from the files alone.
#[test]
fn every_optimal_answer_comes_with_a_certificate_certify_accepts() {
    for model in [
        "models/no-team.yaml",
        "models/odd-wheel.yaml",
        "models/wheel-team.yaml",
    ] {
        for engine in ["exact", "sat", "ilp", "portfolio"] {
            let dir = tempfile::tempdir().expect("temp dir");
            let schedule = dir.path().join("schedule.yaml");
            let proof = dir.path().join("proof");
            let (code, v) = json(&[
                "solve",
                model,
                "--engine",
                engine,
                "--prove",
                proof.to_str().expect("UTF-8"),
                "--schedule-out",
                schedule.to_str().expect("UTF-8"),
            ]);
            assert_eq!(code, 0, "{model} {engine}: {v}");
            assert_eq!(v["verdict"], "optimal", "{model} {engine}");
            assert_eq!(v["lower_bound_witness"]["kind"], "sat-proof");
            assert_eq!(v["certified"], true);
            let (code, c) = json(&[
                "certify",
                model,
                "--schedule",
                schedule.to_str().expect("UTF-8"),
                "--proof",
                proof.to_str().expect("UTF-8"),
            ]);
            assert_eq!(code, 0, "{model} {engine}: {c}");
            assert!(
                c["statement"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("optimal: a schedule of length")),
                "{model} {engine}: {c}"
            );
        }
    }
}

/// The native engine proves non-liquidity; with `--proof` the directory it leaves behind
/// is a proof `check-proof` and `certify` accept.
#[test]
fn a_native_non_liquid_answer_leaves_a_checkable_proof() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("proof");
    let p = proof.to_str().expect("UTF-8");
    let (code, v) = json(&[
        "solve",
        "models/odd-cycle.yaml",
        "--engine",
        "native",
        "--proof",
        p,
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["verdict"], "non-liquid");
    assert_eq!(v["lower_bound_witness"]["proof"], p);
    let (code, c) = json(&["check-proof", "models/odd-cycle.yaml", "--proof", p]);
    assert_eq!((code, &c["verified"]), (0, &Value::Bool(true)), "{c}");
    let (code, c) = json(&["certify", "models/odd-cycle.yaml", "--proof", p]);
    assert_eq!(code, 0, "{c}");
    assert!(
        c["statement"]
            .as_str()
            .is_some_and(|s| s.starts_with("not liquid")),
        "{c}"
    );
}

/// A proof directory whose manifest says something untrue is rejected, even though the
/// formula and the proof themselves check.
#[test]
fn a_manifest_that_lies_is_rejected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("proof");
    let p = proof.to_str().expect("UTF-8");
    let (code, _) = json(&["prove", "models/no-team.yaml", "--out", p]);
    assert_eq!(code, 0);
    let manifest = proof.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    std::fs::write(&manifest, text.replace("duration: 2", "duration: 5")).expect("edit");
    let (code, c) = json(&["check-proof", "models/no-team.yaml", p]);
    assert_eq!(code, 1, "{c}");
    assert!(
        c["reason"]
            .as_str()
            .is_some_and(|r| r.contains("duration says 5, but it is 2")),
        "{c}"
    );
}

/// `explain` names a minimal non-liquid core of every non-liquid bundled model, with its
/// structure, a checked proof, and for each core transfer a schedule of the rest.
#[test]
fn explain_finds_minimal_cores_with_their_certificates() {
    for (model, size, structure) in [
        ("models/no-team.yaml", 3, "clique"),
        ("models/odd-cycle.yaml", 5, "odd-cycle"),
        ("models/odd-wheel.yaml", 3, "clique"),
        ("models/wheel-team.yaml", 6, "odd-wheel"),
    ] {
        let (code, v) = json(&["explain", model]);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["liquid"], false, "{model}");
        let core = &v["cores"][0];
        assert_eq!(core["size"], size, "{model}: {v}");
        assert_eq!(core["structure"], structure, "{model}");
        assert_eq!(core["proof"]["checked"], true);
        let d = v["duration"].as_u64().expect("Λ");
        assert_eq!(core["proof"]["colours"].as_u64(), Some(d));
        let without = core["without_one"].as_array().expect("list");
        assert_eq!(without.len(), size, "{model}");
        for w in without {
            // Λ frames holding every core transfer but the removed one.
            let frames = w["timeframes"].as_array().expect("frames");
            assert!(frames.len() as u64 <= d, "{model}: {w}");
            let held: usize = frames
                .iter()
                .map(|f| f.as_array().map_or(0, Vec::len))
                .sum();
            assert_eq!(held, size - 1, "{model}: {w}");
        }
    }
    let (code, v) = json(&["explain", "models/paper-fig1.yaml"]);
    assert_eq!((code, &v["liquid"]), (0, &Value::Bool(true)), "{v}");
}

/// `explain` has a default time limit, stated in `--help` and in the report; a core it
/// minimised says so.
#[test]
fn explain_has_a_default_time_limit() {
    let (code, v) = json(&["explain", "models/wheel-team.yaml"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["time_limit_s"].as_f64(), Some(60.0), "{v}");
    assert_eq!(v["stopped"], false);
    assert_eq!(v["cores"][0]["minimal"], true);
    let (code, help, _) = run(liquid().args(["explain", "--help"]));
    assert_eq!(code, 0);
    assert!(help.contains("(default 60)"), "{help}");
    let (code, v) = json(&["explain", "models/wheel-team.yaml", "--time-limit", "2.5"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["time_limit_s"].as_f64(), Some(2.5), "{v}");
}

/// `crosscheck` states its default per-engine limit in `--help`.
#[test]
fn crosscheck_states_its_default_limit() {
    let (code, help, _) = run(liquid().args(["crosscheck", "--help"]));
    assert_eq!(code, 0);
    assert!(help.contains("60 s by default"), "{help}");
}

/// A time limit stops `explain` without an error: the report says so.
#[test]
fn explain_stopped_by_its_time_limit_says_so() {
    let (code, v) = json(&["explain", "models/odd-wheel.yaml", "--time-limit", "0"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["stopped"], true);
    assert_eq!(v["liquid"], Value::Null);
    assert_eq!(v["cores"].as_array().map(Vec::len), Some(0));
}

/// A traffic too large for the SAT encoding of a question the colouring search leaves
/// open is `undecided`, not an error: the report says why, and the run goes on to the
/// next model (before, `torus:8x8,2` ended the whole run with exit 2 and a suggestion to
/// use another engine).
#[test]
fn explain_too_large_for_sat_is_undecided_not_an_error() {
    let args = [
        "explain",
        "torus:8x8,2",
        "models/odd-cycle.yaml",
        "--time-limit",
        "10",
    ];
    let (code, v) = json(&args);
    assert_eq!(code, 0, "{v}");
    let (big, small) = (&v[0], &v[1]);
    assert_eq!(big["liquid"], Value::Null, "{big}");
    assert_eq!(big["stopped"], false, "{big}");
    assert!(
        big["undecided"]
            .as_str()
            .is_some_and(|u| u.contains("320 timeframes") && u.contains("beyond the limit")),
        "{big}"
    );
    assert!(
        big["explanation"]
            .as_str()
            .is_some_and(|e| e.starts_with("undecided: no core was found")),
        "{big}"
    );
    assert_eq!(small["liquid"], false, "{small}");
    assert!(small.get("undecided").is_none(), "{small}");
}

/// The spellings before one spelling per meaning (issue 42) still work, hidden, for one
/// release: `solve --prove`, `prove --out`, `check-proof MODEL DIR`, `verify MODEL
/// SCHEDULE`, `verify --prove`; and they give what the new spellings give.
#[test]
fn old_spellings_are_hidden_aliases() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = |name: &str| dir.path().join(name).to_str().expect("UTF-8").to_string();
    let (code, v) = json(&["solve", "models/odd-cycle.yaml", "--prove", &d("a")]);
    assert_eq!(
        (code, &v["lower_bound_witness"]["kind"]),
        (0, &Value::from("sat-proof")),
        "{v}"
    );
    let (code, v) = json(&["prove", "models/odd-cycle.yaml", "--out", &d("b")]);
    assert_eq!(
        (code, &v["result"]),
        (0, &Value::from("unsatisfiable")),
        "{v}"
    );
    for p in [d("a"), d("b")] {
        let (code, c) = json(&["check-proof", "models/odd-cycle.yaml", &p]);
        assert_eq!((code, &c["verified"]), (0, &Value::Bool(true)), "{c}");
    }
    let s = "models/paper-fig1-liquid-schedule.yaml";
    let (code, old) = json(&["verify", "models/paper-fig1.yaml", s]);
    let (_, new) = json(&["verify", "models/paper-fig1.yaml", "--schedule", s]);
    assert_eq!((code, &old), (0, &new));
    // Hidden: --help lists only the new spellings.
    for (cmd, old) in [
        ("solve", "--prove"),
        ("prove", "--out"),
        ("verify", "--prove"),
    ] {
        let out = liquid().args([cmd, "--help"]).output().expect("runs");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--proof <DIR>"), "{cmd}: {help}");
        assert!(!help.contains(old), "{cmd} --help shows {old}");
    }
}
