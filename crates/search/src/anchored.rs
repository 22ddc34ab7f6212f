//! Full teams of a sub-traffic that hold one chosen transfer (the *anchor*), enumerated
//! one by one without repetition by the ancestor technique of paper 004, incrementally.
//!
//! The ancestor (outer, depot, inner) is not a triple of bitsets cloned at every fission,
//! but a status per transfer (depot, inner, outer, blocked) with per-link counters of
//! depot and inner users, changed in place and restored from an undo trail when the
//! depth-first reproduction backtracks. The tests are those of 004, kept exact:
//! - *barren* (ρ): an outer transfer congests no depot transfer (all its links have no
//!   depot user), so nothing can ever block it and no heir is full;
//! - *viscid* (τ): a bottleneck has neither an inner nor a depot user, so no heir is a team.
//!
//! Both only need re-checking where a link's depot count drops to zero (and for a transfer
//! that has just moved to the outer), so a fission costs time proportional to the
//! congestion it resolves, not to the size of the traffic.
//!
//! The start is the ancestor (∅, R − N[t*], {t*}) with, in the outer, every transfer that
//! has a twin (same core) of lower id in R (a team holding such a transfer is the image of
//! one holding the lower twin under a swap of the two, see [`crate::liquid`]); its
//! completed heirs are exactly the full teams of R that hold t* and no such twin.
//! Fission splits on a depot user of the uncovered bottleneck with the fewest depot users
//! (any depot element is allowed by 004; this one makes viscid ancestors appear early),
//! trying ψ+a (a joins the inner) before ψ−a (a is denied).

use std::cell::Cell;
use std::time::Instant;

use liquid_model::{LinkId, Traffic, TransferId};

/// Not in the sub-traffic.
const OUT: u8 = 0;
/// In the depot: may still join the inner.
const DEPOT: u8 = 1;
/// In the inner (the simultaneity being built).
const INNER: u8 = 2;
/// In the outer: denied, must be blocked by a later inner transfer.
const OUTER: u8 = 3;
/// Congests an inner transfer.
const BLOCKED: u8 = 4;

/// Ancestors between two looks at the clock.
const CLOCK_EVERY: u64 = 64;

/// Why an enumeration stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The caller's time or node limit.
    Limit,
    /// The budget of the current restart (the search starts again, see [`crate::liquid`]).
    Restart,
}

/// What the enumeration needs to know about the node it enumerates for.
pub(crate) struct Node<'a> {
    /// The traffic.
    pub traffic: &'a Traffic,
    /// The transfers of the sub-traffic R.
    pub set: &'a [usize],
    /// The bottlenecks of R (links of load Λ(R) in R).
    pub bottlenecks: &'a [LinkId],
    /// Further sets of transfers of R that every timeframe of a liquid schedule of R
    /// meets (e.g. cliques of Λ(R) transfers): a team meeting none of one is not tried.
    pub hitting: &'a [Vec<usize>],
    /// The other links of R shared by two transfers or more, most loaded first: once the
    /// bottlenecks are covered, the depot element is a user of the first of them that
    /// is still uncovered (the link with the least slack).
    pub urgent: &'a [LinkId],
    /// Preference among depot users of a link: higher is tried in the inner first.
    pub weight: &'a [Cell<u64>],
    /// The transfers of R that have a twin (same core) of lower id in R (they start in
    /// the outer).
    pub demoted: &'a [usize],
    /// When to give up.
    pub deadline: Option<Instant>,
    /// Work done (search nodes and ancestors), shared by all depths.
    pub work: &'a Cell<u64>,
    /// Past this much work, stop with [`Stop::Restart`].
    pub work_limit: u64,
}

