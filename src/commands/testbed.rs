//! `liquid testbed t1` and `liquid merge`: the Swiss-T1 sweep and the shards' merge
//! (`liquid_study::testbed`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use liquid_study::testbed::{self, Shard, SimParams, Sweep};
use liquid_study::StudyError;

use crate::output::{emit, Format};
use crate::EXIT_INTERNAL;

/// `liquid testbed t1`: the summary on stdout, or (one shard) what was written on stderr;
/// exit 3 when a class fails.
pub fn testbed_t1(
    out: &Path,
    shard: Option<Shard>,
    time_limit: Duration,
    sim: Option<SimParams>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let classes = liquid_topology::t1::classes().len();
    let todo = shard.map_or(classes, |s| s.items(classes).count());
    let pb = crate::progress::bar(
        todo as u64,
        "{elapsed_precise} [{bar:40}] {pos}/{len} classes {msg}",
    );
    let sweep = testbed::t1(out, shard, time_limit, sim, &|| pb.inc(1));
    pb.finish_and_clear();
    match sweep {
        Err(StudyError::Internal(e)) => {
            eprintln!("internal error: {e}");
            Ok(ExitCode::from(EXIT_INTERNAL))
        }
        Err(e) => Err(e.into()),
        Ok(Sweep::Full(summary)) => {
            emit(&summary, format)?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(Sweep::Shard {
            file,
            rows,
            classes,
        }) => {
            eprintln!(
                "wrote {} ({rows} of {classes} classes); join the shards with `liquid merge`",
                file.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `liquid merge SHARDS... --out DIR`: any sweep's shards, joined.
pub fn merge(paths: &[PathBuf], out: &Path, format: Format) -> anyhow::Result<ExitCode> {
    match liquid_study::merge::merge(paths, out)? {
        liquid_study::merge::Merged::Testbed(summary) => emit(&summary, format)?,
        liquid_study::merge::Merged::Latency(table) => crate::output::print(&table)?,
        liquid_study::merge::Merged::Crosscheck(report, format) => {
            return super::crosscheck::crosscheck_merged(&report, &format);
        }
        liquid_study::merge::Merged::TwoClusters(summary) => {
            return super::study::emitted(&summary, format);
        }
        liquid_study::merge::Merged::Explain(reports, format) => {
            super::explain::emit_many(&reports, &format)?
        }
    }
    Ok(ExitCode::SUCCESS)
}
