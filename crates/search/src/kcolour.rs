//! Whether a sub-traffic fits in `d` timeframes, by a complete depth-first search over
//! timeframe domains with propagation (used by [`crate::liquid`] on small Λ, where the
//! full-team search alone meets heavy tails on non-liquid random traffics).
//!
//! Every transfer of the set has a domain, the timeframes `0..d` still open to it (a
//! bitmask). The propagation, to a fixpoint after every decision, keeps every colouring
//! of `d` timeframes that extends the current assignment:
//! - *forward checking*: a transfer placed in timeframe c removes c from the domains of
//!   the transfers it congests with; an empty domain is a failure, a single value places
//!   the transfer;
//! - *full links*: a link with exactly `d` users in the set has one user in every
//!   timeframe of a schedule of `d` timeframes (they pairwise congest), so a timeframe that
//!   no user can take any more is a failure, and a timeframe that only one user can take
//!   places that user there.
//!
//! Symmetry: the timeframes are interchangeable, so the users of one full link are placed
//! in timeframes 0, 1, …, k−1 before any branching (any schedule can be renumbered to do
//! so). Branching: the unplaced transfer with the fewest open timeframes (ties: the most
//! congested, then the lowest position), each open timeframe in increasing order; from
//! 6 timeframes up (`LINK_BRANCHING_MIN_D`), a full link's timeframe that fewer unplaced
//! users can still take than that transfer has open timeframes is branched on instead,
//! each such user in that timeframe in turn (the link must hold one of them there).
//!
//! The search is exhaustive unless its node budget or deadline stops it: `Impossible` is
//! only returned after every branch failed. Memory is linear in the total path length
//! (congestion is read through the links' user lists, never an edge list).
//!
//! # Refutation traces ([`refute`])
//!
//! The search is a DPLL tree over the variables `x[t,c]` ("transfer t in timeframe c") of
//! the SAT encoding (`liquid_sat::encode`), and every inference of the propagation is a
//! unit propagation on that CNF: forward checking is the link at-most-one clauses (and
//! the transfer at-most-one once a transfer is placed), a single open timeframe is the
//! at-least-one clause, an empty domain falsifies it, and the full-link rules are the
//! `team` clauses of links whose load is exactly `d`. So when a node fails, the negation of
//! its decisions is a reverse-unit-propagation (RUP) consequence of the CNF and the lemmas
//! of the node's children: a failed placement is a conflict under unit propagation, and
//! after every open timeframe of the branching transfer failed, the children's lemmas make
//! its at-least-one clause false (after every open user of a branching link's timeframe
//! failed, they make that link's `team` clause for the timeframe false). [`refute`] records these lemmas in post-order; the last
//! is the empty clause. It runs the search on the whole traffic with the encoding's own
//! symmetry units as the fixed placements (the search's own choice of seed clique could
//! differ from the encoding's, and would not be RUP), and it has no pruning beyond the
//! propagation (no memo, twins or barren sets), so no step needs more than RUP.

use std::time::Instant;

use liquid_model::{Traffic, TransferId};

/// Largest `d` handled (domains are 32-bit masks).
pub(crate) const MAX_D: usize = 32;

const NONE: u32 = u32::MAX;

/// [`fits`] and [`refute`] branch on a full link's timeframe (besides a transfer's) from
/// this many timeframes up. Measured: on the queen graphs (8 timeframes and
/// more, every transfer on full links) it refutes queen8_8 in 568 nodes instead of
/// 14,276; on random traffics of Λ ≤ 4 (`liquid explain`'s questions on the peer
/// benchmark's random-1029-194) it leaves questions open that the transfer branching
/// alone settles.
const LINK_BRANCHING_MIN_D: usize = 6;

/// What [`fits`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fit {
    /// A timeframe (below `d`) for every transfer of the set, in the set's order.
    Coloured(Vec<u32>),
    /// Exhaustively: no schedule of `d` timeframes.
    Impossible,
    /// The budget or the deadline stopped the search.
    Open,
}

