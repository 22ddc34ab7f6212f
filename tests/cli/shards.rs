//! Issue 30: every sweep with `--shard i/n` and `liquid merge`. For each sweep, the shards
//! merged give the unsharded run's files and output byte for byte (timings aside), and a
//! missing, duplicated or foreign shard is an error (exit 2) that names it.

use std::path::{Path, PathBuf};

use crate::common::{liquid, succeed};

/// What two runs of a sweep must agree on: the text with the CSV columns named `*_time_s`
/// blanked, every line holding a timing (`..._time_s: ...`, `wall time`) blanked, and the
/// run's folder written DIR.
fn untimed(text: &str, dir: &Path) -> String {
    let dir = dir.display().to_string();
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return String::new();
    };
    let header: Vec<&str> = first.split(',').collect();
    let timed: Vec<bool> = header.iter().map(|h| h.ends_with("_time_s")).collect();
    let mut out = String::new();
    for line in std::iter::once(first).chain(lines) {
        let line = line.replace(&dir, "DIR");
        if line.contains("time_s:") || line.contains("time_s\":") || line.contains("wall time") {
            out.push_str("-\n");
            continue;
        }
        let cells: Vec<&str> = line.split(',').collect();
        if timed.iter().any(|&t| t) && cells.len() == header.len() {
            let cells: Vec<&str> = cells
                .iter()
                .zip(&timed)
                .map(|(c, &t)| if t { "-" } else { c })
                .collect();
            out.push_str(&cells.join(","));
        } else {
            out.push_str(&line);
        }
        out.push('\n');
    }
    out
}

/// The files under `dir`, relative, sorted (none if it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if !dir.exists() {
        return out;
    }
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("readable") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).expect("inside").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Runs the sweep `args` (without `--out`) unsharded into DIR/full, as `n` shards into
/// DIR/shards and merged into DIR/merged, and checks that the merge wrote the same files
/// and printed the same as the unsharded run (timings and paths aside). Returns the shard
/// files, in shard order.
fn shards_merge_into_the_unsharded_run(dir: &Path, args: &[&str], n: usize) -> Vec<PathBuf> {
    shards_merge(dir, args, n, true)
}

/// [`shards_merge_into_the_unsharded_run`]; `writes` says whether the sweep writes files
/// (into its --out) or only prints (crosscheck: --out only takes its shard files).
fn shards_merge(dir: &Path, args: &[&str], n: usize, writes: bool) -> Vec<PathBuf> {
    let full = dir.join("full");
    let unsharded = if writes {
        succeed(liquid().args(args).arg("--out").arg(&full))
    } else {
        std::fs::create_dir_all(&full).expect("mkdir");
        succeed(liquid().args(args))
    };
    let shards = dir.join("shards");
    for i in 1..=n {
        succeed(
            liquid()
                .args(args)
                .args(["--shard", &format!("{i}/{n}"), "--out"])
                .arg(&shards),
        );
    }
    let merged = dir.join("merged");
    let out = succeed(liquid().arg("merge").arg(&shards).arg("--out").arg(&merged));
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("UTF-8");
    assert_eq!(
        untimed(&text(&out.stdout), &merged),
        untimed(&text(&unsharded.stdout), &full),
        "{args:?}: what the merge prints"
    );
    let written = files(&full);
    assert_eq!(
        written.is_empty(),
        !writes,
        "{args:?}: what the unsharded run wrote"
    );
    assert_eq!(files(&merged), written, "{args:?}: the files written");
    for f in &written {
        let a = std::fs::read(full.join(f)).expect("readable");
        let b = std::fs::read(merged.join(f)).expect("readable");
        if a != b {
            assert_eq!(
                untimed(&text(&b), &merged),
                untimed(&text(&a), &full),
                "{args:?}: {} differs",
                f.display()
            );
        }
    }
    let mut got = files(&shards);
    got.retain(|f| f.to_string_lossy().ends_with(".json"));
    assert_eq!(got.len(), n, "{got:?}");
    (1..=n)
        .map(|i| {
            let f = got
                .iter()
                .find(|f| {
                    f.to_string_lossy()
                        .ends_with(&format!("-shard-{i}-of-{n}.json"))
                })
                .expect("one file per shard");
            shards.join(f)
        })
        .collect()
}

