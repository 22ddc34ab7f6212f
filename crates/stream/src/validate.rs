//! The streaming validator: the model crate's rules (`liquid_model::validate`) applied
//! frame by frame, in memory O(hosts + links), never O(transfers).
//!
//! For every frame, in order, every problem kept ([`Findings`]: the first
//! [`MAX_PROBLEMS`] of each kind and the count of all) as the in-memory check finds it:
//! - every transfer names two hosts of the model and is a transfer of its traffic
//!   (an all-to-all: source ≠ destination), else [`Rejection::UnknownTransfer`];
//! - no two transfers of the frame share a link: each link is stamped with the frame
//!   and the first transfer holding it, so every later transfer on it is named with that
//!   one ([`Rejection::Conflict`], once per pair); the same transfer twice in a frame is
//!   [`Rejection::Duplicated`] (its first copy holds one of its links, or is in the set
//!   of transfers that found every link taken);
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
//! **Naming what is wrong.** When sources' counts or fingerprints are wrong, a second
//! pass over the frames ([`Locator`]) follows the first [`MAX_PROBLEMS`] of them, with
//! two frame numbers per destination (O(hosts) each): it names every repeated transfer
//! with both of its frames and every missing transfer, exactly; the other wrong sources
//! are counted ([`Unnamed`]).
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
/// from 1 here (the first frame of the stream is frame 1); the messages name them as the
/// in-memory `liquid verify`'s do (`liquid_model::ScheduleError`), as a schedule file's
/// fields, `timeframes[i]` (0-based: frame 1 is `timeframes[0]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// A pair that is not a transfer of the traffic.
    #[error(
        "timeframes[{}]: transfer {transfer:?} is not in model {model:?} ({why})",
        frame.saturating_sub(1)
    )]
    UnknownTransfer {
        /// Timeframe.
        frame: u64,
        /// The pair, as `from->to` (host numbers when out of range).
        transfer: String,
        /// The traffic's name.
        model: String,
        /// Why.
        why: String,
    },
    /// A transfer in two places.
    #[error("{}", duplicated(transfer, *first, *second))]
    Duplicated {
        /// The transfer.
        transfer: String,
        /// The first timeframe holding it.
        first: u64,
        /// The second one (the same when it is twice in one frame).
        second: u64,
    },
    /// A transfer in no timeframe.
    #[error("transfer {transfer:?} is in no timeframe")]
    Missing {
        /// The transfer.
        transfer: String,
    },
    /// Two transfers of a timeframe share a link.
    #[error(
        "timeframes[{}]: transfers {a:?} and {b:?} congest on link {link:?}",
        frame.saturating_sub(1)
    )]
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
    #[error("timeframes[{}]: the timeframe is empty", frame.saturating_sub(1))]
    EmptyFrame {
        /// Timeframe.
        frame: u64,
    },
}

/// The model validator's wording of a repeated transfer ([`liquid_model::ScheduleError`]),
/// from the 1-based timeframes of a stream (one repeat: a stream does not count them).
fn duplicated(transfer: &str, first: u64, second: u64) -> String {
    liquid_model::ScheduleError::Duplicated {
        transfer: transfer.to_string(),
        first: first.saturating_sub(1) as usize,
        second: second.saturating_sub(1) as usize,
        times: 1,
    }
    .to_string()
}

impl Rejection {
    /// The timeframe the problem is in (the later one of a repeated transfer), if any.
    pub fn frame(&self) -> Option<u64> {
        match *self {
            Rejection::UnknownTransfer { frame, .. }
            | Rejection::Conflict { frame, .. }
            | Rejection::EmptyFrame { frame } => Some(frame),
            Rejection::Duplicated { second, .. } => Some(second),
            Rejection::Missing { .. } => None,
        }
    }
}

/// Where a frame's record is in a compact schedule file: the byte offset of its tag, and
/// of its first entry and the bytes per entry (a `P` record's entries are destinations,
/// an `S` record's pairs), so that a problem names the bytes it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramePlace {
    /// The byte offset of the record's tag.
    pub record: u64,
    /// The byte offset of its first entry.
    pub first: u64,
    /// Bytes per entry.
    pub stride: u64,
}

impl FramePlace {
    /// The byte offset of entry `j` (0-based) of the frame.
    pub fn entry(&self, j: usize) -> u64 {
        self.first + j as u64 * self.stride
    }
}

