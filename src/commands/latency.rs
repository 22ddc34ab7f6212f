//! `liquid latency ...`: mean message latency in paper 002's heterogeneous multi-cluster
//! systems. `model` is the analytical model (`liquid_latency::model`).

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_latency::model::{Journey, Model, Prediction, Saturation, SourceQueues};
use liquid_latency::{LatencyError, MultiCluster, Timing};

use crate::output::Format;
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
    Simulate(super::LatencySimArgs),
    /// The model (both readings of its source queues) against the simulation: per
    /// curve (system and message size), latency against offered traffic as CSV and SVG,
    /// and the relative errors below 50, 70 and 90 % of the model's saturation load.
    Study(super::LatencyStudyArgs),
}

/// The system and the message and channel parameters (002 section 4's by default).
#[derive(Debug, Clone, clap::Args)]
pub struct SystemArgs {
    /// The system, M,LIST[,NC] (with or without a `multi-cluster:` prefix): m-port
    /// switches, the clusters' tree heights as COUNTxN items joined by `+`, and the
    /// ICN2's height, e.g. 8,12x1+16x2+4x3 (002's N = 1120) or 4,8x3+3x4+5x5 (N = 544).
    pub system: String,
    /// Message length in flits, M.
    #[arg(long, default_value_t = 32, allow_negative_numbers = true)]
    pub flits: u32,
    /// Flit length in bytes, L_m.
    #[arg(long, default_value_t = 256.0, allow_negative_numbers = true)]
    pub flit_bytes: f64,
    /// Channel bandwidth, bytes per time unit.
    #[arg(long, default_value_t = 500.0, allow_negative_numbers = true)]
    pub bandwidth: f64,
    /// Network latency α_net, time units.
    #[arg(long, default_value_t = 0.02, allow_negative_numbers = true)]
    pub net_latency: f64,
    /// Switch latency α_sw, time units.
    #[arg(long, default_value_t = 0.01, allow_negative_numbers = true)]
    pub switch_latency: f64,
}

