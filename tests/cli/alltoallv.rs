//! Unequal messages (issue 43): `generate sizes`, `analyze --sizes`, `solve --sizes`,
//! and the sizes file in every form and error.

use std::path::Path;

use crate::common::{liquid, succeed};

fn run_json(args: &[&str]) -> serde_json::Value {
    let out = succeed(liquid().args(args).args(["--format", "json"]));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn refused(args: &[&str], want: &str) {
    let out = liquid().args(args).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("UTF-8").to_string()
}

/// `liquid generate sizes SPEC --dist DIST --bytes-per-rank BYTES EXTRA...` written to
/// `dir/s.csv`; its path.
fn sizes_file(dir: &Path, spec: &str, dist: &str, bytes: &str, extra: &[&str]) -> String {
    let out = succeed(
        liquid()
            .args(["generate", "sizes", spec, "--dist", dist])
            .args(["--bytes-per-rank", bytes])
            .args(extra),
    );
    write(dir, "s.csv", &String::from_utf8(out.stdout).expect("UTF-8"))
}

#[test]
fn generated_sizes_are_seeded_and_read_back() {
    let gen = |seed: &str| {
        succeed(liquid().args([
            "generate",
            "sizes",
            "fat-tree:4,2",
            "--dist",
            "zipf",
            "--zipf-s",
            "1.5",
            "--bytes-per-rank",
            "1MiB",
            "--seed",
            seed,
        ]))
        .stdout
    };
    let (a, b, c) = (gen("1"), gen("1"), gen("2"));
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Fewer bytes than destinations: 1 byte to each, more than asked, and stderr says so.
    let few = |bytes: &str| {
        let out = succeed(
            liquid()
                .args(["generate", "sizes", "fat-tree:4,2", "--dist"])
                .args(["equal", "--bytes-per-rank", bytes]),
        );
        String::from_utf8(out.stderr).expect("UTF-8")
    };
    let err = few("5");
    assert!(
        err.contains("warning: 8 ranks have more destinations than --bytes-per-rank 5"),
        "{err}"
    );
    assert_eq!(
        few("7"),
        "",
        "7 bytes over 7 destinations: 1 each, as asked"
    );
    let text = String::from_utf8(a).expect("UTF-8");
    assert!(text.starts_with("src,dst,bytes\np0,p1,"), "{text}");
    assert_eq!(text.lines().count(), 1 + 56);
    let d = tempfile::tempdir().expect("tempdir");
    let f = write(d.path(), "s.csv", &text);
    let r = run_json(&[
        "analyze",
        "fat-tree:4,2",
        "--sizes",
        &f,
        "--link-throughput",
        "1000",
    ]);
    assert_eq!(r["sizes"]["messages"], 56);
    assert_eq!(r["sizes"]["defaulted"], 0);
    // The analysis is still there (Λ and its bottlenecks), the time bound beside it.
    assert_eq!(r["duration"], 7);
    let bound = &r["time_bound"];
    assert_eq!(bound["by"], "bottleneck links");
    let link = &bound["bottlenecks"][0];
    let secs = link["bytes"].as_f64().expect("bytes") / 1e9;
    assert!((bound["seconds"].as_f64().expect("seconds") - secs).abs() < 1e-12);
}

#[test]
fn the_bound_of_a_hand_made_file() {
    let d = tempfile::tempdir().expect("tempdir");
    // paper-fig1's transfers as pairs: only some given, the rest by --size.
    let m = write(
        d.path(),
        "m.yaml",
        "name: m\nlink_throughput: 1\ntransfers:\n  - {id: a, from: h0, to: h1, path: [x, y]}\n  - {id: b, from: h2, to: h1, path: [z, y]}\n  - {id: c, from: h0, to: h3, path: [x, w]}\n",
    );
    // Indices (h0 = 0, h1 = 1, h2 = 2, h3 = 3) and names mixed; header present.
    let s = write(
        d.path(),
        "s.csv",
        "src,dst,bytes\n0,1,3000000\nh2,h1,2000000\n",
    );
    let r = run_json(&["analyze", &m, "--sizes", &s, "--size", "500000"]);
    let b = &r["time_bound"];
    // y carries a and b: 5 MB at 1 MB/s = 5 s; x carries a and c: 3.5 s.
    assert_eq!(b["seconds"], 5.0);
    assert_eq!(b["bottlenecks"][0]["link"], "y");
    assert_eq!(r["sizes"]["defaulted"], 1);
    // Without --size, the pair left out is an error that says the rule.
    refused(
        &["analyze", &m, "--sizes", &s],
        "1 of the 3 transfers of model \"m\" have no size, the first \"c\"",
    );
}

#[test]
fn bad_sizes_name_file_line_and_field() {
    let d = tempfile::tempdir().expect("tempdir");
    let cases = [
        ("p0,p1,10\nq9,p1,5\n", ":2:1: src: no host \"q9\""),
        ("p0,p0,10\n", ":1:1: src,dst: p0 -> p0 is not a transfer"),
        (
            "p0,p1,10\np0,p1,11\n",
            ":2:1: src,dst: p0 -> p1 is given twice (first on line 1)",
        ),
        ("p0,p1,0\n", ":1:7: bytes: 0 bytes"),
        (
            "p0,p1,-1\n",
            ":1:7: bytes: \"-1\" is not a positive whole number",
        ),
        (
            "p0,p1,2.5\n",
            ":1:7: bytes: \"2.5\" is not a positive whole number",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = write(d.path(), &format!("s{i}.csv"), text);
        for cmd in ["analyze", "solve"] {
            refused(
                &[
                    cmd,
                    "fat-tree:4,2",
                    "--sizes",
                    &f,
                    "--size",
                    "1",
                    "--link-throughput",
                    "1",
                ],
                &format!("{f}{want}"),
            );
        }
        refused(
            &[
                "simulate",
                "fat-tree:4,2",
                "--sizes",
                &f,
                "--link-throughput",
                "1",
            ],
            &format!("{f}{want}"),
        );
    }
    let y = write(d.path(), "s.yaml", "p0->p1: 1.5\n");
    refused(
        &[
            "analyze",
            "fat-tree:4,2",
            "--sizes",
            &y,
            "--size",
            "1",
            "--link-throughput",
            "1",
        ],
        ":1:9: p0->p1: \"1.5\" is not a positive whole number of bytes (digits only)",
    );
    refused(
        &["generate", "sizes", "fat-tree:4,2", "--dist", "zipf"],
        "needs --bytes-per-rank",
    );
    refused(
        &["solve", "fat-tree:4,2", "--sizes", &y, "--quantum", "0"],
        "at least 1 byte",
    );
}

#[test]
fn solve_with_sizes_both_schedules_validated_and_small_ones_exact() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(
        d.path(),
        "two-clusters:3,3",
        "one-hot",
        "64KiB",
        &["--seed", "3"],
    );
    let sched = d.path().join("whole.yaml");
    let pieces = d.path().join("pieces.yaml");
    let r = run_json(&[
        "solve",
        "two-clusters:3,3",
        "--sizes",
        &f,
        "--overhead",
        "1e-5",
        "--quantum",
        "4KiB",
        "--simulate",
        "--schedule-out",
        sched.to_str().expect("UTF-8"),
        "--pieces-out",
        pieces.to_str().expect("UTF-8"),
    ]);
    let bound = r["time_bound"]["seconds"].as_f64().expect("bound");
    let p = &r["preemptive"];
    assert_eq!(p["quantum"], 4096);
    assert!(p["frames"].as_u64() >= p["piece_duration"].as_u64());
    let predicted = p["predicted_makespan_s"].as_f64().expect("predicted");
    assert!(predicted >= bound);
    // Frames mode on the simulator is the prediction (no two pieces of a frame share a link).
    let simulated = p["simulated_makespan_s"].as_f64().expect("simulated");
    assert!(
        (simulated - predicted).abs() <= 1e-9 * predicted,
        "{simulated} vs {predicted}"
    );
    let w = &r["non_preemptive"];
    // 30 messages: the ILP decides, within the default 10 s.
    assert_eq!(w["optimal"], true, "{w}");
    assert_eq!(w["gap"], 0.0);
    assert!(w["makespan_s"].as_f64() >= w["lower_bound_s"].as_f64());
    // The non-preemptive schedule file is a schedule of the model: verify accepts it, and
    // with the sizes reports the same makespan against the same bounds.
    let v = run_json(&[
        "verify",
        "two-clusters:3,3",
        sched.to_str().expect("UTF-8"),
        "--sizes",
        &f,
        "--overhead",
        "1e-5",
    ]);
    assert_eq!(v["valid"], true, "{v}");
    let t = &v["time"];
    assert_eq!(t["makespan_s"], w["makespan_s"]);
    assert_eq!(t["time_bound"], r["time_bound"]);
    let (fb, m) = (
        t["frame_bound_s"].as_f64().expect("fb"),
        t["makespan_s"].as_f64().expect("m"),
    );
    // Equal when the schedule is at the frame bound, up to the order of the additions.
    assert!(fb <= m * (1.0 + 1e-12), "{fb} > {m}");
    let text = std::fs::read_to_string(&pieces).expect("pieces file");
    assert!(text.contains("quantum: 4096\n"), "{text}");
    // Output is deterministic.
    let again = run_json(&[
        "solve",
        "two-clusters:3,3",
        "--sizes",
        &f,
        "--overhead",
        "1e-5",
        "--quantum",
        "4KiB",
    ]);
    assert_eq!(again["preemptive"]["frames"], p["frames"]);
    assert_eq!(again["non_preemptive"]["makespan_s"], w["makespan_s"]);
}

#[test]
fn the_default_quantum_is_one_of_its_candidates_and_the_cheapest() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(d.path(), "fat-tree:4,2", "uniform", "1MiB", &[]);
    let r = run_json(&[
        "solve",
        "fat-tree:4,2",
        "--sizes",
        &f,
        "--overhead",
        "2e-6",
        "--link-throughput",
        "1000",
        "--preemption",
        "chunks",
    ]);
    let p = &r["preemptive"];
    let c = p["candidates"].as_array().expect("candidates");
    let best = c
        .iter()
        .map(|x| x["predicted_s"].as_f64().expect("s"))
        .fold(f64::INFINITY, f64::min);
    let chosen = c
        .iter()
        .find(|x| x["quantum"] == p["quantum"])
        .expect("the chosen one");
    assert_eq!(chosen["predicted_s"].as_f64(), Some(best));
    assert_eq!(p["predicted_makespan_s"].as_f64(), Some(best));
    assert!(r.get("non_preemptive").is_none());
}

