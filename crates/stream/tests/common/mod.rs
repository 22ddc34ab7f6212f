//! What the stream crate's tests share (each test binary uses a part of it).
#![allow(dead_code)]

use std::sync::atomic::AtomicU64;

use liquid_model::{Schedule, Traffic};
use liquid_mpi::report::Prediction;
use liquid_stream::closed::ClosedForm;
use liquid_stream::{SolveOptions, Structured};
use liquid_topology::fabric::pairs_schedule;

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

/// Requires `d`'s streamed schedule ([`solved_liquid`]) to be `frames`, the in-memory
/// closed form's host pairs frame by frame.
pub fn solved_as_in_memory(
    label: &str,
    d: &impl ClosedForm,
    traffic: &Traffic,
    frames: &[Vec<(usize, usize)>],
) {
    assert!(d.not_streamed().is_none(), "{label}");
    let schedule = solved_liquid(label, d, traffic);
    let memory = pairs_schedule(d.hosts(), frames);
    assert_eq!(schedule.frames, memory.frames, "{label}");
}

/// Requires a machine without a closed form to be refused by `solve` (no streamed
/// schedule) with a reason containing `why`, and analysed all the same.
pub fn refused_saying(label: &str, d: &impl ClosedForm, why: &str) {
    let reason = d.not_streamed().expect("no closed form");
    assert!(reason.contains(why), "{label}: {reason}");
    let options = SolveOptions {
        out: None,
        prefix: None,
        time_limit: None,
        mpi: None,
    };
    let err = liquid_stream::solve(d, &options, &AtomicU64::new(0)).expect_err("refused");
    assert!(
        err.to_string().contains("no streamed schedule"),
        "{label}: {err}"
    );
    let a = liquid_stream::analysis::analyze_closed_form(d, None);
    assert!(
        a.figures.contains("Streamed schedule: none"),
        "{label}: {}",
        a.figures
    );
}

/// Requires the streaming validator to accept `d`'s first three frames and to reject the
/// fourth with two of its transfers sent to one host, naming the conflict.
pub fn wrong_frame_caught(d: &impl Structured) {
    let mut v = liquid_stream::Validator::new(d);
    let mut pairs = Vec::new();
    for f in 0..3 {
        d.frame(f, &mut pairs);
        v.frame(pairs.iter().copied()).expect("valid");
    }
    d.frame(3, &mut pairs);
    pairs[0].1 = pairs[1].1;
    let err = v.frame(pairs.iter().copied()).expect_err("a conflict");
    assert!(
        err.to_string().starts_with("timeframes[3]: transfers"),
        "{err}"
    );
}

/// Requires the streamed export's prediction `b` to be the in-memory one `a` to 1e-9 (a
/// closed form against the simulator): the runtime's total with its barriers, the plan
/// alone, the library, and every step's start, end and time.
pub fn same_prediction(label: &str, a: &Prediction, b: &Prediction) {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs());
    let (ta, tb) = (a.total_s.expect("total_s"), b.total_s.expect("total_s"));
    assert!(
        close(ta, tb),
        "{label}: total_s {ta} in memory, {tb} streamed"
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
