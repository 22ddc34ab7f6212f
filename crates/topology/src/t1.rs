//! The Swiss-T1 testbed of papers 000 (section 3) and 003 (sections 2, 4 and the annex).
//!
//! # Provenance and caveats
//! Known from the papers: 32 nodes, 4 in front of each of 8 crossbar switches, the
//! switches form a K-ring (Kuonen, HPC'99), static routing, 86 MB/s links. The papers'
//! topology figure is not in their text and the routing table was never published.
//!
//! The data embedded here (`data/swiss-t1.yaml`, a copy of the project's
//! `testbeds/swiss-t1.yaml`) is a *reconstruction*: a 2-ring K-ring with jumps {1, 3}
//! (switch s linked to s±1 and s±3 mod 8, the complete bipartite graph K4,4 between even
//! and odd switches), one directed link each way per switch pair, shortest routes (one hop
//! when the switch offset is odd, two when even) through the intermediate switches of its
//! `via` table. It reproduces both published figures (tests in this module recompute them):
//! - the full 32×32 all-to-all, each node's transfer to itself included, has a conflict
//!   graph of 1024 vertices and 48704 edges (003 annex);
//! - the 5^8 = 390625 allocation vectors fall into 363 classes by (number of nodes, liquid
//!   throughput), 362 without the one-node case (000 section 3).
//!
//! The routing is not unique: other irregular routings on the same links reproduce both
//! figures too, and no rotation-symmetric routing does. It is a faithful stand-in, not the
//! historical table.
//!
//! # The model
//! Node `4s + k` (`n{4s+k}`) sits on switch `s` (`s{s}`), with one link up (`n{i}>s{s}`)
//! and one down (`s{s}>n{i}`). An allocation vector `[n0..n7]` (0 ≤ ni ≤ 4) takes the first
//! `ni` nodes of switch `i`. Every participating node sends one transfer to every
//! participating node, itself included: a transfer to itself goes up to its switch and
//! back down (the 1024-transfer figure counts these).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use liquid_model::network::Pattern;
use serde::Deserialize;

use crate::{bad, Generated, NetBuilder, Ratio, TopologyError};

/// The embedded testbed data (see the module docs for its provenance).
pub const DATA: &str = include_str!("../data/swiss-t1.yaml");

/// Number of switches.
pub const SWITCHES: usize = 8;
/// Nodes in front of each switch.
pub const NODES_PER_SWITCH: usize = 4;
/// Number of nodes.
pub const NODES: usize = SWITCHES * NODES_PER_SWITCH;
/// Number of allocation vectors: 5^8.
pub const ALLOCATIONS: u32 = 390_625;

#[derive(Debug, Deserialize)]
struct Data {
    switches: usize,
    nodes_per_switch: usize,
    link_throughput_mb_s: f64,
    links: Vec<[usize; 2]>,
    via: BTreeMap<usize, BTreeMap<usize, usize>>,
}

/// The testbed as read from the embedded data and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Testbed {
    /// Link throughput in MB/s.
    pub link_throughput: f64,
    /// Directed switch links `(from, to)`: for each undirected pair of the data, in its
    /// order, first `a -> b` then `b -> a`.
    pub switch_links: Vec<(usize, usize)>,
    /// `routes[a][b]`: the switch links (indices into `switch_links`) from switch `a` to
    /// switch `b`; empty when `a == b`.
    pub routes: Vec<Vec<Vec<usize>>>,
}

