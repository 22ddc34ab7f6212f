//! HyperX (Ahn, Binkert, Davis, McLaren, Schreiber, "HyperX: Topology, Routing, and
//! Packaging of Efficient Large-Scale Networks", SC 2009): `hyperx:S1xS2x...,T`.
//!
//! Routers on an `L`-dimensional lattice `S1 × S2 × … × SL` (each `Si ≥ 2`); in every
//! dimension, the routers of a row (differing in that coordinate only) are fully
//! connected, one link each way between any two (trunking `K = 1`); `T` hosts per router.
//! Hosts: `T·ΠSi`; switches: `ΠSi`. Router `(c1, …, cL)` is `r{c1}_{c2}…`, its hosts
//! `r{c1}_{c2}….h{t}`; routers are numbered with the first coordinate varying fastest.
//!
//! **Routing: dimension-order** (Ahn et al.'s DOR): correct the first coordinate, then the
//! second, and so on, one hop per differing coordinate (rows are complete graphs, so every
//! minimal route is of this shape; DOR fixes the order).
//!
//! **A liquid schedule** ([`HyperX::schedule`]) when every `Si` is a prime power `q > T`
//! or has its smallest prime factor above `T` (then `Λ = N − 1`): give each dimension's
//! coordinates the addition of GF(q) (digit-wise in base `p`; a row is a complete graph,
//! so any group structure on it will do) or of the integers mod `Si`, and take `T`
//! multipliers `λ_u` whose pairwise differences are invertible (`α^u` for a primitive
//! `α` of GF(q); `u + 1` mod `Si`). The `N − 1` timeframes `(τ, k) ≠ (0, 0)`, `τ < T`, `k`
//! a router, send host `u` of router `x` to host `u + τ mod T` of router `x + λ_u·k`
//! (coordinate-wise). Every host sends and receives once per frame; a link of dimension
//! `i` is crossed by at most one sender of each terminal index `u` (DOR fixes the sender
//! from the link and the displacement), and two indices `u ≠ v` cross the same link only
//! if `λ_u·ki = λ_v·ki ≠ 0`, impossible as `λ_u − λ_v` is invertible. Every pair is
//! covered once: for each `u`, `(τ, k) ↦ (u + τ, λ_u·k)` is a bijection.
//! (`hyperx:16x16,4`, `hyperx:7x7x7,3`, `hyperx:13x13,6`.)
//!
//! **Loads of the all-to-all** ([`HyperX::loads`]): host links `N − 1`; a link of
//! dimension `i` carries `T²·ΠSj / Si` transfers (sources agree with its tail in
//! dimensions `≥ i`, destinations with its head in dimensions `≤ i`), so
//! `Λ = max(N − 1, T²·R / min Si)` with `R = ΠSi`.

use crate::fabric::{self, check_hosts, Fabric, FrameRounds, PairFrames};
use crate::field::Field;
use crate::{bad, Generated, TopologyError};
use liquid_model::Traffic;

/// The arithmetic of one dimension's coordinates for [`HyperX::schedule`]: the field
/// GF(p^k) when the size is a prime power `p^k` ([`Field`]: coordinates as base-`p` digit
/// strings, added digit-wise), else the integers mod the size; and `T` multipliers `λ_u`
/// whose pairwise differences are units.
#[derive(Debug, Clone)]
struct Row {
    size: usize,
    /// The field for a prime-power size.
    field: Option<Field>,
    /// `times[u][c] = λ_u · c`.
    times: Vec<Vec<usize>>,
}

impl Row {
    /// `None` when `t` multipliers with unit differences do not exist this way (`t` not
    /// below `p^k` for a prime power, not below the smallest prime factor otherwise).
    fn new(size: usize, t: usize) -> Option<Row> {
        if let Some(field) = Field::new(size) {
            if t >= size {
                return None;
            }
            // λ_u = α^u for a primitive α: λ_u − λ_v ≠ 0 for u ≠ v < q − 1.
            let times = (0..t)
                .map(|u| (0..size).map(|c| field.mul(field.power(u), c)).collect())
                .collect();
            return Some(Row {
                size,
                field: Some(field),
                times,
            });
        }
        let p = (2..=size).find(|q| size % q == 0).unwrap_or(size);
        if t >= p {
            return None;
        }
        let times = (0..t)
            .map(|u| (0..size).map(|c| (u + 1) * c % size).collect())
            .collect();
        Some(Row {
            size,
            field: None,
            times,
        })
    }

