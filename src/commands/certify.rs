//! `liquid certify MODEL [--schedule S] [--proof DIR]`: checks a certificate from files
//! alone and says exactly what it proves.
//!
//! The upper-bound witness is a schedule (validated by the model crate); the lower-bound
//! witnesses are the bottleneck link (Λ, always) and, when given, a proof directory
//! (checked by liquid-certify, after the CNF is shown to encode this very traffic).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

use super::proof::{verify_proof_dir, VerifiedProof};
use crate::output::{emit, Format};
use crate::{InputError, EXIT_REJECTED};

#[derive(Serialize)]
struct Bound {
    value: usize,
    witness: String,
}

#[derive(Serialize)]
struct CertifyReport {
    model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<String>,
    accepted: bool,
    /// What the certificate proves, or why it is rejected.
    statement: String,
    duration: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<usize>,
    lower_bounds: Vec<Bound>,
}

/// Runs `certify`: exit 0 when every part of the certificate checks, 1 otherwise.
pub fn certify(
    model: &Path,
    schedule: Option<&PathBuf>,
    proof: Option<&PathBuf>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    if schedule.is_none() && proof.is_none() {
        return Err(InputError(
            "certify needs a certificate: --schedule FILE, --proof DIR, or both".into(),
        )
        .into());
    }
    let traffic = crate::input::load_traffic(model)?;
    let d = traffic.duration();
    let bottleneck = traffic.bottlenecks()[0];
    let mut report = CertifyReport {
        model: traffic.name().to_string(),
        schedule: schedule.map(|p| p.display().to_string()),
        proof: proof.map(|p| p.display().to_string()),
        accepted: false,
        statement: String::new(),
        duration: d,
        length: None,
        lower_bounds: vec![Bound {
            value: d,
            witness: format!(
                "link {:?} has {} users, which pairwise congest",
                traffic.link_name(bottleneck),
                traffic.load(bottleneck)
            ),
        }],
    };
    let reject = |mut report: CertifyReport, why: String| -> anyhow::Result<ExitCode> {
        report.statement = format!("rejected: {why}");
        emit(&report, format)?;
        Ok(ExitCode::from(EXIT_REJECTED))
    };
    let mut length = None;
    if let Some(path) = schedule {
        let s = liquid_model::yaml::load_schedule(path, &traffic)?;
        match liquid_model::validate(&traffic, &s) {
            Ok(r) => length = Some(r.length),
            Err(e) => return reject(report, format!("the schedule is invalid: {e}")),
        }
        report.length = length;
    }
    let mut proven = None;
    if let Some(dir) = proof {
        match verify_proof_dir(&traffic, model, dir)? {
            Ok(VerifiedProof { colours: k, .. }) => {
                report.lower_bounds.push(Bound {
                    value: k + 1,
                    witness: format!(
                        "a checked LRAT proof that {k} timeframes do not suffice ({})",
                        dir.display()
                    ),
                });
                proven = Some(k + 1);
            }
            Err(why) => return reject(report, format!("the proof is invalid: {why}")),
        }
    }
    let lower = proven.unwrap_or(d).max(d);
    report.statement = match length {
        Some(len) if len < lower => {
            return reject(
                report,
                format!(
                    "the schedule has {len} timeframes but the proof says at least {lower} are needed: \
                     the two contradict each other"
                ),
            )
        }
        Some(len) if len == d => "liquid, hence optimal".to_string(),
        Some(len) if len == lower => format!(
            "optimal: a schedule of length {len} and a checked proof that {} timeframes are impossible",
            len - 1
        ),
        Some(len) => format!(
            "valid (length {len}), but optimality not proven: every schedule needs at least {lower}"
        ),
        None if lower > d => format!(
            "not liquid: a checked proof that {} timeframes do not suffice (every schedule needs at least {lower}; Λ = {d})",
            lower - 1
        ),
        None => format!("a checked proof that every schedule needs at least {lower} timeframes"),
    };
    report.accepted = true;
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}
