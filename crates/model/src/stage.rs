//! Which stage of a search runs, for the progress display.
//!
//! Every engine is given one progress counter (`&AtomicU64`) and adds what it counts
//! (search nodes, transfers coloured, repair steps) with `fetch_add`. The portfolio runs
//! several engines in turn on that counter, and SAT and the ILP colour with DSatur before
//! their solver; so that a display can say what runs (a count that stops moving otherwise
//! looks stuck while a solver works), the counter's top 8 bits hold the stage ([`enter`])
//! and its low 56 bits the stage's count ([`read`]). No engine counts near 2^56.

use std::sync::atomic::{AtomicU64, Ordering};

/// The bit where the stage starts.
const SHIFT: u32 = 56;

/// The stages of a search: the portfolio's, in the order it may run them, then
/// `explain`'s and the proofs'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Stage {
    /// A generated machine's closed form.
    ClosedForm = 1,
    /// The orbits of the traffic's symmetries.
    Structure,
    /// The repair search (counts steps).
    Repair,
    /// First fit in a seeded random order.
    FirstFit,
    /// DSatur (counts transfers coloured).
    Dsatur,
    /// The native search (counts nodes).
    Native,
    /// SAT (counts nothing).
    Sat,
    /// The exact colouring search, when SAT declines (counts nodes).
    Exact,
    /// HiGHS, the ILP's solver (counts nothing).
    Highs,
    /// `explain`'s search for a core: the subsets it asks whether they fit in Λ
    /// timeframes (counts questions).
    Core,
    /// A refutation's search (`prove`, `verify --proof`, `explain`'s core; counts nothing).
    Proof,
    /// The proof checker reading a refutation back (counts nothing).
    Check,
}

/// Per stage (index `stage - 1`), its name and what its count counts ("" for nothing).
const STAGES: [(&str, &str); 12] = [
    ("closed form", ""),
    ("structure", ""),
    ("repair search", "steps"),
    ("first fit", ""),
    ("DSatur", "transfers coloured"),
    ("native search", "nodes"),
    ("SAT", ""),
    ("exact search", "nodes"),
    ("HiGHS", ""),
    ("core search", "questions"),
    ("proof search", ""),
    ("proof check", ""),
];

/// Marks `progress` as counting `stage`, from 0.
pub fn enter(progress: &AtomicU64, stage: Stage) {
    progress.store((stage as u64) << SHIFT, Ordering::Relaxed);
}

/// What a progress counter holds: the stage's name and unit (none outside the
/// portfolio), and the count.
pub fn read(value: u64) -> (Option<(&'static str, &'static str)>, u64) {
    let stage = (value >> SHIFT) as usize;
    let named = stage.checked_sub(1).and_then(|i| STAGES.get(i)).copied();
    (named, value & ((1 << SHIFT) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_and_its_count_are_read_back() {
        let p = AtomicU64::new(0);
        p.fetch_add(7, Ordering::Relaxed);
        assert_eq!(read(p.load(Ordering::Relaxed)), (None, 7));
        enter(&p, Stage::Dsatur);
        p.fetch_add(12, Ordering::Relaxed);
        assert_eq!(
            read(p.load(Ordering::Relaxed)),
            (Some(("DSatur", "transfers coloured")), 12)
        );
        enter(&p, Stage::Exact);
        assert_eq!(
            read(p.load(Ordering::Relaxed)),
            (Some(("exact search", "nodes")), 0)
        );
        enter(&p, Stage::Check);
        assert_eq!(
            read(p.load(Ordering::Relaxed)),
            (Some(("proof check", "")), 0)
        );
    }
}
