//! One module per engine: a unit struct implementing [`crate::Engine`] over the engine's
//! crate (`liquid-search`, `liquid-sat`, `liquid-ilp`), or, for the portfolio, over the
//! other engines.

#[cfg(feature = "test-engines")]
pub mod broken;
pub mod dsatur;
pub mod exact;
pub mod ilp;
pub mod native;
pub mod portfolio;
pub mod random;
pub mod round_robin;
pub mod sat;
mod search_proof;
pub mod structured;

use liquid_model::Verdict;

/// The verdicts of an engine that settles the optimum when it finishes, and says what it
/// has when a limit stops it: `liquid`, `optimal`, `non-liquid`, `unknown`.
pub const SETTLING: &[Verdict] = &[
    Verdict::Liquid,
    Verdict::Optimal,
    Verdict::NonLiquid,
    Verdict::Unknown,
];
