//! Rail-optimised GPU fat-trees (NVIDIA DGX SuperPOD reference architecture; most AI
//! clusters): `rail:S,G[,K][,pxn]`.
//!
//! `S` servers of `G` GPUs each; GPU `j` of every server has its own NIC, cabled to the
//! leaf ("rail") switch `j`; every rail switch is cabled to each of `K` spine switches
//! (default `K = S`: as many up-links as down-links, non-blocking); inside a server the
//! GPUs are joined by an NVSwitch (NVLink). Hosts: `S·G` GPUs `s{s}.g{j}`; switches:
//! `G` rails `rail{j}`, `K` spines `spine{k}`, and per server its NVSwitch `s{s}.nv` and
//! its `G` NICs `s{s}.nic{j}` (a GPU reaches the network only through its NIC, which PXN
//! routes share): `G + K + S·(G + 1)` in all.
//!
//! **Routing** (static, deterministic):
//! - within a server: GPU → NVSwitch → GPU (NVLink);
//! - the same rail (GPU `j` of two servers): GPU → NIC → rail `j` → NIC → GPU;
//! - across rails, by default: GPU `i` → its NIC → rail `i` → spine `t mod K` → rail `j`
//!   → NIC → GPU `j` of server `t` (the spine chosen by the destination server, the
//!   d-mod-k rule of fat-trees);
//! - across rails with `pxn` (NCCL's PXN, "PCI × NVLink", NCCL 2.12): first over NVLink to
//!   GPU `j` of the source server, then out of that GPU's NIC on rail `j`: GPU → NVSwitch →
//!   NIC `j` → rail `j` → NIC → GPU. The hop NVSwitch → NIC `j` stands for the NVLink
//!   into GPU `j` and its PCIe path to its NIC; the model charges it as one link of its
//!   own (it does not share GPU `j`'s own NVLink and PCIe links).
//!
//! **A liquid schedule** ([`Rail::schedule`]) with PXN, or without it when `K = S`: the
//! `G·(S − 1)` frames `(Δs, Δj)`, `0 < Δs < S`, in which GPU `j` of server `x` sends to
//! GPU `j + Δj mod G` of server `x + Δs mod S` (every NIC, rail-spine link and, under
//! PXN, NVSwitch-NIC link used once: the sender is fixed by the link and the frame), and
//! the `G − 1` NVLink shifts `j → j + Δ` within each server laid into frames that do not
//! use NVLink (any frame without PXN; the `S − 1` same-rail frames with it, further
//! NVLink frames of their own when `G > S`). Length `max(G·(S − 1), (G − 1)·S)` with PXN,
//! `G·(S − 1)` without: Λ in both cases.
//!
//! **Loads of the all-to-all** ([`Rail::loads`]): every NIC cable carries `G·(S − 1)`
//! transfers each way (all the traffic between a GPU and the other servers, or with PXN
//! all the traffic of the server to rail `j`); NVLink `G − 1` (with PXN: `(G − 1)·S` out of
//! each GPU); a rail-spine link `⌈S/K⌉·(S − 1)·(G − 1)` (none with PXN).

use crate::fabric::{self, check_hosts, Fabric, FrameRounds, PairFrames};
use crate::{bad, Generated, TopologyError};
use liquid_model::Traffic;

/// A rail-optimised fat-tree (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rail {
    /// Servers, `S ≥ 1`.
    pub servers: usize,
    /// GPUs (and rails) per server, `G ≥ 1`.
    pub gpus: usize,
    /// Spine switches, `1 ≤ K ≤ S` (`None`: `S`).
    pub spines: Option<usize>,
    /// Cross-rail traffic first over NVLink to the GPU on the destination's rail (PXN).
    pub pxn: bool,
}

/// Loads of the all-to-all by link class, from the closed forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RailLoads {
    /// The most loaded link between a GPU, its NIC and its rail switch.
    pub nic: u64,
    /// The most loaded NVLink (GPU to NVSwitch and back, NVSwitch to NIC with PXN).
    pub nvlink: u64,
    /// The most loaded rail-spine link.
    pub spine: u64,
}

