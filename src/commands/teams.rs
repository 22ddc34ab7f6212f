use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use liquid_search::teams::{TeamsReport, TimeLimit};

use crate::output::{emit, Format};

// `liquid teams`'s arguments.
#[derive(Debug, clap::Args)]
pub struct TeamsArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    /// Also list every full team as transfer ids.
    #[arg(long)]
    list: bool,
    /// Wall-clock limit in seconds for the whole command, loading the model included
    /// (fractions allowed; default 300): past it the report counts (and with --list lists)
    /// the full teams found so far, a lower bound, and its `stopped` section says how far
    /// the enumeration got (a warning, exit 0).
    #[arg(long, value_parser = super::parse_seconds)]
    time_limit: Option<Duration>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid teams MODEL [--list] [--time-limit S]`: the full teams of the whole traffic, in
/// enumeration order (the report is `liquid_search::teams::TeamsReport`), within the time
/// limit ([`liquid_engine::DEFAULT_TIME_LIMIT`] by default).
pub fn teams(a: &TeamsArgs) -> anyhow::Result<ExitCode> {
    let time_limit = TimeLimit {
        start: Instant::now(),
        limit: a.time_limit.unwrap_or(liquid_engine::DEFAULT_TIME_LIMIT),
    };
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    let label = format!("teams {}", a.model.display());
    let report = crate::progress::with_progress_as(&label, liquid_engine::Counts::Nodes, |p| {
        TeamsReport::within(&traffic, a.list, Some(time_limit), p)
    });
    emit(&report, a.format)?;
    // Exit 0, as `simulate` stopped by its time limit: the report is written.
    if let Some(why) = report.stopped() {
        eprintln!("warning: {why}");
    }
    Ok(ExitCode::SUCCESS)
}
