//! Heterogeneous multi-cluster systems (paper 002 section 2): `C` clusters, cluster `i`
//! an m-port n_i-tree (`N_i = 2·(m/2)^n_i` nodes), joined through concentrators /
//! dispatchers by a second-level m-port n_c-tree (ICN2) whose nodes are the clusters.
//!
//! This module holds the parameters of such a system and their textual form,
//! `M,LIST[,NC]`, where `LIST` is a `+`-separated list of `COUNTxN` (COUNT clusters that
//! are m-port N-trees) or `N` (one cluster), e.g. 002's Table 1 organisations
//! `8,12x1+16x2+4x3` (N = 1120, C = 32) and `4,8x3+3x4+5x5` (N = 544, C = 16).
//! `NC` defaults to the smallest ICN2 with `2·(m/2)^NC ≥ C` node ports; 002 sizes the
//! ICN2 so that `C = 2·(m/2)^n_c` exactly, which both organisations of Table 1 satisfy.
//!
//! # The network ([`MultiCluster::wiring`], [`MultiCluster::generated`])
//!
//! - Cluster `i` has two m-port n_i-trees of its own: the ICN1 (switches `c{i}.i.sw…`)
//!   and the ECN1 (`c{i}.e.sw…`), with the switch names of [`crate::fat_tree`]. Every
//!   node `c{i}.p{j}` (node `j` of cluster `i`) is attached to both: one cable to its ICN1
//!   leaf switch, one to its ECN1 leaf switch.
//! - The concentrator/dispatcher `c{i}.cd` of cluster `i` has one cable to **every**
//!   switch of its ECN1 and one to node port `i` of the ICN2 (switches `x.sw…`), an
//!   m-port n_c-tree (node ports beyond `C` stay unused).
//! - A cable is a directed channel each way. Node↔switch channels are of class
//!   [`ChannelClass::NodeSwitch`] (002's `t_cn`), all others (switch↔switch,
//!   switch↔concentrator, concentrator↔ICN2) of class [`ChannelClass::SwitchSwitch`]
//!   (`t_cs`; 002 gives the concentrator the service time `M·t_cs`, eq. 33).
//!
//! Routes (deterministic up*/down*, d-mod-k as in [`crate::fat_tree`]):
//! - between two nodes of cluster `i`: through the ICN1, as in an m-port n_i-tree;
//! - from node `a` of cluster `i` to node `b` of cluster `v ≠ i`: 002 says the message
//!   "leaves the ECN1 at the end of the ascending phase" and that its two ECN1 parts
//!   are "like a complete journey in the ECN1" (eqs. 26-27: `j` links up in cluster `i`
//!   and `l` links down in cluster `v`, with the probabilities `P_{j,n_i}` and
//!   `P_{l,n_v}` of an intra-cluster route). The construction here makes that literal:
//!   the message ascends the source's ECN1 as if to a *proxy* node `p` of cluster `i`
//!   and leaves at the nearest common ancestor of `a` and `p` for the concentrator;
//!   crosses the ICN2 from port `i` to port `v` (up*/down*); and leaves the dispatcher
//!   of cluster `v` for the nearest common ancestor of `b` and a proxy `q` of cluster
//!   `v`, from which it descends to `b`. The proxies are `p = a + 1 + (g_b mod (N_i − 1))
//!   (mod N_i)` and `q = b + 1 + (g_a mod (N_v − 1)) (mod N_v)`, where `g` is a node's
//!   index in the whole system: never the node itself, and spread nearly uniformly over
//!   the other nodes of the cluster, so `j` and `l` follow eq. 4 closely. The route
//!   has `j + 1 + 2h + 1 + l` channels: 002 counts `j + 2h + l`; the two more are the
//!   channels into and out of the concentrator/dispatcher.

use std::collections::HashMap;

use liquid_model::Traffic;

use crate::direct::FlatRoutes;
use crate::fat_tree::{FatTree, TreeEnd};
use crate::{bad, Generated, NetBuilder, TopologyError};

/// The largest number of clusters accepted.
pub const MAX_CLUSTERS: usize = 4096;

/// The largest tree height (of a cluster or of the ICN2) accepted.
pub const MAX_LEVELS: usize = 24;

/// The largest number of nodes of a wired system ([`MultiCluster::wiring`],
/// [`MultiCluster::generated`]). It is twice [`crate::MAX_HOSTS`], which bounds the other
/// generators: 002's Table 1 has a 1120-node organisation, whose all-to-all (1,253,280
/// routes) `analyze` and `solve` must accept. The routes are listed for every pair, so
/// the model grows with the square of this.
pub const MAX_NODES: usize = 2048;

/// The largest number of nodes of a system wired for streaming
/// ([`MultiCluster::large_wiring`]): the wiring holds its vertices and channels, never
/// its routes, so it grows with the nodes, not with their square.
pub const MAX_STREAMED_NODES: usize = 1 << 22;

