//! Liquid schedules of all-to-all traffics from their structure (engine `structured`).
//!
//! **Detection, from the traffic alone.** The end points of a transfer are its `from` and
//! `to` nodes when every transfer names both, otherwise its first and last links (on a
//! network with one link per host and direction, the sender's up link and the receiver's
//! down link). The traffic is an *all-to-all* over N hosts when there are N senders and N
//! receivers, every sender-receiver pair occurs at most once, and either every pair occurs
//! (with self-transfers, N² transfers) or every pair but one per sender, the missing pairs
//! forming a perfect matching (without self-transfers, N(N−1) transfers). With names, a
//! receiver is the host of the same name; with links, the receiver a sender does not send
//! to. Hosts are numbered in order of first appearance as senders. When no receiver is a
//! sender (named end points, N² transfers), receiver j counts as host j.
//!
//! **Hierarchy.** The hosts form a *hierarchy of blocks* when the path length of s → d
//! depends only on the smallest block holding both: with the distinct path lengths of
//! host 0's transfers L_1 < … < L_q and c_j = 1 + #{d : |0 → d| ≤ L_j}, the hosts within
//! L_j of a host form a block of c_j hosts, the blocks of each level partition the hosts
//! and nest in those of the next, c_q = N, and for every pair s ≠ d, |s → d| = L_j for the
//! least j whose block holds both. A host's label is then the mixed-radix number whose
//! digit j (radix c_j / c_{j−1}, least significant first) is the rank of its block of
//! level j − 1 (of the host itself, for the first digit) within its block of level j, in
//! order of first appearance. An m-port n-tree is such a hierarchy (leaves, subtrees, the
//! whole tree), in any order of its hosts.
//!
//! **Orbits as timeframes.** A group G acting regularly on the hosts gives the candidate
//! timeframes F_g = {h → g·h : h a host}, one per g ≠ e (and F_e, the self-transfers, when
//! there are self-transfers): each holds one transfer per sender and per receiver, and
//! together they partition the traffic. Two groups are tried: the digit-wise translations
//! of the hierarchy's labels (for an m-port n-tree under d-mod-k up*/down* routing every
//! such frame is conflict-free: an up link from level l+1 determines the tree digits
//! s_0…s_l and d_{l+1}…; the labels are the tree digits permuted within each block, so
//! within a frame the label prefix of d is that of s plus the translation's, which fixes
//! how d's lower digits are permuted, hence d and s; a down link determines d), and the
//! cyclic shifts h → h + g mod N of the hosts' numbers. Each frame is checked link by link with one stamp per link, so
//! a group costs O(Σ|x|). When every frame of a group is conflict-free the schedule has
//! N − 1 (or N) frames, which is Λ (a host link carries that many transfers): liquid.
//!
//! **Parts and ports.** Otherwise, the traffic's link-disjoint parts are scheduled each on
//! its own, by orbits or by König's edge colouring over its ports ([`crate::ports`]):
//! when every part has a liquid schedule, they make one of the whole (the multi-cluster
//! systems of paper 002 with one ICN2 switch).
//!
//! **Otherwise** the group with the most conflict-free frames keeps them, and the native
//! search ([`crate::liquid`]) is run on the remaining transfers, with half of the time
//! left and at most [`REST_NODES`] search nodes, when their Λ plus the frames kept is Λ: a
//! liquid schedule of the rest completes a liquid schedule of the whole, unless the rest's
//! Λ exceeds the node budget: each search node places one frame, so that search could not
//! finish (and copying a rest of a million transfers takes seconds). (The kept frames
//! can leave a rest with no liquid schedule although the whole has one; without the node
//! budget, a run with no time limit could spend its life proving that: torus:3x5 did.) If that fails too (or the traffic is no all-to-all),
//! the native search runs on the whole traffic with what is left of the limits, so the
//! engine decides liquidity like `native` when no limit stops it and claims nothing the
//! search or the frame checks did not establish.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{
    Answer, Limits, LinkId, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId, Verdict,
};

use crate::ports::MAX_PARTS;

/// The engine's name in answers and on the command line (`--engine structured`).
pub const ENGINE: &str = "structured";

/// No transfer in a cell of the pair table (the diagonal without self-transfers).
const NONE: u32 = u32::MAX;

/// An all-to-all traffic as [`detect`] found it.
#[derive(Debug, Clone)]
pub struct AllToAll {
    /// Number of hosts, N.
    pub hosts: usize,
    /// Whether all N² pairs occur: every host also sends to itself, or the senders and
    /// the receivers are distinct nodes (receiver j then counts as host j, in order of
    /// first appearance).
    pub self_transfers: bool,
    /// Radices of the hosts' mixed-radix labels, least significant first, when the hosts
    /// form a hierarchy of blocks (see the module documentation); empty otherwise.
    pub radices: Vec<usize>,
    /// The host of every label of the hierarchy (empty without one).
    host_of_label: Vec<u32>,
    /// `pair[s * N + d]`: the transfer from host s to host d.
    pair: Vec<u32>,
}

