//! `liquid certify MODEL [--schedule S] [--proof DIR]`: checks a certificate from files
//! alone and says exactly what it proves (the checking and the report are
//! `liquid_proof::certificate` and `liquid_proof::report::CertifyReport`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use liquid_proof::report::CertifyReport;

use crate::output::{emit, Format};
use crate::{InputError, EXIT_REJECTED};

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
    let traffic = liquid_study::input::load_traffic(model)?;
    let s = match schedule {
        Some(path) => Some((liquid_model::yaml::load_schedule(path, &traffic)?, path)),
        None => None,
    };
    let report = CertifyReport::new(
        &traffic,
        s.as_ref().map(|(s, p)| (s, p.as_path())),
        proof.map(PathBuf::as_path),
    )?;
    emit(&report, format)?;
    Ok(if report.accepted() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_REJECTED)
    })
}