/// The kind of a vertex of a wired multi-cluster system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexKind {
    /// A processing node (sends and receives messages).
    Node,
    /// A switch of an ICN1, an ECN1 or the ICN2.
    Switch,
    /// A cluster's concentrator/dispatcher (between its ECN1 and the ICN2).
    Concentrator,
}

/// The class of a channel, which sets its flit time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelClass {
    /// Node to switch or switch to node (002's `t_cn`).
    NodeSwitch,
    /// Any other channel: switch to switch, and to and from a concentrator/dispatcher
    /// (002's `t_cs`).
    SwitchSwitch,
}

/// A directed channel between two vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channel {
    /// The sending vertex.
    pub from: usize,
    /// The receiving vertex.
    pub to: usize,
    /// Its class.
    pub class: ChannelClass,
}

/// Where a cluster's vertices are.
#[derive(Debug, Clone)]
struct Place {
    tree: FatTree,
    first_node: usize,
    icn1: usize,
    ecn1: usize,
    cd: usize,
}

/// A multi-cluster system as vertices and directed channels by index, with its routes
/// (see the module docs). Nodes are vertices `0..N`, cluster by cluster.
#[derive(Debug, Clone)]
pub struct Wiring {
    system: MultiCluster,
    names: Vec<String>,
    kinds: Vec<VertexKind>,
    channels: Vec<Channel>,
    channel_at: HashMap<(usize, usize), usize>,
    places: Vec<Place>,
    icn2: FatTree,
    icn2_base: usize,
}

/// Parameters of a heterogeneous multi-cluster system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiCluster {
    /// Ports per switch, `m` (even, at least 4), the same in every network.
    pub ports: usize,
    /// Height of every cluster's tree, `n_i`, in cluster order.
    pub clusters: Vec<usize>,
    /// Height of the second-level tree (ICN2), `n_c`.
    pub icn2_levels: usize,
}

impl MultiCluster {
    /// Checked parameters; `icn2_levels: None` chooses the smallest ICN2 with at least
    /// `C` node ports.
    pub fn new(
        ports: usize,
        clusters: Vec<usize>,
        icn2_levels: Option<usize>,
    ) -> Result<MultiCluster, TopologyError> {
        if ports < 4 || ports % 2 == 1 {
            return Err(bad("ports", "m must be even and at least 4"));
        }
        if clusters.is_empty() {
            return Err(bad("clusters", "at least one cluster is needed"));
        }
        if clusters.len() > MAX_CLUSTERS {
            return Err(bad(
                "clusters",
                format!("{} clusters; at most {MAX_CLUSTERS}", clusters.len()),
            ));
        }
        if let Some(&n) = clusters.iter().find(|&&n| n == 0 || n > MAX_LEVELS) {
            return Err(bad(
                "clusters",
                format!("a cluster of height {n}; heights run from 1 to {MAX_LEVELS}"),
            ));
        }
        let k = ports / 2;
        let capacity = |nc: usize| 2u128.saturating_mul((k as u128).saturating_pow(nc as u32));
        let c = clusters.len() as u128;
        let icn2_levels = match icn2_levels {
            Some(nc) => {
                if nc == 0 || nc > MAX_LEVELS {
                    return Err(bad(
                        "icn2 levels",
                        format!("n_c = {nc}; it runs from 1 to {MAX_LEVELS}"),
                    ));
                }
                if capacity(nc) < c {
                    return Err(bad(
                        "icn2 levels",
                        format!(
                            "an m-port {nc}-tree has {} node ports, fewer than the {c} clusters",
                            capacity(nc)
                        ),
                    ));
                }
                nc
            }
            None => (1..=MAX_LEVELS)
                .find(|&nc| capacity(nc) >= c)
                .expect("MAX_CLUSTERS fits in a tree of MAX_LEVELS levels"),
        };
        Ok(MultiCluster {
            ports,
            clusters,
            icn2_levels,
        })
    }