/// Reusable scratch space of one enumeration (one per search depth).
#[derive(Debug, Default)]
pub(crate) struct Anchored {
    status: Vec<u8>,
    /// Per link: depot users.
    dep: Vec<u32>,
    /// Per link: inner users (0 or 1 in a simultaneity).
    inn: Vec<u32>,
    /// Per link: whether it is a bottleneck of the node.
    is_bottleneck: Vec<bool>,
    /// (transfer, previous status), in the order of the changes.
    trail: Vec<(u32, u8)>,
    /// Links whose depot count dropped to zero since the last check.
    zeroed: Vec<u32>,
    /// Per hitting set: depot and inner members; per transfer: its hitting sets (empty
    /// when no node had hitting sets: 24 bytes per transfer and depth otherwise).
    hdep: Vec<u32>,
    hinn: Vec<u32>,
    member: Vec<Vec<u32>>,
    /// Hitting sets whose depot count dropped to zero since the last check.
    hzeroed: Vec<u32>,
    /// The inner, in the order of joining.
    inner: Vec<usize>,
    /// Depot size.
    ndepot: usize,
    /// Ancestors examined (all enumerations of this scratch space).
    pub ancestors: u64,
}

impl Anchored {
    /// The number of hitting sets `t` belongs to.
    fn hits(&self, t: usize) -> usize {
        self.member.get(t).map_or(0, Vec::len)
    }

    fn path(traffic: &Traffic, t: usize) -> &[LinkId] {
        &traffic.transfer(TransferId(t as u32)).path
    }

    /// Moves `t` to status `s`, recording the change.
    fn set(&mut self, traffic: &Traffic, t: usize, s: u8) {
        let old = self.status[t];
        self.trail.push((t as u32, old));
        self.status[t] = s;
        if old == DEPOT {
            self.ndepot -= 1;
            for l in Self::path(traffic, t) {
                let li = l.index();
                self.dep[li] -= 1;
                if self.dep[li] == 0 {
                    self.zeroed.push(li as u32);
                }
            }
            for i in 0..self.hits(t) {
                let h = self.member[t][i] as usize;
                self.hdep[h] -= 1;
                if self.hdep[h] == 0 {
                    self.hzeroed.push(h as u32);
                }
            }
        }
        if s == INNER {
            for l in Self::path(traffic, t) {
                self.inn[l.index()] += 1;
            }
            for i in 0..self.hits(t) {
                self.hinn[self.member[t][i] as usize] += 1;
            }
        }
    }

    /// Undoes the changes recorded after trail position `mark`.
    fn undo(&mut self, traffic: &Traffic, mark: usize) {
        while self.trail.len() > mark {
            let (t, old) = self.trail.pop().expect("non-empty trail");
            let t = t as usize;
            if self.status[t] == INNER {
                for l in Self::path(traffic, t) {
                    self.inn[l.index()] -= 1;
                }
                for i in 0..self.hits(t) {
                    self.hinn[self.member[t][i] as usize] -= 1;
                }
            }
            if old == DEPOT {
                self.ndepot += 1;
                for l in Self::path(traffic, t) {
                    self.dep[l.index()] += 1;
                }
                for i in 0..self.hits(t) {
                    self.hdep[self.member[t][i] as usize] += 1;
                }
            }
            self.status[t] = old;
        }
        self.zeroed.clear();
        self.hzeroed.clear();
    }

    /// a joins the inner; every depot or outer transfer congesting it is blocked.
    fn join(&mut self, traffic: &Traffic, a: usize) {
        self.set(traffic, a, INNER);
        self.inner.push(a);
        for l in Self::path(traffic, a) {
            for u in traffic.users(*l) {
                let ui = u.index();
                let s = self.status[ui];
                if s == DEPOT || s == OUTER {
                    self.set(traffic, ui, BLOCKED);
                }
            }
        }
    }

    /// Whether an outer transfer congests no depot transfer.
    fn stranded(&self, traffic: &Traffic, x: usize) -> bool {
        Self::path(traffic, x)
            .iter()
            .all(|l| self.dep[l.index()] == 0)
    }

