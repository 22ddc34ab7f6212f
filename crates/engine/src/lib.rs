//! The engine layer of liquid: every engine behind one trait, and the gate every answer
//! passes before anyone reports it.
//!
//! Data flows one way: model → analysis → engines → outcome with evidence → checked report.
//!
//! - [`Engine`]: a name, what it can answer, and `run(traffic, request, progress)`.
//! - [`registry`]: every engine; adding one is a module under `engines/` and one line in
//!   the `register!` list of `engines/mod.rs`, which declares the module and registers
//!   its engines in [`registry::ENGINES`] (`crosscheck`, the conformance suite and the
//!   benchmarks then pick it up; `crosscheck` unless it declares itself out).
//! - [`gate`]: runs an engine and checks its answer: the schedule is validated by the
//!   model crate, the verdict against the schedule and the bound, what can be checked of
//!   the bound's evidence is checked, and a refutation becomes a
//!   [`liquid_model::CheckedProof`] only once `liquid-proof` (with `liquid-certify`)
//!   accepted it. With proofs requested, a bound above Λ that rests on an engine's or a
//!   solver's word is certified by a SAT refutation of one timeframe fewer.
//! - [`crosscheck`]: the rule that finds contradictions between checked answers.
//! - [`baseline`]: recorded answers (no timings) and the regression/improvement rule.
//! - [`explain`]: minimal non-liquid cores with checked certificates.
//! - [`optimality`]: settles whether a given schedule is optimal (`verify --proof`).
//! - [`report`]: the reports of `solve`, `verify` and `explain`.
#![forbid(unsafe_code)]

pub mod baseline;
pub mod crosscheck;
pub mod engines;
pub mod explain;
pub mod gate;
pub mod optimality;
pub mod registry;
pub mod report;
pub use liquid_model::stage;

use std::sync::atomic::AtomicU64;

use liquid_model::{Answer, Limits, Traffic, Verdict};
use liquid_sat::Refutation;
use thiserror::Error;

pub use crate::gate::{solve, Checked, SolveError};
pub use crate::registry::{find, visible, ENGINES};

/// The wall-clock limit of an engine run (`solve`, and the schedules `simulate` and the
/// exports compute) and of a SAT proof (`prove`, `verify --proof`) when none is given: a
/// run that reaches it answers `unknown` with what it has, so that no command runs for
/// hours by default (`crosscheck` and `explain` have their own, 60 s).
pub const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The engine `liquid solve` runs when none is named: the portfolio, which answers every
/// traffic with its best schedule (liquid or not) and, asked for proofs, a checked lower
/// bound. Measured against the native engine on the bundled, peer-benchmark and generated
/// models in `benchmarks/results/default-solve.md`.
pub const DEFAULT_ENGINE: &str = "portfolio";

/// What a caller asks of an engine run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Request {
    /// Time and node limits.
    pub limits: Limits,
    /// Seed for randomised engines.
    pub seed: u64,
    /// Decision mode (engines that offer it): only ask whether a liquid schedule exists.
    pub decide: bool,
    /// Produce refutations for lower bounds above Λ (engines that can).
    pub proofs: bool,
}

/// What an engine counts in the progress counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// Search nodes.
    Nodes,
    /// Transfers coloured.
    Transfers,
    /// Nothing (single passes, external solvers).
    Nothing,
}

/// What one engine run returns: the answer and, from engines that write proofs, the
/// refutation of `bound - 1` timeframes (unchecked: the gate checks it).
#[derive(Debug, Clone)]
pub struct Run {
    /// The engine's answer.
    pub answer: Answer,
    /// A refutation backing the answer's lower bound, if the engine produced one.
    pub refutation: Option<Box<Refutation>>,
}

impl From<Answer> for Run {
    fn from(answer: Answer) -> Run {
        Run {
            answer,
            refutation: None,
        }
    }
}

/// Why an engine did not answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EngineError {
    /// The input is outside what the engine accepts (too large to encode, not an
    /// all-to-all for round-robin, an option it does not have): the user's to change.
    #[error("{0}")]
    Input(String),
    /// The engine failed (a solver error): a bug or a solver failure, ours to fix.
    #[error("{0}")]
    Failed(String),
}

/// A scheduling engine.
pub trait Engine: Sync {
    /// Its name (`--engine NAME`, reports).
    fn name(&self) -> &'static str;
    /// One line on what it does.
    fn about(&self) -> &'static str;
    /// The verdicts it can give; the gate refuses an answer with any other. With no limit
    /// set, an engine that can say `optimal` settles the optimum, and one that can say
    /// `non-liquid` (but not `optimal`) settles liquidity: the conformance suite holds
    /// every engine to what its verdicts promise.
    fn verdicts(&self) -> &'static [Verdict];
    /// What it counts in the progress counter.
    fn counts(&self) -> Counts {
        Counts::Nothing
    }
    /// Whether it has a decision mode ([`Request::decide`]).
    fn decides(&self) -> bool {
        false
    }
    /// Whether its answer may depend on [`Request::seed`] (a random order, or a search
    /// started from one); the others give the same answer for every seed, which the
    /// conformance suite checks, and `solve --seed` with one of them is refused.
    fn seeded(&self) -> bool {
        false
    }
    /// Whether [`Limits::nodes`](liquid_model::Limits::nodes) bounds its work (search
    /// nodes, repair steps, HiGHS's branch-and-bound nodes); the others give the same
    /// answer whatever the node limit, which the conformance suite checks, and
    /// `--node-limit` with one of them is refused.
    fn takes_node_limit(&self) -> bool {
        false
    }
    /// Whether it produces refutations itself ([`Request::proofs`]); the gate certifies
    /// the others' bounds with SAT.
    fn proves(&self) -> bool {
        false
    }
    /// The largest k up to which, with proofs requested and a bound of k + 1 above Λ
    /// resting on its own word (not a clique), it always hands the gate its own
    /// refutation of k timeframes (0: no such promise). The conformance suite checks it.
    fn refutes_up_to(&self) -> usize {
        0
    }
    /// Whether it accepts every traffic; `false` for an engine that refuses some with
    /// [`EngineError::Input`] (round-robin takes all-to-alls only).
    fn accepts_every_traffic(&self) -> bool {
        true
    }
    /// Hidden from listings and default runs (the deliberately wrong test engines).
    fn hidden(&self) -> bool {
        false
    }
    /// Whether `crosscheck` runs it when no engine list is given: every visible engine
    /// does unless it declares itself out, saying why.
    fn in_crosscheck(&self) -> bool {
        true
    }
    /// Runs the engine. The answer is *not* checked here: see [`gate::solve`].
    fn run(
        &self,
        traffic: &Traffic,
        request: &Request,
        progress: &AtomicU64,
    ) -> Result<Run, EngineError>;
}
