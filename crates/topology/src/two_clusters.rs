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

use liquid_model::network::LinkParams;

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
        }
    }

    /// The name of node k in 001's numbering (`a{k}` for k < n1, else `b{k-n1}`).
    pub fn node(&self, k: usize) -> String {
        if k < self.n1 {
            format!("a{k}")
        } else {
            format!("b{}", k - self.n1)
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
        if self.n1 == 0 {
            return Err(bad("n1", "cluster 1 needs at least one node"));
        }
        if self.n2 == 0 {
            return Err(bad("n2", "cluster 2 needs at least one node"));
        }
        if self.n1 + self.n2 > MAX_HOSTS {
            return Err(bad(
                "n1 + n2",
                format!(
                    "{} nodes: at most {MAX_HOSTS} (routes are listed per pair)",
                    self.n1 + self.n2
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
        let lanes = if k == 1 {
            String::new()
        } else {
            format!(" in {k} lanes")
        };
        Ok(Generated {
            name: format!("two-clusters-{n1}-{n2}"),
            description: format!(
                "All-to-all over two crossbar clusters of {n1} and {n2} nodes (paper 001): \
                 nodes {} MB/s, {} s per link; backbone A<->B {} MB/s{lanes}, {} s one way",
                self.node_bandwidth,
                self.node_latency,
                self.backbone_bandwidth,
                self.backbone_latency
            ),
            link_throughput: None,
            network: b.finish(),
            link_params: params,
            pattern: crate::all_to_all(&names, false),
        })
    }
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
}
