//! Issue 45: hostile input, round three. Each test fails with the binary of main before
//! the fixes (c053655: `LIQUID_TEST_BIN=/path/to/old/liquid cargo test --test cli
//! hostile3`) and passes after. Runs that could allocate without bound before the fix run
//! under an address-space limit (`prlimit --as`, util-linux), so that the old binary
//! aborts (exit 134) instead of taking gigabytes of the machine.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{liquid, refused, root, succeed};

/// 1 GiB of address space: far more than any of these runs needs after the fixes.
const MEMORY: u64 = 1 << 30;

/// `cmd` (a `liquid` command) run under `prlimit --as=MEMORY`.
fn limited(cmd: &Command) -> Output {
    Command::new("prlimit")
        .arg(format!("--as={MEMORY}"))
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .current_dir(root())
        .output()
        .expect("prlimit runs (util-linux)")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The header (up to and with its empty line) of a compact schedule of `spec`.
fn frames_header(dir: &Path, spec: &str) -> Vec<u8> {
    let file = dir.join("good.frames");
    succeed(
        liquid()
            .args(["solve", spec, "--stream", "--schedule-out"])
            .arg(&file),
    );
    let bytes = std::fs::read(&file).expect("frames");
    let end = bytes
        .windows(2)
        .position(|w| w == b"\n\n")
        .expect("header end");
    bytes[..end + 2].to_vec()
}

/// Item 1: a sparse frame whose count promises more pairs than the hosts have is refused;
/// one whose count promises 2^31 − 1 pairs (65,536 hosts have more), in a file of a few
/// bytes, is a file cut short (exit 2), read in memory bounded by the file; `--prefix`
/// too.
#[test]
fn a_sparse_frame_count_is_bounded_by_the_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let small = frames_header(dir.path(), "fat-tree:4,3");
    let large = String::from_utf8(small.clone())
        .expect("text")
        .replace("fat-tree-4-3", "fat-tree-64-3")
        .replace("hosts 16", "hosts 65536")
        .replace("width 1", "width 2")
        .into_bytes();
    for (spec, header, count, needle) in [
        (
            "fat-tree:4,3",
            &small,
            u32::MAX,
            "a sparse frame of 4294967295 pairs: more than the 16 × 16",
        ),
        (
            "fat-tree:64,3",
            &large,
            i32::MAX as u32,
            "the file ends inside a sparse frame",
        ),
        (
            "fat-tree:64,3",
            &large,
            u32::MAX,
            "the file ends inside a sparse frame",
        ),
    ] {
        let mut bytes = header.clone();
        bytes.push(b'S');
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&[1, 0, 2, 0]);
        let file = dir.path().join("sparse.frames");
        std::fs::write(&file, &bytes).expect("write");
        for prefix in [None, Some("1")] {
            let mut cmd = liquid();
            cmd.args(["verify", spec]).arg(&file).arg("--stream");
            if let Some(p) = prefix {
                cmd.args(["--prefix", p]);
            }
            refused(&limited(&cmd), &[needle]);
        }
    }
}

/// Item 6: a header field given twice is refused, naming it.
#[test]
fn a_header_field_given_twice_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let spec = "fat-tree:4,3";
    let header = String::from_utf8(frames_header(dir.path(), spec)).expect("text");
    let file = dir.path().join("twice.frames");
    let good = dir.path().join("good.frames");
    let body = std::fs::read(&good).expect("frames")[header.len()..].to_vec();
    let twice = header.replacen("hosts 16\n", "hosts 16\nhosts 16\n", 1);
    assert_ne!(twice, header);
    let mut bytes = twice.into_bytes();
    bytes.extend_from_slice(&body);
    std::fs::write(&file, bytes).expect("write");
    let out = liquid()
        .args(["verify", spec])
        .arg(&file)
        .arg("--stream")
        .output()
        .expect("runs");
    refused(&out, &["line 4", "hosts twice"]);
}

