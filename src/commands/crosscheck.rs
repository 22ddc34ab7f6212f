//! `liquid crosscheck`: several engines on each model, their contradictions, and the
//! comparison with a baseline (`liquid_study::crosscheck`).

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_engine::{Engine, Request};
use liquid_study::crosscheck::{self, Outcome};

use liquid_study::crosscheck::BaselineArgs;

use crate::output::{emit, Format};
use crate::{InputError, EXIT_INTERNAL, EXIT_REJECTED};

/// Output of crosscheck: a table for people, or YAML/JSON for machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CrossFormat {
    /// One table per model, then the verdict.
    Table,
    /// YAML.
    Yaml,
    /// JSON.
    Json,
}

/// `--engines`'s help, with the default list as the registry has it.
fn engines_help() -> String {
    let names: Vec<&str> = liquid_engine::registry::crosscheck_defaults()
        .map(|e| e.name())
        .collect();
    format!(
        "Engines to run, comma-separated (default: {})",
        names.join(", ")
    )
}

// `liquid crosscheck`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CrosscheckArgs {
    /// Model files, folders (every `.yaml` inside) or generated-model specs.
    #[arg(required = true)]
    models: Vec<PathBuf>,
    /// Engines to run, comma-separated (default: the registry's crosscheck engines, named
    /// in the help).
    #[arg(
        long,
        value_parser = super::engine_parser(),
        value_delimiter = ',',
        help = engines_help()
    )]
    engines: Vec<String>,
    /// Record every engine's answer (verdict, length, bound, evidence; no timings) and
    /// each model's file and traffic digest in FILE: a baseline to compare later runs
    /// with. FILE may not be one of the models (a model file of a folder given too).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    record: Option<PathBuf>,
    /// Compare the answers with a recorded baseline: exit 1 when a model file changed
    /// since (its digest differs), when an answer regressed, or when answers only
    /// improved (0 with --accept-improvements).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// With --baseline: rewrite the baseline with this run's answers.
    #[arg(long, requires = "baseline")]
    update: bool,
    /// With --baseline: improvements (a shorter schedule, a higher bound, stronger
    /// evidence, a verdict that settles more) exit 0.
    #[arg(long, requires = "baseline")]
    accept_improvements: bool,
    /// Wall-clock limit of each engine run in seconds (fractions allowed; default 60 s): an
    /// engine stopped by it answers `unknown`. With --sizes, of each engine run and each
    /// simulation (default 10 s).
    #[arg(long, value_parser = super::parse_seconds)]
    time_limit: Option<std::time::Duration>,
    /// Search-node limit of each engine run, for engines that count nodes.
    #[arg(long)]
    node_limit: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CrossFormat::Table)]
    format: CrossFormat,
    /// Run only shard i of n (1 <= i <= n) of the models (items i, i+n, ... in the order
    /// given, a folder's models in name order), writing DIR/crosscheck-shard-i-of-n.json
    /// into --out; `liquid merge` prints the report of the whole run.
    #[arg(long, value_name = "I/N", requires = "out", conflicts_with_all = ["record", "baseline"])]
    shard: Option<liquid_study::Shard>,
    /// With --shard: the folder for the shard file.
    #[arg(long, value_name = "DIR", requires = "shard")]
    out: Option<PathBuf>,
    /// With --sizes: the link throughput in MB/s for links without their own.
    #[arg(long, value_name = "MB/s", requires = "sizes")]
    link_throughput: Option<f64>,
    /// With --sizes: bytes per piece of the schedules of pieces (default: solve's default
    /// quantum).
    #[arg(long, value_name = "BYTES", value_parser = super::sizes::parse_bytes, requires = "sizes")]
    quantum: Option<u64>,
    /// With --sizes (one model): every path that schedules with these sizes (first fit and
    /// the --engines on the pieces, first fit decreasing, the exact ILP and the --engines
    /// on whole messages), each schedule validated and simulated; they must agree on the
    /// bound, respect it, and the simulator must give every predicted time. Each engine run
    /// and each simulation stops at --time-limit (default 10 s here): a simulation stopped
    /// by it has a null figure and is not compared (a warning, exit 0). See
    /// docs/src/alltoallv.md.
    #[command(flatten)]
    sizes: super::SizesCli,
}

