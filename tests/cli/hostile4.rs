//! Hostile input, round four: a tester's findings after 0167618. Each test fails with the
//! binary of main before its fix (`LIQUID_TEST_BIN=/path/to/old/liquid cargo test --test
//! cli hostile4`) and passes after.

use std::path::Path;

use crate::common::{liquid, refused, root, succeed};

/// A copy of `models/NAME` in `dir`, and its bytes.
fn copy_model(dir: &Path, name: &str, to: &str) -> (std::path::PathBuf, Vec<u8>) {
    let path = dir.join(to);
    std::fs::copy(root().join("models").join(name), &path).expect("copy");
    let bytes = std::fs::read(&path).expect("read");
    (path, bytes)
}

/// An output file that is one of the command's inputs is refused, naming the option and
/// the file, and the input is left as it was.
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, bytes) = copy_model(dir.path(), "odd-wheel.yaml", "a.yaml");
    let m = m.to_str().expect("utf-8");
    // The same file under another spelling: ./a.yaml from the folder, and a hard link.
    let link = dir.path().join("hard.yaml");
    std::fs::hard_link(m, &link).expect("hard link");
    let link = link.to_str().expect("utf-8");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["solve", m, "--schedule-out", m], "--schedule-out"),
        (vec!["solve", m, "--schedule-out", link], "--schedule-out"),
        (vec!["crosscheck", m, "--record", m], "--record"),
        (
            vec![
                "generate",
                "sizes",
                m,
                "--dist",
                "equal",
                "--bytes-per-rank",
                "10",
                "--out",
                m,
            ],
            "--out",
        ),
        (vec!["simulate", m, "--plot", m], "--plot"),
        (vec!["export", "ibsim", m, "--out", m], "--out"),
    ];
    for (args, option) in cases {
        let out = liquid().args(&args).output().expect("runs");
        refused(&out, &[option, "a.yaml"]);
        assert_eq!(std::fs::read(m).expect("read"), bytes, "{args:?}");
    }
    // The --sizes file, and the relative spelling of the model.
    let sizes = dir.path().join("s.csv");
    std::fs::write(&sizes, "0,1,5\n").expect("write");
    let out = liquid()
        .current_dir(dir.path())
        .args(["solve", "a.yaml", "--sizes", "s.csv", "--size", "1"])
        .args(["--preemption", "none", "--schedule-out", "./s.csv"])
        .output()
        .expect("runs");
    refused(&out, &["--schedule-out", "s.csv", "--sizes"]);
    let out = liquid()
        .current_dir(dir.path())
        .args(["solve", "a.yaml", "--sizes", "s.csv", "--size", "1"])
        .args(["--schedule-out", "x.yaml", "--pieces-out", "./x.yaml"])
        .output()
        .expect("runs");
    refused(&out, &["--pieces-out", "--schedule-out", "same file"]);
    assert_eq!(std::fs::read(m).expect("read"), bytes);
}

/// `crosscheck --baseline B --update` rewrites B on purpose: not refused.
#[test]
fn crosscheck_update_still_rewrites_its_baseline() {
    let dir = tempfile::tempdir().expect("tmp");
    let base = dir.path().join("b.yaml");
    succeed(
        liquid()
            .args(["crosscheck", "models/odd-wheel.yaml", "--engines", "native"])
            .arg("--record")
            .arg(&base),
    );
    succeed(
        liquid()
            .args(["crosscheck", "models/odd-wheel.yaml", "--engines", "native"])
            .arg("--baseline")
            .arg(&base)
            .arg("--update"),
    );
}

/// `solve --stream` used no sizes and no node limit, and said nothing: refused, as
/// `analyze`, `verify` and `export mpi` with `--stream --sizes` are.
#[test]
fn solve_stream_refuses_sizes_and_node_limit() {
    for extra in [
        &["--sizes", "nonexistent.csv"][..],
        &[
            "--sizes",
            "nonexistent.csv",
            "--quantum",
            "1KiB",
            "--simulate",
        ],
        &["--sizes", "nonexistent.csv", "--link-throughput", "100"],
    ] {
        let out = liquid()
            .args(["solve", "fat-tree:4,2", "--stream"])
            .args(extra)
            .output()
            .expect("runs");
        refused(&out, &["--stream takes no --sizes"]);
    }
    let out = liquid()
        .args(["solve", "fat-tree:4,2", "--stream", "--node-limit", "5"])
        .output()
        .expect("runs");
    refused(&out, &["--stream takes no --node-limit"]);
}

