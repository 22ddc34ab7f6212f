//! Flit-level discrete-event simulation of paper 002's heterogeneous multi-cluster
//! systems: wormhole switching with single-flit input buffers over the network and
//! routes of [`liquid_topology::multi_cluster`].
//!
//! # What is simulated
//!
//! - **Channels.** Every directed channel has a one-flit buffer at its receiving end. A
//!   flit crosses a channel in `t_cn` (node↔switch) or `t_cs` (every other channel),
//!   from [`Timing`]. A flit may start across a channel once it sits in the buffer of the
//!   previous channel (or at the source) and the channel's buffer is free: the flit
//!   ahead has started across the next channel (or, at the last channel, has arrived:
//!   destinations consume flits at once). A message of `M` flits on a route of `D`
//!   channels therefore takes `D·t + (M−1)·t` without contention when all channels
//!   have the flit time `t`.
//! - **Wormhole.** A message's header acquires the channels of its route one by one; a
//!   channel owned by another message blocks the header (waiting headers are served in
//!   the order they arrived), and the flits behind it stay in the channels they hold.
//!   The tail releases a channel when it starts across the next one. A flit time is
//!   thus computed for every flit on every channel (the *flit moves* counted): events
//!   are only needed where messages interact (a header acquiring a channel, a channel
//!   released), and the flits' times follow exactly from those by the max-plus
//!   recurrence above, so the simulation is flit-exact without one event per flit.
//! - **Sources.** Every node generates messages as a Poisson process of rate `λ_g`,
//!   to destinations drawn uniformly among all other nodes. A node has two injection
//!   channels (to its ICN1 and to its ECN1, 002's Fig. 2) and an infinite FIFO source
//!   queue in front of each: a message waits until the messages ahead of it in its
//!   queue have left the injection channel (their tail has started across the second
//!   channel).
//! - **Concentrators/dispatchers.** An inter-cluster message is three worms: source →
//!   concentrator, concentrator → dispatcher (through the ICN2), dispatcher →
//!   destination. Each concentrator/dispatcher has two infinite FIFO message queues
//!   (concentrate: to the ICN2; dispatch: to the ECN1), each a single server that sends
//!   one message at a time, like a source queue: its service is the time from the
//!   message's header taking the first channel until its tail has left that channel —
//!   `M·t_cs` (plus one flit time) without contention, which is 002's eq. 33 service
//!   `M·t_cs`. The buffers never fill, so a worm into a concentrator never blocks
//!   there. With [`Forwarding::CutThrough`] (the default) a message joins the queue
//!   when its header arrives and its flits leave no earlier than they arrived, so
//!   without contention an inter-cluster message crosses the concentrator like a
//!   switch: the "merged" wormhole journey of 002's eq. 26, with waiting at the queues
//!   under load (eqs. 33-34). With [`Forwarding::StoreAndForward`] a message joins the
//!   queue only when its tail has arrived (`M` more flit times per concentrator).
//! - **Measurement.** Messages are numbered in the order they are generated: the first
//!   `warmup` are not counted, the next `messages` are, and `drain` more are generated
//!   after them (not counted) so that the counted ones cross a loaded network to the
//!   end. A run stops when every counted message has been delivered. A message's
//!   latency runs from its generation to the arrival of its tail at the destination:
//!   source waiting (until its header takes the injection channel) plus network time
//!   (the rest, which includes any waiting at concentrators/dispatchers, also reported
//!   on its own).
//!
//! Randomness comes from an in-crate xoshiro256++ generator seeded through SplitMix64
//! ([`Rng`]): a run is a function of its configuration and seed.
#![forbid(unsafe_code)]

mod rng;
mod stats;
pub mod study;

use std::collections::{BinaryHeap, VecDeque};

pub use liquid_latency::Timing;
use liquid_topology::multi_cluster::{ChannelClass, VertexKind, Wiring};
pub use rng::Rng;
pub use stats::{student_t_975, Estimate, GroupEstimate, Summary};
use thiserror::Error;

/// Why a simulation was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FlitError {
    /// A parameter out of range.
    #[error("{name}: {why}")]
    BadParameter {
        /// The parameter's name as the user gave it.
        name: String,
        /// What is wrong with it.
        why: String,
    },
}

fn bad(name: &str, why: impl Into<String>) -> FlitError {
    FlitError::BadParameter {
        name: name.to_string(),
        why: why.into(),
    }
}

/// How a concentrator/dispatcher forwards a message (see the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Forwarding {
    /// The message joins the queue when its header arrives; its flits leave no earlier
    /// than they arrived (virtual cut-through with an infinite buffer).
    #[default]
    CutThrough,
    /// The message joins the queue when its tail has arrived.
    StoreAndForward,
}

