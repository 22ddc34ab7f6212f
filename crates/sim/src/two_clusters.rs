//! Total exchange between two clusters (paper 001): the algorithms as plans.
//!
//! Nodes are numbered as in 001: `0 … n1-1` on cluster 1, `n1 … n1+n2-1` on cluster 2.
//! `M(i, j)` is the data node i has for node j; a node's data for itself is a local copy
//! and never a message. A [`Layout`] gives each ordered pair of nodes its route on a
//! platform and names the backbone links, so that plans can be built and their backbone
//! messages counted.
//!
//! - [`direct_all_at_once`]: every `M(i, j)` posted at time 0 (Open MPI's all-to-all as 001
//!   describes it: post everything, then wait);
//! - [`direct_round_robin`]: `n - 1` rounds, round s sends `M(i, i+s mod n)`, a barrier
//!   between rounds (the pairwise-exchange all-to-all);
//! - [`direct_scheduled`]: the pairs in the timeframes of a schedule, a barrier between
//!   frames (a liquid schedule from the engine layer, passed in);
//! - [`Lg`]: 001's Algorithm 1, as published ([`Lg::plan`]) and with each of its two
//!   phases run by a schedule passed in ([`Lg::plan_scheduled`]).
//!
//! The sim crate does not run engines: schedules are computed by the caller on the
//! traffic-set models [`scheduling_traffic`] builds, and passed in as timeframes of pair
//! indices ([`frames_of`]).

use liquid_model::{Schedule, Traffic, TrafficBuilder};

use crate::plan::{Message, Plan, Step};
use crate::SimError;

/// The routes between the nodes of two clusters, and which platform links are the
/// backbone.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    n1: usize,
    n2: usize,
    /// `routes[i * n + j]`: the route from node i to node j (empty when i = j).
    routes: Vec<Vec<u32>>,
    backbone: Vec<u32>,
}

impl Layout {
    /// A layout of `n1 + n2` nodes; `route(i, j)` is the route from node i to node j
    /// (i ≠ j), `backbone` the platform links of the backbone.
    pub fn new(
        n1: usize,
        n2: usize,
        mut route: impl FnMut(usize, usize) -> Option<Vec<u32>>,
        backbone: Vec<u32>,
    ) -> Result<Self, SimError> {
        if n1 == 0 || n2 == 0 {
            return Err(SimError::Mismatch(format!(
                "two clusters of {n1} and {n2} nodes: each needs at least one"
            )));
        }
        let n = n1 + n2;
        let mut routes = vec![Vec::new(); n * n];
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                routes[i * n + j] = route(i, j)
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| SimError::Mismatch(format!("no route from node {i} to {j}")))?;
            }
        }
        Ok(Layout {
            n1,
            n2,
            routes,
            backbone,
        })
    }

    /// A layout from a traffic mapped onto a platform: `routes[t]` is transfer t's route,
    /// `nodes[k]` the name of node k (its transfers' `from`/`to`), `backbone` the
    /// platform links of the backbone.
    pub fn from_traffic(
        traffic: &Traffic,
        routes: &[Vec<u32>],
        n1: usize,
        nodes: &[String],
        backbone: Vec<u32>,
    ) -> Result<Self, SimError> {
        let n = nodes.len();
        if n1 == 0 || n1 >= n {
            return Err(SimError::Mismatch(format!(
                "{n1} nodes in cluster 1 of {n} nodes"
            )));
        }
        let index: std::collections::HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(k, s)| (s.as_str(), k))
            .collect();
        let mut table = vec![None; n * n];
        for (t, x) in traffic.transfers().iter().enumerate() {
            if let (Some(f), Some(to)) = (&x.from, &x.to) {
                if let (Some(&i), Some(&j)) = (index.get(f.as_str()), index.get(to.as_str())) {
                    table[i * n + j] = routes.get(t).cloned();
                }
            }
        }
        Layout::new(n1, n - n1, |i, j| table[i * n + j].take(), backbone)
    }

    /// Nodes of cluster 1.
    pub fn n1(&self) -> usize {
        self.n1
    }

    /// Nodes of cluster 2.
    pub fn n2(&self) -> usize {
        self.n2
    }

    /// The route from node i to node j (i ≠ j).
    pub fn route(&self, i: usize, j: usize) -> &[u32] {
        &self.routes[i * (self.n1 + self.n2) + j]
    }

    /// The messages of a plan that cross the backbone (one or more of its links).
    pub fn backbone_messages(&self, plan: &Plan) -> usize {
        plan.steps
            .iter()
            .flat_map(|s| &s.messages)
            .filter(|m| m.route.iter().any(|l| self.backbone.contains(l)))
            .count()
    }

    fn message(&self, from: usize, to: usize, bytes: f64) -> Message {
        Message {
            route: self.route(from, to).to_vec(),
            bytes,
            transfer: None,
        }
    }

    fn pairs(&self) -> Vec<(usize, usize)> {
        let n = self.n1 + self.n2;
        (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .collect()
    }
}

