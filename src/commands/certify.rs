//! `liquid certify MODEL [--schedule S] [--proof DIR]`: checks a certificate from files
//! alone and says exactly what it proves (the checking and the report are
//! `liquid_proof::certificate` and `liquid_proof::report::CertifyReport`).

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_proof::report::CertifyReport;

use crate::output::{emit, verdict, Format};
use crate::InputError;

// `liquid certify`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CertifyArgs {
    /// Model file.
    model: PathBuf,
    /// A schedule file: the upper-bound witness.
    #[arg(long)]
    schedule: Option<PathBuf>,
    /// A proof directory written by `prove --proof DIR` (or `solve --proof DIR`): the lower-bound witness.
    #[arg(long)]
    proof: Option<PathBuf>,
    /// With --proof: wall-clock limit in seconds for checking the proof (default 300): a
    /// check it stops rejects the certificate, saying so (exit 1).
    #[arg(long, value_parser = super::parse_seconds, requires = "proof")]
    time_limit: Option<std::time::Duration>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// Runs `certify`: exit 0 when every part of the certificate checks, 1 otherwise (a
/// rejected schedule's problems all listed, a transfer name the model lacks included).
pub fn certify(a: &CertifyArgs) -> anyhow::Result<ExitCode> {
    if a.schedule.is_none() && a.proof.is_none() {
        return Err(InputError(
            "certify needs a certificate: --schedule FILE, --proof DIR, or both".into(),
        )
        .into());
    }
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    let s = match &a.schedule {
        Some(path) => {
            let mut problems = liquid_model::Problems::new();
            let s = liquid_model::yaml::load_schedule_listing(path, &traffic, &mut problems)?;
            Some((s, problems, path))
        }
        None => None,
    };
    let deadline =
        std::time::Instant::now() + a.time_limit.unwrap_or(liquid_engine::DEFAULT_TIME_LIMIT);
    // A spinner with the elapsed time on a terminal: a proof's check may take minutes.
    let label = format!("certify {}", a.model.display());
    let report = crate::progress::with_phases(&label, |_| {
        CertifyReport::new(
            &traffic,
            s.as_ref()
                .map(|(s, problems, p)| (s, problems.clone(), p.as_path())),
            a.proof.as_deref(),
            Some(deadline),
        )
    })?;
    emit(&report, a.format)?;
    Ok(verdict(report.accepted()))
}
