//! `exact`: the optimal length (chromatic number) by DSATUR branch and bound.

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};

use super::search_proof::with_search_proof;
use crate::{Counts, Engine, EngineError, Request, Run};

/// DSATUR branch and bound.
pub struct Exact;

impl Engine for Exact {
    fn name(&self) -> &'static str {
        liquid_search::exact::ENGINE
    }
    fn about(&self) -> &'static str {
        "exact optimal length by DSATUR branch and bound (chromatic number), started from orbit frames or a tabu-shortened schedule"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        super::SETTLING
    }
    fn counts(&self) -> Counts {
        Counts::Nodes
    }
    fn takes_node_limit(&self) -> bool {
        true
    }
    fn proves(&self) -> bool {
        true
    }
    fn refutes_up_to(&self) -> usize {
        liquid_search::kcolour::MAX_TIMEFRAMES
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        let deadline = r.limits.deadline();
        let answer = liquid_search::exact::solve_with_progress(t, &r.limits, p);
        Ok(with_search_proof(t, answer, r.proofs, deadline))
    }
}
