//! Hostile input, round six: a tester's findings (explore4). Each test fails with the
//! binary of main before its fix (`LIQUID_TEST_BIN=/path/to/old/liquid cargo test --test
//! cli hostile6`) and passes after.

use crate::common::{liquid, refused};

/// `--jobs` of the sweeps that take it is 1 to 4096: 0 ran on the default, 100,000 ran
/// for minutes starting threads before any work.
#[test]
fn worker_counts_out_of_range_are_refused() {
    for sweep in [&["testbed", "t1"][..], &["study", "routing", "runs"][..]] {
        for jobs in ["0", "100000"] {
            let out = liquid()
                .args(sweep)
                .args(["--jobs", jobs, "--out", "unused"])
                .output()
                .expect("runs");
            refused(&out, &["--jobs", "is not in 1..=4096"]);
        }
    }
}

/// `latency simulate` far past saturation gave a "mean" with a tight interval and no
/// word: the point is now `saturated` (the study's rule) and stderr warns.
#[test]
fn latency_simulate_past_saturation_says_so() {
    let run = |rate: &str| {
        let out = liquid()
            .args(["latency", "simulate", "4,2x1+1x2", "--rate", rate])
            .args(["--messages", "300", "--warmup", "30", "--drain", "30"])
            .args(["--replications", "2", "--format", "json"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        (v, String::from_utf8(out.stderr).expect("UTF-8"))
    };
    let (v, err) = run("1");
    assert_eq!(v["points"][0]["saturated"], true);
    assert!(
        err.contains("warning: rate 1 is past saturation") && err.contains("no steady-state"),
        "{err}"
    );
    let (v, err) = run("0.001");
    assert_eq!(v["points"][0]["saturated"], false);
    assert!(!err.contains("saturation"), "{err}");
    assert!(v["zero_load_latency"].as_f64().is_some_and(|z| z > 0.0));
}

/// `merge` of crosscheck shards re-loads each model: one whose traffic changed since the
/// shards ran is refused (its shards' bounds are not about it: `no-team` made liquid kept
/// a clique bound of 3 and `status: optimal`); a comment changes nothing.
#[test]
fn crosscheck_merge_refuses_a_model_that_changed_since_the_shards() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = dir.path().join("no-team.yaml");
    let text =
        std::fs::read_to_string(crate::common::root().join("models/no-team.yaml")).expect("model");
    std::fs::write(&model, &text).expect("write");
    let shards = dir.path().join("shards");
    crate::common::succeed(
        liquid()
            .arg("crosscheck")
            .arg(&model)
            .args(["--engines", "native,dsatur", "--shard", "1/1", "--out"])
            .arg(&shards),
    );
    let merge = || liquid().arg("merge").arg(&shards).output().expect("runs");
    std::fs::write(&model, format!("# a comment\n{text}")).expect("write");
    assert_eq!(merge().status.code(), Some(0));
    let changed = text.replace("{id: z, path: [a, c]}", "{id: z, path: [d]}");
    assert_ne!(changed, text, "the edit applies");
    std::fs::write(&model, changed).expect("write");
    refused(
        &merge(),
        &[
            "item 0",
            "the model changed since the shards ran",
            "run the sweep again",
        ],
    );
}

/// `export mpi` wrote host names verbatim into the hostfile and ranks.txt: a name with a
/// newline shifted every later rank a line, one with `slots=64` gave Open MPI an option.
/// Such names are refused before any file of the plan is written.
#[test]
fn export_mpi_refuses_host_names_that_are_no_hostfile_line() {
    let dir = tempfile::tempdir().expect("tmp");
    for (host, shown) in [
        ("h1 slots=64", "h1 slots=64"),
        ("h2\\nh3", "h2\nh3"),
        ("#h", "#h"),
    ] {
        let model = dir.path().join("m.yaml");
        std::fs::write(
            &model,
            format!(
                "name: evil\ntransfers:\n  - {{id: t1, from: \"{host}\", to: h9, path: [l1]}}\n  \
                 - {{id: t2, from: h9, to: \"{host}\", path: [l2]}}\n"
            ),
        )
        .expect("write");
        let out = dir.path().join("plan");
        let run = liquid()
            .args(["export", "mpi"])
            .arg(&model)
            .args(["--size", "4096", "--link-throughput", "1000", "--out"])
            .arg(&out)
            .output()
            .expect("runs");
        refused(
            &run,
            &[&format!(
                "host {shown:?} (rank 0) cannot be a line of the hostfile"
            )],
        );
        assert!(!out.join("hostfile").exists() && !out.join("rank-0.txt").exists());
    }
}

/// A curve or a case given twice ran twice and wrote one file for both: refused, naming
/// it (two message sizes of one flit count name one curve's files too).
#[test]
fn studies_refuse_a_curve_or_case_given_twice() {
    let dir = tempfile::tempdir().expect("tmp");
    let latency = |systems: &str, sizes: &str| {
        liquid()
            .args(["latency", "study", "--systems", systems, "--sizes", sizes])
            .args(["--points", "2", "--messages", "100", "--out"])
            .arg(dir.path().join("lat"))
            .output()
            .expect("runs")
    };
    refused(
        &latency("4,2x1;4,2x1", "32:256"),
        &["would write the same files (latency-4-2x1-1-32.*"],
    );
    refused(
        &latency("4,2x1", "32:256,32:512"),
        &[
            "sizes \"32:512\"",
            "sizes \"32:256\"",
            "give each system and M once",
        ],
    );
    for (flag, values, twice) in [
        (
            "--size-cases",
            "2+2,3+1,2+2",
            "--size-cases: 2+2 is given twice",
        ),
        ("--equal", "2,3,2", "--equal: 2 is given twice"),
        ("--node-sizes", "64,64", "--node-sizes: 64 is given twice"),
    ] {
        let out = liquid()
            .args([
                "study",
                "two-clusters",
                "--size-exponents",
                "0..1",
                flag,
                values,
            ])
            .arg("--out")
            .arg(dir.path().join("tc"))
            .output()
            .expect("runs");
        refused(&out, &[twice]);
    }
    assert!(!dir.path().join("tc").exists() && !dir.path().join("lat").exists());
}

/// `verify --proof DIR` wrote `shorter-schedule.yaml` through a link there (to a file
/// outside DIR); `check-proof` of a folder whose formula.cnf is a FIFO waited for ever.
#[test]
fn proof_folders_neither_write_through_links_nor_wait_on_fifos() {
    let dir = tempfile::tempdir().expect("tmp");
    let precious = dir.path().join("precious.txt");
    std::fs::write(&precious, "mine\n").expect("write");
    let proof = dir.path().join("p");
    std::fs::create_dir(&proof).expect("mkdir");
    std::fs::write(proof.join("notes.txt"), "a file of the user's\n").expect("write");
    std::os::unix::fs::symlink(&precious, proof.join("shorter-schedule.yaml")).expect("link");
    let long = dir.path().join("long.yaml");
    std::fs::write(&long, "timeframes: [[t0], [t1], [t2], [t3], [t4], [h]]\n").expect("write");
    let out = liquid()
        .args(["verify", "models/odd-wheel.yaml", "--schedule"])
        .arg(&long)
        .arg("--proof")
        .arg(&proof)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "not optimal");
    assert_eq!(std::fs::read_to_string(&precious).expect("read"), "mine\n");
    let written = proof.join("shorter-schedule.yaml");
    assert!(std::fs::symlink_metadata(&written)
        .expect("written")
        .is_file());
    // A FIFO for formula.cnf: refused at once, not waited on.
    let fifo_dir = dir.path().join("f");
    let p = liquid()
        .args([
            "prove",
            "models/odd-wheel.yaml",
            "--colours",
            "3",
            "--proof",
        ])
        .arg(&fifo_dir)
        .output()
        .expect("runs");
    assert_eq!(p.status.code(), Some(0));
    let cnf = fifo_dir.join("formula.cnf");
    std::fs::remove_file(&cnf).expect("rm");
    let made = std::process::Command::new("mkfifo")
        .arg(&cnf)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let out = liquid()
        .args(["check-proof", "models/odd-wheel.yaml", "--proof"])
        .arg(&fifo_dir)
        .output()
        .expect("runs");
    refused(&out, &["formula.cnf: not a regular file"]);
}

