//! `liquid latency simulate`: paper 002's system on the flit-level simulator
//! (`liquid-flit`), mean latency against offered traffic with confidence intervals.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use liquid_flit::{Config, Estimate, Forwarding, GroupEstimate, Simulator};
use serde::Serialize;

use crate::output::{emit, Format};
use crate::InputError;

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
    pub system: super::latency::SystemArgs,
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
    #[arg(long, value_parser = crate::commands::engine_parser())]
    pub engine: Option<String>,
    #[command(flatten)]
    pub counts: super::latency::MessageCounts,
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
    /// Wall-clock limit in seconds: the run under way stops, later ones do not start.
    #[arg(long, value_parser = crate::commands::parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Report per-cluster estimates too.
    #[arg(long)]
    pub per_cluster: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    pub format: Format,
}

#[derive(Serialize)]
struct Value {
    mean: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci95: Option<f64>,
}

impl From<Estimate> for Value {
    fn from(e: Estimate) -> Value {
        let r = |x: f64| (x * 1e4).round() / 1e4;
        Value {
            mean: r(e.mean),
            ci95: e.half_width.map(r),
        }
    }
}

#[derive(Serialize)]
struct Group {
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    height: Option<usize>,
    messages: u64,
    inter_cluster: u64,
    latency: Value,
    source_wait: Value,
    network: Value,
    concentrator_wait: Value,
}

impl Group {
    fn of(g: &GroupEstimate, cluster: Option<(usize, usize)>) -> Group {
        Group {
            cluster: cluster.map(|c| c.0),
            height: cluster.map(|c| c.1),
            messages: g.messages,
            inter_cluster: g.inter,
            latency: g.latency.into(),
            source_wait: g.source_wait.into(),
            network: g.network.into(),
            concentrator_wait: g.concentrator_wait.into(),
        }
    }
}

#[derive(Serialize)]
struct RunReport {
    seed: u64,
    completed: bool,
    latency: f64,
    generated: u64,
    delivered: u64,
    flit_moves: u64,
    events: u64,
    end_time: f64,
}

#[derive(Serialize)]
struct Point {
    rate: f64,
    completed: bool,
    #[serde(flatten)]
    overall: Group,
    runs: Vec<RunReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    clusters: Vec<Group>,
}

#[derive(Serialize)]
struct PlanRunReport {
    mode: &'static str,
    messages: u64,
    makespan: f64,
    latency: f64,
    source_wait: f64,
    network: f64,
    concentrator_wait: f64,
    flit_moves: u64,
}

#[derive(Serialize)]
struct PlanReport {
    source: String,
    frames: usize,
    messages: usize,
    duration: usize,
    simultaneous_frames: bool,
    runs: Vec<PlanRunReport>,
}

#[derive(Serialize)]
struct Report {
    system: String,
    nodes: usize,
    clusters: usize,
    timing: super::latency::TimingReport,
    messages: u64,
    warmup: u64,
    drain: u64,
    replications: usize,
    seed: u64,
    concentrator: &'static str,
    stopped: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    points: Vec<Point>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<PlanReport>,
    flit_moves: u64,
    time_s: f64,
    flit_moves_per_s: f64,
}

