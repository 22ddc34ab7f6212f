//! Dragonflies (`dragonfly:A,P,H[,G]`) and Dragonfly+ (`dragonfly-plus:L,S,P,H[,G]`,
//! [`DragonflyPlusStream`], numbered likewise), see `liquid_topology::dragonfly`) without their
//! network form: node and link numbers and names, minimal routes and per-link loads in
//! closed form, exactly as the topology crate numbers, routes and counts them (its
//! `Fabric` order: host links up and down per host, then the local links (group, router,
//! other router), then the global links (group, port)); and the closed-form liquid
//! schedule of `liquid_topology::dragonfly::Rounds` frame by frame (groups as the lines
//! of the affine plane over GF(A·P): every host sends and receives once per frame, `N − 1`
//! frames), when it applies (`H = P`, `A ≥ 2P`, `G = A·H + 1`, `A·P` a prime power:
//! `dragonfly:16,8,8`, 16,512 hosts, 272 million transfers). Memory O(hosts + links); the
//! validator checks every frame, the construction claims nothing it does not check.

use liquid_topology::dragonfly::{
    Dragonfly, DragonflyPlus, LinkLoads, PalmTree, PlusLinkLoads, PlusRounds, Rounds,
};

use crate::closed::{host_links, runs, sized, ClosedForm, ClosedSchedule};
use crate::tree::LoadClass;
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
    schedule: ClosedSchedule<Rounds>,
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
        let g = palm.groups as u64;
        // Links: 2N host links, A(A − 1)G local, G·A·H global.
        let local = a as u64 * (a as u64 - 1) * g;
        let n = sized(
            (a as u64 * p as u64).checked_mul(g),
            |n| (2 * n + local).checked_add(g * palm.ports as u64),
            bad,
        )?;
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
            schedule: ClosedSchedule::new(
                rounds,
                "the closed-form schedule needs H = P, A >= 2P, the default number of \
                 groups G = A*H + 1 and a prime power of hosts per group A*P",
            ),
        })
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
}

impl ClosedForm for DragonflyStream {
    fn family(&self) -> &'static str {
        "dragonfly"
    }

    /// Routers, `A·G`.
    fn switches(&self) -> u64 {
        (self.a * self.palm.groups) as u64
    }

    fn load_classes(&self) -> Vec<LoadClass> {
        let g = self.palm.groups as u64;
        let mut v = vec![host_links(self.n)];
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

    fn not_streamed(&self) -> Option<String> {
        self.schedule.not_streamed()
    }
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
        self.schedule.frames()
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        self.schedule.frame(f, pairs)
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
        self.schedule.streamable()
    }
}

/// A Dragonfly+'s all-to-all, streamed (`dragonfly-plus:L,S,P,H[,G]`, see
/// `liquid_topology::dragonfly`): node and link numbers and names, routes (leaf, spine,
/// global, spine, leaf) and per-link loads in closed form, exactly as the topology crate
/// numbers, routes and counts them (host links up and down per host, then per group, leaf
/// and spine the link up and the link down, then the global links (group, port)); and the
/// closed-form liquid schedule of `liquid_topology::dragonfly::PlusRounds` frame by frame
/// when it applies (`L = S`, `P = H ≤ L`, `G = S·H + 1`: `dragonfly-plus:16,16,8,8`,
/// 16,512 hosts). Memory O(hosts + links). A machine with a link no route uses (too few
/// hosts per group for its spines, like `dragonfly-plus:2,4,1,2,5`) is refused: the
/// in-memory model leaves such links out, and the numbering would differ.
#[derive(Debug)]
pub struct DragonflyPlusStream {
    spec: DragonflyPlus,
    l: usize,
    s: usize,
    p: usize,
    h: usize,
    palm: PalmTree,
    /// Hosts, `L·P·G`.
    n: usize,
    loads: PlusLinkLoads,
    duration: u64,
    schedule: ClosedSchedule<PlusRounds>,
}

