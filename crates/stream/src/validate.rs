//! The streaming validator: the model crate's rules (`liquid_model::validate`) applied
//! frame by frame, in memory O(hosts + links), never O(transfers).
//!
//! For every frame, in order:
//! - every transfer names two hosts of the model and is a transfer of its traffic
//!   (an all-to-all: source ≠ destination), else [`Rejection::UnknownTransfer`];
//! - no two transfers of the frame share a link: each link is stamped with the frame
//!   and the transfer holding it, so the first transfer that reaches a stamped link names
//!   the frame, both transfers and the link ([`Rejection::Conflict`]); the same transfer
//!   twice in a frame is [`Rejection::Duplicated`] (it shares all its links with itself);
//! - the frame is not empty ([`Rejection::EmptyFrame`]).
//!
//! **Each transfer exactly once, without a set of all transfers.** Per source host `s`,
//! the validator keeps the number of transfers `s` sent and two fingerprints of the
//! multiset of their destinations: `Σ r^d mod p` for two points `r` drawn at random
//! (from the operating system's randomness) when the validator is made, `p = 2^61 − 1`.
//! At the end every source must have sent `N − 1` transfers and have the fingerprints
//! of the set `{d ≠ s}`. If the multiset of `s`'s destinations differs from that set,
//! the difference of the two fingerprints is a nonzero polynomial in `r` of degree below
//! `N` (its coefficients are differences of counts, far below `p`), which has fewer than
//! `N` roots: both fingerprints agree with probability below `(N / p)²`, about 2^−90 at
//! 65,536 hosts, for any schedule chosen before the points are drawn. So a wrong
//! schedule passes with probability below `(N/p)²`, and a right one always passes.
//! Memory: three words per host. (Exact detection in one pass needs about one bit per
//! transfer, 512 MiB at 65,536 hosts; streaming algorithms that decide multiset
//! equality exactly need memory linear in the stream.)
//!
//! **Naming what is wrong.** When a source's count or fingerprints are wrong, a second
//! pass over the frames ([`Locator`]) looks at that source alone, with one frame number
//! per destination (O(hosts)): it names the duplicated transfer and both of its frames,
//! or the missing transfer, exactly.
//!
//! **Λ.** The validator counts every link's load over the stream. When each transfer
//! occurred once, these are the traffic's loads: their maximum is Λ counted, which must
//! equal the closed form's Λ, and every link's count must equal its closed-form load
//! (otherwise the closed form is wrong, an internal error). The schedule is liquid when
//! it has Λ frames.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use serde::Serialize;

use crate::Structured;

/// The fingerprints' prime, `2^61 − 1`.
pub const PRIME: u64 = (1 << 61) - 1;

fn mul_mod(a: u64, b: u64) -> u64 {
    let x = u128::from(a) * u128::from(b);
    let lo = (x as u64) & PRIME;
    let hi = (x >> 61) as u64;
    // lo + hi < 2p + 1: two conditional subtractions reduce it.
    let s = lo + hi;
    let s = if s >= PRIME { s - PRIME } else { s };
    if s >= PRIME {
        s - PRIME
    } else {
        s
    }
}

fn add_mod(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= PRIME {
        s - PRIME
    } else {
        s
    }
}

/// A point drawn uniformly from `0..PRIME` with the operating system's randomness (the
/// keys of the standard library's `RandomState`).
fn random_point(salt: u64) -> u64 {
    loop {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(salt);
        let x = h.finish() & PRIME;
        if x < PRIME {
            return x;
        }
    }
}

/// Why a streamed schedule is not a valid schedule of the model. Frames are numbered
/// from 1, as people do (and as `liquid verify` numbers them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// A pair that is not a transfer of the traffic.
    #[error("timeframe {frame}: transfer {transfer} is not in the traffic ({why})")]
    UnknownTransfer {
        /// Timeframe.
        frame: u64,
        /// The pair, as `from->to` (host numbers when out of range).
        transfer: String,
        /// Why.
        why: String,
    },
    /// A transfer in two places.
    #[error("transfer {transfer:?} appears in timeframes {first} and {second}")]
    Duplicated {
        /// The transfer.
        transfer: String,
        /// The first timeframe holding it.
        first: u64,
        /// The second one (the same when it is twice in one frame).
        second: u64,
    },
    /// A transfer in no timeframe.
    #[error(
        "transfer {transfer:?} is in no timeframe: its first link {link:?} carries {counted} of its {load} transfers"
    )]
    Missing {
        /// The transfer.
        transfer: String,
        /// The first link of its route.
        link: String,
        /// The transfers the schedule put on that link.
        counted: u64,
        /// The link's load in the traffic.
        load: u64,
    },
    /// Two transfers of a timeframe share a link.
    #[error("timeframe {frame}: transfers {a:?} and {b:?} congest on link {link:?}")]
    Conflict {
        /// Timeframe.
        frame: u64,
        /// The transfer that took the link first.
        a: String,
        /// The transfer that found it taken.
        b: String,
        /// The shared link.
        link: String,
    },
    /// A timeframe without transfers.
    #[error("timeframe {frame} is empty")]
    EmptyFrame {
        /// Timeframe.
        frame: u64,
    },
}