/// The all-to-all as a schedule plans it: frame by frame, all at once, and the same
/// number of messages per node to uniformly random destinations, all at once.
fn run_plans(
    a: &LatencySimArgs,
    system: &liquid_topology::multi_cluster::MultiCluster,
    wiring: &liquid_topology::multi_cluster::Wiring,
    sim: &Simulator<'_>,
    base: &Config,
    deadline: Option<Instant>,
) -> anyhow::Result<(PlanReport, Vec<PlanRunReport>)> {
    let traffic = system.traffic().map_err(InputError::of)?;
    let (schedule, source) = match (&a.schedule, &a.engine) {
        (Some(path), _) => (
            liquid_model::yaml::load_schedule(path, &traffic)?,
            path.display().to_string(),
        ),
        (None, Some(name)) => {
            let engine = crate::commands::engine(name)?;
            let request = liquid_engine::Request {
                limits: liquid_model::Limits {
                    time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
                    nodes: None,
                },
                seed: a.seed,
                ..Default::default()
            };
            let checked = liquid_engine::solve(
                &traffic,
                engine,
                &request,
                None,
                &std::sync::atomic::AtomicU64::new(0),
            )
            .map_err(crate::commands::gate_error)?;
            let verdict = checked.verdict();
            let s = checked.into_outcome().into_schedule().ok_or_else(|| {
                InputError(format!(
                    "engine {name} found no schedule ({}); raise --time-limit or give --schedule",
                    verdict.as_str()
                ))
            })?;
            (s, format!("engine {name}"))
        }
        (None, None) => unreachable!("called with --schedule or --engine"),
    };
    let index: std::collections::HashMap<&str, usize> =
        (0..wiring.nodes()).map(|v| (wiring.name(v), v)).collect();
    let node = |n: &Option<String>| -> anyhow::Result<usize> {
        n.as_deref()
            .and_then(|n| index.get(n).copied())
            .ok_or_else(|| {
                InputError(format!("schedule: transfer endpoint {n:?} is not a node")).into()
            })
    };
    let mut frames = Vec::with_capacity(schedule.frames.len());
    for f in &schedule.frames {
        let mut v = Vec::with_capacity(f.len());
        for &t in f {
            let tr = traffic.transfer(t);
            v.push((node(&tr.from)?, node(&tr.to)?));
        }
        frames.push(v);
    }
    let messages: usize = frames.iter().map(Vec::len).sum();
    let simultaneous = liquid_model::validate(&traffic, &schedule).is_ok();
    // The same number of messages per source, to uniform random destinations.
    let mut per_source = vec![0usize; wiring.nodes()];
    for &(s, _) in frames.iter().flatten() {
        per_source[s] += 1;
    }
    let mut rng = liquid_flit::Rng::new(a.seed);
    let mut random = Vec::with_capacity(messages);
    let rounds = per_source.iter().copied().max().unwrap_or(0);
    for round in 0..rounds {
        for (s, &count) in per_source.iter().enumerate() {
            if round < count {
                let r = rng.below(wiring.nodes() as u64 - 1) as usize;
                random.push((s, if r >= s { r + 1 } else { r }));
            }
        }
    }
    let mut runs = Vec::new();
    let mut go = |mode: &'static str, frames: &[Vec<(usize, usize)>], pm| -> anyhow::Result<()> {
        let r = sim
            .run_plan(base, frames, pm, &mut |_| {
                deadline.is_none_or(|d| Instant::now() < d)
            })
            .map_err(InputError::of)?;
        let round = |x: f64| (x * 1e4).round() / 1e4;
        runs.push(PlanRunReport {
            mode,
            messages: r.overall.messages,
            makespan: round(r.last_delivery),
            latency: round(r.overall.latency),
            source_wait: round(r.overall.source_wait),
            network: round(r.overall.network),
            concentrator_wait: round(r.overall.concentrator_wait),
            flit_moves: r.flit_moves,
        });
        Ok(())
    };
    go("frames", &frames, liquid_flit::PlanMode::Frames)?;
    go("all-at-once", &frames, liquid_flit::PlanMode::AllAtOnce)?;
    go(
        "random-destinations",
        &[random],
        liquid_flit::PlanMode::AllAtOnce,
    )?;
    Ok((
        PlanReport {
            source,
            frames: frames.len(),
            messages,
            duration: traffic.duration(),
            simultaneous_frames: simultaneous,
            runs: Vec::new(),
        },
        runs,
    ))
}

