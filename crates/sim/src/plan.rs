//! Plans: what a simulation runs.
//!
//! A [`Plan`] is a list of [`Step`]s. A step waits until every step it depends on
//! (`after`) has finished, then for its `delay` (local work such as aggregating received
//! data), then posts all its messages at once; it finishes when the last of them is
//! delivered. A message goes from a sender to a receiver over a route of platform links and
//! carries some bytes. Steps carry an optional `group` (a timeframe of a schedule, a round
//! of an algorithm) for reports.
//!
//! A schedule is one kind of plan ([`from_schedule`]); algorithms that relay and aggregate
//! data (paper 001's LG) are others: a relay is a step that depends on the steps that
//! bring it its data, and sends their aggregate.

use liquid_model::{Schedule, Traffic, TransferId};

use crate::platform::Platform;
use crate::SimError;

/// One message: bytes over a route.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The route: platform link indices from sender to receiver, no link twice.
    pub route: Vec<u32>,
    /// Size in bytes (finite, not negative).
    pub bytes: f64,
    /// The traffic transfer this message carries, when it carries one.
    pub transfer: Option<TransferId>,
}

/// A set of messages posted together once its dependencies have finished.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Step {
    /// Indices of the steps that must finish before this one starts (all smaller or
    /// larger than this one's: any order without a cycle).
    pub after: Vec<usize>,
    /// Seconds between the step's start and the posting of its messages (local work).
    pub delay: f64,
    /// The messages, all posted at the same time.
    pub messages: Vec<Message>,
    /// The group (timeframe, round) the step belongs to, for reports.
    pub group: Option<usize>,
}

/// Steps of messages with dependencies: see the module docs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The steps.
    pub steps: Vec<Step>,
}

impl Plan {
    /// Checks the plan against a platform: routes name existing links, none twice; sizes
    /// and delays are finite and not negative; dependencies exist and have no cycle.
    /// Returns the steps in an order where every step comes after its dependencies.
    pub fn check(&self, platform: &Platform) -> Result<Vec<usize>, SimError> {
        let links = platform.links().len();
        let mut seen = vec![0usize; links];
        let mut tag = 0usize;
        let bad = |step: usize, why: String| SimError::BadStep { step, why };
        for (s, step) in self.steps.iter().enumerate() {
            if !(step.delay.is_finite() && step.delay >= 0.0) {
                return Err(bad(s, format!("delay {} is not a duration", step.delay)));
            }
            for &d in &step.after {
                if d >= self.steps.len() {
                    return Err(bad(s, format!("depends on step {d}, which does not exist")));
                }
            }
            for (m, msg) in step.messages.iter().enumerate() {
                if !(msg.bytes.is_finite() && msg.bytes >= 0.0) {
                    return Err(bad(s, format!("message {m} has size {} bytes", msg.bytes)));
                }
                if msg.route.is_empty() {
                    return Err(bad(s, format!("message {m} has an empty route")));
                }
                tag += 1; // a value unique to this message
                for &l in &msg.route {
                    let li = l as usize;
                    if li >= links {
                        return Err(bad(
                            s,
                            format!("message {m} uses link {l}, not on the platform"),
                        ));
                    }
                    if seen[li] == tag {
                        return Err(bad(s, format!("message {m} crosses link {l} twice")));
                    }
                    seen[li] = tag;
                }
            }
        }
        // Kahn's algorithm, smallest index first among ready steps.
        let n = self.steps.len();
        let mut indegree: Vec<usize> = self.steps.iter().map(|s| s.after.len()).collect();
        let mut dependents = vec![Vec::new(); n];
        for (s, step) in self.steps.iter().enumerate() {
            for &d in &step.after {
                dependents[d].push(s);
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&s| indegree[s] == 0).collect();
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            i += 1;
            for &d in &dependents[s] {
                indegree[d] -= 1;
                if indegree[d] == 0 {
                    order.push(d);
                }
            }
        }
        if order.len() < n {
            let step = (0..n).find(|&s| indegree[s] > 0).unwrap_or(0);
            return Err(SimError::Cycle { step });
        }
        Ok(order)
    }

    /// Number of messages in all steps.
    pub fn messages(&self) -> usize {
        self.steps.iter().map(|s| s.messages.len()).sum()
    }

