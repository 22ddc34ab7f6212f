//! `liquid import ib` and `liquid export ibsim` as a user runs them (the importer's own
//! tests, on real OpenSM output, are in crates/fabric/tests).

use crate::common::{liquid, succeed};

const DIR: &str = "crates/fabric/tests/data/2sw4hca";

fn import(extra: &[&str]) -> std::process::Output {
    liquid()
        .args([
            "import",
            "ib",
            &format!("{DIR}/topology.txt"),
            &format!("{DIR}/opensm-lfts.dump"),
        ])
        .args(extra)
        .env_remove("SLURM_JOB_NODELIST")
        .output()
        .expect("runs")
}

#[test]
fn import_writes_a_model_every_command_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("fabric.yaml");
    let model_s = model.to_str().expect("UTF-8");
    let out = import(&["--out", model_s, "--tracert", &format!("{DIR}/tracert.txt")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("import ib: 2 switches, 4 adapters; 4 hosts, 12 routes followed, 0 unrouted"),
        "{err}"
    );
    assert!(
        err.contains("import ib: ibtracert: 12 of 12 traces agree"),
        "{err}"
    );
    let out = succeed(liquid().args(["analyze", model_s]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("transfers: 12"), "{text}");
    succeed(liquid().args(["solve", model_s]));
}

#[test]
fn hosts_come_from_the_hostlist_or_slurm() {
    let out = import(&["--hosts", "Hca[1-3]"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  senders: [Hca1, Hca2, Hca3]"), "{text}");
    let out = liquid()
        .args([
            "import",
            "ib",
            &format!("{DIR}/topology-p.txt"),
            &format!("{DIR}/dump_fts.txt"),
        ])
        .env("SLURM_JOB_NODELIST", "Hca[2,4]")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  senders: [Hca2, Hca4]"), "{text}");
    // Nothing on the command line asked for it: stderr says where the hosts came from.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the hosts are the job's, from SLURM_JOB_NODELIST (Hca[2,4])"),
        "{err}"
    );
}

#[test]
fn hosts_separated_by_whitespace_are_several_hosts() {
    // `scontrol show hostnames` prints one name a line; Slurm reads spaces and newlines
    // as separators (was: "Hca1Hca3", not in the fabric).
    for list in ["Hca1 Hca3", "Hca1\nHca3\n", "Hca1, Hca3"] {
        let out = import(&["--hosts", list]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{list:?}: {err}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("  senders: [Hca1, Hca3]"), "{list:?}: {text}");
    }
}

#[test]
fn bad_input_exits_2_naming_the_file() {
    let out = import(&["--hosts", "Hca[1-5]"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --hosts: host \"Hca5\" is not in the fabric"),
        "{err}"
    );
    // A host named twice in the hostlist.
    let out = import(&["--hosts", "Hca[1-2],Hca1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --hosts: host \"Hca1\" is named twice"),
        "{err}"
    );
    // An adapter's LID out of range, or 0: named at its topology line (were "lacks its
    // LID (...truncated?)" and a table/LID mismatch in the tables).
    let dir = tempfile::tempdir().expect("temp dir");
    let topo = std::fs::read_to_string(format!("{DIR}/topology.txt")).expect("fixture");
    for (lid, why) in [
        (
            "99999999999",
            "LID 99999999999 is not a unicast LID (1-49151)",
        ),
        (
            "0",
            "the adapter port has LID 0, which is never a unicast LID (1-49151)",
        ),
    ] {
        let file = dir.path().join(format!("topo-{lid}.txt"));
        let edited = topo.replacen("# lid 6 lmc 0", &format!("# lid {lid} lmc 0"), 1);
        assert_ne!(edited, topo);
        std::fs::write(&file, edited).expect("write");
        let file = file.to_str().expect("UTF-8");
        let out = liquid()
            .args(["import", "ib", file, &format!("{DIR}/opensm-lfts.dump")])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("error: {file}:31: {why}")),
            "{err}"
        );
    }
    // The tables given as the topology.
    let out = liquid()
        .args([
            "import",
            "ib",
            &format!("{DIR}/opensm-lfts.dump"),
            &format!("{DIR}/opensm-lfts.dump"),
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "error: {DIR}/opensm-lfts.dump:1: not a line of ibnetdiscover output"
        )),
        "{err}"
    );
    // A trace that disagrees: exit 1.
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = dir.path().join("t.txt");
    let text = std::fs::read_to_string(format!("{DIR}/tracert.txt")).expect("fixture");
    std::fs::write(
        &trace,
        text.replacen("[3] -> switch port", "[5] -> switch port", 1),
    )
    .expect("write");
    let out = import(&["--tracert", trace.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("import ib: ibtracert: 11 of 12 traces agree"),
        "{err}"
    );
}

