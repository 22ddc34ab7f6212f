//! The SAT engine of liquid, on varisat 0.2.
//!
//! - [`encode`]: the CNF of "the traffic has a schedule of at most k timeframes", with a
//!   deterministic DIMACS writer ([`dimacs`]).
//! - [`solver`]: one varisat run in the calling thread, stopped at a deadline, with an LRAT
//!   proof on request.
//! - [`incremental`]: one varisat across lengths, clauses added between runs, the LRAT
//!   proof of the last run renumbered to the formula's file order.
//! - [`prove`](mod@prove): refutations (CNF + LRAT) that k timeframes do not suffice, in
//!   memory.
//! - [`rup`]: LRAT proofs from RUP lemmas (the native search's refutation traces).
//! - [`frames`]: refutations of k = Λ timeframes by a search that fills one timeframe at
//!   a time and writes its own LRAT hints.
//! - [`teams`]: refutations of k = Λ timeframes by an exact cover of full teams, in
//!   extended resolution (one defined variable per full team).
//! - [`subsets`]: which subsets of a traffic fit in k timeframes, one varisat under
//!   selector assumptions (the cores of `liquid explain`).
//! - [`engine`]: liquidity (k = Λ) and the optimal length (`engine: sat`).
//!
//! Modules depend one way: `encode` ← `solver` ← `prove` ← `engine`, `solver` ← `incremental` ← `engine`, `rup` ← `prove`, `encode` ← `frames` ← `prove` and `frames` ← `teams` ← `prove`, `engine`. Schedules decoded
//! from models must still be validated by the model crate; refutations are checked by
//! `liquid-certify` (through `liquid-proof`), which shares no code with this crate or
//! varisat, before anything calls them proofs.
#![forbid(unsafe_code)]

pub mod encode;
pub mod engine;
pub mod frames;
pub mod incremental;
pub mod prove;
pub mod rup;
pub mod solver;
pub mod subsets;
pub mod teams;
mod units;

pub use encode::{
    check_size, dimacs, encode, encode_until, estimated_mib, AmoEncoding, EncodeError,
    EncodeOptions, Encoding, Family, BYTES_PER_LITERAL, ENCODING_VERSION, PAIRWISE_MAX,
    WIDE_PAIRWISE_MAX,
};
pub use engine::{decide, solve, solve_with, SatOptions, SatRun, ENGINE, ENGINE_INCREMENTAL};
pub use prove::{
    prove, prove_auto, prove_by_search, prove_encoding, Proved, Refutation, SearchProofError,
    SearchProved, TEAM_COVER,
};
pub use solver::{run, DeadlineSink, Formula, Run, SolverError};
pub use subsets::{Subset, Subsets};

/// Errors of the SAT engine.
#[derive(Debug, thiserror::Error)]
pub enum SatError {
    /// The traffic could not be encoded (for instance: too large, refused up front).
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// varisat failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
}
