//! Proofs from the native searches: when `native` or `exact` claims a bound above Λ and
//! proofs are requested, a native search refutes one timeframe fewer (the frame search
//! when that is Λ, else the colouring search) and writes an LRAT proof of the CNF
//! `liquid encode` prints ([`liquid_sat::prove_by_search`]). The gate checks it like any refutation; when the
//! search cannot make one (more than 32 timeframes, its trace past its memory cap, or half
//! the time left, its share), the gate falls back to SAT with the rest.

use std::time::Instant;

use liquid_model::{Answer, StatValue, Traffic};
use liquid_sat::{prove_by_search, SearchProved};

use crate::Run;

/// `answer` as a run, with the native searches' refutation of `bound − 1` timeframes
/// when `proofs` are asked for and the bound is above Λ and not already checked (a
/// clique); the statistic `search_proof` says what the attempt gave.
pub(crate) fn with_search_proof(
    traffic: &Traffic,
    mut answer: Answer,
    proofs: bool,
    deadline: Option<Instant>,
) -> Run {
    let lower = answer.outcome.lower_bound(traffic);
    // A clique larger than Λ is checked evidence already (and a pigeonhole, which a
    // colouring search refutes only in exponential time): the gate asks SAT for a
    // refutation only when a proof directory wants one.
    if !proofs || lower.value <= traffic.duration() || lower.is_checked() {
        return answer.into();
    }
    let bound = lower.value;
    let k = bound - 1;
    // Half the time left, so that SAT, which the gate asks when no refutation comes from
    // here, keeps the other half.
    let share = deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / 2
    });
    let (refutation, note) = match prove_by_search(traffic, k, share) {
        Ok(SearchProved::Unsat {
            refutation,
            nodes,
            steps,
            search,
        }) => (
            Some(refutation),
            format!("{k} timeframes refuted by the {search}: {nodes} nodes, {steps} LRAT steps"),
        ),
        Ok(SearchProved::Sat(_)) => (
            None,
            format!("none: the native search found a schedule of {k} timeframes, against the engine's bound"),
        ),
        Ok(SearchProved::Stopped) => (
            None,
            "none: half the time left (the native search's share) came first".to_string(),
        ),
        Err(e) => (None, format!("none: {e}")),
    };
    answer
        .stats
        .push(("search_proof".to_string(), StatValue::Text(note)));
    Run { answer, refutation }
}
