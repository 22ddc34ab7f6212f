//! LRAT from RUP lemmas: turns a sequence of clauses, each a reverse-unit-propagation
//! (RUP) consequence of a CNF and the lemmas before it, into a textual LRAT proof by
//! finding, for every lemma, the unit-propagation chain that refutes its negation.
//!
//! This is how searches that are not SAT solvers write proofs (the colouring search's
//! refutation traces, `liquid_search::kcolour::refute`): the search only says which
//! decision sets fail; this module finds the hints a checker needs. It trusts nothing it
//! is given: a lemma that is not RUP is an error, not a proof step. The proof is still
//! checked by `liquid-certify` (which shares no code with this module) before anything
//! calls it a proof.
//!
//! # Method
//!
//! Two watched literals per clause. The consequences of the unit clauses (of the CNF,
//! and lemmas that became unit) stay assigned at level 0 with their reasons. For each
//! lemma: assign its literals false, propagate to a conflict, and walk the trail back
//! from the conflicting clause, collecting the reasons of the literals it depends on
//! (level-0 reasons included: an LRAT checker starts every step from an empty
//! assignment). The hints are those reasons in trail order, then the conflicting clause.
//! Lemmas are added with consecutive ids after the CNF's clauses; nothing is deleted.

use std::fmt::Write as _;

use thiserror::Error;

use crate::units::{Units, NO_REASON};

/// Why no LRAT proof was made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RupError {
    /// A lemma is not a RUP consequence of the clauses before it.
    #[error("lemma {index} ({clause:?}) is not implied by unit propagation")]
    NotRup {
        /// Its position among the lemmas (0-based).
        index: usize,
        /// Its literals.
        clause: Vec<i32>,
    },
    /// A literal is 0 or names a variable beyond the formula's.
    #[error("literal {0} is not a variable of the formula")]
    Literal(i32),
    /// The lemmas do not end with the empty clause.
    #[error("the lemmas do not derive the empty clause")]
    NoRefutation,
    /// The deadline passed before the proof was complete.
    #[error("the deadline passed while the hints were being found")]
    Deadline,
}

/// The clauses and the assignment at level 0 (every step starts from it), with the marks
/// of the walk back from a conflict.
struct Db {
    units: Units,
    /// Per variable: marked during the walk.
    seen: Vec<bool>,
    /// Per variable: in the lemma being proven (the checker assumes its negation, so it
    /// needs no reason even when level 0 implies it).
    assumed: Vec<bool>,
}

impl Db {
    fn value_of(&self, lit: i32) -> i8 {
        self.units.value(lit)
    }

    fn assign(&mut self, lit: i32, reason: u32) {
        self.units.assign(lit, reason, 0);
    }

    fn propagate(&mut self) -> Option<u32> {
        self.units.propagate(0)
    }

    /// The hints refuting the current assignment, whose clause `conflict` is false: the
    /// reasons the conflict depends on, in trail order, then `conflict` (ids are index + 1).
    fn hints(&mut self, conflict: u32) -> Vec<u64> {
        let assumed = &self.assumed;
        // An assumption (a lemma literal made false) needs no hint, even when level 0
        // implied it; neither does the literal the conflicting clause itself propagated
        // at level 0.
        self.units.walk(conflict, &mut self.seen, |lit, r, _| {
            !(r == NO_REASON || r == conflict || assumed[lit.unsigned_abs() as usize])
        })
    }
}

/// The LRAT text proving `lemmas` (the last one empty) from the CNF `clauses` over
/// `num_vars` variables: one line per lemma, ids from `clauses.len() + 1` on. As soon as
/// unit propagation alone refutes the clauses so far, the empty clause is written and the
/// remaining lemmas are dropped (so the proof can be shorter than the lemma list).
pub fn lrat(
    num_vars: usize,
    clauses: &[Vec<i32>],
    lemmas: &[Vec<i32>],
) -> Result<String, RupError> {
    lrat_until(num_vars, clauses, lemmas, None)
}

/// [`lrat`], stopped with [`RupError::Deadline`] once `deadline` passed (looked at every 256
/// lemmas).
pub fn lrat_until(
    num_vars: usize,
    clauses: &[Vec<i32>],
    lemmas: &[Vec<i32>],
    deadline: Option<std::time::Instant>,
) -> Result<String, RupError> {
    let mut db = Db {
        units: Units::new(num_vars),
        seen: vec![false; num_vars + 1],
        assumed: vec![false; num_vars + 1],
    };
    let check = |l: i32| {
        if l == 0 || l.unsigned_abs() as usize > num_vars {
            Err(RupError::Literal(l))
        } else {
            Ok(())
        }
    };
    let mut out = String::new();
    // Level 0: the CNF, its units propagated. Once unit propagation at level 0 finds a
    // conflict, the empty clause is a RUP step at once: it is written with that
    // conflict's hints and the remaining lemmas are not needed.
    let mut id = clauses.len() as u64;
    for c in clauses {
        for &l in c {
            check(l)?;
        }
        if c.is_empty() {
            // The formula contains the empty clause: nothing to prove.
            return Ok(out);
        }
        if refuted_at_level_zero(&mut db, c.clone(), &mut out, id + 1) {
            return Ok(out);
        }
    }
    for (index, lemma) in lemmas.iter().enumerate() {
        if index % 256 == 255 && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(RupError::Deadline);
        }
        for &l in lemma {
            check(l)?;
        }
        id += 1;
        let mark = db.units.trail.len();
        let mut conflict = None;
        for &l in lemma {
            match db.value_of(l) {
                // Already true at level 0: its reason conflicts with "l false".
                1 => {
                    conflict = Some(db.units.reason[l.unsigned_abs() as usize]);
                    break;
                }
                -1 => {}
                _ => db.assign(-l, NO_REASON),
            }
        }
        let conflict = match conflict {
            Some(k) => Some(k),
            None => db.propagate(),
        };
        let Some(k) = conflict else {
            db.units.undo(mark);
            return Err(RupError::NotRup {
                index,
                clause: lemma.clone(),
            });
        };
        for &l in lemma {
            db.assumed[l.unsigned_abs() as usize] = true;
        }
        let hints = db.hints(k);
        for &l in lemma {
            db.assumed[l.unsigned_abs() as usize] = false;
        }
        db.units.undo(mark);
        write_step(&mut out, id, lemma, &hints);
        if lemma.is_empty() {
            return Ok(out);
        }
        if refuted_at_level_zero(&mut db, lemma.clone(), &mut out, id + 1) {
            return Ok(out);
        }
    }
    Err(RupError::NoRefutation)
}

