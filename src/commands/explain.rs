//! `liquid explain MODEL [--all]`: why a traffic is not liquid, as minimal non-liquid cores
//! with their certificates (the search and checks are `liquid_engine::explain`, the report
//! `liquid_engine::report::ExplainReport`).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use liquid_engine::explain::ExplainError;
use liquid_engine::report::ExplainReport;

use crate::output::{emit, Format};
use crate::InputError;

/// Runs `explain`.
pub fn explain(
    model: &Path,
    all: bool,
    time_limit: Option<Duration>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    let report = match ExplainReport::new(&traffic, all, time_limit) {
        Ok(r) => r,
        Err(ExplainError::Sat(liquid_sat::SatError::Encode(e))) => {
            return Err(InputError(format!("{}: {e}", model.display())).into())
        }
        Err(e) => anyhow::bail!("{}: {e}", model.display()),
    };
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}
