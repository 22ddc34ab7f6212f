//! The SAT engine: liquidity (k = Λ) and the optimal length (k from Λ up to the length of
//! a starting schedule), every varisat run in the calling thread and stopped at the
//! deadline (see [`crate::solver`]).

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use crate::encode::{check_size, encode, encode_until, EncodeOptions, Encoding};
use crate::incremental::descend;
use crate::prove::team_cover;
use crate::prove::{prove_encoding, Proved, Refutation};
use crate::solver::{run, Formula, Run};
use crate::teams::Covered;
use crate::SatError;
use liquid_model::{
    Answer, Evidence, Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId,
};

/// The engine's name in outcomes.
pub const ENGINE: &str = "sat";
/// The name of the engine with [`SatOptions::incremental`].
pub const ENGINE_INCREMENTAL: &str = "sat-incremental";

/// Decides whether `traffic` has a schedule of at most `k` timeframes: `None` at the
/// deadline, `Some(Some(schedule))` (decoded from the model, not yet validated) when it
/// has, `Some(None)` when it has not.
pub fn decide(
    traffic: &Traffic,
    k: usize,
    options: &EncodeOptions,
    deadline: Option<Instant>,
) -> Result<(Encoding, Option<Option<Schedule>>), SatError> {
    let e = encode(traffic, k, options)?;
    let r = match run(Formula::Clauses(e.clauses()), false, deadline)? {
        Run::Sat(m) => Some(Some(e.decode(&m))),
        Run::Unsat(_) => Some(None),
        Run::Timeout => None,
    };
    Ok((e, r))
}

/// What one run on an encoding answered.
enum Answered {
    /// A schedule (decoded, not yet validated).
    Sat(Schedule),
    /// Unsatisfiable, with the refutation when the LRAT writer was attached.
    Unsat(Option<Box<Refutation>>),
}

/// One run on an encoding, with the LRAT writer attached when `lrat`; `None` at the
/// deadline.
fn solve_encoding(
    e: &Encoding,
    lrat: bool,
    deadline: Option<Instant>,
) -> Result<Option<Answered>, SatError> {
    if lrat {
        return Ok(prove_encoding(e, deadline)?.map(|p| match p {
            Proved::Sat(s) => Answered::Sat(s),
            Proved::Unsat(r) => Answered::Unsat(Some(r)),
        }));
    }
    Ok(match run(Formula::Clauses(e.clauses()), false, deadline)? {
        Run::Sat(m) => Some(Answered::Sat(e.decode(&m))),
        Run::Unsat(_) => Some(Answered::Unsat(None)),
        Run::Timeout => None,
    })
}

/// k = Λ by the team-cover search ([`crate::teams`]) before varisat: `None` when it
/// declines or stops (varisat then runs), else its answer, with its refutation when
/// `proofs`, and a note for the statistics.
fn cover(
    traffic: &Traffic,
    e: &Encoding,
    proofs: bool,
    deadline: Option<Instant>,
) -> Option<(Answered, String)> {
    match team_cover(traffic, e, deadline) {
        Ok(Some(Covered::Unsat {
            lrat, teams, nodes, ..
        })) => Some((
            Answered::Unsat(proofs.then(|| Box::new(Refutation::of(e, lrat)))),
            if teams == 0 {
                format!("Λ refuted: the bottlenecks have no full team ({nodes} nodes)")
            } else {
                format!("Λ refuted: no exact cover by its {teams} full teams ({nodes} nodes)")
            },
        )),
        Ok(Some(Covered::Sat(s))) => Some((
            Answered::Sat(s),
            "Λ: an exact cover by full teams".to_string(),
        )),
        // Declined, stopped (varisat then meets the deadline at once), or a bug of the
        // search's own reasoning: varisat decides.
        _ => None,
    }
}

/// Options of the SAT engine beyond the limits.
#[derive(Debug, Clone)]
pub struct SatOptions {
    /// The encoding's options.
    pub encode: EncodeOptions,
    /// Produce an LRAT refutation of the final lower bound (when it is above Λ).
    pub proofs: bool,
    /// A valid schedule to start from (its length is the first upper bound); without one,
    /// DSatur's, computed within the time limit.
    pub start: Option<Schedule>,
    /// Shorten the starting schedule by tabu search ([`liquid_search::tabu`]) once SAT
    /// has refuted Λ timeframes, so that SAT has fewer lengths to decide (on by default).
    pub tabu: bool,
    /// The tabu search's seed.
    pub seed: u64,
    /// Decide k = Λ by the team-cover search ([`crate::teams`]) before varisat, in the
    /// engine without [`SatOptions::incremental`] (on by default; off measures varisat
    /// alone).
    pub team_cover: bool,
    /// One solver for every length, going down from one below the best schedule's
    /// length, clauses added between runs (`engine: sat-incremental`; see
    /// [`descend_lengths`]); off: a fresh solver per length, going up from Λ.
    pub incremental: bool,
}

