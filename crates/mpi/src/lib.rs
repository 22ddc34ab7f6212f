//! Runs liquid's schedules, and paper 001's LG, on MPI (issue 26).
//!
//! - [`program`]: a [`Program`]: per rank, the ordered sends and receives (each with its
//!   step and the pieces of data it carries), the waits and barriers between them, and
//!   what each rank must end up holding; built from a schedule in each mode, from the
//!   round-robin and pairwise rounds, or from `liquid_sim`'s LG; and checked
//!   ([`Program::check`]) by rules that share no code with the builders or the runtime;
//! - [`format`]: the per-rank text format the C runtime reads (one line per operation,
//!   written frame by frame, see `crates/mpi/README.md`);
//! - [`export`]: a model, a plan and sizes into a directory: the per-rank files, the rank →
//!   host map, a hostfile, and a manifest with liquid's prediction of the same plan;
//! - [`model`]: the plan as the runtime runs it (barriers, the library's envelope and
//!   eager limit), for `liquid_sim`: liquid's prediction of a run;
//! - [`report`]: the runtime's report read back and set beside that prediction.
//!
//! The runtime itself is C (`crates/mpi/runtime/`): `liquid-mpi-run` and
//! `liquid_alltoallv`, for mpicc and SimGrid's smpicc alike.
#![forbid(unsafe_code)]

pub mod export;
pub mod format;
pub mod model;
pub mod program;
pub mod report;

pub use export::{
    barrier_s, export, export_pieces, export_pieces_predicted, predict_pieces, ExportInput,
    Exported, PieceOf, PlanKind, RunPredicted,
};
pub use model::{Budget, RuntimeModel};
pub use program::{Message, Op, Piece, Program, Wait};
pub use report::{compare, Comparison, Manifest, RunReport, Stopped};

use std::path::PathBuf;

use thiserror::Error;

/// Why an export or a comparison was refused.
#[derive(Debug, Error)]
pub enum MpiError {
    /// The model, sizes or schedule cannot make an MPI plan (the user's input).
    #[error("{0}")]
    Input(String),
    /// A program that breaks its own rules (a bug in a builder, never the user's input).
    #[error("internal error: the MPI program is inconsistent: {0}")]
    Inconsistent(String),
    /// A file that cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A report or manifest that cannot be read, or that does not match its plan.
    #[error("{file}: {why}")]
    Report {
        /// The file.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// The simulator refused the plan.
    #[error("simulation: {0}")]
    Sim(#[from] liquid_sim::SimError),
}
