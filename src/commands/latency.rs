//! `liquid latency ...`: mean message latency in paper 002's heterogeneous multi-cluster
//! systems: the analytical model, the flit-level simulation, and the model against the
//! simulation (`liquid_study::latency`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use liquid_latency::model::SourceQueues;
use liquid_latency::{MultiCluster, Timing};
use liquid_study::latency::{self as study, Load as StudyLoad, ModelAnswer, PlanSource};

use crate::output::{emitted, Format};
use crate::InputError;

/// The `latency` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum LatencyWhat {
    /// Paper 002's analytical model (eqs. 1-36): mean message latency per cluster and
    /// overall at an offered traffic (--rate), or a sweep of loads up to a fraction of
    /// the saturation load (--points), with the components the paper adds up.
    Model(ModelArgs),
    /// Flit-level simulation (wormhole, single-flit buffers, Poisson sources, uniform
    /// destinations, concentrator/dispatcher queues): mean latency per offered traffic,
    /// overall and per cluster, with 95 % confidence intervals over replications.
    Simulate(LatencySimArgs),
    /// The model (its four readings: printed, per node, concentrator blocking, one-way
    /// channels) against the simulation: per curve (system and message size), latency
    /// against offered traffic as CSV and SVG, and the relative errors below 50, 70 and
    /// 90 % of each reading's saturation load and the simulation's.
    Study(LatencyStudyArgs),
}

/// The system and the message and channel parameters (002 section 4's by default).
#[derive(Debug, Clone, clap::Args)]
pub struct SystemArgs {
    /// The system, M,LIST[,NC] (with or without a `multi-cluster:` prefix): m-port
    /// switches, the clusters' tree heights as COUNTxN items joined by `+`, and the
    /// ICN2's height, e.g. 8,12x1+16x2+4x3 (002's N = 1120) or 4,8x3+3x4+5x5 (N = 544).
    pub system: String,
    /// Message length in flits, M.
    #[arg(long, default_value_t = 32)]
    pub flits: u32,
    /// Flit length in bytes, L_m.
    #[arg(long, default_value_t = 256.0)]
    pub flit_bytes: f64,
    /// Channel bandwidth, bytes per time unit.
    #[arg(long, default_value_t = 500.0)]
    pub bandwidth: f64,
    /// Network latency α_net, time units.
    #[arg(long, default_value_t = 0.02)]
    pub net_latency: f64,
    /// Switch latency α_sw, time units.
    #[arg(long, default_value_t = 0.01)]
    pub switch_latency: f64,
}

impl SystemArgs {
    /// The system's parameters (an input error names the bad field).
    pub fn system(&self) -> Result<MultiCluster, InputError> {
        study::parse_system(&self.system).map_err(|e| InputError(format!("system {e}")))
    }

    /// The message and channel parameters.
    pub fn timing(&self) -> Timing {
        Timing {
            flits: self.flits,
            flit_bytes: self.flit_bytes,
            bandwidth: self.bandwidth,
            net_latency: self.net_latency,
            switch_latency: self.switch_latency,
        }
    }
}

/// How many messages a simulation counts, and how many it generates before and after
/// them without counting (002: 100,000 counted, 10,000 warm-up, 10,000 drain).
#[derive(Debug, Clone, clap::Args)]
pub struct MessageCounts {
    /// Messages counted per run.
    #[arg(long, default_value_t = 100_000)]
    pub messages: u64,
    /// Messages generated first and not counted.
    #[arg(long, default_value_t = 10_000)]
    pub warmup: u64,
    /// Messages generated last and not counted.
    #[arg(long, default_value_t = 10_000)]
    pub drain: u64,
}

impl MessageCounts {
    fn counts(&self) -> study::MessageCounts {
        study::MessageCounts {
            messages: self.messages,
            warmup: self.warmup,
            drain: self.drain,
        }
    }
}

/// `liquid latency model`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    #[command(flatten)]
    system: SystemArgs,
    #[command(flatten)]
    load: Load,
    /// The sweep's last load, as a fraction of the saturation load (below 1); with
    /// --points only.
    #[arg(long, default_value_t = 0.95, conflicts_with = "rate")]
    up_to: f64,
    /// Also write the point(s) to this CSV file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Output format of the one-point report (--rate; a sweep is a table).
    #[arg(long, value_enum, default_value_t = Format::Yaml, conflicts_with = "points")]
    format: Format,
    /// The arrival rate of the source queues (eqs. 23, 30): `printed` uses the whole
    /// network's rate as 002 prints it; `per-node` one node's own messages, as 002's
    /// assumptions state (see the model's readings 1 and 15).
    #[arg(long, value_enum, default_value_t = Reading::Printed)]
    source_queues: Reading,
}