impl Default for SatOptions {
    fn default() -> Self {
        SatOptions {
            encode: EncodeOptions::default(),
            proofs: false,
            start: None,
            tabu: true,
            seed: 0,
            team_cover: true,
            incremental: false,
        }
    }
}

/// What the engine returns: its answer and, when proofs were asked for and the lower
/// bound is above Λ, the refutation of one timeframe fewer (unchecked: the engine layer
/// checks it before it calls it a proof).
#[derive(Debug, Clone)]
pub struct SatRun {
    /// The answer.
    pub answer: Answer,
    /// The refutation of `bound - 1` timeframes.
    pub refutation: Option<Box<Refutation>>,
}

/// The engine with default options and no proof; a failure becomes `unknown` with the
/// error in the statistics.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Answer {
    match solve_with(traffic, limits, &SatOptions::default(), &AtomicU64::new(0)) {
        Ok(r) => r.answer,
        Err(e) => Answer::new(
            ENGINE,
            Outcome::Unknown {
                best: None,
                bound: LowerBound::duration(traffic),
            },
        )
        .stat("error", StatValue::Text(e.to_string())),
    }
}

/// What a loop over lengths leaves: the best schedule, the bound, its refutation and
/// the run counts.
struct Lengths {
    best: Schedule,
    bound: LowerBound,
    refutation: Option<Box<Refutation>>,
    calls: u64,
    resolves: u64,
    last_size: (usize, usize),
    stopped: bool,
    /// What the team-cover search said about k = Λ, when it answered instead of varisat.
    team_cover: Option<String>,
}

/// Runs the SAT engine: k = Λ (first by the team-cover search of [`crate::teams`], which
/// refutes or covers it with its own LRAT proof when the full teams are few, varisat
/// otherwise), Λ+1, … up to one less than the best schedule's length
/// (the starting one, shortened by tabu search once Λ is refuted, see
/// [`SatOptions::tabu`]), one fresh solver per k (with the LRAT writer when proofs are asked for, so the proof of
/// the last unsatisfiable k comes from the run that found it). The first satisfiable k
/// gives an optimal schedule; if every k is unsatisfiable, the starting schedule is
/// optimal. With [`SatOptions::incremental`], one solver goes down instead (see
/// [`descend_lengths`]). `liquid`, `optimal`, `non-liquid` (a bound above Λ, the optimum
/// not reached before the deadline) or `unknown` (stopped before anything was settled,
/// with the best schedule). The node limit does not apply: varisat counts no nodes.
/// Colours transfers of the starting DSatur run into `progress`.
pub fn solve_with(
    traffic: &Traffic,
    limits: &Limits,
    opts: &SatOptions,
    progress: &AtomicU64,
) -> Result<SatRun, SatError> {
    let deadline = limits.deadline();
    let lam = traffic.duration();
    let engine = if opts.incremental {
        ENGINE_INCREMENTAL
    } else {
        ENGINE
    };
    // Too large to encode even at k = Λ: said before any work, not after minutes of DSatur.
    check_size(traffic, lam, opts.encode.amo)?;
    let mut stats = Vec::new();
    let start = match &opts.start {
        Some(s) => Some(s.clone()),
        None => liquid_search::dsatur::colour_until(traffic, deadline, progress)
            .map(|c| c.to_schedule()),
    };
    stats.push((
        if opts.start.is_some() {
            "start_length"
        } else {
            "dsatur_colours"
        }
        .to_string(),
        StatValue::Count(start.as_ref().map_or(0, |s| s.len() as u64)),
    ));
    // DSatur's count stops here: the display names the solver.
    liquid_model::stage::enter(progress, liquid_model::stage::Stage::Sat);
    let Some(mut best) = start else {
        stats.push((
            "stopped".to_string(),
            StatValue::Text("time limit (before a starting schedule)".to_string()),
        ));
        let outcome = Outcome::Unknown {
            best: None,
            bound: LowerBound::duration(traffic),
        };
        return Ok(SatRun {
            answer: Answer {
                engine: engine.to_string(),
                outcome,
                stats,
            },
            refutation: None,
        });
    };
    // A heuristic first, down to Λ + 1 at best (SAT itself answers Λ): every length it
    // reaches is one SAT call fewer, and the satisfiable calls are the slow ones on hard
    // colouring cores (queen8_8: seconds for varisat, milliseconds for the tabu search).
    if opts.tabu && best.len() > lam + 1 {
        let t = liquid_search::tabu::shorten(traffic, &best, lam + 1, opts.seed, None, deadline);
        stats.push(("tabu_steps".to_string(), StatValue::Count(t.steps)));
        stats.push((
            "tabu_length".to_string(),
            StatValue::Count(t.schedule.len() as u64),
        ));
        best = t.schedule;
    }
    let l = if opts.incremental {
        descend_lengths(traffic, best, opts, deadline)?
    } else {
        ascend_lengths(traffic, best, opts, deadline)?
    };
    if let Some(note) = &l.team_cover {
        stats.push(("team_cover".to_string(), StatValue::Text(note.clone())));
    }
    stats.push(("sat_calls".to_string(), StatValue::Count(l.calls)));
    if l.resolves > 0 {
        stats.push(("proof_runs".to_string(), StatValue::Count(l.resolves)));
    }
    stats.push((
        "last_variables".to_string(),
        StatValue::Count(l.last_size.0 as u64),
    ));
    stats.push((
        "last_clauses".to_string(),
        StatValue::Count(l.last_size.1 as u64),
    ));
    if let Some(r) = &l.refutation {
        stats.push((
            "proof_bytes".to_string(),
            StatValue::Count(r.lrat.len() as u64),
        ));
    }
    if l.stopped {
        stats.push((
            "stopped".to_string(),
            StatValue::Text("time limit".to_string()),
        ));
    }
    let outcome = Outcome::settle(traffic, Some(l.best.normalized()), l.bound, !l.stopped);
    Ok(SatRun {
        answer: Answer {
            engine: engine.to_string(),
            outcome,
            stats,
        },
        refutation: l.refutation,
    })
}

