//! The gate: runs an engine and checks its answer before anyone reports it.
//!
//! 0. The answer is under the engine's registered name, and its verdict is one of the
//!    engine's [`Engine::verdicts`].
//! 1. The outcome passes [`liquid_model::check_outcome`]: the schedule is validated by the
//!    model crate, the verdict agrees with the schedule's length and the bound, and the
//!    bound's evidence holds as far as it can be checked (a bottleneck's load, a clique's
//!    pairwise congestion).
//! 2. With proofs requested (`Request::proofs`, or a proof directory), a lower bound above
//!    Λ gets a refutation of one timeframe fewer: the engine's own, or else one from SAT
//!    within the time that remains. It becomes [`Evidence::CheckedProof`] only when
//!    `liquid-proof` accepted it (and, with a directory, after writing the directory and
//!    reading it back). A refutation that fails the check is a wrong answer; a SAT run
//!    that finds a schedule below the engine's bound shows the engine wrong.
//!
//! 3. A bound whose evidence already is a [`Evidence::CheckedProof`] must be bound to this
//!    traffic and this bound: its traffic digest is the traffic's and its k is one below
//!    the bound (step 1), and its formula's digest is that of a fresh encoding of the
//!    traffic with that k ([`liquid_proof::verify_binding`]). Only then is it passed
//!    without a new check: the checker accepted a proof of exactly that formula.
//!
//! A [`Checked`] can only be made here, so holding one means all of that passed.

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{
    check_outcome, validate, Evidence, LowerBound, Outcome, ScheduleReport, StatValue, Strength,
    Traffic, Verdict,
};
use liquid_sat::{Proved, Refutation, SatError};
use thiserror::Error;

use crate::{Engine, EngineError, Request};

/// An answer that passed the gate.
#[derive(Debug, Clone)]
pub struct Checked {
    engine: String,
    outcome: Outcome,
    report: Option<ScheduleReport>,
    stats: Vec<(String, StatValue)>,
    seconds: f64,
}

impl Checked {
    /// The engine that answered (the portfolio names itself, not its stages).
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// The outcome, with its evidence (upgraded to a checked proof where one was made).
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The outcome, taken out.
    pub fn into_outcome(self) -> Outcome {
        self.outcome
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        self.outcome.verdict()
    }

    /// The validated schedule's report, if there is a schedule.
    pub fn report(&self) -> Option<&ScheduleReport> {
        self.report.as_ref()
    }

    /// The schedule's length, if there is a schedule.
    pub fn length(&self) -> Option<usize> {
        self.report.map(|r| r.length)
    }

    /// The engine's statistics, then the gate's (`proof`).
    pub fn stats(&self) -> &[(String, StatValue)] {
        &self.stats
    }

    /// Wall time of the engine run and its checks, in seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// How strong the lower bound's evidence is.
    pub fn strength(&self, traffic: &Traffic) -> Strength {
        self.outcome.lower_bound(traffic).evidence.strength()
    }

    /// Whether what the verdict claims rests on checked evidence only: a validated
    /// schedule, and for a bound above Λ (optimal, non-liquid) a bottleneck, a clique or a
    /// checked proof. Feasible and unknown claim nothing beyond a valid schedule.
    pub fn certified(&self, traffic: &Traffic) -> bool {
        match self.outcome {
            Outcome::Optimal { .. } | Outcome::NonLiquid { .. } => {
                self.strength(traffic) == Strength::Checked
            }
            _ => true,
        }
    }
}

/// Why the gate has no answer to report.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolveError {
    /// The request does not fit the input or the engine (exit code 2).
    #[error("{0}")]
    Input(String),
    /// The engine failed to run (exit code 3).
    #[error("engine {engine} failed: {message}")]
    Failed {
        /// The engine.
        engine: String,
        /// What went wrong.
        message: String,
    },
    /// The engine answered, and its answer is wrong (exit code 3; a contradiction in
    /// `crosscheck`).
    #[error("engine {engine} returned a wrong answer: {reason}")]
    Wrong {
        /// The engine.
        engine: String,
        /// What the checks found.
        reason: String,
    },
}