impl RailLoads {
    /// The largest load, `Λ`.
    pub fn duration(&self) -> u64 {
        self.nic.max(self.nvlink).max(self.spine)
    }
}

impl Rail {
    /// Reads `S,G[,K][,pxn]` (what follows `rail:`).
    pub fn parse(spec: &str, rest: &str) -> Result<Rail, TopologyError> {
        let mut parts: Vec<&str> = rest.split(',').collect();
        let pxn = parts.last().map(|p| p.trim()) == Some("pxn");
        if pxn {
            parts.pop();
        }
        if !(2..=3).contains(&parts.len()) {
            return Err(TopologyError::BadSpec {
                spec: spec.to_string(),
                why: "give servers, GPUs per server, optionally spines, and optionally pxn, \
                      like rail:32,8 or rail:32,8,16,pxn"
                    .into(),
            });
        }
        let v = fabric::numbers(spec, &parts, &["servers", "GPUs per server", "spines"])?;
        Ok(Rail {
            servers: v[0],
            gpus: v[1],
            spines: v.get(2).copied(),
            pxn,
        })
    }

    fn k(&self) -> Result<usize, TopologyError> {
        if self.servers == 0 {
            return Err(bad("servers", "must be at least 1"));
        }
        if self.gpus == 0 {
            return Err(bad("GPUs per server", "must be at least 1"));
        }
        let k = self.spines.unwrap_or(self.servers);
        if k == 0 || k > self.servers {
            return Err(bad(
                "spines",
                format!("{k} spines: give 1 to {} (the servers)", self.servers),
            ));
        }
        Ok(k)
    }

    /// The checked machine.
    pub fn build(&self) -> Result<RailNet, TopologyError> {
        let k = self.k()?;
        let n = check_hosts("hosts", self.servers.checked_mul(self.gpus))?;
        Ok(RailNet {
            s: self.servers,
            g: self.gpus,
            k,
            pxn: self.pxn,
            n,
        })
    }

    /// The closed-form loads of the all-to-all (no model built; any size).
    pub fn loads(&self) -> Result<RailLoads, TopologyError> {
        let k = self.k()? as u64;
        let (s, g) = (self.servers as u64, self.gpus as u64);
        Ok(if self.pxn {
            RailLoads {
                nic: g * (s - 1),
                nvlink: (g - 1) * s,
                spine: 0,
            }
        } else {
            RailLoads {
                nic: g * (s - 1),
                nvlink: g - 1,
                spine: s.div_ceil(k) * (s - 1) * (g - 1),
            }
        })
    }

    /// The closed-form liquid schedule of the all-to-all with PXN or a non-blocking spine
    /// (`K = S`), as timeframes of `(sender, receiver)` host numbers (GPU `j` of server
    /// `s` is `s·G + j`); `None` otherwise (see the module docs).
    pub fn schedule(&self) -> Result<Option<PairFrames>, TopologyError> {
        let net = self.build()?;
        if !self.pxn && net.k != net.s {
            return Ok(None);
        }
        let (s, g) = (net.s, net.g);
        let host = |srv: usize, j: usize| srv * g + j;
        let mut frames: Vec<Vec<(usize, usize)>> = Vec::new();
        // Frames (Δs, Δj): GPU j of server x sends to GPU j + Δj of server x + Δs; the
        // same-rail ones (Δj = 0) first, which leave NVLink free under PXN.
        for dj in 0..g {
            for ds in 1..s {
                frames.push(
                    (0..s)
                        .flat_map(|x| {
                            (0..g).map(move |j| (host(x, j), host((x + ds) % s, (j + dj) % g)))
                        })
                        .collect(),
                );
            }
        }
        // NVLink frames (GPU j to GPU j + Δ of its own server, Δ = 1..G-1) join the frames
        // that do not use NVLink: any frame without PXN, the same-rail frames with it.
        let free = if self.pxn { s - 1 } else { frames.len() };
        for d in 1..g {
            let pairs =
                (0..s).flat_map(|x| (0..g).map(move |j| (host(x, j), host(x, (j + d) % g))));
            if d - 1 < free {
                frames[d - 1].extend(pairs);
            } else {
                frames.push(pairs.collect());
            }
        }
        Ok(Some(frames))
    }

