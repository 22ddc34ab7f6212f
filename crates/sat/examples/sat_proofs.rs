//! The SAT engine's certified optima, measured: before and after the tabu start and the
//! final-run-only LRAT writer, hard colouring cores, and proof sizes with checking times.
//!
//! ```text
//! bash scripts/sat-proofs            # just sat-proofs: writes benchmarks/results/sat-proofs.md
//! cargo run --release -p liquid-sat --example sat_proofs -- [--out FILE] [--limit S] MODEL|DIR...
//! ```
//!
//! For every model (files, or the `.yaml` files of a directory; schedule files skipped):
//!
//! - **before**: the engine as it was: DSatur's schedule, then k = Λ, Λ + 1, … with a fresh
//!   varisat per k, every run with the LRAT writer attached (`liquid_sat::prove`);
//! - **after**: `liquid_sat::solve_with` with proofs: the tabu search shortens DSatur's
//!   schedule down to Λ + 1 before SAT starts, and only the run whose "unsatisfiable"
//!   would be the final bound carries the LRAT writer;
//! - **incremental**: the same with `SatOptions::incremental` (`sat-incremental`): one
//!   varisat going down from one below the best schedule's length, the proof captured in
//!   the run that refutes; also both engines without the tabu start, where there are
//!   several lengths to go through;
//!
//! both followed by `liquid-certify` checking the refutation against a fresh encoding
//! (what `--prove DIR` does, less the file I/O). Then, per refutation: its size, the
//! checking time of `liquid-certify`, and the verdict of an external checker when one is
//! found: `rate` (crates.io, a DRAT checker; the LRAT proof is given to it as DRAT, its
//! clauses in the same order without the hints) from `$LIQUID_RATE` or the `PATH`, and
//! drat-trim's `lrat-check` (the LRAT proof as it is, hints and all) from
//! `$LIQUID_LRAT_CHECK` or the `PATH`.
//! For the hard cores, the satisfiable k = optimum is also solved alone by varisat with
//! other encoding options and by `cadical` when it is on the `PATH`. Last, every claim SAT
//! refuted is refuted again by the native colouring search
//! (`liquid_sat::prove_by_search`), with the same size, time and checker columns.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use liquid_model::{Limits, Outcome, StatValue, Traffic};
use liquid_sat::{
    decide, dimacs, prove, solve_with, AmoEncoding, EncodeOptions, Proved, Refutation, SatOptions,
};

/// One engine run, measured.
struct Measured {
    verdict: String,
    length: Option<usize>,
    bound: usize,
    calls: u64,
    seconds: f64,
    check_seconds: Option<f64>,
    refutation: Option<Box<Refutation>>,
}

fn count(stats: &[(String, StatValue)], name: &str) -> u64 {
    stats
        .iter()
        .find_map(|(k, v)| match v {
            StatValue::Count(c) if k == name => Some(*c),
            _ => None,
        })
        .unwrap_or(0)
}

/// Checks a refutation as `liquid-proof` does: the CNF is the model's encoding, byte for
/// byte, and the LRAT proof refutes it. Returns the checking time.
fn check(t: &Traffic, r: &Refutation) -> f64 {
    let start = Instant::now();
    let expected = dimacs(t, r.colours, &r.options).expect("encodes");
    liquid_certify::check_refutation(&expected, r.colours, &r.cnf, &r.lrat).unwrap_or_else(|e| {
        panic!(
            "{}: the refutation of {} is rejected: {e}",
            t.name(),
            r.colours
        )
    });
    start.elapsed().as_secs_f64()
}

/// The engine before this change: DSatur, then every k from Λ with the LRAT writer.
fn before(t: &Traffic, limit: Duration) -> Measured {
    let start = Instant::now();
    let deadline = Some(start + limit);
    let lam = t.duration();
    let mut best = liquid_search::dsatur::colour(t).to_schedule();
    let mut bound = lam;
    let mut calls = 0;
    let mut refutation = None;
    let mut verdict = None;
    let mut k = lam;
    while k < best.len().max(lam + 1) {
        calls += 1;
        match prove(t, k, &EncodeOptions::default(), deadline).expect("encodes") {
            Some(Proved::Sat(s)) => {
                best = s;
                break;
            }
            Some(Proved::Unsat(r)) => {
                bound = k + 1;
                refutation = Some(r);
            }
            None => {
                verdict = Some("timeout".to_string());
                break;
            }
        }
        k += 1;
    }
    let refutation = refutation.filter(|r| r.colours + 1 == bound && bound > lam);
    let check_seconds = refutation.as_ref().map(|r| check(t, r));
    let verdict = verdict.unwrap_or_else(|| {
        if best.len() == lam {
            "liquid".to_string()
        } else if best.len() == bound {
            "optimal".to_string()
        } else {
            "non-liquid".to_string()
        }
    });
    Measured {
        verdict,
        length: Some(best.len()),
        bound,
        calls,
        seconds: start.elapsed().as_secs_f64(),
        check_seconds,
        refutation,
    }
}

