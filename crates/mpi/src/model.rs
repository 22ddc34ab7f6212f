//! What the runtime runs, as a `liquid_sim` plan: every rank's operations in order, the
//! barriers included.
//!
//! A schedule's plan (`liquid simulate`) starts frame f+1 when the last message of frame f
//! is delivered. The runtime does more: it calls `MPI_Barrier` once before it starts its
//! clock and between frames (and rounds), each rank times itself from its own exit of the
//! first barrier, and a message starts only once both its sender and its receiver have
//! posted it. [`runtime_plan`] builds, from a [`Program`], the plan of exactly that:
//!
//! - a rank posts its operations in order, in no time (no local work is simulated);
//! - a message starts when both its send and its receive are posted (an MPI library
//!   matches them first; SimGrid starts a communication when both sides are in its
//!   mailbox), then takes its route's latency and its bytes plus [`RuntimeModel::envelope`]
//!   under max-min sharing, as every other message (or, with
//!   [`RuntimeModel::rtt_unfair`], shares weighted by the inverse of route latency, as
//!   SimGrid's CM02 shares them);
//! - a send below [`RuntimeModel::eager_limit`] bytes that is not synchronous completes as
//!   soon as it is posted (eager: the library copies it; SMPI calls such a send
//!   *detached*, below `smpi/send-is-detached-thresh`, 65536 by default); a larger one, or
//!   a synchronous one, completes when its receiver has it; a receive completes on delivery;
//! - a send that forwards relayed data waits for the receives that bring it;
//! - a wait waits for the completion of the posted operations it names;
//! - `MPI_Barrier` is the *basic linear* barrier, SMPI's default (`barrier__default` calls
//!   `barrier__ompi_basic_linear`, src/smpi/colls/barrier/barrier-ompi.cpp): every rank
//!   but 0 sends rank 0 an empty message and waits for an empty message back; rank 0
//!   receives them all, then sends one to every rank. Rank 0 leaves when the last message
//!   has reached it, rank i when rank 0's message has reached it. The empty messages carry
//!   the envelope over the platform's route between the two ranks' hosts (none, and no
//!   time, when the model has no route between them).
//!
//! The plan's makespan is not the runtime's time: [`predict`] reads, per rank, its exit of
//! the first barrier and the completion of its last operation, and reports the largest
//! difference, as the runtime does (`MPI_Allreduce` of each rank's own time, `MPI_MAX`).
//! It never holds the whole plan: it simulates it one segment at a time, cut at the
//! barriers where the network is empty, within a deadline ([`Budget`]); see [`predict`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use liquid_sim::{Control, Message as SimMessage, Options, Plan, Platform, SimError, Step};

use crate::program::{Op, Piece, Program, Wait};
use crate::report::{Prediction, StepFigures, Stopped};
use crate::MpiError;

/// How a prediction is bounded and watched.
#[derive(Clone, Copy, Default)]
pub struct Budget<'a> {
    /// Stop once this instant has passed: checked before every segment of the run and
    /// inside each segment's simulation ([`liquid_sim::Control::deadline`]).
    pub deadline: Option<Instant>,
    /// Told what the prediction is doing (`predicting the run: barrier 1200 of 4000,
    /// 3.2 s simulated`), at most every [`PROGRESS_EVERY`]; for a progress line.
    pub progress: Option<&'a dyn Fn(&str)>,
}

impl std::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget")
            .field("deadline", &self.deadline)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// The shortest interval between two progress reports of a prediction.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// How the MPI library moves messages, for the prediction of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeModel {
    /// Bytes every message carries on top of its data (SMPI: 16, the `payload_size_ =
    /// size_ + 16` of src/smpi/mpi/smpi_request.cpp; an empty message carries only these).
    pub envelope: f64,
    /// Sends strictly below this many bytes complete when posted (eager); larger ones when
    /// received. 65536 is SMPI's `smpi/send-is-detached-thresh` and Open MPI's TCP eager
    /// limit (`btl_tcp_eager_limit`).
    pub eager_limit: u64,
    /// Messages share a link in inverse proportion to their route latency (TCP's RTT
    /// unfairness as SimGrid's CM02 network model, SMPI's, has it: a flow's sharing
    /// penalty is its route latency, `action->sharing_penalty_ = latency;` in
    /// src/surf/network_cm02.cpp of SimGrid 3.32; [`liquid_sim::Transport::rtt_unfair`]).
    /// Off: max-min sharing, every message the same share.
    pub rtt_unfair: bool,
}

impl Default for RuntimeModel {
    fn default() -> Self {
        RuntimeModel {
            envelope: 0.0,
            eager_limit: 65536,
            rtt_unfair: false,
        }
    }
}

/// The plan of a program as the runtime runs it, and where to read each rank's and each
/// message's times in its simulation.
#[derive(Debug, Clone)]
pub struct RuntimePlan {
    /// The plan (steps that carry a message are in the message's program step's group;
    /// the others, joins and barrier messages, in none).
    pub plan: Plan,
    /// Per rank, the plan step at whose end it leaves the first barrier (its clock's 0).
    pub start: Vec<usize>,
    /// Per rank, the plan step at whose end its last operation has completed.
    pub end: Vec<usize>,
    /// Per message, the plan steps at whose ends its send and its receive are posted.
    pub posted: Vec<(usize, usize)>,
    /// Per message, the plan steps at whose ends its send and its receive complete.
    pub completed: Vec<(usize, usize)>,
}

/// A plan step whose end time a prediction reads (see [`RuntimePlan`]).
#[derive(Debug, Clone, Copy)]
enum Slot {
    Start(usize),
    End(usize),
    SendPost(usize),
    RecvPost(usize),
    Node(usize),
}

/// The end times of the steps a prediction reads, per rank and per message (NaN: not
/// simulated yet).
#[derive(Debug, Clone)]
struct Times {
    start: Vec<f64>,
    end: Vec<f64>,
    send_post: Vec<f64>,
    recv_post: Vec<f64>,
    node: Vec<f64>,
}

impl Times {
    fn new(ranks: usize, messages: usize) -> Times {
        Times {
            start: vec![f64::NAN; ranks],
            end: vec![f64::NAN; ranks],
            send_post: vec![f64::NAN; messages],
            recv_post: vec![f64::NAN; messages],
            node: vec![f64::NAN; messages],
        }
    }

    fn set(&mut self, slot: Slot, t: f64) {
        match slot {
            Slot::Start(r) => self.start[r] = t,
            Slot::End(r) => self.end[r] = t,
            Slot::SendPost(k) => self.send_post[k] = t,
            Slot::RecvPost(k) => self.recv_post[k] = t,
            Slot::Node(k) => self.node[k] = t,
        }
    }
}

