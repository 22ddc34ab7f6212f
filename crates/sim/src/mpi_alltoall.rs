//! MPI libraries' all-to-all (`MPI_Alltoall`) as plans: the algorithms of Open MPI, MPICH
//! and SMPI, and the decision functions that pick one by communicator size and message
//! size in Open MPI 1.1.2 (the library paper 001 measured), Open MPI 4.1 and MPICH 3.3.
//!
//! # What a plan models
//! Every algorithm is a sequence of *rounds* per rank. In a round a rank posts its sends
//! (in the library's order) and its receives, then waits for all of them: a blocking
//! `sendrecv` (pairwise, ring, pair, Bruck) is a round of one send, a `waitall` on a
//! block of requests (basic linear, MPICH's scattered) a round of several. A rank starts
//! its next round when
//! - every message it receives in this round is delivered, and
//! - every message it sends in this round is complete: at once for an *eager* message
//!   (the library copies it and returns), at delivery for a *rendezvous* message (the
//!   eager limit or more: the send waits for the receiver).
//!
//! An eager message leaves when its sender posts it (the receiver buffers it if it has
//! not posted its receive yet). A rendezvous message is Open MPI 1.1.2 ob1's protocol over
//! TCP, as three messages (`ompi/mca/pml/ob1` at v1.1.2):
//! 1. a first fragment of the eager limit less [`OB1_HEADER_BYTES`] of data, sent at once
//!    (`mca_pml_ob1_send_request_start_rndv`, `pml_ob1_sendreq.c`);
//! 2. an ACK of no data from the receiver, once that fragment has arrived and the receiver
//!    has reached the round that posts its receive (the match,
//!    `mca_pml_ob1_recv_request_progress` on `MCA_PML_OB1_HDR_TYPE_RNDV`, which calls
//!    `mca_pml_ob1_recv_request_ack`, `pml_ob1_recvreq.c`);
//! 3. the rest of the data, once the sender has the ACK (`MCA_PML_OB1_SEND_REQUEST_ADVANCE`
//!    then `mca_pml_ob1_send_request_schedule`).
//!
//! So a plan with rendezvous messages carries its own handshake: simulate it with no eager
//! limit in the transport ([`crate::study::Case::simulate_mpi`]), or the engine would add a
//! second one. It was checked against SMPI running the same protocol with point-to-point
//! calls (`benchmarks/smpi/alltoall_rndv.c`, `benchmarks/results/mpi-rndv.md`).
//!
//! A round is one empty step (the join, after what it waits for) and one step per message
//! (after the join), so a message waits only for its own rank's progress. A rank's data
//! for itself is a local copy, never a message. The steps' group is the round.
//!
//! # Sources
//! The algorithms and thresholds come from the libraries' source; each item names its
//! file and lines. SMPI (SimGrid 3.32, `src/smpi/colls/alltoall/`) implements the same
//! algorithms under the names of [`Algorithm::smpi_name`], so each plan can be checked
//! against `smpirun --cfg=smpi/alltoall:NAME`.

use std::time::Instant;

use crate::plan::{Message, Plan, Step};
use crate::{SimError, Stopped};

/// The size of Open MPI 1.1.2 ob1's header union (`mca_pml_ob1_hdr_t`, its largest member
/// `mca_pml_ob1_rget_hdr_t`: 72 bytes on LP64, `ompi/mca/pml/ob1/pml_ob1_hdr.h`): the first
/// fragment of a rendezvous carries the BTL's eager limit less this many bytes of data
/// (`pml_ob1_sendreq.h`, `eager_limit = bml_btl->btl_eager_limit -
/// sizeof(mca_pml_ob1_hdr_t)`, then `size = eager_limit` for `start_rndv`).
pub const OB1_HEADER_BYTES: f64 = 72.0;

/// The data bytes of the first fragment of an ob1 rendezvous message of `bytes` under the
/// eager limit `limit` (the limit less [`OB1_HEADER_BYTES`], at most the message).
pub fn ob1_first_fragment(limit: f64, bytes: f64) -> f64 {
    (limit - OB1_HEADER_BYTES).clamp(0.0, bytes)
}

/// Sends built between two checks of [`Algorithm::plan_until`]'s deadline (a check costs
/// a clock read; a send, a route copy and a step).
pub const PLAN_CHECK_EVERY: usize = 1024;

/// One round of one rank: its messages as (destination, blocks of data), in posting order.
pub type Round = Vec<(usize, usize)>;

