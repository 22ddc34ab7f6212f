//! Dragonflies (Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly
//! Topology", ISCA 2008) and Dragonfly+ (Shpiner, Haramaty, Eliad, Zdornov, Gafni,
//! Zahavi, "Dragonfly+: Low Cost Topology for Scaling Datacenters", HiPINEB 2017), with
//! their minimal static routing.
//!
//! # Dragonfly `dragonfly:A,P,H[,G]`
//!
//! `G` groups (default `A·H + 1`, the largest, one global link between every two groups)
//! of `A` routers; every router has `P` hosts, a local link to every other router of its
//! group, and `H` global links. Hosts: `A·P·G`; switches (routers): `A·G`. Host `k` of
//! router `r` of group `g` is `g{g}.r{r}.h{k}`, the router `g{g}.r{r}`.
//!
//! **Global links: the palm-tree arrangement** (Camarero, Vallejo, Beivide, "Topological
//! Characterization of Hamming and Dragonfly Networks and Its Implications on Routing",
//! ACM TACO 11(4), 2015, after M. García's thesis; the default arrangement of the CAMINOS
//! simulator). Number the global ports of a group `j = r·H + k` (`0 ≤ j < m = A·H`;
//! router `r`, its `k`-th global port). Port `j` of group `g` is cabled to port
//! `j' = m − 1 − j` of group `g + 1 + (j' mod (G − 1))` (mod `G`); with `G = A·H + 1`,
//! that is group `g − j − 1`. This is an involution exactly when `G − 1` divides `A·H`,
//! which a `G` given is required to satisfy: every two groups are then joined by
//! `L = A·H / (G − 1)` global links, and the ports from group `g` to group `g'` are
//! `j = m − 1 − o − t·(G − 1)` for `t < L`, with `o = (g' − g − 1) mod G`. (`H ≤ G − 1`
//! is required too, so that no two routers are joined twice.)
//!
//! **Minimal routing** (Kim et al. section 4.2: at most one local hop in the source
//! group, one global hop, at most one local hop in the destination group): the source
//! router forwards to the router of its group that holds the global link to the
//! destination group, which crosses it; the router it reaches forwards to the destination's
//! router. Within a group: one local hop (none on the same router). **Tie-break** when
//! `L > 1` links join the two groups: the host of index `i` in its group (`i = r·P + k`)
//! uses the one of rank `t = i mod L`. With one link per pair of groups the minimal route
//! is unique.
//!
//! **Loads of the all-to-all** (closed form, [`Dragonfly::loads`]; `L = 1`): every host
//! link carries `N − 1`, every global link `(A·P)²`, every local link `P²·(2·A·H + 1)`
//! (the `P²` of its group's own traffic, `A·H·P²` leaving the group through the far
//! router's global links, `A·H·P²` arriving through the near router's). For balanced
//! dragonflies (`A = 2P = 2H`) the host links are the bottleneck: `Λ = N − 1`.
//!
//! # Dragonfly+ `dragonfly-plus:L,S,P,H[,G]`
//!
//! `G` groups (default `S·H + 1`), each a two-level fat-tree: `L` leaves with `P` hosts
//! each, `S` spines, every leaf cabled to every spine; every spine has `H` global links,
//! arranged as above (palm-tree over the spines' global ports `j = s·H + k`). Hosts:
//! `L·P·G`; switches: `(L + S)·G`. Names: `g{g}.l{l}.h{k}` (hosts), `g{g}.l{l}` (leaves),
//! `g{g}.s{s}` (spines).
//!
//! **Minimal routing** leaf → spine → global → spine → leaf (Shpiner et al.): to another
//! group, up from the source leaf to the spine holding the global link to the
//! destination group (tie-break between parallel global links as above), across, and
//! down from the spine reached to the destination's leaf; within the group, up to spine
//! `i_d mod S` (`i_d`: the destination's index in its group, the d-mod-k rule of
//! fat-trees) and down; on the same leaf, through the leaf only.
//!
//! **A liquid schedule** ([`DragonflyPlus::schedule`]) when `L = S`, `P = H ≤ L` and
//! `G = S·H + 1` (`dragonfly-plus:4,4,4,4`, `dragonfly-plus:2,2,2,2`): with `m = L·P`
//! hosts per group, the `Λ = G·m − 1 = m² + m − 1` frames are
//! - `m²` frames `(a, b, c, e) ∈ Z_L × Z_P × Z_L × Z_P`, the same in every group: host
//!   `(l, k)` leaves through port `κ = k + b` of spine `s = l + k + a` (its link leads to
//!   one group, and reaches port `κ'` of spine `s'` there), and what arrives at port `κ'`
//!   of spine `s'` goes to host `κ' + e` of leaf `s' + κ' + c`. The `P` hosts of a leaf go
//!   up to `P` different spines and the `H` arrivals at a spine go down to `H` different
//!   leaves (`P = H ≤ L = S`), each port is used once, each host sends and receives once;
//!   for a given host the frames give every (port, destination) pair once, so every
//!   transfer to another group once.
//! - `m − 1` frames `(u, v) ≠ (0, 0)` within the groups: host `(l, k)` sends to host
//!   `k + v` of leaf `l + u`; the up-links `(l, (l'·P + k') mod S)` and down-links of a
//!   frame are distinct because `P ≤ S`.
//!
//! A dragonfly has no such schedule by these orbits: there, departures and arrivals share
//! the local links, and the transfers whose source is on router `A − 1 − r` and whose
//! global port and destination are on router `r` meet their own translate by the group
//! offset on a local link, so that no schedule made of translation-invariant frames exists
//! (`scripts/dragonfly-orbits` measures what splitting those orbits off gives). It has one
//! whose frames differ from group to group:
//!
//! **A liquid dragonfly schedule** ([`Dragonfly::schedule`], [`Dragonfly::rounds`]) when
//! `H = P`, `A ≥ 2P`, `G = A·H + 1` and `n = A·P` is a prime power (`dragonfly:4,2,2`,
//! `8,4,4`, `16,8,8`: the balanced dragonflies `A = 2P = 2H` with `P` a power of two).
//! Then a group has as many hosts as global ports (`n`), `G = n + 1`, and
//! `Λ = N − 1 = n² + n − 1`. The `n²` inter-group frames are the points `f = (f₁, f₂)` of
//! the affine plane over GF(n); group `g < n` stands for the line `v = f₁ + g·f₂`, group
//! `n` for `v = f₂`, so that for any two groups `g ≠ g'` the map `f ↦ (v_g(f), v_g'(f))`
//! is a bijection onto GF(n)² (two lines of different slopes meet once). In frame `f`,
//! group `g` with value `v = (x, b)` (`x = v div P`, `b = v mod P`)
//! - sends host `(r, k)` through its port `(r + k + x, k + b)` (router, index; a bijection
//!   of hosts onto ports): departures from router `r` use its local links of offsets
//!   `x .. x + P − 1` (one each);
//! - delivers what arrives at its port `(ρ, κ)` to host `(ρ + κ + x + P, κ + b)` (a
//!   bijection of ports onto hosts): arrivals at router `ρ` use its local links of
//!   offsets `x + P .. x + 2P − 1`, disjoint from the departures' as `A ≥ 2P` (offset 0 is
//!   no link).
//!
//! So every host sends and receives once, every global link carries one transfer, and no
//! local link two. For a port `j` of `g` leading to port `j'` of `g'`, the source through
//! `j` is a bijection of `v_g(f)` and the destination from `j'` one of `v_g'(f)`: every one
//! of the `n²` transfers from `g` to `g'` occurs exactly once. The `n − 1` frames within
//! the groups send host `(r, k)` to host `k` of router `r + 1 + (k + q) mod (A − 1)`
//! (`q < A − 1`) and to host `k + w` of router `r + u + k` (`0 < w < P`, `u < A`): the
//! local links of a router's hosts have distinct offsets (`P ≤ A − 1`). `n² + n − 1 = Λ`
//! frames: liquid. The model's validator checks every frame (tests; `liquid generate ...
//! --schedule-out`; `liquid solve dragonfly:16,8,8 --stream` for 16,512 hosts).