/// `merge` of `study routing` shards mixed two fabrics when a run folder was refilled
/// between shards (rows of 4 hosts beside rows of 31): shards record a digest of each
/// run's topology and tables, so such shards are of two runs.
#[test]
fn routing_shards_of_a_changed_fabric_do_not_merge() {
    let dir = tempfile::tempdir().expect("tmp");
    let data = crate::common::root().join("crates/study/tests/data/routing/fat-tree-4-3");
    let run = dir.path().join("runs/fab/minhop");
    let fill = |from: &str| {
        let _ = std::fs::remove_dir_all(&run);
        std::fs::create_dir_all(&run).expect("mkdir");
        for f in ["topology.txt", "opensm-lfts.dump"] {
            std::fs::copy(data.join(from).join(f), run.join(f)).expect("copy");
        }
    };
    let shard = |i: &str| {
        crate::common::succeed(
            liquid()
                .args(["study", "routing"])
                .arg(dir.path().join("runs"))
                .args(["--seeds", "1", "--shard", i, "--out"])
                .arg(dir.path().join("shards")),
        );
    };
    fill("minhop");
    shard("1/2");
    fill("ftree");
    shard("2/2");
    let out = liquid()
        .arg("merge")
        .arg(dir.path().join("shards"))
        .arg("--out")
        .arg(dir.path().join("merged"))
        .output()
        .expect("runs");
    refused(&out, &["foreign shard: its params.inputs differs"]);
}

