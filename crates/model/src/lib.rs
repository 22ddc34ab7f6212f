//! The traffic-set model of liquid (papers 003 and 004).
//!
//! - [`traffic`]: links, transfers, traffics, loads, duration, bottlenecks, conflicts.
//! - [`schedule`]: schedules and their validation.
//! - [`network`]: networks with static routing and traffic patterns (the network form).
//! - [`certificate`]: outcomes, verdicts and the evidence they carry.
//! - [`display`]: how reports round their figures.
//! - [`analysis`]: what `liquid analyze` reports of a traffic.
//! - [`yaml`]: every YAML file liquid reads or writes.
//! - [`examples`]: small named traffics from the papers, and seeded random ones.
//! - [`rng`]: the one seeded generator (SplitMix64).
#![forbid(unsafe_code)]

pub mod analysis;
pub mod certificate;
pub mod display;
pub mod examples;
pub mod network;
pub mod rng;
pub mod schedule;
pub mod stage;
pub mod traffic;
pub mod yaml;

pub use certificate::{
    check_outcome, Answer, CheckedProof, Evidence, Limits, LowerBound, Outcome, StatValue,
    Strength, Verdict,
};
pub use schedule::{
    is_simultaneous, validate, validate_all, Problems, Schedule, ScheduleError, ScheduleReport,
};
pub use traffic::{
    BuildError, ConflictStats, LinkId, Traffic, TrafficBuilder, Transfer, TransferId,
};