/// A YAML sizes file's sizes are whole bytes in digits, read exactly, as the CSV's are:
/// `1e3` and `100.0` were accepted, and a whole number above 2^53 was rounded.
#[test]
fn yaml_sizes_are_whole_bytes_in_digits() {
    let dir = tempfile::tempdir().expect("tmp");
    for (size, want) in [
        (
            "1e3",
            "\"1e3\" is not a positive whole number of bytes (digits only)",
        ),
        (
            "100.0",
            "\"100.0\" is not a positive whole number of bytes (digits only)",
        ),
        ("[1]", "expected a whole number of bytes"),
    ] {
        let file = dir.path().join("s.yaml");
        std::fs::write(&file, format!("t1: 5\nt0: {size}\n")).expect("write");
        let out = liquid()
            .args(["analyze", "models/odd-wheel.yaml", "--size", "1"])
            .args(["--link-throughput", "100", "--sizes"])
            .arg(&file)
            .output()
            .expect("runs");
        let err = refused(&out, &["s.yaml:2:", "t0", want]);
        assert!(!err.contains("f64"), "{err}");
    }
}

/// A size above 2^53 bytes (the largest liquid computes with exactly) is refused with
/// file, line and field, in CSV and YAML; u64::MAX was accepted and its sums overflowed.
#[test]
fn sizes_above_two_to_the_53_are_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let csv = dir.path().join("s.csv");
    std::fs::write(&csv, "p0,p1,5\np0,p2,18446744073709551615\n").expect("write");
    let yaml = dir.path().join("s.yaml");
    std::fs::write(&yaml, "p0->p1: 5\np0->p2: 9007199254740993\n").expect("write");
    for (file, at) in [(&csv, "s.csv:2:7: bytes:"), (&yaml, "s.yaml:2:9: p0->p2:")] {
        let out = liquid()
            .args(["solve", "fat-tree:4,2", "--size", "1"])
            .args(["--link-throughput", "100", "--sizes"])
            .arg(file)
            .output()
            .expect("runs");
        refused(&out, &[at, "more than 9007199254740992 (2^53"]);
    }
    // Each size within the bound, a link's total above it.
    std::fs::write(&csv, "p0,p1,9007199254740992\n").expect("write");
    let out = liquid()
        .args(["analyze", "fat-tree:4,2", "--size", "1"])
        .args(["--link-throughput", "100", "--sizes"])
        .arg(&csv)
        .output()
        .expect("runs");
    refused(
        &out,
        &["s.csv: link", "bytes in all, more than 9007199254740992"],
    );
}

/// `--size` is one parser everywhere (solve's): whole bytes, at least 1, with units.
/// `simulate --size 1.5` ran 1.5-byte messages, `--size 0` gave a makespan of 0 and
/// `--size 64KiB` was refused as an invalid float.
#[test]
fn size_is_whole_bytes_everywhere() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("mpi");
    let out = out.to_str().expect("utf-8");
    let commands: [&[&str]; 4] = [
        &["simulate", "paper-fig1:", "--link-throughput", "100"],
        &[
            "export",
            "mpi",
            "paper-fig1:",
            "--link-throughput",
            "100",
            "--out",
            out,
        ],
        &["export", "simgrid", "paper-fig1:", "--out", out],
        &["study", "routing", "--out", out],
    ];
    for cmd in commands {
        for (bad, why) in [
            ("1.5", "not a whole number of bytes"),
            ("0", "at least 1 byte"),
            ("1e6", "not a whole number of bytes"),
            ("9007199254740993", "more than 9007199254740992"),
        ] {
            let o = liquid()
                .args(cmd)
                .args(["--size", bad])
                .output()
                .expect("runs");
            refused(&o, &["--size", why]);
        }
    }
    let o = succeed(
        liquid()
            .args(["simulate", "paper-fig1:", "--link-throughput", "100"])
            .args(["--engine", "dsatur", "--size", "64KiB", "--format", "json"]),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let n = v["transfers"].as_f64().expect("transfers");
    assert_eq!(v["total_bytes"].as_f64(), Some(n * 65536.0), "{v}");
    let o = liquid()
        .args(["testbed", "t1", "--out", out, "--sim-size", "1.5"])
        .output()
        .expect("runs");
    refused(&o, &["--sim-size", "not a whole number of bytes"]);
}

