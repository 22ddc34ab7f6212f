//! Streamed multi-cluster systems against the in-memory model (`multi-cluster:SPEC` as
//! `liquid_topology` builds it), the model crate's validator, the `structured` engine and
//! the in-memory MPI export of the same schedule.

use std::path::Path;
use std::sync::atomic::AtomicU64;

use liquid_mpi::program::ScheduleMode;
use liquid_stream::cluster::Clusters;
use liquid_stream::mpi::{Asked, MpiOptions};
use liquid_stream::{SolveOptions, Structured};
use liquid_topology::multi_cluster::MultiCluster;

mod common;

fn in_memory(spec: &str) -> liquid_model::Traffic {
    MultiCluster::parse(spec)
        .expect("valid")
        .traffic()
        .expect("builds")
}

/// The in-memory MPI export of a streamed schedule (links of 100 MB/s and 1 µs, `bytes`
/// per transfer, frames mode).
struct InMemory<'a> {
    schedule: &'a liquid_model::Schedule,
    source: &'a str,
    bytes: f64,
    overhead: f64,
}

impl InMemory<'_> {
    /// Writes the in-memory export into `memory` and requires every rank file to be the
    /// streamed export's in `streamed`, byte for byte.
    fn export_equals(
        &self,
        spec: &str,
        traffic: &liquid_model::Traffic,
        c: &Clusters,
        memory: &std::path::Path,
        streamed: &std::path::Path,
    ) {
        let mapped =
            liquid_sim::MappedTraffic::new(traffic, |_| Some((100e6, 1e-6))).expect("maps");
        let sizes = vec![self.bytes; traffic.len()];
        liquid_mpi::export(
            &liquid_mpi::ExportInput {
                traffic,
                mapped: &mapped,
                sizes: &sizes,
                schedule: Some((self.schedule, self.source.to_string())),
                kind: liquid_mpi::PlanKind::Schedule(ScheduleMode::Frames),
                overhead: self.overhead,
                library: liquid_mpi::RuntimeModel::default(),
                phase_schedule: None,
                budget: liquid_mpi::Budget::default(),
            },
            memory,
        )
        .expect("exports");
        for r in 0..c.hosts() {
            let name = format!("rank-{r}.txt");
            let a = std::fs::read(memory.join(&name)).expect("written");
            let b = std::fs::read(streamed.join(&name)).expect("written");
            assert!(a == b, "{spec}: {name} differs");
        }
    }
}

/// Links, names, routes, loads, Λ and the analysis are the in-memory model's, on
/// homogeneous and heterogeneous systems, with full and partly used ICN2s.
#[test]
fn streamed_systems_are_the_in_memory_systems() {
    for spec in ["4,4x2", "8,8x1", "4,8x2", "4,2+1+3,2", "4,3x2", "6,3x2+1,2"] {
        let traffic = in_memory(spec);
        let c = Clusters::new(spec).expect("streams");
        assert_eq!(c.name(), traffic.name(), "{spec}");
        assert_eq!(c.links(), traffic.num_links(), "{spec}");
        assert_eq!(c.transfers(), traffic.len() as u64);
        for l in traffic.link_ids() {
            assert_eq!(c.link_name(l.index()), traffic.link_name(l), "{spec}");
            assert_eq!(c.load(l.index()), traffic.load(l) as u64, "{spec}");
        }
        assert_eq!(c.duration(), traffic.duration() as u64, "{spec}");
        let mut route = Vec::new();
        for s in 0..c.hosts() {
            for d in (0..c.hosts()).filter(|&d| d != s) {
                let id = format!("{}->{}", c.host_name(s), c.host_name(d));
                let t = traffic.find_transfer(&id).expect("a transfer");
                c.route(s, d, &mut route);
                let want: Vec<u32> = traffic.transfer(t).path.iter().map(|l| l.0).collect();
                assert_eq!(route, want, "{spec}: {id}");
            }
        }
        let a = liquid_stream::analysis::analyze_clusters(&c, Some(100.0));
        assert_eq!(a.total_path_length, traffic.total_path_length() as u64);
        assert_eq!(
            a.bottleneck_links,
            traffic.bottlenecks().len() as u64,
            "{spec}"
        );
        assert_eq!(a.liquid_ratio, (traffic.liquid_ratio() * 1e4).round() / 1e4);
    }
}