/// `liquid crosscheck MODEL...`: exit 0 when every answer checks and no two contradict;
/// 3 (an internal fault) when engines contradict each other or one failed to run; 1 when
/// a schedule file given is rejected, or against the baseline a model changed, an answer
/// regressed, or answers improved (0 with `--accept-improvements`). The kind is said on
/// stderr. With `--shard`, one shard's file (exit 0 when it is written: the outcome is
/// the merge's).
pub fn crosscheck(a: &CrosscheckArgs) -> anyhow::Result<ExitCode> {
    // `--baseline B --update` rewrites B on purpose: B is an input only.
    let mut inputs: Vec<(&str, Option<&std::path::Path>)> = a
        .models
        .iter()
        .map(|m| ("a model file", Some(m.as_path())))
        .collect();
    // A folder stands for its model files (the listing crosscheck reads them by).
    let mut in_folders: Vec<(String, PathBuf)> = Vec::new();
    for dir in a.models.iter().filter(|m| m.is_dir()) {
        if let Ok((files, _)) = crosscheck::folder_models(dir) {
            let what = format!("a model file of the folder {}", dir.display());
            in_folders.extend(files.into_iter().map(|f| (what.clone(), f)));
        }
    }
    inputs.extend(
        in_folders
            .iter()
            .map(|(what, p)| (what.as_str(), Some(p.as_path()))),
    );
    inputs.push(("the --baseline file", a.baseline.as_deref()));
    inputs.push(("the --sizes file", a.sizes.sizes.as_deref()));
    super::refuse_overwriting_inputs(&[("--record", a.record.as_deref())], &inputs)?;
    if let Some(args) = a.sizes.args(a.link_throughput)? {
        return crosscheck_sizes(a, &args);
    }
    let request = Request {
        limits: liquid_model::Limits {
            time: a.time_limit,
            nodes: a.node_limit,
        },
        ..Default::default()
    };
    let engines: Vec<&'static dyn Engine> = a
        .engines
        .iter()
        .map(|e| super::engine(e))
        .collect::<anyhow::Result<_>>()?;
    for (i, e) in engines.iter().enumerate() {
        if engines[..i].iter().any(|f| f.name() == e.name()) {
            return Err(InputError(format!(
                "--engines names {} twice: each engine runs once",
                e.name()
            ))
            .into());
        }
    }
    // No engine of the run takes it: the limit would be dropped without a word (the
    // default engines include native, which does).
    if a.node_limit.is_some()
        && !engines.is_empty()
        && !engines.iter().any(|e| e.takes_node_limit())
    {
        let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
        return Err(InputError(format!(
            "--node-limit: no engine of --engines {} counts nodes; give one that does \
             (native, structured, repair, exact, ilp, portfolio) or no --node-limit",
            names.join(",")
        ))
        .into());
    }
    let solve_as = &crate::progress::solve_as;
    if let (Some(shard), Some(out)) = (a.shard, &a.out) {
        let name = crate::output::format_name(&a.format);
        let written =
            crosscheck::shard(&a.models, &engines, &request, shard, &name, out, solve_as)?;
        eprintln!("{written}");
        return Ok(ExitCode::SUCCESS);
    }
    let base = BaselineArgs {
        record: a.record.clone(),
        baseline: a.baseline.clone(),
        update: a.update,
        accept_improvements: a.accept_improvements,
    };
    let report = crosscheck::run(&a.models, &engines, &request, &base, solve_as)?;
    print(&report, a.format, base.accept_improvements)
}

