//! The event-driven simulation of a plan (see the crate docs for the network model).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use crate::plan::Plan;
use crate::platform::Platform;
use crate::sharing::Sharing;
use crate::SimError;

/// Simulation parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Software overhead per message, in seconds: the time between posting a message and
    /// its first bit entering the network.
    pub overhead: f64,
    /// Record the link utilisation over time ([`Run::trace`]), for plots.
    pub trace: bool,
}

/// The transport under the messages: what a TCP-based MPI library adds to the network
/// model. Every field's default switches its effect off, so [`simulate`] (which uses the
/// default) is unchanged. [`Transport::OPEN_MPI_TCP`] holds the values of Open MPI's TCP
/// transport, each with its source.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transport {
    /// Bytes in flight per connection (the TCP window, bounded by the socket buffers);
    /// 0: no bound. A message's rate is at most `window / (2 · route latency)`: SimGrid
    /// CM02's `network/TCP-gamma` bound (`network_cm02.cpp`, `cfg_tcp_gamma / (2.0 *
    /// lat_current_)`), which SMPI runs can switch on to check it.
    pub window_bytes: f64,
    /// Messages of this many bytes or more use Open MPI ob1's rendezvous protocol, the
    /// receiver being ready: a first fragment of the limit less
    /// [`crate::mpi_alltoall::OB1_HEADER_BYTES`] of data goes at once; once it is
    /// delivered, the receiver's ACK comes back and the rest follows (one round trip,
    /// 2 · route latency, between the fragment's delivery and the rest's first bit
    /// arriving); see [`crate::mpi_alltoall`] for the protocol's source and the check
    /// against SMPI. `None`: every message is eager. (Open MPI's limit counts its
    /// header, so a payload of exactly the limit is already a rendezvous; SMPI detaches
    /// sends strictly below `smpi/send-is-detached-thresh`.)
    pub eager_limit_bytes: Option<f64>,
    /// Software overhead per message paid *in turn* by its sender (LogGP's o): a sender
    /// posts its messages one after another, each taking this long before its first bit
    /// leaves. The sender of a message is the first link of its route (the node's card).
    /// Paid in addition to [`Options::overhead`], which every message pays in parallel.
    pub serial_overhead_s: f64,
    /// TCP's RTT unfairness as SimGrid's CM02 models it: flows share a link in inverse
    /// proportion to their route latency (`network_cm02.cpp`: `sharing_penalty_ =
    /// latency`; a route without latency weighs as 1 s). Off: every flow weighs the same.
    pub rtt_unfair: bool,
}

impl Transport {
    /// Open MPI's TCP transport (BTL `tcp`, PML `ob1`) as 001 ran it (Open MPI 1.1.2):
    /// - `window_bytes` 131072: `btl_tcp_sndbuf` and `btl_tcp_rcvbuf` default to
    ///   `128*1024` (`ompi/mca/btl/tcp/btl_tcp_component.c` at v1.1.2, lines 204-207);
    /// - `eager_limit_bytes` 65536: `btl_tcp_eager_limit` defaults to `64*1024` (same
    ///   file, lines 212-213); above it `ob1` starts a rendezvous
    ///   (`ompi/mca/pml/ob1/pml_ob1_sendreq.h`, `mca_pml_ob1_send_request_start_rndv`);
    /// - `serial_overhead_s` 0: no source gives o for 001's nodes, so it stays off unless
    ///   set.
    /// - `rtt_unfair` on: the TCP sharing of SimGrid's CM02 model (Velho and Legrand,
    ///   validated against packet-level simulation), which SMPI's CM02 runs use.
    pub const OPEN_MPI_TCP: Transport = Transport {
        window_bytes: 131072.0,
        eager_limit_bytes: Some(65536.0),
        serial_overhead_s: 0.0,
        rtt_unfair: true,
    };

