use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use liquid_engine::report::SolveReport;
use liquid_engine::{Engine, Request, SolveError};

use crate::output::{emit, Format};
use crate::LimitArgs;
use crate::{InputError, EXIT_INTERNAL, EXIT_REJECTED};

/// The `--engine` values: every engine of the registry (hidden ones accepted, not listed).
pub fn engine_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(liquid_engine::ENGINES.iter().map(|e| {
        clap::builder::PossibleValue::new(e.name())
            .help(e.about())
            .hide(e.hidden())
    }))
}

/// The engine a validated `--engine` value names.
pub fn engine(name: &str) -> anyhow::Result<&'static dyn Engine> {
    liquid_engine::find(name).ok_or_else(|| InputError(format!("no engine {name:?}")).into())
}

/// With `--prove DIR`: why no proof was written there, and the exit code (0 when there is
/// nothing to prove, a liquid answer; 1 otherwise); `None` when the proof was written.
fn no_proof_written(
    traffic: &liquid_model::Traffic,
    c: &liquid_engine::Checked,
) -> Option<(String, ExitCode)> {
    let bound = c.outcome().lower_bound(traffic);
    if matches!(&bound.evidence, liquid_model::Evidence::CheckedProof(p) if p.dir().is_some()) {
        return None;
    }
    let d = traffic.duration();
    if matches!(c.outcome(), liquid_model::Outcome::Liquid { .. }) {
        return Some((
            format!(
                "nothing to prove: the schedule has Λ = {d} timeframes, which every schedule \
                 needs (the bottleneck is the bound)"
            ),
            ExitCode::SUCCESS,
        ));
    }
    let why = if bound.value <= d {
        format!(
            "{}'s answer ({}) has no lower bound above Λ = {d} to prove; an engine that \
             proves its bound (portfolio, native, exact, sat, ilp) or `liquid prove` writes \
             one",
            c.engine(),
            c.verdict().as_str()
        )
    } else {
        let note = c.stats().iter().find(|(k, _)| k == "proof").map(|(_, v)| v);
        match note {
            Some(liquid_model::StatValue::Text(t)) => t.clone(),
            _ => format!("the bound {} was not backed by a proof", bound.value),
        }
    };
    Some((why, ExitCode::from(EXIT_REJECTED)))
}

