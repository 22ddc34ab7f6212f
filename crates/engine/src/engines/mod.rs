//! One module per engine: a unit struct implementing [`crate::Engine`] over the engine's
//! crate (`liquid-search`, `liquid-sat`, `liquid-ilp`; `closed-form` over
//! `liquid-topology`'s constructions), or, for the portfolio, over the other engines.

use std::sync::LazyLock;

use liquid_model::Verdict;

use crate::Engine;

/// Declares each engine module and registers its engines, one line per module, so that
/// the module list and the registry ([`ENGINES`]) cannot disagree.
macro_rules! register {
    ($($(#[$attr:meta])* $module:ident: $($engine:ident),+;)*) => {
        $($(#[$attr])* pub mod $module;)*

        /// Every engine, in the order listings and `crosscheck` show them.
        pub static ENGINES: LazyLock<Vec<&'static dyn Engine>> = LazyLock::new(|| {
            let mut engines: Vec<&'static dyn Engine> = Vec::new();
            $($(#[$attr])* engines.extend([$(&$module::$engine as &'static dyn Engine),+]);)*
            engines
        });
    };
}

// The registry: a new engine is one module under `engines/` and one line here.
register! {
    native: Native;
    structured: Structured;
    closed_form: ClosedForm;
    dsatur: Dsatur;
    repair: Repair;
    exact: Exact;
    sat: Sat, SatIncremental;
    ilp: Ilp;
    portfolio: Portfolio;
    round_robin: RoundRobin;
    random: Random;
    #[cfg(feature = "test-engines")]
    broken: DropTransfer, FalseNonLiquid;
}

mod search_proof;

/// The verdicts of an engine that settles the optimum when it finishes, and says what it
/// has when a limit stops it: `liquid`, `optimal`, `non-liquid`, `unknown`.
pub const SETTLING: &[Verdict] = &[
    Verdict::Liquid,
    Verdict::Optimal,
    Verdict::NonLiquid,
    Verdict::Unknown,
];
