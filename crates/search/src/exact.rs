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
//! milliseconds. A traffic of more transfers than [`QUICK_NODES`] skips the short branch
//! and bound, whose first dive (a node per transfer) cannot complete in it: DSatur's
//! schedule is the tabu search's start instead (before, `torus:8x8,2` got no schedule at
//! all, after 1 s of a 300 s limit). `stats.stage` says which path answered.
//!
//! Under a time limit the engine stops everywhere, the first dive and the clique included
//! (at a million transfers each takes minutes): it then answers `unknown` with what it
//! has.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use crate::chromatic::colour;
use crate::cliques::CliqueFinder;
use crate::teams::TransferSet;

pub use crate::chromatic::{colour_subset, colour_subset_with_progress, ExactColouring};
use crate::structured::liquid_schedule;
use liquid_model::{
    Answer, Limits, LinkId, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId,
};

/// The engine's name in answers and on the command line (`--engine exact`).
pub const ENGINE: &str = "exact";

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
    greedy_clique_in(traffic, &crate::teams::all_transfers(traffic), deadline)
}

/// [`greedy_clique_until`] among the transfers of `set` only, seeded by the links most
/// loaded by them, in time proportional to the loads met: no sub-traffic is built (on a
/// million transfers, building one takes seconds that no deadline cuts).
pub fn greedy_clique_in(
    traffic: &Traffic,
    set: &TransferSet,
    deadline: Option<Instant>,
) -> Option<Vec<TransferId>> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return None;
    }
    let loads = crate::teams::loads_in(traffic, set);
    let mut links: Vec<LinkId> = traffic.link_ids().collect();
    links.sort_by_key(|&l| (std::cmp::Reverse(loads[l.index()]), l));
    links.truncate(CLIQUE_SEEDS);
    let clique =
        CliqueFinder::new(traffic.len()).best(traffic, set, &links, CLIQUE_SEEDS, deadline);
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
        ExactColouring::default()
    } else {
        // A short branch and bound settles most small traffics at once.
        let quick = Limits {
            nodes: Some(left(0).nodes.map_or(QUICK_NODES, |n| n.min(QUICK_NODES))),
            ..left(0)
        };
        // Its first dive colours every transfer once, a node each: on a traffic of more
        // transfers than the quick budget has nodes, it cannot hold a schedule.
        let first = if vs.len() as u64 <= QUICK_NODES {
            colour(traffic, &vs, &quick, progress, true, None, bound.value)
        } else {
            ExactColouring::default()
        };
        // Not settled: the tabu search and the branch and bound start from the dive's
        // schedule, or, when it has none (torus:8x8,2: 16,256 transfers, no schedule after
        // 1 s of a 300 s limit), from DSatur's, the dive's first descent without the
        // budget, with time and nodes left.
        let nodes_left = limits.nodes.is_none_or(|n| first.nodes < n);
        let time_left = deadline.is_none_or(|d| Instant::now() < d);
        let start = if first.optimal {
            None
        } else if !first.frames.is_empty() {
            Some(Schedule::new(first.frames.clone()))
        } else if nodes_left && time_left {
            crate::dsatur::colour_until(traffic, deadline, &AtomicU64::new(0))
                .map(|c| c.to_schedule())
        } else {
            None
        };
        match start {
            Some(from) => {
                // The tabu search towards the bound, then the branch and bound from its schedule.
                stage = if first.frames.is_empty() {
                    "dsatur, tabu search, branch and bound"
                } else {
                    "branch and bound, tabu search, branch and bound"
                };
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
            _ => {
                stage = "branch and bound";
                first
            }
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

    /// A traffic of more transfers than the quick branch and bound has nodes, which no
    /// orbit or part settles: its first dive cannot complete, and DSatur's schedule is the
    /// start instead (before, the engine answered with no schedule at all).
    #[test]
    fn a_traffic_beyond_the_quick_budget_starts_from_dsatur() {
        let mut rng = liquid_model::rng::SplitMix64(7);
        let links: Vec<String> = (0..400).map(|l| format!("l{l}")).collect();
        let transfers: Vec<(String, Vec<String>)> = (0..QUICK_NODES as usize + 500)
            .map(|i| {
                let a = rng.below(400) as usize;
                let b = (a + 1 + rng.below(399) as usize) % 400;
                (format!("x{i}"), vec![links[a].clone(), links[b].clone()])
            })
            .collect();
        let t = Traffic::from_paths("random-pairs", &transfers).expect("valid");
        let limits = Limits {
            time: None,
            nodes: Some(QUICK_NODES),
        };
        let a = solve(&t, &limits);
        check_outcome(&t, &a.outcome).expect("valid outcome");
        let schedule = a.outcome.schedule().expect("a schedule");
        assert!(schedule.len() >= t.duration());
        let stage = a.stats.iter().find(|(k, _)| k == "stage").expect("stage");
        assert_eq!(
            stage.1,
            StatValue::Text("dsatur, tabu search, branch and bound".into())
        );
    }

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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// A clique among a subset: only its transfers, pairwise congesting, at least as
        /// large as the subset's most loaded link.
        #[test]
        fn a_clique_among_a_subset_stays_in_it(
            t in arb_traffic(12, 40),
            mask in prop::collection::vec(any::<bool>(), 12),
        ) {
            let mut set = TransferSet::with_capacity(t.len());
            set.extend((0..t.len()).filter(|&i| mask[i]));
            let c = greedy_clique_in(&t, &set, None).expect("no deadline");
            for (i, &a) in c.iter().enumerate() {
                prop_assert!(set.contains(a.index()));
                for &b in &c[..i] {
                    prop_assert!(t.congest(a, b));
                }
            }
            let most = crate::teams::loads_in(&t, &set).into_iter().max().unwrap_or(0);
            prop_assert!(c.len() >= most);
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
