//! The portfolio engine: what 003's conclusion suggests, made deterministic.
//!
//! 1. DSatur (polynomial, milliseconds). If it reaches Λ, the schedule is liquid: done.
//! 2. The native full-team search decides liquidity within the time limit.
//! 3. When the traffic is not liquid and DSatur's length is above Λ + 1, an exact engine
//!    settles the optimal length with the time that remains.
//!
//! The answer combines the best schedule and the best lower bound found by any stage, with
//! the stage that decided named in the statistics. A limit that stops a stage leaves the
//! best schedule with its bound: `feasible`, never a guess. The stages run one after the
//! other rather than in parallel threads: DSatur finishes long before the search could be
//! interrupted, and a fixed order keeps the output deterministic.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{Limits, Outcome, StatValue, Traffic, Verdict};

/// Runs the portfolio on a traffic, adding the search nodes of its stages to `progress`.
pub fn solve(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Outcome {
    let start = Instant::now();
    let remaining = |l: &Limits| Limits {
        time: l.time.map(|t| t.saturating_sub(start.elapsed())),
        nodes: l.nodes,
    };
    let d = traffic.duration();
    let mut stats: Vec<(String, StatValue)> = Vec::new();
    let dsatur = liquid_search::dsatur::solve(traffic);
    let dsatur_len = dsatur.schedule.as_ref().map_or(usize::MAX, |s| s.len());
    stats.push(("dsatur_length".into(), StatValue::Count(dsatur_len as u64)));
    let finish = |mut o: Outcome, by: &str, mut stats: Vec<(String, StatValue)>| {
        stats.push(("decided_by".into(), StatValue::Text(by.to_string())));
        o.engine = "portfolio".into();
        o.stats = stats;
        o
    };
    if dsatur.verdict == Verdict::Liquid {
        return finish(dsatur, "dsatur", stats);
    }
    let native = liquid_search::liquid::solve_with_progress(traffic, &remaining(limits), progress);
    stats.push((
        "native_verdict".into(),
        StatValue::Text(native.verdict.as_str().into()),
    ));
    match native.verdict {
        Verdict::Liquid => return finish(native, "native", stats),
        Verdict::NonLiquid if dsatur_len == native.lower_bound.value => {
            // DSatur's schedule meets the bound the search proved: optimal.
            let o = Outcome {
                verdict: Verdict::Optimal,
                schedule: dsatur.schedule,
                lower_bound: native.lower_bound,
                ..native
            };
            return finish(o, "native+dsatur", stats);
        }
        Verdict::NonLiquid => {}
        _ => {
            // The search was stopped: DSatur's schedule with Λ is all we know.
            return finish(dsatur, "none (limit reached)", stats);
        }
    }
    let exact = liquid_search::exact::solve_with_progress(traffic, &remaining(limits), progress);
    stats.push((
        "exact_verdict".into(),
        StatValue::Text(exact.verdict.as_str().into()),
    ));
    if matches!(exact.verdict, Verdict::Optimal | Verdict::Liquid) {
        return finish(exact, "exact", stats);
    }
    // Stopped: keep the better schedule and the better bound.
    let schedule = match (&exact.schedule, dsatur.schedule) {
        (Some(e), Some(s)) if e.len() < s.len() => Some(e.clone()),
        (_, s) => s,
    };
    let lower_bound = if exact.lower_bound.value > native.lower_bound.value {
        exact.lower_bound
    } else {
        native.lower_bound
    };
    let verdict = if schedule
        .as_ref()
        .is_some_and(|s| s.len() == lower_bound.value)
    {
        Verdict::Optimal
    } else if lower_bound.value > d {
        Verdict::NonLiquid
    } else {
        Verdict::Feasible
    };
    finish(
        Outcome {
            engine: String::new(),
            verdict,
            schedule,
            lower_bound,
            stats: Vec::new(),
        },
        "none (limit reached)",
        stats,
    )
}