/// The engine now, with proofs.
fn after(t: &Traffic, limit: Duration) -> Measured {
    engine(t, limit, false, true, true)
}

/// The engine: `sat` (a fresh solver per k, going up) or `sat-incremental` (one solver
/// going down), with or without the tabu start, with or without proofs.
fn engine(t: &Traffic, limit: Duration, incremental: bool, tabu: bool, proofs: bool) -> Measured {
    let start = Instant::now();
    let opts = SatOptions {
        proofs,
        incremental,
        tabu,
        ..Default::default()
    };
    let limits = Limits {
        time: Some(limit),
        nodes: None,
    };
    let r = solve_with(t, &limits, &opts, &AtomicU64::new(0)).expect("runs");
    let o = &r.answer.outcome;
    let bound = o.lower_bound(t).value;
    let refutation = r.refutation.filter(|x| x.colours + 1 == bound);
    let check_seconds = refutation.as_ref().map(|x| check(t, x));
    let verdict = match o {
        Outcome::Unknown { .. } => "timeout".to_string(),
        o => o.verdict().as_str().to_string(),
    };
    Measured {
        verdict,
        length: o.schedule().map(|s| s.len()),
        bound,
        calls: count(&r.answer.stats, "sat_calls") + count(&r.answer.stats, "proof_runs"),
        seconds: start.elapsed().as_secs_f64(),
        check_seconds,
        refutation,
    }
}

/// A refutation of the engine now, with what the proofs tables report of its run.
type Kept = (String, Traffic, Box<Refutation>, f64, f64);

/// Keeps the run's refutation, if it has one, for the proofs tables.
fn keep_refutation(kept: &mut Vec<Kept>, name: &str, t: &Traffic, a: Measured) {
    if let Some(r) = a.refutation {
        kept.push((
            name.to_string(),
            t.clone(),
            r,
            a.seconds,
            a.check_seconds.unwrap_or(0.0),
        ));
    }
}

/// The LRAT proof as DRAT: the same clauses in the same order, deletions by literals.
fn lrat_to_drat(cnf: &str, lrat: &str) -> String {
    let parsed = liquid_certify::parse_dimacs(cnf).expect("the CNF parses");
    let mut clauses: std::collections::HashMap<u64, Vec<i32>> = parsed
        .clauses
        .into_iter()
        .enumerate()
        .map(|(i, c)| (i as u64 + 1, c))
        .collect();
    let mut out = String::with_capacity(lrat.len());
    for line in lrat.lines() {
        let mut tokens = line.split_whitespace();
        let Some(id) = tokens.next() else { continue };
        if id.starts_with('c') {
            continue;
        }
        let rest: Vec<&str> = tokens.collect();
        if rest.first() == Some(&"d") {
            for id in rest[1..].iter().take_while(|&&x| x != "0") {
                let id: u64 = id.parse().expect("an id");
                if let Some(c) = clauses.remove(&id) {
                    out.push('d');
                    for l in c {
                        let _ = write!(out, " {l}");
                    }
                    out.push_str(" 0\n");
                }
            }
            continue;
        }
        let id: u64 = id.parse().expect("an id");
        let lits: Vec<i32> = rest
            .iter()
            .take_while(|&&x| x != "0")
            .map(|x| x.parse().expect("a literal"))
            .collect();
        for l in &lits {
            let _ = write!(out, "{l} ");
        }
        out.push_str("0\n");
        clauses.insert(id, lits);
    }
    out
}

