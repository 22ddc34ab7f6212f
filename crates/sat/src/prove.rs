//! Refutations: the exact DIMACS CNF of "at most k timeframes" and a textual LRAT proof
//! that it is unsatisfiable, produced by varisat's `varisat-lrat` proof processor
//! ([`prove`]) or by the native colouring search's refutation trace turned into LRAT
//! ([`prove_by_search`], see [`crate::rup`]). Both refute the same CNF, byte for byte the
//! one `liquid encode --colours k` prints.
//!
//! This crate only produces them, in memory. Writing, reading and checking proof
//! directories is the job of `liquid-proof`, which checks every refutation with
//! `liquid-certify` (sharing no code with this crate or varisat) before anything calls it
//! a proof.

use std::time::Instant;

use liquid_model::{Schedule, Traffic};

use liquid_search::kcolour::{refute, Refuted};

use crate::encode::{encode_until, EncodeOptions, Encoding, Family};
use crate::frames::{self, Framed, FramesError};
use crate::rup::{lrat_until, RupError};
use crate::solver::{run, Formula, Run, SolverError};
use crate::teams::{self, Covered};
use crate::SatError;

/// A refutation: `cnf` (the encoding of the traffic with `colours` timeframes and
/// `options`, byte for byte) is unsatisfiable, by the LRAT proof `lrat`. Not yet checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refutation {
    /// k: the number of timeframes refuted.
    pub colours: usize,
    /// The encoding's options (needed to re-encode and compare).
    pub options: EncodeOptions,
    /// The clause families of the encoding, in file order.
    pub families: Vec<Family>,
    /// The DIMACS CNF.
    pub cnf: String,
    /// The textual LRAT proof.
    pub lrat: String,
}

impl Refutation {
    /// The refutation `lrat` of the encoding `e` (its k, options, families and DIMACS
    /// text).
    pub fn of(e: &Encoding, lrat: String) -> Refutation {
        Refutation {
            colours: e.colours(),
            options: *e.options(),
            families: e.families().to_vec(),
            cnf: e.dimacs(),
            lrat,
        }
    }
}

/// What a proof run found.
#[derive(Debug, Clone)]
pub enum Proved {
    /// Unsatisfiable: the refutation (unchecked).
    Unsat(Box<Refutation>),
    /// Satisfiable: a schedule of at most k timeframes (decoded, not yet validated).
    Sat(Schedule),
}

/// Refutes "`traffic` has a schedule of at most `k` timeframes", or finds such a schedule.
/// `None` when the deadline passed first.
pub fn prove(
    traffic: &Traffic,
    k: usize,
    options: &EncodeOptions,
    deadline: Option<Instant>,
) -> Result<Option<Proved>, SatError> {
    let Some(e) = encode_until(traffic, k, options, deadline)? else {
        return Ok(None);
    };
    Ok(prove_encoding(&e, deadline)?)
}

/// [`prove`] on an encoding already built.
pub fn prove_encoding(
    e: &Encoding,
    deadline: Option<Instant>,
) -> Result<Option<Proved>, SolverError> {
    // The DIMACS text takes a while on a large encoding: not past the deadline.
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(None);
    }
    let Some(cnf) = e.dimacs_until(deadline) else {
        return Ok(None);
    };
    Ok(match run(Formula::Dimacs(&cnf), true, deadline)? {
        Run::Timeout => None,
        Run::Sat(model) => Some(Proved::Sat(e.decode(&model))),
        Run::Unsat(lrat) => Some(Proved::Unsat(Box::new(Refutation {
            colours: e.colours(),
            options: *e.options(),
            families: e.families().to_vec(),
            cnf,
            lrat: lrat.unwrap_or_default(),
        }))),
    })
}

/// The team-cover search's name in reports (see [`crate::teams`]).
pub const TEAM_COVER: &str = "team-cover search";

