//! Liquid schedules of a part through its *classes* of interchangeable transfers, a stage
//! of the `structured` engine (after the ports of [`crate::ports`]).
//!
//! **Dominated links.** A link `l` is dominated when another link `l*` carries every
//! transfer that `l` carries (`users(l) ⊆ users(l*)`; of two links with the same users,
//! the one of the larger id is dominated). Two transfers that share a dominated link share
//! its dominator too (following the chain of dominators, which ends: each step raises the
//! load or lowers the id), so a set of transfers is conflict-free as soon as it is
//! conflict-free on the links that are not dominated: the transfer's *core*.
//!
//! **Classes.** Transfers with the same core conflict with the same transfers and with one
//! another: they are interchangeable. A schedule is then a sequence of *rounds*: a set P
//! of classes whose cores are pairwise disjoint, repeated x times, each repetition taking
//! one more member of each class of P. Λ is the largest load of a core link.
//!
//! **Rounds.** With R frames left, a link whose remaining load is R is *tight*: every
//! frame left must use it. Each round covers every tight link with classes of disjoint
//! cores (a small depth-first search over the tight links, fewest candidates first, at
//! most [`COVER_NODES`] nodes), is extended greedily with the most urgent classes (those on
//! the most loaded links), and is repeated as often as no class runs out and no link left
//! out becomes more than tight: x = min(members left in P, R − load of each link P does
//! not use). Each round exhausts a class or makes one more link tight (and a tight link
//! stays tight), so there are at most (classes + links) rounds, and when they reach R = 0
//! the schedule has Λ frames: liquid. If a round cannot cover the tight links, the stage
//! fails (it claims nothing): the rounds are a construction, not a search.
//!
//! A multi-cluster system of paper 002 is the case in point: between clusters, every link
//! of a source cluster's ECN1 is dominated by its concentrator's channel into the ICN2,
//! every link of a destination's ECN1 and every descending ICN2 link by the ICN2's channel
//! into the destination's dispatcher; the core of a transfer from cluster i to cluster v is
//! the two concentrator channels and the ascending ICN2 links of the route from port i to
//! port v, and the classes are the pairs of clusters (N_i·N_v members each). A round is a
//! partial permutation of the clusters that is conflict-free in the ICN2 fat-tree,
//! repeated: the cluster-level demand decomposed into rounds of partial permutations, the
//! nodes of each pair taken in any order.

use std::collections::HashMap;
use std::time::Instant;

use liquid_model::{Traffic, TransferId};

/// Search nodes one round may spend covering the tight links.
pub const COVER_NODES: u64 = 100_000;

/// The stage gives up on parts of more classes than this (it is meant for traffics whose
/// transfers fall into few classes).
pub const MAX_CLASSES: usize = 1 << 16;

/// A part's classes (module documentation).
#[derive(Debug, Clone)]
pub struct Classes {
    /// Per class, its core links (numbered densely, `0..links`).
    cores: Vec<Vec<u32>>,
    /// Per class, its members in increasing id order.
    members: Vec<Vec<TransferId>>,
    /// Number of core links.
    links: usize,
    /// Number of dominated links.
    pub dominated: usize,
}

impl Classes {
    /// Number of classes.
    pub fn len(&self) -> usize {
        self.cores.len()
    }

    /// Whether there is no class (an empty part).
    pub fn is_empty(&self) -> bool {
        self.cores.is_empty()
    }
}

/// Which of the links `0..m` are dominated (module documentation), over any set of paths:
/// `users(l)` lists the paths on link `l`, `path(p)` the links of path `p`, `load(l)` is
/// what link `l` carries (the number of its users, or a weighted sum) and `rank(l)` its
/// number, which decides between two links with the same users (the larger is
/// dominated). `late` is asked before each link (each costs its users' path lengths);
/// `None` when it says so. [`classes`] runs it on a part's transfers,
/// `liquid_stream::cluster` on the pairs of clusters of a multi-cluster system, weighted
/// by their members.
pub fn dominated<U, P>(
    m: usize,
    users: impl Fn(usize) -> U,
    path: impl Fn(u32) -> P,
    load: impl Fn(usize) -> u64,
    rank: impl Fn(usize) -> u64,
    mut late: impl FnMut() -> bool,
) -> Option<Vec<bool>>
where
    U: IntoIterator<Item = u32>,
    P: IntoIterator<Item = usize>,
{
    // Count, over the users of l, how many use each link of the first user's path; l is
    // dominated by a link that all of them use.
    let mut dominated = vec![false; m];
    let mut count: Vec<u32> = vec![0; m];
    for (l, is_dominated) in dominated.iter_mut().enumerate() {
        if late() {
            return None;
        }
        let mut first = None;
        let mut n = 0u32;
        for u in users(l) {
            first.get_or_insert(u);
            n += 1;
            for x in path(u) {
                count[x] += 1;
            }
        }
        let Some(first) = first else {
            continue;
        };
        *is_dominated = path(first)
            .into_iter()
            .any(|x| x != l && count[x] == n && (load(x) > load(l) || rank(x) < rank(l)));
        for u in users(l) {
            for x in path(u) {
                count[x] = 0;
            }
        }
    }
    Some(dominated)
}

