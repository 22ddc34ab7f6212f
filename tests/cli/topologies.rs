//! Issue 41: dragonflies, Dragonfly+, rail-optimised fat-trees and HyperX through the
//! whole tool.

use crate::common::{liquid, succeed};
use crate::snap;

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("json")
}

/// The generated instances themselves (host, switch and link names, routes, their order).
#[test]
fn generate_small_machines() {
    for (name, args) in [
        (
            "dragonfly-2-1-1",
            vec![
                "dragonfly",
                "--routers",
                "2",
                "--hosts-per-router",
                "1",
                "--global-links",
                "1",
                "--form",
                "network",
            ],
        ),
        (
            "dragonfly-plus-1-2-1-1",
            vec![
                "dragonfly-plus",
                "--leaves",
                "1",
                "--spines",
                "2",
                "--hosts-per-leaf",
                "1",
                "--global-links",
                "1",
                "--form",
                "network",
            ],
        ),
        (
            "rail-2-2-pxn",
            vec![
                "rail",
                "--servers",
                "2",
                "--gpus",
                "2",
                "--pxn",
                "--form",
                "network",
            ],
        ),
        ("hyperx-3-1", vec!["hyperx", "--dims", "3"]),
    ] {
        let mut a = vec!["generate"];
        a.extend(args);
        snap!(format!("generate@{name}"), liquid().args(&a));
    }
}

