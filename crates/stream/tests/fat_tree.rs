//! The streamed fat-tree against the in-memory model and engines, and the streaming
//! validator's rejections.

use std::path::Path;
use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, TransferId};
use liquid_stream::{
    FrameReader, FrameSink, FrameWriter, Rejection, SolveOptions, Tree, VerifyOptions, NO_HOST,
};
use liquid_topology::fat_tree::FatTree;

fn in_memory(m: usize, n: usize) -> Traffic {
    FatTree::new(m, n).traffic().expect("builds")
}

/// Links, routes and loads of the closed form are those of the topology crate.
#[test]
fn closed_form_routes_and_loads_are_the_topology_crates() {
    for (m, n) in [
        (2, 1),
        (4, 1),
        (4, 2),
        (4, 3),
        (6, 2),
        (6, 3),
        (8, 2),
        (8, 3),
        (4, 4),
        (2, 3),
    ] {
        let traffic = in_memory(m, n);
        let tree = Tree::new(m, n).expect("a tree");
        assert_eq!(tree.name(), traffic.name());
        assert_eq!(tree.links(), traffic.num_links(), "{m},{n}");
        for l in traffic.link_ids() {
            assert_eq!(tree.link_name(l.index()), traffic.link_name(l), "{m},{n}");
            assert_eq!(tree.load(l.index()), traffic.load(l) as u64, "{m},{n}");
        }
        assert_eq!(tree.transfers(), traffic.len() as u64);
        assert_eq!(tree.duration(), traffic.duration() as u64, "{m},{n}");
        assert_eq!(
            tree.total_path_length(),
            traffic.total_path_length() as u64,
            "{m},{n}"
        );
        let mut route = Vec::new();
        for s in 0..tree.hosts() {
            for d in (0..tree.hosts()).filter(|&d| d != s) {
                let t = traffic
                    .find_transfer(&format!("p{s}->p{d}"))
                    .expect("a transfer");
                tree.route(s, d, &mut route);
                let want: Vec<u32> = traffic.transfer(t).path.iter().map(|l| l.0).collect();
                assert_eq!(route, want, "{m},{n}: p{s}->p{d}");
            }
        }
        // Bottlenecks: the classes at Λ hold exactly the in-memory bottlenecks.
        let analysis = liquid_stream::analysis::analyze(&tree, Some(100.0));
        assert_eq!(
            analysis.bottleneck_links,
            traffic.bottlenecks().len() as u64,
            "{m},{n}"
        );
        assert_eq!(
            analysis.liquid_ratio,
            (traffic.liquid_ratio() * 1e4).round() / 1e4
        );
    }
}

fn stream_frames(tree: &Tree) -> Vec<Vec<String>> {
    let mut dest = vec![NO_HOST; tree.hosts()];
    (0..tree.frames())
        .map(|f| {
            tree.orbit_frame(f, &mut dest);
            dest.iter()
                .enumerate()
                .map(|(s, &d)| format!("p{s}->p{d}"))
                .collect()
        })
        .collect()
}

fn names(traffic: &Traffic, frames: &[Vec<TransferId>]) -> Vec<Vec<String>> {
    frames
        .iter()
        .map(|f| {
            f.iter()
                .map(|&t| traffic.transfer_name(t).to_string())
                .collect()
        })
        .collect()
}

/// The streaming path gives the frames of the in-memory engines, in the same order.
#[test]
fn streamed_frames_are_the_in_memory_engines_frames() {
    for (m, n) in [(4, 3), (8, 3)] {
        let traffic = in_memory(m, n);
        let tree = Tree::new(m, n).expect("a tree");
        let streamed = stream_frames(&tree);
        let liquid_search::structured::Structure::Liquid { schedule, .. } =
            liquid_search::structured::construct(&traffic, None)
        else {
            panic!("fat-tree:{m},{n}: the structure stage found no liquid schedule");
        };
        assert_eq!(streamed, names(&traffic, &schedule.frames), "{m},{n}");
        // The engines `structured` and `native` (liquid_search), as `liquid solve` runs them.
        let limits = liquid_model::Limits::default();
        for (engine, answer) in [
            (
                "structured",
                liquid_search::structured::solve(&traffic, &limits),
            ),
            ("native", liquid_search::native::solve(&traffic, &limits)),
        ] {
            let s = answer.outcome.schedule().expect("a schedule");
            liquid_model::validate(&traffic, s).expect("valid");
            assert_eq!(streamed, names(&traffic, &s.frames), "{engine} on {m},{n}");
        }
        // The solve's validation agrees, and the YAML it writes is a valid liquid
        // schedule for the model crate.
        let dir = tempfile::tempdir().expect("a temporary directory");
        let yaml = dir.path().join("s.yaml");
        let options = SolveOptions {
            out: Some(&yaml),
            prefix: None,
            time_limit: None,
            mpi: None,
        };
        let report = liquid_stream::solve(&tree, &options, &AtomicU64::new(0))
            .expect("runs")
            .expect("valid");
        assert_eq!(report.verdict, "liquid");
        assert_eq!(report.validation.loads_match_closed_form, Some(true));
        assert_eq!(report.validation.duration_counted, Some(tree.duration()));
        let schedule = liquid_model::yaml::load_schedule(&yaml, &traffic).expect("the YAML loads");
        let r = liquid_model::validate(&traffic, &schedule).expect("valid");
        assert!(r.liquid);
        assert_eq!(names(&traffic, &schedule.frames), streamed);
    }
}