/// Every `M(i, j)` (i ≠ j) posted at time 0, `bytes` each: one step.
pub fn direct_all_at_once(layout: &Layout, bytes: f64) -> Plan {
    Plan {
        steps: vec![Step {
            after: vec![],
            delay: 0.0,
            messages: layout
                .pairs()
                .into_iter()
                .map(|(i, j)| layout.message(i, j, bytes))
                .collect(),
            group: Some(0),
        }],
    }
}

/// Round s = 1 … n-1 sends `M(i, (i + s) mod n)` for every i, each round after the
/// previous one (a barrier): `n - 1` steps of n messages.
pub fn direct_round_robin(layout: &Layout, bytes: f64) -> Plan {
    let n = layout.n1 + layout.n2;
    let steps = (1..n)
        .map(|s| Step {
            after: if s == 1 { vec![] } else { vec![s - 2] },
            delay: 0.0,
            messages: (0..n)
                .map(|i| layout.message(i, (i + s) % n, bytes))
                .collect(),
            group: Some(s - 1),
        })
        .collect();
    Plan { steps }
}

/// The pairs of the timeframes, `bytes` each, frame after frame (a barrier between
/// frames). Every ordered pair of distinct nodes must appear exactly once.
pub fn direct_scheduled(
    layout: &Layout,
    bytes: f64,
    frames: &[Vec<(usize, usize)>],
) -> Result<Plan, SimError> {
    let n = layout.n1 + layout.n2;
    let mut seen = vec![false; n * n];
    for &(i, j) in frames.iter().flatten() {
        if i >= n || j >= n || i == j || std::mem::replace(&mut seen[i * n + j], true) {
            return Err(SimError::Mismatch(format!(
                "the schedule has the pair ({i}, {j}) twice, or it is not a pair of distinct nodes"
            )));
        }
    }
    if let Some(p) = layout.pairs().into_iter().find(|&(i, j)| !seen[i * n + j]) {
        return Err(SimError::Mismatch(format!(
            "the schedule leaves out the pair ({}, {})",
            p.0, p.1
        )));
    }
    Ok(chained(frames.iter().map(|f| {
        f.iter()
            .map(|&(i, j)| layout.message(i, j, bytes))
            .collect()
    })))
}

/// One step per frame, each after the previous one; groups count from 0.
fn chained(frames: impl Iterator<Item = Vec<Message>>) -> Plan {
    let steps = frames
        .enumerate()
        .map(|(f, messages)| Step {
            after: if f == 0 { vec![] } else { vec![f - 1] },
            delay: 0.0,
            messages,
            group: Some(f),
        })
        .collect();
    Plan { steps }
}

/// One message of an algorithm: from a node to a node, carrying pieces of data
/// `(source, destination)`, each `M(source, destination)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parcel {
    /// Sending node.
    pub from: usize,
    /// Receiving node.
    pub to: usize,
    /// The pieces `(source, destination)` it carries.
    pub pieces: Vec<(usize, usize)>,
}

/// One inter-cluster exchange of LG: the cluster-1 node sends to the cluster-2 node and
/// back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// From the cluster-1 node to the cluster-2 node.
    pub out: Parcel,
    /// Back.
    pub back: Parcel,
}