/// `merge --format json` of crosscheck shards printed the run's YAML without a word: a
/// given --format is the one printed; without it, the run's.
#[test]
fn merge_format_is_honoured_for_crosscheck_shards() {
    let dir = tempfile::tempdir().expect("tmp");
    let shards = dir.path().join("shards");
    crate::common::succeed(
        liquid()
            .args(["crosscheck", "models/no-team.yaml", "--engines", "native"])
            .args(["--format", "yaml", "--shard", "1/1", "--out"])
            .arg(&shards),
    );
    let merged = |extra: &[&str]| {
        let out = crate::common::succeed(liquid().arg("merge").arg(&shards).args(extra));
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let json = merged(&["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["consistent"], true);
    assert!(merged(&[]).starts_with("consistent: true"));
}

/// `merge` of explain shards took a report's `time_limit_s` other than the run's, and
/// named a wrong liquidity in Rust's words (`Some(true)`).
#[test]
fn explain_merge_checks_the_time_limit_and_names_liquidity_plainly() {
    let run = |name: &str, tamper: &dyn Fn(&mut serde_json::Value)| {
        let dir = tempfile::tempdir().expect("tmp");
        let shards = dir.path().join("shards");
        crate::common::succeed(
            liquid()
                .args(["explain", "models/odd-wheel.yaml", "--time-limit", "20"])
                .args(["--shard", "1/1", "--out"])
                .arg(&shards),
        );
        let file = shards.join("explain-shard-1-of-1.json");
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("JSON");
        tamper(&mut v["items"][0]["result"]);
        std::fs::write(&file, v.to_string()).expect("write");
        let out = liquid().arg("merge").arg(&shards).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        err
    };
    let err = run("limit", &|r| r["time_limit_s"] = 1.0.into());
    assert!(err.contains("time_limit_s 1, the run's is 20"), "{err}");
    let err = run("liquid", &|r| r["liquid"] = true.into());
    assert!(
        err.contains("liquid is true, but 1 cores and stopped false give false"),
        "{err}"
    );
}

/// `expand` dropped the explicit form's `link_latency` and, without a word, every link's
/// own bandwidth and latency, so the expansion simulated otherwise: the latency is kept,
/// and what the explicit form cannot hold is named on stderr.
#[test]
fn expand_keeps_link_latency_and_names_what_it_cannot_hold() {
    let dir = tempfile::tempdir().expect("tmp");
    let explicit = dir.path().join("e.yaml");
    std::fs::write(
        &explicit,
        "name: e\nlink_throughput: 10\nlink_latency: 0.5\ntransfers:\n  - {id: x, path: [a, b]}\n  \
         - {id: y, path: [b]}\n",
    )
    .expect("write");
    let out = crate::common::succeed(liquid().arg("expand").arg(&explicit));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        text.contains("link_throughput: 10\nlink_latency: 0.5\ntransfers:"),
        "{text}"
    );
    assert!(out.stderr.is_empty());
    let network = dir.path().join("n.yaml");
    std::fs::write(
        &network,
        "name: n\nlink_throughput: 200\nnetwork:\n  hosts: [a, d]\n  switches: [s]\n  links:\n    \
         - {id: a>s, from: a, to: s, bandwidth: 100}\n    \
         - {id: s>d, from: s, to: d, latency: 0.001}\n  routing: shortest-path\npattern:\n  \
         type: pairs\n  pairs: [{from: a, to: d}]\n",
    )
    .expect("write");
    let out = liquid().arg("expand").arg(&network).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: expand: 2 links have their own bandwidth or latency"),
        "{err}"
    );
}

/// `export mpi` predicted the runtime's barrier and acknowledgement messages between
/// hosts the model has no route for as free, without a word: the report counts those
/// rank pairs and stderr warns. paper-fig1 (senders T, receivers R): 13 barrier pairs
/// (R to T1, T to T1 and back) and 20 acknowledgements (R to T2..T5) have no route.
#[test]
fn export_mpi_names_control_messages_without_a_route() {
    let dir = tempfile::tempdir().expect("tmp");
    let export = |model: &str, size: &str| {
        let out = liquid()
            .args([
                "export",
                "mpi",
                model,
                "--size",
                size,
                "--link-throughput",
                "100",
            ])
            .arg("--out")
            .arg(dir.path().join(model.replace(['/', ':', ','], "_")))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0));
        (
            String::from_utf8(out.stdout).expect("UTF-8"),
            String::from_utf8(out.stderr).expect("UTF-8"),
        )
    };
    let (report, err) = export("models/paper-fig1.yaml", "1MB");
    assert!(report.contains("control_without_route: 33"), "{report}");
    assert!(err.contains("warning: 33 rank pairs"), "{err}");
    // Eager messages have no acknowledgement: the barrier's 13 pairs remain.
    let (report, _) = export("models/paper-fig1.yaml", "1KB");
    assert!(report.contains("control_without_route: 13"), "{report}");
    let (report, err) = export("fat-tree:4,2", "1MB");
    assert!(
        !report.contains("control_without_route") && !err.contains("warning"),
        "{err}"
    );
}