/// Writes frames (`dest` arrays) to a compact file.
fn write(path: &Path, tree: &Tree, frames: &[Vec<u32>]) {
    let mut w = FrameWriter::create(path, &tree.name(), tree.hosts()).expect("creates");
    for f in frames {
        w.frame(f).expect("writes");
    }
    w.finish().expect("finishes");
}

fn orbit(tree: &Tree) -> Vec<Vec<u32>> {
    let mut dest = vec![NO_HOST; tree.hosts()];
    (0..tree.frames())
        .map(|f| {
            tree.orbit_frame(f, &mut dest);
            dest.clone()
        })
        .collect()
}

fn verify(tree: &Tree, path: &Path) -> liquid_stream::VerifyReport {
    liquid_stream::verify_file(tree, path, &VerifyOptions::default(), &AtomicU64::new(0))
        .expect("reads")
}

#[test]
fn the_compact_file_round_trips_and_validates() {
    let tree = Tree::new(8, 3).expect("a tree");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("s.frames");
    let options = SolveOptions {
        out: Some(&path),
        prefix: None,
        time_limit: None,
        mpi: None,
    };
    let solved = liquid_stream::solve(&tree, &options, &AtomicU64::new(0))
        .expect("runs")
        .expect("valid");
    let size = std::fs::metadata(&path).expect("written").len();
    assert_eq!(solved.schedule.expect("a file").bytes, size);
    // 127 frames of 128 one-byte numbers plus a tag each, the end record, the header.
    let header = "liquid-frames 1\nmodel fat-tree-8-3\nhosts 128\nwidth 1\n\n".len() as u64;
    assert_eq!(size, header + 127 * 129 + 9);
    let mut r = FrameReader::open(&path).expect("opens");
    let want = orbit(&tree);
    let mut i = 0;
    while let Some(f) = r.next_frame().expect("reads") {
        let got: Vec<u32> = f.pairs().map(|(_, d)| d).collect();
        assert_eq!(got, want[i]);
        i += 1;
    }
    assert_eq!(i, 127);
    let report = verify(&tree, &path);
    assert_eq!(report.valid, Some(true), "{report:?}");
    let r = report.report.expect("a report");
    assert_eq!(r.liquid, Some(true));
    assert_eq!(r.length, 127);
    assert_eq!(r.transfers, 128 * 127);
}

#[test]
fn the_validator_rejects_a_duplicated_transfer_naming_both_frames() {
    let tree = Tree::new(4, 3).expect("a tree");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("dup.frames");
    let mut frames = orbit(&tree);
    // One more frame holding host 3's transfer of frame 5 again.
    let mut extra = vec![NO_HOST; tree.hosts()];
    extra[3] = frames[4][3];
    frames.push(extra);
    write(&path, &tree, &frames);
    let report = verify(&tree, &path);
    assert_eq!(report.valid, Some(false));
    let d = frames[4][3];
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        report.problems[0].ends_with(
            &Rejection::Duplicated {
                transfer: format!("p3->p{d}"),
                first: 5,
                second: 16
            }
            .to_string()
        ),
        "{:?}",
        report.problems
    );
    assert!(
        report.problems[0].contains(": timeframes[15]: "),
        "{:?}",
        report.problems
    );
    // The same transfer twice in one frame (a hand-made sparse record): named as a
    // duplicate in that frame.
    let mut bytes = b"liquid-frames 1\nmodel fat-tree-4-3\nhosts 16\nwidth 1\n\n".to_vec();
    bytes.extend_from_slice(b"S");
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&[0, 1, 0, 1]);
    bytes.push(b'E');
    bytes.extend_from_slice(&1u64.to_le_bytes());
    std::fs::write(&path, bytes).expect("writes");
    let report = verify(&tree, &path);
    // Listed first (and the 239 other transfers of the all-to-all, in no timeframe).
    assert_eq!(
        report.problems[0],
        format!(
            "{}: byte 53: timeframes[0]: transfer \"p0->p1\" appears twice in timeframes[0]",
            path.display()
        )
    );
    assert_eq!(
        report.problems.last().map(String::as_str),
        Some("and 220 more")
    );
}