    /// Parses the textual form `M,LIST[,NC]` (see the module docs).
    pub fn parse(s: &str) -> Result<MultiCluster, TopologyError> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() < 2 || parts.len() > 3 {
            return Err(bad(
                "multi-cluster",
                format!("{s:?}: expected M,LIST or M,LIST,NC (e.g. 8,12x1+16x2+4x3)"),
            ));
        }
        let number = |what: &str, t: &str| -> Result<usize, TopologyError> {
            t.trim()
                .parse()
                .map_err(|_| bad(what, format!("{t:?} is not a whole number")))
        };
        let ports = number("ports", parts[0])?;
        let mut clusters = Vec::new();
        for item in parts[1].split('+') {
            let (count, height) = match item.split_once('x') {
                Some((c, n)) => (number("cluster count", c)?, number("cluster height", n)?),
                None => (1, number("cluster height", item)?),
            };
            if count == 0 {
                return Err(bad("cluster count", format!("{item:?} has no clusters")));
            }
            if clusters.len() + count > MAX_CLUSTERS {
                return Err(bad(
                    "clusters",
                    format!("more than {MAX_CLUSTERS} clusters"),
                ));
            }
            clusters.extend(std::iter::repeat_n(height, count));
        }
        let nc = parts.get(2).map(|t| number("icn2 levels", t)).transpose()?;
        MultiCluster::new(ports, clusters, nc)
    }

    /// The textual form, clusters grouped by runs of equal height (`8,12x1+16x2+4x3,2`).
    pub fn spec(&self) -> String {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &n in &self.clusters {
            match runs.last_mut() {
                Some((count, h)) if *h == n => *count += 1,
                _ => runs.push((1, n)),
            }
        }
        let list: Vec<String> = runs
            .iter()
            .map(|&(count, n)| {
                if count == 1 {
                    n.to_string()
                } else {
                    format!("{count}x{n}")
                }
            })
            .collect();
        format!("{},{},{}", self.ports, list.join("+"), self.icn2_levels)
    }

    /// Number of clusters, `C`.
    pub fn cluster_count(&self) -> usize {
        self.clusters.len()
    }

    /// Cluster `i`'s tree (ICN1 and ECN1 have this shape).
    pub fn cluster_tree(&self, i: usize) -> FatTree {
        FatTree::new(self.ports, self.clusters[i])
    }

    /// Number of nodes of cluster `i`, `N_i = 2·(m/2)^n_i` (002 eq. 1), saturating.
    pub fn cluster_nodes(&self, i: usize) -> u128 {
        2u128.saturating_mul(((self.ports / 2) as u128).saturating_pow(self.clusters[i] as u32))
    }

    /// Number of nodes of the whole system, `N = Σ N_i`, saturating.
    pub fn nodes(&self) -> u128 {
        (0..self.cluster_count()).fold(0u128, |acc, i| acc.saturating_add(self.cluster_nodes(i)))
    }

    /// The second-level tree (ICN2), whose node ports take the clusters' concentrators /
    /// dispatchers, cluster `i` at port `i`.
    pub fn icn2(&self) -> FatTree {
        FatTree::new(self.ports, self.icn2_levels)
    }

    /// Number of switches of the whole system: two m-port n_i-trees per cluster (eq. 2
    /// each) and the ICN2, saturating (concentrators/dispatchers not included).
    pub fn switches(&self) -> u128 {
        let k = (self.ports / 2) as u128;
        let tree = |n: usize| ((2 * n - 1) as u128).saturating_mul(k.saturating_pow(n as u32 - 1));
        self.clusters
            .iter()
            .fold(tree(self.icn2_levels), |acc, &n| {
                acc.saturating_add(tree(n).saturating_mul(2))
            })
    }

    /// The system's vertices, channels and routes (see the module docs), up to
    /// [`MAX_NODES`] nodes.
    pub fn wiring(&self) -> Result<Wiring, TopologyError> {
        self.wire(MAX_NODES)
    }

    /// [`MultiCluster::wiring`] up to [`MAX_STREAMED_NODES`] nodes, for the streaming path
    /// (`liquid_stream`), which computes routes one at a time and never lists them.
    pub fn large_wiring(&self) -> Result<Wiring, TopologyError> {
        self.wire(MAX_STREAMED_NODES)
    }

    fn wire(&self, max_nodes: usize) -> Result<Wiring, TopologyError> {
        if self.nodes() > max_nodes as u128 {
            return Err(bad(
                "clusters",
                format!(
                    "{} nodes; at most {max_nodes} in a wired system{}",
                    self.nodes(),
                    if max_nodes == MAX_NODES {
                        crate::stream_hint(Some(self.nodes()))
                    } else {
                        ""
                    }
                ),
            ));
        }
        let icn2 = self.icn2();
        if icn2.nodes() as u128 > MAX_CLUSTERS as u128 {
            return Err(bad(
                "icn2 levels",
                format!(
                    "an ICN2 with {} node ports; at most {MAX_CLUSTERS} in a wired system",
                    2u128.saturating_mul(
                        ((self.ports / 2) as u128).saturating_pow(self.icn2_levels as u32)
                    )
                ),
            ));
        }
        let mut w = Wiring {
            system: self.clone(),
            names: Vec::new(),
            kinds: Vec::new(),
            channels: Vec::new(),
            channel_at: HashMap::new(),
            places: Vec::new(),
            icn2,
            icn2_base: 0,
        };
        let mut first_node = 0;
        for (i, &n) in self.clusters.iter().enumerate() {
            let tree = FatTree::new(self.ports, n);
            for j in 0..tree.nodes() {
                w.vertex(format!("c{i}.p{j}"), VertexKind::Node);
            }
            w.places.push(Place {
                tree,
                first_node,
                icn1: 0,
                ecn1: 0,
                cd: 0,
            });
            first_node += tree.nodes();
        }
        for i in 0..self.clusters.len() {
            let tree = w.places[i].tree;
            let names = tree.switch_names();
            let icn1 = w.names.len();
            for s in &names {
                w.vertex(format!("c{i}.i.{s}"), VertexKind::Switch);
            }
            let ecn1 = w.names.len();
            for s in &names {
                w.vertex(format!("c{i}.e.{s}"), VertexKind::Switch);
            }
            let cd = w.names.len();
            w.vertex(format!("c{i}.cd"), VertexKind::Concentrator);
            let p = &mut w.places[i];
            (p.icn1, p.ecn1, p.cd) = (icn1, ecn1, cd);
            let first = p.first_node;
            for base in [icn1, ecn1] {
                for (a, b) in tree.cables() {
                    let at = |e: TreeEnd| match e {
                        TreeEnd::Node(j) => first + j,
                        TreeEnd::Switch(j) => base + j,
                    };
                    w.cable(at(a), at(b));
                }
            }
            for j in 0..names.len() {
                w.cable(ecn1 + j, cd);
            }
        }
        w.icn2_base = w.names.len();
        for s in w.icn2.switch_names() {
            w.vertex(format!("x.{s}"), VertexKind::Switch);
        }
        for (a, b) in w.icn2.cables() {
            let at = |e: TreeEnd| match e {
                TreeEnd::Node(j) => w.places.get(j).map(|p| p.cd),
                TreeEnd::Switch(j) => Some(w.icn2_base + j),
            };
            if let (Some(a), Some(b)) = (at(a), at(b)) {
                w.cable(a, b);
            }
        }
        Ok(w)
    }

    /// The all-to-all over every node of the system, with the routes of
    /// [`MultiCluster::wiring`] (concentrators/dispatchers and switches as switches).
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        let w = self.wiring()?;
        let mut b = NetBuilder::default();
        let nodes = w.nodes();
        for (v, name) in w.names.iter().enumerate() {
            if v < nodes {
                b.host(name.clone());
            } else {
                b.switch(name.clone());
            }
        }
        for c in &w.channels {
            b.link(&w.names[c.from], &w.names[c.to]);
        }
        let mut vertices = Vec::new();
        let mut path = Vec::new();
        for s in 0..nodes {
            for d in 0..nodes {
                if s == d {
                    continue;
                }
                w.route(s, d, &mut vertices);
                path.clear();
                path.extend(vertices.windows(2).map(|x| w.channel_at[&(x[0], x[1])]));
                b.route(&w.names[s], &w.names[d], &path);
            }
        }
        let hosts = &w.names[..nodes];
        Ok(Generated {
            name: self.name(),
            description: self.description(),
            link_throughput: None,
            network: b.finish(),
            link_params: Vec::new(),
            ports: Vec::new(),
            pattern: crate::all_to_all(hosts, false),
        })
    }

    /// The traffic of the system's all-to-all, built directly: the same traffic as
    /// `self.generated()?.expand()` (name, description, links in the network's order,
    /// transfer ids `c{i}.p{j}->c{v}.p{l}` with their end points, paths), without the
    /// network form's named routes (1,253,280 of them for 002's 1120-node system). The
    /// routes are [`Wiring::route`]'s, stored once as channel numbers in a flat
    /// array; a channel's number is its link's index in the network form.
    pub fn traffic(&self) -> Result<Traffic, TopologyError> {
        let w = self.wiring()?;
        let nodes = w.nodes();
        let pairs = || (0..nodes).flat_map(move |s| (0..nodes).map(move |d| (s, d)));
        let pairs = || pairs().filter(|&(s, d)| s != d);
        // Every route as channel numbers.
        let mut routes = FlatRoutes::new(w.channels.len());
        // Each vertex's out-channels (at most m + 1): a scan is cheaper than `channel_at`.
        let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); w.vertices()];
        for (c, ch) in w.channels.iter().enumerate() {
            out[ch.from].push((ch.to as u32, c as u32));
        }
        let mut vertices = Vec::new();
        for (s, d) in pairs() {
            w.route(s, d, &mut vertices);
            routes.push(vertices.windows(2).map(|hop| {
                out[hop[0]]
                    .iter()
                    .find(|&&(to, _)| to as usize == hop[1])
                    .map(|&(_, c)| c)
                    .expect("routes follow channels (every_route_is_valid)")
            }));
        }
        routes.traffic(
            self.name(),
            self.description(),
            |i| {
                format!(
                    "{}>{}",
                    w.names[w.channels[i].from], w.names[w.channels[i].to]
                )
            },
            &w.names,
            pairs(),
        )
    }

    /// The model's name (`multi-cluster-8-12x1-16x2-4x3-2`).
    pub fn name(&self) -> String {
        format!("multi-cluster-{}", self.spec().replace([',', '+'], "-"))
    }

    /// The model's description.
    fn description(&self) -> String {
        format!(
            "All-to-all over a heterogeneous multi-cluster system (paper 002) {}: {} clusters of {}-port trees, {} nodes, {} switches and {} concentrators/dispatchers; ICN1 for intra-cluster messages, ECN1 - concentrator - {}-port {}-tree ICN2 - dispatcher - ECN1 for the others, up*/down* routing",
            self.spec(),
            self.cluster_count(),
            self.ports,
            self.nodes(),
            self.switches(),
            self.cluster_count(),
            self.ports,
            self.icn2_levels,
        )
    }
}

