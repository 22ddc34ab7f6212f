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

use std::collections::HashMap;

use liquid_sim::{Message as SimMessage, Options, Plan, Platform, Step};

use crate::program::{Op, Piece, Program, Wait};
use crate::report::{Prediction, StepFigures};
use crate::MpiError;

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

struct Builder<'a> {
    steps: Vec<Step>,
    route: &'a dyn Fn(u32, u32) -> Option<Vec<u32>>,
    envelope: f64,
}

impl Builder<'_> {
    /// A step that ends when all of `after` have ended (at 0 with none).
    fn join(&mut self, mut after: Vec<usize>) -> usize {
        after.sort_unstable();
        after.dedup();
        if after.len() == 1 {
            return after[0];
        }
        self.steps.push(Step {
            after,
            ..Step::default()
        });
        self.steps.len() - 1
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
    ) -> usize {
        let Some(route) = (self.route)(a, b) else {
            return self.join(after);
        };
        let mut after = after;
        after.sort_unstable();
        after.dedup();
        self.steps.push(Step {
            after,
            delay: 0.0,
            messages: vec![SimMessage {
                route,
                bytes: bytes + self.envelope,
                transfer: None,
            }],
            group,
        });
        self.steps.len() - 1
    }

    /// SMPI's basic linear barrier entered at `enter` (per rank); returns each rank's exit.
    fn barrier(&mut self, enter: &[usize]) -> Vec<usize> {
        let n = enter.len();
        let mut gathered = vec![enter[0]];
        for i in 1..n {
            gathered.push(self.message(i as u32, 0, 0.0, vec![enter[i], enter[0]], None));
        }
        let release = self.join(gathered);
        let mut leave = vec![release];
        for i in 1..n {
            leave.push(self.message(0, i as u32, 0.0, vec![release], None));
        }
        leave
    }
}

/// Adds message `k`'s plan step once both its send and its receive are posted.
fn start_message(
    k: usize,
    program: &Program,
    send_post: &[Option<usize>],
    recv_post: &[Option<usize>],
    node: &mut [Option<usize>],
    b: &mut Builder<'_>,
) {
    if let (Some(s), Some(v), None) = (send_post[k], recv_post[k], node[k]) {
        let m = &program.messages[k];
        node[k] = Some(b.message(
            m.from,
            m.to,
            m.bytes() as f64,
            vec![s, v],
            Some(m.step as usize),
        ));
    }
}

#[derive(Clone, Copy)]
struct Pending {
    recv: bool,
    step: u32,
    message: usize,
}