struct Cp {
    /// Per position in the set: its links shared with another transfer of the set
    /// (local link ids); per local link: the positions of its users, whether it is full
    /// (exactly `d` users), whether it waits in `links`, and its failure weight.
    lp: Vec<Vec<u32>>,
    lu: Vec<Vec<u32>>,
    full: Vec<bool>,
    queued: Vec<bool>,
    weight: Vec<u64>,
    dom: Vec<u32>,
    col: Vec<u32>,
    /// (position, previous domain, previous timeframe).
    trail: Vec<(u32, u32, u32)>,
    singles: Vec<u32>,
    links: Vec<u32>,
    d: usize,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// Whether a full link's timeframe may be the branching choice (see [`Cp::link_choice`]).
    link_branching: bool,
    /// With a trace: the decisions on the path to the current node and the lemmas so far.
    trace: Option<Tracer>,
}

/// The decisions of the current path and the lemmas recorded (see [`refute`]).
#[derive(Default)]
struct Tracer {
    path: Vec<(u32, u32)>,
    lemmas: Vec<Vec<(u32, u32)>>,
    /// Placements in all the lemmas, and the most they may hold.
    placements: usize,
    cap: usize,
}

impl Tracer {
    /// Records "not all of the path's decisions, and `last` if given".
    fn fail(&mut self, last: Option<(u32, u32)>) {
        let mut l = self.path.clone();
        l.extend(last);
        self.placements += l.len();
        self.lemmas.push(l);
    }

    fn full(&self) -> bool {
        self.placements > self.cap
    }
}

/// The most placements a refutation trace of [`refute`] holds in all its lemmas (8 bytes
/// each: 512 MiB, and the LRAT text made from them is larger still). Past it the search
/// stops with [`Refuted::TooLarge`]: queen10_10's trace passes it after about 10 s, on
/// its way to many gigabytes.
pub const MAX_TRACE_PLACEMENTS: usize = 1 << 26;