/// `analyze` and `solve` gave a liquid throughput of #X / Λ × `link_throughput` although
/// the bottleneck link has its own, lower bandwidth: a figure no schedule reaches. With a
/// link of its own bandwidth there is no single liquid throughput (as `simulate` says).
#[test]
fn liquid_throughput_is_none_when_links_have_their_own_bandwidth() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = |own: &str| {
        let p = dir.path().join(format!("m{}.yaml", own.len()));
        std::fs::write(
            &p,
            format!(
                "name: star\nlink_throughput: 200\nnetwork:\n  hosts: [a, b, d]\n  switches: [s]\n  \
                 links:\n    - {{id: a>s, from: a, to: s}}\n    - {{id: b>s, from: b, to: s}}\n    \
                 - {{id: s>d, from: s, to: d{own}}}\n  routing: shortest-path\npattern:\n  \
                 type: pairs\n  pairs: [{{from: a, to: d}}, {{from: b, to: d}}]\n"
            ),
        )
        .expect("write");
        p
    };
    let figures = |p: &std::path::Path, cmd: &str| {
        let out = crate::common::succeed(liquid().arg(cmd).arg(p).args(["--format", "json"]));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["liquid_throughput"].clone()
    };
    let uniform = model("");
    assert_eq!(figures(&uniform, "analyze"), 200.0);
    assert_eq!(figures(&uniform, "solve"), 200.0);
    let own = model(", bandwidth: 100");
    assert_eq!(figures(&own, "analyze"), serde_json::Value::Null);
    assert_eq!(figures(&own, "solve"), serde_json::Value::Null);
    // The same bandwidth as the model's is no bandwidth of its own.
    let same = model(", bandwidth: 200");
    assert_eq!(figures(&same, "analyze"), 200.0);
}