impl DragonflyPlusStream {
    /// The Dragonfly+ of a spec (`L,S,P,H[,G]`, as `dragonfly-plus:` takes it).
    pub fn new(rest: &str) -> Result<DragonflyPlusStream, StreamError> {
        let full = format!("dragonfly-plus:{rest}");
        let bad = |why: String| StreamError::Spec {
            spec: full.clone(),
            why,
        };
        let spec = DragonflyPlus::parse(&full, rest).map_err(|e| bad(e.to_string()))?;
        let palm = spec.arrangement().map_err(|e| bad(e.to_string()))?;
        let (l, s, p, h) = (
            spec.leaves,
            spec.spines,
            spec.hosts_per_leaf,
            spec.global_per_spine,
        );
        let g = palm.groups as u64;
        // Links as u32 numbers: 2N host links, 2·L·S·G leaf-spine links, S·H·G global.
        let n = sized(
            (l as u64)
                .checked_mul(p as u64)
                .and_then(|x| x.checked_mul(g)),
            |n| {
                (2 * n)
                    .checked_add(2 * l as u64 * s as u64 * g)
                    .and_then(|x| x.checked_add(palm.ports as u64 * g))
            },
            bad,
        )?;
        let loads = spec.link_loads().map_err(|e| bad(e.to_string()))?;
        // The in-memory model declares only the links some route uses; a machine with an
        // idle link would be numbered otherwise here, so it is not streamed.
        let idle = loads.up.iter().chain(&loads.down).chain(&loads.global);
        if idle.clone().any(|&x| x == 0) {
            return Err(bad(format!(
                "{} of its leaf-spine and global links carry no transfer of the all-to-all \
                 (too few hosts per group for its spines and global links): such a machine \
                 has no streamed form; analyse it in memory, without --stream",
                idle.filter(|&&x| x == 0).count() * palm.groups
            )));
        }
        let duration = loads
            .up
            .iter()
            .chain(&loads.down)
            .chain(&loads.global)
            .copied()
            .fold(loads.host, u64::max);
        let rounds = spec.rounds().map_err(|e| bad(e.to_string()))?;
        Ok(DragonflyPlusStream {
            spec,
            l,
            s,
            p,
            h,
            palm,
            n,
            loads,
            duration,
            schedule: ClosedSchedule::new(
                rounds,
                "the closed-form schedule needs as many spines as leaves (L = S), as many \
                 global links per spine as hosts per leaf, at most L (P = H <= L), and the \
                 default number of groups G = S*H + 1",
            ),
        })
    }

    fn fabric_links(&self) -> usize {
        2 * self.l * self.s * self.palm.groups
    }

    /// The link from leaf `x` up to spine `y` of group `g` (`+ 1`: the link down).
    fn up(&self, g: usize, x: usize, y: usize) -> u32 {
        (2 * self.n + 2 * ((g * self.l + x) * self.s + y)) as u32
    }

    /// The global link leaving port `j` of group `g`.
    fn global(&self, g: usize, j: usize) -> u32 {
        (2 * self.n + self.fabric_links() + g * self.palm.ports + j) as u32
    }
}

impl ClosedForm for DragonflyPlusStream {
    fn family(&self) -> &'static str {
        "Dragonfly+"
    }

    /// Switches, `(L + S)·G`.
    fn switches(&self) -> u64 {
        ((self.l + self.s) * self.palm.groups) as u64
    }

    fn load_classes(&self) -> Vec<LoadClass> {
        let g = self.palm.groups as u64;
        let mut v = vec![host_links(self.n)];
        for (links, loads, formula) in [
            (
                "leaf-to-spine links (up, within a group)",
                &self.loads.up,
                "P x the group's hosts on other leaves routed through the spine (i mod S) \
                 + L P x the leaf's sources leaving through the spine's global links",
            ),
            (
                "spine-to-leaf links (down, within a group)",
                &self.loads.down,
                "(L P - P) x the leaf's hosts routed through the spine (i mod S) + P x the \
                 sources arriving through the spine's global links",
            ),
            (
                "global links (group to group)",
                &self.loads.global,
                "L P x (the hosts of a group whose index mod K is the link's rank), K \
                 links per pair of groups",
            ),
        ] {
            let mut sorted = loads.clone();
            sorted.sort_unstable();
            for (load, count) in runs(&sorted) {
                v.push(LoadClass {
                    links: links.into(),
                    count: count * g,
                    load,
                    formula: formula.into(),
                });
            }
        }
        v
    }

    fn not_streamed(&self) -> Option<String> {
        self.schedule.not_streamed()
    }
}

