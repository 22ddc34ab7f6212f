//! `liquid export mpi` and `liquid compare` (the MPI runtime itself runs in
//! scripts/test-mpi, where mpirun is).

use serde_json::Value;

use crate::common::{liquid, succeed};

fn export(dir: &std::path::Path, args: &[&str]) {
    succeed(
        liquid()
            .args(["export", "mpi"])
            .args(args)
            .arg("--out")
            .arg(dir),
    );
}

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("file")).expect("JSON")
}

#[test]
fn the_export_predicts_the_plan_as_simulate_and_the_run_with_its_barriers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = [
        "models/paper-fig1.yaml",
        "--schedule",
        "models/paper-fig1-liquid-schedule.yaml",
        "--size",
        "1000000",
        "--link-latency",
        "0.000002",
    ];
    export(dir.path(), &args);
    let m = json(&dir.path().join("manifest.json"));
    let out = succeed(
        liquid()
            .arg("simulate")
            .args(args)
            .args(["--format", "json"]),
    );
    let sim: Value = serde_json::from_slice(&out.stdout).expect("report");
    let (a, b) = (
        m["prediction"]["plan_s"].as_f64().expect("plan"),
        sim["makespan_s"].as_f64().expect("makespan"),
    );
    assert!((a - b).abs() <= 1e-12 * b, "{a} {b}");
    // The run adds the barriers between the frames (paper-fig1's liquid schedule has 5):
    // two route latencies at least each, and its first barrier's.
    let total = m["prediction"]["total_s"].as_f64().expect("total");
    assert!(total > a + 5.0 * 2.0 * 0.000002, "{total} {a}");
    let ranks = m["ranks"].as_array().expect("ranks").len();
    assert_eq!(ranks, 10);
    assert_eq!(m["messages"], 25);
    let hostfile = std::fs::read_to_string(dir.path().join("hostfile")).expect("hostfile");
    assert_eq!(hostfile.lines().count(), ranks);
    for r in 0..ranks {
        let text = std::fs::read_to_string(dir.path().join(format!("rank-{r}.txt"))).expect("rank");
        assert!(
            text.starts_with(&format!("liquid-mpi 1\nrank {r} 10\n")),
            "{text}"
        );
        assert!(text.ends_with("end\n"), "{text}");
    }
    // Every message is sent once and received once over all ranks.
    let count = |word: &str| -> usize {
        (0..ranks)
            .map(|r| {
                std::fs::read_to_string(dir.path().join(format!("rank-{r}.txt")))
                    .expect("rank")
                    .lines()
                    .filter(|l| l.starts_with(word))
                    .count()
            })
            .sum()
    };
    assert_eq!((count("send "), count("recv ")), (25, 25));
}

#[test]
fn the_export_prints_its_prediction_for_people_and_keeps_it_whole_in_the_manifest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = succeed(
        liquid()
            .args(["export", "mpi", "fat-tree:4,2", "--link-throughput", "1234"])
            .args(["--link-latency", "1.3e-6", "--overhead", "3e-6", "--out"])
            .arg(dir.path()),
    );
    let yaml = String::from_utf8(out.stdout).expect("UTF-8");
    let m = json(&dir.path().join("manifest.json"));
    let total = m["prediction"]["total_s"].as_f64().expect("total");
    let rounded = format!("{total:.3e}").parse::<f64>().expect("a number");
    assert_ne!(total, rounded, "the prediction has more than 4 digits");
    assert!(
        yaml.contains(&format!("\npredicted_s: {rounded}\n")),
        "{rounded}: {yaml}"
    );
}

