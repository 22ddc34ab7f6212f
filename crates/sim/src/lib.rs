//! Flow-level, event-driven simulation of communication *plans* over a network with
//! static routing (issue 15: "run the schedules").
//!
//! - [`platform`]: links with a bandwidth and a latency, and the mapping of a traffic's
//!   links and routes onto them;
//! - [`plan`]: what is run: *steps* of messages with dependencies between steps. A
//!   schedule is one kind of plan ([`plan::from_schedule`], in three [`plan::Mode`]s);
//!   algorithms that relay and aggregate data build their own plans;
//! - [`maxmin`]: max-min fair bandwidth sharing by progressive filling, from scratch;
//! - [`sharing`]: the same sharing kept up to date as flows start and end, re-solving only
//!   the flows whose rates can change (what the engine uses);
//! - [`engine`]: the event-driven simulation ([`engine::simulate`]);
//! - [`simgrid`]: a platform and a plan as SimGrid's platform file and a JSON plan;
//! - [`mpi_alltoall`]: MPI libraries' all-to-all algorithms (Bruck, linear, pairwise,
//!   ring, ...) and their selection in Open MPI 1.1.2, Open MPI 4.1 and MPICH 3.3, as
//!   plans;
//! - [`two_clusters`]: paper 001's total exchange between two clusters (LG and the direct
//!   algorithms) as plans;
//! - [`study`]: the study of 001's Figs. 4-6 over message sizes and node counts
//!   (schedules passed in by the caller).
//!
//! # The network model
//! A message posted at time t spends the per-message software overhead `o`, then the
//! latency of its route (the sum of its links' latencies), then becomes a *flow* on every
//! link of its route until its bytes are delivered. Flows share link bandwidth by max-min
//! fairness: rates are recomputed by progressive filling whenever a flow starts or ends
//! (for the flows whose rates can change, see [`sharing`]), and stay constant in between. Cost grows with the number of flows and events, never
//! with simulated time. This is SimGrid's CM02 model with its TCP corrections off
//! (latency and bandwidth factors 1, `weight-S` 0, no cross-traffic, `TCP-gamma` 0), except
//! that CM02 also divides a flow's share by its route latency (RTT unfairness) while here
//! every flow weighs the same.
//!
//! [`simulate_with`] runs over a [`Transport`]: a TCP window bounding each message's rate
//! (CM02's `TCP-gamma`), Open MPI ob1's rendezvous from an eager limit on (first
//! fragment, then the rest one round trip after its delivery), a software overhead per
//! message paid in turn by each sender, and CM02's RTT-unfair sharing.
#![forbid(unsafe_code)]

pub mod engine;
pub mod maxmin;
pub mod mpi_alltoall;
pub mod plan;
pub mod platform;
pub mod sharing;
pub mod simgrid;
pub mod study;
pub mod two_clusters;

pub use engine::{
    simulate, simulate_controlled, simulate_with, Control, Options, Run, Segment, Span, Transport,
    CHECK_EVERY, CHECK_FLOWS,
};
pub use plan::{from_frames, from_schedule, Message, Mode, Plan, Step};
pub use platform::{Link, MappedTraffic, Platform};

use thiserror::Error;

/// How far a run got before the time limit stopped it ([`SimError::TimeLimit`]): the
/// `stopped` section of a report whose simulated figures are then null.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stopped {
    /// The simulated time reached, seconds.
    pub simulated_s: f64,
    /// Steps of the plan finished by then, every message delivered (in frames mode, a step
    /// is a timeframe).
    pub steps_done: usize,
    /// Steps of the plan.
    pub steps: usize,
    /// Messages delivered by then.
    pub messages_done: usize,
    /// Messages of the plan.
    pub messages: usize,
}

impl Stopped {
    /// One line for people: the time limit stopped the simulation of `what` where (the
    /// simulated time to 4 significant digits; the report has it in full).
    pub fn describe(&self, what: &str) -> String {
        format!(
            "the time limit stopped the simulation of {what} at {} s of simulated time \
             ({} of {} steps, {} of {} messages done)",
            liquid_model::display::round_significant(self.simulated_s, 4),
            self.steps_done,
            self.steps,
            self.messages_done,
            self.messages
        )
    }
}

/// Why a platform, a plan or a simulation was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    /// A link with an unusable bandwidth or latency.
    #[error("link {link:?}: {why}")]
    BadLink {
        /// The link's name.
        link: String,
        /// What is wrong.
        why: String,
    },
    /// A plan that cannot be run on the platform.
    #[error("plan step {step}: {why}")]
    BadStep {
        /// The step's index.
        step: usize,
        /// What is wrong.
        why: String,
    },
    /// Steps whose dependencies form a cycle, so they can never start.
    #[error("the plan's dependencies form a cycle through step {step}")]
    Cycle {
        /// One step on the cycle.
        step: usize,
    },
    /// A simulation parameter out of range.
    #[error("{name}: {why}")]
    BadParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// Sizes or routes that do not match the traffic.
    #[error("{0}")]
    Mismatch(String),
    /// The run passed its deadline ([`Control::deadline`]) before the plan finished: how
    /// far it got.
    #[error(
        "stopped by the time limit at {} s of simulated time ({} of {} steps and {} of {} \
         messages done)",
        .0.simulated_s, .0.steps_done, .0.steps, .0.messages_done, .0.messages
    )]
    TimeLimit(Stopped),
    /// A traffic that SimGrid's platform format cannot express (transfers without hosts,
    /// two routes between the same hosts).
    #[error("{0}")]
    Export(String),
}

/// An f64 ordered totally ([`f64::total_cmp`]), for heaps and sorts of times and shares
/// (which are never NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Total(pub(crate) f64);

impl Eq for Total {}

impl PartialOrd for Total {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Total {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
