//! Programs: what every rank does, in order.
//!
//! A rank's data for another rank is a byte *stream*: the model's transfers from its host
//! to the other's, in model order, each at its offset (so a pair with two transfers has
//! one stream of both). A [`Piece`] is a slice of a stream; a [`Message`] carries pieces
//! (one for a direct transfer, several when a relay forwards them, as in 001's LG).
//!
//! A rank's operations ([`Op`]) run in order: receives and sends are posted without
//! waiting (a send that forwards relayed data waits for the receives that bring it), a
//! [`Op::Wait`] waits for posted operations, a [`Op::Barrier`] is `MPI_Barrier`.

use std::collections::{BTreeMap, HashMap, HashSet};

use liquid_model::{Schedule, Traffic};

use crate::MpiError;

/// A slice of the data rank `src` has for rank `dst`: `len` bytes from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    /// The rank whose data it is.
    pub src: u32,
    /// The rank it is for.
    pub dst: u32,
    /// Offset in the (src, dst) stream.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// One message: from a rank to a rank in a step, carrying pieces in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The step (timeframe, round, phase) it belongs to.
    pub step: u32,
    /// Sending rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// The pieces, in the order they sit in the message.
    pub pieces: Vec<Piece>,
}

impl Message {
    /// Bytes of the message: the sum of its pieces.
    pub fn bytes(&self) -> u64 {
        self.pieces.iter().map(|p| p.len).sum()
    }
}

/// What a wait waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Every posted operation.
    All,
    /// Posted sends.
    Sends,
    /// Posted receives.
    Recvs,
}

/// One operation of a rank; messages are indices into [`Program::messages`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Post the receive of a message.
    Recv(usize),
    /// Post the send of a message.
    Send(usize),
    /// Post a synchronous send (completes once the receiver has matched it).
    Ssend(usize),
    /// Wait for the posted operations of a kind, of one step or (None) of every step.
    Wait(Wait, Option<u32>),
    /// `MPI_Barrier`.
    Barrier,
}

/// Every rank's operations, and what each rank must end up holding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The mode's name (`frames`, `async`, `all-at-once`, `round-robin`, `pairwise`, `lg`).
    pub mode: String,
    /// The model's host of each rank.
    pub ranks: Vec<String>,
    /// A label per step (`frame 1`, `local phase`, ...).
    pub steps: Vec<String>,
    /// The messages.
    pub messages: Vec<Message>,
    /// Per rank, its operations in order.
    pub ops: Vec<Vec<Op>>,
    /// Per rank, (source rank, bytes) of the data it must hold at the end, by source.
    pub expect: Vec<Vec<(u32, u64)>>,
}

impl Program {
    /// Total bytes of all messages (relayed data counted at every hop).
    pub fn bytes(&self) -> u64 {
        self.messages.iter().map(Message::bytes).sum()
    }

    /// Per step, (messages, bytes).
    pub fn per_step(&self) -> Vec<(usize, u64)> {
        let mut out = vec![(0usize, 0u64); self.steps.len()];
        for m in &self.messages {
            let e = &mut out[m.step as usize];
            e.0 += 1;
            e.1 += m.bytes();
        }
        out
    }