/// k = Λ, Λ + 1, … below the best schedule's length, a fresh varisat per k (the engine
/// without [`SatOptions::incremental`]).
fn ascend_lengths(
    traffic: &Traffic,
    mut best: Schedule,
    opts: &SatOptions,
    deadline: Option<Instant>,
) -> Result<Lengths, SatError> {
    let lam = traffic.duration();
    let mut bound = LowerBound::duration(traffic);
    let mut refutation = None;
    let mut calls = 0u64;
    let mut resolves = 0u64;
    let mut last_size = (0usize, 0usize);
    let mut stopped = false;
    // Always ask SAT about k = Λ, even when the starting schedule is liquid: the engine
    // then answers on its own. The LRAT writer (which costs varisat 3 to 7 times its
    // solving time) is attached only to the run whose "unsatisfiable" would be the final
    // bound, k = best − 1; a satisfiable run below it leaves the bound one short of a
    // proof, which the run after the loop supplies.
    let mut k = lam;
    let mut team_cover = None;
    let past = || deadline.is_some_and(|d| Instant::now() >= d);
    while k < best.len().max(lam + 1) {
        // Encoding a large traffic takes a while: not past the deadline.
        if past() {
            stopped = true;
            break;
        }
        let Some(e) = encode_until(traffic, k, &opts.encode, deadline)? else {
            stopped = true;
            break;
        };
        last_size = (e.num_vars(), e.num_clauses());
        let lrat = opts.proofs && k + 1 == best.len();
        let covered = if k == lam && opts.team_cover {
            cover(traffic, &e, opts.proofs, deadline)
        } else {
            None
        };
        let answered = match covered {
            Some((a, note)) => {
                team_cover = Some(note);
                Some(a)
            }
            None => {
                calls += 1;
                solve_encoding(&e, lrat, deadline)?
            }
        };
        match answered {
            Some(Answered::Sat(s)) => {
                best = s;
                break;
            }
            Some(Answered::Unsat(r)) => {
                if r.is_some() {
                    refutation = r;
                }
                bound = solver_bound(ENGINE, k + 1);
            }
            None => {
                stopped = true;
                break;
            }
        }
        k += 1;
    }
    // The bound's refutation, when its run had no LRAT writer (at the deadline there is
    // none: the gate says so).
    if opts.proofs
        && !past()
        && bound.value > lam
        && refutation
            .as_ref()
            .is_none_or(|r| r.colours + 1 != bound.value)
    {
        resolves += 1;
        let e = encode_until(traffic, bound.value - 1, &opts.encode, deadline)?;
        match e
            .map(|e| solve_encoding(&e, true, deadline))
            .transpose()?
            .flatten()
        {
            Some(Answered::Unsat(r)) => refutation = r,
            // A schedule below the bound: varisat contradicted itself; the gate's checks
            // would catch the answer, but say it here.
            Some(Answered::Sat(_)) => {
                return Err(SatError::Solver(crate::SolverError::Solver(format!(
                    "varisat found {} timeframes unsatisfiable without a proof and satisfiable \
                     with one",
                    bound.value - 1
                ))))
            }
            None => {}
        }
    }
    Ok(Lengths {
        best,
        bound,
        refutation,
        calls,
        resolves,
        last_size,
        stopped,
        team_cover,
    })
}