/// Parses `--time-limit` (seconds, fractional allowed).
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(0.0..1e9).contains(&v) {
        return Err(format!(
            "{s:?} is not a usable number of seconds: from 0 to below 1e9 (about 31 years)"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A gate error as the CLI reports it: input errors exit 2, the rest 3.
pub fn gate_error(e: SolveError) -> anyhow::Error {
    match e {
        SolveError::Input(m) => InputError(m).into(),
        e => anyhow::anyhow!(e),
    }
}

// `liquid solve`'s arguments.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    /// The engine to run. Default: the portfolio with checked evidence, which gives every
    /// traffic, liquid or not, its best schedule and a lower bound resting on checked
    /// evidence only (a bottleneck, a clique, or a proof checked in memory), within the time
    /// limit; a generated dragonfly, Dragonfly+, rail or HyperX with a closed-form liquid
    /// schedule gets that one at once (`decided_by: closed-form`, with its construction).
    /// Name an engine to run it alone: `native` decides liquidity only (no schedule for a
    /// non-liquid traffic), as the default did before; `closed-form` the construction
    /// only.
    #[arg(long, value_parser = engine_parser())]
    engine: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Seed of the engines that draw at random (default 0): random (its order), native and
    /// repair (their searches), sat and sat-incremental (the tabu start), portfolio. The
    /// other engines give the same answer for every seed: --seed with one of them is an
    /// error.
    #[arg(long, conflicts_with = "stream")]
    seed: Option<u64>,
    /// ILP engine only: decide liquidity (K = Λ timeframes, no objective) instead of
    /// minimising the length. Answers `liquid` or `unknown` (HiGHS's "infeasible" is
    /// reported in the stats, not as a proof).
    #[arg(long)]
    decide: bool,
    /// Also write the schedule to this file (schedule-file format; with --stream, the
    /// compact format, or YAML when FILE ends in .yaml or .yml).
    #[arg(long)]
    schedule_out: Option<PathBuf>,
    /// Make the liquid schedule of a structured traffic too large to hold from its
    /// closed form, one frame at a time in memory O(hosts + links), writing each frame
    /// to --schedule-out and validating it as it goes: fat-tree all-to-alls such as
    /// `fat-tree:32,3` (8,192 hosts) and `fat-tree:64,3` (65,536), and multi-cluster
    /// systems such as `multi-cluster:8,32x2+24x3+8x4` (8,192 nodes), dragonflies such
    /// as `dragonfly:16,8,8` and Dragonfly+ such as `dragonfly-plus:16,16,8,8` (16,512
    /// hosts each), rail-optimised fat-trees with PXN or as many spines as servers such
    /// as `rail:2048,8,pxn` and HyperX whose dimensions are prime powers above the hosts
    /// per router such as `hyperx:16x16x16,4` (16,384 hosts each). Default
    /// --time-limit: 3600 s. Takes no --sizes (nor the options that go with it) and no
    /// --node-limit. See crates/stream/README.md.
    #[arg(long, conflicts_with_all = ["proof", "require_proof", "decide", "engine"])]
    stream: bool,
    /// With --stream: make only the first K frames (a prefix, for measurements).
    #[arg(long, value_name = "K", requires = "stream")]
    prefix: Option<usize>,
    /// Write the proof of a lower bound above Λ (non-liquid or optimal answers) into
    /// this directory: formula.cnf, proof.lrat, manifest.yaml. Any engine: the SAT
    /// engine and the portfolio refute the bound themselves, the others' bounds are
    /// refuted with SAT at one timeframe fewer; the directory is read back and checked
    /// before the report calls it a proof. When no proof is written (a bound of Λ, which
    /// its bottleneck link proves; an answer with no bound above Λ, such as dsatur's
    /// feasible one; or no proof within the time limit), stderr says why, and the exit
    /// code is 1 unless the answer is liquid (nothing to prove).
    #[arg(long = "proof", alias = "prove", value_name = "DIR")]
    proof: Option<PathBuf>,
    /// Accept checked evidence only: the bound of an optimal or non-liquid answer must
    /// be a bottleneck, a clique or a checked proof (one is produced as with --proof,
    /// in memory). Otherwise the report says how strong the evidence is, and the exit
    /// code is 1.
    #[arg(long)]
    require_proof: bool,
    /// With --sizes: the link throughput in MB/s for links without their own (over the
    /// model's link_throughput).
    #[arg(long, value_name = "MB/s", requires = "sizes")]
    link_throughput: Option<f64>,
    #[command(flatten)]
    sizes: super::SizesCli,
    #[command(flatten)]
    sizes_solve: super::SizesSolveCli,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// Refuses `--seed` for an engine whose answer does not depend on it: the seed would be
/// dropped without a word.
pub fn seeded(engine: &dyn liquid_engine::Engine, seed: Option<u64>) -> Result<(), InputError> {
    refuse_ignored(
        engine,
        seed.is_some(),
        |e| e.seeded(),
        "--seed",
        "draws nothing at random (its answer is the same for every seed); the engines that take a seed",
    )
}

/// Refuses `--node-limit` for an engine that counts no nodes: the limit would be dropped
/// without a word.
pub fn node_limited(
    engine: &dyn liquid_engine::Engine,
    nodes: Option<u64>,
) -> Result<(), InputError> {
    refuse_ignored(
        engine,
        nodes.is_some(),
        |e| e.takes_node_limit(),
        "--node-limit",
        "counts no nodes (its answer is the same for every node limit); the engines it bounds",
    )
}

/// Refuses `option`, when `given`, for an engine that does not `take` it: "OPTION: the E
/// engine WHY: the engines that take it".
fn refuse_ignored(
    engine: &dyn liquid_engine::Engine,
    given: bool,
    takes: fn(&dyn liquid_engine::Engine) -> bool,
    option: &str,
    why: &str,
) -> Result<(), InputError> {
    if !given || takes(engine) {
        return Ok(());
    }
    let those: Vec<&str> = liquid_engine::visible()
        .filter(|&e| takes(e))
        .map(|e| e.name())
        .collect();
    Err(InputError(format!(
        "{option}: the {} engine {why}: {}",
        engine.name(),
        those.join(", ")
    )))
}

/// `liquid solve MODEL --engine E` (with `--stream`, [`super::solve_stream`]).
pub fn solve(a: &SolveArgs) -> anyhow::Result<ExitCode> {
    // The time limit counts from here: building a 1,024-host model takes seconds.
    let command_start = std::time::Instant::now();
    super::refuse_overwriting_inputs(
        &[
            ("--schedule-out", a.schedule_out.as_deref()),
            ("--pieces-out", a.sizes_solve.pieces_out.as_deref()),
        ],
        &[
            ("the model file", Some(&a.model)),
            ("the --sizes file", a.sizes.sizes.as_deref()),
        ],
    )?;
    if a.stream {
        // Every sizes option requires --sizes: refusing --sizes refuses them all.
        if a.sizes.sizes.is_some() {
            return Err(InputError(
                "--stream takes no --sizes (nor --size, --quantum, --preemption, --simulate \
                 or any option that goes with --sizes): the streamed schedule is of the \
                 traffic's transfers, sizes aside"
                    .into(),
            )
            .into());
        }
        if a.limits.node_limit.is_some() {
            return Err(InputError(
                "--stream takes no --node-limit: the streamed construction searches nothing \
                 (--time-limit bounds it)"
                    .into(),
            )
            .into());
        }
        let out = a.schedule_out.as_deref();
        return super::solve_stream(&a.model, out, a.prefix, a.limits.time_limit, a.format);
    }
    if let Some(args) = a.sizes.args(a.link_throughput)? {
        if a.proof.is_some() || a.require_proof || a.decide || a.stream {
            return Err(InputError(
                "--sizes takes no --proof, --require-proof, --decide or --stream".into(),
            )
            .into());
        }
        let e = a.engine.as_deref().map(engine).transpose()?;
        if let Some(e) = e {
            seeded(e, a.seed)?;
            node_limited(e, a.limits.node_limit)?;
        }
        let request = Request {
            limits: a.limits.limits(),
            seed: a.seed.unwrap_or_default(),
            ..Default::default()
        };
        return super::sizes::solve_sizes(
            &a.model,
            &args,
            &a.sizes_solve,
            e,
            request,
            a.limits.time_limit.is_some(),
            a.schedule_out.as_deref(),
            a.format,
        );
    }
    let engine = engine(a.engine.as_deref().unwrap_or(liquid_engine::DEFAULT_ENGINE))?;
    seeded(engine, a.seed)?;
    node_limited(engine, a.limits.node_limit)?;
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    // The limit counts from the start: reading a large model takes some of it.
    let loading = command_start.elapsed();
    let limits = a.limits.or_default();
    let limit = limits.time.unwrap_or(liquid_engine::DEFAULT_TIME_LIMIT);
    let request = Request {
        // What is left of the limit once the model is built.
        limits: liquid_model::Limits {
            time: limits
                .time
                .map(|t| t.saturating_sub(command_start.elapsed())),
            ..limits
        },
        seed: a.seed.unwrap_or_default(),
        decide: a.decide,
        // The default run answers with checked evidence (see `engine`'s help).
        proofs: a.require_proof || a.engine.is_none(),
    };
    let checked = crate::progress::with_progress(engine.counts(), |p| {
        liquid_engine::solve(&traffic, engine, &request, a.proof.as_deref(), p)
    });
    let c = match checked {
        Ok(c) => c,
        Err(e @ SolveError::Wrong { .. }) => {
            eprintln!("internal error: {e}");
            return Ok(ExitCode::from(EXIT_INTERNAL));
        }
        Err(e) => return Err(gate_error(e)),
    };
    let report = SolveReport::new(&traffic, &c);
    let schedule = c.outcome().schedule();
    if let (Some(path), Some(s)) = (&a.schedule_out, schedule) {
        std::fs::write(path, liquid_model::yaml::write_schedule(&traffic, s))
            .with_context(|| format!("cannot write {}", path.display()))?
    }
    emit(&report, a.format)?;
    // The report first (why there is no schedule: a bound above Λ, a limit), then the
    // error.
    if let (Some(path), None) = (&a.schedule_out, schedule) {
        return Err(InputError(format!(
            "no schedule to write to {}: the engine found none (see the report)",
            path.display()
        ))
        .into());
    }
    // Stopped by the time limit (an `unknown` answer once the limit has passed; `ilp
    // --decide` answers `unknown` on its own): said on stderr too, as `simulate` and
    // `teams` say it (exit unchanged; stdout is the report alone).
    if c.verdict() == liquid_model::Verdict::Unknown && command_start.elapsed() >= limit {
        eprintln!(
            "warning: {}",
            stopped_warning(&c, &traffic, limit.as_secs_f64(), loading.as_secs_f64())
        );
    }
    if let Some(dir) = &a.proof {
        if let Some((why, code)) = no_proof_written(&traffic, &c) {
            super::proof::no_proof_in(dir, &why)?;
            return Ok(code);
        }
    }
    if let Some(why) = report.uncertified_reason() {
        if a.require_proof {
            eprintln!("not certified: {why}");
            return Ok(ExitCode::from(EXIT_REJECTED));
        }
        // The default run answers with checked evidence when it can: say so when it
        // could not (the time limit came before the proof), as the report's `certified`.
        if a.engine.is_none() {
            eprintln!(
                "warning: not certified: {why} (see `proof` in the report); \
                 --require-proof makes such an answer exit 1"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The one-line warning of an engine stopped by its time limit (verdict `unknown`): the
/// limit, what was left undecided, and how much of the limit reading the model took when
/// that was a tenth of it or more, and at least 0.1 s (1,536 hosts: 10 s of a 5 s limit).
fn stopped_warning(
    c: &liquid_engine::Checked,
    traffic: &liquid_model::Traffic,
    time_s: f64,
    loading_s: f64,
) -> String {
    let best = match c.length() {
        Some(l) => format!("the best schedule found has {l} timeframes"),
        None => "no schedule found".into(),
    };
    let loading = if loading_s < 0.1 {
        String::new()
    } else if loading_s >= time_s {
        format!(" (reading the model took {loading_s:.1} s: the limit had passed before the engines started)")
    } else if loading_s >= time_s / 10.0 {
        format!(" (reading the model took {loading_s:.1} s of it)")
    } else {
        String::new()
    };
    format!(
        "the time limit ({time_s} s){loading} stopped {} before it settled the traffic: verdict \
         unknown, whether a liquid schedule (Λ = {} timeframes) exists is undecided ({best}); \
         raise --time-limit",
        c.engine(),
        traffic.duration()
    )
}
