//! Multi-cluster systems of paper 002 (`multi-cluster:M,LIST[,NC]`, see
//! `liquid_topology::multi_cluster`) without their network form: the wiring (vertices and
//! channels, O(nodes) of them) and routes computed one at a time, exactly as the
//! topology crate routes them; every link's load counted by route classes
//! ([`Wiring::all_to_all_loads`]: not per transfer); and, when the system is
//! *homogeneous with a full ICN2*, its liquid schedule in closed form.
//!
//! **The streamed schedule** (homogeneous: every cluster an m-port n-tree of `s` nodes;
//! full ICN2: `C = 2·(m/2)^n_c` clusters, every ICN2 node port used). Between clusters,
//! every ECN1 link of a source cluster is dominated by its concentrator's channel into the
//! ICN2, every ECN1 link of a destination cluster and every descending ICN2 link by the
//! ICN2's channel into its dispatcher (`liquid_search::classes`): a set of
//! inter-cluster transfers is conflict-free as soon as no two leave the same cluster, no
//! two enter the same cluster, and their cluster pairs share no ascending ICN2 link. The
//! orbit frames of the ICN2 (an m-port n_c-tree whose hosts are the clusters; frame `g`
//! sends cluster `i` to the digit-wise translation of `i` by `g + 1`, see
//! [`crate::tree`]) are such sets, and partition the cluster pairs. So frame
//! `F = g·s² + j` (`0 ≤ j < s²`) sends, from every cluster `i` to `v = orbit_g(i)`, node
//! `j div s` of `i` to node `j mod s` of `v`: each cluster pair's `s²` transfers in `s²`
//! frames, `s²(C − 1) = s(N − s)` frames in all, the load of a concentrator channel: Λ.
//! Transfers within a cluster use only its ICN1 and the nodes' ICN1 channels, which no
//! inter-cluster route uses: the first `s − 1` frames also carry every cluster's own
//! orbit frames. The validator checks every frame; the construction claims nothing it
//! does not check.
//!
//! **Not streamed:** heterogeneous systems and systems whose ICN2 has unused ports (the
//! cluster-level demand `N_i·N_v` is then not a repetition of one set of permutations;
//! the in-memory `structured` engine decomposes it into rounds by a search over classes
//! whose members it lists, which is O(transfers)). They are analysed (loads, Λ,
//! bottlenecks) at any size.

use std::cell::RefCell;

use liquid_topology::multi_cluster::{MultiCluster, Wiring};

use crate::tree::{LoadClass, Tree};
use crate::{StreamError, Structured};

/// The closed-form schedule of a homogeneous system with a full ICN2.
#[derive(Debug, Clone)]
struct Plan {
    /// Nodes per cluster, `s`.
    size: usize,
    /// The ICN2 as a tree whose hosts are the clusters.
    icn2: Tree,
    /// A cluster's tree (all clusters alike).
    cluster: Tree,
}

/// A multi-cluster system's all-to-all, streamed (module docs).
#[derive(Debug)]
pub struct Clusters {
    system: MultiCluster,
    wiring: Wiring,
    /// Per vertex, its out-channels as (to, channel), by `to` (a concentrator has one per
    /// ECN1 switch: hundreds).
    out: Vec<Vec<(u32, u32)>>,
    /// Per channel, its link number (the traffic's links are the channels some route
    /// uses, in channel order), or `u32::MAX`.
    link_of: Vec<u32>,
    /// Per link, its channel.
    channel_of: Vec<u32>,
    /// Per link, its load.
    loads: Vec<u64>,
    duration: u64,
    first: Vec<usize>,
    plan: Result<Plan, String>,
    scratch: RefCell<Vec<usize>>,
}

