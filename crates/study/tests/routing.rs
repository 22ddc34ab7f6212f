//! `liquid study routing` on checked-in runs: fat-tree:4,3 (16 hosts, 20 switches)
//! exported by `liquid export ibsim`, routed by OpenSM 3.3.23 through ibsim with ftree and
//! with minhop (`scripts/ib-local run`), the topology and `opensm-lfts.dump` kept.

use std::path::{Path, PathBuf};
use std::time::Duration;

use liquid_study::routing::{self, RoutingArgs};
use liquid_study::{Shard, StudyError, Swept};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/routing")
}

fn args(runs: Vec<PathBuf>, out: &Path) -> RoutingArgs {
    RoutingArgs {
        runs,
        out: out.to_path_buf(),
        fractions: vec![25, 50],
        seeds: 2,
        engine: liquid_engine::find("portfolio").expect("the portfolio engine"),
        time_limit: Duration::from_secs(30),
        size: 1_048_576.0,
        link_mb_s: 12_500.0,
        link_latency: 1e-6,
        hosts: liquid_fabric::hosts::Selection::All,
    }
}

/// The CSV without its last column (the solve times, which vary).
fn csv_without_times(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(routing::CSV))
        .expect("the CSV file")
        .lines()
        .map(|l| l.rsplit_once(',').expect("columns").0.to_string() + "\n")
        .collect()
}

fn rows(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(routing::CSV)).expect("the CSV file");
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn the_study_of_two_engines_on_a_small_fat_tree() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("study");
    let swept = routing::run(&args(vec![data()], &out), None, &|_| {}).expect("the study runs");
    let Swept::Full(summary) = swept else {
        panic!("a whole run")
    };
    // 2 runs × (whole + 2 sizes × 2 kinds × 2 seeds).
    assert_eq!(summary.runs, 2);
    assert_eq!(summary.rows, 18);
    assert_eq!(summary.files.len(), 3, "{:?}", summary.files);
    for f in &summary.files {
        let text = std::fs::read_to_string(f).expect("written");
        assert!(!text.is_empty(), "{f}");
    }
    let rows = rows(&out);
    assert_eq!(rows.len(), 18);
    let col = |name: &str| {
        routing_header()
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("column {name}"))
    };
    let (engine, alloc, hosts, lambda, bound, length, verdict) = (
        col("engine"),
        col("allocation"),
        col("hosts"),
        col("lambda"),
        col("crossbar_bound"),
        col("schedule_length"),
        col("verdict"),
    );
    let whole = |e: &str| {
        rows.iter()
            .find(|r| r[engine] == e && r[alloc] == "whole")
            .unwrap_or_else(|| panic!("{e}'s whole-machine row"))
    };
    // OpenSM's ftree on a fat-tree reaches the full-bisection bound; minhop does not (the
    // figures of benchmarks/results/routing.md's run of every engine).
    assert_eq!(whole("ftree")[lambda], "15");
    assert_eq!(whole("ftree")[bound], "15");
    assert_eq!(whole("minhop")[lambda], "24");
    for r in &rows {
        let n: usize = r[hosts].parse().expect("test data");
        let l: usize = r[lambda].parse().expect("test data");
        assert_eq!(r[bound], (n - 1).to_string());
        assert!(l >= n - 1, "Λ below the crossbar's: {r:?}");
        // The portfolio schedules these all-to-alls liquid.
        assert_eq!(r[length], r[lambda], "{r:?}");
        assert_eq!(r[verdict], "liquid");
        let sizes = match r[alloc].as_str() {
            "whole" => 16,
            a if a.ends_with("-25") => 4,
            _ => 8,
        };
        assert_eq!(n, sizes, "{r:?}");
        // No simulated makespan beats the crossbar's.
        let crossbar: f64 = r[col("crossbar_makespan_s")].parse().expect("test data");
        for c in [
            "liquid_makespan_s",
            "all_at_once_makespan_s",
            "pairwise_makespan_s",
        ] {
            let m: f64 = r[col(c)].parse().expect("test data");
            assert!(m >= crossbar * (1.0 - 1e-9), "{c} {m} < {crossbar}: {r:?}");
        }
    }
    // Deterministic, and independent of the order the runs are given in.
    let again = tmp.path().join("again");
    routing::run(
        &args(
            vec![
                data().join("fat-tree-4-3/minhop"),
                data().join("fat-tree-4-3/ftree"),
            ],
            &again,
        ),
        None,
        &|_| {},
    )
    .expect("the study runs");
    assert_eq!(csv_without_times(&out), csv_without_times(&again));
    for svg in [
        "routing-fat-tree-4-3-throughput.svg",
        "routing-fat-tree-4-3-makespan.svg",
    ] {
        assert_eq!(
            std::fs::read(out.join(svg)).expect("test data"),
            std::fs::read(again.join(svg)).expect("test data"),
            "{svg}"
        );
    }
}