/// Simulates one segment of a runtime plan: its steps, the simulated time they start at
/// and the barriers entered so far; returns every step's end time.
type Sink<'s> = &'s mut dyn FnMut(&Plan, f64, usize) -> Result<Vec<f64>, MpiError>;

/// Builds the runtime plan step by step. Steps are numbered over the whole plan; with a
/// sink, the plan is cut into segments at barriers where the network is empty (see
/// [`predict`]): each segment is simulated as soon as it is complete and dropped, and a
/// step of the whole plan (number `g`) is `steps[g - base]` while its segment is built.
struct Builder<'a, 's> {
    /// The current segment's steps.
    steps: Vec<Step>,
    /// The number of the current segment's first step in the whole plan.
    base: usize,
    /// The last cut: the whole plan's step at which the network was empty, and its end
    /// time; `steps[0]` stands for it (an empty step without dependencies that starts at
    /// that time).
    cut: Option<(usize, f64)>,
    route: &'a dyn Fn(u32, u32) -> Option<Vec<u32>>,
    envelope: f64,
    sink: Option<Sink<'s>>,
    /// The steps of the current segment whose end times are read, and where they go.
    wants: Vec<(Slot, usize)>,
    times: Times,
    /// Barriers entered by every rank so far, and at the last cut.
    barriers: usize,
    barriers_at_cut: usize,
    segments: usize,
}

impl Builder<'_, '_> {
    /// Step `g` of the whole plan in the current segment: its own index, or 0 (the
    /// stand-in) for the last cut; None for a step of an earlier segment.
    fn local(&self, g: usize) -> Option<usize> {
        if g >= self.base {
            Some(g - self.base)
        } else if self.cut.is_some_and(|(c, _)| c == g) {
            Some(0)
        } else {
            None
        }
    }

    /// `after` without the steps of earlier segments other than the last cut: each of
    /// them ended by the cut, and every step built since starts after the cut. A list
    /// left empty would be a step that starts without waiting for the cut: a wrong cut.
    fn live(&self, mut after: Vec<usize>) -> Result<Vec<usize>, MpiError> {
        let had = !after.is_empty();
        after.retain(|&g| self.local(g).is_some());
        after.sort_unstable();
        after.dedup();
        if had && after.is_empty() {
            return Err(MpiError::Inconsistent(
                "a step after a cut of the runtime plan depends only on steps before it".into(),
            ));
        }
        Ok(after)
    }

    /// Adds a step after the (live) steps `after`; returns its number in the whole plan.
    fn push(&mut self, after: &[usize], messages: Vec<SimMessage>, group: Option<usize>) -> usize {
        let mut after: Vec<usize> = after.iter().filter_map(|&g| self.local(g)).collect();
        after.sort_unstable();
        after.dedup();
        self.steps.push(Step {
            after,
            delay: 0.0,
            messages,
            group,
        });
        self.base + self.steps.len() - 1
    }

    /// A step that ends when all of `after` have ended (at 0 with none).
    fn join(&mut self, after: Vec<usize>) -> Result<usize, MpiError> {
        let after = self.live(after)?;
        if after.len() == 1 {
            return Ok(after[0]);
        }
        Ok(self.push(&after, Vec::new(), None))
    }

    /// A message of `bytes` (plus the envelope) from rank `a` to rank `b`, started when all
    /// of `after` have ended.
    fn message(
        &mut self,
        a: u32,
        b: u32,
        bytes: f64,
        after: Vec<usize>,
        group: Option<usize>,
    ) -> Result<usize, MpiError> {
        let Some(route) = (self.route)(a, b) else {
            return self.join(after);
        };
        let after = self.live(after)?;
        let message = SimMessage {
            route,
            bytes: bytes + self.envelope,
            transfer: None,
        };
        Ok(self.push(&after, vec![message], group))
    }

    /// The first half of SMPI's basic linear barrier entered at `enter` (per rank): every
    /// rank but 0 sends rank 0 an empty message; returns the step at whose end rank 0
    /// has them all.
    fn gather(&mut self, enter: &[usize]) -> Result<usize, MpiError> {
        let mut gathered = vec![enter[0]];
        for (i, &e) in enter.iter().enumerate().skip(1) {
            gathered.push(self.message(i as u32, 0, 0.0, vec![e, enter[0]], None)?);
        }
        self.barriers += 1;
        self.join(gathered)
    }

    /// The second half: rank 0's empty message to every other rank after `release`;
    /// returns each rank's exit.
    fn release(&mut self, release: usize, n: usize) -> Result<Vec<usize>, MpiError> {
        let mut leave = vec![release];
        for i in 1..n {
            leave.push(self.message(0, i as u32, 0.0, vec![release], None)?);
        }
        Ok(leave)
    }

    /// Records that `slot` is read at the end of step `g`.
    fn want(&mut self, slot: Slot, g: usize) -> Result<(), MpiError> {
        if self.sink.is_none() {
            return Ok(());
        }
        match self.cut {
            _ if g >= self.base => self.wants.push((slot, g)),
            Some((c, t)) if c == g => self.times.set(slot, t),
            _ => {
                return Err(MpiError::Inconsistent(format!(
                    "the runtime plan reads step {g}, simulated in an earlier segment"
                )))
            }
        }
        Ok(())
    }

    /// Simulates the current segment and reads the times wanted from it; returns its
    /// steps' end times.
    fn simulate(&mut self) -> Result<Vec<f64>, MpiError> {
        let start = self.cut.map_or(0.0, |(_, t)| t);
        let plan = Plan {
            steps: std::mem::take(&mut self.steps),
        };
        let ends = match self.sink.as_mut() {
            Some(sink) => sink(&plan, start, self.barriers)?,
            None => return Err(MpiError::Inconsistent("no simulation of segments".into())),
        };
        for &(slot, g) in &self.wants {
            self.times.set(slot, ends[g - self.base]);
        }
        self.wants.clear();
        self.base += plan.steps.len();
        self.segments += 1;
        self.barriers_at_cut = self.barriers;
        Ok(ends)
    }

