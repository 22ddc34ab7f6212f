//! Every engine, in the order listings and `crosscheck` show them.

use crate::engines;
use crate::Engine;

/// The registry. A new engine is one module under `engines/` and one line here.
pub static ENGINES: &[&dyn Engine] = &[
    &engines::native::Native,
    &engines::structured::Structured,
    &engines::dsatur::Dsatur,
    &engines::exact::Exact,
    &engines::sat::Sat,
    &engines::sat::SatIncremental,
    &engines::ilp::Ilp,
    &engines::portfolio::Portfolio,
    &engines::round_robin::RoundRobin,
    &engines::random::Random,
    #[cfg(feature = "test-engines")]
    &engines::broken::DropTransfer,
    #[cfg(feature = "test-engines")]
    &engines::broken::FalseNonLiquid,
];

/// The engine called `name`.
pub fn find(name: &str) -> Option<&'static dyn Engine> {
    ENGINES.iter().copied().find(|e| e.name() == name)
}

/// The engines a user sees (listings, `--help`).
pub fn visible() -> impl Iterator<Item = &'static dyn Engine> {
    ENGINES.iter().copied().filter(|e| !e.hidden())
}

/// The engines `crosscheck` runs when no list is given.
pub fn crosscheck_defaults() -> impl Iterator<Item = &'static dyn Engine> {
    ENGINES.iter().copied().filter(|e| e.in_crosscheck())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, e) in ENGINES.iter().enumerate() {
            assert!(
                ENGINES[..i].iter().all(|o| o.name() != e.name()),
                "{} twice",
                e.name()
            );
            assert_eq!(find(e.name()).map(|f| f.name()), Some(e.name()));
            assert!(!e.about().is_empty() && !e.verdicts().is_empty());
        }
        assert!(find("no-such-engine").is_none());
    }
}
