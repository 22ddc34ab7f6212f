//! m-port n-trees (Lin; paper 002 section 2) with deterministic up*/down* routing.
//!
//! With `k = m/2`: `N = 2·k^n` processing nodes and `(2n-1)·k^(n-1)` switches.
//! - Node `p(p0, p1, ..., p_{n-1})` with `p0 < m` and `pi < k` (i ≥ 1); its index (and
//!   name `p{index}`) is the mixed-radix number `p0 p1 ... p_{n-1}`.
//! - Switch `<w0 ... w_{n-2}, l>` at level `l` (0 = roots): roots have all `wi < k`;
//!   levels 1..n-1 have `w0 < m`, `wi < k`. Name `sw{l}_{w0}_{w1}...`.
//! - A switch at level `l` is joined to the switches at level `l+1` that differ from it
//!   in coordinate `l` only (roots: `m` children; others `k` children and `k` parents);
//!   a leaf (level n-1) `<w>` is joined to the `k` nodes `p(w, j)`.
//! - Every connection is one directed link each way.
//!
//! Routing (up*/down*, destination-based, deterministic): from node `s` to node `d`
//! whose first differing digit is `i`, go up from the leaf of `s` to level `i`, then down
//! to `d`. Going up from level `l+1` to level `l` sets coordinate `l` to `d_{l+1}` (the
//! "d-mod-k" choice, which spreads the destinations over the upper links); going down
//! from level `l` sets coordinate `l` to `d_l`. A route has `2(n - i)` links.

use std::collections::HashMap;

use liquid_model::Traffic;

use crate::direct::FlatRoutes;
use crate::{bad, stream_hint, Generated, NetBuilder, TopologyError, MAX_HOSTS};

/// Parameters of an m-port n-tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FatTree {
    /// Ports per switch, `m` (even, ≥ 2).
    pub ports: usize,
    /// Levels, `n` (≥ 1).
    pub levels: usize,
    /// Whether each node also sends to itself (up to its leaf switch and back).
    pub self_transfers: bool,
}

impl FatTree {
    /// An m-port n-tree without self-transfers.
    pub fn new(ports: usize, levels: usize) -> FatTree {
        FatTree {
            ports,
            levels,
            self_transfers: false,
        }
    }

    fn k(&self) -> usize {
        self.ports / 2
    }

    /// Number of processing nodes, `2·(m/2)^n`.
    pub fn nodes(&self) -> usize {
        2 * self.k().pow(self.levels as u32)
    }

    /// Number of switches, `(2n-1)·(m/2)^(n-1)`.
    pub fn switches(&self) -> usize {
        (2 * self.levels - 1) * self.k().pow(self.levels as u32 - 1)
    }

    fn check(&self) -> Result<(), TopologyError> {
        if self.ports < 2 || self.ports % 2 == 1 {
            return Err(bad("ports", "m must be even and at least 2"));
        }
        if self.levels == 0 {
            return Err(bad("levels", "n must be at least 1"));
        }
        let nodes = (self.k() as u128)
            .checked_pow(self.levels as u32)
            .map(|x| 2 * x);
        match nodes {
            Some(n) if n <= MAX_HOSTS as u128 => Ok(()),
            _ => Err(bad(
                "levels",
                format!(
                    "{} nodes: at most {MAX_HOSTS} in memory (routes are listed per pair){}",
                    nodes.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                    stream_hint(nodes)
                ),
            )),
        }
    }

    /// The digits of node `i` (`p0` first).
    pub fn digits(&self, mut i: usize) -> Vec<usize> {
        let mut d = vec![0; self.levels];
        for j in (1..self.levels).rev() {
            d[j] = i % self.k();
            i /= self.k();
        }
        d[0] = i;
        d
    }

    fn switch_name(level: usize, w: &[usize]) -> String {
        let mut s = format!("sw{level}");
        for x in w {
            s.push_str(&format!("_{x}"));
        }
        s
    }

    /// The labels `<w0 ... w_{n-2}>` of the switches at `level`, in index order
    /// (lexicographic; `w0 < k` at the roots, `w0 < m` below, `wi < k`).
    fn labels(&self, level: usize) -> Vec<Vec<usize>> {
        let (m, n, k) = (self.ports, self.levels, self.k());
        let mut all = vec![vec![]];
        for j in 0..n - 1 {
            let r = if j == 0 && level > 0 { m } else { k };
            all = all
                .into_iter()
                .flat_map(|p| {
                    (0..r).map(move |x| {
                        let mut q = p.clone();
                        q.push(x);
                        q
                    })
                })
                .collect();
        }
        all
    }

