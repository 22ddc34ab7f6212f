//! Two clusters joined by a backbone (paper 001, Fig. 1): cluster 1 has `n1` nodes
//! `a0 … a{n1-1}` on a crossbar switch `A`, cluster 2 has `n2` nodes `b0 … b{n2-1}` on a
//! crossbar switch `B`. Each node has one network card: one link up (`a0>A`) and one down
//! (`A>a0`), shared by its local and its remote traffic. The switches are the gateways:
//! the backbone is the pair of directed links `A>B` and `B>A`, with its own bandwidth and
//! latency. The pattern is the all-to-all over all `n1 + n2` nodes, cluster 1 first (001
//! numbers the nodes the same way: node k < n1 is `a{k}`, node k ≥ n1 is `b{k-n1}`).
//!
//! Every link carries its bandwidth (MB/s) and latency (s) as link parameters, so the
//! simulator needs no other input. The defaults are 001's setting on Grid'5000 (Nancy and
//! Rennes): Gigabit nodes (125 MB/s), a 10 Gbit/s backbone (1250 MB/s) over about 1000
//! km; two of them are assumptions of ours, not figures of 001: the backbone's one-way
//! latency, 5 ms (1000 km of fibre at 2·10^8 m/s), and the node links' latency, 25 µs
//! each (50 µs from node to node through the switch).
//!
//! **Lanes.** In the traffic-set model every link carries one transfer per timeframe, so a
//! backbone ten times faster than a node card is still a single link there. With `lanes`
//! = K > 1 the backbone is K pairs of links `A>B.0 … A>B.{K-1}` (and back), each with 1/K
//! of the bandwidth, and the pair (a_i, b_j) is routed, both ways, on lane (i + j) mod K:
//! a model whose timeframes respect the backbone's capacity, for scheduling. The simulated
//! network of paper 001 has one lane.
//!
//! **Cluster shapes.** By default each cluster is a crossbar (the switch `A` or `B`).
//! With [`TwoClusters::cluster`] set to a spec of a generated topology (`fat-tree:4,2`,
//! `ring:4,2`, `mesh:2x2,2`, `torus:2x2,1`, `multi-cluster:...`), both clusters are a
//! copy of that topology's network: its hosts, in the topology's host order, become
//! `a0 …` and `b0 …` (so n1 = n2 = its host count), its switches `A.<name>` and
//! `B.<name>`, its links `a0>A.sw1_0`-style (a link with its own id `x` becomes `A.x`).
//! `A` and `B` are then gateway switches, each cabled (one link each way, `A.sw0_0>A`
//! and `A>A.sw0_0`) to the cluster's *attachment switch*: the first switch in the
//! topology's switch order (a root for fat-trees, `s0` for rings, meshes and tori).
//! The backbone joins the gateways as with crossbars, lanes included; with K lanes the
//! gateway cables have K lanes too (`A.sw0_0>A.{l}`), the pair (a_i, b_j) on lane
//! (i + j) mod K throughout.
//!
//! Routes: a local pair keeps the topology's own route (renamed). A remote pair goes from
//! the source to its attachment switch by the model's shortest-path rule
//! ([`liquid_model::network`]: fewest hops through switches, ties broken hop by hop by
//! link declaration order), over the gateway cable, the backbone and the far gateway
//! cable, then from the far attachment switch down to the destination by the same rule.
//! Every link inside a cluster (host and switch links) has the node bandwidth and
//! latency; the gateway cables have the backbone's bandwidth (split over the lanes) and
//! the node latency, so that the backbone stays the link that sets the inter-cluster
//! rate.

use std::collections::HashMap;

use liquid_model::network::{self, LinkParams, NetLink, Network, Pair, Pattern, Routing};

use crate::{bad, Generated, NetBuilder, TopologyError, MAX_HOSTS};