/// Homogeneous systems with a full ICN2: the streamed schedule is liquid for the model
/// crate's validator, as long as the structured engine's; its MPI export equals the
/// in-memory export of the same schedule byte for byte.
#[test]
fn homogeneous_full_systems_stream_a_liquid_schedule() {
    for spec in ["4,4x2", "8,8x1", "4,8x2"] {
        let traffic = in_memory(spec);
        let c = Clusters::new(spec).expect("streams");
        assert!(c.not_streamed().is_none(), "{spec}");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let yaml = dir.path().join("s.yaml");
        let (streamed_mpi, memory_mpi) = (dir.path().join("stream"), dir.path().join("memory"));
        let (report, mpi) = stream_with_mpi(&c, &yaml, &streamed_mpi, 512.0, 0.0);
        assert_eq!(report.verdict, "liquid", "{spec}");
        assert_eq!(report.validation.loads_match_closed_form, Some(true));
        let schedule = liquid_model::yaml::load_schedule(&yaml, &traffic).expect("loads");
        let r = liquid_model::validate(&traffic, &schedule).expect("valid");
        assert!(r.liquid, "{spec}");
        assert_eq!(schedule.frames.len() as u64, c.duration());
        let answer = liquid_search::structured::solve(&traffic, &liquid_model::Limits::default());
        let s = answer.outcome.schedule().expect("a schedule");
        assert_eq!(s.frames.len(), schedule.frames.len(), "{spec}");
        let mem = InMemory {
            schedule: &schedule,
            source: &mpi.source,
            bytes: 512.0,
            overhead: 0.0,
        };
        mem.export_equals(spec, &traffic, &c, &memory_mpi, &streamed_mpi);
        for name in ["ranks.txt", "hostfile"] {
            let a = std::fs::read(memory_mpi.join(name)).expect("written");
            assert_eq!(a, std::fs::read(streamed_mpi.join(name)).expect("written"));
        }
    }
}

/// The streamed solve of `c` writing `file` (YAML or compact by its extension), and with
/// `mpi` its MPI export.
fn solve(c: &Clusters, file: &Path, mpi: Option<&MpiOptions>) -> liquid_stream::SolveReport {
    let options = SolveOptions {
        out: Some(file),
        prefix: None,
        time_limit: None,
        mpi,
    };
    liquid_stream::solve(c, &options, &AtomicU64::new(0))
        .expect("runs")
        .expect("valid")
}

/// The streamed solve of `c` writing `file` and its MPI export into `dir` (frames mode,
/// `bytes` per transfer, links of 100 MB/s and 1 µs): the report and the export's options.
fn stream_with_mpi(
    c: &Clusters,
    file: &Path,
    dir: &Path,
    bytes: f64,
    overhead: f64,
) -> (liquid_stream::SolveReport, MpiOptions) {
    let mpi = liquid_stream::mpi::options_from(
        c,
        &Asked {
            dir,
            plan_is_schedule: true,
            frames_mode: true,
            schedule_or_engine: false,
            sizes_file: false,
            size: bytes,
            link_throughput: Some(100.0),
            link_latency: Some(1e-6),
            overhead,
            envelope: 0.0,
            eager_limit: 65536,
        },
    )
    .expect("options");
    (solve(c, file, Some(&mpi)), mpi)
}

/// Heterogeneous systems and systems with unused ICN2 ports: the schedule by rounds of
/// cluster pairs (`liquid_search::classes` on the cluster level) is liquid for the
/// streaming validator and for the model crate's validator on the in-memory traffic, its
/// frame count is Λ, and `verify --stream` accepts its compact file.
#[test]
fn other_systems_stream_rounds_of_cluster_pairs() {
    for spec in [
        "4,2+1+3,2",
        "4,3x2",
        "6,3x2+1,2",
        "4,2x1+3x2",
        "4,3x1+2x2,3",
        "6,4x1+3x2",
        "8,3x1+2x2",
        "4,2x1+2x2+2x3",
    ] {
        let traffic = in_memory(spec);
        let c = Clusters::new(spec).expect("streams");
        assert_eq!(c.not_streamed(), None, "{spec}");
        assert!(
            c.method()
                .starts_with("rounds of partial permutations of clusters"),
            "{spec}: {}",
            c.method()
        );
        assert_eq!(c.frames() as u64, c.duration(), "{spec}");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (yaml, compact) = (dir.path().join("s.yaml"), dir.path().join("s.frames"));
        let report = solve(&c, &yaml, None);
        assert_eq!(report.verdict, "liquid", "{spec}");
        assert_eq!(report.validation.loads_match_closed_form, Some(true));
        let schedule = liquid_model::yaml::load_schedule(&yaml, &traffic).expect("loads");
        let r = liquid_model::validate(&traffic, &schedule).expect("valid");
        assert!(r.liquid, "{spec}");
        assert_eq!(schedule.frames.len(), traffic.duration(), "{spec}");
        assert_eq!(solve(&c, &compact, None).verdict, "liquid", "{spec}");
        let v = liquid_stream::verify_file(
            &c,
            &compact,
            &liquid_stream::VerifyOptions::default(),
            &AtomicU64::new(0),
        )
        .expect("reads");
        assert_eq!(v.valid, Some(true), "{spec}: {:?}", v.problems);
        assert_eq!(v.report.and_then(|r| r.liquid), Some(true), "{spec}");
    }
}