/// `--source-queues`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Reading {
    /// 002's eqs. 23 and 30 as printed (λ_I1, λ_E1).
    Printed,
    /// One node's queue ((1 - P_o)·λ_g and P_o·λ_g).
    PerNode,
}

impl From<Reading> for SourceQueues {
    fn from(r: Reading) -> SourceQueues {
        match r {
            Reading::Printed => SourceQueues::Printed,
            Reading::PerNode => SourceQueues::PerNode,
        }
    }
}

/// One point or a sweep: exactly one of the two.
#[derive(Debug, Clone, clap::Args)]
#[group(required = true, multiple = false)]
struct Load {
    /// One offered traffic λ_g (messages per node per time unit): report the latency
    /// and its components there.
    #[arg(long)]
    rate: Option<f64>,
    /// A sweep of this many loads, evenly spaced from 0 to --up-to × saturation, printed
    /// as a table.
    #[arg(long)]
    points: Option<usize>,
}

/// How concentrators/dispatchers forward messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ConcentratorMode {
    /// A message joins the queue when its header arrives (virtual cut-through).
    CutThrough,
    /// A message joins the queue when its tail has arrived.
    StoreAndForward,
}

/// The parameters of `liquid latency simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct LatencySimArgs {
    #[command(flatten)]
    pub system: SystemArgs,
    /// Offered traffic λ_g: messages per node per time unit; several rates separated by
    /// commas give a curve.
    #[arg(long, value_delimiter = ',', required_unless_present_any = ["schedule", "engine"])]
    pub rate: Vec<f64>,
    /// Also run the system's all-to-all as planned by this schedule file (transfer ids
    /// `c0.p1->c2.p3`, as `liquid solve multi-cluster:... --schedule-out` writes them):
    /// frame by frame with a barrier, all at once, and against the same number of
    /// messages to uniformly random destinations.
    #[arg(long, value_name = "FILE", conflicts_with = "engine")]
    pub schedule: Option<std::path::PathBuf>,
    /// Like --schedule, with the schedule of this engine (e.g. native, round-robin).
    #[arg(long, value_parser = super::engine_parser())]
    pub engine: Option<String>,
    #[command(flatten)]
    pub counts: MessageCounts,
    /// Independent runs per rate (seeds SEED, SEED+1, ...); 95 % confidence intervals
    /// from Student's t.
    #[arg(long, default_value_t = 5)]
    pub replications: usize,
    /// Seed of the first replication.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How concentrators/dispatchers forward messages.
    #[arg(long, value_enum, default_value_t = ConcentratorMode::CutThrough)]
    pub concentrator: ConcentratorMode,
    /// Wall-clock limit in seconds (default 300 s): the run under way stops, later ones
    /// do not start; the report has the rates done before it, with a warning (exit 0).
    #[arg(long, value_parser = super::parse_seconds, default_value = "300")]
    pub time_limit: Duration,
    /// Report per-cluster estimates too.
    #[arg(long)]
    pub per_cluster: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    pub format: Format,
}

/// `liquid latency study`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct LatencyStudyArgs {
    /// Directory for latency-<system>-<M>.csv and .svg (new or empty, or one liquid wrote,
    /// whose earlier files are replaced; with --shard, the shard folder).
    #[arg(long, default_value = "latency-study")]
    pub out: PathBuf,
    /// Systems as M,LIST[,NC], separated by `;` or given several times (default: 002's
    /// Table 1, 8,12x1+16x2+4x3 and 4,8x3+3x4+5x5).
    #[arg(long, value_delimiter = ';')]
    pub systems: Vec<String>,
    /// Message sizes as M:L_m (flits : bytes per flit), separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "32:256,64:512")]
    pub sizes: Vec<String>,
    /// Loads per curve, evenly spaced up to --beyond × the larger saturation load of the
    /// model's two readings.
    #[arg(long, default_value_t = 20)]
    pub points: usize,
    /// The last load as a multiple of the larger of the two saturation loads.
    #[arg(long, default_value_t = 1.2)]
    pub beyond: f64,
    #[command(flatten)]
    pub counts: MessageCounts,
    /// Independent runs per load (seeds SEED, SEED+1, ...).
    #[arg(long, default_value_t = 3)]
    pub replications: usize,
    /// Seed of the first replication.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the whole study (error table and every curve's points) as Markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Run only shard i of n (1 <= i <= n) of the loads (every load of every curve is one
    /// item: items i, i+n, ...), writing DIR/latency-study-shard-i-of-n.json into --out;
    /// join the shards with `liquid merge` (it writes the Markdown report into its --out).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<liquid_study::Shard>,
    /// Wall-clock limit of the whole study in seconds (fractions allowed; default 3600 s,
    /// four times the 881 s the default study took on a busy 2-core machine): the load
    /// under way stops, later ones do not start; the table, files and Markdown cover the
    /// loads simulated and end with the loads cut (a shard file marks them), with a
    /// warning (exit 0).
    #[arg(long, value_parser = super::parse_seconds, default_value = "3600")]
    pub time_limit: Duration,
}

