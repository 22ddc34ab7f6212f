//! Exact optimal schedule length (engine `exact`): the chromatic number of the conflict
//! graph, by DSATUR-based branch and bound (Brélaz 1979; Sewell 1996 style).
//!
//! Vertices are coloured in DSATUR order: at each node the uncoloured transfer of largest
//! saturation (distinct timeframes among the transfers it congests with), ties to the
//! largest conflict degree, then the lowest id. It tries every timeframe already open that
//! none of its neighbours uses, then one new timeframe if that still beats the best
//! schedule found. The first dive is a complete DSATUR schedule (always finished, even
//! under limits, so a limit still leaves a schedule); the search stops early when the best
//! length meets the lower bound. A completed search proves the best length optimal.
//!
//! Memory is linear in the total path length: "which timeframes does `v` congest with" is
//! read off the timeframes present on `v`'s links (each link holds a stack of the colours
//! of its coloured users, pushed and popped with the depth-first search), never from a
//! conflict edge list.
//!
//! Lower bounds: Λ (a bottleneck's users pairwise congest), and a greedy clique grown from
//! the users of the most loaded links, reported as a clique when larger.
//!
//! Upper bounds: an all-to-all whose orbit frames ([`crate::structured`]) are
//! conflict-free has Λ frames, the bound: no search; so has a traffic whose link-disjoint
//! parts the orbits or ports of [`crate::ports`] settle (stage `parts`). Otherwise a short branch and bound
//! ([`QUICK_NODES`] nodes) settles most small traffics at once; when it does not, the tabu
//! search ([`crate::tabu`], seed 0, bounded work) shortens its best schedule towards the
//! lower bound, and the branch and bound starts again with that schedule as the best, so it
//! only looks for shorter ones (none when the tabu search met the bound). Without this, the
//! branch and bound alone ran for minutes on liquid traffics of a few hundred transfers
//! (`torus:3x4`, `mesh:4x4`, `fat-tree:4,3`), which the tabu search or the orbits settle in
//! milliseconds. `stats.stage` says which path answered.
//!
//! Under a time limit the engine stops everywhere, the first dive and the clique included
//! (at a million transfers each takes minutes): it then answers `unknown` with what it
//! has.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::liquid::CliqueFinder;
use crate::structured::liquid_schedule;
use liquid_model::{
    Answer, Limits, LinkId, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId,
};

/// The engine's name in answers and on the command line (`--engine exact`).
pub const ENGINE: &str = "exact";

const NONE: u32 = u32::MAX;

/// The result of an exact colouring of a set of transfers.
#[derive(Debug, Clone, PartialEq, Eq)]
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
fn colour(
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
            return ExactColouring {
                frames: Vec::new(),
                optimal: false,
                nodes: 0,
            }
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
    let complete = b.best <= n;
    let mut frames = vec![Vec::new(); if complete { b.best } else { 0 }];
    for (i, &c) in b.best_colour.iter().enumerate() {
        frames[c as usize].push(vs[i]);
    }
    ExactColouring {
        frames,
        optimal: !b.stopped,
        nodes: b.nodes,
    }
}

/// A clique of pairwise congesting transfers, grown greedily from the users of the most
/// loaded links (at least as large as Λ): the native search's [`CliqueFinder`] on the
/// whole traffic, the one clique builder of the crate.
pub fn greedy_clique(traffic: &Traffic) -> Vec<TransferId> {
    greedy_clique_until(traffic, None).unwrap_or_default()
}

/// Seeds of [`greedy_clique`]: the most loaded links.
const CLIQUE_SEEDS: usize = 32;

/// [`greedy_clique`], or `None` when the deadline passes before the first seed is grown
/// (later seeds are skipped once it has passed: fewer seeds only find fewer cliques).
pub fn greedy_clique_until(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Option<Vec<TransferId>> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return None;
    }
    let mut links: Vec<LinkId> = traffic.link_ids().collect();
    links.sort_by_key(|&l| (std::cmp::Reverse(traffic.load(l)), l));
    links.truncate(CLIQUE_SEEDS);
    let all = crate::teams::all_transfers(traffic);
    let clique =
        CliqueFinder::new(traffic.len()).best(traffic, &all, &links, CLIQUE_SEEDS, deadline);
    Some(clique.into_iter().map(|t| TransferId(t as u32)).collect())
}

