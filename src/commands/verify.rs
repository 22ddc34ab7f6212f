use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use liquid_engine::report::Verification;

use crate::output::{emit, verdict, Format};

// `liquid verify`'s arguments.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    /// Schedule file (`timeframes:` as lists of transfer ids; with --stream, the compact
    /// format).
    #[arg(long, value_name = "FILE", required_unless_present = "schedule_arg")]
    schedule: Option<PathBuf>,
    /// The schedule file as a second positional argument: the spelling before
    /// --schedule, kept for one release.
    #[arg(hide = true, conflicts_with = "schedule")]
    schedule_arg: Option<PathBuf>,
    /// When the schedule is valid but not liquid, settle with SAT whether a shorter one
    /// exists, and write the evidence (an LRAT proof, or the shorter schedule) to DIR.
    /// Exit 0 only when the schedule is shown optimal: 1 when a shorter one exists or
    /// the proof was not settled (time limit, size).
    #[arg(long = "proof", alias = "prove", value_name = "DIR")]
    proof: Option<PathBuf>,
    /// Wall-clock limit for --proof (default 300 s), or for --stream (default 3600 s), in
    /// seconds; refused without either (checking a schedule searches nothing).
    #[arg(long, value_parser = super::parse_seconds)]
    time_limit: Option<Duration>,
    /// Read SCHEDULE one frame at a time (the compact format `solve --stream` writes)
    /// and check it in memory O(hosts + links), for schedules too big to load: ranges
    /// and shared links per frame, each transfer exactly once by per-host counts and
    /// random fingerprints (a wrong schedule passes with probability below 2^-90 at
    /// 65,536 hosts), Λ frames; every problem listed as without --stream (the first 20,
    /// at their byte offsets; see docs/src/large-traffics.md). MODEL: a fat-tree,
    /// multi-cluster, dragonfly, Dragonfly+, rail-optimised fat-tree or HyperX spec.
    #[arg(long, conflicts_with = "proof")]
    stream: bool,
    /// With --stream: check only the first K frames, as a prefix of a schedule (for
    /// measurements; "exactly once" and Λ need the whole schedule and are not checked:
    /// `valid: true` then says only that these frames have no problem).
    #[arg(long, value_name = "K", requires = "stream")]
    prefix: Option<u64>,
    /// With --sizes: the link throughput in MB/s for links without their own.
    #[arg(long, value_name = "MB/s", requires = "sizes")]
    link_throughput: Option<f64>,
    /// Also report the schedule's time with these message sizes (`time`): every message
    /// whole, each frame as long as its longest message, against the time bound and the
    /// frame bound (see docs/src/alltoallv.md).
    #[command(flatten)]
    sizes: super::SizesCli,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `verify`'s report with `time` when --sizes is given.
#[derive(serde::Serialize)]
struct WithTime<'a> {
    #[serde(flatten)]
    verification: &'a Verification,
    time: liquid_study::alltoallv::ScheduleTime,
}

/// `liquid verify MODEL --schedule FILE [--proof DIR]`: exit 0 when the schedule is valid,
/// 1 when it is rejected (every problem listed, a transfer name the model lacks included).
/// With `--proof`, a valid schedule that is not liquid is settled with SAT, and the exit
/// code is 0 only when it is shown optimal (with `--stream`, [`super::verify_stream`]).
pub fn verify(a: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let schedule = a
        .schedule
        .as_ref()
        .or(a.schedule_arg.as_ref())
        .ok_or_else(|| crate::InputError("a schedule is needed: --schedule FILE".into()))?;
    let sizes = a.sizes.args(a.link_throughput)?;
    if a.time_limit.is_some() && a.proof.is_none() && !a.stream {
        return Err(crate::InputError(
            "--time-limit goes with --proof or --stream: checking a schedule searches nothing, it takes no limit"
                .into(),
        )
        .into());
    }
    if a.stream {
        if sizes.is_some() {
            return Err(crate::InputError("--stream takes no --sizes".into()).into());
        }
        return super::verify_stream(&a.model, schedule, a.prefix, a.time_limit, a.format);
    }
    let limit = a.time_limit.unwrap_or(liquid_engine::DEFAULT_TIME_LIMIT);
    let deadline = Some(Instant::now() + limit);
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    let mut problems = liquid_model::Problems::new();
    let name = schedule.display().to_string();
    let schedule = liquid_model::yaml::load_schedule_listing(schedule, &traffic, &mut problems)?;
    let prove = a.proof.as_deref();
    // A spinner with the elapsed time on a terminal: with --proof, SAT may take minutes.
    let label = format!("verify {}", a.model.display());
    let report = crate::progress::with_progress_as(&label, liquid_engine::Counts::Nothing, |p| {
        Verification::new(&traffic, &schedule, problems, &name, prove, deadline, p)
    })
    .map_err(crate::commands::solve::gate_error)?;
    match (&sizes, report.valid()) {
        (Some(args), true) => {
            let frames = schedule.frame_names(&traffic);
            let time = liquid_study::alltoallv::schedule_time(&a.model, args, &frames)?;
            emit(
                &WithTime {
                    verification: &report,
                    time,
                },
                a.format,
            )?;
        }
        _ => emit(&report, a.format)?,
    }
    if let Some(dir) = prove.filter(|_| report.evidence().is_none()) {
        let why = match (report.valid(), report.optimal()) {
            (false, _) => "the schedule is invalid",
            (true, true) => "the schedule is liquid: Λ is its proof",
            (true, false) => "not settled (see `optimality`)",
        };
        super::proof::no_proof_in(dir, why)?;
    }
    if !report.valid() {
        eprintln!("rejected: the schedule is invalid (its problems are listed)");
    } else if prove.is_some() && report.not_optimal() {
        eprintln!("not optimal: a shorter valid schedule exists (exit 1)");
        return Ok(verdict(false));
    } else if prove.is_some() && !report.optimal() {
        eprintln!("not proven optimal (exit 1): see `optimality`");
        return Ok(verdict(false));
    }
    Ok(verdict(report.valid()))
}
