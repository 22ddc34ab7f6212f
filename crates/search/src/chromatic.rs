//! The exact colouring of a set of transfers with the fewest timeframes (the chromatic
//! number of their conflict graph) by DSATUR-based branch and bound: the core of the
//! `exact` engine ([`crate::exact`], whose documentation describes it), shared with the
//! native search (its probes and components) and the round-robin baseline.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use liquid_model::{Limits, LinkId, Traffic, TransferId};

const NONE: u32 = u32::MAX;

/// The result of an exact colouring of a set of transfers (its default: none, no
/// schedule and no node, as a search stopped before it began).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExactColouring {
    /// The best schedule found, as timeframes of transfer ids.
    pub frames: Vec<Vec<TransferId>>,
    /// Whether the search completed (the length is optimal for these transfers).
    pub optimal: bool,
    /// Search nodes visited.
    pub nodes: u64,
}

struct Bnb<'a> {
    traffic: &'a Traffic,
    vs: &'a [TransferId],
    degree: Vec<u64>,
    colour: Vec<u32>,
    /// Colours of the coloured users of every link (global link ids).
    on_link: Vec<Vec<u32>>,
    best: usize,
    best_colour: Vec<u32>,
    lower: usize,
    nodes: u64,
    limits: Limits,
    deadline: Option<Instant>,
    /// Whether a limit may stop the first dive (then no schedule is left behind).
    stop_first_dive: bool,
    stopped: bool,
    seen: Vec<u64>,
    stamp: u64,
    progress: &'a AtomicU64,
    /// Saturation of every transfer, kept up to date as transfers are coloured.
    sat: Vec<u32>,
    /// Index in `vs` of every transfer of the traffic (`NONE` if not in `vs`).
    index_of: Vec<u32>,
    /// The uncoloured indices (in any order), with each one's position.
    uncoloured: Vec<u32>,
    position: Vec<u32>,
    /// Indices whose saturation was raised, undone on backtracking.
    trail: Vec<u32>,
    /// Neighbour de-duplication stamps.
    visited: Vec<u64>,
    visit: u64,
}

