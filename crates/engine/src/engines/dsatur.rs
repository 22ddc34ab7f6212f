//! `dsatur`: Brélaz's DSatur greedy colouring, as the annex of paper 003 describes it.

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};

use crate::{Counts, Engine, EngineError, Request, Run};

/// DSatur.
pub struct Dsatur;

impl Engine for Dsatur {
    fn name(&self) -> &'static str {
        liquid_search::dsatur::ENGINE
    }
    fn about(&self) -> &'static str {
        "DSatur greedy colouring (003 annex): fast, no optimality proof"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::Feasible, Verdict::Unknown]
    }
    fn counts(&self) -> Counts {
        Counts::Transfers
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        Ok(liquid_search::dsatur::solve_with_progress(t, &r.limits, p).into())
    }
}
