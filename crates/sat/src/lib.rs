//! The SAT engine of liquid, on varisat 0.2.
//!
//! - [`encode`]: the CNF of "the traffic has a schedule of at most k timeframes", with a
//!   deterministic DIMACS writer ([`dimacs`]).
//! - [`solve`](mod@solve): liquidity (k = Λ) and the optimal length (k between Λ and
//!   DSatur's length); [`solve()`] is the engine entry point (`engine: sat`).
//! - [`prove`](mod@prove): an LRAT proof that k timeframes do not suffice, written with
//!   the CNF and a manifest into a proof directory.
//!
//! Schedules decoded from models must still be validated by the model crate
//! ([`liquid_model::check_outcome`]); proofs are checked by `liquid-certify`, which
//! shares no code with this crate or varisat.
#![forbid(unsafe_code)]

pub mod encode;
pub mod prove;
pub mod solve;

pub use encode::{
    dimacs, encode, AmoEncoding, EncodeError, EncodeOptions, Encoding, Family, ENCODING_VERSION,
    PAIRWISE_MAX,
};
pub use prove::{
    options_from_manifest, prove, traffic_sha256, write_proof_dir, Proof, ProofError, Proved,
    FORMULA_FILE, MANIFEST_FILE, PROOF_FILE,
};
pub use solve::{decide, solve, solve_with, Answer, SatError, SatOptions, ENGINE};