    /// Checks every field: finite and not negative.
    pub fn check(&self) -> Result<(), SimError> {
        let eager = self.eager_limit_bytes.unwrap_or(0.0);
        for (name, v) in [
            ("window", self.window_bytes),
            ("eager limit", eager),
            ("serial overhead", self.serial_overhead_s),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SimError::BadParameter {
                    name: "transport",
                    why: format!("{name} {v}: give a finite number, not negative"),
                });
            }
        }
        Ok(())
    }

    /// The rate bound of a message over a route of this one-way latency (infinite: none).
    pub fn rate_bound(&self, latency: f64) -> f64 {
        if self.window_bytes > 0.0 && latency > 0.0 {
            // Divided in turn: 2 · 1e308 s would overflow.
            self.window_bytes / latency / 2.0
        } else {
            f64::INFINITY
        }
    }

    /// Whether a message of this size pays the rendezvous round trip.
    pub fn rendezvous(&self, bytes: f64) -> bool {
        self.eager_limit_bytes.is_some_and(|e| bytes >= e)
    }

    /// The bytes of a rendezvous message's first fragment (ob1's eager limit less its
    /// header), or the whole message when it is eager.
    pub fn first_fragment(&self, bytes: f64) -> f64 {
        match self.eager_limit_bytes {
            Some(e) if bytes >= e => crate::mpi_alltoall::ob1_first_fragment(e, bytes),
            _ => bytes,
        }
    }
}

/// A time interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Start, in seconds.
    pub start: f64,
    /// End, in seconds.
    pub end: f64,
}

/// An interval during which every flow's rate is constant.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// When the interval starts (it ends where the next one starts, or at the makespan).
    pub start: f64,
    /// Sum of all flows' rates, bytes per second.
    pub throughput: f64,
    /// The utilisation (used / bandwidth, in [0, 1]) of every link in use, by platform
    /// link index, in increasing index order.
    pub links: Vec<(u32, f64)>,
}

/// The outcome of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// When the last step finished, in seconds.
    pub makespan: f64,
    /// Each step's start (its dependencies met) and end (its last message delivered).
    pub steps: Vec<Span>,
    /// Each message's delivery time, per step, in the plan's order.
    pub delivered: Vec<Vec<f64>>,
    /// Number of events processed (timers fired and flows completed).
    pub events: u64,
    /// Number of times the max-min rates were recomputed.
    pub reallocations: u64,
    /// The rate history, when [`Options::trace`] is set.
    pub trace: Vec<Segment>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Waiting,
    Overhead,
    Latency,
    Flowing,
    /// A rendezvous between its first fragment's delivery and its rest's first bit.
    Handshake,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    Post(u32),
    Phase(u32),
}

// An f64 time ordered totally (times are finite and not negative).
use crate::Total as Time;

/// A flow whose remaining bytes are within this fraction of its size is delivered (the
/// rounding error of advancing it piecewise).
const DONE_FRACTION: f64 = 1e-9;

struct Sim<'a> {
    platform: &'a Platform,
    plan: &'a Plan,
    overhead: f64,
    transport: Transport,
    /// When each sender (first link of a route) is free to pay its next serial overhead.
    sender_free: std::collections::HashMap<u32, f64>,
    /// First flat message index of each step.
    first: Vec<usize>,
    /// (step, index in step) of each flat message.
    owner: Vec<(u32, u32)>,
    phase: Vec<Phase>,
    remaining: Vec<f64>,
    /// The bytes of the part of each message now flowing (its first fragment, its rest,
    /// or all of it).
    part: Vec<f64>,
    /// Whether the part of each message now flowing is a rendezvous' rest.
    in_rest: Vec<bool>,
    deps_left: Vec<usize>,
    msgs_left: Vec<usize>,
    dependents: Vec<Vec<u32>>,
    steps: Vec<Span>,
    delivered: Vec<Vec<f64>>,
    timers: BinaryHeap<Reverse<(Time, u64, Timer)>>,
    seq: u64,
    ready: VecDeque<u32>,
    /// The flowing messages, in the order they started.
    flowing: Vec<u32>,
    /// Their rates (flow i is message i).
    sharing: Sharing,
    dirty: bool,
    events: u64,
}