use crate::fabric::{self, check_hosts, Fabric, FrameRounds, PairFrames};
use crate::field::Field;
use crate::{bad, Generated, TopologyError};
use liquid_model::Traffic;

/// The palm-tree arrangement of the global ports of `groups` groups of `ports` global
/// ports each (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PalmTree {
    /// Number of groups, `G ≥ 2`.
    pub groups: usize,
    /// Global ports per group, `m` (a multiple of `G − 1`).
    pub ports: usize,
}

impl PalmTree {
    /// Global links joining every two groups, `L = m / (G − 1)`.
    pub fn parallel(&self) -> usize {
        self.ports / (self.groups - 1)
    }

    /// The group and port that port `j` of group `g` is cabled to.
    pub fn target(&self, g: usize, j: usize) -> (usize, usize) {
        let j2 = self.ports - 1 - j;
        ((g + 1 + j2 % (self.groups - 1)) % self.groups, j2)
    }

    /// The port of group `g` whose global link of rank `t` leads to group `to != g`.
    pub fn port_to(&self, g: usize, to: usize, t: usize) -> usize {
        let o = (to + self.groups - g - 1) % self.groups;
        self.ports - 1 - o - t * (self.groups - 1)
    }

    /// The rank `t` of port `j` among the links to its group.
    #[cfg(test)]
    fn rank(&self, j: usize) -> usize {
        (self.ports - 1 - j) / (self.groups - 1)
    }

    /// Number of the first `n` host indices `i` of a group with `i mod L = t`.
    fn count(&self, n: usize, t: usize) -> u64 {
        let l = self.parallel();
        (n / l + usize::from(t < n % l)) as u64
    }

    /// Number of the ports `[first, first + len)` that rank-`t` links use (the ports of
    /// rank `t` are `m − (t+1)(G−1) .. m − t(G−1)`).
    fn overlap(&self, t: usize, first: usize, len: usize) -> u64 {
        let lo = self.ports - (t + 1) * (self.groups - 1);
        let hi = self.ports - t * (self.groups - 1);
        hi.min(first + len).saturating_sub(lo.max(first)) as u64
    }

    fn check(
        groups: Option<usize>,
        ports: usize,
        per_switch: usize,
        what: &str,
    ) -> Result<PalmTree, TopologyError> {
        let most = ports + 1;
        let g = groups.unwrap_or(most);
        if g < 2 || g > most {
            return Err(bad(
                "groups",
                format!("{g} groups: give 2 to {most} ({what} + 1, one global link per pair)"),
            ));
        }
        if ports % (g - 1) != 0 {
            return Err(bad(
                "groups",
                format!(
                    "{g} groups: G - 1 must divide the {ports} global ports of a group \
                     (palm-tree arrangement: every two groups joined by the same number of links)"
                ),
            ));
        }
        if per_switch > g - 1 {
            return Err(bad(
                "groups",
                format!(
                    "{g} groups for {per_switch} global links per switch: a switch would \
                     have two links to the same group; give at least {} groups",
                    per_switch + 1
                ),
            ));
        }
        Ok(PalmTree { groups: g, ports })
    }
}

/// Loads of an all-to-all by link class, from the closed forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassLoads {
    /// Every host link (up and down): `N − 1`.
    pub host: u64,
    /// The most loaded link inside a group (local links; leaf-spine links of Dragonfly+).
    pub local: u64,
    /// The most loaded global link.
    pub global: u64,
}

impl ClassLoads {
    /// The largest load, `Λ`.
    pub fn duration(&self) -> u64 {
        self.host.max(self.local).max(self.global)
    }
}

/// The load of every link of a dragonfly's all-to-all (the same in every group).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkLoads {
    routers: usize,
    /// Every host link (up and down): `N − 1`.
    pub host: u64,
    /// The local link from router `r` to router `r2` of a group at `r·A + r2` (0 for
    /// `r = r2`, no link).
    pub local: Vec<u64>,
    /// The global link leaving port `j` of a group, at `j`.
    pub global: Vec<u64>,
}

impl LinkLoads {
    /// The load of the local link from router `r` to router `r2 ≠ r` of any group.
    pub fn local(&self, r: usize, r2: usize) -> u64 {
        self.local[r * self.routers + r2]
    }
}

/// A dragonfly of Kim et al. (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dragonfly {
    /// Routers per group, `A ≥ 1`.
    pub routers: usize,
    /// Hosts per router, `P ≥ 1`.
    pub hosts_per_router: usize,
    /// Global links per router, `H ≥ 1`.
    pub global_per_router: usize,
    /// Number of groups, `G` (`None`: `A·H + 1`).
    pub groups: Option<usize>,
}

impl Dragonfly {
    /// Reads `A,P,H[,G]` (what follows `dragonfly:`).
    pub fn parse(spec: &str, rest: &str) -> Result<Dragonfly, TopologyError> {
        let parts: Vec<&str> = rest.split(',').collect();
        if !(3..=4).contains(&parts.len()) {
            return Err(TopologyError::BadSpec {
                spec: spec.to_string(),
                why: "give routers per group, hosts per router, global links per router and \
                      optionally groups, like dragonfly:4,2,2 or dragonfly:4,2,2,5"
                    .into(),
            });
        }
        let v = fabric::numbers(
            spec,
            &parts,
            &[
                "routers per group",
                "hosts per router",
                "global links per router",
                "groups",
            ],
        )?;
        Ok(Dragonfly {
            routers: v[0],
            hosts_per_router: v[1],
            global_per_router: v[2],
            groups: v.get(3).copied(),
        })
    }

    /// The checked machine.
    pub fn build(&self) -> Result<DragonflyNet, TopologyError> {
        let (a, p, h) = (self.routers, self.hosts_per_router, self.global_per_router);
        for (v, name) in [
            (a, "routers per group"),
            (p, "hosts per router"),
            (h, "global links per router"),
        ] {
            if v == 0 {
                return Err(bad(name, "must be at least 1"));
            }
        }
        let ports = a
            .checked_mul(h)
            .ok_or_else(|| bad("global links per router", "too large"))?;
        let palm = PalmTree::check(self.groups, ports, h, "A·H")?;
        let n = a.checked_mul(p).and_then(|x| x.checked_mul(palm.groups));
        let n = check_hosts("hosts", n)?;
        Ok(DragonflyNet { a, p, h, palm, n })
    }