/// Λ from `analyze` is the closed form of `liquid_topology` (worked out by hand here), and
/// the spec and the file `generate` writes give the same analysis.
#[test]
fn analyze_gives_the_closed_form_duration() {
    for (spec, hosts, lambda) in [
        // N - 1 (host links; global 64, local 68).
        ("dragonfly:4,2,2", 72, 71),
        // Local links P²(2AH + 1) = 16·17 (global 256, hosts 143).
        ("dragonfly:4,4,2", 144, 272),
        // Two links between every two of 5 groups.
        ("dragonfly:4,1,2,5", 20, 19),
        ("dragonfly-plus:2,2,2,2", 20, 19),
        // NIC links G(S - 1).
        ("rail:4,4", 16, 12),
        // Rail-spine links ⌈S/K⌉(S - 1)(G - 1) = 2·3·3.
        ("rail:4,4,2", 16, 18),
        ("rail:4,4,2,pxn", 16, 12),
        // T²R/S = 16·16/4 > N - 1 = 63.
        ("hyperx:4x4,4", 64, 64),
        // The dimension of 2: T²R/S = 4·18/2 = 36 > N - 1 = 35.
        ("hyperx:3x3x2,2", 36, 36),
        // N - 1 = 53 > T²R/S = 4·27/3 = 36.
        ("hyperx:3x3x3,2", 54, 53),
    ] {
        let a = json(&succeed(
            liquid().args(["analyze", spec, "--format", "json"]),
        ));
        assert_eq!(a["duration"], lambda, "{spec}");
        assert_eq!(a["transfers"], hosts * (hosts - 1), "{spec}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("m.yaml");
    succeed(
        liquid()
            .args([
                "generate",
                "dragonfly",
                "--routers",
                "4",
                "--hosts-per-router",
                "1",
            ])
            .args([
                "--global-links",
                "2",
                "--groups",
                "5",
                "--form",
                "network",
                "--out",
            ])
            .arg(&file),
    );
    let from_file = succeed(
        liquid()
            .arg("analyze")
            .arg(&file)
            .args(["--format", "json"]),
    );
    let from_spec = succeed(liquid().args(["analyze", "dragonfly:4,1,2,5", "--format", "json"]));
    assert_eq!(from_file.stdout, from_spec.stdout);
}

/// solve, verify, simulate (the schedule, all at once, pairwise), export simgrid and mpi,
/// crosscheck and explain on a small machine of each kind.
#[test]
fn every_command_runs_on_every_machine() {
    let dir = tempfile::tempdir().expect("tempdir");
    for spec in [
        "dragonfly:2,1,1",
        "dragonfly:2,2,1,2",
        "dragonfly-plus:1,2,1,1",
        "rail:2,2",
        "rail:2,3,1,pxn",
        "hyperx:3x2,1",
    ] {
        let schedule = dir.path().join("s.yaml");
        let s = json(&succeed(
            liquid()
                .args(["solve", spec, "--engine", "portfolio", "--format", "json"])
                .arg("--schedule-out")
                .arg(&schedule),
        ));
        assert_eq!(s["verdict"], "liquid", "{spec}: {s}");
        let v = succeed(liquid().args(["verify", spec]).arg(&schedule));
        let v = String::from_utf8_lossy(&v.stdout).to_string();
        assert!(
            v.contains("valid: true") && v.contains("liquid: true"),
            "{spec}: {v}"
        );
        for mode in [
            vec!["--schedule"],
            vec!["--mode", "all-at-once"],
            vec!["--plan", "pairwise"],
        ] {
            let mut cmd = liquid();
            cmd.args([
                "simulate",
                spec,
                "--link-throughput",
                "1000",
                "--format",
                "json",
            ]);
            if mode == ["--schedule"] {
                cmd.arg("--schedule").arg(&schedule);
            } else {
                cmd.args(&mode);
            }
            let out = json(&succeed(&mut cmd));
            assert!(
                out["makespan_s"].as_f64().is_some_and(|m| m > 0.0),
                "{spec} {mode:?}: {out}"
            );
        }
        for what in ["simgrid", "mpi"] {
            let out = dir.path().join(what);
            succeed(
                liquid()
                    .args([
                        "export",
                        what,
                        spec,
                        "--link-throughput",
                        "1000",
                        "--schedule",
                    ])
                    .arg(&schedule)
                    .arg("--out")
                    .arg(&out),
            );
            assert!(
                std::fs::read_dir(&out).expect("written").count() > 1,
                "{spec} {what}"
            );
        }
        succeed(liquid().args(["crosscheck", spec, "--time-limit", "10"]));
        succeed(liquid().args(["explain", spec, "--time-limit", "10"]));
    }
}

/// The closed-form schedules of HyperX, rail, dragonfly and Dragonfly+ machines are written, validated and
/// liquid; a machine without one is refused.
#[test]
fn closed_form_schedules_are_liquid() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (model, schedule) = (dir.path().join("m.yaml"), dir.path().join("s.yaml"));
    for args in [
        vec!["hyperx", "--dims", "3x5", "--hosts-per-router", "2"],
        vec!["hyperx", "--dims", "2x2x2"],
        vec!["hyperx", "--dims", "4x8", "--hosts-per-router", "3"],
        vec!["rail", "--servers", "3", "--gpus", "4"],
        vec![
            "rail",
            "--servers",
            "3",
            "--gpus",
            "4",
            "--spines",
            "1",
            "--pxn",
        ],
        vec![
            "dragonfly-plus",
            "--leaves",
            "3",
            "--spines",
            "3",
            "--hosts-per-leaf",
            "2",
            "--global-links",
            "2",
        ],
        vec![
            "dragonfly",
            "--routers",
            "4",
            "--hosts-per-router",
            "2",
            "--global-links",
            "2",
        ],
        vec![
            "dragonfly",
            "--routers",
            "5",
            "--hosts-per-router",
            "1",
            "--global-links",
            "1",
        ],
    ] {
        succeed(
            liquid()
                .arg("generate")
                .args(&args)
                .arg("--schedule-out")
                .arg(&schedule)
                .arg("--out")
                .arg(&model),
        );
        let v = succeed(liquid().arg("verify").arg(&model).arg(&schedule));
        let v = String::from_utf8_lossy(&v.stdout).to_string();
        assert!(v.contains("liquid: true"), "{args:?}: {v}");
    }
    let out = liquid()
        .args([
            "generate",
            "hyperx",
            "--dims",
            "6x3",
            "--hosts-per-router",
            "2",
        ])
        .arg("--schedule-out")
        .arg(&schedule)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no closed-form schedule"));
    // A Dragonfly+ with fewer spines than leaves has none either.
    let out = liquid()
        .args([
            "generate",
            "dragonfly-plus",
            "--leaves",
            "4",
            "--spines",
            "2",
        ])
        .args(["--hosts-per-leaf", "2", "--global-links", "2"])
        .arg("--schedule-out")
        .arg(&schedule)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no closed-form schedule"));
    // A dragonfly of 6 hosts per group (not a prime power) has none.
    let out = liquid()
        .args(["generate", "dragonfly", "--routers", "6"])
        .args(["--hosts-per-router", "1", "--global-links", "1"])
        .arg("--schedule-out")
        .arg(&schedule)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no closed-form schedule") && err.contains("prime power"),
        "{err}"
    );
}

#[test]
fn bad_machines_are_refused() {
    for (name, spec) in [
        ("dragonfly-groups", "dragonfly:4,2,2,4"),
        ("dragonfly-short", "dragonfly:4,2"),
        ("dragonfly-huge", "dragonfly:16,8,8"),
        ("dragonfly-plus-zero", "dragonfly-plus:4,0,4,4"),
        ("rail-spines", "rail:4,8,5"),
        ("hyperx-dim-1", "hyperx:4x1,2"),
    ] {
        snap!(format!("bad-spec@{name}"), liquid().args(["analyze", spec]));
    }
}