/// The merge refuses, with exit 2 and a message naming the file or the shard, a set of
/// shards with one missing, one given twice, and one of another run (`foreign`, the same
/// shard index of a run with other options).
fn bad_shard_sets_are_named(dir: &Path, shards: &[PathBuf], foreign: &Path) {
    assert!(shards.len() >= 3);
    let fail = |paths: &[PathBuf]| {
        let out = liquid()
            .arg("merge")
            .args(paths)
            .arg("--out")
            .arg(dir.join("partial"))
            .output()
            .expect("runs");
        let e = String::from_utf8(out.stderr).expect("UTF-8");
        assert_eq!(out.status.code(), Some(2), "{paths:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
        e
    };
    let n = shards.len();
    let e = fail(&[&shards[..1], &shards[2..]].concat());
    assert!(e.contains(&format!("shard 2 of {n} is missing")), "{e}");
    let copy = dir.join("copy.json");
    std::fs::copy(&shards[1], &copy).expect("copy");
    let e = fail(&[shards.to_vec(), vec![copy]].concat());
    assert!(
        e.contains(&format!("copy.json: shard 2/{n} is given twice")),
        "{e}"
    );
    let mut mixed = shards.to_vec();
    mixed[1] = foreign.to_path_buf();
    let e = fail(&mixed);
    assert!(
        e.contains(&format!("{}: foreign shard", foreign.display())),
        "{e}"
    );
    assert!(
        !dir.join("partial").exists(),
        "a refused merge wrote nothing"
    );
}

/// Runs shard 2/n of `args` into DIR/other: a shard of another run when `args` differ
/// from the run's.
fn other_run(dir: &Path, args: &[&str], n: usize) -> PathBuf {
    let other = dir.join("other");
    succeed(
        liquid()
            .args(args)
            .args(["--shard", &format!("2/{n}"), "--out"])
            .arg(&other),
    );
    let f = files(&other);
    assert_eq!(f.len(), 1, "{f:?}");
    other.join(&f[0])
}

pub(crate) const LATENCY: [&str; 16] = [
    "latency",
    "study",
    "--systems",
    "4,1+2",
    "--sizes",
    "4:256,8:128",
    "--points",
    "3",
    "--messages",
    "400",
    "--warmup",
    "40",
    "--drain",
    "40",
    "--replications",
    "2",
];

#[test]
fn latency_study_shards_merge_into_the_unsharded_study() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Six loads on four shards: two shards hold two, two hold one.
    let shards = shards_merge_into_the_unsharded_run(dir.path(), &LATENCY, 4);
    let mut other = LATENCY.to_vec();
    other[15] = "3";
    let foreign = other_run(dir.path(), &other, 4);
    bad_shard_sets_are_named(dir.path(), &shards, &foreign);
}

#[test]
fn latency_study_markdown_comes_out_of_the_merge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let full = dir.path().join("full");
    let md = dir.path().join("study.md");
    succeed(
        liquid()
            .args(LATENCY)
            .arg("--out")
            .arg(&full)
            .arg("--markdown")
            .arg(&md),
    );
    let shards = dir.path().join("shards");
    for s in ["1/2", "2/2"] {
        succeed(
            liquid()
                .args(LATENCY)
                .args(["--shard", s, "--markdown", "elsewhere/study.md", "--out"])
                .arg(&shards),
        );
    }
    assert!(
        !dir.path().join("elsewhere").exists(),
        "a shard writes no report"
    );
    let merged = dir.path().join("merged");
    succeed(liquid().arg("merge").arg(&shards).arg("--out").arg(&merged));
    assert_eq!(
        std::fs::read_to_string(merged.join("study.md")).expect("the merge writes the report"),
        std::fs::read_to_string(&md).expect("written")
    );
    // Shards are not trusted: a report name that is a path (absolute, or out of --out) is
    // refused, and nothing is written there.
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "mine\n").expect("write");
    for name in [victim.to_str().expect("UTF-8"), "../escape.md", "sub/x.md"] {
        let edited = dir.path().join("edited");
        let _ = std::fs::remove_dir_all(&edited);
        std::fs::create_dir(&edited).expect("mkdir");
        for f in files(&shards) {
            let mut v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(shards.join(&f)).expect("read"))
                    .expect("JSON");
            v["params"]["markdown"] = name.into();
            let to = edited.join(f.file_name().expect("name"));
            std::fs::write(&to, serde_json::to_vec(&v).expect("JSON")).expect("write");
        }
        let out = liquid()
            .arg("merge")
            .arg(&edited)
            .arg("--out")
            .arg(dir.path().join("m2"))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("params.markdown: {name:?} is not a file name")),
            "{name}: {err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "mine\n");
    assert!(!dir.path().join("escape.md").exists());
}

const TWO_CLUSTERS: [&str; 12] = [
    "study",
    "two-clusters",
    "--size-exponents",
    "10..12",
    "--size-cases",
    "4+4,3+5",
    "--equal",
    "2,3",
    "--double",
    "2",
    "--node-sizes",
    "65536",
];

