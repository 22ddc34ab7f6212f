//! `liquid simulate` and `liquid export simgrid`: exact cases, bounds, errors.

use serde_json::Value;

use crate::common::{link_sets, liquid, refused, root, succeed};

fn simulate(args: &[&str]) -> Value {
    let mut cmd = liquid();
    cmd.arg("simulate").args(args).args(["--format", "json"]);
    let out = succeed(&mut cmd);
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

/// The timeframes of a schedule file, as transfer ids.
fn timeframes(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(root().join(path)).expect("schedule");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("- ["))
        .map(|l| {
            l.trim_end_matches(']')
                .split(", ")
                .map(|s| s.to_string())
                .collect()
        })
        .collect()
}

#[test]
fn a_liquid_schedule_in_frames_takes_the_sum_of_latency_overhead_and_size_per_frame() {
    let (size, bw, lat, o) = (1e6, 100e6, 2e-6, 1e-5);
    let r = simulate(&[
        "models/paper-fig1.yaml",
        "--schedule",
        "models/paper-fig1-liquid-schedule.yaml",
        "--size",
        "1000000",
        "--overhead",
        "0.00001",
        "--link-latency",
        "0.000002",
    ]);
    // Route lengths from the papers' link sets (not from liquid's routing).
    let paths: std::collections::BTreeMap<String, usize> =
        link_sets("models/paper-fig1-explicit.yaml")
            .into_iter()
            .map(|(id, p)| (id, p.len()))
            .collect();
    let mut expected = 0.0;
    let frames = timeframes("models/paper-fig1-liquid-schedule.yaml");
    assert_eq!(frames.len(), 6);
    for (i, frame) in frames.iter().enumerate() {
        let hops = frame.iter().map(|t| paths[t]).max().expect("non-empty");
        let start = expected;
        expected += hops as f64 * lat + o + size / bw;
        let fr = &r["frames"][i];
        assert!(close(f(fr, "start_s"), start), "{fr}");
        assert!(close(f(fr, "end_s"), expected), "{fr}");
        assert_eq!(fr["transfers"].as_u64(), Some(frame.len() as u64));
    }
    assert!(close(f(&r, "makespan_s"), expected), "{r}");
    assert_eq!(r["schedule"]["liquid"], Value::Bool(true));
    assert_eq!(r["mode"], "frames");
}

#[test]
fn without_latency_and_overhead_a_liquid_schedule_runs_at_the_liquid_throughput() {
    let r = simulate(&["paper-fig1:", "--engine", "native"]);
    assert!(
        close(f(&r, "throughput_mb_s"), f(&r, "liquid_throughput_mb_s")),
        "{r}"
    );
    assert_eq!(r["schedule"]["source"], "engine native");
    // Round-robin needs 7 frames: 6/7 of the liquid throughput.
    let r = simulate(&["paper-fig1:", "--engine", "round-robin"]);
    assert!(
        close(
            f(&r, "throughput_mb_s") * 7.0,
            f(&r, "liquid_throughput_mb_s") * 6.0
        ),
        "{r}"
    );
}

