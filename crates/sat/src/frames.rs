//! Refutations by filling one timeframe at a time: a search over the CNF of
//! [`crate::encode`] that branches like the full-team search of paper 003 (an *anchor*
//! transfer's timeframe, then the users of that timeframe's full links until every full
//! link has one) and writes its own LRAT proof.
//!
//! Every inference is unit propagation on the CNF and on the lemmas learnt so far, so
//! every lemma is a reverse-unit-propagation step whose hints the search knows already:
//! the reasons its conflict analysis walked through, in trail order, then the
//! conflicting clause. No separate pass finds hints ([`crate::rup`] does that for traces
//! that only list their lemmas).
//!
//! # Lemmas that act as a memo
//!
//! A failed node's lemma comes from analysing a conflict back through the implication
//! graph. The walk stops at the literals the search had when it chose the current anchor
//! (the node where the last timeframe was complete): those literals are kept as they are,
//! the ones assigned later are replaced by the decisions that implied them. The kept
//! literals are facts about the remaining transfers and the open timeframes ("transfer t
//! is not in closed timeframe c", "placed transfer p is not in open timeframe f"), not
//! about which transfers filled the closed timeframes. When another order of teams
//! leaves the same transfers for the same timeframes, unit propagation falsifies those
//! facts again and the lemma prunes the node at once: the memo of failures of the
//! full-team search, as clauses a checker can follow. To keep propagation cheap, an
//! anchor node's lemmas leave the watch lists once the node is done, and come back only
//! by an exact lookup of its set of transfers left; the lemmas of the nodes that fill a
//! timeframe are deleted (in the proof too) once the anchor branch above them failed.
//! Measured on queen10_10 (k = 10): 3.2 million decisions at about 9 µs each; with every
//! lemma kept watched, 0.49 million decisions but 1.3 ms each by the end.
//!
//! The search is a DPLL tree (chronological backtracking; a lemma that does not hold the
//! last decision ends its node at once, a backjump). It is complete: `Unsat` only after
//! the empty clause was derived. The proof is checked by `liquid-certify` (through
//! `liquid-proof`), which shares no code with this module, before anything calls it a
//! proof.

use std::time::Instant;

use liquid_model::{Schedule, Traffic, TransferId};

use crate::encode::Encoding;
use crate::rup::write_step;
use crate::units::{out_of_budget, Units, NO_REASON};

/// What [`refute`] found.
#[derive(Debug, Clone)]
pub enum Framed {
    /// The CNF is unsatisfiable: the LRAT proof of its refutation (unchecked).
    Unsat {
        /// LRAT text, lemma ids after the CNF's clauses.
        lrat: String,
        /// Search nodes (decisions).
        nodes: u64,
        /// Lemmas written, the empty clause included.
        lemmas: u64,
    },
    /// A schedule of at most k timeframes (decoded, not yet validated).
    Sat(Schedule),
    /// The deadline (looked at on the first decision and every 1,024 after) or the node
    /// budget came first.
    Stopped {
        /// Search nodes (decisions).
        nodes: u64,
    },
}

/// Why no search ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramesError {
    /// The encoding is not the default one of k timeframes (closed timeframes, no
    /// transfer at-most-one).
    #[error("the frame search needs the encoding of exactly k timeframes with every family")]
    Encoding,
    /// A clause of the encoding is not where the encoding's families put it.
    #[error("clause {0} of the encoding is not the one the frame search expects")]
    Layout(usize),
    /// A search found itself in a state its reasoning rules out: a bug.
    #[error("internal error in the {0}")]
    Internal(String),
}

/// The branching choice of a node.
enum Choice {
    /// A full link's team clause of the current timeframe (its clause index).
    Team(u32),
    /// An anchor: a transfer not yet placed (its at-least-one clause index), with the
    /// transfers left (the memo's key, [`Search::remaining`]).
    Anchor(u32, Vec<u64>),
}