/// Dense numbers `0..n` of the links not dominated, in link order (`u32::MAX` for a
/// dominated one), and `n`.
pub fn core_numbers(dominated: &[bool]) -> (Vec<u32>, u32) {
    let mut core_no = vec![u32::MAX; dominated.len()];
    let mut n = 0u32;
    for (l, _) in dominated.iter().enumerate().filter(|(_, &d)| !d) {
        core_no[l] = n;
        n += 1;
    }
    (core_no, n)
}

/// The classes of `part`, a part of `traffic` (every user of a link of the part is in the
/// part, as [`crate::ports::parts`] makes them). `None` once `deadline` has passed.
pub fn classes(
    traffic: &Traffic,
    part: &[TransferId],
    deadline: Option<Instant>,
) -> Option<Classes> {
    let late = |i: usize| i % 4096 == 4095 && deadline.is_some_and(|d| Instant::now() >= d);
    // The part's links, in order of first use.
    let mut local = vec![u32::MAX; traffic.num_links()];
    let mut links = Vec::new();
    for &t in part {
        for &l in &traffic.transfer(t).path {
            if local[l.index()] == u32::MAX {
                local[l.index()] = links.len() as u32;
                links.push(l);
            }
        }
    }
    let dominated = dominated(
        links.len(),
        |l| traffic.users(links[l]).iter().map(|t| t.0),
        |t| {
            let local = &local;
            traffic
                .transfer(TransferId(t))
                .path
                .iter()
                .map(move |x| local[x.index()] as usize)
        },
        |l| traffic.load(links[l]) as u64,
        |l| links[l].index() as u64,
        // Each link costs its load times the path length: look at the clock every time.
        || deadline.is_some_and(|d| Instant::now() >= d),
    )?;
    // Core links numbered densely; classes by core.
    let (core_no, n_core) = core_numbers(&dominated);
    let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut cores: Vec<Vec<u32>> = Vec::new();
    let mut members: Vec<Vec<TransferId>> = Vec::new();
    let mut core = Vec::new();
    for (i, &t) in part.iter().enumerate() {
        if late(i) {
            return None;
        }
        core.clear();
        core.extend(
            traffic
                .transfer(t)
                .path
                .iter()
                .map(|l| core_no[local[l.index()] as usize])
                .filter(|&c| c != u32::MAX),
        );
        core.sort_unstable();
        let c = *index.entry(core.clone()).or_insert_with(|| {
            cores.push(core.clone());
            members.push(Vec::new());
            cores.len() as u32 - 1
        });
        members[c as usize].push(t);
    }
    for m in &mut members {
        m.sort_unstable();
    }
    Some(Classes {
        cores,
        members,
        links: n_core as usize,
        dominated: dominated.iter().filter(|&&d| d).count(),
    })
}

/// A liquid schedule of `part` (a part of `traffic`, as for [`classes`]) by rounds of
/// classes (module documentation): its frames (as many as the part's Λ), with what was
/// done in words; or why not (a round could not cover the tight links, too many classes,
/// no class with more than one member, or the deadline passed).
pub fn schedule(
    traffic: &Traffic,
    part: &[TransferId],
    deadline: Option<Instant>,
) -> Result<(Vec<Vec<TransferId>>, String), String> {
    let Some(c) = classes(traffic, part, deadline) else {
        return Err("the time limit passed while finding the classes".into());
    };
    if c.len() > MAX_CLASSES {
        return Err(format!("{} classes, more than {MAX_CLASSES}", c.len()));
    }
    if c.len() == part.len() {
        return Err("no two transfers are interchangeable".into());
    }
    let sizes: Vec<u64> = c.members.iter().map(|m| m.len() as u64).collect();
    let (rounds, by) = rounds_of(&c.cores, c.links, &sizes, deadline)?;
    let mut next = vec![0usize; c.len()];
    let mut frames = Vec::new();
    for (set, x) in &rounds {
        for _ in 0..*x {
            frames.push(
                set.iter()
                    .map(|&k| {
                        let k = k as usize;
                        next[k] += 1;
                        c.members[k][next[k] - 1]
                    })
                    .collect(),
            );
        }
    }
    Ok((
        frames,
        format!(
            "classes ({} classes, {} dominated links, {} rounds by {by})",
            c.len(),
            c.dominated,
            rounds.len()
        ),
    ))
}

