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
    match format {
        CrossFormat::Table => crate::output::print(&report.table())?,
        CrossFormat::Yaml => emit(&report, Format::Yaml)?,
        CrossFormat::Json => emit(&report, Format::Json)?,
    }
    Ok(match report.outcome(base.accept_improvements) {
        Outcome::Contradiction => ExitCode::from(EXIT_CONTRADICTION),
        Outcome::EngineError => ExitCode::from(EXIT_INTERNAL),
        Outcome::Regression => ExitCode::from(EXIT_REGRESSION),
        Outcome::Improvement => ExitCode::from(EXIT_IMPROVEMENT),
        Outcome::Agreed => ExitCode::SUCCESS,
    })
}