impl Cp {
    fn change(&mut self, v: usize, dom: u32, col: u32) {
        self.trail.push((v as u32, self.dom[v], self.col[v]));
        self.dom[v] = dom;
        self.col[v] = col;
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let (v, dom, col) = self.trail.pop().expect("non-empty trail");
            self.dom[v as usize] = dom;
            self.col[v as usize] = col;
        }
    }

    fn clear_queues(&mut self) {
        self.singles.clear();
        for &l in &self.links {
            self.queued[l as usize] = false;
        }
        self.links.clear();
    }

    /// Places `v` in timeframe `c` and propagates to a fixpoint; false on a failure.
    fn place(&mut self, v: usize, c: u32) -> bool {
        self.clear_queues();
        let ok = self.assign(v, c) && self.fixpoint();
        self.clear_queues();
        ok
    }

    fn push_links(&mut self, p: usize) {
        for i in 0..self.lp[p].len() {
            let m = self.lp[p][i] as usize;
            if self.full[m] && !self.queued[m] {
                self.queued[m] = true;
                self.links.push(m as u32);
            }
        }
    }

    fn assign(&mut self, v: usize, c: u32) -> bool {
        if self.dom[v] & (1 << c) == 0 {
            return false;
        }
        if self.col[v] == c {
            return true;
        }
        self.change(v, 1 << c, c);
        self.push_links(v);
        for i in 0..self.lp[v].len() {
            let l = self.lp[v][i] as usize;
            for j in 0..self.lu[l].len() {
                let p = self.lu[l][j] as usize;
                if p == v || self.dom[p] & (1 << c) == 0 {
                    continue;
                }
                let nd = self.dom[p] & !(1 << c);
                if nd == 0 {
                    self.weight[l] += 1;
                    return false;
                }
                let col = self.col[p];
                self.change(p, nd, col);
                if nd.is_power_of_two() {
                    self.singles.push(p as u32);
                }
                self.push_links(p);
            }
        }
        true
    }

    fn fixpoint(&mut self) -> bool {
        loop {
            if let Some(v) = self.singles.pop() {
                let v = v as usize;
                if self.col[v] == NONE {
                    let c = self.dom[v].trailing_zeros();
                    if !self.assign(v, c) {
                        return false;
                    }
                }
                continue;
            }
            let Some(l) = self.links.pop() else {
                return true;
            };
            let l = l as usize;
            self.queued[l] = false;
            for c in 0..self.d as u32 {
                let mut only = NONE;
                let mut count = 0;
                for &p in &self.lu[l] {
                    if self.dom[p as usize] & (1 << c) != 0 {
                        count += 1;
                        only = p;
                    }
                }
                if count == 0 {
                    self.weight[l] += 1;
                    return false;
                }
                if count == 1 && self.col[only as usize] == NONE && !self.assign(only as usize, c) {
                    return false;
                }
            }
        }
    }

    /// The failure weight of `v`'s links that still have another unplaced user.
    fn wdeg(&self, v: usize) -> u64 {
        let mut w = 1;
        for &l in &self.lp[v] {
            let l = l as usize;
            if self.lu[l]
                .iter()
                .any(|&p| p as usize != v && self.col[p as usize] == NONE)
            {
                w += self.weight[l];
            }
        }
        w
    }

    /// The full link and timeframe, not yet taken on that link, that the fewest unplaced
    /// users can still take, when fewer than `than` (ties: the lowest timeframe, then the
    /// lowest link).
    fn link_choice(&self, than: u32) -> Option<(usize, u32)> {
        if !self.link_branching {
            return None;
        }
        let mut best: Option<(u32, u32, usize)> = None;
        let mut counts = [0u32; MAX_D];
        for l in 0..self.lu.len() {
            if !self.full[l] {
                continue;
            }
            let mut taken = 0u32;
            counts[..self.d].fill(0);
            for &p in &self.lu[l] {
                let p = p as usize;
                if self.col[p] != NONE {
                    taken |= 1 << self.col[p];
                } else {
                    let mut m = self.dom[p];
                    while m != 0 {
                        counts[m.trailing_zeros() as usize] += 1;
                        m &= m - 1;
                    }
                }
            }
            for c in 0..self.d as u32 {
                if taken & (1 << c) != 0 {
                    continue;
                }
                let n = counts[c as usize];
                if n < than && best.is_none_or(|(bn, bc, _)| (n, c) < (bn, bc)) {
                    best = Some((n, c, l));
                }
            }
        }
        best.map(|(_, c, l)| (l, c))
    }

    fn go(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget
            || (self.nodes % 64 == 1 && self.deadline.is_some_and(|d| Instant::now() >= d))
            || self.trace.as_ref().is_some_and(Tracer::full)
        {
            self.stopped = true;
            return false;
        }
        // dom/wdeg: the fewest open timeframes per unit of failure weight (ties: lowest).
        let mut best: Option<(u64, u64, usize)> = None;
        for v in 0..self.dom.len() {
            if self.col[v] == NONE {
                let size = u64::from(self.dom[v].count_ones());
                let w = self.wdeg(v);
                if best.is_none_or(|(bs, bw, _)| size * bw < bs * w) {
                    best = Some((size, w, v));
                }
            }
        }
        let Some((size, _, v)) = best else {
            return true;
        };
        // A full link's timeframe that fewer users can still take than `v` has timeframes:
        // branch over those users instead (the link's team clause for that timeframe).
        let choices: Vec<(usize, u32)> = match self.link_choice(size as u32) {
            Some((l, c)) => self.lu[l]
                .iter()
                .filter(|&&p| self.col[p as usize] == NONE && self.dom[p as usize] & (1 << c) != 0)
                .map(|&p| (p as usize, c))
                .collect(),
            None => {
                let mut rest = self.dom[v];
                let mut out = Vec::with_capacity(rest.count_ones() as usize);
                while rest != 0 {
                    out.push((v, rest.trailing_zeros()));
                    rest &= rest - 1;
                }
                out
            }
        };
        for (v, c) in choices {
            let mark = self.trail.len();
            if self.place(v, c) {
                if let Some(t) = &mut self.trace {
                    t.path.push((v as u32, c));
                }
                let found = self.go();
                if let Some(t) = &mut self.trace {
                    t.path.pop();
                }
                if found {
                    return true;
                }
            } else if let Some(t) = &mut self.trace {
                t.fail(Some((v as u32, c)));
            }
            self.undo(mark);
            if self.stopped {
                return false;
            }
        }
        if let Some(t) = &mut self.trace {
            t.fail(None);
        }
        false
    }
}

