//! The `native` engine: the orbit check of [`crate::structured`] first, then the full-team
//! search of 003/004 ([`crate::liquid`]).
//!
//! The orbit check costs O(Σ|x|) per group tried and answers only when an all-to-all's
//! orbit frames are all conflict-free: Λ frames, a liquid schedule, which the engine gate
//! validates like any other. When they are not, the parts and ports of [`crate::ports`]
//! are tried (O(Σ|x| α) to split, orbits or König per part), with the same rule: a
//! schedule of Λ frames or nothing. It never answers "non-liquid": every other traffic (not an
//! all-to-all, or orbits in conflict) goes to the search, whose non-liquid verdict stays
//! exhaustive. What the check buys: generated fat-tree all-to-alls are liquid at once at
//! every size, where the search alone stalls (16,256 transfers and up).

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{validate, Answer, Limits, LowerBound, Outcome, StatValue, Traffic, Verdict};

use crate::cover::{liquid_cover, CoverOptions, Covered};
use crate::structured::liquid_schedule;

/// Nodes the full-team search gets before the cover stage ([`liquid_by_cover`]): most
/// traffics are decided within them, and never pay for the cover stage.
pub const FIRST_NODES: u64 = 2_000;

/// Nodes the cover stage ([`liquid_by_cover`]) gets (and at most half the time left).
pub const COVER_NODES: u64 = 2_000_000;

/// What the cover stage decided.
#[derive(Debug, Clone)]
pub enum ByCover {
    /// A liquid schedule, validated.
    Liquid(Outcome),
    /// The exact cover by full teams was searched exhaustively and has no solution (or
    /// none in which the other transfers fit): the bound Λ + 1.
    NonLiquid(LowerBound),
    /// Nothing decided.
    Open,
}

/// The engine's name in answers and on the command line (`--engine native`): the search's.
pub use crate::liquid::ENGINE;