#[test]
fn two_cluster_shards_merge_into_the_unsharded_study() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Nine items (two cases at three sizes, three node-sweep cases at one) on four
    // shards, the Markdown report included.
    let shards = {
        // The unsharded run writes report.md where it runs; the merge into its --out.
        let full = dir.path().join("full");
        std::fs::create_dir_all(&full).expect("mkdir");
        let mut a = TWO_CLUSTERS.to_vec();
        let md = full.join("report.md");
        let md = md.to_str().expect("UTF-8");
        a.extend(["--markdown", md]);
        shards_merge_into_the_unsharded_run(dir.path(), &a, 4)
    };
    let text = std::fs::read_to_string(dir.path().join("merged/report.md")).expect("report");
    assert!(text.contains("| 3+5 |"), "{text}");
    let mut other = TWO_CLUSTERS.to_vec();
    other.extend(["--overhead", "1e-6"]);
    let foreign = other_run(dir.path(), &other, 4);
    bad_shard_sets_are_named(dir.path(), &shards, &foreign);
    // Shards whose schedules for one case differ (an engine stopped by its time limit in
    // one shard only) are refused, naming the case. Shard 1 holds 4+4 at 1 KiB, shard 2
    // 4+4 at 2 KiB: make shard 2 claim a longer schedule.
    let text = std::fs::read_to_string(&shards[1]).expect("shard");
    let at = text.find("\"length\":").expect("a schedule length") + "\"length\":".len();
    let end = at
        + text[at..]
            .find(|c: char| !c.is_ascii_digit())
            .expect("digits");
    let longer: usize = text[at..end].parse::<usize>().expect("a length") + 1;
    let tampered = format!("{}{longer}{}", &text[..at], &text[end..]);
    std::fs::write(&shards[1], tampered).expect("write");
    let out = liquid()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(dir.path().join("tampered"))
        .output()
        .expect("runs");
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("different schedules or plans for 4+4"), "{e}");
}

#[test]
fn crosscheck_shards_merge_into_the_unsharded_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let models = crate::common::root().join("models");
    let models = models.to_str().expect("UTF-8");
    // models/ holds seven models and a schedule file, which goes with its model.
    let args = [
        "crosscheck",
        models,
        "--engines",
        "native,dsatur,exact",
        "--time-limit",
        "10",
        "--format",
        "yaml",
    ];
    let shards = shards_merge(dir.path(), &args, 3, false);
    let text = std::fs::read_to_string(&shards[0]).expect("shard");
    assert!(
        text.contains("schedule ") && text.contains("paper-fig1-liquid-schedule.yaml"),
        "the schedule file is checked with its model"
    );
    let mut other = args.to_vec();
    other[5] = "20";
    let foreign = other_run(dir.path(), &other, 3);
    bad_shard_sets_are_named(dir.path(), &shards, &foreign);
    // A shard keeps no baseline.
    let out = liquid()
        .args(args)
        .args(["--shard", "1/3", "--record", "b.yaml", "--out"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_shards_merge_into_the_unsharded_reports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = crate::common::root();
    let m = |f: &str| root.join("models").join(f).display().to_string();
    let (wheel, cycle, team, fig1) = (
        m("odd-wheel.yaml"),
        m("odd-cycle.yaml"),
        m("no-team.yaml"),
        m("paper-fig1.yaml"),
    );
    for format in ["yaml", "json"] {
        let sub = dir.path().join(format);
        let args = [
            "explain",
            &wheel,
            &cycle,
            &team,
            &fig1,
            "--time-limit",
            "10",
            "--format",
            format,
        ];
        let shards = shards_merge(&sub, &args, 3, false);
        let mut other = args.to_vec();
        other[6] = "20";
        let foreign = other_run(&sub, &other, 3);
        bad_shard_sets_are_named(&sub, &shards, &foreign);
    }
    // The unsharded run of several models lists their reports in order; one model's
    // report is printed as before (a mapping, not a list of one).
    let many = succeed(liquid().args(["explain", &wheel, &fig1]));
    let many = String::from_utf8(many.stdout).expect("UTF-8");
    assert!(many.starts_with("- model: odd-wheel\n"), "{many}");
    assert!(many.contains("\n- model: paper-fig1\n"), "{many}");
    let one = succeed(liquid().args(["explain", &wheel]));
    assert!(String::from_utf8(one.stdout)
        .expect("UTF-8")
        .starts_with("model: odd-wheel\n"));
}