    /// The checked global-link arrangement (no model built; any size).
    pub fn arrangement(&self) -> Result<PalmTree, TopologyError> {
        let (a, p, h) = (self.routers, self.hosts_per_router, self.global_per_router);
        if a == 0 || p == 0 || h == 0 {
            return Err(bad("dragonfly", "every parameter must be at least 1"));
        }
        let ports = a
            .checked_mul(h)
            .ok_or_else(|| bad("global links per router", "too large"))?;
        PalmTree::check(self.groups, ports, h, "A·H")
    }

    /// The closed-form load of every link of the all-to-all (no model built; any size).
    pub fn link_loads(&self) -> Result<LinkLoads, TopologyError> {
        let (a, p, h) = (self.routers, self.hosts_per_router, self.global_per_router);
        let palm = self.arrangement()?;
        let ap = a * p;
        let n = (ap as u64)
            .checked_mul(palm.groups as u64)
            .ok_or_else(|| bad("dragonfly", "too many hosts"))?;
        // A global port of rank t carries the sources i ≡ t (mod L) of its group to
        // every host of the group it leads to.
        let global = (0..palm.ports)
            .map(|j| palm.count(ap, (palm.ports - 1 - j) / (palm.groups - 1)) * ap as u64)
            .collect();
        let mut local = vec![0; a * a];
        for r in 0..a {
            for r2 in (0..a).filter(|&x| x != r) {
                let mut load = (p * p) as u64;
                // Leaving the group: sources on r whose global port is on r2.
                for k in 0..p {
                    let t = (r * p + k) % palm.parallel();
                    load += palm.overlap(t, r2 * h, h) * ap as u64;
                }
                // Arriving at r from another group, bound for the hosts of r2.
                for j in r * h..(r + 1) * h {
                    load += palm.count(ap, j / (palm.groups - 1)) * p as u64;
                }
                local[r * a + r2] = load;
            }
        }
        Ok(LinkLoads {
            routers: a,
            host: n - 1,
            local,
            global,
        })
    }

    /// The closed-form loads of the all-to-all by link class (no model built; any size).
    pub fn loads(&self) -> Result<ClassLoads, TopologyError> {
        let l = self.link_loads()?;
        Ok(ClassLoads {
            host: l.host,
            local: l.local.iter().copied().max().unwrap_or(0),
            global: l.global.iter().copied().max().unwrap_or(0),
        })
    }

    /// The network form with its all-to-all.
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        fabric::generated(&self.build()?)
    }

    /// The all-to-all traffic, built directly.
    pub fn traffic(&self) -> Result<Traffic, TopologyError> {
        fabric::traffic(&self.build()?)
    }

    /// The closed-form liquid schedule's frames (module docs), made one at a time, when
    /// it applies (`H = P`, `A ≥ 2P`, `G = A·H + 1`, `A·P` a prime power); `None`
    /// otherwise. Any size (no model built): what `liquid solve --stream` streams.
    pub fn rounds(&self) -> Result<Option<Rounds>, TopologyError> {
        let (a, p, h) = (self.routers, self.hosts_per_router, self.global_per_router);
        self.loads()?;
        let ports = a * h;
        if h != p || a < 2 * p || self.groups.is_some_and(|g| g != ports + 1) {
            return Ok(None);
        }
        let n = a * p;
        let hosts = n
            .checked_mul(n + 1)
            .filter(|&x| x <= u32::MAX as usize)
            .ok_or_else(|| bad("dragonfly", "too many hosts"))?;
        let Some(field) = Field::new(n) else {
            return Ok(None);
        };
        Ok(Some(Rounds {
            a,
            p,
            n,
            hosts,
            palm: PalmTree {
                groups: n + 1,
                ports,
            },
            field,
        }))
    }

    /// The closed-form liquid schedule of the all-to-all (module docs) as timeframes of
    /// `(sender, receiver)` host numbers (host `k` of router `r` of group `g` is
    /// `g·A·P + r·P + k`), when it applies; `None` otherwise.
    pub fn schedule(&self) -> Result<Option<PairFrames>, TopologyError> {
        self.build()?;
        Ok(self.rounds()?.map(|rounds| rounds.pair_frames()))
    }
}

/// The closed-form liquid schedule of a dragonfly's all-to-all, frame by frame (see the
/// module docs): `A·P·(A·P + 1) − 1 = N − 1` frames.
#[derive(Debug, Clone)]
pub struct Rounds {
    a: usize,
    p: usize,
    /// Hosts (and global ports) per group, `n = A·P`.
    n: usize,
    hosts: usize,
    palm: PalmTree,
    field: Field,
}

impl Rounds {
    /// Number of hosts, `N = n·(n + 1)`.
    pub fn hosts(&self) -> usize {
        self.hosts
    }

    /// The value of group `g` in the inter-group frame `f < n²`: the line of the affine
    /// plane over GF(n) that the group stands for, at the point `f`.
    fn value(&self, g: usize, f: usize) -> usize {
        let (f1, f2) = (f / self.n, f % self.n);
        if g == self.n {
            f2
        } else {
            self.field.add(f1, self.field.mul(g, f2))
        }
    }
}

impl FrameRounds for Rounds {
    /// Number of frames, `n² + n − 1 = N − 1`.
    fn frames(&self) -> usize {
        self.n * self.n + self.n - 1
    }

    /// Frame `f < N − 1` as `(sender, receiver)` host numbers, into `out` (cleared first):
    /// every host sends once and receives once.
    fn frame(&self, f: usize, out: &mut Vec<(u32, u32)>) {
        let (a, p, n) = (self.a, self.p, self.n);
        out.clear();
        if f < n * n {
            for g in 0..=n {
                let v = self.value(g, f);
                let (x, b) = (v / p, v % p);
                for r in 0..a {
                    for k in 0..p {
                        // Host (r, k) leaves through port (r + k + x, k + b).
                        let j = ((r + k + x) % a) * p + (k + b) % p;
                        let (g2, j2) = self.palm.target(g, j);
                        let w = self.value(g2, f);
                        let (x2, b2) = (w / p, w % p);
                        // What arrives at port (ρ, κ) goes to host (ρ + κ + x + P, κ + b).
                        let (rho, kappa) = (j2 / p, j2 % p);
                        let to = ((rho + kappa + x2 + p) % a) * p + (kappa + b2) % p;
                        out.push(((g * n + r * p + k) as u32, (g2 * n + to) as u32));
                    }
                }
            }
            return;
        }
        // Within the groups: frame q < A − 1 sends host (r, k) to host k of router
        // r + 1 + (k + q) mod (A − 1); frame q = A − 1 + (w − 1)·A + u (0 < w < P) to host
        // k + w of router r + u + k.
        let q = f - n * n;
        for g in 0..=n {
            for r in 0..a {
                for k in 0..p {
                    let to = if q < a - 1 {
                        ((r + 1 + (k + q) % (a - 1)) % a) * p + k
                    } else {
                        let (w, u) = (1 + (q - (a - 1)) / a, (q - (a - 1)) % a);
                        ((r + u + k) % a) * p + (k + w) % p
                    };
                    out.push(((g * n + r * p + k) as u32, (g * n + to) as u32));
                }
            }
        }
    }
}