#[test]
fn export_ibsim_writes_every_cable_from_both_ends() {
    for spec in [
        "fat-tree:4,2",
        "torus:3x3,1",
        "two-clusters:3,3",
        "mesh:2x2,2",
        "ring:2,1",
        "hyperx:3x2,2",
    ] {
        let out = succeed(liquid().args(["export", "ibsim", spec]));
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        // Every port line [p] "r"[q] has its partner [q] "node"[p] in r's record.
        let mut node = String::new();
        let mut ends = std::collections::BTreeSet::new();
        for line in text.lines() {
            if let Some(rest) = line
                .strip_prefix("Switch\t")
                .or_else(|| line.strip_prefix("Hca\t"))
            {
                node = rest.split('"').nth(1).expect("id").to_string();
            } else if let Some(rest) = line.strip_prefix('[') {
                let p: &str = rest.split(']').next().expect("port");
                let remote = line.split('"').nth(1).expect("remote");
                let q = line.rsplit('[').next().expect("[q]").trim_end_matches(']');
                ends.insert((
                    node.clone(),
                    p.to_string(),
                    remote.to_string(),
                    q.to_string(),
                ));
            }
        }
        assert!(!ends.is_empty(), "{spec}");
        if spec == "torus:3x3,1" {
            // Cabled by dimension for OpenSM's dor: after the host's port 1, the next
            // switch along x on port 2 (its port 3 back), along y on 4 (5 back).
            for (a, p, b, q) in [("s0", "2", "s1", "3"), ("s0", "4", "s3", "5")] {
                let end = (a.into(), p.into(), b.into(), q.into());
                assert!(ends.contains(&end), "{end:?}");
            }
        }
        for (a, p, b, q) in &ends {
            assert!(
                ends.contains(&(b.clone(), q.clone(), a.clone(), p.clone())),
                "{spec}: {a}[{p}] -> {b}[{q}]"
            );
        }
    }
    let out = liquid()
        .args(["export", "ibsim", "models/paper-fig1-explicit.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("an explicit-form model"), "{err}");
    // PXN's NVLink hop is not an InfiniBand cable: refused, naming the machine without it.
    let out = liquid()
        .args(["export", "ibsim", "rail:4,2,2,pxn"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has no link back") && err.contains("without pxn (`rail:4,2,2`)"),
        "{err}"
    );
    succeed(liquid().args(["export", "ibsim", "rail:4,2,2"]));
}

#[test]
fn study_routing_runs_sharded_and_merged_like_the_other_sweeps() {
    let runs = "crates/study/tests/data/routing";
    let dir = tempfile::tempdir().expect("temp dir");
    let whole = dir.path().join("whole");
    let w = whole.to_str().expect("UTF-8");
    let out = liquid()
        .args(["study", "routing", runs, "--seeds", "1", "--out", w])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("study routing: 2 runs, 10 rows\n"), "{err}");
    assert!(err.contains("[10/10]"), "{err}");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("rows: 10"), "{summary}");
    let shards = dir.path().join("shards");
    let s = shards.to_str().expect("UTF-8");
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = liquid()
            .args(["study", "routing", runs, "--seeds", "1", "--out", s])
            .args(["--shard", &shard])
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merged = dir.path().join("merged");
    let out = liquid()
        .args(["merge", s, "--out", merged.to_str().expect("UTF-8")])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let strip = |p: &std::path::Path| -> String {
        std::fs::read_to_string(p.join("routing.csv"))
            .expect("routing.csv")
            .lines()
            .map(|l| l.rsplit_once(',').expect("columns").0.to_string() + "\n")
            .collect()
    };
    assert_eq!(strip(&whole), strip(&merged));
    // A folder without runs: exit 2, named.
    let out = liquid()
        .args(["study", "routing", "crates/fabric/src", "--out", w])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("crates/fabric/src: no run found"), "{err}");
}