/// 001's LG algorithm (Algorithm 1) for two clusters of `n1` and `n2` nodes.
///
/// Let C1 be the smaller cluster (001 assumes n1 ≤ n2; with n1 > n2 the clusters swap
/// roles, and node numbers stay those of the layout). **Local phase**: node i sends each
/// `M(i, j)` as its own message to the relay of (i, j): j itself when i and j are in the
/// same cluster; `j mod n1` when i is in C1 and j in C2; `⌊i/n1⌋·n1 + j` when i is in C2
/// and j in C1 (no message when the relay is i). **Inter-cluster phase**: ⌈n2/n1⌉ steps;
/// in step s, C1 node i and C2 node `i + n1·s` (when it exists) exchange: i sends the
/// pieces it holds for the other node, and the other node those it holds for i, one
/// message each way: 2·n2 = 2·max(n1, n2) backbone messages.
///
/// **Where Algorithm 1 is silent.** When n1 does not divide n2, the last group of C2 is
/// short, and `⌊i/n1⌋·n1 + j` can be a node that does not exist (n1 = 3, n2 = 7: node 9's
/// data for node 1 would go to node 10). Here such data goes to `(⌊i/n1⌋ - 1)·n1 + j`, the
/// node of the previous (full) group that exchanges with j, so the pieces still cross in
/// one message per exchange and the count stays 2·max(n1, n2); in 001's example node 7
/// carries `M(9, 1)` and node 8 `M(9, 2)` besides `M(6, 2)`, `M(7, 2)`, `M(8, 2)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lg {
    /// Nodes of cluster 1 (the layout's).
    pub n1: usize,
    /// Nodes of cluster 2 (the layout's).
    pub n2: usize,
    /// The local phase: one parcel per piece that does not start at its relay.
    pub local: Vec<Parcel>,
    /// The inter-cluster steps (001's s = 1, 2, …), each with its exchanges.
    pub steps: Vec<Vec<Exchange>>,
}

