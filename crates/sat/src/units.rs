//! Unit propagation with two watched literals, the engine under the two proof writers
//! that find their own hints: [`crate::rup`] (hints for the lemmas of a search trace) and
//! [`crate::frames`] (the frame search). Every assignment keeps its reason (the clause
//! that propagated it, [`NO_REASON`] for a decision or an assumption) and its level, so
//! that a conflict can be walked back to the clauses it used: those are an LRAT step's
//! hints.

use std::fmt::Write as _;
use std::time::Instant;

/// Whether a search that has made `nodes` nodes must stop: past its `budget`, or past its
/// deadline, which is read on the first node and every 1,024 after.
pub(crate) fn out_of_budget(nodes: u64, budget: u64, deadline: Option<Instant>) -> bool {
    nodes > budget || (nodes % 1024 == 1 && deadline.is_some_and(|d| Instant::now() >= d))
}

/// The reason of a literal nothing propagated (a decision or an assumption).
pub(crate) const NO_REASON: u32 = u32::MAX;

/// A literal's index in the watch lists.
fn code(lit: i32) -> usize {
    2 * (lit.unsigned_abs() as usize - 1) + usize::from(lit < 0)
}

/// Clauses (by index: LRAT id − 1), their watches, and one partial assignment.
pub(crate) struct Units {
    /// Clause literals; the first two are the watched ones.
    pub(crate) clauses: Vec<Vec<i32>>,
    /// Per literal code: the clauses watching it, each with another literal of the clause
    /// that, when true, spares the visit (a blocker).
    watches: Vec<Vec<(u32, i32)>>,
    /// Per variable: 0 unassigned, 1 true, -1 false.
    value: Vec<i8>,
    /// Per variable: the clause that propagated it.
    pub(crate) reason: Vec<u32>,
    /// Per variable: the level it was assigned at.
    pub(crate) level: Vec<u32>,
    /// The true literals, in assignment order.
    pub(crate) trail: Vec<i32>,
    /// Trail position up to which literals were propagated.
    head: usize,
    /// Per clause: deleted (dropped from a watch list when met there).
    deleted: Vec<bool>,
    /// Trail length when each decision level (1, 2, ...) began: the searches that branch
    /// ([`crate::frames`], [`crate::teams`]) open levels; [`crate::rup`] uses level 0
    /// and trail marks only.
    limits: Vec<usize>,
}

impl Units {
    /// No clause, every one of `num_vars` variables unassigned.
    pub(crate) fn new(num_vars: usize) -> Units {
        Units {
            clauses: Vec::new(),
            watches: vec![Vec::new(); 2 * num_vars],
            value: vec![0; num_vars + 1],
            reason: vec![NO_REASON; num_vars + 1],
            level: vec![0; num_vars + 1],
            trail: Vec::new(),
            head: 0,
            deleted: Vec::new(),
            limits: Vec::new(),
        }
    }

    /// 1 true, -1 false, 0 unassigned.
    pub(crate) fn value(&self, lit: i32) -> i8 {
        let v = self.value[lit.unsigned_abs() as usize];
        if lit < 0 {
            -v
        } else {
            v
        }
    }

    /// Makes `lit` true at `level`, propagated by clause `reason`.
    pub(crate) fn assign(&mut self, lit: i32, reason: u32, level: u32) {
        let v = lit.unsigned_abs() as usize;
        self.value[v] = if lit > 0 { 1 } else { -1 };
        self.reason[v] = reason;
        self.level[v] = level;
        self.trail.push(lit);
    }

    /// Adds a clause, watched on its two best literals under the current assignment (true
    /// ones first, then open ones, then false ones by decreasing level); returns its
    /// index. What the clause implies now (unit, or false) is the caller's to handle.
    pub(crate) fn add(&mut self, mut clause: Vec<i32>) -> u32 {
        clause.sort_by_key(|&l| match self.value(l) {
            1 => (0, 0),
            0 => (1, 0),
            _ => (2, u32::MAX - self.level[l.unsigned_abs() as usize]),
        });
        let i = self.clauses.len() as u32;
        self.clauses.push(clause);
        self.deleted.push(false);
        self.watch(i);
        i
    }

    fn watch(&mut self, ci: u32) {
        let c = &self.clauses[ci as usize];
        if c.len() >= 2 {
            let (a, b) = (c[0], c[1]);
            self.watches[code(a)].push((ci, b));
            self.watches[code(b)].push((ci, a));
        }
    }

    /// Takes clause `ci` out of propagation (its literals stay readable as a reason).
    pub(crate) fn delete(&mut self, ci: u32) {
        self.deleted[ci as usize] = true;
    }