/// The `exact` engine: `liquid` or `optimal` with the schedule and its lower bound (Λ by a
/// bottleneck, a clique when larger, or exhaustion of the branch and bound); when a limit
/// stops it, `non-liquid` (a clique above Λ) or `unknown`, with the best schedule found.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Answer {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// [`solve`], adding every search node to `progress` as it is visited (a caller may poll
/// it from another thread to show progress).
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Answer {
    let start = Instant::now();
    let deadline = limits.deadline();
    // Orbit frames of an all-to-all, or parts by orbits or ports: Λ frames, the optimum,
    // before the clique (which costs seconds on the largest of these traffics).
    if let Some((schedule, stage, _)) = liquid_schedule(traffic, deadline) {
        let outcome = Outcome::settle(
            traffic,
            Some(schedule),
            LowerBound::duration(traffic),
            false,
        );
        return Answer::new(ENGINE, outcome)
            .stat("stage", StatValue::Text(stage.to_string()))
            .stat("nodes", StatValue::Count(0))
            .stat("complete", StatValue::Text("yes".to_string()));
    }
    let clique = greedy_clique_until(traffic, deadline);
    let d = traffic.duration();
    let mut bound = LowerBound::duration(traffic);
    if let Some(c) = &clique {
        if c.len() > d {
            bound = LowerBound::clique(c.clone());
        }
    }
    let vs: Vec<TransferId> = traffic.transfer_ids().collect();
    // What is left of the limits once `used` nodes were searched.
    let left = |used: u64| Limits {
        time: limits.time.map(|t| t.saturating_sub(start.elapsed())),
        nodes: limits.nodes.map(|n| n.saturating_sub(used)),
    };
    let mut stats: Vec<(String, StatValue)> = Vec::new();
    let mut stage = "none (limit reached)";
    let r = if clique.is_none() {
        ExactColouring {
            frames: Vec::new(),
            optimal: false,
            nodes: 0,
        }
    } else {
        // A short branch and bound settles most small traffics at once.
        let quick = Limits {
            nodes: Some(left(0).nodes.map_or(QUICK_NODES, |n| n.min(QUICK_NODES))),
            ..left(0)
        };
        let first = colour(traffic, &vs, &quick, progress, true, None, bound.value);
        if first.optimal || first.frames.is_empty() {
            stage = "branch and bound";
            first
        } else {
            // The tabu search towards the bound, then the branch and bound from its schedule.
            stage = "branch and bound, tabu search, branch and bound";
            let from = Schedule::new(first.frames.clone());
            let t = crate::tabu::shorten(traffic, &from, bound.value, 0, None, deadline);
            stats.push(("tabu_from".into(), StatValue::Count(from.len() as u64)));
            stats.push((
                "tabu_length".into(),
                StatValue::Count(t.schedule.len() as u64),
            ));
            stats.push(("tabu_steps".into(), StatValue::Count(t.steps)));
            let c = t.schedule.timeframes(traffic.len());
            let mut second = colour(
                traffic,
                &vs,
                &left(first.nodes),
                progress,
                true,
                Some(c),
                bound.value,
            );
            second.nodes += first.nodes;
            second
        }
    };
    let len = r.frames.len();
    let best = (len > 0).then(|| Schedule::new(r.frames));
    if r.optimal && len > bound.value {
        bound = LowerBound::exhaustive(len, ENGINE, r.nodes);
    }
    let outcome = Outcome::settle(traffic, best, bound, false);
    let mut answer = Answer::new(ENGINE, outcome)
        .stat("stage", StatValue::Text(stage.to_string()))
        .stat("nodes", StatValue::Count(r.nodes));
    answer.stats.append(&mut stats);
    answer
        .stat(
            "clique",
            StatValue::Count(clique.as_ref().map_or(0, Vec::len) as u64),
        )
        .stat(
            "complete",
            StatValue::Text(if r.optimal { "yes" } else { "no" }.to_string()),
        )
}

/// Nodes of the first, short branch and bound (module documentation).
pub const QUICK_NODES: u64 = 10_000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{arb_traffic, brute_chromatic, no_team};
    use liquid_model::{check_outcome, validate, Evidence, Verdict};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn equals_brute_force(t in arb_traffic(10, 5)) {
            let o = solve(&t, &Limits::default()).outcome;
            check_outcome(&t, &o).map_err(TestCaseError::fail)?;
            let len = validate(&t, o.schedule().expect("schedule")).expect("valid").length;
            prop_assert_eq!(len, brute_chromatic(&t));
            prop_assert!(len >= t.duration());
            prop_assert!(o.lower_bound(&t).value >= t.duration());
            prop_assert!(matches!(o.verdict(), Verdict::Liquid | Verdict::Optimal));
        }
    }

    #[test]
    fn no_team_is_optimal_at_three_by_clique() {
        let t = no_team();
        let o = solve(&t, &Limits::default()).outcome;
        assert_eq!(o.verdict(), Verdict::Optimal);
        assert_eq!(o.lower_bound(&t).value, 3);
        assert!(matches!(o.lower_bound(&t).evidence, Evidence::Clique(_)));
    }

    #[test]
    fn a_zero_time_limit_stops_before_the_first_dive() {
        let t = no_team();
        let o = solve(
            &t,
            &Limits {
                time: Some(std::time::Duration::ZERO),
                nodes: None,
            },
        )
        .outcome;
        check_outcome(&t, &o).expect("consistent");
        assert_eq!(o.verdict(), Verdict::Unknown);
        assert_eq!(o.schedule(), None);
    }
}