impl Clusters {
    /// The system of a spec (`M,LIST[,NC]`, as `multi-cluster:` takes it), wired and
    /// with its loads counted by route classes.
    pub fn new(spec: &str) -> Result<Clusters, StreamError> {
        let bad = |why: String| StreamError::Spec {
            spec: format!("multi-cluster:{spec}"),
            why,
        };
        let system = MultiCluster::parse(spec).map_err(|e| bad(e.to_string()))?;
        let wiring = system.large_wiring().map_err(|e| bad(e.to_string()))?;
        if wiring.nodes() < 2 {
            return Err(bad("the system has fewer than two nodes".into()));
        }
        let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); wiring.vertices()];
        for (c, ch) in wiring.channels().iter().enumerate() {
            out[ch.from].push((ch.to as u32, c as u32));
        }
        for list in &mut out {
            list.sort_unstable();
        }
        let per_channel = wiring.all_to_all_loads();
        let mut link_of = vec![u32::MAX; per_channel.len()];
        let (mut channel_of, mut loads) = (Vec::new(), Vec::new());
        for (c, &load) in per_channel.iter().enumerate().filter(|(_, &l)| l > 0) {
            link_of[c] = channel_of.len() as u32;
            channel_of.push(c as u32);
            loads.push(load);
        }
        let duration = loads.iter().copied().max().unwrap_or(0);
        let first = (0..system.cluster_count())
            .map(|i| wiring.first_node(i))
            .collect();
        let plan = Self::plan(&system, duration);
        Ok(Clusters {
            system,
            wiring,
            out,
            link_of,
            channel_of,
            loads,
            duration,
            first,
            plan,
            scratch: RefCell::new(Vec::new()),
        })
    }

    fn plan(system: &MultiCluster, duration: u64) -> Result<Plan, String> {
        let c = system.cluster_count();
        let levels = system.clusters[0];
        if system.clusters.iter().any(|&n| n != levels) {
            return Err(format!(
                "the clusters differ in height ({:?}): only homogeneous systems have a \
                 streamed schedule (the in-memory structured engine schedules the others \
                 up to 2,048 nodes)",
                system.clusters
            ));
        }
        let icn2 = Tree::new(system.ports, system.icn2_levels).map_err(|e| e.to_string())?;
        if icn2.hosts() != c {
            return Err(format!(
                "{c} clusters on an ICN2 of {} ports: only a full ICN2 (C = 2·(m/2)^n_c) has \
                 a streamed schedule",
                icn2.hosts()
            ));
        }
        let cluster = Tree::new(system.ports, levels).map_err(|e| e.to_string())?;
        let size = cluster.hosts();
        let frames = (size * size * (c - 1)) as u64;
        if frames != duration {
            return Err(format!(
                "internal: the construction has {frames} frames, Λ is {duration}"
            ));
        }
        Ok(Plan {
            size,
            icn2,
            cluster,
        })
    }

    /// The system's parameters.
    pub fn system(&self) -> &MultiCluster {
        &self.system
    }

    /// Why the system has no streamed schedule (`None`: it has one).
    pub fn not_streamed(&self) -> Option<&str> {
        self.plan.as_ref().err().map(String::as_str)
    }

    /// Number of switches (ICN1s, ECN1s and the ICN2).
    pub fn switches(&self) -> u64 {
        self.system.switches() as u64
    }

    /// Number of transfers, N(N − 1).
    pub fn transfers(&self) -> u64 {
        let n = self.wiring.nodes() as u64;
        n * (n - 1)
    }

    /// The links grouped by what they join and their load (counted by route classes).
    pub fn load_classes(&self) -> Vec<LoadClass> {
        let kind = |v: usize| -> &'static str {
            let name = self.wiring.name(v);
            if name.starts_with("x.") {
                "ICN2 switch"
            } else if name.ends_with(".cd") {
                "concentrator/dispatcher"
            } else if name.contains(".i.") {
                "ICN1 switch"
            } else if name.contains(".e.") {
                "ECN1 switch"
            } else {
                "node"
            }
        };
        let mut classes: std::collections::BTreeMap<(std::cmp::Reverse<u64>, String), u64> =
            std::collections::BTreeMap::new();
        for (l, &load) in self.loads.iter().enumerate() {
            let ch = self.wiring.channels()[self.channel_of[l] as usize];
            let what = format!("{} to {}", kind(ch.from), kind(ch.to));
            *classes.entry((std::cmp::Reverse(load), what)).or_default() += 1;
        }
        classes
            .into_iter()
            .map(|((load, links), count)| LoadClass {
                links,
                count,
                load: load.0,
                formula: "counted by route classes".into(),
            })
            .collect()
    }

    /// The first link at Λ, by name.
    pub fn bottleneck_example(&self) -> String {
        let l = self
            .loads
            .iter()
            .position(|&x| x == self.duration)
            .unwrap_or(0);
        self.link_name(l)
    }
}

impl Structured for Clusters {
    fn name(&self) -> String {
        self.system.name()
    }
    fn spec(&self) -> String {
        format!("multi-cluster:{}", self.system.spec())
    }
    fn hosts(&self) -> usize {
        self.wiring.nodes()
    }
    fn links(&self) -> usize {
        self.loads.len()
    }
    fn host_name(&self, h: usize) -> String {
        self.wiring.name(h).to_string()
    }
    fn link_name(&self, l: usize) -> String {
        let ch = self.wiring.channels()[self.channel_of[l] as usize];
        format!("{}>{}", self.wiring.name(ch.from), self.wiring.name(ch.to))
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        let mut vertices = self.scratch.borrow_mut();
        self.wiring.route(s, d, &mut vertices);
        out.clear();
        out.extend(vertices.windows(2).map(|hop| {
            let list = &self.out[hop[0]];
            let c = list
                .binary_search_by_key(&(hop[1] as u32), |&(to, _)| to)
                .map_or(u32::MAX, |i| list[i].1);
            self.link_of[c as usize]
        }));
    }
    fn load(&self, l: usize) -> u64 {
        self.loads[l]
    }
    fn duration(&self) -> u64 {
        self.duration
    }
    fn frames(&self) -> usize {
        match &self.plan {
            Ok(p) => p.size * p.size * (self.first.len() - 1),
            Err(_) => 0,
        }
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let Ok(p) = &self.plan else {
            return;
        };
        let s = p.size;
        let (g, j) = (f / (s * s), f % (s * s));
        let (a, b) = (j / s, j % s);
        for (i, &first) in self.first.iter().enumerate() {
            let v = p.icn2.orbit_destination(g, i);
            pairs.push(((first + a) as u32, (self.first[v] + b) as u32));
        }
        if f + 1 < s {
            for &first in &self.first {
                pairs.extend((0..s).map(|h| {
                    (
                        (first + h) as u32,
                        (first + p.cluster.orbit_destination(f, h)) as u32,
                    )
                }));
            }
        }
    }
    fn method(&self) -> String {
        match &self.plan {
            Ok(p) => format!(
                "cluster orbit frames: ICN2 orbit frame g (cluster i to the digit-wise \
                 translation of i by g+1) repeated s² = {} times, node j div s to node j mod s \
                 in repetition j; each cluster's own orbit frames in the first s-1 = {} frames",
                p.size * p.size,
                p.size - 1
            ),
            Err(why) => format!("no streamed schedule: {why}"),
        }
    }
    fn streamable(&self) -> Result<(), String> {
        self.plan.as_ref().map(|_| ()).map_err(Clone::clone)
    }
}