impl Cp {
    /// The search state for `set` in `d` timeframes, nothing placed; `None` when a link has
    /// more than `d` users in the set (no schedule of `d` timeframes).
    fn new(
        traffic: &Traffic,
        set: &[usize],
        d: usize,
        budget: u64,
        deadline: Option<Instant>,
    ) -> Option<Cp> {
        assert!((1..=MAX_D).contains(&d), "d within 1..=MAX_D");
        let mut load = vec![0u32; traffic.num_links()];
        for &t in set {
            for l in &traffic.transfer(TransferId(t as u32)).path {
                load[l.index()] += 1;
            }
        }
        if load.iter().any(|&x| x as usize > d) {
            return None;
        }
        // Local links: those with two users or more in the set.
        let mut local = vec![NONE; traffic.num_links()];
        let mut lu: Vec<Vec<u32>> = Vec::new();
        let mut lp: Vec<Vec<u32>> = vec![Vec::new(); set.len()];
        for (i, &t) in set.iter().enumerate() {
            for l in &traffic.transfer(TransferId(t as u32)).path {
                let li = l.index();
                if load[li] >= 2 {
                    if local[li] == NONE {
                        local[li] = lu.len() as u32;
                        lu.push(Vec::with_capacity(load[li] as usize));
                    }
                    lu[local[li] as usize].push(i as u32);
                    lp[i].push(local[li]);
                }
            }
        }
        let full: Vec<bool> = lu.iter().map(|u| u.len() == d).collect();
        let weight: Vec<u64> = vec![1; lu.len()];
        Some(Cp {
            queued: vec![false; lu.len()],
            lp,
            lu,
            full,
            weight,
            dom: vec![if d == 32 { u32::MAX } else { (1u32 << d) - 1 }; set.len()],
            col: vec![NONE; set.len()],
            trail: Vec::new(),
            singles: Vec::new(),
            links: Vec::new(),
            d,
            nodes: 0,
            budget,
            deadline,
            stopped: false,
            link_branching: d >= LINK_BRANCHING_MIN_D,
            trace: None,
        })
    }
}

/// Whether the transfers of `set` (distinct ids) fit in `d` timeframes (`d` at most
/// [`MAX_TIMEFRAMES`]), within `budget` search nodes and `deadline`; also returns the
/// nodes used.
pub fn fits(
    traffic: &Traffic,
    set: &[usize],
    d: usize,
    budget: u64,
    deadline: Option<Instant>,
) -> (Fit, u64) {
    let Some(mut cp) = Cp::new(traffic, set, d, budget, deadline) else {
        return (Fit::Impossible, 0);
    };
    // Symmetry: the users of the most loaded link take timeframes 0, 1, ….
    let seed = (0..cp.lu.len()).max_by_key(|&l| (cp.lu[l].len(), std::cmp::Reverse(l)));
    let mut first: Vec<u32> = seed.map_or_else(Vec::new, |l| cp.lu[l].clone());
    if first.is_empty() && !set.is_empty() {
        first.push(0);
    }
    for (c, &p) in first.iter().enumerate() {
        if !cp.place(p as usize, c as u32) {
            return (Fit::Impossible, 0);
        }
    }
    let found = cp.go();
    let nodes = cp.nodes;
    if found {
        (Fit::Coloured(cp.col), nodes)
    } else if cp.stopped {
        (Fit::Open, nodes)
    } else {
        (Fit::Impossible, nodes)
    }
}