impl Wiring {
    fn vertex(&mut self, name: String, kind: VertexKind) {
        self.names.push(name);
        self.kinds.push(kind);
    }

    fn cable(&mut self, a: usize, b: usize) {
        let class = if self.kinds[a] == VertexKind::Node || self.kinds[b] == VertexKind::Node {
            ChannelClass::NodeSwitch
        } else {
            ChannelClass::SwitchSwitch
        };
        for (from, to) in [(a, b), (b, a)] {
            self.channel_at.insert((from, to), self.channels.len());
            self.channels.push(Channel { from, to, class });
        }
    }

    /// The system's parameters.
    pub fn system(&self) -> &MultiCluster {
        &self.system
    }

    /// Number of nodes, `N` (vertices `0..N`).
    pub fn nodes(&self) -> usize {
        self.places
            .last()
            .map_or(0, |p| p.first_node + p.tree.nodes())
    }

    /// Number of vertices (nodes, switches, concentrators/dispatchers).
    pub fn vertices(&self) -> usize {
        self.names.len()
    }

    /// The name of vertex `v` (`c3.p5`, `c3.i.sw1_0`, `c3.e.sw1_0`, `c3.cd`, `x.sw0_1`).
    pub fn name(&self, v: usize) -> &str {
        &self.names[v]
    }