/// One problem of a streamed schedule, with where it is when the frames were read from a
/// file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong.
    pub rejection: Rejection,
    /// The entry of its frame it is about (0-based, in file order): a transfer the model
    /// lacks, or the later copy of a repeated transfer.
    pub entry: Option<usize>,
    /// The byte offset in the file: of the entry for a transfer the model lacks, of the
    /// frame's record otherwise; `None` when the frames were not read from a file, and
    /// for a transfer in no timeframe.
    pub byte: Option<u64>,
}

impl Problem {
    fn new(rejection: Rejection, entry: Option<usize>, place: Option<FramePlace>) -> Problem {
        let byte = place.map(|p| match (&rejection, entry) {
            (Rejection::UnknownTransfer { .. }, Some(j)) => p.entry(j),
            _ => p.record,
        });
        Problem {
            rejection,
            entry,
            byte,
        }
    }

    /// The problem as `liquid verify` lists it: with `file: byte B: timeframes[i]: ` before
    /// the message when it has a place in `file` (`timeframes[i][j]` for a transfer the
    /// model lacks), as the in-memory check names `file:line:column: timeframes[i]: `.
    pub fn line(&self, file: Option<&str>) -> String {
        let message = self.rejection.to_string();
        let (Some(file), Some(byte), Some(frame)) = (file, self.byte, self.rejection.frame())
        else {
            return message;
        };
        let i = frame - 1;
        let field = match (&self.rejection, self.entry) {
            (Rejection::UnknownTransfer { .. }, Some(j)) => format!("timeframes[{i}][{j}]"),
            _ => format!("timeframes[{i}]"),
        };
        // The field names the timeframe: not twice before the message.
        let message = match message.strip_prefix(&format!("timeframes[{i}]: ")) {
            Some(rest) => rest.to_string(),
            None => message,
        };
        format!("{file}: byte {byte}: {field}: {message}")
    }
}

/// At most this many problems of each kind are kept, and listed in all: the in-memory
/// `liquid verify`'s bound (`liquid_model::schedule::MAX_PROBLEMS`).
pub const MAX_PROBLEMS: usize = liquid_model::schedule::MAX_PROBLEMS;

/// Problems of one kind: the first [`MAX_PROBLEMS`] in the check's order, and how many.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Kept {
    listed: Vec<Problem>,
    total: u64,
}

impl Kept {
    fn push(&mut self, p: impl FnOnce() -> Problem) {
        self.total += 1;
        if self.listed.len() < MAX_PROBLEMS {
            self.listed.push(p());
        }
    }
}

/// Sources whose transfers are wrong (a count or a fingerprint off) that the second pass
/// did not name one by one: it follows at most [`MAX_PROBLEMS`] sources, in memory
/// O(hosts) each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unnamed {
    /// How many sources.
    pub sources: u64,
    /// The first of them (by host number), by name.
    pub first: String,
    /// A lower bound on their problems: each has at least one, and at least as many as
    /// its count of transfers is off by.
    pub at_least: u64,
}

/// Every problem a streamed check found, kept in bounded memory: the first
/// [`MAX_PROBLEMS`] of each kind and the count of all, so that [`Findings::lines`] lists
/// them in the in-memory `liquid verify`'s order: transfers the model lacks, then by
/// timeframe the empty timeframes and repeated transfers, then the congesting pairs, then
/// the transfers in no timeframe (by source, then destination).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    unknown: Kept,
    /// Empty frames and transfers twice in one frame (the first pass), in frame order.
    frames: Kept,
    /// Transfers repeated in a later frame (the second pass), in frame order.
    repeated: Kept,
    conflicts: Kept,
    missing: Kept,
    unnamed: Option<Unnamed>,
}

