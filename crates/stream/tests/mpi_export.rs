//! The streamed MPI export against the in-memory one (`liquid_mpi::export` of the same
//! schedule, as `liquid export mpi MODEL --engine native` writes it).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;

use liquid_mpi::program::ScheduleMode;
use liquid_stream::mpi::{Asked, MpiOptions};
use liquid_stream::{SolveOptions, Structured, Tree};
use liquid_topology::fat_tree::FatTree;

mod common;

const BANDWIDTH_MB_S: f64 = 1000.0;
const LATENCY_S: f64 = 1e-6;

/// Every file of a directory, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| {
            let e = e.expect("an entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("readable"),
            )
        })
        .collect()
}

fn in_memory_export(m: usize, n: usize, bytes: u64, overhead: f64, out: &Path) {
    let traffic = FatTree::new(m, n).traffic().expect("builds");
    let mapped =
        liquid_sim::MappedTraffic::new(&traffic, |_| Some((BANDWIDTH_MB_S * 1e6, LATENCY_S)))
            .expect("mapped");
    let answer = liquid_search::native::solve(&traffic, &liquid_model::Limits::default());
    let schedule = answer.outcome.schedule().expect("a schedule").clone();
    let sizes = vec![bytes as f64; traffic.len()];
    let input = liquid_mpi::ExportInput {
        traffic: &traffic,
        mapped: &mapped,
        sizes: &sizes,
        schedule: Some((&schedule, "engine native".into())),
        kind: liquid_mpi::PlanKind::Schedule(ScheduleMode::Frames),
        overhead,
        library: liquid_mpi::RuntimeModel::default(),
        phase_schedule: None,
        budget: liquid_mpi::Budget::default(),
    };
    liquid_mpi::export(&input, out).expect("exported");
}

fn streamed_export(tree: &Tree, bytes: u64, overhead: f64, spool: usize, out: &Path) {
    let mut options = liquid_stream::mpi::options_from(
        tree,
        &Asked {
            dir: out,
            plan_is_schedule: true,
            frames_mode: true,
            schedule_or_engine: false,
            sizes_file: false,
            size: bytes as f64,
            link_throughput: Some(BANDWIDTH_MB_S),
            link_latency: Some(LATENCY_S),
            overhead,
            envelope: 0.0,
            eager_limit: 65536,
        },
    )
    .expect("options");
    options.spool = spool;
    let solve = SolveOptions {
        out: None,
        prefix: None,
        time_limit: None,
        mpi: Some(&options),
    };
    let report = liquid_stream::solve(tree, &solve, &AtomicU64::new(0))
        .expect("runs")
        .expect("valid");
    let mpi = report.mpi.expect("an export");
    assert_eq!(mpi.ranks, tree.hosts());
    assert_eq!(mpi.messages, tree.transfers());
}