    /// The kind of vertex `v`.
    pub fn kind(&self, v: usize) -> VertexKind {
        self.kinds[v]
    }

    /// Every directed channel (two per cable, the second the reverse of the first).
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// The channel from `from` to `to`, if they are joined.
    pub fn channel(&self, from: usize, to: usize) -> Option<usize> {
        self.channel_at.get(&(from, to)).copied()
    }

    /// The cluster of node `g` and its index in the cluster.
    pub fn cluster_of(&self, g: usize) -> (usize, usize) {
        let i = self.places.partition_point(|p| p.first_node <= g) - 1;
        (i, g - self.places[i].first_node)
    }

    /// The first node of cluster `i` (nodes of a cluster are consecutive).
    pub fn first_node(&self, i: usize) -> usize {
        self.places[i].first_node
    }

    /// The concentrator/dispatcher of cluster `i`.
    pub fn concentrator(&self, i: usize) -> usize {
        self.places[i].cd
    }

    /// The route from node `s` to node `d` (`s ≠ d`) as the vertices it visits, written
    /// into `out` (see the module docs).
    pub fn route(&self, s: usize, d: usize, out: &mut Vec<usize>) {
        out.clear();
        let ((i, a), (v, b)) = (self.cluster_of(s), self.cluster_of(d));
        let (pi, pv) = (&self.places[i], &self.places[v]);
        let at = |p: &Place, base: usize, e: TreeEnd| match e {
            TreeEnd::Node(j) => p.first_node + j,
            TreeEnd::Switch(j) => base + j,
        };
        if i == v {
            out.extend(
                pi.tree
                    .route_ends(a, b)
                    .into_iter()
                    .map(|e| at(pi, pi.icn1, e)),
            );
            return;
        }
        let (ni, nv) = (pi.tree.nodes(), pv.tree.nodes());
        let p = (a + 1 + d % (ni - 1)) % ni;
        let up = pi.tree.route_ends(a, p);
        out.extend(up[..=up.len() / 2].iter().map(|&e| at(pi, pi.ecn1, e)));
        out.push(pi.cd);
        let x = self.icn2.route_ends(i, v);
        out.extend(x[1..x.len() - 1].iter().map(|&e| at(pi, self.icn2_base, e)));
        out.push(pv.cd);
        let q = (b + 1 + s % (nv - 1)) % nv;
        let down = pv.tree.route_ends(q, b);
        out.extend(down[down.len() / 2..].iter().map(|&e| at(pv, pv.ecn1, e)));
    }

