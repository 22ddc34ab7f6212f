//! Issue 11 §5: hostile and unusual input. Each case is either a clear input error (file,
//! line, column; exit code 2) or works, in time linear in the input. The inputs are large
//! enough that the old quadratic behaviour would make a test run for minutes; no test
//! measures time itself.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{liquid, succeed};

/// Writes `text` to `name` in a fresh temporary directory (kept alive by the guard).
fn write(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    (dir, path)
}

fn analyze(path: &Path) -> Output {
    liquid()
        .args(["analyze", "--format", "json"])
        .arg(path)
        .output()
        .expect("runs")
}

/// Asserts an input error (exit 2) that starts with `error: FILE:LINE:COL: ` and contains
/// `needle`; returns the message.
fn input_error(out: &Output, path: &Path, line_col: &str, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "exit code 2: {err}");
    let prefix = format!("error: {}:{line_col}: ", path.display());
    assert!(err.starts_with(&prefix), "expected {prefix:?}: {err}");
    assert!(err.contains(needle), "expected {needle:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Item 1: `count: 200000` loads in linear time (each copy with its own virtual link),
/// and the analysis of the resulting clique is linear too.
#[test]
fn a_large_count_loads_in_linear_time() {
    let n: u64 = 200_000;
    let (_d, path) = write(
        "big-count.yaml",
        &format!("name: big-count\ntransfers:\n  - {{id: a, path: [l1, l2], count: {n}}}\n"),
    );
    let v = json(&analyze(&path));
    assert_eq!(v["transfers"], n);
    assert_eq!(v["links"], n + 2);
    assert_eq!(v["duration"], n);
    assert_eq!(v["conflict_edges"], n * (n - 1) / 2);
    assert_eq!(v["max_conflict_degree"], n - 1);
}

/// Item 1, network form: a `pairs` entry with `count: 200000`.
#[test]
fn a_large_pair_count_loads_in_linear_time() {
    let n: u64 = 200_000;
    let text = format!(
        "name: big-pairs\nnetwork:\n  hosts: [a, b]\n  switches: [s]\n  links:\n    \
         - {{id: up, from: a, to: s}}\n    - {{id: down, from: s, to: b}}\n\
         pattern:\n  type: pairs\n  pairs: [{{from: a, to: b, count: {n}}}]\n"
    );
    let (_d, path) = write("big-pairs.yaml", &text);
    let v = json(&analyze(&path));
    assert_eq!(v["transfers"], n);
    assert_eq!(v["duration"], n);
    assert_eq!(v["conflict_edges"], n * (n - 1) / 2);
}

/// A path of 100,000 distinct links loads, and a repeat at its end is still found.
///
/// What this checks is the answer at a size where a quadratic check would show: the
/// repeated-link check (`TrafficBuilder::transfer_on_links`) scans short paths and keeps a
/// hash set for long ones, one insertion per link; a pairwise scan would be 5·10^9
/// comparisons here, minutes in a debug build, which a test run shows as a hang. It does
/// not measure growth: the binary exposes no work counter, and timings are not asserted
/// in tests (they belong in benchmarks).
#[test]
fn a_long_path_loads_and_a_repeat_at_its_end_is_found() {
    let links: Vec<String> = (0..100_000).map(|i| format!("l{i}")).collect();
    let text = format!(
        "name: long-path\ntransfers:\n  - {{id: a, path: [{}]}}\n",
        links.join(", ")
    );
    let (_d, path) = write("long-path.yaml", &text);
    assert_eq!(json(&analyze(&path))["links"], 100_000);
    let text = format!(
        "name: long-path\ntransfers:\n  - {{id: a, path: [{}, l0]}}\n",
        links.join(", ")
    );
    let (_d, path) = write("long-path-repeat.yaml", &text);
    input_error(
        &analyze(&path),
        &path,
        &format!("3:{}", 22 + links.join(", ").len()),
        "transfers[0].path[100000]: transfer \"a\" uses link \"l0\" twice",
    );
}

/// Item 2: 100,000 nested flow mappings (500 KB) are refused at the first level too deep,
/// before the YAML parser's quadratic work.
#[test]
fn deep_nesting_is_refused_early() {
    let depth = 100_000;
    let text = format!("{}{}\n", "{a: ".repeat(depth), "}".repeat(depth));
    let (_d, path) = write("deep.yaml", &text);
    // The scanner reads a flow collection ahead to its end (it might be a key), up to its
    // own limit of 255 flow levels: the error is at the 256th `{`, column 4 * 255 + 1.
    input_error(
        &analyze(&path),
        &path,
        "1:1021",
        "nested more than 64 levels deep",
    );
    // Block nesting too: 100,000 levels of `- `.
    let text = format!("{}x\n", "- ".repeat(depth));
    let (_d, path) = write("deep-block.yaml", &text);
    input_error(
        &analyze(&path),
        &path,
        "1:129",
        "nested more than 64 levels deep",
    );
}

/// Item 3: one anchored 1 MB string and 3000 aliases of it would expand to 3 GB: refused
/// at the alias that crosses the budget, with its line and column.
#[test]
fn aliases_cannot_expand_without_bound() {
    let mut text = format!("name: &big {}\ntransfers:\n", "x".repeat(1 << 20));
    for i in 0..3000 {
        text.push_str(&format!("  - {{id: t{i}, path: [*big]}}\n"));
    }
    let (_d, path) = write("aliases.yaml", &text);
    // Budget: 16 MiB + 8 × 1.08 MiB (the file) = 24.7 MiB: the 24th alias (on line 26)
    // crosses it.
    let err = input_error(
        &analyze(&path),
        &path,
        "26:22",
        "aliases expand the file beyond",
    );
    assert!(err.len() < 300, "{err}");
    // A few aliases of a short path are fine.
    let (_d, path) = write(
        "few-aliases.yaml",
        "name: few\ntransfers:\n  - {id: a, path: &p [l1, l2]}\n  - {id: b, path: [l3]}\n",
    );
    assert_eq!(json(&analyze(&path))["transfers"], 2);
}

/// Item 4: a generated model with a single host and no self-transfers has an empty
/// traffic: bad input (exit 2), not an internal error.
#[test]
fn single_host_specs_are_input_errors() {
    for spec in ["ring:1,1", "mesh:1x1,1", "torus:1x1,1"] {
        let out = liquid().args(["analyze", spec]).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains(spec), "{spec}: {err}");
        assert!(err.contains("single host"), "{spec}: {err}");
    }
}

