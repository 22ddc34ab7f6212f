//! `liquid crosscheck`: several engines on each model, their contradictions, and the
//! comparison with a baseline (`liquid_study::crosscheck`).

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_engine::{Engine, Request};
use liquid_study::crosscheck::{self, Outcome};

pub use liquid_study::crosscheck::BaselineArgs;

use crate::output::{emit, Format};
use crate::{EXIT_CONTRADICTION, EXIT_INTERNAL};

/// Output of crosscheck: a table for people, or YAML/JSON for machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CrossFormat {
    /// One table per model, then the verdict.
    Table,
    /// YAML.
    Yaml,
    /// JSON.
    Json,
}

/// Exit code of `crosscheck --baseline` when an answer regressed.
pub const EXIT_REGRESSION: u8 = 5;
/// Exit code of `crosscheck --baseline` when answers only improved (without
/// `--accept-improvements`).
pub const EXIT_IMPROVEMENT: u8 = 6;

/// `liquid crosscheck MODEL...`: exit 0 when every answer checks and no two contradict,
/// 4 on a contradiction, 3 when an engine failed to run, 5 on a regression and 6 on
/// improvements against the baseline.
pub fn crosscheck(
    models: &[PathBuf],
    engines: &[&'static dyn Engine],
    request: &Request,
    format: CrossFormat,
    base: &BaselineArgs,
) -> anyhow::Result<ExitCode> {
    let report = crosscheck::run(models, engines, request, base, &crate::progress::solve_as)?;
    print(&report, format, base.accept_improvements)
}

/// The report in `format`, and the exit code of its outcome.
fn print(
    report: &crosscheck::Report,
    format: CrossFormat,
    accept_improvements: bool,
) -> anyhow::Result<ExitCode> {
    match format {
        CrossFormat::Table => crate::output::print(&report.table())?,
        CrossFormat::Yaml => emit(report, Format::Yaml)?,
        CrossFormat::Json => emit(report, Format::Json)?,
    }
    Ok(match report.outcome(accept_improvements) {
        Outcome::Contradiction => ExitCode::from(EXIT_CONTRADICTION),
        Outcome::EngineError => ExitCode::from(EXIT_INTERNAL),
        Outcome::Regression => ExitCode::from(EXIT_REGRESSION),
        Outcome::Improvement => ExitCode::from(EXIT_IMPROVEMENT),
        Outcome::Agreed => ExitCode::SUCCESS,
    })
}

/// `liquid crosscheck MODEL... --shard i/n --out DIR`: one shard's file (exit 0 when it is
/// written: the outcome is the merge's).
pub fn crosscheck_shard(
    models: &[PathBuf],
    engines: &[&'static dyn Engine],
    request: &Request,
    format: CrossFormat,
    shard: liquid_study::Shard,
    out: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    use clap::ValueEnum;
    let name = format
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    let written = crosscheck::shard(
        models,
        engines,
        request,
        shard,
        &name,
        out,
        &crate::progress::solve_as,
    )?;
    eprintln!("{written}");
    Ok(ExitCode::SUCCESS)
}

/// `liquid merge` of crosscheck's shards: the report in the run's format, with the exit
/// code of the unsharded run.
pub fn crosscheck_merged(report: &crosscheck::Report, format: &str) -> anyhow::Result<ExitCode> {
    use clap::ValueEnum;
    let format = CrossFormat::from_str(format, false)
        .map_err(|e| crate::InputError(format!("shards of crosscheck: format {format:?}: {e}")))?;
    print(report, format, false)
}