impl AllToAll {
    /// The transfer from host `s` to host `d`, if any (none for `s == d` without
    /// self-transfers). Panics when a host is out of range.
    pub fn transfer(&self, s: usize, d: usize) -> Option<TransferId> {
        let t = self.pair[s * self.hosts + d];
        (t != NONE).then_some(TransferId(t))
    }
}

/// Interns end-point keys in order of first appearance.
struct Numbering<K> {
    index: HashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Numbering<K> {
    fn new() -> Self {
        Numbering {
            index: HashMap::new(),
        }
    }
    fn number(&mut self, k: K) -> u32 {
        let n = self.index.len() as u32;
        *self.index.entry(k).or_insert(n)
    }
    fn len(&self) -> usize {
        self.index.len()
    }
}

/// Recognises an all-to-all traffic (see the module documentation); the error says why
/// the traffic is not one.
pub fn detect(traffic: &Traffic) -> Result<AllToAll, String> {
    let x = traffic.transfers();
    let named = x.iter().all(|t| t.from.is_some() && t.to.is_some());
    // Sender and receiver number of every transfer.
    let mut ends: Vec<(u32, u32)> = Vec::with_capacity(x.len());
    // Receiver number -> host (sender) number.
    let mut host_of: Vec<u32>;
    let n;
    if named {
        let (mut s, mut r) = (Numbering::new(), Numbering::new());
        let mut receivers: Vec<&str> = Vec::new();
        for t in x {
            let (from, to) = (t.from.as_deref(), t.to.as_deref());
            let (from, to) = (from.unwrap_or_default(), to.unwrap_or_default());
            let rn = r.number(to);
            if rn as usize == receivers.len() {
                receivers.push(to);
            }
            ends.push((s.number(from), rn));
        }
        n = s.len();
        if r.len() != n {
            return Err(format!("{n} senders but {} receivers", r.len()));
        }
        host_of = Vec::with_capacity(n);
        if receivers.iter().all(|name| !s.index.contains_key(name)) {
            // Senders and receivers are distinct nodes (a bipartite all-to-all): receiver
            // j plays host j, every pair occurs.
            if x.len() != n * n {
                return Err(format!(
                    "{} transfers from {n} senders to {n} other nodes: not N²",
                    x.len()
                ));
            }
            host_of.extend(0..n as u32);
        } else {
            for name in receivers {
                match s.index.get(name) {
                    Some(&h) => host_of.push(h),
                    None => return Err(format!("receiver {name} sends nothing")),
                }
            }
        }
    } else {
        let (mut s, mut r) = (Numbering::new(), Numbering::new());
        for t in x {
            let (first, last) = (t.path[0], t.path[t.path.len() - 1]);
            ends.push((s.number(first), r.number(last)));
        }
        n = s.len();
        if r.len() != n {
            return Err(format!(
                "{n} first links (senders) but {} last links (receivers)",
                r.len()
            ));
        }
        host_of = vec![NONE; n];
    }
    let self_transfers = match x.len() {
        l if l == n * n => true,
        l if n > 1 && l == n * (n - 1) => false,
        l => {
            return Err(format!(
                "{l} transfers between {n} senders and {n} receivers: neither N² nor N(N − 1)"
            ))
        }
    };
    // The sender x receiver table, by receiver number.
    let mut by_receiver = vec![NONE; n * n];
    for (t, &(s, r)) in ends.iter().enumerate() {
        let cell = &mut by_receiver[s as usize * n + r as usize];
        if *cell != NONE {
            return Err(format!(
                "transfers {} and {} join the same end points",
                traffic.transfer_name(TransferId(*cell)),
                traffic.transfer_name(TransferId(t as u32))
            ));
        }
        *cell = t as u32;
    }
    if !named {
        if self_transfers {
            // Nothing tells which receiver is which sender: pair them in order of first
            // appearance (any pairing gives a partition; the frames are checked).
            host_of = (0..n as u32).collect();
        } else {
            for s in 0..n {
                let row = &by_receiver[s * n..(s + 1) * n];
                let r = row.iter().position(|&t| t == NONE).unwrap_or(0);
                if host_of[r] != NONE {
                    return Err("the missing pairs are not one receiver per sender".into());
                }
                host_of[r] = s as u32;
            }
        }
    }
    let mut pair = vec![NONE; n * n];
    for s in 0..n {
        for r in 0..n {
            pair[s * n + host_of[r] as usize] = by_receiver[s * n + r];
        }
    }
    if !self_transfers && (0..n).any(|h| pair[h * n + h] != NONE) {
        return Err("a host sends to itself, but not every host does".into());
    }
    let mut a = AllToAll {
        hosts: n,
        self_transfers,
        radices: Vec::new(),
        host_of_label: Vec::new(),
        pair,
    };
    if let Some((radices, host)) = hierarchy(traffic, &a) {
        a.radices = radices;
        a.host_of_label = host;
    }
    Ok(a)
}

/// The hierarchy of blocks, if the hosts form one (module documentation): the radices and
/// the host of every label.
fn hierarchy(traffic: &Traffic, a: &AllToAll) -> Option<(Vec<usize>, Vec<u32>)> {
    let n = a.hosts;
    let len = |s: usize, d: usize| a.transfer(s, d).map(|t| traffic.transfer(t).path.len());
    let mut lengths: Vec<usize> = (1..n).filter_map(|d| len(0, d)).collect();
    lengths.sort_unstable();
    lengths.dedup();
    if lengths.is_empty() {
        return None;
    }
    let sizes: Vec<usize> = lengths
        .iter()
        .map(|&l| {
            1 + (1..n)
                .filter(|&d| len(0, d).is_some_and(|x| x <= l))
                .count()
        })
        .collect();
    let mut radices = Vec::with_capacity(sizes.len());
    let mut below = 1;
    for &c in &sizes {
        if c % below != 0 || c == below {
            return None;
        }
        radices.push(c / below);
        below = c;
    }
    if below != n {
        return None;
    }
    // block[j][h]: h's block at level j, numbered in order of first appearance: the hosts
    // within distance lengths[j] of the first host of the block.
    let mut block: Vec<Vec<u32>> = Vec::with_capacity(sizes.len());
    for (j, &l) in lengths.iter().enumerate() {
        let mut b = vec![NONE; n];
        let mut count = 0u32;
        for h in 0..n {
            if b[h] != NONE {
                continue;
            }
            let mut members = 0;
            for (d, bd) in b.iter_mut().enumerate() {
                if d == h || len(h, d).is_some_and(|x| x <= l) {
                    if *bd != NONE {
                        return None;
                    }
                    *bd = count;
                    members += 1;
                }
            }
            if members != sizes[j] {
                return None;
            }
            count += 1;
        }
        // Blocks nest: a block lies within one block of the level above.
        if let Some(lower) = block.last() {
            let mut parent = vec![NONE; n];
            for h in 0..n {
                let p = &mut parent[lower[h] as usize];
                if *p != NONE && *p != b[h] {
                    return None;
                }
                *p = b[h];
            }
        }
        block.push(b);
    }
    // Every pair is at the distance of the smallest block holding both.
    for s in 0..n {
        for d in (0..n).filter(|&d| d != s) {
            let j = (0..sizes.len()).find(|&j| block[j][s] == block[j][d])?;
            if len(s, d) != Some(lengths[j]) {
                return None;
            }
        }
    }
    // Digit j of a host: its rank within its block of level j among the blocks of level
    // j − 1 (the hosts, for j = 0), in order of first appearance.
    let mut label = vec![0usize; n];
    let mut place = 1;
    for j in 0..sizes.len() {
        let mut next_rank = vec![0usize; n];
        let mut rank_of: HashMap<u32, usize> = HashMap::new();
        for h in 0..n {
            let part = if j == 0 { h as u32 } else { block[j - 1][h] };
            let r = *rank_of.entry(part).or_insert_with(|| {
                let r = next_rank[block[j][h] as usize];
                next_rank[block[j][h] as usize] += 1;
                r
            });
            label[h] += r * place;
        }
        place *= radices[j];
    }
    let mut host = vec![NONE; n];
    for (h, &x) in label.iter().enumerate() {
        if host[x] != NONE {
            return None;
        }
        host[x] = h as u32;
    }
    Some((radices, host))
}

/// A group acting on the hosts: its elements are numbered 0..N (0 the identity).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Group {
    /// Digit-wise translations of mixed-radix labels (radices least significant first).
    Digits(Vec<usize>),
    /// Cyclic shifts h → h + g mod N.
    Cyclic,
}