    /// Propagates from the last propagated trail position, assigning at `level`; the
    /// index of a false clause, if one is met.
    pub(crate) fn propagate(&mut self, level: u32) -> Option<u32> {
        while self.head < self.trail.len() {
            let false_lit = -self.trail[self.head];
            self.head += 1;
            let mut ws = std::mem::take(&mut self.watches[code(false_lit)]);
            let mut keep = 0;
            let mut conflict = None;
            let mut j = 0;
            while j < ws.len() {
                let (ci, blocker) = ws[j];
                j += 1;
                if conflict.is_some() || self.value(blocker) == 1 {
                    ws[keep] = (ci, blocker);
                    keep += 1;
                    continue;
                }
                if self.deleted[ci as usize] {
                    continue;
                }
                let c = &mut self.clauses[ci as usize];
                if c[0] == false_lit {
                    c.swap(0, 1);
                }
                let other = c[0];
                let x = self.value[other.unsigned_abs() as usize];
                let other_value = if other < 0 { -x } else { x };
                if other_value == 1 {
                    ws[keep] = (ci, other);
                    keep += 1;
                    continue;
                }
                // A new literal to watch: one not false. A clause never moves its watch
                // to a false literal, so nothing lands on this list during the loop.
                let mut moved = false;
                for m in 2..c.len() {
                    let l = c[m];
                    let x = self.value[l.unsigned_abs() as usize];
                    if (if l < 0 { -x } else { x }) != -1 {
                        c.swap(1, m);
                        self.watches[code(l)].push((ci, other));
                        moved = true;
                        break;
                    }
                }
                if moved {
                    continue;
                }
                ws[keep] = (ci, other);
                keep += 1;
                if other_value == -1 {
                    conflict = Some(ci);
                } else {
                    self.assign(other, ci, level);
                }
            }
            ws.truncate(keep);
            self.watches[code(false_lit)] = ws;
            if conflict.is_some() {
                return conflict;
            }
        }
        None
    }

    /// The walk back from the false clause `conflict`: the clauses the conflict depends
    /// on, as LRAT hints (ids, index + 1) in trail order, then `conflict`. Each literal it
    /// meets is passed to `expand` (the literal, its reason, its level): when that says
    /// yes, the literal's reason is a hint and its other literals are met in turn; when it
    /// says no, the literal stays as it is (an assumption of the step, or a literal of the
    /// lemma being learnt). `seen` (one flag per variable, all false) is left all false.
    pub(crate) fn walk(
        &self,
        conflict: u32,
        seen: &mut [bool],
        mut expand: impl FnMut(i32, u32, u32) -> bool,
    ) -> Vec<u64> {
        // Variables marked and not yet met: the walk stops when none is left.
        let mut pending = 0usize;
        for &l in &self.clauses[conflict as usize] {
            let v = l.unsigned_abs() as usize;
            if !seen[v] {
                seen[v] = true;
                pending += 1;
            }
        }
        let mut used = Vec::new();
        for &lit in self.trail.iter().rev() {
            if pending == 0 {
                break;
            }
            let v = lit.unsigned_abs() as usize;
            if !seen[v] {
                continue;
            }
            seen[v] = false;
            pending -= 1;
            let r = self.reason[v];
            if !expand(lit, r, self.level[v]) {
                continue;
            }
            used.push(u64::from(r) + 1);
            for &l in &self.clauses[r as usize] {
                let u = l.unsigned_abs() as usize;
                if u != v && !seen[u] {
                    seen[u] = true;
                    pending += 1;
                }
            }
        }
        used.reverse();
        used.push(u64::from(conflict) + 1);
        used
    }

    /// The current decision level: how many levels are open.
    pub(crate) fn level(&self) -> u32 {
        self.limits.len() as u32
    }

    /// Opens a decision level (its assignments follow).
    pub(crate) fn open_level(&mut self) {
        self.limits.push(self.trail.len());
    }

    /// Makes `lit` true at the current level, propagated by clause `reason`.
    pub(crate) fn assign_here(&mut self, lit: i32, reason: u32) {
        let level = self.level();
        self.assign(lit, reason, level);
    }

    /// [`Units::propagate`] at the current level.
    pub(crate) fn propagate_here(&mut self) -> Option<u32> {
        let level = self.level();
        self.propagate(level)
    }

    /// Closes the levels above `level`, unassigning what they assigned.
    pub(crate) fn backtrack(&mut self, level: u32) {
        let level = level as usize;
        if level < self.limits.len() {
            self.undo(self.limits[level]);
            self.limits.truncate(level);
        }
    }

    /// What clause `ci` implies under the current assignment: `Some(ci)` when it is false
    /// (a conflict); when it is unit, its open literal is assigned at the current level and
    /// propagated (`Some` false clause if that meets one); `None` otherwise.
    pub(crate) fn settle(&mut self, ci: u32) -> Option<u32> {
        let mut open = None;
        let mut opens = 0;
        for &l in &self.clauses[ci as usize] {
            match self.value(l) {
                1 => return None,
                0 => {
                    opens += 1;
                    open = Some(l);
                }
                _ => {}
            }
        }
        match (opens, open) {
            (0, _) => Some(ci),
            (1, Some(l)) => {
                self.assign_here(l, ci);
                self.propagate_here()
            }
            _ => None,
        }
    }

    /// Takes the clauses `cis` out of propagation and writes their LRAT deletion line to
    /// `out`, led by `last`, the id of the last step written (as varisat's proofs do).
    pub(crate) fn delete_in_proof(&mut self, cis: Vec<u32>, last: u64, out: &mut String) {
        if cis.is_empty() {
            return;
        }
        let _ = write!(out, "{last} d");
        for ci in cis {
            self.delete(ci);
            let _ = write!(out, " {}", ci + 1);
        }
        out.push_str(" 0\n");
    }

    /// Unassigns the trail from position `mark` on.
    pub(crate) fn undo(&mut self, mark: usize) {
        for &l in &self.trail[mark..] {
            let v = l.unsigned_abs() as usize;
            self.value[v] = 0;
            self.reason[v] = NO_REASON;
        }
        self.trail.truncate(mark);
        self.head = self.head.min(mark);
    }
}