impl Findings {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.total() == 0 && self.unnamed.is_none()
    }

    /// How many problems were found and named (the sources left unnamed aside).
    pub fn total(&self) -> u64 {
        [
            &self.unknown,
            &self.frames,
            &self.repeated,
            &self.conflicts,
            &self.missing,
        ]
        .iter()
        .map(|k| k.total)
        .sum()
    }

    /// The sources left unnamed, if any.
    pub fn unnamed(&self) -> Option<&Unnamed> {
        self.unnamed.as_ref()
    }

    /// The problems kept, in the in-memory check's order (see [`Findings`]).
    pub fn problems(&self) -> Vec<&Problem> {
        let key = |p: &Problem| (p.rejection.frame().unwrap_or(0), p.entry.unwrap_or(0));
        let (mut a, mut b) = (
            self.frames.listed.iter().peekable(),
            self.repeated.listed.iter().peekable(),
        );
        let mut by_frame = Vec::new();
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            if key(x) <= key(y) {
                by_frame.extend(a.next());
            } else {
                by_frame.extend(b.next());
            }
        }
        by_frame.extend(a);
        by_frame.extend(b);
        self.unknown
            .listed
            .iter()
            .chain(by_frame)
            .chain(&self.conflicts.listed)
            .chain(&self.missing.listed)
            .collect()
    }

    /// The first problem, if any.
    pub fn first(&self) -> Option<Rejection> {
        self.problems().first().map(|p| p.rejection.clone())
    }

    /// The problems as `liquid verify` lists them: the first [`MAX_PROBLEMS`] (placed in
    /// `file` when they were read from it, [`Problem::line`]), then `and N more`, or `and
    /// at least N more` with the sources the second pass did not name.
    pub fn lines(&self, file: Option<&str>) -> Vec<String> {
        let mut lines: Vec<String> = self
            .problems()
            .iter()
            .take(MAX_PROBLEMS)
            .map(|p| p.line(file))
            .collect();
        let more = self.total() - lines.len() as u64;
        match &self.unnamed {
            None if more > 0 => lines.push(format!("and {more} more")),
            None => {}
            Some(u) => lines.push(format!(
                "and at least {} more: the transfers of {} more source{} (from {}) are \
                 sent a wrong number of times or to wrong destinations; the second pass \
                 names those of the first {MAX_PROBLEMS} wrong sources only",
                more + u.at_least,
                u.sources,
                if u.sources == 1 { "" } else { "s" },
                u.first
            )),
        }
        lines
    }
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

/// A source whose transfers are not right at the end of the first pass (its count or
/// fingerprints are off): the second pass ([`Locator`]) names what is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suspect {
    /// The source host.
    pub source: usize,
    /// The transfers it sent (a transfer twice in one frame counted once).
    pub sent: u64,
}

/// What the validator keeps per link.
#[derive(Debug, Clone, Copy, Default)]
struct LinkState {
    /// 1 + the frame that last used it.
    stamp: u32,
    /// The first transfer (source, destination) that used it in that frame.
    source: u32,
    destination: u32,
    /// Transfers counted on it.
    load: u32,
}