/// Adds `clause` at level 0; when unit propagation at level 0 then refutes the clauses,
/// writes the empty clause as step `id` with that conflict's hints and returns true.
fn refuted_at_level_zero(db: &mut Db, clause: Vec<i32>, out: &mut String, id: u64) -> bool {
    let i = db.units.add(clause);
    match settle(db, i) {
        Some(k) => {
            let hints = db.hints(k);
            write_step(out, id, &[], &hints);
            true
        }
        None => false,
    }
}

/// After adding clause `i` at level 0: propagates it if it is unit, and returns a
/// conflicting clause if level 0 is now contradictory.
fn settle(db: &mut Db, i: u32) -> Option<u32> {
    let c = &db.units.clauses[i as usize];
    let first = c[0];
    let second = c.get(1).copied();
    match (db.value_of(first), second.map(|l| db.value_of(l))) {
        // True, or two literals open: nothing to do.
        (1, _) | (0, Some(0)) => None,
        // Every literal false.
        (-1, _) => Some(i),
        // Unit: the first literal is open, the rest false.
        (0, _) => {
            db.assign(first, i);
            db.propagate()
        }
        _ => unreachable!("values are -1, 0 or 1"),
    }
}

/// Writes the LRAT step `id`: the lemma's literals, then its hints.
pub(crate) fn write_step(out: &mut String, id: u64, lemma: &[i32], hints: &[u64]) {
    let _ = write!(out, "{id}");
    for l in lemma {
        let _ = write!(out, " {l}");
    }
    out.push_str(" 0");
    for h in hints {
        let _ = write!(out, " {h}");
    }
    out.push_str(" 0\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    // (a ∨ b), (¬a ∨ b), (a ∨ ¬b), (¬a ∨ ¬b): unsatisfiable, 2 variables.
    fn square() -> Vec<Vec<i32>> {
        vec![vec![1, 2], vec![-1, 2], vec![1, -2], vec![-1, -2]]
    }

    #[test]
    fn rup_lemmas_get_hints_in_propagation_order() {
        let text = lrat(2, &square(), &[vec![1], vec![]]).expect("both lemmas are RUP");
        // (a): ¬a makes clause 1 unit (b), then clause 3 (a ∨ ¬b) is false.
        // (): with (a) as clause 5, a, then b by clause 2, then clause 4 is false.
        assert_eq!(text, "5 1 0 1 3 0\n6 0 5 2 4 0\n");
    }

    #[test]
    fn a_lemma_that_is_not_rup_is_refused() {
        // (a ∨ b) alone does not imply (a).
        let e = lrat(2, &[vec![1, 2]], &[vec![1], vec![]]).expect_err("not RUP");
        assert_eq!(
            e,
            RupError::NotRup {
                index: 0,
                clause: vec![1]
            }
        );
    }

    #[test]
    fn lemmas_must_end_in_the_empty_clause() {
        // (b) follows from (a ∨ b), (¬a ∨ b), which are satisfiable.
        assert_eq!(
            lrat(2, &[vec![1, 2], vec![-1, 2]], &[vec![2]]),
            Err(RupError::NoRefutation)
        );
    }

    #[test]
    fn a_level_zero_conflict_ends_the_proof_early() {
        // After (a), unit propagation alone refutes the square: the empty clause follows
        // at once and the lemma (b) that came next is not needed.
        let text = lrat(2, &square(), &[vec![1], vec![2], vec![]]).expect("RUP");
        assert_eq!(text, "5 1 0 1 3 0\n6 0 5 2 4 0\n");
    }

    #[test]
    fn literals_beyond_the_formula_are_refused() {
        assert_eq!(
            lrat(2, &square(), &[vec![3], vec![]]),
            Err(RupError::Literal(3))
        );
    }

    #[test]
    fn a_formula_refuted_by_units_alone_needs_only_the_empty_clause() {
        let text = lrat(1, &[vec![1], vec![-1]], &[vec![]]).expect("RUP");
        assert_eq!(text, "3 0 1 2 0\n");
    }
}
