//! Issue 31: `--stream` for solve, verify and analyze: a user's commands end to end, and
//! the streaming validator's exit codes and messages.

use crate::common::{liquid, succeed};

/// `solve --stream` writes the compact file, `verify --stream` accepts it (exit 0), and
/// the YAML form written by the same command is a schedule the in-memory `verify` accepts.
#[test]
fn solve_stream_then_verify_stream_and_yaml() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let frames = dir.path().join("s.frames");
    let out = succeed(
        liquid()
            .args(["solve", "fat-tree:8,3", "--stream", "--schedule-out"])
            .arg(&frames)
            .args(["--format", "json"]),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["verdict"], "liquid");
    assert_eq!(report["frames_made"], 127);
    assert_eq!(report["validation"]["loads_match_closed_form"], true);
    let out = succeed(
        liquid()
            .args(["verify", "fat-tree:8,3"])
            .arg(&frames)
            .args(["--stream", "--format", "json"]),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["valid"], true);
    assert_eq!(report["report"]["liquid"], true);
    let yaml = dir.path().join("s.yaml");
    succeed(
        liquid()
            .args(["solve", "fat-tree:4,3", "--stream", "--schedule-out"])
            .arg(&yaml),
    );
    let out = succeed(liquid().args(["verify", "fat-tree:4,3"]).arg(&yaml));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("liquid: true"), "{text}");
}