#[test]
fn two_flows_on_one_link_each_get_half_of_it() {
    // a->c and b->c share s>c (50 MB/s, 2 ms); a>s and b>s are 100 MB/s with 1 ms.
    let r = simulate(&[
        "tests/fixtures/sim/shared-link.yaml",
        "--mode",
        "all-at-once",
    ]);
    let expected = 0.001 + 0.002 + 2.0 * 1e6 / 50e6;
    assert!(close(f(&r, "makespan_s"), expected), "{r}");
    assert!(close(f(&r, "link_bound_s"), 2.0 * 1e6 / 50e6), "{r}");
    // Sizes per transfer: a->c 3 MB, b->c 1 MB. Both at 25 MB/s until b->c ends at 0.04 s,
    // then a->c alone at 50 MB/s for its last 2 MB.
    // The file gives a->c only: b->c takes --size, given (without it, refused).
    let r = simulate(&[
        "tests/fixtures/sim/shared-link.yaml",
        "--mode",
        "all-at-once",
        "--sizes",
        "tests/fixtures/sim/shared-link-sizes.yaml",
        "--size",
        "1000000",
    ]);
    assert!(close(f(&r, "makespan_s"), 0.003 + 0.04 + 0.04), "{r}");
    let out = liquid()
        .args([
            "simulate",
            "tests/fixtures/sim/shared-link.yaml",
            "--mode",
            "all-at-once",
        ])
        .args(["--sizes", "tests/fixtures/sim/shared-link-sizes.yaml"])
        .output()
        .expect("runs");
    refused(&out, &["1 of the 2 transfers", "\"b->c\"", "--size BYTES"]);
    // Timeframe by timeframe (a schedule of 2 frames), each alone at 50 MB/s.
    let r = simulate(&["tests/fixtures/sim/shared-link.yaml", "--engine", "dsatur"]);
    assert!(
        close(f(&r, "makespan_s"), 2.0 * (0.003 + 1e6 / 50e6)),
        "{r}"
    );
}

#[test]
fn max_min_gives_the_rest_of_a_link_to_the_flow_not_held_elsewhere() {
    // x = d->c is held to 10 MB/s by d>s, y = a->c gets the 90 MB/s left on s>c: y ends
    // first (1 MB at 90 MB/s), x at 0.1 s (1 MB at 10 MB/s).
    let r = simulate(&[
        "tests/fixtures/sim/bottleneck-elsewhere.yaml",
        "--mode",
        "all-at-once",
    ]);
    assert!(close(f(&r, "makespan_s"), 1e6 / 10e6), "{r}");
    // y = 9 MB: 9 MB at 90 MB/s takes 0.1 s too, and both end together.
    let dir = tempfile::tempdir().expect("tempdir");
    let sizes = dir.path().join("sizes.yaml");
    std::fs::write(&sizes, "a->c: 9000000\n").expect("write");
    let r = simulate(&[
        "tests/fixtures/sim/bottleneck-elsewhere.yaml",
        "--mode",
        "all-at-once",
        "--sizes",
        sizes.to_str().expect("UTF-8"),
        "--size",
        "1000000",
    ]);
    assert!(close(f(&r, "makespan_s"), 0.1), "{r}");
    assert!(close(f(&r, "total_bytes"), 10e6), "{r}");
    // 19 MB for y: 9 MB by 0.1 s, then the last 10 MB alone at 100 MB/s.
    std::fs::write(&sizes, "a->c: 19000000\n").expect("write");
    let r = simulate(&[
        "tests/fixtures/sim/bottleneck-elsewhere.yaml",
        "--mode",
        "all-at-once",
        "--sizes",
        sizes.to_str().expect("UTF-8"),
        "--size",
        "1000000",
    ]);
    assert!(close(f(&r, "makespan_s"), 0.2), "{r}");
}

#[test]
fn makespan_never_beats_the_busiest_link_in_any_mode() {
    for model in [
        "t1:4,4,4,4,0,0,2,1",
        "t1:3,1,0,2,4,0,1,3",
        "ring:6,2",
        "paper-fig1:",
    ] {
        for mode in ["frames", "async", "all-at-once"] {
            let r = simulate(&[
                model,
                "--engine",
                "dsatur",
                "--mode",
                mode,
                "--link-latency",
                "0.00001",
                "--overhead",
                "0.00002",
                "--link-throughput",
                "86",
            ]);
            assert!(
                f(&r, "makespan_s") >= f(&r, "link_bound_s") * (1.0 - 1e-9),
                "{model} {mode}: {r}"
            );
            assert!(f(&r, "throughput_mb_s") > 0.0);
            // The makespan is when the last frame ends: in frame order for `frames` and
            // `all-at-once`; in `async` frames overlap and a later frame may end first,
            // so the latest end is the makespan.
            let frames = r["frames"].as_array().expect("frames");
            let latest = frames
                .iter()
                .map(|fr| f(fr, "end_s"))
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(close(latest, f(&r, "makespan_s")), "{model} {mode}: {r}");
            if mode != "async" {
                let last = frames.last().expect("a frame");
                assert!(
                    close(f(last, "end_s"), f(&r, "makespan_s")),
                    "{model} {mode}"
                );
            }
        }
    }
}