#[test]
fn with_both_the_preemptive_schedule_is_never_worse_than_the_whole_one() {
    let d = tempfile::tempdir().expect("tempdir");
    for (spec, dist) in [("fat-tree:4,2", "zipf"), ("two-clusters:3,3", "one-hot")] {
        let f = sizes_file(d.path(), spec, dist, "1MiB", &[]);
        let mut args = vec!["solve", spec, "--sizes", &f, "--overhead", "1e-5"];
        // Two clusters' links have their own bandwidths: the option is refused there.
        if spec.starts_with("fat-tree") {
            args.extend(["--link-throughput", "1000"]);
        }
        let r = run_json(&args);
        let p = r["preemptive"]["predicted_makespan_s"].as_f64().expect("p");
        let w = r["non_preemptive"]["makespan_s"].as_f64().expect("w");
        assert!(
            p <= w * (1.0 + 1e-12),
            "{spec}: preemptive {p} > non-preemptive {w}"
        );
        assert!(p >= r["time_bound"]["seconds"].as_f64().expect("bound"));
    }
}

/// `liquid export mpi fat-tree:4,2 --sizes SIZES --plan PLAN --mode MODE
/// --link-throughput 100 EXTRA --out DIR`: what it prints (YAML) and its manifest.
fn export_fat_tree_4_2(
    dir: &Path,
    sizes: &str,
    plan: &str,
    mode: &str,
    extra: &[&str],
) -> (serde_json::Value, serde_json::Value) {
    let mut args = vec![
        "export",
        "mpi",
        "fat-tree:4,2",
        "--sizes",
        sizes,
        "--plan",
        plan,
        "--mode",
        mode,
        "--link-throughput",
        "100",
        "--out",
        dir.to_str().expect("UTF-8"),
    ];
    args.extend(extra);
    let o = succeed(liquid().args(&args));
    let printed = serde_yaml::from_slice(&o.stdout).expect("YAML");
    let manifest = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    (printed, manifest)
}