/// A checked dragonfly with its node numbering.
#[derive(Debug, Clone, Copy)]
pub struct DragonflyNet {
    a: usize,
    p: usize,
    h: usize,
    palm: PalmTree,
    n: usize,
}

impl DragonflyNet {
    /// Number of hosts, `A·P·G`.
    pub fn hosts(&self) -> usize {
        self.n
    }

    /// Number of routers, `A·G`.
    pub fn switches(&self) -> usize {
        self.a * self.palm.groups
    }

    /// The global-link arrangement.
    pub fn arrangement(&self) -> PalmTree {
        self.palm
    }

    fn router(&self, g: usize, r: usize) -> u32 {
        (self.n + g * self.a + r) as u32
    }
}

impl Fabric for DragonflyNet {
    fn name(&self) -> String {
        let g = self.palm.groups;
        format!("dragonfly-{}-{}-{}-{g}", self.a, self.p, self.h)
    }

    fn description(&self) -> String {
        format!(
            "All-to-all over a dragonfly of {} groups of {} routers, {} hosts and {} global \
             links per router ({} hosts, {} routers; palm-tree global links, {} per pair of \
             groups), minimal routing local-global-local (Kim et al. 2008)",
            self.palm.groups,
            self.a,
            self.p,
            self.h,
            self.n,
            self.switches(),
            self.palm.parallel()
        )
    }

    fn host_count(&self) -> usize {
        self.n
    }

    fn node_names(&self) -> Vec<String> {
        let (a, p) = (self.a, self.p);
        let mut v: Vec<String> = (0..self.n)
            .map(|i| format!("g{}.r{}.h{}", i / (a * p), (i / p) % a, i % p))
            .collect();
        v.extend((0..self.switches()).map(|i| format!("g{}.r{}", i / a, i % a)));
        v
    }

    fn links(&self) -> Vec<(u32, u32)> {
        let (a, p, h) = (self.a, self.p, self.h);
        let mut v = Vec::new();
        for i in 0..self.n {
            let r = self.router(i / (a * p), (i / p) % a);
            v.push((i as u32, r));
            v.push((r, i as u32));
        }
        for g in 0..self.palm.groups {
            for r in 0..a {
                for r2 in (0..a).filter(|&x| x != r) {
                    v.push((self.router(g, r), self.router(g, r2)));
                }
            }
        }
        for g in 0..self.palm.groups {
            for j in 0..a * h {
                let (g2, j2) = self.palm.target(g, j);
                v.push((self.router(g, j / h), self.router(g2, j2 / h)));
            }
        }
        v
    }

    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        let (a, p, h) = (self.a, self.p, self.h);
        let (gs, rs, gd, rd) = (s / (a * p), (s / p) % a, d / (a * p), (d / p) % a);
        out.clear();
        out.push(s as u32);
        out.push(self.router(gs, rs));
        if gs != gd {
            let t = (s % (a * p)) % self.palm.parallel();
            let j = self.palm.port_to(gs, gd, t);
            if j / h != rs {
                out.push(self.router(gs, j / h));
            }
            let (g2, j2) = self.palm.target(gs, j);
            debug_assert_eq!(g2, gd);
            if j2 / h != rd {
                out.push(self.router(gd, j2 / h));
            }
        }
        if gs != gd || rs != rd {
            out.push(self.router(gd, rd));
        }
        out.push(d as u32);
    }
}

/// A Dragonfly+ (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DragonflyPlus {
    /// Leaves per group, `L ≥ 1`.
    pub leaves: usize,
    /// Spines per group, `S ≥ 1`.
    pub spines: usize,
    /// Hosts per leaf, `P ≥ 1`.
    pub hosts_per_leaf: usize,
    /// Global links per spine, `H ≥ 1`.
    pub global_per_spine: usize,
    /// Number of groups, `G` (`None`: `S·H + 1`).
    pub groups: Option<usize>,
}

impl DragonflyPlus {
    /// Reads `L,S,P,H[,G]` (what follows `dragonfly-plus:`).
    pub fn parse(spec: &str, rest: &str) -> Result<DragonflyPlus, TopologyError> {
        let parts: Vec<&str> = rest.split(',').collect();
        if !(4..=5).contains(&parts.len()) {
            return Err(TopologyError::BadSpec {
                spec: spec.to_string(),
                why: "give leaves and spines per group, hosts per leaf, global links per \
                      spine and optionally groups, like dragonfly-plus:4,4,4,4"
                    .into(),
            });
        }
        let v = fabric::numbers(
            spec,
            &parts,
            &[
                "leaves per group",
                "spines per group",
                "hosts per leaf",
                "global links per spine",
                "groups",
            ],
        )?;
        Ok(DragonflyPlus {
            leaves: v[0],
            spines: v[1],
            hosts_per_leaf: v[2],
            global_per_spine: v[3],
            groups: v.get(4).copied(),
        })
    }

    fn palm(&self) -> Result<PalmTree, TopologyError> {
        for (v, name) in [
            (self.leaves, "leaves per group"),
            (self.spines, "spines per group"),
            (self.hosts_per_leaf, "hosts per leaf"),
            (self.global_per_spine, "global links per spine"),
        ] {
            if v == 0 {
                return Err(bad(name, "must be at least 1"));
            }
        }
        let ports = self
            .spines
            .checked_mul(self.global_per_spine)
            .ok_or_else(|| bad("global links per spine", "too large"))?;
        PalmTree::check(self.groups, ports, self.global_per_spine, "S·H")
    }

    /// The checked machine.
    pub fn build(&self) -> Result<DragonflyPlusNet, TopologyError> {
        let palm = self.palm()?;
        let n = self
            .leaves
            .checked_mul(self.hosts_per_leaf)
            .and_then(|x| x.checked_mul(palm.groups));
        let n = check_hosts("hosts", n)?;
        Ok(DragonflyPlusNet {
            l: self.leaves,
            s: self.spines,
            p: self.hosts_per_leaf,
            h: self.global_per_spine,
            palm,
            n,
        })
    }