/// Item 2: a shard whose `items_total` is 10^12 is refused (exit 2) before anything of
/// that size is allocated.
#[test]
fn a_shard_with_a_huge_item_count_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let fig1 = root().join("models/paper-fig1.yaml");
    succeed(
        liquid()
            .arg("crosscheck")
            .arg(&fig1)
            .args(["--engines", "dsatur", "--shard", "1/1", "--out"])
            .arg(dir.path()),
    );
    let shard = dir.path().join("crosscheck-shard-1-of-1.json");
    let text = std::fs::read_to_string(&shard).expect("shard");
    let bad = text.replacen("\"items_total\":1", "\"items_total\":1000000000000", 1);
    assert_ne!(bad, text);
    std::fs::write(&shard, bad).expect("write");
    let mut cmd = liquid();
    cmd.arg("merge")
        .arg(&shard)
        .arg("--out")
        .arg(dir.path().join("merged"));
    refused(&limited(&cmd), &["expected 1000000000000"]);
}

/// Item 3: `check-proof` and `certify` take `--time-limit`, state their default in
/// --help, and a check the limit stops is not verified (exit 1) and says so.
#[test]
fn check_proof_and_certify_have_a_time_limit() {
    for cmd in ["check-proof", "certify"] {
        let help = succeed(liquid().args([cmd, "--help"]));
        let help = String::from_utf8_lossy(&help.stdout);
        assert!(
            help.contains("--time-limit") && help.contains("default 300"),
            "{cmd}: {help}"
        );
    }
    let dir = tempfile::tempdir().expect("tmp");
    let proof = dir.path().join("proof");
    let model = root().join("models/odd-wheel.yaml");
    succeed(liquid().arg("prove").arg(&model).arg("--out").arg(&proof));
    let out = liquid()
        .arg("check-proof")
        .arg(&model)
        .arg(&proof)
        .args(["--time-limit", "0", "--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out);
    assert_eq!(r["verified"], false);
    assert!(
        r["reason"].as_str().expect("reason").contains("time limit"),
        "{r}"
    );
    let out = liquid()
        .arg("certify")
        .arg(&model)
        .arg("--proof")
        .arg(&proof)
        .args(["--time-limit", "0", "--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out);
    assert!(
        r["statement"]
            .as_str()
            .expect("statement")
            .contains("time limit"),
        "{r}"
    );
    // Without the limit, the proof checks.
    succeed(liquid().arg("check-proof").arg(&model).arg(&proof));
}

/// Item 10: numbers in a proof are plain decimal: `035` (octal 29 to drat-trim's
/// lrat-check, 35 to a decimal reader) is refused by the checker, which says why.
#[test]
fn proofs_hold_plain_decimal_numbers_only() {
    let dir = tempfile::tempdir().expect("tmp");
    let proof = dir.path().join("proof");
    let model = root().join("models/odd-wheel.yaml");
    succeed(liquid().arg("prove").arg(&model).arg("--out").arg(&proof));
    let lrat = proof.join("proof.lrat");
    let text = std::fs::read_to_string(&lrat).expect("proof");
    // The first step's id, written with a leading zero.
    let first = text
        .lines()
        .find(|l| !l.starts_with('c'))
        .expect("a step")
        .to_string();
    let padded = format!("0{first}");
    std::fs::write(&lrat, text.replacen(&first, &padded, 1)).expect("write");
    let out = liquid()
        .arg("check-proof")
        .arg(&model)
        .arg(&proof)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out);
    let reason = r["reason"].as_str().expect("reason");
    assert!(reason.contains("plain decimal"), "{reason}");
}

/// Item 8: `solve --prove DIR` with an answer that has no bound above Λ (dsatur on a
/// non-liquid traffic) writes nothing, says so on stderr and exits 1.
#[test]
fn solve_prove_says_when_it_writes_no_proof() {
    let dir = tempfile::tempdir().expect("tmp");
    let proof = dir.path().join("proof");
    let out = liquid()
        .args([
            "solve",
            "models/odd-wheel.yaml",
            "--engine",
            "dsatur",
            "--prove",
        ])
        .arg(&proof)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no proof written to") && err.contains("no lower bound above"),
        "{err}"
    );
    assert!(!proof.exists());
    // A liquid answer: nothing to prove, exit 0, and it says so.
    let out = liquid()
        .args([
            "solve",
            "models/paper-fig1.yaml",
            "--engine",
            "dsatur",
            "--prove",
        ])
        .arg(&proof)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("nothing to prove"), "{err}");
}

/// Item 9: an overflow of a message's channel time names the latency that overflows.
#[test]
fn an_overflowing_latency_is_named() {
    for (args, option) in [
        (
            vec!["--net-latency", "1e308", "--switch-latency", "1e308"],
            "--net-latency",
        ),
        (vec!["--switch-latency", "1e308"], "--switch-latency"),
    ] {
        let out = liquid()
            .args(["latency", "model", "4,2x1", "--points", "10"])
            .args(&args)
            .output()
            .expect("runs");
        let err = refused(&out, &[&format!("error: {option}: 1e308: ")]);
        assert!(!err.contains("--flit-bytes"), "{err}");
    }
}

/// The smallest two-cluster study: one case of one node each, one size.
const TINY_STUDY: [&str; 7] = [
    "study",
    "two-clusters",
    "--size-cases",
    "1+1",
    "--size-exponents",
    "0..0",
    "--no-node-sweep",
];

/// Item 12: CSV figures are in their shortest exact form: no 300-digit integers.
#[test]
fn csv_numbers_are_short_and_exact() {
    let dir = tempfile::tempdir().expect("tmp");
    let out_dir = dir.path().join("st");
    succeed(
        liquid()
            .args(TINY_STUDY)
            .args(["--backbone-latency", "1e308", "--out"])
            .arg(&out_dir),
    );
    let csv = std::fs::read_to_string(out_dir.join("two-clusters.csv")).expect("csv");
    let mut figures = 0;
    for line in csv.lines().skip(1) {
        for cell in line.split(',') {
            assert!(cell.len() <= 24, "a long cell {cell:?} in {line}");
            if cell.parse::<f64>().is_ok() {
                figures += 1;
            }
        }
    }
    assert!(figures > 0, "{csv}");
    assert!(csv.contains("e30"), "the makespans of 1e308 latency: {csv}");
}

/// An exported plan and a consistent report of a run of it (times 1.5 × the prediction).
fn plan_and_report(dir: &Path) -> (Value, Value) {
    succeed(
        liquid()
            .args([
                "export",
                "mpi",
                "fat-tree:4,2",
                "--plan",
                "round-robin",
                "--size",
                "1000",
                "--link-throughput",
                "100",
                "--out",
            ])
            .arg(dir),
    );
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).expect("read"))
            .expect("manifest");
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
    let report = serde_json::json!({"format": "liquid-mpi-report/1",
        "plan": dir.display().to_string(), "mode": m["mode"], "ranks": 8, "check": true,
        "repeat": 1, "mpi_library": "test", "errors": 0, "total_s": total, "runs_s": [total],
        "bytes": m["bytes"], "messages": m["messages"], "steps": steps});
    (m, report)
}