/// The streamed MPI export of schedules whose frames leave ranks idle (rounds of cluster
/// pairs): the rank files equal the in-memory export of the same schedule, and the
/// prediction (the runtime's barriers included) equals the in-memory one to 1e-9, with
/// eager sends and with sends that complete on delivery.
#[test]
fn streamed_export_of_rounds_predicts_as_in_memory() {
    for (spec, bytes, overhead) in [
        ("4,2+1+3,2", 512.0, 0.0),
        ("4,3x2", 100_000.0, 1e-6),
        ("4,2x1+3x2", 4096.0, 2e-6),
        ("4,2+1+3,2", 0.0, 0.0),
        ("6,3x2+1,2", 8.0, 0.0),
    ] {
        let traffic = in_memory(spec);
        let c = Clusters::new(spec).expect("streams");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let yaml = dir.path().join("s.yaml");
        let (streamed, memory) = (dir.path().join("stream"), dir.path().join("memory"));
        let (report, mpi) = stream_with_mpi(&c, &yaml, &streamed, bytes, overhead);
        assert_eq!(report.verdict, "liquid", "{spec}");
        let schedule = liquid_model::yaml::load_schedule(&yaml, &traffic).expect("loads");
        let mem = InMemory {
            schedule: &schedule,
            source: &mpi.source,
            bytes,
            overhead,
        };
        mem.export_equals(spec, &traffic, &c, &memory, &streamed);
        let read = |d: &std::path::Path| {
            liquid_mpi::Manifest::read(&d.join("manifest.json")).expect("a manifest")
        };
        let (ma, mb) = (read(&memory), read(&streamed));
        common::same_prediction(spec, &ma.prediction, &mb.prediction);
    }
}

/// Paper 002's 1,120-node organisation (Table 1), streamed: liquid, Λ frames, and its
/// compact file verified.
#[test]
fn paper_002_organisation_streams_a_liquid_schedule() {
    let c = Clusters::new("8,12x1+16x2+4x3").expect("streams");
    assert_eq!(c.not_streamed(), None);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("s.frames");
    let report = solve(&c, &file, None);
    assert_eq!(report.verdict, "liquid");
    assert_eq!(report.frames_made, c.duration());
    let v = liquid_stream::verify_file(
        &c,
        &file,
        &liquid_stream::VerifyOptions::default(),
        &AtomicU64::new(0),
    )
    .expect("reads");
    assert_eq!(v.valid, Some(true), "{:?}", v.problems);
}

/// A system the classes stage does not take is refused, saying why.
#[test]
fn systems_beyond_the_classes_stage_are_refused() {
    // 257 clusters: 65,792 cluster pairs, more than the stage's 65,536 classes.
    let c = Clusters::new("4,257x1").expect("analysed");
    let why = c.not_streamed().expect("refused").to_string();
    assert!(why.contains("cluster pairs"), "{why}");
    let options = SolveOptions {
        out: None,
        prefix: None,
        time_limit: None,
        mpi: None,
    };
    let e = liquid_stream::solve(&c, &options, &AtomicU64::new(0)).expect_err("refused");
    assert!(e.to_string().contains("cluster pairs"), "{e}");
}

/// 8,192 nodes are wired and analysed without the network form.
#[test]
fn eight_thousand_nodes_are_analysed_without_the_network_form() {
    let c = Clusters::new("4,64x6").expect("streams");
    assert_eq!(c.hosts(), 8192);
    assert!(MultiCluster::parse("4,64x6")
        .expect("valid")
        .traffic()
        .is_err());
    // The concentrator channels: s·(N − s) = 128 · 8064.
    assert_eq!(c.duration(), 128 * 8064);
    assert_eq!(c.frames() as u64, c.duration());
    assert!(c.not_streamed().is_none());
}
