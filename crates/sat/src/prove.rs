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

use crate::encode::{encode, EncodeOptions, Encoding, Family};
use crate::frames::{self, Framed, FramesError};
use crate::rup::{lrat_until, RupError};
use crate::solver::{run, Formula, Run, SolverError};
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
    let e = encode(traffic, k, options)?;
    Ok(prove_encoding(&e, deadline)?)
}

/// [`prove`] on an encoding already built.
pub fn prove_encoding(
    e: &Encoding,
    deadline: Option<Instant>,
) -> Result<Option<Proved>, SolverError> {
    let cnf = e.dimacs();
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
        /// The search that refuted: `frame search` ([`crate::frames`]) or `colouring
        /// search` ([`liquid_search::kcolour::refute`]).
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
    /// The frame search does not apply to the encoding: a bug in the caller.
    #[error(transparent)]
    Frames(#[from] FramesError),
}

/// Decisions the frame search ([`crate::frames`]) gets when k = Λ before the colouring
/// search takes over: queen9_9 takes 72,320 (0.6 s); queen10_10 takes 3.2 million (30 s,
/// with a 1 GB proof), beyond it.
pub const FRAME_NODES: u64 = 100_000;

/// Refutes "`traffic` has a schedule of at most `k` timeframes" with the native colouring
/// search ([`liquid_search::kcolour::refute`]) instead of a SAT solver: the search runs
/// with the CNF's symmetry units as fixed placements, and its lemmas become LRAT hints by
/// unit propagation on the CNF ([`crate::rup::lrat`]). When k = Λ, the frame search
/// ([`crate::frames`]), which fills one timeframe at a time and writes its own hints, runs
/// first within [`FRAME_NODES`] decisions. The CNF is the default encoding, the one
/// `liquid encode` prints. Or finds such a schedule.
pub fn prove_by_search(
    traffic: &Traffic,
    k: usize,
    deadline: Option<Instant>,
) -> Result<SearchProved, SearchProofError> {
    let e = encode(traffic, k, &EncodeOptions::default())?;
    // k = Λ: fill one timeframe at a time (full links first), with its own hints.
    if k == traffic.duration() {
        match frames::refute(traffic, &e, FRAME_NODES, deadline)? {
            Framed::Unsat {
                lrat,
                nodes,
                lemmas,
            } => {
                return Ok(SearchProved::Unsat {
                    refutation: Box::new(Refutation {
                        colours: k,
                        options: *e.options(),
                        families: e.families().to_vec(),
                        cnf: e.dimacs(),
                        lrat,
                    }),
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
                refutation: Box::new(Refutation {
                    colours: k,
                    options: *e.options(),
                    families: e.families().to_vec(),
                    cnf: e.dimacs(),
                    lrat: text,
                }),
                nodes,
                steps,
                search: "colouring search",
            }
        }
    })
}
