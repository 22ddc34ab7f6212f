//! Issue 16: two clusters and a slow backbone (paper 001): the generator, the spec on the
//! simulator, and the study command.

use crate::common::{liquid, succeed};
use crate::snap;

#[test]
fn generate_two_clusters() {
    snap!(
        "generate@two-clusters-2-3-network",
        liquid().args([
            "generate",
            "two-clusters",
            "--n1",
            "2",
            "--n2",
            "3",
            "--form",
            "network"
        ])
    );
    snap!(
        "generate@two-clusters-1-2-lanes",
        liquid().args([
            "generate",
            "two-clusters",
            "--n1",
            "1",
            "--n2",
            "2",
            "--lanes",
            "2",
            "--backbone-bandwidth",
            "250",
            "--form",
            "network"
        ])
    );
}

#[test]
fn bad_two_clusters_parameters_are_input_errors() {
    for args in [
        vec!["generate", "two-clusters", "--n1", "0", "--n2", "3"],
        vec![
            "generate",
            "two-clusters",
            "--n1",
            "2",
            "--n2",
            "3",
            "--backbone-latency",
            "-1",
            "--form",
            "network",
        ],
        vec!["analyze", "two-clusters:3"],
        vec!["analyze", "two-clusters:3,4,fast"],
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{err}");
    }
}

