//! What the stream crate's tests share.

use liquid_mpi::report::Prediction;

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