/// Runs a `latency` subcommand.
pub fn latency(what: LatencyWhat) -> anyhow::Result<ExitCode> {
    match what {
        LatencyWhat::Model(args) => model(&args),
        LatencyWhat::Simulate(args) => simulate(&args),
        LatencyWhat::Study(args) => run_study(&args),
    }
}

fn model(args: &ModelArgs) -> anyhow::Result<ExitCode> {
    let system = args.system.system()?;
    let load = match (args.load.rate, args.load.points) {
        (Some(rate), _) => StudyLoad::Rate(rate),
        (None, Some(points)) => StudyLoad::Points {
            points,
            up_to: args.up_to,
        },
        (None, None) => {
            return Err(
                InputError("give --rate λ (one point) or --points K (a sweep)".into()).into(),
            )
        }
    };
    let answer = study::model(
        &system,
        args.system.timing(),
        args.source_queues.into(),
        load,
        args.csv.as_deref(),
    )?;
    match answer {
        ModelAnswer::Point(r) => crate::output::print(&crate::output::render(&r, args.format)?)?,
        ModelAnswer::Table(text) => crate::output::print(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `liquid latency simulate SYSTEM --rate λ ...`.
fn simulate(a: &LatencySimArgs) -> anyhow::Result<ExitCode> {
    let plan = match (&a.schedule, &a.engine) {
        (Some(path), _) => Some(PlanSource::File(path.clone())),
        (None, Some(name)) => Some(PlanSource::Engine(super::engine(name)?)),
        (None, None) => None,
    };
    let params = study::SimParams {
        system: a.system.system()?,
        timing: a.system.timing(),
        rates: a.rate.clone(),
        counts: a.counts.counts(),
        replications: a.replications,
        seed: a.seed,
        forwarding: match a.concentrator {
            ConcentratorMode::CutThrough => liquid_flit::Forwarding::CutThrough,
            ConcentratorMode::StoreAndForward => liquid_flit::Forwarding::StoreAndForward,
        },
        time_limit: Some(a.time_limit),
        per_cluster: a.per_cluster,
        plan,
    };
    let total = (a.rate.len() as u64)
        .saturating_mul(a.replications as u64)
        .saturating_mul(a.counts.messages);
    let bar = crate::progress::bar(
        total,
        "{bar:30} {pos}/{len} counted messages delivered, {msg} [{elapsed}/{eta}]",
    );
    let report = study::simulate(&params, &mut |done, rate| {
        if !bar.is_hidden() {
            bar.set_position(done);
            bar.set_message(format!("rate {} of {}", rate + 1, a.rate.len()));
        }
    });
    bar.finish_and_clear();
    let report = report?;
    let code = emitted(&report, a.format)?;
    for (rate, mean) in report.saturated() {
        let zero = report.zero_load_latency().map_or_else(String::new, |z| {
            format!(", the model's zero-load latency {z}")
        });
        eprintln!(
            "warning: rate {rate} is past saturation (mean latency {mean}{zero}; the study's \
             rule: above {}x it, or not completed): the queues grow without bound, so the mean \
             grows with the run's length and is no steady-state latency",
            liquid_flit::study::SATURATION_FACTOR
        );
    }
    if let Some(why) = report.stopped() {
        let raise = if report.stopped_by_time() {
            "; raise --time-limit for all of them"
        } else {
            ""
        };
        eprintln!(
            "warning: the runs stopped ({why}): the report has the rates done before it{raise}"
        );
    }
    Ok(code)
}

/// `liquid latency study ...`.
fn run_study(a: &LatencyStudyArgs) -> anyhow::Result<ExitCode> {
    let params = study::StudyParams {
        out: a.out.clone(),
        systems: a.systems.clone(),
        sizes: a.sizes.clone(),
        points: a.points,
        beyond: a.beyond,
        counts: a.counts.counts(),
        replications: a.replications,
        seed: a.seed,
        markdown: a.markdown.clone(),
        time_limit: Some(a.time_limit),
    };
    let (swept, cut) = study::study(&params, a.shard, &mut |line| eprintln!("{line}"))?;
    match swept {
        liquid_study::Swept::Full(studied) => crate::output::print(&studied.table)?,
        liquid_study::Swept::Shard(written) => eprintln!("{written}"),
    }
    // Exit 0, as `latency simulate` stopped by its time limit: the report is written.
    if let Some(cut) = cut {
        eprintln!(
            "warning: the time limit ({} s) stopped the study: {} of {} loads simulated, the \
             report covers those; raise --time-limit for all of them",
            a.time_limit.as_secs_f64(),
            cut.simulated,
            cut.owned
        );
    }
    Ok(ExitCode::SUCCESS)
}