    /// Checks the program's own rules, independently of how it was built:
    /// - every message goes between two distinct ranks, in a step that has a label;
    /// - it is posted exactly once as a send by its sender and once as a receive by its
    ///   receiver; between two ranks, messages of a step are sent and received in the
    ///   same order (MPI matches them in order);
    /// - a rank sends only its own data and data an earlier receive of its brought;
    /// - at the end every rank holds, from every source, exactly the bytes 0..expect of
    ///   the source's stream, each once, and nothing it does not expect.
    pub fn check(&self) -> Result<(), MpiError> {
        let n = self.ranks.len();
        let bad = |s: String| Err(MpiError::Inconsistent(s));
        if self.ops.len() != n || self.expect.len() != n {
            return bad(format!(
                "{n} ranks, {} operation lists, {} expectations",
                self.ops.len(),
                self.expect.len()
            ));
        }
        for (k, m) in self.messages.iter().enumerate() {
            if m.from as usize >= n || m.to as usize >= n {
                return bad(format!("message {k} goes from rank {} to {}", m.from, m.to));
            }
            if m.step as usize >= self.steps.len() {
                return bad(format!(
                    "message {k} is in step {}, which has no label",
                    m.step
                ));
            }
        }
        let mut sent = vec![0u8; self.messages.len()];
        let mut received = vec![0u8; self.messages.len()];
        // Per (from, to, step): the message order at the sender and at the receiver.
        let mut send_order: HashMap<(u32, u32, u32), Vec<usize>> = HashMap::new();
        let mut recv_order: HashMap<(u32, u32, u32), Vec<usize>> = HashMap::new();
        for (r, ops) in self.ops.iter().enumerate() {
            let r = r as u32;
            let mut have: HashSet<Piece> = HashSet::new();
            for op in ops {
                match *op {
                    Op::Recv(k) => {
                        let m = self.message(k)?;
                        if m.to != r {
                            return bad(format!("rank {r} receives message {k}, sent to {}", m.to));
                        }
                        received[k] += 1;
                        recv_order
                            .entry((m.from, m.to, m.step))
                            .or_default()
                            .push(k);
                        have.extend(m.pieces.iter().copied());
                    }
                    Op::Send(k) | Op::Ssend(k) => {
                        let m = self.message(k)?;
                        if m.from != r {
                            return bad(format!("rank {r} sends message {k} of rank {}", m.from));
                        }
                        sent[k] += 1;
                        send_order
                            .entry((m.from, m.to, m.step))
                            .or_default()
                            .push(k);
                        if let Some(p) = m.pieces.iter().find(|p| p.src != r && !have.contains(p)) {
                            return bad(format!(
                                "rank {r} sends {p:?} in step {} before receiving it",
                                m.step
                            ));
                        }
                    }
                    Op::Wait(..) | Op::Barrier => {}
                }
            }
        }
        if let Some(k) = (0..self.messages.len()).find(|&k| sent[k] != 1 || received[k] != 1) {
            return bad(format!(
                "message {k} is sent {} times and received {} times",
                sent[k], received[k]
            ));
        }
        if send_order != recv_order {
            return bad(
                "two ranks send and receive the messages of a step in different orders".into(),
            );
        }
        // Final holdings: pieces delivered to their destination.
        let mut got: Vec<BTreeMap<u32, Vec<(u64, u64)>>> = vec![BTreeMap::new(); n];
        for m in &self.messages {
            for p in m.pieces.iter().filter(|p| p.dst == m.to && p.len > 0) {
                got[m.to as usize]
                    .entry(p.src)
                    .or_default()
                    .push((p.offset, p.len));
            }
        }
        for (r, expect) in self.expect.iter().enumerate() {
            let want: BTreeMap<u32, u64> = expect.iter().copied().collect();
            for (src, slices) in &mut got[r] {
                slices.sort_unstable();
                let mut at = 0;
                for &(off, len) in slices.iter() {
                    if off != at {
                        return bad(format!(
                            "rank {r} holds bytes {at}.. of rank {src}'s data {}",
                            if off < at { "twice" } else { "with a gap" }
                        ));
                    }
                    at = off + len;
                }
                if want.get(src) != Some(&at) {
                    return bad(format!(
                        "rank {r} ends with {at} bytes from rank {src}, expects {:?}",
                        want.get(src)
                    ));
                }
            }
            if let Some((src, _)) = want.iter().find(|(s, &b)| b > 0 && !got[r].contains_key(s)) {
                return bad(format!(
                    "rank {r} expects data from rank {src} and gets none"
                ));
            }
        }
        Ok(())
    }

    fn message(&self, k: usize) -> Result<&Message, MpiError> {
        self.messages.get(k).ok_or_else(|| {
            MpiError::Inconsistent(format!("operation on message {k}, which does not exist"))
        })
    }
}

/// A traffic's data as ranks and streams: who sends what to whom, at which offset.
#[derive(Debug, Clone, PartialEq)]
pub struct Data {
    /// The host of each rank.
    pub ranks: Vec<String>,
    /// Per transfer, (sender rank, receiver rank).
    pub ends: Vec<(u32, u32)>,
    /// Per transfer, its piece of its pair's stream.
    pub pieces: Vec<Piece>,
    /// Per (sender, receiver) pair with data, its transfers in model order.
    pub pairs: BTreeMap<(u32, u32), Vec<usize>>,
}

