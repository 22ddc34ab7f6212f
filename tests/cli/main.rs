//! The one integration-test binary: runs the real `liquid` binary on `models/` and on the
//! fixtures under `tests/fixtures/`, with insta snapshots (timings redacted).

mod alltoallv;
mod baseline;
mod certify;
mod common;
mod crosscheck;
mod dsatur;
mod exit_codes;
mod fabric;
mod fabric_names;
mod foundation;
mod hostile;
mod hostile3;
mod hostile4;
mod hostile5;
mod hostile6;
mod ilp;
mod latency;
mod latency_simulate;
mod latency_study;
mod mpi;
mod native;
mod sat;
mod scale;
mod shards;
mod simulate;
mod stream;
mod topologies;
mod topology;
mod trust;
mod two_clusters;