/// A schedule with a frame missing is rejected with exit 1, naming a missing transfer;
/// a file for another model and a YAML file are bad input (exit 2).
#[test]
fn verify_stream_rejects_and_refuses() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let prefix = dir.path().join("p.frames");
    succeed(
        liquid()
            .args([
                "solve",
                "fat-tree:4,3",
                "--stream",
                "--prefix",
                "14",
                "--schedule-out",
            ])
            .arg(&prefix),
    );
    let out = liquid()
        .args(["verify", "fat-tree:4,3"])
        .arg(&prefix)
        .arg("--stream")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("is in no timeframe"), "{text}");
    // As a prefix it is valid.
    succeed(
        liquid()
            .args(["verify", "fat-tree:4,3"])
            .arg(&prefix)
            .args(["--stream", "--prefix", "14"]),
    );
    // Stopped by the limit before a problem: undecided (`valid: null`, a warning), not
    // valid and not rejected; exit 1 as `prove` when its limit comes first.
    let out = liquid()
        .args(["verify", "fat-tree:4,3", "--schedule"])
        .arg(&prefix)
        .args(["--stream", "--prefix", "14", "--time-limit", "0"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("valid: null") && text.contains("stopped:"),
        "{text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: the time limit stopped the check"),
        "{err}"
    );
    assert!(!err.contains("rejected"), "{err}");
    let out = liquid()
        .args(["verify", "fat-tree:4,2"])
        .arg(&prefix)
        .arg("--stream")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not for \"fat-tree-4-2\""));
    let out = liquid()
        .args([
            "verify",
            "fat-tree:4,3",
            "models/paper-fig1.yaml",
            "--stream",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = liquid()
        .args(["analyze", "ring:4,1", "--stream"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// `analyze --stream` accepts 65,536 hosts and reports the closed forms.
#[test]
fn analyze_stream_at_65536_hosts() {
    let out = succeed(liquid().args(["analyze", "fat-tree:64,3", "--stream", "--format", "json"]));
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(a["hosts"], 65_536);
    assert_eq!(a["transfers"], 4_294_901_760u64);
    assert_eq!(a["duration"], 65_535);
    assert_eq!(a["bottleneck_links"], 131_072);
}

/// `export mpi --stream` writes the same rank files as the in-memory `export mpi` of the
/// native engine's schedule (the same frames); what it cannot honour is exit 2, naming
/// the option.
#[test]
fn export_mpi_stream_equals_the_in_memory_export() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (a, b) = (dir.path().join("memory"), dir.path().join("stream"));
    let common = ["--size", "2048", "--link-throughput", "100", "--out"];
    succeed(
        liquid()
            .args(["export", "mpi", "fat-tree:4,3", "--engine", "native"])
            .args(common)
            .arg(&a),
    );
    let out = succeed(
        liquid()
            .args(["export", "mpi", "fat-tree:4,3", "--stream"])
            .args(common)
            .arg(&b),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("verdict: liquid") && text.contains("ranks: 16"),
        "{text}"
    );
    for r in 0..16 {
        let name = format!("rank-{r}.txt");
        assert_eq!(
            std::fs::read(a.join(&name)).expect("written"),
            std::fs::read(b.join(&name)).expect("written"),
            "{name}"
        );
    }
    for (extra, word) in [
        (&["--mode", "async"][..], "--mode"),
        (&["--engine", "native"][..], "--engine"),
        (&["--plan", "pairwise"][..], "--plan"),
        (&["--envelope", "16"][..], "--envelope"),
    ] {
        let out = liquid()
            .args(["export", "mpi", "fat-tree:4,3", "--stream"])
            .args(extra)
            .args(common)
            .arg(dir.path().join("refused"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(word), "{extra:?}: {err}");
    }
    let out = liquid()
        .args(["export", "mpi", "fat-tree:4,3", "--stream", "--out"])
        .arg(dir.path().join("no-bandwidth"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--link-throughput"));
}

/// Multi-cluster systems: 8,192 nodes analysed without the network form; a homogeneous
/// system with a full ICN2 solved and verified frame by frame; 002's heterogeneous
/// organisation solved by rounds of cluster pairs; 257 clusters refused by
/// `solve --stream` with the reason (exit 2).
#[test]
fn multi_cluster_stream() {
    let out = succeed(liquid().args([
        "analyze",
        "multi-cluster:4,64x6",
        "--stream",
        "--format",
        "json",
    ]));
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(a["hosts"], 8192);
    assert_eq!(a["duration"], 128 * 8064);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let frames = dir.path().join("mc.frames");
    let out = succeed(
        liquid()
            .args(["solve", "multi-cluster:4,8x2", "--stream", "--schedule-out"])
            .arg(&frames)
            .args(["--format", "json"]),
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["verdict"], "liquid");
    let out = succeed(
        liquid()
            .args(["verify", "multi-cluster:4,8x2"])
            .arg(&frames)
            .args(["--stream", "--format", "json"]),
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["report"]["liquid"], true);
    let out = succeed(liquid().args([
        "solve",
        "multi-cluster:8,12x1+16x2+4x3",
        "--stream",
        "--format",
        "json",
    ]));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["verdict"], "liquid");
    assert_eq!(r["frames_made"], r["duration"]);
    let out = liquid()
        .args(["solve", "multi-cluster:4,257x1", "--stream"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cluster pairs"));
}

/// A machine family with closed forms, streamed end to end: `analyze --stream` of a large
/// machine (`big`: its spec, hosts, switches when checked, transfers and Λ), `solve
/// --stream` of a small one into a frames file (liquid, `frames` frames) that `verify
/// --stream` accepts, and machines without the closed-form schedule refused by `solve
/// --stream` (exit 2) with their reason.
fn closed_form_streams(
    big: (&str, u64, Option<u64>, u64, u64),
    small: (&str, u64),
    refused: &[(&str, &str)],
) {
    let (spec, hosts, switches, transfers, duration) = big;
    let out = succeed(liquid().args(["analyze", spec, "--stream", "--format", "json"]));
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(a["hosts"], hosts, "{spec}");
    if let Some(switches) = switches {
        assert_eq!(a["switches"], switches, "{spec}");
    }
    assert_eq!(a["transfers"], transfers, "{spec}");
    assert_eq!(a["duration"], duration, "{spec}");
    let (spec, made) = small;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let frames = dir.path().join("m.frames");
    let out = succeed(
        liquid()
            .args(["solve", spec, "--stream", "--schedule-out"])
            .arg(&frames)
            .args(["--format", "json"]),
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["verdict"], "liquid", "{spec}");
    assert_eq!(r["frames_made"], made, "{spec}");
    let out = succeed(
        liquid()
            .args(["verify", spec])
            .arg(&frames)
            .args(["--stream", "--format", "json"]),
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["report"]["liquid"], true, "{spec}");
    for (spec, why) in refused {
        let out = liquid()
            .args(["solve", spec, "--stream"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{spec}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(why), "{spec}");
    }
}

/// Issue 41: Dragonfly+ streams (the 16,512-host `dragonfly-plus:16,16,8,8` analysed); a
/// machine without the closed form, or with links no route uses, is refused.
#[test]
fn dragonfly_plus_stream() {
    closed_form_streams(
        (
            "dragonfly-plus:16,16,8,8",
            16512,
            Some(129 * 32),
            272_629_632,
            16511,
        ),
        ("dragonfly-plus:4,4,4,4", 271),
        &[
            ("dragonfly-plus:4,2,2,2", "L = S"),
            ("dragonfly-plus:2,4,1,2,5", "carry no transfer"),
        ],
    );
}

/// Issue 41: dragonflies stream (the 16,512-host balanced `dragonfly:16,8,8` analysed).
#[test]
fn dragonfly_stream() {
    closed_form_streams(
        ("dragonfly:16,8,8", 16512, None, 272_629_632, 16511),
        ("dragonfly:8,2,2", 271),
        &[("dragonfly:6,3,3", "prime power")],
    );
}

/// Issue 41: rail-optimised fat-trees stream (the 16,384-GPU `rail:2048,8,pxn` analysed;
/// a machine without PXN and with fewer spines than servers refused), and `--time-limit`
/// stops a streamed solve with `unknown`.
#[test]
fn rail_stream() {
    closed_form_streams(
        (
            "rail:2048,8,pxn",
            16384,
            Some(8 + 2048 + 2048 * 9),
            16384 * 16383,
            8 * 2047,
        ),
        ("rail:6,4,pxn", 20),
        &[("rail:8,4,2", "K = S")],
    );
    let out = liquid()
        .args([
            "solve",
            "rail:64,8",
            "--stream",
            "--time-limit",
            "0",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["verdict"], "unknown");
    assert!(r["stopped"].as_str().expect("why").contains("time limit"));
}

/// Issue 41: HyperX streams (the 16,384-host `hyperx:16x16x16,4` analysed).
#[test]
fn hyperx_stream() {
    closed_form_streams(
        ("hyperx:16x16x16,4", 16384, Some(4096), 16384 * 16383, 16383),
        ("hyperx:5x4,3", 59),
        &[("hyperx:6x6,2", "prime power")],
    );
}

/// A schedule of `spec`'s all-to-all (host `i` named `p{i}`) as pairs of host numbers,
/// written as YAML for the in-memory `verify` and in the compact format for `verify
/// --stream`; runs both and gives (exit code, problems) of each.
type Run = (Option<i32>, Vec<String>);
/// Frames as (source, destination) host numbers.
type Frames = Vec<Vec<(u32, u32)>>;
fn both_paths(spec: &str, model: &str, hosts: usize, frames: &[Vec<(u32, u32)>]) -> (Run, Run) {
    use liquid_stream::FrameSink;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (yaml, compact) = (dir.path().join("s.yaml"), dir.path().join("s.frames"));
    let mut text = format!("model: {model}\ntimeframes:\n");
    for f in frames {
        let names: Vec<String> = f.iter().map(|(s, d)| format!("p{s}->p{d}")).collect();
        text.push_str(&format!("  - [{}]\n", names.join(", ")));
    }
    std::fs::write(&yaml, text).expect("writes");
    let mut w = liquid_stream::FrameWriter::create(&compact, model, hosts).expect("creates");
    for f in frames {
        // Every frame as a sparse record, as a user's own writer may write it.
        w.pairs(f).expect("writes");
    }
    w.finish().expect("finishes");
    let run = |file: &std::path::Path, stream: bool| -> Run {
        let mut cmd = liquid();
        cmd.args(["verify", spec]).arg(file);
        if stream {
            cmd.arg("--stream");
        }
        let out = cmd.output().expect("runs");
        let report: serde_yaml::Value = serde_yaml::from_slice(&out.stdout).expect("YAML");
        let problems: Vec<String> = report["problems"]
            .as_sequence()
            .map(|v| {
                v.iter()
                    .map(|p| p.as_str().expect("text").to_string())
                    .collect()
            })
            .unwrap_or_default();
        // The location: `s.yaml:L:C: ` against `s.frames: byte B: `, each naming its file.
        let name = file.display().to_string();
        let problems = problems
            .into_iter()
            .map(|p: String| match p.strip_prefix(&name) {
                Some(rest) => {
                    let at = rest
                        .find("timeframes[")
                        .expect("a field after the location");
                    rest[at..].to_string()
                }
                None => p,
            })
            .collect();
        (out.status.code(), problems)
    };
    (run(&yaml, false), run(&compact, true))
}

/// The orbit frames of `fat-tree:4,2` (a liquid schedule): frame f sends h to h ^ (f + 1)
/// digit-wise; taken from `solve --stream`.
fn orbit_4_2() -> Frames {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("o.frames");
    succeed(
        liquid()
            .args(["solve", "fat-tree:4,2", "--stream", "--schedule-out"])
            .arg(&path),
    );
    let mut r = liquid_stream::FrameReader::open(&path).expect("opens");
    let mut frames = Vec::new();
    while let Some(f) = r.next_frame().expect("reads") {
        frames.push(f.pairs().collect());
    }
    frames
}

/// `verify --stream` lists every problem of a schedule, as the in-memory `verify` does,
/// with the same exit code (1), the field `timeframes[i]` after a file location (a byte
/// offset in the compact file, line and column in YAML): an empty frame, a repeated
/// transfer, a congesting pair, a transfer the model lacks, a missing transfer, and all
/// of them at once. It reported the first problem only.
#[test]
fn verify_stream_lists_every_problem_as_the_in_memory_verify() {
    let good = orbit_4_2();
    assert_eq!(good.len(), 7);
    let (a, b) = both_paths("fat-tree:4,2", "fat-tree-4-2", 8, &good);
    assert_eq!((a.0, b.0), (Some(0), Some(0)));
    let mut cases: Vec<(&str, Frames)> = Vec::new();
    let mut empty = good.clone();
    empty.insert(2, Vec::new());
    cases.push(("an empty frame", empty));
    let mut repeated = good.clone();
    repeated.push(vec![good[0][0]]);
    cases.push(("a repeated transfer", repeated));
    let mut congest = good.clone();
    let moved = congest[0].remove(0);
    congest[1].push(moved);
    cases.push(("a congesting pair", congest));
    let mut unknown = good.clone();
    unknown[0].push((3, 3));
    cases.push(("a transfer the model lacks", unknown));
    let mut missing = good.clone();
    missing[0].remove(1);
    cases.push(("a missing transfer", missing));
    let mut all = good.clone();
    let again = all[1][0];
    all[1].push(again); // twice in frame 2
    all.insert(2, Vec::new()); // an empty frame 3
    all[4].push((3, 3)); // no transfer (frame 5)
    all[5].remove(0); // missing
    all[6].push((0, 3)); // congests in frame 7, and repeated
    cases.push(("all at once", all));
    for (what, frames) in &cases {
        let ((code, memory), (scode, streamed)) =
            both_paths("fat-tree:4,2", "fat-tree-4-2", 8, frames);
        assert_eq!((code, scode), (Some(1), Some(1)), "{what}");
        // The streamed message for a transfer the model lacks says why, after the
        // in-memory one.
        let streamed: Vec<String> = streamed
            .into_iter()
            .map(|p| match p.find(" (a host does not send to itself") {
                Some(at) => p[..at].to_string(),
                None => p,
            })
            .collect();
        if *what == "all at once" {
            // The one difference the one pass makes: transfer p0->p3 is repeated in a frame
            // where it congests; the in-memory check knows it is a repetition and checks
            // only its first copy for congestion, the stream checks every copy.
            let extra: Vec<&String> = streamed.iter().filter(|p| !memory.contains(p)).collect();
            assert!(
                extra.iter().all(|p| p.contains("and \"p0->p3\" congest")),
                "{extra:?}\n{memory:#?}\n{streamed:#?}"
            );
            assert!(!extra.is_empty());
            let rest: Vec<&String> = streamed.iter().filter(|p| memory.contains(p)).collect();
            assert_eq!(rest, memory.iter().collect::<Vec<_>>(), "{what}");
        } else {
            assert_eq!(memory, streamed, "{what}");
        }
        assert!(!memory.is_empty());
    }
}

/// The frames a problem names are numbered as its location `timeframes[i]` is, from 0,
/// in both paths: a frame given twice was `timeframes[1]: transfer "p0->p1" appears in
/// timeframes 1 and 2` (the copies are in timeframes[0] and timeframes[1]), and an empty
/// frame `timeframes[2]: timeframe 3 is empty`.
#[test]
fn verify_names_timeframes_as_their_locations() {
    let good = orbit_4_2();
    let mut frames = good.clone();
    frames[1] = good[0].clone(); // frame 0 again as frame 1
    frames.insert(2, Vec::new()); // an empty frame 2
    let ((code, memory), (scode, streamed)) =
        both_paths("fat-tree:4,2", "fat-tree-4-2", 8, &frames);
    assert_eq!((code, scode), (Some(1), Some(1)));
    let (s, d) = good[0][0];
    for problems in [&memory, &streamed] {
        assert!(
            problems.contains(&format!(
                "timeframes[1]: transfer \"p{s}->p{d}\" appears in timeframes[0] and timeframes[1]"
            )),
            "{problems:#?}"
        );
        assert!(
            problems.contains(&"timeframes[2]: the timeframe is empty".to_string()),
            "{problems:#?}"
        );
    }
}

/// Beyond 20 problems both paths list the first 20 and count the rest; the stream names
/// the missing transfers of the first 20 wrong sources and bounds the others' count.
#[test]
fn verify_stream_lists_twenty_problems_then_counts() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let prefix = dir.path().join("p.frames");
    let yaml = dir.path().join("p.yaml");
    for out in [&prefix, &yaml] {
        succeed(
            liquid()
                .args(["solve", "fat-tree:4,3", "--stream", "--prefix", "14"])
                .arg("--schedule-out")
                .arg(out),
        );
    }
    let problems = |spec: &str, file: &std::path::Path, stream: bool| {
        let mut cmd = liquid();
        cmd.args(["verify", spec]).arg(file);
        if stream {
            cmd.arg("--stream");
        }
        let out = cmd.output().expect("runs");
        assert_eq!(out.status.code(), Some(1));
        let v: serde_yaml::Value = serde_yaml::from_slice(&out.stdout).expect("YAML");
        let list: Vec<String> = v["problems"]
            .as_sequence()
            .expect("problems")
            .iter()
            .map(|p| p.as_str().expect("text").to_string())
            .collect();
        list
    };
    // 16 hosts: every source misses one transfer (the 15th frame), 16 problems.
    let (memory, streamed) = (
        problems("fat-tree:4,3", &yaml, false),
        problems("fat-tree:4,3", &prefix, true),
    );
    assert_eq!(memory.len(), 16);
    assert_eq!(memory, streamed);
    // 128 hosts: 128 missing transfers, the first 20 listed.
    let big = dir.path().join("b.frames");
    succeed(
        liquid()
            .args(["solve", "fat-tree:8,3", "--stream", "--prefix", "126"])
            .arg("--schedule-out")
            .arg(&big),
    );
    let streamed = problems("fat-tree:8,3", &big, true);
    assert_eq!(streamed.len(), 21, "{streamed:#?}");
    assert!(streamed[..20]
        .iter()
        .all(|p| p.ends_with("is in no timeframe")));
    assert!(
        streamed[20]
            .starts_with("and at least 108 more: the transfers of 108 more sources (from p20)"),
        "{}",
        streamed[20]
    );
}

/// A streamed schedule that cannot fit where it goes is refused before a byte is written:
/// fat-tree:256,3 (2^22 hosts) makes 53 TB, more than any disk this runs on has free.
#[test]
fn solve_stream_refuses_a_file_larger_than_the_free_space() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let frames = dir.path().join("big.frames");
    let out = liquid()
        .args(["solve", "fat-tree:256,3", "--stream", "--schedule-out"])
        .arg(&frames)
        .output()
        .expect("runs");
    crate::common::refused(&out, &["52776.5 GB", "GB free in", "--prefix K"]);
    assert!(!frames.exists(), "nothing written");
    // So is an MPI plan of it (2^22 rank files of 2^22 lines each).
    let plan = dir.path().join("plan");
    let out = liquid()
        .args([
            "export",
            "mpi",
            "fat-tree:256,3",
            "--stream",
            "--link-throughput",
            "1000",
        ])
        .arg("--out")
        .arg(&plan)
        .output()
        .expect("runs");
    crate::common::refused(&out, &["4194304 rank files", "GB free in"]);
    assert!(!plan.join("rank-0.txt").exists(), "no rank file written");
    // A plan that fits but whose rank files take longer than the limit stops there
    // (they looked at no clock: 8,192 files of 8,191 expect lines each).
    let out = liquid()
        .args([
            "export",
            "mpi",
            "fat-tree:32,3",
            "--stream",
            "--link-throughput",
            "1000",
        ])
        .args(["--time-limit", "0.05", "--out"])
        .arg(dir.path().join("plan32"))
        .output()
        .expect("runs");
    crate::common::refused(
        &out,
        &["the time limit stopped the plan's rank files after"],
    );
    // /dev/null holds nothing: the run goes on (here until its limit).
    let out = succeed(liquid().args([
        "solve",
        "fat-tree:256,3",
        "--stream",
        "--schedule-out",
        "/dev/null",
        "--time-limit",
        "0.5",
    ]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict: unknown"));
}