/// Validates a schedule frame by frame against a structured model, and keeps every
/// problem it finds ([`Findings`]).
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
    /// The links of the current transfer already taken in its frame, with their holder.
    held: Vec<(u32, (u32, u32))>,
    /// The transfers of the current frame that found every link of their route taken
    /// (never in a valid frame; at most the frame's size): a second copy of one of them
    /// finds no link it holds, so it is recognised here.
    blocked: std::collections::HashSet<(u32, u32)>,
    findings: Findings,
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
            held: Vec::new(),
            blocked: std::collections::HashSet::new(),
            findings: Findings::default(),
        }
    }

    /// Frames checked so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The problems found so far.
    pub fn findings(&self) -> &Findings {
        &self.findings
    }

    /// The problems found, for the second pass to add to.
    pub fn into_findings(self) -> Findings {
        self.findings
    }

    fn pair_name(&self, s: u32, d: u32) -> String {
        pair_name(self.model, s, d)
    }

    /// Checks the next frame, given as (source, destination) host numbers; the first
    /// problem it has, if any (all of them are kept: [`Validator::findings`]).
    pub fn frame(&mut self, pairs: impl Iterator<Item = (u32, u32)>) -> Result<(), Rejection> {
        self.frame_at(pairs, None)
    }

    /// [`Validator::frame`] of a frame read from a file at `place`, so that its problems
    /// name their bytes.
    ///
    /// Each entry is checked as the in-memory check does (`liquid_model::validate_all`):
    /// a pair that is no transfer of the traffic is reported and left out; a transfer
    /// given twice in the frame is reported as such (and counted once); every other
    /// transfer is reported once with each transfer that took one of its links first in
    /// the frame. The frame is reported when it has no entry.
    pub fn frame_at(
        &mut self,
        pairs: impl Iterator<Item = (u32, u32)>,
        place: Option<FramePlace>,
    ) -> Result<(), Rejection> {
        let f = self.frames + 1;
        let mark = u32::try_from(f).expect("fewer than 2^32 frames");
        let n = self.model.hosts() as u32;
        let before = self.findings.total();
        let mut first: Option<Rejection> = None;
        let mut note = |kept: &mut Kept, r: Rejection, entry: Option<usize>| {
            if first.is_none() {
                first = Some(r.clone());
            }
            kept.push(|| Problem::new(r, entry, place));
        };
        let mut count = 0u64;
        let mut known = 0u64;
        let mut route = std::mem::take(&mut self.route);
        let mut held = std::mem::take(&mut self.held);
        self.blocked.clear();
        for (j, (s, d)) in pairs.enumerate() {
            count += 1;
            if s >= n || d >= n || s == d {
                let why = if s == d && s < n {
                    "a host does not send to itself in this all-to-all".to_string()
                } else {
                    format!("the model has hosts 0 to {}", n - 1)
                };
                let r = Rejection::UnknownTransfer {
                    frame: f,
                    transfer: self.pair_name(s, d),
                    model: self.model.name(),
                    why,
                };
                note(&mut self.findings.unknown, r, Some(j));
                continue;
            }
            self.model.route(s as usize, d as usize, &mut route);
            held.clear();
            let mut own = false;
            for &l in &route {
                let state = &mut self.link[l as usize];
                if state.stamp != mark {
                    *state = LinkState {
                        stamp: mark,
                        source: s,
                        destination: d,
                        load: state.load + 1,
                    };
                } else if (state.source, state.destination) == (s, d) {
                    own = true;
                } else {
                    held.push((l, (state.source, state.destination)));
                }
            }
            // A copy of a transfer already in the frame: the first copy took every link
            // the others had not (so this one took none), or took none at all.
            let twice = own || (held.len() == route.len() && !self.blocked.insert((s, d)));
            if twice {
                let r = Rejection::Duplicated {
                    transfer: self.pair_name(s, d),
                    first: f,
                    second: f,
                };
                note(&mut self.findings.frames, r, Some(j));
                continue;
            }
            let mut reported: Vec<(u32, u32)> = Vec::new();
            for &(l, holder) in &held {
                self.link[l as usize].load += 1;
                if !reported.contains(&holder) {
                    reported.push(holder);
                    let r = Rejection::Conflict {
                        frame: f,
                        a: self.pair_name(holder.0, holder.1),
                        b: self.pair_name(s, d),
                        link: self.model.link_name(l as usize),
                    };
                    note(&mut self.findings.conflicts, r, Some(j));
                }
            }
            known += 1;
            let (s, d) = (s as usize, d as usize);
            self.sent[s] += 1;
            let p = &mut self.print[s];
            p[0] = add_mod(p[0], self.power[0][d]);
            p[1] = add_mod(p[1], self.power[1][d]);
        }
        self.route = route;
        self.held = held;
        if count == 0 {
            note(
                &mut self.findings.frames,
                Rejection::EmptyFrame { frame: f },
                None,
            );
        }
        self.frames += 1;
        self.transfers += known;
        debug_assert_eq!(first.is_some(), self.findings.total() > before);
        match first {
            Some(r) => Err(r),
            None => Ok(()),
        }
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

    /// The end of the stream: the report (Λ counted, the loads compared), or every source
    /// whose transfers are wrong, by host number (to be named by a [`Locator`] pass).
    /// The report is the schedule's only when [`Validator::findings`] is empty too.
    pub fn finish(&self) -> Result<StreamReport, Vec<Suspect>> {
        let n = self.model.hosts();
        let total = |i: usize| self.power[i].iter().fold(0, |a, &x| add_mod(a, x));
        let totals = [total(0), total(1)];
        let suspects: Vec<Suspect> = (0..n)
            .filter(|&s| {
                let want = [
                    add_mod(totals[0], PRIME - self.power[0][s]),
                    add_mod(totals[1], PRIME - self.power[1][s]),
                ];
                self.sent[s] as usize != n - 1 || self.print[s] != want
            })
            .map(|s| Suspect {
                source: s,
                sent: u64::from(self.sent[s]),
            })
            .collect();
        if !suspects.is_empty() {
            return Err(suspects);
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

fn pair_name<M: Structured>(model: &M, s: u32, d: u32) -> String {
    let n = model.hosts() as u32;
    if s < n && d < n {
        format!(
            "{}->{}",
            model.host_name(s as usize),
            model.host_name(d as usize)
        )
    } else {
        format!("{s}->{d}")
    }
}

/// The second pass: the frames of the first [`MAX_PROBLEMS`] suspect sources, with the
/// first and last frame holding each of their destinations (two frame numbers per
/// destination and source followed: O(hosts) memory); it names every transfer of those sources repeated
/// in a later frame, and every one in no frame.
#[derive(Debug)]
pub struct Locator<'m, M: Structured> {
    model: &'m M,
    /// The sources followed, by host number.
    followed: Vec<Suspect>,
    /// Per host: its index in `followed`, or `u32::MAX`.
    slot: Vec<u32>,
    /// Per source followed: per destination, 1 + the first and the last frame holding
    /// the transfer (the last, to skip a second copy in one frame).
    first: Vec<Vec<[u32; 2]>>,
    /// The sources left unnamed.
    unnamed: Option<Unnamed>,
    repeated: Kept,
    /// Per source followed: whether this pass found one of its transfers repeated.
    found: Vec<bool>,
    frames: u64,
}

impl<'m, M: Structured> Locator<'m, M> {
    /// A pass following the first [`MAX_PROBLEMS`] of `suspects` (by host number); the
    /// others are counted ([`Unnamed`]).
    pub fn new(model: &'m M, suspects: &[Suspect]) -> Self {
        let n = model.hosts();
        let followed: Vec<Suspect> = suspects.iter().take(MAX_PROBLEMS).copied().collect();
        let mut slot = vec![u32::MAX; n];
        for (i, s) in followed.iter().enumerate() {
            slot[s.source] = i as u32;
        }
        let rest = &suspects[followed.len()..];
        let unnamed = rest.first().map(|first| Unnamed {
            sources: rest.len() as u64,
            first: model.host_name(first.source),
            at_least: rest
                .iter()
                .map(|s| s.sent.abs_diff(n as u64 - 1).max(1))
                .sum(),
        });
        Locator {
            model,
            first: vec![vec![[0; 2]; n]; followed.len()],
            found: vec![false; followed.len()],
            followed,
            slot,
            unnamed,
            repeated: Kept::default(),
            frames: 0,
        }
    }

    /// The next frame (read from a file at `place`, if it was); the first repeated
    /// transfer it holds, if any (all are kept). Pairs the model lacks and the second copy
    /// of a transfer in one frame are the first pass's to report, and skipped.
    pub fn frame(
        &mut self,
        pairs: impl Iterator<Item = (u32, u32)>,
        place: Option<FramePlace>,
    ) -> Result<(), Rejection> {
        self.frames += 1;
        let f = u32::try_from(self.frames).expect("fewer than 2^32 frames");
        let n = self.model.hosts() as u32;
        let mut first = None;
        for (j, (s, d)) in pairs.enumerate() {
            if s >= n || d >= n || s == d {
                continue;
            }
            let i = self.slot[s as usize];
            if i == u32::MAX {
                continue;
            }
            let [earliest, last] = &mut self.first[i as usize][d as usize];
            if *earliest == 0 {
                (*earliest, *last) = (f, f);
            } else if *last != f {
                *last = f;
                self.found[i as usize] = true;
                let r = Rejection::Duplicated {
                    transfer: pair_name(self.model, s, d),
                    first: u64::from(*earliest),
                    second: self.frames,
                };
                if first.is_none() {
                    first = Some(r.clone());
                }
                self.repeated.push(|| Problem::new(r, Some(j), place));
            }
        }
        match first {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }

    /// After the last frame: adds to `findings` the repeated transfers and those in no
    /// timeframe (by source, then destination) of the sources followed, and the sources
    /// left unnamed. `Err` when a source followed shows nothing wrong: the frames differ
    /// from those of the first pass.
    pub fn finish(self, findings: &mut Findings) -> Result<(), crate::StreamError> {
        let n = self.model.hosts();
        for (i, suspect) in self.followed.iter().enumerate() {
            let s = suspect.source;
            let mut any = self.found[i];
            for d in (0..n).filter(|&d| d != s && self.first[i][d][0] == 0) {
                any = true;
                findings.missing.push(|| {
                    Problem::new(
                        Rejection::Missing {
                            transfer: pair_name(self.model, s as u32, d as u32),
                        },
                        None,
                        None,
                    )
                });
            }
            if !any {
                return Err(crate::StreamError::Unstable(format!(
                    "the second pass saw every transfer of {} once: the frames changed \
                     between the passes",
                    self.model.host_name(s)
                )));
            }
        }
        findings.repeated = self.repeated;
        findings.unnamed = self.unnamed;
        Ok(())
    }
}
