//! One function per subcommand.

mod analyze;
mod certify;
mod crosscheck;
mod encode;
mod expand;
mod explain;
mod generate;
mod latency;
mod mpi;
mod proof;
mod simulate;
mod solve;
mod stream;
mod study;
mod teams;
mod testbed;
mod verify;

pub use analyze::analyze;
pub use certify::certify;
pub use crosscheck::{crosscheck, crosscheck_shard, BaselineArgs, CrossFormat};
pub use encode::{encode, EncodeFormat};
pub use expand::expand;
pub use explain::explain;
pub use generate::{generate, GenerateWhat, TwoClusterLinks};
pub use latency::{latency, LatencyWhat};
pub use mpi::{compare_mpi, export_mpi, MpiPlan};
pub use proof::{check_proof, prove, ProveOptions, Prover};
pub use simulate::{export_simgrid, simulate, simulate_mpi, SimMode};
pub use solve::{engine, engine_parser, parse_seconds, solve};
pub use stream::{analyze_stream, solve_stream, verify_stream};
pub use study::two_clusters as study_two_clusters;
pub use teams::teams;
pub use testbed::{merge, testbed_t1};
pub use verify::verify;