/// Builds the plan of `program` as the runtime runs it (see the module docs). `route(a, b)`
/// is the platform route from rank `a`'s host to rank `b`'s (None: the ranks have no route
/// in the model, and their messages take no time).
pub fn runtime_plan(
    program: &Program,
    route: &dyn Fn(u32, u32) -> Option<Vec<u32>>,
    model: &RuntimeModel,
) -> Result<RuntimePlan, MpiError> {
    let n = program.ranks.len();
    let nm = program.messages.len();
    if n == 0 {
        return Err(MpiError::Inconsistent("a program without ranks".into()));
    }
    let mut b = Builder {
        steps: Vec::new(),
        route,
        envelope: model.envelope,
    };
    let origin = b.join(Vec::new());
    let start = b.barrier(&vec![origin; n]);
    let mut now = start.clone();
    let mut at = vec![0usize; n];
    let mut pending: Vec<Vec<Pending>> = vec![Vec::new(); n];
    let mut brought: Vec<HashMap<Piece, usize>> = vec![HashMap::new(); n];
    let mut send_post: Vec<Option<usize>> = vec![None; nm];
    let mut recv_post: Vec<Option<usize>> = vec![None; nm];
    let mut eager = vec![false; nm];
    let mut node: Vec<Option<usize>> = vec![None; nm];
    // Ranks waiting in the current barrier (their entry step), and the barrier count.
    let mut entered: Vec<Option<usize>> = vec![None; n];
    let mut ended: Vec<Option<usize>> = vec![None; n];
    let completion =
        |p: &Pending, node: &[Option<usize>], send_post: &[Option<usize>], eager: &[bool]| {
            if !p.recv && eager[p.message] {
                send_post[p.message]
            } else {
                node[p.message]
            }
        };
    loop {
        let mut progress = false;
        for r in 0..n {
            let ops = &program.ops[r];
            while ended[r].is_none() && entered[r].is_none() {
                let Some(op) = ops.get(at[r]) else {
                    // The runtime's last wait: everything still posted.
                    let mut after = vec![now[r]];
                    let mut ready = true;
                    for p in &pending[r] {
                        match completion(p, &node, &send_post, &eager) {
                            Some(s) => after.push(s),
                            None => ready = false,
                        }
                    }
                    if !ready {
                        break;
                    }
                    ended[r] = Some(b.join(after));
                    progress = true;
                    break;
                };
                match *op {
                    Op::Recv(k) => {
                        recv_post[k] = Some(now[r]);
                        for p in &program.messages[k].pieces {
                            brought[r].insert(*p, k);
                        }
                        pending[r].push(Pending {
                            recv: true,
                            step: program.messages[k].step,
                            message: k,
                        });
                        start_message(k, program, &send_post, &recv_post, &mut node, &mut b);
                    }
                    Op::Send(k) | Op::Ssend(k) => {
                        let m = &program.messages[k];
                        let mut after = vec![now[r]];
                        let mut ready = true;
                        for p in m.pieces.iter().filter(|p| p.src as usize != r) {
                            let from = brought[r].get(p).copied().ok_or_else(|| {
                                MpiError::Inconsistent(format!(
                                    "rank {r} forwards {p:?} that no receive brought"
                                ))
                            })?;
                            match node[from] {
                                Some(s) => after.push(s),
                                None => ready = false,
                            }
                        }
                        if !ready {
                            break;
                        }
                        now[r] = b.join(after);
                        send_post[k] = Some(now[r]);
                        eager[k] = matches!(op, Op::Send(_)) && m.bytes() < model.eager_limit;
                        pending[r].push(Pending {
                            recv: false,
                            step: m.step,
                            message: k,
                        });
                        start_message(k, program, &send_post, &recv_post, &mut node, &mut b);
                    }
                    Op::Wait(kind, step) => {
                        let hit = |p: &Pending| {
                            (kind == Wait::All || (kind == Wait::Recvs) == p.recv)
                                && step.is_none_or(|s| s == p.step)
                        };
                        let mut after = vec![now[r]];
                        let mut ready = true;
                        for p in pending[r].iter().filter(|p| hit(p)) {
                            match completion(p, &node, &send_post, &eager) {
                                Some(s) => after.push(s),
                                None => ready = false,
                            }
                        }
                        if !ready {
                            break;
                        }
                        pending[r].retain(|p| !hit(p));
                        now[r] = b.join(after);
                    }
                    Op::Barrier => {
                        entered[r] = Some(now[r]);
                    }
                }
                at[r] += 1;
                progress = true;
            }
        }
        if entered.iter().all(Option::is_some) {
            let enter: Vec<usize> = entered.iter().map(|e| e.unwrap_or(origin)).collect();
            now = b.barrier(&enter);
            entered = vec![None; n];
            continue;
        }
        if ended.iter().all(Option::is_some) {
            break;
        }
        if !progress {
            let r = (0..n).find(|&r| ended[r].is_none()).unwrap_or(0);
            return Err(MpiError::Inconsistent(format!(
                "the program deadlocks: rank {r} cannot pass its operation {} ({} ranks in a \
                 barrier)",
                at[r],
                entered.iter().filter(|e| e.is_some()).count()
            )));
        }
    }
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
    Ok(RuntimePlan {
        plan: Plan { steps: b.steps },
        start,
        end: ended.into_iter().map(|e| e.unwrap_or(origin)).collect(),
        posted,
        completed,
    })
}

