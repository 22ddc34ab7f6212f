//! Schedules for unequal messages (all-to-allv, the mixture-of-experts exchange), beyond
//! paper 004's equal packets:
//!
//! - [`sizes`]: message sizes per transfer from a `src,dst,bytes` CSV or a YAML mapping
//!   `transfer id: bytes`, every error with its file, line and field;
//! - [`generate`]: seeded skewed sizes for studies (uniform, Zipf over destinations, one
//!   hot expert, a given matrix);
//! - [`bound`]: the time lower bound (the bottleneck links' bytes over their throughput,
//!   or the longest message) with its evidence;
//! - [`chunk`]: preemptive schedules by chunks (a quantum, 004's multiplicity), the
//!   default quantum, a first-fit schedule of the pieces and the check of any schedule of
//!   pieces;
//! - [`whole`]: non-preemptive schedules in timeframes of unequal length: the frame
//!   bound, first fit decreasing, and an exact ILP for small traffics.
#![forbid(unsafe_code)]

pub mod bound;
pub mod chunk;
pub mod generate;
mod occupancy;
pub mod sizes;
pub mod whole;
