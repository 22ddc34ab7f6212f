//! Issue 8: generated models (`liquid generate`, specs in place of model files).

use crate::common::{liquid, refused, succeed};
use crate::snap;

/// The snapshot is the check here: the output is the generated instance itself, and
/// what `generate` promises is that instance, byte for byte (host and link names, routes,
/// their order); any change to it must be looked at. That paper-fig1's generator gives
/// the bundled model is checked independently below.
#[test]
fn generate_small_instances() {
    for (name, args) in [
        ("paper-fig1", vec!["paper-fig1"]),
        (
            "t1-1-0-1-0-0-0-0-1",
            vec!["t1", "--alloc", "1,0,1,0,0,0,0,1"],
        ),
        (
            "fat-tree-4-1",
            vec!["fat-tree", "--ports", "4", "--levels", "1"],
        ),
        (
            "ring-3-1",
            vec!["ring", "--switches", "3", "--hosts-per-switch", "1"],
        ),
        ("torus-2x3", vec!["torus", "--dims", "2x3"]),
        (
            "mesh-2x2-self",
            vec!["mesh", "--dims", "2x2", "--self-transfers"],
        ),
        (
            "ring-3-1-network",
            vec!["ring", "--switches", "3", "--form", "network"],
        ),
    ] {
        let mut a = vec!["generate"];
        a.extend(args);
        snap!(format!("generate@{name}"), liquid().args(&a));
    }
}

#[test]
fn generated_paper_fig1_is_the_model_file() {
    let gen = liquid()
        .args(["expand", "paper-fig1:"])
        .output()
        .expect("runs");
    let file = liquid()
        .args(["expand", "models/paper-fig1.yaml"])
        .output()
        .expect("runs");
    assert!(gen.status.success() && file.status.success());
    assert_eq!(gen.stdout, file.stdout);
}

/// `generate SPEC` writes what the generator's options write, in both forms and to a
/// file; a word that is neither generator nor spec, a bad spec and an unknown option are
/// refused (exit 2) with what to do.
#[test]
fn generate_takes_a_spec_in_place_of_a_generator() {
    let dir = tempfile::tempdir().expect("tempdir");
    for form in ["explicit", "network"] {
        let by_options = succeed(liquid().args([
            "generate",
            "ring",
            "--switches",
            "3",
            "--hosts-per-switch",
            "2",
            "--form",
            form,
        ]));
        let by_spec = succeed(liquid().args(["generate", "ring:3,2", "--form", form]));
        assert_eq!(by_spec.stdout, by_options.stdout, "{form}");
        let out = dir.path().join(format!("{form}.yaml"));
        succeed(
            liquid()
                .args(["generate", "ring:3,2", "--form", form, "--out"])
                .arg(&out),
        );
        assert_eq!(
            std::fs::read(&out).expect("written"),
            by_options.stdout,
            "{form}"
        );
    }
    let run = |args: &[&str]| liquid().args(args).output().expect("runs");
    refused(
        &run(&["generate", "fattree:4,3"]),
        &["did you mean fat-tree:4,3"],
    );
    refused(
        &run(&["generate", "blah"]),
        &["neither a generator nor a spec"],
    );
    refused(
        &run(&["generate", "fat-tree:5,3"]),
        &["fat-tree:5,3", "even"],
    );
    refused(
        &run(&["generate", "fat-tree:4,3", "--bogus"]),
        &["'--bogus'"],
    );
    // Help is no error.
    let help = succeed(liquid().args(["generate", "fat-tree:4,3", "--help"]));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("Usage: liquid generate fat-tree:4,3") && text.contains("--form"),
        "{text}"
    );
}

/// The snapshots show the reports; independently of them, `analyze SPEC` says what
/// `analyze` says of the file `generate` writes for the same spec.
#[test]
fn analyze_specs() {
    for spec in [
        "t1:1,0,1,0,0,0,0,1",
        "t1:4,4,4,4,0,0,2,1",
        "fat-tree:4,2",
        "torus:3x3,1",
    ] {
        snap!(
            format!("analyze-spec@{}", spec.replace([':', ','], "-")),
            liquid().args(["analyze", spec, "--format", "json"])
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("generated.yaml");
        let expanded = succeed(liquid().args(["expand", spec]));
        std::fs::write(&file, &expanded.stdout).expect("write");
        let from_spec = succeed(liquid().args(["analyze", spec, "--format", "json"]));
        let from_file = succeed(
            liquid()
                .arg("analyze")
                .arg(&file)
                .args(["--format", "json"]),
        );
        let a: serde_json::Value = serde_json::from_slice(&from_spec.stdout).expect("JSON");
        let b: serde_json::Value = serde_json::from_slice(&from_file.stdout).expect("JSON");
        for key in ["transfers", "links", "duration", "conflict_edges"] {
            assert_eq!(a[key], b[key], "{spec}: {key}");
        }
        // The same bottleneck links (listed in link order, which the file's order sets).
        let sorted = |v: &serde_json::Value| {
            let mut l: Vec<String> = serde_json::from_value(v.clone()).expect("links");
            l.sort();
            l
        };
        assert_eq!(
            sorted(&a["bottlenecks"]),
            sorted(&b["bottlenecks"]),
            "{spec}"
        );
    }
}

#[test]
fn full_t1_has_1024_transfers_and_48704_edges() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("t1.yaml");
    let status = liquid()
        .args(["generate", "t1", "--alloc", "4,4,4,4,4,4,4,4", "--out"])
        .arg(&file)
        .status()
        .expect("runs");
    assert!(status.success());
    let out = liquid()
        .arg("analyze")
        .arg(&file)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["transfers"], 1024);
    assert_eq!(v["conflict_vertices"], 1024);
    assert_eq!(v["conflict_edges"], 48704);
    assert_eq!(v["duration"], 48);
}

