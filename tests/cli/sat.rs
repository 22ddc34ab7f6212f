//! Issue 4: the SAT engine, encode, prove and check-proof (with tampered proofs).

use std::path::Path;
use std::process::Command;

use crate::common::{
    check_schedule, liquid, models, optimum, solver_filters, stem, succeed, timing_filters,
};
use crate::snap;

/// Snapshots a command whose output names the temporary directory `dir` (as `[DIR]`), with
/// the sizes of varisat's proofs redacted ([`solver_filters`]).
fn snap_in(name: &str, dir: &Path, cmd: &mut Command) {
    let mut cmd = cmd;
    let mut settings = insta::Settings::clone_current();
    for (re, rep) in timing_filters().into_iter().chain(solver_filters()) {
        settings.add_filter(re, rep);
    }
    settings.add_filter(&regex_escape(&dir.display().to_string()), "[DIR]");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta_cmd::assert_cmd_snapshot!(name, cmd);
    });
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `liquid prove MODEL --prover PROVER --out DIR`, which must succeed; its report.
fn prove_into(model: &str, prover: &str, dir: &Path) -> String {
    let (code, out, err) = run(liquid()
        .args(["prove", model, "--prover", prover, "--out"])
        .arg(dir));
    assert_eq!(code, 0, "{out}{err}");
    out
}

/// SAT's report on every model, its schedule validated here first (which optimal schedule
/// varisat finds is the solver's choice, redacted in the snapshot).
#[test]
fn solve_sat_every_model() {
    for m in models() {
        let out = succeed(liquid().args(["solve", &m, "--engine", "sat", "--format", "json"]));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        check_schedule(&m, &v);
        snap!(
            format!("solve-sat@{}", stem(&m)),
            liquid().args(["solve", &m, "--engine", "sat"]),
            solver_filters()
        );
    }
}

/// SAT finds the documented optimum of every model (recomputed by brute force in the
/// conformance suite), liquid exactly when it is Λ; DSatur, a heuristic, never beats it.
#[test]
fn sat_finds_the_optimum_of_every_model() {
    for m in models() {
        let json = |engine: &str| {
            let (code, out, err) =
                run(liquid().args(["solve", &m, "--engine", engine, "--format", "json"]));
            assert_eq!(code, 0, "{m} {engine}: {err}");
            serde_json::from_str::<serde_json::Value>(&out).expect("JSON")
        };
        let (s, d) = (json("sat"), json("dsatur"));
        let opt = optimum(&m);
        assert_eq!(check_schedule(&m, &s), opt, "{m}: SAT's length");
        assert_eq!(
            s["lower_bound"].as_u64(),
            Some(opt as u64),
            "{m}: SAT's bound"
        );
        let liquid = s["duration"].as_u64() == Some(opt as u64);
        let expected = if liquid { "liquid" } else { "optimal" };
        assert_eq!(s["verdict"], expected, "{m}");
        assert!(
            check_schedule(&m, &d) >= opt,
            "{m}: DSatur beats the optimum"
        );
    }
}

#[test]
fn prove_and_check_no_team() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("no-team-proof");
    snap_in(
        "prove@no-team",
        tmp.path(),
        liquid()
            .args(["prove", "models/no-team.yaml", "--out"])
            .arg(&dir),
    );
    for f in ["formula.cnf", "proof.lrat", "manifest.yaml"] {
        assert!(dir.join(f).is_file(), "{f} written");
    }
    snap_in(
        "check-proof@no-team",
        tmp.path(),
        liquid()
            .args(["check-proof", "models/no-team.yaml"])
            .arg(&dir),
    );
}

/// Both SAT engines write proofs `check-proof` accepts: `sat` (a fresh solver per k) and
/// `sat-incremental` (one solver going down; its formula is `encode --colours k --frames
/// K`, the plain encoding when its first run refuted).
#[test]
fn solve_sat_prove_writes_a_checkable_proof() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for engine in ["sat", "sat-incremental"] {
        for m in ["models/no-team.yaml", "models/odd-wheel.yaml"] {
            let dir = tmp.path().join(engine).join(stem(m));
            let (code, out, err) = run(liquid()
                .args(["solve", m, "--engine", engine, "--prove"])
                .arg(&dir));
            assert_eq!(code, 0, "{err}");
            assert!(out.contains("kind: sat-proof"), "{out}");
            assert!(out.contains("proof_by: engine"), "{out}");
            let (code, out, err) = run(liquid().args(["check-proof", m]).arg(&dir));
            assert_eq!(code, 0, "{out}{err}");
            assert!(out.contains("verified: true"), "{out}");
        }
        // odd-wheel's proof is for 3 timeframes (optimum 4 = Λ + 2).
        let manifest =
            std::fs::read_to_string(tmp.path().join(engine).join("odd-wheel/manifest.yaml"))
                .expect("manifest");
        assert!(manifest.contains("\ncolours: 3\n"), "{manifest}");
    }
}