#[test]
fn export_mpi_of_pieces_and_of_whole_messages() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(d.path(), "fat-tree:4,2", "zipf", "100KiB", &[]);
    let total: u64 = std::fs::read_to_string(&f)
        .expect("read")
        .lines()
        .skip(1)
        .map(|l| {
            l.rsplit(',')
                .next()
                .expect("bytes")
                .parse::<u64>()
                .expect("number")
        })
        .sum();
    let mut steps = std::collections::HashMap::new();
    for plan in ["pieces", "whole"] {
        for (mode, name) in [
            ("frames", if plan == "pieces" { "pieces" } else { "frames" }),
            (
                "async",
                if plan == "pieces" {
                    "pieces-async"
                } else {
                    "async"
                },
            ),
        ] {
            let dir = d.path().join(format!("{plan}-{mode}"));
            // The same quantum in both modes (the default one is chosen per mode).
            let quantum: &[&str] = if plan == "pieces" {
                &["--quantum", "4KiB"]
            } else {
                &[]
            };
            let (y, m) = export_fat_tree_4_2(&dir, &f, plan, mode, quantum);
            assert_eq!(y["bytes"].as_u64(), Some(total), "{plan} {mode}");
            assert_eq!(y["ranks"], 8);
            assert_eq!(y["mode"], name, "{plan} {mode}");
            steps.insert((plan, mode), (y["steps"].clone(), y["messages"].clone()));
            let rank0 = std::fs::read_to_string(dir.join("rank-0.txt")).expect("plan");
            assert!(rank0.ends_with("end\n"), "{plan} {mode}");
            let has = |w: &str| rank0.lines().any(|l| l.split(' ').next() == Some(w));
            // Frames: a barrier between frames, plain sends; async: no barrier, each send
            // synchronous.
            assert_eq!(has("barrier"), mode == "frames", "{plan} {mode}");
            assert_eq!(has("ssend"), mode == "async", "{plan} {mode}");
            assert!(m["prediction"]["total_s"].as_f64().expect("total") > 0.0);
        }
        // The same schedule in both modes: the same frames and messages.
        assert_eq!(steps[&(plan, "frames")], steps[&(plan, "async")], "{plan}");
    }
    refused(
        &[
            "export",
            "mpi",
            "fat-tree:4,2",
            "--sizes",
            &f,
            "--plan",
            "whole",
            "--mode",
            "all-at-once",
            "--out",
            "x",
            "--link-throughput",
            "1",
        ],
        "every message at once is --plan all-at-once",
    );
    refused(
        &[
            "export",
            "mpi",
            "fat-tree:4,2",
            "--plan",
            "pieces",
            "--out",
            "x",
            "--link-throughput",
            "1",
        ],
        "--plan pieces and whole need --sizes FILE",
    );
}

