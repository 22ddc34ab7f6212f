//! Preemptive schedules by chunks: with a quantum of B bytes, a message of b bytes becomes
//! ⌈b/B⌉ pieces (B bytes each, the last one the rest), which is 004's multiplicity: each
//! piece a copy of the transfer with a virtual link of its own. A schedule of the pieces
//! is a list of timeframes of pieces that share no link; a liquid one has as many frames
//! as the pieces' most loaded link has pieces (Λ of the pieces).
//!
//! Its time, run frame by frame, is the sum over frames of the frame's longest piece
//! (overhead + route latency + bytes / slowest link). With one link throughput R, no
//! latency and no overhead, a liquid schedule of the pieces takes at most Λ_p · B / R,
//! and Λ_p = max over links of Σ ⌈b/B⌉ < (bytes on the link)/B + (messages on the link):
//! it meets the time bound up to less than one quantum per message on the bottleneck
//! link ([`padding_bound`]; tested below).

use std::time::Instant;

use liquid_model::network::{copy_id, default_virtual_link};
use liquid_model::{LinkId, Schedule, Traffic, TrafficBuilder, TransferId};
use serde::Serialize;

use crate::bound::{argmax_links, Platform, TimeSum};
use crate::occupancy::{check_frames, Occupancy};

/// The pieces of a message of `bytes` with quantum `quantum`.
pub fn pieces(bytes: u64, quantum: u64) -> u32 {
    u32::try_from(bytes.div_ceil(quantum)).unwrap_or(u32::MAX)
}

/// The bytes of piece `i` (0-based) of a message of `bytes` cut by `quantum`.
pub fn piece_bytes(bytes: u64, quantum: u64, i: u32) -> u64 {
    let k = pieces(bytes, quantum);
    if i + 1 < k {
        quantum
    } else {
        bytes - u64::from(k - 1) * quantum
    }
}

/// Pieces per link, and Λ_p: the most frames a link needs, ⌈its pieces / its lanes⌉
/// ([`Platform::lanes`]; one lane per link is 004's model), with the links at it.
pub fn piece_loads(
    traffic: &Traffic,
    counts: &[u32],
    lanes: &[u32],
) -> (Vec<u64>, u64, Vec<LinkId>) {
    let mut load = vec![0u64; traffic.num_links()];
    for (x, &k) in traffic.transfers().iter().zip(counts) {
        for l in &x.path {
            load[l.index()] += u64::from(k);
        }
    }
    let f: Vec<f64> = load
        .iter()
        .zip(lanes)
        .map(|(&v, &c)| v.div_ceil(u64::from(c.max(1))) as f64)
        .collect();
    let (max, at) = argmax_links(&f);
    (load, max as u64, at)
}

/// The predicted makespan of a liquid schedule of the pieces at `quantum`, each of its
/// Λ_p frames as long as one full piece on the slowest route (overhead + the largest
/// route latency + min(B, largest message) / the slowest route's throughput). It is what
/// the default quantum minimises ([`choose_quantum`]).
pub fn predicted_liquid(
    traffic: &Traffic,
    bytes: &[u64],
    platform: &Platform,
    lanes: &[u32],
    quantum: u64,
) -> f64 {
    let counts: Vec<u32> = bytes.iter().map(|&b| pieces(b, quantum)).collect();
    let (_, lambda, _) = piece_loads(traffic, &counts, lanes);
    let (lat, bw) = slowest(traffic, platform);
    let largest = bytes.iter().copied().max().unwrap_or(0);
    lambda as f64 * (platform.overhead + lat + quantum.min(largest) as f64 / bw)
}

/// The largest route latency and the smallest route throughput of the traffic.
fn slowest(traffic: &Traffic, platform: &Platform) -> (f64, f64) {
    let mut lat: f64 = 0.0;
    let mut bw = f64::INFINITY;
    for t in traffic.transfer_ids() {
        lat = lat.max(platform.route_latency(traffic, t));
        bw = bw.min(platform.route_bandwidth(traffic, t));
    }
    (lat, bw)
}

/// One candidate quantum and its predicted makespan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Candidate {
    /// Bytes per piece.
    pub quantum: u64,
    /// Pieces in all.
    pub pieces: u64,
    /// Λ of the pieces.
    pub piece_duration: u64,
    /// The predicted makespan, seconds: that of the candidate's first-fit schedule, or
    /// [`predicted_liquid`] (`predicted_by` says which).
    pub predicted_s: f64,
    /// `first-fit schedule` or `liquid estimate` ([`predicted_liquid`]: above
    /// [`SCHEDULE_CANDIDATES_UP_TO`] messages, or when the deadline came before its
    /// first fit finished).
    pub predicted_by: &'static str,
}