    /// The index of switch `<w, level>` among all switches: the roots first, then level
    /// by level, each level in label order (the order of [`FatTree::switch_names`]).
    pub fn switch_index(&self, level: usize, w: &[usize]) -> usize {
        let k = self.k();
        let per_root_level = k.pow(self.levels as u32 - 1);
        let offset = if level == 0 {
            0
        } else {
            per_root_level + (level - 1) * 2 * per_root_level
        };
        // w0 is the most significant digit, so its radix (k or m) does not matter.
        offset + w.iter().fold(0, |acc, &x| acc * k + x)
    }

    /// The switch names (`sw{level}_{w0}_...`), in index order.
    pub fn switch_names(&self) -> Vec<String> {
        (0..self.levels)
            .flat_map(|level| {
                self.labels(level)
                    .into_iter()
                    .map(move |w| Self::switch_name(level, &w))
            })
            .collect()
    }

    /// Every cable of the tree (each is one directed link each way): first each node
    /// with its leaf switch (`(Node, Switch)`), then the switch cables level by level
    /// from the roots down (`(upper, lower)`).
    pub fn cables(&self) -> Vec<(TreeEnd, TreeEnd)> {
        let (m, n) = (self.ports, self.levels);
        let mut v = Vec::new();
        for i in 0..self.nodes() {
            let leaf = self.switch_index(n - 1, &self.digits(i)[..n - 1]);
            v.push((TreeEnd::Node(i), TreeEnd::Switch(leaf)));
        }
        for level in 0..n.saturating_sub(1) {
            for w in self.labels(level) {
                let r = if level == 0 { m } else { self.k() };
                for x in 0..r {
                    let mut c = w.clone();
                    c[level] = x;
                    v.push((
                        TreeEnd::Switch(self.switch_index(level, &w)),
                        TreeEnd::Switch(self.switch_index(level + 1, &c)),
                    ));
                }
            }
        }
        v
    }

    /// The route from node `s` to node `d` as the nodes and switches it visits, from `s`
    /// to `d` (for `s == d`: `s`, its leaf, `s`). Its middle element is the nearest
    /// common ancestor, where the ascending phase ends.
    pub fn route_ends(&self, s: usize, d: usize) -> Vec<TreeEnd> {
        let n = self.levels;
        let (ds, dd) = (self.digits(s), self.digits(d));
        let first = (0..n).find(|&j| ds[j] != dd[j]).unwrap_or(n - 1);
        let mut ends = vec![TreeEnd::Node(s)];
        let mut w: Vec<usize> = ds[..n - 1].to_vec();
        ends.push(TreeEnd::Switch(self.switch_index(n - 1, &w)));
        for level in (first..n - 1).rev() {
            w[level] = dd[level + 1];
            ends.push(TreeEnd::Switch(self.switch_index(level, &w)));
        }
        for level in first..n - 1 {
            w[level] = dd[level];
            ends.push(TreeEnd::Switch(self.switch_index(level + 1, &w)));
        }
        ends.push(TreeEnd::Node(d));
        ends
    }

    /// The route from node `s` to node `d` as a list of node and switch names, from `s`
    /// to `d` (for `s == d`: `s`, its leaf, `s`).
    pub fn route_names(&self, s: usize, d: usize) -> Vec<String> {
        let names = self.switch_names();
        self.route_ends(s, d)
            .into_iter()
            .map(|e| match e {
                TreeEnd::Node(i) => format!("p{i}"),
                TreeEnd::Switch(i) => names[i].clone(),
            })
            .collect()
    }

    /// The hosts, switches and links of the tree (no routes), and the host names.
    fn network(&self) -> Result<(NetBuilder, Vec<String>), TopologyError> {
        self.check()?;
        let mut b = NetBuilder::default();
        let hosts: Vec<String> = (0..self.nodes()).map(|i| format!("p{i}")).collect();
        for h in &hosts {
            b.host(h.clone());
        }
        let switches = self.switch_names();
        for s in &switches {
            b.switch(s.clone());
        }
        let name = |e: TreeEnd| match e {
            TreeEnd::Node(i) => &hosts[i],
            TreeEnd::Switch(i) => &switches[i],
        };
        // Node links, then switch links level by level (down link, then up link).
        for (x, y) in self.cables() {
            b.link(name(x), name(y));
            b.link(name(y), name(x));
        }
        Ok((b, hosts))
    }