struct Search {
    /// The CNF's clauses, then the lemmas, and the assignment.
    u: Units,
    /// Per variable: marked during conflict analysis.
    seen: Vec<bool>,
    /// Per level: the timeframe being filled after its decision.
    frame_at: Vec<Option<usize>>,
    /// Levels whose node branched on an anchor (increasing).
    anchors: Vec<u32>,
    /// Lemmas of one literal: facts that hold at every level (re-asserted after backtracking).
    singles: Vec<u32>,
    /// Lemmas learnt by team nodes, deleted once the anchor branch above them failed.
    inner: Vec<u32>,
    /// Per set of transfers left at a failed anchor node: its branches' lemmas.
    memo: std::collections::HashMap<Vec<u64>, Vec<u32>>,
    /// Per timeframe: the team clauses (indices).
    teams: Vec<Vec<u32>>,
    /// Per transfer: its at-least-one clause index is the transfer's index.
    transfers: usize,
    /// Per link: its users; per transfer: its links (both as indices).
    link_users: Vec<Vec<u32>>,
    paths: Vec<Vec<u32>>,
    k: usize,
    lrat: String,
    next_id: u64,
    nodes: u64,
    lemmas: u64,
    budget: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// The empty clause is written: every node above only passes the conflict up.
    refuted: bool,
}

/// How a subtree ended.
enum End {
    /// Every transfer placed: a schedule.
    Sat,
    /// The node failed: this clause is false under the current assignment.
    Conflict(u32),
    /// The deadline or the budget.
    Stopped,
}

impl Search {
    fn lit_value(&self, lit: i32) -> i8 {
        self.u.value(lit)
    }

    fn decision_level(&self) -> u32 {
        self.u.level()
    }

    fn assign(&mut self, lit: i32, reason: u32) {
        self.u.assign_here(lit, reason);
    }

    fn propagate(&mut self) -> Option<u32> {
        self.u.propagate_here()
    }

    fn backtrack(&mut self, level: u32) {
        if level >= self.u.level() {
            return;
        }
        self.u.backtrack(level);
        let level = level as usize;
        self.frame_at.truncate(level + 1);
        while self.anchors.last().is_some_and(|&a| a as usize > level) {
            self.anchors.pop();
        }
    }

    /// The level up to which a conflict at the current level keeps literals as they are:
    /// the last anchor node below it.
    fn cut(&self) -> u32 {
        let d = self.decision_level();
        self.anchors
            .iter()
            .rev()
            .copied()
            .find(|&a| a < d)
            .unwrap_or(0)
    }

    /// Analyses the false clause `conflict`, writes the lemma with its hints and returns
    /// its literals (not yet in the clause database).
    fn learn(&mut self, conflict: u32) -> Vec<i32> {
        let cut = self.cut();
        // Literals from below the cut stay (level 0 excepted: the checker starts from
        // nothing), decisions above it stay; the rest are replaced by their reasons.
        let mut lemma = Vec::new();
        let used = self.u.walk(conflict, &mut self.seen, |lit, r, level| {
            let expand = level == 0 || (level > cut && r != NO_REASON);
            if !expand {
                lemma.push(-lit);
            }
            expand
        });
        let id = self.next_id;
        self.next_id += 1;
        self.lemmas += 1;
        write_step(&mut self.lrat, id, &lemma, &used);
        self.refuted = lemma.is_empty();
        lemma
    }

    /// Adds a lemma (all literals false but at most one, at the current level) and
    /// propagates it: a conflict if it is false.
    fn add_lemma(&mut self, lemma: Vec<i32>) -> Option<u32> {
        let single = lemma.len() == 1;
        let ci = self.u.add(lemma);
        if single {
            self.singles.push(ci);
        }
        self.u.settle(ci)
    }

    /// Deletes the team nodes' lemmas learnt since `mark` (in the proof too).
    fn forget(&mut self, mark: usize) {
        if self.inner.len() > mark {
            let gone = self.inner.split_off(mark);
            self.u
                .delete_in_proof(gone, self.next_id - 1, &mut self.lrat);
        }
    }

    /// Re-asserts the one-literal lemmas after a backtrack.
    fn reassert(&mut self) -> Option<u32> {
        for i in 0..self.singles.len() {
            let ci = self.singles[i];
            let l = self.u.clauses[ci as usize][0];
            match self.lit_value(l) {
                0 => self.assign(l, ci),
                -1 => return Some(ci),
                _ => {}
            }
        }
        self.propagate()
    }

