use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    optimality: Option<String>,
    /// What `--prove` wrote: the proof directory, or the shorter schedule it found.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<String>,
}

/// Settles with SAT whether a schedule shorter than `len` exists (see
/// `liquid_engine::optimality`): the optimality statement and the evidence path.
fn settle(
    traffic: &liquid_model::Traffic,
    len: usize,
    dir: &Path,
    deadline: Option<Instant>,
) -> anyhow::Result<(String, Option<String>)> {
    use liquid_engine::optimality::{settle, Settled};
    Ok(
        match settle(traffic, len, dir, deadline).map_err(crate::commands::solve::gate_error)? {
            Settled::Optimal(p) => (
                format!(
                    "optimal: proven (checked proof) that {} timeframes do not suffice",
                    p.colours()
                ),
                Some(dir.display().to_string()),
            ),
            Settled::Shorter { length, file } => (
                format!("not optimal: a valid schedule of {length} timeframes exists"),
                Some(file.display().to_string()),
            ),
            Settled::Stopped => ("not proven (the time limit stopped the proof)".into(), None),
            Settled::TooLarge(why) => (format!("not proven: {why}"), None),
        },
    )
}

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
        evidence: None,
    };
    let code = match validate(&traffic, &schedule) {
        Ok(r) => {
            report.valid = true;
            report.liquid = Some(r.liquid);
            // A liquid schedule meets the lower bound Λ, so it is optimal; anything longer
            // needs a proof that no shorter schedule exists.
            report.optimality = Some(match prove {
                _ if r.liquid => "optimal".to_string(),
                None => "not proven".to_string(),
                Some(dir) => {
                    let (statement, evidence) = settle(&traffic, r.length, dir, deadline)?;
                    report.evidence = evidence;
                    statement
                }
            });
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