    /// The load of every channel in the all-to-all (each node to every other node), by
    /// channel index, without going through the N(N−1) routes one by one: a route's
    /// parts depend on fewer things than the pair (module docs), so they are counted in
    /// classes, each part's route computed once with its multiplicity:
    /// - within cluster `i`: every pair of its nodes (Σ N_i² routes);
    /// - the ascending ECN1 part from node `a` of cluster `i` to the concentrator depends
    ///   on `a` and on `d mod (N_i − 1)` only (the proxy): one part per (a, residue),
    ///   counted as often as destinations outside cluster `i` have that residue;
    /// - the ICN2 part from concentrator `i` to dispatcher `v`: `N_i·N_v` times;
    /// - the descending ECN1 part to node `b` of cluster `v` depends on `b` and on
    ///   `s mod (N_v − 1)`: one part per (b, residue), likewise.
    ///
    /// Time O(Σ N_i² · n_i + C² · n_c), memory O(channels).
    pub fn all_to_all_loads(&self) -> Vec<u64> {
        let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); self.vertices()];
        for (c, ch) in self.channels.iter().enumerate() {
            out[ch.from].push((ch.to, c));
        }
        let mut load = vec![0u64; self.channels.len()];
        let mut add = |path: &[usize], times: u64| {
            for hop in path.windows(2) {
                let c = out[hop[0]]
                    .iter()
                    .find(|&&(to, _)| to == hop[1])
                    .map(|&(_, c)| c)
                    .expect("routes follow channels");
                load[c] += times;
            }
        };
        let total = self.nodes();
        let at = |p: &Place, base: usize, e: TreeEnd| match e {
            TreeEnd::Node(j) => p.first_node + j,
            TreeEnd::Switch(j) => base + j,
        };
        // How many nodes outside cluster `p` have each residue modulo N_p − 1.
        let residues = |p: &Place| -> Vec<u64> {
            let r = p.tree.nodes() - 1;
            let below = |x: usize, k: usize| (x / r + usize::from(x % r > k)) as u64;
            let (lo, hi) = (p.first_node, p.first_node + p.tree.nodes());
            (0..r)
                .map(|k| below(total, k) - below(hi, k) + below(lo, k))
                .collect()
        };
        let mut path = Vec::new();
        for p in &self.places {
            let n = p.tree.nodes();
            for a in 0..n {
                for b in (0..n).filter(|&b| b != a) {
                    path.clear();
                    path.extend(
                        p.tree
                            .route_ends(a, b)
                            .into_iter()
                            .map(|e| at(p, p.icn1, e)),
                    );
                    add(&path, 1);
                }
            }
            if self.places.len() < 2 {
                continue;
            }
            let count = residues(p);
            for a in 0..n {
                for (k, &times) in count.iter().enumerate().filter(|(_, &t)| t > 0) {
                    let proxy = (a + 1 + k) % n;
                    let up = p.tree.route_ends(a, proxy);
                    path.clear();
                    path.extend(up[..=up.len() / 2].iter().map(|&e| at(p, p.ecn1, e)));
                    path.push(p.cd);
                    add(&path, times);
                    let down = p.tree.route_ends(proxy, a);
                    path.clear();
                    path.push(p.cd);
                    path.extend(down[down.len() / 2..].iter().map(|&e| at(p, p.ecn1, e)));
                    add(&path, times);
                }
            }
        }
        for (i, pi) in self.places.iter().enumerate() {
            for (v, pv) in self.places.iter().enumerate().filter(|&(v, _)| v != i) {
                let x = self.icn2.route_ends(i, v);
                path.clear();
                path.push(pi.cd);
                path.extend(x[1..x.len() - 1].iter().map(|&e| at(pi, self.icn2_base, e)));
                path.push(pv.cd);
                add(&path, (pi.tree.nodes() * pv.tree.nodes()) as u64);
            }
        }
        load
    }

    /// The route from node `s` to node `d` as channel indices, written into `out`.
    pub fn route_channels(
        &self,
        s: usize,
        d: usize,
        vertices: &mut Vec<usize>,
        out: &mut Vec<usize>,
    ) {
        self.route(s, d, vertices);
        out.clear();
        out.extend(vertices.windows(2).map(|x| self.channel_at[&(x[0], x[1])]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_1_organisations() {
        let a = MultiCluster::parse("8,12x1+16x2+4x3").expect("table 1");
        assert_eq!((a.cluster_count(), a.nodes(), a.icn2_levels), (32, 1120, 2));
        assert_eq!(a.spec(), "8,12x1+16x2+4x3,2");
        let b = MultiCluster::parse("4,8x3+3x4+5x5").expect("table 1");
        assert_eq!((b.cluster_count(), b.nodes(), b.icn2_levels), (16, 544, 3));
        assert_eq!(MultiCluster::parse(&b.spec()).expect("own spec"), b);
    }

    #[test]
    fn single_items_and_explicit_nc() {
        let s = MultiCluster::parse("4,2+3,3").expect("valid");
        assert_eq!(s.clusters, vec![2, 3]);
        assert_eq!(s.icn2_levels, 3);
        assert_eq!(s.cluster_nodes(1), 16);
        assert_eq!(s.spec(), "4,2+3,3");
    }

    /// Nodes and switches against eqs. 1-2: each cluster has two m-port n_i-trees, the
    /// ICN2 is an m-port n_c-tree, plus one concentrator/dispatcher per cluster; every
    /// switch port in use is a cable, and a concentrator has one cable per ECN1 switch
    /// and one to the ICN2.
    #[test]
    fn counts_follow_eqs_1_and_2() {
        for spec in ["4,1+2", "8,12x1+16x2+4x3", "4,8x3+3x4+5x5", "6,3x2+1,2"] {
            let sys = MultiCluster::parse(spec).expect("valid");
            let w = sys.wiring().expect("wires");
            let (m, k) = (sys.ports, sys.ports / 2);
            let tree = |n: usize| (2 * k.pow(n as u32), (2 * n - 1) * k.pow(n as u32 - 1));
            let nodes: usize = sys.clusters.iter().map(|&n| tree(n).0).sum();
            assert_eq!(w.nodes(), nodes, "{spec}");
            assert_eq!(sys.nodes(), nodes as u128);
            let switches: usize = sys.clusters.iter().map(|&n| 2 * tree(n).1).sum::<usize>()
                + tree(sys.icn2_levels).1;
            assert_eq!(sys.switches(), switches as u128, "{spec}");
            let count = |kind| (0..w.vertices()).filter(|&v| w.kind(v) == kind).count();
            assert_eq!(count(VertexKind::Switch), switches, "{spec}");
            assert_eq!(
                count(VertexKind::Concentrator),
                sys.cluster_count(),
                "{spec}"
            );
            // Cables: m per switch of each tree, less the cables counted twice; a tree of
            // N nodes and S switches has (m·S + N)/2 cables; the ICN2 loses its unused
            // node ports.
            let c = sys.cluster_count();
            let (n2, s2) = tree(sys.icn2_levels);
            let cables: usize = sys
                .clusters
                .iter()
                .map(|&n| {
                    let (nn, ss) = tree(n);
                    2 * (m * ss + nn) / 2 + ss
                })
                .sum::<usize>()
                + (m * s2 + n2) / 2
                - (n2 - c);
            assert_eq!(w.channels().len(), 2 * cables, "{spec}");
        }
        assert_eq!(
            MultiCluster::parse("8,12x1+16x2+4x3")
                .expect("valid")
                .nodes(),
            1120
        );
    }

    /// The loads counted by route classes are the loads of the traffic's N(N−1) routes.
    #[test]
    fn all_to_all_loads_by_classes_are_the_traffics() {
        for spec in [
            "4,1+2",
            "4,2+1+3,2",
            "8,2x1+2",
            "6,3x2+1,2",
            "4,8x3+3x4+5x5",
            "4,4x2",
        ] {
            let sys = MultiCluster::parse(spec).expect("valid");
            let w = sys.wiring().expect("wires");
            let traffic = sys.traffic().expect("builds");
            // The traffic's links are the channels some route uses, in channel order.
            let loads = w.all_to_all_loads();
            let used: Vec<(usize, u64)> = (0..loads.len())
                .filter(|&c| loads[c] > 0)
                .map(|c| (c, loads[c]))
                .collect();
            assert_eq!(used.len(), traffic.num_links(), "{spec}");
            for (l, &(c, load)) in traffic.link_ids().zip(&used) {
                let ch = w.channels()[c];
                let name = format!("{}>{}", w.name(ch.from), w.name(ch.to));
                assert_eq!(name, traffic.link_name(l), "{spec}");
                assert_eq!(load, traffic.load(l) as u64, "{spec}: {name}");
            }
        }
        let big = MultiCluster::parse("4,64x6").expect("valid");
        assert!(big.wiring().is_err());
        assert_eq!(big.large_wiring().expect("wires").nodes(), 8192);
    }

    /// Every route of the small system starts at its source, ends at its destination,
    /// follows channels, stays in the ICN1 within a cluster, and otherwise runs ECN1 →
    /// concentrator → ICN2 → dispatcher → ECN1 with up*/down* in each tree.
    #[test]
    fn every_route_is_valid() {
        for spec in ["4,1+2", "4,2+1+3,2", "8,2x1+2"] {
            let sys = MultiCluster::parse(spec).expect("valid");
            let w = sys.wiring().expect("wires");
            let level = |v: usize| -> usize {
                // sw{l}_...: the level is the number after "sw".
                let name = w.name(v);
                let t = &name[name.rfind("sw").expect("a switch") + 2..];
                t.split('_').next().expect("level").parse().expect("number")
            };
            let mut r = Vec::new();
            for s in 0..w.nodes() {
                for d in 0..w.nodes() {
                    if s == d {
                        continue;
                    }
                    w.route(s, d, &mut r);
                    assert_eq!((r[0], r[r.len() - 1]), (s, d));
                    assert!(
                        r.windows(2).all(|x| w.channel(x[0], x[1]).is_some()),
                        "{r:?}"
                    );
                    let (i, _) = w.cluster_of(s);
                    let (v, _) = w.cluster_of(d);
                    let inner = &r[1..r.len() - 1];
                    let net = |x: usize| w.name(x).split('.').nth(1).unwrap_or("").to_string();
                    if i == v {
                        assert!(inner.iter().all(|&x| w.kind(x) == VertexKind::Switch
                            && w.name(x).starts_with(&format!("c{i}.i."))));
                        continue;
                    }
                    let cds: Vec<usize> = (0..r.len())
                        .filter(|&x| w.kind(r[x]) == VertexKind::Concentrator)
                        .collect();
                    assert_eq!(cds.len(), 2, "{r:?}");
                    assert_eq!(
                        (r[cds[0]], r[cds[1]]),
                        (w.concentrator(i), w.concentrator(v))
                    );
                    let up = &r[1..cds[0]];
                    let icn2 = &r[cds[0] + 1..cds[1]];
                    let down = &r[cds[1] + 1..r.len() - 1];
                    assert!(up
                        .iter()
                        .all(|&x| w.name(x).starts_with(&format!("c{i}.e."))));
                    assert!(down
                        .iter()
                        .all(|&x| w.name(x).starts_with(&format!("c{v}.e."))));
                    assert!(icn2.iter().all(|&x| w.name(x).starts_with("x.")), "{r:?}");
                    assert!(up.iter().chain(icn2).chain(down).all(|&x| net(x) != "cd"));
                    // Ascending in the source ECN1, descending in the destination's.
                    assert!(up.windows(2).all(|x| level(x[1]) + 1 == level(x[0])));
                    assert!(down.windows(2).all(|x| level(x[1]) == level(x[0]) + 1));
                    // Up*/down* in the ICN2: levels fall, then rise.
                    let top = icn2.iter().map(|&x| level(x)).min().expect("a switch");
                    let turn = icn2.iter().position(|&x| level(x) == top).expect("top");
                    assert!(icn2[..=turn]
                        .windows(2)
                        .all(|x| level(x[1]) + 1 == level(x[0])));
                    assert!(icn2[turn..]
                        .windows(2)
                        .all(|x| level(x[1]) == level(x[0]) + 1));
                }
            }
        }
    }

    /// The ascending part of the inter-cluster routes in the ECN1 follows eq. 4's
    /// path-length probabilities closely (the proxy construction of the module docs).
    #[test]
    fn ecn1_ascents_follow_eq_4() {
        let sys = MultiCluster::parse("8,12x1+16x2+4x3").expect("valid");
        let w = sys.wiring().expect("wires");
        let k = 4.0f64;
        let mut r = Vec::new();
        for i in [0, 12, 28] {
            let n = sys.clusters[i];
            let ni = sys.cluster_nodes(i) as f64;
            let mut hist = vec![0usize; n + 1];
            let mut total = 0;
            let first = w.first_node(i);
            for s in first..first + ni as usize {
                for d in 0..w.nodes() {
                    if w.cluster_of(d).0 == i {
                        continue;
                    }
                    w.route(s, d, &mut r);
                    let cd = r.iter().position(|&x| x == w.concentrator(i)).expect("cd");
                    hist[cd - 1] += 1; // links from s up to the nearest common ancestor
                    total += 1;
                }
            }
            for (j, &count) in hist.iter().enumerate().skip(1) {
                let p = if j < n {
                    (k - 1.0) * k.powi(j as i32 - 1) / (ni - 1.0)
                } else {
                    (2.0 * k - 1.0) * k.powi(j as i32 - 1) / (ni - 1.0)
                };
                let f = count as f64 / total as f64;
                assert!((f - p).abs() < 0.01, "cluster {i}, j = {j}: {f} vs {p}");
            }
        }
    }

    #[test]
    fn generated_system_expands_and_is_bounded() {
        let g = MultiCluster::parse("4,1+2")
            .expect("valid")
            .generated()
            .expect("builds");
        assert_eq!(g.network.hosts.len(), 12);
        assert_eq!(g.network.hosts[4], "c1.p0");
        let t = g.expand().expect("expands");
        assert_eq!(t.len(), 12 * 11);
        let big = MultiCluster::parse("4,2x10").expect("valid");
        assert!(
            matches!(big.wiring(), Err(TopologyError::BadParameter { name, .. }) if name == "clusters")
        );
    }

    /// The direct construction gives the traffic the network form expands into: equal
    /// and unequal cluster heights, one cluster, the default and an explicit (larger)
    /// ICN2, whose unused switches carry no route and so are not links of the traffic.
    #[test]
    fn direct_traffic_is_the_expanded_traffic() {
        for spec in [
            "4,1+2",
            "4,2x2",
            "4,1+1+2+2",
            "4,2+1+3,2",
            "4,1+2,3",
            "4,2",
            "8,2x1+2",
            "6,3x1+2x2,2",
        ] {
            let sys = MultiCluster::parse(spec).expect("valid");
            let generated = sys.generated().expect("builds");
            // `liquid simulate` relies on this for the direct path: no per-link values.
            assert!(generated.link_params.is_empty());
            let want = generated.expand().expect("expands");
            let got = sys.traffic().expect("builds");
            assert_eq!(got.name(), want.name(), "{spec}");
            assert_eq!(got.description(), want.description(), "{spec}");
            assert_eq!(got.link_throughput(), want.link_throughput(), "{spec}");
            let links = |x: &Traffic| -> Vec<String> {
                x.link_ids().map(|l| x.link_name(l).to_string()).collect()
            };
            assert_eq!(links(&got), links(&want), "{spec}");
            assert_eq!(got.transfers(), want.transfers(), "{spec}");
        }
        let big = MultiCluster::parse("4,2x10").expect("valid");
        assert_eq!(
            big.traffic().expect_err("too big"),
            big.wiring().expect_err("too big")
        );
    }

    #[test]
    fn bad_parameters_are_named() {
        for (s, field) in [
            ("3,2x1", "ports"),
            ("8", "multi-cluster"),
            ("8,0x1", "cluster count"),
            ("8,2x0", "clusters"),
            ("8,2xa", "cluster height"),
            ("4,8x1,1", "icn2 levels"),
            ("4,1,0", "icn2 levels"),
        ] {
            match MultiCluster::parse(s) {
                Err(TopologyError::BadParameter { name, .. }) => assert_eq!(name, field, "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
    }
}
