//! Rail-optimised GPU fat-trees (`rail:S,G[,K][,pxn]`, see `liquid_topology::rail`)
//! without their network form: link numbers and names, routes (NVLink within a server,
//! the rail across servers, the spine `t mod K` across rails, or with PXN first over
//! NVLink to the destination's rail) and per-link loads in closed form, exactly as the
//! topology crate numbers, routes and counts them; and the closed-form liquid schedule of
//! `liquid_topology::rail::RailRounds` frame by frame when it applies (with PXN, or
//! without it when `K = S`: `rail:2048,8,pxn`, 16,384 GPUs, 268 million transfers).
//! Memory O(hosts + links).
//!
//! The in-memory model declares only the links some route uses, in the network's order:
//! per GPU its link to its NIC and back (when there are two servers or more) and to its
//! NVSwitch and back (two GPUs a server or more); then per GPU its NIC's cable to the
//! rail switch and back; then per rail and spine the link up and the link down (without
//! PXN, when some route crosses rails between servers); then with PXN per GPU the
//! NVSwitch's link to that GPU's NIC. Whether a class is used depends on `S`, `G` and PXN
//! only, so the numbering stays closed-form.

use liquid_topology::rail::{Rail, RailRounds};

use crate::closed::{runs, sized, ClosedForm, ClosedSchedule};
use crate::tree::LoadClass;
use crate::{StreamError, Structured};

/// A rail-optimised fat-tree's all-to-all, streamed (module docs).
#[derive(Debug)]
pub struct RailStream {
    spec: Rail,
    /// Servers `S`, GPUs a server `G`, spines `K`.
    s: usize,
    g: usize,
    k: usize,
    /// GPUs, `S·G`.
    n: usize,
    /// Whether the GPU-NIC links and the NIC-rail cables carry traffic (`S ≥ 2`).
    nic: bool,
    /// Whether the GPU-NVSwitch links carry traffic (`G ≥ 2`).
    nv: bool,
    /// Whether the rail-spine links carry traffic (no PXN, `S ≥ 2`, `G ≥ 2`).
    spine: bool,
    /// Whether the NVSwitch-NIC links (PXN) carry traffic (PXN, `S ≥ 2`, `G ≥ 2`).
    pxn: bool,
    /// Links per GPU.
    per_gpu: usize,
    /// The first NIC-rail cable, rail-spine link and NVSwitch-NIC link.
    cables: usize,
    spines: usize,
    pxn_links: usize,
    links: usize,
    duration: u64,
    schedule: ClosedSchedule<RailRounds>,
}

impl RailStream {
    /// The machine of a spec (`S,G[,K][,pxn]`, as `rail:` takes it).
    pub fn new(rest: &str) -> Result<RailStream, StreamError> {
        let full = format!("rail:{rest}");
        let bad = |why: String| StreamError::Spec {
            spec: full.clone(),
            why,
        };
        let spec = Rail::parse(&full, rest).map_err(|e| bad(e.to_string()))?;
        let duration = spec.loads().map_err(|e| bad(e.to_string()))?.duration();
        let (s, g) = (spec.servers, spec.gpus);
        let k = spec.spines.unwrap_or(s);
        // At most 7 links per GPU and 2·G·K ≤ 2N rail-spine links.
        let n = sized((s as u64).checked_mul(g as u64), |n| n.checked_mul(9), bad)?;
        if n < 2 {
            return Err(bad(format!(
                "{n} GPU: the all-to-all is empty; give at least 2"
            )));
        }
        let (nic, nv) = (s >= 2, g >= 2);
        let (spine, pxn) = (!spec.pxn && nic && nv, spec.pxn && nic && nv);
        let per_gpu = 2 * usize::from(nic) + 2 * usize::from(nv);
        let cables = n * per_gpu;
        let spines = cables + if nic { 2 * n } else { 0 };
        let pxn_links = spines + if spine { 2 * g * k } else { 0 };
        let links = pxn_links + if pxn { n } else { 0 };
        let rounds = spec.rounds().map_err(|e| bad(e.to_string()))?;
        Ok(RailStream {
            spec,
            s,
            g,
            k,
            n,
            nic,
            nv,
            spine,
            pxn,
            per_gpu,
            cables,
            spines,
            pxn_links,
            links,
            duration,
            schedule: ClosedSchedule::new(
                rounds,
                "the closed-form schedule needs PXN (rail:S,G[,K],pxn) or, without it, as \
                 many spines as servers (K = S)",
            ),
        })
    }