/// A round: a set of classes whose cores are pairwise disjoint (class numbers, increasing)
/// and how many frames repeat it, each taking one more member of each class.
pub type Round = (Vec<u32>, u64);

/// The rounds of classes given by their cores (core links numbered `0..links`) and their
/// sizes (members), with as many frames in all as the largest load of a core link, and
/// how they were found: by rounds (module documentation) or, when a round cannot cover
/// the tight links, by the native search on the *reduced* traffic (each class as
/// `sizes[k] / g` copies of its core, g the greatest common divisor of the sizes; at most
/// [`MAX_REDUCED`] transfers and [`REDUCED_NODES`] search nodes). `Err`: why neither gave
/// them. `schedule` runs this on a part's classes; the streamed multi-cluster schedule
/// (liquid-stream) on the pairs of clusters, without listing the members.
pub fn rounds_of(
    cores: &[Vec<u32>],
    links: usize,
    sizes: &[u64],
    deadline: Option<Instant>,
) -> Result<(Vec<Round>, &'static str), String> {
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    match rounds(cores, links, sizes, &late) {
        Ok(r) => Ok((r, "rounds")),
        Err(why) => match reduced_search(cores, links, sizes, deadline) {
            Ok(r) => Ok((r, "the native search on the reduced traffic")),
            Err(also) => Err(format!("{why}; {also}")),
        },
    }
}

/// Search nodes the native search may spend on the reduced traffic ([`reduced_search`]).
pub const REDUCED_NODES: u64 = 200_000;

/// The reduced traffic's size limit for [`reduced_search`]: transfers.
pub const MAX_REDUCED: usize = 4096;

