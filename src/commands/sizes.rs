//! The sizes arguments of `analyze` and `solve` (`--sizes FILE` and what goes with it),
//! `liquid solve --sizes` and `liquid generate sizes`: unequal messages
//! (`liquid_study::alltoallv`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use liquid_study::alltoallv::{Preemption, SizesArgs, SolveOptions};

use crate::output::Format;
use crate::InputError;

/// Parses a byte count (`4096`, `64KiB`, `1MB`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    liquid_alltoallv::sizes::parse_byte_count(s)
}

/// `--sizes FILE` and the platform's parameters, shared by `analyze` and `solve`.
#[derive(Debug, Clone, clap::Args)]
pub struct SizesCli {
    /// Message sizes per pair: a CSV `src,dst,bytes` (header optional; hosts by name or by
    /// index in the order the model's transfers first name them, the ranks of
    /// `export mpi`'s ranks.txt) or a YAML mapping `transfer id:
    /// bytes`; positive whole bytes, each pair once. A pair of the traffic the file leaves
    /// out is an error unless --size is given. Reports the time bound (analyze) and
    /// schedules for these sizes (solve: every phase within --time-limit, default 10 s
    /// here, progress on stderr). See docs/src/alltoallv.md.
    #[arg(long, value_name = "FILE")]
    pub sizes: Option<PathBuf>,
    /// With --sizes: the bytes of every pair the file leaves out (`4096`, `64KiB`).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, requires = "sizes")]
    pub size: Option<u64>,
    /// With --sizes: software overhead per message (per piece), in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0.0,
        requires = "sizes"
    )]
    pub overhead: f64,
    /// With --sizes: link latency in seconds for links without their own.
    #[arg(long, value_name = "SECONDS", requires = "sizes")]
    pub link_latency: Option<f64>,
}

impl SizesCli {
    /// The library's arguments, when --sizes is given.
    pub fn args(&self, link_throughput: Option<f64>) -> anyhow::Result<Option<SizesArgs>> {
        Ok(self.sizes.as_ref().map(|s| SizesArgs {
            sizes: s.clone(),
            size: self.size,
            overhead: self.overhead,
            link_throughput,
            link_latency: self.link_latency,
        }))
    }
}

/// Which schedules `solve --sizes` makes (`--preemption`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PreemptionArg {
    /// Messages cut into pieces of --quantum bytes (preemptive).
    Chunks,
    /// Every message whole, in timeframes of unequal length (non-preemptive).
    None,
    /// Both, and how far apart they are.
    Both,
}

/// The options of `solve` that only `--sizes` takes.
#[derive(Debug, Clone, clap::Args)]
pub struct SizesSolveCli {
    /// With --sizes: bytes per piece (`64KiB`); default: the candidate quantum (powers of
    /// two from 1 KiB to the largest message, and the largest message) with the lowest
    /// predicted makespan, given --overhead, among those that cut the messages into at
    /// most --max-pieces pieces each on average: the makespan of its first-fit schedule
    /// (above 100,000 messages, or past the time limit, that of a liquid schedule of its
    /// pieces). At most 4,194,304 pieces in all. Not with --preemption none, which cuts
    /// nothing.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, requires = "sizes")]
    pub quantum: Option<u64>,
    /// With --sizes and the default quantum: at most this many pieces per message on
    /// average (default 64); not with --quantum or --preemption none, where it would
    /// change nothing.
    #[arg(long, value_name = "N", requires = "sizes")]
    pub max_pieces: Option<u64>,
    /// With --sizes: preemptive schedules by chunks, non-preemptive ones (every message
    /// whole), or both.
    #[arg(long, value_enum, default_value_t = PreemptionArg::Both, requires = "sizes")]
    pub preemption: PreemptionArg,
    /// With --sizes: the exact ILP (HiGHS) of the non-preemptive schedule runs on traffics
    /// of at most this many messages (default 64), within --time-limit (default 10 s
    /// here); not with --preemption chunks, which makes no non-preemptive schedule.
    #[arg(long, value_name = "N", requires = "sizes")]
    pub exact_max: Option<usize>,
    /// With --sizes: also run the schedules on the flow-level simulator (frame by frame)
    /// and report their simulated makespans, within --time-limit (a simulation it stops
    /// is null, and cut_by_time_limit says where).
    #[arg(long, requires = "sizes")]
    pub simulate: bool,
    /// With --sizes: let a link carry as many messages per frame as it has lanes, its
    /// throughput over the fastest route rate among its users (two-clusters' backbone:
    /// 10), instead of one (004's model). The schedules are then checked lane by lane;
    /// a --schedule-out file is not a schedule `liquid verify` accepts.
    #[arg(long, requires = "sizes")]
    pub lanes: bool,
    /// With --sizes: write the schedule of pieces to this file (YAML: quantum, then the
    /// timeframes of pieces `ID#k`); --schedule-out writes the non-preemptive one.
    #[arg(long, value_name = "FILE", requires = "sizes")]
    pub pieces_out: Option<PathBuf>,
}

