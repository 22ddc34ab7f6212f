//! Greedy cliques of pairwise congesting transfers ([`CliqueFinder`]): shared by the
//! native search (clique pruning) and the exact engine (its first lower bound).

use std::time::Instant;

use liquid_model::{LinkId, Traffic, TransferId};

use crate::teams::TransferSet;

/// Members [`CliqueFinder::grow`] adds between two looks at the clock.
pub const CLIQUE_CLOCK_EVERY: usize = 16;

/// Greedy cliques of pairwise congesting transfers inside a sub-traffic, in time
/// proportional to the loads met (per-link user lists, never an edge list).
///
/// From a seed link, the clique starts as the seed's users in the set (they pairwise
/// congest); `cnt[u]` counts the clique members that congest with `u`, so `u` can join
/// exactly when `cnt[u]` equals the clique's size. Joining candidates are taken in
/// increasing id order, so the result is deterministic.
#[derive(Debug)]
pub struct CliqueFinder {
    cnt: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
    touched: Vec<usize>,
    /// Link users still to be looked at (see [`CliqueFinder::limit_work`]).
    work: u64,
}

impl CliqueFinder {
    /// Scratch space for a traffic of `n` transfers.
    pub fn new(n: usize) -> Self {
        CliqueFinder {
            cnt: vec![0; n],
            seen: vec![0; n],
            stamp: 0,
            touched: Vec::new(),
            work: u64::MAX,
        }
    }

    /// Limits the work of the finder's later calls to `units` link users looked at in
    /// all (adding a member costs the loads of its links): past it, cliques stop growing
    /// as at a deadline. A clique of a bottleneck's users costs the square of its load, so
    /// on a link of 16,384 users it would take minutes (`multi-cluster:8,4x2+1x3`).
    pub fn limit_work(&mut self, units: u64) {
        self.work = units;
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Adds `m` to the clique: counts it once for every transfer of `set` it congests with.
    fn add(&mut self, traffic: &Traffic, set: &TransferSet, in_clique: &mut Vec<usize>, m: usize) {
        in_clique.push(m);
        let s = self.next_stamp();
        self.seen[m] = s;
        for l in &traffic.transfer(TransferId(m as u32)).path {
            self.work = self.work.saturating_sub(traffic.users(*l).len() as u64);
            for u in traffic.users(*l) {
                let ui = u.index();
                if self.seen[ui] != s && set.contains(ui) {
                    self.seen[ui] = s;
                    if self.cnt[ui] == 0 {
                        self.touched.push(ui);
                    }
                    self.cnt[ui] += 1;
                }
            }
        }
    }

    /// A clique of `set` grown from the users of `seed` that are in `set`. Once `deadline`
    /// has passed (looked at every [`CLIQUE_CLOCK_EVERY`] members: adding one costs the
    /// loads of its links, so a link with 200,000 users costs 200,000² steps) it stops
    /// growing and returns the members so far, still pairwise congesting: a smaller
    /// clique only prunes less, which never makes the search unsound.
    pub fn grow(
        &mut self,
        traffic: &Traffic,
        set: &TransferSet,
        seed: LinkId,
        deadline: Option<Instant>,
    ) -> Vec<usize> {
        let mut clique: Vec<usize> = Vec::new();
        let seeds: Vec<usize> = traffic
            .users(seed)
            .iter()
            .map(|t| t.index())
            .filter(|&t| set.contains(t))
            .collect();
        let passed = |k: usize, work: u64| {
            work == 0
                || k % CLIQUE_CLOCK_EVERY == CLIQUE_CLOCK_EVERY - 1
                    && deadline.is_some_and(|d| Instant::now() >= d)
        };
        let mut stopped = false;
        for (k, t) in seeds.into_iter().enumerate() {
            if passed(k, self.work) {
                stopped = true;
                break;
            }
            self.add(traffic, set, &mut clique, t);
        }
        while !stopped {
            stopped = passed(clique.len(), self.work);
            if stopped {
                break;
            }
            // Members have cnt = size - 1 (a member does not count itself): never chosen.
            let size = clique.len() as u32;
            let next = self
                .touched
                .iter()
                .copied()
                .filter(|&u| self.cnt[u] == size)
                .min();
            match next {
                Some(u) => self.add(traffic, set, &mut clique, u),
                None => break,
            }
        }
        for &u in &self.touched {
            self.cnt[u] = 0;
        }
        self.touched.clear();
        clique
    }

    /// The largest clique grown from the first `seeds` links of `links`, trying no further
    /// seed once `deadline` has passed (on a million transfers each seed takes a while;
    /// fewer seeds only find fewer cliques, which never makes the search unsound).
    pub fn best(
        &mut self,
        traffic: &Traffic,
        set: &TransferSet,
        links: &[LinkId],
        seeds: usize,
        deadline: Option<Instant>,
    ) -> Vec<usize> {
        let mut best = Vec::new();
        for &l in links.iter().take(seeds) {
            if self.work == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let c = self.grow(traffic, set, l, deadline);
            if c.len() > best.len() {
                best = c;
            }
        }
        best
    }
}
