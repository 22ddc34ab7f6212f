//! The SAT engine: liquidity (k = Λ) and the optimal length (k from Λ up to DSatur's
//! length), with varisat on a worker thread so that a deadline can be kept.
//!
//! varisat 0.2 cannot be interrupted. Every call runs on its own thread; at the deadline
//! the driver stops waiting and answers with what it has. The abandoned thread runs on
//! until varisat returns (its result is dropped); in the CLI the process exits first.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use liquid_model::{Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, Verdict, Witness};
use thiserror::Error;
use varisat::{ExtendFormula, Lit, Solver};

use crate::encode::{encode, EncodeError, EncodeOptions, Encoding};
use crate::prove::{prove, write_proof_dir, ProofError, Proved};

/// The engine's name in outcomes.
pub const ENGINE: &str = "sat";

/// What a SAT call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A model (the true and false literals, DIMACS numbering).
    Sat(Vec<i32>),
    /// The formula is unsatisfiable.
    Unsat,
    /// The deadline passed first.
    Timeout,
}

/// Errors of the SAT engine.
#[derive(Debug, Error)]
pub enum SatError {
    /// The traffic could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// varisat failed (proof processing or I/O).
    #[error("varisat failed: {0}")]
    Solver(String),
    /// The worker thread panicked.
    #[error("the SAT worker thread died: {0}")]
    Worker(String),
    /// A proof could not be produced or written.
    #[error(transparent)]
    Proof(#[from] ProofError),
}

/// Runs `job` on a new thread and waits for it until `deadline`; `None` at the deadline.
pub(crate) fn on_worker<T: Send + 'static>(
    deadline: Option<Instant>,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<Option<T>, SatError> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("liquid-sat".to_string())
        .spawn(move || {
            let _ = tx.send(job());
        })
        .map_err(|e| SatError::Worker(e.to_string()))?;
    let received = match deadline {
        None => rx.recv().map_err(|_| ()),
        Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
            Ok(v) => Ok(v),
            Err(mpsc::RecvTimeoutError::Timeout) => return Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(()),
        },
    };
    received
        .map(Some)
        .map_err(|()| SatError::Worker("it ended without an answer (panic)".to_string()))
}

/// Solves a CNF (DIMACS literals) with a fresh varisat solver on a worker thread.
pub fn solve_cnf(clauses: Vec<Vec<i32>>, deadline: Option<Instant>) -> Result<Answer, SatError> {
    let job = move || -> Result<Answer, String> {
        let mut solver = Solver::new();
        let mut buf = Vec::new();
        for c in &clauses {
            buf.clear();
            buf.extend(c.iter().map(|&l| Lit::from_dimacs(l as isize)));
            solver.add_clause(&buf);
        }
        match solver.solve() {
            Ok(true) => Ok(Answer::Sat(
                solver
                    .model()
                    .unwrap_or_default()
                    .iter()
                    .map(|l| l.to_dimacs() as i32)
                    .collect(),
            )),
            Ok(false) => Ok(Answer::Unsat),
            Err(e) => Err(e.to_string()),
        }
    };
    match on_worker(deadline, job)? {
        None => Ok(Answer::Timeout),
        Some(r) => r.map_err(SatError::Solver),
    }
}

/// Decides whether `traffic` has a schedule of at most `k` timeframes; the schedule
/// (decoded from the model, not yet validated) when it has.
pub fn decide(
    traffic: &Traffic,
    k: usize,
    options: &EncodeOptions,
    deadline: Option<Instant>,
) -> Result<(Encoding, Option<Option<Schedule>>), SatError> {
    let e = encode(traffic, k, options)?;
    let answer = solve_cnf(e.clauses().to_vec(), deadline)?;
    let r = match answer {
        Answer::Sat(m) => Some(Some(e.decode(&m))),
        Answer::Unsat => Some(None),
        Answer::Timeout => None,
    };
    Ok((e, r))
}

/// Options of the SAT engine beyond the limits.
#[derive(Debug, Clone, Default)]
pub struct SatOptions {
    /// The encoding's options.
    pub encode: EncodeOptions,
    /// Where to write the proof of the final lower bound (non-liquid or optimal answers).
    pub prove_dir: Option<PathBuf>,
}