    /// The closed-form loads of the all-to-all (no model built; any size).
    pub fn loads(&self) -> Result<ClassLoads, TopologyError> {
        let palm = self.palm()?;
        let (l, s, p, h) = (
            self.leaves,
            self.spines,
            self.hosts_per_leaf,
            self.global_per_spine,
        );
        let n = l * p;
        let global = (0..palm.parallel())
            .map(|t| palm.count(n, t) * n as u64)
            .max()
            .unwrap_or(0);
        let mut local = 0;
        for leaf in 0..l {
            for sp in 0..s {
                // Up: the group's own traffic to other leaves by spine i_d mod S, and the
                // traffic leaving the group through sp's global links.
                let others = (0..n).filter(|&i| i / p != leaf && i % s == sp).count() as u64;
                let mut up = p as u64 * others;
                for k in 0..p {
                    let t = (leaf * p + k) % palm.parallel();
                    up += palm.overlap(t, sp * h, h) * n as u64;
                }
                // Down: to the hosts of the leaf through sp, from the group and from the
                // global links arriving at sp.
                let mine = (0..p).filter(|&k| (leaf * p + k) % s == sp).count() as u64;
                let mut down = mine * (n - p) as u64;
                for j in sp * h..(sp + 1) * h {
                    down += palm.count(n, j / (palm.groups - 1)) * p as u64;
                }
                local = local.max(up).max(down);
            }
        }
        Ok(ClassLoads {
            host: (n * palm.groups - 1) as u64,
            local,
            global,
        })
    }

    /// The checked global-link arrangement (no model built; any size).
    pub fn arrangement(&self) -> Result<PalmTree, TopologyError> {
        self.palm()
    }

    /// The closed-form load of every link of the all-to-all (the same in every group; no
    /// model built, any size). Sums as in [`DragonflyPlus::loads`], link by link.
    pub fn link_loads(&self) -> Result<PlusLinkLoads, TopologyError> {
        let palm = self.palm()?;
        let (l, s, p, h) = (
            self.leaves,
            self.spines,
            self.hosts_per_leaf,
            self.global_per_spine,
        );
        let n = l
            .checked_mul(p)
            .filter(|&x| (x as u64).checked_mul(palm.groups as u64).is_some())
            .ok_or_else(|| bad("dragonfly-plus", "too many hosts"))?;
        let hosts = n as u64 * palm.groups as u64;
        let global = (0..palm.ports)
            .map(|j| palm.count(n, (palm.ports - 1 - j) / (palm.groups - 1)) * n as u64)
            .collect();
        let mut up = vec![0; l * s];
        let mut down = vec![0; l * s];
        for leaf in 0..l {
            for sp in 0..s {
                // Up: the group's own traffic to the other leaves' hosts i_d with
                // i_d mod S = sp, and the traffic leaving the group through sp's global links.
                let others = (0..n).filter(|&i| i / p != leaf && i % s == sp).count() as u64;
                let mut load = p as u64 * others;
                for k in 0..p {
                    let t = (leaf * p + k) % palm.parallel();
                    load += palm.overlap(t, sp * h, h) * n as u64;
                }
                up[leaf * s + sp] = load;
                // Down: to the leaf's hosts through sp, from the group and from the global
                // links arriving at sp.
                let mine = (0..p).filter(|&k| (leaf * p + k) % s == sp).count() as u64;
                let mut load = mine * (n - p) as u64;
                for j in sp * h..(sp + 1) * h {
                    load += palm.count(n, j / (palm.groups - 1)) * p as u64;
                }
                down[leaf * s + sp] = load;
            }
        }
        Ok(PlusLinkLoads {
            spines: s,
            host: hosts - 1,
            up,
            down,
            global,
        })
    }

    /// The closed-form liquid schedule's frames (module docs), made one at a time, when it
    /// applies (`L = S`, `P = H ≤ L`, `G = S·H + 1`); `None` otherwise. Any size (no model
    /// built): what `liquid solve dragonfly-plus:... --stream` streams. Frame for frame
    /// [`DragonflyPlus::schedule`].
    pub fn rounds(&self) -> Result<Option<PlusRounds>, TopologyError> {
        let palm = self.palm()?;
        let (l, p) = (self.leaves, self.hosts_per_leaf);
        if self.spines != l || self.global_per_spine != p || p > l || palm.parallel() != 1 {
            return Ok(None);
        }
        let m = l * p;
        m.checked_mul(palm.groups)
            .filter(|&x| x <= u32::MAX as usize)
            .ok_or_else(|| bad("dragonfly-plus", "too many hosts"))?;
        Ok(Some(PlusRounds { l, p, m, palm }))
    }

    /// The closed-form liquid schedule of the all-to-all when `L = S`, `P = H ≤ L` and
    /// `G = S·H + 1` (one global link per pair of groups), as timeframes of `(sender,
    /// receiver)` host numbers (host `k` of leaf `l` of group `g` is `g·L·P + l·P + k`);
    /// `None` otherwise. See the module docs.
    pub fn schedule(&self) -> Result<Option<PairFrames>, TopologyError> {
        let net = self.build()?;
        let (l, p) = (self.leaves, self.hosts_per_leaf);
        if self.spines != l || self.global_per_spine != p || p > l || net.palm.parallel() != 1 {
            return Ok(None);
        }
        let (h, m, groups) = (p, l * p, net.palm.groups);
        let mut frames = Vec::with_capacity(net.n - 1);
        // m² frames (a, b, c, e) in which every host sends to another group: host (l, k)
        // leaves through port κ = k + b of spine l + k + a; what arrives at port κ' of
        // spine s' goes to host κ' + e of leaf s' + κ' + c.
        for a in 0..l {
            for b in 0..p {
                for c in 0..l {
                    for e in 0..p {
                        let mut frame = Vec::with_capacity(net.n);
                        for g in 0..groups {
                            for x in 0..l {
                                for k in 0..p {
                                    let j = ((x + k + a) % l) * h + (k + b) % p;
                                    let (g2, j2) = net.palm.target(g, j);
                                    let (s2, k2) = (j2 / h, j2 % h);
                                    let to = ((s2 + k2 + c) % l) * p + (k2 + e) % p;
                                    frame.push((g * m + x * p + k, g2 * m + to));
                                }
                            }
                        }
                        frames.push(frame);
                    }
                }
            }
        }
        // m − 1 frames (u, v) ≠ (0, 0) within the groups: host (l, k) to host k + v of leaf
        // l + u.
        for u in 0..l {
            for v in 0..p {
                if u == 0 && v == 0 {
                    continue;
                }
                let mut frame = Vec::with_capacity(net.n);
                for g in 0..groups {
                    for x in 0..l {
                        for k in 0..p {
                            let to = ((x + u) % l) * p + (k + v) % p;
                            frame.push((g * m + x * p + k, g * m + to));
                        }
                    }
                }
                frames.push(frame);
            }
        }
        Ok(Some(frames))
    }

    /// The network form with its all-to-all.
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        fabric::generated(&self.build()?)
    }

    /// The all-to-all traffic, built directly.
    pub fn traffic(&self) -> Result<Traffic, TopologyError> {
        fabric::traffic(&self.build()?)
    }
}

/// The load of every link of a Dragonfly+'s all-to-all (the same in every group).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlusLinkLoads {
    spines: usize,
    /// Every host link (up and down): `N − 1`.
    pub host: u64,
    /// The link from leaf `x` up to spine `y` of a group, at `x·S + y`.
    pub up: Vec<u64>,
    /// The link from spine `y` down to leaf `x` of a group, at `x·S + y`.
    pub down: Vec<u64>,
    /// The global link leaving port `j` of a group, at `j`.
    pub global: Vec<u64>,
}