impl Sim<'_> {
    fn timer(&mut self, at: f64, t: Timer) {
        self.seq += 1;
        self.timers.push(Reverse((Time(at), self.seq, t)));
    }

    fn start_step(&mut self, s: u32, now: f64) {
        self.steps[s as usize].start = now;
        let delay = self.plan.steps[s as usize].delay;
        if delay > 0.0 {
            self.timer(now + delay, Timer::Post(s));
        } else {
            self.post(s, now);
        }
    }

    fn post(&mut self, s: u32, now: f64) {
        let si = s as usize;
        if self.plan.steps[si].messages.is_empty() {
            self.finish_step(s, now);
            return;
        }
        for m in self.first[si]..self.first[si + 1] {
            self.phase[m] = Phase::Overhead;
            let mut ready = now + self.overhead;
            if self.transport.serial_overhead_s > 0.0 {
                let sender = self.message(m).route[0];
                let free = self.sender_free.entry(sender).or_insert(0.0);
                let start = free.max(now);
                *free = start + self.transport.serial_overhead_s;
                ready = *free + self.overhead;
            }
            if ready > now {
                self.timer(ready, Timer::Phase(m as u32));
            } else {
                self.after_overhead(m, now);
            }
        }
    }

    fn message(&self, m: usize) -> &crate::plan::Message {
        let (s, i) = self.owner[m];
        &self.plan.steps[s as usize].messages[i as usize]
    }

    fn after_overhead(&mut self, m: usize, now: f64) {
        self.phase[m] = Phase::Latency;
        let latency = self.platform.route_latency(&self.message(m).route);
        if latency > 0.0 {
            self.timer(now + latency, Timer::Phase(m as u32));
        } else {
            self.after_latency(m, now);
        }
    }

    /// The first bit of the message (or of its first fragment) has arrived.
    fn after_latency(&mut self, m: usize, now: f64) {
        let first = self.transport.first_fragment(self.message(m).bytes);
        self.flow(m, first, now);
    }

    /// Sends `bytes` of message m, then [`Sim::part_delivered`].
    fn flow(&mut self, m: usize, bytes: f64, now: f64) {
        self.part[m] = bytes;
        if bytes > 0.0 {
            self.phase[m] = Phase::Flowing;
            self.remaining[m] = bytes;
            self.flowing.push(m as u32);
            self.sharing.add(m);
            self.dirty = true;
        } else {
            self.part_delivered(m, now);
        }
    }

    /// A part of message m is delivered: the message, or a rendezvous' first fragment
    /// (then the ACK's and the rest's latencies before the rest flows).
    fn part_delivered(&mut self, m: usize, now: f64) {
        let bytes = self.message(m).bytes;
        if !self.in_rest[m] && self.transport.rendezvous(bytes) {
            self.phase[m] = Phase::Handshake;
            let round_trip = 2.0 * self.platform.route_latency(&self.message(m).route);
            if round_trip > 0.0 {
                self.timer(now + round_trip, Timer::Phase(m as u32));
            } else {
                self.after_handshake(m, now);
            }
        } else {
            self.deliver(m, now);
        }
    }

    /// The ACK is back and the rest's first bit has arrived.
    fn after_handshake(&mut self, m: usize, now: f64) {
        let bytes = self.message(m).bytes;
        let rest = bytes - self.transport.first_fragment(bytes);
        self.in_rest[m] = true;
        self.flow(m, rest, now);
    }

    fn deliver(&mut self, m: usize, now: f64) {
        self.phase[m] = Phase::Done;
        let (s, i) = self.owner[m];
        self.delivered[s as usize][i as usize] = now;
        self.msgs_left[s as usize] -= 1;
        if self.msgs_left[s as usize] == 0 {
            self.finish_step(s, now);
        }
    }

    fn finish_step(&mut self, s: u32, now: f64) {
        self.steps[s as usize].end = now;
        for k in 0..self.dependents[s as usize].len() {
            let d = self.dependents[s as usize][k];
            self.deps_left[d as usize] -= 1;
            if self.deps_left[d as usize] == 0 {
                self.ready.push_back(d);
            }
        }
    }

    /// The [`SimError::TimeLimit`] of a run stopped at `now`: how far it got.
    fn stopped(&self, now: f64) -> SimError {
        let delivered = self.delivered.iter().flatten();
        SimError::TimeLimit(crate::Stopped {
            simulated_s: now,
            steps_done: self.steps.iter().filter(|s| !s.end.is_nan()).count(),
            steps: self.steps.len(),
            messages_done: delivered.clone().filter(|t| !t.is_nan()).count(),
            messages: delivered.count(),
        })
    }

    fn drain_ready(&mut self, now: f64) {
        while let Some(s) = self.ready.pop_front() {
            self.start_step(s, now);
        }
    }
}

