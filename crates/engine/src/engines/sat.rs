//! `sat` and `sat-incremental`: liquidity and the optimal length with varisat, with LRAT
//! refutations on request.

use std::sync::atomic::AtomicU64;

use liquid_model::{Traffic, Verdict};
use liquid_sat::{SatError, SatOptions};

use crate::{Counts, Engine, EngineError, Request, Run};

/// The SAT engine.
pub struct Sat;

/// A SAT error as an engine error: too large to encode is the user's input (said up
/// front), a solver failure is ours.
pub fn sat_error(traffic: &Traffic, e: SatError) -> EngineError {
    match e {
        SatError::Encode(e) => EngineError::Input(format!("{}: {e}", traffic.name())),
        e => EngineError::Failed(e.to_string()),
    }
}

/// Either SAT engine on a request.
fn run_sat(t: &Traffic, r: &Request, p: &AtomicU64, incremental: bool) -> Result<Run, EngineError> {
    let opts = SatOptions {
        proofs: r.proofs,
        seed: r.seed,
        incremental,
        ..Default::default()
    };
    let run = liquid_sat::solve_with(t, &r.limits, &opts, p).map_err(|e| sat_error(t, e))?;
    Ok(Run {
        answer: run.answer,
        refutation: run.refutation,
    })
}

impl Engine for Sat {
    fn seeded(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        liquid_sat::ENGINE
    }
    fn about(&self) -> &'static str {
        "SAT (varisat): liquidity and the optimal length, with checked LRAT proofs on request"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        super::SETTLING
    }
    fn counts(&self) -> Counts {
        Counts::Transfers
    }
    fn proves(&self) -> bool {
        true
    }
    fn refutes_up_to(&self) -> usize {
        usize::MAX
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        run_sat(t, r, p, false)
    }
}

/// The incremental SAT engine: one varisat going down from one below the best schedule's
/// length, timeframes closed by unit clauses between runs, the proof captured in the
/// first (and last) unsatisfiable run.
pub struct SatIncremental;

impl Engine for SatIncremental {
    fn seeded(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        liquid_sat::ENGINE_INCREMENTAL
    }
    fn about(&self) -> &'static str {
        "SAT (varisat), one solver going down from the best schedule's length: clauses added \
         between runs, the proof from the run that refuted"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        // Going down, the bound stays Λ until the last run settles the optimum.
        &[Verdict::Liquid, Verdict::Optimal, Verdict::Unknown]
    }
    fn counts(&self) -> Counts {
        Counts::Transfers
    }
    fn proves(&self) -> bool {
        true
    }
    fn in_crosscheck(&self) -> bool {
        // The same encoding and solver as `sat`, which crosscheck runs: a disagreement
        // between the two would be one in the descent, which the conformance suite
        // covers against brute force.
        false
    }
    fn refutes_up_to(&self) -> usize {
        usize::MAX
    }
    fn run(&self, t: &Traffic, r: &Request, p: &AtomicU64) -> Result<Run, EngineError> {
        run_sat(t, r, p, true)
    }
}