impl SystemArgs {
    /// The system's parameters (an input error names the bad field).
    pub fn system(&self) -> Result<MultiCluster, InputError> {
        let spec = self.system.trim();
        let spec = spec.strip_prefix("multi-cluster:").unwrap_or(spec);
        MultiCluster::parse(spec).map_err(|e| InputError(format!("system {spec:?}: {e}")))
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

/// The message and channel parameters in a report, with the per-flit channel times.
#[derive(Debug, serde::Serialize)]
pub struct TimingReport {
    flits: u32,
    flit_bytes: f64,
    bandwidth: f64,
    net_latency: f64,
    switch_latency: f64,
    t_cn: f64,
    t_cs: f64,
}

impl TimingReport {
    /// The report of `t`, the derived times `t_cn`, `t_cs` rounded by `round`.
    pub fn new(t: Timing, round: fn(f64) -> f64) -> TimingReport {
        TimingReport {
            flits: t.flits,
            flit_bytes: t.flit_bytes,
            bandwidth: t.bandwidth,
            net_latency: t.net_latency,
            switch_latency: t.switch_latency,
            t_cn: round(t.t_cn()),
            t_cs: round(t.t_cs()),
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
    /// The sweep's last load, as a fraction of the saturation load (below 1).
    #[arg(long, default_value_t = 0.95, allow_negative_numbers = true)]
    up_to: f64,
    /// Also write the point(s) to this CSV file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Output format of the one-point report (--rate).
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
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
    #[arg(long, allow_negative_numbers = true)]
    rate: Option<f64>,
    /// A sweep of this many loads, evenly spaced from 0 to --up-to × saturation, printed
    /// as a table.
    #[arg(long)]
    points: Option<usize>,
}

/// Runs a `latency` subcommand.
pub fn latency(what: LatencyWhat) -> anyhow::Result<ExitCode> {
    match what {
        LatencyWhat::Model(args) => model(&args),
        LatencyWhat::Simulate(args) => super::latency_simulate(&args),
        LatencyWhat::Study(args) => super::latency_study(&args),
    }
}

/// A library refusal as an input error naming the command-line option.
fn input(e: LatencyError) -> InputError {
    match e {
        LatencyError::BadParameter { name, why } => {
            InputError(format!("--{}: {why}", name.replace(' ', "-")))
        }
        e => InputError(e.to_string()),
    }
}

fn model(args: &ModelArgs) -> anyhow::Result<ExitCode> {
    let system = args.system.system()?;
    let model = Model::new(&system, args.system.timing())
        .map_err(input)?
        .with_source_queues(args.source_queues.into());
    let saturation = model.saturation();
    let (points, text) = match (args.load.rate, args.load.points) {
        (Some(rate), _) => {
            let p = model.at(rate).map_err(|e| match e {
                LatencyError::Saturated { .. } => InputError(format!(
                    "{e}; the model saturates at λ_g = {:.6e}",
                    saturation.rate
                )),
                e => input(e),
            })?;
            let text = crate::output::render(&report::point(&model, &saturation, &p), args.format)?;
            (vec![p], text)
        }
        (None, Some(points)) => {
            let sweep = model.sweep(args.up_to, points).map_err(input)?;
            let text = report::table(&model, &sweep.saturation, &sweep.points);
            (sweep.points, text)
        }
        (None, None) => {
            return Err(
                InputError("give --rate λ (one point) or --points K (a sweep)".into()).into(),
            )
        }
    };
    if let Some(path) = &args.csv {
        std::fs::write(path, report::csv(&model, &saturation, &points))
            .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
    }
    crate::output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The model's answers as reports, tables and CSV.
mod report {
    use std::fmt::Write;

    use serde::Serialize;

    use super::*;

    /// Six significant digits, for display.
    fn sig(x: f64) -> f64 {
        format!("{x:.5e}").parse().unwrap_or(x)
    }

    #[derive(Serialize)]
    struct SaturationReport {
        rate: f64,
        queue: String,
    }

    #[derive(Serialize)]
    struct Parts {
        source_wait: f64,
        network: f64,
        tail: f64,
    }

    impl From<Journey> for Parts {
        fn from(j: Journey) -> Parts {
            Parts {
                source_wait: sig(j.source_wait),
                network: sig(j.network),
                tail: sig(j.tail),
            }
        }
    }

    #[derive(Serialize)]
    struct Components {
        source_wait: f64,
        network: f64,
        tail: f64,
        concentrator_wait: f64,
    }

    #[derive(Serialize)]
    struct Busiest {
        queue: String,
        utilisation: f64,
    }

    #[derive(Serialize)]
    struct Group {
        /// Cluster indices, `a-b` or `a`.
        clusters: String,
        height: usize,
        nodes_each: u64,
        outgoing_probability: f64,
        /// Eq. 35.
        latency: f64,
        intra: Parts,
        inter: Parts,
        concentrator_wait: f64,
    }

    #[derive(Serialize)]
    pub struct PointReport {
        system: String,
        nodes: u64,
        clusters: usize,
        timing: super::TimingReport,
        /// `printed` or `per-node` (the model's readings 1 and 15).
        source_queues: &'static str,
        saturation: SaturationReport,
        rate: f64,
        load: f64,
        latency: f64,
        components: Components,
        busiest: Busiest,
        groups: Vec<Group>,
    }

    /// Runs of consecutive clusters of equal height (identical in the model), as
    /// (first, last) indices.
    fn groups(p: &Prediction) -> Vec<(usize, usize)> {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for c in &p.clusters {
            match runs.last_mut() {
                Some((_, last)) if p.clusters[*last].height == c.height => *last = c.cluster,
                _ => runs.push((c.cluster, c.cluster)),
            }
        }
        runs
    }

    fn range((a, b): (usize, usize)) -> String {
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    }

    /// A node count for display (saturating).
    fn whole(n: u128) -> u64 {
        u64::try_from(n).unwrap_or(u64::MAX)
    }

    fn load(p: &Prediction, s: &Saturation) -> f64 {
        p.rate / s.rate
    }

    /// The one-point report.
    pub fn point(model: &Model, s: &Saturation, p: &Prediction) -> PointReport {
        let t = model.timing();
        PointReport {
            system: model.system().spec(),
            nodes: whole(model.system().nodes()),
            clusters: model.system().cluster_count(),
            timing: super::TimingReport::new(t, sig),
            source_queues: model.source_queues().name(),
            saturation: SaturationReport {
                rate: sig(s.rate),
                queue: s.queue.to_string(),
            },
            rate: p.rate,
            load: sig(load(p, s)),
            latency: sig(p.latency),
            components: Components {
                source_wait: sig(p.source_wait),
                network: sig(p.network),
                tail: sig(p.tail),
                concentrator_wait: sig(p.concentrator_wait),
            },
            busiest: Busiest {
                queue: p.busiest.0.to_string(),
                utilisation: sig(p.busiest.1),
            },
            groups: groups(p)
                .into_iter()
                .map(|g| {
                    let c = &p.clusters[g.0];
                    Group {
                        clusters: range(g),
                        height: c.height,
                        nodes_each: whole(model.system().cluster_nodes(c.cluster)),
                        outgoing_probability: sig(c.outgoing),
                        latency: sig(c.latency),
                        intra: c.intra.into(),
                        inter: c.inter.into(),
                        concentrator_wait: sig(c.concentrator_wait),
                    }
                })
                .collect(),
        }
    }

    /// The sweep as a table.
    pub fn table(model: &Model, s: &Saturation, points: &[Prediction]) -> String {
        let t = model.timing();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "system {}: N = {} nodes in {} clusters; M = {} flits of {} bytes, t_cn = {}, t_cs = {}",
            model.system().spec(),
            model.system().nodes(),
            model.system().cluster_count(),
            t.flits,
            t.flit_bytes,
            sig(t.t_cn()),
            sig(t.t_cs()),
        );
        let _ = writeln!(
            out,
            "source queues: {}; saturation: λ_g = {:.6e}, {}",
            model.source_queues().name(),
            s.rate,
            s.queue
        );
        let _ = writeln!(
            out,
            "{:>6} {:>12} {:>10} {:>11} {:>10} {:>8} {:>12} {:>11}",
            "load",
            "rate",
            "latency",
            "source_wait",
            "network",
            "tail",
            "concentrator",
            "utilisation"
        );
        for p in points {
            let _ = writeln!(
                out,
                "{:>6.3} {:>12.5e} {:>10.4} {:>11.4} {:>10.4} {:>8.4} {:>12.4} {:>11.4}",
                load(p, s),
                p.rate,
                p.latency,
                p.source_wait,
                p.network,
                p.tail,
                p.concentrator_wait,
                p.busiest.1
            );
        }
        out
    }

    /// The points as CSV: the overall latency and its components, then the latency of
    /// each group of identical clusters (eq. 35).
    pub fn csv(model: &Model, s: &Saturation, points: &[Prediction]) -> String {
        let t = model.timing();
        let mut out = String::from(
            "system,flits,flit_bytes,rate,load,latency,source_wait,network,tail,concentrator_wait,utilisation",
        );
        let runs = points.first().map(groups).unwrap_or_default();
        for &g in &runs {
            let _ = write!(out, ",latency_clusters_{}", range(g));
        }
        out.push('\n');
        for p in points {
            let _ = write!(
                out,
                "\"{}\",{},{},{},{},{},{},{},{},{},{}",
                model.system().spec(),
                t.flits,
                t.flit_bytes,
                p.rate,
                load(p, s),
                p.latency,
                p.source_wait,
                p.network,
                p.tail,
                p.concentrator_wait,
                p.busiest.1
            );
            for &(a, _) in &runs {
                let _ = write!(out, ",{}", p.clusters[a].latency);
            }
            out.push('\n');
        }
        out
    }
}