impl Group {
    fn describe(&self) -> String {
        match self {
            Group::Digits(r) => {
                let r: Vec<String> = r.iter().rev().map(|x| x.to_string()).collect();
                format!("digit-wise translations (radices {})", r.join("x"))
            }
            Group::Cyclic => "cyclic shifts".to_string(),
        }
    }

    /// g · h for hosts numbered 0..n.
    fn act(&self, g: usize, h: usize, n: usize) -> usize {
        match self {
            Group::Cyclic => (g + h) % n,
            Group::Digits(radices) => {
                let (mut g, mut h, mut out, mut place) = (g, h, 0, 1);
                for &r in radices {
                    out += ((g % r + h % r) % r) * place;
                    place *= r;
                    g /= r;
                    h /= r;
                }
                out
            }
        }
    }
}

/// The orbit frames of one group and which of them are conflict-free.
struct Orbits {
    group: Group,
    frames: Vec<Vec<TransferId>>,
    good: Vec<bool>,
}

impl Orbits {
    fn good_count(&self) -> usize {
        self.good.iter().filter(|&&g| g).count()
    }
}

/// The frames F_g of `group` and their check, in O(Σ|x|); `None` when the deadline passed.
fn orbits(
    traffic: &Traffic,
    a: &AllToAll,
    group: Group,
    stamp: &mut [u32],
    deadline: Option<Instant>,
) -> Option<Orbits> {
    let n = a.hosts;
    let first = usize::from(!a.self_transfers);
    let mut frames = Vec::with_capacity(n - first);
    let mut good = Vec::with_capacity(n - first);
    // The group acts on labels: the hierarchy's for translations, the hosts' numbers for
    // shifts.
    let host = |x: usize| match group {
        Group::Digits(_) => a.host_of_label[x] as usize,
        Group::Cyclic => x,
    };
    stamp.iter_mut().for_each(|s| *s = 0);
    for g in first..n {
        if g % 64 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let mark = g as u32 + 1;
        let mut ok = true;
        let mut frame = Vec::with_capacity(n);
        for x in 0..n {
            let t = a.transfer(host(x), host(group.act(g, x, n)))?;
            if ok {
                for &l in &traffic.transfer(t).path {
                    if stamp[l.index()] == mark {
                        ok = false;
                        break;
                    }
                    stamp[l.index()] = mark;
                }
            }
            frame.push(t);
        }
        frames.push(frame);
        good.push(ok);
    }
    Some(Orbits {
        group,
        frames,
        good,
    })
}

