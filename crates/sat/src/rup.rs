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

const NO_REASON: u32 = u32::MAX;

struct Db {
    /// Clause literals, by clause index (id − 1).
    clauses: Vec<Vec<i32>>,
    /// Per literal code: the clauses watching it.
    watches: Vec<Vec<u32>>,
    /// Per variable: 0 unassigned, 1 true, -1 false.
    value: Vec<i8>,
    /// Per variable: the clause that propagated it.
    reason: Vec<u32>,
    trail: Vec<u32>,
    /// Trail position up to which literals were propagated.
    head: usize,
    /// Per variable: marked during analysis.
    seen: Vec<bool>,
    /// Per variable: in the lemma being proven (the checker assumes its negation, so it
    /// needs no reason even when level 0 implies it).
    assumed: Vec<bool>,
}

fn code(lit: i32) -> usize {
    2 * (lit.unsigned_abs() as usize - 1) + usize::from(lit < 0)
}

impl Db {
    fn value_of(&self, lit: i32) -> i8 {
        let v = self.value[lit.unsigned_abs() as usize];
        if lit < 0 {
            -v
        } else {
            v
        }
    }

    fn assign(&mut self, lit: i32, reason: u32) {
        let v = lit.unsigned_abs() as usize;
        self.value[v] = if lit > 0 { 1 } else { -1 };
        self.reason[v] = reason;
        self.trail.push(v as u32);
    }

    fn undo(&mut self, mark: usize) {
        for v in self.trail.drain(mark..) {
            self.value[v as usize] = 0;
            self.reason[v as usize] = NO_REASON;
        }
        self.head = self.head.min(mark);
    }

    /// Adds a clause (no assignment change); returns its index. A clause with a literal
    /// true or two not false is watched there; otherwise the caller handles it (unit or
    /// conflict under the current assignment), and it is still watched on two literals.
    fn add(&mut self, clause: Vec<i32>) -> u32 {
        let i = self.clauses.len() as u32;
        let mut c = clause;
        // Move the two best literals (true, then unassigned, then false) to the front.
        let rank = |db: &Db, l: i32| match db.value_of(l) {
            1 => 0,
            0 => 1,
            _ => 2,
        };
        for w in 0..c.len().min(2) {
            let best = (w..c.len())
                .min_by_key(|&j| rank(self, c[j]))
                .expect("non-empty range");
            c.swap(w, best);
        }
        if c.len() >= 2 {
            self.watches[code(c[0])].push(i);
            self.watches[code(c[1])].push(i);
        }
        self.clauses.push(c);
        i
    }

    /// Propagates from `head`; the index of a conflicting clause, if any.
    fn propagate(&mut self) -> Option<u32> {
        while self.head < self.trail.len() {
            let v = self.trail[self.head] as i32;
            self.head += 1;
            let false_lit = if self.value[v as usize] > 0 { -v } else { v };
            let mut ws = std::mem::take(&mut self.watches[code(false_lit)]);
            let mut keep = 0;
            let mut conflict = None;
            let mut j = 0;
            while j < ws.len() {
                let ci = ws[j];
                j += 1;
                if conflict.is_some() {
                    ws[keep] = ci;
                    keep += 1;
                    continue;
                }
                let c = &mut self.clauses[ci as usize];
                if c[0] == false_lit {
                    c.swap(0, 1);
                }
                let other = c[0];
                let other_value = {
                    let x = self.value[other.unsigned_abs() as usize];
                    if other < 0 {
                        -x
                    } else {
                        x
                    }
                };
                if other_value == 1 {
                    ws[keep] = ci;
                    keep += 1;
                    continue;
                }
                // Look for a new literal to watch.
                let mut moved = false;
                for k in 2..c.len() {
                    let l = c[k];
                    let x = self.value[l.unsigned_abs() as usize];
                    let lv = if l < 0 { -x } else { x };
                    if lv != -1 {
                        c.swap(1, k);
                        let nl = c[1];
                        self.watches[code(nl)].push(ci);
                        moved = true;
                        break;
                    }
                }
                if moved {
                    continue;
                }
                ws[keep] = ci;
                keep += 1;
                if other_value == -1 {
                    conflict = Some(ci);
                } else {
                    self.assign(other, ci);
                }
            }
            ws.truncate(keep);
            // Watches pushed onto this literal's list during the loop cannot exist: a
            // clause never moves its watch to a false literal.
            self.watches[code(false_lit)] = ws;
            if conflict.is_some() {
                return conflict;
            }
        }
        None
    }

    /// The hints refuting the current assignment, whose clause `conflict` is false: the
    /// reasons the conflict depends on, in trail order, then `conflict` (ids are index + 1).
    fn hints(&mut self, conflict: u32) -> Vec<u64> {
        // Variables marked and not yet met on the walk back: it stops when none is left.
        let mut pending = 0usize;
        for &l in &self.clauses[conflict as usize] {
            let v = l.unsigned_abs() as usize;
            if !self.seen[v] {
                self.seen[v] = true;
                pending += 1;
            }
        }
        let mut used = Vec::new();
        for i in (0..self.trail.len()).rev() {
            if pending == 0 {
                break;
            }
            let v = self.trail[i] as usize;
            if !self.seen[v] {
                continue;
            }
            self.seen[v] = false;
            pending -= 1;
            let r = self.reason[v];
            // An assumption (a lemma literal made false) needs no hint, even when level 0
            // implied it; neither does the literal the conflicting clause itself
            // propagated at level 0.
            if r == NO_REASON || r == conflict || self.assumed[v] {
                continue;
            }
            used.push(u64::from(r) + 1);
            for &l in &self.clauses[r as usize] {
                let u = l.unsigned_abs() as usize;
                if u != v && !self.seen[u] {
                    self.seen[u] = true;
                    pending += 1;
                }
            }
        }
        used.reverse();
        used.push(u64::from(conflict) + 1);
        used
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
        clauses: Vec::with_capacity(clauses.len() + lemmas.len()),
        watches: vec![Vec::new(); 2 * num_vars],
        value: vec![0; num_vars + 1],
        reason: vec![NO_REASON; num_vars + 1],
        trail: Vec::new(),
        head: 0,
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
        let mark = db.trail.len();
        let mut conflict = None;
        for &l in lemma {
            match db.value_of(l) {
                // Already true at level 0: its reason conflicts with "l false".
                1 => {
                    conflict = Some(db.reason[l.unsigned_abs() as usize]);
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
            db.undo(mark);
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
        db.undo(mark);
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
    let i = db.add(clause);
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
    let c = &db.clauses[i as usize];
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

fn write_step(out: &mut String, id: u64, lemma: &[i32], hints: &[u64]) {
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
