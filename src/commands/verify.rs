use std::path::Path;
use std::process::ExitCode;

use liquid_model::validate;
use serde::Serialize;

use crate::output::{emit, Format};
use crate::EXIT_REJECTED;

#[derive(Serialize)]
struct Verification {
    model: String,
    schedule: String,
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    length: usize,
    duration: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    optimality: Option<&'static str>,
}

/// `liquid verify MODEL SCHEDULE`: exit 0 when the schedule is valid, 1 when it is not.
pub fn verify(model: &Path, schedule_path: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let schedule = liquid_model::yaml::load_schedule(schedule_path, &traffic)?;
    let mut report = Verification {
        model: traffic.name().to_string(),
        schedule: schedule_path.display().to_string(),
        valid: false,
        reason: None,
        length: schedule.len(),
        duration: traffic.duration(),
        liquid: None,
        optimality: None,
    };
    let code = match validate(&traffic, &schedule) {
        Ok(r) => {
            report.valid = true;
            report.liquid = Some(r.liquid);
            // A liquid schedule meets the lower bound Λ, so it is optimal; anything longer
            // needs a proof that no shorter schedule exists.
            report.optimality = Some(if r.liquid { "optimal" } else { "not proven" });
            ExitCode::SUCCESS
        }
        Err(e) => {
            report.reason = Some(e.to_string());
            ExitCode::from(EXIT_REJECTED)
        }
    };
    emit(&report, format)?;
    Ok(code)
}
