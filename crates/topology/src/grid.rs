//! Rings, meshes and tori of switches with hosts in front of each switch, and
//! dimension-order routing.
//!
//! Switch `i` (`s{i}`) has coordinates `(c0, c1, ...)` with `i = c0 + d0·(c1 + d1·(...))`;
//! host `h{i·k + j}` is the `j`-th of the `k` hosts of switch `i`, with a link up
//! (`h>s`) and one down (`s>h`). Neighbouring switches are joined by one directed link
//! each way (`s{a}>s{b}`). In a torus a dimension of size ≥ 3 wraps around; in one of size
//! 2 the two switches are joined once (both ways), as in a mesh.
//!
//! Dimension-order routing corrects dimension 0 first, then 1, and so on. In a mesh each
//! dimension is crossed directly; in a torus the shorter way round, and on a tie (half
//! the size) the positive way.

use crate::{bad, Generated, NetBuilder, TopologyError, MAX_HOSTS};

/// Parameters of a grid network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// Size of each dimension (each ≥ 1).
    pub dims: Vec<usize>,
    /// Whether dimensions wrap around (torus, ring) or not (mesh, line).
    pub wrap: bool,
    /// Hosts in front of each switch (≥ 1).
    pub hosts_per_switch: usize,
    /// Whether each host also sends to itself (up to its switch and back).
    pub self_transfers: bool,
}

impl Grid {
    /// A ring of `switches` switches with `hosts_per_switch` hosts each.
    pub fn ring(switches: usize, hosts_per_switch: usize) -> Grid {
        Grid {
            dims: vec![switches],
            wrap: true,
            hosts_per_switch,
            self_transfers: false,
        }
    }

    /// A mesh (or with `wrap` a torus) of the dimensions `dims`, written like `4x4`; a
    /// malformed `dims` is refused as `--dims`.
    pub fn with_dims(
        dims: &str,
        wrap: bool,
        hosts_per_switch: usize,
        self_transfers: bool,
    ) -> Result<Grid, TopologyError> {
        let sizes = crate::network_spec::parse_dims(dims, dims).map_err(|_| {
            bad(
                &format!("--dims {dims:?}"),
                "give sizes separated by x, like 4x4",
            )
        })?;
        Ok(Grid {
            dims: sizes,
            wrap,
            hosts_per_switch,
            self_transfers,
        })
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.dims.iter().product()
    }

    /// Number of hosts.
    pub fn hosts(&self) -> usize {
        self.switches() * self.hosts_per_switch
    }

    /// Coordinates of switch `i`.
    pub fn coords(&self, mut i: usize) -> Vec<usize> {
        self.dims
            .iter()
            .map(|&d| {
                let c = i % d;
                i /= d;
                c
            })
            .collect()
    }

    fn index(&self, coords: &[usize]) -> usize {
        coords
            .iter()
            .zip(&self.dims)
            .rev()
            .fold(0, |acc, (&c, &d)| acc * d + c)
    }

    /// Directed switch links along one dimension of size `d`, per line of switches.
    pub fn links_per_line(&self, d: usize) -> usize {
        match (self.wrap, d) {
            (_, 0 | 1) => 0,
            (true, 2) => 2,
            (true, _) => 2 * d,
            (false, _) => 2 * (d - 1),
        }
    }

    /// The switch hops from switch `a` to switch `b` under dimension-order routing.
    pub fn switch_route(&self, a: usize, b: usize) -> Vec<(usize, usize)> {
        let mut here = self.coords(a);
        let there = self.coords(b);
        let mut hops = Vec::new();
        for (dim, &d) in self.dims.iter().enumerate() {
            while here[dim] != there[dim] {
                let from = self.index(&here);
                let forward = (there[dim] + d - here[dim]) % d;
                let positive = if self.wrap {
                    2 * forward <= d
                } else {
                    there[dim] > here[dim]
                };
                here[dim] = if positive {
                    (here[dim] + 1) % d
                } else {
                    (here[dim] + d - 1) % d
                };
                hops.push((from, self.index(&here)));
            }
        }
        hops
    }

    fn check(&self) -> Result<(), TopologyError> {
        if self.dims.is_empty() || self.dims.contains(&0) {
            return Err(bad("dims", "every dimension needs at least one switch"));
        }
        if self.hosts_per_switch == 0 {
            return Err(bad("hosts-per-switch", "must be at least 1"));
        }
        let hosts = self
            .dims
            .iter()
            .try_fold(self.hosts_per_switch, |acc, &d| acc.checked_mul(d));
        match hosts {
            Some(1) if !self.self_transfers => Err(bad(
                "hosts",
                "the network has a single host, so its all-to-all (without self-transfers) is \
                 empty: give at least 2 hosts in all",
            )),
            Some(h) if h <= MAX_HOSTS => Ok(()),
            _ => Err(bad(
                "dims",
                format!("more than {MAX_HOSTS} hosts; choose a smaller network"),
            )),
        }
    }

