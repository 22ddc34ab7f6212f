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
//! the users of the most loaded links, reported as [`Witness::Clique`] when larger.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use liquid_model::{
    Limits, LinkId, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId, Verdict, Witness,
};

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
    stopped: bool,
    seen: Vec<u64>,
    stamp: u64,
    progress: &'a AtomicU64,
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

    fn limit_hit(&self) -> bool {
        // The first dive always completes, so a limit leaves a schedule behind.
        if self.best > self.vs.len() {
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
        // DSATUR choice.
        let mut pick = usize::MAX;
        let mut key = (0u32, 0u64);
        for i in 0..self.vs.len() {
            if self.colour[i] != NONE {
                continue;
            }
            let k = (self.saturation(i), self.degree[i]);
            if pick == usize::MAX || k > key {
                pick = i;
                key = k;
            }
        }
        let v = pick;
        // Mark the colours v congests with.
        self.saturation(v);
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
            for k in 0..self.path(v).len() {
                let l = self.path(v)[k].index();
                self.on_link[l].push(c);
            }
            self.go(coloured + 1, new_used);
            for k in 0..self.path(v).len() {
                let l = self.path(v)[k].index();
                self.on_link[l].pop();
            }
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
    let n = vs.len();
    let mut member = vec![false; traffic.len()];
    vs.iter().for_each(|t| member[t.index()] = true);
    let mut mark = vec![false; traffic.len()];
    let degree = vs
        .iter()
        .map(|&t| {
            let mut d = 0;
            traffic.for_each_neighbour(t, &mut mark, |u| {
                if member[u.index()] {
                    d += 1;
                }
            });
            d
        })
        .collect();
    let mut b = Bnb {
        traffic,
        vs,
        degree,
        colour: vec![NONE; n],
        on_link: vec![Vec::new(); traffic.num_links()],
        best: n + 1,
        best_colour: Vec::new(),
        lower: max_load(traffic, vs).0,
        nodes: 0,
        limits: *limits,
        deadline: limits.deadline(),
        stopped: false,
        seen: vec![0; n + 1],
        stamp: 0,
        progress,
    };
    if n > 0 {
        b.go(0, 0);
    }
    let mut frames = vec![Vec::new(); if n == 0 { 0 } else { b.best }];
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
/// loaded links (at least as large as Λ).
pub fn greedy_clique(traffic: &Traffic) -> Vec<TransferId> {
    let mut links: Vec<LinkId> = traffic.link_ids().collect();
    links.sort_by_key(|&l| (std::cmp::Reverse(traffic.load(l)), l));
    let degrees = traffic.conflict_degrees();
    let mut order: Vec<TransferId> = traffic.transfer_ids().collect();
    order.sort_by_key(|t| (std::cmp::Reverse(degrees[t.index()]), *t));
    let mut best: Vec<TransferId> = Vec::new();
    for &l in links.iter().take(32) {
        let mut clique: Vec<TransferId> = traffic.users(l).to_vec();
        for &t in &order {
            if !clique.contains(&t) && clique.iter().all(|&c| traffic.congest(c, t)) {
                clique.push(t);
            }
        }
        if clique.len() > best.len() {
            best = clique;
        }
    }
    best
}

/// The `exact` engine: `liquid` or `optimal` with the schedule and its lower bound (Λ by a
/// bottleneck, a clique when larger, or exhaustion of the branch and bound), or
/// `feasible` with the best schedule and the best bound when a limit stops it.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Outcome {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// [`solve`], adding every search node to `progress` as it is visited (a caller may poll
/// it from another thread to show progress).
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Outcome {
    let vs: Vec<TransferId> = traffic.transfer_ids().collect();
    let clique = greedy_clique(traffic);
    let r = colour_subset_with_progress(traffic, &vs, limits, progress);
    let len = r.frames.len();
    let d = traffic.duration();
    let bound = if clique.len() > d {
        LowerBound {
            value: clique.len(),
            witness: Witness::Clique(clique.clone()),
        }
    } else {
        LowerBound::duration(traffic)
    };
    let (verdict, lower_bound) = if len == d {
        (Verdict::Liquid, LowerBound::duration(traffic))
    } else if len == bound.value {
        (Verdict::Optimal, bound)
    } else if r.optimal {
        (
            Verdict::Optimal,
            LowerBound {
                value: len,
                witness: Witness::Exhaustion {
                    engine: "exact".to_string(),
                    nodes: r.nodes,
                },
            },
        )
    } else {
        (Verdict::Feasible, bound)
    };
    Outcome {
        engine: "exact".to_string(),
        verdict,
        schedule: Some(Schedule::new(r.frames)),
        lower_bound,
        stats: vec![
            ("nodes".to_string(), StatValue::Count(r.nodes)),
            ("clique".to_string(), StatValue::Count(clique.len() as u64)),
            (
                "complete".to_string(),
                StatValue::Text(if r.optimal { "yes" } else { "no" }.to_string()),
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teams::tests::arb_traffic;
    use liquid_model::{check_outcome, validate};
    use proptest::prelude::*;

    /// Brute force chromatic number: smallest k with a proper k-colouring.
    fn brute_chromatic(t: &Traffic) -> usize {
        fn rec(t: &Traffic, i: usize, k: usize, col: &mut Vec<usize>) -> bool {
            if i == col.len() {
                return true;
            }
            for c in 0..k {
                if (0..i)
                    .all(|j| col[j] != c || !t.congest(TransferId(i as u32), TransferId(j as u32)))
                {
                    col[i] = c;
                    if rec(t, i + 1, k, col) {
                        return true;
                    }
                }
            }
            false
        }
        (1..=t.len())
            .find(|&k| rec(t, 0, k, &mut vec![0; t.len()]))
            .expect("n colours suffice")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn equals_brute_force(t in arb_traffic(10, 5)) {
            let o = solve(&t, &Limits::default());
            check_outcome(&t, &o).map_err(TestCaseError::fail)?;
            let len = validate(&t, o.schedule.as_ref().expect("schedule")).expect("valid").length;
            prop_assert_eq!(len, brute_chromatic(&t));
            prop_assert!(len >= t.duration());
            prop_assert!(o.lower_bound.value >= t.duration());
            prop_assert!(matches!(o.verdict, Verdict::Liquid | Verdict::Optimal));
        }
    }

    #[test]
    fn no_team_is_optimal_at_three_by_clique() {
        let t = Traffic::from_paths(
            "t",
            &[
                ("x", vec!["a", "b"]),
                ("y", vec!["b", "c"]),
                ("z", vec!["a", "c"]),
            ],
        )
        .expect("valid");
        let o = solve(&t, &Limits::default());
        assert_eq!(o.verdict, Verdict::Optimal);
        assert_eq!(o.lower_bound.value, 3);
        assert!(matches!(o.lower_bound.witness, Witness::Clique(_)));
    }
}