/// [`Candidate::predicted_by`] of a candidate weighed by its first-fit schedule.
pub const BY_SCHEDULE: &str = "first-fit schedule";
/// [`Candidate::predicted_by`] of a candidate weighed by [`predicted_liquid`].
pub const BY_ESTIMATE: &str = "liquid estimate";

/// Up to this many messages, [`choose_quantum`] weighs each candidate by the predicted
/// makespan of its first-fit schedule; above, by [`predicted_liquid`].
pub const SCHEDULE_CANDIDATES_UP_TO: usize = 100_000;

/// The default quantum: among the powers of two from 1 KiB up to the first at or above
/// the largest message, and the largest message itself, those that cut the traffic into
/// at most `max_pieces` pieces, the one with the lowest predicted makespan (the larger
/// quantum on a tie: fewer messages). The prediction is that of the candidate's
/// [`first_fit`] schedule (the sum of its frames' times) for traffics of at most
/// [`SCHEDULE_CANDIDATES_UP_TO`] messages, else [`predicted_liquid`]. Returns it with
/// every candidate weighed. The largest message is always a candidate (one piece per
/// message).
pub fn choose_quantum(
    traffic: &Traffic,
    bytes: &[u64],
    platform: &Platform,
    lanes: &[u32],
    max_pieces: u64,
) -> (u64, Vec<Candidate>) {
    let by_schedule = traffic.len() <= SCHEDULE_CANDIDATES_UP_TO;
    choose_quantum_by(traffic, bytes, platform, lanes, max_pieces, by_schedule)
}

/// [`choose_quantum`], weighing by first-fit schedules or by [`predicted_liquid`].
pub fn choose_quantum_by(
    traffic: &Traffic,
    bytes: &[u64],
    platform: &Platform,
    lanes: &[u32],
    max_pieces: u64,
    by_schedule: bool,
) -> (u64, Vec<Candidate>) {
    let c = choose_quantum_until(
        traffic,
        bytes,
        platform,
        lanes,
        max_pieces,
        by_schedule,
        None,
    );
    (c.quantum, c.candidates)
}

/// What [`choose_quantum_until`] chose.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The quantum.
    pub quantum: u64,
    /// Every candidate weighed, smallest quantum first.
    pub candidates: Vec<Candidate>,
    /// The first-fit schedule of the chosen quantum, when it was weighed by it.
    pub schedule: Option<Chunked>,
    /// Whether the deadline came before every candidate wanted by schedule was weighed
    /// by it (those are weighed by [`predicted_liquid`]).
    pub cut: bool,
}

/// [`choose_quantum_by`] within a deadline: the candidates are weighed from the largest
/// quantum down (the fewest pieces, the quickest first fit, first); a first fit that the
/// deadline interrupts, and every candidate after it, is weighed by [`predicted_liquid`]
/// instead. Keeps the chosen candidate's first-fit schedule.
pub fn choose_quantum_until(
    traffic: &Traffic,
    bytes: &[u64],
    platform: &Platform,
    lanes: &[u32],
    max_pieces: u64,
    by_schedule: bool,
    deadline: Option<Instant>,
) -> Choice {
    let largest = bytes.iter().copied().max().unwrap_or(1).max(1);
    let mut weighed = Vec::new();
    let mut schedules: Vec<Option<Chunked>> = Vec::new();
    let mut cut = false;
    for q in candidate_quanta(bytes, max_pieces).into_iter().rev() {
        let total: u64 = bytes.iter().map(|&b| u64::from(pieces(b, q))).sum();
        let counts: Vec<u32> = bytes.iter().map(|&b| pieces(b, q)).collect();
        let (_, lambda, _) = piece_loads(traffic, &counts, lanes);
        let ff = if by_schedule && !cut {
            let s = first_fit_until(traffic, bytes, q, platform, lanes, deadline, false);
            cut = s.is_none();
            s
        } else {
            None
        };
        let (predicted_s, predicted_by) = match &ff {
            Some(c) => (c.makespan(traffic, bytes, platform), BY_SCHEDULE),
            None => (
                predicted_liquid(traffic, bytes, platform, lanes, q),
                BY_ESTIMATE,
            ),
        };
        weighed.push(Candidate {
            quantum: q,
            pieces: total,
            piece_duration: lambda,
            predicted_s,
            predicted_by,
        });
        schedules.push(ff);
    }
    weighed.reverse();
    schedules.reverse();
    let best = weighed
        .iter()
        .enumerate()
        .fold(None::<usize>, |best, (i, c)| match best {
            Some(b) if weighed[b].predicted_s < c.predicted_s => Some(b),
            _ => Some(i),
        });
    let (quantum, schedule) = match best {
        Some(i) => (weighed[i].quantum, schedules[i].take()),
        None => (largest, None),
    };
    Choice {
        quantum,
        candidates: weighed,
        schedule,
        cut,
    }
}

