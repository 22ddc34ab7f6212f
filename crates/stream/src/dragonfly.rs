//! Dragonflies (`dragonfly:A,P,H[,G]`, see `liquid_topology::dragonfly`) without their
//! network form: node and link numbers and names, minimal routes and per-link loads in
//! closed form, exactly as the topology crate numbers, routes and counts them (its
//! `Fabric` order: host links up and down per host, then the local links (group, router,
//! other router), then the global links (group, port)); and the closed-form liquid
//! schedule of `liquid_topology::dragonfly::Rounds` frame by frame (groups as the lines
//! of the affine plane over GF(A·P): every host sends and receives once per frame, `N − 1`
//! frames), when it applies (`H = P`, `A ≥ 2P`, `G = A·H + 1`, `A·P` a prime power:
//! `dragonfly:16,8,8`, 16,512 hosts, 272 million transfers). Memory O(hosts + links); the
//! validator checks every frame, the construction claims nothing it does not check.

use liquid_topology::dragonfly::{Dragonfly, LinkLoads, PalmTree, Rounds};

use crate::tree::{LoadClass, MAX_TREE_HOSTS};
use crate::{StreamError, Structured};

/// A dragonfly's all-to-all, streamed (module docs).
#[derive(Debug)]
pub struct DragonflyStream {
    spec: Dragonfly,
    a: usize,
    p: usize,
    h: usize,
    palm: PalmTree,
    /// Hosts, `A·P·G`.
    n: usize,
    loads: LinkLoads,
    duration: u64,
    rounds: Option<Rounds>,
}

impl DragonflyStream {
    /// The dragonfly of a spec (`A,P,H[,G]`, as `dragonfly:` takes it).
    pub fn new(rest: &str) -> Result<DragonflyStream, StreamError> {
        let full = format!("dragonfly:{rest}");
        let bad = |why: String| StreamError::Spec {
            spec: full.clone(),
            why,
        };
        let spec = Dragonfly::parse(&full, rest).map_err(|e| bad(e.to_string()))?;
        let palm = spec.arrangement().map_err(|e| bad(e.to_string()))?;
        let (a, p, h) = (spec.routers, spec.hosts_per_router, spec.global_per_router);
        let n = (a as u64 * p as u64)
            .checked_mul(palm.groups as u64)
            .filter(|&x| x <= MAX_TREE_HOSTS)
            .ok_or_else(|| bad(format!("more than {MAX_TREE_HOSTS} hosts")))?
            as usize;
        let loads = spec.link_loads().map_err(|e| bad(e.to_string()))?;
        let duration = spec.loads().map_err(|e| bad(e.to_string()))?.duration();
        let rounds = spec.rounds().map_err(|e| bad(e.to_string()))?;
        Ok(DragonflyStream {
            spec,
            a,
            p,
            h,
            palm,
            n,
            loads,
            duration,
            rounds,
        })
    }

    /// Number of routers, `A·G`.
    pub fn switches(&self) -> u64 {
        (self.a * self.palm.groups) as u64
    }

    /// Transfers, `N(N − 1)`.
    pub fn transfers(&self) -> u64 {
        self.n as u64 * (self.n as u64 - 1)
    }

    fn local_links(&self) -> usize {
        self.a * (self.a - 1) * self.palm.groups
    }

    /// The local link from router `r` to `r2 ≠ r` of group `g`.
    fn local(&self, g: usize, r: usize, r2: usize) -> u32 {
        let a = self.a;
        (2 * self.n + (g * a + r) * (a - 1) + r2 - usize::from(r2 > r)) as u32
    }

    /// The global link leaving port `j` of group `g`.
    fn global(&self, g: usize, j: usize) -> u32 {
        (2 * self.n + self.local_links() + g * self.palm.ports + j) as u32
    }

    fn router_name(&self, g: usize, r: usize) -> String {
        format!("g{g}.r{r}")
    }

    /// The loads of the all-to-all by class of links, from the closed forms.
    pub fn load_classes(&self) -> Vec<LoadClass> {
        let g = self.palm.groups as u64;
        let mut v = vec![LoadClass {
            links: "host links (up and down)".into(),
            count: 2 * self.n as u64,
            load: self.loads.host,
            formula: "N - 1".into(),
        }];
        let mut local: Vec<u64> = (0..self.a)
            .flat_map(|r| (0..self.a).filter(move |&x| x != r).map(move |x| (r, x)))
            .map(|(r, x)| self.loads.local(r, x))
            .collect();
        local.sort_unstable();
        for (load, count) in runs(&local) {
            v.push(LoadClass {
                links: "local links (router to router within a group)".into(),
                count: count * g,
                load,
                formula: if self.palm.parallel() == 1 {
                    "P^2 (2 A H + 1)".into()
                } else {
                    "P^2 + the sources on the near router leaving through the far router's \
                     global links + the arrivals at the near router bound for the far one"
                        .into()
                },
            });
        }
        let mut global = self.loads.global.clone();
        global.sort_unstable();
        for (load, count) in runs(&global) {
            v.push(LoadClass {
                links: "global links (group to group)".into(),
                count: count * g,
                load,
                formula: if self.palm.parallel() == 1 {
                    "(A P)^2".into()
                } else {
                    "A P x (the hosts of a group whose index mod L is the link's rank)".into()
                },
            });
        }
        v
    }