    /// Cuts the plan at step `c` (rank 0 has received every entry of a barrier) when the
    /// network is then empty: when every step of the segment is `c` or one it waits for,
    /// every message of the segment has been delivered by the end of `c`, and (the
    /// builder adds nothing else) every later step waits for `c`. Without a sink, or
    /// when the condition does not hold, the segment goes on.
    fn cut_at(&mut self, c: usize) -> Result<(), MpiError> {
        if self.sink.is_none() {
            return Ok(());
        }
        let Some(lc) = self.local(c) else {
            return Ok(());
        };
        let mut seen = vec![false; self.steps.len()];
        let mut stack = vec![lc];
        seen[lc] = true;
        let mut reached = 1;
        while let Some(s) = stack.pop() {
            for &d in &self.steps[s].after {
                if !seen[d] {
                    seen[d] = true;
                    reached += 1;
                    stack.push(d);
                }
            }
        }
        if reached < self.steps.len() {
            return Ok(());
        }
        let ends = self.simulate()?;
        self.cut = Some((c, ends[lc]));
        // The stand-in for c: no dependency, so it ends when the segment starts.
        self.steps.push(Step::default());
        Ok(())
    }
}

#[derive(Clone, Copy)]
struct Pending {
    recv: bool,
    step: u32,
    message: usize,
}

/// What [`walk`] built: the plan's steps (the last segment's, all of them without a
/// sink), where to read the times, the times read (with a sink), and whether the sink
/// stopped it.
struct Walked {
    steps: Vec<Step>,
    start: Vec<usize>,
    end: Vec<usize>,
    posted: Vec<(usize, usize)>,
    completed: Vec<(usize, usize)>,
    eager: Vec<bool>,
    times: Times,
    /// The simulated time at which the deadline stopped the prediction.
    stopped: Option<f64>,
    barriers_passed: usize,
    segments: usize,
}

/// Builds the plan of `program` as the runtime runs it (see the module docs); with a
/// sink, simulates it segment by segment as it goes ([`predict`]).
fn walk(
    program: &Program,
    route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
    model: &RuntimeModel,
    sink: Option<Sink<'_>>,
) -> Result<Walked, MpiError> {
    let n = program.ranks.len();
    let nm = program.messages.len();
    if n == 0 {
        return Err(MpiError::Inconsistent("a program without ranks".into()));
    }
    let mut b = Builder {
        steps: Vec::new(),
        base: 0,
        cut: None,
        route,
        envelope: model.envelope,
        sink,
        wants: Vec::new(),
        times: Times::new(n, nm),
        barriers: 0,
        barriers_at_cut: 0,
        segments: 0,
    };
    let mut state = Walk {
        start: Vec::new(),
        now: Vec::new(),
        ended: vec![None; n],
        send_post: vec![None; nm],
        recv_post: vec![None; nm],
        eager: vec![false; nm],
        node: vec![None; nm],
    };
    let built = state.run(program, model, &mut b);
    let stopped = match built {
        Ok(()) => None,
        Err(MpiError::Sim(SimError::TimeLimit(s))) => Some(s.simulated_s),
        Err(e) => return Err(e),
    };
    // Every step reads as the origin (step 0, time 0) when it was never reached.
    let origin = 0;
    let Walk {
        start,
        ended,
        send_post,
        recv_post,
        eager,
        node,
        ..
    } = state;
    let posted = (0..nm)
        .map(|k| {
            (
                send_post[k].unwrap_or(origin),
                recv_post[k].unwrap_or(origin),
            )
        })
        .collect();
    let completed = (0..nm)
        .map(|k| {
            let delivered = node[k].unwrap_or(origin);
            let sent = if eager[k] {
                send_post[k].unwrap_or(origin)
            } else {
                delivered
            };
            (sent, delivered)
        })
        .collect();
    Ok(Walked {
        steps: b.steps,
        start,
        end: ended.into_iter().map(|e| e.unwrap_or(origin)).collect(),
        posted,
        completed,
        eager,
        times: b.times,
        stopped,
        barriers_passed: b.barriers_at_cut,
        segments: b.segments,
    })
}

/// The ranks' progress through their operations while the plan is built.
struct Walk {
    /// Per rank, its exit of the first barrier.
    start: Vec<usize>,
    /// Per rank, the step after which its next operation is posted.
    now: Vec<usize>,
    /// Per rank, the step at whose end its last operation has completed.
    ended: Vec<Option<usize>>,
    send_post: Vec<Option<usize>>,
    recv_post: Vec<Option<usize>>,
    eager: Vec<bool>,
    node: Vec<Option<usize>>,
}

impl Walk {
    /// Adds message `k`'s plan step once both its send and its receive are posted.
    fn start_message(
        &mut self,
        k: usize,
        program: &Program,
        b: &mut Builder<'_, '_>,
    ) -> Result<(), MpiError> {
        if let (Some(s), Some(v), None) = (self.send_post[k], self.recv_post[k], self.node[k]) {
            let m = &program.messages[k];
            let g = b.message(
                m.from,
                m.to,
                m.bytes() as f64,
                vec![s, v],
                Some(m.step as usize),
            )?;
            self.node[k] = Some(g);
            b.want(Slot::Node(k), g)?;
        }
        Ok(())
    }

