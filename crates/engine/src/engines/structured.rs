//! `structured`: liquid schedules of all-to-all traffics from orbits of a group acting on
//! the hosts (detected from the traffic itself), falling back to the native search.

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};

use crate::{Counts, Engine, EngineError, Request, Run};

/// The structure-first engine.
pub struct Structured;

impl Engine for Structured {
    fn name(&self) -> &'static str {
        liquid_search::structured::ENGINE
    }
    fn about(&self) -> &'static str {
        "all-to-all traffics: orbits of host translations or shifts as timeframes, checked \
         frame by frame; the native search on what they leave or on any other traffic"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::NonLiquid, Verdict::Unknown]
    }
    fn in_crosscheck(&self) -> bool {
        // Its orbit check is the first step of `native`, which crosscheck runs, and the
        // rest is native's search.
        false
    }
    fn counts(&self) -> Counts {
        Counts::Nodes
    }
    fn takes_node_limit(&self) -> bool {
        true
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        Ok(liquid_search::structured::solve_with_progress(t, &r.limits, p).into())
    }
}
