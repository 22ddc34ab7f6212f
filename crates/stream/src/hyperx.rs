//! HyperX (`hyperx:S1xS2x...,T`, see `liquid_topology::hyperx`) without its network form:
//! link numbers and names, dimension-order routes and per-link loads in closed form,
//! exactly as the topology crate numbers, routes and counts them (its order: per host the
//! link up and the link down, then per router, dimension by dimension, its links to the
//! other routers of its row in increasing coordinate; every link carries traffic); and
//! the closed-form liquid schedule of `liquid_topology::hyperx::HyperXRounds` frame by
//! frame when every dimension is a prime power above `T` or has its smallest prime factor
//! above `T` (`hyperx:16x16x16,4`, 16,384 hosts, 268 million transfers). Memory
//! O(hosts + links).

use liquid_topology::hyperx::{HyperX, HyperXLoads, HyperXRounds};

use crate::closed::{host_links, sized, ClosedForm, ClosedSchedule};
use crate::tree::LoadClass;
use crate::{StreamError, Structured};

/// A HyperX's all-to-all, streamed (module docs).
#[derive(Debug)]
pub struct HyperXStream {
    dims: Vec<usize>,
    /// `strides[d]`: the router-number step of coordinate `d` (first dimension fastest).
    strides: Vec<usize>,
    /// `offsets[d]`: where a router's links of dimension `d` start among its links.
    offsets: Vec<usize>,
    /// Links per router, `Σ (Si − 1)`.
    per_router: usize,
    /// Hosts per router `T`, routers `R`, hosts `N`.
    t: usize,
    r: usize,
    n: usize,
    loads: HyperXLoads,
    schedule: ClosedSchedule<HyperXRounds>,
}

impl HyperXStream {
    /// The HyperX of a spec (`S1xS2x...,T`, as `hyperx:` takes it).
    pub fn new(rest: &str) -> Result<HyperXStream, StreamError> {
        let full = format!("hyperx:{rest}");
        let bad = |why: String| StreamError::Spec {
            spec: full.clone(),
            why,
        };
        let spec = HyperX::parse(&full, rest).map_err(|e| bad(e.to_string()))?;
        let loads = spec.loads().map_err(|e| bad(e.to_string()))?;
        let dims = spec.dims.clone();
        let t = spec.hosts_per_router;
        let r = dims.iter().product::<usize>();
        let per_router: usize = dims.iter().map(|&s| s - 1).sum();
        let n = sized(
            (r as u64).checked_mul(t as u64),
            |n| {
                (r as u64)
                    .checked_mul(per_router as u64)?
                    .checked_add(2 * n)
            },
            bad,
        )?;
        if n < 2 {
            return Err(bad(format!(
                "{n} host: the all-to-all is empty; give at least 2"
            )));
        }
        let (mut strides, mut offsets) = (Vec::new(), Vec::new());
        let (mut stride, mut offset) = (1, 0);
        for &s in &dims {
            strides.push(stride);
            offsets.push(offset);
            stride *= s;
            offset += s - 1;
        }
        let rounds = spec.rounds().map_err(|e| bad(e.to_string()))?;
        Ok(HyperXStream {
            dims,
            strides,
            offsets,
            per_router,
            t,
            r,
            n,
            loads,
            schedule: ClosedSchedule::new(
                rounds,
                "the closed-form schedule needs every dimension to be a prime power above \
                 the hosts per router T, or to have its smallest prime factor above T",
            ),
        })
    }

    /// Coordinate `d` of router `x`.
    fn coord(&self, x: usize, d: usize) -> usize {
        (x / self.strides[d]) % self.dims[d]
    }

    /// The link from router `x` to the router of its row in dimension `d` at coordinate
    /// `y` (not `x`'s own).
    fn link(&self, x: usize, d: usize, y: usize) -> u32 {
        let c = self.coord(x, d);
        (2 * self.n + x * self.per_router + self.offsets[d] + y - usize::from(y > c)) as u32
    }