/// The groups worth trying on an all-to-all: its hierarchy's translations, then the
/// cyclic shifts.
fn groups(a: &AllToAll) -> Vec<Group> {
    let mut v = Vec::new();
    if a.radices.len() > 1 {
        v.push(Group::Digits(a.radices.clone()));
    }
    v.push(Group::Cyclic);
    v
}

/// What the structure stage established.
#[derive(Debug, Clone)]
pub enum Structure {
    /// A liquid schedule, and the group whose orbits it is.
    Liquid {
        /// The schedule (its frames are the orbits; validate before reporting it).
        schedule: Schedule,
        /// The group, in words.
        group: String,
    },
    /// An all-to-all whose best group left some frames in conflict.
    Partial {
        /// The conflict-free frames kept.
        kept: Vec<Vec<TransferId>>,
        /// The transfers of the other frames.
        rest: Vec<TransferId>,
        /// How many frames were in conflict.
        conflicting: usize,
        /// The group, in words.
        group: String,
    },
    /// No structure used: not an all-to-all (the reason), or the deadline passed.
    None(String),
}

/// Tries the groups of an all-to-all in turn (see the module documentation) until the
/// deadline.
pub fn construct(traffic: &Traffic, deadline: Option<Instant>) -> Structure {
    let a = match detect(traffic) {
        Ok(a) => a,
        Err(why) => return Structure::None(format!("not an all-to-all: {why}")),
    };
    let mut stamp = vec![0u32; traffic.num_links()];
    let mut best: Option<Orbits> = None;
    for group in groups(&a) {
        let Some(o) = orbits(traffic, &a, group, &mut stamp, deadline) else {
            return Structure::None("the time limit passed during the frame checks".into());
        };
        // Conflict-free orbits are liquid only when there are Λ of them: a host with more
        // than one link each way (rail-optimised machines: NIC and NVLink) carries fewer
        // than N - 1 transfers on each, and Λ < N - 1 frames.
        if o.good_count() == o.frames.len() && o.frames.len() == traffic.duration() {
            return Structure::Liquid {
                schedule: Schedule::new(o.frames),
                group: o.group.describe(),
            };
        }
        if best
            .as_ref()
            .is_none_or(|b| o.good_count() > b.good_count())
        {
            best = Some(o);
        }
    }
    let Some(o) = best else {
        return Structure::None("no group to try".into());
    };
    let group = o.group.describe();
    let (mut kept, mut rest, mut conflicting) = (Vec::new(), Vec::new(), 0);
    for (f, ok) in o.frames.into_iter().zip(o.good) {
        if ok {
            kept.push(f);
        } else {
            rest.extend(f);
            conflicting += 1;
        }
    }
    rest.sort_unstable();
    Structure::Partial {
        kept,
        rest,
        conflicting,
        group,
    }
}