impl Data {
    /// The data of a traffic with `sizes[t]` bytes per transfer (whole numbers). Ranks are
    /// the hosts (`from`/`to`) in order of first use in the model, or `ranks` when given
    /// (every host must be there).
    pub fn new(
        traffic: &Traffic,
        sizes: &[f64],
        ranks: Option<Vec<String>>,
    ) -> Result<Data, MpiError> {
        if sizes.len() != traffic.len() {
            return Err(MpiError::Input(format!(
                "{} sizes for {} transfers",
                sizes.len(),
                traffic.len()
            )));
        }
        let given = ranks.is_some();
        let mut names = ranks.unwrap_or_default();
        let mut index: HashMap<String, u32> = names
            .iter()
            .enumerate()
            .map(|(k, s)| (s.clone(), k as u32))
            .collect();
        let mut rank = |h: &str| -> Result<u32, MpiError> {
            if let Some(&k) = index.get(h) {
                return Ok(k);
            }
            if given {
                return Err(MpiError::Input(format!("host {h:?} has no rank")));
            }
            names.push(h.to_string());
            index.insert(h.to_string(), (names.len() - 1) as u32);
            Ok((names.len() - 1) as u32)
        };
        let mut ends = Vec::with_capacity(traffic.len());
        let mut pieces = Vec::with_capacity(traffic.len());
        let mut pairs: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        let mut total: HashMap<(u32, u32), u64> = HashMap::new();
        for (t, x) in traffic.transfers().iter().enumerate() {
            let (Some(f), Some(to)) = (&x.from, &x.to) else {
                return Err(MpiError::Input(format!(
                    "transfer {:?} names no sender and receiver (from/to): MPI ranks are hosts",
                    x.id
                )));
            };
            // A transfer from a host to itself (the Swiss-T1 all-to-all has them) is a
            // message of the rank to itself.
            let (a, b) = (rank(f)?, rank(to)?);
            let s = sizes[t];
            if !(s.is_finite() && s >= 0.0 && s.fract() == 0.0 && s <= i32::MAX as f64) {
                return Err(MpiError::Input(format!(
                    "transfer {:?}: size {s} is not a whole number of bytes up to 2^31-1 (MPI's int count)",
                    x.id
                )));
            }
            let at = total.entry((a, b)).or_insert(0);
            pieces.push(Piece {
                src: a,
                dst: b,
                offset: *at,
                len: s as u64,
            });
            *at += s as u64;
            ends.push((a, b));
            pairs.entry((a, b)).or_default().push(t);
        }
        Ok(Data {
            ranks: names,
            ends,
            pieces,
            pairs,
        })
    }

    /// The whole stream of a pair as one piece (none when the pair has no data).
    pub fn stream(&self, a: u32, b: u32) -> Option<Piece> {
        let ts = self.pairs.get(&(a, b))?;
        Some(Piece {
            src: a,
            dst: b,
            offset: 0,
            len: ts.iter().map(|&t| self.pieces[t].len).sum(),
        })
    }

    /// Per rank, (source, bytes) of everything it must receive.
    pub fn expect(&self) -> Vec<Vec<(u32, u64)>> {
        let mut out = vec![Vec::new(); self.ranks.len()];
        for &(a, b) in self.pairs.keys() {
            if let Some(p) = self.stream(a, b) {
                out[b as usize].push((a, p.len));
            }
        }
        for e in &mut out {
            e.sort_unstable();
        }
        out
    }
}

/// Builds the per-rank operations of messages grouped into steps.
struct Builder {
    ops: Vec<Vec<Op>>,
}

impl Builder {
    fn new(n: usize) -> Self {
        Builder {
            ops: vec![Vec::new(); n],
        }
    }
    fn push(&mut self, r: u32, op: Op) {
        self.ops[r as usize].push(op);
    }
}

fn program(
    mode: &str,
    data: &Data,
    steps: Vec<String>,
    messages: Vec<Message>,
    ops: Vec<Vec<Op>>,
) -> Program {
    Program {
        mode: mode.to_string(),
        ranks: data.ranks.clone(),
        steps,
        messages,
        ops,
        expect: data.expect(),
    }
}

/// How a schedule's messages are posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleMode {
    /// Frame by frame: post the frame's receives and sends, wait for them, barrier.
    Frames,
    /// Every receive posted first; each rank's sends in schedule order, each a synchronous
    /// send waited for before the next; no barrier.
    Async,
    /// Every receive, then every send, posted at once; one wait.
    AllAtOnce,
}

