//! Refutations: the exact DIMACS CNF of "at most k timeframes" and a textual LRAT proof
//! that it is unsatisfiable, produced by varisat's `varisat-lrat` proof processor.
//!
//! This crate only produces them, in memory. Writing, reading and checking proof
//! directories is the job of `liquid-proof`, which checks every refutation with
//! `liquid-certify` (sharing no code with this crate or varisat) before anything calls it
//! a proof.

use std::time::Instant;

use liquid_model::{Schedule, Traffic};

use crate::encode::{encode, EncodeOptions, Encoding, Family};
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