    /// The pairs of the all-to-all in pattern order (sender-major).
    fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let nodes = self.nodes();
        (0..nodes)
            .flat_map(move |s| (0..nodes).map(move |d| (s, d)))
            .filter(|&(s, d)| s != d || self.self_transfers)
    }

    /// The route from `s` to `d` as link indices of `b`.
    fn route(&self, b: &NetBuilder, s: usize, d: usize) -> Vec<usize> {
        let names = self.route_names(s, d);
        names
            .windows(2)
            .map(|w| b.link_index(&w[0], &w[1]))
            .collect()
    }

    fn name(&self) -> String {
        format!("fat-tree-{}-{}", self.ports, self.levels)
    }

    fn description(&self) -> String {
        let (m, n) = (self.ports, self.levels);
        format!(
            "All-to-all{} over a {m}-port {n}-tree ({} nodes, {} switches), deterministic up*/down* routing",
            if self.self_transfers { " (self-transfers included)" } else { "" },
            self.nodes(),
            self.switches()
        )
    }

    /// Builds the tree with its all-to-all.
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        let (mut b, hosts) = self.network()?;
        for (s, d) in self.pairs() {
            let path = self.route(&b, s, d);
            b.route(&hosts[s], &hosts[d], &path);
        }
        Ok(Generated {
            name: self.name(),
            description: self.description(),
            link_throughput: None,
            network: b.finish(),
            link_params: Vec::new(),
            ports: Vec::new(),
            pattern: crate::all_to_all(&hosts, self.self_transfers),
        })
    }

    /// The traffic of the tree's all-to-all, built directly: the same traffic as
    /// `self.generated()?.expand()` (name, description, links in the network's order,
    /// transfer ids `p{s}->p{d}` with their end points, paths), without the network form's
    /// named routes (a million of them at 1024 nodes). Routes are computed as node
    /// numbers (hosts, then switches in the network's order, whose index within a level is
    /// the mixed-radix value of their label) and stored once in a flat array of link ids.
    pub fn traffic(&self) -> Result<Traffic, TopologyError> {
        let (b, hosts) = self.network()?;
        let n = self.levels;
        let nodes = self.nodes();
        // Node numbers: hosts 0..N, then the switches level by level.
        let mut number: HashMap<&str, u32> = HashMap::new();
        for (i, name) in b.hosts.iter().chain(&b.switches).enumerate() {
            number.insert(name.as_str(), i as u32);
        }
        let mut link_of: HashMap<(u32, u32), u32> = HashMap::new();
        for (i, l) in b.links.iter().enumerate() {
            link_of.insert((number[l.from.as_str()], number[l.to.as_str()]), i as u32);
        }
        // Switches follow the hosts, in `switch_index` order (the network's order).
        let switch =
            |level: usize, w: &[usize]| -> u32 { (nodes + self.switch_index(level, w)) as u32 };
        let digits: Vec<Vec<usize>> = (0..nodes).map(|i| self.digits(i)).collect();
        let mut routes = FlatRoutes::new(b.links.len());
        let (mut route, mut w) = (Vec::with_capacity(2 * n + 1), Vec::with_capacity(n));
        for (s, d) in self.pairs() {
            // As `route_names`, by number.
            let (ds, dd) = (&digits[s], &digits[d]);
            let first = (0..n).find(|&j| ds[j] != dd[j]).unwrap_or(n - 1);
            route.clear();
            route.push(s as u32);
            w.clear();
            w.extend_from_slice(&ds[..n - 1]);
            route.push(switch(n - 1, &w));
            for level in (first..n - 1).rev() {
                w[level] = dd[level + 1];
                route.push(switch(level, &w));
            }
            for level in first..n - 1 {
                w[level] = dd[level];
                route.push(switch(level + 1, &w));
            }
            route.push(d as u32);
            routes.push(route.windows(2).map(|hop| link_of[&(hop[0], hop[1])]));
        }
        routes.traffic(
            self.name(),
            self.description(),
            |i| b.links[i].id.clone(),
            &hosts,
            self.pairs(),
        )
    }
}