    fn run(
        &mut self,
        program: &Program,
        model: &RuntimeModel,
        b: &mut Builder<'_, '_>,
    ) -> Result<(), MpiError> {
        let n = program.ranks.len();
        let origin = b.join(Vec::new())?;
        let c = b.gather(&vec![origin; n])?;
        b.cut_at(c)?;
        self.start = b.release(c, n)?;
        for (r, &g) in self.start.iter().enumerate() {
            b.want(Slot::Start(r), g)?;
        }
        self.now = self.start.clone();
        let mut at = vec![0usize; n];
        let mut pending: Vec<Vec<Pending>> = vec![Vec::new(); n];
        let mut brought: Vec<HashMap<Piece, usize>> = vec![HashMap::new(); n];
        // Ranks waiting in the current barrier (their entry step).
        let mut entered: Vec<Option<usize>> = vec![None; n];
        let completion = |p: &Pending, w: &Walk| {
            if !p.recv && w.eager[p.message] {
                w.send_post[p.message]
            } else {
                w.node[p.message]
            }
        };
        loop {
            let mut progress = false;
            for r in 0..n {
                let ops = &program.ops[r];
                while self.ended[r].is_none() && entered[r].is_none() {
                    let Some(op) = ops.get(at[r]) else {
                        // The runtime's last wait: everything still posted.
                        let mut after = vec![self.now[r]];
                        let mut ready = true;
                        for p in &pending[r] {
                            match completion(p, self) {
                                Some(s) => after.push(s),
                                None => ready = false,
                            }
                        }
                        if !ready {
                            break;
                        }
                        let g = b.join(after)?;
                        self.ended[r] = Some(g);
                        b.want(Slot::End(r), g)?;
                        progress = true;
                        break;
                    };
                    match *op {
                        Op::Recv(k) => {
                            self.recv_post[k] = Some(self.now[r]);
                            b.want(Slot::RecvPost(k), self.now[r])?;
                            for p in &program.messages[k].pieces {
                                brought[r].insert(*p, k);
                            }
                            pending[r].push(Pending {
                                recv: true,
                                step: program.messages[k].step,
                                message: k,
                            });
                            self.start_message(k, program, b)?;
                        }
                        Op::Send(k) | Op::Ssend(k) => {
                            let m = &program.messages[k];
                            let mut after = vec![self.now[r]];
                            let mut ready = true;
                            for p in m.pieces.iter().filter(|p| p.src as usize != r) {
                                let from = brought[r].get(p).copied().ok_or_else(|| {
                                    MpiError::Inconsistent(format!(
                                        "rank {r} forwards {p:?} that no receive brought"
                                    ))
                                })?;
                                match self.node[from] {
                                    Some(s) => after.push(s),
                                    None => ready = false,
                                }
                            }
                            if !ready {
                                break;
                            }
                            self.now[r] = b.join(after)?;
                            self.send_post[k] = Some(self.now[r]);
                            b.want(Slot::SendPost(k), self.now[r])?;
                            self.eager[k] =
                                matches!(op, Op::Send(_)) && m.bytes() < model.eager_limit;
                            pending[r].push(Pending {
                                recv: false,
                                step: m.step,
                                message: k,
                            });
                            self.start_message(k, program, b)?;
                        }
                        Op::Wait(kind, step) => {
                            let hit = |p: &Pending| {
                                (kind == Wait::All || (kind == Wait::Recvs) == p.recv)
                                    && step.is_none_or(|s| s == p.step)
                            };
                            let mut after = vec![self.now[r]];
                            let mut ready = true;
                            for p in pending[r].iter().filter(|p| hit(p)) {
                                match completion(p, self) {
                                    Some(s) => after.push(s),
                                    None => ready = false,
                                }
                            }
                            if !ready {
                                break;
                            }
                            pending[r].retain(|p| !hit(p));
                            self.now[r] = b.join(after)?;
                        }
                        Op::Barrier => {
                            entered[r] = Some(self.now[r]);
                        }
                    }
                    at[r] += 1;
                    progress = true;
                }
            }
            if entered.iter().all(Option::is_some) {
                let enter: Vec<usize> = entered.iter().map(|e| e.unwrap_or(origin)).collect();
                let c = b.gather(&enter)?;
                b.cut_at(c)?;
                self.now = b.release(c, n)?;
                entered = vec![None; n];
                continue;
            }
            if self.ended.iter().all(Option::is_some) {
                break;
            }
            if !progress {
                let r = (0..n).find(|&r| self.ended[r].is_none()).unwrap_or(0);
                return Err(MpiError::Inconsistent(format!(
                    "the program deadlocks: rank {r} cannot pass its operation {} ({} ranks \
                     in a barrier)",
                    at[r],
                    entered.iter().filter(|e| e.is_some()).count()
                )));
            }
        }
        if b.sink.is_some() {
            b.simulate()?;
        }
        Ok(())
    }
}

/// Builds the plan of `program` as the runtime runs it (see the module docs), whole.
/// `route(a, b)` is the platform route from rank `a`'s host to rank `b`'s (None: the
/// ranks have no route in the model, and their messages take no time). [`predict`] does
/// not hold this plan: it simulates it segment by segment.
pub fn runtime_plan(
    program: &Program,
    route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
    model: &RuntimeModel,
) -> Result<RuntimePlan, MpiError> {
    let w = walk(program, route, model, None)?;
    Ok(RuntimePlan {
        plan: Plan { steps: w.steps },
        start: w.start,
        end: w.end,
        posted: w.posted,
        completed: w.completed,
    })
}

/// What the runtime reports, from the times of a prediction: per rank its exit of the
/// first barrier (`t0`) and its last completion; per message its posting and completion
/// (send, receive); NaN where the simulation did not get. Returns the total (None when a
/// rank's time is missing) and the step figures (those of a step with a missing time
/// left out).
fn figures(
    program: &Program,
    t0: &[f64],
    rank_end: &[f64],
    posted: &[(f64, f64)],
    completed: &[(f64, f64)],
) -> (Option<f64>, Vec<StepFigures>) {
    let times: Vec<f64> = rank_end.iter().zip(t0).map(|(&e, &z)| e - z).collect();
    let total_s = if times.iter().all(|t| t.is_finite()) {
        Some(times.iter().copied().fold(0.0, f64::max))
    } else {
        None
    };
    let per = program.per_step();
    let mut steps: Vec<StepFigures> = program
        .steps
        .iter()
        .enumerate()
        .map(|(q, label)| StepFigures {
            step: q,
            label: label.clone(),
            start_s: None,
            end_s: None,
            time_s: None,
            bytes: per[q].1 as f64,
            messages: per[q].0,
        })
        .collect();
    let mut missing = vec![false; steps.len()];
    for (k, m) in program.messages.iter().enumerate() {
        let (from, to) = (m.from as usize, m.to as usize);
        let start = (posted[k].0 - t0[from]).min(posted[k].1 - t0[to]);
        let end = (completed[k].0 - t0[from]).max(completed[k].1 - t0[to]);
        let q = m.step as usize;
        let known = [
            posted[k].0,
            posted[k].1,
            completed[k].0,
            completed[k].1,
            t0[from],
            t0[to],
        ];
        if known.iter().any(|t| !t.is_finite()) {
            missing[q] = true;
            continue;
        }
        let f = &mut steps[q];
        f.start_s = Some(f.start_s.map_or(start, |x| x.min(start)));
        f.end_s = Some(f.end_s.map_or(end, |x| x.max(end)));
    }
    for (f, &gone) in steps.iter_mut().zip(&missing) {
        if gone {
            f.start_s = None;
            f.end_s = None;
        }
        if let (Some(a), Some(b)) = (f.start_s, f.end_s) {
            f.time_s = Some(b - a);
        }
    }
    (total_s, steps)
}

fn library(model: &RuntimeModel) -> String {
    format!(
        "{} bytes of envelope per message; sends below {} bytes eager; MPI_Barrier basic \
         linear (SMPI's default){}",
        model.envelope,
        model.eager_limit,
        if model.rtt_unfair {
            "; links shared in inverse proportion to route latency (SimGrid CM02)"
        } else {
            ""
        }
    )
}

/// The barriers of a program, the first included (every rank enters each; rank 0's
/// count).
pub(crate) fn barriers(program: &Program) -> usize {
    1 + program.ops.first().map_or(0, |ops| {
        ops.iter().filter(|o| matches!(o, Op::Barrier)).count()
    })
}