/// drat-trim's LRAT checker's verdict on a refutation, hints and all: (verdict, seconds),
/// or `None` without the checker.
fn lrat_check(checker: Option<&Path>, r: &Refutation, dir: &Path) -> Option<(String, f64)> {
    let checker = checker?;
    let cnf = dir.join("formula.cnf");
    let lrat = dir.join("proof.lrat");
    std::fs::write(&cnf, &r.cnf).expect("writes");
    std::fs::write(&lrat, &r.lrat).expect("writes");
    let start = Instant::now();
    let out = Command::new(checker).arg(&cnf).arg(&lrat).output().ok()?;
    let seconds = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let verdict = if text.lines().any(|l| l.trim() == "c VERIFIED") {
        "VERIFIED".to_string()
    } else {
        text.lines()
            .find(|l| l.starts_with("c FAILED"))
            .map(|l| l.trim_start_matches("c ").to_string())
            .unwrap_or_else(|| format!("no verdict (exit {:?})", out.status.code()))
    };
    Some((verdict, seconds))
}

/// The external checker's verdict on a refutation: (verdict, seconds), or `None` without
/// one.
fn external(rate: Option<&Path>, r: &Refutation, dir: &Path) -> Option<(String, f64)> {
    let rate = rate?;
    let cnf = dir.join("formula.cnf");
    let drat = dir.join("proof.drat");
    std::fs::write(&cnf, &r.cnf).expect("writes");
    std::fs::write(&drat, lrat_to_drat(&r.cnf, &r.lrat)).expect("writes");
    let start = Instant::now();
    let out = Command::new(rate).arg(&cnf).arg(&drat).output().ok()?;
    let seconds = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let verdict = text
        .lines()
        .find(|l| l.starts_with("s "))
        .map(|l| l.trim_start_matches("s ").to_string())
        .unwrap_or_else(|| format!("no verdict (exit {:?})", out.status.code()));
    Some((verdict, seconds))
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    })
}

fn load(args: &[String]) -> Vec<(String, Traffic)> {
    let mut files = Vec::new();
    for a in args {
        let p = PathBuf::from(a);
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(&p)
                .expect("a directory")
                .map(|e| e.expect("an entry").path())
                .filter(|f| {
                    let n = f.to_string_lossy();
                    n.ends_with(".yaml") && !n.ends_with("-schedule.yaml")
                })
                .collect();
            v.sort();
            files.extend(v);
        } else {
            files.push(p);
        }
    }
    files
        .iter()
        .map(|f| {
            let t = liquid_model::yaml::load_model(f)
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let stem = f.file_stem().map_or_else(
                || t.name().to_string(),
                |s| s.to_string_lossy().into_owned(),
            );
            (stem, t)
        })
        .collect()
}

