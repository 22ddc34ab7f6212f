//! `random`: first fit in a seeded random order.

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};

use crate::{Engine, EngineError, Request, Run};

/// Seeded random first fit.
pub struct Random;

impl Engine for Random {
    fn seeded(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        liquid_search::baseline::RANDOM
    }
    fn about(&self) -> &'static str {
        "first fit in a seeded random order (`solve --seed`; seed 0 elsewhere)"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::Feasible, Verdict::Unknown]
    }
    fn in_crosscheck(&self) -> bool {
        // A seeded first-fit baseline: a heuristic's schedule, which the gate validates,
        // can contradict no one that dsatur's does not.
        false
    }
    fn run(&self, t: &Traffic, r: &Request, _: &AtomicU64) -> Result<Run, EngineError> {
        Ok(liquid_search::baseline::random_with_limits(t, r.seed, &r.limits).into())
    }
}
