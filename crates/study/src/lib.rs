//! liquid's studies, sweeps and exports as library calls, so that a benchmark, a test or
//! another program runs them without the CLI (which only parses arguments, calls one
//! function of this crate per command and prints what it returns).
//!
//! - [`alltoallv`]: unequal messages: the time bound, schedules by chunks and whole, sizes;
//! - [`crosscheck`]: several engines on each model, their contradictions, baselines;
//! - [`input`]: a model argument (a file or a generated-model spec) as a traffic;
//! - [`latency`]: paper 002's analytical model, the flit-level simulation of its systems,
//!   and the model against the simulation;
//! - [`simulate`]: a schedule (a file's or an engine's) on the flow-level simulator of
//!   `liquid-sim`, with its timeline, and the same platform and plan for SimGrid;
//! - [`routing`]: which InfiniBand routing engine serves a job's all-to-all: fabrics ×
//!   subnet-manager engines × allocations, from collected topology and forwarding tables
//!   (sharded, merged), its CSV file and charts;
//! - [`testbed`]: the Swiss-T1 sweep of papers 000 and 003 (sharded, merged), its CSV
//!   files and charts;
//! - [`two_clusters`]: paper 001's total exchange between two clusters on the flow-level
//!   simulator (Figs. 4-6), with the schedules computed through the engine gate.
//!
//! Every function returns a [`StudyError`] whose [`StudyError::is_input`] says whether
//! the caller's input was refused (the CLI's exit code 2) or something failed inside
//! (exit code 3).
#![forbid(unsafe_code)]

pub mod alltoallv;
pub mod crosscheck;
pub mod explain;
pub mod input;
pub mod latency;
pub mod merge;
pub mod outdir;
pub mod routing;
pub mod simulate;
pub mod testbed;
pub mod two_clusters;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use liquid_engine::{Checked, Engine, Request, SolveError};
use liquid_model::Traffic;
pub use liquid_shard::Shard;

/// How a study runs an engine through the gate: [`quietly`], or a caller's function that
/// shows progress while [`liquid_engine::solve`] runs.
pub type Solver<'a> =
    &'a dyn Fn(&Traffic, &'static dyn Engine, &Request) -> Result<Checked, SolveError>;

/// Runs an engine through the gate without showing progress.
pub fn quietly(
    traffic: &Traffic,
    engine: &'static dyn Engine,
    request: &Request,
) -> Result<Checked, SolveError> {
    liquid_engine::solve(traffic, engine, request, None, &AtomicU64::new(0))
}

/// Why a study, sweep or export could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The caller's input was refused (a parameter, a file's contents); the message says
    /// which and why.
    #[error("{0}")]
    Input(String),
    /// A model, schedule or other YAML file could not be loaded.
    #[error(transparent)]
    Load(#[from] liquid_model::yaml::LoadError),
    /// The engine gate refused the traffic or the engine's answer.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A file or directory could not be written or created.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// `create` or `write`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// Something failed that the input cannot explain (a simulator or plot failure).
    #[error("internal error: {0}")]
    Internal(String),
    /// Something failed that the input cannot explain, with a message that says so itself
    /// (a generated model that does not expand).
    #[error("{0}")]
    Failed(String),
}

/// What a sweep run with or without `--shard` did: the whole sweep's result, or one
/// shard's file.
#[derive(Debug)]
pub enum Swept<T> {
    /// The whole sweep (its files are written; this is what it prints).
    Full(T),
    /// One shard, written to its shard file.
    Shard(ShardWritten),
}

/// One shard of a sweep, written (join the shards with `liquid merge`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardWritten {
    /// The shard file.
    pub file: PathBuf,
    /// The items this shard ran.
    pub items: usize,
    /// The items of the whole sweep.
    pub total: usize,
}

impl std::fmt::Display for ShardWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrote {} ({} of {} items); join the shards with `liquid merge`",
            self.file.display(),
            self.items,
            self.total
        )
    }
}

