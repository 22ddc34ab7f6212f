//! What the stream crate's tests share (each test binary uses a part of it).
#![allow(dead_code)]

use std::sync::atomic::AtomicU64;

use liquid_model::{Schedule, Traffic};
use liquid_mpi::report::Prediction;
use liquid_stream::closed::ClosedForm;
use liquid_stream::{SolveOptions, Structured};

/// Requires the streamed machine `d` to be the in-memory model's `traffic`: its name,
/// links, every link's name and load, Λ and every route.
pub fn same_model(label: &str, d: &impl Structured, traffic: &Traffic) {
    assert_eq!(d.name(), traffic.name(), "{label}");
    assert_eq!(d.links(), traffic.num_links(), "{label}");
    for l in traffic.link_ids() {
        assert_eq!(d.link_name(l.index()), traffic.link_name(l), "{label}");
        assert_eq!(d.load(l.index()), traffic.load(l) as u64, "{label}");
    }
    assert_eq!(d.duration(), traffic.duration() as u64, "{label}");
    let mut route = Vec::new();
    for s in 0..d.hosts() {
        for t in (0..d.hosts()).filter(|&t| t != s) {
            let id = format!("{}->{}", d.host_name(s), d.host_name(t));
            let x = traffic.find_transfer(&id).expect("a transfer");
            d.route(s, t, &mut route);
            let want: Vec<u32> = traffic.transfer(x).path.iter().map(|l| l.0).collect();
            assert_eq!(route, want, "{label}: {id}");
        }
    }
}

/// Requires the closed-form analysis of `d` to be the in-memory model's: transfers, total
/// path length, bottleneck links and liquid ratio (the in-memory figures are counted).
pub fn same_analysis(label: &str, d: &impl ClosedForm, traffic: &Traffic) {
    assert_eq!(d.transfers(), traffic.len() as u64, "{label}");
    let a = liquid_stream::analysis::analyze_closed_form(d, Some(100.0));
    assert_eq!(
        a.total_path_length,
        traffic.total_path_length() as u64,
        "{label}"
    );
    assert_eq!(
        a.bottleneck_links,
        traffic.bottlenecks().len() as u64,
        "{label}"
    );
    assert_eq!(
        a.liquid_ratio,
        (traffic.liquid_ratio() * 1e4).round() / 1e4,
        "{label}"
    );
    assert_eq!(
        a.loads.iter().map(|c| c.count).sum::<u64>(),
        a.links,
        "{label}"
    );
}

/// Solves `d` streamed into a YAML file and reads it back against `traffic`: the solve
/// says liquid, its loads match the closed form and it counted Λ, and the model crate's
/// validator finds the schedule liquid. Returns the schedule.
pub fn solved_liquid(label: &str, d: &impl Structured, traffic: &Traffic) -> Schedule {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let yaml = dir.path().join("s.yaml");
    let options = SolveOptions {
        out: Some(&yaml),
        prefix: None,
        time_limit: None,
        mpi: None,
    };
    let report = liquid_stream::solve(d, &options, &AtomicU64::new(0))
        .expect("runs")
        .expect("valid");
    assert_eq!(report.verdict, "liquid", "{label}");
    assert_eq!(report.validation.loads_match_closed_form, Some(true));
    assert_eq!(report.validation.duration_counted, Some(d.duration()));
    let schedule = liquid_model::yaml::load_schedule(&yaml, traffic).expect("loads");
    let r = liquid_model::validate(traffic, &schedule).expect("valid");
    assert!(r.liquid, "{label}");
    schedule
}

/// Requires the streamed export's prediction `b` to be the in-memory one `a` to 1e-9 (a
/// closed form against the simulator): the runtime's total with its barriers, the plan
/// alone, the library, and every step's start, end and time.
pub fn same_prediction(label: &str, a: &Prediction, b: &Prediction) {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs());
    assert!(
        close(a.total_s, b.total_s),
        "{label}: total_s {} in memory, {} streamed",
        a.total_s,
        b.total_s
    );
    let (pa, pb) = (a.plan_s.expect("plan_s"), b.plan_s.expect("plan_s"));
    assert!(
        close(pa, pb),
        "{label}: plan_s {pa} in memory, {pb} streamed"
    );
    assert_eq!(a.library, b.library, "{label}");
    assert_eq!(a.steps.len(), b.steps.len(), "{label}");
    for (x, y) in a.steps.iter().zip(&b.steps) {
        for (u, v) in [
            (x.start_s, y.start_s),
            (x.end_s, y.end_s),
            (x.time_s, y.time_s),
        ] {
            let (u, v) = (u.expect("a time"), v.expect("a time"));
            assert!(close(u, v), "{label}: step {}: {u} and {v}", x.step);
        }
    }
}