impl Lg {
    /// The algorithm for clusters of `n1` and `n2` nodes (both ≥ 1).
    pub fn new(n1: usize, n2: usize) -> Lg {
        let n = n1 + n2;
        // Work in 001's numbering (small cluster first), map to the layout's at the end.
        let swap = n1 > n2;
        let (s1, s2) = if swap { (n2, n1) } else { (n1, n2) };
        let to_layout = |k: usize| match (swap, k < s1) {
            (false, _) => k,
            (true, true) => n1 + k,
            (true, false) => k - s1,
        };
        let relay = |i: usize, j: usize| -> usize {
            match (i < s1, j < s1) {
                (true, true) | (false, false) => j,
                (true, false) => j % s1,
                (false, true) => {
                    let g = i / s1;
                    if g * s1 + j < n {
                        g * s1 + j
                    } else {
                        (g - 1) * s1 + j
                    }
                }
            }
        };
        let mut local = Vec::new();
        let mut held: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                let r = relay(i, j);
                if r != j {
                    held[r].push((i, j));
                }
                if r != i {
                    local.push(Parcel {
                        from: to_layout(i),
                        to: to_layout(r),
                        pieces: vec![(to_layout(i), to_layout(j))],
                    });
                }
            }
        }
        let mut steps = Vec::new();
        for s in 1..=s2.div_ceil(s1) {
            let mut step = Vec::new();
            for i in 0..s1 {
                let j = i + s1 * s;
                if j >= n {
                    continue;
                }
                let pieces = |at: usize, to: usize| -> Vec<(usize, usize)> {
                    held[at]
                        .iter()
                        .filter(|p| p.1 == to)
                        .map(|&(a, b)| (to_layout(a), to_layout(b)))
                        .collect()
                };
                step.push(Exchange {
                    out: Parcel {
                        from: to_layout(i),
                        to: to_layout(j),
                        pieces: pieces(i, j),
                    },
                    back: Parcel {
                        from: to_layout(j),
                        to: to_layout(i),
                        pieces: pieces(j, i),
                    },
                });
            }
            steps.push(step);
        }
        Lg {
            n1,
            n2,
            local,
            steps,
        }
    }

    /// The local phase with the pieces each sender has for each relay gathered into one
    /// parcel (what a schedule of the phase sends), in order of (sender, relay).
    pub fn local_aggregated(&self) -> Vec<Parcel> {
        aggregate(self.local.iter())
    }

    /// The local phase's pieces that still have to cross the backbone (their relay is not
    /// their destination), gathered per (sender, relay), in that order.
    pub fn relay_aggregated(&self) -> Vec<Parcel> {
        aggregate(self.local.iter().filter(|p| p.pieces[0].1 != p.to))
    }

    /// The local phase's messages already in their destination's cluster (the
    /// cluster-internal all-to-all, one piece each), in order of (sender, receiver).
    pub fn internal(&self) -> Vec<Parcel> {
        aggregate(self.local.iter().filter(|p| p.pieces[0].1 == p.to))
    }

    /// LG with the data for the other cluster first. The relay messages
    /// ([`Lg::relay_aggregated`]) run by the timeframes of `relay` (indices into it), a
    /// barrier between frames. Then, at the same time: the exchanges by LG's steps (each
    /// step after the previous one), and the cluster-internal all-to-all ([`Lg::internal`])
    /// by the timeframes of `internal`, frame after frame. A node then has one internal
    /// message in flight besides its exchange, so max-min sharing leaves its card to the
    /// backbone flow instead of splitting it among all its local messages as LG's local
    /// phase posted at once does. Groups: the relay frames, the exchange steps, the
    /// internal frames.
    pub fn plan_relay_first(
        &self,
        layout: &Layout,
        bytes: f64,
        relay: &[Vec<usize>],
        internal: &[Vec<usize>],
    ) -> Result<Plan, SimError> {
        self.check(layout)?;
        let relays = self.relay_aggregated();
        let internals = self.internal();
        check_cover("relay messages", relays.len(), relay)?;
        check_cover("cluster-internal messages", internals.len(), internal)?;
        let message = |p: &Parcel| layout.message(p.from, p.to, bytes * p.pieces.len() as f64);
        let mut plan = chained(
            relay
                .iter()
                .map(|f| f.iter().map(|&k| message(&relays[k])).collect()),
        );
        let start: Vec<usize> = plan.steps.len().checked_sub(1).into_iter().collect();
        let exchange_steps: Vec<Vec<Message>> = self
            .steps
            .iter()
            .map(|s| {
                s.iter()
                    .flat_map(|e| [message(&e.out), message(&e.back)])
                    .collect()
            })
            .collect();
        let internal_frames: Vec<Vec<Message>> = internal
            .iter()
            .map(|f| f.iter().map(|&k| message(&internals[k])).collect())
            .collect();
        let mut group = plan.steps.len();
        for chain in [exchange_steps, internal_frames] {
            let mut prev: Option<usize> = None;
            for messages in chain {
                let k = plan.steps.len();
                plan.steps.push(Step {
                    after: prev.map_or_else(|| start.clone(), |p| vec![p]),
                    delay: 0.0,
                    messages,
                    group: Some(group),
                });
                group += 1;
                prev = Some(k);
            }
        }
        Ok(plan)
    }
}

/// Checks that a schedule holds every index below `len` exactly once.
fn check_cover(what: &str, len: usize, schedule: &[Vec<usize>]) -> Result<(), SimError> {
    let mut seen = vec![false; len];
    for &k in schedule.iter().flatten() {
        if k >= len || std::mem::replace(&mut seen[k], true) {
            return Err(SimError::Mismatch(format!(
                "{what}: the schedule has message {k} twice or out of range ({len} messages)"
            )));
        }
    }
    if let Some(k) = seen.iter().position(|&s| !s) {
        return Err(SimError::Mismatch(format!(
            "{what}: the schedule leaves out message {k}"
        )));
    }
    Ok(())
}

/// Parcels gathered per (sender, receiver), in that order.
fn aggregate<'a>(parcels: impl Iterator<Item = &'a Parcel>) -> Vec<Parcel> {
    let mut out: Vec<Parcel> = Vec::new();
    let mut at = std::collections::BTreeMap::new();
    for p in parcels {
        let k = *at.entry((p.from, p.to)).or_insert_with(|| {
            out.push(Parcel {
                from: p.from,
                to: p.to,
                pieces: Vec::new(),
            });
            out.len() - 1
        });
        out[k].pieces.extend(&p.pieces);
    }
    out.sort_by_key(|p| (p.from, p.to));
    out
}