/// The most replications [`Simulator::replicate`] runs (each keeps its [`Run`]).
pub const MAX_REPLICATIONS: usize = 10_000;

/// The memory that messages in flight may take, in bytes: when the sources generate
/// faster than the network delivers (beyond saturation), the queues grow without bound,
/// and a run stops (not completed, [`Run::saturated`]) once its messages in flight would
/// need more than this.
pub const MAX_IN_FLIGHT_BYTES: usize = 1 << 30;

/// One simulation's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Message and channel parameters (`M`, `L_m`, bandwidth, latencies).
    pub timing: Timing,
    /// Messages generated per node per time unit, `λ_g`.
    pub rate: f64,
    /// Messages counted.
    pub messages: u64,
    /// Messages generated before, not counted.
    pub warmup: u64,
    /// Messages generated after, not counted.
    pub drain: u64,
    /// Seed of the run.
    pub seed: u64,
    /// Concentrators/dispatchers: cut-through or store-and-forward.
    pub forwarding: Forwarding,
}

impl Config {
    /// 002's setting for `timing` at offered traffic `rate`: 100,000 messages counted,
    /// 10,000 of warm-up and 10,000 of drain, seed 1, cut-through concentrators.
    pub fn paper(timing: Timing, rate: f64) -> Config {
        Config {
            timing,
            rate,
            messages: 100_000,
            warmup: 10_000,
            drain: 10_000,
            seed: 1,
            forwarding: Forwarding::CutThrough,
        }
    }

    /// Checks the parameters.
    pub fn check(&self) -> Result<(), FlitError> {
        self.timing.check().map_err(|e| match e {
            liquid_latency::LatencyError::BadParameter { name, why } => bad(&name, why),
            other => bad("timing", other.to_string()),
        })?;
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Err(bad(
                "rate",
                format!("{} is not a positive number", self.rate),
            ));
        }
        if !(1.0 / self.rate).is_finite() {
            return Err(bad(
                "rate",
                format!(
                    "{:e} is too small: the mean time between two messages overflows",
                    self.rate
                ),
            ));
        }
        if self.messages == 0 {
            return Err(bad("messages", "at least one message must be counted"));
        }
        let total = self
            .warmup
            .checked_add(self.messages)
            .and_then(|x| x.checked_add(self.drain));
        if total.is_none_or(|t| t > u32::MAX as u64 / 2) {
            return Err(bad(
                "messages",
                "warm-up + messages + drain must stay below 2^31",
            ));
        }
        if self.timing.flits > 1 << 20 {
            return Err(bad("flits", "at most 2^20 flits per message"));
        }
        Ok(())
    }
}

/// Means over the counted messages of one group (a cluster, or all).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Means {
    /// Counted messages in the group.
    pub messages: u64,
    /// Of which between clusters.
    pub inter: u64,
    /// Mean latency: generation to tail arrival.
    pub latency: f64,
    /// Mean waiting time in the source queue.
    pub source_wait: f64,
    /// Mean network time (latency less source waiting).
    pub network: f64,
    /// Mean waiting time at concentrators/dispatchers (part of the network time),
    /// over all messages of the group (0 for intra-cluster ones).
    pub concentrator_wait: f64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    messages: u64,
    inter: u64,
    latency: f64,
    source_wait: f64,
    network: f64,
    concentrator_wait: f64,
}

impl Sums {
    fn add(&mut self, o: &Sums) {
        self.messages += o.messages;
        self.inter += o.inter;
        self.latency += o.latency;
        self.source_wait += o.source_wait;
        self.network += o.network;
        self.concentrator_wait += o.concentrator_wait;
    }

    fn means(&self) -> Means {
        let n = self.messages.max(1) as f64;
        Means {
            messages: self.messages,
            inter: self.inter,
            latency: self.latency / n,
            source_wait: self.source_wait / n,
            network: self.network / n,
            concentrator_wait: self.concentrator_wait / n,
        }
    }
}

/// The outcome of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The seed of the run.
    pub seed: u64,
    /// Whether every counted message was delivered (false: stopped early).
    pub completed: bool,
    /// Messages generated (warm-up, counted and drain).
    pub generated: u64,
    /// Messages delivered, counted or not.
    pub delivered: u64,
    /// Messages generated and not yet delivered when the run stopped.
    pub in_flight: u64,
    /// Means over all counted messages.
    pub overall: Means,
    /// Means per cluster of the source, in cluster order.
    pub clusters: Vec<Means>,
    /// Counted messages by the number of channels of their route (index = channels).
    pub hops: Vec<u64>,
    /// Flit moves simulated (a flit across a channel).
    pub flit_moves: u64,
    /// Events processed.
    pub events: u64,
    /// Simulated time at the end of the run.
    pub end_time: f64,
    /// The latest arrival of a tail at its destination (the makespan of a plan).
    pub last_delivery: f64,
    /// The concentrate queues (to the ICN2), over the counted messages.
    pub concentrators: QueueWaits,
    /// The dispatch queues (to the destination's ECN1), over the counted messages.
    pub dispatchers: QueueWaits,
    /// Whether the run stopped because its messages in flight reached
    /// [`MAX_IN_FLIGHT_BYTES`]: the offered traffic is beyond saturation.
    pub saturated: bool,
}

