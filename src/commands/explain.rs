//! `liquid explain MODEL... [--all]`: why a traffic is not liquid, as minimal non-liquid
//! cores with their certificates (the search and checks are `liquid_engine::explain`, the
//! report `liquid_engine::report::ExplainReport`; many models and their shards
//! `liquid_study::explain`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::output::{emit, format_name, format_named, Format};

// `liquid explain`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Model files or generated-model specs (see `analyze --help`); with several, the
    /// list of their reports, in order.
    #[arg(required = true)]
    models: Vec<PathBuf>,
    /// Report disjoint cores until what remains is liquid.
    #[arg(long)]
    all: bool,
    /// Wall-clock limit in seconds per model (default 60). When it comes, the smallest
    /// core found so far is reported with its checked proof, marked `minimal: false`,
    /// or none (`liquid: null`).
    #[arg(long, value_parser = super::parse_seconds)]
    time_limit: Option<Duration>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
    /// Run only shard i of n (1 <= i <= n) of the models (items i, i+n, ... in the order
    /// given), writing DIR/explain-shard-i-of-n.json into --out; `liquid merge` prints
    /// the reports of the whole run.
    #[arg(long, value_name = "I/N", requires = "out")]
    shard: Option<liquid_study::Shard>,
    /// With --shard: the folder for the shard file.
    #[arg(long, value_name = "DIR", requires = "shard")]
    out: Option<PathBuf>,
    /// Write the (first) core's checked proof into DIR, as `prove --proof DIR` does
    /// (formula.cnf, proof.lrat, manifest.yaml), with the core itself as DIR/core.yaml:
    /// `liquid check-proof DIR/core.yaml --proof DIR` and `liquid certify DIR/core.yaml
    /// --proof DIR` check it. One model only. Exit 1 when there is no core to prove (the traffic
    /// is liquid, or the time limit came before a core).
    #[arg(
        long,
        value_name = "DIR",
        alias = "proof-out",
        conflicts_with = "shard"
    )]
    proof: Option<PathBuf>,
    /// With --sizes: the link throughput in MB/s for links without their own.
    #[arg(long, value_name = "MB/s", requires = "sizes")]
    link_throughput: Option<f64>,
    /// With --sizes (one model): instead of non-liquid cores, the time bound's bottleneck
    /// link with its largest messages, and why the best schedule of whole messages (made
    /// as `solve --sizes --preemption none` does, within --time-limit, default 10 s here)
    /// exceeds the bound, if it does. See docs/src/alltoallv.md.
    #[command(flatten)]
    sizes: super::SizesCli,
}

/// Runs `explain`: one model's report, or with several models the list of their reports,
/// in order; with `--shard`, only that shard's models, into a shard file in `--out`.
pub fn explain(a: &ExplainArgs) -> anyhow::Result<ExitCode> {
    if let Some(args) = a.sizes.args(a.link_throughput)? {
        return explain_sizes(a, &args);
    }
    let (models, all, time_limit) = (&a.models, a.all, a.time_limit);
    if let (Some(shard), Some(out)) = (a.shard, &a.out) {
        let name = format_name(&a.format);
        let written = liquid_study::explain::shard(models, all, time_limit, shard, &name, out)?;
        eprintln!("{written}");
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(dir) = &a.proof {
        let [one] = &models[..] else {
            return Err(crate::InputError(
                "explain --proof DIR takes one model (its core's proof goes into DIR)".into(),
            )
            .into());
        };
        let label = format!("explain {}", one.display());
        let report =
            crate::progress::with_progress_as(&label, liquid_engine::Counts::Nothing, |p| {
                liquid_study::explain::one_with_proof(one, all, time_limit, dir, p)
            })?;
        emit(&report, a.format)?;
        warn_stopped(std::slice::from_ref(&report));
        if !report.non_liquid() {
            super::proof::no_proof_in(dir, "no core was found (see `explanation`)")?;
            return Ok(crate::output::verdict(false));
        }
        let core = dir.join(liquid_engine::explain::CORE_FILE);
        eprintln!(
            "the core's checked proof is in {}; check it with: liquid check-proof {} --proof {}",
            dir.display(),
            core.display(),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // A spinner with the elapsed time on a terminal: the search may take the whole limit.
    match &models[..] {
        [one] => {
            let label = format!("explain {}", one.display());
            let report =
                crate::progress::with_progress_as(&label, liquid_engine::Counts::Nothing, |p| {
                    liquid_study::explain::one(one, all, time_limit, p)
                })?;
            emit(&report, a.format)?;
            warn_stopped(std::slice::from_ref(&report));
            Ok(ExitCode::SUCCESS)
        }
        many => {
            let label = format!("explain ({} models)", many.len());
            let reports =
                crate::progress::with_progress_as(&label, liquid_engine::Counts::Nothing, |p| {
                    liquid_study::explain::run(many, all, time_limit, p)
                })?;
            emit(&reports, a.format)?;
            warn_stopped(&reports);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Says on stderr, as `solve` does, of each report the time limit stopped (exit unchanged:
/// stdout is the report alone).
fn warn_stopped(reports: &[liquid_engine::report::ExplainReport]) {
    for w in reports.iter().filter_map(|r| r.stopped_warning()) {
        eprintln!("warning: {w}");
    }
}

/// `liquid merge` of explain's shards: the reports in the run's format.
pub fn emit_many(
    reports: &[liquid_engine::report::ExplainReport],
    format: &str,
) -> anyhow::Result<()> {
    emit(&reports, format_named::<Format>("explain", format)?)
}

/// `liquid explain MODEL --sizes FILE`.
fn explain_sizes(
    a: &ExplainArgs,
    args: &liquid_study::alltoallv::SizesArgs,
) -> anyhow::Result<ExitCode> {
    let [model] = &a.models[..] else {
        return Err(crate::InputError("explain --sizes FILE takes one model".into()).into());
    };
    if a.all || a.proof.is_some() || a.shard.is_some() {
        return Err(
            crate::InputError("explain --sizes takes no --all, --proof or --shard".into()).into(),
        );
    }
    let o = liquid_study::alltoallv::SolveOptions {
        quantum: None,
        max_pieces_per_message: 64,
        preemption: liquid_study::alltoallv::Preemption::Whole,
        engine: None,
        request: liquid_engine::Request {
            limits: liquid_model::Limits {
                time: a.time_limit.or(Some(Duration::from_secs(10))),
                nodes: None,
            },
            ..Default::default()
        },
        exact_max: 64,
        simulate: false,
        lanes: false,
        frame_barrier: None,
    };
    let label = format!("explain {} --sizes", model.display());
    let report = crate::progress::with_phases(&label, |phase| {
        liquid_study::alltoallv::explain(model, args, &o, phase)
    })?;
    crate::output::emitted_figures(&report, a.format, &[])
}
