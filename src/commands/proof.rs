//! `liquid prove` and `liquid check-proof` (the runs and reports are
//! `liquid_proof::report`).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use liquid_proof::report::{CheckReport, ProveError};

use crate::commands::encode::colours_or_duration;
use crate::output::{emit, Format};
use crate::{InputError, EXIT_INTERNAL, EXIT_REJECTED};

/// Who writes the proof of `liquid prove`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prover {
    /// varisat with its LRAT writer.
    Sat,
    /// The native colouring search's refutation trace, made LRAT.
    Search,
}

/// How `liquid prove` runs.
#[derive(Debug, Clone, Copy)]
pub struct ProveOptions {
    /// Who writes the proof.
    pub prover: Prover,
    /// Wall-clock limit.
    pub time_limit: Option<std::time::Duration>,
}

/// `liquid prove MODEL [--colours k] --out DIR [--prover sat|search] [--time-limit S]`:
/// exit 0 with a proof in DIR when k timeframes do not suffice, 1 when they do (no proof
/// exists) or when the time limit came first (`result: unknown`).
pub fn prove(
    model: &Path,
    colours: Option<usize>,
    out: &Path,
    options: ProveOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    let k = colours_or_duration(&traffic, colours)?;
    let prover = match options.prover {
        Prover::Sat => liquid_proof::report::Prover::Sat,
        Prover::Search => liquid_proof::report::Prover::Search,
    };
    let deadline = options.time_limit.map(|t| Instant::now() + t);
    let proved = crate::progress::with_progress(liquid_engine::Counts::Nothing, |_| {
        liquid_proof::report::prove(&traffic, k, prover, deadline, out)
    });
    let report = match proved {
        Ok(r) => r,
        Err(ProveError::Input(e)) => {
            return Err(InputError(format!("{}: {e}", model.display())).into())
        }
        Err(ProveError::Internal(e)) => anyhow::bail!("{}: {e}", model.display()),
        Err(ProveError::Proof(e)) => return Err(e.into()),
        Err(e @ ProveError::Rejected { .. }) => {
            eprintln!("internal error: {e}");
            return Ok(ExitCode::from(EXIT_INTERNAL));
        }
    };
    emit(&report, format)?;
    Ok(if report.proved() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_REJECTED)
    })
}

/// `liquid check-proof MODEL DIR`: re-encodes the model with the manifest's k, requires
/// DIR/formula.cnf to be that encoding byte for byte, and checks DIR/proof.lrat with the
/// independent checker of liquid-certify. Exit 0 when verified, 1 when rejected.
pub fn check_proof(model: &Path, dir: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    let report = CheckReport::new(&traffic, dir)?;
    emit(&report, format)?;
    Ok(if report.verified() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_REJECTED)
    })
}