/// How a simulation is driven beyond its model ([`simulate_controlled`]): the simulated
/// time it starts at, a wall-clock deadline, and a report of its progress. The default is
/// what [`simulate_with`] does: start at 0, no deadline, no report.
#[derive(Clone, Copy, Default)]
pub struct Control<'a> {
    /// The simulated time, seconds, at which the steps without dependencies start (0 in
    /// [`simulate`]); every time of the [`Run`] is on this clock. A plan that continues
    /// another one from an instant when the network carried nothing starts there.
    pub start: f64,
    /// Stop with [`SimError::TimeLimit`] once this instant has passed: checked before the
    /// first event and every [`CHECK_EVERY`] turns of the event loop (sooner when many
    /// messages flow, [`CHECK_FLOWS`]).
    pub deadline: Option<Instant>,
    /// Called with the simulated time reached, at every check of the deadline (for a
    /// progress line; it must be cheap).
    pub progress: Option<&'a dyn Fn(f64)>,
}

impl std::fmt::Debug for Control<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("start", &self.start)
            .field("deadline", &self.deadline)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// How many turns of the event loop [`simulate_controlled`] runs between two checks of
/// its deadline and two progress reports (a turn costs at least the scan of the flowing
/// messages, so a check every 256 costs nothing measurable). A turn with many messages
/// flowing counts as more than one ([`CHECK_FLOWS`]).
pub const CHECK_EVERY: u64 = 256;

/// A turn of the event loop counts as one more towards [`CHECK_EVERY`] per this many
/// messages flowing: a turn scans them all and shares the links among them, so with
/// 100,000 messages in flight every turn is checked (256 turns of that size took 7 s of
/// a 186,192-message all-at-once run on fat-tree:12,3), and between two checks at most
/// about 65,536 flowing messages are scanned.
pub const CHECK_FLOWS: u64 = 256;

/// Runs a plan on a platform. Deterministic: the same input gives the same output.
pub fn simulate(platform: &Platform, plan: &Plan, opts: &Options) -> Result<Run, SimError> {
    simulate_with(platform, plan, opts, &Transport::default())
}

/// [`simulate`] over a transport: windows, rendezvous and serial overheads (see
/// [`Transport`]).
pub fn simulate_with(
    platform: &Platform,
    plan: &Plan,
    opts: &Options,
    transport: &Transport,
) -> Result<Run, SimError> {
    simulate_controlled(platform, plan, opts, transport, &Control::default())
}