/// Rank files, ranks.txt and hostfile equal the in-memory export byte for byte; the
/// manifest equals it but for `source` and the prediction, which agrees to rounding
/// (closed form, barriers included, against the simulator's run of the runtime's plan). A spool of one byte (a flush after every frame)
/// and a large one give the same files.
#[test]
fn streamed_export_is_the_in_memory_export() {
    // Eager sends (below 65536 bytes) and sends that complete on delivery.
    for (m, n, bytes, overhead) in [
        (4, 3, 4096, 0.0),
        (8, 3, 1000, 2e-6),
        (4, 3, 100_000, 1e-6),
        (8, 3, 70_000, 0.0),
    ] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (a, b, c) = (
            dir.path().join("memory"),
            dir.path().join("stream"),
            dir.path().join("stream-small-spool"),
        );
        in_memory_export(m, n, bytes, overhead, &a);
        let tree = Tree::new(m, n).expect("a tree");
        streamed_export(
            &tree,
            bytes,
            overhead,
            liquid_stream::mpi::DEFAULT_SPOOL,
            &b,
        );
        streamed_export(&tree, bytes, overhead, 1, &c);
        let (mut fa, mut fb, fc) = (files(&a), files(&b), files(&c));
        assert_eq!(fb, fc, "{m},{n}: the spool's size changes the files");
        assert_eq!(fa.len(), tree.hosts() + 3, "{m},{n}");
        let (ma, mb) = (
            fa.remove("manifest.json").expect("a manifest"),
            fb.remove("manifest.json").expect("a manifest"),
        );
        for (name, text) in &fa {
            assert!(
                fb.get(name) == Some(text),
                "{m},{n}: {name} differs:\n{}\n---\n{}",
                String::from_utf8_lossy(text),
                String::from_utf8_lossy(fb.get(name).map_or(&[][..], |v| v))
            );
        }
        assert_eq!(fa.len(), fb.len());
        let read = |t: &[u8]| -> liquid_mpi::Manifest { serde_json::from_slice(t).expect("json") };
        let (mut ma, mb) = (read(&ma), read(&mb));
        assert!(
            mb.source.starts_with("streamed orbit frames"),
            "{}",
            mb.source
        );
        ma.source.clone_from(&mb.source);
        // The prediction: the runtime's time with its barriers (total_s), the plan alone
        // (plan_s) and every step's figures agree to rounding.
        let (pa, pb) = (&ma.prediction, &mb.prediction);
        common::same_prediction(&format!("{m},{n},{bytes}"), pa, pb);
        assert!(
            pb.total_s.expect("total_s") > pb.plan_s.expect("plan_s"),
            "{m},{n}: barriers cost"
        );
        ma.prediction.clone_from(&mb.prediction);
        assert_eq!(ma, mb, "{m},{n}");
    }
}

/// What the streamed export cannot honour is refused, naming the option.
#[test]
fn streamed_export_refuses_what_it_cannot_write() {
    let tree = Tree::new(4, 2).expect("a tree");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ok = Asked {
        dir: dir.path(),
        plan_is_schedule: true,
        frames_mode: true,
        schedule_or_engine: false,
        sizes_file: false,
        size: 8.0,
        link_throughput: Some(100.0),
        link_latency: None,
        overhead: 0.0,
        envelope: 0.0,
        eager_limit: 65536,
    };
    let refused = |a: Asked<'_>, word: &str| {
        let e = liquid_stream::mpi::options_from(&tree, &a)
            .expect_err("refused")
            .to_string();
        assert!(e.contains(word), "{e:?} does not name {word}");
    };
    refused(
        Asked {
            plan_is_schedule: false,
            ..ok
        },
        "--plan",
    );
    refused(
        Asked {
            frames_mode: false,
            ..ok
        },
        "--mode",
    );
    refused(
        Asked {
            schedule_or_engine: true,
            ..ok
        },
        "--engine",
    );
    refused(
        Asked {
            sizes_file: true,
            ..ok
        },
        "--sizes",
    );
    refused(Asked { size: 1.5, ..ok }, "--size");
    refused(Asked { size: 3e9, ..ok }, "--size");
    refused(
        Asked {
            envelope: 16.0,
            ..ok
        },
        "--envelope",
    );
    refused(
        Asked {
            link_throughput: None,
            ..ok
        },
        "--link-throughput",
    );
    refused(
        Asked {
            link_latency: Some(-1.0),
            ..ok
        },
        "--link-latency",
    );
    refused(
        Asked {
            overhead: f64::NAN,
            ..ok
        },
        "--overhead",
    );
    let o: MpiOptions = liquid_stream::mpi::options_from(&tree, &ok).expect("accepted");
    assert_eq!((o.bytes, o.bandwidth, o.latency), (8, 1e8, 0.0));
}

/// A fat-tree all-to-all whose orbit frames are split in two: first the transfers
/// between the hosts that share rank 0's leaf switch (rank 0 aside), then the rest. In
/// the first part of each frame rank 0 and every host far from it are idle, so the
/// barrier's release is set by an idle far host's round trip to rank 0: the term of the
/// closed form that the liquid schedules never make decisive.
struct Split {
    tree: Tree,
    frames: Vec<Pairs>,
}

/// A frame's transfers as (source, destination) host numbers.
type Pairs = Vec<(u32, u32)>;

