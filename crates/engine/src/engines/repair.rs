//! `repair`: a schedule of Λ timeframes by partial-colouring tabu search with ejection
//! chains ([`liquid_search::repair`]), from its own placement of the transfers: for
//! traffics of a million transfers, where DSatur takes minutes and the exact searches do
//! not start.

use std::sync::atomic::AtomicU64;

use liquid_model::{Answer, LowerBound, Outcome, StatValue, Traffic, Verdict};

use crate::{Counts, Engine, EngineError, Request, Run};

/// The repair search.
pub struct Repair;

/// The answer of a repair run: `liquid` when every transfer found a place in Λ frames,
/// otherwise the longer schedule it completed (`feasible`, or `unknown` when the limit
/// stopped it), with Λ as the bound.
pub(crate) fn answer(traffic: &Traffic, r: liquid_search::repair::Repaired) -> Answer {
    let outcome = Outcome::settle(
        traffic,
        Some(r.schedule),
        LowerBound::duration(traffic),
        !r.stopped,
    );
    Answer::new(liquid_search::repair::ENGINE, outcome)
        .stat("steps", StatValue::Count(r.steps))
        .stat(
            "unplaced_at_start",
            StatValue::Count(r.unplaced_at_start as u64),
        )
        .stat("fewest_unplaced", StatValue::Count(r.fewest_unplaced as u64))
}

impl Engine for Repair {
    fn seeded(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        liquid_search::repair::ENGINE
    }
    fn about(&self) -> &'static str {
        "tabu repair at Λ timeframes (PartialCol, ejection chains) from its own placement, the most loaded links first: fast at a million transfers, no optimality proof"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::Feasible, Verdict::Unknown]
    }
    fn counts(&self) -> Counts {
        Counts::Nodes
    }
    fn takes_node_limit(&self) -> bool {
        true
    }
    fn accepts_every_traffic(&self) -> bool {
        // Not one whose Λ frames × links would need far more memory than the traffic.
        false
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        if !liquid_search::repair::fits(t, t.duration()) {
            return Err(EngineError::Input(format!(
                "the repair engine would keep {} links × {} frames of occupants, more than {} per link of the total path length ({}): \
                 its memory would far exceed the traffic's; use the portfolio or dsatur",
                t.num_links(),
                t.duration(),
                liquid_search::repair::OCCUPANCY_PER_PATH_LINK,
                t.total_path_length()
            )));
        }
        let repaired = liquid_search::repair::repair(
            t,
            None,
            t.duration(),
            r.seed,
            r.limits.nodes,
            r.limits.deadline(),
            p,
        );
        Ok(answer(t, repaired).into())
    }
}