#[test]
fn every_mode_respects_the_link_bound_and_async_can_lose_to_frames() {
    // The liquid schedule of 004 Fig. 9 on paper-fig1: frames of congestion-free
    // transfers, so frame by frame the makespan is exactly the link bound (6 frames of
    // 1 MB at 100 MB/s). Async lets a sender idle in a frame run ahead into the next
    // frame's links, where it shares bandwidth: it can only lose here, and does.
    let run = |mode: &str| {
        simulate(&[
            "models/paper-fig1.yaml",
            "--schedule",
            "models/paper-fig1-liquid-schedule.yaml",
            "--mode",
            mode,
        ])
    };
    let frames = run("frames");
    assert!(close(f(&frames, "makespan_s"), 0.06), "{frames}");
    for mode in ["frames", "async", "all-at-once"] {
        let r = run(mode);
        assert!(
            f(&r, "makespan_s") >= f(&r, "link_bound_s") * (1.0 - 1e-9),
            "{mode}: {r}"
        );
    }
    assert!(f(&run("async"), "makespan_s") > f(&frames, "makespan_s"));
}

#[test]
fn bad_input_exits_with_2() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["models/no-team.yaml"], // no link_throughput anywhere
        vec![
            "paper-fig1:",
            "--engine",
            "dsatur",
            "--schedule",
            "models/paper-fig1-liquid-schedule.yaml",
        ],
        vec!["paper-fig1:", "--size", "-1"],
        vec!["paper-fig1:", "--overhead", "NaN"],
        vec![
            "tests/fixtures/sim/shared-link.yaml",
            "--sizes",
            "models/paper-fig1.yaml",
        ],
    ];
    for args in cases {
        let out = liquid().arg("simulate").args(&args).output().expect("runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A schedule that leaves a transfer out.
    let dir = tempfile::tempdir().expect("tempdir");
    let s = dir.path().join("s.yaml");
    std::fs::write(&s, "timeframes:\n  - [a->c]\n").expect("write");
    let out = liquid()
        .args([
            "simulate",
            "tests/fixtures/sim/shared-link.yaml",
            "--schedule",
        ])
        .arg(&s)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("b->c"));
}

#[test]
fn plot_writes_a_timeline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let svg = dir.path().join("t.svg");
    succeed(
        liquid()
            .args(["simulate", "paper-fig1:", "--engine", "native", "--plot"])
            .arg(&svg),
    );
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.starts_with("<svg"));
    assert!(text.contains("link utilisation"));
    assert_eq!(text.matches("<title>frame").count(), 6);
}

#[test]
fn export_simgrid_writes_one_way_routes_and_the_plan() {
    let dir = tempfile::tempdir().expect("tempdir");
    succeed(
        liquid()
            .args([
                "export",
                "simgrid",
                "tests/fixtures/sim/shared-link.yaml",
                "--mode",
                "all-at-once",
                "--out",
            ])
            .arg(dir.path()),
    );
    let xml = std::fs::read_to_string(dir.path().join("platform.xml")).expect("platform");
    assert_eq!(xml.matches("<route ").count(), 2);
    assert_eq!(xml.matches("symmetrical=\"NO\"").count(), 2);
    assert!(
        xml.contains(r#"<link id="s&gt;c" bandwidth="50000000Bps" latency="0.002s""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<link id="a&gt;s" bandwidth="100000000Bps" latency="0.001s""#),
        "{xml}"
    );
    // Links no route uses (s>d, d>s) are not part of the platform.
    assert!(!xml.contains("s&gt;d"));
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("plan.json")).expect("plan"))
            .expect("JSON");
    assert_eq!(plan["steps"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        plan["steps"][0]["messages"][1],
        serde_json::json!(["b", "c", 1e6, 0.003])
    );
}