/// Item 4: `compare` checks the run against its plan and each file against itself: every
/// inconsistency is exit 2 naming the field.
#[test]
fn compare_refuses_a_run_that_is_not_of_its_plan() {
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("plan");
    let (manifest, report) = plan_and_report(&plan);
    let compare = |report: &Value, manifest: &Value| -> Output {
        let r = dir.path().join("report.json");
        std::fs::write(&r, report.to_string()).expect("write");
        std::fs::write(plan.join("manifest.json"), manifest.to_string()).expect("write");
        liquid()
            .arg("compare")
            .arg(&plan)
            .arg("--report")
            .arg(&r)
            .output()
            .expect("runs")
    };
    let out = compare(&report, &manifest);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let change = |path: &[&str], v: Value| {
        let mut r = report.clone();
        let mut at = &mut r;
        for p in path {
            at = match p.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*p],
            };
        }
        *at = v;
        r
    };
    let two = report["steps"][2]["step"].clone();
    let cases = [
        (change(&["mode"], "all-at-once".into()), "field mode"),
        (
            change(&["plan"], "/elsewhere/other-plan".into()),
            "field plan",
        ),
        (change(&["total_s"], (-1.0).into()), "field total_s"),
        (
            change(&["runs_s"], serde_json::json!([-1.0])),
            "field runs_s[0]",
        ),
        (
            change(&["steps", "0", "time_s"], (-1.0).into()),
            "field steps[0].time_s",
        ),
        (change(&["bytes"], 5.into()), "field bytes"),
        (change(&["messages"], 5.into()), "field messages"),
        (change(&["repeat"], 3.into()), "field runs_s"),
        (change(&["repeat"], 0.into()), "field repeat"),
        (change(&["steps", "1", "step"], two), "field steps[1].step"),
    ];
    for (bad, field) in cases {
        refused(&compare(&bad, &manifest), &[field]);
    }
    let mut m = manifest.clone();
    m["prediction"]["total_s"] = (-1.0).into();
    refused(
        &compare(&report, &m),
        &["manifest.json", "field prediction.total_s"],
    );
    let mut m = manifest.clone();
    m["ranks"] = serde_json::json!([]);
    refused(&compare(&report, &m), &["manifest.json", "field ranks"]);
}