/// The timeframes of a closed form in a snapshot: the frames are listed by the schedule
/// file the test writes and `liquid verify` checks, not in the snapshot (thousands of
/// lines).
fn frames_filter() -> Vec<(&'static str, &'static str)> {
    vec![(
        r"(?m)^timeframes:\n(?:(?:- |  ).*\n)*",
        "timeframes: [the schedule, written with --schedule-out and verified by the test]\n",
    )]
}

/// Whether `liquid verify SPEC FILE` finds the schedule valid and liquid.
fn verified_liquid(spec: &str, schedule: &std::path::Path) -> bool {
    let v = succeed(liquid().args(["verify", spec]).arg(schedule));
    let v = String::from_utf8_lossy(&v.stdout).to_string();
    v.contains("valid: true") && v.contains("liquid: true")
}

/// `liquid solve SPEC` (the default portfolio) answers a machine that has a closed-form
/// schedule with it at once: `decided_by: closed-form`, the machine and the construction
/// named, liquid with the bottleneck as the bound; the schedule written is valid and
/// liquid. The same with `--engine closed-form`.
#[test]
fn solve_answers_by_the_closed_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    let schedule = dir.path().join("s.yaml");
    for (name, spec) in [
        ("dragonfly-4-2-2", "dragonfly:4,2,2"),
        ("dragonfly-plus-2-2-2-2", "dragonfly-plus:2,2,2,2"),
        ("rail-8-4-pxn", "rail:8,4,pxn"),
        ("hyperx-4x4-2", "hyperx:4x4,2"),
    ] {
        snap!(
            format!("solve-closed-form@{name}"),
            liquid()
                .args(["solve", spec, "--schedule-out"])
                .arg(&schedule),
            frames_filter()
        );
        assert!(verified_liquid(spec, &schedule), "{spec}");
        let s = json(&succeed(liquid().args([
            "solve",
            spec,
            "--engine",
            "closed-form",
            "--format",
            "json",
        ])));
        assert_eq!(
            (&s["engine"], &s["verdict"], &s["length"]),
            (
                &serde_json::json!("closed-form"),
                &serde_json::json!("liquid"),
                &s["duration"]
            ),
            "{spec}: {s}"
        );
    }
}

/// A machine without a closed form is solved by the portfolio's other stages, the reason
/// in its statistics; `--engine closed-form` refuses it and any other traffic (exit 2),
/// saying why.
#[test]
fn without_a_closed_form_the_portfolio_solves_as_before() {
    snap!(
        "solve-closed-form@rail-3-2-1-none",
        liquid().args(["solve", "rail:3,2,1"])
    );
    for (name, model) in [
        ("refused-rail-3-2-1", "rail:3,2,1"),
        ("refused-fat-tree", "fat-tree:4,2"),
        ("refused-file", "models/paper-fig1.yaml"),
    ] {
        snap!(
            format!("solve-closed-form@{name}"),
            liquid().args(["solve", model, "--engine", "closed-form"])
        );
    }
}

/// The commands that make a schedule themselves take the closed form: `simulate` and the
/// exports by default, `explain` (nothing to explain), and a model file written by
/// `generate` is recognised as its machine.
#[test]
fn the_other_commands_take_the_closed_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("m.yaml");
    succeed(
        liquid()
            .args([
                "generate",
                "dragonfly-plus",
                "--leaves",
                "2",
                "--spines",
                "2",
            ])
            .args(["--hosts-per-leaf", "2", "--global-links", "2", "--out"])
            .arg(&model),
    );
    for m in ["dragonfly:4,2,2", model.to_str().expect("UTF-8")] {
        let out = json(&succeed(liquid().args([
            "simulate",
            m,
            "--link-throughput",
            "1000",
            "--format",
            "json",
        ])));
        assert_eq!(
            out["schedule"]["source"], "engine closed-form",
            "{m}: {out}"
        );
        assert_eq!(out["schedule"]["liquid"], true, "{m}: {out}");
        let s = json(&succeed(liquid().args(["solve", m, "--format", "json"])));
        assert_eq!(s["stats"]["decided_by"], "closed-form", "{m}: {s}");
    }
    let mpi = dir.path().join("mpi");
    succeed(
        liquid()
            .args([
                "export",
                "mpi",
                "hyperx:4x4,2",
                "--link-throughput",
                "1000",
                "--out",
            ])
            .arg(&mpi),
    );
    let manifest = std::fs::read_to_string(mpi.join("manifest.json")).expect("written");
    assert!(manifest.contains("closed-form"), "{manifest}");
    let e = succeed(liquid().args(["explain", "dragonfly:4,2,2", "--format", "json"]));
    let e = json(&e);
    assert_eq!(e["liquid"], true, "{e}");
}
