//! `liquid explain` over many models, and its shards (`--shard i/n`, joined by `liquid
//! merge`): each model is one item, explained as `liquid explain MODEL` explains it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use liquid_engine::explain::ExplainError;
use liquid_engine::report::ExplainReport;
use serde::Serialize;

use crate::StudyError;

/// `explain`'s name in its shard files (`liquid merge` reads it).
pub const SWEEP: &str = "explain";

/// explain's own options in its shard files: every shard of one run shares them, the
/// models included (as their items' keys).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ShardParams {
    all: bool,
    time_limit_s: Option<f64>,
    /// How the merge prints the reports (the caller's name of the format).
    format: String,
    models: Vec<String>,
}

/// Explains one model (a file or a generated-model spec) within `limit`, the stage that
/// runs told on `progress` ([`liquid_engine::stage`]).
pub fn one(
    model: &Path,
    all: bool,
    limit: Option<Duration>,
    progress: &AtomicU64,
) -> Result<ExplainReport, StudyError> {
    let traffic = crate::input::load_traffic(model)?;
    ExplainReport::new(&traffic, all, limit, progress).map_err(|e| match e {
        ExplainError::Sat(liquid_sat::SatError::Encode(e)) => {
            StudyError::Input(format!("{}: {e}", model.display()))
        }
        e => StudyError::Failed(format!("{}: {e}", model.display())),
    })
}

/// Explains one model as [`one`] does and writes its first core's checked proof into
/// `dir` (formula.cnf, proof.lrat, manifest.yaml, and the core as core.yaml: `liquid
/// check-proof DIR/core.yaml --proof DIR` checks it). The report says where (`proof_dir`); a
/// traffic without a core (liquid, or stopped before one was found) writes nothing.
pub fn one_with_proof(
    model: &Path,
    all: bool,
    limit: Option<Duration>,
    dir: &Path,
    progress: &AtomicU64,
) -> Result<ExplainReport, StudyError> {
    let traffic = crate::input::load_traffic(model)?;
    let (mut report, found) =
        ExplainReport::with_cores(&traffic, all, limit, progress).map_err(|e| match e {
            ExplainError::Sat(liquid_sat::SatError::Encode(e)) => {
                StudyError::Input(format!("{}: {e}", model.display()))
            }
            e => StudyError::Failed(format!("{}: {e}", model.display())),
        })?;
    if let Some(core) = found.cores.first() {
        match core.write_proof(&traffic, dir) {
            Err(ExplainError::Write(e)) => return Err(StudyError::Input(e)),
            Err(e) => return Err(StudyError::Failed(format!("{}: {e}", model.display()))),
            Ok(_) => report.set_proof_dir(dir),
        }
    }
    Ok(report)
}

/// Explains every model in the order given, each within `limit` (stages on `progress`).
pub fn run(
    models: &[PathBuf],
    all: bool,
    limit: Option<Duration>,
    progress: &AtomicU64,
) -> Result<Vec<ExplainReport>, StudyError> {
    models
        .iter()
        .map(|m| one(m, all, limit, progress))
        .collect()
}

/// Runs shard `shard` of [`run`] (model i is item i) and writes
/// `explain-shard-I-of-N.json` into `out`; the merge ([`merge`]) gives the reports of the
/// unsharded run and the format the run asked for.
pub fn shard(
    models: &[PathBuf],
    all: bool,
    limit: Option<Duration>,
    shard: liquid_shard::Shard,
    format: &str,
    out: &Path,
) -> Result<crate::ShardWritten, StudyError> {
    let params = ShardParams {
        all,
        time_limit_s: limit.map(|t| t.as_secs_f64()),
        format: format.to_string(),
        models: models.iter().map(|m| m.display().to_string()).collect(),
    };
    crate::create_dir(out)?;
    let mut items = Vec::new();
    for index in shard.items(models.len()) {
        items.push(liquid_shard::Item {
            index,
            key: params.models[index].clone(),
            result: one(&models[index], all, limit, &AtomicU64::new(0))?,
        });
    }
    crate::ShardWritten::write(out, SWEEP, &params, shard, models.len(), items)
}

/// Joins the shard files of one explain run (read and checked by
/// `liquid_shard::merge_any`): checks that every item is the model its index names and
/// that its report holds for that model ([`ExplainReport::recheck`]: cores proved again,
/// schedules validated), and returns the reports of the unsharded run with the format the
/// run asked for.
pub(crate) fn merge(
    merged: liquid_shard::Merged<ExplainReport>,
) -> Result<(Vec<ExplainReport>, String), StudyError> {
    let bad = |e: String| StudyError::Input(format!("shards of {SWEEP}: {e}"));
    let (p, items) = crate::merged_models(merged, SWEEP, |p: &ShardParams| &p.models)?;
    let mut reports = Vec::with_capacity(items.len());
    for item in items {
        let k = &item.key;
        // The report is checked against its model, not trusted: each item gets the run's
        // time limit again for its checks.
        let traffic = crate::input::load_traffic(Path::new(k))?;
        let limit = match p.time_limit_s {
            Some(t) => Duration::try_from_secs_f64(t)
                .map_err(|e| bad(format!("params: time_limit_s {t}: {e}")))?,
            None => liquid_engine::report::DEFAULT_EXPLAIN_LIMIT,
        };
        if item.result.time_limit_s() != limit.as_secs_f64() {
            return Err(bad(format!(
                "item {} ({k}): time_limit_s {}, the run's is {}",
                item.index,
                item.result.time_limit_s(),
                limit.as_secs_f64()
            )));
        }
        item.result
            .recheck(&traffic, std::time::Instant::now().checked_add(limit))
            .map_err(|e| bad(format!("item {} ({k}): {e}", item.index)))?;
        reports.push(item.result);
    }
    Ok((reports, p.format))
}