#[test]
fn the_spec_carries_its_link_parameters_into_the_simulator() {
    // No --link-throughput: every link has its own bandwidth and latency.
    let out = succeed(liquid().args([
        "simulate",
        "two-clusters:2,3",
        "--mode",
        "all-at-once",
        "--size",
        "1250000",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // Each node card sends 4 messages of 1.25 MB at 125 MB/s (40 ms: the link bound; the
    // backbone needs 6 ms for its 6 messages each way); remote messages start after
    // 5.05 ms of latency, local ones after 50 µs, so the makespan lies between.
    let bound = v["link_bound_s"].as_f64().expect("a number");
    assert!((bound - 0.04).abs() < 1e-12, "{bound}");
    let makespan = v["makespan_s"].as_f64().expect("a number");
    assert!(makespan > 0.04005 && makespan < 0.04505, "{makespan}");
}

#[test]
fn study_at_tiny_sizes_writes_csv_and_svg() {
    let dir = tempfile::tempdir().expect("tempdir");
    let md = dir.path().join("report.md");
    let out = succeed(
        liquid()
            .args([
                "study",
                "two-clusters",
                "--size-exponents",
                "0..3",
                "--size-cases",
                "3+7,2+2",
                "--equal",
                "2,3",
                "--double",
                "1",
                "--node-sizes",
                "1024",
                "--time-limit",
                "5",
                "--format",
                "json",
                "--out",
            ])
            .arg(dir.path())
            .arg("--markdown")
            .arg(&md),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // Backbone messages counted from the plans: 2·max(n1, n2) and 2·n1·n2.
    let counts = v["backbone_messages"].as_array().expect("a list");
    assert_eq!(counts.len(), 4); // 3+7, 2+2, 3+3, 1+2
    for c in counts {
        let (n1, n2) = (c["n1"].as_u64().expect("n1"), c["n2"].as_u64().expect("n2"));
        assert_eq!(c["lg"], 2 * n1.max(n2), "{c}");
        assert_eq!(c["direct"], 2 * n1 * n2, "{c}");
        assert_eq!(c["counts_match"], true);
    }
    assert_eq!(v["setting"]["backbone_latency"]["value"], 0.005);
    assert!(v["setting"]["backbone_latency"]["source"]
        .as_str()
        .expect("text")
        .starts_with("assumption"));
    // LG beats the round-robin all-to-all at small sizes (one backbone latency per
    // round against one per LG step).
    let cmp = v["comparisons"].as_array().expect("a list");
    let lg_rr = cmp
        .iter()
        .find(|c| c["n1"] == 3 && c["faster"] == "lg" && c["than"] == "direct-round-robin")
        .expect("compared");
    assert_eq!(lg_rr["wins_from_bytes"], 1.0);
    assert!(lg_rr["largest_speedup"].as_f64().expect("number") > 2.0);
    // CSV: header, then 9 algorithms × (2 cases × 4 sizes + 3 cases × 1 size).
    let csv = std::fs::read_to_string(dir.path().join("two-clusters.csv")).expect("written");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("sweep,n1,n2,bytes,algorithm,makespan_s,messages,backbone_messages")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 9 * (2 * 4 + 3));
    for r in &rows {
        assert_eq!(r.len(), 8, "{r:?}");
        let t: f64 = r[5].parse().expect("a time");
        assert!(t > 0.005, "every run crosses the 5 ms backbone: {r:?}");
    }
    assert!(rows
        .iter()
        .any(|r| r[..5] == ["sizes", "3", "7", "8", "lg"] && r[7] == "14"));
    for svg in [
        "sizes-3-7.svg",
        "sizes-2-2.svg",
        "nodes-equal.svg",
        "nodes-double.svg",
    ] {
        let text = std::fs::read_to_string(dir.path().join(svg)).expect("written");
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg", "{svg}");
        assert!(text.contains("lg-liquid-relay-first"), "{svg}: legend");
    }
    let report = std::fs::read_to_string(&md).expect("written");
    assert!(report.starts_with("# Two clusters"));
    assert!(report.contains("| 3+7 | 14 | 14 | 42 | 42 |"), "{report}");
}

#[test]
fn study_rejects_bad_parameters() {
    for args in [
        vec!["--size-cases", "3x7"],
        vec!["--size-exponents", "5..2"],
        vec!["--backbone-bandwidth", "0"],
        vec!["--size-cases", "0+3"],
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = liquid()
            .args(["study", "two-clusters", "--out"])
            .arg(dir.path())
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn study_uses_dsatur_where_the_engine_gives_no_schedule() {
    // round-robin schedules all-to-alls only: LG's phases fall back to DSatur.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = succeed(
        liquid()
            .args([
                "study",
                "two-clusters",
                "--size-exponents",
                "10..10",
                "--size-cases",
                "3+7",
                "--no-node-sweep",
                "--engine",
                "round-robin",
                "--format",
                "json",
                "--out",
            ])
            .arg(dir.path()),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let sources: Vec<&str> = v["schedules"][0]["traffics"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| t["source"].as_str().expect("text"))
        .collect();
    assert_eq!(sources[0], "round-robin (liquid)");
    assert!(
        sources[1..].iter().all(|s| s.starts_with("dsatur")),
        "{sources:?}"
    );
}

#[test]
fn generate_two_clusters_of_a_topology() {
    // fat-tree:4,1 is one 4-port switch: each cluster a crossbar of 4 hosts behind a
    // gateway cable, every remote route a0>A.sw0, A.sw0>A, A>B, B>B.sw0, B.sw0>b0.
    snap!(
        "generate@two-clusters-fat-tree-4-1",
        liquid().args(["generate", "two-clusters", "--cluster", "fat-tree:4,1"])
    );
    // --n1/--n2 may be given when they match; the spec form builds the same network.
    let with_sizes = succeed(liquid().args([
        "generate",
        "two-clusters",
        "--cluster",
        "fat-tree:4,2",
        "--n1",
        "8",
        "--n2",
        "8",
    ]));
    let spec = succeed(liquid().args(["expand", "two-clusters:fat-tree:4,2"]));
    assert_eq!(with_sizes.stdout, spec.stdout);
}

#[test]
fn bad_cluster_shapes_are_input_errors() {
    for (args, says) in [
        (
            vec![
                "generate",
                "two-clusters",
                "--cluster",
                "fat-tree:4,1",
                "--n1",
                "3",
            ],
            "n1: 3 nodes, but the cluster fat-tree:4,1 has 4 hosts",
        ),
        (
            vec!["generate", "two-clusters", "--cluster", "two-clusters:2,2"],
            "not a cluster topology",
        ),
        (
            vec!["generate", "two-clusters", "--cluster", "fat-tree:3,2"],
            "cluster: \"fat-tree:3,2\"",
        ),
        (
            vec!["generate", "two-clusters", "--n1", "3"],
            "--n2 is required",
        ),
        (
            vec!["analyze", "two-clusters:paper-fig1:"],
            "not a cluster topology",
        ),
        (
            vec!["study", "two-clusters", "--cluster", "ring:1,0"],
            "--cluster: cluster: \"ring:1,0\"",
        ),
        (
            vec![
                "study",
                "two-clusters",
                "--cluster",
                "ring:4,1",
                "--size-cases",
                "2+2",
            ],
            "cannot be used with",
        ),
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn study_with_fat_tree_clusters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = succeed(
        liquid()
            .args([
                "study",
                "two-clusters",
                "--cluster",
                "fat-tree:4,2",
                "--size-exponents",
                "0..2",
                "--node-sizes",
                "1024",
                "--time-limit",
                "5",
                "--format",
                "json",
                "--out",
            ])
            .arg(dir.path()),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["setting"]["cluster"], "fat-tree:4,2");
    // One case, 8+8 (the tree's 8 hosts per cluster), in both sweeps.
    let counts = v["backbone_messages"].as_array().expect("a list");
    assert_eq!(counts.len(), 1);
    assert_eq!(counts[0]["n1"], 8);
    assert_eq!(counts[0]["lg"], 16);
    assert_eq!(counts[0]["direct"], 128);
    assert_eq!(counts[0]["counts_match"], true);
    let csv = std::fs::read_to_string(dir.path().join("two-clusters.csv")).expect("written");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // 9 algorithms × (3 sizes + 1 node-sweep size).
    assert_eq!(rows.len(), 9 * 4);
    for a in [
        "direct-all-at-once",
        "direct-round-robin",
        "direct-liquid",
        "lg",
        "lg-liquid",
        "lg-liquid-relay-first",
        "mpi-ompi-1.1.2",
        "mpi-ompi-4.1",
        "mpi-mpich-3.3",
    ] {
        let mine: Vec<_> = rows.iter().filter(|r| r[4] == a).collect();
        assert_eq!(mine.len(), 4, "{a}");
        for r in mine {
            assert_eq!(r[1..3], ["8", "8"], "{r:?}");
            if a.starts_with("mpi") {
                // One message per pair, or fewer when Bruck packs them (small sizes).
                let n: usize = r[7].parse().expect("a count");
                assert!((16..=128).contains(&n), "{r:?}");
            } else {
                let want = if a.starts_with("lg") { "16" } else { "128" };
                assert_eq!(r[7], want, "{r:?}");
            }
            let t: f64 = r[5].parse().expect("a time");
            assert!(t > 0.005, "{r:?}");
        }
    }
}

#[test]
fn simulate_runs_an_mpi_librarys_all_to_all() {
    let run = |plan: &str, size: &str| -> serde_json::Value {
        let out = succeed(liquid().args([
            "simulate",
            "two-clusters:4,4",
            "--plan",
            plan,
            "--size",
            size,
            "--format",
            "json",
        ]));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    // Open MPI 1.1.2 at 8 ranks of 1 MiB: pairwise, 7 rounds of one message per rank,
    // each at most a node card's 125 MB/s: at least 7 × 8.39 ms.
    let v = run("mpi-ompi-1.1.2", "1048576");
    assert_eq!(v["algorithm"], "pairwise");
    assert_eq!(v["messages"], 56);
    assert_eq!(v["ranks"][4], "b0");
    let t = v["makespan_s"].as_f64().expect("a number");
    assert!(t > 7.0 * 1048576.0 / 125e6, "{t}");
    // Bruck: 3 rounds of one packed message per rank (4 blocks each at 8 ranks).
    let v = run("bruck", "100");
    assert_eq!(v["messages"], 24);
    assert_eq!(v["total_bytes"], 8.0 * 3.0 * 4.0 * 100.0);
    // MPICH 3.3 at 256 B and 8 ranks is Bruck too; at 32 KiB its scattered all-to-all.
    assert_eq!(run("mpi-mpich-3.3", "256")["algorithm"], "bruck");
    assert_eq!(run("mpi-mpich-3.3", "32768")["algorithm"], "scattered-32");
    for (args, want) in [
        (vec!["--plan", "nope"], "give mpi-ompi-1.1.2"),
        (
            vec!["--plan", "pairwise", "--engine", "dsatur"],
            "give no --schedule",
        ),
        (vec!["--plan", "scattered-x"], "scattered-K"),
    ] {
        let out = liquid()
            .args(["simulate", "two-clusters:4,4"])
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let out = liquid()
        .args(["simulate", "two-clusters:3,3", "--plan", "pair"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("power-of-two"));
}

/// `--time-limit` bounds each simulation as it bounds each engine run: at 0 s (the repair
/// engine still gives its schedules) every run stops before its first event; the study is
/// still written, each run without a makespan (an empty CSV cell, listed in
/// stopped_by_time_limit), a warning, exit 0.
#[test]
fn the_time_limit_stops_each_simulation_of_the_study() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = succeed(
        liquid()
            .args([
                "study",
                "two-clusters",
                "--no-node-sweep",
                "--size-exponents",
                "10..10",
                "--size-cases",
                "2+2",
                "--engine",
                "repair",
                "--time-limit",
                "0",
                "--format",
                "json",
                "--out",
            ])
            .arg(dir.path()),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let stopped = v["stopped_by_time_limit"].as_array().expect("a list");
    assert_eq!(stopped.len(), 9, "{v}");
    assert_eq!(stopped[0], "sizes 2+2 1024 B direct-all-at-once");
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        err.contains("warning: the time limit stopped 9 simulations, which have no makespan"),
        "{err}"
    );
    let csv = std::fs::read_to_string(dir.path().join("two-clusters.csv")).expect("written");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 9);
    assert!(rows.iter().all(|r| r[5].is_empty()), "{csv}");
    // The plans are still made and counted.
    assert!(rows[..3].iter().all(|r| r[6..] == ["12", "8"]), "{csv}");
}

/// The explicit form holds no per-link bandwidth or latency: a link option given with it
/// is refused (exit 2), naming the options and `--form network`, instead of being dropped
/// (it was kept in the description text only, and `simulate` of that model ran every
/// link at `--link-throughput`); without link options, and with `--form network`, the
/// model is written.
#[test]
fn link_options_are_refused_with_the_explicit_form() {
    for form in [&[][..], &["--form", "explicit"][..]] {
        let out = liquid()
            .args(["generate", "two-clusters", "--n1", "2", "--n2", "2"])
            .args(["--backbone-bandwidth", "500", "--node-latency", "0.001"])
            .args(form)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: --backbone-bandwidth, --node-latency: the explicit form"),
            "{err}"
        );
        assert!(err.contains("--form network"), "{err}");
        assert!(out.stdout.is_empty());
    }
    // The default figures given again are still given: refused too.
    let out = liquid()
        .args(["generate", "two-clusters", "--n1", "2", "--n2", "2"])
        .args(["--node-bandwidth", "125"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    succeed(liquid().args(["generate", "two-clusters", "--n1", "2", "--n2", "2"]));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let model = dir.path().join("tc.yaml");
    succeed(
        liquid()
            .args(["generate", "two-clusters", "--n1", "2", "--n2", "2"])
            .args(["--backbone-bandwidth", "500", "--node-latency", "0.001"])
            .args(["--form", "network", "--out"])
            .arg(&model),
    );
    // The network form carries them: 1 MB messages take 0.06 s (the node links' latency
    // and the backbone's bandwidth as given).
    let out = succeed(
        liquid()
            .arg("simulate")
            .arg(&model)
            .args(["--size", "1000000"]),
    );
    let v: serde_yaml::Value = serde_yaml::from_slice(&out.stdout).expect("YAML");
    assert_eq!(v["makespan_s"].as_f64(), Some(0.06));
}
