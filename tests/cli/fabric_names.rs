//! `liquid import ib` on fabrics with adapters a job leaves out (storage servers with the
//! firmware's description), odd traces (a host to itself, a switch's LID, another LID of
//! an LMC range), and `study routing` with a failed run folder (explore9 D3, D4, D6, D7).

use crate::common::liquid;

const DIR: &str = "crates/fabric/tests/data/2sw4hca";

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = liquid()
        .args(args)
        .env_remove("SLURM_JOB_NODELIST")
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Hca3 and Hca4 keep the firmware's description: every import was refused, even one
/// that leaves them out. Now only an import that selects them is.
#[test]
fn adapters_left_out_are_named_by_guid_with_a_note() {
    let dir = tempfile::tempdir().expect("temp dir");
    let topo = std::fs::read_to_string(format!("{DIR}/topology.txt")).expect("fixture");
    let edited = topo
        .replace("\"Hca3\"", "\"MT4123 ConnectX6   Mellanox Technologies\"")
        .replace("\"Hca4\"", "\"MT4123 ConnectX6   Mellanox Technologies\"");
    assert_ne!(edited, topo);
    let file = dir.path().join("topology.txt");
    std::fs::write(&file, edited).expect("write");
    let file = file.to_str().expect("UTF-8");
    let lfts = format!("{DIR}/opensm-lfts.dump");
    let (code, err) = run(&["import", "ib", file, &lfts, "--out", "/dev/null"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("host \"MT4123\" is named twice"), "{err}");
    assert!(
        err.contains("--hosts or --hostfile can leave such adapters out"),
        "{err}"
    );
    let model = dir.path().join("job.yaml");
    let model = model.to_str().expect("UTF-8");
    let (code, err) = run(&[
        "import",
        "ib",
        file,
        &lfts,
        "--hosts",
        "Hca[1-2]",
        "--out",
        model,
        "--tracert",
        &format!("{DIR}/tracert.txt"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("import ib: note: 2 adapter(s) left out of the selection named by GUID"),
        "{err}"
    );
    assert!(
        err.contains("import ib: ibtracert: 2 of 2 traces agree"),
        "{err}"
    );
    let text = std::fs::read_to_string(model).expect("the model");
    assert!(text.contains("H-0000000000100009"), "{text}");
    let (code, err) = run(&["analyze", model]);
    assert_eq!(code, Some(0), "{err}");
}

/// A loop over every LID pair: traces from a host to itself and from or to a switch's LID
/// are counted apart (they were a disagreement, exit 1, and a refusal, exit 2).
#[test]
fn self_and_switch_traces_are_counted_apart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let traces = std::fs::read_to_string(format!("{DIR}/tracert.txt")).expect("fixture");
    let traces = format!(
        "{traces}From ca {{0x0000000000100000}} portnum 1 lid 2-2 \"Hca1\"\n\
         To ca {{0x0000000000100000}} portnum 1 lid 2-2 \"Hca1\"\n\
         From ca {{0x0000000000100000}} portnum 1 lid 2-2 \"Hca1\"\n\
         [1] -> switch port {{0x0000000000200000}}[1] lid 1-1 \"Switch1\"\n\
         To switch {{0x0000000000200000}} portnum 0 lid 1-1 \"Switch1\"\n"
    );
    let file = dir.path().join("traces.txt");
    std::fs::write(&file, traces).expect("write");
    let (code, err) = run(&[
        "import",
        "ib",
        &format!("{DIR}/topology.txt"),
        &format!("{DIR}/opensm-lfts.dump"),
        "--out",
        "/dev/null",
        "--tracert",
        file.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("ibtracert: 12 of 12 traces agree"), "{err}");
    assert!(
        err.contains("ibtracert: 1 more traces are from a host to itself"),
        "{err}"
    );
    assert!(
        err.contains("ibtracert: 1 more traces are from or to a switch's LID"),
        "{err}"
    );
}

/// LMC 2: a trace to LID 33 of p4 (base LID 32) follows LID 33's route, which OpenSM
/// makes differ from the base LID's; exit 0 and counted apart (was exit 1).
#[test]
fn a_trace_to_a_non_base_lid_is_counted_apart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("traces.txt");
    std::fs::write(
        &file,
        "From ca {0x0000000000100000} portnum 1 lid 4-7 \"p0 HCA-1\"\n\
         [1] -> switch port {0x0000000000200002}[1] lid 9-9 \"sw1_0\"\n\
         [4] -> switch port {0x0000000000200001}[1] lid 8-8 \"sw0_1\"\n\
         [3] -> switch port {0x0000000000200004}[4] lid 17-17 \"sw1_2\"\n\
         [1] -> ca port {0x0000000000100009}[1] lid 32-35 \"p4 HCA-1\"\n\
         To ca {0x0000000000100008} portnum 1 lid 32-35 \"p4 HCA-1\"\n",
    )
    .expect("write");
    let (code, err) = run(&[
        "import",
        "ib",
        "crates/fabric/tests/data/lmc2/topology.txt",
        "crates/fabric/tests/data/lmc2/opensm-lfts.dump",
        "--out",
        "/dev/null",
        "--tracert",
        file.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("1 more traces follow the route of another LID of their destination's range"),
        "{err}"
    );
    assert!(
        err.contains("p0 -> p4 matches LID 33's route, not the base LID 32's"),
        "{err}"
    );
}

/// A run folder `scripts/ib-local run` left after an OpenSM timeout (engine.txt, no
/// topology or tables) is named in a warning; it was dropped without a word.
#[test]
fn study_routing_warns_of_a_failed_run_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fab = dir.path().join("runs").join("fab");
    let ok = fab.join("minhop");
    let bad = fab.join("lash");
    std::fs::create_dir_all(&ok).expect("mkdir");
    std::fs::create_dir_all(&bad).expect("mkdir");
    for f in ["topology.txt", "opensm-lfts.dump"] {
        std::fs::copy(format!("{DIR}/{f}"), ok.join(f)).expect("copy");
    }
    std::fs::write(bad.join("engine.txt"), "timeout\n").expect("write");
    let out = dir.path().join("out");
    let (code, err) = run(&[
        "study",
        "routing",
        dir.path().join("runs").to_str().expect("UTF-8"),
        "--fractions",
        "50",
        "--seeds",
        "1",
        "--time-limit",
        "5",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning: study routing: "), "{err}");
    assert!(
        err.contains("lash: skipped, a run folder (engine.txt) without topology.txt"),
        "{err}"
    );
    assert!(err.contains("engine.txt says \"timeout\""), "{err}");
}