/// Parameters of a two-cluster network.
#[derive(Debug, Clone, PartialEq)]
pub struct TwoClusters {
    /// Nodes of cluster 1 (≥ 1).
    pub n1: usize,
    /// Nodes of cluster 2 (≥ 1).
    pub n2: usize,
    /// Backbone bandwidth in MB/s, each way (positive, finite).
    pub backbone_bandwidth: f64,
    /// Backbone one-way latency in seconds (finite, not negative).
    pub backbone_latency: f64,
    /// Node link bandwidth in MB/s, each way (positive, finite).
    pub node_bandwidth: f64,
    /// Latency of each node link in seconds (finite, not negative).
    pub node_latency: f64,
    /// Backbone lanes (≥ 1): see the module docs.
    pub lanes: usize,
    /// Each cluster's topology as a spec (`fat-tree:4,2`, ...), `None` for crossbars:
    /// see the module docs. With a spec, `n1` and `n2` must both equal its host count
    /// ([`TwoClusters::shaped`] sets them).
    pub cluster: Option<String>,
}

/// 10 Gbit/s, in MB/s (001's backbone).
pub const DEFAULT_BACKBONE_MB_S: f64 = 1250.0;
/// 5 ms one way: about 1000 km of fibre (an assumption; 001 gives the distance only).
pub const DEFAULT_BACKBONE_LATENCY_S: f64 = 0.005;
/// 1 Gbit/s, in MB/s (001's Gigabit nodes).
pub const DEFAULT_NODE_MB_S: f64 = 125.0;
/// 25 µs per node link (an assumption; 001 gives none).
pub const DEFAULT_NODE_LATENCY_S: f64 = 0.000025;

impl TwoClusters {
    /// `n1 + n2` nodes with 001's defaults (see the module docs), one lane.
    pub fn new(n1: usize, n2: usize) -> TwoClusters {
        TwoClusters {
            n1,
            n2,
            backbone_bandwidth: DEFAULT_BACKBONE_MB_S,
            backbone_latency: DEFAULT_BACKBONE_LATENCY_S,
            node_bandwidth: DEFAULT_NODE_MB_S,
            node_latency: DEFAULT_NODE_LATENCY_S,
            lanes: 1,
            cluster: None,
        }
    }

    /// Two copies of the topology `spec` (see the module docs) with 001's defaults:
    /// n1 = n2 = the topology's host count.
    pub fn shaped(spec: &str) -> Result<TwoClusters, TopologyError> {
        let n = cluster_network(spec)?.hosts.len();
        Ok(TwoClusters {
            cluster: Some(spec.to_string()),
            ..TwoClusters::new(n, n)
        })
    }

    /// Two clusters of `n1` and `n2` nodes, crossbars, or copies of the topology
    /// `cluster` (then `n1` and `n2` may be omitted: they default to its host count).
    /// Without `cluster`, both counts are required.
    pub fn sized(
        n1: Option<usize>,
        n2: Option<usize>,
        cluster: Option<&str>,
    ) -> Result<TwoClusters, TopologyError> {
        let base = match cluster {
            Some(spec) => TwoClusters::shaped(spec)?,
            None => {
                let need = |v: Option<usize>, name: &str| {
                    v.ok_or_else(|| TopologyError::Missing {
                        name: name.to_string(),
                        alternative: "--cluster SPEC".to_string(),
                    })
                };
                TwoClusters::new(need(n1, "--n1")?, need(n2, "--n2")?)
            }
        };
        Ok(TwoClusters {
            n1: n1.unwrap_or(base.n1),
            n2: n2.unwrap_or(base.n2),
            ..base
        })
    }

    /// The name of node k in 001's numbering (`a{k}` for k < n1, else `b{k-n1}`).
    pub fn node(&self, k: usize) -> String {
        if k < self.n1 {
            format!("a{k}")
        } else {
            format!("b{}", k - self.n1)
        }
    }

    /// How the description names the lanes: nothing for one, ` in K lanes` otherwise.
    fn lanes_text(&self) -> String {
        if self.lanes == 1 {
            String::new()
        } else {
            format!(" in {} lanes", self.lanes)
        }
    }

    /// The backbone's link ids, A to B then B to A, lane by lane.
    pub fn backbone_links(&self) -> Vec<String> {
        if self.lanes == 1 {
            return vec!["A>B".into(), "B>A".into()];
        }
        (0..self.lanes)
            .flat_map(|l| [format!("A>B.{l}"), format!("B>A.{l}")])
            .collect()
    }