/// `liquid latency simulate SYSTEM --rate λ ...`.
pub fn latency_simulate(a: &LatencySimArgs) -> anyhow::Result<ExitCode> {
    let system = a.system.system()?;
    let wiring = system.wiring().map_err(InputError::of)?;
    let timing = a.system.timing();
    let base = Config {
        timing,
        rate: 1.0,
        messages: a.counts.messages,
        warmup: a.counts.warmup,
        drain: a.counts.drain,
        seed: a.seed,
        forwarding: match a.concentrator {
            ConcentratorMode::CutThrough => Forwarding::CutThrough,
            ConcentratorMode::StoreAndForward => Forwarding::StoreAndForward,
        },
    };
    // Check everything before the first run.
    for &rate in &a.rate {
        Config {
            rate,
            ..base.clone()
        }
        .check()
        .map_err(InputError::of)?;
    }
    if a.replications == 0 {
        return Err(InputError::of(
            "replications: at least one replication is needed",
        ));
    }
    let sim = Simulator::new(&wiring);
    let start = Instant::now();
    let deadline = a.time_limit.map(|l| start + l);
    let total = a.rate.len() as u64 * a.replications as u64 * a.counts.messages;
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} counted messages delivered, {msg} [{elapsed}/{eta}]",
            )
            .expect("a valid template"),
        );
        b
    });
    let mut points = Vec::new();
    let mut stopped = None;
    let mut done_before = 0u64;
    let mut moves = 0u64;
    for (p, &rate) in a.rate.iter().enumerate() {
        let cfg = Config {
            rate,
            ..base.clone()
        };
        let summary = sim
            .replicate(&cfg, a.replications, &mut |r, pr| {
                if let Some(b) = &bar {
                    b.set_position(done_before + r as u64 * a.counts.messages + pr.delivered);
                    b.set_message(format!("rate {} of {}", p + 1, a.rate.len()));
                }
                deadline.is_none_or(|d| Instant::now() < d)
            })
            .map_err(InputError::of)?;
        done_before += a.replications as u64 * a.counts.messages;
        moves += summary.runs.iter().map(|r| r.flit_moves).sum::<u64>();
        let completed =
            summary.runs.len() == a.replications && summary.runs.iter().all(|r| r.completed);
        points.push(Point {
            rate,
            completed,
            overall: Group::of(&summary.overall, None),
            runs: summary
                .runs
                .iter()
                .map(|r| RunReport {
                    seed: r.seed,
                    completed: r.completed,
                    latency: (r.overall.latency * 1e4).round() / 1e4,
                    generated: r.generated,
                    delivered: r.delivered,
                    flit_moves: r.flit_moves,
                    events: r.events,
                    end_time: (r.end_time * 1e4).round() / 1e4,
                })
                .collect(),
            clusters: if a.per_cluster {
                summary
                    .clusters
                    .iter()
                    .enumerate()
                    .map(|(i, g)| Group::of(g, Some((i, system.clusters[i]))))
                    .collect()
            } else {
                Vec::new()
            },
        });
        if !completed {
            stopped = Some("time limit");
            break;
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let plan = if (a.schedule.is_some() || a.engine.is_some()) && stopped.is_none() {
        let (plan, runs) = run_plans(a, &system, &wiring, &sim, &base, deadline)?;
        moves += runs.iter().map(|r| r.flit_moves).sum::<u64>();
        Some(PlanReport { runs, ..plan })
    } else {
        None
    };
    let secs = start.elapsed().as_secs_f64();
    let report = Report {
        system: system.spec(),
        nodes: wiring.nodes(),
        clusters: system.cluster_count(),
        timing: super::latency::TimingReport::new(timing, |x| x),
        messages: a.counts.messages,
        warmup: a.counts.warmup,
        drain: a.counts.drain,
        replications: a.replications,
        seed: a.seed,
        concentrator: match a.concentrator {
            ConcentratorMode::CutThrough => "cut-through",
            ConcentratorMode::StoreAndForward => "store-and-forward",
        },
        stopped,
        points,
        plan,
        flit_moves: moves,
        time_s: secs,
        flit_moves_per_s: (moves as f64 / secs.max(1e-9)).round(),
    };
    emit(&report, a.format)?;
    Ok(ExitCode::SUCCESS)
}