    /// Barren or viscid, looking only where depot counts dropped to zero.
    fn dead(&mut self, traffic: &Traffic) -> bool {
        let mut dead = self.hzeroed.iter().any(|&h| self.hinn[h as usize] == 0);
        self.hzeroed.clear();
        for &l in &self.zeroed {
            if dead {
                break;
            }
            let li = l as usize;
            if self.is_bottleneck[li] && self.inn[li] == 0 {
                dead = true;
                break;
            }
            if traffic
                .users(LinkId(l))
                .iter()
                .any(|u| self.status[u.index()] == OUTER && self.stranded(traffic, u.index()))
            {
                dead = true;
                break;
            }
        }
        self.zeroed.clear();
        dead
    }

    /// Calls `f` with every full team of the node's R that holds `anchor` and no demoted
    /// transfer (each exactly once), until `f` returns `Ok(true)` (then returns it) or
    /// fails. The anchor must not be demoted.
    pub(crate) fn enumerate(
        &mut self,
        node: &Node<'_>,
        anchor: usize,
        f: &mut dyn FnMut(&[usize]) -> Result<bool, Stop>,
    ) -> Result<bool, Stop> {
        let traffic = node.traffic;
        let (n, m) = (traffic.len(), traffic.num_links());
        if self.status.len() != n || self.dep.len() != m {
            self.status = vec![OUT; n];
            self.dep = vec![0; m];
            self.inn = vec![0; m];
            self.is_bottleneck = vec![false; m];
            self.member = Vec::new();
        }
        if !node.hitting.is_empty() && self.member.len() != n {
            self.member = vec![Vec::new(); n];
        }
        self.hdep.clear();
        self.hinn.clear();
        for (h, set) in node.hitting.iter().enumerate() {
            for &t in set {
                self.member[t].push(h as u32);
            }
            self.hdep.push(set.len() as u32);
            self.hinn.push(0);
        }
        for &t in node.set {
            self.status[t] = DEPOT;
            for l in Self::path(traffic, t) {
                self.dep[l.index()] += 1;
            }
        }
        self.ndepot = node.set.len();
        for l in node.bottlenecks {
            self.is_bottleneck[l.index()] = true;
        }
        self.trail.clear();
        self.inner.clear();
        self.join(traffic, anchor);
        for &t in node.demoted {
            if self.status[t] == DEPOT {
                self.set(traffic, t, OUTER);
            }
        }
        self.zeroed.clear();
        self.hzeroed.clear();
        let alive = node
            .bottlenecks
            .iter()
            .all(|l| self.inn[l.index()] > 0 || self.dep[l.index()] > 0)
            && (0..node.hitting.len()).all(|h| self.hinn[h] > 0 || self.hdep[h] > 0)
            && node
                .set
                .iter()
                .all(|&t| self.status[t] != OUTER || !self.stranded(traffic, t));
        let r = if alive { self.rec(node, f) } else { Ok(false) };
        if matches!(r, Err(Stop::Limit)) {
            // A limit ends the search: no node reuses the scratch space, so it is dropped
            // instead of cleaned (cleaning costs O(R) per level: 0.17 s at a million
            // transfers, 3.4 s past the deadline over 20 levels). A later call rebuilds it.
            *self = Anchored {
                ancestors: self.ancestors,
                ..Anchored::default()
            };
            return r;
        }
        // Leave the scratch space clean for the next node.
        self.undo(traffic, 0);
        for &t in node.set {
            self.status[t] = OUT;
            for l in Self::path(traffic, t) {
                self.dep[l.index()] = 0;
            }
        }
        for l in node.bottlenecks {
            self.is_bottleneck[l.index()] = false;
        }
        for set in node.hitting {
            for &t in set {
                self.member[t].clear();
            }
        }
        self.inner.clear();
        r
    }