/// The program that runs a schedule: one message per transfer, step = its timeframe
/// (all in step 0 for [`ScheduleMode::AllAtOnce`]).
pub fn from_schedule(data: &Data, schedule: &Schedule, mode: ScheduleMode) -> Program {
    let n = data.ranks.len();
    let mut messages = Vec::new();
    let mut b = Builder::new(n);
    let frames: Vec<Vec<usize>> = schedule
        .frames
        .iter()
        .map(|f| f.iter().map(|t| t.index()).collect())
        .collect();
    let message = |t: usize, step: usize| Message {
        step: step as u32,
        from: data.ends[t].0,
        to: data.ends[t].1,
        pieces: vec![data.pieces[t]],
    };
    let (name, steps) = match mode {
        ScheduleMode::Frames => ("frames", frames.len()),
        ScheduleMode::Async => ("async", frames.len()),
        ScheduleMode::AllAtOnce => ("all-at-once", 1),
    };
    let labels: Vec<String> = match mode {
        ScheduleMode::AllAtOnce => vec!["all at once".into()],
        _ => (1..=steps).map(|f| format!("frame {f}")).collect(),
    };
    match mode {
        ScheduleMode::Frames => {
            for (f, frame) in frames.iter().enumerate() {
                let first = messages.len();
                messages.extend(frame.iter().map(|&t| message(t, f)));
                push_frame(&mut b, &messages[first..], first, f, f + 1 < frames.len());
            }
        }
        ScheduleMode::Async | ScheduleMode::AllAtOnce => {
            for (f, frame) in frames.iter().enumerate() {
                let step = if mode == ScheduleMode::Async { f } else { 0 };
                messages.extend(frame.iter().map(|&t| message(t, step)));
            }
            push_unsynchronised(&mut b, &messages, mode == ScheduleMode::Async);
        }
    }
    program(name, data, labels, messages, b.ops)
}

/// The operations of messages run without a barrier: every receive posted first, at every
/// rank, then each rank's sends in order. `synchronous` ([`ScheduleMode::Async`]): each
/// send a synchronous send waited for before the rank's next one (a sender moves on when
/// its message is taken); otherwise ([`ScheduleMode::AllAtOnce`]) every send posted at
/// once. Every rank then waits for everything.
fn push_unsynchronised(b: &mut Builder, messages: &[Message], synchronous: bool) {
    for (k, m) in messages.iter().enumerate() {
        b.push(m.to, Op::Recv(k));
    }
    for (k, m) in messages.iter().enumerate() {
        if synchronous {
            b.push(m.from, Op::Ssend(k));
            b.push(m.from, Op::Wait(Wait::Sends, None));
        } else {
            b.push(m.from, Op::Send(k));
        }
    }
    for r in 0..b.ops.len() {
        b.push(r as u32, Op::Wait(Wait::All, None));
    }
}

/// The operations of frame `f`, whose messages are `frame` (numbered from `first`): every
/// receive posted, then every send, then each rank that takes part waits for all of them;
/// unless the frame is the last (`more`), every rank then meets the barrier.
fn push_frame(b: &mut Builder, frame: &[Message], first: usize, f: usize, more: bool) {
    let mut busy = vec![false; b.ops.len()];
    for (k, m) in frame.iter().enumerate() {
        b.push(m.to, Op::Recv(first + k));
        busy[m.to as usize] = true;
    }
    for (k, m) in frame.iter().enumerate() {
        b.push(m.from, Op::Send(first + k));
        busy[m.from as usize] = true;
    }
    for (r, &busy) in busy.iter().enumerate() {
        if busy {
            b.push(r as u32, Op::Wait(Wait::All, Some(f as u32)));
        }
        if more {
            b.push(r as u32, Op::Barrier);
        }
    }
}