impl Lg {
    /// The inter-cluster phase's parcels, step by step, each exchange out then back.
    pub fn exchanges(&self) -> Vec<Parcel> {
        self.steps
            .iter()
            .flatten()
            .flat_map(|e| [e.out.clone(), e.back.clone()])
            .collect()
    }

    fn check(&self, layout: &Layout) -> Result<(), SimError> {
        if (layout.n1, layout.n2) != (self.n1, self.n2) {
            return Err(SimError::Mismatch(format!(
                "LG for {}+{} nodes on a layout of {}+{}",
                self.n1, self.n2, layout.n1, layout.n2
            )));
        }
        Ok(())
    }

    /// The plan of Algorithm 1 with messages of `bytes` per piece. The local phase is one
    /// step per (sender, relay) with that sender's messages for that relay (group 0), all
    /// posted at time 0; each exchange is one step with its two messages (group s), which
    /// starts when both nodes hold everything they relay (the local steps towards them
    /// have finished) and both have finished their previous exchange.
    pub fn plan(&self, layout: &Layout, bytes: f64) -> Result<Plan, SimError> {
        self.check(layout)?;
        let n = self.n1 + self.n2;
        let mut steps: Vec<Step> = Vec::new();
        let mut into: Vec<Vec<usize>> = vec![Vec::new(); n]; // local steps towards each relay
        let mut at = std::collections::BTreeMap::new();
        for p in &self.local {
            let s = *at.entry((p.from, p.to)).or_insert_with(|| {
                steps.push(Step {
                    after: vec![],
                    delay: 0.0,
                    messages: vec![],
                    group: Some(0),
                });
                into[p.to].push(steps.len() - 1);
                steps.len() - 1
            });
            steps[s]
                .messages
                .push(layout.message(p.from, p.to, bytes * p.pieces.len() as f64));
        }
        let mut last: Vec<Option<usize>> = vec![None; n]; // each node's previous exchange
        for (s, step) in self.steps.iter().enumerate() {
            for e in step {
                let (a, b) = (e.out.from, e.out.to);
                let mut after: Vec<usize> = into[a].iter().chain(&into[b]).copied().collect();
                after.extend(last[a].iter().chain(&last[b]));
                after.sort_unstable();
                after.dedup();
                let k = steps.len();
                steps.push(Step {
                    after,
                    delay: 0.0,
                    messages: vec![
                        layout.message(a, b, bytes * e.out.pieces.len() as f64),
                        layout.message(b, a, bytes * e.back.pieces.len() as f64),
                    ],
                    group: Some(s + 1),
                });
                last[a] = Some(k);
                last[b] = Some(k);
            }
        }
        Ok(Plan { steps })
    }

    /// LG with each phase run by a schedule: `local` holds timeframes of indices into
    /// [`Lg::local_aggregated`], `exchanges` of indices into [`Lg::exchanges`]; every
    /// parcel once. Frames run one after another with a barrier between them, the
    /// inter-cluster phase after the local one; messages carry their parcels' pieces
    /// (`bytes` each). Groups: the local frames, then the inter-cluster frames.
    pub fn plan_scheduled(
        &self,
        layout: &Layout,
        bytes: f64,
        local: &[Vec<usize>],
        exchanges: &[Vec<usize>],
    ) -> Result<Plan, SimError> {
        self.check(layout)?;
        let phases = [
            ("local phase", self.local_aggregated(), local),
            ("inter-cluster phase", self.exchanges(), exchanges),
        ];
        let mut frames: Vec<Vec<Message>> = Vec::new();
        for (what, parcels, schedule) in &phases {
            check_cover(what, parcels.len(), schedule)?;
            for f in schedule.iter() {
                frames.push(
                    f.iter()
                        .map(|&k| {
                            let p = &parcels[k];
                            layout.message(p.from, p.to, bytes * p.pieces.len() as f64)
                        })
                        .collect(),
                );
            }
        }
        Ok(chained(frames.into_iter()))
    }
}