/// A liquid schedule from the orbit frames of a group, when every frame of one group is
/// conflict-free, or else from the link-disjoint parts and ports of [`crate::ports`],
/// settled against the traffic; with the group or the parts in words. `None` when
/// neither applies or the deadline passed.
pub fn liquid_by_structure(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Option<(Outcome, String)> {
    let (schedule, _, how) = liquid_schedule(traffic, deadline)?;
    Some((
        Outcome::settle(
            traffic,
            Some(schedule),
            LowerBound::duration(traffic),
            false,
        ),
        how,
    ))
}

/// The cover stage: a liquid schedule as an exact cover of the bottleneck transfers by
/// full teams, orbit schedules of the traffic's automorphisms first ([`crate::cover`]),
/// within `nodes` nodes and the deadline, deterministic for a seed. Every schedule it
/// finds is validated here ([`liquid_model::validate`]); one that is not valid (a bug) is
/// reported in the statistics and dropped. The statistics say how far it got.
pub fn liquid_by_cover(
    traffic: &Traffic,
    deadline: Option<Instant>,
    seed: u64,
    nodes: u64,
) -> (ByCover, Vec<(String, StatValue)>) {
    let options = CoverOptions {
        seed,
        nodes,
        deadline,
        ..CoverOptions::default()
    };
    let (found, st) = liquid_cover(traffic, &options);
    let mut stats = vec![
        ("cover_nodes".to_string(), StatValue::Count(st.nodes)),
        ("cover_teams".to_string(), StatValue::Count(st.teams)),
        ("cover_restarts".to_string(), StatValue::Count(st.restarts)),
    ];
    if !st.symmetry.is_empty() {
        stats.push(("symmetry".to_string(), StatValue::Text(st.symmetry.clone())));
    }
    let say = |stats: &mut Vec<(String, StatValue)>, v: String| {
        stats.push(("cover".to_string(), StatValue::Text(v)));
    };
    let decided = match found {
        Covered::Schedule(schedule, how) => match validate(traffic, &schedule) {
            Ok(_) => {
                say(&mut stats, format!("liquid: {how}"));
                ByCover::Liquid(Outcome::settle(
                    traffic,
                    Some(schedule),
                    LowerBound::duration(traffic),
                    true,
                ))
            }
            Err(e) => {
                say(
                    &mut stats,
                    format!("a schedule the validator rejected (a bug): {e}"),
                );
                ByCover::Open
            }
        },
        Covered::NoCover => {
            say(
                &mut stats,
                format!("no exact cover by full teams: {}", st.summary()),
            );
            ByCover::NonLiquid(LowerBound::exhaustive(
                traffic.duration() + 1,
                &format!("{ENGINE} (exact cover by full teams)"),
                st.nodes,
            ))
        }
        Covered::Stopped => {
            say(&mut stats, format!("stopped: {}", st.summary()));
            ByCover::Open
        }
        Covered::Declined(why) => {
            say(&mut stats, format!("declined: {why}"));
            ByCover::Open
        }
    };
    (decided, stats)
}

/// The `native` engine without a progress counter.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Answer {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// The `native` engine with seed 0 ([`solve_seeded`]).
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Answer {
    solve_seeded(traffic, limits, 0, progress)
}

/// The `native` engine: [`liquid_by_structure`], else the search
/// ([`crate::liquid::solve_with_progress`], search nodes added to `progress`) within
/// [`FIRST_NODES`], else the cover stage ([`liquid_by_cover`], `seed` for its restarts)
/// within [`COVER_NODES`] and half the time left, else the search again with what is left
/// of the limits. Stats: `decided_by: structure` with the structure's group, `decided_by:
/// cover` with the cover stage's, or the search's own statistics (with the cover stage's
/// when it ran).
pub fn solve_seeded(traffic: &Traffic, limits: &Limits, seed: u64, progress: &AtomicU64) -> Answer {
    let start = Instant::now();
    if let Some((outcome, group)) = liquid_by_structure(traffic, limits.deadline()) {
        return Answer {
            engine: ENGINE.into(),
            outcome,
            stats: vec![
                ("nodes".into(), StatValue::Count(0)),
                ("decided_by".into(), StatValue::Text("structure".into())),
                ("structure".into(), StatValue::Text(group)),
            ],
        };
    }
    let rest = Limits {
        time: limits.time.map(|t| t.saturating_sub(start.elapsed())),
        nodes: limits.nodes,
    };
    let cover_nodes = limits.nodes.map_or(COVER_NODES, |n| n.min(COVER_NODES));
    search_with_cover(traffic, &rest, seed, cover_nodes, progress)
}

/// [`solve_seeded`] without the structure stage: when the cover stage applies
/// ([`crate::cover::applies`]: at most 50,000 transfers, at most about 800,000 full
/// teams by Knuth's estimate), the full-team search within [`FIRST_NODES`], the cover stage within `cover_nodes` (its own count, apart from
/// `limits.nodes`) and half the time left, the search with the rest (the portfolio's
/// native stage).
pub fn search_with_cover(
    traffic: &Traffic,
    limits: &Limits,
    seed: u64,
    cover_nodes: u64,
    progress: &AtomicU64,
) -> Answer {
    // A traffic the cover stage would decline (too large, too many teams by Knuth's
    // estimate) goes to the search at once, without being searched twice.
    if crate::cover::applies(traffic).is_err() {
        return crate::liquid::solve_with_progress(traffic, limits, progress);
    }
    let start = Instant::now();
    let left = |start: Instant| limits.time.map(|t| t.saturating_sub(start.elapsed()));
    let first_nodes = limits.nodes.map_or(FIRST_NODES, |n| n.min(FIRST_NODES));
    let first = crate::liquid::solve_with_progress(
        traffic,
        &Limits {
            time: left(start),
            nodes: Some(first_nodes),
        },
        progress,
    );
    let out_of_time = left(start).is_some_and(|t| t.is_zero());
    if first.verdict() != Verdict::Unknown
        || out_of_time
        || limits.nodes.is_some_and(|n| n <= FIRST_NODES)
    {
        return first;
    }
    let deadline = limits.deadline().map(|_| {
        let rest = left(start).unwrap_or_default();
        Instant::now() + rest / 2
    });
    let (decided, cover_stats) = liquid_by_cover(traffic, deadline, seed, cover_nodes);
    let decided_by = |outcome: Outcome, mut stats: Vec<(String, StatValue)>| {
        let nodes = match stats.first() {
            Some((_, StatValue::Count(n))) => *n,
            _ => 0,
        };
        stats.insert(0, ("nodes".into(), StatValue::Count(nodes)));
        stats.push(("decided_by".into(), StatValue::Text("cover".into())));
        Answer {
            engine: ENGINE.into(),
            outcome,
            stats,
        }
    };
    match decided {
        ByCover::Liquid(outcome) => return decided_by(outcome, cover_stats),
        ByCover::NonLiquid(bound) => {
            return decided_by(Outcome::settle(traffic, None, bound, true), cover_stats)
        }
        ByCover::Open => {}
    }
    let rest = Limits {
        time: left(start),
        nodes: limits.nodes,
    };
    let mut answer = crate::liquid::solve_with_progress(traffic, &rest, progress);
    answer.stats.extend(cover_stats);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::{validate, Verdict};

    fn fat_tree(m: usize, n: usize) -> Traffic {
        liquid_topology::fat_tree::FatTree::new(m, n)
            .traffic()
            .expect("a tree")
    }

    /// Paper 002's systems with one ICN2 switch: each cluster's ICN1 all-to-all by orbits,
    /// the traffic between clusters by König over the concentrator channels. Before the
    /// parts, the search took 7 s and 675 MB on `8,2x1+4x2` (release build).
    #[test]
    fn multi_cluster_all_to_alls_are_liquid_by_parts() {
        for spec in ["4,1+2", "4,3x1+1x2", "8,2x1+4x2"] {
            let t = liquid_topology::multi_cluster::MultiCluster::parse(spec)
                .expect("a system")
                .traffic()
                .expect("a traffic");
            let a = solve(&t, &Limits::default());
            assert_eq!(a.verdict(), Verdict::Liquid, "{spec}");
            let s = a.outcome.schedule().expect("a schedule");
            assert_eq!(s.len(), t.duration());
            validate(&t, s).expect("a valid schedule");
            let structure = a.stats.iter().find(|(k, _)| k == "structure");
            assert!(
                matches!(structure, Some((_, StatValue::Text(x))) if x.contains("by ports")),
                "{spec}: {structure:?}"
            );
        }
    }

    /// Multi-cluster systems that neither the parts nor the team search's first attempt
    /// decide: the dive does, within a node limit (the search alone had not answered
    /// `4,5x1` in 60 s, issue 33).
    #[test]
    fn the_dive_decides_multi_cluster_systems_the_first_attempt_misses() {
        for spec in ["4,5x1", "4,2x1+3x2"] {
            let t = liquid_topology::multi_cluster::MultiCluster::parse(spec)
                .expect("a system")
                .traffic()
                .expect("a traffic");
            let limits = Limits {
                time: None,
                nodes: Some(200_000),
            };
            let a = solve(&t, &limits);
            assert_eq!(a.verdict(), Verdict::Liquid, "{spec}: {:?}", a.stats);
            let s = a.outcome.schedule().expect("a schedule");
            assert_eq!(s.len(), t.duration());
            validate(&t, s).expect("a valid schedule");
        }
    }

    #[test]
    fn fat_tree_all_to_alls_are_liquid_by_structure() {
        for (m, n) in [(4, 2), (4, 3), (8, 2)] {
            let t = fat_tree(m, n);
            let a = solve(&t, &Limits::default());
            assert_eq!(a.verdict(), Verdict::Liquid, "{m}-port {n}-tree");
            let s = a.outcome.schedule().expect("a schedule");
            assert_eq!(s.len(), t.duration());
            validate(&t, s).expect("a valid schedule");
            assert!(a
                .stats
                .iter()
                .any(|(k, v)| k == "decided_by" && *v == StatValue::Text("structure".into())));
        }
    }

    /// queen11_11 (Λ = 11, liquid): the full-team search does not decide it in its first
    /// nodes; the cover stage does, and its schedule is valid. queen10_10 has no cover,
    /// which the stage shows by exhausting its plain search.
    #[test]
    fn the_cover_stage_decides_queen_graphs() {
        let t = liquid_model::examples::queens(11);
        let a = solve(&t, &Limits::default());
        assert_eq!(a.verdict(), Verdict::Liquid, "{:?}", a.stats);
        validate(&t, a.outcome.schedule().expect("a schedule")).expect("valid");
        assert!(a
            .stats
            .iter()
            .any(|(k, v)| k == "decided_by" && *v == StatValue::Text("cover".into())));
        let t = liquid_model::examples::queens(10);
        let a = solve(&t, &Limits::default());
        assert_eq!(a.verdict(), Verdict::NonLiquid, "{:?}", a.stats);
        assert!(
            matches!(a.stats.iter().find(|(k, _)| k == "cover"), Some((_, StatValue::Text(x))) if x.starts_with("no exact cover")),
            "{:?}",
            a.stats
        );
    }

    #[test]
    fn other_traffics_go_to_the_search() {
        let t = liquid_model::examples::no_team();
        let a = solve(&t, &Limits::default());
        assert_eq!(a.verdict(), Verdict::NonLiquid);
        assert!(!a.stats.iter().any(|(k, _)| k == "decided_by"));
    }
}
