use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use liquid_engine::report::Verification;

use crate::output::{emit, Format};
use crate::EXIT_REJECTED;

/// `liquid verify MODEL SCHEDULE [--prove DIR]`: exit 0 when the schedule is valid, 1 when
/// it is not. With `--prove`, a valid schedule that is not liquid is settled with SAT.
pub fn verify(
    model: &Path,
    schedule_path: &Path,
    prove: Option<&Path>,
    time_limit: Option<Duration>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let deadline = time_limit.map(|t| Instant::now() + t);
    let traffic = liquid_study::input::load_traffic(model)?;
    let schedule = liquid_model::yaml::load_schedule(schedule_path, &traffic)?;
    let report = Verification::new(
        &traffic,
        &schedule,
        &schedule_path.display().to_string(),
        prove,
        deadline,
    )
    .map_err(crate::commands::solve::gate_error)?;
    emit(&report, format)?;
    Ok(if report.valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_REJECTED)
    })
}
