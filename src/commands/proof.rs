//! `liquid prove` and `liquid check-proof` (the runs and reports are
//! `liquid_proof::report`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use liquid_engine::DEFAULT_TIME_LIMIT;
use liquid_proof::report::{CheckReport, ProveError};

use crate::commands::encode::colours_or_duration;
use crate::output::{emit, verdict, Format};
use crate::{InputError, EXIT_INTERNAL};

/// For a run given `--proof DIR` that writes no proof there: removes the evidence an
/// earlier run left in DIR ([`liquid_proof::clear_stale`]) and says on stderr that no
/// proof was written, `why`, and what was removed.
pub fn no_proof_in(dir: &std::path::Path, why: &str) -> anyhow::Result<()> {
    let removed = liquid_proof::clear_stale(dir)?;
    let earlier = if removed.is_empty() {
        String::new()
    } else {
        format!(" (removed an earlier run's {} there)", removed.join(", "))
    };
    eprintln!("no proof written to {}: {why}{earlier}", dir.display());
    Ok(())
}

/// Who writes the proof of `liquid prove`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prover {
    /// At k = Λ the team-cover search (an exact cover of full teams, in extended
    /// resolution), varisat when it declines or stops (too many teams, its node budget or
    /// half the time) or at other k.
    Auto,
    /// varisat with its LRAT writer.
    Sat,
    /// The native searches' refutation, made LRAT (when k = Λ the team-cover search, then
    /// the frame search; else, or when they give up, the colouring search).
    Search,
}

// `liquid prove`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ProveArgs {
    /// Model file.
    model: PathBuf,
    /// The number of timeframes k (default: the duration Λ, i.e. prove non-liquidity).
    #[arg(long)]
    colours: Option<usize>,
    /// The proof directory (created if needed).
    #[arg(long = "proof", alias = "out", value_name = "DIR")]
    proof: PathBuf,
    /// Who writes the proof: `auto` (the default: at k = Λ the team-cover search, else or
    /// when it declines varisat), `sat` (varisat), or `search`, a native search (k from Λ
    /// to 32; at k = Λ the team-cover search, then the frame search, both writing their own
    /// hints; else, or when they give up, the colouring search, whose trace becomes LRAT
    /// hints by unit propagation on the same CNF). The report's `proof_by` says who wrote
    /// the proof.
    #[arg(long, value_enum, default_value_t = Prover::Auto)]
    prover: Prover,
    /// Wall-clock limit in seconds (default 300): without a proof by then, the report
    /// says `unknown` (exit 1).
    #[arg(long, value_parser = super::parse_seconds)]
    time_limit: Option<std::time::Duration>,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

// `liquid check-proof`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CheckProofArgs {
    /// Model file.
    model: PathBuf,
    /// The proof directory (written by `prove --proof DIR` or `solve --proof DIR`).
    #[arg(
        long = "proof",
        value_name = "DIR",
        required_unless_present = "dir_arg"
    )]
    proof: Option<PathBuf>,
    /// The proof directory as a second positional argument: the spelling before --proof,
    /// kept for one release.
    #[arg(hide = true, conflicts_with = "proof")]
    dir_arg: Option<PathBuf>,
    /// Wall-clock limit in seconds for checking the proof (default 300): a check it stops
    /// says so and is not verified (exit 1).
    #[arg(long, value_parser = super::parse_seconds)]
    time_limit: Option<std::time::Duration>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid prove MODEL [--colours k] --proof DIR [--prover auto|sat|search] [--time-limit S]`:
/// exit 0 with a proof in DIR when k timeframes do not suffice, 1 when they do (no proof
/// exists) or when the time limit came first (`result: unknown`).
pub fn prove(a: &ProveArgs) -> anyhow::Result<ExitCode> {
    let model = &a.model;
    let traffic = liquid_study::input::load_traffic(model)?;
    let k = colours_or_duration(&traffic, a.colours)?;
    let prover = match a.prover {
        Prover::Auto => liquid_proof::report::Prover::Auto,
        Prover::Sat => liquid_proof::report::Prover::Sat,
        Prover::Search => liquid_proof::report::Prover::Search,
    };
    let deadline = Some(Instant::now() + a.time_limit.unwrap_or(DEFAULT_TIME_LIMIT));
    let label = format!("prove {}", model.display());
    let proved = crate::progress::with_progress_as(&label, liquid_engine::Counts::Nothing, |p| {
        liquid_proof::report::prove(&traffic, k, prover, deadline, &a.proof, p)
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
    emit(&report, a.format)?;
    if !report.proved() {
        no_proof_in(&a.proof, "not proven (see the report)")?;
    }
    Ok(verdict(report.proved()))
}

/// `liquid check-proof MODEL --proof DIR`: re-encodes the model with the manifest's k, requires
/// DIR/formula.cnf to be that encoding byte for byte, and checks DIR/proof.lrat with the
/// independent checker of liquid-certify. Exit 0 when verified, 1 when rejected or
/// stopped by the time limit.
pub fn check_proof(a: &CheckProofArgs) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    let dir = a
        .proof
        .as_ref()
        .or(a.dir_arg.as_ref())
        .ok_or_else(|| crate::InputError("a proof directory is needed: --proof DIR".into()))?;
    let deadline = Instant::now() + a.time_limit.unwrap_or(DEFAULT_TIME_LIMIT);
    let report = CheckReport::new(&traffic, dir, Some(deadline))?;
    emit(&report, a.format)?;
    Ok(verdict(report.verified()))
}
