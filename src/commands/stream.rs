//! `--stream`: `analyze`, `solve` and `verify` of structured traffics too large to hold
//! (fat-tree:32,3 and fat-tree:64,3, multi-cluster systems of 8,192 nodes, dragonflies,
//! Dragonfly+, rail-optimised fat-trees and HyperX of 16,000 hosts and more), through
//! `liquid_stream`, one frame at a time.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use crate::output::{emit, emitted, verdict, Format};
use crate::{InputError, EXIT_INTERNAL};

fn model(arg: &Path) -> anyhow::Result<liquid_stream::Model> {
    let s = arg.to_str().unwrap_or_default();
    liquid_stream::model(s).map_err(InputError::of)
}

/// A library error: a file that cannot be read or written, a malformed one, a bad model
/// are the user's input (exit 2).
fn input(e: liquid_stream::StreamError) -> anyhow::Error {
    match e {
        liquid_stream::StreamError::Unstable(_) => anyhow::anyhow!(e),
        e => InputError::of(e),
    }
}

/// `liquid analyze MODEL --stream`.
pub fn analyze_stream(
    arg: &Path,
    link_throughput: Option<f64>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let tree = model(arg)?;
    emitted(
        &liquid_stream::analysis::analyze_model(&tree, link_throughput),
        format,
    )
}

/// `liquid solve MODEL --stream [--schedule-out FILE] [--prefix K]`.
pub fn solve_stream(
    arg: &Path,
    out: Option<&Path>,
    prefix: Option<usize>,
    time_limit: Option<Duration>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let tree = model(arg)?;
    let options = liquid_stream::SolveOptions {
        out,
        prefix,
        time_limit,
        mpi: None,
    };
    let label = format!("{} (streamed)", liquid_stream::Structured::spec(&tree));
    let solved = crate::progress::with_progress_as(&label, liquid_engine::Counts::Transfers, |p| {
        liquid_stream::solve(&tree, &options, p)
    })
    .map_err(input)?;
    match solved {
        Ok(report) => {
            emit(&report, format)?;
            // Stopped by the time limit (not by --prefix): said on stderr too, as
            // `simulate` and `teams` say it (exit 0; stdout is the report alone).
            let want = prefix.map_or(report.frames, |p| report.frames.min(p as u64));
            if report.stopped.is_some() && report.frames_made < want {
                let limit = time_limit.unwrap_or(liquid_stream::DEFAULT_TIME_LIMIT);
                eprintln!(
                    "warning: the time limit ({} s) stopped the streamed construction after \
                     {} of {} frames: verdict unknown, frames {} to {} not made or validated; \
                     raise --time-limit",
                    limit.as_secs_f64(),
                    report.frames_made,
                    report.frames,
                    report.frames_made + 1,
                    report.frames
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err((rejection, report)) => {
            emit(&report, format)?;
            eprintln!("internal error: the streamed frames are not a valid schedule: {rejection}");
            Ok(ExitCode::from(EXIT_INTERNAL))
        }
    }
}

/// `liquid verify MODEL SCHEDULE --stream [--prefix K]`.
pub fn verify_stream(
    arg: &Path,
    schedule: &Path,
    prefix: Option<u64>,
    time_limit: Option<Duration>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let tree = model(arg)?;
    let options = liquid_stream::VerifyOptions { prefix, time_limit };
    let label = format!("verifying {}", schedule.display());
    let report = crate::progress::with_progress_as(&label, liquid_engine::Counts::Transfers, |p| {
        liquid_stream::verify_file(&tree, schedule, &options, p)
    })
    .map_err(input)?;
    emit(&report, format)?;
    if report
        .report
        .as_ref()
        .is_some_and(|r| r.loads_match_closed_form == Some(false))
    {
        eprintln!("internal error: the counted loads differ from the closed form's");
        return Ok(ExitCode::from(EXIT_INTERNAL));
    }
    if !report.problems.is_empty() {
        eprintln!("rejected: the schedule is invalid (its problems are listed)");
    }
    if let (None, Some(why)) = (report.valid, &report.stopped) {
        // Not valid, not rejected: exit 1 as `prove` and `verify --proof` when their
        // limit came first, so that `verify && run` does not run an unchecked schedule.
        eprintln!(
            "warning: {why}, with no problem in them; the rest is unchecked (valid: null); \
             raise --time-limit, or check a prefix with --prefix"
        );
    }
    Ok(verdict(report.valid == Some(true)))
}

/// `liquid export mpi MODEL --stream --out DIR`: the streamed schedule's MPI plan.
pub fn export_mpi_stream(
    arg: &Path,
    args: &liquid_study::simulate::SimArgs,
    plan: super::MpiPlan,
    library: liquid_mpi::RuntimeModel,
    out: &Path,
) -> anyhow::Result<ExitCode> {
    let tree = model(arg)?;
    let options = liquid_stream::mpi::options_from(
        &tree,
        &liquid_stream::mpi::Asked {
            dir: out,
            plan_is_schedule: plan == super::MpiPlan::Schedule,
            frames_mode: args.mode == liquid_sim::Mode::Frames,
            schedule_or_engine: args.schedule.is_some() || args.engine.is_some(),
            sizes_file: args.sizes.is_some(),
            size: args.size,
            link_throughput: args.link_throughput,
            link_latency: args.link_latency,
            overhead: args.overhead,
            envelope: library.envelope,
            eager_limit: library.eager_limit,
        },
    )
    .map_err(input)?;
    let solve = liquid_stream::SolveOptions {
        out: None,
        prefix: None,
        time_limit: args.request.limits.time,
        mpi: Some(&options),
    };
    let dir = liquid_study::outdir::prepare(out)?;
    let label = format!(
        "{} (streamed MPI export)",
        liquid_stream::Structured::spec(&tree)
    );
    let solved = crate::progress::with_progress_as(&label, liquid_engine::Counts::Transfers, |p| {
        liquid_stream::solve(&tree, &solve, p)
    })
    .map_err(input)?;
    match solved {
        Ok(mut report) if report.mpi.is_some() => {
            dir.finish()?;
            if let Some(mpi) = report.mpi.as_mut() {
                // For people, as `export mpi` prints it; manifest.json has it in full.
                mpi.predicted_s = crate::output::round_significant(mpi.predicted_s, 4);
            }
            emitted(&report, Format::Yaml)
        }
        Ok(report) => {
            emit(&report, Format::Yaml)?;
            Err(InputError(format!(
                "{}: the export is incomplete ({}); give a larger --time-limit",
                out.display(),
                report.stopped.as_deref().unwrap_or("stopped")
            ))
            .into())
        }
        Err((rejection, report)) => {
            emit(&report, Format::Yaml)?;
            eprintln!("internal error: the streamed frames are not a valid schedule: {rejection}");
            Ok(ExitCode::from(EXIT_INTERNAL))
        }
    }
}