/// Issue 13's hard colouring core: queen8_8 (Λ = 8, optimum 9). The SAT engine's schedule
/// (from the tabu search) and its proof that 8 timeframes are impossible form a certificate
/// that `certify` accepts from the files alone, for the CNF `encode --colours 8` prints.
#[test]
fn queen8_8_gets_an_optimal_certificate() {
    for engine in ["sat", "sat-incremental"] {
        queen8_8_certificate(engine);
    }
}

fn queen8_8_certificate(engine: &str) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let m = "models/hard/queen8_8.yaml";
    let proof = tmp.path().join("proof");
    let schedule = tmp.path().join("schedule.yaml");
    let (code, out, err) = run(liquid()
        .args(["solve", m, "--engine", engine, "--prove"])
        .arg(&proof)
        .arg("--schedule-out")
        .arg(&schedule));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("verdict: optimal\n"), "{out}");
    assert!(
        out.contains("\nlength: 9\n") && out.contains("kind: sat-proof"),
        "{out}"
    );
    let (code, out, err) = run(liquid()
        .args(["certify", m, "--schedule"])
        .arg(&schedule)
        .arg("--proof")
        .arg(&proof));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("accepted: true"), "{out}");
    assert!(
        out.contains("a schedule of length 9 and a checked proof that 8 timeframes are impossible"),
        "{out}"
    );
    let (code, cnf, err) = run(liquid().args(["encode", m, "--colours", "8"]));
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(proof.join("formula.cnf")).expect("formula");
    assert_eq!(
        cnf, written,
        "the proof's CNF is the model's encoding at k = 8"
    );
}

/// A proof (varisat's) with one literal flipped, with one step deleted, and with the CNF of
/// another model are all rejected with exit code 1 and a reason.
#[test]
fn tampered_proofs_are_rejected() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let good = tmp.path().join("good");
    prove_into("models/no-team.yaml", "sat", &good);
    let lrat = std::fs::read_to_string(good.join("proof.lrat")).expect("proof");
    let copy = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).expect("dir");
        for f in ["formula.cnf", "proof.lrat", "manifest.yaml"] {
            std::fs::copy(good.join(f), d.join(f)).expect("copy");
        }
        d
    };

    // One literal flipped: the first literal of the first added clause.
    let flipped = copy("flipped");
    let mut lines: Vec<String> = lrat.lines().map(str::to_string).collect();
    let mut toks: Vec<String> = lines[0].split(' ').map(str::to_string).collect();
    let lit: i64 = toks[1].parse().expect("a literal");
    assert_ne!(lit, 0, "the first step has a literal");
    toks[1] = (-lit).to_string();
    lines[0] = toks.join(" ");
    std::fs::write(flipped.join("proof.lrat"), lines.join("\n") + "\n").expect("write");

    // One step deleted: the first one.
    let deleted = copy("deleted");
    let rest: Vec<&str> = lrat.lines().skip(1).collect();
    std::fs::write(deleted.join("proof.lrat"), rest.join("\n") + "\n").expect("write");

    // The CNF of another model (same encoding, same k).
    let other = copy("other-cnf");
    let other_proof = tmp.path().join("odd-cycle");
    prove_into("models/odd-cycle.yaml", "sat", &other_proof);
    std::fs::copy(other_proof.join("formula.cnf"), other.join("formula.cnf")).expect("copy");

    for (name, dir, expect) in [
        ("flipped", &flipped, "proof.lrat: proof line 1"),
        ("deleted", &deleted, "names no live clause"),
        ("other-cnf", &other, "formula.cnf is not the encoding"),
    ] {
        let (code, out, err) = run(liquid()
            .args(["check-proof", "models/no-team.yaml"])
            .arg(dir));
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(out.contains("verified: false"), "{name}: {out}");
        assert!(out.contains(expect), "{name}: {out}");
        snap_in(
            &format!("check-proof-rejected@{name}"),
            tmp.path(),
            liquid()
                .args(["check-proof", "models/no-team.yaml"])
                .arg(dir),
        );
    }

    // The right proof for the wrong model: the manifest's traffic hash differs.
    let (code, out, _) = run(liquid()
        .args(["check-proof", "models/odd-cycle.yaml"])
        .arg(&good));
    assert_eq!(code, 1);
    assert!(out.contains("the manifest is for another traffic"), "{out}");
}