/// Item 7: a 1 MB unknown field name (an explicit key: a plain one is limited to 1024
/// characters) is not echoed in full.
#[test]
fn long_names_are_shortened_in_errors() {
    let key = "k".repeat(1 << 20);
    let (_d, path) = write(
        "long-key.yaml",
        &format!("name: x\n? {key}\n: 1\ntransfers:\n  - {{id: a, path: [l]}}\n"),
    );
    let err = input_error(&analyze(&path), &path, "2:3", "unknown field `kkkk");
    assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..400]);
    assert!(err.contains(&format!("`{}…`", "k".repeat(60))), "{err}");
    // A long duplicate id too.
    let id = "i".repeat(100_000);
    let (_d, path) = write(
        "long-id.yaml",
        &format!("name: x\ntransfers:\n  - {{id: {id}, path: [l]}}\n  - {{id: {id}, path: [m]}}\n"),
    );
    let err = input_error(&analyze(&path), &path, "4:10", "duplicate transfer id");
    assert!(err.len() < 400, "{} bytes", err.len());
}

/// Item 7: round-robin schedules an all-to-all without self-transfers (phases 1..n-1).
#[test]
fn round_robin_schedules_an_all_to_all_without_self_transfers() {
    let out = succeed(liquid().args([
        "solve",
        "fat-tree:4,3",
        "--engine",
        "round-robin",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["engine"], "round-robin", "{v}");
    assert_eq!(v["transfers"], 16 * 15);
    assert_eq!(v["stats"]["phases"], 15, "phases 1..n-1: {v}");
    let frames = v["timeframes"].as_array().expect("a schedule");
    assert_eq!(frames.len(), v["length"], "{v}");
    assert!(frames.len() >= 15, "at least one frame per phase: {v}");
    // A traffic that is not all-to-all is still refused, with the missing pair named.
    let out = liquid()
        .args(["solve", "models/no-team.yaml", "--engine", "round-robin"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("round-robin needs"));
}

/// Issue 14: conflict edges whose count would take more than 2^31 steps are not counted
/// by default; `analyze` says so (`conflict_edges_note`) and leaves them null. 40,000
/// transfers on one shared link `a`, alternating between two second links so that no
/// transfer reuses the count of the one before: about 40,000 · 60,000 steps.
#[test]
fn conflict_edges_beyond_the_counting_budget_are_opt_in() {
    let n = 40_000;
    let mut text = String::from("name: wide\ntransfers:\n");
    for i in 0..n {
        text.push_str(&format!("  - {{id: x{i}, path: [a, b{}]}}\n", i % 2));
    }
    let (_d, path) = write("wide.yaml", &text);
    let v = json(&analyze(&path));
    assert_eq!(v["transfers"], n);
    assert_eq!(v["conflict_vertices"], n);
    assert!(v["conflict_edges"].is_null(), "{}", v["conflict_edges"]);
    assert!(v["max_conflict_degree"].is_null());
    let note = v["conflict_edges_note"].as_str().expect("a note");
    assert!(note.contains("--count-conflicts"), "{note}");
    // A small model: counted either way, the same numbers, no note.
    let small = |extra: &[&str]| {
        let out = succeed(
            liquid()
                .args(["analyze", "models/paper-fig1.yaml", "--format", "json"])
                .args(extra),
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON")
    };
    let (plain, forced) = (small(&[]), small(&["--count-conflicts"]));
    assert!(plain["conflict_edges"].is_u64());
    assert_eq!(plain, forced);
    assert!(plain.get("conflict_edges_note").is_none());
}

// ---------------------------------------------------------------------------------------
// Issue 32: hostile input, round two (the commands of the last wave).
// ---------------------------------------------------------------------------------------

/// Runs `liquid ARGS` with stdout to `stdout`, returning (exit code, stderr).
fn run_to(args: &[&str], stdout: std::process::Stdio) -> (Option<i32>, String) {
    let out = liquid()
        .args(args)
        .stdout(stdout)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn refused(args: &[&str], needle: &str) {
    let (code, err) = run_to(args, std::process::Stdio::piped());
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn endless_files_are_refused_at_once_with_their_position() {
    for args in [
        &["analyze", "/dev/zero"][..],
        &["verify", "models/no-team.yaml", "/dev/zero"],
        &[
            "crosscheck",
            "models/no-team.yaml",
            "--baseline",
            "/dev/zero",
        ],
        &["simulate", "models/paper-fig1.yaml", "--sizes", "/dev/zero"],
    ] {
        refused(args, "/dev/zero:1:1: NUL byte at offset 0");
    }
}

#[test]
fn a_full_disk_and_output_paths_that_are_directories_exit_2() {
    let full = || std::fs::File::create("/dev/full").expect("/dev/full");
    for args in [
        &["analyze", "models/no-team.yaml"][..],
        &["latency", "model", "4,2x1", "--rate", "0.0001"],
        &["latency", "model", "4,2x1", "--points", "5"],
        &["crosscheck", "models/no-team.yaml", "--engines", "dsatur"],
    ] {
        let (code, err) = run_to(args, full().into());
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("No space left"), "{err}");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().to_str().expect("utf-8");
    for args in [
        &["simulate", "models/paper-fig1.yaml", "--plot", d][..],
        &["solve", "models/no-team.yaml", "--schedule-out", d],
        &[
            "generate", "fat-tree", "--ports", "4", "--levels", "2", "--out", d,
        ],
    ] {
        refused(args, d);
    }
}

#[test]
fn overflowing_and_extreme_numbers_are_refused_naming_the_option() {
    refused(
        &["analyze", "two-clusters:18446744073709551000,1000"],
        "at most 1024",
    );
    refused(
        &[
            "generate",
            "two-clusters",
            "--n1",
            "18446744073709551615",
            "--n2",
            "4",
        ],
        "at most 1024",
    );
    refused(
        &["latency", "model", "4,2x1", "--points", "100000000"],
        "--points",
    );
    for r in ["18446744073709551615", "4294967296"] {
        refused(
            &[
                "latency",
                "simulate",
                "4,2x1",
                "--rate",
                "0.001",
                "--replications",
                r,
            ],
            "--replications",
        );
    }
    refused(
        &[
            "latency", "simulate", "4,2x1", "--rate", "0.001", "--flits", "0",
        ],
        "--flits: ",
    );
    refused(
        &[
            "simulate",
            "models/paper-fig1.yaml",
            "--link-throughput",
            "1e308",
        ],
        "--link-throughput",
    );
    refused(
        &["simulate", "models/paper-fig1.yaml", "--size", "1e308"],
        // Refused as it is read since --size takes whole bytes (at most 2^53), as solve's.
        "\"1e308\" is not a whole number of bytes",
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("st");
    let out = out.to_str().expect("utf-8");
    let study = |extra: &[&str], needle: &str| {
        let mut args = vec![
            "study",
            "two-clusters",
            "--size-cases",
            "1+1",
            "--size-exponents",
            "0..0",
            "--no-node-sweep",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        refused(&args, needle);
        // Refused before anything is written: the output folder is not even made.
        assert!(
            !std::path::Path::new(out).exists(),
            "{extra:?} made {out} before refusing"
        );
    };
    study(&["--lanes", "0"], "--lanes");
    study(&["--lanes", "1025"], "--lanes");
    study(&["--backbone-bandwidth", "1e308"], "--backbone-bandwidth");
    study(&["--node-bandwidth", "1e308"], "--node-bandwidth");
    // A message size whose total overflows is refused under the option that gave it.
    refused(
        &[
            "study",
            "two-clusters",
            "--size-cases",
            "1+1",
            "--size-exponents",
            "0..0",
            "--node-sizes",
            "1e308",
            "--out",
            out,
        ],
        "--node-sizes: 1e308 B per message: the messages' bytes add up",
    );
    refused(
        &[
            "study",
            "two-clusters",
            "--size-cases",
            "4+4",
            "--size-exponents",
            "0..0",
            "--no-node-sweep",
            "--time-limit",
            "0",
            "--out",
            out,
        ],
        "raise --time-limit",
    );
    // A 300-digit number is not printed in full.
    let nines = "9".repeat(300);
    let (code, err) = run_to(
        &["analyze", &format!("two-clusters:{nines},1")],
        std::process::Stdio::piped(),
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("(300 digits)") && err.len() < 400, "{err}");
}

#[test]
fn a_study_with_a_latency_of_1e308_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("st");
    let (code, err) = run_to(
        &[
            "study",
            "two-clusters",
            "--size-cases",
            "1+1",
            "--size-exponents",
            "0..0",
            "--no-node-sweep",
            "--backbone-latency",
            "1e308",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        std::process::Stdio::piped(),
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_multi_cluster_system_is_a_cluster_of_two_clusters() {
    let out = succeed(liquid().args(["analyze", "two-clusters:multi-cluster:4,2x2"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("transfers: 992"), "{text}");
    refused(
        &["analyze", "two-clusters:multi-cluster:8,16x3"],
        "2048 nodes per cluster",
    );
}

#[test]
fn crosscheck_refuses_an_empty_folder_and_skips_a_baseline_in_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().to_str().expect("utf-8");
    refused(&["crosscheck", d], "holds no model");
    std::fs::copy("models/no-team.yaml", dir.path().join("no-team.yaml")).expect("copy");
    let base = dir.path().join("base.yaml");
    let b = base.to_str().expect("utf-8");
    succeed(liquid().args(["crosscheck", d, "--engines", "dsatur", "--record", b]));
    let out = succeed(liquid().args(["crosscheck", d, "--engines", "dsatur", "--baseline", b]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a baseline file, not a model"));
    std::fs::write(
        &base,
        std::fs::read_to_string(&base)
            .expect("baseline")
            .replace("strength: checked", "strength: divine"),
    )
    .expect("write");
    refused(
        &["crosscheck", d, "--engines", "dsatur", "--baseline", b],
        "divine",
    );
}

#[test]
fn schedules_and_sizes_errors_name_line_and_column() {
    let (_d, sizes) = write("sizes.yaml", "x: 1\ny: 2\nx: 3\n");
    let (_e, model) = write(
        "m.yaml",
        "name: m\nlink_throughput: 1\ntransfers:\n  - {id: x, path: [a]}\n  - {id: y, path: [b]}\n",
    );
    let (m, s) = (
        model.to_str().expect("utf-8"),
        sizes.to_str().expect("utf-8"),
    );
    refused(
        &["simulate", m, "--sizes", s],
        &format!("{s}:3:1: x: transfer \"x\" is given twice"),
    );
    let (_f, schedule) = write("s.yaml", "timeframes:\n  - [x]\n  - [x, y]\n");
    let sched = schedule.to_str().expect("utf-8");
    refused(
        &["simulate", m, "--schedule", sched],
        &format!("{sched}:3:6:"),
    );
    // latency simulate runs partitions only.
    let (_g, part) = write("p.yaml", "timeframes:\n  - [c0.p0->c0.p1]\n");
    refused(
        &[
            "latency",
            "simulate",
            "4,2x1",
            "--rate",
            "0.001",
            "--messages",
            "10",
            "--schedule",
            part.to_str().expect("utf-8"),
        ],
        "is in no timeframe",
    );
}

#[test]
fn prove_refuses_a_folder_that_is_not_a_proof_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("notes.txt"), "mine").expect("write");
    let d = dir.path().to_str().expect("utf-8");
    refused(&["prove", "models/no-team.yaml", "--out", d], "notes.txt");
    // `/` is the user's case. Should a regression write there, what it wrote is removed
    // (only files that were not there before) before the test fails.
    let in_root = ["formula.cnf", "proof.lrat", "manifest.yaml"].map(|f| Path::new("/").join(f));
    let before: Vec<bool> = in_root.iter().map(|p| p.exists()).collect();
    let (code, err) = run_to(
        &["prove", "models/no-team.yaml", "--out", "/"],
        std::process::Stdio::piped(),
    );
    for (p, existed) in in_root.iter().zip(&before) {
        if !existed && p.exists() {
            let _ = std::fs::remove_file(p);
        }
    }
    assert_eq!(code, Some(2), "prove --out /: {err}");
    assert!(err.contains('/') && !err.contains("panicked"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).expect("kept"),
        "mine"
    );
}

/// Files as some editors and spreadsheets write them, starting with a UTF-8 byte order
/// mark, read as without it: a schedule (its first key read as "\u{feff}model" before), a
/// size file (its first host read as "\u{feff}src") and a sizes matrix.
#[test]
fn a_byte_order_mark_is_not_part_of_the_text() {
    let model = "models/paper-fig1.yaml";
    let (_d, schedule) = write("s.yaml", "");
    succeed(
        liquid()
            .args(["solve", model, "--schedule-out"])
            .arg(&schedule),
    );
    let text = std::fs::read_to_string(&schedule).expect("the schedule");
    assert!(text.starts_with("model: paper-fig1\n"), "{text}");
    std::fs::write(&schedule, format!("\u{feff}{text}")).expect("write");
    let out = succeed(
        liquid()
            .args(["verify", model, "--schedule"])
            .arg(&schedule),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("valid: true"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (_e, sizes) = write("s.csv", "\u{feff}src,dst,bytes\r\nT1,R4,10\r\n");
    let out = succeed(
        liquid()
            .args([
                "analyze",
                model,
                "--size",
                "1",
                "--link-throughput",
                "1000",
                "--sizes",
            ])
            .arg(&sizes),
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("defaulted: 24"));
    let (_f, matrix) = write("m.csv", "\u{feff}0,5\r\n7,0\r\n");
    let out = succeed(
        liquid()
            .args([
                "generate",
                "sizes",
                "fat-tree:2,2",
                "--dist",
                "matrix",
                "--matrix",
            ])
            .arg(&matrix),
    );
    assert_eq!(
        String::from_utf8(out.stdout).expect("UTF-8"),
        "src,dst,bytes\np0,p1,5\np1,p0,7\n"
    );
}