fn secs(s: f64) -> String {
    format!("{s:.3}")
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut out_file = None;
    let mut limit = Duration::from_secs(60);
    while let Some(i) = args.iter().position(|a| a == "--out" || a == "--limit") {
        let value = args.get(i + 1).cloned().expect("a value after the option");
        if args[i] == "--out" {
            out_file = Some(PathBuf::from(value));
        } else {
            limit = Duration::from_secs_f64(value.parse().expect("seconds"));
        }
        args.drain(i..i + 2);
    }
    let rate = std::env::var_os("LIQUID_RATE")
        .map(PathBuf::from)
        .or_else(|| find_on_path("rate"));
    let cadical = find_on_path("cadical");
    let lrat_checker = std::env::var_os("LIQUID_LRAT_CHECK")
        .map(PathBuf::from)
        .or_else(|| find_on_path("lrat-check"));
    let tmp = std::env::temp_dir().join(format!("liquid-sat-proofs-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("a temporary directory");

    let mut md = String::new();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let load_avg = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().next().unwrap_or("?").to_string())
        .unwrap_or_else(|_| "?".to_string());
    let _ = writeln!(md, "# SAT engine: certified optima and their proofs\n");
    let _ = writeln!(
        md,
        "Produced by `bash scripts/sat-proofs` (`just sat-proofs`; the example \
         `crates/sat/examples/sat_proofs.rs`, release build), {cpu}, 2 shared cores, load \
         average {load_avg} at the start (other builds running: timings are noisy), time \
         limit {} s per run. Times are wall seconds in-process: DSatur, the tabu search, \
         every varisat run and the proof; `check` is `liquid-certify` on the refutation \
         after re-encoding the model (what `solve --prove DIR` adds, less file I/O).\n",
        limit.as_secs()
    );
    let _ = writeln!(
        md,
        "- **before**: DSatur's schedule, then k = Λ, Λ + 1, … with a fresh varisat per k and \
         the LRAT writer on every run (the engine before issue 13's tabu start);\n\
         - **after**: the SAT engine now (`liquid solve MODEL --engine sat --prove DIR`): \
         tabu search (`liquid_search::tabu`) shortens DSatur's schedule to Λ + 1 at best \
         before SAT starts, and the LRAT writer is attached only to the run whose \
         \"unsatisfiable\" would be the final bound (one more run with it when a lower k \
         turns out satisfiable: `calls` counts it).\n"
    );

    // Hard colouring cores.
    let mut hard = load(&["models/hard".to_string()]);
    hard.push(("queen9_9".to_string(), liquid_model::examples::queens(9)));
    let _ = writeln!(md, "## Hard colouring cores\n");
    let _ = writeln!(
        md,
        "| model | transfers | Λ | verdict | length | bound | before: calls | before: s | after: calls | after: s | check s |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    let mut refutations: Vec<Kept> = Vec::new();
    for (name, t) in &hard {
        eprintln!("hard: {name}");
        let b = before(t, limit);
        let a = after(t, limit);
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t.len(),
            t.duration(),
            a.verdict,
            a.length.map_or("-".into(), |l| l.to_string()),
            a.bound,
            b.calls,
            if b.verdict == "timeout" {
                format!("> {} (timeout)", limit.as_secs())
            } else {
                secs(b.seconds)
            },
            a.calls,
            secs(a.seconds),
            a.check_seconds.map_or("-".into(), secs),
        );
        keep_refutation(&mut refutations, name, t, a);
    }

    // The satisfiable k = optimum alone, per solver and encoding (queen8_8).
    let _ = writeln!(
        md,
        "\nqueen8_8 at k = 9 (satisfiable) alone: what the other options would have given \
         for the schedule (the refutation of k = 8 takes varisat milliseconds in every \
         case):\n"
    );
    let _ = writeln!(md, "| solver, encoding | answer | s |\n| --- | --- | --- |");
    if let Some((_, q8)) = hard.iter().find(|(n, _)| n == "queen8_8") {
        for (label, o) in [
            (
                "varisat, default (auto, symmetry, team)",
                EncodeOptions::default(),
            ),
            (
                "varisat, pairwise",
                EncodeOptions {
                    amo: AmoEncoding::Pairwise,
                    ..Default::default()
                },
            ),
            (
                "varisat, sequential",
                EncodeOptions {
                    amo: AmoEncoding::Sequential,
                    ..Default::default()
                },
            ),
            (
                "varisat, pairwise, no symmetry units",
                EncodeOptions {
                    amo: AmoEncoding::Pairwise,
                    symmetry: false,
                    ..Default::default()
                },
            ),
            (
                "varisat, no transfer at-most-one",
                EncodeOptions {
                    transfer_amo: false,
                    ..Default::default()
                },
            ),
        ] {
            let start = Instant::now();
            let (_, r) = decide(q8, 9, &o, Some(start + limit)).expect("encodes");
            let answer = match r {
                Some(Some(_)) => "sat",
                Some(None) => "unsat",
                None => "timeout",
            };
            let _ = writeln!(
                md,
                "| {label} | {answer} | {} |",
                secs(start.elapsed().as_secs_f64())
            );
        }
        match &cadical {
            Some(c) => {
                let cnf = tmp.join("queen8_8-9.cnf");
                std::fs::write(
                    &cnf,
                    dimacs(q8, 9, &EncodeOptions::default()).expect("encodes"),
                )
                .expect("writes");
                let version = Command::new(c)
                    .arg("--version")
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                    .unwrap_or_default();
                let start = Instant::now();
                let o = Command::new(c)
                    .arg("-q")
                    .arg(&cnf)
                    .output()
                    .expect("runs cadical");
                let answer = match o.status.code() {
                    Some(10) => "sat",
                    Some(20) => "unsat",
                    _ => "error",
                };
                let _ = writeln!(
                    md,
                    "| cadical {version} (process, default encoding) | {answer} | {} |",
                    secs(start.elapsed().as_secs_f64())
                );
            }
            None => {
                let _ = writeln!(md, "| cadical | not on the PATH | - |");
            }
        }
        let start = Instant::now();
        let s = liquid_search::dsatur::colour(q8).to_schedule();
        let tabu = liquid_search::tabu::shorten(q8, &s, 9, 0, None, None);
        let _ = writeln!(
            md,
            "| DSatur ({} frames) + tabu search, seed 0 ({} steps) | {} frames | {} |",
            s.len(),
            tabu.steps,
            tabu.schedule.len(),
            secs(start.elapsed().as_secs_f64())
        );
    }

    // Every other model: before and after.
    let others = load(&args);
    let _ = writeln!(
        md,
        "\n## Bundled models and the peers benchmark's instances\n"
    );
    let _ = writeln!(
        md,
        "| model | transfers | Λ | verdict | length | before: calls | before: s | after: calls | after: s | check s | incremental: calls | incremental: s |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    let (mut sum_b, mut sum_a, mut sum_i, mut log_ratio, mut n_ratio) =
        (0.0, 0.0, 0.0, 0.0, 0usize);
    let mut one_call = 0usize;
    for (name, t) in &others {
        eprintln!("model: {name}");
        let b = before(t, limit);
        let a = after(t, limit);
        let i = engine(t, limit, true, true, true);
        assert_eq!(
            (b.length, b.bound.max(t.duration())),
            (a.length, a.bound),
            "{name}: before and after disagree"
        );
        assert_eq!(
            (a.length, a.bound),
            (i.length, i.bound),
            "{name}: sat and sat-incremental disagree"
        );
        if a.calls == 1 {
            one_call += 1;
        }
        sum_b += b.seconds;
        sum_a += a.seconds;
        sum_i += i.seconds;
        log_ratio += (a.seconds / b.seconds).ln();
        n_ratio += 1;
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t.len(),
            t.duration(),
            a.verdict,
            a.length.map_or("-".into(), |l| l.to_string()),
            b.calls,
            secs(b.seconds),
            a.calls,
            secs(a.seconds),
            a.check_seconds.map_or("-".into(), secs),
            i.calls,
            secs(i.seconds),
        );
        keep_refutation(&mut refutations, name, t, a);
    }
    if n_ratio > 0 {
        let _ = writeln!(
            md,
            "\nTotal: before {} s, after {} s; geometric mean of after / before: {:.3} over {} models.",
            secs(sum_b),
            secs(sum_a),
            (log_ratio / n_ratio as f64).exp(),
            n_ratio
        );
        let _ = writeln!(
            md,
            "\nsat-incremental (same tabu start, one solver going down): total {} s. After \
             the tabu start, {one_call} of these {n_ratio} models need one SAT call (and both \
             hard cores do), so the two engines run the same single call and the incremental \
             one has nothing to share; the next section compares them where there is.",
            secs(sum_i)
        );
    }

    // One solver across k, without the tabu start.
    let _ = writeln!(
        md,
        "\n## One solver across k (sat-incremental), without the tabu start\n"
    );
    let _ = writeln!(
        md,
        "Both engines from DSatur's schedule alone (`SatOptions::tabu` off), so that there \
         are several lengths between Λ and DSatur's: **ascending** is `sat`, a fresh varisat \
         per k from Λ up, the LRAT writer on the run k = best − 1 and one more proof run \
         when a lower k turns out satisfiable; **incremental** is `sat-incremental`, one \
         varisat going down from DSatur's length − 1, the timeframes beyond each schedule \
         found closed by unit clauses added between runs, the LRAT writer attached from the \
         start (also to the satisfiable runs) and the proof taken from the first \
         unsatisfiable run. Its proof refutes `liquid encode MODEL --colours k --frames K` \
         (K the first length asked; the `closed` family); `check s` is `liquid-certify` on \
         it. Only models where DSatur's schedule is above Λ + 1 are listed (elsewhere both \
         make one call).\n"
    );
    let _ = writeln!(
        md,
        "| model | Λ | DSatur | optimum | ascending: calls | ascending: s | incremental: calls | incremental: s | incremental / ascending | check s | no proofs: ascending s | no proofs: incremental s | no proofs: incremental / ascending |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    let mut closed: Vec<Kept> = Vec::new();
    let (mut sum_up, mut sum_down, mut log_inc, mut n_inc) = (0.0, 0.0, 0.0, 0usize);
    let (mut log_np, mut n_np) = (0.0, 0usize);
    for (name, t) in hard.iter().chain(&others) {
        let dsatur = liquid_search::dsatur::colour(t).to_schedule().len();
        if dsatur <= t.duration() + 1 {
            continue;
        }
        eprintln!("incremental: {name}");
        let up = engine(t, limit, false, false, true);
        let down = engine(t, limit, true, false, true);
        let up_np = engine(t, limit, false, false, false);
        let down_np = engine(t, limit, true, false, false);
        let timeout = |m: &Measured| m.verdict == "timeout";
        let ratio = |a: &Measured, b: &Measured| {
            if timeout(a) || timeout(b) {
                "-".to_string()
            } else {
                format!("{:.3}", a.seconds / b.seconds)
            }
        };
        if !timeout(&up) && !timeout(&down) {
            assert_eq!(
                (up.length, up.bound),
                (down.length, down.bound),
                "{name}: ascending and incremental disagree"
            );
            sum_up += up.seconds;
            sum_down += down.seconds;
            log_inc += (down.seconds / up.seconds).ln();
            n_inc += 1;
        }
        if !timeout(&up_np) && !timeout(&down_np) {
            assert_eq!(
                (up_np.length, up_np.bound),
                (down_np.length, down_np.bound),
                "{name}: ascending and incremental disagree without proofs"
            );
            log_np += (down_np.seconds / up_np.seconds).ln();
            n_np += 1;
        }
        let time = |m: &Measured| {
            if timeout(m) {
                format!("> {} (timeout)", limit.as_secs())
            } else {
                secs(m.seconds)
            }
        };
        let _ = writeln!(
            md,
            "| {name} | {} | {dsatur} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t.duration(),
            up.length
                .filter(|&l| l == up.bound)
                .map_or("-".into(), |l| l.to_string()),
            up.calls,
            time(&up),
            down.calls,
            time(&down),
            ratio(&down, &up),
            down.check_seconds.map_or("-".into(), secs),
            time(&up_np),
            time(&down_np),
            ratio(&down_np, &up_np),
        );
        keep_refutation(&mut closed, name, t, down);
    }
    if n_inc > 0 {
        let _ = writeln!(
            md,
            "\nTotal over the {n_inc} models both finished: ascending {} s, incremental {} s; \
             geometric mean of incremental / ascending: {:.3}.",
            secs(sum_up),
            secs(sum_down),
            (log_inc / n_inc as f64).exp()
        );
    }
    if n_np > 0 {
        let _ = writeln!(
            md,
            "Without proofs, over the {n_np} models both finished: geometric mean of \
             incremental / ascending {:.3}.",
            (log_np / n_np as f64).exp()
        );
    }

    // Proofs.
    let _ = writeln!(md, "\n## Proofs (after, and the incremental engine's)\n");
    let _ = writeln!(
        md,
        "Every refutation the runs above produced: the CNF of k timeframes \
         (`liquid encode MODEL --colours k`, byte for byte; for the incremental runs without \
         the tabu start, `--frames K` as well: the variables of K timeframes, the `closed` \
         family's units last), its LRAT proof, `liquid-certify`'s checking time, and the \
         external checkers' verdicts. DRAT checker: {}. LRAT checker: {}.\n",
        match &rate {
            Some(p) => format!(
                "`{}` (crates.io `rate` 0.3.0, `cargo install rate`, a DRAT/DPR checker \
                 written independently of liquid and varisat: it reads the LRAT proof's \
                 clauses in the same order, as DRAT, without the hints, and checks them by \
                 backward RUP)",
                p.file_name()
                    .map_or_else(|| "rate".into(), |n| n.to_string_lossy())
            ),
            None => "none found (`cargo install rate` and put it on the PATH, or set \
                     LIQUID_RATE)"
                .to_string(),
        },
        match &lrat_checker {
            Some(_) => "`lrat-check` (drat-trim's LRAT checker, written independently of \
                        liquid and varisat, built from its source with `gcc lrat-check.c \
                        -std=c99 -DLONGTYPE -O2`, see crates/certify/README.md; it checks \
                        every step with its hints, as liquid-certify does, but accepts an \
                        empty clause whose hints end without a conflict, so its VERIFIED \
                        shows agreement, not an independent confirmation: cake_lpr is the \
                        second opinion, `scripts/external-checkers`)"
                .to_string(),
            None => "none found (build drat-trim's `lrat-check`, see crates/certify/README.md, \
                     and put it on the PATH or set LIQUID_LRAT_CHECK)"
                .to_string(),
        }
    );
    let _ = writeln!(
        md,
        "| model | k | variables | clauses | LRAT lines | LRAT bytes | solve s | liquid-certify s | rate (DRAT) | rate s | lrat-check | lrat-check s |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    let incremental_rows = closed
        .iter()
        .map(|(n, t, r, a, b)| (format!("{n} (incremental, no tabu)"), t, r, a, b));
    let rows: Vec<_> = refutations
        .iter()
        .map(|(n, t, r, a, b)| (n.clone(), t, r, a, b))
        .chain(incremental_rows)
        .collect();
    for (name, _t, r, solve_s, check_s) in rows {
        let cnf = liquid_certify::parse_dimacs(&r.cnf).expect("parses");
        let ext = external(rate.as_deref(), r, &tmp);
        let lc = lrat_check(lrat_checker.as_deref(), r, &tmp);
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.colours,
            cnf.num_vars,
            cnf.clauses.len(),
            r.lrat.lines().count(),
            r.lrat.len(),
            secs(*solve_s),
            secs(*check_s),
            ext.as_ref().map_or("-".to_string(), |e| e.0.clone()),
            ext.as_ref().map_or("-".to_string(), |e| secs(e.1)),
            lc.as_ref().map_or("-".to_string(), |e| e.0.clone()),
            lc.as_ref().map_or("-".to_string(), |e| secs(e.1)),
        );
    }

    // Native proofs of the same claims.
    let _ = writeln!(md, "\n## Native proofs beside the SAT proofs\n");
    let _ = writeln!(
        md,
        "The same claims (k timeframes do not suffice, the same CNF) refuted by the native \
         colouring search instead of varisat (`liquid_sat::prove_by_search`, what \
         `solve --engine native|exact --prove DIR` writes): the search runs with the CNF's \
         symmetry units fixed and records one lemma per failed node, and `liquid_sat::rup` \
         finds each lemma's hints by unit propagation on the CNF. `native s` is the search \
         plus the hints (the engine's own search for the verdict comes before it and is not \
         counted); `check s` is `liquid-certify`, as above; the external checker as above.\n"
    );
    let _ = writeln!(
        md,
        "| model | k | SAT: LRAT lines | SAT: solve s | SAT: check s | native: nodes | native: LRAT lines | native: LRAT bytes | native s | native: check s | native: rate | native: lrat-check |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for (name, t, r, solve_s, check_s) in &refutations {
        eprintln!("native proof: {name}");
        let start = Instant::now();
        let found = liquid_sat::prove_by_search(t, r.colours, Some(start + limit));
        let seconds = start.elapsed().as_secs_f64();
        let sat = format!(
            "| {name} | {} | {} | {} | {}",
            r.colours,
            r.lrat.lines().count(),
            secs(*solve_s),
            secs(*check_s)
        );
        let row = match found {
            Ok(liquid_sat::SearchProved::Unsat {
                refutation, nodes, ..
            }) => {
                let native_check = check(t, &refutation);
                let ext = external(rate.as_deref(), &refutation, &tmp);
                let lc = lrat_check(lrat_checker.as_deref(), &refutation, &tmp);
                format!(
                    "{sat} | {nodes} | {} | {} | {} | {} | {} | {} |",
                    refutation.lrat.lines().count(),
                    refutation.lrat.len(),
                    secs(seconds),
                    secs(native_check),
                    ext.map_or("-".to_string(), |e| e.0),
                    lc.map_or("-".to_string(), |e| e.0),
                )
            }
            Ok(liquid_sat::SearchProved::Stopped) => format!(
                "{sat} | - | - | - | > {} (timeout) | - | - | - |",
                limit.as_secs()
            ),
            Ok(liquid_sat::SearchProved::Sat(_)) => {
                panic!(
                    "{name}: the colouring search found {} timeframes, which SAT refuted",
                    r.colours
                )
            }
            Err(e) => format!("{sat} | - | - | - | {e} | - | - | - |"),
        };
        let _ = writeln!(md, "{row}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
    match out_file {
        Some(f) => std::fs::write(&f, md).unwrap_or_else(|e| panic!("{}: {e}", f.display())),
        None => print!("{md}"),
    }
}