/// The program that runs a schedule of pieces in a mode, as [`from_schedule`] runs a
/// schedule: `frames[f]` lists (transfer, offset in the transfer, bytes); each piece is a
/// message of its slice of the pair's stream, its step its frame (step 0 for
/// [`ScheduleMode::AllAtOnce`]). [`ScheduleMode::Frames`] (mode `pieces`): frame by frame,
/// a barrier between frames. [`ScheduleMode::Async`] (mode `pieces-async`): no barrier,
/// every receive posted first, each rank's pieces sent in frame order, each a synchronous
/// send waited for before the next. A piece outside its transfer is refused; that every
/// byte arrives once is [`Program::check`]'s.
pub fn from_pieces(
    data: &Data,
    frames: &[Vec<(usize, u64, u64)>],
    mode: ScheduleMode,
) -> Result<Program, MpiError> {
    let n = data.ranks.len();
    let mut messages = Vec::new();
    let mut b = Builder::new(n);
    for (f, frame) in frames.iter().enumerate() {
        let first = messages.len();
        let step = if mode == ScheduleMode::AllAtOnce {
            0
        } else {
            f
        };
        for &(t, off, len) in frame {
            let whole = data.pieces.get(t).ok_or_else(|| {
                MpiError::Inconsistent(format!("frame {}: no transfer {t}", f + 1))
            })?;
            if len == 0 || off.checked_add(len).is_none_or(|end| end > whole.len) {
                return Err(MpiError::Inconsistent(format!(
                    "frame {}: bytes {off}..{} of transfer {t}, which has {}",
                    f + 1,
                    off.saturating_add(len),
                    whole.len
                )));
            }
            messages.push(Message {
                step: step as u32,
                from: data.ends[t].0,
                to: data.ends[t].1,
                pieces: vec![Piece {
                    offset: whole.offset + off,
                    len,
                    ..*whole
                }],
            });
        }
        if mode == ScheduleMode::Frames {
            push_frame(&mut b, &messages[first..], first, f, f + 1 < frames.len());
        }
    }
    let (name, labels) = match mode {
        ScheduleMode::AllAtOnce => ("pieces-all-at-once", vec!["all at once".to_string()]),
        _ => (
            if mode == ScheduleMode::Frames {
                "pieces"
            } else {
                "pieces-async"
            },
            (1..=frames.len()).map(|f| format!("frame {f}")).collect(),
        ),
    };
    if mode != ScheduleMode::Frames {
        push_unsynchronised(&mut b, &messages, mode == ScheduleMode::Async);
    }
    Ok(program(name, data, labels, messages, b.ops))
}

/// The rounds of the direct all-to-all over the ranks: round s (0 … n-1) sends rank i's
/// whole stream for rank (i + s) mod n, for the pairs with data (round 0: a rank's data
/// for itself, when the model has such transfers); rounds without any message are left
/// out. `pairwise`: each rank receives from (i - s) and sends to (i + s),
/// waits for both and moves on (Open MPI's pairwise exchange, no barrier); otherwise a
/// barrier ends every round (round-robin frames).
pub fn rounds(data: &Data, pairwise: bool) -> Program {
    let n = data.ranks.len();
    let mut messages: Vec<Message> = Vec::new();
    let mut labels = Vec::new();
    let mut b = Builder::new(n);
    let mut round_of: Vec<Vec<Option<usize>>> = Vec::new(); // per round, per sender: message
    for s in 0..n {
        let mut these = vec![None; n];
        let step = labels.len() as u32;
        for (i, slot) in these.iter_mut().enumerate() {
            let j = (i + s) % n;
            if let Some(p) = data.stream(i as u32, j as u32) {
                *slot = Some(messages.len());
                messages.push(Message {
                    step,
                    from: i as u32,
                    to: j as u32,
                    pieces: vec![p],
                });
            }
        }
        if these.iter().any(Option::is_some) {
            labels.push(format!("round {s}"));
            round_of.push(these);
        }
    }
    let last = round_of.len();
    for (step, these) in round_of.iter().enumerate() {
        let mut busy = vec![false; n];
        // Receives first, then sends, at every rank.
        for k in these.iter().flatten() {
            b.push(messages[*k].to, Op::Recv(*k));
            busy[messages[*k].to as usize] = true;
        }
        for k in these.iter().flatten() {
            b.push(messages[*k].from, Op::Send(*k));
            busy[messages[*k].from as usize] = true;
        }
        for (r, &busy) in busy.iter().enumerate() {
            if busy {
                b.push(r as u32, Op::Wait(Wait::All, Some(step as u32)));
            }
            if !pairwise && step + 1 < last {
                b.push(r as u32, Op::Barrier);
            }
        }
    }
    let name = if pairwise { "pairwise" } else { "round-robin" };
    program(name, data, labels, messages, b.ops)
}

