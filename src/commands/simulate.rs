//! `liquid simulate` and `liquid export simgrid`: a schedule on the flow-level simulator,
//! and the same platform and plan for SimGrid (`liquid_study::simulate`).

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_sim::Mode;
use liquid_study::simulate;

use crate::output::{emitted, emitted_figures, Format};
use crate::SimCliArgs;

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

// `liquid simulate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    #[command(flatten)]
    sim: SimCliArgs,
    /// Draw a timeline (frames, link utilisation, throughput) into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Run an MPI library's all-to-all between the model's nodes instead of a
    /// schedule: mpi-ompi-1.1.2, mpi-ompi-4.1, mpi-mpich-3.3 (each picks its
    /// algorithm by size), or basic-linear, pairwise, pair, bruck, scattered-K; --size
    /// bytes per pair, every send eager.
    #[arg(long, value_name = "NAME", conflicts_with = "plot")]
    plan: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// The byte counts of simulate's reports, printed as integers when whole.
const BYTES: &[&str] = &["total_bytes", "bytes"];

/// `liquid simulate MODEL` (with `--plan`, an MPI library's all-to-all).
pub fn simulate(a: &SimulateArgs) -> anyhow::Result<ExitCode> {
    super::refuse_overwriting_inputs(
        &[("--plot", a.plot.as_deref())],
        &[
            ("the model file", Some(&a.model)),
            ("the --schedule file", a.sim.schedule.as_deref()),
            ("the --sizes file", a.sim.sizes.as_deref()),
        ],
    )?;
    let (model, args) = (&a.model, &a.sim.args()?);
    if a.plan.is_some() && a.sim.seed.is_some() {
        return Err(crate::InputError(
            "--plan runs an MPI library's all-to-all, which draws nothing at random: give no --seed".into(),
        )
        .into());
    }
    if a.plan.is_some() && a.sim.limits.node_limit.is_some() {
        return Err(crate::InputError(
            "--plan runs an MPI library's all-to-all, which searches nothing: give no --node-limit"
                .into(),
        )
        .into());
    }
    let label = format!("simulate {}", model.display());
    // A simulation stopped by the time limit is said on stderr too (exit 0: the report is
    // written, as an engine stopped by --time-limit answers `unknown` with exit 0).
    let stopped = match &a.plan {
        Some(plan) => {
            let report = crate::progress::with_phases(&label, |progress| {
                simulate::simulate_mpi(model, args, plan, progress)
            })?;
            emitted_figures(&report, a.format, BYTES)?;
            report.stopped()
        }
        None => {
            let plot = a.plot.as_deref();
            let solve = &crate::progress::solve;
            let report = crate::progress::with_phases(&label, |progress| {
                simulate::simulate(model, args, plot, solve, progress)
            })?;
            emitted_figures(&report, a.format, BYTES)?;
            report.stopped().map(|why| match plot {
                Some(p) => format!("{why}; no timeline drawn into {}", p.display()),
                None => why,
            })
        }
    };
    if let Some(why) = stopped {
        eprintln!("warning: {why}");
    }
    Ok(ExitCode::SUCCESS)
}

// `liquid export simgrid`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExportSimgridArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    #[command(flatten)]
    sim: SimCliArgs,
    /// Write the platform for SimGrid's ns-3 model instead: every link a one-hop route
    /// between its two ends (hosts, and the switches as routers); ns-3 routes over
    /// them itself (`--cfg=network/model:ns-3`).
    #[arg(long)]
    one_hop: bool,
    /// Output directory (created if needed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `liquid export simgrid MODEL --out DIR`.
pub fn export_simgrid(a: &ExportSimgridArgs) -> anyhow::Result<ExitCode> {
    let (args, solve) = (&a.sim.args()?, &crate::progress::solve);
    let written = simulate::export_simgrid(&a.model, args, a.one_hop, &a.out, solve)?;
    emitted(&written, Format::Yaml)
}