/// The candidates of the default quantum, smallest first: the powers of two from 1 KiB up
/// to the first at or above the largest message, those that cut the traffic into at most
/// `max_pieces` pieces, and the largest message itself (one piece per message), always.
pub fn candidate_quanta(bytes: &[u64], max_pieces: u64) -> Vec<u64> {
    let largest = bytes.iter().copied().max().unwrap_or(1).max(1);
    let total = |q: u64| -> u64 { bytes.iter().map(|&b| u64::from(pieces(b, q))).sum() };
    let mut qs: Vec<u64> = Vec::new();
    let mut q = 1024u64;
    while q < largest {
        if total(q) <= max_pieces {
            qs.push(q);
        }
        q = q.saturating_mul(2);
    }
    qs.push(largest);
    qs
}

/// A schedule of pieces: `frames[f]` lists (transfer, piece index) pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunked {
    /// Bytes per piece.
    pub quantum: u64,
    /// Pieces of each transfer.
    pub pieces: Vec<u32>,
    /// The timeframes.
    pub frames: Vec<Vec<(TransferId, u32)>>,
}

impl Chunked {
    /// Pieces in all.
    pub fn total_pieces(&self) -> u64 {
        self.pieces.iter().map(|&k| u64::from(k)).sum()
    }

    /// The schedule's predicted makespan: the sum of its [`Chunked::frame_times`], added
    /// up so that rounding cannot take it below the time bound ([`TimeSum`]): each
    /// frame's longest piece is found as in `frame_times`. Summing the frames' quotients
    /// instead put a liquid schedule of 1 MiB per rank on fat-tree:4,2 at 0.01048571999994
    /// s, below the bound of 0.01048572 s.
    pub fn makespan(&self, traffic: &Traffic, bytes: &[u64], platform: &Platform) -> f64 {
        let (lat, bw) = route_times(traffic, platform);
        let mut sum = TimeSum::default();
        for f in &self.frames {
            let mut longest: Option<(f64, TransferId, u64)> = None;
            for &(t, i) in f {
                let b = piece_bytes(bytes[t.index()], self.quantum, i);
                let time = lat[t.index()] + b as f64 / bw[t.index()];
                if longest.is_none_or(|(m, _, _)| time > m) {
                    longest = Some((time, t, b));
                }
            }
            if let Some((_, t, b)) = longest {
                sum.add(lat[t.index()], bw[t.index()], b);
            }
        }
        sum.seconds(platform.overhead)
    }

    /// Every frame's time: overhead + the longest piece (route latency + bytes / slowest
    /// link); the schedule's predicted makespan ([`Chunked::makespan`]) is their sum.
    pub fn frame_times(&self, traffic: &Traffic, bytes: &[u64], platform: &Platform) -> Vec<f64> {
        let (lat, bw) = route_times(traffic, platform);
        self.frames
            .iter()
            .map(|f| {
                platform.overhead
                    + f.iter()
                        .map(|&(t, i)| {
                            let b = piece_bytes(bytes[t.index()], self.quantum, i);
                            lat[t.index()] + b as f64 / bw[t.index()]
                        })
                        .fold(0.0, f64::max)
            })
            .collect()
    }
}

/// Per transfer, its route's latency and its route's bandwidth (its slowest link).
fn route_times(traffic: &Traffic, platform: &Platform) -> (Vec<f64>, Vec<f64>) {
    traffic
        .transfer_ids()
        .map(|t| {
            (
                platform.route_latency(traffic, t),
                platform.route_bandwidth(traffic, t),
            )
        })
        .unzip()
}

