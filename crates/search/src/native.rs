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

use liquid_model::{Answer, Limits, LowerBound, Outcome, StatValue, Traffic};

use crate::structured::liquid_schedule;

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

/// The `native` engine without a progress counter.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Answer {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// The `native` engine: [`liquid_by_structure`], else the search
/// ([`crate::liquid::solve_with_progress`], search nodes added to `progress`) with what is
/// left of the time limit. Stats: `decided_by: structure` with the structure's group, or
/// the search's own statistics.
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Answer {
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
    crate::liquid::solve_with_progress(traffic, &rest, progress)
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

    #[test]
    fn other_traffics_go_to_the_search() {
        let t = liquid_model::examples::no_team();
        let a = solve(&t, &Limits::default());
        assert_eq!(a.verdict(), Verdict::NonLiquid);
        assert!(!a.stats.iter().any(|(k, _)| k == "decided_by"));
    }
}