    fn check(&self) -> Result<(), TopologyError> {
        if let Some(spec) = &self.cluster {
            let n = cluster_network(spec)?.hosts.len();
            for (name, v) in [("n1", self.n1), ("n2", self.n2)] {
                if v != n {
                    return Err(bad(
                        name,
                        format!(
                            "{v} nodes, but the cluster {spec} has {n} hosts (give {n} or omit it)"
                        ),
                    ));
                }
            }
        }
        if self.n1 == 0 {
            return Err(bad("n1", "cluster 1 needs at least one node"));
        }
        if self.n2 == 0 {
            return Err(bad("n2", "cluster 2 needs at least one node"));
        }
        if self.n1 as u128 + self.n2 as u128 > MAX_HOSTS as u128 {
            return Err(bad(
                "n1 + n2",
                format!(
                    "{} nodes: at most {MAX_HOSTS} (routes are listed per pair)",
                    self.n1 as u128 + self.n2 as u128
                ),
            ));
        }
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(bad(name, format!("must be positive and finite, not {v}")))
            }
        };
        let duration = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(bad(
                    name,
                    format!("must be finite and not negative, not {v}"),
                ))
            }
        };
        positive("backbone bandwidth", self.backbone_bandwidth)?;
        positive("node bandwidth", self.node_bandwidth)?;
        duration("backbone latency", self.backbone_latency)?;
        duration("node latency", self.node_latency)?;
        if self.lanes == 0 || self.lanes > 1024 {
            return Err(bad(
                "lanes",
                format!("must be 1 to 1024, not {}", self.lanes),
            ));
        }
        Ok(())
    }

    /// The network with its all-to-all (no self-transfers: a node's message to itself is
    /// a local copy), every link with its bandwidth and latency.
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        self.check()?;
        if let Some(spec) = &self.cluster {
            return self.shaped_generated(spec);
        }
        let (n1, n2, k) = (self.n1, self.n2, self.lanes);
        let n = n1 + n2;
        let mut b = NetBuilder::default();
        let names: Vec<String> = (0..n).map(|i| self.node(i)).collect();
        let switch = |i: usize| if i < n1 { "A" } else { "B" };
        for h in &names {
            b.host(h.clone());
        }
        b.switch("A".into());
        b.switch("B".into());
        let mut params = Vec::new();
        let node = LinkParams {
            bandwidth: Some(self.node_bandwidth),
            latency: Some(self.node_latency),
        };
        let mut up = Vec::with_capacity(n);
        let mut down = Vec::with_capacity(n);
        for (i, h) in names.iter().enumerate() {
            up.push(b.link(h, switch(i)));
            params.push(node);
            down.push(b.link(switch(i), h));
            params.push(node);
        }
        let lane = LinkParams {
            bandwidth: Some(self.backbone_bandwidth / k as f64),
            latency: Some(self.backbone_latency),
        };
        let mut ab = Vec::with_capacity(k);
        let mut ba = Vec::with_capacity(k);
        for l in 0..k {
            let (x, y) = if k == 1 {
                ("A>B".to_string(), "B>A".to_string())
            } else {
                (format!("A>B.{l}"), format!("B>A.{l}"))
            };
            ab.push(b.named_link(&x, "A", "B"));
            params.push(lane);
            ba.push(b.named_link(&y, "B", "A"));
            params.push(lane);
        }
        for s in 0..n {
            for d in 0..n {
                if s == d {
                    continue;
                }
                let mut path = vec![up[s]];
                match (s < n1, d < n1) {
                    (true, false) => path.push(ab[(s + d - n1) % k]),
                    (false, true) => path.push(ba[(d + s - n1) % k]),
                    _ => {}
                }
                path.push(down[d]);
                b.route(&names[s], &names[d], &path);
            }
        }
        let lanes = self.lanes_text();
        let description = format!(
            "All-to-all over two crossbar clusters of {n1} and {n2} nodes (paper 001): \
             nodes {} MB/s, {} s per link; backbone A<->B {} MB/s{lanes}, {} s one way",
            self.node_bandwidth, self.node_latency, self.backbone_bandwidth, self.backbone_latency
        );
        Ok(self.all_to_all(description, b.finish(), params, &names))
    }

    /// The all-to-all over `names` on `network`, named after the clusters' sizes.
    fn all_to_all(
        &self,
        description: String,
        network: Network,
        link_params: Vec<LinkParams>,
        names: &[String],
    ) -> Generated {
        Generated {
            name: format!("two-clusters-{}-{}", self.n1, self.n2),
            description,
            link_throughput: None,
            network,
            link_params,
            ports: Vec::new(),
            pattern: crate::all_to_all(names, false),
        }
    }
    /// The network with clusters of the topology `spec` (see the module docs).
    fn shaped_generated(&self, spec: &str) -> Result<Generated, TopologyError> {
        let (n1, n2, k) = (self.n1, self.n2, self.lanes);
        let net = cluster_network(spec)?;
        let n = n1 + n2;
        let names: Vec<String> = (0..n).map(|i| self.node(i)).collect();
        let mut b = NetBuilder::default();
        for h in &names {
            b.host(h.clone());
        }
        b.switch("A".into());
        b.switch("B".into());
        let node = LinkParams {
            bandwidth: Some(self.node_bandwidth),
            latency: Some(self.node_latency),
        };
        let mut params = Vec::new();
        let attach = attachment_switch(&net).ok_or_else(|| {
            bad(
                "cluster",
                format!("{spec:?}: no switch is reachable from every host and reaches every host through switches, so no gateway can be attached"),
            )
        })?;
        let (local, up, down) = cluster_routes(&net, attach)?;
        // Per cluster: the new name of every node, the new index of every link.
        let mut copies = Vec::new();
        for (g, first) in [("A", 0), ("B", n1)] {
            let mut rename: HashMap<&str, String> = HashMap::new();
            for (i, h) in net.hosts.iter().enumerate() {
                rename.insert(h, names[first + i].clone());
            }
            for s in &net.switches {
                let new = format!("{g}.{s}");
                b.switch(new.clone());
                rename.insert(s, new);
            }
            let links: Vec<usize> = net
                .links
                .iter()
                .map(|l| {
                    let (f, t) = (&rename[l.from.as_str()], &rename[l.to.as_str()]);
                    let id = if l.id == format!("{}>{}", l.from, l.to) {
                        format!("{f}>{t}")
                    } else {
                        format!("{g}.{}", l.id)
                    };
                    params.push(node);
                    b.named_link(&id, f, t)
                })
                .collect();
            copies.push((first, links));
        }
        let lane = LinkParams {
            bandwidth: Some(self.backbone_bandwidth / k as f64),
            latency: Some(self.backbone_latency),
        };
        let cable = LinkParams {
            latency: Some(self.node_latency),
            ..lane
        };
        let suffix = |l: usize| {
            if k == 1 {
                String::new()
            } else {
                format!(".{l}")
            }
        };
        // Gateway cables of cluster A, B: (to the gateway, from it), lane by lane.
        let mut cables = Vec::new();
        for g in ["A", "B"] {
            let s = format!("{g}.{attach}");
            let lanes: Vec<(usize, usize)> = (0..k)
                .map(|l| {
                    let to = b.named_link(&format!("{s}>{g}{}", suffix(l)), &s, g);
                    let from = b.named_link(&format!("{g}>{s}{}", suffix(l)), g, &s);
                    params.extend([cable, cable]);
                    (to, from)
                })
                .collect();
            cables.push(lanes);
        }
        let mut ab = Vec::with_capacity(k);
        let mut ba = Vec::with_capacity(k);
        for l in 0..k {
            ab.push(b.named_link(&format!("A>B{}", suffix(l)), "A", "B"));
            ba.push(b.named_link(&format!("B>A{}", suffix(l)), "B", "A"));
            params.extend([lane, lane]);
        }
        let cluster = |i: usize| usize::from(i >= n1);
        for s in 0..n {
            for d in 0..n {
                if s == d {
                    continue;
                }
                let (cs, cd) = (cluster(s), cluster(d));
                let (ls, ld) = (s - copies[cs].0, d - copies[cd].0);
                let map = |c: usize, p: &[usize]| -> Vec<usize> {
                    p.iter().map(|&i| copies[c].1[i]).collect()
                };
                let path = if cs == cd {
                    map(cs, &local[ls * net.hosts.len() + ld])
                } else {
                    let l = (s + d - n1) % k;
                    let mut p = map(cs, &up[ls]);
                    p.push(cables[cs][l].0);
                    p.push(if cs == 0 { ab[l] } else { ba[l] });
                    p.push(cables[cd][l].1);
                    p.extend(map(cd, &down[ld]));
                    p
                };
                b.route(&names[s], &names[d], &path);
            }
        }
        let lanes = self.lanes_text();
        let description = format!(
            "All-to-all over two {spec} clusters of {n1} and {n2} nodes (paper 001), \
             gateways A and B on {attach}: cluster links {} MB/s, {} s per link; \
             backbone A<->B {} MB/s{lanes}, {} s one way",
            self.node_bandwidth, self.node_latency, self.backbone_bandwidth, self.backbone_latency
        );
        Ok(self.all_to_all(description, b.finish(), params, &names))
    }
}