/// [`simulate_with`] driven by a [`Control`]: started at `control.start` (simulated
/// seconds), stopped with [`SimError::TimeLimit`] when `control.deadline` passes, the
/// simulated time reported to `control.progress` as it goes. Without a deadline the run
/// is the same as [`simulate_with`]'s, its times shifted by the start.
pub fn simulate_controlled(
    platform: &Platform,
    plan: &Plan,
    opts: &Options,
    transport: &Transport,
    control: &Control<'_>,
) -> Result<Run, SimError> {
    transport.check()?;
    if !(control.start.is_finite() && control.start >= 0.0) {
        return Err(SimError::BadParameter {
            name: "start",
            why: format!(
                "must be a finite, non-negative number of seconds, not {}",
                control.start
            ),
        });
    }
    if !(opts.overhead.is_finite() && opts.overhead >= 0.0) {
        return Err(SimError::BadParameter {
            name: "overhead",
            why: format!(
                "must be a finite, non-negative number of seconds, not {}",
                opts.overhead
            ),
        });
    }
    plan.check(platform)?;
    let total_bytes: f64 = plan
        .steps
        .iter()
        .flat_map(|s| &s.messages)
        .map(|m| m.bytes)
        .sum();
    if !total_bytes.is_finite() {
        return Err(SimError::BadParameter {
            name: "size",
            why: "the messages' bytes add up to more than a number holds".into(),
        });
    }
    let n = plan.steps.len();
    let mut first = Vec::with_capacity(n + 1);
    let mut owner = Vec::new();
    for (s, step) in plan.steps.iter().enumerate() {
        first.push(owner.len());
        owner.extend((0..step.messages.len()).map(|i| (s as u32, i as u32)));
    }
    first.push(owner.len());
    let mut dependents = vec![Vec::new(); n];
    for (s, step) in plan.steps.iter().enumerate() {
        for &d in &step.after {
            dependents[d].push(s as u32);
        }
    }
    let total = owner.len();
    let sharing = sharing_of(platform, plan, &owner, transport);
    let mut sim = Sim {
        platform,
        plan,
        overhead: opts.overhead,
        transport: *transport,
        sender_free: std::collections::HashMap::new(),
        first,
        owner,
        phase: vec![Phase::Waiting; total],
        remaining: vec![0.0; total],
        part: vec![0.0; total],
        in_rest: vec![false; total],
        deps_left: plan.steps.iter().map(|s| s.after.len()).collect(),
        msgs_left: plan.steps.iter().map(|s| s.messages.len()).collect(),
        dependents,
        steps: vec![
            Span {
                start: f64::NAN,
                end: f64::NAN
            };
            n
        ],
        delivered: plan
            .steps
            .iter()
            .map(|s| vec![f64::NAN; s.messages.len()])
            .collect(),
        timers: BinaryHeap::new(),
        seq: 0,
        ready: (0..n as u32)
            .filter(|&s| plan.steps[s as usize].after.is_empty())
            .collect(),
        flowing: Vec::new(),
        sharing,
        dirty: false,
        events: 0,
    };
    let mut trace = Vec::new();
    let mut reallocations = 0;
    let mut now = control.start;
    let mut done: Vec<u32> = Vec::new();
    // Turns since the last check, weighed by the messages flowing ([`CHECK_FLOWS`]);
    // the first turn is checked.
    let mut turns: u64 = CHECK_EVERY;
    sim.drain_ready(now);
    loop {
        if turns >= CHECK_EVERY {
            turns = 0;
            if control.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(sim.stopped(now));
            }
            if let Some(report) = control.progress {
                report(now);
            }
        }
        turns += 1 + sim.flowing.len() as u64 / CHECK_FLOWS;
        if sim.dirty {
            sim.dirty = false;
            reallocations += 1;
            sim.sharing.solve();
            if opts.trace {
                trace.push(segment(&sim, now));
            }
        }
        let next_timer = sim.timers.peek().map(|Reverse((t, _, _))| t.0);
        let mut next_flow: Option<(f64, usize)> = None;
        for (i, &m) in sim.flowing.iter().enumerate() {
            let t = now + sim.remaining[m as usize] / sim.sharing.rate(m as usize);
            if next_flow.is_none_or(|(b, _)| t < b) {
                next_flow = Some((t, i));
            }
        }
        let next = match (next_timer, next_flow) {
            (None, None) => break,
            (Some(a), None) => a,
            (None, Some((b, _))) => b,
            (Some(a), Some((b, _))) => a.min(b),
        };
        if !next.is_finite() {
            return Err(SimError::BadParameter {
                name: "times",
                why: format!(
                    "the simulated time overflows after {now:e} s: the sizes, latencies or \
                     overheads are too large, or the bandwidths too small, for a number"
                ),
            });
        }
        let dt = next - now;
        if !sim.flowing.is_empty() && dt > 0.0 {
            for &m in &sim.flowing {
                sim.remaining[m as usize] -= sim.sharing.rate(m as usize) * dt;
            }
        }
        now = next;
        if let Some((t, i)) = next_flow {
            if t <= now {
                sim.remaining[sim.flowing[i] as usize] = 0.0;
            }
        }
        // Flows done at `now`, in the order they started.
        done.clear();
        let (remaining, part) = (&sim.remaining, &sim.part);
        sim.flowing.retain(|&m| {
            let finished = remaining[m as usize] <= part[m as usize] * DONE_FRACTION;
            if finished {
                done.push(m);
            }
            !finished
        });
        if !done.is_empty() {
            sim.dirty = true;
        }
        for &m in &done {
            sim.sharing.remove(m as usize);
        }
        for &m in &done {
            sim.events += 1;
            sim.part_delivered(m as usize, now);
        }
        while let Some(Reverse((t, _, _))) = sim.timers.peek() {
            if t.0 > now {
                break;
            }
            let Some(Reverse((_, _, timer))) = sim.timers.pop() else {
                break;
            };
            sim.events += 1;
            match timer {
                Timer::Post(s) => sim.post(s, now),
                Timer::Phase(m) => match sim.phase[m as usize] {
                    Phase::Overhead => sim.after_overhead(m as usize, now),
                    Phase::Latency => sim.after_latency(m as usize, now),
                    Phase::Handshake => sim.after_handshake(m as usize, now),
                    other => {
                        return Err(SimError::Mismatch(format!(
                            "internal: message {m} woke up in phase {other:?}"
                        )))
                    }
                },
            }
        }
        sim.drain_ready(now);
    }
    if let Some(s) = sim.steps.iter().position(|s| s.end.is_nan()) {
        return Err(SimError::Cycle { step: s });
    }
    let makespan = sim.steps.iter().map(|s| s.end).fold(0.0, f64::max);
    Ok(Run {
        makespan,
        steps: sim.steps,
        delivered: sim.delivered,
        events: sim.events,
        reallocations,
        trace,
    })
}