    /// The depot element to split on.
    fn choose(&self, node: &Node<'_>) -> usize {
        let traffic = node.traffic;
        let best_user = |l: LinkId| {
            traffic
                .users(l)
                .iter()
                .map(|u| u.index())
                .filter(|&u| self.status[u] == DEPOT)
                .max_by_key(|&u| (node.weight[u].get(), std::cmp::Reverse(u)))
        };
        // A depot user of the uncovered bottleneck with the fewest depot users, or a
        // depot member of the unmet hitting set with fewer.
        let link = node
            .bottlenecks
            .iter()
            .filter(|l| self.inn[l.index()] == 0)
            .min_by_key(|l| self.dep[l.index()]);
        let hit = (0..node.hitting.len())
            .filter(|&h| self.hinn[h] == 0)
            .min_by_key(|&h| self.hdep[h]);
        if let Some(h) = hit {
            if link.is_none_or(|l| self.hdep[h] < self.dep[l.index()]) {
                if let Some(u) = node.hitting[h]
                    .iter()
                    .copied()
                    .filter(|&u| self.status[u] == DEPOT)
                    .max_by_key(|&u| (node.weight[u].get(), std::cmp::Reverse(u)))
                {
                    return u;
                }
            }
        }
        if let Some(&l) = link {
            if let Some(u) = best_user(l) {
                return u;
            }
        }
        // A depot user of the most loaded link that no inner transfer uses.
        for &l in node.urgent {
            if self.inn[l.index()] == 0 && self.dep[l.index()] > 0 {
                if let Some(u) = best_user(l) {
                    return u;
                }
            }
        }
        // The first outer transfer must be blocked by a depot transfer: split on one.
        let mut fallback = None;
        for &t in node.set {
            match self.status[t] {
                OUTER => {
                    for l in Self::path(traffic, t) {
                        if let Some(u) = best_user(*l) {
                            return u;
                        }
                    }
                }
                DEPOT
                    if fallback
                        .is_none_or(|f: usize| node.weight[t].get() > node.weight[f].get()) =>
                {
                    fallback = Some(t);
                }
                _ => {}
            }
        }
        fallback.expect("a non-completed ancestor has a depot")
    }