/// Item 7: `export mpi --out DIR` leaves no stale file of an earlier export and refuses a
/// directory holding a file it did not write.
#[test]
fn export_mpi_replaces_its_own_files_and_refuses_foreign_ones() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("plan");
    let export = |spec: &str| {
        // Two clusters' links have their own bandwidths: --link-throughput is refused there.
        let throughput: &[&str] = if spec.starts_with("fat-tree") {
            &["--link-throughput", "100"]
        } else {
            &[]
        };
        liquid()
            .args([
                "export",
                "mpi",
                spec,
                "--plan",
                "round-robin",
                "--size",
                "1000",
            ])
            .args(throughput)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("runs")
    };
    let names = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&out)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("rank-"))
            .collect();
        v.sort();
        v
    };
    assert!(export("fat-tree:4,2").status.success());
    assert_eq!(names().len(), 8);
    assert!(export("two-clusters:1,1").status.success());
    assert_eq!(names(), ["rank-0.txt", "rank-1.txt"]);
    std::fs::write(out.join("keep.txt"), "mine").expect("write");
    refused(&export("fat-tree:4,2"), &["keep.txt"]);
    assert!(out.join("keep.txt").exists());
    assert_eq!(names(), ["rank-0.txt", "rank-1.txt"]);
    // A folder liquid never wrote into, holding the user's file.
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).expect("mkdir");
    std::fs::write(mine.join("notes.txt"), "mine").expect("write");
    let out = liquid()
        .args([
            "export",
            "simgrid",
            "models/paper-fig1.yaml",
            "--link-throughput",
            "1",
        ])
        .arg("--out")
        .arg(&mine)
        .output()
        .expect("runs");
    refused(&out, &["notes.txt"]);
}

/// Item 5: `merge` runs the crosscheck's checks again: a shard whose dsatur length was
/// lowered below Λ (its schedule unchanged) is a contradiction (exit 4), as the unsharded
/// crosscheck would report it.
#[test]
fn merge_checks_the_answers_inside_the_shards() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = root().join("models/odd-wheel.yaml");
    let shards = dir.path().join("shards");
    succeed(
        liquid()
            .arg("crosscheck")
            .arg(&model)
            .args(["--engines", "native,dsatur", "--shard", "1/1", "--out"])
            .arg(&shards),
    );
    let merged = succeed(
        liquid()
            .arg("merge")
            .arg(&shards)
            .arg("--out")
            .arg(dir.path().join("merged")),
    );
    assert!(String::from_utf8_lossy(&merged.stdout).contains("optimal"));
    let shard = shards.join("crosscheck-shard-1-of-1.json");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&shard).expect("read")).expect("json");
    let rows = v["items"][0]["result"]["engines"]
        .as_array_mut()
        .expect("rows");
    let dsatur = rows
        .iter_mut()
        .find(|r| r["engine"] == "dsatur")
        .expect("dsatur's row");
    dsatur["length"] = 1.into();
    std::fs::write(&shard, v.to_string()).expect("write");
    let out = liquid()
        .arg("merge")
        .arg(&shards)
        .arg("--out")
        .arg(dir.path().join("merged"))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    // A contradiction between engines is an internal fault: exit 3 (issue 42's rule; the
    // unsharded crosscheck exits the same).
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("CONTRADICTION"), "{text}");
}