#[test]
fn export_simgrid_one_hop_gives_ns3_a_route_per_link_and_routers_for_switches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = succeed(
        liquid()
            .args([
                "export",
                "simgrid",
                "two-clusters:3,4",
                "--size",
                "1000",
                "--one-hop",
            ])
            .args(["--out"])
            .arg(dir.path()),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // 7 hosts, their up and down links, the backbone both ways; the two cluster
    // switches become routers.
    for line in ["hosts: 7", "routers: 2", "links: 16", "routes: 16"] {
        assert!(text.contains(line), "{line}: {text}");
    }
    let xml = std::fs::read_to_string(dir.path().join("platform.xml")).expect("platform");
    let routes: Vec<&str> = xml.lines().filter(|l| l.contains("<route ")).collect();
    assert_eq!(routes.len(), 16);
    for r in &routes {
        // One link per route, and no route between two hosts (every link touches a router).
        assert_eq!(r.matches("<link_ctn ").count(), 1, "{r}");
        assert!(r.contains("\"router-"), "{r}");
    }
    assert_eq!(xml.matches("<router id=").count(), 2);
    // The same model's ordinary platform has multi-link routes between hosts.
    let plain = tempfile::tempdir().expect("tempdir");
    succeed(
        liquid()
            .args([
                "export",
                "simgrid",
                "two-clusters:3,4",
                "--size",
                "1000",
                "--out",
            ])
            .arg(plain.path()),
    );
    let xml = std::fs::read_to_string(plain.path().join("platform.xml")).expect("platform");
    assert_eq!(xml.matches("<route ").count(), 7 * 6);
    assert!(!xml.contains("<router "));
}