    /// GPU `h`'s link to its NIC (`+ 1`: back).
    fn gpu_nic(&self, h: usize) -> u32 {
        (h * self.per_gpu) as u32
    }

    /// GPU `h`'s link to its NVSwitch (`+ 1`: back).
    fn gpu_nv(&self, h: usize) -> u32 {
        (h * self.per_gpu + 2 * usize::from(self.nic)) as u32
    }

    /// The cable from GPU `h`'s NIC to its rail switch (`+ 1`: back).
    fn cable(&self, h: usize) -> u32 {
        (self.cables + 2 * h) as u32
    }

    /// The link from rail `j` up to spine `k` (`+ 1`: down).
    fn rail_spine(&self, j: usize, k: usize) -> u32 {
        (self.spines + 2 * (j * self.k + k)) as u32
    }

    /// Server `x`'s NVSwitch to its NIC `j` (PXN).
    fn nv_nic(&self, x: usize, j: usize) -> u32 {
        (self.pxn_links + x * self.g + j) as u32
    }

    /// Servers `t < S` with `t mod K = k`.
    fn servers_on(&self, k: usize) -> u64 {
        (self.s - k).div_ceil(self.k) as u64
    }

    fn gpu(&self, h: usize) -> String {
        format!("s{}.g{}", h / self.g, h % self.g)
    }

    fn nic_name(&self, h: usize) -> String {
        format!("s{}.nic{}", h / self.g, h % self.g)
    }
}

impl ClosedForm for RailStream {
    fn family(&self) -> &'static str {
        "rail"
    }

    /// Switches, `G + K + S·(G + 1)`: rails, spines, and per server its NVSwitch and its
    /// `G` NICs.
    fn switches(&self) -> u64 {
        (self.g + self.k + self.s * (self.g + 1)) as u64
    }

    fn load_classes(&self) -> Vec<LoadClass> {
        let (n, s, g) = (self.n as u64, self.s as u64, self.g as u64);
        let class = |links: &str, count: u64, load: u64, formula: &str| LoadClass {
            links: links.into(),
            count,
            load,
            formula: formula.into(),
        };
        let mut v = Vec::new();
        if self.nic {
            v.push(if self.spec.pxn {
                class("GPU to its NIC", n, s - 1, "S - 1 (its own rail; PXN)")
            } else {
                class("GPU to its NIC", n, g * (s - 1), "G (S - 1)")
            });
            v.push(class("NIC to its GPU", n, g * (s - 1), "G (S - 1)"));
        }
        if self.nv {
            v.push(if self.spec.pxn {
                class(
                    "GPU to its NVSwitch (NVLink)",
                    n,
                    (g - 1) * s,
                    "(G - 1) S (its server, and PXN)",
                )
            } else {
                class("GPU to its NVSwitch (NVLink)", n, g - 1, "G - 1")
            });
            v.push(class("NVSwitch to GPU (NVLink)", n, g - 1, "G - 1"));
        }
        if self.nic {
            v.push(class(
                "NIC to rail switch and back",
                2 * n,
                g * (s - 1),
                "G (S - 1)",
            ));
        }
        if self.spine {
            let mut loads: Vec<u64> = (0..self.k)
                .map(|k| self.servers_on(k) * (s - 1) * (g - 1))
                .collect();
            loads.sort_unstable();
            for (load, count) in runs(&loads) {
                v.push(class(
                    "rail switch to spine and back",
                    2 * g * count,
                    load,
                    "(the servers t with t mod K = k) (S - 1) (G - 1)",
                ));
            }
        }
        if self.pxn {
            v.push(class(
                "NVSwitch to NIC (PXN)",
                n,
                (g - 1) * (s - 1),
                "(G - 1) (S - 1)",
            ));
        }
        v
    }

    fn not_streamed(&self) -> Option<String> {
        self.schedule.not_streamed()
    }
}