/// `merge` holds every crosscheck row to the rules the gate holds every answer to: the
/// verdict its length and bound give, a bottleneck bound of Λ, no checked proof from a run
/// that wrote none (a contradiction, exit 3); one row per engine of the run, and times
/// that are durations (refused, exit 2).
#[test]
fn merge_checks_each_crosscheck_row_as_the_gate_does() {
    let tmp = tempfile::tempdir().expect("tmp");
    let wheel = root().join("models/odd-wheel.yaml");
    let wheel = wheel.to_str().expect("UTF-8");
    let args = ["crosscheck", wheel, "--engines", "native,dsatur,sat"];
    // Sets `field` of `engine`'s row of the model.
    let edit = |v: &mut Value, engine: &str, field: &str, to: Value| {
        let rows = v["items"][0]["result"]["engines"]
            .as_array_mut()
            .expect("rows");
        let r = rows
            .iter_mut()
            .find(|r| r["engine"] == engine)
            .expect("row");
        r[field] = to;
    };
    let contradiction = |name: &str, tamper: &dyn Fn(&mut Value), why: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir(&d).expect("mkdir");
        let out = merge_tampered(&d, &args, |v| tamper(v));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{name}: {text}");
        assert!(
            text.contains("CONTRADICTION") && text.contains(why),
            "{name}: {text}"
        );
    };
    // sat's optimal 4-frame answer called liquid (Λ = 2), with its bound lowered to Λ.
    contradiction(
        "verdict",
        &|v| {
            edit(v, "sat", "verdict", "liquid".into());
            edit(v, "sat", "lower_bound", 2.into());
        },
        "verdict liquid does not match length 4 and lower bound 2 (Λ = 2)",
    );
    contradiction(
        "proof",
        &|v| edit(v, "sat", "witness", "sat-proof".into()),
        "a checked proof (sat-proof) from a run that wrote no proofs",
    );
    contradiction(
        "bottleneck",
        &|v| {
            edit(v, "dsatur", "lower_bound", 4.into());
            edit(v, "dsatur", "verdict", "optimal".into());
        },
        "a bottleneck bound is Λ = 2, not 4",
    );
    let d = tmp.path().join("dropped");
    std::fs::create_dir(&d).expect("mkdir");
    let out = merge_tampered(&d, &args, |v| {
        v["items"][0]["result"]["engines"]
            .as_array_mut()
            .expect("rows")
            .retain(|r| r["engine"] != "dsatur");
    });
    refused(&out, &["item 0", "the run's engines are"]);
    let d = tmp.path().join("time");
    std::fs::create_dir(&d).expect("mkdir");
    let out = merge_tampered(&d, &args, |v| edit(v, "native", "time_s", (-5.0).into()));
    refused(&out, &["item 0", "native: time_s -5 is no duration"]);
}

/// Runs `args` as shard 1/1 into `dir/shards`, applies `tamper` to the shard file's JSON,
/// and returns what `liquid merge` then does (into `dir/merged`).
fn merge_tampered(dir: &Path, args: &[&str], tamper: impl FnOnce(&mut Value)) -> Output {
    let shards = dir.join("shards");
    succeed(
        liquid()
            .args(args)
            .args(["--shard", "1/1", "--out"])
            .arg(&shards),
    );
    let file = std::fs::read_dir(&shards)
        .expect("shards")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a shard file");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    tamper(&mut v);
    std::fs::write(&file, v.to_string()).expect("write");
    liquid()
        .arg("merge")
        .arg(&shards)
        .arg("--out")
        .arg(dir.join("merged"))
        .output()
        .expect("runs")
}