#[test]
fn testbed_t1_simulates_each_class_when_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    succeed(
        liquid()
            .args(["testbed", "t1", "--shard", "3/40", "--time-limit", "0"])
            .args(["--sim-size", "1000000", "--out"])
            .arg(dir.path()),
    );
    // The shard file (liquid-shard's documented format) carries each class's simulated row.
    let text =
        std::fs::read_to_string(dir.path().join("t1-testbed-shard-3-of-40.json")).expect("written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), 10);
    for item in items {
        let r = &item["result"]["sim"];
        let num = |name: &str| -> f64 { r[name].as_f64().expect("a number") };
        // No latency, no overhead: frame by frame, each frame takes size / 86 MB/s.
        let expect = |len: f64| (num("transfers") / len * 86.0 * 100.0).round() / 100.0;
        assert_eq!(num("schedule_sim"), expect(num("schedule_length")), "{r}");
        assert_eq!(num("rr_sim"), expect(num("rr_length")), "{r}");
        assert!(num("all_at_once_sim") <= num("liquid_mb_s") + 0.01);
        // The native search is off (time limit 0): DSatur's schedule runs.
        assert_eq!(r["schedule"], "dsatur");
    }
    let out = liquid()
        .args(["testbed", "t1", "--sim-latency", "0.001", "--out"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// Fat-tree and multi-cluster specs are simulated from their traffic built directly (no
/// network form); the report is the one of the same model written in the network form,
/// with the model-wide link throughput and latency on every link.
#[test]
fn specs_built_directly_simulate_as_their_network_form() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (spec, generate) in [
        (
            "fat-tree:4,2",
            vec!["generate", "fat-tree", "--ports", "4", "--levels", "2"],
        ),
        (
            "multi-cluster:4,2+1,2",
            vec!["generate", "multi-cluster", "4,2+1,2"],
        ),
    ] {
        let file = dir.path().join("model.yaml");
        let file = file.to_str().expect("utf-8 path");
        succeed(
            liquid()
                .args(&generate)
                .args(["--form", "network", "--out", file]),
        );
        let run = |model: &str| {
            simulate(&[
                model,
                "--engine",
                "dsatur",
                "--link-throughput",
                "100",
                "--link-latency",
                "0.000002",
                "--overhead",
                "0.00001",
            ])
        };
        let (mut direct, mut network) = (run(spec), run(file));
        for r in [&mut direct, &mut network] {
            r.as_object_mut().expect("an object").remove("wall_s");
        }
        assert!(direct["transfers"].as_u64().expect("a count") > 0, "{spec}");
        assert_eq!(direct, network, "{spec}");
    }
}

#[test]
fn the_yaml_report_drops_float_noise_and_the_json_keeps_full_precision() {
    // 19 frames of 1 ms: the frames' ends add up to 0.01900000000000001 in binary.
    let args = ["dragonfly-plus:2,2,2,2", "--link-throughput", "1000"];
    let json = simulate(&args);
    let exact = f(&json, "makespan_s");
    assert!(close(exact, 0.019), "{json}");
    let mut cmd = liquid();
    cmd.arg("simulate").args(args);
    let out = succeed(&mut cmd);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.contains("\nmakespan_s: 0.019\n"), "{text}");
    assert!(text.contains("\ntotal_bytes: 380000000\n"), "{text}");
    assert!(text.contains("  end_s: 0.019\n"), "{text}");
}

#[test]
fn the_time_limit_stops_a_simulation_and_says_how_far_it_got() {
    let d = tempfile::tempdir().expect("tempdir");
    let sizes = d.path().join("sizes.csv");
    let sizes = sizes.to_str().expect("UTF-8");
    succeed(liquid().args([
        "generate",
        "sizes",
        "fat-tree:4,3",
        "--dist",
        "uniform",
        "--bytes-per-rank",
        "1MiB",
        "--seed",
        "1",
        "--out",
        sizes,
    ]));
    let args = [
        "simulate",
        "fat-tree:4,3",
        "--sizes",
        sizes,
        "--mode",
        "all-at-once",
        "--link-throughput",
        "1000",
        "--format",
        "json",
    ];
    // Without a limit given (300 s), the run ends: a makespan, no `stopped`.
    let whole: Value = serde_json::from_slice(&succeed(liquid().args(args)).stdout).expect("JSON");
    assert!(f(&whole, "makespan_s") > 0.0);
    assert!(whole.get("stopped").is_none());
    // At 0 s the simulation stops before its first event: exit 0, null figures, where it
    // stopped, a warning.
    let plot = d.path().join("t.svg");
    let out = succeed(liquid().args(args).args([
        "--time-limit",
        "0",
        "--plot",
        plot.to_str().expect("UTF-8"),
    ]));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(r["makespan_s"].is_null(), "{r}");
    assert!(r["throughput_mb_s"].is_null());
    assert!(r.get("events").is_none());
    assert_eq!(r["frames"], serde_json::json!([]));
    assert_eq!(
        r["stopped"],
        serde_json::json!({"simulated_s": 0.0, "steps_done": 0, "steps": 1,
                           "messages_done": 0, "messages": 240})
    );
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        err.contains(
            "warning: the time limit stopped the simulation of the schedule at 0 s of simulated \
             time (0 of 1 steps, 0 of 240 messages done): the report has no makespan_s"
        ),
        "{err}"
    );
    assert!(err.contains("no timeline drawn into"), "{err}");
    assert!(!plot.exists());
    // An MPI library's all-to-all too.
    let out = succeed(liquid().args([
        "simulate",
        "fat-tree:4,3",
        "--plan",
        "mpi-ompi-4.1",
        "--link-throughput",
        "1000",
        "--time-limit",
        "0",
        "--format",
        "json",
    ]));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(r["makespan_s"].is_null(), "{r}");
    assert_eq!(r["stopped"]["messages"], 240);
    assert_eq!(r["stopped"]["messages_done"], 0);
    assert!(String::from_utf8(out.stderr)
        .expect("UTF-8")
        .contains("warning: the time limit stopped the simulation of --plan mpi-ompi-4.1"));
}