/// The traffic of the pieces (004's multiplicity through virtual links): a message of one
/// piece keeps its transfer, a message of k > 1 pieces becomes k copies `ID#1`..`ID#k`,
/// each with its path and a virtual link of its own. Returns it with, per piece transfer,
/// its (transfer, piece index).
pub fn pieces_traffic(
    traffic: &Traffic,
    counts: &[u32],
) -> Result<(Traffic, Vec<(TransferId, u32)>), liquid_model::BuildError> {
    let mut b = TrafficBuilder::new(format!("{}-pieces", traffic.name()));
    b.link_throughput(traffic.link_throughput(), "link_throughput")?;
    for l in traffic.link_ids() {
        b.link(traffic.link_name(l), "links")?;
    }
    let mut origin = Vec::new();
    for (t, &k) in traffic.transfer_ids().zip(counts) {
        let x = traffic.transfer(t);
        let at = format!("transfers[{}]", t.index());
        if k == 1 {
            b.transfer_on_links(&x.id, x.from.clone(), x.to.clone(), &x.path, &at)?;
            origin.push((t, 0));
            continue;
        }
        let names: Vec<&str> = x.path.iter().map(|&l| traffic.link_name(l)).collect();
        for i in 1..=u64::from(k) {
            let v = b.virtual_link(&default_virtual_link(&x.id, i), &at)?;
            b.transfer_copy(
                &copy_id(&x.id, i),
                x.from.clone(),
                x.to.clone(),
                &names,
                v,
                &at,
                &|j| format!("{at}.path[{j}]"),
            )?;
            origin.push((t, (i - 1) as u32));
        }
    }
    Ok((b.build("transfers")?, origin))
}

/// A schedule of the pieces traffic as a [`Chunked`] schedule.
pub fn from_pieces_schedule(
    quantum: u64,
    counts: &[u32],
    origin: &[(TransferId, u32)],
    schedule: &Schedule,
) -> Chunked {
    let frames = schedule
        .frames
        .iter()
        .map(|f| {
            let mut v: Vec<(TransferId, u32)> = f.iter().map(|p| origin[p.index()]).collect();
            v.sort();
            v
        })
        .collect();
    Chunked {
        quantum,
        pieces: counts.to_vec(),
        frames,
    }
}

/// A schedule of the pieces by first fit, each piece of a message in the earliest frame
/// where none of its links is taken, in two orders of the messages, keeping the schedule
/// whose frames' times add up to less (the first on a tie): (1) by their most loaded link
/// (pieces, most first), then their pieces, then their bytes (most first), which aims at
/// Λ of the pieces; (2) by their bytes (most first), then their most loaded link, which
/// is first fit decreasing and groups long pieces into the same frames. Linear in the
/// total path length times the frames / 64, for each order.
pub fn first_fit(
    traffic: &Traffic,
    bytes: &[u64],
    quantum: u64,
    platform: &Platform,
    lanes: &[u32],
) -> Chunked {
    first_fit_until(traffic, bytes, quantum, platform, lanes, None, true)
        .expect("first fit without a deadline finishes")
}