/// Runs the SAT engine with default options and no proof: `liquid`, `optimal`,
/// `non-liquid` (UNSAT at Λ, optimum not reached before the deadline), `feasible`
/// (DSatur's schedule, nothing proven) or `unknown` (no schedule: only if even the
/// encoding failed). The node limit is ignored: varisat counts no nodes.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Outcome {
    match solve_with(traffic, limits, &SatOptions::default()) {
        Ok(o) => o,
        Err(e) => Outcome {
            engine: ENGINE.to_string(),
            verdict: Verdict::Unknown,
            schedule: None,
            lower_bound: LowerBound::duration(traffic),
            stats: vec![("error".to_string(), StatValue::Text(e.to_string()))],
        },
    }
}

/// Runs the SAT engine (see [`solve`]); with `prove_dir`, the final lower bound above Λ
/// is backed by a proof written there ([`Witness::SatProof`]); without, it is the
/// solver's word ([`Witness::Unsat`]).
///
/// Search: k = Λ, Λ+1, … up to one less than DSatur's length, one fresh solver per k.
/// The first satisfiable k gives an optimal schedule; if every k is unsatisfiable,
/// DSatur's schedule is optimal.
pub fn solve_with(
    traffic: &Traffic,
    limits: &Limits,
    opts: &SatOptions,
) -> Result<Outcome, SatError> {
    let deadline = limits.deadline();
    let lam = traffic.duration();
    let greedy = liquid_search::dsatur::colour(traffic);
    let ub = greedy.colours as usize;
    let mut best = greedy.to_schedule();
    let mut lower_bound = LowerBound::duration(traffic);
    let mut calls = 0u64;
    let mut last_size = (0usize, 0usize);
    let mut stopped = false;
    // Always ask SAT about k = Λ, even when DSatur is already liquid: the engine then
    // answers on its own.
    for k in lam..ub.max(lam + 1) {
        let (e, r) = decide(traffic, k, &opts.encode, deadline)?;
        calls += 1;
        last_size = (e.num_vars(), e.num_clauses());
        match r {
            Some(Some(s)) => {
                best = s;
                break;
            }
            Some(None) => {
                lower_bound = LowerBound {
                    value: k + 1,
                    witness: Witness::Unsat {
                        engine: ENGINE.to_string(),
                    },
                };
            }
            None => {
                stopped = true;
                break;
            }
        }
    }
    let mut stats = vec![
        ("dsatur_colours".to_string(), StatValue::Count(ub as u64)),
        ("sat_calls".to_string(), StatValue::Count(calls)),
        (
            "last_variables".to_string(),
            StatValue::Count(last_size.0 as u64),
        ),
        (
            "last_clauses".to_string(),
            StatValue::Count(last_size.1 as u64),
        ),
    ];
    if stopped {
        stats.push((
            "stopped".to_string(),
            StatValue::Text("time limit".to_string()),
        ));
    }
    if let (Some(dir), true) = (&opts.prove_dir, lower_bound.value > lam) {
        let k = lower_bound.value - 1;
        match prove(traffic, k, &opts.encode, deadline)? {
            Some(Proved::Unsat(p)) => {
                write_proof_dir(Path::new(dir), &p)?;
                stats.push((
                    "proof_bytes".to_string(),
                    StatValue::Count(p.lrat.len() as u64),
                ));
                lower_bound.witness = Witness::SatProof {
                    dir: dir.display().to_string(),
                };
            }
            Some(Proved::Sat) => {
                return Err(SatError::Solver(format!(
                    "varisat found {k} timeframes unsatisfiable, then satisfiable in the proof run"
                )))
            }
            None => stats.push((
                "proof".to_string(),
                StatValue::Text("time limit before the proof was written".to_string()),
            )),
        }
    }
    let len = best.len();
    let verdict = if len == lower_bound.value {
        if len == lam {
            Verdict::Liquid
        } else {
            Verdict::Optimal
        }
    } else if lower_bound.value > lam {
        Verdict::NonLiquid
    } else {
        Verdict::Feasible
    };
    Ok(Outcome {
        engine: ENGINE.to_string(),
        verdict,
        schedule: Some(best.normalized()),
        lower_bound,
        stats,
    })
}