/// The limit bounds the building of an MPI plan's messages too: at 0 s a pairwise
/// all-to-all of 128 ranks (16,256 messages) stops before its first step is done, as a
/// simulation stopped before its first event reports it (exit 0, null makespan, the full
/// plan's size, a warning).
#[test]
fn the_time_limit_stops_the_building_of_an_mpi_plan() {
    let out = succeed(liquid().args([
        "simulate",
        "fat-tree:8,3",
        "--plan",
        "pairwise",
        "--link-throughput",
        "1000",
        "--time-limit",
        "0",
        "--format",
        "json",
    ]));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(r["makespan_s"].is_null(), "{r}");
    assert_eq!(r["messages"], 128 * 127);
    assert_eq!(r["total_bytes"].as_f64(), Some(128.0 * 127.0 * 1e6));
    // One join per rank and round, one step per message.
    assert_eq!(
        r["stopped"],
        serde_json::json!({"simulated_s": 0.0, "steps_done": 0, "steps": 128 * 127 * 2,
                           "messages_done": 0, "messages": 128 * 127})
    );
    assert!(String::from_utf8(out.stderr).expect("UTF-8").contains(
        "warning: the time limit stopped the simulation of --plan pairwise at 0 s of simulated \
         time (0 of 32512 steps, 0 of 16256 messages done)"
    ));
}

/// The reports of a simulation stopped by --time-limit 0 (a schedule posted at once, and
/// an MPI library's all-to-all), as a user reads them: null figures, `stopped`, the
/// warning, exit 0 (the wall time redacted).
#[test]
fn time_limit_0_reports() {
    for (name, plan) in [
        ("simulate_time_limit_0", ["--mode", "all-at-once"]),
        ("simulate_plan_time_limit_0", ["--plan", "pairwise"]),
    ] {
        let mut cmd = liquid();
        cmd.args(["simulate", "fat-tree:4,2"]).args(plan).args([
            "--link-throughput",
            "1000",
            "--time-limit",
            "0",
        ]);
        crate::snap!(name, cmd, vec![(r"wall_s: [0-9.eE+-]+", "wall_s: [wall]")]);
    }
}

/// `simulate --plan` needs an all-to-all: the first missing ordered pair is named, both
/// when the traffic has too few transfers to hold one (paper-fig1: 5 senders, 5 other
/// receivers) and when one pair is missing among as many transfers as ordered pairs.
#[test]
fn an_mpi_plan_names_the_first_missing_pair() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("a2a.yaml");
    let mut text = String::from("name: a2a\nlink_throughput: 1000\ntransfers:\n");
    for s in 0..3 {
        for d in (0..3).filter(|&d| d != s) {
            if (s, d) != (1, 2) {
                text +=
                    &format!("  - {{id: h{s}->h{d}, from: h{s}, to: h{d}, path: [u{s}, d{d}]}}\n");
            }
        }
    }
    // A second transfer h0 -> h1: as many transfers as ordered pairs, one pair missing.
    text += "  - {id: again, from: h0, to: h1, path: [u0, d1]}\n";
    std::fs::write(&model, text).expect("written");
    let model = model.to_str().expect("UTF-8");
    for (m, want) in [
        ("paper-fig1:", "no transfer from T1 to T2"),
        (model, "no transfer from h1 to h2"),
    ] {
        let out = liquid()
            .args([
                "simulate",
                m,
                "--plan",
                "pairwise",
                "--link-throughput",
                "1000",
            ])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{m}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(want) && err.contains("an all-to-all needs every ordered pair"),
            "{m}: {err}"
        );
    }
}