/// liquid's prediction of a run of `program`: the simulation of its [`runtime_plan`], read
/// as the runtime reports (each rank's times from its own exit of the first barrier; a
/// step from its first posting to its last completion, over all ranks; the total, the
/// largest rank's time).
///
/// The plan is simulated one segment at a time, in the memory of one segment: it is cut
/// at a barrier when rank 0 has received every rank's entry and every step of the plan
/// so far is one that this reception waits for. Then every message sent so far has been
/// delivered (in the basic linear barrier a rank enters after its own operations, and
/// with the waits of liquid's programs a receive completes on delivery), so the network
/// carries nothing at that instant, and everything after it waits for it: the rest of
/// the run depends only on that instant. The next segment (rank 0's releases, the
/// operations up to the next barrier, its entries) is simulated from an empty network
/// starting there. Where the condition does not hold (a message still in flight across
/// a barrier) the segment goes on to the next barrier; a program without barriers after
/// the first is one segment. The figures equal those of the whole plan simulated at once
/// up to floating-point rounding (the sharing is solved over other flow numberings).
///
/// `budget.deadline` stops the prediction between segments and inside a segment's
/// simulation: the prediction then has no total, [`Prediction::stopped`] says how far it
/// got, and only the steps simulated to their end have figures.
pub fn predict(
    program: &Program,
    platform: &Platform,
    route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
    model: &RuntimeModel,
    options: &Options,
    budget: &Budget<'_>,
) -> Result<Prediction, MpiError> {
    predict_counted(program, platform, route, model, options, budget).map(|(p, _)| p)
}

/// [`predict`], and the number of segments simulated to their end.
pub(crate) fn predict_counted(
    program: &Program,
    platform: &Platform,
    route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
    model: &RuntimeModel,
    options: &Options,
    budget: &Budget<'_>,
) -> Result<(Prediction, usize), MpiError> {
    let transport = liquid_sim::Transport {
        rtt_unfair: model.rtt_unfair,
        ..liquid_sim::Transport::default()
    };
    let total_barriers = barriers(program);
    let last_said = std::cell::Cell::new(None::<Instant>);
    let say = |barrier: usize, simulated: f64| {
        let Some(progress) = budget.progress else {
            return;
        };
        let now = Instant::now();
        if last_said
            .get()
            .is_some_and(|t| now.duration_since(t) < PROGRESS_EVERY)
        {
            return;
        }
        last_said.set(Some(now));
        progress(&format!(
            "predicting the run: barrier {barrier} of {total_barriers}, {simulated:.6} s \
             simulated"
        ));
    };
    let mut sink = |plan: &Plan, start: f64, barrier: usize| -> Result<Vec<f64>, MpiError> {
        if budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(SimError::TimeLimit(liquid_sim::Stopped {
                simulated_s: start,
                steps_done: 0,
                steps: plan.steps.len(),
                messages_done: 0,
                messages: plan.messages(),
            })
            .into());
        }
        say(barrier, start);
        let inside = |t: f64| say(barrier, t);
        let control = Control {
            start,
            deadline: budget.deadline,
            progress: budget.progress.is_some().then_some(&inside as &dyn Fn(f64)),
        };
        let run = liquid_sim::simulate_controlled(platform, plan, options, &transport, &control)?;
        Ok(run.steps.iter().map(|s| s.end).collect())
    };
    let w = walk(program, route, model, Some(&mut sink))?;
    let t = &w.times;
    let posted: Vec<(f64, f64)> = (0..program.messages.len())
        .map(|k| (t.send_post[k], t.recv_post[k]))
        .collect();
    let completed: Vec<(f64, f64)> = (0..program.messages.len())
        .map(|k| {
            let sent = if w.eager[k] {
                t.send_post[k]
            } else {
                t.node[k]
            };
            (sent, t.node[k])
        })
        .collect();
    let (total_s, steps) = figures(program, &t.start, &t.end, &posted, &completed);
    let stopped = w.stopped.map(|simulated_s| Stopped {
        simulation: "run".into(),
        simulated_s,
        segments_done: w.segments,
        barriers_passed: w.barriers_passed,
        barriers: total_barriers,
    });
    let prediction = Prediction {
        total_s: if stopped.is_some() { None } else { total_s },
        plan_s: None,
        library: Some(library(model)),
        stopped,
        steps,
    };
    Ok((prediction, w.segments))
}