fn read(text: &str) -> Result<Testbed, TopologyError> {
    let d: Data = liquid_model::yaml::from_str("swiss-t1.yaml", text)
        .map_err(|e| bad("swiss-t1.yaml", e.to_string()))?;
    if d.switches != SWITCHES || d.nodes_per_switch != NODES_PER_SWITCH {
        return Err(bad("swiss-t1.yaml", "expected 8 switches of 4 nodes"));
    }
    let mut switch_links = Vec::new();
    let mut index = [[None; SWITCHES]; SWITCHES];
    for &[a, b] in &d.links {
        if a >= SWITCHES || b >= SWITCHES || a == b || index[a][b].is_some() {
            return Err(bad("swiss-t1.yaml", format!("bad link [{a}, {b}]")));
        }
        for (u, v) in [(a, b), (b, a)] {
            index[u][v] = Some(switch_links.len());
            switch_links.push((u, v));
        }
    }
    let mut routes = vec![vec![Vec::new(); SWITCHES]; SWITCHES];
    for a in 0..SWITCHES {
        for b in 0..SWITCHES {
            if a == b {
                continue;
            }
            let via = d.via.get(&a).and_then(|m| m.get(&b)).copied();
            routes[a][b] = match (index[a][b], via) {
                (Some(l), None) => vec![l],
                (None, Some(v)) => match (index[a].get(v).copied().flatten(), index.get(v)) {
                    (Some(l1), Some(row)) => match row[b] {
                        Some(l2) => vec![l1, l2],
                        None => return Err(bad("swiss-t1.yaml", format!("{v} -> {b} is no link"))),
                    },
                    _ => return Err(bad("swiss-t1.yaml", format!("{a} -> {v} is no link"))),
                },
                (Some(_), Some(_)) => {
                    return Err(bad(
                        "swiss-t1.yaml",
                        format!("{a} and {b} are adjacent but have a via"),
                    ))
                }
                (None, None) => return Err(bad("swiss-t1.yaml", format!("no route {a} -> {b}"))),
            };
        }
    }
    Ok(Testbed {
        link_throughput: d.link_throughput_mb_s,
        switch_links,
        routes,
    })
}

/// The testbed, read once from the embedded data.
pub fn testbed() -> &'static Testbed {
    static T: OnceLock<Testbed> = OnceLock::new();
    T.get_or_init(|| read(DATA).expect("the embedded Swiss-T1 data is valid (tested)"))
}

/// An allocation vector `[n0..n7]`: `ni` nodes (0..=4) take part on switch `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Allocation(pub [u8; SWITCHES]);

impl Allocation {
    /// Checks the ranges.
    pub fn new(counts: [u8; SWITCHES]) -> Result<Allocation, TopologyError> {
        if let Some(&c) = counts.iter().find(|&&c| c as usize > NODES_PER_SWITCH) {
            return Err(bad(
                "alloc",
                format!("{c} nodes on one switch; each switch has {NODES_PER_SWITCH}"),
            ));
        }
        Ok(Allocation(counts))
    }