    /// The dimension of a router's `i`-th link, and its index within that dimension.
    fn dimension(&self, i: usize) -> (usize, usize) {
        let d = self.offsets.partition_point(|&o| o <= i) - 1;
        (d, i - self.offsets[d])
    }

    fn router_name(&self, x: usize) -> String {
        let c: Vec<String> = (0..self.dims.len())
            .map(|d| self.coord(x, d).to_string())
            .collect();
        format!("r{}", c.join("_"))
    }

    fn dims_text(&self) -> String {
        let d: Vec<String> = self.dims.iter().map(usize::to_string).collect();
        d.join("x")
    }
}

impl ClosedForm for HyperXStream {
    fn family(&self) -> &'static str {
        "HyperX"
    }

    /// Routers, `ΠSi`.
    fn switches(&self) -> u64 {
        self.r as u64
    }

    fn load_classes(&self) -> Vec<LoadClass> {
        let mut v = vec![host_links(self.n)];
        for (d, &s) in self.dims.iter().enumerate() {
            v.push(LoadClass {
                links: format!("router links of dimension {} ({s} routers a row)", d + 1),
                count: (self.r * (s - 1)) as u64,
                load: self.loads.dims[d],
                formula: format!("T^2 R / S{}", d + 1),
            });
        }
        v
    }

    fn not_streamed(&self) -> Option<String> {
        self.schedule.not_streamed()
    }
}

impl Structured for HyperXStream {
    fn name(&self) -> String {
        format!("hyperx-{}-{}", self.dims_text(), self.t)
    }
    fn spec(&self) -> String {
        format!("hyperx:{},{}", self.dims_text(), self.t)
    }
    fn hosts(&self) -> usize {
        self.n
    }
    fn links(&self) -> usize {
        2 * self.n + self.r * self.per_router
    }
    fn host_name(&self, h: usize) -> String {
        format!("{}.h{}", self.router_name(h / self.t), h % self.t)
    }
    fn link_name(&self, l: usize) -> String {
        if l < 2 * self.n {
            let h = l / 2;
            let (host, router) = (self.host_name(h), self.router_name(h / self.t));
            return if l % 2 == 0 {
                format!("{host}>{router}")
            } else {
                format!("{router}>{host}")
            };
        }
        let l = l - 2 * self.n;
        let (x, (d, i)) = (l / self.per_router, self.dimension(l % self.per_router));
        let c = self.coord(x, d);
        let y = i + usize::from(i >= c);
        let to = x + y * self.strides[d] - c * self.strides[d];
        format!("{}>{}", self.router_name(x), self.router_name(to))
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        // As `liquid_topology::hyperx`'s dimension-order routing.
        let (mut here, there) = (s / self.t, d / self.t);
        out.clear();
        out.push(2 * s as u32);
        for dim in 0..self.dims.len() {
            let (a, b) = (self.coord(here, dim), self.coord(there, dim));
            if a != b {
                out.push(self.link(here, dim, b));
                here = here + b * self.strides[dim] - a * self.strides[dim];
            }
        }
        out.push(2 * d as u32 + 1);
    }
    fn load(&self, l: usize) -> u64 {
        if l < 2 * self.n {
            return self.loads.host;
        }
        let (d, _) = self.dimension((l - 2 * self.n) % self.per_router);
        self.loads.dims[d]
    }
    fn duration(&self) -> u64 {
        self.loads.duration()
    }
    fn frames(&self) -> usize {
        self.schedule.frames()
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        self.schedule.frame(f, pairs)
    }
    fn method(&self) -> String {
        format!(
            "closed-form HyperX rounds: {} frames (tau, k) != (0, 0), tau < T, k a router, \
             sending host u of router x to host u+tau mod T of router x + lambda_u k \
             coordinate-wise (GF(q) along the prime-power dimensions, lambda_u = a^u for \
             a primitive a; the integers mod S along the others, lambda_u = u+1)",
            self.n - 1
        )
    }
    fn streamable(&self) -> Result<(), String> {
        self.schedule.streamable()
    }
}