/// The size of an algorithm's plan, known from its rounds without building it
/// ([`Algorithm::size`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanSize {
    /// Steps: a join per rank and round, and a step per message.
    pub steps: usize,
    /// Messages: one per send, three for a rendezvous with its handshake.
    pub messages: usize,
    /// The data the sends carry, summed in the plan's step order (round, then rank), as
    /// [`Plan::bytes`] sums the messages of the plan built.
    pub bytes: f64,
}

/// [`PlanSize`] of the plan of `rounds` over `p` ranks (see [`Algorithm::plan_with`]).
fn size_of(
    rounds: &[Vec<Round>],
    p: usize,
    bytes: f64,
    eager_limit: Option<f64>,
    handshake: bool,
) -> PlanSize {
    let depth = rounds.iter().map(Vec::len).max().unwrap_or(0);
    let (mut messages, mut total) = (0, 0.0);
    for &(_, blocks) in (0..depth)
        .flat_map(|k| rounds.iter().filter_map(move |rr| rr.get(k)))
        .flatten()
    {
        let size = bytes * blocks as f64;
        let rendezvous = eager_limit.is_some_and(|e| size >= e);
        messages += if rendezvous && handshake { 3 } else { 1 };
        total += size;
    }
    PlanSize {
        steps: depth * p + messages,
        messages,
        bytes: total,
    }
}

/// An all-to-all algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Algorithm {
    /// Post every receive and every send, then wait for all (one round). Sends go to
    /// `rank+1, rank+2, …` (Open MPI 1.1.2 `coll_tuned_alltoall.c`
    /// `ompi_coll_tuned_alltoall_intra_basic_linear`, lines 321-420; Open MPI 4.1's
    /// `linear_sync` with its default `alltoall_algorithm_max_requests` 0 posts all
    /// `size-1` requests too: `coll_base_alltoall.c` line 417, `coll_tuned_component.c`
    /// line 66). SMPI: `basic_linear` (which posts its sends in reverse order).
    BasicLinear,
    /// `p-1` blocking `sendrecv`s; in step s rank r sends to `r+s` and receives from
    /// `r-s` (mod p) (Open MPI 1.1.2 `coll_tuned_alltoall.c` lines 33-84; Open MPI 4.1
    /// `coll_base_alltoall.c` `intra_pairwise`; MPICH 3.3 `alltoall_intra_pairwise.c`
    /// lines 79-86 when p is not a power of two). SMPI: `ring` (the same exchanges).
    Pairwise,
    /// `p-1` blocking `sendrecv`s with `rank XOR i` (p a power of two only): MPICH 3.3
    /// `alltoall_intra_pairwise.c` line 82. SMPI: `pair`.
    Pair,
    /// ⌈log2 p⌉ blocking `sendrecv`s; at distance d = 1, 2, 4, … rank r sends to `r+d`
    /// the blocks i (1 ≤ i < p) with `i & d ≠ 0`, packed in one message (Open MPI 1.1.2
    /// `coll_tuned_alltoall.c` lines 86-250; MPICH 3.3 `alltoall_intra_brucks.c` lines
    /// 93-137). SMPI: `bruck`.
    ///
    /// Open MPI 4.1's "modified Bruck" (algorithm 3, `modified_bruck`;
    /// `ompi_coll_base_alltoall_intra_bruck`, `ompi/mca/coll/base/coll_base_alltoall.c`
    /// at v4.1.6, lines 218-341) is this same plan on the network. It differs from the
    /// textbook Bruck only in its local copies: step 1 (lines 260-276) rotates the send
    /// buffer by `rank` blocks into a temporary buffer, the communication step (lines
    /// 278-315) describes the blocks to move with an indexed datatype instead of packing
    /// them, and step 3 (lines 317-324) undoes the rotation locally. Its communication
    /// step is, for `distance` = 1, 2, 4, … < size: `sendto = (rank + distance) % size`,
    /// `recvfrom = (rank - distance + size) % size`, the k blocks `i` in 1..size with
    /// `(i & distance) == distance` each of `scount` elements, sent as one message by
    /// one `ompi_coll_base_sendrecv` (`coll_base_util.c` lines 35-62: an `irecv`, a
    /// blocking standard `send`, then a wait for the receive). So every message between
    /// nodes, its size, its peers, its order and what it waits for are those of this
    /// plan; the local copies cost no network time (the plan, like SMPI, charges none).
    Bruck,
    /// MPICH's scattered all-to-all: blocks of `throttle` peers (default
    /// `MPIR_CVAR_ALLTOALL_THROTTLE` = 32); in block b rank r receives from `r+i` and
    /// sends to `r-i` (mod p) for i in the block, then waits for the block (MPICH 3.3
    /// `alltoall_intra_scattered.c` lines 71-100). SMPI has no such algorithm.
    Scattered {
        /// Peers per block (0: all at once).
        throttle: usize,
    },
}