/// The report in `format`, and the exit code of its outcome.
fn print(
    report: &crosscheck::Report,
    format: CrossFormat,
    accept_improvements: bool,
) -> anyhow::Result<ExitCode> {
    match format {
        CrossFormat::Table => crate::output::print(&report.table(accept_improvements))?,
        CrossFormat::Yaml => emit(report, Format::Yaml)?,
        CrossFormat::Json => emit(report, Format::Json)?,
    }
    let outcome = report.outcome(accept_improvements);
    let (code, kind) = match outcome {
        Outcome::Contradiction => (EXIT_INTERNAL, "contradiction"),
        Outcome::EngineError => (EXIT_INTERNAL, "engine error"),
        Outcome::Unchecked => (EXIT_REJECTED, "unchecked"),
        Outcome::ScheduleRejected => (EXIT_REJECTED, "schedule rejected"),
        Outcome::ModelChanged => (EXIT_REJECTED, "model changed"),
        Outcome::Regression => (EXIT_REJECTED, "regression"),
        Outcome::Improvement => (EXIT_REJECTED, "improvement"),
        Outcome::Agreed => return Ok(ExitCode::SUCCESS),
    };
    eprintln!(
        "crosscheck: {kind} (exit {code}): {}",
        report.summary(accept_improvements)
    );
    Ok(ExitCode::from(code))
}

/// `liquid merge` of crosscheck's shards: the report in the run's format, with the exit
/// code of the unsharded run.
pub fn crosscheck_merged(report: &crosscheck::Report, format: &str) -> anyhow::Result<ExitCode> {
    let format = crate::output::format_named::<CrossFormat>("crosscheck", format)?;
    print(report, format, false)
}

/// `liquid crosscheck MODEL --sizes FILE`: exit 0 when every path agrees, 3 (an internal
/// fault) otherwise, each disagreement said on stderr.
fn crosscheck_sizes(
    a: &CrosscheckArgs,
    args: &liquid_study::alltoallv::SizesArgs,
) -> anyhow::Result<ExitCode> {
    let [model] = &a.models[..] else {
        return Err(crate::InputError("crosscheck --sizes FILE takes one model".into()).into());
    };
    if a.record.is_some() || a.baseline.is_some() || a.shard.is_some() {
        return Err(crate::InputError(
            "crosscheck --sizes takes no --record, --baseline or --shard".into(),
        )
        .into());
    }
    let engines: Vec<&'static dyn Engine> = if a.engines.is_empty() {
        liquid_engine::registry::crosscheck_defaults().collect()
    } else {
        a.engines
            .iter()
            .map(|e| super::engine(e))
            .collect::<anyhow::Result<_>>()?
    };
    let request = Request {
        limits: liquid_model::Limits {
            time: a.time_limit.or(Some(std::time::Duration::from_secs(10))),
            nodes: a.node_limit,
        },
        ..Default::default()
    };
    let o = liquid_study::alltoallv::SolveOptions {
        quantum: a.quantum,
        max_pieces_per_message: 64,
        preemption: liquid_study::alltoallv::Preemption::Both,
        engine: None,
        request,
        exact_max: 64,
        simulate: true,
        lanes: false,
        frame_barrier: None,
    };
    let report =
        liquid_study::alltoallv::crosscheck(model, args, &o, &engines, &crate::progress::solve)?;
    for c in &report.cut_by_time_limit {
        eprintln!("warning: the time limit stopped a simulation, not compared: {c}");
    }
    match a.format {
        CrossFormat::Table => crate::output::print(&report.table())?,
        CrossFormat::Yaml => emit(&report, Format::Yaml)?,
        CrossFormat::Json => emit(&report, Format::Json)?,
    }
    if report.agreed() {
        return Ok(ExitCode::SUCCESS);
    }
    for c in &report.contradictions {
        eprintln!("crosscheck: contradiction: {c}");
    }
    Ok(ExitCode::from(EXIT_INTERNAL))
}
