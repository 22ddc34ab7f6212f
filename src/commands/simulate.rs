//! `liquid simulate` and `liquid export simgrid`: a schedule on the flow-level simulator,
//! and the same platform and plan for SimGrid (`liquid_study::simulate`).

use std::path::Path;
use std::process::ExitCode;

use liquid_sim::Mode;
use liquid_study::simulate::SimArgs;

use crate::output::{emit, Format};

/// How a schedule is run (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SimMode {
    /// Timeframe by timeframe, a barrier between frames (as 003 ran liquid schedules).
    Frames,
    /// Each sender moves to its next transfer when its previous one ends; no barrier.
    Async,
    /// Every transfer posted at time 0 (a topology-unaware MPI all-to-all).
    AllAtOnce,
}

impl SimMode {
    /// The simulator's mode.
    pub fn mode(self) -> Mode {
        match self {
            SimMode::Frames => Mode::Frames,
            SimMode::Async => Mode::Async,
            SimMode::AllAtOnce => Mode::AllAtOnce,
        }
    }
}

/// `liquid simulate MODEL`.
pub fn simulate(
    model: &Path,
    args: &SimArgs,
    plot: Option<&Path>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let report = liquid_study::simulate::simulate(model, args, plot, &crate::progress::solve)?;
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}

/// `liquid simulate MODEL --plan NAME`.
pub fn simulate_mpi(
    model: &Path,
    args: &SimArgs,
    plan: &str,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let report = liquid_study::simulate::simulate_mpi(model, args, plan)?;
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}

/// `liquid export simgrid MODEL --out DIR`.
pub fn export_simgrid(
    model: &Path,
    args: &SimArgs,
    one_hop: bool,
    out: &Path,
) -> anyhow::Result<ExitCode> {
    let written =
        liquid_study::simulate::export_simgrid(model, args, one_hop, out, &crate::progress::solve)?;
    emit(&written, Format::Yaml)?;
    Ok(ExitCode::SUCCESS)
}