/// Where the counted messages' time at one kind of concentrator/dispatcher queue went.
/// A message *queues* from joining the queue until it is at its head (behind other
/// messages); at the head its header asks for the queue's first channel and may wait for
/// it (`first_channel`); the queue's *service* of it runs from reaching the head until its
/// tail has left the first channel (the queue is then free for the next message): the
/// wait for the first channel, `M` flit times, and whatever the header met *downstream*
/// while the worm held the first channel (`downstream`: blocked on a later channel of
/// its route). The wait that [`Means::concentrator_wait`] counts is
/// `queueing + first_channel`; the other messages' `downstream` blocking is what makes
/// them queue.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QueueWaits {
    /// Messages counted.
    pub messages: u64,
    /// Mean time from joining the queue to reaching its head (behind other messages).
    pub queueing: f64,
    /// Mean time from reaching the head to the header taking the first channel.
    pub first_channel: f64,
    /// Mean time the service lost to the header's blocking downstream: the service less
    /// the wait for the first channel and `M` flit times of the first channel.
    pub downstream: f64,
    /// Mean service time: from reaching the head to the tail leaving the first channel.
    pub service: f64,
    /// Standard deviation of the service time.
    pub service_sd: f64,
}

/// Sums behind a [`QueueWaits`].
#[derive(Debug, Clone, Copy, Default)]
struct WaitSums {
    messages: u64,
    queueing: f64,
    first_channel: f64,
    services: u64,
    downstream: f64,
    service: f64,
    service_sq: f64,
}

impl WaitSums {
    fn waits(&self) -> QueueWaits {
        let n = self.messages.max(1) as f64;
        let k = self.services.max(1) as f64;
        let mean = self.service / k;
        QueueWaits {
            messages: self.messages,
            queueing: self.queueing / n,
            first_channel: self.first_channel / n,
            downstream: self.downstream / k,
            service: mean,
            service_sd: (self.service_sq / k - mean * mean).max(0.0).sqrt(),
        }
    }
}

/// How a plan's frames are released ([`Simulator::run_plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanMode {
    /// Frame after frame, each when the previous one has been delivered.
    Frames,
    /// Every message at time 0.
    AllAtOnce,
}

/// How far a run has got, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Counted messages delivered so far.
    pub delivered: u64,
    /// Counted messages in the run.
    pub messages: u64,
    /// Simulated time.
    pub time: f64,
}

// Event kinds, in the top bits of an event's payload.
const GENERATE: u64 = 0;
const HEADER: u64 = 1;
const RELEASE: u64 = 2;
const QUEUE_NEXT: u64 = 3;
const ENQUEUE: u64 = 4;
const FRAME: u64 = 5;
const NO_FRAME: u32 = u32::MAX;
const KIND_SHIFT: u32 = 60;

/// A simulator of one wired system (the static part, shared by runs).
#[derive(Debug, Clone)]
pub struct Simulator<'w> {
    wiring: &'w Wiring,
    class: Vec<ChannelClass>,
    cluster: Vec<u32>,
    is_cd: Vec<bool>,
    max_route: usize,
    /// Per vertex, its outgoing channels as (receiving vertex, channel).
    out: Vec<Vec<(u32, u32)>>,
    /// The bound on the memory of messages in flight ([`MAX_IN_FLIGHT_BYTES`]).
    in_flight_bytes: usize,
}

/// Per-message state, in pools indexed by message slot.
struct Messages {
    m: usize,
    stride: usize,
    route: Vec<u32>,
    len: Vec<u8>,
    seg_end: Vec<[u8; 3]>,
    segs: Vec<u8>,
    seg: Vec<u8>,
    head: Vec<u16>,
    times: Vec<f64>,
    gen_time: Vec<f64>,
    inject: Vec<f64>,
    entered: Vec<f64>,
    at_head: Vec<f64>,
    took: Vec<f64>,
    cd_wait: Vec<f64>,
    src: Vec<u32>,
    dst: Vec<u32>,
    counted: Vec<bool>,
    frame: Vec<u32>,
    free: Vec<u32>,
}

