//! `liquid export mpi` (a plan for the MPI runtime of `crates/mpi`) and `liquid compare`
//! (a run's report beside liquid's prediction).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use liquid_mpi::program::ScheduleMode;
use liquid_mpi::{MpiError, PlanKind};

use crate::output::{emit, emitted, verdict, Format};
use crate::{InputError, SimCliArgs};

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
    /// Unequal messages (--sizes): the preemptive schedule of `solve --sizes`, messages
    /// cut into pieces of --quantum bytes, frame by frame (--mode async: no barrier, each
    /// rank's pieces in frame order, each a synchronous send); the receiver reassembles
    /// them.
    Pieces,
    /// Unequal messages (--sizes): the non-preemptive schedule of `solve --sizes`, every
    /// message whole, frames of unequal length (--mode async: no barrier, as for pieces).
    Whole,
}

fn mpi_error(e: MpiError) -> anyhow::Error {
    match e {
        MpiError::Input(_) | MpiError::Report { .. } | MpiError::Io { .. } => InputError::of(e),
        other => anyhow::anyhow!("{other}"),
    }
}

// `liquid export mpi`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExportMpiArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    #[command(flatten)]
    sim: SimCliArgs,
    /// The plan: the schedule in --mode, all-at-once, round-robin, pairwise, or 001's
    /// LG (two-clusters models).
    #[arg(long, value_enum, default_value_t = MpiPlan::Schedule)]
    plan: MpiPlan,
    /// Bytes the MPI library adds to every message, in the prediction (SimGrid SMPI:
    /// 16). The prediction runs the plan as the runtime does: every rank's operations
    /// in order, and MPI_Barrier as SMPI's default basic linear barrier.
    /// Whole bytes, with units as --size (`16`, `1KiB`).
    #[arg(long, value_name = "BYTES", default_value = "0", value_parser = bytes_or_zero)]
    envelope: u64,
    /// Sends below this many bytes complete when posted (eager), in the prediction
    /// (SMPI's smpi/send-is-detached-thresh and Open MPI's TCP eager limit: 65536). Whole
    /// bytes, with units as --size (`64KiB`).
    #[arg(long, value_name = "BYTES", default_value = "65536", value_parser = bytes_or_zero)]
    eager_limit: u64,
    /// In the prediction, messages share a link in inverse proportion to their route
    /// latency: TCP's RTT unfairness as SimGrid's CM02 network model (SMPI's) has it. A
    /// route without latency weighs as 1 s, as in CM02 (the least share beside routes of
    /// any smaller latency). Default: max-min, every message the same share.
    #[arg(long)]
    rtt_unfair: bool,
    /// Output directory (created if needed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write the streamed liquid schedule of a fat-tree all-to-all (`fat-tree:M,N`,
    /// up to 65,536 hosts), a multi-cluster system or a dragonfly frame by frame, validated as it
    /// goes, in memory O(hosts + links): --mode frames, --size for every transfer, a
    /// closed-form prediction with the runtime's barriers.
    /// Default --time-limit: 3600 s. See crates/stream/README.md.
    #[arg(long)]
    stream: bool,
    /// With --plan pieces: bytes per piece (`64KiB`); default: chosen from --overhead as
    /// `solve --sizes` chooses it, every frame also paying the runtime's barrier in --mode
    /// frames (liquid's prediction of one barrier, said in the manifest's `source`); in
    /// --mode async, the candidate with the lowest prediction of its run without barriers
    /// (every candidate's run predicted, within --time-limit, listed in `source`).
    #[arg(long, value_name = "BYTES", value_parser = super::sizes::parse_bytes)]
    quantum: Option<u64>,
    /// With --plan pieces or whole: links carry as many messages per frame as they have
    /// lanes (see `solve --lanes`).
    #[arg(long)]
    lanes: bool,
}

/// `--envelope` and `--eager-limit`: whole bytes with units, 0 allowed (no envelope; no
/// eager send).
fn bytes_or_zero(s: &str) -> Result<u64, String> {
    if s.trim() == "0" {
        return Ok(0);
    }
    super::parse_bytes(s)
}

/// Prints what `export mpi` wrote; a prediction stopped by the time limit is also said on
/// stderr (exit 0: the program is written, as an engine stopped by --time-limit answers
/// `unknown` with exit 0).
pub(crate) fn exported(written: &liquid_mpi::Exported) -> anyhow::Result<ExitCode> {
    if let Some(why) = &written.stopped {
        eprintln!("warning: {why}");
    }
    if let Some(n) = written.control_without_route {
        eprintln!(
            "warning: {n} rank pairs that the runtime's barriers and rendezvous \
             acknowledgements use have no route in the model (its traffic has no transfer \
             between them): the prediction counts their messages as free \
             (`control_without_route`)"
        );
    }
    emitted(written, Format::Yaml)
}