#[test]
fn the_validator_rejects_a_missing_transfer_naming_it_and_its_link() {
    let tree = Tree::new(4, 3).expect("a tree");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("missing.frames");
    let mut frames = orbit(&tree);
    let d = frames[6][9];
    frames[6][9] = NO_HOST;
    write(&path, &tree, &frames);
    let report = verify(&tree, &path);
    assert_eq!(report.valid, Some(false));
    assert_eq!(
        report.problems,
        vec![format!("transfer \"p9->p{d}\" is in no timeframe")]
    );
}

#[test]
fn the_validator_rejects_a_shared_link_naming_the_frame_and_the_link() {
    let tree = Tree::new(4, 3).expect("a tree");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("shared.frames");
    let mut frames = orbit(&tree);
    // In frame 3, host 0 sends where host 1 sends: both routes end on that host's link.
    frames[2][0] = frames[2][1];
    write(&path, &tree, &frames);
    let report = verify(&tree, &path);
    assert_eq!(report.valid, Some(false));
    let d = frames[2][1];
    let reason = report
        .problems
        .iter()
        .find(|p| p.contains("congest"))
        .expect("a conflict")
        .clone();
    assert!(
        reason.contains(&format!(
            ": timeframes[2]: transfers \"p0->p{d}\" and \"p1->p{d}\" congest on link"
        )),
        "{reason}"
    );
    // The first link the two routes share: for p0 and p1 (same leaf), the leaf's up link.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    tree.route(0, d as usize, &mut a);
    tree.route(1, d as usize, &mut b);
    let shared = b.iter().find(|l| a.contains(l)).expect("a shared link");
    assert!(
        reason.ends_with(&format!("{:?}", tree.link_name(*shared as usize))),
        "{reason}"
    );
}

#[test]
fn malformed_files_are_errors_naming_the_place() {
    let tree = Tree::new(4, 2).expect("a tree");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bad.frames");
    let frames = orbit(&tree);
    write(&path, &tree, &frames);
    let mut bytes = std::fs::read(&path).expect("reads");
    bytes.truncate(bytes.len() - 20);
    std::fs::write(&path, &bytes).expect("writes");
    let e = liquid_stream::verify_file(&tree, &path, &VerifyOptions::default(), &AtomicU64::new(0))
        .expect_err("cut short");
    assert!(e.to_string().contains("cut short"), "{e}");
    // Another model's schedule.
    let other = Tree::new(4, 2).expect("a tree");
    let big = Tree::new(8, 2).expect("a tree");
    write(&path, &big, &orbit(&big));
    let e =
        liquid_stream::verify_file(&other, &path, &VerifyOptions::default(), &AtomicU64::new(0))
            .expect_err("another model");
    assert!(e.to_string().contains("header field model"), "{e}");
    std::fs::write(&path, "timeframes:\n  - [a]\n").expect("writes");
    let e = FrameReader::open(&path).expect_err("YAML is not the compact format");
    assert!(e.to_string().contains("not a compact schedule file"), "{e}");
}

#[test]
fn specs_parse_and_big_trees_need_no_network_form() {
    let Ok(liquid_stream::Model::Tree(t)) = liquid_stream::model("fat-tree:64,3") else {
        panic!("a tree");
    };
    assert_eq!(t.hosts(), 65_536);
    assert_eq!(t.links(), 393_216);
    assert_eq!(t.duration(), 65_535);
    assert_eq!(t.transfers(), 65_536 * 65_535);
    let t = liquid_stream::model("fat-tree:32,3").expect("a tree");
    assert_eq!(liquid_stream::Structured::hosts(&t), 8_192);
    assert!(liquid_stream::model("fat-tree:3,3").is_err());
    assert!(liquid_stream::model("fat-tree:4").is_err());
    assert!(liquid_stream::model("ring:4,1").is_err());
    assert!(liquid_stream::parse("models/x.yaml")
        .expect("not a spec")
        .is_none());
}