/// Stack size of the thread an engine runs on. The searches recurse once per timeframe
/// and a million-transfer all-to-all has a thousand of them: the native search overflowed
/// the main thread's 8 MiB at 1024 hosts. The stack is reserved, not committed: pages are
/// used only as deep as the recursion goes.
pub const ENGINE_STACK: usize = 256 << 20;

/// Runs `f` on a thread of [`ENGINE_STACK`] bytes of stack (on this thread if none can be
/// started); a panic in `f` resumes here.
fn on_engine_stack<R: Send, F: FnOnce() -> R + Send>(f: F) -> R {
    let cell = std::sync::Mutex::new(Some(f));
    let take = || cell.lock().unwrap_or_else(|p| p.into_inner()).take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(ENGINE_STACK)
            .spawn_scoped(scope, || take().map(|f| f()));
        match spawned.map(|h| h.join()) {
            Ok(Ok(Some(r))) => r,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread: run here (the thread never took `f`).
            _ => take().map(|f| f()).expect("f runs exactly once"),
        }
    })
}

/// Runs `engine` on `traffic` (on a thread of [`ENGINE_STACK`] bytes of stack) and checks its
/// answer (see the module documentation). With
/// `proof_dir`, proofs are requested and the proof of a bound above Λ is written there,
/// read back and checked.
pub fn solve(
    traffic: &Traffic,
    engine: &dyn Engine,
    request: &Request,
    proof_dir: Option<&Path>,
    progress: &AtomicU64,
) -> Result<Checked, SolveError> {
    let name = engine.name();
    if request.decide && !engine.decides() {
        return Err(SolveError::Input(format!(
            "--decide is a mode of the ilp engine, not of {name}"
        )));
    }
    let mut request = *request;
    request.proofs |= proof_dir.is_some();
    let deadline = request.limits.deadline();
    // The clock starts on the engine's thread: starting a thread can wait for a core
    // for milliseconds on a loaded machine, which is not the engine's time.
    let (run, start) = on_engine_stack(|| {
        let start = Instant::now();
        (engine.run(traffic, &request, progress), start)
    });
    let run = run.map_err(|e| match e {
        EngineError::Input(m) => SolveError::Input(m),
        EngineError::Failed(message) => SolveError::Failed {
            engine: name.to_string(),
            message,
        },
    })?;
    let wrong = |reason: String| SolveError::Wrong {
        engine: name.to_string(),
        reason,
    };
    let mut answer = run.answer;
    if answer.engine != name {
        return Err(SolveError::Failed {
            engine: name.to_string(),
            message: format!("it answered under another name, {:?}", answer.engine),
        });
    }
    if !engine.verdicts().contains(&answer.verdict()) {
        return Err(wrong(format!(
            "verdict {} is not among the verdicts it declares ({})",
            answer.verdict(),
            engine
                .verdicts()
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let report = check_outcome(traffic, &answer.outcome).map_err(wrong)?;
    if let Evidence::CheckedProof(p) = &answer.outcome.lower_bound(traffic).evidence {
        liquid_proof::verify_binding(traffic, p).map_err(|why| {
            wrong(format!(
                "its checked proof is not a proof about this traffic and bound: {why}"
            ))
        })?;
    }
    if request.proofs {
        let note = certify(
            traffic,
            &mut answer.outcome,
            run.refutation,
            proof_dir,
            deadline,
        )
        .map_err(|e| match e {
            Certify::Wrong(reason) => wrong(reason),
            Certify::Failed(message) => SolveError::Failed {
                engine: name.to_string(),
                message,
            },
            Certify::Input(m) => SolveError::Input(m),
        })?;
        answer
            .stats
            .extend(note.map(|(k, v)| (k.to_string(), StatValue::Text(v))));
    }
    Ok(Checked {
        engine: name.to_string(),
        outcome: answer.outcome,
        report,
        stats: answer.stats,
        seconds: start.elapsed().as_secs_f64(),
    })
}

enum Certify {
    Wrong(String),
    Failed(String),
    Input(String),
}

/// Backs the outcome's bound above Λ with a checked proof if it can. The note (`None` when
/// there was nothing to prove) is `proof_by`: `engine`, `team-cover` or `sat`, who wrote the proof that
/// was checked; or `proof`: why no proof could be made.
fn certify(
    traffic: &Traffic,
    outcome: &mut Outcome,
    refutation: Option<Box<Refutation>>,
    dir: Option<&Path>,
    deadline: Option<Instant>,
) -> Result<Option<(&'static str, String)>, Certify> {
    let d = traffic.duration();
    let Some(bound) = outcome.bound_mut() else {
        return Ok(None);
    };
    if bound.value <= d || (dir.is_none() && bound.is_checked()) {
        return Ok(None);
    }
    let k = bound.value - 1;
    let (refutation, by) = match refutation.filter(|r| r.colours == k) {
        Some(r) => (r, "engine"),
        // At k = Λ the team-cover search first, varisat when it declines.
        None => match liquid_sat::prove_auto(traffic, k, deadline) {
            Ok(Some((Proved::Unsat(r), who))) => (
                r,
                if who == liquid_sat::TEAM_COVER {
                    "team-cover"
                } else {
                    "sat"
                },
            ),
            Ok(Some((Proved::Sat(s), _))) => {
                return Err(match validate(traffic, &s) {
                    Ok(r) => Certify::Wrong(format!(
                        "it claims that every schedule needs at least {} timeframes, but SAT \
                         found a valid schedule of {}",
                        bound.value, r.length
                    )),
                    Err(e) => {
                        Certify::Failed(format!("SAT's schedule of {k} timeframes is invalid: {e}"))
                    }
                })
            }
            Ok(None) => {
                return Ok(Some((
                    "proof",
                    "not produced: the time limit came first".to_string(),
                )))
            }
            Err(SatError::Encode(e)) => return Ok(Some(("proof", format!("not produced: {e}")))),
            Err(e) => return Err(Certify::Failed(e.to_string())),
        },
    };
    let checked = match dir {
        Some(dir) => liquid_proof::write_and_verify(dir, traffic, &refutation)
            .map_err(|e| Certify::Input(e.to_string()))?,
        None => liquid_proof::check_refutation(traffic, &refutation),
    };
    match checked {
        Ok(p) => {
            *bound = LowerBound {
                value: bound.value,
                evidence: Evidence::CheckedProof(p),
            };
            Ok(Some(("proof_by", by.to_string())))
        }
        Err(why) => Err(Certify::Wrong(format!(
            "its proof that {k} timeframes do not suffice was rejected: {why}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::examples::{no_team, odd_cycle};
    use liquid_model::CheckedProof;

    /// An engine that answers with a prepared outcome: how a wrong engine would present a
    /// proof checked for something else.
    struct Canned(Outcome);

    impl Engine for Canned {
        fn name(&self) -> &'static str {
            "canned"
        }
        fn about(&self) -> &'static str {
            "a prepared answer (tests)"
        }
        fn verdicts(&self) -> &'static [Verdict] {
            &[Verdict::NonLiquid]
        }
        fn run(&self, _: &Traffic, _: &Request, _: &AtomicU64) -> Result<crate::Run, EngineError> {
            Ok(liquid_model::Answer::new(self.name(), self.0.clone()).into())
        }
    }

    /// A proof, checked by `liquid-proof`, that `k` timeframes do not suffice for `t`.
    fn checked(t: &Traffic, k: usize) -> CheckedProof {
        let Some(Proved::Unsat(r)) =
            liquid_sat::prove(t, k, &liquid_sat::EncodeOptions::default(), None).expect("runs")
        else {
            panic!("{} has no schedule of {k} timeframes", t.name());
        };
        liquid_proof::check_refutation(t, &r).expect("the proof checks")
    }

    /// The gate's answer to "non-liquid: at least `value`, by `proof`", with and without
    /// proofs requested (without, a checked bound is not proven again).
    fn gate(t: &Traffic, value: usize, proof: CheckedProof) -> Vec<Result<Verdict, SolveError>> {
        let engine = Canned(Outcome::NonLiquid {
            bound: LowerBound {
                value,
                evidence: Evidence::CheckedProof(proof),
            },
            best: None,
        });
        [false, true]
            .into_iter()
            .map(|proofs| {
                let request = Request {
                    proofs,
                    ..Request::default()
                };
                solve(t, &engine, &request, None, &AtomicU64::new(0)).map(|c| c.verdict())
            })
            .collect()
    }

    fn assert_wrong(results: Vec<Result<Verdict, SolveError>>, why: &str) {
        for r in results {
            match r {
                Err(SolveError::Wrong { reason, .. }) => assert!(reason.contains(why), "{reason}"),
                other => panic!("expected a wrong answer ({why}), got {other:?}"),
            }
        }
    }

    #[test]
    fn a_verdict_the_engine_does_not_declare_is_refused() {
        // A correct "liquid" answer, from an engine that declares only "non-liquid".
        let t = Traffic::from_paths("t", &[("x", vec!["a"]), ("y", vec!["b"])]).expect("valid");
        let all = t.transfer_ids().collect();
        let engine = Canned(Outcome::Liquid {
            schedule: liquid_model::Schedule::new(vec![all]),
        });
        let r = solve(&t, &engine, &Request::default(), None, &AtomicU64::new(0));
        assert!(
            matches!(&r, Err(SolveError::Wrong { reason, .. }) if reason.contains("not among the verdicts it declares (non-liquid)")),
            "{r:?}"
        );
    }

    #[test]
    fn a_proof_bound_to_this_traffic_and_bound_passes() {
        let t = odd_cycle();
        for r in gate(&t, 3, checked(&t, 2)) {
            assert_eq!(r, Ok(Verdict::NonLiquid));
        }
    }

    #[test]
    fn a_proof_checked_for_another_traffic_is_rejected() {
        // no-team has no schedule of 2 timeframes, and neither has the odd cycle: the
        // claim would even be true, but this proof is not about the odd cycle.
        let t = odd_cycle();
        assert_wrong(gate(&t, 3, checked(&no_team(), 2)), "another traffic");
        // The same transfers under another name are another traffic's explicit form.
        let renamed = Traffic::from_paths(
            "renamed",
            &t.transfer_ids()
                .map(|x| {
                    let path = t.transfer(x).path.iter().map(|&l| t.link_name(l));
                    (t.transfer_name(x), path.collect::<Vec<_>>())
                })
                .collect::<Vec<_>>(),
        )
        .expect("valid");
        assert_wrong(gate(&t, 3, checked(&renamed, 2)), "another traffic");
    }

    #[test]
    fn a_proof_checked_for_another_k_is_rejected() {
        // A true proof that 1 timeframe does not suffice, offered for a bound of 3.
        let t = odd_cycle();
        assert_wrong(gate(&t, 3, checked(&t, 1)), "do not suffice, not 2");
    }

    #[test]
    fn a_refutation_whose_recorded_k_is_not_its_formulas_is_rejected() {
        // The checker records the k its caller names; a caller that names 2 for the
        // formula of 1 timeframe gets a proof that says 2. The gate re-encodes the
        // traffic with 2 timeframes and finds another formula.
        let t = odd_cycle();
        let Some(Proved::Unsat(r)) =
            liquid_sat::prove(&t, 1, &liquid_sat::EncodeOptions::default(), None).expect("runs")
        else {
            panic!("one timeframe cannot hold congesting transfers");
        };
        let subject = liquid_certify::Subject {
            traffic_sha256: t.sha256(),
            encoding: checked(&t, 2).encoding().to_string(),
            dir: None,
        };
        let lie =
            liquid_certify::check_proof(&r.cnf, 2, &r.cnf, &r.lrat, subject).expect("it refutes");
        assert_eq!(lie.colours(), 2);
        assert_wrong(gate(&t, 3, lie), "not the encoding of");
    }
}