impl ShardWritten {
    /// Writes one shard's file of `sweep` into `out` (atomically, see
    /// [`liquid_shard::write`]): the sweep's own options `params`, and the shard's
    /// `items` of the sweep's `total`.
    pub(crate) fn write<T: serde::Serialize>(
        out: &Path,
        sweep: &str,
        params: &impl serde::Serialize,
        shard: liquid_shard::Shard,
        total: usize,
        items: Vec<liquid_shard::Item<T>>,
    ) -> Result<ShardWritten, StudyError> {
        let params = serde_json::to_value(params).map_err(StudyError::internal)?;
        let n = items.len();
        let file = liquid_shard::ShardFile::new(sweep, params, shard, total, items);
        Ok(ShardWritten {
            file: liquid_shard::write(out, &file)?,
            items: n,
            total,
        })
    }
}

/// A merged sweep over models read back: the run's own options `P` (from the shard files)
/// and its items, after checking that there are as many items as `models(&P)` names and
/// that every item is the model its index names. Errors name the sweep.
pub(crate) fn merged_models<P: serde::de::DeserializeOwned, T>(
    merged: liquid_shard::Merged<T>,
    sweep: &str,
    models: impl Fn(&P) -> &[String],
) -> Result<(P, Vec<liquid_shard::Item<T>>), StudyError> {
    let bad = |e: String| StudyError::Input(format!("shards of {sweep}: {e}"));
    let p: P = serde_json::from_value(merged.params).map_err(|e| bad(format!("params: {e}")))?;
    let names = models(&p);
    if names.len() != merged.items.len() {
        return Err(bad(format!(
            "{} models, the run's options name {}",
            merged.items.len(),
            names.len()
        )));
    }
    if let Some((item, k)) = merged.items.iter().zip(names).find(|(i, k)| &i.key != *k) {
        return Err(bad(format!(
            "item {} is {:?}, the run's is {k:?}",
            item.index, item.key
        )));
    }
    Ok((p, merged.items))
}

/// Every shard problem (a missing, duplicated or foreign shard, a file that cannot be
/// read or written) is the caller's: the message names the file.
impl From<liquid_shard::ShardError> for StudyError {
    fn from(e: liquid_shard::ShardError) -> StudyError {
        StudyError::Input(e.to_string())
    }
}

impl StudyError {
    /// Whether the caller's input was refused (rather than something failing inside).
    pub fn is_input(&self) -> bool {
        match self {
            // A file that cannot be written (a directory, a full disk, no permission)
            // is the user's to fix.
            StudyError::Input(_) | StudyError::Load(_) | StudyError::Io { .. } => true,
            StudyError::Solve(e) => matches!(e, SolveError::Input(_)),
            StudyError::Internal(_) | StudyError::Failed(_) => false,
        }
    }

    /// An internal failure, from anything that displays.
    pub(crate) fn internal(e: impl std::fmt::Display) -> StudyError {
        StudyError::Internal(e.to_string())
    }
}

/// Writes `text` to `path`, the error naming the file.
pub(crate) fn write(path: &Path, text: impl AsRef<[u8]>) -> Result<(), StudyError> {
    std::fs::write(path, text).map_err(|source| StudyError::Io {
        action: "write",
        path: path.to_path_buf(),
        source,
    })
}

/// An MPI export's error as the study's: bad input stays bad input, a file that cannot be
/// written names its path, anything else is internal.
pub(crate) fn mpi_error(e: liquid_mpi::MpiError) -> StudyError {
    match e {
        liquid_mpi::MpiError::Input(m) => StudyError::Input(m),
        liquid_mpi::MpiError::Io { path, source } => StudyError::Io {
            action: "write",
            path,
            source,
        },
        e => StudyError::internal(e),
    }
}

/// Writes a CSV file: its header line, then one line per row.
pub(crate) fn write_csv(
    path: &Path,
    header: &str,
    rows: impl IntoIterator<Item = String>,
) -> Result<(), StudyError> {
    let mut text = String::from(header);
    text.push('\n');
    for row in rows {
        text.push_str(&row);
        text.push('\n');
    }
    write(path, text)
}

/// Creates a directory and its parents, the error naming it.
pub(crate) fn create_dir(path: &Path) -> Result<(), StudyError> {
    std::fs::create_dir_all(path).map_err(|source| StudyError::Io {
        action: "create",
        path: path.to_path_buf(),
        source,
    })
}
