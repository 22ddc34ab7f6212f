//! The liquid schedule search of paper 003 section 3 (engine `native`).
//!
//! Depth-first over the full teams of the *current reduced* traffic (Theorems 1-2: if X
//! has a liquid schedule, it has one whose first timeframe is a full team of X, and the
//! rest is a liquid schedule of the remainder). A node is a remaining sub-traffic R; it is
//! a leaf (solution) when R is one team (simultaneous), a dead end when R has no full team;
//! otherwise every full team A of R is tried in turn, recursing on R − A, backtracking
//! when a branch fails. Exhaustive: `non-liquid` means the whole space was explored.
//!
//! Additions beyond the paper, each keeping the search exhaustive:
//! - **bitsets**: R and the teams are [`FixedBitSet`]s; the teams come from
//!   [`crate::teams::FullTeams`], which branches on the most constrained bottleneck first;
//! - **memo of failures**: whether R has a liquid schedule depends on R alone, so a
//!   sub-traffic proven non-liquid is stored (the full set, not only its hash, so a hash
//!   collision can never prune a live branch) and skipped when met again through another
//!   order of the same teams. The memo is capped in size; past the cap it stops growing,
//!   which only loses pruning, never solutions;
//! - **identical transfers**: two transfers with the same path are interchangeable in
//!   every schedule (swapping them maps schedules to schedules of the same length), so of
//!   the full teams that differ only by which twin they hold, only the one holding the
//!   lowest-id twin still in R is explored: the skipped branches are images of explored
//!   ones under a swap, so their sub-traffics are isomorphic and equally (non-)liquid;
//! - **clique pruning**: a sub-traffic R holding k > Λ(R) pairwise congesting transfers
//!   needs at least k timeframes (each in a timeframe of its own), so it has no liquid
//!   schedule and the node is a dead end. The clique is grown greedily from the users of
//!   a bottleneck of R (see [`CliqueFinder`]); it is a sufficient test only, so a node it
//!   does not refute is searched as before: nothing live is pruned. When the root itself
//!   is refuted, the clique is the witness (a clique lower bound, checkable by anyone);
//! - **independent components**: transfers in different components (no shared link,
//!   directly or through other transfers) never congest, so a schedule of the traffic is
//!   any set of schedules of its components, timeframe j being the union of the
//!   components' timeframes j. The traffic has a liquid schedule (Λ frames) iff every
//!   component has a schedule of at most Λ frames. A component whose own Λ equals Λ
//!   needs a liquid schedule of its own (this search); a component whose Λ is lower
//!   needs at most Λ frames, which is not liquidity of the component: DSatur settles it
//!   when it reaches Λ frames, else the exact engine (chromatic number) decides.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use fixedbitset::FixedBitSet;
use liquid_model::{
    Answer, Limits, LinkId, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId,
};

use crate::teams::{bottlenecks_in, loads_in, to_ids, FullTeams, TransferSet};

/// Largest number of failed sub-traffics remembered.
const MEMO_CAP: usize = 1 << 20;

/// Full teams sorted together before they are tried (see [`Search::go`]).
const CHUNK: usize = 512;

/// Counters of one search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Search nodes: sub-traffics visited.
    pub nodes: u64,
    /// Full teams enumerated over all nodes.
    pub teams: u64,
    /// Nodes pruned because the sub-traffic was already proven non-liquid.
    pub memo_hits: u64,
    /// Full teams skipped as twins (identical transfers) of an explored team.
    pub twin_skips: u64,
    /// Dead ends: sub-traffics without any full team.
    pub dead_ends: u64,
    /// Nodes pruned because a clique larger than Λ(R) was found in the sub-traffic.
    pub clique_prunes: u64,
}

/// Most loaded links of a sub-traffic from which [`CliqueFinder`] grows a clique at a node.
const CLIQUE_SEEDS: usize = 4;

/// The same at the root, which is met once.
const ROOT_CLIQUE_SEEDS: usize = 32;

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
}