/// The default prover on queen8_8 (k = Λ = 8) is the team-cover search: a proof with RAT
/// steps (one new variable per full team) that `check-proof` accepts, and rejects once a
/// definition loses its hint group or the proof loses its empty clause.
#[test]
fn team_cover_proofs_check_and_tampered_ones_are_rejected() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let m = "models/hard/queen8_8.yaml";
    let good = tmp.path().join("good");
    let out = prove_into(m, "auto", &good);
    assert!(out.contains("proof_by: team-cover search"), "{out}");
    let (code, out, err) = run(liquid().args(["check-proof", m]).arg(&good));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("verified: true") && out.contains("  rat: "),
        "{out}"
    );

    let lrat = std::fs::read_to_string(good.join("proof.lrat")).expect("proof");
    let tamper = |name: &str, text: String| {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).expect("dir");
        for f in ["formula.cnf", "manifest.yaml"] {
            std::fs::copy(good.join(f), d.join(f)).expect("copy");
        }
        std::fs::write(d.join("proof.lrat"), text).expect("write");
        d
    };
    // The first definition `¬y ∨ x` (its group `-id` names the definition `y ∨ ¬x…`).
    let at = lrat
        .lines()
        .position(|l| l.contains(" 0 -"))
        .expect("a RAT step with a hint group");
    let no_group: Vec<String> = lrat
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == at {
                let (lits, _) = l.split_once(" 0 ").expect("lits 0 hints 0");
                format!("{lits} 0 0")
            } else {
                l.to_string()
            }
        })
        .collect();
    let no_empty: Vec<&str> = lrat
        .lines()
        .filter(|l| l.split_whitespace().nth(1) != Some("0"))
        .collect();
    for (name, text, expect) in [
        ("no-group", no_group.join("\n") + "\n", "has no hint group"),
        (
            "no-empty",
            no_empty.join("\n") + "\n",
            "never derives the empty clause",
        ),
    ] {
        let dir = tamper(name, text);
        let (code, out, _) = run(liquid().args(["check-proof", m]).arg(&dir));
        assert_eq!(code, 1, "{name}: {out}");
        assert!(out.contains(expect), "{name}: {out}");
    }
}

#[test]
fn prove_a_liquid_traffic_fails_with_exit_1() {
    let tmp = tempfile::tempdir().expect("temp dir");
    snap_in(
        "prove@paper-fig1-satisfiable",
        tmp.path(),
        liquid()
            .args(["prove", "models/paper-fig1.yaml", "--out"])
            .arg(tmp.path().join("p")),
    );
    assert!(!tmp.path().join("p").exists(), "no proof directory");
}

#[test]
fn encode_snapshots() {
    snap!(
        "encode@no-team",
        liquid().args(["encode", "models/no-team.yaml"])
    );
    snap!(
        "encode@odd-cycle-k3",
        liquid().args(["encode", "models/odd-cycle.yaml", "--colours", "3"])
    );
    // The incremental engine's formula: the variables of 4 timeframes, 2 and 3 closed.
    snap!(
        "encode@odd-cycle-k2-frames4",
        liquid().args([
            "encode",
            "models/odd-cycle.yaml",
            "--colours",
            "2",
            "--frames",
            "4"
        ])
    );
}

