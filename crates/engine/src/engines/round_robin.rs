//! `round-robin`: the baseline of papers 000/003 for all-to-all traffics.

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};

use crate::{Engine, EngineError, Request, Run};

/// Round-robin.
pub struct RoundRobin;

impl Engine for RoundRobin {
    fn name(&self) -> &'static str {
        liquid_search::baseline::ROUND_ROBIN
    }
    fn about(&self) -> &'static str {
        "round-robin baseline for all-to-all traffics (phases split into fewest timeframes)"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::Feasible, Verdict::Unknown]
    }
    fn in_crosscheck(&self) -> bool {
        // All-to-alls only: it refuses every other traffic.
        false
    }
    fn accepts_every_traffic(&self) -> bool {
        false
    }
    fn run(&self, t: &Traffic, r: &Request, _: &AtomicU64) -> Result<Run, EngineError> {
        liquid_search::baseline::round_robin_with_limits(t, &r.limits)
            .map(Run::from)
            .map_err(|e| EngineError::Input(format!("{}: {e}", t.name())))
    }
}