    /// Why there is no streamed schedule, or `None`.
    pub fn not_streamed(&self) -> Option<String> {
        self.rounds.is_none().then(|| {
            "the closed-form schedule needs H = P, A >= 2P, the default number of groups \
             G = A*H + 1 and a prime power of hosts per group A*P"
                .to_string()
        })
    }
}

/// The runs of equal values of a sorted list, as (value, count).
fn runs(sorted: &[u64]) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = Vec::new();
    for &x in sorted {
        match v.last_mut() {
            Some((y, c)) if *y == x => *c += 1,
            _ => v.push((x, 1)),
        }
    }
    v
}

impl Structured for DragonflyStream {
    fn name(&self) -> String {
        format!(
            "dragonfly-{}-{}-{}-{}",
            self.a, self.p, self.h, self.palm.groups
        )
    }
    fn spec(&self) -> String {
        let s = &self.spec;
        match s.groups {
            Some(g) => format!("dragonfly:{},{},{},{g}", self.a, self.p, self.h),
            None => format!("dragonfly:{},{},{}", self.a, self.p, self.h),
        }
    }
    fn hosts(&self) -> usize {
        self.n
    }
    fn links(&self) -> usize {
        2 * self.n + self.local_links() + self.palm.groups * self.palm.ports
    }
    fn host_name(&self, i: usize) -> String {
        let (a, p) = (self.a, self.p);
        format!("g{}.r{}.h{}", i / (a * p), (i / p) % a, i % p)
    }
    fn link_name(&self, l: usize) -> String {
        let (a, p, h) = (self.a, self.p, self.h);
        let n = self.n;
        if l < 2 * n {
            let i = l / 2;
            let (host, router) = (
                self.host_name(i),
                self.router_name(i / (a * p), (i / p) % a),
            );
            return if l % 2 == 0 {
                format!("{host}>{router}")
            } else {
                format!("{router}>{host}")
            };
        }
        let l = l - 2 * n;
        if l < self.local_links() {
            let (gr, x) = (l / (a - 1), l % (a - 1));
            let (g, r) = (gr / a, gr % a);
            let r2 = if x < r { x } else { x + 1 };
            return format!("{}>{}", self.router_name(g, r), self.router_name(g, r2));
        }
        let l = l - self.local_links();
        let (g, j) = (l / self.palm.ports, l % self.palm.ports);
        let (g2, j2) = self.palm.target(g, j);
        format!(
            "{}>{}",
            self.router_name(g, j / h),
            self.router_name(g2, j2 / h)
        )
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        // As `liquid_topology::dragonfly`'s minimal routing: local, global, local.
        let (a, p, h) = (self.a, self.p, self.h);
        let (gs, rs, gd, rd) = (s / (a * p), (s / p) % a, d / (a * p), (d / p) % a);
        out.clear();
        out.push(2 * s as u32);
        let mut at = rs;
        if gs != gd {
            let t = (s % (a * p)) % self.palm.parallel();
            let j = self.palm.port_to(gs, gd, t);
            if j / h != rs {
                out.push(self.local(gs, rs, j / h));
            }
            out.push(self.global(gs, j));
            at = self.palm.target(gs, j).1 / h;
        }
        if at != rd {
            out.push(self.local(gd, at, rd));
        }
        out.push(2 * d as u32 + 1);
    }
    fn load(&self, l: usize) -> u64 {
        let (a, n) = (self.a, self.n);
        if l < 2 * n {
            return self.loads.host;
        }
        let l = l - 2 * n;
        if l < self.local_links() {
            let (gr, x) = (l / (a - 1), l % (a - 1));
            let r = gr % a;
            let r2 = if x < r { x } else { x + 1 };
            return self.loads.local(r, r2);
        }
        let l = l - self.local_links();
        self.loads.global[l % self.palm.ports]
    }
    fn duration(&self) -> u64 {
        self.duration
    }
    fn frames(&self) -> usize {
        self.rounds.as_ref().map_or(0, Rounds::frames)
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        match &self.rounds {
            Some(r) => r.frame(f, pairs),
            None => pairs.clear(),
        }
    }
    fn method(&self) -> String {
        let n = self.a * self.p;
        format!(
            "closed-form dragonfly rounds: {} inter-group frames, the points of the affine \
             plane over GF({n}) with each group a line (host (r,k) leaves through port \
             (r+k+x, k+b), port (ρ,κ) delivers to host (ρ+κ+x+P, κ+b), (x, b) the group's \
             value), then {} frames within the groups",
            n * n,
            n - 1
        )
    }
    fn streamable(&self) -> Result<(), String> {
        match self.not_streamed() {
            None => Ok(()),
            Some(why) => Err(format!("no streamed schedule: {why}")),
        }
    }
}