/// `study routing --time-limit` bounds each simulation as it bounds each engine run: at
/// 0 s (the repair engine still gives its schedules) every simulation stops before its
/// first event; the study is still written, each makespan null (an empty CSV cell, listed
/// in stopped_by_time_limit), a warning, exit 0. DSatur, run when the engine gives no
/// schedule, is bounded too: at 0 s neither gives one, and the error says to raise the
/// limit (exit 2).
#[test]
fn study_routing_time_limit_stops_each_simulation() {
    let runs = "crates/study/tests/data/routing";
    let dir = tempfile::tempdir().expect("temp dir");
    let out = succeed(
        liquid()
            .args([
                "study", "routing", runs, "--seeds", "1", "--engine", "repair",
            ])
            .args(["--time-limit", "0", "--format", "json", "--out"])
            .arg(dir.path().join("w")),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let stopped = v["stopped_by_time_limit"].as_array().expect("a list");
    assert_eq!(stopped.len(), 30, "three simulations of ten rows: {v}");
    assert_eq!(
        stopped[0],
        "fat-tree-4-3/ftree whole seed 0: liquid schedule"
    );
    assert!(
        v["groups"][0]["mean_makespan_over_crossbar"]["liquid"].is_null(),
        "{v}"
    );
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        err.contains("warning: the time limit stopped 30 simulations, which have no makespan"),
        "{err}"
    );
    let csv = std::fs::read_to_string(dir.path().join("w/routing.csv")).expect("written");
    for row in csv.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[18..21], ["", "", ""], "{row}");
        assert!(
            !cells[17].is_empty(),
            "the crossbar's makespan is computed: {row}"
        );
    }
    let out = liquid()
        .args([
            "study",
            "routing",
            runs,
            "--seeds",
            "1",
            "--time-limit",
            "0",
            "--out",
        ])
        .arg(dir.path().join("x"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "and dsatur found no schedule within the time limit (0 s): raise --time-limit"
        ),
        "{err}"
    );
}

/// `liquid study routing RUNS --seeds SEEDS --fractions 50 EXTRA... --out DIR/OUT`, its
/// routing.csv read back: one map of column to cell per row.
fn study_rows(
    runs: &std::path::Path,
    seeds: &str,
    extra: &[&str],
    dir: &std::path::Path,
    out: &str,
) -> Vec<std::collections::HashMap<String, String>> {
    succeed(
        liquid()
            .args(["study", "routing"])
            .arg(runs)
            .args(["--seeds", seeds, "--fractions", "50"])
            .args(extra)
            .arg("--out")
            .arg(dir.join(out)),
    );
    let csv = std::fs::read_to_string(dir.join(out).join("routing.csv")).expect("written");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

const ROUTING_RUNS: &str = "crates/study/tests/data/routing";

/// `study routing`'s Open MPI pairwise exchange sends 1 MiB messages by rendezvous (ob1,
/// from the 64 KiB eager limit), as Open MPI does: on the minhop fabric of the test data
/// the whole machine's pairwise takes 2.181 ms. With every send eager (the study before
/// this was fixed) the ranks' next sends piled onto the links: 2.642 ms, more than the
/// liquid schedule's 2.013 ms plus a round's worth.
#[test]
fn study_routing_pairwise_sends_large_messages_by_rendezvous() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rows = study_rows(ROUTING_RUNS.as_ref(), "1", &[], dir.path(), "w");
    let row = rows
        .iter()
        .find(|r| r["engine"] == "minhop" && r["allocation"] == "whole")
        .expect("the minhop whole-machine row");
    assert_eq!(row["size_bytes"], "1048576");
    assert_eq!(row["pairwise_makespan_s"], "0.002181038");
    assert_eq!(row["liquid_makespan_s"], "0.002013266");
}