impl PlusLinkLoads {
    /// The load of the link from leaf `x` up to spine `y` of any group.
    pub fn up(&self, x: usize, y: usize) -> u64 {
        self.up[x * self.spines + y]
    }

    /// The load of the link from spine `y` down to leaf `x` of any group.
    pub fn down(&self, x: usize, y: usize) -> u64 {
        self.down[x * self.spines + y]
    }
}

/// The closed-form liquid schedule of a Dragonfly+'s all-to-all, frame by frame (module
/// docs): `m² + m − 1 = N − 1` frames, `m = L·P`.
#[derive(Debug, Clone)]
pub struct PlusRounds {
    l: usize,
    p: usize,
    /// Hosts (and global ports) per group, `m = L·P`.
    m: usize,
    palm: PalmTree,
}

impl PlusRounds {
    /// Number of hosts, `N = m·(m + 1)`.
    pub fn hosts(&self) -> usize {
        self.m * self.palm.groups
    }
}

impl FrameRounds for PlusRounds {
    /// Number of frames, `m² + m − 1 = N − 1`.
    fn frames(&self) -> usize {
        self.m * self.m + self.m - 1
    }

    /// Frame `f < N − 1` as `(sender, receiver)` host numbers, into `out` (cleared first):
    /// every host sends once and receives once.
    fn frame(&self, f: usize, out: &mut Vec<(u32, u32)>) {
        let (l, p, m) = (self.l, self.p, self.m);
        out.clear();
        if f < m * m {
            // Frame (a, b, c, e), numbered ((a·P + b)·L + c)·P + e: host (x, k) leaves
            // through port k + b of spine x + k + a; what arrives at port κ' of spine s'
            // goes to host κ' + e of leaf s' + κ' + c.
            let (e, c, b, a) = (f % p, (f / p) % l, (f / (p * l)) % p, f / (p * l * p));
            for g in 0..self.palm.groups {
                for x in 0..l {
                    for k in 0..p {
                        let j = ((x + k + a) % l) * p + (k + b) % p;
                        let (g2, j2) = self.palm.target(g, j);
                        let (s2, k2) = (j2 / p, j2 % p);
                        let to = ((s2 + k2 + c) % l) * p + (k2 + e) % p;
                        out.push(((g * m + x * p + k) as u32, (g2 * m + to) as u32));
                    }
                }
            }
            return;
        }
        // Frame (u, v) ≠ (0, 0) within the groups, numbered u·P + v − 1: host (x, k) to
        // host k + v of leaf x + u.
        let q = f - m * m + 1;
        let (u, v) = (q / p, q % p);
        for g in 0..self.palm.groups {
            for x in 0..l {
                for k in 0..p {
                    let to = ((x + u) % l) * p + (k + v) % p;
                    out.push(((g * m + x * p + k) as u32, (g * m + to) as u32));
                }
            }
        }
    }
}

/// A checked Dragonfly+ with its node numbering.
#[derive(Debug, Clone, Copy)]
pub struct DragonflyPlusNet {
    l: usize,
    s: usize,
    p: usize,
    h: usize,
    palm: PalmTree,
    n: usize,
}

impl DragonflyPlusNet {
    /// Number of hosts, `L·P·G`.
    pub fn hosts(&self) -> usize {
        self.n
    }

    /// Number of switches, `(L + S)·G`.
    pub fn switches(&self) -> usize {
        (self.l + self.s) * self.palm.groups
    }

    fn leaf(&self, g: usize, x: usize) -> u32 {
        (self.n + g * (self.l + self.s) + x) as u32
    }

    fn spine(&self, g: usize, x: usize) -> u32 {
        (self.n + g * (self.l + self.s) + self.l + x) as u32
    }
}

impl Fabric for DragonflyPlusNet {
    fn name(&self) -> String {
        format!(
            "dragonfly-plus-{}-{}-{}-{}-{}",
            self.l, self.s, self.p, self.h, self.palm.groups
        )
    }

    fn description(&self) -> String {
        format!(
            "All-to-all over a Dragonfly+ of {} groups, each {} leaves of {} hosts and {} \
             spines with {} global links ({} hosts, {} switches; palm-tree global links, {} \
             per pair of groups), minimal routing leaf-spine-global-spine-leaf (Shpiner et \
             al. 2017)",
            self.palm.groups,
            self.l,
            self.p,
            self.s,
            self.h,
            self.n,
            self.switches(),
            self.palm.parallel()
        )
    }

    fn host_count(&self) -> usize {
        self.n
    }

    fn node_names(&self) -> Vec<String> {
        let (l, p) = (self.l, self.p);
        let mut v: Vec<String> = (0..self.n)
            .map(|i| format!("g{}.l{}.h{}", i / (l * p), (i / p) % l, i % p))
            .collect();
        for g in 0..self.palm.groups {
            v.extend((0..l).map(|x| format!("g{g}.l{x}")));
            v.extend((0..self.s).map(|x| format!("g{g}.s{x}")));
        }
        v
    }