/// The network of a cluster spec, checked: a generated topology with at least one switch
/// (not `two-clusters:` itself, nor `t1:` or `paper-fig1:`, whose patterns do not cover
/// all their hosts).
fn cluster_network(spec: &str) -> Result<Network, TopologyError> {
    let wrong = |why: String| bad("cluster", format!("{spec:?}: {why}"));
    if ["two-clusters:", "t1:", "paper-fig1:"]
        .iter()
        .any(|p| spec.starts_with(p))
    {
        return Err(wrong(
            "not a cluster topology; give a generated network of switches (fat-tree:, ring:, \
             mesh:, torus:, multi-cluster:, dragonfly:, dragonfly-plus:, rail: or hyperx:)"
                .into(),
        ));
    }
    // Two copies must fit in MAX_HOSTS: a multi-cluster system (whose network takes
    // seconds to build at 2048 nodes) is counted before it is built.
    if let Some(rest) = spec.strip_prefix("multi-cluster:") {
        let nodes = crate::multi_cluster::MultiCluster::parse(rest)
            .map_err(|e| wrong(e.to_string()))?
            .nodes();
        if nodes > (MAX_HOSTS / 2) as u128 {
            return Err(wrong(format!(
                "{nodes} nodes per cluster; two clusters have at most {MAX_HOSTS} nodes in all"
            )));
        }
    }
    let g = match crate::network_spec::parse(spec) {
        Ok(Some(g)) => g,
        Ok(None) => {
            return Err(wrong(
                "not a spec; give one like fat-tree:4,2, ring:4,2 or torus:2x2,1".into(),
            ))
        }
        Err(e) => return Err(wrong(e.to_string())),
    };
    if g.network.switches.is_empty() {
        return Err(wrong(
            "the topology has no switch to attach a gateway to".into(),
        ));
    }
    Ok(g.network)
}