impl Algorithm {
    /// The algorithm's name in reports and on the command line.
    pub fn name(self) -> String {
        match self {
            Algorithm::BasicLinear => "basic-linear".into(),
            Algorithm::Pairwise => "pairwise".into(),
            Algorithm::Pair => "pair".into(),
            Algorithm::Bruck => "bruck".into(),
            Algorithm::Scattered { throttle } => format!("scattered-{throttle}"),
        }
    }

    /// SMPI's name of the same algorithm (`--cfg=smpi/alltoall:NAME`), if it has one.
    pub fn smpi_name(self) -> Option<&'static str> {
        match self {
            Algorithm::BasicLinear => Some("basic_linear"),
            Algorithm::Pairwise => Some("ring"),
            Algorithm::Pair => Some("pair"),
            Algorithm::Bruck => Some("bruck"),
            Algorithm::Scattered { .. } => None,
        }
    }

    /// The sends of every rank, round by round: `rounds[r][k]` lists rank r's messages of
    /// round k as (destination, blocks of data), in the order the library posts them.
    /// A block is one rank's data for one rank (`m` bytes).
    pub fn rounds(self, p: usize) -> Result<Vec<Vec<Round>>, SimError> {
        if p == 0 {
            return Err(SimError::Mismatch("an all-to-all of 0 ranks".into()));
        }
        let per_rank = |f: &dyn Fn(usize) -> Vec<Round>| (0..p).map(f).collect();
        Ok(match self {
            Algorithm::BasicLinear => {
                per_rank(&|r| vec![(1..p).map(|i| ((r + i) % p, 1)).collect()])
            }
            Algorithm::Pairwise => per_rank(&|r| (1..p).map(|s| vec![((r + s) % p, 1)]).collect()),
            Algorithm::Pair => {
                if !p.is_power_of_two() {
                    return Err(SimError::Mismatch(format!(
                        "the pair all-to-all needs a power-of-two number of ranks, not {p}"
                    )));
                }
                per_rank(&|r| (1..p).map(|i| vec![(r ^ i, 1)]).collect())
            }
            Algorithm::Bruck => per_rank(&|r| {
                let mut rounds = Vec::new();
                let mut d = 1;
                while d < p {
                    let blocks = (1..p).filter(|i| i & d != 0).count();
                    rounds.push(vec![((r + d) % p, blocks)]);
                    d <<= 1;
                }
                rounds
            }),
            Algorithm::Scattered { throttle } => {
                let block = if throttle == 0 { p } else { throttle };
                per_rank(&|r| {
                    (0..p)
                        .step_by(block)
                        .map(|ii| {
                            (ii..(ii + block).min(p))
                                .map(|i| ((r + p - i % p) % p, 1))
                                .filter(|&(d, _)| d != r)
                                .collect()
                        })
                        .collect()
                })
            }
        })
    }

    /// The algorithm's plan for `p` ranks exchanging `bytes` per pair: `route(i, j)` is
    /// the route from rank i to rank j; messages of `eager_limit` bytes or more are ob1
    /// rendezvous (first fragment, ACK, rest) and complete when their rest is delivered,
    /// the others leave and complete at once (see the module docs).
    pub fn plan(
        self,
        p: usize,
        bytes: f64,
        eager_limit: Option<f64>,
        route: &dyn Fn(usize, usize) -> Vec<u32>,
    ) -> Result<Plan, SimError> {
        self.plan_with(p, bytes, eager_limit, true, route)
    }

    /// [`Algorithm::plan`], with `handshake` false: each rendezvous message is one
    /// message that leaves once the receiver has reached the round that posts its receive,
    /// with no handshake (as SMPI, which starts a communication when both sides are
    /// posted; for the check against SMPI's own algorithms).
    pub fn plan_with(
        self,
        p: usize,
        bytes: f64,
        eager_limit: Option<f64>,
        handshake: bool,
        route: &dyn Fn(usize, usize) -> Vec<u32>,
    ) -> Result<Plan, SimError> {
        self.plan_until(p, bytes, eager_limit, handshake, route, None)
    }

    /// The size of [`Algorithm::plan_with`]'s plan (steps, messages, bytes), from the
    /// rounds alone: what a plan stopped while it was built ([`Algorithm::plan_until`])
    /// would have held.
    pub fn size(
        self,
        p: usize,
        bytes: f64,
        eager_limit: Option<f64>,
        handshake: bool,
    ) -> Result<PlanSize, SimError> {
        Ok(size_of(&self.rounds(p)?, p, bytes, eager_limit, handshake))
    }

    /// [`Algorithm::plan_with`], stopped with [`SimError::TimeLimit`] when `deadline`
    /// passes while the messages are built (checked before the first one, then every
    /// [`PLAN_CHECK_EVERY`] messages): the [`Stopped`] says 0 s simulated, nothing done,
    /// and the plan's full size in steps and messages, as if the simulation had been
    /// stopped before its first event.
    pub fn plan_until(
        self,
        p: usize,
        bytes: f64,
        eager_limit: Option<f64>,
        handshake: bool,
        route: &dyn Fn(usize, usize) -> Vec<u32>,
        deadline: Option<Instant>,
    ) -> Result<Plan, SimError> {
        let rounds = self.rounds(p)?;
        let depth = rounds.iter().map(Vec::len).max().unwrap_or(0);
        let stopped = || {
            let size = size_of(&rounds, p, bytes, eager_limit, handshake);
            SimError::TimeLimit(Stopped {
                simulated_s: 0.0,
                steps_done: 0,
                steps: size.steps,
                messages_done: 0,
                messages: size.messages,
            })
        };
        let past = || deadline.is_some_and(|d| Instant::now() >= d);
        if past() {
            return Err(stopped());
        }
        let mut sends = 0usize;
        // Step indices: joins first, then messages, in (round, rank) order.
        let join = |r: usize, k: usize| k * p + r;
        let mut steps: Vec<Step> = (0..depth * p)
            .map(|s| Step {
                group: Some(s / p),
                ..Step::default()
            })
            .collect();
        // msg_steps[k][r]: the message steps of rank r's round k.
        let mut msg_steps = vec![vec![Vec::new(); p]; depth];
        for (k, sends_of) in msg_steps.iter_mut().enumerate() {
            for (r, rr) in rounds.iter().enumerate() {
                let Some(round) = rr.get(k) else { continue };
                for &(dst, blocks) in round {
                    sends += 1;
                    if sends % PLAN_CHECK_EVERY == 0 && past() {
                        return Err(stopped());
                    }
                    let size = bytes * blocks as f64;
                    let message = |after: Vec<usize>, from: usize, to: usize, bytes: f64| Step {
                        after,
                        delay: 0.0,
                        messages: vec![Message {
                            route: route(from, to),
                            bytes,
                            transfer: None,
                        }],
                        group: Some(k),
                    };
                    let Some(limit) = eager_limit.filter(|&e| size >= e) else {
                        sends_of[r].push((steps.len(), dst, size));
                        steps.push(message(vec![join(r, k)], r, dst, size));
                        continue;
                    };
                    if !handshake {
                        sends_of[r].push((steps.len(), dst, size));
                        let mut after = vec![join(r, k)];
                        if k < rounds[dst].len() {
                            after.push(join(dst, k));
                        }
                        steps.push(message(after, r, dst, size));
                        continue;
                    }
                    // ob1's rendezvous: the first fragment goes at once; the receiver's
                    // ACK once the fragment has arrived and its receive is posted (in its
                    // own round k, the same round in every algorithm); then the rest.
                    let first = ob1_first_fragment(limit, size);
                    let fragment = steps.len();
                    steps.push(message(vec![join(r, k)], r, dst, first));
                    let mut ready = vec![fragment];
                    if k < rounds[dst].len() {
                        ready.push(join(dst, k));
                    }
                    steps.push(message(ready, dst, r, 0.0));
                    sends_of[r].push((steps.len(), dst, size));
                    steps.push(message(vec![steps.len() - 1], r, dst, size - first));
                }
            }
        }
        // Rank r's join of round k waits for round k - 1's messages to r and for its own
        // rendezvous sends of that round: `waits[r]` gathers both, in one pass over the
        // round's messages (linear in them, not ranks × messages).
        let mut waits: Vec<Vec<usize>> = vec![Vec::new(); p];
        for k in 1..depth {
            for w in &mut waits {
                w.clear();
            }
            for (s, sends) in msg_steps[k - 1].iter().enumerate() {
                for &(step, dst, size) in sends {
                    waits[dst].push(step);
                    if dst != s && eager_limit.is_some_and(|e| size >= e) {
                        waits[s].push(step);
                    }
                }
            }
            for (r, wait) in waits.iter().enumerate() {
                let mut after = wait.clone();
                // A rank with no earlier round still waits for its own previous join.
                after.push(join(r, k - 1));
                after.sort_unstable();
                after.dedup();
                steps[join(r, k)].after = after;
            }
        }
        Ok(Plan { steps })
    }
}