    fn links(&self) -> Vec<(u32, u32)> {
        let (l, p, h) = (self.l, self.p, self.h);
        let mut v = Vec::new();
        for i in 0..self.n {
            let leaf = self.leaf(i / (l * p), (i / p) % l);
            v.push((i as u32, leaf));
            v.push((leaf, i as u32));
        }
        for g in 0..self.palm.groups {
            for x in 0..l {
                for y in 0..self.s {
                    v.push((self.leaf(g, x), self.spine(g, y)));
                    v.push((self.spine(g, y), self.leaf(g, x)));
                }
            }
        }
        for g in 0..self.palm.groups {
            for j in 0..self.s * h {
                let (g2, j2) = self.palm.target(g, j);
                v.push((self.spine(g, j / h), self.spine(g2, j2 / h)));
            }
        }
        v
    }

    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        let (l, p, h) = (self.l, self.p, self.h);
        let n = l * p;
        let (gs, ls, gd, ld) = (s / n, (s / p) % l, d / n, (d / p) % l);
        out.clear();
        out.push(s as u32);
        out.push(self.leaf(gs, ls));
        if gs != gd {
            let t = (s % n) % self.palm.parallel();
            let j = self.palm.port_to(gs, gd, t);
            let (_, j2) = self.palm.target(gs, j);
            out.push(self.spine(gs, j / h));
            out.push(self.spine(gd, j2 / h));
            out.push(self.leaf(gd, ld));
        } else if ls != ld {
            out.push(self.spine(gs, (d % n) % self.s));
            out.push(self.leaf(gd, ld));
        }
        out.push(d as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::counted_loads;

    fn df(a: usize, p: usize, h: usize, g: Option<usize>) -> Dragonfly {
        Dragonfly {
            routers: a,
            hosts_per_router: p,
            global_per_router: h,
            groups: g,
        }
    }

    #[test]
    fn palm_tree_is_an_involution_joining_every_two_groups_equally() {
        for (g, m) in [(9, 8), (5, 8), (3, 8), (2, 8), (33, 32), (7, 6), (4, 6)] {
            let palm = PalmTree {
                groups: g,
                ports: m,
            };
            let mut pairs = vec![vec![0; g]; g];
            for (x, row) in pairs.iter_mut().enumerate() {
                for j in 0..m {
                    let (y, j2) = palm.target(x, j);
                    assert_eq!(palm.target(y, j2), (x, j), "G={g} m={m}");
                    assert_ne!(x, y);
                    row[y] += 1;
                    let t = palm.rank(j);
                    assert_eq!(palm.port_to(x, y, t), j);
                }
            }
            for (x, row) in pairs.iter().enumerate() {
                for (y, &links) in row.iter().enumerate().filter(|&(y, _)| y != x) {
                    assert_eq!(links, palm.parallel(), "{x}-{y}");
                }
            }
        }
        // The canonical case is group g - j - 1 (Camarero et al.).
        let palm = PalmTree {
            groups: 9,
            ports: 8,
        };
        for x in 0..9 {
            for j in 0..8 {
                assert_eq!(palm.target(x, j).0, (x + 9 - j - 1) % 9);
            }
        }
    }

    #[test]
    fn sizes_and_closed_form_loads_match_the_counted_ones() {
        let mut cases = Vec::new();
        for a in 1..=4 {
            for p in 1..=3 {
                for h in 1..=3 {
                    let m = a * h;
                    for g in 2..=m + 1 {
                        if m % (g - 1) == 0 && h < g && a * p * g <= 300 && a * p * g >= 2 {
                            cases.push(df(a, p, h, Some(g)));
                        }
                    }
                }
            }
        }
        assert!(cases.len() > 60, "{}", cases.len());
        for d in cases {
            let net = d.build().expect("builds");
            let (a, p) = (d.routers, d.hosts_per_router);
            let g = d.groups.unwrap_or(a * d.global_per_router + 1);
            assert_eq!(net.hosts(), a * p * g);
            assert_eq!(net.switches(), a * g);
            let loads = counted_loads(&net);
            let want = d.loads().expect("closed form");
            assert_eq!(
                loads.iter().copied().max().unwrap_or(0),
                want.duration(),
                "{d:?}"
            );
            let n = net.hosts();
            // Host links first (up, down per host), then local, then global links.
            assert!(loads[..2 * n].iter().all(|&x| x == want.host));
            let local = a * (a - 1) * g;
            let lmax = loads[2 * n..2 * n + local]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
            let gmax = loads[2 * n + local..].iter().copied().max().unwrap_or(0);
            assert_eq!(lmax, if a > 1 { want.local } else { 0 }, "{d:?}");
            assert_eq!(gmax, want.global, "{d:?}");
            // Link by link, in the network's order (local (g, r, r2 ≠ r), global (g, j)).
            let each = d.link_loads().expect("closed form");
            let mut at = 2 * n;
            for _ in 0..g {
                for r in 0..a {
                    for r2 in (0..a).filter(|&x| x != r) {
                        assert_eq!(loads[at], each.local(r, r2), "{d:?} {r}->{r2}");
                        at += 1;
                    }
                }
            }
            for _ in 0..g {
                for j in 0..a * d.global_per_router {
                    assert_eq!(loads[at], each.global[j], "{d:?} port {j}");
                    at += 1;
                }
            }
            assert_eq!(at, loads.len());
        }
    }

    #[test]
    fn canonical_closed_form() {
        for (a, p, h) in [(4, 2, 2), (8, 4, 4), (16, 8, 8), (2, 1, 1), (6, 3, 3)] {
            let l = df(a, p, h, None).loads().expect("ok");
            let n = (a * p * (a * h + 1)) as u64;
            let (a, p, h) = (a as u64, p as u64, h as u64);
            assert_eq!(l.host, n - 1);
            assert_eq!(l.global, a * a * p * p);
            assert_eq!(l.local, p * p * (2 * a * h + 1));
        }
        let l = df(16, 8, 8, None).loads().expect("ok");
        assert_eq!(l.duration(), 16_511);
        // The closed-form schedule's length is Λ at every balanced size with P a power of
        // two (validated frame by frame in memory up to 8,2,2 here, by the streaming tests
        // and `liquid solve dragonfly:16,8,8 --stream` beyond).
        for (a, p) in [(2, 1), (4, 2), (8, 4), (16, 8), (32, 16)] {
            let d = df(a, p, p, None);
            let rounds = d.rounds().expect("ok").expect("a closed form");
            assert_eq!(rounds.frames() as u64, d.loads().expect("ok").duration());
            assert_eq!(rounds.hosts() as u64, d.loads().expect("ok").host + 1);
        }
    }

    /// The Dragonflies+ the load tests run on: 1 to 3 leaves and spines, 1 to 3 hosts per
    /// leaf, 1 or 2 global links per spine, every group count that divides the global links
    /// evenly, at most 200 hosts.
    fn small_dragonflies_plus() -> Vec<DragonflyPlus> {
        let mut out = Vec::new();
        for l in 1..=3 {
            for s in 1..=3 {
                for p in 1..=3 {
                    for h in 1..=2 {
                        let m = s * h;
                        for g in 2..=m + 1 {
                            if m % (g - 1) != 0 || h >= g || l * p * g > 200 || l * p * g < 2 {
                                continue;
                            }
                            out.push(DragonflyPlus {
                                leaves: l,
                                spines: s,
                                hosts_per_leaf: p,
                                global_per_spine: h,
                                groups: Some(g),
                            });
                        }
                    }
                }
            }
        }
        assert!(out.len() > 40, "{}", out.len());
        out
    }

    #[test]
    fn dragonfly_plus_sizes_and_loads() {
        for d in small_dragonflies_plus() {
            let (l, s, g) = (d.leaves, d.spines, d.groups.expect("set"));
            let net = d.build().expect("builds");
            assert_eq!(net.hosts(), l * d.hosts_per_leaf * g);
            assert_eq!(net.switches(), (l + s) * g);
            let loads = counted_loads(&net);
            let want = d.loads().expect("closed form");
            let n = net.hosts();
            let local = 2 * l * s * g;
            let lmax = loads[2 * n..2 * n + local].iter().copied().max();
            let gmax = loads[2 * n + local..].iter().copied().max();
            assert_eq!(lmax.unwrap_or(0), want.local, "{d:?}");
            assert_eq!(gmax.unwrap_or(0), want.global, "{d:?}");
            assert_eq!(
                loads.iter().copied().max().unwrap_or(0),
                want.duration(),
                "{d:?}"
            );
        }
    }

    #[test]
    fn routes_are_minimal() {
        let net = df(4, 2, 2, None).build().expect("builds");
        let mut r = Vec::new();
        for s in 0..net.hosts() {
            for d in (0..net.hosts()).filter(|&d| d != s) {
                net.route(s, d, &mut r);
                // host, router, at most one local, global, at most one local, host.
                assert!(r.len() <= 6 && r.len() >= 3, "{r:?}");
            }
        }
    }

    #[test]
    fn direct_traffic_is_the_expanded_traffic() {
        for d in [df(4, 2, 2, None), df(2, 2, 2, Some(3))] {
            let want = d.generated().expect("ok").expand().expect("expands");
            let got = d.traffic().expect("ok");
            assert_eq!(got.transfers(), want.transfers());
            assert_eq!(got.num_links(), want.num_links());
            assert_eq!(got.duration(), d.loads().expect("ok").duration() as usize);
        }
        let d = DragonflyPlus {
            leaves: 2,
            spines: 2,
            hosts_per_leaf: 2,
            global_per_spine: 2,
            groups: None,
        };
        let want = d.generated().expect("ok").expand().expect("expands");
        assert_eq!(d.traffic().expect("ok").transfers(), want.transfers());
    }

    /// The closed-form Dragonfly+ schedule is valid and liquid where it applies
    /// (`L = S`, `P = H ≤ L`, one global link per pair of groups), and absent elsewhere.
    #[test]
    fn the_closed_form_dragonfly_plus_schedule_is_liquid() {
        for (l, s, p, h, g, liquid) in [
            (1, 1, 1, 1, None, true),
            (2, 2, 1, 1, None, true),
            (2, 2, 2, 2, None, true),
            (3, 3, 2, 2, None, true),
            (3, 3, 3, 3, None, true),
            (4, 4, 2, 2, None, true),
            (4, 4, 4, 4, None, true),
            (5, 5, 3, 3, None, true),
            (2, 2, 3, 3, None, false),
            (4, 2, 2, 2, None, false),
            (2, 2, 2, 1, None, false),
            (2, 2, 2, 2, Some(3), false),
        ] {
            let d = DragonflyPlus {
                leaves: l,
                spines: s,
                hosts_per_leaf: p,
                global_per_spine: h,
                groups: g,
            };
            let frames = d.schedule().expect("builds");
            assert_eq!(frames.is_some(), liquid, "{d:?}");
            let Some(frames) = frames else { continue };
            let traffic = d.traffic().expect("builds");
            let schedule = fabric::pairs_schedule(d.build().expect("ok").hosts(), &frames);
            let report = liquid_model::validate(&traffic, &schedule).expect("valid");
            assert_eq!(report.length, traffic.duration(), "{d:?}");
            assert_eq!(
                frames.iter().map(Vec::len).sum::<usize>(),
                traffic.len(),
                "{d:?}"
            );
        }
    }

    /// The per-link closed form is the counted load of every link (in every group), and
    /// the frame-by-frame rounds are the in-memory schedule, frame for frame.
    #[test]
    fn dragonfly_plus_link_loads_and_rounds() {
        for d in small_dragonflies_plus() {
            let (l, s, g) = (d.leaves, d.spines, d.groups.expect("set"));
            let m = s * d.global_per_spine;
            let net = d.build().expect("builds");
            let counted = counted_loads(&net);
            let want = d.link_loads().expect("closed form");
            let n = net.hosts();
            assert!(counted[..2 * n].iter().all(|&x| x == want.host));
            for gr in 0..g {
                for x in 0..l {
                    for y in 0..s {
                        let at = 2 * n + 2 * ((gr * l + x) * s + y);
                        assert_eq!(counted[at], want.up(x, y), "{d:?}");
                        assert_eq!(counted[at + 1], want.down(x, y), "{d:?}");
                    }
                }
                for j in 0..m {
                    let at = 2 * n + 2 * l * s * g + gr * m + j;
                    assert_eq!(counted[at], want.global[j], "{d:?}");
                }
            }
        }
        for (l, p) in [
            (1, 1),
            (2, 1),
            (2, 2),
            (3, 2),
            (3, 3),
            (4, 2),
            (4, 4),
            (5, 3),
        ] {
            let d = DragonflyPlus {
                leaves: l,
                spines: l,
                hosts_per_leaf: p,
                global_per_spine: p,
                groups: None,
            };
            let frames = d.schedule().expect("ok").expect("a closed form");
            let rounds = d.rounds().expect("ok").expect("a closed form");
            assert_eq!(rounds.frames(), frames.len());
            assert_eq!(rounds.frames() as u64, d.loads().expect("ok").duration());
            assert_eq!(rounds.pair_frames(), frames, "{d:?}");
        }
        let big = DragonflyPlus {
            leaves: 16,
            spines: 16,
            hosts_per_leaf: 8,
            global_per_spine: 8,
            groups: None,
        };
        let rounds = big.rounds().expect("ok").expect("a closed form");
        assert_eq!(rounds.hosts(), 16_512);
        assert_eq!(rounds.frames() as u64, big.loads().expect("ok").duration());
        for d in [
            (2, 2, 3, 3, None),
            (4, 2, 2, 2, None),
            (2, 2, 2, 1, None),
            (2, 2, 2, 2, Some(3)),
        ] {
            let d = DragonflyPlus {
                leaves: d.0,
                spines: d.1,
                hosts_per_leaf: d.2,
                global_per_spine: d.3,
                groups: d.4,
            };
            assert!(d.rounds().expect("ok").is_none(), "{d:?}");
        }
    }

    /// The closed-form dragonfly schedule is valid and liquid where it applies (`H = P`,
    /// `A ≥ 2P`, `G = A·H + 1`, `A·P` a prime power), and absent elsewhere.
    #[test]
    fn the_closed_form_dragonfly_schedule_is_liquid() {
        for (a, p, h, g, liquid) in [
            (2, 1, 1, None, true),
            (3, 1, 1, None, true),
            (4, 1, 1, None, true),
            (5, 1, 1, None, true),
            (7, 1, 1, None, true),
            (4, 2, 2, None, true),
            (4, 2, 2, Some(9), true),
            (8, 2, 2, None, true),
            (6, 1, 1, None, false),
            (4, 2, 2, Some(5), false),
            (3, 2, 2, None, false),
            (4, 2, 1, None, false),
            (6, 3, 3, None, false),
            (5, 2, 2, None, false),
        ] {
            let d = df(a, p, h, g);
            let frames = d.schedule().expect("builds");
            assert_eq!(frames.is_some(), liquid, "{d:?}");
            let Some(frames) = frames else { continue };
            let traffic = d.traffic().expect("builds");
            let n = d.build().expect("ok").hosts();
            assert_eq!(frames.len(), n - 1, "{d:?}");
            assert!(frames.iter().all(|f| f.len() == n), "{d:?}");
            let schedule = fabric::pairs_schedule(n, &frames);
            let report = liquid_model::validate(&traffic, &schedule).expect("valid");
            assert_eq!(report.length, traffic.duration(), "{d:?}");
            assert_eq!(
                report.length as u64,
                d.loads().expect("ok").duration(),
                "{d:?}"
            );
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        for d in [
            df(0, 1, 1, None),
            df(4, 0, 2, None),
            df(4, 2, 0, None),
            df(4, 2, 2, Some(1)),
            df(4, 2, 2, Some(10)),
            df(4, 2, 2, Some(4)),
            df(1, 1, 4, Some(3)),
            df(16, 8, 8, None),
        ] {
            assert!(d.build().is_err(), "{d:?}");
        }
    }
}
