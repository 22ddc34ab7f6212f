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
//!   ones under a swap, so their sub-traffics are isomorphic and equally (non-)liquid.

use std::collections::HashSet;
use std::time::Instant;

use fixedbitset::FixedBitSet;
use liquid_model::{
    Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId, Verdict, Witness,
};

use crate::teams::{all_transfers, bottlenecks_in, loads_in, to_ids, FullTeams, TransferSet};

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
    limits: Limits,
    deadline: Option<Instant>,
    /// `twin_prev[t]`: the previous transfer with exactly the same link set, if any.
    twin_prev: Vec<Option<usize>>,
    memo: HashSet<TransferSet>,
    stats: SearchStats,
    frames: Vec<TransferSet>,
}

struct Stop;

impl Search<'_> {
    fn out_of_budget(&self) -> bool {
        if let Some(n) = self.limits.nodes {
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
        if self.out_of_budget() {
            return Err(Stop);
        }
        let (d, _) = bottlenecks_in(self.traffic, rem);
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
        // Value ordering (any order keeps the search exhaustive: every full team is
        // still tried). The enumerator is lazy and a node may have very many full
        // teams, so they are taken in chunks of `CHUNK`, each sorted before it is tried:
        // teams covering more links of load Λ(R)-1 first (a link of load Λ(R)-1 that
        // the team misses becomes a bottleneck of R - A, which every later team must
        // then cover), then teams using more heavily loaded links.
        let loads = loads_in(self.traffic, rem);
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
            if chunk.is_empty() {
                if enumeration.stopped() {
                    // The deadline cut the enumeration short: this node is not exhausted.
                    return Err(Stop);
                }
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

/// Runs the liquid search on the sub-traffic `set`.
pub fn search(
    traffic: &Traffic,
    set: &TransferSet,
    limits: &Limits,
) -> (SearchResult, SearchStats) {
    let mut s = Search {
        traffic,
        limits: *limits,
        deadline: limits.deadline(),
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
    (r, s.stats)
}

/// The `native` engine: `liquid` with a schedule, `non-liquid` (lower bound Λ+1 by
/// exhaustion) when the whole space was explored, `unknown` when a limit stopped it.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Outcome {
    let (r, st) = search(traffic, &all_transfers(traffic), limits);
    let stats = vec![
        ("nodes".to_string(), StatValue::Count(st.nodes)),
        ("teams".to_string(), StatValue::Count(st.teams)),
        ("dead_ends".to_string(), StatValue::Count(st.dead_ends)),
        ("memo_hits".to_string(), StatValue::Count(st.memo_hits)),
        ("twin_skips".to_string(), StatValue::Count(st.twin_skips)),
    ];
    let (verdict, schedule, lower_bound) = match r {
        SearchResult::Liquid(frames) => (
            Verdict::Liquid,
            Some(Schedule::new(frames)),
            LowerBound::duration(traffic),
        ),
        SearchResult::NonLiquid => (
            Verdict::NonLiquid,
            None,
            LowerBound {
                value: traffic.duration() + 1,
                witness: Witness::Exhaustion {
                    engine: "native".to_string(),
                    nodes: st.nodes,
                },
            },
        ),
        SearchResult::Stopped => (Verdict::Unknown, None, LowerBound::duration(traffic)),
    };
    Outcome {
        engine: "native".to_string(),
        verdict,
        schedule,
        lower_bound,
        stats,
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
    use crate::teams::tests::arb_traffic;
    use liquid_model::validate;
    use proptest::prelude::*;

    /// Brute force: does some assignment of Λ colours colour the conflict graph?
    fn brute_liquid(t: &Traffic) -> bool {
        let n = t.len();
        let k = t.duration();
        let mut col = vec![0usize; n];
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
        rec(t, 0, k, &mut col)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn agrees_with_brute_force(t in arb_traffic(10, 6)) {
            let o = solve(&t, &Limits::default());
            let expected = brute_liquid(&t);
            match o.verdict {
                Verdict::Liquid => {
                    prop_assert!(expected);
                    let s = o.schedule.expect("schedule");
                    prop_assert_eq!(validate(&t, &s).expect("valid").length, t.duration());
                }
                Verdict::NonLiquid => prop_assert!(!expected),
                v => prop_assert!(false, "unexpected verdict {}", v),
            }
        }
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
        assert_eq!(solve(&t, &Limits::default()).verdict, Verdict::Liquid);
    }

    #[test]
    fn node_limit_stops() {
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
        assert_eq!(o.verdict, Verdict::NonLiquid);
        assert_eq!(o.lower_bound.value, 3);
        let o = solve(
            &t,
            &Limits {
                time: None,
                nodes: Some(0),
            },
        );
        assert_eq!(o.verdict, Verdict::Unknown);
    }
}
