//! Every engine, in the order listings and `crosscheck` show them: [`ENGINES`], declared
//! with the engine modules in `engines/mod.rs` (one line per module), and the look-ups.

use crate::Engine;

pub use crate::engines::ENGINES;

/// The engine called `name`.
pub fn find(name: &str) -> Option<&'static dyn Engine> {
    ENGINES.iter().copied().find(|e| e.name() == name)
}

/// The engines a user sees (listings, `--help`).
pub fn visible() -> impl Iterator<Item = &'static dyn Engine> {
    ENGINES.iter().copied().filter(|e| !e.hidden())
}

/// The engines `crosscheck` runs when no list is given: every visible engine that does
/// not declare itself out ([`Engine::in_crosscheck`]).
pub fn crosscheck_defaults() -> impl Iterator<Item = &'static dyn Engine> {
    visible().filter(|e| e.in_crosscheck())
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