/// The ranks of an LG program: one per LG node (cluster 1 then cluster 2), checked.
fn lg_ranks(data: &Data, lg: &liquid_sim::two_clusters::Lg) -> Result<usize, MpiError> {
    let n = lg.n1 + lg.n2;
    if data.ranks.len() != n {
        return Err(MpiError::Input(format!(
            "LG for {}+{} nodes on {} ranks",
            lg.n1,
            lg.n2,
            data.ranks.len()
        )));
    }
    Ok(n)
}

/// One LG parcel (its pieces, each one pair's stream) as a message of `step`; an error
/// names a pair the model has no data for.
fn lg_message(
    data: &Data,
    step: u32,
    p: &liquid_sim::two_clusters::Parcel,
) -> Result<Message, MpiError> {
    let piece = |(i, j): (usize, usize)| -> Result<Piece, MpiError> {
        data.stream(i as u32, j as u32).ok_or_else(|| {
            MpiError::Input(format!(
                "LG needs data from {} to {}, and the model has none",
                data.ranks[i], data.ranks[j]
            ))
        })
    };
    Ok(Message {
        step,
        from: p.from as u32,
        to: p.to as u32,
        pieces: p
            .pieces
            .iter()
            .map(|&x| piece(x))
            .collect::<Result<_, _>>()?,
    })
}

/// Paper 001's LG exactly as `liquid_sim`'s [`liquid_sim::two_clusters::Lg::plan`] runs it:
/// ranks are the layout's nodes (cluster 1 then cluster 2); step 0 is the local phase (one
/// message per piece, all posted at once), step s the inter-cluster exchanges of 001's
/// step s. A rank starts an exchange once its local receives have arrived (the data it
/// relays) and its previous exchange has finished. Every pair's stream is one piece of
/// `bytes`.
pub fn lg(data: &Data, lg: &liquid_sim::two_clusters::Lg) -> Result<Program, MpiError> {
    let n = lg_ranks(data, lg)?;
    let mut messages = Vec::new();
    for p in &lg.local {
        messages.push(lg_message(data, 0, p)?);
    }
    let local = messages.len();
    let mut labels = vec!["local phase".to_string()];
    let mut exchanges: Vec<(usize, usize, usize)> = Vec::new(); // (step, out, back)
    for (s, step) in lg.steps.iter().enumerate() {
        labels.push(format!("exchange step {}", s + 1));
        for e in step {
            let mut k = [0usize; 2];
            for (slot, p) in k.iter_mut().zip([&e.out, &e.back]) {
                *slot = messages.len();
                messages.push(lg_message(data, s as u32 + 1, p)?);
            }
            exchanges.push((s + 1, k[0], k[1]));
        }
    }
    let mut b = Builder::new(n);
    for (k, m) in messages[..local].iter().enumerate() {
        b.push(m.to, Op::Recv(k));
    }
    for (k, m) in messages[..local].iter().enumerate() {
        b.push(m.from, Op::Send(k));
    }
    for &(s, out, back) in &exchanges {
        for (me, recv, send) in [
            (messages[out].from, back, out),
            (messages[out].to, out, back),
        ] {
            b.push(me, Op::Wait(Wait::Recvs, Some(0)));
            b.push(me, Op::Recv(recv));
            b.push(me, Op::Send(send));
            b.push(me, Op::Wait(Wait::All, Some(s as u32)));
        }
    }
    for r in 0..n {
        b.push(r as u32, Op::Wait(Wait::All, None));
    }
    Ok(program("lg", data, labels, messages, b.ops))
}