    fn choose(&self) -> Option<Choice> {
        let level = self.decision_level() as usize;
        if let Some(f) = self.frame_at[level] {
            let mut best: Option<(usize, u32)> = None;
            for &ci in &self.teams[f] {
                let c = &self.u.clauses[ci as usize];
                let mut open = 0;
                let mut satisfied = false;
                for &l in c {
                    match self.lit_value(l) {
                        1 => {
                            satisfied = true;
                            break;
                        }
                        0 => open += 1,
                        _ => {}
                    }
                }
                if !satisfied && best.is_none_or(|(b, _)| open < b) {
                    best = Some((open, ci));
                }
            }
            if let Some((_, ci)) = best {
                return Some(Choice::Team(ci));
            }
        }
        // The anchor: the transfer left on the most bottlenecks of the transfers left,
        // then on the most heavily loaded links (as in the full-team search).
        let left = self.remaining();
        let is_left = |t: usize| left[t / 64] & (1 << (t % 64)) != 0;
        let load: Vec<usize> = self
            .link_users
            .iter()
            .map(|u| u.iter().filter(|&&t| is_left(t as usize)).count())
            .collect();
        let top = load.iter().copied().max().unwrap_or(0);
        let mut best: Option<((usize, usize), u32)> = None;
        for t in (0..self.transfers).filter(|&t| is_left(t)) {
            let path = &self.paths[t];
            let bottlenecks = path.iter().filter(|&&l| load[l as usize] == top).count();
            let weight: usize = path.iter().map(|&l| load[l as usize]).sum();
            let key = (usize::MAX - bottlenecks, usize::MAX - weight);
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, t as u32));
            }
        }
        best.map(|(_, t)| Choice::Anchor(t, left))
    }

    /// Searches below the current node (propagated, no conflict).
    fn search(&mut self) -> End {
        loop {
            match self.branch() {
                End::Stopped if !self.stopped => {}
                end => return end,
            }
        }
    }

    /// The transfers not placed yet, as a bitset: the memo's key.
    fn remaining(&self) -> Vec<u64> {
        let mut key = vec![0u64; self.transfers.div_ceil(64)];
        for t in 0..self.transfers {
            if !self.u.clauses[t].iter().any(|&l| self.lit_value(l) == 1) {
                key[t / 64] |= 1 << (t % 64);
            }
        }
        key
    }

    /// Applies the remembered lemmas of the anchor branches that failed with the same
    /// transfers left: `Some(end)` when they end the node, `None` when the search goes on.
    fn recall(&mut self, key: &[u64]) -> Option<End> {
        let ids = self.memo.get(key)?.clone();
        let mut changed = false;
        for ci in ids {
            let mut open = None;
            let mut satisfied = false;
            let mut opens = 0;
            for &l in &self.u.clauses[ci as usize] {
                match self.lit_value(l) {
                    1 => satisfied = true,
                    0 => {
                        opens += 1;
                        open = Some(l);
                    }
                    _ => {}
                }
            }
            if satisfied || opens > 1 {
                continue;
            }
            match open {
                None => return Some(End::Conflict(ci)),
                Some(l) => {
                    self.assign(l, ci);
                    changed = true;
                }
            }
        }
        if !changed {
            return None;
        }
        Some(match self.propagate() {
            Some(c) => End::Conflict(c),
            // The node chooses again with the lemmas' consequences.
            None => End::Stopped,
        })
    }

    /// Branches on one clause of the current node: `Stopped` without `stopped` set when
    /// the node must choose again (lemmas satisfied the clause by propagation).
    fn branch(&mut self) -> End {
        let Some(choice) = self.choose() else {
            return End::Sat;
        };
        match choice {
            Choice::Team(ci) => self.try_each(ci, false).0,
            Choice::Anchor(ci, key) => {
                if let Some(end) = self.recall(&key) {
                    return end;
                }
                self.anchors.push(self.decision_level());
                let (end, lemmas) = self.try_each(ci, true);
                // The node failed, or chooses again (its lemmas placed the anchor): out of
                // the watch lists, the memo alone brings the lemmas back.
                let done = match end {
                    End::Conflict(_) => true,
                    End::Stopped => !self.stopped,
                    End::Sat => false,
                };
                if done && !lemmas.is_empty() {
                    for &l in &lemmas {
                        self.u.delete(l);
                    }
                    self.memo.entry(key).or_default().extend(lemmas);
                }
                end
            }
        }
    }

    /// Tries each literal of clause `ci` in turn; with the lemmas learnt on the way (of
    /// more than one literal) when `anchor`.
    fn try_each(&mut self, ci: u32, anchor: bool) -> (End, Vec<u32>) {
        let level = self.decision_level();
        let mut learnt = Vec::new();
        let candidates: Vec<i32> = self.u.clauses[ci as usize].clone();
        for lit in candidates {
            match self.lit_value(lit) {
                0 => {}
                1 => return (End::Stopped, learnt),
                _ => continue,
            }
            self.nodes += 1;
            if out_of_budget(self.nodes, self.budget, self.deadline) {
                self.stopped = true;
                return (End::Stopped, learnt);
            }
            let frame = if anchor {
                Some((lit.unsigned_abs() as usize - 1) % self.k)
            } else {
                self.frame_at[level as usize]
            };
            let mark = self.inner.len();
            self.u.open_level();
            self.frame_at.push(frame);
            self.assign(lit, NO_REASON);
            let end = match self.propagate() {
                Some(c) => End::Conflict(c),
                None => self.search(),
            };
            let conflict = match end {
                End::Conflict(c) if !self.refuted => c,
                other => return (other, learnt),
            };
            let lemma = self.learn(conflict);
            if self.refuted {
                return (End::Conflict(conflict), learnt);
            }
            self.backtrack(level);
            if anchor {
                self.forget(mark);
            }
            let id = self.u.clauses.len() as u32;
            if lemma.len() > 1 {
                if anchor {
                    learnt.push(id);
                } else {
                    self.inner.push(id);
                }
            }
            if let Some(c) = self.reassert() {
                // The lemma is written: it takes its id in the database all the same, or
                // every later hint would name the clause after the one it means.
                let single = lemma.len() == 1;
                let ci = self.u.add(lemma);
                if single {
                    self.singles.push(ci);
                }
                return (End::Conflict(c), learnt);
            }
            if let Some(c) = self.add_lemma(lemma) {
                return (End::Conflict(c), learnt);
            }
        }
        // Every literal of the clause is false now: propagation has found a conflict
        // (perhaps another clause), or the clause itself is one.
        (End::Conflict(ci), learnt)
    }
}