/// What a streamed schedule is, once validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamReport {
    /// Timeframes.
    pub length: u64,
    /// Transfers seen.
    pub transfers: u64,
    /// Λ from the closed form.
    pub duration: u64,
    /// Λ counted: the largest number of transfers the schedule put on one link. `None`
    /// for a prefix (whose counts are not the traffic's loads).
    pub duration_counted: Option<u64>,
    /// Whether every link's count equals its closed-form load (`None` for a prefix).
    pub loads_match_closed_form: Option<bool>,
    /// Whether the schedule has Λ frames (`None` for a prefix).
    pub liquid: Option<bool>,
    /// How "each transfer exactly once" was checked.
    pub exactly_once: String,
}

/// The end of a pass that found a source whose transfers are not right: the second pass
/// ([`Locator`]) names what is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suspect {
    /// The source host.
    pub source: usize,
    /// The transfers it sent.
    pub sent: u64,
}

/// What the validator keeps per link.
#[derive(Debug, Clone, Copy, Default)]
struct LinkState {
    /// 1 + the frame that last used it.
    stamp: u32,
    /// The transfer (source, destination) that holds it in that frame.
    source: u32,
    destination: u32,
    /// Transfers counted on it.
    load: u32,
}

/// Validates a schedule frame by frame against a structured model.
#[derive(Debug)]
pub struct Validator<'m, M: Structured> {
    model: &'m M,
    /// Per link, in one place (one cache line holds four links).
    link: Vec<LinkState>,
    /// Per source: transfers sent.
    sent: Vec<u32>,
    /// Per source: the fingerprints of its destinations.
    print: Vec<[u64; 2]>,
    /// `power[i][d] = r_i^d mod p`.
    power: [Vec<u64>; 2],
    frames: u64,
    transfers: u64,
    route: Vec<u32>,
}

impl<'m, M: Structured> Validator<'m, M> {
    /// A validator for `model`'s traffic, with fresh random fingerprint points.
    pub fn new(model: &'m M) -> Self {
        let (n, links) = (model.hosts(), model.links());
        let powers = |r: u64| {
            let mut v = Vec::with_capacity(n);
            let mut x = 1u64;
            for _ in 0..n {
                v.push(x);
                x = mul_mod(x, r);
            }
            v
        };
        Validator {
            model,
            link: vec![LinkState::default(); links],
            sent: vec![0; n],
            print: vec![[0; 2]; n],
            power: [powers(random_point(1)), powers(random_point(2))],
            frames: 0,
            transfers: 0,
            route: Vec::with_capacity(64),
        }
    }