/// The first switch (in the network's order) that every host reaches, and that reaches
/// every host, through switches only (the routes of the shortest-path rule never cross a
/// host): where the gateway is cabled. In a fat-tree, a ring or a grid that is the first
/// switch; in a multi-cluster system, whose clusters' ICN1s reach no other cluster, it is
/// a switch of the ECN1s, concentrators or ICN2.
fn attachment_switch(net: &Network) -> Option<&String> {
    let index: HashMap<&str, usize> = net
        .hosts
        .iter()
        .chain(&net.switches)
        .enumerate()
        .map(|(i, v)| (v.as_str(), i))
        .collect();
    let hosts = net.hosts.len();
    let vertices = hosts + net.switches.len();
    let mut out = vec![Vec::new(); vertices];
    let mut into = vec![Vec::new(); vertices];
    for l in &net.links {
        if let (Some(&a), Some(&b)) = (index.get(l.from.as_str()), index.get(l.to.as_str())) {
            out[a].push(b);
            into[b].push(a);
        }
    }
    // Whether every host is reached from `start` along `adj`, crossing switches only.
    let reaches_all = |start: usize, adj: &[Vec<usize>]| {
        let mut seen = vec![false; vertices];
        seen[start] = true;
        let mut stack = vec![start];
        let mut found = 0;
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if !seen[w] {
                    seen[w] = true;
                    if w < hosts {
                        found += 1;
                    } else {
                        stack.push(w);
                    }
                }
            }
        }
        found == hosts
    };
    net.switches.iter().enumerate().find_map(|(i, s)| {
        let v = hosts + i;
        (reaches_all(v, &out) && reaches_all(v, &into)).then_some(s)
    })
}