/// `liquid export mpi MODEL --out DIR` (with `--stream`, [`super::export_mpi_stream`]).
pub fn export_mpi(a: &ExportMpiArgs) -> anyhow::Result<ExitCode> {
    let (model, plan, out, args) = (&a.model, a.plan, &a.out, &a.sim.args()?);
    let library = liquid_mpi::RuntimeModel {
        // Exact: at most 2^53 (parse_bytes).
        envelope: a.envelope as f64,
        eager_limit: a.eager_limit,
        rtt_unfair: a.rtt_unfair,
    };
    if a.stream && a.rtt_unfair {
        return Err(InputError(
            "--rtt-unfair goes without --stream (the streamed prediction is in closed form, max-min only)".into(),
        )
        .into());
    }
    if a.stream {
        return super::export_mpi_stream(model, args, plan, library, out);
    }
    if matches!(plan, MpiPlan::Pieces | MpiPlan::Whole) {
        return super::sizes::export_mpi_sizes(
            &a.model, &a.sim, plan, a.quantum, a.lanes, library, out,
        );
    }
    if matches!(plan, MpiPlan::RoundRobin | MpiPlan::Pairwise | MpiPlan::Lg) && a.sim.seed.is_some()
    {
        return Err(InputError(
            "--plan round-robin, pairwise and lg run no engine, which draws nothing at random: give no --seed"
                .into(),
        )
        .into());
    }
    if matches!(plan, MpiPlan::RoundRobin | MpiPlan::Pairwise | MpiPlan::Lg)
        && a.sim.limits.node_limit.is_some()
    {
        return Err(InputError(
            "--plan round-robin, pairwise and lg run no engine: give no --node-limit".into(),
        )
        .into());
    }
    if a.quantum.is_some() || a.lanes {
        return Err(
            InputError("--quantum and --lanes go with --plan pieces or whole".into()).into(),
        );
    }
    let kind = match plan {
        MpiPlan::Schedule => None,
        MpiPlan::AllAtOnce => Some(PlanKind::Schedule(ScheduleMode::AllAtOnce)),
        MpiPlan::RoundRobin => Some(PlanKind::RoundRobin),
        MpiPlan::Pairwise => Some(PlanKind::Pairwise),
        MpiPlan::Lg => Some(PlanKind::Lg),
        MpiPlan::LgLiquid => Some(PlanKind::LgLiquid),
        MpiPlan::Pieces | MpiPlan::Whole => unreachable!("handled above"),
    };
    let solve = &crate::progress::solve;
    let label = format!("export mpi {}", model.display());
    let written = crate::progress::with_phases(&label, |progress| {
        liquid_study::simulate::export_mpi(model, args, kind, library, out, solve, progress)
    })?;
    exported(&written)
}

// `liquid compare`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The directory `liquid export mpi` wrote.
    dir: PathBuf,
    /// The runtime's report (default: DIR/report.json).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Output format: YAML for people (times and ratios to 4 significant digits), JSON
    /// for machines (full precision).
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid compare DIR [--report FILE]`.
pub fn compare_mpi(a: &CompareArgs) -> anyhow::Result<ExitCode> {
    let (dir, report) = (&a.dir, a.report.as_deref());
    let manifest_path = dir.join("manifest.json");
    let manifest = liquid_mpi::Manifest::read(&manifest_path).map_err(mpi_error)?;
    let path = report.map_or_else(|| dir.join("report.json"), Path::to_path_buf);
    if report.is_none() && !path.exists() {
        return Err(InputError(format!(
            "{}: no run report yet: run the plan first ({}), which writes it there, or \
             give --report FILE",
            path.display(),
            liquid_mpi::export::run_here(manifest.ranks.len(), &dir.display().to_string())
        ))
        .into());
    }
    let run = liquid_mpi::RunReport::read(&path).map_err(mpi_error)?;
    let c = liquid_mpi::compare(
        &manifest,
        &manifest_path.display().to_string(),
        &run,
        &path.display().to_string(),
        dir,
    )
    .map_err(mpi_error)?;
    if c.misplaced_ranks > 0 {
        eprintln!("warning: {}", c.placement);
    }
    match a.format {
        // For people: 4 significant digits, whole byte counts as integers.
        Format::Yaml => {
            let value = crate::output::for_people(serde_json::to_value(&c)?, &["bytes"]);
            emit(&value, Format::Yaml)?;
        }
        // For machines: full precision.
        Format::Json => emit(&c, Format::Json)?,
    }
    Ok(verdict(c.errors == 0))
}