/// A liquid schedule from the traffic's structure alone, as `native`, `exact` and the
/// portfolio use it: the orbit frames of an all-to-all ([`construct`]), else the
/// link-disjoint parts ([`by_parts`]). With the stage (`orbit frames` or
/// `parts`) and what it used, in words (the group, or [`describe`]). `None`
/// when neither applies or the deadline passed.
pub fn liquid_schedule(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Option<(Schedule, &'static str, String)> {
    match construct(traffic, deadline) {
        Structure::Liquid { schedule, group } => Some((schedule, "orbit frames", group)),
        Structure::Partial { .. } | Structure::None(_) => {
            let (schedule, how) = by_parts(traffic, deadline).ok()?;
            Some((schedule, "parts", describe(&how)))
        }
    }
}

/// Search nodes the native search may spend on the transfers the kept orbit frames leave
/// (a shortcut, not a decision: the search on the whole traffic follows if it fails).
pub const REST_NODES: u64 = 10_000;

/// The `structured` engine without a progress counter.
pub fn solve(traffic: &Traffic, limits: &Limits) -> Answer {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// The `structured` engine: orbits of a group when they make a liquid schedule, else the
/// native search on what the conflict-free orbits leave, else the native search on the
/// whole traffic (module documentation). Search nodes are added to `progress`.
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Answer {
    let start = Instant::now();
    let deadline = limits.deadline();
    let left = || limits.time.map(|t| t.saturating_sub(start.elapsed()));
    let mut stats: Vec<(String, StatValue)> = Vec::new();
    let text = |s: &str| StatValue::Text(s.to_string());
    let d = traffic.duration();
    let mut native_limits = *limits;
    let structure = construct(traffic, deadline);
    if !matches!(structure, Structure::Liquid { .. }) {
        // The link-disjoint parts, by orbits or ports (crate::ports): Λ frames or nothing.
        match by_parts(traffic, deadline) {
            Ok((schedule, how)) => {
                stats.push(("parts".into(), text(&describe(&how))));
                stats.push(("decided_by".into(), text("parts")));
                return liquid_answer(traffic, schedule, stats);
            }
            Err(why) => stats.push(("parts".into(), text(&format!("not used: {why}")))),
        }
    }
    match structure {
        Structure::Liquid { schedule, group } => {
            stats.push(("structure".into(), text(&group)));
            stats.push((
                "orbit_frames".into(),
                StatValue::Count(schedule.len() as u64),
            ));
            stats.push(("decided_by".into(), text("structure")));
            return liquid_answer(traffic, schedule, stats);
        }
        Structure::Partial {
            kept,
            rest,
            conflicting,
            group,
        } => {
            stats.push(("structure".into(), text(&group)));
            stats.push(("orbit_frames".into(), StatValue::Count(kept.len() as u64)));
            stats.push((
                "orbit_frames_in_conflict".into(),
                StatValue::Count(conflicting as u64),
            ));
            // The rest's Λ, counted in place: the copy of the rest is made only when its
            // search can succeed (a million transfers take seconds to copy).
            let mut set = crate::teams::TransferSet::with_capacity(traffic.len());
            rest.iter().for_each(|t| set.insert(t.index()));
            let rest_lambda = crate::teams::loads_in(traffic, &set)
                .into_iter()
                .max()
                .unwrap_or(0);
            let budget = limits.nodes.map_or(REST_NODES, |n| n.min(REST_NODES));
            let timed_out = deadline.is_some_and(|t| Instant::now() >= t);
            if rest_lambda + kept.len() != d {
                stats.push((
                    "rest_verdict".into(),
                    text("not tried: the rest needs more frames"),
                ));
            } else if rest_lambda as u64 > budget || timed_out {
                // Each search node places one frame: Λ of them cannot fit the budget.
                stats.push((
                    "rest_verdict".into(),
                    text(if timed_out {
                        "not tried: the time limit passed"
                    } else {
                        "not tried: more frames than the node budget"
                    }),
                ));
            } else {
                let sub = traffic.sub_traffic(&rest);
                let rest_limits = Limits {
                    time: left().map(|t| t / 2),
                    nodes: Some(budget),
                };
                let r = crate::liquid::solve_with_progress(&sub, &rest_limits, progress);
                let nodes = node_count(&r);
                stats.push(("rest_transfers".into(), StatValue::Count(rest.len() as u64)));
                stats.push(("rest_verdict".into(), text(r.verdict().as_str())));
                stats.push(("rest_nodes".into(), StatValue::Count(nodes)));
                if let Outcome::Liquid { schedule } = r.outcome {
                    let mut frames = kept;
                    frames.extend(
                        schedule
                            .frames
                            .into_iter()
                            .map(|f| f.into_iter().map(|t| rest[t.index()]).collect()),
                    );
                    stats.push(("decided_by".into(), text("structure+native")));
                    return liquid_answer(traffic, Schedule::new(frames), stats);
                }
                native_limits.nodes = limits.nodes.map(|n| n.saturating_sub(nodes));
            }
        }
        Structure::None(why) => stats.push(("structure".into(), text(&why))),
    }
    native_limits.time = left();
    let mut r = crate::liquid::solve_with_progress(traffic, &native_limits, progress);
    stats.append(&mut r.stats);
    let by = if r.verdict() == Verdict::Unknown {
        "none (limit reached)"
    } else {
        crate::liquid::ENGINE
    };
    stats.push(("decided_by".into(), text(by)));
    Answer {
        engine: ENGINE.into(),
        outcome: r.outcome,
        stats,
    }
}

/// The engine's answer with a schedule of Λ frames (settled against the traffic, which
/// makes it liquid; the gate validates it).
fn liquid_answer(traffic: &Traffic, schedule: Schedule, stats: Vec<(String, StatValue)>) -> Answer {
    Answer {
        engine: ENGINE.into(),
        outcome: Outcome::settle(
            traffic,
            Some(schedule),
            LowerBound::duration(traffic),
            false,
        ),
        stats,
    }
}

/// The search nodes a native answer reports.
fn node_count(a: &Answer) -> u64 {
    a.stats
        .iter()
        .find_map(|(k, v)| match (k.as_str(), v) {
            ("nodes", StatValue::Count(n)) => Some(*n),
            _ => None,
        })
        .unwrap_or(0)
}

/// A liquid schedule of `traffic` from its parts: each part by ports ([`crate::ports::colour`], on the
/// part in place) or else, when it is shaped like an all-to-all, by the orbits of
/// this module (on a copy), otherwise by rounds of its classes ([`crate::classes`], when
/// the traffic has more than one part), laid over one another; with, per part (largest
/// first), how (`orbits (GROUP)`, `ports` or `classes (...)`). `Err` when
/// the traffic is one part that the ports do not settle, a part is settled by neither, or
/// there are more than [`MAX_PARTS`] parts (the reason).
pub fn by_parts(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Result<(Schedule, Vec<String>), String> {
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    let Some(parts) = crate::ports::parts_until(traffic, deadline).filter(|_| !late()) else {
        return Err("the time limit passed".into());
    };
    if parts.len() > MAX_PARTS {
        return Err(format!("{} parts, more than {MAX_PARTS}", parts.len()));
    }
    let lam = traffic.duration();
    let mut frames: Vec<Vec<TransferId>> = vec![Vec::new(); lam];
    let mut how = Vec::new();
    for part in &parts {
        let whole = parts.len() == 1;
        // Ports first: no copy of the part, and a quick refusal on the large parts they do
        // not fit. Then the orbits, on a copy, for parts shaped like an all-to-all.
        let (part_frames, method) = match crate::ports::colour_part(traffic, part, deadline) {
            Ok(f) => (f, "ports".to_string()),
            Err(why) if whole => return Err(format!("part of {} transfers: {why}", part.len())),
            Err(why) if !all_to_all_shaped(traffic, part) => {
                // Rounds of interchangeable transfers (crate::classes), e.g. between the
                // clusters of a multi-cluster system whose ICN2 is deeper than one switch.
                // Only on a part of a larger traffic: a traffic of one part goes on to the
                // engines' own search, as before.
                crate::classes::schedule(traffic, part, deadline).map_err(|q| {
                    format!("part of {} transfers: {why}; by classes: {q}", part.len())
                })?
            }
            Err(why) => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err("the time limit passed".into());
                }
                let sub = traffic.sub_traffic(part);
                match construct(&sub, deadline) {
                    Structure::Liquid { schedule, group } => (
                        schedule
                            .frames
                            .into_iter()
                            .map(|f| f.into_iter().map(|x| part[x.index()]).collect())
                            .collect(),
                        format!("orbits ({group})"),
                    ),
                    _ => {
                        return Err(format!(
                            "part of {} transfers: no conflict-free orbits, and {why}",
                            part.len()
                        ))
                    }
                }
            }
        };
        if part_frames.len() > lam {
            return Err(format!(
                "part of {} transfers: {} frames, above Λ {lam}",
                part.len(),
                part_frames.len()
            ));
        }
        how.push(method);
        for (i, f) in part_frames.into_iter().enumerate() {
            frames[i].extend(f);
        }
    }
    for f in &mut frames {
        f.sort_unstable();
    }
    frames.retain(|f| !f.is_empty());
    Ok((Schedule::new(frames), how))
}

/// Whether `part` could be an all-to-all (what [`detect`] recognises):
/// h senders and h receivers (their names when every transfer has both, else first and
/// last links), and h² or h(h − 1) transfers. O(part).
fn all_to_all_shaped(traffic: &Traffic, part: &[TransferId]) -> bool {
    use std::collections::HashSet;
    let named = part.iter().all(|&t| {
        let x = traffic.transfer(t);
        x.from.is_some() && x.to.is_some()
    });
    let (senders, receivers) = if named {
        let s: HashSet<&str> = part
            .iter()
            .filter_map(|&t| traffic.transfer(t).from.as_deref())
            .collect();
        let r: HashSet<&str> = part
            .iter()
            .filter_map(|&t| traffic.transfer(t).to.as_deref())
            .collect();
        (s.len(), r.len())
    } else {
        let s: HashSet<LinkId> = part
            .iter()
            .filter_map(|&t| traffic.transfer(t).path.first().copied())
            .collect();
        let r: HashSet<LinkId> = part
            .iter()
            .filter_map(|&t| traffic.transfer(t).path.last().copied())
            .collect();
        (s.len(), r.len())
    };
    let h = senders;
    h == receivers && (part.len() == h * h || part.len() == h * h.saturating_sub(1))
}

/// What [`by_parts`] did, in words: the number of parts and how they were settled.
pub fn describe(how: &[String]) -> String {
    let orbits = how.iter().filter(|h| h.starts_with("orbits")).count();
    let classes: Vec<&str> = how
        .iter()
        .filter(|h| h.starts_with("classes"))
        .map(String::as_str)
        .collect();
    let ports = how.len() - orbits - classes.len();
    let by_classes = if classes.is_empty() {
        String::new()
    } else {
        format!(", {} by rounds of {}", classes.len(), classes.join(", "))
    };
    format!(
        "{} link-disjoint part{}: {orbits} by orbits, {ports} by ports (König){by_classes}",
        how.len(),
        if how.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::validate;
    use liquid_topology::fat_tree::FatTree;

    /// Orbits of N - 1 conflict-free frames are no liquid schedule when Λ < N - 1 (a GPU
    /// of a rail-optimised machine sends over its NIC and over NVLink): the engine searches
    /// on instead of stopping at them (it had answered `unknown` with 3 frames, Λ = 2).
    #[test]
    fn conflict_free_orbits_longer_than_the_duration_are_not_liquid() {
        let traffic = liquid_topology::spec::traffic("rail:2,2")
            .expect("a spec")
            .expect("a traffic");
        assert_eq!(traffic.duration(), 2);
        assert!(!matches!(
            construct(&traffic, None),
            Structure::Liquid { .. }
        ));
        let a = solve(&traffic, &Limits::default());
        assert_eq!(a.verdict(), Verdict::Liquid);
        let s = a.outcome.schedule().expect("a schedule");
        assert_eq!(validate(&traffic, s).expect("valid").length, 2);
    }

    #[test]
    fn fat_tree_all_to_alls_are_liquid_by_translations() {
        for (m, n) in [(4, 2), (4, 3), (6, 2), (8, 2), (6, 3), (8, 3)] {
            for self_transfers in [false, true] {
                let t = FatTree {
                    ports: m,
                    levels: n,
                    self_transfers,
                };
                let traffic = t.generated().expect("builds").expand().expect("expands");
                let a = detect(&traffic).expect("an all-to-all");
                assert_eq!(a.hosts, t.nodes());
                assert_eq!(a.self_transfers, self_transfers);
                let mut want = vec![m];
                want.extend(std::iter::repeat_n(m / 2, n - 1));
                want.reverse();
                assert_eq!(a.radices, want, "{m}-port {n}-tree");
                let Structure::Liquid { schedule, group } = construct(&traffic, None) else {
                    panic!("{m}-port {n}-tree: no liquid schedule from structure");
                };
                assert!(group.starts_with("digit-wise"), "{group}");
                let report = validate(&traffic, &schedule).expect("valid");
                assert_eq!(report.length, traffic.duration());
                let answer = solve(&traffic, &Limits::default());
                assert_eq!(answer.verdict(), Verdict::Liquid);
            }
        }
    }

    #[test]
    fn detection_works_from_links_alone() {
        // The paper's all-to-all written with paths only: first and last links name the
        // end points.
        let traffic = FatTree::new(4, 2)
            .generated()
            .expect("builds")
            .expand()
            .expect("expands");
        let paths: Vec<(String, Vec<String>)> = traffic
            .transfers()
            .iter()
            .map(|x| {
                let p = x.path.iter().map(|&l| traffic.link_name(l).to_string());
                (x.id.clone(), p.collect())
            })
            .collect();
        let anonymous = Traffic::from_paths("anon", &paths).expect("valid");
        let a = detect(&anonymous).expect("an all-to-all");
        assert_eq!(a.hosts, 8);
        assert!(!a.self_transfers);
        assert!(matches!(
            construct(&anonymous, None),
            Structure::Liquid { .. }
        ));
    }

    /// The hierarchy does not depend on the order of the hosts: the transfers of a
    /// 4-port 3-tree and an 8-port 2-tree listed in a scrambled order, end points by links
    /// only, still give liquid translations.
    #[test]
    fn scrambled_fat_trees_are_still_recognised() {
        for (m, n) in [(4, 3), (8, 2), (6, 3)] {
            let traffic = FatTree::new(m, n)
                .generated()
                .expect("builds")
                .expand()
                .expect("expands");
            let len = traffic.len();
            // A fixed permutation of the transfers (a multiplier coprime to the count).
            let step = (1..len)
                .rev()
                .find(|s| gcd(*s, len) == 1 && *s < len / 2 + 7)
                .expect("coprime");
            let paths: Vec<(String, Vec<String>)> = (0..len)
                .map(|i| {
                    let x = &traffic.transfers()[i * step % len];
                    let p = x.path.iter().map(|&l| traffic.link_name(l).to_string());
                    (x.id.clone(), p.collect())
                })
                .collect();
            let scrambled = Traffic::from_paths("scrambled", &paths).expect("valid");
            let a = detect(&scrambled).expect("an all-to-all");
            assert!(a.radices.len() == n, "{m}-port {n}-tree: {:?}", a.radices);
            // The hosts appear out of tree order: the labels are not their numbers.
            let identity: Vec<u32> = (0..a.hosts as u32).collect();
            assert_ne!(a.host_of_label, identity, "{m}-port {n}-tree");
            let Structure::Liquid { schedule, .. } = construct(&scrambled, None) else {
                panic!("{m}-port {n}-tree: no liquid schedule");
            };
            validate(&scrambled, &schedule).expect("valid");
        }
    }

    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }

    #[test]
    fn the_papers_bipartite_all_to_all_is_recognised() {
        let traffic = liquid_topology::paper::fig1().expand().expect("expands");
        let a = detect(&traffic).expect("an all-to-all");
        assert!(a.self_transfers);
        assert_eq!(a.hosts * a.hosts, traffic.len());
        let answer = solve(&traffic, &Limits::default());
        assert_eq!(answer.verdict(), Verdict::Liquid);
    }

    #[test]
    fn other_traffics_are_not_all_to_alls_and_go_to_the_search() {
        let t = liquid_model::examples::odd_cycle();
        assert!(detect(&t).is_err());
        let answer = solve(&t, &Limits::default());
        assert_eq!(answer.verdict(), Verdict::NonLiquid);
        let by = answer.stats.iter().find(|(k, _)| k == "decided_by");
        assert_eq!(by.map(|(_, v)| v), Some(&StatValue::Text("native".into())));
    }

    #[test]
    fn a_ring_keeps_its_conflict_free_orbits_and_searches_the_rest() {
        let traffic = liquid_topology::spec::parse("ring:6,1")
            .expect("spec")
            .expect("a spec")
            .expand()
            .expect("expands");
        let Structure::Partial {
            kept,
            rest,
            conflicting,
            ..
        } = construct(&traffic, None)
        else {
            panic!("the ring's orbits are not all conflict-free");
        };
        // Six hosts: five shifts, each kept or in conflict; the rest is what was not kept.
        assert_eq!(kept.len() + conflicting, 5);
        assert_eq!(rest.len(), 6 * conflicting);
        let answer = solve(&traffic, &Limits::default());
        // The ring's cyclic shifts congest (each goes the same way round), so the frames
        // come from the search; whatever it says, a schedule is a valid one.
        if let Some(s) = answer.outcome.schedule() {
            validate(&traffic, s).expect("valid");
        }
        assert_ne!(answer.verdict(), Verdict::Unknown);
    }

    #[test]
    fn a_rest_without_a_liquid_schedule_costs_a_bounded_search_then_the_whole_is_searched() {
        // torus:3x5: the kept cyclic shifts leave a rest with no liquid schedule found in
        // the budget, and the whole traffic is liquid (the search finds it in a few nodes).
        // Before the rest had a node budget, this ran without end when no limit was set.
        let traffic = liquid_topology::spec::parse("torus:3x5")
            .expect("spec")
            .expect("a spec")
            .expand()
            .expect("expands");
        let answer = solve(&traffic, &Limits::default());
        assert_eq!(answer.verdict(), Verdict::Liquid);
        validate(&traffic, answer.outcome.schedule().expect("a schedule")).expect("valid");
        let stat = |k: &str| {
            answer
                .stats
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            stat("rest_verdict"),
            Some(StatValue::Text("unknown".into()))
        );
        assert_eq!(stat("decided_by"), Some(StatValue::Text("native".into())));
        match stat("rest_nodes") {
            Some(StatValue::Count(n)) => assert!(n <= REST_NODES, "{n} rest nodes"),
            other => panic!("rest_nodes: {other:?}"),
        }
    }
}