impl CliqueFinder {
    /// Scratch space for a traffic of `n` transfers.
    pub fn new(n: usize) -> Self {
        CliqueFinder {
            cnt: vec![0; n],
            seen: vec![0; n],
            stamp: 0,
            touched: Vec::new(),
        }
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

    /// A clique of `set` grown from the users of `seed` that are in `set`.
    pub fn grow(&mut self, traffic: &Traffic, set: &TransferSet, seed: LinkId) -> Vec<usize> {
        let mut clique: Vec<usize> = Vec::new();
        let seeds: Vec<usize> = traffic
            .users(seed)
            .iter()
            .map(|t| t.index())
            .filter(|&t| set.contains(t))
            .collect();
        for t in seeds {
            self.add(traffic, set, &mut clique, t);
        }
        loop {
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
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let c = self.grow(traffic, set, l);
            if c.len() > best.len() {
                best = c;
            }
        }
        best
    }
}

/// What [`search`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchResult {
    /// A liquid schedule: each timeframe a full team of the remainder before it.
    Liquid(Vec<Vec<TransferId>>),
    /// The whole space was explored: no liquid schedule.
    NonLiquid,
    /// A limit stopped the search.
    Stopped,
}

struct Search<'a> {
    traffic: &'a Traffic,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    progress: &'a AtomicU64,
    cliques: CliqueFinder,
    /// The clique that refuted the root, if one did.
    root_clique: Option<Vec<usize>>,
    /// `twin_prev[t]`: the previous transfer with exactly the same link set, if any.
    twin_prev: Vec<Option<usize>>,
    memo: HashSet<TransferSet>,
    stats: SearchStats,
    frames: Vec<TransferSet>,
}

struct Stop;

impl Search<'_> {
    fn out_of_budget(&self) -> bool {
        if let Some(n) = self.node_limit {
            if self.stats.nodes > n {
                return true;
            }
        }
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the team holds a twin whose lower-id twin is still in `rem`.
    fn skips_a_lower_twin(&self, team: &TransferSet, rem: &TransferSet) -> bool {
        team.ones().any(|t| {
            let mut p = self.twin_prev[t];
            while let Some(q) = p {
                if rem.contains(q) {
                    return true;
                }
                p = self.twin_prev[q];
            }
            false
        })
    }

    /// Ok(true): a liquid schedule of `rem` was pushed onto `frames` (in reverse order).
    fn go(&mut self, rem: &TransferSet) -> Result<bool, Stop> {
        self.stats.nodes += 1;
        self.progress.fetch_add(1, Ordering::Relaxed);
        if self.out_of_budget() {
            return Err(Stop);
        }
        let (d, bottlenecks) = bottlenecks_in(self.traffic, rem);
        if d <= 1 {
            // One team (or nothing left).
            if d == 1 {
                self.frames.push(rem.clone());
            }
            return Ok(true);
        }
        if self.memo.contains(rem) {
            self.stats.memo_hits += 1;
            return Ok(false);
        }
        // Clique pruning (module docs): more than Λ(R) pairwise congesting transfers,
        // grown from the most loaded links of R (more seeds at the root, met once).
        let loads = loads_in(self.traffic, rem);
        let seeds = if self.stats.nodes == 1 {
            ROOT_CLIQUE_SEEDS
        } else {
            CLIQUE_SEEDS
        };
        let mut heavy: Vec<LinkId> = bottlenecks;
        if heavy.len() < seeds {
            let mut others: Vec<LinkId> = (0..loads.len())
                .filter(|&l| loads[l] >= 2 && loads[l] < d)
                .map(|l| LinkId(l as u32))
                .collect();
            others.sort_by_key(|l| (std::cmp::Reverse(loads[l.index()]), *l));
            heavy.extend(others.into_iter().take(seeds - heavy.len()));
        }
        let clique = self
            .cliques
            .best(self.traffic, rem, &heavy, seeds, self.deadline);
        if clique.len() > d {
            self.stats.clique_prunes += 1;
            if self.stats.nodes == 1 {
                self.root_clique = Some(clique);
            }
            if self.memo.len() < MEMO_CAP {
                self.memo.insert(rem.clone());
            }
            return Ok(false);
        }
        if self.out_of_budget() {
            return Err(Stop); // the clique test ran out the clock
        }
        // Value ordering (any order keeps the search exhaustive: every full team is
        // still tried). The enumerator is lazy and a node may have very many full
        // teams, so they are taken in chunks of `CHUNK`, each sorted before it is tried:
        // teams covering more links of load Λ(R)-1 first (a link of load Λ(R)-1 that
        // the team misses becomes a bottleneck of R - A, which every later team must
        // then cover), then teams using more heavily loaded links.
        let mut enumeration = FullTeams::new(self.traffic, rem).with_deadline(self.deadline);
        let mut any = false;
        let mut chunk: Vec<(usize, usize, TransferSet)> = Vec::with_capacity(CHUNK);
        loop {
            chunk.clear();
            for team in enumeration.by_ref() {
                any = true;
                self.stats.teams += 1;
                if self.skips_a_lower_twin(&team, rem) {
                    self.stats.twin_skips += 1;
                    continue;
                }
                let (mut near, mut weight) = (0, 0);
                for t in team.ones() {
                    for l in &self.traffic.transfer(TransferId(t as u32)).path {
                        let x = loads[l.index()];
                        near += usize::from(x + 1 == d);
                        weight += x;
                    }
                }
                chunk.push((near, weight, team));
                if chunk.len() == CHUNK {
                    break;
                }
            }
            if enumeration.timed_out() {
                return Err(Stop);
            }
            if chunk.is_empty() {
                break;
            }
            chunk.sort_by_key(|c| std::cmp::Reverse((c.0, c.1)));
            for (_, _, team) in chunk.drain(..) {
                let mut next = rem.clone();
                next.difference_with(&team);
                if self.go(&next)? {
                    self.frames.push(team);
                    return Ok(true);
                }
                if self.out_of_budget() {
                    return Err(Stop);
                }
            }
        }
        if !any {
            self.stats.dead_ends += 1;
        }
        if self.memo.len() < MEMO_CAP {
            self.memo.insert(rem.clone());
        }
        Ok(false)
    }
}