#[test]
fn export_mpi_chooses_the_quantum_with_the_runtimes_barrier() {
    // No latency, an envelope of 1000 bytes, 100 MB/s: the basic linear barrier of the 8
    // ranks sends 7 envelopes into rank 0's link, then 7 out of it, 2 x 7 x 1000 B / 1e8
    // B/s = 140 us. `solve` (no barriers) finds every quantum from 1 KiB (287 frames) to
    // 16 KiB (21 frames) liquid at the time bound, a tie that goes to the larger quantum
    // (its sums were rounding noise apart, which picked 1 KiB); frame by frame, each frame
    // pays one barrier, and fewer pieces win.
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(d.path(), "fat-tree:4,2", "zipf", "100KiB", &[]);
    let export = |mode: &str, quantum: Option<&str>| {
        let dir = d
            .path()
            .join(format!("{mode}-{}", quantum.unwrap_or("default")));
        let mut extra = vec!["--envelope", "1000"];
        if let Some(q) = quantum {
            extra.extend(["--quantum", q]);
        }
        let (_, m) = export_fat_tree_4_2(&dir, &f, "pieces", mode, &extra);
        let source = m["source"].as_str().expect("source").to_string();
        let total = m["prediction"]["total_s"].as_f64().expect("total");
        (source, total)
    };
    let solve = run_json(&[
        "solve",
        "fat-tree:4,2",
        "--sizes",
        &f,
        "--link-throughput",
        "100",
        "--preemption",
        "chunks",
    ]);
    assert_eq!(solve["preemptive"]["quantum"], 16384);
    assert_eq!(
        solve["preemptive"]["predicted_makespan_s"],
        solve["time_bound"]["seconds"]
    );
    assert!(solve["preemptive"].get("frame_cost_s").is_none());
    let (frames, chosen) = export("frames", None);
    assert!(
        frames.ends_with("each frame counted with the runtime's barrier, 0.00014 s"),
        "{frames}"
    );
    assert!(!frames.starts_with("pieces of 1024 bytes"), "{frames}");
    // The barrier-blind quantum, run frame by frame, is predicted slower.
    let (_, blind) = export("frames", Some("1024"));
    assert!(chosen < blind, "chosen {chosen} s, 1 KiB pieces {blind} s");
    // Without barriers, no barrier counted: the quantum is weighed by the run itself.
    let (asynchronous, chosen) = export("async", None);
    assert!(!asynchronous.contains("barrier,"), "{asynchronous}");
    assert!(asynchronous.contains("predicted run without barriers"));
    // Each candidate as `Q B (N pieces, F frames, by E) T s`.
    let weighed: Vec<(u64, String, f64)> = asynchronous
        .split_once("without barriers, of ")
        .expect("candidates")
        .1
        .split_once(": ")
        .expect("list")
        .1
        .split(" s, ")
        .map(|c| {
            let (q, rest) = c.split_once(" B (").expect("quantum");
            let (what, t) = rest.split_once(") ").expect("figure");
            (
                q.parse().expect("bytes"),
                what.to_string(),
                t.trim_end_matches(" s").parse().expect("seconds"),
            )
        })
        .collect();
    // Every candidate from 1 KiB to the largest message (46,169 bytes) was weighed.
    let quanta: Vec<u64> = weighed.iter().map(|w| w.0).collect();
    assert_eq!(quanta, [46169, 32768, 16384, 8192, 4096, 2048, 1024]);
    let best = weighed.iter().map(|w| w.2).fold(f64::INFINITY, f64::min);
    assert_eq!(
        round4(chosen),
        best,
        "the export runs the lowest: {asynchronous}"
    );
    let q = asynchronous
        .strip_prefix("pieces of ")
        .and_then(|x| x.split_once(' '))
        .expect("quantum")
        .0;
    assert_eq!(
        weighed.iter().find(|w| w.0.to_string() == q).map(|w| w.2),
        Some(best)
    );
    // The figure of a candidate is the run of its export: solve's 1 KiB pieces (first
    // fit, 287 frames), run without barriers, as `--quantum 1KiB` exports them.
    let (given, slower) = export("async", Some("1024"));
    assert!(given.starts_with("pieces of 1024 bytes (825 pieces of 56 messages), 287 frames"));
    assert_eq!(weighed[6].1, "825 pieces, 287 frames, by first-fit");
    assert_eq!(weighed[6].2, round4(slower));
    assert!(
        chosen < slower,
        "chosen {chosen} s, 1 KiB pieces {slower} s"
    );
}