/// The traffic-set model of some (sender, receiver) pairs over two crossbar clusters,
/// for a scheduler: transfer k is `pairs[k]`, named `a{i}->b{j}` (`a` for cluster 1, `b`
/// for cluster 2, numbered within the cluster), over the sender's up link, the receiver's
/// down link and, between clusters, one of `lanes` backbone links each way. The backbone
/// is split into lanes so that a timeframe may hold as many remote transfers as the
/// backbone has node-card bandwidths (lanes = backbone bandwidth / node bandwidth); the
/// remote pairs take the lanes in turn, in the order given, so the lanes' loads differ by
/// at most one.
pub fn scheduling_traffic(
    name: &str,
    n1: usize,
    pairs: &[(usize, usize)],
    lanes: usize,
) -> Result<Traffic, SimError> {
    let lanes = lanes.max(1);
    let node = |k: usize| {
        if k < n1 {
            format!("a{k}")
        } else {
            format!("b{}", k - n1)
        }
    };
    let mut b = TrafficBuilder::new(name);
    let mut turn = [0usize; 2];
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (fi, tj) = (node(i), node(j));
        let mut path = vec![format!("{fi}>up")];
        if (i < n1) != (j < n1) {
            let dir = usize::from(i >= n1);
            let lane = turn[dir] % lanes;
            turn[dir] += 1;
            path.push(if dir == 0 {
                format!("A>B.{lane}")
            } else {
                format!("B>A.{lane}")
            });
        }
        path.push(format!("{tj}>down"));
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        b.transfer(
            &format!("{fi}->{tj}"),
            Some(fi.clone()),
            Some(tj.clone()),
            &path,
            &format!("pairs[{k}]"),
            &|p| format!("pairs[{k}].path[{p}]"),
        )
        .map_err(|e| SimError::Mismatch(e.to_string()))?;
    }
    b.build("pairs")
        .map_err(|e| SimError::Mismatch(e.to_string()))
}