    /// The closed-form liquid schedule of [`Rail::schedule`] made one frame at a time, at
    /// any size (no model built; at most 2^32 hosts): what `liquid solve rail:... --stream`
    /// streams, frame for frame [`Rail::schedule`]. `None` without PXN when `K ≠ S`.
    pub fn rounds(&self) -> Result<Option<RailRounds>, TopologyError> {
        let k = self.k()?;
        let (s, g) = (self.servers, self.gpus);
        s.checked_mul(g)
            .filter(|&n| (2..=u32::MAX as usize).contains(&n))
            .ok_or_else(|| bad("hosts", "give 2 to 2^32 GPUs"))?;
        if !self.pxn && k != s {
            return Ok(None);
        }
        let cross = g * (s - 1);
        // The NVLink shifts laid into frames that do not use NVLink (any frame without
        // PXN, the same-rail ones with it); the rest get frames of their own.
        let free = if self.pxn { s - 1 } else { cross };
        Ok(Some(RailRounds {
            s,
            g,
            cross,
            shared: free.min(g - 1),
        }))
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

/// The closed-form liquid schedule of a rail-optimised fat-tree's all-to-all, frame by
/// frame ([`Rail::rounds`], module docs): frame `f < G·(S − 1)` is `(Δs, Δj) = (f mod
/// (S − 1) + 1, f / (S − 1))`, GPU `j` of server `x` to GPU `j + Δj` of server `x + Δs`,
/// joined in its first `G − 1` frames (without PXN; the first `S − 1` with it) by the
/// NVLink shift `j → j + f + 1` within every server; the NVLink shifts left over follow
/// in frames of their own.
#[derive(Debug, Clone, Copy)]
pub struct RailRounds {
    s: usize,
    g: usize,
    /// Frames across servers, `G·(S − 1)`.
    cross: usize,
    /// NVLink shifts laid into those frames (the first ones).
    shared: usize,
}

impl RailRounds {
    /// Every GPU to GPU `j + d` of its own server (NVLink), appended to `out`.
    fn shift(&self, d: usize, out: &mut Vec<(u32, u32)>) {
        let g = self.g;
        for x in 0..self.s {
            for j in 0..g {
                out.push(((x * g + j) as u32, (x * g + (j + d) % g) as u32));
            }
        }
    }
}

impl FrameRounds for RailRounds {
    /// `G·(S − 1) + max(0, G − 1 − shared)` frames: `Λ` (module docs).
    fn frames(&self) -> usize {
        self.cross + (self.g - 1 - self.shared)
    }

    fn frame(&self, f: usize, out: &mut Vec<(u32, u32)>) {
        let (s, g) = (self.s, self.g);
        out.clear();
        if f < self.cross {
            let (dj, ds) = (f / (s - 1), f % (s - 1) + 1);
            for x in 0..s {
                let y = (x + ds) % s;
                for j in 0..g {
                    out.push(((x * g + j) as u32, (y * g + (j + dj) % g) as u32));
                }
            }
            if f < self.shared {
                self.shift(f + 1, out);
            }
        } else {
            self.shift(self.shared + 1 + (f - self.cross), out);
        }
    }
}

/// A checked rail-optimised fat-tree with its node numbering.
#[derive(Debug, Clone, Copy)]
pub struct RailNet {
    s: usize,
    g: usize,
    k: usize,
    pxn: bool,
    n: usize,
}

impl RailNet {
    /// Number of hosts (GPUs), `S·G`.
    pub fn hosts(&self) -> usize {
        self.n
    }

    /// Number of switches, `G + K + S·(G + 1)`.
    pub fn switches(&self) -> usize {
        self.g + self.k + self.s * (self.g + 1)
    }

    fn rail(&self, j: usize) -> u32 {
        (self.n + j) as u32
    }

    fn spine(&self, k: usize) -> u32 {
        (self.n + self.g + k) as u32
    }

    fn nv(&self, s: usize) -> u32 {
        (self.n + self.g + self.k + s * (self.g + 1)) as u32
    }

    fn nic(&self, s: usize, j: usize) -> u32 {
        self.nv(s) + 1 + j as u32
    }
}

impl Fabric for RailNet {
    fn name(&self) -> String {
        format!(
            "rail-{}-{}-{}{}",
            self.s,
            self.g,
            self.k,
            if self.pxn { "-pxn" } else { "" }
        )
    }

    fn description(&self) -> String {
        format!(
            "All-to-all over a rail-optimised fat-tree of {} servers of {} GPUs, {} rail \
             switches and {} spines ({} GPUs, {} switches counting NVSwitches and NICs), \
             NVLink within a server, {}",
            self.s,
            self.g,
            self.g,
            self.k,
            self.n,
            self.switches(),
            if self.pxn {
                "across rails first over NVLink to the destination's rail (PXN)"
            } else {
                "across rails through spine (destination server mod spines)"
            }
        )
    }

    fn host_count(&self) -> usize {
        self.n
    }

    fn node_names(&self) -> Vec<String> {
        let g = self.g;
        let mut v: Vec<String> = (0..self.n)
            .map(|i| format!("s{}.g{}", i / g, i % g))
            .collect();
        v.extend((0..g).map(|j| format!("rail{j}")));
        v.extend((0..self.k).map(|k| format!("spine{k}")));
        for s in 0..self.s {
            v.push(format!("s{s}.nv"));
            v.extend((0..g).map(|j| format!("s{s}.nic{j}")));
        }
        v
    }

    fn links(&self) -> Vec<(u32, u32)> {
        let g = self.g;
        let mut v = Vec::new();
        for i in 0..self.n {
            let (s, j) = (i / g, i % g);
            let h = i as u32;
            v.extend([
                (h, self.nic(s, j)),
                (self.nic(s, j), h),
                (h, self.nv(s)),
                (self.nv(s), h),
            ]);
        }
        for s in 0..self.s {
            for j in 0..g {
                v.push((self.nic(s, j), self.rail(j)));
                v.push((self.rail(j), self.nic(s, j)));
            }
        }
        for j in 0..g {
            for k in 0..self.k {
                v.push((self.rail(j), self.spine(k)));
                v.push((self.spine(k), self.rail(j)));
            }
        }
        if self.pxn {
            for s in 0..self.s {
                for j in 0..g {
                    v.push((self.nv(s), self.nic(s, j)));
                }
            }
        }
        v
    }

    fn route(&self, a: usize, b: usize, out: &mut Vec<u32>) {
        let g = self.g;
        let (s, i, t, j) = (a / g, a % g, b / g, b % g);
        out.clear();
        out.push(a as u32);
        if s == t {
            out.push(self.nv(s));
        } else if i == j {
            out.extend([self.nic(s, i), self.rail(i), self.nic(t, j)]);
        } else if self.pxn {
            out.extend([self.nv(s), self.nic(s, j), self.rail(j), self.nic(t, j)]);
        } else {
            out.extend([
                self.nic(s, i),
                self.rail(i),
                self.spine(t % self.k),
                self.rail(j),
                self.nic(t, j),
            ]);
        }
        out.push(b as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::counted_loads;

    #[test]
    fn sizes_and_closed_form_loads_match_the_counted_ones() {
        let mut count = 0;
        for s in 1..=6 {
            for g in 1..=5 {
                if s * g < 2 {
                    continue;
                }
                for k in 1..=s {
                    for pxn in [false, true] {
                        let r = Rail {
                            servers: s,
                            gpus: g,
                            spines: Some(k),
                            pxn,
                        };
                        let net = r.build().expect("builds");
                        assert_eq!(net.hosts(), s * g);
                        assert_eq!(net.switches(), g + k + s * (g + 1));
                        let loads = counted_loads(&net);
                        let want = r.loads().expect("closed form");
                        let n = net.hosts();
                        // Per host: GPU>NIC, NIC>GPU, GPU>NV, NV>GPU; then NIC-rail cables;
                        // then rail-spine; then (PXN) NV>NIC.
                        let nv = (0..n)
                            .flat_map(|h| [loads[4 * h + 2], loads[4 * h + 3]])
                            .chain(loads[4 * n + 2 * n + 2 * g * k..].iter().copied())
                            .max()
                            .unwrap_or(0);
                        let nic = (0..n)
                            .flat_map(|h| [loads[4 * h], loads[4 * h + 1]])
                            .chain(loads[4 * n..6 * n].iter().copied())
                            .max()
                            .unwrap_or(0);
                        let spine = loads[6 * n..6 * n + 2 * g * k].iter().copied().max();
                        assert_eq!(nic, want.nic, "{r:?}");
                        assert_eq!(nv, want.nvlink, "{r:?}");
                        assert_eq!(spine.unwrap_or(0), want.spine, "{r:?}");
                        assert_eq!(
                            loads.iter().copied().max().unwrap_or(0),
                            want.duration(),
                            "{r:?}"
                        );
                        count += 1;
                    }
                }
            }
        }
        assert!(count > 100);
        let big = Rail {
            servers: 32,
            gpus: 8,
            spines: None,
            pxn: false,
        };
        assert_eq!(big.loads().expect("ok").duration(), 248);
    }

    #[test]
    fn the_closed_form_schedule_is_liquid() {
        for s in 1..=5 {
            for g in 1..=6 {
                if s * g < 2 {
                    continue;
                }
                for (k, pxn) in [(s, false), (s, true), (1, true), (1, false)] {
                    let r = Rail {
                        servers: s,
                        gpus: g,
                        spines: Some(k),
                        pxn,
                    };
                    let frames = r.schedule().expect("builds");
                    assert_eq!(frames.is_some(), pxn || k == s, "{r:?}");
                    let Some(frames) = frames else { continue };
                    let traffic = r.traffic().expect("builds");
                    let schedule = fabric::pairs_schedule(s * g, &frames);
                    let report = liquid_model::validate(&traffic, &schedule).expect("valid");
                    assert_eq!(report.length, traffic.duration(), "{r:?}");
                }
            }
        }
    }

    #[test]
    fn the_rounds_are_the_schedule_frame_for_frame() {
        for s in 1..=5 {
            for g in 1..=6 {
                if s * g < 2 {
                    continue;
                }
                for k in 1..=s {
                    for pxn in [false, true] {
                        let r = Rail {
                            servers: s,
                            gpus: g,
                            spines: Some(k),
                            pxn,
                        };
                        let want = r.schedule().expect("builds");
                        let rounds = r.rounds().expect("builds");
                        assert_eq!(want.is_some(), rounds.is_some(), "{r:?}");
                        let (Some(want), Some(rounds)) = (want, rounds) else {
                            continue;
                        };
                        assert_eq!(rounds.pair_frames(), want, "{r:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn direct_traffic_is_the_expanded_traffic() {
        for pxn in [false, true] {
            let r = Rail {
                servers: 3,
                gpus: 2,
                spines: Some(2),
                pxn,
            };
            let want = r.generated().expect("ok").expand().expect("expands");
            assert_eq!(r.traffic().expect("ok").transfers(), want.transfers());
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        for (s, g, k) in [
            (0, 8, None),
            (4, 0, None),
            (4, 8, Some(0)),
            (4, 8, Some(5)),
            (1, 1, None),
            (64, 64, None),
        ] {
            let r = Rail {
                servers: s,
                gpus: g,
                spines: k,
                pxn: false,
            };
            assert!(r.build().is_err(), "{r:?}");
        }
    }
}
