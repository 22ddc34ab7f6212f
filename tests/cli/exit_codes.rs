//! Exit codes by one rule, per command family (docs/src/reference/exit-codes.md): 0 the
//! answer holds; 1 the answer is negative or the input schedule is rejected; 2 the input
//! cannot be read; 3 an internal fault.

use std::path::Path;

use crate::common::liquid;

/// Runs liquid with these arguments: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = liquid().args(args).output().expect("runs");
    (
        out.status.code().expect("an exit code, not a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("UTF-8").to_string()
}

/// paper-fig1's liquid schedule, with a misspelt name (T1->R9), a transfer given twice
/// (T2->R2), a conflict (T1->R5 and T2->R1 moved in with others) and T5->R3 left out.
const MANY_PROBLEMS: &str = "model: paper-fig1
timeframes:
  - [T1->R9, T2->R2, T3->R3, T4->R1, T5->R5]
  - [T1->R5, T2->R1, T4->R2, T5->R4, T2->R2]
";

#[test]
fn verify_and_certify_reject_a_schedule_with_every_problem_listed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = write(dir.path(), "bad.yaml", MANY_PROBLEMS);
    let (code, out, err) = run(&["verify", "models/paper-fig1.yaml", &bad]);
    assert_eq!(code, 1, "{out}{err}");
    for problem in [
        "bad.yaml:3:6: timeframes[0][0]: transfer \"T1->R9\" is not in model \"paper-fig1\"",
        "transfer \"T2->R2\" appears in timeframes[0] and timeframes[1]",
        "is in no timeframe",
    ] {
        assert!(out.contains(problem), "{problem}: {out}");
    }
    assert!(out.contains("problems:"), "{out}");

    // A misspelt name alone, and a transfer given twice alone: both rejected (1).
    for (name, text) in [
        (
            "misspelt.yaml",
            std::fs::read_to_string("models/paper-fig1-liquid-schedule.yaml")
                .expect("schedule")
                .replacen("T1->R4", "T1->R44", 1),
        ),
        (
            "twice.yaml",
            "model: paper-fig1\ntimeframes:\n  - [T1->R1]\n  - [T1->R1]\n".to_string(),
        ),
    ] {
        let f = write(dir.path(), name, &text);
        let (code, out, err) = run(&["verify", "models/paper-fig1.yaml", &f]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        let (code, out, err) = run(&["certify", "models/paper-fig1.yaml", "--schedule", &f]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(out.contains("rejected: the schedule is invalid"), "{out}");
    }

    // Past 20 problems the rest are counted: 25 names of no transfer.
    let names: Vec<String> = (0..25).map(|i| format!("nope{i}")).collect();
    let many = format!(
        "model: paper-fig1\ntimeframes:\n  - [{}]\n",
        names.join(", ")
    );
    let f = write(dir.path(), "many.yaml", &many);
    let (code, out, err) = run(&["verify", "models/paper-fig1.yaml", &f, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let problems = v["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 21, "{out}");
    // 25 unknown names and the 25 transfers of paper-fig1 missing: 50 problems.
    assert_eq!(problems[20], "and 30 more", "{out}");

    // What cannot be read as a schedule at all: 2.
    let f = write(dir.path(), "not-a-schedule.yaml", "timeframes: 3\n");
    let (code, _, err) = run(&["verify", "models/paper-fig1.yaml", &f]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["verify", "models/paper-fig1.yaml", "no/such/file.yaml"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn verify_prove_exits_1_on_a_schedule_shown_not_optimal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("p");
    let p = proof.to_str().expect("UTF-8");
    // Valid, 7 timeframes, where 6 (Λ) suffice.
    let schedule = "tests/fixtures/schedules/not-liquid.yaml";
    let (code, out, err) = run(&["verify", "models/paper-fig1.yaml", schedule]);
    assert_eq!(code, 0, "valid: {out}{err}");
    let (code, out, err) = run(&["verify", "models/paper-fig1.yaml", schedule, "--prove", p]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("not optimal"), "{out}");
    assert!(err.contains("not optimal"), "{err}");
    // no-team's 3-frame schedule is optimal (Λ = 2): proven, 0.
    let s = write(
        dir.path(),
        "s.yaml",
        "model: no-team\ntimeframes:\n  - [x]\n  - [y]\n  - [z]\n",
    );
    let proof = dir.path().join("q");
    let p = proof.to_str().expect("UTF-8");
    let (code, out, err) = run(&["verify", "models/no-team.yaml", &s, "--prove", p]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("optimal: proven"), "{out}");
}

#[test]
fn prove_and_check_proof_exit_1_on_a_negative_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("p");
    let p = proof.to_str().expect("UTF-8");
    // paper-fig1 is liquid: Λ timeframes suffice, there is nothing to prove.
    let (code, _, err) = run(&["prove", "models/paper-fig1.yaml", "--out", p]);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = run(&["prove", "models/no-team.yaml", "--out", p]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&["check-proof", "models/no-team.yaml", p]);
    assert_eq!(code, 0, "{err}");
    // The proof of another traffic: rejected, 1.
    let (code, _, err) = run(&["check-proof", "models/odd-cycle.yaml", p]);
    assert_eq!(code, 1, "{err}");
    // No proof there at all: cannot be read, 2.
    let missing = dir.path().join("none");
    let (code, _, err) = run(&[
        "check-proof",
        "models/no-team.yaml",
        missing.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn unreadable_input_and_bad_arguments_exit_2_for_every_command_that_reads_a_model() {
    for args in [
        &["analyze", "no/such.yaml"][..],
        &["solve", "no/such.yaml"],
        &["teams", "no/such.yaml"],
        &["expand", "no/such.yaml"],
        &["encode", "no/such.yaml"],
        &["explain", "no/such.yaml"],
        &["crosscheck", "no/such.yaml"],
        &["certify", "no/such.yaml", "--schedule", "x.yaml"],
        &["prove", "no/such.yaml", "--out", "/nonexistent/p"],
        &["simulate", "no/such.yaml"],
        &["solve", "models/no-team.yaml", "--engine", "no-such-engine"],
        &["solve", "models/no-team.yaml", "--time-limit", "soon"],
        &["generate", "model", "fat-tree:0,0"],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
}

#[test]
fn solve_exits_0_with_an_answer_and_3_on_a_wrong_one() {
    let (code, _, err) = run(&["solve", "models/no-team.yaml"]);
    assert_eq!(code, 0, "{err}");
    // An engine whose answer fails validation: an internal fault.
    let (code, out, err) = run(&[
        "solve",
        "models/paper-fig1.yaml",
        "--engine",
        "test-drop-transfer",
    ]);
    assert_eq!(code, 3, "{out}{err}");
}

/// `explain --proof DIR` writes the core's checked proof and the core itself, which
/// `check-proof` and `certify` accept; a liquid traffic has no core: nothing written,
/// exit 1. `--proof-out` is the old spelling, still taken.
#[test]
fn explain_writes_the_core_s_proof_that_check_proof_and_certify_accept() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (flag, name) in [("--proof", "p"), ("--proof-out", "q")] {
        let proof = dir.path().join(name);
        let p = proof.to_str().expect("UTF-8");
        let (code, out, err) = run(&["explain", "models/odd-wheel.yaml", flag, p]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(&format!("proof_dir: {p}")), "{out}");
        for f in ["formula.cnf", "proof.lrat", "manifest.yaml", "core.yaml"] {
            assert!(proof.join(f).is_file(), "{f}");
        }
        let core = proof.join("core.yaml");
        let c = core.to_str().expect("UTF-8");
        let (code, out, err) = run(&["check-proof", c, p]);
        assert_eq!(code, 0, "{out}{err}");
        let (code, out, err) = run(&["certify", c, "--proof", p]);
        assert_eq!(code, 0, "{out}{err}");
        // The core's proof is not a proof about the whole model.
        let (code, _, _) = run(&["check-proof", "models/odd-wheel.yaml", p]);
        assert_eq!(code, 1);
    }
    // Written again into the same directory: replaced.
    let p = dir.path().join("p");
    let (code, _, err) = run(&[
        "explain",
        "models/odd-wheel.yaml",
        "--proof",
        p.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    // A liquid traffic: no core, no proof.
    let none = dir.path().join("none");
    let (code, out, err) = run(&[
        "explain",
        "models/paper-fig1.yaml",
        "--proof",
        none.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no proof written"), "{err}");
    assert!(!none.exists());
    // Several models: one proof directory cannot hold them.
    let (code, _, err) = run(&[
        "explain",
        "models/odd-wheel.yaml",
        "models/odd-cycle.yaml",
        "--proof",
        none.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, 2, "{err}");
}

/// A negative number given to an option reaches the option's own check, which names the
/// option and why (exit 2), not clap's "unexpected argument '-1'".
#[test]
fn a_negative_value_is_refused_by_its_options_check() {
    for (args, want) in [
        (
            &["solve", "fat-tree:4,3", "--time-limit", "-1"][..],
            "\"-1\" is not a usable number of seconds",
        ),
        (
            &["simulate", "fat-tree:4,3", "--link-throughput", "-5"][..],
            "--link-throughput -5: give a positive bandwidth",
        ),
        (
            &[
                "generate",
                "sizes",
                "fat-tree:4,3",
                "--dist",
                "zipf",
                "--zipf-s",
                "-1",
                "--bytes-per-rank",
                "1KiB",
            ][..],
            "zipf exponent -1: give a finite s >= 0",
        ),
        (
            &[
                "latency",
                "model",
                "8,12x1+16x2+4x3",
                "--points",
                "3",
                "--flit-bytes",
                "-1",
            ][..],
            "--flit-bytes: -1 is not a positive number",
        ),
        (
            &["latency", "model", "8,12x1+16x2+4x3", "--rate", "-0.5"][..],
            "--rate: -0.5 is not a number ≥ 0",
        ),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
    // A positional argument is not a value: `-1` there is still an unknown option.
    let (code, _, err) = run(&["analyze", "-1"]);
    assert_eq!(code, 2, "{err}");
}

/// A misspelt generator is named, with the closest one, in every command that takes a
/// model (exit 2), not "cannot read: No such file or directory".
#[test]
fn a_misspelt_generator_is_named_with_the_closest_one() {
    for cmd in ["solve", "analyze", "simulate", "crosscheck", "explain"] {
        let (code, _, err) = run(&[cmd, "fattree:4,3"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("\"fattree\" is not a generator: did you mean fat-tree:4,3?"),
            "{cmd}: {err}"
        );
        // A generator's name without its parameters says what is missing.
        let (code, _, err) = run(&[cmd, "fat-tree"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("\"fat-tree\" names a generator without its parameters"),
            "{cmd}: {err}"
        );
    }
    let (code, _, err) = run(&["solve", "no-such-dir/model.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read"), "{err}");
}

/// `solve --seed` with an engine that draws nothing at random is refused (exit 2), naming
/// the engines that take a seed: the seed would otherwise be dropped without a word. The
/// seeded engines and the default take it; `--stream` has no seed to take.
#[test]
fn a_seed_for_an_engine_without_chance_is_refused() {
    for engine in ["dsatur", "exact", "round-robin", "structured"] {
        let (code, _, err) = run(&["solve", "fat-tree:4,3", "--engine", engine, "--seed", "5"]);
        assert_eq!(code, 2, "{engine}: {err}");
        assert!(
            err.contains(&format!(
                "--seed: the {engine} engine draws nothing at random"
            )) && err.contains("native, repair, sat, sat-incremental, portfolio, random"),
            "{engine}: {err}"
        );
    }
    for args in [
        &["solve", "fat-tree:4,3", "--seed", "5"][..],
        &["solve", "fat-tree:4,3", "--engine", "random", "--seed", "5"][..],
        &["solve", "fat-tree:4,3", "--engine", "dsatur"][..],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    let (code, _, err) = run(&["solve", "fat-tree:4,3", "--stream", "--seed", "5"]);
    assert_eq!(code, 2, "{err}");
    // simulate and the exports: the same rule, and an MPI library's plan draws nothing.
    let sim = ["simulate", "fat-tree:4,3", "--link-throughput", "1000"];
    for (extra, want) in [
        (
            &["--engine", "dsatur"][..],
            "--seed: the dsatur engine draws nothing at random",
        ),
        (&["--plan", "pairwise"][..], "give no --seed"),
    ] {
        let args: Vec<&str> = sim
            .iter()
            .chain(extra)
            .chain(&["--seed", "5"])
            .copied()
            .collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let args: Vec<&str> = sim.iter().chain(&["--seed", "5"]).copied().collect();
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
}

/// `--node-limit` with an engine that counts no nodes, with `--stream`, with a schedule
/// file or with an MPI library's plan is refused (exit 2), naming the engines it bounds:
/// it would otherwise be dropped without a word.
#[test]
fn a_node_limit_that_bounds_nothing_is_refused() {
    for engine in ["dsatur", "round-robin", "random", "sat"] {
        let (code, _, err) = run(&[
            "solve",
            "fat-tree:4,3",
            "--engine",
            engine,
            "--node-limit",
            "5",
        ]);
        assert_eq!(code, 2, "{engine}: {err}");
        assert!(
            err.contains(&format!(
                "--node-limit: the {engine} engine counts no nodes"
            )) && err.contains("native, structured, repair, exact, ilp, portfolio"),
            "{engine}: {err}"
        );
    }
    for args in [
        &["solve", "fat-tree:4,3", "--node-limit", "5"][..],
        &[
            "solve",
            "fat-tree:4,3",
            "--engine",
            "exact",
            "--node-limit",
            "5",
        ][..],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    let sim = ["simulate", "fat-tree:4,3", "--link-throughput", "1000"];
    for (extra, want) in [
        (
            &["solve", "fat-tree:4,3", "--stream"][..],
            "--stream takes no --node-limit",
        ),
        (&[][..], ""),
        (
            &["--engine", "dsatur"][..],
            "the dsatur engine counts no nodes",
        ),
        (&["--plan", "pairwise"][..], "give no --node-limit"),
        (
            &["--schedule", "models/paper-fig1-liquid-schedule.yaml"][..],
            "--schedule runs no engine: give no --node-limit",
        ),
    ] {
        let base: &[&str] = if extra.first() == Some(&"solve") {
            &[]
        } else {
            &sim
        };
        let args: Vec<&str> = base
            .iter()
            .chain(extra)
            .chain(&["--node-limit", "5"])
            .copied()
            .collect();
        let (code, _, err) = run(&args);
        if want.is_empty() {
            assert_eq!(code, 0, "{args:?}: {err}");
        } else {
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(err.contains(want), "{args:?}: {err}");
        }
    }
}

/// `crosscheck` runs each engine once, and takes `--node-limit` only when an engine of
/// the run counts nodes: an engine named twice, or a limit no engine takes, is refused.
#[test]
fn crosscheck_refuses_an_engine_twice_and_a_node_limit_no_engine_takes() {
    let (code, _, err) = run(&[
        "crosscheck",
        "models/no-team.yaml",
        "--engines",
        "sat,dsatur,sat",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--engines names sat twice"), "{err}");
    let (code, _, err) = run(&[
        "crosscheck",
        "models/no-team.yaml",
        "--engines",
        "dsatur,sat",
        "--node-limit",
        "5",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--node-limit: no engine of --engines dsatur,sat counts nodes"),
        "{err}"
    );
    for engines in ["dsatur,native", "sat,exact"] {
        let (code, _, err) = run(&[
            "crosscheck",
            "models/no-team.yaml",
            "--engines",
            engines,
            "--node-limit",
            "1000",
        ]);
        assert_eq!(code, 0, "{engines}: {err}");
    }
}

/// `verify --time-limit` bounds the proof (`--proof`) and the streamed check (`--stream`),
/// `certify --time-limit` the proof's check; given alone it would bound nothing, so it is
/// refused (exit 2), not dropped.
#[test]
fn verify_refuses_a_time_limit_that_bounds_nothing() {
    let (model, schedule) = (
        "models/paper-fig1.yaml",
        "models/paper-fig1-liquid-schedule.yaml",
    );
    let (code, _, err) = run(&["verify", model, "--schedule", schedule, "--time-limit", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--time-limit goes with --proof or --stream"),
        "{err}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("p");
    let proof = proof.to_str().expect("UTF-8");
    let args = [
        "verify",
        model,
        "--schedule",
        schedule,
        "--proof",
        proof,
        "--time-limit",
        "5",
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&[
        "certify",
        model,
        "--schedule",
        schedule,
        "--time-limit",
        "5",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--proof"), "{err}");
}