/// One end of a cable of an m-port n-tree: a processing node or a switch, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeEnd {
    /// Processing node `i` (`p{i}`).
    Node(usize),
    /// Switch `i` in the order of [`FatTree::switch_names`].
    Switch(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::{validate, Schedule, TransferId};

    #[test]
    fn counts_match_the_formulas() {
        for (m, n) in [
            (2, 1),
            (4, 1),
            (4, 2),
            (4, 3),
            (6, 2),
            (8, 2),
            (4, 4),
            (6, 3),
        ] {
            let t = FatTree::new(m, n);
            let g = t.generated().expect("builds");
            let k = m / 2;
            let nodes = 2 * k.pow(n as u32);
            let switches = (2 * n - 1) * k.pow(n as u32 - 1);
            assert_eq!(g.network.hosts.len(), nodes, "{m}-port {n}-tree");
            assert_eq!(g.network.switches.len(), switches, "{m}-port {n}-tree");
            // Every switch has m ports in use, every node one: each connection is two
            // directed links, so links = 2 · (nodes + switch-switch connections) and
            // m · switches = nodes + 2 · (switch-switch connections).
            let ss = (m * switches - nodes) / 2;
            assert_eq!(g.network.links.len(), 2 * (nodes + ss));
            assert_eq!(g.network.routes.len(), nodes * (nodes - 1));
            // A route between nodes whose first differing digit is i has 2(n - i) links.
            for r in &g.network.routes {
                let s: usize = r.from[1..].parse().expect("p{i}");
                let d: usize = r.to[1..].parse().expect("p{i}");
                let (ds, dd) = (t.digits(s), t.digits(d));
                let i = (0..n).find(|&j| ds[j] != dd[j]).unwrap_or(n - 1);
                assert_eq!(r.path.len(), 2 * (n - i), "{r:?}");
            }
            let traffic = g.expand().expect("expands");
            assert_eq!(traffic.len(), nodes * (nodes - 1));
            // Full bisection: no link carries more than a node link (N - 1).
            assert_eq!(traffic.duration(), nodes - 1, "{m}-port {n}-tree");
        }
    }

    /// The shift schedule (frame s: every node i sends to i + s mod N) is a liquid
    /// schedule of the all-to-all under d-mod-k routing: checked by the model's validator.
    #[test]
    fn all_to_all_is_liquid_by_the_shift_schedule() {
        for (m, n) in [(4, 2), (4, 3), (6, 2), (8, 2)] {
            let t = FatTree::new(m, n);
            let traffic = t.generated().expect("builds").expand().expect("expands");
            let nodes = t.nodes();
            let frames: Vec<Vec<TransferId>> = (1..nodes)
                .map(|s| {
                    (0..nodes)
                        .map(|i| {
                            traffic
                                .find_transfer(&format!("p{i}->p{}", (i + s) % nodes))
                                .expect("transfer exists")
                        })
                        .collect()
                })
                .collect();
            let report = validate(&traffic, &Schedule::new(frames)).expect("valid schedule");
            assert_eq!(report.length, traffic.duration(), "{m}-port {n}-tree");
        }
    }

    /// `switch_index` numbers the switches in the order of `switch_names`, and every
    /// route visits switches joined by cables.
    #[test]
    fn switch_indices_follow_the_names_and_routes_follow_cables() {
        for (m, n) in [(4, 1), (4, 3), (8, 2), (6, 3)] {
            let t = FatTree::new(m, n);
            let names = t.switch_names();
            assert_eq!(names.len(), t.switches());
            for level in 0..n {
                for w in t.labels(level) {
                    assert_eq!(
                        names[t.switch_index(level, &w)],
                        FatTree::switch_name(level, &w)
                    );
                }
            }
            let cables: std::collections::HashSet<(TreeEnd, TreeEnd)> = t
                .cables()
                .into_iter()
                .flat_map(|(a, b)| [(a, b), (b, a)])
                .collect();
            for s in 0..t.nodes() {
                for d in 0..t.nodes() {
                    let r = t.route_ends(s, d);
                    assert!(
                        r.windows(2).all(|w| cables.contains(&(w[0], w[1]))),
                        "{s}->{d}"
                    );
                }
            }
        }
    }

    /// The direct construction gives the traffic the network form expands into.
    #[test]
    fn direct_traffic_is_the_expanded_traffic() {
        for (m, n, self_transfers) in [
            (2, 1, false),
            (4, 2, false),
            (4, 3, true),
            (6, 2, false),
            (8, 2, true),
        ] {
            let t = FatTree {
                ports: m,
                levels: n,
                self_transfers,
            };
            let generated = t.generated().expect("builds");
            // `liquid simulate` relies on this for the direct path: no per-link values.
            assert!(generated.link_params.is_empty());
            let want = generated.expand().expect("expands");
            let got = t.traffic().expect("builds");
            assert_eq!(got.name(), want.name());
            assert_eq!(got.description(), want.description());
            assert_eq!(got.link_throughput(), want.link_throughput());
            let links = |x: &Traffic| -> Vec<String> {
                x.link_ids().map(|l| x.link_name(l).to_string()).collect()
            };
            assert_eq!(links(&got), links(&want), "{m}-port {n}-tree");
            assert_eq!(got.transfers(), want.transfers(), "{m}-port {n}-tree");
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(FatTree::new(3, 2).generated().is_err());
        assert!(FatTree::new(4, 0).generated().is_err());
        assert!(FatTree::new(8, 9).generated().is_err());
        assert!(FatTree::new(3, 2).traffic().is_err());
    }
}