/// `study routing --hosts LIST` draws the allocations from the hosts given (a machine's
/// compute nodes, without its storage or login nodes), not every adapter.
#[test]
fn study_routing_draws_allocations_from_the_hosts_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rows = study_rows(
        ROUTING_RUNS.as_ref(),
        "2",
        &["--hosts", "p[0-11]"],
        dir.path(),
        "w",
    );
    assert_eq!(rows.len(), 10, "{rows:?}");
    for r in &rows {
        let hosts: Vec<&str> = r["host_list"].split(' ').collect();
        let want = if r["allocation"] == "whole" { 12 } else { 6 };
        assert_eq!(hosts.len(), want, "{r:?}");
        for h in hosts {
            let n: u32 = h.strip_prefix('p').and_then(|n| n.parse().ok()).expect(h);
            assert!(n <= 11, "{h} is not of p[0-11]: {r:?}");
        }
    }
    // A host the fabric lacks is refused, naming it.
    let out = liquid()
        .args([
            "study",
            "routing",
            ROUTING_RUNS,
            "--hosts",
            "p[0-3],q9",
            "--out",
        ])
        .arg(dir.path().join("x"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("q9"));
}

/// `study routing` simulates a link at another rate than the fabric's (a cable trained at
/// 1X among 4X ones, as ibnetdiscover prints it on both ends) at its ratio to
/// `--link-throughput`: the whole machine's schedule takes longer than on the healthy
/// fabric, where it took the same.
#[test]
fn study_routing_keeps_a_degraded_cable_s_rate() {
    let src = std::path::Path::new(ROUTING_RUNS).join("fat-tree-4-3/minhop");
    let dir = tempfile::tempdir().expect("temp dir");
    let run = dir.path().join("degraded/minhop");
    std::fs::create_dir_all(&run).expect("mkdir");
    for f in ["opensm-lfts.dump", "engine.txt"] {
        std::fs::copy(src.join(f), run.join(f)).expect("copy");
    }
    let topo = std::fs::read_to_string(src.join("topology.txt")).expect("read");
    let edited = topo
        .replace(
            "[1]\t\"S-0000000000200005\"[2]\t\t# \"sw1_0_1\" lid 9 4xSDR",
            "[1]\t\"S-0000000000200005\"[2]\t\t# \"sw1_0_1\" lid 9 1xSDR",
        )
        .replace(
            "[2]\t\"S-0000000000200003\"[1]\t\t# \"sw0_1_1\" lid 6 4xSDR",
            "[2]\t\"S-0000000000200003\"[1]\t\t# \"sw0_1_1\" lid 6 1xSDR",
        );
    assert_eq!(edited.matches("1xSDR").count(), 2, "the edit applies");
    std::fs::write(run.join("topology.txt"), edited).expect("write");
    let whole = |runs: &std::path::Path, out: &str| -> f64 {
        let rows = study_rows(runs, "1", &[], dir.path(), out);
        let row = rows
            .iter()
            .find(|r| r["allocation"] == "whole")
            .expect("the whole machine's row");
        row["liquid_makespan_s"].parse().expect("a makespan")
    };
    let healthy = whole(&src, "healthy");
    let degraded = whole(&run, "degraded-out");
    assert!(degraded > healthy * 1.5, "{degraded} against {healthy}");
}