#[test]
fn lg_relays_pieces_and_needs_a_two_clusters_model() {
    let dir = tempfile::tempdir().expect("temp dir");
    export(
        dir.path(),
        &["two-clusters:3,5", "--plan", "lg", "--size", "100"],
    );
    let m = json(&dir.path().join("manifest.json"));
    assert_eq!(m["mode"], "lg");
    assert_eq!(m["steps"], 3); // local phase + ⌈5/3⌉ exchange steps
    let rank0 = std::fs::read_to_string(dir.path().join("rank-0.txt")).expect("rank 0");
    assert!(
        rank0
            .lines()
            .any(|l| l.starts_with("send 1 ") && l.split(' ').count() > 5),
        "{rank0}"
    );
    let out = liquid()
        .args(["export", "mpi", "paper-fig1:", "--plan", "lg", "--out"])
        .arg(dir.path().join("x"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("two-clusters model"));
}

#[test]
fn lg_with_liquid_phases_runs_frame_by_frame_and_predicts_its_barriers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = ["two-clusters:3,5", "--plan", "lg-liquid", "--size", "100"];
    export(dir.path(), &args);
    let m = json(&dir.path().join("manifest.json"));
    assert_eq!(m["mode"], "lg-liquid");
    let source = m["source"].as_str().expect("source");
    assert!(source.contains("lg-local-3-5: engine native"), "{source}");
    assert!(
        source.contains("lg-exchange-3-5: engine native"),
        "{source}"
    );
    let steps = m["steps"].as_u64().expect("steps");
    let labels: Vec<&str> = m["prediction"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["label"].as_str().expect("label"))
        .collect();
    assert_eq!(labels.len() as u64, steps);
    assert_eq!(labels[0], "local frame 1");
    assert!(labels
        .last()
        .expect("a step")
        .starts_with("inter-cluster frame"));
    // A barrier ends every frame but the last, on every rank.
    let rank0 = std::fs::read_to_string(dir.path().join("rank-0.txt")).expect("rank 0");
    assert_eq!(
        rank0.lines().filter(|l| *l == "barrier").count() as u64,
        steps - 1,
        "{rank0}"
    );
    // The run's prediction adds them (and the first barrier) to the plan's makespan.
    let (total, plan) = (
        m["prediction"]["total_s"].as_f64().expect("total"),
        m["prediction"]["plan_s"].as_f64().expect("plan"),
    );
    assert!(total > plan, "{total} {plan}");
    let out = liquid()
        .args(["export", "mpi", "two-clusters:3,5", "--plan", "lg-liquid"])
        .args([
            "--schedule",
            "models/paper-fig1-liquid-schedule.yaml",
            "--out",
        ])
        .arg(dir.path().join("x"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes no --schedule"));
}

#[test]
fn traffic_only_plans_refuse_a_schedule_and_all_at_once_runs_no_engine() {
    let dir = tempfile::tempdir().expect("temp dir");
    for plan in ["round-robin", "pairwise", "lg"] {
        let out = liquid()
            .args(["export", "mpi", "paper-fig1:", "--plan", plan, "--engine"])
            .args(["native", "--out"])
            .arg(dir.path().join(plan))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{plan}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("take no --schedule, --engine or --mode"),
            "{plan}: {err}"
        );
        assert!(!dir.path().join(plan).exists(), "{plan}: nothing written");
        // Nor a mode or a seed, which they would drop without a word.
        for (extra, want) in [
            (
                ["--mode", "async"],
                "take no --schedule, --engine or --mode",
            ),
            (["--seed", "3"], "draws nothing at random: give no --seed"),
        ] {
            let out = liquid()
                .args(["export", "mpi", "paper-fig1:", "--plan", plan])
                .args(extra)
                .arg("--out")
                .arg(dir.path().join(plan))
                .output()
                .expect("runs");
            assert_eq!(out.status.code(), Some(2), "{plan} {extra:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(want), "{plan} {extra:?}: {err}");
            assert!(!dir.path().join(plan).exists(), "{plan}: nothing written");
        }
    }
    let out = liquid()
        .args([
            "export",
            "mpi",
            "paper-fig1:",
            "--plan",
            "all-at-once",
            "--mode",
        ])
        .args(["async", "--out"])
        .arg(dir.path().join("aao"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("give no --mode async"), "{err}");
    // All at once without a schedule: every transfer posted in one step, in the
    // model's order (no engine ran, so the manifest names no engine's schedule).
    export(
        dir.path(),
        &["paper-fig1:", "--plan", "all-at-once", "--size", "100"],
    );
    let m = json(&dir.path().join("manifest.json"));
    assert_eq!(m["mode"], "all-at-once");
    assert_eq!(m["steps"], 1);
    assert_eq!(m["messages"], 25);
}

#[test]
fn compare_sets_a_run_beside_the_prediction_and_refuses_another_plan_s_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    export(
        dir.path(),
        &[
            "fat-tree:4,2",
            "--plan",
            "round-robin",
            "--size",
            "1000",
            "--link-throughput",
            "100",
        ],
    );
    let m = json(&dir.path().join("manifest.json"));
    let steps: Vec<Value> = m["prediction"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| {
            let t = s["time_s"].as_f64().expect("time") * 1.5;
            serde_json::json!({"step": s["step"], "start_s": 0.0, "end_s": t, "time_s": t,
                "bytes": s["bytes"], "messages": s["messages"]})
        })
        .collect();
    let total = m["prediction"]["total_s"].as_f64().expect("total") * 1.5;
    let plan = dir.path().display().to_string();
    // A consistent report: its totals are its steps' sums.
    let report = |steps: &[Value]| {
        let sum = |f: &str| {
            steps
                .iter()
                .map(|s| s[f].as_f64().expect("number"))
                .sum::<f64>()
        };
        serde_json::json!({"format": "liquid-mpi-report/1", "plan": plan, "mode": "round-robin",
            "ranks": 8, "check": true, "repeat": 1, "mpi_library": "test", "errors": 0,
            "total_s": total, "runs_s": [total], "bytes": sum("bytes"), "messages": sum("messages"),
            "steps": steps})
    };
    std::fs::write(dir.path().join("report.json"), report(&steps).to_string()).expect("write");
    let out = succeed(
        liquid()
            .arg("compare")
            .arg(dir.path())
            .args(["--format", "json"]),
    );
    let c: Value = serde_json::from_slice(&out.stdout).expect("comparison");
    assert!(
        (c["ratio"].as_f64().expect("ratio") - 1.5).abs() < 1e-9,
        "{c}"
    );
    assert!(
        (c["steps"][0]["ratio"].as_f64().expect("ratio") - 1.5).abs() < 1e-9,
        "{c}"
    );
    // For people (YAML, the default): times and ratios to 4 significant digits, whole
    // byte counts as integers; JSON above keeps full precision.
    let out = succeed(liquid().arg("compare").arg(dir.path()));
    let yaml = String::from_utf8(out.stdout).expect("UTF-8");
    let predicted = c["predicted_s"].as_f64().expect("predicted");
    let rounded = format!("{predicted:.3e}").parse::<f64>().expect("a number");
    assert!(
        yaml.contains(&format!("\npredicted_s: {rounded}\n")),
        "{rounded}: {yaml}"
    );
    for line in yaml
        .lines()
        .filter(|l| l.trim_start().starts_with("bytes: "))
    {
        let v = line.trim_start().trim_start_matches("bytes: ");
        assert!(v.parse::<u64>().is_ok(), "bytes as an integer: {line}");
    }
    for line in yaml
        .lines()
        .filter(|l| l.trim_start().starts_with("ratio: "))
    {
        let digits = line
            .split(": ")
            .nth(1)
            .expect("value")
            .replace(['.', '-'], "");
        assert!(digits.trim_start_matches('0').len() <= 4, "{line}");
    }
    let mut wrong = steps.clone();
    wrong[2]["messages"] = serde_json::json!(7);
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, report(&wrong).to_string()).expect("write");
    let out = liquid()
        .arg("compare")
        .arg(dir.path())
        .arg("--report")
        .arg(&bad)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("step 2: the run sent 7 messages"), "{err}");
}

