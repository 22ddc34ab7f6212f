//! Hostile input, round five: a tester's findings (explore2). Each test fails with the
//! binary of main before its fix (`LIQUID_TEST_BIN=/path/to/old/liquid cargo test --test
//! cli hostile5`) and passes after.

use crate::common::{liquid, refused, succeed};

/// `solve --sizes` refuses the options that the others make change nothing, as it refuses
/// `--pieces-out` with `--preemption none`, and still takes each where it counts.
#[test]
fn solve_sizes_refuses_options_that_change_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let sizes = dir.path().join("s.csv");
    let s = sizes.to_str().expect("utf-8");
    succeed(liquid().args([
        "generate",
        "sizes",
        "fat-tree:4,1",
        "--dist",
        "uniform",
        "--bytes-per-rank",
        "64KiB",
        "--out",
        s,
    ]));
    let base = [
        "solve",
        "fat-tree:4,1",
        "--sizes",
        s,
        "--link-throughput",
        "1000",
    ];
    let cases: [(&[&str], &[&str]); 4] = [
        (
            &["--preemption", "none", "--quantum", "4096"],
            &["--quantum", "--preemption none"],
        ),
        (
            &["--preemption", "none", "--max-pieces", "3"],
            &["--max-pieces", "--preemption none"],
        ),
        (
            &["--preemption", "chunks", "--exact-max", "3"],
            &["--exact-max", "--preemption chunks"],
        ),
        (
            &["--quantum", "4096", "--max-pieces", "3"],
            &["--max-pieces", "--quantum"],
        ),
    ];
    for (extra, needles) in cases {
        let out = liquid().args(base).args(extra).output().expect("runs");
        refused(&out, needles);
    }
    for extra in [
        &["--preemption", "chunks", "--quantum", "4096"][..],
        &[
            "--preemption",
            "both",
            "--max-pieces",
            "3",
            "--exact-max",
            "3",
        ][..],
        &["--preemption", "none", "--exact-max", "3"][..],
    ] {
        succeed(liquid().args(base).args(extra));
    }
}

/// `simulate --link-throughput` on a model whose links each have their own bandwidth
/// changes nothing: refused. Without it, no liquid throughput is made up from a bandwidth
/// no link has; links of one bandwidth still get theirs.
#[test]
fn simulate_link_throughput_where_every_link_has_its_own_is_refused() {
    let base = [
        "simulate",
        "two-clusters:3,5",
        "--size",
        "1000000",
        "--mode",
        "all-at-once",
    ];
    let out = liquid()
        .args(base)
        .args(["--link-throughput", "1000"])
        .output()
        .expect("runs");
    refused(&out, &["--link-throughput changes nothing", "its own"]);
    let out = succeed(liquid().args(base));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!report.contains("liquid_throughput_mb_s"), "{report}");
    let out = succeed(liquid().args([
        "simulate",
        "fat-tree:4,1",
        "--size",
        "1000000",
        "--link-throughput",
        "1000",
    ]));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("liquid_throughput_mb_s"), "{report}");
}

/// Every `generate sizes --dist matrix` error names the file and the line of the row.
#[test]
fn matrix_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let cases = [
        (
            "# zeros\n0,0,0,0\n0,0,0,0\n0,0,0,0\n0,0,0,0\n",
            ":2: row 1 column 2: 0 bytes from p0 to p1",
        ),
        (
            "0 1 1\n1 0 1\n1 1 0\n",
            ":1: row 1: the matrix must be 4 x 4",
        ),
        (
            "0 1 1 1\n1 0 1 1\n1 1 0 1\n1 1 1 0\n\n1 1 1 1\n",
            ":6: row 5: the matrix must be 4 x 4",
        ),
        ("0 1 1 1\n1 0 1 1\n", ": the matrix must be 4 x 4"),
    ];
    for (i, (text, needle)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("m{i}.txt"));
        std::fs::write(&path, text).expect("write");
        let p = path.to_str().expect("utf-8");
        let out = liquid()
            .args([
                "generate",
                "sizes",
                "fat-tree:4,1",
                "--dist",
                "matrix",
                "--matrix",
                p,
            ])
            .output()
            .expect("runs");
        refused(&out, &[&format!("{p}{needle}")]);
    }
}