/// For every transfer, the previous transfer (lower id) with the same set of links.
fn twins(traffic: &Traffic) -> Vec<Option<usize>> {
    let mut last: std::collections::HashMap<Vec<u32>, usize> = Default::default();
    traffic
        .transfers()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut key: Vec<u32> = t.path.iter().map(|l| l.0).collect();
            key.sort_unstable();
            last.insert(key, i)
        })
        .collect()
}

/// Runs the liquid search on the sub-traffic `set` (no component splitting: see
/// [`solve_with_progress`]).
pub fn search(
    traffic: &Traffic,
    set: &TransferSet,
    limits: &Limits,
) -> (SearchResult, SearchStats) {
    let (r, st, _) = run(
        traffic,
        set,
        limits.nodes,
        limits.deadline(),
        &AtomicU64::new(0),
    );
    (r, st)
}

/// The search proper; also returns the clique that refuted the root, if one did.
fn run(
    traffic: &Traffic,
    set: &TransferSet,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> (SearchResult, SearchStats, Option<Vec<usize>>) {
    let mut s = Search {
        traffic,
        node_limit,
        deadline,
        progress,
        cliques: CliqueFinder::new(traffic.len()),
        root_clique: None,
        twin_prev: twins(traffic),
        memo: HashSet::new(),
        stats: SearchStats::default(),
        frames: Vec::new(),
    };
    let r = match s.go(set) {
        Ok(true) => {
            let mut frames: Vec<Vec<TransferId>> = s.frames.iter().rev().map(to_ids).collect();
            frames.retain(|f| !f.is_empty());
            SearchResult::Liquid(frames)
        }
        Ok(false) => SearchResult::NonLiquid,
        Err(Stop) => SearchResult::Stopped,
    };
    (r, s.stats, s.root_clique)
}

/// The independent components of a traffic (transfers linked by shared links), each as
/// increasing transfer ids, ordered by their lowest id. Union-find over links: time and
/// memory linear in the total path length.
pub fn components(traffic: &Traffic) -> Vec<Vec<TransferId>> {
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let m = traffic.num_links();
    let mut parent: Vec<usize> = (0..m).collect();
    for t in traffic.transfers() {
        let a = find(&mut parent, t.path[0].index());
        for l in &t.path[1..] {
            let b = find(&mut parent, l.index());
            if a != b {
                parent[b] = a;
            }
        }
    }
    let mut index = vec![usize::MAX; m];
    let mut out: Vec<Vec<TransferId>> = Vec::new();
    for t in traffic.transfer_ids() {
        let root = find(&mut parent, traffic.transfer(t).path[0].index());
        if index[root] == usize::MAX {
            index[root] = out.len();
            out.push(Vec::new());
        }
        out[index[root]].push(t);
    }
    out
}

/// The `native` engine: `liquid` with a schedule, `non-liquid` (lower bound Λ+1 by
/// exhaustion, or a clique larger than Λ) when the whole space was explored, `unknown`
/// when a limit stopped it.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Answer {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// [`solve`], adding every search node to `progress` as it is visited (a caller may
/// poll it from another thread to show progress).
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Answer {
    let deadline = limits.deadline();
    let d = traffic.duration();
    let comps = components(traffic);
    let mut total = SearchStats::default();
    let mut exact_nodes = 0u64;
    let mut clique: Option<Vec<usize>> = None;
    // Timeframe j of the schedule: the union of the components' timeframes j.
    let mut frames: Vec<Vec<TransferId>> = Vec::new();
    let mut result = Ok(());
    for comp in &comps {
        let mut set = FixedBitSet::with_capacity(traffic.len());
        comp.iter().for_each(|t| set.insert(t.index()));
        let (dc, _) = bottlenecks_in(traffic, &set);
        let searched = total.nodes + exact_nodes;
        let node_limit = limits.nodes.map(|n| n.saturating_sub(searched));
        let got: Result<Vec<Vec<TransferId>>, bool> = if dc == d {
            let (r, st, c) = run(traffic, &set, node_limit, deadline, progress);
            add_stats(&mut total, &st);
            match r {
                SearchResult::Liquid(f) => Ok(f),
                SearchResult::NonLiquid => {
                    clique = c;
                    Err(true)
                }
                SearchResult::Stopped => Err(false),
            }
        } else {
            within(traffic, comp, d, node_limit, deadline, &mut exact_nodes)
        };
        match got {
            Ok(f) => {
                if frames.len() < f.len() {
                    frames.resize(f.len(), Vec::new());
                }
                for (j, mut frame) in f.into_iter().enumerate() {
                    frames[j].append(&mut frame);
                }
            }
            Err(proven) => {
                result = Err(proven);
                break;
            }
        }
    }
    let stats = vec![
        ("nodes".to_string(), StatValue::Count(total.nodes)),
        ("teams".to_string(), StatValue::Count(total.teams)),
        ("dead_ends".to_string(), StatValue::Count(total.dead_ends)),
        ("memo_hits".to_string(), StatValue::Count(total.memo_hits)),
        ("twin_skips".to_string(), StatValue::Count(total.twin_skips)),
        (
            "clique_prunes".to_string(),
            StatValue::Count(total.clique_prunes),
        ),
        (
            "components".to_string(),
            StatValue::Count(comps.len() as u64),
        ),
        ("exact_nodes".to_string(), StatValue::Count(exact_nodes)),
    ];
    let outcome = match result {
        Ok(()) => {
            for f in &mut frames {
                f.sort_unstable();
            }
            Outcome::Liquid {
                schedule: Schedule::new(frames),
            }
        }
        Err(true) => {
            let bound = match clique {
                // A clique refuting a component's root is a clique of the traffic, larger
                // than the component's Λ, which equals Λ.
                Some(c) if c.len() > d => {
                    let mut c: Vec<TransferId> =
                        c.into_iter().map(|t| TransferId(t as u32)).collect();
                    c.sort_unstable();
                    LowerBound::clique(c)
                }
                _ => LowerBound::exhaustive(d + 1, "native", total.nodes + exact_nodes),
            };
            Outcome::NonLiquid { bound, best: None }
        }
        Err(false) => Outcome::Unknown {
            best: None,
            bound: LowerBound::duration(traffic),
        },
    };
    Answer {
        engine: "native".to_string(),
        outcome,
        stats,
    }
}

fn add_stats(total: &mut SearchStats, st: &SearchStats) {
    total.nodes += st.nodes;
    total.teams += st.teams;
    total.memo_hits += st.memo_hits;
    total.twin_skips += st.twin_skips;
    total.dead_ends += st.dead_ends;
    total.clique_prunes += st.clique_prunes;
}

/// A schedule of at most `d` timeframes for a component whose own Λ is below `d`:
/// DSatur's when it has at most `d` timeframes, else the exact engine's. `Err(true)`:
/// proven impossible (the chromatic number exceeds `d`); `Err(false)`: a limit stopped it.
fn within(
    traffic: &Traffic,
    comp: &[TransferId],
    d: usize,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    exact_nodes: &mut u64,
) -> Result<Vec<Vec<TransferId>>, bool> {
    let sub = traffic.sub_traffic(comp);
    let c = crate::dsatur::colour(&sub);
    if c.colours as usize <= d {
        let mut frames = vec![Vec::new(); c.colours as usize];
        for (i, &col) in c.colour.iter().enumerate() {
            frames[col as usize].push(comp[i]);
        }
        return Ok(frames);
    }
    let limits = Limits {
        time: deadline.map(|t| t.saturating_duration_since(Instant::now())),
        nodes: node_limit,
    };
    let r = crate::exact::colour_subset(traffic, comp, &limits);
    *exact_nodes += r.nodes;
    if r.frames.len() <= d {
        Ok(r.frames)
    } else if r.optimal {
        Err(true)
    } else {
        Err(false)
    }
}

/// Whether a sub-traffic has a liquid schedule, with no limit (for tests and callers that
/// only need the answer).
pub fn is_liquid(traffic: &Traffic, set: &FixedBitSet) -> bool {
    matches!(
        search(traffic, set, &Limits::default()).0,
        SearchResult::Liquid(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{arb_traffic, colourable, no_team, no_team_paths};
    use liquid_model::{validate, Evidence, Verdict};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn agrees_with_brute_force(t in arb_traffic(10, 6)) {
            let o = solve(&t, &Limits::default()).outcome;
            let expected = colourable(&t, t.duration());
            match o.verdict() {
                Verdict::Liquid => {
                    prop_assert!(expected);
                    let s = o.schedule().cloned().expect("schedule");
                    prop_assert_eq!(validate(&t, &s).expect("valid").length, t.duration());
                }
                Verdict::NonLiquid => prop_assert!(!expected),
                v => prop_assert!(false, "unexpected verdict {}", v),
            }
        }
    }

    #[test]
    fn a_component_below_lambda_needs_at_most_lambda_frames() {
        // Component 1: a triangle (own Λ 2, chromatic number 3). Component 2: three
        // transfers on one link (Λ 3). Liquid at 3, though the triangle is not liquid.
        let mut paths = no_team_paths();
        paths.extend([("p", vec!["m"]), ("q", vec!["m"]), ("r", vec!["m"])]);
        let t = Traffic::from_paths("t", &paths).expect("valid");
        assert_eq!(components(&t).len(), 2);
        let o = solve(&t, &Limits::default()).outcome;
        assert_eq!(o.verdict(), Verdict::Liquid);
        let s = o.schedule().cloned().expect("schedule");
        assert_eq!(validate(&t, &s).expect("valid").length, 3);
    }

    #[test]
    fn a_root_clique_is_the_witness() {
        let t = no_team();
        let o = solve(&t, &Limits::default()).outcome;
        assert_eq!(o.verdict(), Verdict::NonLiquid);
        assert!(matches!(o.lower_bound(&t).evidence, Evidence::Clique(ref c) if c.len() == 3));
        liquid_model::check_outcome(&t, &o).expect("the clique checks");
    }

    #[test]
    fn twins_are_found() {
        let t = Traffic::from_paths(
            "t",
            &[
                ("x", vec!["a", "b"]),
                ("y", vec!["b", "a"]),
                ("z", vec!["a"]),
                ("w", vec!["b", "a"]),
            ],
        )
        .expect("valid");
        assert_eq!(twins(&t), vec![None, Some(0), None, Some(1)]);
        assert_eq!(solve(&t, &Limits::default()).verdict(), Verdict::Liquid);
    }

    #[test]
    fn node_limit_stops() {
        let t = no_team();
        let o = solve(&t, &Limits::default()).outcome;
        assert_eq!(o.verdict(), Verdict::NonLiquid);
        assert_eq!(o.lower_bound(&t).value, 3);
        let o = solve(
            &t,
            &Limits {
                time: None,
                nodes: Some(0),
            },
        )
        .outcome;
        assert_eq!(o.verdict(), Verdict::Unknown);
    }
}
