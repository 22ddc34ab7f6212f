//! Issue 17's study: `liquid latency study` on a tiny system (few messages): the error
//! table on stdout, one CSV and one SVG per curve, the Markdown report; bad input.

use crate::common::{liquid, succeed};
use crate::snap;

fn tiny(out: &std::path::Path) -> Vec<String> {
    [
        "latency",
        "study",
        "--systems",
        "4,1+2",
        "--sizes",
        "4:256,8:128",
        "--points",
        "4",
        "--messages",
        "400",
        "--warmup",
        "40",
        "--drain",
        "40",
        "--replications",
        "2",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

#[test]
fn a_tiny_study_writes_curves_and_the_error_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("curves");
    let md = dir.path().join("study.md");
    let args = tiny(&out);
    snap!(
        "latency-study@4-1-2",
        liquid()
            .current_dir(dir.path())
            .args(tiny(std::path::Path::new("curves")))
    );
    // Deterministic: a second run gives the same files.
    let first: Vec<String> = ["4-1-2-1-4", "4-1-2-1-8"]
        .iter()
        .map(|n| std::fs::read_to_string(out.join(format!("latency-{n}.csv"))).expect("CSV"))
        .collect();
    succeed(liquid().args(&args).arg("--markdown").arg(&md));
    for (n, before) in ["4-1-2-1-4", "4-1-2-1-8"].iter().zip(&first) {
        let csv = std::fs::read_to_string(out.join(format!("latency-{n}.csv"))).expect("CSV");
        assert_eq!(&csv, before, "{n}: same seed, same curve");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "rate,load_printed,load_per_node,load_concentrator_blocking,load_one_way_channels,model_printed,model_per_node,model_concentrator_blocking,model_one_way_channels,sim_mean,sim_half_width,sim_completed,error_printed,error_per_node,error_concentrator_blocking,error_one_way_channels"
        );
        assert_eq!(lines.len(), 5, "{n}: four loads");
        for row in &lines[1..] {
            let cells: Vec<&str> = row.split(',').collect();
            assert_eq!(cells.len(), 16, "{row}");
            let mean: f64 = cells[9].parse().expect("a simulated mean");
            assert!(mean > 0.0, "{row}");
            assert_eq!(cells[11], "true", "{row}");
        }
        // The last load is 1.2 × the larger of the printed and per-node saturations: every
        // reading refuses it (the other two saturate no later than per-node).
        let last: Vec<&str> = lines[4].split(',').collect();
        assert!(last[5..9].iter().all(|c| c.is_empty()), "{last:?}");
        assert!(last[12..16].iter().all(|c| c.is_empty()), "{last:?}");
        let svg = std::fs::read_to_string(out.join(format!("latency-{n}.svg"))).expect("SVG");
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg", "{n}");
        assert!(svg.contains("per-node source queues"), "{n}: legend");
    }
    let report = std::fs::read_to_string(&md).expect("written");
    assert!(report.contains("| system | M | reading |"), "{report}");
    // Two curves, four readings each.
    assert_eq!(report.matches("| `4,1+2,1` |").count(), 8, "{report}");
}

#[test]
fn bad_study_parameters_are_refused_by_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, extra, field) in [
        ("sizes", vec!["--sizes", "32"], "sizes"),
        ("points", vec!["--points", "0"], "points"),
        ("system", vec!["--systems", "3,2x1"], "systems"),
        ("replications", vec!["--replications", "0"], "replications"),
        ("messages", vec!["--messages", "0"], "messages"),
    ] {
        let out = liquid()
            .args(["latency", "study", "--out"])
            .arg(dir.path())
            .args(&extra)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(field), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

/// The study has a limit by default, stated in --help (before, it had none: the default
/// study ran 191 to 881 s, and a large --messages ran without end).
#[test]
fn the_study_states_its_default_limit() {
    let out = succeed(liquid().args(["latency", "study", "--help"]));
    let help = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(help.contains("default 3600 s"), "{help}");
}

/// At 0 s nothing is simulated: exit 0, the table says what was cut, a warning, and no
/// curve files (a curve without loads has none).
#[test]
fn a_time_limit_of_0_cuts_every_load_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("curves");
    let run = succeed(liquid().args(tiny(&out)).args(["--time-limit", "0"]));
    let table = String::from_utf8(run.stdout).expect("UTF-8");
    assert!(
        table.contains(
            "stopped by the time limit: 0 of 8 loads simulated; not simulated: `4,1+2,1` M = \
             4: loads 1-4 of 4; `4,1+2,1` M = 8: loads 1-4 of 4."
        ),
        "{table}"
    );
    assert!(!table.contains("| `4,1+2,1` |"), "{table}");
    let err = String::from_utf8(run.stderr).expect("UTF-8");
    assert!(
        err.contains("warning: the time limit (0 s) stopped the study: 0 of 8 loads simulated")
            && err.contains("raise --time-limit"),
        "{err}"
    );
    let files: Vec<_> = std::fs::read_dir(&out)
        .expect("written")
        .map(|e| e.expect("entry").file_name().into_string().expect("UTF-8"))
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert!(files.is_empty(), "{files:?}");
}

/// The limit stops the load under way (a load of 10^6 counted messages on 002's N = 1120
/// system takes many seconds), not only the loads after it.
#[test]
fn the_time_limit_stops_the_load_under_way() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = succeed(
        liquid()
            .args([
                "latency",
                "study",
                "--systems",
                "8,12x1+16x2+4x3",
                "--sizes",
                "32:256",
                "--points",
                "2",
                "--messages",
                "1000000",
                "--replications",
                "1",
                "--time-limit",
                "1",
                "--out",
            ])
            .arg(dir.path().join("curves")),
    );
    let table = String::from_utf8(run.stdout).expect("UTF-8");
    assert!(
        table.contains("stopped by the time limit: 0 of 2 loads simulated"),
        "{table}"
    );
    let err = String::from_utf8(run.stderr).expect("UTF-8");
    assert!(err.contains("M = 32: load 1/2"), "the load started: {err}");
}

/// A shard cut by its time limit marks its loads so; the merge leaves them out of the
/// curves and lists them, with a warning.
#[test]
fn a_cut_shard_merges_into_a_report_that_says_what_was_cut() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shards = dir.path().join("shards");
    for (shard, limit) in [("1/2", "0"), ("2/2", "600")] {
        let run =
            succeed(
                liquid()
                    .args(tiny(&shards))
                    .args(["--shard", shard, "--time-limit", limit]),
            );
        let err = String::from_utf8(run.stderr).expect("UTF-8");
        assert_eq!(
            err.contains("warning: the time limit (0 s) stopped the study: 0 of 4 loads"),
            limit == "0",
            "{err}"
        );
    }
    let merged = dir.path().join("merged");
    let run = succeed(liquid().arg("merge").arg(&shards).arg("--out").arg(&merged));
    let table = String::from_utf8(run.stdout).expect("UTF-8");
    assert!(
        table.contains(
            "stopped by the time limit: 4 of 8 loads simulated; not simulated: `4,1+2,1` M = \
             4: loads 1, 3 of 4; `4,1+2,1` M = 8: loads 1, 3 of 4."
        ),
        "{table}"
    );
    let err = String::from_utf8(run.stderr).expect("UTF-8");
    assert!(
        err.contains("warning: the shards' time limits cut 4 of 8 loads"),
        "{err}"
    );
    let csv = std::fs::read_to_string(merged.join("latency-4-1-2-1-4.csv")).expect("CSV");
    assert_eq!(csv.lines().count(), 3, "two loads simulated: {csv}");
}