/// `--sizes` as a CSV with a model that names no hosts (explicit form) says so, and how to
/// give the sizes, instead of an empty hint ("named like \"\", or numbered 0 to 0").
#[test]
fn sizes_csv_for_a_model_without_hosts_gives_a_useful_hint() {
    let dir = tempfile::tempdir().expect("tmp");
    let sizes = dir.path().join("s.csv");
    std::fs::write(&sizes, "src,dst,bytes\np0,p1,100\n").expect("write");
    let s = sizes.to_str().expect("utf-8");
    let out = liquid()
        .args([
            "simulate",
            "models/odd-cycle.yaml",
            "--size",
            "100",
            "--sizes",
            s,
        ])
        .args(["--link-throughput", "1000"])
        .output()
        .expect("runs");
    let err = refused(&out, &["s.csv:2:1", "names no hosts", "by transfer id"]);
    assert!(!err.contains("named like \"\""), "{err}");
}

/// A transfer repeated in a timeframe is one problem with its count, not one line per
/// extra copy (the problem list stays readable and the other problems are not hidden).
#[test]
fn a_transfer_repeated_in_a_frame_is_one_problem_with_its_count() {
    let dir = tempfile::tempdir().expect("tmp");
    let sched = dir.path().join("s.yaml");
    let copies = vec!["t0"; 50].join(", ");
    std::fs::write(
        &sched,
        format!("timeframes:\n  - [{copies}, t2]\n  - [t1, t3, t0, t0]\n  - [t4]\n"),
    )
    .expect("write");
    let s = sched.to_str().expect("utf-8");
    let out = liquid()
        .args(["verify", "models/odd-cycle.yaml", "--schedule", s])
        .output()
        .expect("runs");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert_eq!(
        all.matches("appears 50 times in timeframes[0]").count(),
        1,
        "{all}"
    );
    assert_eq!(all.matches("appears twice").count(), 0, "{all}");
    assert_eq!(
        all.matches("appears in timeframes[0] and timeframes[1] (2 times in timeframes[1])")
            .count(),
        1,
        "{all}"
    );
    assert!(!all.contains("more"), "{all}");
}

/// `merge` of crosscheck shards needs no `--out` (the unsharded crosscheck writes no file)
/// and prints the unsharded run's table; an `--out` given is said to stay empty.
#[test]
fn merge_of_crosscheck_shards_needs_no_out() {
    let dir = tempfile::tempdir().expect("tmp");
    let shards = dir.path().join("sh");
    let args = [
        "crosscheck",
        "models/odd-cycle.yaml",
        "--engines",
        "native,dsatur",
    ];
    succeed(
        liquid()
            .args(args)
            .args(["--shard", "1/1", "--out"])
            .arg(&shards),
    );
    let merged = succeed(liquid().arg("merge").arg(&shards));
    let whole = succeed(liquid().args(args));
    let (m, w) = (
        String::from_utf8_lossy(&merged.stdout).into_owned(),
        String::from_utf8_lossy(&whole.stdout).into_owned(),
    );
    assert!(m.contains("odd-cycle"), "{m}");
    assert_eq!(m.lines().count(), w.lines().count(), "{m}\n{w}");
    let mo = dir.path().join("mo");
    let out = succeed(liquid().arg("merge").arg(&shards).arg("--out").arg(&mo));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing is written there"));
    assert!(!mo.exists());
    // A sweep that writes files still needs --out.
    succeed(
        liquid()
            .args(crate::shards::LATENCY)
            .args(["--shard", "1/1", "--out"])
            .arg(dir.path().join("lat")),
    );
    let out = liquid()
        .arg("merge")
        .arg(dir.path().join("lat"))
        .output()
        .expect("runs");
    refused(&out, &["give --out DIR"]);
}

/// A plausible shorthand (`pattern: all-to-all`) is refused in the terms of the file, not
/// of the reader's Rust types (it said "expected struct PatternEntry").
#[test]
fn a_field_of_the_wrong_shape_names_what_it_should_be() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = dir.path().join("m.yaml");
    std::fs::write(
        &model,
        "name: x\nnetwork:\n  hosts: [a, b]\n  switches: [s]\n  links:\n    \
         - {id: a>s, from: a, to: s}\n    - {id: s>b, from: s, to: b}\npattern: all-to-all\n",
    )
    .expect("writes");
    let out = liquid().arg("analyze").arg(&model).output().expect("runs");
    let err = refused(&out, &["m.yaml:8:10: pattern:", "{type: all-to-all}"]);
    assert!(!err.contains("struct"), "{err}");
}