/// Item 5, for the other sweeps: `merge` checks the results inside the shards of the
/// testbed, the two-cluster and latency studies and explain against what they are of (a
/// class, a case, the run's options, a model) before writing anything: a changed figure
/// is refused (exit 2) naming the item and the field.
#[test]
fn merge_checks_every_sweep_s_results() {
    let tmp = tempfile::tempdir().expect("tmp");
    let case = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir(&d).expect("mkdir");
        d
    };
    // Testbed: a class's DSatur schedule made shorter than Λ.
    let out = merge_tampered(&case("t1"), &["testbed", "t1", "--time-limit", "0"], |v| {
        let row = &mut v["items"][9]["result"]["row"];
        let d = row["duration"].as_u64().expect("duration");
        row["dsatur_length"] = (d - 1).into();
    });
    refused(&out, &["item 9", "dsatur_length"]);
    // Testbed: native's verdict "liquid" beside a longer native schedule.
    let out = merge_tampered(
        &case("t1-verdict"),
        &["testbed", "t1", "--time-limit", "0"],
        |v| {
            let row = &mut v["items"][3]["result"]["row"];
            row["native_verdict"] = "liquid".into();
            row["native_length"] = (row["duration"].as_u64().expect("d") + 1).into();
        },
    );
    refused(&out, &["item 3", "native_verdict liquid"]);
    // Testbed: round-robin's length raised (it is computed again, as DSatur's is).
    let out = merge_tampered(
        &case("t1-rr"),
        &["testbed", "t1", "--time-limit", "0"],
        |v| {
            let row = &mut v["items"][5]["result"]["row"];
            row["rr_length"] = (row["rr_length"].as_u64().expect("rr") + 1).into();
        },
    );
    refused(&out, &["item 5", "rr_length is", "round-robin gives"]);
    // Two clusters: a negative makespan; a schedule's Λ changed.
    let study = [
        "study",
        "two-clusters",
        "--size-cases",
        "2+2",
        "--size-exponents",
        "0..1",
        "--no-node-sweep",
    ];
    let out = merge_tampered(&case("tc"), &study, |v| {
        v["items"][1]["result"]["points"][2]["makespan_s"] = (-1.0).into();
    });
    refused(&out, &["item 1", "makespan -1"]);
    let out = merge_tampered(&case("tc-lambda"), &study, |v| {
        // In every item, or the merge finds the items disagreeing first.
        for item in v["items"].as_array_mut().expect("items") {
            item["result"]["case"]["schedules"][0]["duration"] = 1.into();
        }
    });
    refused(&out, &["item 0", "Λ 1"]);
    // Latency study: a negative mean latency.
    let out = merge_tampered(
        &case("lat"),
        &[
            "latency",
            "study",
            "--systems",
            "4,1+2",
            "--sizes",
            "4:256",
            "--points",
            "2",
            "--messages",
            "200",
            "--warmup",
            "20",
            "--drain",
            "20",
            "--replications",
            "2",
        ],
        |v| v["items"][0]["result"]["mean"] = (-3.0).into(),
    );
    refused(&out, &["item 0", "mean -3"]);
    // Explain: a schedule of the core without one transfer that puts two congesting
    // transfers in one timeframe; and a core with a transfer taken away.
    let wheel = root().join("models/odd-wheel.yaml");
    let wheel = wheel.to_str().expect("UTF-8");
    let out = merge_tampered(&case("ex"), &["explain", wheel], |v| {
        let w = &mut v["items"][0]["result"]["cores"][0]["without_one"][0]["timeframes"];
        let frames = w.as_array_mut().expect("frames");
        let last = frames.pop().expect("a frame");
        frames[0]
            .as_array_mut()
            .expect("frame")
            .extend(last.as_array().expect("frame").iter().cloned());
    });
    refused(&out, &["item 0", "without_one"]);
    let out = merge_tampered(&case("ex-core"), &["explain", wheel], |v| {
        let core = &mut v["items"][0]["result"]["cores"][0];
        core["transfers"].as_array_mut().expect("transfers").pop();
        core["size"] = (core["size"].as_u64().expect("size") - 1).into();
    });
    refused(&out, &["item 0", "cores[0]"]);
    // The routing study: a row's schedule made shorter than its Λ.
    let routing = [
        "study",
        "routing",
        "crates/study/tests/data/routing",
        "--seeds",
        "1",
    ];
    let out = merge_tampered(&case("routing"), &routing, |v| {
        let row = &mut v["items"][2]["result"];
        row["schedule_length"] = (row["lambda"].as_u64().expect("Λ") - 1).into();
    });
    refused(&out, &["item 2", "timeframes"]);
}

