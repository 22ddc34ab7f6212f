use std::path::Path;
use std::process::ExitCode;

use liquid_model::analysis::Analysis;

use crate::output::{emit, Format};

/// `liquid analyze MODEL [--count-conflicts]` (the report is
/// `liquid_model::analysis::Analysis`).
pub fn analyze(model: &Path, count_conflicts: bool, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    emit(&Analysis::new(&traffic, count_conflicts), format)?;
    Ok(ExitCode::SUCCESS)
}