/// The sharing of the plan's messages (message m is flow m, in the plan's order) over the
/// platform's links. With a window, each message also crosses a private link of its rate
/// bound (link `links + m`); with RTT unfairness, each weighs 1 / its route latency (a
/// route without latency as 1 s), scaled so that the heaviest message of the plan weighs
/// 1 (1 / 1e308 would make a link's share per unit of weight overflow).
fn sharing_of(
    platform: &Platform,
    plan: &Plan,
    owner: &[(u32, u32)],
    transport: &Transport,
) -> Sharing {
    let message = |m: usize| {
        let (s, i) = owner[m];
        &plan.steps[s as usize].messages[i as usize]
    };
    let mut capacity: Vec<f64> = platform.links().iter().map(|l| l.bandwidth).collect();
    let links = capacity.len();
    let windowed = transport.window_bytes > 0.0;
    let mut routes = Vec::new();
    let mut starts = vec![0];
    let mut penalty = Vec::new();
    for m in 0..owner.len() {
        let route = &message(m).route;
        routes.extend_from_slice(route);
        if windowed || transport.rtt_unfair {
            let latency = platform.route_latency(route);
            let bound = transport.rate_bound(latency);
            if bound.is_finite() {
                routes.push((links + m) as u32);
            }
            capacity.push(bound);
            penalty.push(if latency > 0.0 { latency } else { 1.0 });
        }
        starts.push(routes.len());
    }
    let weights = transport.rtt_unfair.then(|| {
        let least = penalty.iter().copied().fold(f64::INFINITY, f64::min);
        penalty.iter().map(|p| least / p).collect()
    });
    Sharing::new(capacity, routes, starts, weights)
}

fn segment(sim: &Sim<'_>, now: f64) -> Segment {
    let capacity = |l: u32| sim.platform.links()[l as usize].bandwidth;
    let mut used: Vec<(u32, f64)> = Vec::new();
    for &m in &sim.flowing {
        for &l in &sim.message(m as usize).route {
            used.push((l, sim.sharing.rate(m as usize)));
        }
    }
    used.sort_by_key(|&(l, _)| l);
    let mut links: Vec<(u32, f64)> = Vec::new();
    for (l, r) in used {
        match links.last_mut() {
            Some((last, sum)) if *last == l => *sum += r,
            _ => links.push((l, r)),
        }
    }
    for (l, u) in &mut links {
        *u = (*u / capacity(*l)).min(1.0);
    }
    Segment {
        start: now,
        throughput: sim
            .flowing
            .iter()
            .map(|&m| sim.sharing.rate(m as usize))
            .sum(),
        links,
    }
}
