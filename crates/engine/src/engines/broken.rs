//! Deliberately wrong engines, compiled only with the `test-engines` feature (which the
//! CLI's tests enable): they exist so that tests can show that the gate catches wrong
//! answers (`solve` exits 3) and `crosscheck` reports them as contradictions.

use std::sync::atomic::AtomicU64;

use liquid_model::{Answer, LowerBound, Outcome, Traffic, Verdict};

use crate::{Engine, EngineError, Request, Run};

/// DSatur's schedule with its first transfer dropped, presented as a valid answer.
pub struct DropTransfer;

/// Claims, without any search, that the traffic has no liquid schedule.
pub struct FalseNonLiquid;

impl Engine for DropTransfer {
    fn name(&self) -> &'static str {
        "test-drop-transfer"
    }
    fn about(&self) -> &'static str {
        "deliberately wrong (tests): DSatur's schedule minus one transfer"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::Liquid, Verdict::Feasible]
    }
    fn hidden(&self) -> bool {
        true
    }
    fn run(&self, t: &Traffic, _: &Request, _: &AtomicU64) -> Result<Run, EngineError> {
        let a = liquid_search::dsatur::solve(t);
        let mut s = a.outcome.into_schedule().unwrap_or_default();
        if let Some(frame) = s.frames.iter_mut().find(|f| !f.is_empty()) {
            frame.remove(0);
        }
        s.frames.retain(|f| !f.is_empty());
        let outcome = Outcome::settle(t, Some(s), LowerBound::duration(t), true);
        Ok(Answer::new(self.name(), outcome).into())
    }
}

impl Engine for FalseNonLiquid {
    fn name(&self) -> &'static str {
        "test-false-non-liquid"
    }
    fn about(&self) -> &'static str {
        "deliberately wrong (tests): claims no liquid schedule exists"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        &[Verdict::NonLiquid]
    }
    fn hidden(&self) -> bool {
        true
    }
    fn run(&self, t: &Traffic, _: &Request, _: &AtomicU64) -> Result<Run, EngineError> {
        let outcome = Outcome::NonLiquid {
            bound: LowerBound::exhaustive(t.duration() + 1, self.name(), 0),
            best: None,
        };
        Ok(Answer::new(self.name(), outcome).into())
    }
}
