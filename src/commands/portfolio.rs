//! The portfolio engine: what 003's conclusion suggests, made deterministic.
//!
//! 1. DSatur (polynomial, milliseconds). If it reaches Λ, the schedule is liquid: done.
//! 2. The native full-team search, on a budget of [`NATIVE_NODES`] search nodes (and half
//!    the time left, under a time limit). It finds liquid schedules fast, and refutes
//!    liquidity at once when a clique exceeds Λ; what it cannot settle within the budget
//!    goes to stage 3.
//! 3. SAT ("where it helps", as the peer benchmarks show: it proves non-liquidity and
//!    optimal lengths far faster than a colouring branch and bound) settles liquidity and
//!    the optimal length with the time that remains. When the encoding would be too large
//!    (the SAT engine refuses it up front), the exact engine does instead.
//!
//! The answer combines the best schedule and the best lower bound found by any stage, with
//! the stage that decided named in the statistics; between equal bounds, a self-checking
//! witness (bottleneck, clique) is preferred to an engine's word. A limit that stops a
//! stage leaves the best schedule with the best bound: `feasible` or `non-liquid`, never a
//! guess. The stages run one after the other on budgets counted in nodes rather than in
//! parallel threads, so that, without a time limit, the output is deterministic.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, Verdict};

/// Search nodes the native stage may spend before SAT takes over.
pub const NATIVE_NODES: u64 = 100_000;

/// The better of two lower bounds: the larger; between equal ones, the self-checking one.
fn better_bound(a: LowerBound, b: LowerBound) -> LowerBound {
    if b.value > a.value || (b.value == a.value && b.is_self_checking() && !a.is_self_checking()) {
        b
    } else {
        a
    }
}

/// The shorter of two schedules (the first when equal).
fn shorter(a: Option<Schedule>, b: Option<Schedule>) -> Option<Schedule> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Runs the portfolio on a traffic, adding the search nodes of its stages to `progress`.
pub fn solve(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Outcome {
    let start = Instant::now();
    let left = || limits.time.map(|t| t.saturating_sub(start.elapsed()));
    let d = traffic.duration();
    let mut stats: Vec<(String, StatValue)> = Vec::new();
    let say = |stats: &mut Vec<(String, StatValue)>, k: &str, v: &str| {
        stats.push((k.to_string(), StatValue::Text(v.to_string())));
    };
    let finish = |verdict: Verdict,
                  schedule: Option<Schedule>,
                  lower_bound: LowerBound,
                  by: &str,
                  mut stats: Vec<(String, StatValue)>| {
        stats.push(("decided_by".into(), StatValue::Text(by.to_string())));
        Outcome {
            engine: "portfolio".into(),
            verdict,
            schedule,
            lower_bound,
            stats,
        }
    };

    // Stage 1: DSatur.
    let dsatur = liquid_search::dsatur::solve(traffic);
    let dsatur_len = dsatur.schedule.as_ref().map_or(usize::MAX, Schedule::len);
    stats.push(("dsatur_length".into(), StatValue::Count(dsatur_len as u64)));
    if dsatur.verdict == Verdict::Liquid {
        return finish(
            Verdict::Liquid,
            dsatur.schedule,
            dsatur.lower_bound,
            "dsatur",
            stats,
        );
    }
    let mut best = dsatur.schedule;
    let mut bound = dsatur.lower_bound;

    // Stage 2: the native search on a node budget.
    let native_limits = Limits {
        time: left().map(|t| t / 2),
        nodes: Some(limits.nodes.map_or(NATIVE_NODES, |n| n.min(NATIVE_NODES))),
    };
    let native = liquid_search::liquid::solve_with_progress(traffic, &native_limits, progress);
    say(&mut stats, "native_verdict", native.verdict.as_str());
    if native.verdict == Verdict::Liquid {
        return finish(
            Verdict::Liquid,
            native.schedule,
            native.lower_bound,
            "native",
            stats,
        );
    }
    bound = better_bound(bound, native.lower_bound);
    if best.as_ref().is_some_and(|s| s.len() == bound.value) {
        return finish(Verdict::Optimal, best, bound, "native+dsatur", stats);
    }

    // Stage 3: SAT, or the exact engine when the encoding is too large for SAT.
    let rest = Limits {
        time: left(),
        nodes: limits.nodes,
    };
    let (third, by) =
        match liquid_sat::solve_with(traffic, &rest, &liquid_sat::SatOptions::default()) {
            Ok(o) => (o, "sat"),
            Err(e) => {
                say(&mut stats, "sat_skipped", &e.to_string());
                (
                    liquid_search::exact::solve_with_progress(traffic, &rest, progress),
                    "exact",
                )
            }
        };
    say(&mut stats, &format!("{by}_verdict"), third.verdict.as_str());
    best = shorter(best, third.schedule);
    bound = better_bound(bound, third.lower_bound);
    let len = best.as_ref().map(Schedule::len);
    let (verdict, decided) = if len == Some(d) {
        (Verdict::Liquid, by)
    } else if len == Some(bound.value) {
        (Verdict::Optimal, by)
    } else if bound.value > d {
        (Verdict::NonLiquid, "none (limit reached)")
    } else if best.is_some() {
        (Verdict::Feasible, "none (limit reached)")
    } else {
        (Verdict::Unknown, "none (limit reached)")
    };
    finish(verdict, best, bound, decided, stats)
}