impl Messages {
    fn alloc(&mut self) -> u32 {
        if let Some(i) = self.free.pop() {
            return i;
        }
        let i = self.len.len() as u32;
        self.route.resize(self.route.len() + self.stride, 0);
        self.times.resize(self.times.len() + self.m, 0.0);
        self.len.push(0);
        self.seg_end.push([0; 3]);
        self.segs.push(0);
        self.seg.push(0);
        self.head.push(0);
        self.gen_time.push(0.0);
        self.inject.push(0.0);
        self.entered.push(0.0);
        self.at_head.push(0.0);
        self.took.push(0.0);
        self.cd_wait.push(0.0);
        self.src.push(0);
        self.dst.push(0);
        self.counted.push(false);
        self.frame.push(NO_FRAME);
        i
    }

    /// The channels of message `i`'s current segment.
    fn segment(&self, i: usize) -> (usize, usize) {
        let s = self.seg[i] as usize;
        let lo = if s == 0 {
            0
        } else {
            self.seg_end[i][s - 1] as usize
        };
        (
            i * self.stride + lo,
            i * self.stride + self.seg_end[i][s] as usize,
        )
    }
}

/// The mutable state of one run.
struct State {
    heap: BinaryHeap<std::cmp::Reverse<(u64, u64, u64)>>,
    seq: u64,
    now: f64,
    busy: Vec<bool>,
    waiters: Vec<VecDeque<u32>>,
    queue_busy: Vec<bool>,
    queues: Vec<VecDeque<u32>>,
    msgs: Messages,
    rng: Rng,
    flit_moves: u64,
    events: u64,
    generated: u64,
    delivered: u64,
    delivered_counted: u64,
    sums: Vec<Sums>,
    hops: Vec<u64>,
    plan: Option<PlanState>,
    last_delivery: f64,
    /// Concentrate (0) and dispatch (1) queues.
    waits: [WaitSums; 2],
}

/// A plan under way: its frames, and per frame the messages not yet delivered and the
/// latest delivery so far.
struct PlanState {
    frames: Vec<Vec<(u32, u32)>>,
    all_at_once: bool,
    remaining: Vec<usize>,
    end: Vec<f64>,
}

impl State {
    fn push(&mut self, t: f64, kind: u64, id: u64) {
        debug_assert!(t >= self.now && t.is_finite());
        self.seq += 1;
        self.heap.push(std::cmp::Reverse((
            t.to_bits(),
            self.seq,
            kind << KIND_SHIFT | id,
        )));
    }
}

impl<'w> Simulator<'w> {
    /// A simulator of the system `wiring`.
    pub fn new(wiring: &'w Wiring) -> Simulator<'w> {
        let sys = wiring.system();
        let max_n = sys.clusters.iter().copied().max().unwrap_or(1);
        Simulator {
            wiring,
            class: wiring.channels().iter().map(|c| c.class).collect(),
            cluster: (0..wiring.nodes())
                .map(|g| wiring.cluster_of(g).0 as u32)
                .collect(),
            is_cd: (0..wiring.vertices())
                .map(|v| wiring.kind(v) == VertexKind::Concentrator)
                .collect(),
            max_route: 2 * max_n + 2 * sys.icn2_levels + 2,
            out: {
                let mut out = vec![Vec::new(); wiring.vertices()];
                for (c, ch) in wiring.channels().iter().enumerate() {
                    out[ch.from].push((ch.to as u32, c as u32));
                }
                out
            },
            in_flight_bytes: MAX_IN_FLIGHT_BYTES,
        }
    }

    /// The same simulator with another bound on the memory of messages in flight (the
    /// default is [`MAX_IN_FLIGHT_BYTES`]).
    pub fn with_in_flight_bytes(mut self, bytes: usize) -> Simulator<'w> {
        self.in_flight_bytes = bytes;
        self
    }

    /// The channel from vertex `a` to vertex `b` of a route.
    fn channel(&self, a: usize, b: usize) -> u32 {
        self.out[a]
            .iter()
            .find(|&&(to, _)| to as usize == b)
            .map(|&(_, c)| c)
            .expect("routes follow channels (topology tests)")
    }