/// liquid's prediction of a run of `program`: the simulation of its [`runtime_plan`], read
/// as the runtime reports (each rank's times from its own exit of the first barrier; a
/// step from its first posting to its last completion, over all ranks; the total, the
/// largest rank's time).
pub fn predict(
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
    let total_s = rp
        .end
        .iter()
        .zip(&t0)
        .map(|(&e, &z)| at(e) - z)
        .fold(0.0, f64::max);
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
    for (k, m) in program.messages.iter().enumerate() {
        let (from, to) = (m.from as usize, m.to as usize);
        let start = (at(rp.posted[k].0) - t0[from]).min(at(rp.posted[k].1) - t0[to]);
        let end = (at(rp.completed[k].0) - t0[from]).max(at(rp.completed[k].1) - t0[to]);
        let f = &mut steps[m.step as usize];
        f.start_s = Some(f.start_s.map_or(start, |x| x.min(start)));
        f.end_s = Some(f.end_s.map_or(end, |x| x.max(end)));
    }
    for f in &mut steps {
        if let (Some(a), Some(b)) = (f.start_s, f.end_s) {
            f.time_s = Some(b - a);
        }
    }
    Ok(Prediction {
        total_s,
        plan_s: None,
        library: Some(format!(
            "{} bytes of envelope per message; sends below {} bytes eager; MPI_Barrier basic \
             linear (SMPI's default){}",
            model.envelope,
            model.eager_limit,
            if model.rtt_unfair {
                "; links shared in inverse proportion to route latency (SimGrid CM02)"
            } else {
                ""
            }
        )),
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
        let got = predict(&p, &platform(), &route, &none, &opts).expect("prediction");
        assert!(close(got.total_s, 4.0 * L + 1.5), "{}", got.total_s);
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
        let got = predict(&p, &platform(), &route, &envelope, &opts).expect("prediction");
        assert!(close(got.total_s, 4.0 * L + 1.9), "{}", got.total_s);
        // Sends no longer eager: rank 2's send of frame 2 ends on delivery (the same
        // time as rank 1's receive), rank 1 enters the second barrier at 3L + 1 instead
        // of 2L, which changes nothing: rank 2 is the last to enter.
        let rendezvous = RuntimeModel {
            eager_limit: 0,
            ..RuntimeModel::default()
        };
        let got = predict(&p, &platform(), &route, &rendezvous, &opts).expect("prediction");
        assert!(close(got.total_s, 4.0 * L + 1.5), "{}", got.total_s);
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
        let got = predict(
            &p,
            &platform(),
            &route,
            &RuntimeModel::default(),
            &Options::default(),
        )
        .expect("prediction");
        assert!(close(got.total_s, 3.0 * L + 1.0), "{}", got.total_s);
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
        let equal = predict(&p, &platform, &route, &RuntimeModel::default(), &opts).expect("equal");
        assert!(
            close(equal.steps[0].end_s.expect("an end"), 1.999),
            "{:?}",
            equal.steps
        );
        assert!(close(equal.total_s, 2.001), "{}", equal.total_s);
        // Shares in inverse proportion to the route latencies (1 ms and 3 ms): 750 and
        // 250 B/s once both flow; rank 1's ends at 3 ms + 998 / 750 s, rank 2's (332.667
        // bytes sent by then, the rest at 1000 B/s) at 2.001 s as before.
        let unfair = RuntimeModel {
            rtt_unfair: true,
            ..RuntimeModel::default()
        };
        let got = predict(&p, &platform, &route, &unfair, &opts).expect("unfair");
        assert!(
            close(got.steps[0].end_s.expect("an end"), 0.003 + 998.0 / 750.0),
            "{:?}",
            got.steps
        );
        assert!(close(got.total_s, 2.001), "{}", got.total_s);
        assert!(got.library.expect("a library").contains("route latency"));
    }

    #[test]
    fn a_pair_without_a_route_costs_nothing() {
        // Rank 0 has no route to or from anyone: the barriers are free, and the run is
        // frame 1 (L + 1) then frame 2 (L + 0.5) on ranks 1 and 2's clocks.
        let p = two_frames();
        let partial = |a: u32, b: u32| (a != 0 && b != 0).then(|| route(a, b)).flatten();
        let got = predict(
            &p,
            &platform(),
            &partial,
            &RuntimeModel::default(),
            &Options::default(),
        )
        .expect("prediction");
        assert!(close(got.total_s, 2.0 * L + 1.5), "{}", got.total_s);
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
}