#[test]
fn bad_sat_arguments_exit_2() {
    let (code, _, err) = run(liquid().args(["encode", "models/no-team.yaml", "--colours", "0"]));
    assert_eq!(code, 2, "{err}");
    for (frames, why) in [
        ("2", "cannot hold a schedule of 3 timeframes"),
        ("5", "--format dimacs"),
    ] {
        let mut cmd = liquid();
        cmd.args([
            "encode",
            "models/no-team.yaml",
            "--colours",
            "3",
            "--frames",
            frames,
        ]);
        if frames == "5" {
            cmd.args(["--format", "lp"]);
        }
        let (code, _, err) = run(&mut cmd);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(why), "{err}");
    }
    let (code, _, err) = run(liquid().args(["solve", "models/no-team.yaml", "--decide"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--decide is a mode of the ilp engine"),
        "{err}"
    );
    let (code, _, err) = run(liquid().args(["check-proof", "models/no-team.yaml", "no/such/dir"]));
    assert_eq!(code, 2, "{err}");
}

/// Issue 13: the native engines write their own proofs. `native` refutes Λ on odd-cycle and
/// `exact` refutes optimum − 1 on odd-wheel with the colouring search's trace (the gate
/// says `proof_by: engine`), `certify` accepts the schedule with the proof, and
/// `prove --prover search` writes a proof `check-proof` accepts, for the very CNF `encode`
/// prints.
#[test]
fn native_engines_write_proofs_that_certify_accepts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let stat = |v: &serde_json::Value, k: &str| v["stats"][k].as_str().map(str::to_string);

    let p = dir.path().join("odd-cycle");
    let out = succeed(
        liquid()
            .args([
                "solve",
                "models/odd-cycle.yaml",
                "--engine",
                "native",
                "--format",
                "json",
                "--prove",
            ])
            .arg(&p),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "non-liquid");
    assert_eq!(v["evidence"], "checked");
    assert_eq!(stat(&v, "proof_by").as_deref(), Some("engine"), "{v}");
    succeed(
        liquid()
            .args(["check-proof", "models/odd-cycle.yaml"])
            .arg(&p),
    );

    let p = dir.path().join("odd-wheel");
    let s = dir.path().join("odd-wheel-schedule.yaml");
    let out = succeed(
        liquid()
            .args([
                "solve",
                "models/odd-wheel.yaml",
                "--engine",
                "exact",
                "--format",
                "json",
                "--prove",
            ])
            .arg(&p)
            .arg("--schedule-out")
            .arg(&s),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "optimal");
    assert_eq!(v["length"], 4);
    assert_eq!(stat(&v, "proof_by").as_deref(), Some("engine"), "{v}");
    let out = succeed(
        liquid()
            .args(["certify", "models/odd-wheel.yaml", "--schedule"])
            .arg(&s)
            .arg("--proof")
            .arg(&p),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("optimal"), "{text}");

    let p = dir.path().join("odd-wheel-search");
    snap_in(
        "prove-search@odd-wheel",
        &p,
        liquid()
            .args([
                "prove",
                "models/odd-wheel.yaml",
                "--colours",
                "3",
                "--prover",
                "search",
                "--out",
            ])
            .arg(&p),
    );
    succeed(
        liquid()
            .args(["check-proof", "models/odd-wheel.yaml"])
            .arg(&p),
    );
    // The same claim from varisat is accepted too; the two proofs differ, the CNF does not.
    let q = dir.path().join("odd-wheel-sat");
    succeed(
        liquid()
            .args(["prove", "models/odd-wheel.yaml", "--colours", "3", "--out"])
            .arg(&q),
    );
    let cnf = |d: &Path| std::fs::read_to_string(d.join("formula.cnf")).expect("a CNF");
    assert_eq!(cnf(&p), cnf(&q));
}

/// What the colouring search cannot refute is the user's to change (exit 2), said plainly.
#[test]
fn prove_by_search_outside_its_range_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (k, says) in [("1", "below the duration"), ("40", "1 to 32 timeframes")] {
        let (code, _, err) = run(liquid()
            .args([
                "prove",
                "models/odd-cycle.yaml",
                "--prover",
                "search",
                "--colours",
                k,
                "--out",
            ])
            .arg(dir.path().join(k)));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// `prove --time-limit`: without a proof by then, the report says `unknown` (exit 1), and
/// no proof directory is claimed.
#[test]
fn prove_honours_the_time_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    for prover in ["sat", "search"] {
        let p = dir.path().join(prover);
        let (code, out, err) = run(liquid()
            .args([
                "prove",
                "models/hard/queen8_8.yaml",
                "--time-limit",
                "0",
                "--format",
                "json",
                "--prover",
                prover,
                "--out",
            ])
            .arg(&p));
        assert_eq!(code, 1, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(v["result"], "unknown", "{v}");
        assert!(v.get("proof").is_none(), "{v}");
    }
}
