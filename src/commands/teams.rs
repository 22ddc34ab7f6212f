use std::path::Path;
use std::process::ExitCode;

use liquid_search::teams::TeamsReport;

use crate::output::{emit, Format};

/// `liquid teams MODEL [--list]`: the full teams of the whole traffic, in enumeration order
/// (the report is `liquid_search::teams::TeamsReport`).
pub fn teams(model: &Path, list: bool, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    emit(&TeamsReport::new(&traffic, list), format)?;
    Ok(ExitCode::SUCCESS)
}