    /// Runs one simulation. `progress` is called now and then with how far the run has
    /// got; when it returns `false` the run stops (`completed: false`).
    pub fn run(
        &self,
        cfg: &Config,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<Run, FlitError> {
        self.run_with(cfg, None, progress)
    }

    /// Runs a plan instead of Poisson sources: `frames` lists messages as (source,
    /// destination) nodes. With [`PlanMode::Frames`] the messages of a frame are all
    /// generated at once when every message of the previous frame has been delivered
    /// (a barrier, as a schedule runs timeframe after timeframe); with
    /// [`PlanMode::AllAtOnce`] every message is generated at time 0, each source
    /// queue in plan order. Every message is counted; latency runs from generation to
    /// delivery, and [`Run::last_delivery`] is the makespan. `timing`, `forwarding` and
    /// the seed (unused: a plan is deterministic) come from `cfg`.
    pub fn run_plan(
        &self,
        cfg: &Config,
        frames: &[Vec<(usize, usize)>],
        mode: PlanMode,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<Run, FlitError> {
        let nodes = self.wiring.nodes();
        let mut plan = Vec::with_capacity(frames.len());
        for (k, frame) in frames.iter().enumerate() {
            let mut f = Vec::with_capacity(frame.len());
            for &(a, b) in frame {
                if a >= nodes || b >= nodes || a == b {
                    return Err(bad(
                        "plan",
                        format!("frame {k}: message {a} -> {b} is not between two distinct nodes of the {nodes}"),
                    ));
                }
                f.push((a as u32, b as u32));
            }
            plan.push(f);
        }
        let total: usize = plan.iter().map(Vec::len).sum();
        if total == 0 {
            return Err(bad("plan", "no message to send"));
        }
        let c = Config {
            rate: 1.0,
            messages: total as u64,
            warmup: 0,
            drain: 0,
            ..cfg.clone()
        };
        let state = PlanState {
            remaining: plan.iter().map(Vec::len).collect(),
            end: vec![0.0; plan.len()],
            frames: plan,
            all_at_once: mode == PlanMode::AllAtOnce,
        };
        self.run_with(&c, Some(state), progress)
    }

    fn run_with(
        &self,
        cfg: &Config,
        plan: Option<PlanState>,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<Run, FlitError> {
        cfg.check()?;
        let w = self.wiring;
        let nodes = w.nodes();
        if nodes < 2 {
            return Err(bad("system", "at least two nodes are needed"));
        }
        let clusters = w.system().cluster_count();
        let m = cfg.timing.flits as usize;
        let (t_cn, t_cs) = (cfg.timing.t_cn(), cfg.timing.t_cs());
        let tc: Vec<f64> = self
            .class
            .iter()
            .map(|c| match c {
                ChannelClass::NodeSwitch => t_cn,
                ChannelClass::SwitchSwitch => t_cs,
            })
            .collect();
        let channels = tc.len();
        let total = cfg.warmup + cfg.messages + cfg.drain;
        let mut st = State {
            heap: BinaryHeap::with_capacity(4 * nodes),
            seq: 0,
            now: 0.0,
            busy: vec![false; channels],
            waiters: vec![VecDeque::new(); channels],
            // Queues: 2 per node (ICN1, ECN1 injection), then 2 per cluster
            // (concentrate, dispatch).
            queue_busy: vec![false; 2 * nodes + 2 * clusters],
            queues: vec![VecDeque::new(); 2 * nodes + 2 * clusters],
            msgs: Messages {
                m,
                stride: self.max_route,
                route: Vec::new(),
                len: Vec::new(),
                seg_end: Vec::new(),
                segs: Vec::new(),
                seg: Vec::new(),
                head: Vec::new(),
                times: Vec::new(),
                gen_time: Vec::new(),
                inject: Vec::new(),
                entered: Vec::new(),
                at_head: Vec::new(),
                took: Vec::new(),
                cd_wait: Vec::new(),
                src: Vec::new(),
                dst: Vec::new(),
                counted: Vec::new(),
                frame: Vec::new(),
                free: Vec::new(),
            },
            rng: Rng::new(cfg.seed),
            flit_moves: 0,
            events: 0,
            generated: 0,
            delivered: 0,
            delivered_counted: 0,
            sums: vec![Sums::default(); clusters],
            hops: vec![0; self.max_route + 1],
            plan: None,
            last_delivery: 0.0,
            waits: [WaitSums::default(); 2],
        };
        match plan {
            None => {
                for node in 0..nodes {
                    let t = st.rng.exponential(cfg.rate);
                    st.push(t, GENERATE, node as u64);
                }
            }
            Some(plan) => {
                let first = plan
                    .frames
                    .iter()
                    .position(|f| !f.is_empty())
                    .expect("run_plan refuses empty plans");
                st.plan = Some(plan);
                st.push(0.0, FRAME, first as u64);
            }
        }
        let mut vbuf = Vec::new();
        let mut cbuf = Vec::new();
        let mut completed = true;
        let mut saturated = false;
        // Bytes of one message's state (route, flit times and the per-message fields).
        let per_message = 4 * self.max_route + 8 * m + 96;
        let max_in_flight = (self.in_flight_bytes / per_message).max(1) as u64;
        while st.delivered_counted < cfg.messages {
            let Some(std::cmp::Reverse((tb, _, payload))) = st.heap.pop() else {
                break;
            };
            st.now = f64::from_bits(tb);
            st.events += 1;
            if st.events & 0xffff == 0
                && !progress(Progress {
                    delivered: st.delivered_counted,
                    messages: cfg.messages,
                    time: st.now,
                })
            {
                completed = false;
                break;
            }
            let id = payload & ((1 << KIND_SHIFT) - 1);
            match payload >> KIND_SHIFT {
                GENERATE => {
                    if st.generated >= total {
                        continue;
                    }
                    if st.generated - st.delivered >= max_in_flight {
                        completed = false;
                        saturated = true;
                        break;
                    }
                    let src = id as usize;
                    let n = st.generated;
                    let d = {
                        let r = st.rng.below(nodes as u64 - 1) as usize;
                        if r >= src {
                            r + 1
                        } else {
                            r
                        }
                    };
                    let counted = n >= cfg.warmup && n < cfg.warmup + cfg.messages;
                    self.inject(
                        &mut st, &tc, src, d, counted, NO_FRAME, &mut vbuf, &mut cbuf,
                    );
                    if st.generated < total {
                        let t = st.now + st.rng.exponential(cfg.rate);
                        st.push(t, GENERATE, id);
                    }
                }
                FRAME => {
                    let plan = st.plan.take().expect("frames only in plan runs");
                    let k = id as usize;
                    let range = if plan.all_at_once {
                        0..plan.frames.len()
                    } else {
                        k..k + 1
                    };
                    for f in range {
                        for &(a, b) in &plan.frames[f] {
                            self.inject(
                                &mut st, &tc, a as usize, b as usize, true, f as u32, &mut vbuf,
                                &mut cbuf,
                            );
                        }
                    }
                    st.plan = Some(plan);
                }
                HEADER => self.header(&mut st, &tc, cfg, id as u32),
                RELEASE => {
                    let c = id as usize;
                    if let Some(next) = st.waiters[c].pop_front() {
                        self.take(&mut st, &tc, next);
                    } else {
                        st.busy[c] = false;
                    }
                }
                QUEUE_NEXT => {
                    let q = id as usize;
                    if let Some(next) = st.queues[q].pop_front() {
                        st.msgs.head[next as usize] = 0;
                        st.msgs.at_head[next as usize] = st.now;
                        self.try_acquire(&mut st, &tc, next);
                    } else {
                        st.queue_busy[q] = false;
                    }
                }
                ENQUEUE => {
                    let i = id as usize;
                    let q = self.queue_of(&st.msgs, i, nodes);
                    st.msgs.entered[i] = st.now;
                    self.enqueue(&mut st, &tc, q, id as u32);
                }
                _ => unreachable!("event kinds are the constants above"),
            }
        }
        if st.delivered_counted < cfg.messages {
            completed = false;
        }
        let mut overall = Sums::default();
        for s in &st.sums {
            overall.add(s);
        }
        let means = overall.means();
        if !(st.now.is_finite() && means.latency.is_finite()) {
            return Err(bad(
                "timing",
                "the simulated times overflow: give a higher rate, shorter messages or a higher bandwidth",
            ));
        }
        Ok(Run {
            seed: cfg.seed,
            completed,
            generated: st.generated,
            delivered: st.delivered,
            in_flight: st.generated - st.delivered,
            overall: means,
            clusters: st.sums.iter().map(Sums::means).collect(),
            hops: st.hops,
            flit_moves: st.flit_moves,
            events: st.events,
            end_time: st.now,
            last_delivery: st.last_delivery,
            concentrators: st.waits[0].waits(),
            dispatchers: st.waits[1].waits(),
            saturated,
        })
    }

    /// Runs `replications` independent runs, replication `r` with seed `cfg.seed + r`,
    /// one after the other. `progress` gets the replication's index with each report;
    /// when it returns `false` the current run stops and no further one starts.
    pub fn replicate(
        &self,
        cfg: &Config,
        replications: usize,
        progress: &mut dyn FnMut(usize, Progress) -> bool,
    ) -> Result<Summary, FlitError> {
        if replications == 0 || replications > MAX_REPLICATIONS {
            return Err(bad(
                "replications",
                format!("{replications}: give 1 to {MAX_REPLICATIONS} replications"),
            ));
        }
        let mut runs = Vec::with_capacity(replications);
        for r in 0..replications {
            let c = Config {
                seed: cfg.seed.wrapping_add(r as u64),
                ..cfg.clone()
            };
            let run = self.run(&c, &mut |p| progress(r, p))?;
            let done = run.completed;
            runs.push(run);
            if !done {
                break;
            }
        }
        Ok(Summary::of(runs))
    }

    /// A new message from node `src` to node `d`, generated now, into its source queue.
    #[allow(clippy::too_many_arguments)]
    fn inject(
        &self,
        st: &mut State,
        tc: &[f64],
        src: usize,
        d: usize,
        counted: bool,
        frame: u32,
        vbuf: &mut Vec<usize>,
        cbuf: &mut Vec<u32>,
    ) {
        st.generated += 1;
        let m = st.msgs.m;
        let i = st.msgs.alloc() as usize;
        self.wiring.route(src, d, vbuf);
        cbuf.clear();
        cbuf.extend(vbuf.windows(2).map(|x| self.channel(x[0], x[1])));
        let msgs = &mut st.msgs;
        let base = i * msgs.stride;
        msgs.route[base..base + cbuf.len()].copy_from_slice(cbuf);
        msgs.len[i] = cbuf.len() as u8;
        // Segments end at each concentrator/dispatcher on the way, and at the end.
        let mut k = 0;
        for (h, &v) in vbuf[1..].iter().enumerate() {
            if self.is_cd[v] || h + 1 == cbuf.len() {
                msgs.seg_end[i][k] = (h + 1) as u8;
                k += 1;
            }
        }
        msgs.segs[i] = k as u8;
        msgs.seg[i] = 0;
        msgs.gen_time[i] = st.now;
        msgs.cd_wait[i] = 0.0;
        msgs.src[i] = src as u32;
        msgs.dst[i] = d as u32;
        msgs.counted[i] = counted;
        msgs.frame[i] = frame;
        msgs.times[i * m..(i + 1) * m].fill(st.now);
        let q = 2 * src + usize::from(k > 1);
        self.enqueue(st, tc, q, i as u32);
    }

    /// The queue message `i` joins at the start of its current segment.
    fn queue_of(&self, msgs: &Messages, i: usize, nodes: usize) -> usize {
        let src = msgs.src[i] as usize;
        match msgs.seg[i] {
            0 => 2 * src + usize::from(msgs.segs[i] > 1),
            1 => 2 * nodes + 2 * self.cluster[src] as usize,
            _ => 2 * nodes + 2 * self.cluster[msgs.dst[i] as usize] as usize + 1,
        }
    }

    fn enqueue(&self, st: &mut State, tc: &[f64], q: usize, msg: u32) {
        if st.queue_busy[q] {
            st.queues[q].push_back(msg);
        } else {
            st.queue_busy[q] = true;
            st.msgs.head[msg as usize] = 0;
            st.msgs.at_head[msg as usize] = st.now;
            self.try_acquire(st, tc, msg);
        }
    }

    /// The header of `msg` asks for the next channel of its segment.
    fn try_acquire(&self, st: &mut State, tc: &[f64], msg: u32) {
        let i = msg as usize;
        let (lo, _) = st.msgs.segment(i);
        let c = st.msgs.route[lo + st.msgs.head[i] as usize] as usize;
        if st.busy[c] {
            st.waiters[c].push_back(msg);
        } else {
            self.take(st, tc, msg);
        }
    }

    /// The header of `msg` takes its next channel now: computes the flits' times on
    /// that diagonal and schedules the header's arrival at the channel's end.
    fn take(&self, st: &mut State, tc: &[f64], msg: u32) {
        let i = msg as usize;
        let (lo, hi) = st.msgs.segment(i);
        let h = st.msgs.head[i] as usize;
        let c = st.msgs.route[lo + h] as usize;
        st.busy[c] = true;
        if h == 0 {
            st.msgs.took[i] = st.now;
            let wait = st.now - st.msgs.entered[i];
            if st.msgs.seg[i] == 0 {
                st.msgs.inject[i] = st.now;
            } else {
                st.msgs.cd_wait[i] += wait;
                if st.msgs.counted[i] {
                    let at_head = st.msgs.at_head[i];
                    let w = &mut st.waits[st.msgs.seg[i] as usize - 1];
                    w.messages += 1;
                    w.queueing += at_head - st.msgs.entered[i];
                    w.first_channel += st.now - at_head;
                }
            }
        }
        self.diagonal(st, tc, i, lo, hi, h);
        st.msgs.head[i] += 1;
        st.push(st.now + tc[c], HEADER, msg as u64);
    }

    /// Computes diagonal `d` of message `i`'s current segment (channels `lo..hi` of
    /// the route pool): flit `f` on channel `d − f`, for every flit that has one;
    /// schedules the release of the channel the tail leaves.
    fn diagonal(&self, st: &mut State, tc: &[f64], i: usize, lo: usize, hi: usize, d: usize) {
        let m = st.msgs.m;
        let len = hi - lo;
        let route = &st.msgs.route[lo..hi];
        let times = &mut st.msgs.times[i * m..(i + 1) * m];
        let f_lo = d.saturating_sub(len - 1);
        let f_hi = d.min(m - 1);
        for f in f_lo..=f_hi {
            let h = d - f;
            if f == 0 {
                times[0] = st.now;
                continue;
            }
            // The buffer of channel h is free once flit f-1 has started across channel
            // h+1 (times[f-1] was updated on this diagonal), or, at the last channel,
            // once it has arrived.
            let free = if h + 1 < len {
                times[f - 1]
            } else {
                times[f - 1] + tc[route[h] as usize]
            };
            // Flit f is in the buffer of channel h-1 (or ready at the source).
            let here = if h == 0 {
                times[f]
            } else {
                times[f] + tc[route[h - 1] as usize]
            };
            times[f] = here.max(free);
        }
        st.flit_moves += (f_hi + 1 - f_lo) as u64;
        if d >= m {
            // The tail started across channel d-m+1: channel d-m is free.
            let t = times[m - 1];
            let c = route[d - m] as u64;
            st.push(t, RELEASE, c);
            if d == m {
                self.queue_free(st, tc, i, t);
            }
        }
    }

    fn queue_free(&self, st: &mut State, tc: &[f64], i: usize, t: f64) {
        let seg = st.msgs.seg[i] as usize;
        if seg > 0 && st.msgs.counted[i] {
            let service = t - st.msgs.at_head[i];
            let (lo, _) = st.msgs.segment(i);
            let first = tc[st.msgs.route[lo] as usize] * st.msgs.m as f64;
            let w = &mut st.waits[seg - 1];
            w.services += 1;
            w.service += service;
            w.service_sq += service * service;
            w.downstream += t - st.msgs.took[i] - first;
        }
        let q = self.queue_of(&st.msgs, i, self.cluster.len());
        st.push(t, QUEUE_NEXT, q as u64);
    }

    /// The header of `msg` has crossed its channel: asks for the next one, or has
    /// reached the end of its segment.
    fn header(&self, st: &mut State, tc: &[f64], cfg: &Config, msg: u32) {
        let i = msg as usize;
        let (lo, hi) = st.msgs.segment(i);
        let len = hi - lo;
        if (st.msgs.head[i] as usize) < len {
            self.try_acquire(st, tc, msg);
            return;
        }
        // At the sink: no decision is left for this worm; compute the rest.
        let m = st.msgs.m;
        for d in len..len + m - 1 {
            self.diagonal(st, tc, i, lo, hi, d);
        }
        let last = tc[st.msgs.route[hi - 1] as usize];
        let times = &mut st.msgs.times[i * m..(i + 1) * m];
        for t in times.iter_mut() {
            *t += last;
        }
        let tail = times[m - 1];
        st.push(tail, RELEASE, st.msgs.route[hi - 1] as u64);
        if len == 1 {
            // The first channel is the last: the queue is free when the tail arrives
            // (longer segments freed it on diagonal m).
            self.queue_free(st, tc, i, tail);
        }
        let seg = st.msgs.seg[i] as usize + 1;
        if seg == st.msgs.segs[i] as usize {
            // Delivered at `tail`.
            st.delivered += 1;
            st.last_delivery = st.last_delivery.max(tail);
            let frame = st.msgs.frame[i];
            if let Some(plan) = st.plan.as_mut().filter(|p| !p.all_at_once) {
                let k = frame as usize;
                plan.remaining[k] -= 1;
                plan.end[k] = plan.end[k].max(tail);
                if plan.remaining[k] == 0 {
                    // The barrier: the next frame with messages starts when this one
                    // has been delivered entirely.
                    let end = plan.end[k];
                    if let Some(next) =
                        (k + 1..plan.frames.len()).find(|&f| !plan.frames[f].is_empty())
                    {
                        st.push(end, FRAME, next as u64);
                    }
                }
            }
            if st.msgs.counted[i] {
                st.delivered_counted += 1;
                let src = st.msgs.src[i] as usize;
                let gen = st.msgs.gen_time[i];
                let inject = st.msgs.inject[i];
                let s = &mut st.sums[self.cluster[src] as usize];
                s.messages += 1;
                s.inter += u64::from(st.msgs.segs[i] > 1);
                s.latency += tail - gen;
                s.source_wait += inject - gen;
                s.network += tail - inject;
                s.concentrator_wait += st.msgs.cd_wait[i];
                st.hops[st.msgs.len[i] as usize] += 1;
            }
            st.msgs.free.push(msg);
            return;
        }
        st.msgs.seg[i] = seg as u8;
        match cfg.forwarding {
            Forwarding::CutThrough => {
                st.msgs.entered[i] = st.now;
                let q = self.queue_of(&st.msgs, i, self.cluster.len());
                self.enqueue(st, tc, q, msg);
            }
            Forwarding::StoreAndForward => {
                let times = &mut st.msgs.times[i * m..(i + 1) * m];
                times.fill(tail);
                st.push(tail, ENQUEUE, msg as u64);
            }
        }
    }
}

#[cfg(test)]
mod tests;