/// [`first_fit`] within a deadline: the second order is left out when the deadline comes
/// before it finishes; the first one too unless `finish_first` (then the result is always
/// `Some`).
pub fn first_fit_until(
    traffic: &Traffic,
    bytes: &[u64],
    quantum: u64,
    platform: &Platform,
    lanes: &[u32],
    deadline: Option<Instant>,
    finish_first: bool,
) -> Option<Chunked> {
    let counts: Vec<u32> = bytes.iter().map(|&b| pieces(b, quantum)).collect();
    let (load, _, _) = piece_loads(traffic, &counts, lanes);
    let pressure: Vec<u64> = traffic
        .transfers()
        .iter()
        .map(|x| {
            x.path
                .iter()
                .map(|l| load[l.index()].div_ceil(u64::from(lanes[l.index()])))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut by_pressure: Vec<TransferId> = traffic.transfer_ids().collect();
    by_pressure.sort_by_key(|t| {
        (
            std::cmp::Reverse(pressure[t.index()]),
            std::cmp::Reverse(counts[t.index()]),
            std::cmp::Reverse(bytes[t.index()]),
            *t,
        )
    });
    let mut by_bytes: Vec<TransferId> = traffic.transfer_ids().collect();
    by_bytes.sort_by_key(|t| {
        (
            std::cmp::Reverse(bytes[t.index()]),
            std::cmp::Reverse(pressure[t.index()]),
            *t,
        )
    });
    // (3) Piece by piece, longest piece first: every message's full pieces, then the last
    // pieces (the rests) from the longest down, so that short rests share frames.
    let piece_time = |t: TransferId, b: u64| {
        platform.route_latency(traffic, t) + b as f64 / platform.route_bandwidth(traffic, t)
    };
    let mut runs: Vec<(f64, u64, TransferId, u32, u32)> = Vec::with_capacity(2 * traffic.len());
    for t in traffic.transfer_ids() {
        let (b, k) = (bytes[t.index()], counts[t.index()]);
        let rest = piece_bytes(b, quantum, k - 1);
        let full = if rest == quantum { k } else { k - 1 };
        if full > 0 {
            runs.push((piece_time(t, quantum), pressure[t.index()], t, 0, full));
        }
        if full < k {
            runs.push((piece_time(t, rest), pressure[t.index()], t, k - 1, 1));
        }
    }
    runs.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    let runs: Vec<(TransferId, u32, u32)> =
        runs.into_iter().map(|(_, _, t, i, k)| (t, i, k)).collect();
    let first_deadline = if finish_first { None } else { deadline };
    let mut best = first_fit_in(
        traffic,
        &counts,
        lanes,
        &by_pressure,
        quantum,
        first_deadline,
    )?;
    let time = |c: &Chunked| -> f64 { c.makespan(traffic, bytes, platform) };
    let mut best_time = time(&best);
    let others = [
        first_fit_in(traffic, &counts, lanes, &by_bytes, quantum, deadline),
        first_fit_runs(traffic, &counts, lanes, &runs, quantum, deadline),
    ];
    for c in others.into_iter().flatten() {
        let t = time(&c);
        if t < best_time {
            (best, best_time) = (c, t);
        }
    }
    Some(best)
}

/// Whether `deadline` has passed.
pub fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// First fit of the messages' pieces in `order`, each message's pieces together.
fn first_fit_in(
    traffic: &Traffic,
    counts: &[u32],
    lanes: &[u32],
    order: &[TransferId],
    quantum: u64,
    deadline: Option<Instant>,
) -> Option<Chunked> {
    let runs: Vec<(TransferId, u32, u32)> =
        order.iter().map(|&t| (t, 0, counts[t.index()])).collect();
    first_fit_runs(traffic, counts, lanes, &runs, quantum, deadline)
}

/// First fit of runs of pieces `(transfer, first piece, pieces)` in their order, each
/// piece of a run in the earliest frame where its links are free; `None` when `deadline`
/// passes first (looked at before every 256 runs).
fn first_fit_runs(
    traffic: &Traffic,
    counts: &[u32],
    lanes: &[u32],
    runs: &[(TransferId, u32, u32)],
    quantum: u64,
    deadline: Option<Instant>,
) -> Option<Chunked> {
    let mut occupied = Occupancy::new(lanes);
    let mut frames: Vec<Vec<(TransferId, u32)>> = Vec::new();
    let mut free: Vec<u64> = Vec::new();
    for (n, &(t, first, k)) in runs.iter().enumerate() {
        if n % 256 == 0 && passed(deadline) {
            return None;
        }
        let path = &traffic.transfer(t).path;
        // The frames full on any link of the path, word by word; words past a link's
        // end are free on it.
        let words = path
            .iter()
            .map(|&l| occupied.full(l).len())
            .max()
            .unwrap_or(0);
        free.clear();
        free.resize(words, !0);
        for &l in path {
            for (w, &bits) in occupied.full(l).iter().enumerate() {
                free[w] &= !bits;
            }
        }
        let mut chosen: Vec<usize> = Vec::with_capacity(k as usize);
        let mut w = 0;
        while chosen.len() < k as usize {
            let mut bits = if w < free.len() { free[w] } else { !0 };
            while bits != 0 && chosen.len() < k as usize {
                let b = bits.trailing_zeros() as usize;
                chosen.push(w * 64 + b);
                bits &= bits - 1;
            }
            w += 1;
        }
        for (i, &f) in chosen.iter().enumerate() {
            for &l in path {
                occupied.take(l, f);
            }
            if frames.len() <= f {
                frames.resize(f + 1, Vec::new());
            }
            frames[f].push((t, first + i as u32));
        }
    }
    for f in &mut frames {
        f.sort();
    }
    Some(Chunked {
        quantum,
        pieces: counts.to_vec(),
        frames,
    })
}

/// Why a schedule of pieces is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid schedule of pieces: {0}")]
pub struct Invalid(pub String);

/// Checks a schedule of pieces against the traffic: every piece of every message in
/// exactly one frame, no empty frame, and every frame within the links' `lanes` (all 1:
/// no two of its pieces share a link), by the model's own checks
/// ([`liquid_model::is_simultaneous`], or [`liquid_model::validate`] of the frames with a
/// lane per message on links of several lanes). Two pieces of one message are never in
/// one frame: every route has a link of one lane (its slowest).
pub fn validate(traffic: &Traffic, lanes: &[u32], c: &Chunked) -> Result<(), Invalid> {
    if c.pieces.len() != traffic.len() {
        return Err(Invalid(format!(
            "{} piece counts for {} transfers",
            c.pieces.len(),
            traffic.len()
        )));
    }
    let mut seen: Vec<Vec<bool>> = c.pieces.iter().map(|&k| vec![false; k as usize]).collect();
    for (f, frame) in c.frames.iter().enumerate() {
        if frame.is_empty() {
            return Err(Invalid(format!("timeframe {} is empty", f + 1)));
        }
        let ts: Vec<TransferId> = frame.iter().map(|&(t, _)| t).collect();
        if ts.iter().any(|t| t.index() >= traffic.len()) {
            return Err(Invalid(format!("timeframe {}: no such transfer", f + 1)));
        }
        for &(t, i) in frame {
            let Some(s) = seen[t.index()].get_mut(i as usize) else {
                return Err(Invalid(format!(
                    "timeframe {}: {} has no piece {}",
                    f + 1,
                    traffic.transfer_name(t),
                    i + 1
                )));
            };
            if std::mem::replace(s, true) {
                return Err(Invalid(format!(
                    "piece {} of {} is in two timeframes",
                    i + 1,
                    traffic.transfer_name(t)
                )));
            }
        }
    }
    if lanes.len() != traffic.num_links() {
        return Err(Invalid(format!(
            "{} lane counts for {} links",
            lanes.len(),
            traffic.num_links()
        )));
    }
    check_frames(traffic, lanes, &c.frames).map_err(Invalid)?;
    for (t, s) in seen.iter().enumerate() {
        if let Some(i) = s.iter().position(|&x| !x) {
            return Err(Invalid(format!(
                "piece {} of {} is in no timeframe",
                i + 1,
                traffic.transfers()[t].id
            )));
        }
    }
    Ok(())
}

/// The most a liquid schedule of the pieces can exceed the link part of the time bound
/// by, with one throughput `bytes_per_s`, no latency and no overhead: the largest number
/// of messages on one link times a quantum, divided by the throughput (less than one
/// quantum of padding per message on each link).
pub fn padding_bound(traffic: &Traffic, quantum: u64, bytes_per_s: f64) -> f64 {
    let n = traffic
        .link_ids()
        .map(|l| traffic.load(l))
        .max()
        .unwrap_or(0);
    n as f64 * quantum as f64 / bytes_per_s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bound::time_bound;

    #[test]
    fn pieces_and_their_bytes() {
        assert_eq!(pieces(10, 4), 3);
        assert_eq!(pieces(8, 4), 2);
        assert_eq!(pieces(1, 4), 1);
        assert_eq!(
            (0..3).map(|i| piece_bytes(10, 4, i)).collect::<Vec<_>>(),
            [4, 4, 2]
        );
        assert_eq!(piece_bytes(8, 4, 1), 4);
    }

    fn ft(spec: &str) -> Traffic {
        liquid_topology::spec::traffic(spec)
            .expect("spec")
            .expect("a spec")
    }

    /// Seeded skewed sizes.
    fn sizes(t: &Traffic, seed: u64) -> Vec<u64> {
        crate::generate::generate(t, &crate::generate::Dist::Zipf(1.0), 1 << 16, seed)
            .expect("generates")
            .bytes
    }

    #[test]
    fn first_fit_is_valid_and_the_pieces_traffic_validates_it_too() {
        let t = ft("fat-tree:4,2");
        let b = sizes(&t, 1);
        for q in [1024, 4096, 1 << 16] {
            let c = first_fit(
                &t,
                &b,
                q,
                &Platform::uniform(&t, 1e9),
                &vec![1; t.num_links()],
            );
            validate(&t, &vec![1; t.num_links()], &c).expect("valid");
            // The same schedule through the model's validator, on the pieces traffic.
            let (pt, origin) = pieces_traffic(&t, &c.pieces).expect("builds");
            let index: std::collections::HashMap<(TransferId, u32), TransferId> = origin
                .iter()
                .enumerate()
                .map(|(i, &o)| (o, TransferId(i as u32)))
                .collect();
            let s = Schedule::new(
                c.frames
                    .iter()
                    .map(|f| f.iter().map(|o| index[o]).collect())
                    .collect(),
            );
            liquid_model::validate(&pt, &s).expect("the model's validator accepts it");
            assert_eq!(pt.len() as u64, c.total_pieces());
            let (_, lambda, _) = piece_loads(&t, &c.pieces, &vec![1; t.num_links()]);
            assert_eq!(pt.duration() as u64, lambda);
            assert!(c.frames.len() as u64 >= lambda);
        }
    }

    #[test]
    fn validate_refuses_what_is_wrong() {
        let t = ft("fat-tree:4,2");
        let b = sizes(&t, 2);
        let c = first_fit(
            &t,
            &b,
            4096,
            &Platform::uniform(&t, 1e9),
            &vec![1; t.num_links()],
        );
        let mut twice = c.clone();
        let p = twice.frames[0][0];
        twice.frames[1].push(p);
        assert!(validate(&t, &vec![1; t.num_links()], &twice).is_err());
        let mut missing = c.clone();
        missing.frames[0].remove(0);
        let e = validate(&t, &vec![1; t.num_links()], &missing).expect_err("a piece left out");
        assert!(e.to_string().contains("in no timeframe"), "{e}");
        let mut clash = c;
        let x = clash.frames[1].remove(0);
        clash.frames[0].push(x);
        // Either a shared link or (if x fit) still valid: move one that shares for sure.
        let y = clash.frames[0][0];
        let same_sender = clash.frames[2].iter().position(|&(u, _)| t.congest(u, y.0));
        if let Some(i) = same_sender {
            let z = clash.frames[2].remove(i);
            clash.frames[0].push(z);
            assert!(validate(&t, &vec![1; t.num_links()], &clash).is_err());
        }
    }

    /// The predicted makespan of a liquid schedule is never below the time bound, not even
    /// by rounding: 20 bytes per message of fat-tree:4,2 in 1-byte pieces at 10^8 B/s is
    /// 140 frames of 10^-8 s, whose quotients summed one by one gave 1.3999999999999965e-6
    /// s against the bound 1.4e-6 s (`solve --quantum 1` on 1 MiB per rank showed it).
    #[test]
    fn the_prediction_of_a_liquid_schedule_is_not_below_the_bound_by_rounding() {
        let t = ft("fat-tree:4,2");
        let ones = vec![1; t.num_links()];
        for (m, bw) in [(1, 1e8), (20, 1e8), (20, 3e9), (7, 1.25e10)] {
            let p = Platform::uniform(&t, bw);
            let b = vec![m; t.len()];
            let c = first_fit(&t, &b, 1, &p, &ones);
            let (_, lambda, _) = piece_loads(&t, &c.pieces, &ones);
            assert_eq!(c.frames.len() as u64, lambda, "liquid");
            let bound = time_bound(&t, &b, &p).seconds;
            assert_eq!(c.makespan(&t, &b, &p), bound, "{m} bytes at {bw} B/s");
        }
    }

    /// "Meets the bound up to one quantum per message on a link": whenever the schedule of
    /// the pieces is liquid, with one throughput and no latency or overhead, its time is at
    /// most the bound plus [`padding_bound`]; and exactly the bound when every message is
    /// a whole number of quanta.
    #[test]
    fn a_liquid_schedule_of_pieces_meets_the_bound_up_to_one_quantum_per_message() {
        let mut liquid_seen = 0;
        for spec in ["fat-tree:4,2", "two-clusters:3,3", "fat-tree:4,3"] {
            let t = ft(spec);
            let p = Platform::uniform(&t, 1e9);
            for seed in 0..4 {
                let b = sizes(&t, seed);
                let bound = time_bound(&t, &b, &p);
                for q in [512, 2048, 8192] {
                    let c = first_fit(
                        &t,
                        &b,
                        q,
                        &Platform::uniform(&t, 1e9),
                        &vec![1; t.num_links()],
                    );
                    validate(&t, &vec![1; t.num_links()], &c).expect("valid");
                    let (_, lambda, _) = piece_loads(&t, &c.pieces, &vec![1; t.num_links()]);
                    let time: f64 = c.makespan(&t, &b, &p);
                    assert!(
                        time >= bound.seconds * (1.0 - 1e-12),
                        "{spec}: below the bound"
                    );
                    if c.frames.len() as u64 == lambda {
                        liquid_seen += 1;
                        let most = bound.seconds + padding_bound(&t, q, 1e9);
                        assert!(
                            time <= most * (1.0 + 1e-12),
                            "{spec} q={q}: {time} > {most}"
                        );
                    }
                }
                // Whole quanta: no padding, the liquid schedule is at the bound.
                let whole: Vec<u64> = b.iter().map(|&x| x.div_ceil(1024) * 1024).collect();
                let c = first_fit(&t, &whole, 1024, &p, &vec![1; t.num_links()]);
                let (_, lambda, _) = piece_loads(&t, &c.pieces, &vec![1; t.num_links()]);
                if c.frames.len() as u64 == lambda {
                    let time: f64 = c.makespan(&t, &whole, &p);
                    let bound = time_bound(&t, &whole, &p).seconds;
                    assert!(
                        (time - bound).abs() <= 1e-9 * bound,
                        "{spec}: {time} vs {bound}"
                    );
                }
            }
        }
        assert!(
            liquid_seen > 0,
            "no liquid schedule of pieces to check the claim on"
        );
    }

    #[test]
    fn the_default_quantum_weighs_overhead_against_padding() {
        let t = ft("fat-tree:4,2");
        let b = sizes(&t, 3);
        let mut p = Platform::uniform(&t, 1e9);
        let ones = vec![1; t.num_links()];
        for by_schedule in [false, true] {
            let choose = |p: &Platform, cap| choose_quantum_by(&t, &b, p, &ones, cap, by_schedule);
            p.overhead = 0.0;
            let (q0, c0) = choose(&p, u64::MAX);
            assert!(c0.windows(2).all(|w| w[0].quantum < w[1].quantum));
            if !by_schedule {
                // No overhead, a liquid schedule: the smallest quantum pads least.
                assert_eq!(q0, 1024);
            }
            // A large overhead: one piece per message.
            p.overhead = 1.0;
            let (q1, _) = choose(&p, u64::MAX);
            assert_eq!(q1, *b.iter().max().expect("sizes"));
            // In between, the candidate with the lowest prediction, ties to the larger.
            p.overhead = 2e-6;
            let (q2, c2) = choose(&p, u64::MAX);
            let best = c2
                .iter()
                .map(|c| c.predicted_s)
                .fold(f64::INFINITY, f64::min);
            let chosen = c2.iter().find(|c| c.quantum == q2).expect("a candidate");
            assert_eq!(chosen.predicted_s, best);
            assert!(c2.iter().all(|c| c.predicted_s > best || c.quantum <= q2));
            // A cap on pieces leaves out the small quanta.
            p.overhead = 0.0;
            let (q3, c3) = choose(&p, 200);
            let last = c3.last().expect("one").quantum;
            assert!(c3.iter().all(|c| c.pieces <= 200 || c.quantum == last));
            assert!(q3 > 1024);
        }
        // By schedule, the prediction is the first-fit schedule's own.
        let (q, c) = choose_quantum_by(&t, &b, &p, &ones, u64::MAX, true);
        let ff: f64 = first_fit(&t, &b, q, &p, &ones).makespan(&t, &b, &p);
        assert_eq!(
            c.iter().find(|x| x.quantum == q).map(|x| x.predicted_s),
            Some(ff)
        );
    }

    #[test]
    fn a_passed_deadline_weighs_by_estimate_and_still_gives_a_schedule() {
        let t = ft("fat-tree:4,3");
        let b = sizes(&t, 5);
        let p = Platform::uniform(&t, 1e9);
        let ones = vec![1; t.num_links()];
        let past = Some(Instant::now());
        let c = choose_quantum_until(&t, &b, &p, &ones, u64::MAX, true, past);
        assert!(c.cut);
        assert!(c.schedule.is_none());
        assert!(c.candidates.iter().all(|x| x.predicted_by == BY_ESTIMATE));
        // Without a deadline every candidate is weighed by its schedule, the chosen one kept.
        let full = choose_quantum_until(&t, &b, &p, &ones, u64::MAX, true, None);
        assert!(!full.cut);
        assert!(full
            .candidates
            .iter()
            .all(|x| x.predicted_by == BY_SCHEDULE));
        let kept = full.schedule.expect("the chosen candidate's schedule");
        assert_eq!(kept, first_fit(&t, &b, full.quantum, &p, &ones));
        // First fit past its deadline: nothing, unless its first order must finish.
        assert!(first_fit_until(&t, &b, 1024, &p, &ones, past, false).is_none());
        let first = first_fit_until(&t, &b, 1024, &p, &ones, past, true).expect("one order");
        validate(&t, &ones, &first).expect("valid");
    }
}