    /// Parses `4,4,4,4,0,0,2,1`.
    pub fn parse(s: &str) -> Result<Allocation, TopologyError> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != SWITCHES {
            return Err(bad(
                "alloc",
                format!(
                    "{s:?} has {} numbers; give 8, one per switch, like 4,4,4,4,0,0,2,1",
                    parts.len()
                ),
            ));
        }
        let mut counts = [0u8; SWITCHES];
        for (c, p) in counts.iter_mut().zip(&parts) {
            *c = p.parse().map_err(|_| {
                bad(
                    "alloc",
                    format!("{p:?} is not a number of nodes (0 to {NODES_PER_SWITCH})"),
                )
            })?;
        }
        Allocation::new(counts)
    }

    /// The allocation with index `i` in lexicographic order (`0` is all zeros, `n0` the
    /// most significant digit); `i < 5^8`.
    pub fn from_index(mut i: u32) -> Allocation {
        let mut counts = [0u8; SWITCHES];
        for c in counts.iter_mut().rev() {
            *c = (i % 5) as u8;
            i /= 5;
        }
        Allocation(counts)
    }

    /// Number of participating nodes.
    pub fn nodes(&self) -> usize {
        self.0.iter().map(|&c| c as usize).sum()
    }

    /// The participating nodes, in increasing order.
    pub fn node_list(&self) -> Vec<usize> {
        (0..SWITCHES)
            .flat_map(|s| (0..self.0[s] as usize).map(move |k| s * NODES_PER_SWITCH + k))
            .collect()
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u8::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

/// Name of node `i`.
pub fn node_name(i: usize) -> String {
    format!("n{i}")
}

/// The testbed's network with the all-to-all (self-transfers included) of the nodes an
/// allocation picks. All 32 nodes and all links are declared; routes are listed for the
/// participating pairs.
pub fn generated(alloc: Allocation) -> Result<Generated, TopologyError> {
    if alloc.nodes() == 0 {
        return Err(bad("alloc", "the allocation picks no node"));
    }
    let t = testbed();
    let mut b = NetBuilder::default();
    let sw = |s: usize| format!("s{s}");
    for i in 0..NODES {
        b.host(node_name(i));
    }
    for s in 0..SWITCHES {
        b.switch(sw(s));
    }
    let mut up = Vec::with_capacity(NODES);
    let mut down = Vec::with_capacity(NODES);
    for i in 0..NODES {
        up.push(b.link(&node_name(i), &sw(i / NODES_PER_SWITCH)));
        down.push(b.link(&sw(i / NODES_PER_SWITCH), &node_name(i)));
    }
    let sl: Vec<usize> = t
        .switch_links
        .iter()
        .map(|&(u, v)| b.link(&sw(u), &sw(v)))
        .collect();
    let nodes = alloc.node_list();
    for &a in &nodes {
        for &d in &nodes {
            let mut path = vec![up[a]];
            path.extend(
                t.routes[a / NODES_PER_SWITCH][d / NODES_PER_SWITCH]
                    .iter()
                    .map(|&l| sl[l]),
            );
            path.push(down[d]);
            b.route(&node_name(a), &node_name(d), &path);
        }
    }
    let names: Vec<String> = nodes.iter().map(|&i| node_name(i)).collect();
    Ok(Generated {
        name: format!("t1-{}", alloc.0.map(|c| c.to_string()).join("")),
        description: format!(
            "Swiss-T1 all-to-all (self-transfers included), allocation [{alloc}]; \
             reconstructed K-ring routing, not the historical table"
        ),
        link_throughput: Some(t.link_throughput),
        network: b.finish(),
        link_params: Vec::new(),
        ports: Vec::new(),
        pattern: Pattern::AllToAll {
            senders: names.clone(),
            receivers: names,
            self_transfers: true,
        },
    })
}

/// What identifies a class of allocations: the number of nodes and the liquid throughput
/// (in link units, `#X / Λ`, exact). Orders by nodes, then throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClassKey {
    /// Participating nodes.
    pub nodes: u32,
    /// Liquid throughput in link units: transfers / Λ, reduced.
    pub throughput: Ratio,
}

/// Transfers, duration and class of one allocation, computed directly from the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationLoad {
    /// Number of transfers: nodes².
    pub transfers: u64,
    /// Λ: the largest link load.
    pub duration: u64,
    /// The class key.
    pub key: ClassKey,
}

/// Computes the number of transfers and Λ of an allocation without building its traffic:
/// a node link carries `N` transfers (N = participating nodes, self included), and a
/// switch link the sum of `n_a · n_b` over the switch pairs routed through it.
/// `None` when the allocation picks no node.
pub fn load(alloc: Allocation) -> Option<AllocationLoad> {
    let t = testbed();
    let n = alloc.nodes() as u64;
    if n == 0 {
        return None;
    }
    let mut loads = [0u64; 64];
    for a in 0..SWITCHES {
        let na = alloc.0[a] as u64;
        if na == 0 {
            continue;
        }
        for b in 0..SWITCHES {
            let nb = alloc.0[b] as u64;
            if nb == 0 {
                continue;
            }
            for &l in &t.routes[a][b] {
                loads[l] += na * nb;
            }
        }
    }
    let duration = loads.iter().copied().max().unwrap_or(0).max(n);
    Some(AllocationLoad {
        transfers: n * n,
        duration,
        key: ClassKey {
            nodes: n as u32,
            throughput: Ratio::new(n * n, duration),
        },
    })
}