    fn times(&self, u: usize, c: usize) -> usize {
        self.times[u][c]
    }

    fn add(&self, a: usize, b: usize) -> usize {
        match &self.field {
            Some(f) => f.add(a, b),
            None => (a + b) % self.size,
        }
    }
}

/// A HyperX (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HyperX {
    /// Routers along each dimension, each `≥ 2`.
    pub dims: Vec<usize>,
    /// Hosts per router, `T ≥ 1`.
    pub hosts_per_router: usize,
}

/// Loads of the all-to-all by link class, from the closed forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HyperXLoads {
    /// Every host link: `N − 1`.
    pub host: u64,
    /// Every link of each dimension: `T²·R / Si`.
    pub dims: Vec<u64>,
}

impl HyperXLoads {
    /// The largest load, `Λ`.
    pub fn duration(&self) -> u64 {
        self.dims.iter().copied().fold(self.host, u64::max)
    }
}

impl HyperX {
    /// Reads `S1xS2x...,T` (what follows `hyperx:`).
    pub fn parse(spec: &str, rest: &str) -> Result<HyperX, TopologyError> {
        let parts: Vec<&str> = rest.split(',').collect();
        let [dims, t] = parts[..] else {
            return Err(TopologyError::BadSpec {
                spec: spec.to_string(),
                why: "give the routers along each dimension and the hosts per router, like \
                      hyperx:8x8,4"
                    .into(),
            });
        };
        Ok(HyperX {
            dims: crate::network_spec::parse_dims(spec, dims)?,
            hosts_per_router: crate::network_spec::number(spec, "hosts per router", t)?,
        })
    }