/// Paper 001's LG with each phase run by a liquid schedule, frame by frame, as
/// `liquid_sim`'s [`liquid_sim::two_clusters::Lg::plan_scheduled`] runs it: `local` holds
/// timeframes of indices into [`liquid_sim::two_clusters::Lg::local_aggregated`] (each
/// sender's pieces for one relay in one message), `exchanges` timeframes of indices into
/// [`liquid_sim::two_clusters::Lg::exchanges`]; the local frames first, a barrier between
/// every two frames. Steps: the local frames, then the inter-cluster frames.
pub fn lg_frames(
    data: &Data,
    lg: &liquid_sim::two_clusters::Lg,
    local: &[Vec<usize>],
    exchanges: &[Vec<usize>],
) -> Result<Program, MpiError> {
    let n = lg_ranks(data, lg)?;
    let phases = [
        ("local frame", lg.local_aggregated(), local),
        ("inter-cluster frame", lg.exchanges(), exchanges),
    ];
    let mut messages = Vec::new();
    let mut labels = Vec::new();
    let mut frames: Vec<std::ops::Range<usize>> = Vec::new();
    for (what, parcels, schedule) in &phases {
        let mut seen = vec![false; parcels.len()];
        for (f, frame) in schedule.iter().enumerate() {
            let step = labels.len() as u32;
            labels.push(format!("{what} {}", f + 1));
            let first = messages.len();
            for &k in frame {
                let p = parcels
                    .get(k)
                    .ok_or_else(|| MpiError::Input(format!("{what} {}: no message {k}", f + 1)))?;
                if std::mem::replace(&mut seen[k], true) {
                    return Err(MpiError::Input(format!("{what}s: message {k} twice")));
                }
                messages.push(lg_message(data, step, p)?);
            }
            frames.push(first..messages.len());
        }
        if let Some(k) = seen.iter().position(|s| !s) {
            return Err(MpiError::Input(format!(
                "{what}s: message {k} is in no frame"
            )));
        }
    }
    let mut b = Builder::new(n);
    let last = frames.len();
    for (f, range) in frames.into_iter().enumerate() {
        let mut busy = vec![false; n];
        for k in range.clone() {
            b.push(messages[k].to, Op::Recv(k));
            busy[messages[k].to as usize] = true;
        }
        for k in range {
            b.push(messages[k].from, Op::Send(k));
            busy[messages[k].from as usize] = true;
        }
        for (r, &busy) in busy.iter().enumerate() {
            if busy {
                b.push(r as u32, Op::Wait(Wait::All, Some(f as u32)));
            }
            if f + 1 < last {
                b.push(r as u32, Op::Barrier);
            }
        }
    }
    Ok(program("lg-liquid", data, labels, messages, b.ops))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_to_all(n1: usize, n2: usize) -> Traffic {
        let n = n1 + n2;
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .collect();
        liquid_sim::two_clusters::scheduling_traffic("a2a", n1, &pairs, 1).expect("traffic")
    }

    #[test]
    fn every_builder_makes_a_consistent_program() {
        let t = all_to_all(2, 2);
        let data = Data::new(&t, &vec![100.0; t.len()], None).expect("data");
        let all = Schedule::new(vec![t.transfer_ids().collect()]);
        let per: Vec<Vec<_>> = t.transfer_ids().map(|x| vec![x]).collect();
        let split = Schedule::new(per);
        for p in [
            from_schedule(&data, &split, ScheduleMode::Frames),
            from_schedule(&data, &split, ScheduleMode::Async),
            from_schedule(&data, &all, ScheduleMode::AllAtOnce),
            rounds(&data, true),
            rounds(&data, false),
        ] {
            p.check().unwrap_or_else(|e| panic!("{}: {e}", p.mode));
            assert_eq!(p.messages.len(), 12, "{}", p.mode);
        }
    }

    #[test]
    fn pieces_are_reassembled_and_a_wrong_cut_is_caught() {
        let t = all_to_all(2, 2);
        let data = Data::new(&t, &vec![100.0; t.len()], None).expect("data");
        // Each message in pieces of 40, 40 and 20 bytes, one frame per piece index.
        let frames: Vec<Vec<(usize, u64, u64)>> = [(0, 40), (40, 40), (80, 20)]
            .iter()
            .map(|&(off, len)| (0..t.len()).map(|x| (x, off, len)).collect())
            .collect();
        for mode in [
            ScheduleMode::Frames,
            ScheduleMode::Async,
            ScheduleMode::AllAtOnce,
        ] {
            let p = from_pieces(&data, &frames, mode).expect("builds");
            p.check().expect("every byte once");
            assert_eq!(p.messages.len(), 3 * t.len());
            assert_eq!(p.bytes(), 100 * t.len() as u64);
            // A piece left out: its receiver misses the bytes.
            let mut short = frames.clone();
            short[2].pop();
            let e = from_pieces(&data, &short, mode).expect("builds").check();
            assert!(e.is_err(), "{mode:?}");
            // A piece twice: bytes held twice.
            let mut twice = frames.clone();
            twice[2].push((0, 0, 40));
            let e = from_pieces(&data, &twice, mode).expect("builds").check();
            assert!(e.is_err(), "{mode:?}");
            // Past the end of the transfer: refused at once.
            let mut past = frames.clone();
            past[2][0] = (0, 80, 21);
            assert!(from_pieces(&data, &past, mode).is_err(), "{mode:?}");
        }
    }

    #[test]
    fn pieces_async_has_no_barrier_and_sends_in_frame_order() {
        let t = all_to_all(2, 2);
        let data = Data::new(&t, &vec![100.0; t.len()], None).expect("data");
        let frames: Vec<Vec<(usize, u64, u64)>> = [(0, 60), (60, 40)]
            .iter()
            .map(|&(off, len)| (0..t.len()).map(|x| (x, off, len)).collect())
            .collect();
        let p = from_pieces(&data, &frames, ScheduleMode::Async).expect("builds");
        assert_eq!(p.mode, "pieces-async");
        assert_eq!(p.steps.len(), 2);
        for (r, ops) in p.ops.iter().enumerate() {
            assert!(!ops.contains(&Op::Barrier), "rank {r}");
            // Every receive before the first send; each send synchronous and waited for.
            let first_send = ops.iter().position(|o| matches!(o, Op::Ssend(_)));
            let last_recv = ops.iter().rposition(|o| matches!(o, Op::Recv(_)));
            assert!(last_recv < first_send, "rank {r}");
            let sends: Vec<usize> = ops
                .iter()
                .filter_map(|o| match o {
                    Op::Ssend(k) => Some(*k),
                    _ => None,
                })
                .collect();
            let steps: Vec<u32> = sends.iter().map(|&k| p.messages[k].step).collect();
            assert!(
                steps.windows(2).all(|w| w[0] <= w[1]),
                "rank {r}: {steps:?}"
            );
            for (i, o) in ops.iter().enumerate() {
                if matches!(o, Op::Ssend(_)) {
                    assert_eq!(ops[i + 1], Op::Wait(Wait::Sends, None), "rank {r}");
                }
            }
        }
    }

    #[test]
    fn lg_by_frames_is_consistent_and_relays() {
        let t = all_to_all(3, 4);
        let data = Data::new(&t, &vec![100.0; t.len()], None).expect("data");
        let alg = liquid_sim::two_clusters::Lg::new(3, 4);
        // One message per frame in both phases: the order the parcels come in.
        let one = |n: usize| (0..n).map(|k| vec![k]).collect::<Vec<_>>();
        let (nl, nx) = (alg.local_aggregated().len(), alg.exchanges().len());
        let p = lg_frames(&data, &alg, &one(nl), &one(nx)).expect("program");
        p.check().expect("consistent");
        assert_eq!(p.steps.len(), nl + nx);
        // Relays forward data that is not theirs.
        assert!(p
            .messages
            .iter()
            .any(|m| m.pieces.iter().any(|x| x.src != m.from)));
        // A frame schedule that leaves a message out is refused.
        let e = lg_frames(&data, &alg, &one(nl - 1), &one(nx)).expect_err("incomplete");
        assert!(e.to_string().contains("in no frame"), "{e}");
    }

    #[test]
    fn lg_is_consistent_and_relays() {
        let t = all_to_all(3, 4);
        let data = Data::new(&t, &vec![10.0; t.len()], None).expect("data");
        let alg = liquid_sim::two_clusters::Lg::new(3, 4);
        let p = lg(&data, &alg).expect("lg");
        p.check().expect("consistent");
        assert!(p.messages.iter().any(|m| m.pieces.len() > 1));
    }

    #[test]
    fn the_check_catches_a_missing_receive_and_a_lost_piece() {
        let t = all_to_all(1, 2);
        let data = Data::new(&t, &vec![8.0; t.len()], None).expect("data");
        let p = rounds(&data, false);
        let mut no_recv = p.clone();
        no_recv.ops[1].retain(|o| !matches!(o, Op::Recv(_)));
        assert!(no_recv.check().is_err());
        let mut short = p.clone();
        short.messages[0].pieces[0].len = 4;
        let e = short.check().expect_err("short").to_string();
        assert!(e.contains("ends with 4 bytes"), "{e}");
        let mut relay = p;
        relay.messages[0].pieces.push(Piece {
            src: 2,
            dst: 1,
            offset: 0,
            len: 8,
        });
        let e = relay.check().expect_err("relay").to_string();
        assert!(e.contains("before receiving it"), "{e}");
    }
}