#[test]
fn export_mpi_of_whole_messages_counts_the_barrier_per_frame() {
    // fat-tree:4,3 (Λ = 15), uniform sizes of 1 KiB per rank at 100 MB/s: without a
    // barrier, first fit decreasing's 19 shorter frames beat a liquid schedule's 15. Frame
    // by frame on MPI, with an envelope of 1000 bytes, each frame also pays the basic linear
    // barrier of the 16 ranks, 2 x 15 x 1000 B / 1e8 B/s = 300 us: fewer frames win.
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(
        d.path(),
        "fat-tree:4,3",
        "uniform",
        "1KiB",
        &["--seed", "1"],
    );
    let solve = run_json(&[
        "solve",
        "fat-tree:4,3",
        "--sizes",
        &f,
        "--link-throughput",
        "100",
        "--preemption",
        "none",
    ]);
    let w = &solve["non_preemptive"];
    assert_eq!(w["engine"], "first-fit-decreasing");
    assert_eq!(w["frames"], 19);
    assert!(w.get("frame_cost_s").is_none());
    let dir = d.path().join("whole");
    let o = succeed(liquid().args([
        "export",
        "mpi",
        "fat-tree:4,3",
        "--sizes",
        &f,
        "--plan",
        "whole",
        "--link-throughput",
        "100",
        "--envelope",
        "1000",
        "--out",
        dir.to_str().expect("UTF-8"),
    ]));
    let printed: serde_json::Value = serde_yaml::from_slice(&o.stdout).expect("YAML");
    assert_eq!(printed["steps"], 15);
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    assert_eq!(
        m["source"],
        "every message whole, 15 frames of unequal length, by portfolio; each frame counted \
         with the runtime's barrier, 0.0003 s"
    );
    // Any run of 19 frames pays at least 19 barriers.
    let total = m["prediction"]["total_s"].as_f64().expect("total");
    assert!(total < 19.0 * 0.0003, "{total} s");
}

/// Rounded to 4 significant digits, as the exports print their figures.
fn round4(x: f64) -> f64 {
    format!("{x:.3e}").parse().expect("number")
}

#[test]
fn lanes_let_a_fast_backbone_carry_several_messages_per_frame() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(d.path(), "two-clusters:4,4", "zipf", "1MiB", &[]);
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "two-clusters:4,4",
            "--sizes",
            &f,
            "--overhead",
            "1e-5",
            "--simulate",
        ];
        args.extend_from_slice(extra);
        run_json(&args)
    };
    let (one, lanes) = (solve(&[]), solve(&["--lanes"]));
    // One lane: the backbone is the pieces' bottleneck (it carries every cross piece).
    let links = one["preemptive"]["piece_bottlenecks"].to_string();
    assert!(links.contains("A>B") || links.contains("B>A"), "{links}");
    assert!(
        lanes["preemptive"]["piece_duration"].as_u64()
            < one["preemptive"]["piece_duration"].as_u64()
    );
    for r in [&one, &lanes] {
        let p = &r["preemptive"];
        let (pred, sim) = (
            p["predicted_makespan_s"].as_f64().expect("p"),
            p["simulated_makespan_s"].as_f64().expect("s"),
        );
        // Within the lanes every message still runs at its card's rate.
        assert!((pred - sim).abs() <= 1e-9 * pred, "{pred} vs {sim}");
        let w = &r["non_preemptive"];
        let (m, s) = (
            w["makespan_s"].as_f64().expect("m"),
            w["simulated_makespan_s"].as_f64().expect("s"),
        );
        assert!((m - s).abs() <= 1e-9 * m, "{m} vs {s}");
        assert!(w["optimal"] == true || w["gap"].as_f64() > Some(0.0));
    }
    let t = |r: &serde_json::Value| r["preemptive"]["predicted_makespan_s"].as_f64().expect("t");
    assert!(t(&lanes) < t(&one) / 2.0, "{} vs {}", t(&lanes), t(&one));
    assert!(lanes["preemptive"]["validated_by"]
        .as_str()
        .expect("text")
        .contains("lane"));
}

