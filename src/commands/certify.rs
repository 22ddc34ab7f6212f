//! `liquid certify MODEL [--schedule S] [--proof DIR]`: checks a certificate from files
//! alone and says exactly what it proves (the checking is `liquid_proof::certificate`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

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
    let s = match schedule {
        Some(path) => Some(liquid_model::yaml::load_schedule(path, &traffic)?),
        None => None,
    };
    let c = liquid_proof::certificate::certify(&traffic, s.as_ref(), proof.map(PathBuf::as_path))?;
    let report = CertifyReport {
        model: traffic.name().to_string(),
        schedule: schedule.map(|p| p.display().to_string()),
        proof: proof.map(|p| p.display().to_string()),
        accepted: c.accepted,
        statement: c.statement,
        duration: traffic.duration(),
        length: c.length,
        lower_bounds: c
            .lower_bounds
            .into_iter()
            .map(|b| Bound {
                value: b.value,
                witness: b.witness,
            })
            .collect(),
    };
    emit(&report, format)?;
    Ok(if report.accepted {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_REJECTED)
    })
}
