//! `ilp`: the 0-1 program solved by HiGHS; `--decide` asks only whether a liquid schedule
//! exists.

use std::sync::atomic::AtomicU64;

use liquid_ilp::IlpError;
use liquid_model::{Traffic, Verdict};

use crate::{Counts, Engine, EngineError, Request, Run};

/// The ILP engine.
pub struct Ilp;

impl Engine for Ilp {
    fn name(&self) -> &'static str {
        liquid_ilp::ENGINE
    }
    fn about(&self) -> &'static str {
        "0-1 program solved by HiGHS (minimise the used timeframes): `optimal` only when the \
         MIP dual bound meets the schedule; `solve --decide` asks only whether a liquid schedule exists"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        super::SETTLING
    }
    fn counts(&self) -> Counts {
        Counts::Transfers
    }
    fn takes_node_limit(&self) -> bool {
        true
    }
    fn decides(&self) -> bool {
        true
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        let answer = if r.decide {
            liquid_ilp::decide_liquid(t, &r.limits)
        } else {
            liquid_ilp::solve(t, &r.limits, p)
        };
        answer.map(Run::from).map_err(|e| match e {
            // Too large to build: said up front, before memory runs out.
            e @ IlpError::TooLarge { .. } => EngineError::Input(format!("{}: {e}", t.name())),
            e => EngineError::Failed(e.to_string()),
        })
    }
}