/// [`prove`] with the default encoding, the team-cover search ([`crate::teams`], within
/// [`TEAM_NODES`] nodes) first when k = Λ, varisat when it declines or stops: what was
/// found and who found it ([`TEAM_COVER`] or `varisat`). `None` when the deadline passed
/// first.
pub fn prove_auto(
    traffic: &Traffic,
    k: usize,
    deadline: Option<Instant>,
) -> Result<Option<(Proved, &'static str)>, SatError> {
    let Some(e) = encode_until(traffic, k, &EncodeOptions::default(), deadline)? else {
        return Ok(None);
    };
    // A contradiction in the search's own reasoning (a bug its unit tests look for) leaves
    // the answer to varisat too.
    if let Ok(Some(found)) = team_cover(traffic, &e, deadline) {
        return Ok(match found {
            Covered::Unsat { lrat, .. } => Some((
                Proved::Unsat(Box::new(Refutation::of(&e, lrat))),
                TEAM_COVER,
            )),
            Covered::Sat(s) => Some((Proved::Sat(s), TEAM_COVER)),
            Covered::Stopped { .. } | Covered::Declined(_) => None,
        });
    }
    Ok(prove_encoding(&e, deadline)?.map(|p| (p, "varisat")))
}

/// The team-cover search ([`crate::teams`]) on the encoding `e` of `traffic` when k = Λ,
/// within [`TEAM_NODES`] nodes and half the time left: `Some` with its refutation or its
/// schedule, or `Stopped` once the whole deadline has passed; `None` when k ≠ Λ, or when
/// it declined or stopped on its own budget or share (the next prover decides).
pub(crate) fn team_cover(
    traffic: &Traffic,
    e: &Encoding,
    deadline: Option<Instant>,
) -> Result<Option<Covered>, FramesError> {
    if e.colours() != traffic.duration() {
        return Ok(None);
    }
    Ok(
        match teams::refute(traffic, e, TEAM_NODES, team_share(deadline))? {
            found @ (Covered::Unsat { .. } | Covered::Sat(_)) => Some(found),
            stopped @ Covered::Stopped { .. } if deadline.is_some_and(|d| Instant::now() >= d) => {
                Some(stopped)
            }
            Covered::Stopped { .. } | Covered::Declined(_) => None,
        },
    )
}

/// What [`prove_by_search`] found.
#[derive(Debug, Clone)]
pub enum SearchProved {
    /// Unsatisfiable: the refutation (unchecked), with the search's nodes and lemmas.
    Unsat {
        /// The CNF and its LRAT proof.
        refutation: Box<Refutation>,
        /// Search nodes.
        nodes: u64,
        /// LRAT steps written (at most the trace's lemmas: see [`crate::rup::lrat`]).
        steps: usize,
        /// The search that refuted: `team-cover search` ([`crate::teams`]), `frame
        /// search` ([`crate::frames`]) or `colouring search`
        /// ([`liquid_search::kcolour::refute`]).
        search: &'static str,
    },
    /// A schedule of at most k timeframes (decoded, not yet validated).
    Sat(Schedule),
    /// The deadline came first (in the search or while its hints were found).
    Stopped,
}

/// Why [`prove_by_search`] made no proof.
#[derive(Debug, thiserror::Error)]
pub enum SearchProofError {
    /// The traffic cannot be encoded.
    #[error(transparent)]
    Encode(#[from] crate::EncodeError),
    /// The colouring search does not apply (k beyond its range or below Λ).
    #[error(transparent)]
    Search(#[from] liquid_search::kcolour::RefuteError),
    /// The search's trace did not turn into an LRAT proof: a bug in the search.
    #[error("the colouring search's trace is not a RUP proof: {0}")]
    Trace(#[from] RupError),
    /// The colouring search's trace passed its memory cap before it was complete.
    #[error(
        "the colouring search's refutation trace passed its cap of {} placements (512 MiB) \
         before it was complete (SAT makes smaller proofs)",
        liquid_search::kcolour::MAX_TRACE_PLACEMENTS
    )]
    TraceTooLarge,
    /// The frame or team-cover search does not apply to the encoding (a bug in the
    /// caller), or reached a state its reasoning rules out (a bug in the search).
    #[error(transparent)]
    Frames(#[from] FramesError),
}

/// Decisions the frame search ([`crate::frames`]) gets when k = Λ before the colouring
/// search takes over: queen9_9 takes 72,320 (0.6 s); queen10_10 takes 3.2 million (30 s,
/// with a 1 GB proof), beyond it.
pub const FRAME_NODES: u64 = 100_000;

/// Nodes the team-cover search ([`crate::teams`]) gets when k = Λ before another prover
/// takes over (and at most half the time left): queen10_10 takes
/// 18,190 (544 teams), queen11_11's cover 55 ms.
pub const TEAM_NODES: u64 = 200_000;

/// The team-cover search's deadline: half the time left before `deadline`, so that the
/// prover after it keeps the other half.
pub(crate) fn team_share(deadline: Option<Instant>) -> Option<Instant> {
    deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / 2
    })
}

