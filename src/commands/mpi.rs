//! `liquid export mpi` (a plan for the MPI runtime of `crates/mpi`) and `liquid compare`
//! (a run's report beside liquid's prediction).

use std::path::Path;
use std::process::ExitCode;

use liquid_mpi::program::ScheduleMode;
use liquid_mpi::{MpiError, PlanKind};
use liquid_study::simulate::SimArgs;

use crate::output::{emit, Format};
use crate::InputError;

/// The plan `export mpi` writes (`--plan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MpiPlan {
    /// The schedule (--schedule or --engine), run in --mode.
    Schedule,
    /// Every transfer posted at once (the schedule's order, or the model's without one).
    AllAtOnce,
    /// Rounds i → i+s, a barrier between rounds.
    RoundRobin,
    /// Rounds i → i+s, each rank on to its next round when its own is done (Open MPI's
    /// pairwise exchange).
    Pairwise,
    /// Paper 001's LG between two clusters (a `two-clusters:N1,N2` model).
    Lg,
    /// LG with each phase run by a liquid schedule (of --engine, native by default),
    /// frame by frame, a barrier between frames.
    LgLiquid,
}

fn mpi_error(e: MpiError) -> anyhow::Error {
    match e {
        MpiError::Input(_) | MpiError::Report { .. } | MpiError::Io { .. } => InputError::of(e),
        other => anyhow::anyhow!("{other}"),
    }
}

/// `liquid export mpi MODEL --out DIR`.
pub fn export_mpi(
    model: &Path,
    args: &SimArgs,
    plan: MpiPlan,
    library: liquid_mpi::RuntimeModel,
    out: &Path,
) -> anyhow::Result<ExitCode> {
    if !(library.envelope.is_finite() && library.envelope >= 0.0) {
        return Err(InputError(format!(
            "--envelope {}: bytes per message, a number >= 0",
            library.envelope
        ))
        .into());
    }
    let kind = match plan {
        MpiPlan::Schedule => None,
        MpiPlan::AllAtOnce => Some(PlanKind::Schedule(ScheduleMode::AllAtOnce)),
        MpiPlan::RoundRobin => Some(PlanKind::RoundRobin),
        MpiPlan::Pairwise => Some(PlanKind::Pairwise),
        MpiPlan::Lg => Some(PlanKind::Lg),
        MpiPlan::LgLiquid => Some(PlanKind::LgLiquid),
    };
    let written = liquid_study::simulate::export_mpi(
        model,
        args,
        kind,
        library,
        out,
        &crate::progress::solve,
    )?;
    emit(&written, Format::Yaml)?;
    Ok(ExitCode::SUCCESS)
}

/// `liquid compare DIR [--report FILE]`.
pub fn compare_mpi(dir: &Path, report: Option<&Path>, format: Format) -> anyhow::Result<ExitCode> {
    let manifest = liquid_mpi::Manifest::read(&dir.join("manifest.json")).map_err(mpi_error)?;
    let path = report.map_or_else(|| dir.join("report.json"), Path::to_path_buf);
    let run = liquid_mpi::RunReport::read(&path).map_err(mpi_error)?;
    let c = liquid_mpi::compare(&manifest, &run, &path.display().to_string()).map_err(mpi_error)?;
    emit(&c, format)?;
    Ok(if c.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_REJECTED)
    })
}