/// `solve --sizes` honours --time-limit in every phase: with 256 MiB per rank on
/// fat-tree:8,3 and up to 1,000 pieces per message, weighing every candidate quantum by
/// its first-fit schedule (4 KiB: 8.4 million pieces) takes many seconds; with a limit of
/// 0.3 s the run returns promptly with both schedules, validated, and says what the limit
/// cut (before, the first-fit passes never looked at the deadline).
#[test]
fn a_tiny_time_limit_returns_promptly_with_validated_schedules() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(
        d.path(),
        "fat-tree:8,3",
        "uniform",
        "256MiB",
        &["--seed", "1"],
    );
    let pieces = d.path().join("pieces.yaml");
    let started = std::time::Instant::now();
    let out = succeed(liquid().args([
        "solve",
        "fat-tree:8,3",
        "--sizes",
        &f,
        "--overhead",
        "1e-5",
        "--link-throughput",
        "1000",
        "--max-pieces",
        "1000",
        "--time-limit",
        "0.3",
        "--pieces-out",
        pieces.to_str().expect("UTF-8"),
        "--format",
        "json",
    ]));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let wall = started.elapsed().as_secs_f64();
    // Said on stderr too, as `solve` without sizes says it.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: the time limit cut") && err.contains("liquid estimate"),
        "{err}"
    );
    // Generous for a loaded machine and a debug build; the whole weighing takes far longer.
    assert!(wall < 5.0, "{wall} s against --time-limit 0.3");
    assert_eq!(r["time_limit_s"], 0.3);
    let cut = r["cut_by_time_limit"]
        .as_array()
        .expect("what the limit cut");
    assert!(
        cut.iter()
            .any(|c| c.as_str().is_some_and(|c| c.contains("liquid estimate"))),
        "{cut:?}"
    );
    let bound = r["time_bound"]["seconds"].as_f64().expect("bound");
    let p = &r["preemptive"];
    assert!(p["frames"].as_u64() >= p["piece_duration"].as_u64());
    assert!(p["predicted_makespan_s"].as_f64().expect("predicted") >= bound);
    assert!(p["gap"].as_f64().expect("gap") >= 0.0);
    let w = &r["non_preemptive"];
    assert!(w["makespan_s"].as_f64() >= w["lower_bound_s"].as_f64());
    assert!(std::fs::read_to_string(&pieces)
        .expect("the schedule of pieces")
        .contains("timeframes:"));
    // Some candidates were estimated, and the chosen quantum is one of the candidates.
    let c = p["candidates"].as_array().expect("candidates");
    assert!(c.iter().any(|x| x["predicted_by"] == "liquid estimate"));
    assert!(c.iter().any(|x| x["quantum"] == p["quantum"]));
}

/// `crosscheck --sizes`: first fit and the engines on the pieces, first fit decreasing,
/// the exact ILP and the engines on whole messages; every schedule validated and
/// simulated, the bound the same on liquid's links and on the simulator's.
#[test]
fn crosscheck_with_sizes_runs_every_path_and_they_agree() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(d.path(), "fat-tree:4,2", "zipf", "1MiB", &["--seed", "2"]);
    let r = run_json(&[
        "crosscheck",
        "fat-tree:4,2",
        "--sizes",
        &f,
        "--overhead",
        "1e-5",
        "--link-throughput",
        "1000",
        "--quantum",
        "64KiB",
        "--engines",
        "native,dsatur",
    ]);
    assert_eq!(r["contradictions"], serde_json::json!([]), "{r}");
    assert_eq!(r["quantum"], 65536);
    let bound = r["time_bound"]["seconds"].as_f64().expect("bound");
    let on_sim = r["link_bound_on_simulator_s"].as_f64().expect("again");
    assert!(
        (bound - on_sim).abs() <= 1e-9 * bound,
        "{bound} vs {on_sim}"
    );
    assert!(r["all_at_once_s"].as_f64().expect("aao") >= bound * (1.0 - 1e-9));
    let rows = r["rows"].as_array().expect("rows");
    let by: Vec<&str> = rows.iter().map(|x| x["by"].as_str().expect("by")).collect();
    for want in [
        "first-fit",
        "native on the pieces",
        "dsatur on the pieces",
        "first-fit-decreasing",
        "native on whole messages",
        "dsatur on whole messages",
    ] {
        assert!(by.contains(&want), "{want} missing from {by:?}");
    }
    assert!(by.iter().any(|b| b.starts_with("ilp (")), "{by:?}");
    for row in rows {
        assert_eq!(row["ok"], true, "{row}");
        if let (Some(p), Some(s)) = (row["predicted_s"].as_f64(), row["simulated_s"].as_f64()) {
            assert!((p - s).abs() <= 1e-9 * p, "{row}");
            assert!(p >= bound * (1.0 - 1e-9), "{row}");
        }
    }
    // Several models, or a baseline, are refused with --sizes.
    refused(
        &["crosscheck", "fat-tree:4,2", "fat-tree:4,2", "--sizes", &f],
        "takes one model",
    );
}