/// `--max-pieces`'s default: pieces per message on average.
const DEFAULT_MAX_PIECES: u64 = 64;
/// `--exact-max`'s default: the most messages the exact ILP runs on.
const DEFAULT_EXACT_MAX: usize = 64;

/// Refuses the options of `solve --sizes` that the other options make change nothing, as
/// `--pieces-out` with `--preemption none` is: nothing a user gives is silently dropped.
fn refuse_unused_options(s: &SizesSolveCli) -> anyhow::Result<()> {
    let refuse = |msg: &str| Err(InputError(msg.into()).into());
    if s.preemption == PreemptionArg::None {
        if s.quantum.is_some() {
            return refuse("--quantum needs --preemption chunks or both: --preemption none cuts no message into pieces");
        }
        if s.max_pieces.is_some() {
            return refuse("--max-pieces needs --preemption chunks or both: --preemption none cuts no message into pieces");
        }
    }
    if s.preemption == PreemptionArg::Chunks && s.exact_max.is_some() {
        return refuse("--exact-max needs --preemption none or both: --preemption chunks runs no exact ILP of whole messages");
    }
    if s.quantum.is_some() && s.max_pieces.is_some() {
        return refuse(
            "--max-pieces goes without --quantum: it bounds the pieces of the default quantum only",
        );
    }
    Ok(())
}

