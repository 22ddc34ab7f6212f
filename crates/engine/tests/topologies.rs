//! Engines on generated topologies, through the registry and the gate (moved here from
//! `liquid-topology`, which no longer depends on the engines, not even for tests).

use std::sync::atomic::AtomicU64;

use liquid_engine::Request;
use liquid_model::{Limits, Traffic, Verdict};
use liquid_topology::fat_tree::FatTree;

fn fat_tree(ports: usize, levels: usize, self_transfers: bool) -> Traffic {
    FatTree {
        ports,
        levels,
        self_transfers,
    }
    .generated()
    .expect("builds")
    .expand()
    .expect("expands")
}

fn run(traffic: &Traffic, engine: &str, limits: Limits) -> liquid_engine::Checked {
    let e = liquid_engine::find(engine).expect("registered");
    let request = Request {
        limits,
        ..Default::default()
    };
    liquid_engine::solve(traffic, e, &request, None, &AtomicU64::new(0)).expect("checked")
}

/// The largest number of transfers one transfer congests with (recomputed here from the
/// paths, pair by pair).
fn max_conflict_degree(t: &Traffic) -> usize {
    let ids: Vec<_> = t.transfer_ids().collect();
    ids.iter()
        .map(|&a| ids.iter().filter(|&&b| a != b && t.congest(a, b)).count())
        .max()
        .unwrap_or(0)
}

#[test]
fn dsatur_schedules_small_fat_trees() {
    // DSatur is a heuristic: without limits it must give a schedule, liquid or not (the
    // gate in `run` has validated it). What it promises beyond that is a greedy
    // colouring's: at most one timeframe more than the largest conflict degree, and no
    // fewer than Λ; liquid exactly when it reaches Λ.
    for (m, n) in [(4, 2), (4, 3)] {
        let t = fat_tree(m, n, false);
        let c = run(&t, "dsatur", Limits::default());
        let len = c.length().expect("a schedule");
        let d = t.duration();
        assert!(
            (d..=max_conflict_degree(&t) + 1).contains(&len),
            "{m}-port {n}-tree: length {len}, Λ = {d}"
        );
        let expected = if len == d {
            Verdict::Liquid
        } else {
            Verdict::Feasible
        };
        assert_eq!(c.verdict(), expected, "{m}-port {n}-tree");
    }
}

/// A full-bisection fat-tree all-to-all is liquid, and the native search (not told about
/// the topology) finds it.
#[test]
fn native_search_finds_liquid_fat_tree_schedules() {
    let limits = Limits {
        time: Some(std::time::Duration::from_secs(60)),
        nodes: None,
    };
    for (m, n, self_t) in [(4, 1, false), (4, 2, false), (4, 2, true), (6, 2, false)] {
        let t = fat_tree(m, n, self_t);
        assert_eq!(
            run(&t, "native", limits).verdict(),
            Verdict::Liquid,
            "{m}-port {n}-tree"
        );
    }
    // The 16-host all-to-all (4-port 3-tree: 240 transfers, Λ = 15).
    let t = fat_tree(4, 3, false);
    assert_eq!((t.len(), t.duration()), (240, 15));
    let c = run(&t, "native", Limits::default());
    assert_eq!(c.verdict(), Verdict::Liquid);
    assert_eq!(c.length(), Some(15));
}
