//! The traffic-set model of liquid (papers 003 and 004).
//!
//! - [`traffic`]: links, transfers, traffics, loads, duration, bottlenecks, conflicts.
//! - [`schedule`]: schedules and their validation.
//! - [`network`]: networks with static routing and traffic patterns (the network form).
//! - [`certificate`]: lower-bound witnesses and verdicts, the evidence engines return.
//! - [`yaml`]: every YAML file liquid reads or writes.
//! - [`examples`]: small named traffics from the papers.
#![forbid(unsafe_code)]

pub mod certificate;
pub mod examples;
pub mod network;
pub mod schedule;
pub mod traffic;
pub mod yaml;

pub use certificate::{check_outcome, Limits, LowerBound, Outcome, StatValue, Verdict, Witness};
pub use schedule::{is_simultaneous, validate, Schedule, ScheduleError, ScheduleReport};
pub use traffic::{
    BuildError, ConflictStats, LinkId, Traffic, TrafficBuilder, Transfer, TransferId,
};