/// One class of allocations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    /// The class key.
    pub key: ClassKey,
    /// Λ of the class's allocations (the same for all: #X = nodes² is fixed).
    pub duration: u64,
    /// The lexicographically smallest allocation of the class.
    pub representative: Allocation,
    /// How many of the 5^8 allocations fall into it.
    pub count: u64,
}

/// All classes of the 5^8 allocation vectors (the empty allocation excluded), sorted by
/// nodes, then liquid throughput.
pub fn classes() -> Vec<Class> {
    let mut map: BTreeMap<ClassKey, Class> = BTreeMap::new();
    for i in 0..ALLOCATIONS {
        let alloc = Allocation::from_index(i);
        let Some(l) = load(alloc) else { continue };
        map.entry(l.key)
            .and_modify(|c| c.count += 1)
            .or_insert(Class {
                key: l.key,
                duration: l.duration,
                representative: alloc,
                count: 1,
            });
    }
    map.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_data_reads_and_matches_the_shared_copy_shape() {
        let t = testbed();
        assert_eq!(t.switch_links.len(), 32);
        assert_eq!(t.link_throughput, 86.0);
        for a in 0..SWITCHES {
            for b in 0..SWITCHES {
                let hops = t.routes[a][b].len();
                // K4,4: odd offset -> adjacent, even offset -> two hops.
                let want = if a == b {
                    0
                } else if (a + b) % 2 == 1 {
                    1
                } else {
                    2
                };
                assert_eq!(hops, want, "{a} -> {b}");
                let mut here = a;
                for &l in &t.routes[a][b] {
                    assert_eq!(t.switch_links[l].0, here);
                    here = t.switch_links[l].1;
                }
                assert_eq!(here, b);
            }
        }
    }

    #[test]
    fn allocation_parsing() {
        let a = Allocation::parse("4,4,4,4,0,0,2,1").expect("valid");
        assert_eq!(a.nodes(), 19);
        assert_eq!(a.to_string(), "4,4,4,4,0,0,2,1");
        assert!(Allocation::parse("4,4,4").is_err());
        assert!(Allocation::parse("5,0,0,0,0,0,0,0").is_err());
        assert!(Allocation::parse("a,0,0,0,0,0,0,0").is_err());
        assert_eq!(Allocation::from_index(0).0, [0; 8]);
        assert_eq!(Allocation::from_index(ALLOCATIONS - 1).0, [4; 8]);
        assert_eq!(Allocation::from_index(1).0, [0, 0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn full_all_to_all_has_1024_transfers_and_48704_conflict_edges() {
        let g = generated(Allocation([4; 8])).expect("builds");
        let traffic = g.expand().expect("expands");
        assert_eq!(traffic.len(), 1024);
        let stats = traffic.conflict_stats();
        assert_eq!(stats.vertices, 1024);
        assert_eq!(stats.edges, 48704);
    }

    #[test]
    fn allocations_fall_into_363_classes() {
        let classes = classes();
        assert_eq!(classes.len(), 363);
        assert_eq!(classes.iter().filter(|c| c.key.nodes > 1).count(), 362);
        assert_eq!(
            classes.iter().map(|c| c.count).sum::<u64>(),
            ALLOCATIONS as u64 - 1
        );
        // Representatives are the smallest of their class, in lexicographic order.
        for c in &classes {
            let l = load(c.representative).expect("non-empty");
            assert_eq!(l.key, c.key);
            assert_eq!(l.duration, c.duration);
        }
    }

    #[test]
    fn fast_loads_agree_with_the_expanded_traffic() {
        // A spread of allocations, including lopsided ones.
        for i in (1..ALLOCATIONS).step_by(7919) {
            let alloc = Allocation::from_index(i);
            let l = load(alloc).expect("non-empty");
            let traffic = generated(alloc).expect("builds").expand().expect("expands");
            assert_eq!(traffic.len() as u64, l.transfers, "{alloc}");
            assert_eq!(traffic.duration() as u64, l.duration, "{alloc}");
        }
    }
}