impl Structured for RailStream {
    fn name(&self) -> String {
        format!(
            "rail-{}-{}-{}{}",
            self.s,
            self.g,
            self.k,
            if self.spec.pxn { "-pxn" } else { "" }
        )
    }
    fn spec(&self) -> String {
        let mut v = format!("rail:{},{}", self.s, self.g);
        if let Some(k) = self.spec.spines {
            v.push_str(&format!(",{k}"));
        }
        if self.spec.pxn {
            v.push_str(",pxn");
        }
        v
    }
    fn hosts(&self) -> usize {
        self.n
    }
    fn links(&self) -> usize {
        self.links
    }
    fn host_name(&self, h: usize) -> String {
        self.gpu(h)
    }
    fn link_name(&self, l: usize) -> String {
        let g = self.g;
        if l < self.cables {
            let (h, x) = (l / self.per_gpu, l % self.per_gpu);
            let nv = format!("s{}.nv", h / g);
            let (other, back) = match (x, self.nic) {
                (0 | 1, true) => (self.nic_name(h), x == 1),
                _ => (nv, x % 2 == 1),
            };
            return if back {
                format!("{other}>{}", self.gpu(h))
            } else {
                format!("{}>{other}", self.gpu(h))
            };
        }
        if l < self.spines {
            let h = (l - self.cables) / 2;
            let rail = format!("rail{}", h % g);
            return if l % 2 == 1 {
                format!("{rail}>{}", self.nic_name(h))
            } else {
                format!("{}>{rail}", self.nic_name(h))
            };
        }
        if l < self.pxn_links {
            let x = (l - self.spines) / 2;
            let (j, k) = (x / self.k, x % self.k);
            return if (l - self.spines) % 2 == 1 {
                format!("spine{k}>rail{j}")
            } else {
                format!("rail{j}>spine{k}")
            };
        }
        let h = l - self.pxn_links;
        format!("s{}.nv>{}", h / g, self.nic_name(h))
    }
    fn route(&self, a: usize, b: usize, out: &mut Vec<u32>) {
        // As `liquid_topology::rail`'s routing.
        let g = self.g;
        let (s, i, t, j) = (a / g, a % g, b / g, b % g);
        out.clear();
        if s == t {
            out.extend([self.gpu_nv(a), self.gpu_nv(b) + 1]);
        } else if i == j {
            out.extend([
                self.gpu_nic(a),
                self.cable(a),
                self.cable(b) + 1,
                self.gpu_nic(b) + 1,
            ]);
        } else if self.spec.pxn {
            out.extend([
                self.gpu_nv(a),
                self.nv_nic(s, j),
                self.cable(s * g + j),
                self.cable(b) + 1,
                self.gpu_nic(b) + 1,
            ]);
        } else {
            let k = t % self.k;
            out.extend([
                self.gpu_nic(a),
                self.cable(a),
                self.rail_spine(i, k),
                self.rail_spine(j, k) + 1,
                self.cable(b) + 1,
                self.gpu_nic(b) + 1,
            ]);
        }
    }
    fn load(&self, l: usize) -> u64 {
        let (s, g) = (self.s as u64, self.g as u64);
        if l < self.cables {
            let x = l % self.per_gpu;
            return match (x, self.nic, self.spec.pxn) {
                (0, true, true) => s - 1,
                (0 | 1, true, _) => g * (s - 1),
                (_, _, true) if x % 2 == 0 => (g - 1) * s,
                _ => g - 1,
            };
        }
        if l < self.spines {
            return g * (s - 1);
        }
        if l < self.pxn_links {
            let k = (l - self.spines) / 2 % self.k;
            return self.servers_on(k) * (s - 1) * (g - 1);
        }
        (g - 1) * (s - 1)
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
        let (s, g) = (self.s, self.g);
        let shared = if self.spec.pxn { s - 1 } else { g * (s - 1) }.min(g - 1);
        let own = g - 1 - shared;
        format!(
            "closed-form rail rounds: {} frames (ds, dj), 0 < ds < S, sending GPU j of \
             server x to GPU j+dj of server x+ds (every NIC cable{} used once), with the {} \
             NVLink shifts j -> j+d within every server laid into the first {shared} frames \
             that leave NVLink free{}",
            g * (s - 1),
            if self.spec.pxn {
                " and NVSwitch-NIC link"
            } else {
                " and rail-spine link"
            },
            g - 1,
            if own > 0 {
                format!(", then {own} NVLink frames of their own")
            } else {
                String::new()
            }
        )
    }
    fn streamable(&self) -> Result<(), String> {
        self.schedule.streamable()
    }
}