impl Bnb<'_> {
    fn path(&self, i: usize) -> &[LinkId] {
        &self.traffic.transfer(self.vs[i]).path
    }

    /// Marks the colours `i` congests with (stamp) and returns how many distinct ones.
    fn saturation(&mut self, i: usize) -> u32 {
        self.stamp += 1;
        let mut s = 0;
        for l in &self.traffic.transfer(self.vs[i]).path {
            for &c in &self.on_link[l.index()] {
                if self.seen[c as usize] != self.stamp {
                    self.seen[c as usize] = self.stamp;
                    s += 1;
                }
            }
        }
        s
    }

    /// Removes `i` from the uncoloured list.
    fn take(&mut self, i: usize) {
        let p = self.position[i] as usize;
        let last = self.uncoloured.pop().expect("i is uncoloured");
        if last as usize != i {
            self.uncoloured[p] = last;
            self.position[last as usize] = p as u32;
        }
    }

    /// Puts `i` back into the uncoloured list.
    fn put_back(&mut self, i: usize) {
        self.position[i] = self.uncoloured.len() as u32;
        self.uncoloured.push(i as u32);
    }

    /// `v` (in `vs`) just took colour `c`, not yet recorded on its links: every uncoloured
    /// neighbour that did not congest with `c` yet gains one in saturation (on the trail).
    fn raise_saturations(&mut self, v: usize, c: u32) {
        self.visit += 1;
        let traffic = self.traffic;
        for l in &traffic.transfer(self.vs[v]).path {
            for &u in traffic.users(*l) {
                let i = self.index_of[u.index()];
                if i == NONE {
                    continue;
                }
                let i = i as usize;
                if self.colour[i] != NONE || self.visited[i] == self.visit {
                    continue;
                }
                self.visited[i] = self.visit;
                let sees = traffic
                    .transfer(u)
                    .path
                    .iter()
                    .any(|l| self.on_link[l.index()].contains(&c));
                if !sees {
                    self.sat[i] += 1;
                    self.trail.push(i as u32);
                }
            }
        }
    }

    fn limit_hit(&self) -> bool {
        // Unless told otherwise, the first dive completes, so a limit leaves a schedule.
        if self.best > self.vs.len() && !self.stop_first_dive {
            return false;
        }
        self.limits.nodes.is_some_and(|n| self.nodes > n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn go(&mut self, coloured: usize, used: usize) {
        if self.stopped {
            return;
        }
        self.nodes += 1;
        self.progress.fetch_add(1, Ordering::Relaxed);
        if self.limit_hit() {
            self.stopped = true;
            return;
        }
        if coloured == self.vs.len() {
            if used < self.best {
                self.best = used;
                self.best_colour.clone_from(&self.colour);
            }
            return;
        }
        // DSATUR choice: largest (saturation, degree), then the lowest index.
        let mut pick = usize::MAX;
        let mut key = (0u32, 0u64);
        for &i in &self.uncoloured {
            let i = i as usize;
            let k = (self.sat[i], self.degree[i]);
            if pick == usize::MAX || k > key || (k == key && i < pick) {
                pick = i;
                key = k;
            }
        }
        let v = pick;
        // Mark the colours v congests with (their number is the kept saturation).
        let _s = self.saturation(v);
        debug_assert_eq!(self.sat[v], _s);
        let stamp = self.stamp;
        let free: Vec<u32> = (0..used as u32)
            .filter(|&c| self.seen[c as usize] != stamp)
            .collect();
        let mut options = free;
        if used + 1 < self.best {
            options.push(used as u32);
        }
        for c in options {
            if self.best <= self.lower || self.stopped {
                return;
            }
            // A new colour is only worth trying if it can still beat the best.
            let new_used = used.max(c as usize + 1);
            if new_used >= self.best {
                continue;
            }
            self.colour[v] = c;
            self.take(v);
            let mark = self.trail.len();
            self.raise_saturations(v, c);
            for k in 0..self.path(v).len() {
                let l = self.path(v)[k].index();
                self.on_link[l].push(c);
            }
            self.go(coloured + 1, new_used);
            for k in 0..self.path(v).len() {
                let l = self.path(v)[k].index();
                self.on_link[l].pop();
            }
            for i in self.trail.drain(mark..) {
                self.sat[i as usize] -= 1;
            }
            self.put_back(v);
            self.colour[v] = NONE;
        }
    }
}

/// Largest load among the links used by `vs`, with that link.
fn max_load(traffic: &Traffic, vs: &[TransferId]) -> (usize, Option<LinkId>) {
    let mut load = vec![0usize; traffic.num_links()];
    let mut best = (0, None);
    for &t in vs {
        for &l in &traffic.transfer(t).path {
            load[l.index()] += 1;
            if load[l.index()] > best.0 {
                best = (load[l.index()], Some(l));
            }
        }
    }
    best
}

/// Colours the transfers `vs` of `traffic` with the fewest timeframes (exactly, unless a
/// limit stops the search; then the best schedule found, with `optimal: false`).
pub fn colour_subset(traffic: &Traffic, vs: &[TransferId], limits: &Limits) -> ExactColouring {
    colour_subset_with_progress(traffic, vs, limits, &AtomicU64::new(0))
}

/// [`colour_subset`], adding every search node to `progress` as it is visited.
pub fn colour_subset_with_progress(
    traffic: &Traffic,
    vs: &[TransferId],
    limits: &Limits,
    progress: &AtomicU64,
) -> ExactColouring {
    colour(traffic, vs, limits, progress, false, None, 0)
}

/// Conflict degrees of `vs` within `vs`; `None` when the deadline passes first.
fn degrees_within(
    traffic: &Traffic,
    vs: &[TransferId],
    deadline: Option<Instant>,
) -> Option<Vec<u64>> {
    let mut member = vec![false; traffic.len()];
    vs.iter().for_each(|t| member[t.index()] = true);
    let mut mark = vec![false; traffic.len()];
    let mut degree = Vec::with_capacity(vs.len());
    for (k, &t) in vs.iter().enumerate() {
        if k % 1024 == 1023 && deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let mut d = 0;
        traffic.for_each_neighbour(t, &mut mark, |u| {
            if member[u.index()] {
                d += 1;
            }
        });
        degree.push(d);
    }
    Some(degree)
}

/// The branch and bound; `stop_first_dive` lets a limit stop it before any schedule is
/// complete (then `frames` is empty and `optimal` false). `start`, a valid colouring of
/// `vs` (a timeframe per index of `vs`), is the best schedule before the search starts;
/// `lower` a known lower bound (the search stops when the best schedule meets it or the
/// largest load among `vs`).
pub(crate) fn colour(
    traffic: &Traffic,
    vs: &[TransferId],
    limits: &Limits,
    progress: &AtomicU64,
    stop_first_dive: bool,
    start: Option<Vec<u32>>,
    lower: usize,
) -> ExactColouring {
    let n = vs.len();
    let deadline = limits.deadline();
    let degree = match degrees_within(traffic, vs, deadline.filter(|_| stop_first_dive)) {
        Some(d) => d,
        None => {
            // Stopped before the search: the best schedule is the start, if any.
            return ExactColouring {
                frames: start.map_or_else(Vec::new, |c| frames_of(vs, &c)),
                optimal: false,
                nodes: 0,
            };
        }
    };
    let mut b = Bnb {
        traffic,
        vs,
        degree,
        colour: vec![NONE; n],
        on_link: vec![Vec::new(); traffic.num_links()],
        best: n + 1,
        best_colour: Vec::new(),
        lower: max_load(traffic, vs).0.max(lower),
        nodes: 0,
        limits: *limits,
        deadline,
        stop_first_dive,
        stopped: false,
        seen: vec![0; n + 1],
        stamp: 0,
        progress,
        sat: vec![0; n],
        index_of: {
            let mut index_of = vec![NONE; traffic.len()];
            vs.iter()
                .enumerate()
                .for_each(|(i, t)| index_of[t.index()] = i as u32);
            index_of
        },
        uncoloured: (0..n as u32).collect(),
        position: (0..n as u32).collect(),
        trail: Vec::new(),
        visited: vec![0; n],
        visit: 0,
    };
    if let Some(c) = start {
        b.best = c.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
        b.best_colour = c;
    }
    if n > 0 && b.best > b.lower {
        b.go(0, 0);
    }
    let frames = if b.best <= n {
        frames_of(vs, &b.best_colour)
    } else {
        Vec::new()
    };
    ExactColouring {
        frames,
        optimal: !b.stopped,
        nodes: b.nodes,
    }
}

/// The timeframes of a colouring of `vs` (a timeframe per index of `vs`), as many as its
/// largest timeframe + 1.
fn frames_of(vs: &[TransferId], colour: &[u32]) -> Vec<Vec<TransferId>> {
    let len = colour.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut frames = vec![Vec::new(); len];
    for (i, &c) in colour.iter().enumerate() {
        frames[c as usize].push(vs[i]);
    }
    frames
}