/// `generate sizes`: a non-zero entry the model has no transfer for (the diagonal) was
/// dropped; --zipf-s without zipf and --seed with a distribution that draws nothing did
/// nothing; messages named the distributions by internal names ("Equal", "OneHot").
#[test]
fn generate_sizes_refuses_what_it_would_drop() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("m.csv");
    std::fs::write(&m, "0,5\n7,3\n").expect("write");
    let out = liquid()
        .args([
            "generate",
            "sizes",
            "fat-tree:2,2",
            "--dist",
            "matrix",
            "--matrix",
        ])
        .arg(&m)
        .output()
        .expect("runs");
    refused(
        &out,
        &[
            "m.csv:2: row 2 column 2: 3 bytes",
            "p1 does not send to itself",
        ],
    );
    let gen = |extra: &[&str]| {
        liquid()
            .args(["generate", "sizes", "fat-tree:4,2"])
            .args(extra)
            .output()
            .expect("runs")
    };
    for dist in ["equal", "uniform", "one-hot"] {
        let out = gen(&["--dist", dist, "--bytes-per-rank", "1KiB", "--zipf-s", "2"]);
        refused(&out, &["--zipf-s goes with --dist zipf", dist]);
    }
    let out = gen(&["--dist", "equal", "--bytes-per-rank", "1KiB", "--seed", "3"]);
    refused(&out, &["--seed", "--dist equal draws nothing at random"]);
    let out = gen(&["--dist", "matrix", "--matrix", "x.csv", "--seed", "3"]);
    refused(&out, &["--seed", "--dist matrix draws nothing at random"]);
    for dist in ["one-hot", "zipf", "equal"] {
        let out = gen(&["--dist", dist]);
        let err = refused(&out, &[&format!("--dist {dist} needs --bytes-per-rank")]);
        assert!(
            !err.contains("OneHot") && !err.contains("Zipf") && !err.contains("Equal"),
            "{err}"
        );
    }
    // What still works: a seed with the distributions that draw, --zipf-s with zipf.
    succeed(
        liquid()
            .args(["generate", "sizes", "fat-tree:4,2", "--dist", "zipf"])
            .args(["--zipf-s", "1.5", "--seed", "2", "--bytes-per-rank", "1KiB"]),
    );
    succeed(
        liquid()
            .args(["generate", "sizes", "fat-tree:4,2", "--dist", "one-hot"])
            .args(["--seed", "2", "--bytes-per-rank", "1KiB"]),
    );
}

/// A sender or receiver listed twice in a network-form all-to-all, or a pair given twice,
/// is named as the user wrote it, at its entry, with the first entry's line and column:
/// it was "duplicate transfer id" at a field `.id` the pattern does not have (and, for a
/// receiver, at `pattern.senders[0]`).
#[test]
fn a_repeated_pattern_entry_is_named_as_written() {
    for (file, want) in [
        (
            "tests/fixtures/bad/duplicate-sender.yaml",
            "duplicate-sender.yaml:13:21: pattern.senders[2]: sender \"T1\" is given twice: \
             first at pattern.senders[0] (line 13, column 13)",
        ),
        (
            "tests/fixtures/bad/duplicate-receiver.yaml",
            "duplicate-receiver.yaml:14:23: pattern.receivers[2]: receiver \"R2\" is given \
             twice: first at pattern.receivers[1] (line 14, column 19)",
        ),
        (
            "tests/fixtures/bad/duplicate-pair.yaml",
            "duplicate-pair.yaml:12:31: pattern.pairs[1]: pair T1 -> R1 is given twice: first \
             at pattern.pairs[0] (line 12, column 11); give it once, with `count: N`",
        ),
    ] {
        let out = liquid().args(["analyze", file]).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{file}: {err}");
        assert!(!err.contains("transfer id"), "{file}: {err}");
    }
}