/// The bound "at least `value` timeframes", on `engine`'s (varisat's) word.
fn solver_bound(engine: &str, value: usize) -> LowerBound {
    LowerBound {
        value,
        evidence: Evidence::SolverClaim {
            engine: engine.to_string(),
        },
    }
}

/// One varisat going down (the engine with [`SatOptions::incremental`]): the encoding of
/// K = max(best − 1, Λ) timeframes first; after each satisfiable run, the timeframes from
/// one less than the length of the schedule it found up to K are closed by unit clauses
/// added to the same solver (the `closed` family of
/// [`EncodeOptions::frames`]), keeping what it learned. The first unsatisfiable run
/// settles the optimum, and with proofs its LRAT proof is captured in that run (the
/// writer is attached from the start, also to the satisfiable runs): no second run. The
/// proof refutes `liquid encode MODEL --colours k --frames K`. Going down, the bound stays
/// Λ until that last run: at a deadline the answer has the best schedule found but no
/// bound above Λ (the ascending engine then has its bounds, and only the starting
/// schedule).
fn descend_lengths(
    traffic: &Traffic,
    mut best: Schedule,
    opts: &SatOptions,
    deadline: Option<Instant>,
) -> Result<Lengths, SatError> {
    let lam = traffic.duration();
    let top = (best.len().max(1) - 1).max(lam);
    let Some(e) = encode_until(traffic, top, &opts.encode, deadline)? else {
        // The deadline passed while the formula was built: the starting schedule.
        return Ok(Lengths {
            best,
            bound: LowerBound::duration(traffic),
            refutation: None,
            calls: 0,
            resolves: 0,
            last_size: (0, 0),
            stopped: true,
            team_cover: None,
        });
    };
    let n = traffic.len();
    // k: frames k.. are closed; the run asks "at most k timeframes?".
    let mut k = top;
    let mut calls = 1u64;
    // A starting schedule of Λ timeframes makes the first run satisfiable: no proof to
    // capture, and the LRAT writer would only slow it down.
    let lrat = opts.proofs && top < best.len();
    let last = descend(e.clauses(), lrat, deadline, |model| {
        let s = e.decode(model);
        let len = s.len();
        best = s;
        if len <= lam {
            return None;
        }
        let next = len - 1;
        let mut units = Vec::with_capacity(n * (k - next));
        for c in (next..k).rev() {
            units.extend((0..n).map(|t| vec![-e.var(TransferId(t as u32), c)]));
        }
        k = next;
        calls += 1;
        Some(units)
    })?;
    let last_size = (e.num_vars(), e.num_clauses() + n * (top - k));
    let mut l = Lengths {
        best,
        bound: LowerBound::duration(traffic),
        refutation: None,
        calls,
        resolves: 0,
        last_size,
        stopped: false,
        team_cover: None,
    };
    match last {
        Run::Sat(_) => {}
        Run::Timeout => l.stopped = true,
        Run::Unsat(lrat) => {
            l.bound = solver_bound(ENGINE_INCREMENTAL, k + 1);
            if let Some(lrat) = lrat {
                let options = EncodeOptions {
                    frames: (top > k).then_some(top),
                    ..opts.encode
                };
                let closed = encode(traffic, k, &options)?;
                l.refutation = Some(Box::new(Refutation {
                    colours: k,
                    options,
                    families: closed.families().to_vec(),
                    cnf: closed.dimacs(),
                    lrat,
                }));
            }
        }
    }
    Ok(l)
}