/// [`predict`] of the whole [`runtime_plan`] simulated at once (what `predict` did before
/// it cut the plan into segments): the reference the segmented prediction is tested
/// against.
#[cfg(test)]
fn predict_whole(
    program: &Program,
    platform: &Platform,
    route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
    model: &RuntimeModel,
    options: &Options,
) -> Result<Prediction, MpiError> {
    let rp = runtime_plan(program, route, model)?;
    let transport = liquid_sim::Transport {
        rtt_unfair: model.rtt_unfair,
        ..liquid_sim::Transport::default()
    };
    let run = liquid_sim::simulate_with(platform, &rp.plan, options, &transport)?;
    let at = |s: usize| run.steps[s].end;
    let t0: Vec<f64> = rp.start.iter().map(|&s| at(s)).collect();
    let end: Vec<f64> = rp.end.iter().map(|&s| at(s)).collect();
    let posted: Vec<(f64, f64)> = rp.posted.iter().map(|&(a, b)| (at(a), at(b))).collect();
    let completed: Vec<(f64, f64)> = rp.completed.iter().map(|&(a, b)| (at(a), at(b))).collect();
    let (total_s, steps) = figures(program, &t0, &end, &posted, &completed);
    Ok(Prediction {
        total_s,
        plan_s: None,
        library: Some(library(model)),
        stopped: None,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Message;
    use liquid_sim::Link;

    const L: f64 = 1e-3;

    /// Three ranks, a link of 1000 B/s and 1 ms from every rank to every other one.
    fn platform() -> Platform {
        let links = (0..9)
            .map(|i| Link {
                name: format!("l{i}"),
                bandwidth: 1000.0,
                latency: L,
            })
            .collect();
        Platform::new(links).expect("platform")
    }

    fn route(a: u32, b: u32) -> Option<Vec<u32>> {
        (a != b).then(|| vec![a * 3 + b])
    }

    /// Frame 0: 1000 bytes 1 → 2; barrier; frame 1: 500 bytes 2 → 1. Rank 0 only takes
    /// part in the barriers (it is their root).
    fn two_frames() -> Program {
        let msg = |step, from, to, len| Message {
            step,
            from,
            to,
            pieces: vec![Piece {
                src: from,
                dst: to,
                offset: 0,
                len,
            }],
        };
        Program {
            mode: "frames".into(),
            ranks: vec!["a".into(), "b".into(), "c".into()],
            steps: vec!["frame 1".into(), "frame 2".into()],
            messages: vec![msg(0, 1, 2, 1000), msg(1, 2, 1, 500)],
            ops: vec![
                vec![Op::Barrier],
                vec![
                    Op::Send(0),
                    Op::Wait(Wait::All, Some(0)),
                    Op::Barrier,
                    Op::Recv(1),
                    Op::Wait(Wait::All, Some(1)),
                ],
                vec![
                    Op::Recv(0),
                    Op::Wait(Wait::All, Some(0)),
                    Op::Barrier,
                    Op::Send(1),
                    Op::Wait(Wait::All, Some(1)),
                ],
            ],
            expect: vec![vec![], vec![(2, 500)], vec![(1, 1000)]],
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Whether two figures agree to a relative 1e-9 (absolute 1e-12 near 0).
    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
    }

    /// Panics unless the two predictions give the same total and step figures up to
    /// rounding.
    pub(super) fn assert_same(seg: &Prediction, whole: &Prediction) {
        let same = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => near(a, b),
            (None, None) => true,
            _ => false,
        };
        assert!(
            same(seg.total_s, whole.total_s),
            "total: segments {:?}, whole {:?}",
            seg.total_s,
            whole.total_s
        );
        assert_eq!(seg.steps.len(), whole.steps.len());
        for (a, b) in seg.steps.iter().zip(&whole.steps) {
            assert!(
                same(a.start_s, b.start_s) && same(a.end_s, b.end_s) && same(a.time_s, b.time_s),
                "step {}: segments {a:?}, whole {b:?}",
                a.step
            );
            assert_eq!((a.bytes, a.messages), (b.bytes, b.messages));
        }
        assert_eq!(seg.library, whole.library);
        assert!(seg.stopped.is_none());
    }

    /// The segmented prediction, checked against the whole plan's.
    fn both(
        p: &Program,
        platform: &Platform,
        route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
        model: &RuntimeModel,
        opts: &Options,
    ) -> Prediction {
        let seg = predict(p, platform, route, model, opts, &Budget::default()).expect("segments");
        let whole = predict_whole(p, platform, route, model, opts).expect("whole");
        assert_same(&seg, &whole);
        seg
    }

    #[test]
    fn barriers_and_posting_as_computed_by_hand() {
        let p = two_frames();
        p.check().expect("consistent");
        let opts = Options::default();
        // No envelope. First barrier: 1 → 0 and 2 → 0 arrive at L, rank 0 leaves at L,
        // ranks 1 and 2 at 2L (their clocks' 0). Frame 1's message starts at 2L and is
        // delivered at 3L + 1 s; rank 1's send is eager (done at 2L). Second barrier: the
        // last arrival at rank 0 is 2 → 0 at 4L + 1, ranks 1 and 2 leave at 5L + 1.
        // Frame 2's message is delivered at 6L + 1.5: rank 1's time is 4L + 1.5.
        let none = RuntimeModel::default();
        let got = both(&p, &platform(), &route, &none, &opts);
        assert!(
            close(got.total_s.expect("a total"), 4.0 * L + 1.5),
            "{:?}",
            got.total_s
        );
        assert!(close(got.steps[0].start_s.expect("a start"), 0.0));
        assert!(close(got.steps[0].end_s.expect("an end"), L + 1.0));
        // Frame 2 starts at 5L + 1 on rank 2's and rank 1's clocks (0 at 2L).
        assert!(close(got.steps[1].start_s.expect("a start"), 3.0 * L + 1.0));
        assert!(close(got.steps[1].end_s.expect("an end"), 4.0 * L + 1.5));
        // With an envelope of 100 bytes (0.1 s) every message, the barriers' empty ones
        // too, takes 0.1 s more: clocks start at 2L + 0.2, frame 1 is delivered at
        // 3L + 1.3, the second barrier releases at 4L + 1.4 (ranks 1, 2 leave at 5L + 1.5)
        // and frame 2 is delivered at 6L + 2.1: rank 1's time is 4L + 1.9.
        let envelope = RuntimeModel {
            envelope: 100.0,
            ..RuntimeModel::default()
        };
        let got = both(&p, &platform(), &route, &envelope, &opts);
        assert!(
            close(got.total_s.expect("a total"), 4.0 * L + 1.9),
            "{:?}",
            got.total_s
        );
        // Sends no longer eager: rank 2's send of frame 2 ends on delivery (the same
        // time as rank 1's receive), rank 1 enters the second barrier at 3L + 1 instead
        // of 2L, which changes nothing: rank 2 is the last to enter.
        let rendezvous = RuntimeModel {
            eager_limit: 0,
            ..RuntimeModel::default()
        };
        let got = both(&p, &platform(), &route, &rendezvous, &opts);
        assert!(
            close(got.total_s.expect("a total"), 4.0 * L + 1.5),
            "{:?}",
            got.total_s
        );
    }

    #[test]
    fn synchronous_sends_without_barriers_as_computed_by_hand() {
        // The async mode of a schedule of pieces: rank 1 sends two pieces of 500 bytes,
        // the first to rank 2 (frame 1), the second to rank 0 (frame 2), each an Issend
        // waited for; every receive is posted first; no barrier after the first one.
        let piece = |step, to, offset| Message {
            step,
            from: 1,
            to,
            pieces: vec![Piece {
                src: 1,
                dst: to,
                offset,
                len: 500,
            }],
        };
        let p = Program {
            mode: "pieces-async".into(),
            ranks: vec!["a".into(), "b".into(), "c".into()],
            steps: vec!["frame 1".into(), "frame 2".into()],
            messages: vec![piece(0, 2, 0), piece(1, 0, 0)],
            ops: vec![
                vec![Op::Recv(1), Op::Wait(Wait::All, None)],
                vec![
                    Op::Ssend(0),
                    Op::Wait(Wait::Sends, None),
                    Op::Ssend(1),
                    Op::Wait(Wait::Sends, None),
                    Op::Wait(Wait::All, None),
                ],
                vec![Op::Recv(0), Op::Wait(Wait::All, None)],
            ],
            expect: vec![vec![(1, 500)], vec![], vec![(1, 500)]],
        };
        p.check().expect("consistent");
        // Rank 0 leaves the first barrier at L, ranks 1 and 2 at 2L. The first piece
        // starts at 2L, is delivered at 3L + 0.5; the synchronous send ends then (not
        // when posted, though 500 bytes are below the eager limit), so the second piece
        // starts at 3L + 0.5 and reaches rank 0 at 4L + 1: rank 0's time is 3L + 1.
        let got = both(
            &p,
            &platform(),
            &route,
            &RuntimeModel::default(),
            &Options::default(),
        );
        assert!(
            close(got.total_s.expect("a total"), 3.0 * L + 1.0),
            "{:?}",
            got.total_s
        );
        // Frame 1 ends at L + 0.5 on ranks 1 and 2's clocks, frame 2 at 3L + 1 on rank 0's.
        assert!(close(got.steps[0].end_s.expect("an end"), L + 0.5));
        assert!(close(got.steps[1].end_s.expect("an end"), 3.0 * L + 1.0));
    }

    #[test]
    fn rtt_unfair_sharing_as_computed_by_hand() {
        // Ranks 1 and 2 each send 1000 bytes to rank 0 at once, over their own card (1 ms
        // and 3 ms of latency) and a shared link of 1000 B/s without latency; rank 0's
        // replies of the first barrier have no route (no time): every clock starts when
        // rank 2's empty message reaches rank 0, and both messages are posted then.
        let links = [(1000.0, 0.0), (1e9, 1e-3), (1e9, 3e-3)]
            .iter()
            .enumerate()
            .map(|(i, &(bandwidth, latency))| Link {
                name: format!("l{i}"),
                bandwidth,
                latency,
            })
            .collect();
        let platform = Platform::new(links).expect("platform");
        let route = |a: u32, b: u32| (b == 0 && a != 0).then(|| vec![a, 0]);
        let msg = |step, from| Message {
            step,
            from,
            to: 0,
            pieces: vec![Piece {
                src: from,
                dst: 0,
                offset: 0,
                len: 1000,
            }],
        };
        let p = Program {
            mode: "all-at-once".into(),
            ranks: vec!["a".into(), "b".into(), "c".into()],
            steps: vec!["from 1".into(), "from 2".into()],
            messages: vec![msg(0, 1), msg(1, 2)],
            ops: vec![
                vec![Op::Recv(0), Op::Recv(1), Op::Wait(Wait::All, None)],
                vec![Op::Send(0), Op::Wait(Wait::All, None)],
                vec![Op::Send(1), Op::Wait(Wait::All, None)],
            ],
            expect: vec![vec![(1, 1000), (2, 1000)], vec![], vec![]],
        };
        p.check().expect("consistent");
        let opts = Options::default();
        // Max-min: rank 1's message flows alone from 1 ms to 3 ms (2 bytes), then both at
        // 500 B/s: it ends at 3 ms + 998 / 500 s = 1.999 s, rank 2's at 2.001 s.
        let equal = both(&p, &platform, &route, &RuntimeModel::default(), &opts);
        assert!(
            close(equal.steps[0].end_s.expect("an end"), 1.999),
            "{:?}",
            equal.steps
        );
        assert!(
            close(equal.total_s.expect("a total"), 2.001),
            "{:?}",
            equal.total_s
        );
        // Shares in inverse proportion to the route latencies (1 ms and 3 ms): 750 and
        // 250 B/s once both flow; rank 1's ends at 3 ms + 998 / 750 s, rank 2's (332.667
        // bytes sent by then, the rest at 1000 B/s) at 2.001 s as before.
        let unfair = RuntimeModel {
            rtt_unfair: true,
            ..RuntimeModel::default()
        };
        let got = both(&p, &platform, &route, &unfair, &opts);
        assert!(
            close(got.steps[0].end_s.expect("an end"), 0.003 + 998.0 / 750.0),
            "{:?}",
            got.steps
        );
        assert!(
            close(got.total_s.expect("a total"), 2.001),
            "{:?}",
            got.total_s
        );
        assert!(got.library.expect("a library").contains("route latency"));
    }

    #[test]
    fn a_pair_without_a_route_costs_nothing() {
        // Rank 0 has no route to or from anyone: the barriers are free, and the run is
        // frame 1 (L + 1) then frame 2 (L + 0.5) on ranks 1 and 2's clocks.
        let p = two_frames();
        let partial = |a: u32, b: u32| (a != 0 && b != 0).then(|| route(a, b)).flatten();
        let got = both(
            &p,
            &platform(),
            &partial,
            &RuntimeModel::default(),
            &Options::default(),
        );
        assert!(
            close(got.total_s.expect("a total"), 2.0 * L + 1.5),
            "{:?}",
            got.total_s
        );
    }

    #[test]
    fn a_program_that_waits_for_itself_is_refused() {
        // Rank 2 waits for its receive before the barrier, rank 1 sends after it.
        let mut p = two_frames();
        p.ops[1] = vec![
            Op::Barrier,
            Op::Send(0),
            Op::Recv(1),
            Op::Wait(Wait::All, None),
        ];
        p.ops[0] = vec![Op::Barrier];
        p.ops[2] = vec![
            Op::Recv(0),
            Op::Wait(Wait::All, None),
            Op::Barrier,
            Op::Send(1),
        ];
        let e = runtime_plan(&p, &route, &RuntimeModel::default()).expect_err("deadlock");
        assert!(e.to_string().contains("deadlocks"), "{e}");
    }

    #[test]
    fn the_plan_is_cut_at_every_barrier_where_the_network_is_empty() {
        // two_frames: the first barrier, frame 1 and the second barrier, frame 2.
        let p = two_frames();
        let (opts, model) = (Options::default(), RuntimeModel::default());
        let budget = Budget::default();
        let (_, segments) =
            predict_counted(&p, &platform(), &route, &model, &opts, &budget).expect("prediction");
        assert_eq!(segments, 3);
        // Rank 2 no longer waits for its receive of frame 1 before the barrier (rank 1's
        // send is eager: it completes when posted): the message may still be flowing when
        // rank 0 has every entry, and the second barrier is no cut.
        let mut q = two_frames();
        q.ops[2] = vec![
            Op::Recv(0),
            Op::Barrier,
            Op::Send(1),
            Op::Wait(Wait::All, None),
        ];
        let (_, segments) =
            predict_counted(&q, &platform(), &route, &model, &opts, &budget).expect("prediction");
        assert_eq!(segments, 2);
        both(&q, &platform(), &route, &model, &opts);
    }

    #[test]
    fn a_passed_deadline_stops_the_prediction_before_its_first_segment() {
        let p = two_frames();
        let said = std::cell::RefCell::new(Vec::new());
        let progress = |s: &str| said.borrow_mut().push(s.to_string());
        let within = |deadline: Option<Instant>| {
            let budget = Budget {
                deadline,
                progress: Some(&progress),
            };
            predict(
                &p,
                &platform(),
                &route,
                &RuntimeModel::default(),
                &Options::default(),
                &budget,
            )
        };
        let got = within(Some(Instant::now())).expect("a stopped prediction");
        assert_eq!(got.total_s, None);
        assert!(got
            .steps
            .iter()
            .all(|s| s.time_s.is_none() && s.start_s.is_none()));
        let stopped = got.stopped.expect("stopped");
        assert_eq!(
            (
                stopped.segments_done,
                stopped.barriers_passed,
                stopped.barriers
            ),
            (0, 0, 2)
        );
        assert_eq!(stopped.simulated_s, 0.0);
        assert!(
            stopped.describe().contains("0 of 2 barriers"),
            "{}",
            stopped.describe()
        );
        // Without a deadline, progress is told from the first segment on.
        let got = within(None).expect("prediction");
        assert!(got.total_s.is_some() && got.stopped.is_none());
        assert!(
            said.borrow()
                .iter()
                .any(|s| s.starts_with("predicting the run: barrier 1 of 2")),
            "{:?}",
            said.borrow()
        );
    }

    /// splitmix64: the generator of the random programs below (from proptest's seed).
    struct Mix(u64);

    impl Mix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len() as u64) as usize]
        }
    }

    /// A random program in frames: per frame, messages between random ranks (eager and
    /// rendezvous sizes, empty ones, synchronous sends, messages relaying a piece received
    /// in an earlier frame), each rank's posts in random order, then usually a wait for
    /// the frame; a barrier after most frames. A rank that skips its wait leaves messages
    /// in flight across the barrier (no cut there). A random platform: per rank a card
    /// out and a card in, a shared core, random bandwidths and latencies; some pairs
    /// without a route.
    #[allow(clippy::type_complexity)]
    fn random_case(
        seed: u64,
    ) -> (
        Program,
        Platform,
        Vec<Vec<Option<Vec<u32>>>>,
        RuntimeModel,
        Options,
    ) {
        let mut g = Mix(seed);
        let n = 2 + g.below(4) as usize;
        let frames = 1 + g.below(4) as u32;
        let mut links = Vec::new();
        for i in 0..2 * n + 1 {
            links.push(Link {
                name: format!("l{i}"),
                bandwidth: g.pick(&[1000.0, 2000.0, 1e9]),
                latency: g.pick(&[0.0, 1e-3, 3e-3]),
            });
        }
        let core = (2 * n) as u32;
        let platform = Platform::new(links).expect("platform");
        let routes: Vec<Vec<Option<Vec<u32>>>> = (0..n as u32)
            .map(|a| {
                (0..n as u32)
                    .map(|b| (a != b && !g.chance(10)).then(|| vec![2 * a, core, 2 * b + 1]))
                    .collect()
            })
            .collect();
        let mut messages: Vec<Message> = Vec::new();
        let mut ops: Vec<Vec<Op>> = vec![Vec::new(); n];
        // Pieces received in earlier frames: (rank holding it, the piece).
        let mut held: Vec<(u32, Piece)> = Vec::new();
        let mut offset = 0u64;
        for f in 0..frames {
            let mut posts: Vec<Vec<Op>> = vec![Vec::new(); n];
            let mut got = Vec::new();
            for _ in 0..g.below(5) {
                let k = messages.len();
                let (from, pieces) = if !held.is_empty() && g.chance(30) {
                    let (r, piece) = held.swap_remove(g.below(held.len() as u64) as usize);
                    (r, vec![piece])
                } else {
                    let from = g.below(n as u64) as u32;
                    let len = g.pick(&[0, 100, 1000, 70_000]);
                    // Every piece its own offset (a piece is a key of what a rank holds).
                    offset += len + 1;
                    let piece = Piece {
                        src: from,
                        dst: 0,
                        offset,
                        len,
                    };
                    (from, vec![piece])
                };
                let mut to = g.below(n as u64) as u32;
                if to == from {
                    to = (to + 1) % n as u32;
                }
                for p in &pieces {
                    if p.src != to {
                        got.push((to, *p));
                    }
                }
                messages.push(Message {
                    step: f,
                    from,
                    to,
                    pieces,
                });
                posts[to as usize].push(Op::Recv(k));
                let send = if g.chance(25) {
                    Op::Ssend(k)
                } else {
                    Op::Send(k)
                };
                posts[from as usize].push(send);
            }
            held.extend(got);
            for (r, mut mine) in posts.into_iter().enumerate() {
                // Receives before sends or in random order.
                if g.chance(50) {
                    for i in (1..mine.len()).rev() {
                        mine.swap(i, g.below(i as u64 + 1) as usize);
                    }
                } else {
                    mine.sort_by_key(|o| !matches!(o, Op::Recv(_)));
                }
                ops[r].extend(mine);
                if g.chance(85) {
                    ops[r].push(Op::Wait(Wait::All, Some(f)));
                }
            }
            if f + 1 < frames && g.chance(70) {
                for o in &mut ops {
                    o.push(Op::Barrier);
                }
            }
        }
        for o in &mut ops {
            o.push(Op::Wait(Wait::All, None));
        }
        let program = Program {
            mode: "frames".into(),
            ranks: (0..n).map(|r| format!("h{r}")).collect(),
            steps: (0..frames).map(|f| format!("frame {}", f + 1)).collect(),
            messages,
            ops,
            expect: vec![Vec::new(); n],
        };
        let model = RuntimeModel {
            envelope: g.pick(&[0.0, 16.0]),
            eager_limit: g.pick(&[0, 65536]),
            rtt_unfair: g.chance(50),
        };
        let options = Options {
            overhead: g.pick(&[0.0, 1e-4]),
            trace: false,
        };
        (program, platform, routes, model, options)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// The segmented prediction gives the whole plan's figures on random programs.
        #[test]
        fn segments_predict_as_the_whole_plan(seed in proptest::prelude::any::<u64>()) {
            let (program, platform, routes, model, options) = random_case(seed);
            let route = |a: u32, b: u32| routes[a as usize][b as usize].clone();
            both(&program, &platform, &route, &model, &options);
        }
    }

    #[test]
    fn random_programs_are_cut() {
        // The random cases above do cut their plans (and not always at every barrier).
        let (mut cut, mut kept) = (0, 0);
        for seed in 0..200 {
            let (program, platform, routes, model, options) = random_case(seed);
            let route = |a: u32, b: u32| routes[a as usize][b as usize].clone();
            let (_, segments) = predict_counted(
                &program,
                &platform,
                &route,
                &model,
                &options,
                &Budget::default(),
            )
            .expect("prediction");
            let barriers = barriers(&program);
            cut += usize::from(segments > 2);
            kept += usize::from(segments < barriers + 1);
        }
        assert!(cut > 20 && kept > 5, "{cut} cut, {kept} not cut everywhere");
    }
}
