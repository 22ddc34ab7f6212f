//! One function per subcommand.

mod analyze;
mod certify;
mod clash;
mod crosscheck;
mod encode;
mod expand;
mod explain;
mod fabric;
mod generate;
mod latency;
mod mpi;
mod proof;
mod simulate;
mod sizes;
mod solve;
mod stream;
mod study;
mod teams;
mod testbed;
mod verify;

pub use analyze::{analyze, AnalyzeArgs};
pub use certify::{certify, CertifyArgs};
pub use clash::refuse_overwriting_inputs;
pub use crosscheck::{crosscheck, CrosscheckArgs};
pub use encode::{encode, EncodeArgs};
pub use expand::expand;
pub use explain::{explain, ExplainArgs};
pub use fabric::{export_ibsim, import_ib, ExportIbsimArgs, ImportIbArgs};
pub use generate::{generate, two_cluster_links_given, GenerateWhat, TwoClusterLinks};
pub use latency::{latency, LatencyWhat};
pub use mpi::{compare_mpi, export_mpi, CompareArgs, ExportMpiArgs, MpiPlan};
pub use proof::{check_proof, prove, CheckProofArgs, ProveArgs};
pub use simulate::{export_simgrid, simulate, ExportSimgridArgs, SimMode, SimulateArgs};
pub use sizes::{generate_sizes, parse_bytes, GenerateSizesArgs, SizesCli, SizesSolveCli};
pub use solve::{engine, engine_parser, node_limited, parse_seconds, seeded, solve, SolveArgs};
pub use stream::{analyze_stream, export_mpi_stream, solve_stream, verify_stream};
pub use study::{
    routing as study_routing, two_clusters as study_two_clusters, RoutingArgs, TwoClustersArgs,
};
pub use teams::{teams, TeamsArgs};
pub use testbed::{merge, testbed_t1, MergeArgs, T1Args};
pub use verify::{verify, VerifyArgs};