/// `explain --sizes`: on a hand-made traffic whose non-preemptive optimum (6 s) exceeds
/// the frame bound (5 s, link x: 3 + 2), the bound's bottleneck and the second that link
/// x waits, in the frame that t4 (4 s) makes longer than x's own message t1 (3 s).
#[test]
fn explain_with_sizes_says_why_the_whole_optimum_exceeds_the_bound() {
    let d = tempfile::tempdir().expect("tempdir");
    let model = write(
        d.path(),
        "m.yaml",
        "name: hand\ntransfers:\n  - {id: t1, path: [x]}\n  - {id: t2, path: [y]}\n  \
         - {id: t3, path: [x, y]}\n  - {id: t4, path: [z]}\n",
    );
    let sizes = write(
        d.path(),
        "s.yaml",
        "t1: 3000\nt2: 3000\nt3: 2000\nt4: 4000\n",
    );
    let r = run_json(&[
        "explain",
        &model,
        "--sizes",
        &sizes,
        "--link-throughput",
        "0.001",
    ]);
    assert_eq!(r["time_bound"]["seconds"], 5.0, "{r}");
    assert_eq!(r["bottleneck"]["link"], "x", "{r}");
    assert_eq!(r["bottleneck"]["largest"][0]["transfer"], "t1");
    let w = &r["non_preemptive"];
    assert_eq!(w["makespan_s"], 6.0, "{w}");
    assert_eq!(w["optimal"], true, "{w}");
    assert_eq!(w["frame_bound_s"], 5.0);
    assert_eq!(w["frame_bound_link"], "x");
    assert_eq!(w["per_message_costs_s"], 0.0);
    assert_eq!(w["idle_on_frame_bound_link_s"], 1.0);
    let idle = &w["idle_frames"][0];
    assert_eq!(idle["set_by"], "t4", "{w}");
    assert_eq!(idle["link_message"], "t1");
    assert_eq!(idle["idle_s"], 1.0);
    let why = w["why"].to_string();
    assert!(why.contains("link x waits"), "{why}");
    assert!(why.contains("optimal"), "{why}");
}

#[test]
fn the_time_limit_stops_the_simulations_of_solve_and_crosscheck() {
    let d = tempfile::tempdir().expect("tempdir");
    let f = sizes_file(d.path(), "fat-tree:4,2", "zipf", "100KiB", &["--seed", "1"]);
    let common = [
        "--sizes",
        &f,
        "--link-throughput",
        "100",
        "--time-limit",
        "0",
    ];
    // solve --simulate: both schedules made, their simulations null and said.
    let s = run_json(&[&["solve", "fat-tree:4,2", "--simulate"][..], &common[..]].concat());
    for kind in ["preemptive", "non_preemptive"] {
        assert!(s[kind]["simulated_makespan_s"].is_null(), "{kind}: {s}");
        assert!(s[kind].get("simulated_makespan_s").is_some(), "{kind}");
    }
    let cut: Vec<&str> = s["cut_by_time_limit"]
        .as_array()
        .expect("cut")
        .iter()
        .map(|c| c.as_str().expect("text"))
        .collect();
    assert!(
        cut.contains(&"the simulation of the schedule of pieces: not run"),
        "{cut:?}"
    );
    assert!(cut.contains(&"the simulation of the non-preemptive schedule: not run"));
    // crosscheck --sizes: every simulation stopped, not compared, no contradiction.
    let out = succeed(
        liquid()
            .args(["crosscheck", "fat-tree:4,2", "--format", "yaml"])
            .args(common),
    );
    let r: serde_json::Value = serde_yaml::from_slice(&out.stdout).expect("YAML");
    assert!(r["all_at_once_s"].is_null(), "{r}");
    assert_eq!(r["contradictions"], serde_json::json!([]));
    let stopped = r["cut_by_time_limit"].as_array().expect("cut").len();
    let simulated: Vec<&serde_json::Value> = r["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|row| row.get("simulated_s").is_some())
        .collect();
    assert!(!simulated.is_empty());
    assert!(simulated.iter().all(|row| row["simulated_s"].is_null()));
    // Every row simulated, and all at once, are said.
    assert_eq!(stopped, simulated.len() + 1);
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert_eq!(
        err.matches("warning: the time limit stopped a simulation, not compared")
            .count(),
        stopped,
        "{err}"
    );
}

/// An engine that gives no schedule of non-liquid pieces (native decides liquidity only)
/// leaves the pieces' first fit as the schedule, named so; it was exit 2 "raise
/// --time-limit", which no limit would have helped.
#[test]
fn an_engine_without_a_schedule_of_the_pieces_leaves_first_fit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sizes = write(
        dir.path(),
        "sizes.yaml",
        "t0: 1000\nt1: 2000\nt2: 3000\nt3: 4000\nt4: 5000\nh: 6000\n",
    );
    for engine in ["native", "structured"] {
        let v = run_json(&[
            "solve",
            "models/odd-wheel.yaml",
            "--sizes",
            &sizes,
            "--link-throughput",
            "1000",
            "--engine",
            engine,
        ]);
        let p = &v["preemptive"];
        assert_eq!(
            p["engine"],
            format!("first-fit ({engine} gave no schedule of the pieces: non-liquid)"),
            "{v}"
        );
        assert!(p["frames"].as_u64().expect("frames") >= 4, "{v}");
    }
}