/// The snapshot shows the report; independently of it, the 4-host all-to-all of a
/// one-level 4-port fat-tree is liquid in Λ = 3 frames and its schedule is valid.
#[test]
fn solve_accepts_specs() {
    let out = succeed(liquid().args([
        "solve",
        "fat-tree:4,1",
        "--engine",
        "dsatur",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        (v["verdict"].as_str(), v["length"].as_u64()),
        (Some("liquid"), Some(3))
    );
    let frames: Vec<Vec<String>> =
        serde_json::from_value(v["timeframes"].clone()).expect("a schedule");
    let mut all: Vec<&String> = frames.iter().flatten().collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 12, "the 12 transfers, each once");
    snap!(
        "solve-spec@fat-tree-4-1",
        liquid().args(["solve", "fat-tree:4,1", "--engine", "dsatur"])
    );
}

#[test]
fn bad_specs_are_input_errors() {
    for (name, args) in [
        ("t1-short", vec!["analyze", "t1:4,4"]),
        ("t1-too-many", vec!["analyze", "t1:5,0,0,0,0,0,0,0"]),
        ("t1-empty", vec!["analyze", "t1:0,0,0,0,0,0,0,0"]),
        ("fat-tree-odd", vec!["solve", "fat-tree:3,2"]),
        ("torus-one-dim", vec!["analyze", "torus:4"]),
        (
            "generate-bad-alloc",
            vec!["generate", "t1", "--alloc", "1,2,x,0,0,0,0,0"],
        ),
        (
            "generate-bad-dims",
            vec!["generate", "torus", "--dims", "3y3"],
        ),
        (
            "generate-huge",
            vec!["generate", "fat-tree", "--ports", "8", "--levels", "6"],
        ),
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: ") && !err.contains("panicked"),
            "{name}: {err}"
        );
        snap!(format!("bad-spec@{name}"), liquid().args(&args));
    }
}

/// A CSV with the columns named `*_time_s` blanked: what two runs of a sweep must agree on.
fn untimed_csv(text: &str) -> String {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let mut out = header.join(",");
    out.push('\n');
    for line in lines {
        let cells: Vec<&str> = line
            .split(',')
            .zip(&header)
            .map(|(c, h)| if h.ends_with("_time_s") { "-" } else { c })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[test]
fn testbed_shards_merge_into_the_unsharded_sweep() {
    // Three shards (native search off: time limit 0), then the merge: every class once,
    // and the same files as the unsharded run, byte for byte (timings aside).
    let dir = tempfile::tempdir().expect("tempdir");
    let shards = dir.path().join("shards");
    for s in ["1/3", "2/3", "3/3"] {
        succeed(
            liquid()
                .args(["testbed", "t1", "--shard", s, "--time-limit", "0", "--out"])
                .arg(&shards),
        );
    }
    let full = dir.path().join("full");
    succeed(
        liquid()
            .args(["testbed", "t1", "--time-limit", "0", "--out"])
            .arg(&full),
    );
    let merged = dir.path().join("merged");
    let out = succeed(
        liquid()
            .arg("merge")
            .arg(&shards)
            .arg("--out")
            .arg(&merged)
            .args(["--format", "json"]),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["classes"], 363);
    assert_eq!(v["classes_without_one_node"], 362);
    assert_eq!(v["classes_in_this_output"], 363);
    let read = |d: &std::path::Path, f: &str| std::fs::read_to_string(d.join(f)).expect("written");
    let csv = read(&merged, "t1-classes.csv");
    assert_eq!(csv.lines().count(), 364);
    assert_eq!(
        untimed_csv(&csv),
        untimed_csv(&read(&full, "t1-classes.csv"))
    );
    for svg in [
        "t1-liquid-throughput.svg",
        "t1-round-robin.svg",
        "t1-dsatur-loss.svg",
    ] {
        let text = read(&merged, svg);
        assert!(text.starts_with("<svg") && text.ends_with("</svg>\n"));
        assert_eq!(text, read(&full, svg), "{svg}");
    }
    let fail = |paths: &[std::path::PathBuf]| {
        let out = liquid()
            .arg("merge")
            .args(paths)
            .arg("--out")
            .arg(dir.path().join("partial"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{paths:?}");
        String::from_utf8(out.stderr).expect("UTF-8")
    };
    let shard = |i: usize| shards.join(format!("t1-testbed-shard-{i}-of-3.json"));
    // A missing shard is named.
    let e = fail(&[shard(1), shard(3)]);
    assert!(e.contains("shard 2 of 3 is missing"), "{e}");
    // A duplicated one too.
    let copy = dir.path().join("copy.json");
    std::fs::copy(shard(2), &copy).expect("copy");
    let e = fail(&[shard(1), shard(2), shard(3), copy.clone()]);
    assert!(e.contains("copy.json: shard 2/3 is given twice"), "{e}");
    // And a shard of another run (other options).
    let other = dir.path().join("other");
    succeed(
        liquid()
            .args([
                "testbed",
                "t1",
                "--shard",
                "2/3",
                "--time-limit",
                "1",
                "--out",
            ])
            .arg(&other),
    );
    let e = fail(&[
        shard(1),
        other.join("t1-testbed-shard-2-of-3.json"),
        shard(3),
    ]);
    assert!(
        e.contains("foreign shard: its params.time_limit_s differs"),
        "{e}"
    );
}