/// Rounds from the native search on the *reduced* traffic: g = the greatest common divisor
/// of the class sizes, class k as `sizes[k] / g` copies of its core. A liquid schedule of
/// it, each frame repeated g times, is a liquid schedule of the part (Λ is g times the
/// reduced Λ); a reduced traffic without one says nothing of the part, so only `liquid`
/// is used.
fn reduced_search(
    cores: &[Vec<u32>],
    links: usize,
    sizes: &[u64],
    deadline: Option<Instant>,
) -> Result<Vec<Round>, String> {
    let g = sizes.iter().copied().fold(0, gcd).max(1);
    let total: u64 = sizes.iter().map(|s| s / g).sum();
    if total as usize > MAX_REDUCED {
        return Err(format!(
            "the reduced traffic has {total} transfers, more than {MAX_REDUCED} to search"
        ));
    }
    let mut b = liquid_model::TrafficBuilder::new("reduced");
    let links: Vec<liquid_model::LinkId> = (0..links)
        .map(|l| b.link(&format!("l{l}"), "").expect("fresh link"))
        .collect();
    let mut class_of = Vec::new();
    for (k, core) in cores.iter().enumerate() {
        let path: Vec<liquid_model::LinkId> = core.iter().map(|&l| links[l as usize]).collect();
        for j in 0..sizes[k] / g {
            b.transfer_on_links(format!("c{k}.{j}"), None, None, &path, "")
                .expect("distinct ids, declared links");
            class_of.push(k as u32);
        }
    }
    let reduced = b.build("").expect("not empty");
    let limits = liquid_model::Limits {
        time: deadline.map(|d| d.saturating_duration_since(Instant::now()) / 2),
        nodes: Some(REDUCED_NODES),
    };
    let answer = crate::liquid::solve(&reduced, &limits);
    match answer.outcome {
        liquid_model::Outcome::Liquid { schedule } => Ok(schedule
            .frames
            .into_iter()
            .map(|f| {
                let mut set: Vec<u32> = f.iter().map(|t| class_of[t.index()]).collect();
                set.sort_unstable();
                (set, g)
            })
            .collect()),
        _ => Err(format!(
            "the native search on the reduced traffic ({total} transfers, Λ {}) answered {}",
            reduced.duration(),
            answer.verdict().as_str()
        )),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The rounds (set of classes, repetitions) that use `sizes[k]` members of every class
/// `k`, with as many frames as the largest load of a link (module documentation), or why
/// not.
fn rounds(
    cores: &[Vec<u32>],
    links: usize,
    sizes: &[u64],
    late: &dyn Fn() -> bool,
) -> Result<Vec<Round>, String> {
    let mut left = sizes.to_vec();
    let mut load = vec![0u64; links];
    let mut on: Vec<Vec<u32>> = vec![Vec::new(); links];
    for (k, core) in cores.iter().enumerate() {
        for &l in core {
            load[l as usize] += left[k];
            on[l as usize].push(k as u32);
        }
    }
    let mut r = load.iter().copied().max().unwrap_or(0);
    let mut out = Vec::new();
    let mut busy = vec![false; links];
    while r > 0 {
        if late() {
            return Err("the time limit passed during the rounds".into());
        }
        let tight: Vec<u32> = (0..links as u32)
            .filter(|&l| load[l as usize] == r)
            .collect();
        let mut set = Vec::new();
        let is_tight: Vec<bool> = load.iter().map(|&x| x == r).collect();
        let t = Tight {
            links: &tight,
            is: &is_tight,
        };
        if !cover(cores, &on, &left, &t, &mut busy, &mut set, &mut 0) {
            return Err(format!(
                "after {} rounds ({r} frames left), no set of classes covers the {} tight links",
                out.len(),
                tight.len()
            ));
        }
        // Extend with the most urgent classes that fit.
        let urgency = |k: usize| {
            let core = &cores[k];
            (
                core.iter().map(|&l| load[l as usize]).max().unwrap_or(0),
                core.iter().map(|&l| load[l as usize]).sum::<u64>(),
            )
        };
        let mut order: Vec<u32> = (0..cores.len() as u32)
            .filter(|&k| left[k as usize] > 0)
            .collect();
        order.sort_by(|&a, &b| {
            urgency(b as usize)
                .cmp(&urgency(a as usize))
                .then(a.cmp(&b))
        });
        for k in order {
            let core = &cores[k as usize];
            if core.iter().all(|&l| !busy[l as usize]) {
                core.iter().for_each(|&l| busy[l as usize] = true);
                set.push(k);
            }
        }
        let mut x = set.iter().map(|&k| left[k as usize]).min().unwrap_or(r);
        for l in 0..links {
            if !busy[l] {
                x = x.min(r - load[l]);
            }
        }
        debug_assert!(x >= 1);
        for &k in &set {
            left[k as usize] -= x;
            for &l in &cores[k as usize] {
                load[l as usize] -= x;
            }
        }
        busy.iter_mut().for_each(|b| *b = false);
        set.sort_unstable();
        out.push((set, x));
        r -= x;
    }
    Ok(out)
}

/// Covers every link of `tight` with classes (members left) of disjoint cores, added to
/// `set` and their links marked `busy`; depth first, the tight link with the fewest
/// candidates first, at most [`COVER_NODES`] nodes (`nodes`). On failure `set` and `busy`
/// are as they were.
/// The tight links, as a list and as flags.
struct Tight<'a> {
    links: &'a [u32],
    is: &'a [bool],
}

fn cover(
    cores: &[Vec<u32>],
    on: &[Vec<u32>],
    left: &[u64],
    tight: &Tight<'_>,
    busy: &mut [bool],
    set: &mut Vec<u32>,
    nodes: &mut u64,
) -> bool {
    *nodes += 1;
    if *nodes > COVER_NODES {
        return false;
    }
    let fits = |k: u32, busy: &[bool]| {
        left[k as usize] > 0 && cores[k as usize].iter().all(|&l| !busy[l as usize])
    };
    // The uncovered tight link with the fewest candidates.
    let mut best: Option<(usize, u32)> = None;
    for &l in tight.links {
        if busy[l as usize] {
            continue;
        }
        let n = on[l as usize].iter().filter(|&&k| fits(k, busy)).count();
        if best.is_none_or(|(b, _)| n < b) {
            best = Some((n, l));
        }
    }
    let Some((n, l)) = best else {
        return true;
    };
    if n == 0 {
        return false;
    }
    // Candidates covering the most uncovered tight links first, then by id.
    let covers = |k: u32, busy: &[bool]| {
        cores[k as usize]
            .iter()
            .filter(|&&x| tight.is[x as usize] && !busy[x as usize])
            .count()
    };
    let mut cand: Vec<u32> = on[l as usize]
        .iter()
        .copied()
        .filter(|&k| fits(k, busy))
        .collect();
    cand.sort_by_key(|&k| {
        (
            std::cmp::Reverse(covers(k, busy)),
            std::cmp::Reverse(left[k as usize]),
            k,
        )
    });
    for k in cand {
        cores[k as usize]
            .iter()
            .for_each(|&x| busy[x as usize] = true);
        set.push(k);
        if cover(cores, on, left, tight, busy, set, nodes) {
            return true;
        }
        set.pop();
        cores[k as usize]
            .iter()
            .for_each(|&x| busy[x as usize] = false);
        if *nodes > COVER_NODES {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::{validate, Schedule};
    use liquid_topology::multi_cluster::MultiCluster;

    /// Multi-cluster systems whose ICN2 is deeper than one switch: the parts give a liquid
    /// schedule, the part between clusters by rounds of classes (cluster pairs).
    #[test]
    fn deep_icn2_multi_cluster_all_to_alls_are_liquid() {
        for spec in ["4,5x1", "4,2x1+3x2", "4,3x1+2x2,3", "6,4x1+3x2"] {
            let sys = MultiCluster::parse(spec).expect("valid");
            assert!(sys.icn2_levels >= 2, "{spec}");
            let t = sys.traffic().expect("builds");
            let (s, how) = crate::structured::by_parts(&t, None).expect("liquid by parts");
            let r = validate(&t, &s).expect("valid");
            assert_eq!(r.length, t.duration(), "{spec}");
            assert!(
                how.iter().any(|h| h.starts_with("classes")),
                "{spec}: {how:?}"
            );
            eprintln!("{spec}: {}", crate::structured::describe(&how));
        }
    }

    /// Between clusters the classes are the pairs of clusters.
    #[test]
    fn the_classes_between_clusters_are_the_pairs_of_clusters() {
        let sys = MultiCluster::parse("4,2x1+3x2").expect("valid");
        let t = sys.traffic().expect("builds");
        let parts = crate::ports::parts(&t);
        let c = classes(&t, &parts[0], None).expect("no deadline");
        assert_eq!(parts[0].len(), 32 * 32 - 2 * 16 - 3 * 64);
        assert_eq!(c.len(), 5 * 4);
        let _ = Schedule::new(Vec::new());
    }
}

#[cfg(test)]
mod probe {
    /// `PROBE_SPECS="8,10x2 ..." cargo test -p liquid-search --lib probe -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn probe() {
        let specs = std::env::var("PROBE_SPECS").unwrap_or_default();
        for spec in specs.split_whitespace() {
            let t0 = std::time::Instant::now();
            let sys = liquid_topology::multi_cluster::MultiCluster::parse(spec).expect("valid");
            let t = sys.traffic().expect("builds");
            let t1 = t0.elapsed();
            let r = crate::structured::by_parts(&t, None);
            let t2 = t0.elapsed();
            match r {
                Ok((s, how)) => {
                    let v = liquid_model::validate(&t, &s).expect("valid");
                    eprintln!(
                        "{spec}: {} transfers, Λ {}, {} frames; build {t1:?}, parts {:?}; {}",
                        t.len(),
                        t.duration(),
                        v.length,
                        t2 - t1,
                        crate::structured::describe(&how)
                    );
                }
                Err(e) => eprintln!(
                    "{spec}: {} transfers, Λ {}: {e} ({:?})",
                    t.len(),
                    t.duration(),
                    t2 - t1
                ),
            }
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Whenever the classes give frames, they are a valid schedule of Λ frames; and
        /// traffics made of repeated transfers (two copies of each) have classes.
        #[test]
        fn what_the_classes_give_is_liquid(t in crate::test_support::arb_traffic(10, 6)) {
            let all: Vec<TransferId> = t.transfer_ids().collect();
            if let Ok((frames, _)) = schedule(&t, &all, None) {
                let s = liquid_model::Schedule::new(frames);
                let r = liquid_model::validate(&t, &s).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                proptest::prop_assert_eq!(r.length, t.duration());
            }
            let c = classes(&t, &all, None).expect("no deadline");
            let members: usize = c.members.iter().map(Vec::len).sum();
            proptest::prop_assert_eq!(members, t.len());
        }
    }
}