    /// Builds the network with its all-to-all.
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        self.check()?;
        let (kind, dims) = match (self.dims.len(), self.wrap) {
            (1, true) => ("ring", self.dims[0].to_string()),
            (1, false) => ("line", self.dims[0].to_string()),
            (_, w) => (
                if w { "torus" } else { "mesh" },
                self.dims
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
            ),
        };
        let k = self.hosts_per_switch;
        let s_count = self.switches();
        let mut b = NetBuilder::default();
        let sw = |i: usize| format!("s{i}");
        let host = |i: usize| format!("h{i}");
        let hosts: Vec<String> = (0..self.hosts()).map(host).collect();
        for h in &hosts {
            b.host(h.clone());
        }
        for i in 0..s_count {
            b.switch(sw(i));
        }
        let mut up = Vec::new();
        let mut down = Vec::new();
        // Cabled by dimension (ports at each link's tail): a host's port 1; a switch's
        // hosts on ports 1..=k, then per dimension d the next switch on k + 2d + 1 and
        // the previous one on k + 2d + 2 (OpenSM's dor: "the dimension should
        // consistently use the same pair of ports", doc/current-routing.txt).
        let mut ports = Vec::new();
        for h in 0..self.hosts() {
            up.push(b.link(&host(h), &sw(h / k)));
            down.push(b.link(&sw(h / k), &host(h)));
            ports.extend([1, (h % k + 1) as u32]);
        }
        for i in 0..s_count {
            let c = self.coords(i);
            for (dim, &d) in self.dims.iter().enumerate() {
                if d == 1 || (!self.wrap && c[dim] + 1 == d) {
                    continue;
                }
                let mut n = c.clone();
                n[dim] = (c[dim] + 1) % d;
                let j = self.index(&n);
                let before = b.links.len();
                b.link(&sw(i), &sw(j));
                b.link(&sw(j), &sw(i));
                if b.links.len() > before {
                    // Not when a ring of 2 has joined the pair already.
                    let next = (k + 2 * dim + 1) as u32;
                    ports.extend([next, next + 1]);
                }
            }
        }
        let mut routes = vec![vec![Vec::new(); s_count]; s_count];
        for (a, row) in routes.iter_mut().enumerate() {
            for (bb, r) in row.iter_mut().enumerate() {
                *r = self
                    .switch_route(a, bb)
                    .into_iter()
                    .map(|(u, v)| b.link_index(&sw(u), &sw(v)))
                    .collect();
            }
        }
        for src in 0..self.hosts() {
            for dst in 0..self.hosts() {
                if src == dst && !self.self_transfers {
                    continue;
                }
                let mut path = vec![up[src]];
                path.extend(&routes[src / k][dst / k]);
                path.push(down[dst]);
                b.route(&host(src), &host(dst), &path);
            }
        }
        let routing = if self.wrap {
            "dimension-order routing, shorter way round (ties: positive)"
        } else {
            "dimension-order routing"
        };
        Ok(Generated {
            name: format!("{kind}-{dims}-k{k}"),
            description: format!(
                "All-to-all{} over a {kind} of {dims} switches with {k} host(s) each, {routing}",
                if self.self_transfers {
                    " (self-transfers included)"
                } else {
                    ""
                }
            ),
            link_throughput: None,
            network: b.finish(),
            link_params: Vec::new(),
            ports,
            pattern: crate::all_to_all(&hosts, self.self_transfers),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::network::{self, Routing};

    /// Lee distance between two switches (the shortest hop count).
    fn lee(g: &Grid, a: usize, b: usize) -> usize {
        let (ca, cb) = (g.coords(a), g.coords(b));
        ca.iter()
            .zip(&cb)
            .zip(&g.dims)
            .map(|((&x, &y), &d)| {
                let f = (y + d - x) % d;
                if g.wrap {
                    f.min(d - f)
                } else {
                    x.abs_diff(y)
                }
            })
            .sum()
    }

    fn check_counts(g: &Grid) {
        let gen = g.generated().expect("builds");
        let s = g.switches();
        let h = g.hosts();
        let switch_links: usize = g.dims.iter().map(|&d| (s / d) * g.links_per_line(d)).sum();
        assert_eq!(gen.network.links.len(), 2 * h + switch_links, "{g:?}");
        check_cabling(g, &gen);
        let pairs = if g.self_transfers { h * h } else { h * (h - 1) };
        assert_eq!(gen.network.routes.len(), pairs);
        let traffic = gen.expand().expect("expands");
        assert_eq!(traffic.len(), pairs);
        // Dimension-order routes are shortest: total path length by the Lee distance.
        let mut want = 0;
        for a in 0..h {
            for b in 0..h {
                if a != b || g.self_transfers {
                    want += 2 + lee(g, a / g.hosts_per_switch, b / g.hosts_per_switch);
                }
            }
        }
        assert_eq!(traffic.total_path_length(), want, "{g:?}");
        // The model's own shortest-path rule finds routes of the same lengths.
        let mut sp = gen.network.clone();
        sp.routing = Routing::ShortestPath;
        sp.routes.clear();
        let t2 = network::expand("sp", None, None, &sp, &gen.pattern).expect("expands");
        assert_eq!(t2.total_path_length(), want);
    }

    /// Cabled by dimension: a port per link at its tail, distinct per node; along
    /// dimension d, a cable joins port k + 2d + 1 at one end to k + 2d + 2 at the other.
    fn check_cabling(g: &Grid, gen: &Generated) {
        let (links, k) = (&gen.network.links, g.hosts_per_switch as u32);
        assert_eq!(gen.ports.len(), links.len(), "{g:?}");
        let mut taken = std::collections::HashSet::new();
        let mut port = std::collections::HashMap::new();
        for (l, &p) in links.iter().zip(&gen.ports) {
            assert!(
                taken.insert((l.from.clone(), p)),
                "{g:?}: {} port {p} twice",
                l.from
            );
            port.insert((l.from.clone(), l.to.clone()), p);
        }
        let index = |id: &str| id[1..].parse::<usize>().expect("s<i>");
        for l in links {
            let p = port[&(l.from.clone(), l.to.clone())];
            if l.from.starts_with('h') {
                assert_eq!(p, 1);
                continue;
            }
            if l.to.starts_with('h') {
                assert_eq!(p, (index(&l.to) % g.hosts_per_switch) as u32 + 1);
                continue;
            }
            let (ca, cb) = (g.coords(index(&l.from)), g.coords(index(&l.to)));
            let d = (0..ca.len()).find(|&d| ca[d] != cb[d]).expect("neighbours") as u32;
            let back = port[&(l.to.clone(), l.from.clone())];
            assert_eq!(p.min(back), k + 2 * d + 1, "{g:?}: {}>{}", l.from, l.to);
            assert_eq!(p.max(back), k + 2 * d + 2, "{g:?}: {}>{}", l.from, l.to);
            let forward = (ca[d as usize] + 1) % g.dims[d as usize] == cb[d as usize];
            assert!(!forward || g.dims[d as usize] == 2 || p == k + 2 * d + 1);
        }
    }

    #[test]
    fn rings_meshes_and_tori_have_the_formula_counts() {
        for (dims, wrap, k, self_t) in [
            (vec![5], true, 2, false),
            (vec![6], true, 1, true),
            (vec![2], true, 3, false),
            (vec![4], false, 2, false),
            (vec![3, 4], false, 1, false),
            (vec![3, 4], true, 2, false),
            (vec![4, 4], true, 1, true),
            (vec![2, 5], true, 1, false),
        ] {
            check_counts(&Grid {
                dims,
                wrap,
                hosts_per_switch: k,
                self_transfers: self_t,
            });
        }
    }

    #[test]
    fn ring_ties_go_the_positive_way() {
        let g = Grid::ring(4, 1);
        assert_eq!(g.switch_route(0, 2), vec![(0, 1), (1, 2)]);
        assert_eq!(g.switch_route(3, 1), vec![(3, 0), (0, 1)]);
        assert_eq!(g.switch_route(0, 3), vec![(0, 3)]);
    }

    #[test]
    fn torus_routes_dimension_0_first() {
        let g = Grid {
            dims: vec![3, 3],
            wrap: true,
            hosts_per_switch: 1,
            self_transfers: false,
        };
        // (0,0) -> (1,1): first x to (1,0) = 1, then y to (1,1) = 4.
        assert_eq!(g.switch_route(0, 4), vec![(0, 1), (1, 4)]);
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(Grid::ring(0, 1).generated().is_err());
        assert!(Grid::ring(3, 0).generated().is_err());
        assert!(Grid::ring(2000, 1).generated().is_err());
        // One host and no self-transfers: an empty traffic, refused as a parameter error.
        let e = Grid::ring(1, 1).generated().expect_err("a single host");
        assert!(e.to_string().contains("single host"), "{e}");
        let one = Grid {
            dims: vec![1, 1],
            wrap: false,
            hosts_per_switch: 1,
            self_transfers: true,
        };
        assert_eq!(
            one.generated()
                .expect("self-transfer")
                .expand()
                .expect("expands")
                .len(),
            1
        );
    }
}