/// A schedule of a [`scheduling_traffic`] as timeframes of pair indices.
pub fn frames_of(schedule: &Schedule) -> Vec<Vec<usize>> {
    schedule
        .frames
        .iter()
        .map(|f| f.iter().map(|t| t.index()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(p: &Parcel) -> Vec<(usize, usize)> {
        let mut v = p.pieces.clone();
        v.sort_unstable();
        v
    }

    /// 001's example: n1 = 3, n2 = 7.
    #[test]
    fn lg_reproduces_001s_example() {
        let lg = Lg::new(3, 7);
        // M(7, 2) is stored on node ⌊7/3⌋·3 + 2 = 8 during the local phase.
        assert!(lg
            .local
            .iter()
            .any(|p| p.from == 7 && p.to == 8 && p.pieces == [(7, 2)]));
        // ⌈7/3⌉ = 3 steps: (0,3) (1,4) (2,5); then (0,6) (1,7) (2,8); then only (0,9).
        let pairs: Vec<Vec<(usize, usize)>> = lg
            .steps
            .iter()
            .map(|s| s.iter().map(|e| (e.out.from, e.out.to)).collect())
            .collect();
        assert_eq!(
            pairs,
            vec![
                vec![(0, 3), (1, 4), (2, 5)],
                vec![(0, 6), (1, 7), (2, 8)],
                vec![(0, 9)]
            ]
        );
        // In step 2 node 8 sends M(6,2), M(7,2), M(8,2) to node 2 (and, where Algorithm 1
        // is silent, M(9,2): node 9's group is short).
        let e = &lg.steps[1][2];
        assert_eq!((e.back.from, e.back.to), (8, 2));
        assert_eq!(pieces(&e.back), vec![(6, 2), (7, 2), (8, 2), (9, 2)]);
        // Node 2 sends node 8 the data of all of C1 for it: M(0,8), M(1,8), M(2,8).
        assert_eq!(pieces(&e.out), vec![(0, 8), (1, 8), (2, 8)]);
        // In the last step node 9 sends only its own data for node 0.
        assert_eq!(pieces(&lg.steps[2][0].back), vec![(9, 0)]);
        assert_eq!(pieces(&lg.steps[2][0].out), vec![(0, 9), (1, 9), (2, 9)]);
    }

    /// Every piece M(i, j), i ≠ j, reaches j exactly once, along a local message and/or one
    /// exchange, for many cluster sizes, either way round.
    #[test]
    fn lg_delivers_every_piece_once() {
        for n1 in 1..=7 {
            for n2 in 1..=11 {
                let lg = Lg::new(n1, n2);
                let n = n1 + n2;
                let mut at: Vec<usize> = (0..n * n).map(|p| p / n).collect(); // where M(i,j) is
                let mut moves = vec![0usize; n * n];
                for p in &lg.local {
                    assert_eq!(p.pieces.len(), 1);
                    let (i, j) = p.pieces[0];
                    assert_eq!(at[i * n + j], p.from);
                    at[i * n + j] = p.to;
                    moves[i * n + j] += 1;
                }
                let mut backbone = 0;
                for e in lg.steps.iter().flatten() {
                    for p in [&e.out, &e.back] {
                        assert_ne!(p.from < n1, p.to < n1, "an exchange crosses the backbone");
                        backbone += 1;
                        for &(i, j) in &p.pieces {
                            assert_eq!(p.to, j, "a parcel carries data for its receiver");
                            assert_eq!(at[i * n + j], p.from);
                            at[i * n + j] = p.to;
                            moves[i * n + j] += 1;
                        }
                    }
                }
                for i in 0..n {
                    for j in (0..n).filter(|&j| j != i) {
                        assert_eq!(at[i * n + j], j, "{n1}+{n2}: M({i},{j})");
                        assert!(moves[i * n + j] <= 2);
                    }
                }
                assert_eq!(backbone, 2 * n1.max(n2), "{n1}+{n2}");
                assert_eq!(lg.steps.len(), n1.max(n2).div_ceil(n1.min(n2)));
            }
        }
    }

    fn crossbar(n1: usize, n2: usize) -> (crate::Platform, Layout) {
        // Links: 2k up, 2k+1 down of node k; then A>B, B>A.
        let n = n1 + n2;
        let mut links = Vec::new();
        for k in 0..n {
            for dir in ["up", "down"] {
                links.push(crate::Link {
                    name: format!("{k}{dir}"),
                    bandwidth: 100.0,
                    latency: 0.001,
                });
            }
        }
        for name in ["A>B", "B>A"] {
            links.push(crate::Link {
                name: name.into(),
                bandwidth: 1000.0,
                latency: 0.01,
            });
        }
        let ab = 2 * n as u32;
        let layout = Layout::new(
            n1,
            n2,
            |i, j| {
                let mut r = vec![2 * i as u32];
                match (i < n1, j < n1) {
                    (true, false) => r.push(ab),
                    (false, true) => r.push(ab + 1),
                    _ => {}
                }
                r.push(2 * j as u32 + 1);
                Some(r)
            },
            vec![ab, ab + 1],
        )
        .expect("layout");
        (crate::Platform::new(links).expect("platform"), layout)
    }

    #[test]
    fn backbone_messages_are_counted_from_the_plans() {
        for (n1, n2) in [(3, 7), (30, 30), (20, 40), (7, 3)] {
            let (_, layout) = crossbar(n1, n2);
            let lg = Lg::new(n1, n2).plan(&layout, 1.0).expect("plan");
            assert_eq!(layout.backbone_messages(&lg), 2 * n1.max(n2));
            let direct = direct_all_at_once(&layout, 1.0);
            assert_eq!(layout.backbone_messages(&direct), 2 * n1 * n2);
            let rr = direct_round_robin(&layout, 1.0);
            assert_eq!(layout.backbone_messages(&rr), 2 * n1 * n2);
            assert_eq!(rr.messages(), direct.messages());
        }
    }

    #[test]
    fn lg_plan_runs_and_moves_the_bytes() {
        let (platform, layout) = crossbar(3, 7);
        let lg = Lg::new(3, 7);
        let plan = lg.plan(&layout, 10.0).expect("plan");
        // Each remote piece crosses the backbone once: 2·21 pieces.
        let on_backbone: f64 = plan
            .steps
            .iter()
            .flat_map(|s| &s.messages)
            .filter(|m| m.route.len() == 3)
            .map(|m| m.bytes)
            .sum();
        assert_eq!(on_backbone, 2.0 * 21.0 * 10.0);
        let run = crate::simulate(&platform, &plan, &crate::Options::default()).expect("runs");
        // Three exchange steps at least, each with a backbone latency.
        assert!(run.makespan > 3.0 * 0.01);
        let direct = crate::simulate(
            &platform,
            &direct_all_at_once(&layout, 10.0),
            &crate::Options::default(),
        )
        .expect("runs");
        assert!(direct.makespan > 0.01 && direct.makespan < run.makespan);
    }

    #[test]
    fn relay_first_sends_every_piece_and_overlaps_the_local_data() {
        let (platform, layout) = crossbar(30, 30);
        let lg = Lg::new(30, 30);
        let relays = lg.relay_aggregated();
        // Each C1 node sends its 29 relayed pieces, one to each other C1 node; C2 alike.
        assert_eq!(relays.len(), 60 * 29);
        assert!(relays.iter().all(|p| p.pieces.len() == 1));
        let internal = lg.internal();
        assert_eq!(internal.len(), 60 * 29);
        // Frames in which each node sends one message (round k: to the k-th other node of
        // its cluster) and receives one.
        let rounds = |parcels: &[Parcel]| -> Vec<Vec<usize>> {
            (1..30)
                .map(|k| {
                    (0..parcels.len())
                        .filter(|&x| {
                            let p = &parcels[x];
                            (p.to % 30 + 30 - p.from % 30) % 30 == k
                        })
                        .collect()
                })
                .collect()
        };
        let plan = lg
            .plan_relay_first(&layout, 1e6, &rounds(&relays), &rounds(&internal))
            .expect("plan");
        // The 1740 pieces for the own cluster move once; the 1800 for the other cluster
        // cross the backbone once, and all but the 60 whose sender is their relay move to
        // their relay first.
        assert_eq!(plan.bytes(), (1740.0 + 1800.0 + (1800.0 - 60.0)) * 1e6);
        assert_eq!(layout.backbone_messages(&plan), 60);
        let opts = crate::Options::default();
        let fast = crate::simulate(&platform, &plan, &opts).expect("runs");
        let published =
            crate::simulate(&platform, &lg.plan(&layout, 1e6).expect("plan"), &opts).expect("runs");
        assert!(
            fast.makespan < published.makespan,
            "{} {}",
            fast.makespan,
            published.makespan
        );
        assert!(lg
            .plan_relay_first(&layout, 1.0, &rounds(&relays)[1..], &rounds(&internal))
            .is_err());
    }

    #[test]
    fn scheduled_plans_check_their_schedules() {
        let (_, layout) = crossbar(2, 3);
        let lg = Lg::new(2, 3);
        let local: Vec<Vec<usize>> = (0..lg.local_aggregated().len()).map(|k| vec![k]).collect();
        let ex: Vec<Vec<usize>> = vec![(0..lg.exchanges().len()).collect()];
        let plan = lg.plan_scheduled(&layout, 1.0, &local, &ex).expect("plan");
        assert_eq!(plan.steps.len(), local.len() + 1);
        assert_eq!(layout.backbone_messages(&plan), 6);
        assert!(lg.plan_scheduled(&layout, 1.0, &local[1..], &ex).is_err());
        let pairs: Vec<(usize, usize)> = layout.pairs();
        let frames: Vec<Vec<(usize, usize)>> = pairs.iter().map(|&p| vec![p]).collect();
        assert_eq!(
            direct_scheduled(&layout, 1.0, &frames)
                .expect("plan")
                .steps
                .len(),
            20
        );
        assert!(direct_scheduled(&layout, 1.0, &frames[1..]).is_err());
        let t = scheduling_traffic("x", 2, &pairs, 2).expect("traffic");
        assert_eq!(t.len(), 20);
        // 6 remote pairs each way over 2 lanes: 3 per lane; a node card carries 4.
        assert_eq!(t.duration(), 4);
        let one_lane = scheduling_traffic("x", 2, &pairs, 1).expect("traffic");
        assert_eq!(one_lane.duration(), 6);
    }
}