/// Largest number of timeframes [`refute`] handles.
pub const MAX_TIMEFRAMES: usize = MAX_D;

/// A placement: transfer `t` in timeframe `c`, the literal `x[t,c]`.
pub type Placement = (TransferId, u32);

/// What [`refute`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refuted {
    /// No schedule of `d` timeframes with the fixed placements. Each lemma is a set of
    /// placements that cannot all hold: the clause of their negations, a RUP consequence
    /// of the CNF and the lemmas before it (see the module documentation). The last lemma
    /// is empty: the refutation.
    Lemmas(Vec<Vec<Placement>>),
    /// A schedule of `d` timeframes: every transfer's timeframe, by transfer id.
    Coloured(Vec<u32>),
    /// The deadline stopped the search.
    Open,
    /// The trace passed [`MAX_TRACE_PLACEMENTS`] before the search was complete.
    TooLarge,
}

/// Why [`refute`] cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefuteError {
    /// Zero timeframes, or more than [`MAX_TIMEFRAMES`].
    #[error("the colouring search refutes 1 to {MAX_TIMEFRAMES} timeframes, not {0}")]
    Timeframes(usize),
    /// Fewer timeframes than the duration: no lemma of this search derives that (a link's
    /// users do not fit, which is the pigeonhole principle, not a propagation).
    #[error(
        "k = {d} is below the duration Λ = {duration}: the colouring search refutes k ≥ Λ only"
    )]
    BelowDuration {
        /// The timeframes asked for.
        d: usize,
        /// The traffic's duration Λ.
        duration: usize,
    },
    /// A fixed placement names a transfer or a timeframe that does not exist.
    #[error("fixed placement ({0}, {1}) is outside the traffic or the timeframes")]
    Placement(u32, u32),
}

/// Decides whether the whole `traffic` fits in `d` timeframes with the `fixed`
/// placements, by the colouring search of this module, recording a refutation trace when
/// it does not (see the module documentation). Also returns the search nodes used. The
/// fixed placements must be consequences of the CNF the trace is for (its unit clauses),
/// and are placed, in order, before any decision.
pub fn refute(
    traffic: &Traffic,
    d: usize,
    fixed: &[Placement],
    deadline: Option<Instant>,
) -> Result<(Refuted, u64), RefuteError> {
    refute_within(traffic, d, fixed, deadline, MAX_TRACE_PLACEMENTS)
}

