//! Issue 17: `liquid latency model`, paper 002's analytical model of the mean message
//! latency in heterogeneous multi-cluster systems.

use crate::common::{liquid, succeed};
use crate::snap;

/// Table 1's organisations and 002's two message lengths.
const SYSTEMS: [(&str, &str); 2] = [("n1120", "8,12x1+16x2+4x3"), ("n544", "4,8x3+3x4+5x5")];
const MESSAGES: [(&str, &str); 2] = [("32", "256"), ("64", "512")];

#[test]
fn one_point_reports_the_components() {
    snap!(
        "latency-model@n1120-m32-rate",
        liquid().args(["latency", "model", "8,12x1+16x2+4x3", "--rate", "1e-4"])
    );
}

#[test]
fn sweeps_of_table_1() {
    for (name, system) in SYSTEMS {
        for (flits, bytes) in MESSAGES {
            snap!(
                format!("latency-model@{name}-m{flits}-sweep"),
                liquid().args([
                    "latency",
                    "model",
                    &format!("multi-cluster:{system}"),
                    "--flits",
                    flits,
                    "--flit-bytes",
                    bytes,
                    "--points",
                    "5",
                    "--up-to",
                    "0.9",
                ])
            );
        }
    }
}

#[test]
fn per_node_source_queues_are_a_named_reading() {
    snap!(
        "latency-model@n1120-m32-per-node-sweep",
        liquid().args([
            "latency",
            "model",
            "8,12x1+16x2+4x3",
            "--source-queues",
            "per-node",
            "--points",
            "5",
            "--up-to",
            "0.9",
        ])
    );
}

#[test]
fn csv_holds_the_sweep() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("sweep.csv");
    succeed(
        liquid()
            .args([
                "latency",
                "model",
                "4,8x3+3x4+5x5",
                "--points",
                "7",
                "--csv",
            ])
            .arg(&file),
    );
    let text = std::fs::read_to_string(&file).expect("written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(
        &header[..6],
        ["system", "flits", "flit_bytes", "rate", "load", "latency"]
    );
    assert_eq!(
        &header[11..],
        [
            "latency_clusters_0-7",
            "latency_clusters_8-10",
            "latency_clusters_11-15"
        ]
    );
    let mut previous = 0.0;
    for (p, line) in lines[1..].iter().enumerate() {
        let fields: Vec<&str> = line
            .strip_prefix("\"4,8x3+3x4+5x5,3\",32,256,")
            .expect("system and message first")
            .split(',')
            .collect();
        assert_eq!(fields.len(), 11);
        let x: Vec<f64> = fields
            .iter()
            .map(|f| f.parse().expect("a number"))
            .collect();
        let (load, latency) = (x[1], x[2]);
        assert!((load - 0.95 * p as f64 / 6.0).abs() < 1e-9, "{load}");
        assert!(latency > previous);
        // The components add up to the latency.
        assert!((x[3] + x[4] + x[5] + x[6] - latency).abs() < 1e-9 * latency);
        previous = latency;
    }
}

#[test]
fn bad_parameters_are_refused() {
    for (name, args) in [
        (
            "beyond-saturation",
            vec!["8,12x1+16x2+4x3", "--rate", "1e-3"],
        ),
        ("negative-rate", vec!["8,12x1+16x2+4x3", "--rate", "-1"]),
        ("bad-system", vec!["3,2x1", "--rate", "0"]),
        (
            "bad-flit-bytes",
            vec!["8,2x1", "--flit-bytes", "-2", "--rate", "0"],
        ),
        ("up-to", vec!["8,2x1", "--points", "5", "--up-to", "1"]),
        ("no-load", vec!["8,2x1"]),
        // Options the chosen load does not use, refused rather than dropped.
        (
            "up-to-with-rate",
            vec!["8,12x1", "--rate", "1e-5", "--up-to", "7"],
        ),
        (
            "format-with-points",
            vec!["8,12x1", "--points", "3", "--format", "json"],
        ),
    ] {
        let mut a = vec!["latency", "model"];
        a.extend(args);
        snap!(format!("latency-model-bad@{name}"), liquid().args(&a));
    }
}