/// `export mpi --sizes --size B --plan pieces|whole` gave the pairs a sizes file leaves
/// out `--size` without the note the other plans and `simulate` write.
#[test]
fn export_mpi_sizes_plans_say_how_many_pairs_took_size() {
    let dir = tempfile::tempdir().expect("tmp");
    let part = dir.path().join("part.csv");
    std::fs::write(&part, "src,dst,bytes\np0,p1,5000\np1,p0,7000\n").expect("write");
    for plan in ["whole", "pieces"] {
        let out = liquid()
            .args(["export", "mpi", "fat-tree:4,2", "--sizes"])
            .arg(&part)
            .args([
                "--size",
                "1000",
                "--link-throughput",
                "1000",
                "--plan",
                plan,
            ])
            .arg("--out")
            .arg(dir.path().join(plan))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{plan}: {err}");
        assert!(
            err.contains("note: 54 of the 56 transfers have no size in")
                && err.contains("they take --size (1000 bytes)"),
            "{plan}: {err}"
        );
    }
}

/// `--envelope` took half a byte and 1e30, `--eager-limit` refused `64KiB`: both are whole
/// bytes with units now, as every other byte option (0 allowed).
#[test]
fn export_mpi_envelope_and_eager_limit_are_byte_counts() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = |envelope: &str, eager: &str| {
        liquid()
            .args(["export", "mpi", "fat-tree:4,2", "--size", "1000"])
            .args(["--link-throughput", "100", "--envelope", envelope])
            .args(["--eager-limit", eager, "--out"])
            .arg(dir.path().join(format!("{envelope}-{eager}")))
            .output()
            .expect("runs")
    };
    assert_eq!(run("16", "64KiB").status.code(), Some(0));
    assert_eq!(run("0", "0").status.code(), Some(0));
    refused(
        &run("0.5", "65536"),
        &["--envelope", "\"0.5\" is not a whole number of bytes"],
    );
    refused(&run("1e30", "65536"), &["--envelope"]);
}

/// `solve --sizes --quantum 1` on 5.6 million bytes built 5.6 million pieces and, ten
/// times larger, aborted on a failed allocation: a quantum that makes more pieces than a
/// traffic may have transfers is refused at once, naming the smallest that fits.
#[test]
fn a_quantum_of_too_many_pieces_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let sizes = dir.path().join("s.csv");
    crate::common::succeed(
        liquid()
            .args(["generate", "sizes", "fat-tree:4,2", "--dist", "equal"])
            .args(["--bytes-per-rank", "700000", "--out"])
            .arg(&sizes),
    );
    for cmd in ["solve", "crosscheck"] {
        let out = liquid()
            .args([cmd, "fat-tree:4,2", "--sizes"])
            .arg(&sizes)
            .args(["--link-throughput", "1000", "--quantum", "1"])
            .output()
            .expect("runs");
        refused(
            &out,
            &[
                "--quantum 1: 5600000 pieces, more than the 4194304",
                "at least 2 bytes",
            ],
        );
    }
}

/// `solve --engine native --schedule-out FILE` of a traffic with no liquid schedule threw
/// the report away: it is printed (why there is no schedule), then the error.
#[test]
fn solve_schedule_out_without_a_schedule_still_prints_the_report() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = liquid()
        .args([
            "solve",
            "models/odd-wheel.yaml",
            "--engine",
            "native",
            "--schedule-out",
        ])
        .arg(dir.path().join("s.yaml"))
        .output()
        .expect("runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("verdict: non-liquid"), "{report}");
    refused(&out, &["no schedule to write to", "the engine found none"]);
    assert!(!dir.path().join("s.yaml").exists());
}