/// Without --engine, a traffic the native engine does not decide within half the limit
/// (torus:8x8,2, 16,256 transfers) runs the portfolio's best schedule, found in the time
/// left; before, it was an error ("engine native found no schedule") after the whole
/// limit.
#[test]
fn an_undecided_traffic_runs_the_portfolios_schedule_by_default() {
    let out = succeed(liquid().args([
        "simulate",
        "torus:8x8,2",
        "--link-throughput",
        "1000",
        "--time-limit",
        "4",
        "--format",
        "json",
    ]));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // The portfolio does not settle it in the 2 s left either (it needs far more than
    // 300 s): the report and stderr say that the schedule run is its best so far.
    assert_eq!(
        r["schedule"]["source"], "engine portfolio (stopped by its limit: verdict unknown)",
        "{r}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: a limit stopped engine portfolio before it settled the traffic"),
        "{err}"
    );
    assert!(
        r["schedule"]["length"].as_u64().expect("length") >= 320,
        "{r}"
    );
    assert_eq!(r["schedule"]["duration"], 320, "{r}");
}

/// A transfer with `count: 2` is the same traffic as its two copies written out: its
/// copies' virtual links tell them apart and are no hop, so they add no latency (they
/// added one link latency per copy: 0.402 s against 0.202 s in frames).
#[test]
fn copies_of_a_count_take_no_latency_on_their_virtual_links() {
    let dir = tempfile::tempdir().expect("tempdir");
    let counted = dir.path().join("counted.yaml");
    let written = dir.path().join("written.yaml");
    std::fs::write(
        &counted,
        "name: v\nlink_throughput: 1000\ntransfers:\n  - {id: a, path: [x]}\n  - {id: b, path: [y], count: 2}\n",
    )
    .expect("writes");
    std::fs::write(
        &written,
        "name: v\nlink_throughput: 1000\ntransfers:\n  - {id: a, path: [x]}\n  - {id: b1, path: [y]}\n  - {id: b2, path: [y]}\n",
    )
    .expect("writes");
    for mode in ["frames", "async", "all-at-once"] {
        let run = |m: &std::path::Path| {
            let p = m.to_str().expect("utf-8");
            let args = [
                p,
                "--size",
                "1000000",
                "--link-latency",
                "0.1",
                "--mode",
                mode,
            ];
            f(&simulate(&args), "makespan_s")
        };
        let (c, w) = (run(&counted), run(&written));
        assert!(close(c, w), "{mode}: count {c} s, written out {w} s");
    }
    // The time bound of the sizes: one hop of latency, not two.
    let sizes = dir.path().join("s.yaml");
    std::fs::write(&sizes, "a: 1000000\nb#1: 1000000\nb#2: 1000000\n").expect("writes");
    let mut cmd = liquid();
    cmd.arg("analyze")
        .arg(&counted)
        .arg("--sizes")
        .arg(&sizes)
        .args(["--link-latency", "0.1", "--format", "json"]);
    let v: Value = serde_json::from_slice(&succeed(&mut cmd).stdout).expect("JSON");
    let bound = v["time_bound"]["seconds"].as_f64().expect("seconds");
    assert!(close(bound, 0.101), "{bound}");
}

#[test]
fn sizes_help_names_both_file_forms() {
    // `--sizes` reads a `src,dst,bytes` CSV as well as the YAML mapping; the help of the
    // commands sharing the option said YAML only.
    for cmd in [
        &["simulate", "--help"][..],
        &["export", "mpi", "--help"],
        &["export", "simgrid", "--help"],
    ] {
        let out = succeed(liquid().args(cmd));
        let help = String::from_utf8_lossy(&out.stdout);
        let at = help.find("--sizes <FILE>").expect("a --sizes option");
        // The option's entry: up to the blank line after it.
        let text = help[at..].split("\n\n").next().unwrap_or("");
        assert!(
            text.contains("`src,dst,bytes`") && text.contains("`transfer id: bytes`"),
            "{cmd:?}: {text}"
        );
    }
}