#[test]
fn rtt_unfair_sharing_slows_cross_cluster_messages_posted_beside_local_ones() {
    // All at once on two clusters: local messages (50 µs routes) and cross-cluster ones
    // (5.05 ms) share the nodes' cards. Max-min gives them equal shares; CM02's sharing
    // gives the local ones about 100 times the cross ones' share, so the cross messages
    // finish later and the run is longer.
    let (a, b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let args = [
        "two-clusters:16,16",
        "--plan",
        "all-at-once",
        "--size",
        "100000",
    ];
    export(a.path(), &args);
    let mut unfair = args.to_vec();
    unfair.push("--rtt-unfair");
    export(b.path(), &unfair);
    let (ma, mb) = (
        json(&a.path().join("manifest.json")),
        json(&b.path().join("manifest.json")),
    );
    let total = |m: &Value| m["prediction"]["total_s"].as_f64().expect("total_s");
    assert!(
        total(&mb) > total(&ma) * 1.01,
        "{} vs {}",
        total(&mb),
        total(&ma)
    );
    let library = mb["prediction"]["library"].as_str().expect("library");
    assert!(library.contains("route latency"), "{library}");
    // The streamed prediction is in closed form: refused, not ignored.
    let out = liquid()
        .args([
            "export",
            "mpi",
            "fat-tree:4,2",
            "--stream",
            "--rtt-unfair",
            "--out",
        ])
        .arg(a.path().join("s"))
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rtt-unfair"));
}

/// `export mpi` honours --time-limit in its prediction: with `--time-limit 0` the limit
/// has passed before the prediction's first segment (deterministically), the program is
/// written all the same, and the manifest says where the prediction stopped, with no
/// total; a warning on stderr, exit 0 (as an engine stopped by the limit).
#[test]
fn a_time_limit_stops_the_prediction_and_the_program_is_still_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = liquid();
    cmd.current_dir(dir.path()).args([
        "export",
        "mpi",
        "fat-tree:4,2",
        "--plan",
        "all-at-once",
        "--link-throughput",
        "1000",
        "--time-limit",
        "0",
        "--out",
        "out",
    ]);
    crate::snap!("export_mpi_time_limit_0", cmd);
    let out = dir.path().join("out");
    let m = json(&out.join("manifest.json"));
    let p = &m["prediction"];
    assert!(p["total_s"].is_null(), "{p}");
    assert_eq!(p["stopped"]["simulation"], "run");
    assert_eq!(p["stopped"]["segments_done"], 0);
    assert_eq!(p["stopped"]["barriers_passed"], 0);
    assert_eq!(p["stopped"]["barriers"], 1);
    assert_eq!(p["stopped"]["simulated_s"], 0.0);
    assert!(p.get("plan_s").is_none(), "{p}");
    assert!(p["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .all(|s| s["time_s"].is_null()));
    for r in 0..8 {
        let text = std::fs::read_to_string(out.join(format!("rank-{r}.txt"))).expect("rank");
        assert!(text.ends_with("end\n"), "{text}");
    }
    // The same export without the limit predicts the run in full.
    let full = dir.path().join("full");
    export(
        &full,
        &[
            "fat-tree:4,2",
            "--plan",
            "all-at-once",
            "--link-throughput",
            "1000",
        ],
    );
    let m = json(&full.join("manifest.json"));
    assert!(m["prediction"]["total_s"].as_f64().is_some());
    assert!(m["prediction"].get("stopped").is_none());
}

/// The exports of unequal messages (`--plan pieces`, `--sizes`) stop their prediction at
/// the limit too: the schedule is always made, then the prediction stops.
#[test]
fn a_time_limit_stops_the_prediction_of_pieces() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sizes = succeed(liquid().args([
        "generate",
        "sizes",
        "fat-tree:4,2",
        "--dist",
        "uniform",
        "--bytes-per-rank",
        "1MiB",
    ]));
    let f = dir.path().join("s.csv");
    std::fs::write(&f, &sizes.stdout).expect("write");
    let out = dir.path().join("out");
    let o = succeed(
        liquid()
            .args([
                "export",
                "mpi",
                "fat-tree:4,2",
                "--plan",
                "pieces",
                "--sizes",
            ])
            .arg(&f)
            .args(["--link-throughput", "1000", "--time-limit", "0", "--out"])
            .arg(&out),
    );
    let stderr = String::from_utf8(o.stderr).expect("UTF-8");
    assert!(
        stderr.contains("warning: the time limit stopped the prediction of the run"),
        "{stderr}"
    );
    let m = json(&out.join("manifest.json"));
    assert!(m["prediction"]["total_s"].is_null());
    assert_eq!(m["prediction"]["stopped"]["segments_done"], 0);
    assert!(m["messages"].as_u64().expect("messages") > 0);
    assert!(std::fs::read_to_string(out.join("rank-0.txt"))
        .expect("rank")
        .ends_with("end\n"));
}