/// [`refute`] with a trace of at most `cap` placements.
fn refute_within(
    traffic: &Traffic,
    d: usize,
    fixed: &[Placement],
    deadline: Option<Instant>,
    cap: usize,
) -> Result<(Refuted, u64), RefuteError> {
    if d == 0 || d > MAX_D {
        return Err(RefuteError::Timeframes(d));
    }
    if d < traffic.duration() {
        return Err(RefuteError::BelowDuration {
            d,
            duration: traffic.duration(),
        });
    }
    if let Some(&(t, c)) = fixed
        .iter()
        .find(|(t, c)| t.index() >= traffic.len() || *c as usize >= d)
    {
        return Err(RefuteError::Placement(t.0, c));
    }
    let all: Vec<usize> = (0..traffic.len()).collect();
    let mut cp = Cp::new(traffic, &all, d, u64::MAX, deadline)
        .expect("no link has more than d users when d is at least the duration");
    cp.trace = Some(Tracer {
        cap,
        ..Tracer::default()
    });
    let lemmas = |cp: Cp| {
        let lemmas = cp.trace.expect("tracing").lemmas;
        lemmas
            .into_iter()
            .map(|l| {
                l.into_iter()
                    .map(|(v, c)| (TransferId(v), c))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    for &(t, c) in fixed {
        if !cp.place(t.index(), c) {
            // The fixed placements alone propagate to a conflict.
            return Ok((Refuted::Lemmas(vec![Vec::new()]), 0));
        }
    }
    let found = cp.go();
    let nodes = cp.nodes;
    Ok(if found {
        (Refuted::Coloured(cp.col), nodes)
    } else if cp.stopped && cp.trace.as_ref().is_some_and(Tracer::full) {
        (Refuted::TooLarge, nodes)
    } else if cp.stopped {
        (Refuted::Open, nodes)
    } else {
        (Refuted::Lemmas(lemmas(cp)), nodes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{arb_traffic, colourable};
    use proptest::prelude::*;

    fn check(t: &Traffic, set: &[usize], d: usize) -> Result<(), TestCaseError> {
        let sub = t.sub_traffic(
            &set.iter()
                .map(|&x| TransferId(x as u32))
                .collect::<Vec<_>>(),
        );
        let (r, _) = fits(t, set, d, u64::MAX, None);
        match r {
            Fit::Coloured(col) => {
                prop_assert!(col.iter().all(|&c| (c as usize) < d));
                for (i, &a) in set.iter().enumerate() {
                    for (j, &b) in set.iter().enumerate().skip(i + 1) {
                        if t.congest(TransferId(a as u32), TransferId(b as u32)) {
                            prop_assert_ne!(col[i], col[j]);
                        }
                    }
                }
                prop_assert!(colourable(&sub, d));
            }
            Fit::Impossible => prop_assert!(!colourable(&sub, d)),
            Fit::Open => prop_assert!(false, "no budget was set"),
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn agrees_with_brute_force(
            t in arb_traffic(14, 6),
            mask in any::<u32>(),
            extra in 0usize..3,
            keys in prop::collection::vec(any::<u64>(), 14),
        ) {
            let all: Vec<usize> = (0..t.len()).collect();
            let sub: Vec<usize> = all.iter().copied().filter(|i| mask >> i & 1 == 1).collect();
            let mut shuffled = all.clone();
            shuffled.sort_by_key(|&i| keys[i]);
            for set in [all, sub, shuffled] {
                if set.is_empty() {
                    continue;
                }
                let fs: Vec<TransferId> = set.iter().map(|&x| TransferId(x as u32)).collect();
                let d = t.sub_traffic(&fs).duration() + extra;
                check(&t, &set, d)?;
            }
        }
    }

    #[test]
    fn a_budget_leaves_it_open() {
        // The no-team triangle: not in 2 timeframes, in 3 after one branching.
        let t = liquid_model::examples::no_team();
        let set: Vec<usize> = (0..t.len()).collect();
        assert_eq!(fits(&t, &set, 2, u64::MAX, None).0, Fit::Impossible);
        assert!(matches!(
            fits(&t, &set, 3, u64::MAX, None).0,
            Fit::Coloured(_)
        ));
        assert_eq!(fits(&t, &set, 3, 0, None).0, Fit::Open);
    }

    #[test]
    fn a_trace_past_its_cap_stops_the_refutation() {
        // queen8_8 in 8 timeframes: refuted within the cap, stopped by a small one.
        let t = liquid_model::examples::queens(8);
        let fixed: Vec<Placement> = (0..8).map(|c| (TransferId(c), c)).collect();
        let (r, _) = refute_within(&t, 8, &fixed, None, MAX_TRACE_PLACEMENTS).expect("runs");
        assert!(matches!(r, Refuted::Lemmas(_)));
        let (r, _) = refute_within(&t, 8, &fixed, None, 100).expect("runs");
        assert_eq!(r, Refuted::TooLarge);
    }
}