impl Structured for DragonflyPlusStream {
    fn name(&self) -> String {
        format!(
            "dragonfly-plus-{}-{}-{}-{}-{}",
            self.l, self.s, self.p, self.h, self.palm.groups
        )
    }
    fn spec(&self) -> String {
        let (l, s, p, h) = (self.l, self.s, self.p, self.h);
        match self.spec.groups {
            Some(g) => format!("dragonfly-plus:{l},{s},{p},{h},{g}"),
            None => format!("dragonfly-plus:{l},{s},{p},{h}"),
        }
    }
    fn hosts(&self) -> usize {
        self.n
    }
    fn links(&self) -> usize {
        2 * self.n + self.fabric_links() + self.palm.groups * self.palm.ports
    }
    fn host_name(&self, i: usize) -> String {
        let (l, p) = (self.l, self.p);
        format!("g{}.l{}.h{}", i / (l * p), (i / p) % l, i % p)
    }
    fn link_name(&self, x: usize) -> String {
        let (l, s, p, h, n) = (self.l, self.s, self.p, self.h, self.n);
        if x < 2 * n {
            let i = x / 2;
            let (host, leaf) = (
                self.host_name(i),
                format!("g{}.l{}", i / (l * p), (i / p) % l),
            );
            return if x % 2 == 0 {
                format!("{host}>{leaf}")
            } else {
                format!("{leaf}>{host}")
            };
        }
        let x = x - 2 * n;
        if x < self.fabric_links() {
            let (gly, down) = (x / 2, x % 2 == 1);
            let (g, leaf, y) = (gly / (l * s), (gly / s) % l, gly % s);
            return if down {
                format!("g{g}.s{y}>g{g}.l{leaf}")
            } else {
                format!("g{g}.l{leaf}>g{g}.s{y}")
            };
        }
        let x = x - self.fabric_links();
        let (g, j) = (x / self.palm.ports, x % self.palm.ports);
        let (g2, j2) = self.palm.target(g, j);
        format!("g{g}.s{}>g{g2}.s{}", j / h, j2 / h)
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        // As `liquid_topology::dragonfly`'s Dragonfly+ routing: leaf, spine, global,
        // spine, leaf; within a group up to spine i_d mod S; on one leaf, the leaf only.
        let (l, p, h) = (self.l, self.p, self.h);
        let m = l * p;
        let (gs, ls, gd, ld) = (s / m, (s / p) % l, d / m, (d / p) % l);
        out.clear();
        out.push(2 * s as u32);
        if gs != gd {
            let t = (s % m) % self.palm.parallel();
            let j = self.palm.port_to(gs, gd, t);
            let (_, j2) = self.palm.target(gs, j);
            out.push(self.up(gs, ls, j / h));
            out.push(self.global(gs, j));
            out.push(self.up(gd, ld, j2 / h) + 1);
        } else if ls != ld {
            let y = (d % m) % self.s;
            out.push(self.up(gs, ls, y));
            out.push(self.up(gd, ld, y) + 1);
        }
        out.push(2 * d as u32 + 1);
    }
    fn load(&self, x: usize) -> u64 {
        let (l, s, n) = (self.l, self.s, self.n);
        if x < 2 * n {
            return self.loads.host;
        }
        let x = x - 2 * n;
        if x < self.fabric_links() {
            let gly = x / 2;
            let (leaf, y) = ((gly / s) % l, gly % s);
            return if x % 2 == 1 {
                self.loads.down(leaf, y)
            } else {
                self.loads.up(leaf, y)
            };
        }
        let x = x - self.fabric_links();
        self.loads.global[x % self.palm.ports]
    }
    fn duration(&self) -> u64 {
        self.duration
    }
    fn frames(&self) -> usize {
        self.schedule.frames()
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        self.schedule.frame(f, pairs)
    }
    fn method(&self) -> String {
        let m = self.l * self.p;
        format!(
            "closed-form Dragonfly+ rounds: {} inter-group frames (a, b, c, e), the same in \
             every group (host (l,k) leaves through port k+b of spine l+k+a, port k' of \
             spine s' delivers to host k'+e of leaf s'+k'+c), then {} frames within the \
             groups (host (l,k) to host k+v of leaf l+u)",
            m * m,
            m - 1
        )
    }
    fn streamable(&self) -> Result<(), String> {
        self.schedule.streamable()
    }
}