/// `--pieces-out` named a message of one piece `ID` and piece k `ID#k`: transfers `m` and
/// `m#1` gave `[m#1, m#1]`. Every piece is `ID#k` now, one name per piece.
#[test]
fn pieces_out_names_every_piece_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = dir.path().join("amb.yaml");
    std::fs::write(
        &model,
        "name: amb\nlink_throughput: 100\ntransfers:\n  - {id: m, path: [a]}\n  - {id: \"m#1\", path: [b]}\n",
    )
    .expect("write");
    let sizes = dir.path().join("s.yaml");
    std::fs::write(&sizes, "m: 2000000\n\"m#1\": 500000\n").expect("write");
    let pieces = dir.path().join("p.yaml");
    crate::common::succeed(
        liquid()
            .arg("solve")
            .arg(&model)
            .arg("--sizes")
            .arg(&sizes)
            .args([
                "--preemption",
                "chunks",
                "--quantum",
                "1000000",
                "--pieces-out",
            ])
            .arg(&pieces),
    );
    let text = std::fs::read_to_string(&pieces).expect("written");
    assert!(text.contains("  - [m#1, m#1#1]\n  - [m#2]\n"), "{text}");
}

/// `compare DIR` before any run said only "DIR/report.json: No such file or directory":
/// it says where the report comes from.
#[test]
fn compare_before_a_run_says_where_the_report_comes_from() {
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("plan");
    crate::common::succeed(
        liquid()
            .args([
                "export",
                "mpi",
                "fat-tree:4,2",
                "--size",
                "1000",
                "--link-throughput",
                "100",
            ])
            .arg("--out")
            .arg(&plan),
    );
    let out = liquid().arg("compare").arg(&plan).output().expect("runs");
    refused(
        &out,
        &["no run report yet: run the plan first (mpirun -np 8 --oversubscribe ./liquid-mpi-run"],
    );
}

/// `explain` stopped by its limit said so only inside the report (`stopped: true`), with
/// nothing on stderr: it warns, as `solve` does (exit 0, stdout the report alone).
#[test]
fn explain_stopped_by_its_limit_warns() {
    let out = liquid()
        .args(["explain", "torus:6x6,2", "--time-limit", "0.5"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("stopped: true"), "{report}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("warning: explain \"torus-6x6-k2\": stopped by --time-limit 0.5 s"),
        "{err}"
    );
    let quick = liquid()
        .args(["explain", "models/odd-wheel.yaml"])
        .output()
        .expect("runs");
    assert!(
        quick.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quick.stderr)
    );
}

/// `--proof DIR` took any file of liquid's names for liquid's: a user's `manifest.yaml`
/// (a Kubernetes one) and `formula.cnf` were removed as "an earlier run's", and a proof
/// would have replaced the folder. Files of those names are liquid's only when they read
/// as such (a proof manifest of liquid's format, a shorter schedule alone).
#[test]
fn proof_folders_of_the_users_files_are_left_alone() {
    let dir = tempfile::tempdir().expect("tmp");
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).expect("mkdir");
    let files = [
        ("manifest.yaml", "apiVersion: v1\nkind: Deployment\n"),
        ("formula.cnf", "my notes\n"),
        ("shorter-schedule.yaml", "keep\n"),
    ];
    for (name, text) in files {
        std::fs::write(mine.join(name), text).expect("write");
    }
    let intact = || {
        for (name, text) in files {
            assert_eq!(
                std::fs::read_to_string(mine.join(name)).expect("kept"),
                text,
                "{name}"
            );
        }
    };
    let solve = liquid()
        .args(["solve", "models/paper-fig1.yaml", "--proof"])
        .arg(&mine)
        .output()
        .expect("runs");
    assert_eq!(solve.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&solve.stderr).contains("removed"));
    intact();
    let prove = liquid()
        .args([
            "prove",
            "models/odd-wheel.yaml",
            "--colours",
            "3",
            "--proof",
        ])
        .arg(&mine)
        .output()
        .expect("runs");
    refused(&prove, &["which liquid did not write", "manifest.yaml"]);
    intact();
    // A shorter schedule alone that is no schedule file is not liquid's either.
    std::fs::remove_file(mine.join("manifest.yaml")).expect("rm");
    std::fs::remove_file(mine.join("formula.cnf")).expect("rm");
    let prove = liquid()
        .args([
            "prove",
            "models/odd-wheel.yaml",
            "--colours",
            "3",
            "--proof",
        ])
        .arg(&mine)
        .output()
        .expect("runs");
    refused(
        &prove,
        &["shorter-schedule.yaml, which liquid did not write"],
    );
    assert_eq!(
        std::fs::read_to_string(mine.join("shorter-schedule.yaml")).expect("kept"),
        "keep\n"
    );
}

