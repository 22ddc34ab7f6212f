//! `liquid testbed t1` and `liquid merge`: the Swiss-T1 sweep and the shards' merge
//! (`liquid_study::testbed`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use liquid_study::testbed::{self, Shard, SimParams, Sweep};
use liquid_study::StudyError;

use crate::output::{emit, emitted, Format};
use crate::EXIT_INTERNAL;

// `liquid testbed t1`'s arguments.
#[derive(Debug, clap::Args)]
pub struct T1Args {
    /// Output directory (new or empty, or one liquid wrote, whose earlier files are
    /// replaced; with --shard, the shard folder).
    #[arg(long, default_value = "t1-testbed")]
    out: PathBuf,
    /// Run only shard i of n (1 <= i <= n; classes i, i+n, ...), writing
    /// DIR/t1-testbed-shard-i-of-n.json; join the shards with `liquid merge`.
    #[arg(long)]
    shard: Option<Shard>,
    /// Wall-clock limit of the native search per class, in seconds.
    #[arg(long, value_parser = super::parse_seconds, default_value = "10")]
    time_limit: Duration,
    /// Worker threads, 1 to 4096 (default: one per core); never more than the classes to
    /// run.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    jobs: Option<u64>,
    /// Also simulate each class (liquid schedule and round-robin frame by frame, and
    /// all-at-once) with messages of this many bytes: writes DIR/t1-simulated.csv.
    #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
    sim_size: Option<u64>,
    /// Link latency in seconds for --sim-size.
    #[arg(long, default_value_t = 0.0, requires = "sim_size")]
    sim_latency: f64,
    /// Per-message software overhead in seconds for --sim-size.
    #[arg(long, default_value_t = 0.0, requires = "sim_size")]
    sim_overhead: f64,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid testbed t1`: the summary on stdout, or (one shard) what was written on stderr;
/// exit 3 when a class fails.
pub fn testbed_t1(a: &T1Args) -> anyhow::Result<ExitCode> {
    let sim = a.sim_size.map(|size| SimParams {
        // Exact: at most 2^53 (liquid_alltoallv::sizes::MAX_BYTES).
        size: size as f64,
        latency: a.sim_latency,
        overhead: a.sim_overhead,
    });
    let shard = a.shard;
    let classes = liquid_topology::t1::classes().len();
    let todo = shard.map_or(classes, |s| s.items(classes).count());
    if let Some(j) = a.jobs {
        testbed::set_workers((j as usize).min(todo))?;
    }
    let pb = crate::progress::bar(
        todo as u64,
        "{elapsed_precise} [{bar:40}] {pos}/{len} classes {msg}",
    );
    let sweep = testbed::t1(&a.out, shard, a.time_limit, sim, &|| pb.inc(1));
    pb.finish_and_clear();
    match sweep {
        Err(StudyError::Internal(e)) => {
            eprintln!("internal error: {e}");
            Ok(ExitCode::from(EXIT_INTERNAL))
        }
        Err(e) => Err(e.into()),
        Ok(Sweep::Full(summary)) => emitted(&summary, a.format),
        Ok(Sweep::Shard {
            file,
            rows,
            classes,
        }) => {
            eprintln!(
                "wrote {} ({rows} of {classes} classes); join the shards with `liquid merge`",
                file.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

// `liquid merge`'s arguments.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard files, or folders holding them (their *-shard-*-of-*.json files).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Output directory, as the sweep's own --out (new or empty, or one liquid wrote, whose
    /// earlier files are replaced); needed by the sweeps that write files (testbed,
    /// latency, two-clusters, routing); not needed by crosscheck and explain shards, whose
    /// unsharded runs only print (given, it is left empty, with a warning).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Summary format (default yaml; crosscheck and explain shards: the format their run
    /// was given, unless this option is).
    #[arg(long, value_enum)]
    format: Option<Format>,
}

/// `liquid merge SHARDS... --out DIR`: any sweep's shards, joined.
pub fn merge(a: &MergeArgs) -> anyhow::Result<ExitCode> {
    let format = a.format.unwrap_or(Format::Yaml);
    // The format a crosscheck or explain run recorded, unless --format is given.
    let chosen = |recorded: String| {
        a.format
            .map_or(recorded, |f| crate::output::format_name(&f))
    };
    let merged = liquid_study::merge::merge(&a.shards, a.out.as_deref())?;
    if let (
        Some(out),
        liquid_study::merge::Merged::Crosscheck(..) | liquid_study::merge::Merged::Explain(..),
    ) = (&a.out, &merged)
    {
        eprintln!(
            "warning: --out {}: crosscheck and explain shards merge into the printed report \
             only, as their unsharded runs write no file; nothing is written there",
            out.display()
        );
    }
    match merged {
        liquid_study::merge::Merged::Testbed(summary) => emit(&summary, format)?,
        liquid_study::merge::Merged::Latency(studied) => {
            crate::output::print(&studied.table)?;
            if let Some(cut) = studied.cut {
                eprintln!(
                    "warning: the shards' time limits cut {} of {} loads: the report covers \
                     the loads simulated",
                    cut.owned - cut.simulated,
                    cut.owned
                );
            }
        }
        liquid_study::merge::Merged::Crosscheck(report, recorded) => {
            return super::crosscheck::crosscheck_merged(&report, &chosen(recorded));
        }
        liquid_study::merge::Merged::TwoClusters(summary) => {
            return super::study::emitted(&summary, format);
        }
        liquid_study::merge::Merged::Explain(reports, recorded) => {
            super::explain::emit_many(&reports, &chosen(recorded))?
        }
        liquid_study::merge::Merged::Routing(summary) => {
            return super::study::routing_emitted(&summary, format);
        }
    }
    Ok(ExitCode::SUCCESS)
}