/// Refutes the encoding `e` of `traffic` (exactly k timeframes, every family), or finds a
/// schedule, within `budget` nodes and the deadline.
pub fn refute(
    traffic: &Traffic,
    e: &Encoding,
    budget: u64,
    deadline: Option<Instant>,
) -> Result<Framed, FramesError> {
    let o = e.options();
    if o.frames.is_some() || !o.transfer_amo || !o.team {
        return Err(FramesError::Encoding);
    }
    let k = e.colours();
    let n = traffic.len();
    let teams = team_clauses(traffic, e)?;
    let clauses = e.clauses().to_vec();
    let (link_users, paths) = indices(traffic);
    let num_vars = e.num_vars();
    let mut u = Units::new(num_vars);
    let cnf_clauses = clauses.len() as u64;
    for c in clauses {
        u.add(c);
    }
    let mut s = Search {
        u,
        seen: vec![false; num_vars + 1],
        frame_at: vec![None],
        anchors: Vec::new(),
        singles: Vec::new(),
        inner: Vec::new(),
        memo: std::collections::HashMap::new(),
        teams,
        transfers: n,
        link_users,
        paths,
        k,
        lrat: String::new(),
        next_id: cnf_clauses + 1,
        nodes: 0,
        lemmas: 0,
        budget,
        deadline,
        stopped: false,
        refuted: false,
    };
    // Level 0: the unit clauses, then propagation.
    let mut conflict = None;
    for ci in 0..s.u.clauses.len() {
        let c = &s.u.clauses[ci];
        match c.len() {
            0 => {
                conflict = Some(ci as u32);
                break;
            }
            1 => {
                let l = c[0];
                match s.lit_value(l) {
                    0 => s.assign(l, ci as u32),
                    -1 => {
                        conflict = Some(ci as u32);
                        break;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let end = match conflict.or_else(|| s.propagate()) {
        Some(c) => End::Conflict(c),
        None => s.search(),
    };
    Ok(match end {
        End::Sat => {
            let mut frames = vec![0u32; n];
            for (t, slot) in frames.iter_mut().enumerate() {
                *slot = (0..k)
                    .find(|&c| s.lit_value(e.var(TransferId(t as u32), c)) == 1)
                    .unwrap_or(0) as u32;
            }
            Framed::Sat(Schedule::from_timeframes(&frames))
        }
        End::Stopped => Framed::Stopped { nodes: s.nodes },
        End::Conflict(c) => {
            if !s.refuted {
                let lemma = s.learn(c);
                debug_assert!(
                    lemma.is_empty(),
                    "a conflict at level 0 gives the empty clause"
                );
            }
            Framed::Unsat {
                lrat: s.lrat,
                nodes: s.nodes,
                lemmas: s.lemmas,
            }
        }
    })
}

/// Per link, its users, and per transfer, its links, as indices.
pub(crate) fn indices(traffic: &Traffic) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let users = traffic
        .link_ids()
        .map(|l| traffic.users(l).iter().map(|u| u.index() as u32).collect())
        .collect();
    let paths = traffic
        .transfer_ids()
        .map(|t| {
            traffic
                .transfer(t)
                .path
                .iter()
                .map(|l| l.index() as u32)
                .collect()
        })
        .collect();
    (users, paths)
}

/// Per timeframe, the indices of the team clauses of the encoding `e` of `traffic`
/// (every link of load k, link by link), after checking that they, and the at-least-one
/// clauses (one per transfer, first), are where the encoding's families put them.
pub(crate) fn team_clauses(traffic: &Traffic, e: &Encoding) -> Result<Vec<Vec<u32>>, FramesError> {
    let k = e.colours();
    let clauses = e.clauses();
    // The team family's clauses: link by link, timeframe by timeframe.
    let mut start = 0;
    for f in e.families() {
        if f.name == "team" {
            break;
        }
        start += f.clauses;
    }
    let mut teams = vec![Vec::new(); k];
    let mut at = start;
    for l in traffic.link_ids() {
        let users = traffic.users(l);
        if users.len() != k {
            continue;
        }
        for (c, frame) in teams.iter_mut().enumerate() {
            let expected: Vec<i32> = users.iter().map(|&u| e.var(u, c)).collect();
            if clauses.get(at) != Some(&expected) {
                return Err(FramesError::Layout(at));
            }
            frame.push(at as u32);
            at += 1;
        }
    }
    for (t, c) in clauses.iter().enumerate().take(traffic.len()) {
        let expected: Vec<i32> = (0..k).map(|f| e.var(TransferId(t as u32), f)).collect();
        if *c != expected {
            return Err(FramesError::Layout(t));
        }
    }
    Ok(teams)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{encode, EncodeOptions};
    use liquid_model::examples::queens;

    #[test]
    fn queen7_7_fits_in_7_timeframes_and_queen8_8_does_not() {
        let t = queens(7);
        let e = encode(&t, 7, &EncodeOptions::default()).expect("encodes");
        let Framed::Sat(s) = refute(&t, &e, u64::MAX, None).expect("runs") else {
            panic!("queen7_7 is 7-colourable");
        };
        assert_eq!(liquid_model::validate(&t, &s).expect("valid").length, 7);

        let t = queens(8);
        let e = encode(&t, 8, &EncodeOptions::default()).expect("encodes");
        let Framed::Unsat { lrat, lemmas, .. } = refute(&t, &e, u64::MAX, None).expect("runs")
        else {
            panic!("queen8_8 needs 9 timeframes");
        };
        // One line per lemma, and only the last is the empty clause.
        let added: Vec<&str> = lrat.lines().filter(|l| !l.contains(" d ")).collect();
        assert_eq!(added.len() as u64, lemmas);
        let empty = |l: &str| l.split_whitespace().nth(1) == Some("0");
        assert_eq!(added.iter().filter(|l| empty(l)).count(), 1);
        assert!(added.last().is_some_and(|l| empty(l)));
    }

    #[test]
    fn a_node_budget_stops_the_search() {
        let t = queens(8);
        let e = encode(&t, 8, &EncodeOptions::default()).expect("encodes");
        let r = refute(&t, &e, 3, None).expect("runs");
        assert!(matches!(r, Framed::Stopped { nodes: 4 }), "{r:?}");
    }

    #[test]
    fn a_past_deadline_stops_the_search_at_its_first_decision() {
        let t = queens(8);
        let e = encode(&t, 8, &EncodeOptions::default()).expect("encodes");
        let r = refute(&t, &e, u64::MAX, Some(Instant::now())).expect("runs");
        assert!(matches!(r, Framed::Stopped { nodes: 1 }), "{r:?}");
    }

    #[test]
    fn encodings_without_every_family_are_refused() {
        let t = queens(6);
        for options in [
            EncodeOptions {
                team: false,
                ..EncodeOptions::default()
            },
            EncodeOptions {
                frames: Some(7),
                ..EncodeOptions::default()
            },
        ] {
            let e = encode(&t, 6, &options).expect("encodes");
            assert_eq!(
                refute(&t, &e, u64::MAX, None).expect_err("refused"),
                FramesError::Encoding
            );
        }
    }
}