    /// Total bytes of all messages.
    pub fn bytes(&self) -> f64 {
        self.steps
            .iter()
            .flat_map(|s| &s.messages)
            .map(|m| m.bytes)
            .sum()
    }
}

/// How a schedule is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Timeframe by timeframe with a barrier between frames (as 003 ran liquid schedules):
    /// one step per frame, each after the previous one.
    Frames,
    /// No global barrier: each sender moves to its next transfer (in schedule order) as
    /// soon as its previous one is delivered. One step per transfer, after the sender's
    /// previous transfer.
    Async,
    /// Every transfer posted at time 0 (a topology-unaware MPI all-to-all): one step.
    AllAtOnce,
}

impl Mode {
    /// The mode's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Frames => "frames",
            Mode::Async => "async",
            Mode::AllAtOnce => "all-at-once",
        }
    }
}

/// The plan that runs a schedule of `traffic` in a mode. `routes[t]` is transfer t's route
/// on the platform and `sizes[t]` its size in bytes. The sender of a transfer is its `from`
/// node, or, when the model does not name one, its first link (the link it enters the
/// network by). In [`Mode::Frames`] and [`Mode::Async`] every step's group is the frame
/// its transfers are in; in [`Mode::AllAtOnce`] the single step is group 0 and posts the
/// transfers in schedule order.
pub fn from_schedule(
    traffic: &Traffic,
    routes: &[Vec<u32>],
    sizes: &[f64],
    schedule: &Schedule,
    mode: Mode,
) -> Result<Plan, SimError> {
    if routes.len() != traffic.len() || sizes.len() != traffic.len() {
        return Err(SimError::Mismatch(format!(
            "{} routes and {} sizes for {} transfers",
            routes.len(),
            sizes.len(),
            traffic.len()
        )));
    }
    let message = |t: TransferId| Message {
        route: routes[t.index()].clone(),
        bytes: sizes[t.index()],
        transfer: Some(t),
    };
    let frames = schedule.frames.iter().map(|frame| {
        frame
            .iter()
            .map(|&t| {
                let x = traffic.transfer(t);
                let key = match &x.from {
                    Some(node) => SenderKey::Node(node),
                    None => SenderKey::Link(x.path.first().map_or(u32::MAX, |l| l.0)),
                };
                (key, message(t))
            })
            .collect::<Vec<_>>()
    });
    Ok(from_frames(frames, mode))
}

/// The plan that runs timeframes of messages in a mode, each message with its sender (any
/// key: a node, a rank): [`Mode::Frames`], one step per frame after the previous one;
/// [`Mode::Async`], one step per message after its sender's previous message (in frame
/// order, then the order within the frame), its group the message's frame;
/// [`Mode::AllAtOnce`], one step of every message in order, group 0. The schedules of
/// [`from_schedule`] and schedules of pieces of messages (unequal messages cut by a
/// quantum) both run through it.
pub fn from_frames<K, F>(frames: F, mode: Mode) -> Plan
where
    K: Eq + std::hash::Hash,
    F: IntoIterator<Item = Vec<(K, Message)>>,
{
    let mut steps = Vec::new();
    match mode {
        Mode::Frames => {
            for (f, frame) in frames.into_iter().enumerate() {
                steps.push(Step {
                    after: if f == 0 { vec![] } else { vec![f - 1] },
                    delay: 0.0,
                    messages: frame.into_iter().map(|(_, m)| m).collect(),
                    group: Some(f),
                });
            }
        }
        Mode::Async => {
            let mut last: std::collections::HashMap<K, usize> = std::collections::HashMap::new();
            for (f, frame) in frames.into_iter().enumerate() {
                for (key, m) in frame {
                    let s = steps.len();
                    let after = last.insert(key, s).into_iter().collect();
                    steps.push(Step {
                        after,
                        delay: 0.0,
                        messages: vec![m],
                        group: Some(f),
                    });
                }
            }
        }
        Mode::AllAtOnce => {
            steps.push(Step {
                after: vec![],
                delay: 0.0,
                messages: frames.into_iter().flatten().map(|(_, m)| m).collect(),
                group: Some(0),
            });
        }
    }
    Plan { steps }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum SenderKey<'a> {
    Node(&'a str),
    Link(u32),
}