/// An MPI library (and version) whose `MPI_Alltoall` selection is modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Library {
    /// Open MPI 1.1.2, component `tuned`, fixed decision (001's library).
    OpenMpi112,
    /// Open MPI 4.1, component `tuned`, fixed decision.
    OpenMpi41,
    /// MPICH 3.3 (the last version with the size thresholds in code; later versions
    /// select through a JSON tuning file).
    Mpich33,
}

impl Library {
    /// Every library, in report order.
    pub const ALL: [Library; 3] = [Library::OpenMpi112, Library::OpenMpi41, Library::Mpich33];

    /// The plan name: `mpi-ompi-1.1.2`, `mpi-ompi-4.1`, `mpi-mpich-3.3`.
    pub fn name(self) -> &'static str {
        match self {
            Library::OpenMpi112 => "mpi-ompi-1.1.2",
            Library::OpenMpi41 => "mpi-ompi-4.1",
            Library::Mpich33 => "mpi-mpich-3.3",
        }
    }

    /// The library by its plan name.
    pub fn from_name(name: &str) -> Option<Library> {
        Library::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The algorithm the library picks for `p` ranks and `bytes` per pair (MPI_BYTE
    /// counts; contiguous buffers, not in place).
    ///
    /// - **Open MPI 1.1.2**, `ompi/mca/coll/tuned/coll_tuned_decision_fixed.c` lines
    ///   82-104 (`tuned` has priority 30 over `basic`'s 10, `coll_tuned_component.c`
    ///   line 44, so it is the default): p = 2: one `sendrecv` (pairwise); p ≥ 12 and
    ///   `bytes·p` ≤ 768: Bruck; `bytes·p` ≤ 131072: basic linear; else pairwise.
    /// - **Open MPI 4.1** (v4.1.6), same file, lines 228-410: a table by communicator
    ///   size on `bytes` alone; its algorithms 1 (linear) and 4 (linear_sync, all
    ///   requests at once by default) are basic linear, 2 pairwise, 3 Bruck, 5 (two
    ///   processes) one `sendrecv`.
    /// - **MPICH 3.3** (v3.3.2), `src/mpi/coll/alltoall/alltoall.c` lines 144-160 with
    ///   the defaults of `MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE` (256) and `_MEDIUM_MSG_SIZE`
    ///   (32768): `bytes` ≤ 256 and p ≥ 8: Bruck; `bytes` ≤ 32768: scattered (throttle
    ///   32); else pairwise, by XOR when p is a power of two.
    pub fn choose(self, p: usize, bytes: f64) -> Algorithm {
        use Algorithm::{BasicLinear as L, Bruck as B, Pairwise as P};
        match self {
            Library::OpenMpi112 => {
                let total = bytes * p as f64;
                if p == 2 {
                    P
                } else if p >= 12 && total <= 768.0 {
                    B
                } else if total <= 131072.0 {
                    L
                } else {
                    P
                }
            }
            Library::OpenMpi41 => {
                // (upper bounds, exclusive, and the algorithm below each; then the last).
                let table: (&[(f64, u8)], u8) = match p {
                    0..=2 => (
                        &[
                            (2.0, 2),
                            (4.0, 5),
                            (16.0, 2),
                            (64.0, 5),
                            (256.0, 2),
                            (4096.0, 5),
                            (32768.0, 2),
                            (262144.0, 4),
                            (1048576.0, 5),
                        ],
                        2,
                    ),
                    3..=7 => (
                        &[
                            (8192.0, 4),
                            (16384.0, 1),
                            (65536.0, 4),
                            (524288.0, 1),
                            (1048576.0, 2),
                        ],
                        1,
                    ),
                    8..=15 => (&[(262144.0, 4)], 1),
                    16..=31 => (
                        &[
                            (4.0, 4),
                            (512.0, 3),
                            (8192.0, 4),
                            (32768.0, 1),
                            (262144.0, 4),
                            (524288.0, 1),
                        ],
                        4,
                    ),
                    32..=63 => (&[(512.0, 3), (524288.0, 1)], 4),
                    64..=127 => (&[(1024.0, 3), (2048.0, 1), (4096.0, 4), (262144.0, 1)], 2),
                    128..=255 => (&[(1024.0, 3), (2048.0, 4), (262144.0, 1)], 2),
                    256..=511 => (&[(1024.0, 3), (8192.0, 4), (32768.0, 1)], 2),
                    512..=1023 => (
                        &[
                            (512.0, 3),
                            (8192.0, 4),
                            (16384.0, 1),
                            (131072.0, 4),
                            (262144.0, 1),
                        ],
                        2,
                    ),
                    1024..=2047 => (
                        &[
                            (512.0, 3),
                            (1024.0, 4),
                            (2048.0, 1),
                            (16384.0, 4),
                            (262144.0, 1),
                        ],
                        4,
                    ),
                    2048..=4095 => (&[(1024.0, 3), (4096.0, 4), (8192.0, 1), (131072.0, 4)], 1),
                    _ => (
                        &[
                            (2048.0, 3),
                            (8192.0, 4),
                            (16384.0, 1),
                            (32768.0, 4),
                            (65536.0, 1),
                        ],
                        4,
                    ),
                };
                let alg = table
                    .0
                    .iter()
                    .find(|&&(bound, _)| bytes < bound)
                    .map_or(table.1, |&(_, a)| a);
                match alg {
                    3 => B,
                    2 | 5 => P,
                    _ => L,
                }
            }
            Library::Mpich33 => {
                if bytes <= 256.0 && p >= 8 {
                    B
                } else if bytes <= 32768.0 {
                    Algorithm::Scattered { throttle: 32 }
                } else if p.is_power_of_two() {
                    Algorithm::Pair
                } else {
                    P
                }
            }
        }
    }

    /// The plan of the library's all-to-all (see [`Library::choose`] and
    /// [`Algorithm::plan`]).
    pub fn plan(
        self,
        p: usize,
        bytes: f64,
        eager_limit: Option<f64>,
        route: &dyn Fn(usize, usize) -> Vec<u32>,
    ) -> Result<Plan, SimError> {
        self.choose(p, bytes).plan(p, bytes, eager_limit, route)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of a plan as (from, to, bytes) with routes [from, to] (no link twice when
    /// from ≠ to; link ids are rank numbers offset so from and to differ).
    fn route(i: usize, j: usize) -> Vec<u32> {
        vec![i as u32, 1000 + j as u32]
    }

    fn messages(plan: &Plan) -> Vec<(usize, usize, f64, usize)> {
        plan.steps
            .iter()
            .flat_map(|s| {
                s.messages.iter().map(move |m| {
                    (
                        m.route[0] as usize,
                        m.route[1] as usize - 1000,
                        m.bytes,
                        s.group.unwrap_or(usize::MAX),
                    )
                })
            })
            .collect()
    }

    /// A deadline already passed stops the building of the plan before its first message,
    /// with the plan's full size (steps and messages, rendezvous handshakes counted) and
    /// nothing done; no deadline builds the same plan as [`Algorithm::plan_with`].
    #[test]
    fn a_passed_deadline_stops_the_plan_before_its_messages() {
        let past = Instant::now();
        for (algorithm, eager, handshake) in [
            (Algorithm::Pairwise, None, true),
            (Algorithm::Bruck, None, true),
            (Algorithm::BasicLinear, Some(1000.0), true),
            (Algorithm::BasicLinear, Some(1000.0), false),
        ] {
            let whole = algorithm
                .plan_with(12, 4000.0, eager, handshake, &route)
                .expect("plan");
            let same = algorithm
                .plan_until(12, 4000.0, eager, handshake, &route, None)
                .expect("plan");
            assert_eq!(same, whole);
            let size = algorithm.size(12, 4000.0, eager, handshake).expect("size");
            assert_eq!(
                (size.steps, size.messages, size.bytes),
                (whole.steps.len(), whole.messages(), whole.bytes()),
                "{algorithm:?}"
            );
            match algorithm.plan_until(12, 4000.0, eager, handshake, &route, Some(past)) {
                Err(SimError::TimeLimit(s)) => assert_eq!(
                    s,
                    Stopped {
                        simulated_s: 0.0,
                        steps_done: 0,
                        steps: whole.steps.len(),
                        messages_done: 0,
                        messages: whole.messages(),
                    },
                    "{algorithm:?}"
                ),
                other => panic!("{algorithm:?}: {other:?}"),
            }
        }
    }

    /// Every ordered pair's data is delivered exactly once (blocks counted for Bruck's
    /// packed messages: p-1 blocks per rank in total... checked by the total bytes).
    fn total_blocks(plan: &Plan, bytes: f64) -> f64 {
        plan.bytes() / bytes
    }

    #[test]
    fn basic_linear_posts_every_pair_in_one_round_in_ompi_order() {
        let plan = Algorithm::BasicLinear
            .plan(4, 10.0, None, &route)
            .expect("plan");
        let m = messages(&plan);
        assert_eq!(m.len(), 12);
        assert!(m.iter().all(|&(_, _, b, g)| b == 10.0 && g == 0));
        let of2: Vec<usize> = m.iter().filter(|x| x.0 == 2).map(|x| x.1).collect();
        assert_eq!(of2, vec![3, 0, 1]);
        // No dependency at all: one round.
        assert!(plan.steps.iter().all(|s| s.after.len() <= 1));
    }

    #[test]
    fn pairwise_has_p_minus_1_rounds_of_one_sendrecv() {
        let p = 5;
        let plan = Algorithm::Pairwise
            .plan_with(p, 8.0, Some(4.0), false, &route)
            .expect("plan");
        let m = messages(&plan);
        assert_eq!(m.len(), p * (p - 1));
        for &(from, to, b, g) in &m {
            assert_eq!(to, (from + g + 1) % p, "round {g}");
            assert_eq!(b, 8.0);
        }
        // Round 2's join of rank 0 waits for its own send of round 1 (rendezvous: 8 ≥ 4),
        // the message it receives in round 1 (from rank 4), and its previous join.
        let join = |r: usize, k: usize| k * p + r;
        let step_of = |from: usize, k: usize| {
            plan.steps
                .iter()
                .position(|s| {
                    s.group == Some(k)
                        && s.messages
                            .first()
                            .is_some_and(|x| x.route[0] == from as u32)
                })
                .expect("step")
        };
        let mut want = vec![join(0, 0), step_of(0, 0), step_of(4, 0)];
        want.sort_unstable();
        assert_eq!(plan.steps[join(0, 1)].after, want);
        // Its rendezvous message of round 1 (to rank 2) waits for rank 2's round 1 too.
        assert_eq!(
            plan.steps[step_of(0, 1)].after,
            vec![join(0, 1), join(2, 1)]
        );
        // Eager (8 ≤ 16): it does not wait for its own send.
        let eager = Algorithm::Pairwise
            .plan(p, 8.0, Some(16.0), &route)
            .expect("plan");
        let mut want = vec![join(0, 0), step_of(4, 0)];
        want.sort_unstable();
        assert_eq!(eager.steps[join(0, 1)].after, want);
        assert_eq!(eager.steps[step_of(0, 1)].after, vec![join(0, 1)]);
    }

    #[test]
    fn a_rendezvous_is_ob1_s_first_fragment_ack_and_rest() {
        // p = 3, 100 000 bytes per pair, eager limit 65 536: every message is a rendezvous
        // whose first fragment carries 65 536 - 72 bytes.
        let p = 3;
        let first = 65536.0 - OB1_HEADER_BYTES;
        let plan = Algorithm::Pairwise
            .plan(p, 100_000.0, Some(65536.0), &route)
            .expect("plan");
        let join = |r: usize, k: usize| k * p + r;
        let of = |s: usize| {
            let m = &plan.steps[s].messages[0];
            (m.route[0] as usize, m.route[1] as usize - 1000, m.bytes)
        };
        // Rank 0's round 0: to rank 1. Its three steps follow the joins, in order.
        let s = (2 * p..plan.steps.len())
            .find(|&s| of(s) == (0, 1, first))
            .expect("first fragment");
        assert_eq!(plan.steps[s].after, vec![join(0, 0)]);
        // The ACK goes back once the fragment is in and rank 1 has posted its receive.
        assert_eq!(of(s + 1), (1, 0, 0.0));
        assert_eq!(plan.steps[s + 1].after, vec![s, join(1, 0)]);
        // The rest after the ACK; both ranks' next rounds wait for it.
        assert_eq!(of(s + 2), (0, 1, 100_000.0 - first));
        assert_eq!(plan.steps[s + 2].after, vec![s + 1]);
        assert!(plan.steps[join(0, 1)].after.contains(&(s + 2)));
        assert!(plan.steps[join(1, 1)].after.contains(&(s + 2)));
        // Data bytes are those of the all-to-all; the ACKs carry none.
        assert_eq!(plan.bytes(), 100_000.0 * 6.0);
        // Below the limit, one message per pair and round.
        let eager = Algorithm::Pairwise
            .plan(p, 100_000.0, Some(200_000.0), &route)
            .expect("plan");
        assert_eq!(eager.messages(), 6);
        assert_eq!(plan.messages(), 18);
    }

    #[test]
    fn bruck_sends_log_p_packed_messages() {
        // p = 6: distances 1, 2, 4; blocks i in 1..6 with i&d: d=1 → 1,3,5 (3);
        // d=2 → 2,3 (2); d=4 → 4,5 (2).
        let plan = Algorithm::Bruck.plan(6, 1.0, None, &route).expect("plan");
        let m = messages(&plan);
        assert_eq!(m.len(), 18);
        let of0: Vec<(usize, f64)> = m.iter().filter(|x| x.0 == 0).map(|x| (x.1, x.2)).collect();
        assert_eq!(of0, vec![(1, 3.0), (2, 2.0), (4, 2.0)]);
        assert_eq!(total_blocks(&plan, 1.0), 6.0 * 7.0);
    }

    #[test]
    fn pair_needs_a_power_of_two_and_pairs_by_xor() {
        assert!(Algorithm::Pair.plan(6, 1.0, None, &route).is_err());
        let plan = Algorithm::Pair.plan(4, 1.0, None, &route).expect("plan");
        for (from, to, _, g) in messages(&plan) {
            assert_eq!(to, from ^ (g + 1));
        }
    }

    #[test]
    fn scattered_waits_per_block_of_throttle_peers() {
        let p = 7;
        let plan = Algorithm::Scattered { throttle: 3 }
            .plan(p, 1.0, None, &route)
            .expect("plan");
        let m = messages(&plan);
        assert_eq!(m.len(), p * (p - 1));
        // Block 0 is i = 0, 1, 2 (0 is the local copy), block 1 is 3, 4, 5, block 2 is 6.
        let of0: Vec<(usize, usize)> = m.iter().filter(|x| x.0 == 0).map(|x| (x.1, x.3)).collect();
        assert_eq!(of0, vec![(6, 0), (5, 0), (4, 1), (3, 1), (2, 1), (1, 2)]);
    }

    #[test]
    fn every_plan_delivers_every_pair_once() {
        for p in [2usize, 3, 8, 12] {
            for alg in [
                Algorithm::BasicLinear,
                Algorithm::Pairwise,
                Algorithm::Pair,
                Algorithm::Scattered { throttle: 32 },
                Algorithm::Scattered { throttle: 2 },
            ] {
                let Ok(plan) = alg.plan(p, 1.0, None, &route) else {
                    assert!(!p.is_power_of_two());
                    continue;
                };
                let mut pairs: Vec<(usize, usize)> =
                    messages(&plan).iter().map(|x| (x.0, x.1)).collect();
                pairs.sort_unstable();
                let want: Vec<(usize, usize)> = (0..p)
                    .flat_map(|i| (0..p).filter(move |&j| j != i).map(move |j| (i, j)))
                    .collect();
                assert_eq!(pairs, want, "{alg:?} p={p}");
            }
        }
    }

    #[test]
    fn ompi_1_1_2_thresholds() {
        let l = Library::OpenMpi112;
        // p = 60: Bruck up to 768/60 = 12.8 B, linear up to 131072/60 = 2184.5 B.
        assert_eq!(l.choose(60, 12.0), Algorithm::Bruck);
        assert_eq!(l.choose(60, 13.0), Algorithm::BasicLinear);
        assert_eq!(l.choose(60, 2184.0), Algorithm::BasicLinear);
        assert_eq!(l.choose(60, 2185.0), Algorithm::Pairwise);
        // p < 12 never uses Bruck.
        assert_eq!(l.choose(11, 1.0), Algorithm::BasicLinear);
        assert_eq!(l.choose(2, 1.0), Algorithm::Pairwise);
    }

    #[test]
    fn ompi_4_1_thresholds() {
        let l = Library::OpenMpi41;
        assert_eq!(l.choose(60, 511.0), Algorithm::Bruck);
        assert_eq!(l.choose(60, 512.0), Algorithm::BasicLinear);
        assert_eq!(l.choose(60, 16.0 * 1048576.0), Algorithm::BasicLinear);
        assert_eq!(l.choose(80, 1.0 * 1048576.0), Algorithm::Pairwise);
        assert_eq!(l.choose(80, 3000.0), Algorithm::BasicLinear);
        assert_eq!(l.choose(20, 100.0), Algorithm::Bruck);
    }

    #[test]
    fn mpich_3_3_thresholds() {
        let l = Library::Mpich33;
        assert_eq!(l.choose(60, 256.0), Algorithm::Bruck);
        assert_eq!(l.choose(7, 256.0), Algorithm::Scattered { throttle: 32 });
        assert_eq!(l.choose(60, 32768.0), Algorithm::Scattered { throttle: 32 });
        assert_eq!(l.choose(60, 32769.0), Algorithm::Pairwise);
        assert_eq!(l.choose(64, 32769.0), Algorithm::Pair);
        assert_eq!(
            Library::from_name("mpi-ompi-1.1.2"),
            Some(Library::OpenMpi112)
        );
    }
}