    fn check(&self) -> Result<usize, TopologyError> {
        if self.dims.is_empty() || self.dims.iter().any(|&d| d < 2) {
            return Err(bad(
                "dimensions",
                "every dimension needs at least 2 routers",
            ));
        }
        if self.hosts_per_router == 0 {
            return Err(bad("hosts per router", "must be at least 1"));
        }
        self.dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| bad("dimensions", "too many routers"))
    }

    /// The checked machine.
    pub fn build(&self) -> Result<HyperXNet, TopologyError> {
        let r = self.check()?;
        let n = check_hosts("hosts", r.checked_mul(self.hosts_per_router))?;
        Ok(HyperXNet {
            dims: self.dims.clone(),
            t: self.hosts_per_router,
            r,
            n,
        })
    }

    /// The closed-form loads of the all-to-all (no model built; any size).
    pub fn loads(&self) -> Result<HyperXLoads, TopologyError> {
        let r = self.check()? as u64;
        let t = self.hosts_per_router as u64;
        Ok(HyperXLoads {
            host: t * r - 1,
            dims: self.dims.iter().map(|&s| t * t * r / s as u64).collect(),
        })
    }

    /// The closed-form liquid schedule of the all-to-all when every `Si` is a prime power
    /// above `T`, or has a smallest prime factor above `T` (see the module docs), as
    /// timeframes of `(sender, receiver)` host numbers (host `t` of router `x` is `x·T + t`); `None` otherwise.
    pub fn schedule(&self) -> Result<Option<PairFrames>, TopologyError> {
        let net = self.build()?;
        let t = self.hosts_per_router;
        let Some(rows) = self
            .dims
            .iter()
            .map(|&s| Row::new(s, t))
            .collect::<Option<Vec<Row>>>()
        else {
            return Ok(None);
        };
        let mut frames = Vec::with_capacity(net.n - 1);
        for tau in 0..t {
            for k in 0..net.r {
                if tau == 0 && k == 0 {
                    continue;
                }
                let kc = net.coords(k);
                let mut frame = Vec::with_capacity(net.n);
                for x in 0..net.r {
                    let xc = net.coords(x);
                    for u in 0..t {
                        // (x, u) -> (x + λ_u·k, u + τ), coordinate-wise.
                        let mut y = 0;
                        let mut stride = 1;
                        for (d, row) in rows.iter().enumerate() {
                            y += row.add(xc[d], row.times(u, kc[d])) * stride;
                            stride *= row.size;
                        }
                        frame.push((x * t + u, y * t + (u + tau) % t));
                    }
                }
                frames.push(frame);
            }
        }
        Ok(Some(frames))
    }

    /// The closed-form liquid schedule of [`HyperX::schedule`] made one frame at a time,
    /// at any size (no model built; at most 2^32 hosts): what `liquid solve hyperx:...
    /// --stream` streams, frame for frame [`HyperX::schedule`]. `None` when a dimension
    /// has no `T` multipliers with unit differences (module docs).
    pub fn rounds(&self) -> Result<Option<HyperXRounds>, TopologyError> {
        let r = self.check()?;
        let t = self.hosts_per_router;
        r.checked_mul(t)
            .filter(|&n| (2..=u32::MAX as usize).contains(&n))
            .ok_or_else(|| bad("hosts", "give 2 to 2^32 hosts"))?;
        let Some(rows) = self
            .dims
            .iter()
            .map(|&s| Row::new(s, t))
            .collect::<Option<Vec<Row>>>()
        else {
            return Ok(None);
        };
        Ok(Some(HyperXRounds { rows, r, t }))
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

/// The closed-form liquid schedule of a HyperX's all-to-all, frame by frame
/// ([`HyperX::rounds`], module docs): frame `f` is `(τ, k)`, `τ·R + k = f + 1`, host `u`
/// of router `x` to host `u + τ mod T` of router `x + λ_u·k`; `N − 1` frames.
#[derive(Debug, Clone)]
pub struct HyperXRounds {
    rows: Vec<Row>,
    /// Routers, `R`.
    r: usize,
    /// Hosts per router, `T`.
    t: usize,
}

impl FrameRounds for HyperXRounds {
    /// `N − 1 = T·R − 1` frames.
    fn frames(&self) -> usize {
        self.t * self.r - 1
    }

    fn frame(&self, f: usize, out: &mut Vec<(u32, u32)>) {
        let (r, t) = (self.r, self.t);
        out.clear();
        let (tau, k) = ((f + 1) / r, (f + 1) % r);
        // moved[d·T + u] = λ_u · k_d: how far host index u moves along dimension d.
        let mut moved = Vec::with_capacity(self.rows.len() * t);
        let mut rest = k;
        for row in &self.rows {
            let c = rest % row.size;
            rest /= row.size;
            moved.extend((0..t).map(|u| row.times(u, c)));
        }
        // x's coordinates, first dimension fastest.
        let mut x = vec![0; self.rows.len()];
        for router in 0..r {
            for u in 0..t {
                let (mut y, mut stride) = (0, 1);
                for (d, row) in self.rows.iter().enumerate() {
                    y += row.add(x[d], moved[d * t + u]) * stride;
                    stride *= row.size;
                }
                out.push(((router * t + u) as u32, (y * t + (u + tau) % t) as u32));
            }
            for (c, row) in x.iter_mut().zip(&self.rows) {
                *c += 1;
                if *c < row.size {
                    break;
                }
                *c = 0;
            }
        }
    }
}

/// A checked HyperX with its node numbering.
#[derive(Debug, Clone)]
pub struct HyperXNet {
    dims: Vec<usize>,
    t: usize,
    r: usize,
    n: usize,
}

impl HyperXNet {
    /// Number of hosts, `T·ΠSi`.
    pub fn hosts(&self) -> usize {
        self.n
    }

    /// Number of routers, `ΠSi`.
    pub fn switches(&self) -> usize {
        self.r
    }

    fn coords(&self, mut i: usize) -> Vec<usize> {
        self.dims
            .iter()
            .map(|&d| {
                let c = i % d;
                i /= d;
                c
            })
            .collect()
    }

    fn router_name(&self, i: usize) -> String {
        let c: Vec<String> = self.coords(i).iter().map(usize::to_string).collect();
        format!("r{}", c.join("_"))
    }
}

impl Fabric for HyperXNet {
    fn name(&self) -> String {
        let d: Vec<String> = self.dims.iter().map(usize::to_string).collect();
        format!("hyperx-{}-{}", d.join("x"), self.t)
    }

    fn description(&self) -> String {
        let d: Vec<String> = self.dims.iter().map(usize::to_string).collect();
        format!(
            "All-to-all over a {} HyperX with {} hosts per router ({} hosts, {} routers), \
             dimension-order routing (Ahn et al. 2009)",
            d.join("x"),
            self.t,
            self.n,
            self.r
        )
    }

    fn host_count(&self) -> usize {
        self.n
    }

    fn node_names(&self) -> Vec<String> {
        let routers: Vec<String> = (0..self.r).map(|i| self.router_name(i)).collect();
        let mut v: Vec<String> = (0..self.n)
            .map(|i| format!("{}.h{}", routers[i / self.t], i % self.t))
            .collect();
        v.extend(routers);
        v
    }

    fn links(&self) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        let n = self.n as u32;
        for i in 0..self.n {
            let r = n + (i / self.t) as u32;
            v.push((i as u32, r));
            v.push((r, i as u32));
        }
        for i in 0..self.r {
            let c = self.coords(i);
            let mut stride = 1;
            for (dim, &d) in self.dims.iter().enumerate() {
                for x in (0..d).filter(|&x| x != c[dim]) {
                    let j = i + x * stride - c[dim] * stride;
                    v.push((n + i as u32, n + j as u32));
                }
                stride *= d;
            }
        }
        v
    }

    /// Each router's ports: its hosts, then dimension by dimension the other routers of
    /// its row in that dimension, so that OpenSM's dor, which takes the lowest port on a
    /// shortest path, routes in dimension order as this generator does.
    fn ports(&self, links: &[(u32, u32)]) -> Vec<u32> {
        crate::fabric::out_link_ordinals(links)
    }

    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        let n = self.n as u32;
        let (mut here, there) = (s / self.t, d / self.t);
        out.clear();
        out.push(s as u32);
        out.push(n + here as u32);
        let mut stride = 1;
        for &size in &self.dims {
            let (a, b) = ((here / stride) % size, (there / stride) % size);
            if a != b {
                here = here + b * stride - a * stride;
                out.push(n + here as u32);
            }
            stride *= size;
        }
        out.push(d as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::counted_loads;

    #[test]
    fn sizes_and_closed_form_loads_match_the_counted_ones() {
        for dims in [
            vec![2],
            vec![5],
            vec![2, 2],
            vec![3, 4],
            vec![4, 3],
            vec![2, 3, 4],
            vec![3, 3, 3],
            vec![2, 2, 2, 2],
        ] {
            for t in 1..=3 {
                let x = HyperX {
                    dims: dims.clone(),
                    hosts_per_router: t,
                };
                let net = x.build().expect("builds");
                let r: usize = dims.iter().product();
                assert_eq!(net.switches(), r);
                assert_eq!(net.hosts(), r * t);
                let loads = counted_loads(&net);
                let want = x.loads().expect("closed form");
                let n = net.hosts();
                assert!(loads[..2 * n].iter().all(|&l| l == want.host));
                // Router links, router by router, dimension by dimension.
                let mut at = 2 * n;
                for _ in 0..r {
                    for (i, &d) in dims.iter().enumerate() {
                        for _ in 0..d - 1 {
                            assert_eq!(loads[at], want.dims[i], "{x:?}");
                            at += 1;
                        }
                    }
                }
                assert_eq!(at, loads.len());
                assert_eq!(
                    loads.iter().copied().max().unwrap_or(0),
                    want.duration(),
                    "{x:?}"
                );
            }
        }
    }

    #[test]
    fn the_closed_form_schedule_is_liquid() {
        for (dims, t, liquid) in [
            (vec![3], 2, true),
            (vec![5, 3], 2, true),
            (vec![5, 7], 5, false),
            (vec![7, 5], 4, true),
            (vec![3, 3, 3], 2, true),
            (vec![4, 4], 1, true),
            (vec![4, 4], 2, true),
            (vec![4, 4], 3, true),
            (vec![4, 4], 4, false),
            (vec![8, 9], 5, true),
            (vec![16], 7, true),
            (vec![6, 2], 1, true),
            (vec![6, 3], 2, false),
            (vec![12], 1, true),
            (vec![2, 2, 2, 2], 1, true),
        ] {
            let x = HyperX {
                dims: dims.clone(),
                hosts_per_router: t,
            };
            let frames = x.schedule().expect("builds");
            assert_eq!(frames.is_some(), liquid, "{x:?}");
            let Some(frames) = frames else { continue };
            let traffic = x.traffic().expect("builds");
            let n = traffic.len();
            let schedule = fabric::pairs_schedule(x.build().expect("ok").hosts(), &frames);
            let report = liquid_model::validate(&traffic, &schedule).expect("valid");
            assert_eq!(report.length, traffic.duration(), "{x:?}");
            assert_eq!(frames.iter().map(Vec::len).sum::<usize>(), n);
        }
    }

    #[test]
    fn the_rounds_are_the_schedule_frame_for_frame() {
        for (dims, t) in [
            (vec![3], 2),
            (vec![5, 3], 2),
            (vec![5, 7], 5),
            (vec![7, 5], 4),
            (vec![3, 3, 3], 2),
            (vec![4, 4], 3),
            (vec![4, 4], 4),
            (vec![8, 9], 5),
            (vec![9, 2, 4], 1),
            (vec![6, 2], 1),
            (vec![12], 1),
            (vec![2, 2, 2, 2], 1),
        ] {
            let x = HyperX {
                dims,
                hosts_per_router: t,
            };
            let want = x.schedule().expect("builds");
            let rounds = x.rounds().expect("builds");
            assert_eq!(want.is_some(), rounds.is_some(), "{x:?}");
            let (Some(want), Some(rounds)) = (want, rounds) else {
                continue;
            };
            assert_eq!(rounds.pair_frames(), want, "{x:?}");
        }
    }

    #[test]
    fn routers_are_cabled_hosts_first_then_dimension_by_dimension() {
        let x = HyperX {
            dims: vec![3, 4, 2],
            hosts_per_router: 2,
        };
        let g = x.generated().expect("ok");
        assert_eq!(g.ports.len(), g.network.links.len());
        let coords = |id: &str| -> Option<Vec<usize>> {
            let r = id.strip_prefix('r')?;
            r.split('_').map(|c| c.parse().ok()).collect()
        };
        // Per router: (port, dimension of the link, or None for a host).
        let mut by_router: std::collections::BTreeMap<&str, Vec<(u32, Option<usize>)>> =
            Default::default();
        for (l, &p) in g.network.links.iter().zip(&g.ports) {
            let Some(a) = coords(&l.from) else {
                assert_eq!(p, 1, "a host's one port");
                continue;
            };
            let dim = coords(&l.to).map(|b| (0..a.len()).find(|&d| a[d] != b[d]).expect("differ"));
            by_router.entry(&l.from).or_default().push((p, dim));
        }
        assert_eq!(by_router.len(), 24);
        for (router, mut ports) in by_router {
            ports.sort();
            let want: Vec<u32> = (1..=ports.len() as u32).collect();
            assert_eq!(
                ports.iter().map(|p| p.0).collect::<Vec<_>>(),
                want,
                "{router}"
            );
            let order: Vec<Option<usize>> = ports.iter().map(|p| p.1).collect();
            let mut sorted = order.clone();
            sorted.sort_by_key(|d| d.map_or(0, |d| d + 1));
            assert_eq!(order, sorted, "{router}: hosts, then dimension 0, 1, 2");
        }
    }

    #[test]
    fn direct_traffic_is_the_expanded_traffic() {
        let x = HyperX {
            dims: vec![3, 2],
            hosts_per_router: 2,
        };
        let want = x.generated().expect("ok").expand().expect("expands");
        assert_eq!(x.traffic().expect("ok").transfers(), want.transfers());
    }

    #[test]
    fn bad_parameters_are_errors() {
        for (dims, t) in [
            (vec![], 1),
            (vec![1, 4], 1),
            (vec![4, 4], 0),
            (vec![64, 64], 1),
        ] {
            let x = HyperX {
                dims,
                hosts_per_router: t,
            };
            assert!(x.build().is_err(), "{x:?}");
        }
    }
}