/// `analyze --sizes --link-throughput B` reports the links at B (the rate its time bound
/// uses), not `null` as a model without a `link_throughput` of its own would.
#[test]
fn analyze_with_sizes_reports_the_throughput_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sizes = sizes_file(dir.path(), "fat-tree:4,3", "uniform", "1MiB", &[]);
    let v = run_json(&[
        "analyze",
        "fat-tree:4,3",
        "--sizes",
        &sizes,
        "--link-throughput",
        "1000",
    ]);
    assert_eq!(v["link_throughput"], 1000.0, "{v}");
    // #X / Λ = 240 / 15 = 16.
    assert_eq!(v["liquid_throughput"], 16000.0, "{v}");
    // Links at several rates: the links without their own are at B (the time bound's),
    // and there is no one liquid throughput.
    let model = write(
        dir.path(),
        "mixed.yaml",
        "name: mixed\nnetwork:\n  hosts: [a, b]\n  switches: [S]\n  links:\n    \
         - {id: a>S, from: a, to: S, bandwidth: 100}\n    - {id: S>a, from: S, to: a}\n    \
         - {id: b>S, from: b, to: S}\n    - {id: S>b, from: S, to: b}\n\
         pattern: {type: all-to-all, senders: [a, b], receivers: [a, b]}\n",
    );
    let sizes = write(dir.path(), "m.csv", "src,dst,bytes\na,b,1000\nb,a,1000\n");
    let v = run_json(&[
        "analyze",
        &model,
        "--sizes",
        &sizes,
        "--link-throughput",
        "500",
    ]);
    assert_eq!(v["link_throughput"], 500.0, "{v}");
    assert!(v["liquid_throughput"].is_null(), "{v}");
}

/// An engine that does not take the pieces' traffic (round-robin needs an all-to-all,
/// closed-form a generated machine's: the pieces are neither) leaves the pieces' first fit
/// too, with its reason; it was exit 2 naming a model the user never wrote.
#[test]
fn an_engine_that_refuses_the_pieces_leaves_first_fit() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (spec, engine) in [("fat-tree:4,2", "round-robin"), ("rail:2,4", "closed-form")] {
        let sizes = sizes_file(dir.path(), spec, "uniform", "64KiB", &["--seed", "1"]);
        let v = run_json(&[
            "solve",
            spec,
            "--sizes",
            &sizes,
            "--link-throughput",
            "1000",
            "--engine",
            engine,
        ]);
        let name = v["preemptive"]["engine"]
            .as_str()
            .expect("an engine")
            .to_string();
        assert!(
            name.starts_with(&format!(
                "first-fit ({engine} does not take the pieces' traffic: "
            )),
            "{v}"
        );
    }
}

/// `simulate --engine native` on a traffic that is not liquid: native decided, and no time
/// limit gives it a schedule; the error names engines that schedule any traffic.
#[test]
fn simulate_with_an_engine_that_schedules_liquid_traffics_only_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = write(
        dir.path(),
        "oddh.yaml",
        "name: oddh\ntransfers:\n  - {id: t0, from: h0, to: g0, path: [e0, e1]}\n  \
         - {id: t1, from: h1, to: g1, path: [e1, e2]}\n  \
         - {id: t2, from: h2, to: g2, path: [e2, e3]}\n  \
         - {id: t3, from: h3, to: g3, path: [e3, e4]}\n  \
         - {id: t4, from: h4, to: g4, path: [e4, e0]}\n",
    );
    refused(
        &[
            "simulate",
            &model,
            "--engine",
            "native",
            "--link-throughput",
            "1000",
        ],
        "the traffic is not liquid, and native schedules liquid traffics only",
    );
}