/// Refutes "`traffic` has a schedule of at most `k` timeframes" with the native colouring
/// search ([`liquid_search::kcolour::refute`]) instead of a SAT solver: the search runs
/// with the CNF's symmetry units as fixed placements, and its lemmas become LRAT hints by
/// unit propagation on the CNF ([`crate::rup::lrat`]). When k = Λ, two searches that
/// write their own hints run first: the team-cover search ([`crate::teams`]: an exact
/// cover of full teams, one defined variable per team, within [`TEAM_NODES`] nodes; it
/// declines when the teams are too many), then the frame search ([`crate::frames`]),
/// which fills one timeframe at a time, within [`FRAME_NODES`] decisions. The CNF is the default encoding, the one
/// `liquid encode` prints. Or finds such a schedule.
pub fn prove_by_search(
    traffic: &Traffic,
    k: usize,
    deadline: Option<Instant>,
) -> Result<SearchProved, SearchProofError> {
    let Some(e) = encode_until(traffic, k, &EncodeOptions::default(), deadline)? else {
        return Ok(SearchProved::Stopped);
    };
    // k = Λ: an exact cover of full teams, in extended resolution, then a search that
    // fills one timeframe at a time (full links first), both with their own hints.
    if k == traffic.duration() {
        match team_cover(traffic, &e, deadline)? {
            Some(Covered::Unsat {
                lrat, nodes, steps, ..
            }) => {
                return Ok(SearchProved::Unsat {
                    refutation: Box::new(Refutation::of(&e, lrat)),
                    nodes,
                    steps: steps as usize,
                    search: TEAM_COVER,
                })
            }
            Some(Covered::Sat(schedule)) => return Ok(SearchProved::Sat(schedule)),
            Some(Covered::Stopped { .. } | Covered::Declined(_)) => {
                return Ok(SearchProved::Stopped)
            }
            None => {}
        }
        match frames::refute(traffic, &e, FRAME_NODES, deadline)? {
            Framed::Unsat {
                lrat,
                nodes,
                lemmas,
            } => {
                return Ok(SearchProved::Unsat {
                    refutation: Box::new(Refutation::of(&e, lrat)),
                    nodes,
                    steps: lemmas as usize,
                    search: "frame search",
                })
            }
            Framed::Sat(schedule) => return Ok(SearchProved::Sat(schedule)),
            Framed::Stopped { .. } => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Ok(SearchProved::Stopped);
                }
            }
        }
    }
    let fixed: Vec<_> = e.fixed().into_iter().map(|(t, c)| (t, c as u32)).collect();
    let (found, nodes) = refute(traffic, k, &fixed, deadline)?;
    Ok(match found {
        Refuted::Open => SearchProved::Stopped,
        Refuted::TooLarge => return Err(SearchProofError::TraceTooLarge),
        Refuted::Coloured(col) => SearchProved::Sat(Schedule::from_timeframes(&col)),
        Refuted::Lemmas(lemmas) => {
            let clauses: Vec<Vec<i32>> = lemmas
                .iter()
                .map(|l| l.iter().map(|&(t, c)| -e.var(t, c as usize)).collect())
                .collect();
            let text = match lrat_until(e.num_vars(), e.clauses(), &clauses, deadline) {
                Err(RupError::Deadline) => return Ok(SearchProved::Stopped),
                r => r?,
            };
            let steps = text.lines().count();
            SearchProved::Unsat {
                refutation: Box::new(Refutation::of(&e, text)),
                nodes,
                steps,
                search: "colouring search",
            }
        }
    })
}