/// Item 7, for the studies: a whole run of `study two-clusters`, `latency study`, `testbed
/// t1` or `study routing`, and `merge`, write into a new or empty directory or one liquid wrote,
/// whose earlier files they replace (nothing stale survives); a directory holding a file
/// liquid did not write is refused (exit 2), the file kept.
#[test]
fn study_outputs_replace_their_own_files_and_refuse_foreign_ones() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("study");
    let study = |extra: &[&str]| {
        liquid()
            .args(TINY_STUDY)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .expect("runs")
    };
    let report = out.join("report.md");
    let report = report.to_str().expect("UTF-8");
    assert!(study(&["--markdown", report]).status.success());
    assert!(out.join("report.md").exists());
    assert!(study(&[]).status.success());
    assert!(
        !out.join("report.md").exists(),
        "the first run's report survived the second run"
    );
    std::fs::write(out.join("keep.txt"), "mine").expect("write");
    refused(&study(&[]), &["keep.txt"]);
    assert!(out.join("keep.txt").exists());
    // The latency study and the testbed into a directory of the user's.
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).expect("mkdir");
    std::fs::write(mine.join("notes.txt"), "mine").expect("write");
    let latency = liquid()
        .args(["latency", "study", "--systems", "4,1+2", "--sizes", "4:256"])
        .args(["--points", "2", "--out"])
        .arg(&mine)
        .output()
        .expect("runs");
    refused(&latency, &["notes.txt"]);
    let testbed = liquid()
        .args(["testbed", "t1", "--time-limit", "0", "--out"])
        .arg(&mine)
        .output()
        .expect("runs");
    refused(&testbed, &["notes.txt"]);
    let routing = liquid()
        .args([
            "study",
            "routing",
            "crates/study/tests/data/routing",
            "--seeds",
            "1",
        ])
        .arg("--out")
        .arg(&mine)
        .output()
        .expect("runs");
    refused(&routing, &["notes.txt"]);
    // merge --out likewise.
    let shards = tmp.path().join("shards");
    succeed(
        liquid()
            .args(TINY_STUDY)
            .args(["--shard", "1/1", "--out"])
            .arg(&shards),
    );
    let merge = liquid()
        .arg("merge")
        .arg(&shards)
        .arg("--out")
        .arg(&mine)
        .output()
        .expect("runs");
    refused(&merge, &["notes.txt"]);
    assert!(mine.join("notes.txt").exists());
}

/// `merge` refuses an item that is not the model the run's options name at its index
/// (explain, crosscheck), and a crosscheck item whose report is of another model: exit 2,
/// naming the item.
#[test]
fn merge_refuses_an_item_of_another_model() {
    let tmp = tempfile::tempdir().expect("tmp");
    let case = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir(&d).expect("mkdir");
        d
    };
    let wheel = root().join("models/odd-wheel.yaml");
    let wheel = wheel.to_str().expect("UTF-8");
    let out = merge_tampered(&case("ex-key"), &["explain", wheel], |v| {
        v["items"][0]["key"] = "models/other.yaml".into();
    });
    refused(
        &out,
        &["shards of explain", "item 0 is \"models/other.yaml\""],
    );
    let crosscheck = ["crosscheck", wheel, "--engines", "native,dsatur"];
    let out = merge_tampered(&case("cc-key"), &crosscheck, |v| {
        v["items"][0]["key"] = "models/other.yaml: other".into();
    });
    refused(
        &out,
        &[
            "shards of crosscheck",
            "item 0 is \"models/other.yaml: other\"",
        ],
    );
    let out = merge_tampered(&case("cc-model"), &crosscheck, |v| {
        v["items"][0]["result"]["model"] = "other".into();
    });
    refused(&out, &["item 0", "its report is of", ": other"]);
}