/// `liquid solve MODEL --sizes FILE`.
#[allow(clippy::too_many_arguments)]
pub fn solve_sizes(
    model: &std::path::Path,
    args: &SizesArgs,
    s: &SizesSolveCli,
    engine: Option<&'static dyn liquid_engine::Engine>,
    request: liquid_engine::Request,
    time_limit_given: bool,
    schedule_out: Option<&std::path::Path>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let mut request = request;
    if !time_limit_given {
        // The ILP's and the pieces' engine's default limit here.
        request.limits.time = Some(std::time::Duration::from_secs(10));
    }
    refuse_unused_options(s)?;
    let o = SolveOptions {
        quantum: s.quantum,
        max_pieces_per_message: s.max_pieces.unwrap_or(DEFAULT_MAX_PIECES).max(1),
        preemption: match s.preemption {
            PreemptionArg::Chunks => Preemption::Chunks,
            PreemptionArg::None => Preemption::Whole,
            PreemptionArg::Both => Preemption::Both,
        },
        engine,
        request,
        exact_max: s.exact_max.unwrap_or(DEFAULT_EXACT_MAX),
        simulate: s.simulate,
        lanes: s.lanes,
        frame_barrier: None,
    };
    if schedule_out.is_some() && o.preemption == Preemption::Chunks {
        return Err(InputError(
            "--schedule-out writes the non-preemptive schedule: use --pieces-out for the \
             schedule of pieces, or --preemption none or both"
                .into(),
        )
        .into());
    }
    if s.pieces_out.is_some() && o.preemption == Preemption::Whole {
        return Err(InputError("--pieces-out needs --preemption chunks or both".into()).into());
    }
    let label = format!("solve {} --sizes", model.display());
    let solved = crate::progress::with_phases(&label, |phase| {
        liquid_study::alltoallv::solve(model, args, &o, &liquid_study::quietly, phase)
    })?;
    let traffic = &solved.loaded.traffic;
    if let (Some(path), Some(w)) = (schedule_out, &solved.whole) {
        std::fs::write(path, liquid_model::yaml::write_schedule(traffic, w))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let (Some(path), Some(c)) = (&s.pieces_out, &solved.chunked) {
        std::fs::write(path, liquid_study::alltoallv::pieces_yaml(traffic, c))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    crate::output::emit_figures(&solved.report, format, &[])?;
    // Said on stderr too, as `solve` without sizes says it (exit unchanged).
    let cut = solved.report.cut_by_time_limit();
    if let Some(first) = cut.first() {
        eprintln!(
            "warning: the time limit cut {} part{} of the run short (first: {first}); the \
             report gives the best validated schedules made before it; raise --time-limit",
            cut.len(),
            if cut.len() == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `liquid generate sizes`'s distributions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DistArg {
    /// Every destination the same share.
    Equal,
    /// Each pair's weight uniform in (0, 1], seeded.
    Uniform,
    /// Zipf over destinations (hot experts): weight 1/r^s for the destination of
    /// popularity rank r, in a seeded popularity order shared by all senders (--zipf-s).
    Zipf,
    /// One hot expert: 1 byte to each destination, the rest of each sender's bytes to
    /// its most popular one.
    OneHot,
    /// A given rank-by-rank matrix (--matrix FILE): row i, column j = bytes from host i
    /// to host j.
    Matrix,
}

/// `liquid generate sizes`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateSizesArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    pub model: PathBuf,
    /// How each rank's bytes spread over its destinations.
    #[arg(long, value_enum)]
    pub dist: DistArg,
    /// Zipf's exponent s (with --dist zipf only; default 1).
    #[arg(long, value_name = "S")]
    pub zipf_s: Option<f64>,
    /// Bytes each rank sends in all (a byte count such as `1KiB` or `64MiB`), split over its destinations: 1
    /// byte each, the rest by the distribution's weights, to whole bytes by largest
    /// remainder (a rank with more destinations than bytes sends 1 byte to each, with a
    /// warning); not with --dist matrix.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub bytes_per_rank: Option<u64>,
    /// With --dist matrix: the matrix, one row per sender (hosts in order of first
    /// appearance in the model), whole bytes separated by commas or spaces.
    #[arg(long, value_name = "FILE")]
    pub matrix: Option<PathBuf>,
    /// Seed of the draws (default 0): the uniform weights, the popularity order of zipf
    /// and one-hot; refused with equal and matrix, which draw nothing.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the CSV to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `liquid generate sizes MODEL --dist D ...`: a `src,dst,bytes` CSV.
pub fn generate_sizes(a: &GenerateSizesArgs) -> anyhow::Result<ExitCode> {
    use clap::ValueEnum;
    // The CLI's spelling of the distribution (`one-hot`), for messages.
    let name = a
        .dist
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string());
    if a.zipf_s.is_some() && a.dist != DistArg::Zipf {
        return Err(
            InputError(format!("--zipf-s goes with --dist zipf, not --dist {name}")).into(),
        );
    }
    if a.seed.is_some() && matches!(a.dist, DistArg::Equal | DistArg::Matrix) {
        return Err(InputError(format!(
            "--seed: --dist {name} draws nothing at random (the same sizes for every seed); \
             the distributions that take a seed: uniform, zipf, one-hot"
        ))
        .into());
    }
    super::refuse_overwriting_inputs(
        &[("--out", a.out.as_deref())],
        &[
            ("the model file", Some(&a.model)),
            ("the --matrix file", a.matrix.as_deref()),
        ],
    )?;
    use liquid_alltoallv::generate::Dist;
    let dist = match (a.dist, &a.matrix, a.bytes_per_rank) {
        (DistArg::Matrix, Some(path), None) => {
            let text = liquid_model::yaml::read_text(path)?;
            Dist::Matrix(liquid_alltoallv::generate::parse_matrix(
                &path.display().to_string(),
                &text,
            )?)
        }
        (DistArg::Matrix, _, _) => {
            return Err(InputError(
                "--dist matrix takes --matrix FILE and no --bytes-per-rank".into(),
            )
            .into())
        }
        (_, Some(_), _) => {
            return Err(InputError("--matrix goes with --dist matrix".into()).into());
        }
        (_, None, None) => {
            return Err(InputError(format!("--dist {name} needs --bytes-per-rank BYTES")).into());
        }
        (DistArg::Equal, ..) => Dist::Equal,
        (DistArg::Uniform, ..) => Dist::Uniform,
        (DistArg::Zipf, ..) => Dist::Zipf(a.zipf_s.unwrap_or(1.0)),
        (DistArg::OneHot, ..) => Dist::OneHot,
    };
    let seed = a.seed.unwrap_or_default();
    let bytes_per_rank = a.bytes_per_rank.unwrap_or(0);
    let (csv, short) = liquid_study::alltoallv::generate(&a.model, &dist, bytes_per_rank, seed)?;
    if short > 0 {
        eprintln!(
            "warning: {short} ranks have more destinations than --bytes-per-rank \
             {bytes_per_rank}: each sends 1 byte to each destination (every message has at \
             least 1), more than {bytes_per_rank} bytes in all"
        );
    }
    match &a.out {
        Some(path) => {
            std::fs::write(path, csv).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => crate::output::print(&csv)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `liquid export mpi MODEL --sizes FILE --plan pieces|whole`: every pair of the traffic
/// must have its size in the file (`--size` is not a default here).
pub fn export_mpi_sizes(
    model: &std::path::Path,
    sim: &crate::SimCliArgs,
    plan: super::MpiPlan,
    quantum: Option<u64>,
    lanes: bool,
    library: liquid_mpi::RuntimeModel,
    out: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let Some(sizes) = &sim.sizes else {
        return Err(InputError("--plan pieces and whole need --sizes FILE".into()).into());
    };
    if sim.schedule.is_some() {
        return Err(InputError(
            "--plan pieces and whole make their own schedule: give no --schedule".into(),
        )
        .into());
    }
    let mode = match sim.mode {
        super::SimMode::Frames => liquid_mpi::program::ScheduleMode::Frames,
        super::SimMode::Async => liquid_mpi::program::ScheduleMode::Async,
        super::SimMode::AllAtOnce => {
            return Err(InputError(
                "--plan pieces and whole run frame by frame (--mode frames) or without \
                 barriers (--mode async); every message at once is --plan all-at-once"
                    .into(),
            )
            .into())
        }
    };
    if quantum.is_some() && plan == super::MpiPlan::Whole {
        return Err(InputError("--quantum goes with --plan pieces".into()).into());
    }
    let args = SizesArgs {
        sizes: sizes.clone(),
        size: sim.size,
        overhead: sim.overhead,
        link_throughput: sim.link_throughput,
        link_latency: sim.link_latency,
    };
    let engine = sim.engine.as_deref().map(super::engine).transpose()?;
    // The schedule within the limit given, else solve --sizes's default; the whole command
    // (the prediction too) within the limit given, else export mpi's default.
    let mut limits = sim.limits.limits();
    let command = limits.time.unwrap_or(liquid_engine::DEFAULT_TIME_LIMIT);
    limits.time = limits
        .time
        .or(Some(liquid_study::alltoallv::DEFAULT_TIME_LIMIT));
    let o = SolveOptions {
        quantum,
        max_pieces_per_message: 64,
        preemption: if plan == super::MpiPlan::Pieces {
            Preemption::Chunks
        } else {
            Preemption::Whole
        },
        engine,
        request: liquid_engine::Request {
            limits,
            seed: sim.seed.unwrap_or_default(),
            ..Default::default()
        },
        exact_max: 64,
        simulate: false,
        lanes,
        // Frame by frame, the runtime calls MPI_Barrier between frames: each frame costs one.
        frame_barrier: (mode == liquid_mpi::program::ScheduleMode::Frames).then_some(library),
    };
    let label = format!("export mpi {} --sizes", model.display());
    let written = crate::progress::with_phases(&label, |phase| {
        liquid_study::alltoallv::export_mpi(
            model,
            &args,
            &o,
            command,
            mode,
            library,
            out,
            &liquid_study::quietly,
            phase,
        )
    })?;
    super::mpi::exported(&written)
}