impl Split {
    fn new(tree: Tree) -> Split {
        let mut route = Vec::new();
        let mut near = vec![false; tree.hosts()];
        for (h, n) in near.iter_mut().enumerate().skip(1) {
            tree.route(h, 0, &mut route);
            *n = route.len() == 2;
        }
        let mut frames = Vec::new();
        let mut pairs = Vec::new();
        for f in 0..Structured::frames(&tree) {
            tree.frame(f, &mut pairs);
            let (a, b): (Pairs, Pairs) = pairs
                .iter()
                .partition(|&&(s, d)| near[s as usize] && near[d as usize]);
            frames.extend([a, b].into_iter().filter(|p| !p.is_empty()));
        }
        Split { tree, frames }
    }
}

impl Structured for Split {
    fn name(&self) -> String {
        self.tree.name()
    }
    fn spec(&self) -> String {
        self.tree.spec()
    }
    fn hosts(&self) -> usize {
        self.tree.hosts()
    }
    fn links(&self) -> usize {
        Structured::links(&self.tree)
    }
    fn host_name(&self, h: usize) -> String {
        self.tree.host_name(h)
    }
    fn link_name(&self, l: usize) -> String {
        self.tree.link_name(l)
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        self.tree.route(s, d, out);
    }
    fn load(&self, l: usize) -> u64 {
        Structured::load(&self.tree, l)
    }
    fn duration(&self) -> u64 {
        Structured::duration(&self.tree)
    }
    fn frames(&self) -> usize {
        self.frames.len()
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        pairs.clone_from(&self.frames[f]);
    }
    fn method(&self) -> String {
        "orbit frames, split".into()
    }
    fn streamable(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The streamed prediction of frames that leave rank 0 and the far hosts idle equals the
/// in-memory one (the runtime's plan simulated) to 1e-9.
#[test]
fn streamed_prediction_with_idle_far_ranks_is_the_in_memory_one() {
    use liquid_stream::FrameSink as _;
    let split = Split::new(Tree::new(8, 2).expect("a tree"));
    assert!(split.frames.len() > Structured::frames(&split.tree));
    let traffic = FatTree::new(8, 2).traffic().expect("builds");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (a, b) = (dir.path().join("memory"), dir.path().join("stream"));
    let options = liquid_stream::mpi::options_from(
        &split,
        &Asked {
            dir: &b,
            plan_is_schedule: true,
            frames_mode: true,
            schedule_or_engine: false,
            sizes_file: false,
            size: 0.0,
            link_throughput: Some(BANDWIDTH_MB_S),
            link_latency: Some(LATENCY_S),
            overhead: 0.0,
            envelope: 0.0,
            eager_limit: 65536,
        },
    )
    .expect("options");
    let mut w = liquid_stream::MpiWriter::create(&split, options).expect("creates");
    for f in &split.frames {
        w.pairs(f).expect("writes");
    }
    w.finish().expect("finishes");
    let frames: Vec<Vec<liquid_model::TransferId>> = split
        .frames
        .iter()
        .map(|f| {
            f.iter()
                .map(|&(s, d)| {
                    let id = format!(
                        "{}->{}",
                        split.host_name(s as usize),
                        split.host_name(d as usize)
                    );
                    traffic.find_transfer(&id).expect("a transfer")
                })
                .collect()
        })
        .collect();
    let schedule = liquid_model::Schedule::new(frames);
    let mapped =
        liquid_sim::MappedTraffic::new(&traffic, |_| Some((BANDWIDTH_MB_S * 1e6, LATENCY_S)))
            .expect("mapped");
    let sizes = vec![0.0; traffic.len()];
    liquid_mpi::export(
        &liquid_mpi::ExportInput {
            traffic: &traffic,
            mapped: &mapped,
            sizes: &sizes,
            schedule: Some((&schedule, "split".into())),
            kind: liquid_mpi::PlanKind::Schedule(ScheduleMode::Frames),
            overhead: 0.0,
            library: liquid_mpi::RuntimeModel::default(),
            phase_schedule: None,
            budget: liquid_mpi::Budget::default(),
        },
        &a,
    )
    .expect("exported");
    let read = |d: &Path| liquid_mpi::Manifest::read(&d.join("manifest.json")).expect("read");
    let (ma, mb) = (read(&a), read(&b));
    common::same_prediction("8,2 split", &ma.prediction, &mb.prediction);
}