    /// Frames checked so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    fn pair_name(&self, s: u32, d: u32) -> String {
        let n = self.model.hosts() as u32;
        if s < n && d < n {
            format!(
                "{}->{}",
                self.model.host_name(s as usize),
                self.model.host_name(d as usize)
            )
        } else {
            format!("{s}->{d}")
        }
    }

    /// Checks the next frame, given as (source, destination) host numbers.
    pub fn frame(&mut self, pairs: impl Iterator<Item = (u32, u32)>) -> Result<(), Rejection> {
        let f = self.frames + 1;
        let mark = u32::try_from(f).expect("fewer than 2^32 frames");
        let n = self.model.hosts() as u32;
        let mut count = 0u64;
        let mut route = std::mem::take(&mut self.route);
        for (s, d) in pairs {
            count += 1;
            if s >= n || d >= n {
                return Err(Rejection::UnknownTransfer {
                    frame: f,
                    transfer: self.pair_name(s, d),
                    why: format!("the model has hosts 0 to {}", n - 1),
                });
            }
            if s == d {
                return Err(Rejection::UnknownTransfer {
                    frame: f,
                    transfer: self.pair_name(s, d),
                    why: "a host does not send to itself in this all-to-all".into(),
                });
            }
            self.model.route(s as usize, d as usize, &mut route);
            for &l in &route {
                let l = l as usize;
                let state = &mut self.link[l];
                if state.stamp == mark {
                    let (a, b) = (state.source, state.destination);
                    return Err(if (a, b) == (s, d) {
                        Rejection::Duplicated {
                            transfer: self.pair_name(s, d),
                            first: f,
                            second: f,
                        }
                    } else {
                        Rejection::Conflict {
                            frame: f,
                            a: self.pair_name(a, b),
                            b: self.pair_name(s, d),
                            link: self.model.link_name(l),
                        }
                    });
                }
                *state = LinkState {
                    stamp: mark,
                    source: s,
                    destination: d,
                    load: state.load + 1,
                };
            }
            let (s, d) = (s as usize, d as usize);
            self.sent[s] += 1;
            let p = &mut self.print[s];
            p[0] = add_mod(p[0], self.power[0][d]);
            p[1] = add_mod(p[1], self.power[1][d]);
        }
        self.route = route;
        if count == 0 {
            return Err(Rejection::EmptyFrame { frame: f });
        }
        self.frames += 1;
        self.transfers += count;
        Ok(())
    }

    /// How the exactly-once check works, in words.
    pub fn method(&self) -> String {
        let n = self.model.hosts() as f64;
        let bound = 2.0 * (n / PRIME as f64).log2();
        format!(
            "per source: a count and two random fingerprints Σ r^d mod 2^61-1 of its \
             destinations; a wrong schedule passes with probability below (N/p)^2 = 2^{bound:.0}"
        )
    }

    /// The end of the stream: the report, or the first source whose transfers are wrong
    /// (to be named by a [`Locator`] pass).
    pub fn finish(&self) -> Result<StreamReport, Suspect> {
        let n = self.model.hosts();
        let total = |i: usize| self.power[i].iter().fold(0, |a, &x| add_mod(a, x));
        let totals = [total(0), total(1)];
        for s in 0..n {
            let want = [
                add_mod(totals[0], PRIME - self.power[0][s]),
                add_mod(totals[1], PRIME - self.power[1][s]),
            ];
            if self.sent[s] as usize != n - 1 || self.print[s] != want {
                return Err(Suspect {
                    source: s,
                    sent: u64::from(self.sent[s]),
                });
            }
        }
        let counted = self.link.iter().map(|x| x.load).max().unwrap_or(0);
        let matches = self
            .link
            .iter()
            .enumerate()
            .all(|(l, x)| u64::from(x.load) == self.model.load(l));
        let duration = self.model.duration();
        Ok(StreamReport {
            length: self.frames,
            transfers: self.transfers,
            duration,
            duration_counted: Some(u64::from(counted)),
            loads_match_closed_form: Some(matches),
            liquid: Some(self.frames == duration),
            exactly_once: self.method(),
        })
    }

    /// The report of a prefix of a schedule (the first frames only): ranges and conflicts
    /// were checked; "each transfer exactly once" and Λ need the whole stream.
    pub fn finish_prefix(&self) -> StreamReport {
        StreamReport {
            length: self.frames,
            transfers: self.transfers,
            duration: self.model.duration(),
            duration_counted: None,
            loads_match_closed_form: None,
            liquid: None,
            exactly_once: "not checked: a prefix of the schedule was read".into(),
        }
    }

    /// The load counted on link `l`.
    pub fn counted_load(&self, l: usize) -> u64 {
        u64::from(self.link[l].load)
    }
}

/// The second pass: the frames of one suspect source, with the first frame holding each
/// of its destinations.
#[derive(Debug)]
pub struct Locator<'m, M: Structured> {
    model: &'m M,
    source: u32,
    first: Vec<u32>,
    frames: u64,
}

impl<'m, M: Structured> Locator<'m, M> {
    /// A pass looking at `suspect.source`.
    pub fn new(model: &'m M, suspect: Suspect) -> Self {
        Locator {
            model,
            source: suspect.source as u32,
            first: vec![0; model.hosts()],
            frames: 0,
        }
    }

    /// The next frame; a duplicate is named as soon as it is seen.
    pub fn frame(&mut self, pairs: impl Iterator<Item = (u32, u32)>) -> Result<(), Rejection> {
        self.frames += 1;
        let f = u32::try_from(self.frames).expect("fewer than 2^32 frames");
        for (s, d) in pairs.filter(|&(s, _)| s == self.source) {
            let slot = &mut self.first[d as usize];
            if *slot != 0 {
                return Err(Rejection::Duplicated {
                    transfer: format!(
                        "{}->{}",
                        self.model.host_name(s as usize),
                        self.model.host_name(d as usize)
                    ),
                    first: u64::from(*slot),
                    second: self.frames,
                });
            }
            *slot = f;
        }
        Ok(())
    }

    /// After the last frame: the missing transfer (the lowest destination not seen), with
    /// the first link of its route and that link's count. `counted_load` gives the
    /// first pass's count of a link. `None` when this pass saw every transfer of the
    /// source once: then the frames differ from those of the first pass.
    pub fn finish(&self, counted_load: impl Fn(usize) -> u64) -> Option<Rejection> {
        let s = self.source as usize;
        let missing = (0..self.model.hosts()).find(|&d| d != s && self.first[d] == 0)?;
        let mut route = Vec::new();
        self.model.route(s, missing, &mut route);
        let link = route[0] as usize;
        Some(Rejection::Missing {
            transfer: format!(
                "{}->{}",
                self.model.host_name(s),
                self.model.host_name(missing)
            ),
            link: self.model.link_name(link),
            counted: counted_load(link),
            load: self.model.load(link),
        })
    }
}