/// Link indices into `net.links`, by route: every local pair `(i, j)` at `i·n + j` (empty
/// for i = j), then for every host its route up to `attach` and its route down from it,
/// by the model's shortest-path rule (the rule of [`liquid_model::network::expand`],
/// reached through a temporary host cabled to `attach` only).
#[allow(clippy::type_complexity)]
fn cluster_routes(
    net: &Network,
    attach: &str,
) -> Result<(Vec<Vec<usize>>, Vec<Vec<usize>>, Vec<Vec<usize>>), TopologyError> {
    let n = net.hosts.len();
    let index: HashMap<&str, usize> = net
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.id.as_str(), i))
        .collect();
    let paths = |t: &liquid_model::Traffic| -> Vec<Vec<usize>> {
        t.transfers()
            .iter()
            .map(|x| {
                x.path
                    .iter()
                    .filter_map(|&l| index.get(t.link_name(l)).copied())
                    .collect()
            })
            .collect()
    };
    let own = network::expand(
        "cluster",
        None,
        None,
        net,
        &crate::all_to_all(&net.hosts, false),
    )?;
    let mut local = vec![Vec::new(); n * n];
    let mut it = paths(&own).into_iter();
    for i in 0..n {
        for j in (0..n).filter(|&j| j != i) {
            local[i * n + j] = it.next().unwrap_or_default();
        }
    }
    let mut gw = "gateway".to_string();
    while net.hosts.contains(&gw) || net.switches.contains(&gw) {
        gw.push('_');
    }
    let mut probe = net.clone();
    probe.hosts.push(gw.clone());
    probe.routing = Routing::ShortestPath;
    probe.routes.clear();
    for (id, from, to) in [
        (format!("{gw}.up"), attach, gw.as_str()),
        (format!("{gw}.down"), gw.as_str(), attach),
    ] {
        probe.links.push(NetLink {
            id,
            from: from.to_string(),
            to: to.to_string(),
        });
    }
    let pairs = net
        .hosts
        .iter()
        .flat_map(|h| {
            [(h.clone(), gw.clone()), (gw.clone(), h.clone())].map(|(from, to)| Pair {
                from,
                to,
                count: 1,
            })
        })
        .collect();
    let probed = network::expand("probe", None, None, &probe, &Pattern::Pairs(pairs))?;
    // The probe links are not in `index`: dropped, leaving host -> attach, attach -> host.
    let both = paths(&probed);
    let up = both.iter().step_by(2).cloned().collect();
    let down = both.iter().skip(1).step_by(2).cloned().collect();
    Ok((local, up, down))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_parameters() {
        let g = TwoClusters::new(3, 7).generated().expect("builds");
        let t = g.expand().expect("expands");
        assert_eq!(t.len(), 10 * 9);
        // The backbone carries n1·n2 transfers each way; a node card n1 + n2 - 1.
        let load = |name: &str| {
            let l = t.find_link(name).expect("link");
            t.load(l)
        };
        assert_eq!(load("A>B"), 21);
        assert_eq!(load("B>A"), 21);
        assert_eq!(load("a0>A"), 9);
        assert_eq!(load("B>b6"), 9);
        assert_eq!(t.duration(), 21);
        assert_eq!(g.link_params.len(), g.network.links.len());
        let at = |id: &str| {
            let i = g
                .network
                .links
                .iter()
                .position(|l| l.id == id)
                .expect("link");
            g.link_params[i]
        };
        assert_eq!(at("A>B").bandwidth, Some(1250.0));
        assert_eq!(at("B>A").latency, Some(0.005));
        assert_eq!(at("b3>B").bandwidth, Some(125.0));
    }

    #[test]
    fn lanes_split_the_backbone_evenly() {
        let g = TwoClusters {
            lanes: 10,
            ..TwoClusters::new(30, 30)
        }
        .generated()
        .expect("builds");
        let t = g.expand().expect("expands");
        // 900 remote pairs each way over 10 lanes: 90 per lane, more than a node's 59.
        assert_eq!(t.duration(), 90);
        let i = g
            .network
            .links
            .iter()
            .position(|l| l.id == "A>B.3")
            .expect("lane");
        assert_eq!(g.link_params[i].bandwidth, Some(125.0));
    }

    #[test]
    fn network_form_round_trips_with_parameters() {
        let g = TwoClusters::new(2, 3).generated().expect("builds");
        let text = g.to_network_yaml();
        let back = liquid_model::yaml::parse_model_full("x.yaml", &text).expect("parses");
        assert_eq!(back.link_params, g.link_params);
        assert_eq!(
            liquid_model::yaml::write_explicit(&back.traffic),
            liquid_model::yaml::write_explicit(&g.expand().expect("expands"))
        );
    }

    #[test]
    fn bad_parameters_are_named() {
        let cases = [
            (TwoClusters::new(0, 3), "n1"),
            (TwoClusters::new(3, 0), "n2"),
            (TwoClusters::new(600, 600), "n1 + n2"),
            (
                TwoClusters {
                    backbone_bandwidth: 0.0,
                    ..TwoClusters::new(2, 2)
                },
                "backbone bandwidth",
            ),
            (
                TwoClusters {
                    node_latency: -1.0,
                    ..TwoClusters::new(2, 2)
                },
                "node latency",
            ),
            (
                TwoClusters {
                    lanes: 0,
                    ..TwoClusters::new(2, 2)
                },
                "lanes",
            ),
        ];
        for (c, name) in cases {
            let e = c.generated().expect_err(name);
            assert!(e.to_string().starts_with(name), "{e}");
        }
    }
    fn load_of(t: &liquid_model::Traffic, name: &str) -> usize {
        t.load(
            t.find_link(name)
                .unwrap_or_else(|| panic!("no link {name}")),
        )
    }

    #[test]
    fn crossbar_clusters_are_a_one_switch_fat_tree_plus_a_gateway() {
        // fat-tree:4,1 is one switch with 4 hosts: each cluster is a crossbar again,
        // reached from the gateway through one cable.
        let g = TwoClusters::shaped("fat-tree:4,1")
            .expect("shaped")
            .generated()
            .expect("builds");
        assert_eq!(
            g.network.hosts,
            ["a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"]
        );
        assert_eq!(g.network.switches, ["A", "B", "A.sw0", "B.sw0"]);
        let t = g.expand().expect("every route is valid");
        assert_eq!(t.len(), 8 * 7);
        for name in ["A>B", "B>A", "A.sw0>A", "A>A.sw0", "B.sw0>B", "B>B.sw0"] {
            assert_eq!(load_of(&t, name), 16, "{name}");
        }
        assert_eq!(load_of(&t, "a0>A.sw0"), 7);
        assert_eq!(load_of(&t, "B.sw0>b3"), 7);
        let a0b1 = t.transfer(t.find_transfer("a0->b1").expect("pair"));
        let path: Vec<&str> = a0b1.path.iter().map(|&l| t.link_name(l)).collect();
        assert_eq!(path, ["a0>A.sw0", "A.sw0>A", "A>B", "B>B.sw0", "B.sw0>b1"]);
        let at = |id: &str| {
            let i = g.network.links.iter().position(|l| l.id == id).expect(id);
            g.link_params[i]
        };
        assert_eq!(g.link_params.len(), g.network.links.len());
        assert_eq!(at("a2>A.sw0").bandwidth, Some(DEFAULT_NODE_MB_S));
        assert_eq!(at("A.sw0>A").bandwidth, Some(DEFAULT_BACKBONE_MB_S));
        assert_eq!(at("A.sw0>A").latency, Some(DEFAULT_NODE_LATENCY_S));
        assert_eq!(at("B>A").latency, Some(DEFAULT_BACKBONE_LATENCY_S));
    }

    #[test]
    fn fat_tree_clusters_route_remote_pairs_through_the_first_root() {
        // 4-port 2-tree: 8 hosts p0..p7, two per leaf sw1_0..sw1_3, each leaf cabled to
        // both roots sw0_0 and sw0_1; the gateway hangs on sw0_0.
        let g = TwoClusters::shaped("fat-tree:4,2")
            .expect("shaped")
            .generated()
            .expect("builds");
        let t = g.expand().expect("every route is valid");
        assert_eq!(t.len(), 16 * 15);
        // n1·n2 = 64 remote pairs each way over the backbone and the gateway cables.
        for name in ["A>B", "B>A", "A.sw0_0>A", "B>B.sw0_0"] {
            assert_eq!(load_of(&t, name), 64, "{name}");
        }
        // A node card carries n1 + n2 - 1 = 15 transfers each way.
        assert_eq!(load_of(&t, "a0>A.sw1_0"), 15);
        assert_eq!(load_of(&t, "B.sw1_3>b7"), 15);
        // Remote pairs: a host climbs to its leaf, then straight to the root sw0_0; the
        // far side goes down from sw0_0 to the leaf and the host.
        let path = |id: &str| -> Vec<String> {
            let x = t.transfer(t.find_transfer(id).expect(id));
            x.path.iter().map(|&l| t.link_name(l).to_string()).collect()
        };
        assert_eq!(
            path("a3->b4"),
            [
                "a3>A.sw1_1",
                "A.sw1_1>A.sw0_0",
                "A.sw0_0>A",
                "A>B",
                "B>B.sw0_0",
                "B.sw0_0>B.sw1_2",
                "B.sw1_2>b4"
            ]
        );
        // A local pair keeps the tree's own route, renamed.
        let tree = crate::fat_tree::FatTree::new(4, 2)
            .generated()
            .expect("tree")
            .expand()
            .expect("expands");
        let own = tree.transfer(tree.find_transfer("p0->p5").expect("pair"));
        let renamed: Vec<String> = own
            .path
            .iter()
            .map(|&l| {
                let (f, to) = tree.link_name(l).split_once('>').expect("from>to");
                let r = |x: &str| match x.strip_prefix('p') {
                    Some(i) => format!("b{i}"),
                    None => format!("B.{x}"),
                };
                format!("{}>{}", r(f), r(to))
            })
            .collect();
        assert_eq!(path("b0->b5"), renamed);
        // Each leaf's up link to sw0_0 carries its 2 hosts' 16 remote transfers on top of
        // the tree's own traffic over that link.
        let leaf_up = tree.load(tree.find_link("sw1_1>sw0_0").expect("link"));
        assert_eq!(load_of(&t, "A.sw1_1>A.sw0_0"), leaf_up + 16);
        assert_eq!(load_of(&t, "B.sw0_0>B.sw1_2"), leaf_up + 16);
    }

    #[test]
    fn other_shapes_and_lanes_expand() {
        for spec in ["ring:4,2", "mesh:2x2,2", "torus:2x2,1", "multi-cluster:4,1"] {
            let c = TwoClusters::shaped(spec).expect(spec);
            let g = c.generated().expect(spec);
            let t = g.expand().expect(spec);
            let n = c.n1 + c.n2;
            assert_eq!(t.len(), n * (n - 1), "{spec}");
            assert_eq!(load_of(&t, "A>B"), c.n1 * c.n2, "{spec}");
            assert_eq!(g.link_params.len(), g.network.links.len(), "{spec}");
        }
        let g = TwoClusters {
            lanes: 2,
            ..TwoClusters::shaped("ring:4,2").expect("shaped")
        }
        .generated()
        .expect("builds");
        let t = g.expand().expect("expands");
        // 64 remote pairs each way, 32 per lane, on the backbone and the gateway cables.
        for name in ["A>B.0", "A>B.1", "B>A.1", "A.s0>A.0", "B>B.s0.1"] {
            assert_eq!(load_of(&t, name), 32, "{name}");
        }
    }

    #[test]
    fn bad_cluster_shapes_are_named() {
        for spec in [
            "two-clusters:2,2",
            "t1:4,4,4,4,0,0,2,1",
            "paper-fig1:",
            "fat-tree:3,2",
            "x.yaml",
        ] {
            let e = TwoClusters::shaped(spec).expect_err(spec);
            assert!(e.to_string().starts_with("cluster"), "{e}");
            assert!(e.to_string().contains(spec), "{e}");
        }
        let e = TwoClusters {
            n2: 7,
            ..TwoClusters::shaped("fat-tree:4,2").expect("shaped")
        }
        .generated()
        .expect_err("n2 differs from the tree's size");
        assert!(e.to_string().starts_with("n2: 7 nodes"), "{e}");
    }
}
