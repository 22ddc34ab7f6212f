//! `native`: the orbit check of the structured engine, then the liquid-schedule search of
//! papers 003/004 over full teams ([`liquid_search::native`]).

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};

use super::search_proof::with_search_proof;
use crate::{Counts, Engine, EngineError, Request, Run};

/// The native full-team search.
pub struct Native;

impl Engine for Native {
    fn seeded(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        liquid_search::native::ENGINE
    }
    fn about(&self) -> &'static str {
        "liquid schedule search over full teams (003/004), after an O(Σ|x|) orbit check for all-to-alls, with an exact cover by full teams (orbit schedules of the traffic's automorphisms first) when the search does not decide at once: liquid, non-liquid or unknown"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::NonLiquid, Verdict::Unknown]
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
        let answer = liquid_search::native::solve_seeded(t, &r.limits, r.seed, p);
        Ok(with_search_proof(t, answer, r.proofs, deadline))
    }
}