    fn rec(
        &mut self,
        node: &Node<'_>,
        f: &mut dyn FnMut(&[usize]) -> Result<bool, Stop>,
    ) -> Result<bool, Stop> {
        let traffic = node.traffic;
        self.ancestors += 1;
        let work = node.work.get() + 1;
        node.work.set(work);
        if self.ancestors % CLOCK_EVERY == 0 && node.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Stop::Limit);
        }
        if work > node.work_limit {
            return Err(Stop::Restart);
        }
        if self.ndepot == 0 {
            // Not barren: every outer transfer is blocked; not viscid: every bottleneck
            // has an inner user.
            return f(&self.inner);
        }
        let a = self.choose(node);
        let mark = self.trail.len();
        // ψ+a
        self.join(traffic, a);
        if !self.dead(traffic) && self.rec(node, f)? {
            return Ok(true);
        }
        self.undo(traffic, mark);
        self.inner.pop();
        // ψ−a
        self.set(traffic, a, OUTER);
        let dead = self.stranded(traffic, a) || self.dead(traffic);
        if !dead && self.rec(node, f)? {
            return Ok(true);
        }
        self.undo(traffic, mark);
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teams::{bottlenecks_in, FullTeams, TransferSet};
    use crate::test_support::arb_traffic;
    use proptest::prelude::*;

    /// The anchored enumeration of `set` with `anchor` and `demoted`, sorted.
    fn anchored(
        t: &Traffic,
        set: &[usize],
        anchor: usize,
        demoted: &[usize],
        hitting: &[Vec<usize>],
    ) -> Vec<Vec<usize>> {
        let mut fs = TransferSet::with_capacity(t.len());
        set.iter().for_each(|&x| fs.insert(x));
        let (_, bottlenecks) = bottlenecks_in(t, &fs);
        let weight: Vec<Cell<u64>> = (0..t.len() as u64).map(|i| Cell::new(i * 7 % 5)).collect();
        let work = Cell::new(0);
        let node = Node {
            traffic: t,
            set,
            bottlenecks: &bottlenecks,
            hitting,
            urgent: &[],
            weight: &weight,
            demoted,
            deadline: None,
            work: &work,
            work_limit: u64::MAX,
        };
        let mut out = Vec::new();
        let mut scratch = Anchored::default();
        let r = scratch.enumerate(&node, anchor, &mut |team| {
            let mut v = team.to_vec();
            v.sort_unstable();
            out.push(v);
            Ok(false)
        });
        assert_eq!(r, Ok(false));
        // The scratch space is left clean: a second run gives the same teams.
        let mut again = 0;
        scratch
            .enumerate(&node, anchor, &mut |_| {
                again += 1;
                Ok(false)
            })
            .expect("no limit");
        assert_eq!(again, out.len());
        out.sort();
        out
    }

    #[test]
    fn a_limit_leaves_scratch_space_that_the_next_node_rebuilds() {
        // All-to-all over 7 hosts of one switch (host i: links u{i} up, d{i} down).
        let paths: Vec<(String, Vec<String>)> = (0..7)
            .flat_map(|i| (0..7).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| (format!("{i}>{j}"), vec![format!("u{i}"), format!("d{j}")]))
            .collect();
        let t = Traffic::from_paths("star", &paths).expect("valid");
        let set: Vec<usize> = (0..t.len()).collect();
        let mut fs = TransferSet::with_capacity(t.len());
        set.iter().for_each(|&x| fs.insert(x));
        let (_, bottlenecks) = bottlenecks_in(&t, &fs);
        let weight = vec![Cell::new(0u64); t.len()];
        let work = Cell::new(0);
        let node = |deadline| Node {
            traffic: &t,
            set: &set,
            bottlenecks: &bottlenecks,
            hitting: &[],
            urgent: &[],
            weight: &weight,
            demoted: &[],
            deadline,
            work: &work,
            work_limit: u64::MAX,
        };
        let count = |scratch: &mut Anchored, deadline| {
            let mut teams = 0;
            let r = scratch.enumerate(&node(deadline), 0, &mut |_| {
                teams += 1;
                Ok(false)
            });
            (r, teams)
        };
        let (r, want) = count(&mut Anchored::default(), None);
        assert_eq!(r, Ok(false));
        let mut scratch = Anchored::default();
        let (r, _) = count(&mut scratch, Some(Instant::now()));
        assert_eq!(r, Err(Stop::Limit));
        assert!(scratch.ancestors >= CLOCK_EVERY);
        assert_eq!(count(&mut scratch, None), (Ok(false), want));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn anchored_teams_are_the_full_teams_holding_the_anchor(
            t in arb_traffic(10, 6),
            mask in any::<u32>(),
            pick in any::<usize>(),
            demote in any::<u32>(),
            hits in prop::collection::vec(any::<u32>(), 0..3),
        ) {
            let all: Vec<usize> = (0..t.len()).collect();
            let sub: Vec<usize> = all.iter().copied().filter(|i| mask >> i & 1 == 1).collect();
            for set in [all, sub] {
                if set.is_empty() {
                    continue;
                }
                let anchor = set[pick % set.len()];
                let demoted: Vec<usize> = set
                    .iter()
                    .copied()
                    .filter(|&x| x != anchor && demote >> x & 1 == 1)
                    .collect();
                let hitting: Vec<Vec<usize>> = hits
                    .iter()
                    .map(|h| set.iter().copied().filter(|x| h >> x & 1 == 1).collect())
                    .collect();
                let mut fs = TransferSet::with_capacity(t.len());
                set.iter().for_each(|&x| fs.insert(x));
                let mut want: Vec<Vec<usize>> = FullTeams::new(&t, &fs)
                    .map(|s| s.ones().collect::<Vec<usize>>())
                    .filter(|s| s.contains(&anchor) && !s.iter().any(|x| demoted.contains(x)))
                    .filter(|s| hitting.iter().all(|h| h.iter().any(|x| s.contains(x))))
                    .collect();
                want.sort();
                prop_assert_eq!(anchored(&t, &set, anchor, &demoted, &hitting), want);
            }
        }
    }
}