fn routing_header() -> Vec<&'static str> {
    "fabric,engine,engine_used,allocation,seed,hosts,host_list,transfers,lambda,\
     crossbar_bound,liquid_ratio,schedule_engine,verdict,schedule_length,schedule_ratio,\
     evidence,size_bytes,crossbar_makespan_s,liquid_makespan_s,all_at_once_makespan_s,\
     pairwise_makespan_s,solve_time_s"
        .split(',')
        .collect()
}

#[test]
fn shards_merge_into_the_whole_run() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let whole = tmp.path().join("whole");
    routing::run(&args(vec![data()], &whole), None, &|_| {}).expect("the study runs");
    let shards = tmp.path().join("shards");
    for i in 1..=3 {
        let s = Shard { index: i, count: 3 };
        match routing::run(&args(vec![data()], &shards), Some(s), &|_| {}).expect("a shard") {
            Swept::Shard(w) => assert_eq!(w.total, 18),
            Swept::Full(_) => panic!("a shard run"),
        }
    }
    let merged = tmp.path().join("merged");
    match liquid_study::merge::merge(std::slice::from_ref(&shards), Some(&merged)).expect("merges")
    {
        liquid_study::merge::Merged::Routing(s) => assert_eq!(s.rows, 18),
        _ => panic!("not the routing study"),
    }
    assert_eq!(csv_without_times(&whole), csv_without_times(&merged));
    // A shard missing: refused, naming it.
    std::fs::remove_file(shards.join("routing-study-shard-2-of-3.json")).expect("test data");
    let Err(e) = liquid_study::merge::merge(&[shards], Some(&tmp.path().join("m2"))) else {
        panic!("a missing shard is refused")
    };
    assert!(e.is_input(), "{e}");
    assert!(e.to_string().contains("shard"), "{e}");
}

#[test]
fn bad_run_folders_are_refused() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("out");
    // A folder with no run.
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(empty.join("sub")).expect("test data");
    let e = routing::run(&args(vec![empty.clone()], &out), None, &|_| {}).expect_err("refused");
    assert!(matches!(e, StudyError::Input(_)), "{e}");
    assert!(e.to_string().contains("no run found"), "{e}");
    // The same fabric and engine twice.
    let e = routing::run(
        &args(vec![data(), data().join("fat-tree-4-3/ftree")], &out),
        None,
        &|_| {},
    )
    .expect_err("refused");
    assert!(e.to_string().contains("given twice"), "{e}");
    // A topology without tables.
    let lonely = tmp.path().join("fab/ftree");
    std::fs::create_dir_all(&lonely).expect("test data");
    std::fs::copy(
        data().join("fat-tree-4-3/ftree/topology.txt"),
        lonely.join("topology.txt"),
    )
    .expect("test data");
    let e = routing::run(&args(vec![lonely.clone()], &out), None, &|_| {}).expect_err("refused");
    assert!(e.to_string().contains("no forwarding tables"), "{e}");
    // Truncated tables: the import's error, naming the file.
    std::fs::write(
        lonely.join("opensm-lfts.dump"),
        &std::fs::read_to_string(data().join("fat-tree-4-3/ftree/opensm-lfts.dump"))
            .expect("test data")[..2000],
    )
    .expect("test data");
    let e = routing::run(&args(vec![lonely], &out), None, &|_| {}).expect_err("refused");
    assert!(e.is_input(), "{e}");
    assert!(e.to_string().contains("opensm-lfts.dump"), "{e}");
    // A percentage out of range.
    let mut a = args(vec![data()], &out);
    a.fractions = vec![0];
    assert!(routing::run(&a, None, &|_| {}).is_err());
}