/// `crosscheck --sizes` whose every simulation the limit stopped still ended "every
/// prediction simulated to its end the simulator's" (cut mid-phrase, and true of none).
#[test]
fn crosscheck_sizes_says_when_no_prediction_was_compared() {
    let dir = tempfile::tempdir().expect("tmp");
    let sizes = dir.path().join("u.csv");
    crate::common::succeed(
        liquid()
            .args(["generate", "sizes", "fat-tree:4,2", "--dist", "uniform"])
            .args(["--bytes-per-rank", "1MiB", "--out"])
            .arg(&sizes),
    );
    let run = |limit: &[&str]| {
        let out = liquid()
            .args(["crosscheck", "fat-tree:4,2", "--sizes"])
            .arg(&sizes)
            .args(["--link-throughput", "100"])
            .args(limit)
            .output()
            .expect("runs");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let cut = run(&["--time-limit", "0"]);
    let last = cut.lines().last().expect("a verdict line");
    assert!(
        last.starts_with("agreed: every schedule valid, every time at or above its bound; no prediction compared with the simulator ("),
        "{cut}"
    );
    let full = run(&[]);
    assert!(
        full.ends_with("every prediction the simulator's\n"),
        "{full}"
    );
}

/// `--markdown` naming one of the study's own output files overwrote the data with the
/// report: refused, the data kept.
#[test]
fn a_markdown_report_never_overwrites_the_studys_data() {
    let dir = tempfile::tempdir().expect("tmp");
    let tc = dir.path().join("tc");
    let csv = tc.join("two-clusters.csv");
    let out = liquid()
        .args([
            "study",
            "two-clusters",
            "--no-node-sweep",
            "--size-exponents",
            "0..1",
        ])
        .args(["--size-cases", "2+2", "--out"])
        .arg(&tc)
        .arg("--markdown")
        .arg(&csv)
        .output()
        .expect("runs");
    refused(&out, &["a file of the study's own output"]);
    assert!(std::fs::read_to_string(&csv)
        .expect("kept")
        .starts_with("sweep,n1,n2"));
    let lat = dir.path().join("lat");
    let data = lat.join("latency-4-2x1-1-32.csv");
    let out = liquid()
        .args([
            "latency",
            "study",
            "--systems",
            "4,2x1",
            "--sizes",
            "32:256",
        ])
        .args([
            "--points",
            "2",
            "--messages",
            "100",
            "--warmup",
            "10",
            "--drain",
            "10",
        ])
        .args(["--replications", "1", "--out"])
        .arg(&lat)
        .arg("--markdown")
        .arg(&data)
        .output()
        .expect("runs");
    refused(&out, &["a file of the study's own output"]);
    assert!(std::fs::read_to_string(&data)
        .expect("kept")
        .starts_with("rate,"));
}

/// crosscheck's table said "optimal length between 3 and -" when no engine found a
/// schedule: it says the optimum is at least the bound.
#[test]
fn crosscheck_without_a_schedule_says_at_least() {
    let out = liquid()
        .args(["crosscheck", "models/odd-wheel.yaml", "--engines", "native"])
        .args(["--format", "table"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("optimal length at least 3 (no schedule found)") && !text.contains("and -"),
        "{text}"
    );
}

/// `export ibsim` of a model with an error named the file twice
/// (`w.yaml: w.yaml:7:12: ...`): once, with its line.
#[test]
fn export_ibsim_names_a_model_error_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = dir.path().join("w.yaml");
    std::fs::write(
        &model,
        "name: w\nnetwork:\n  hosts: [a, b]\n  switches: [s]\n  links:\n    \
         - {id: a>s, from: a, to: s}\n  routing: sideways\npattern:\n  type: pairs\n  \
         pairs: [{from: a, to: b}]\n",
    )
    .expect("write");
    let out = liquid()
        .args(["export", "ibsim"])
        .arg(&model)
        .arg("--out")
        .arg(dir.path().join("w.net"))
        .output()
        .expect("runs");
    let err = refused(
        &out,
        &["w.yaml:7: column 12: network.routing: unknown variant"],
    );
    assert_eq!(err.matches("w.yaml").count(), 1, "{err}");
}
