//! Paper 002's heterogeneous multi-cluster systems (`liquid latency ...`): the analytical
//! model's reports ([`model`], [`report`]), the flit-level simulation over offered loads
//! and of a schedule's all-to-all ([`simulate`]), and the model against the simulation
//! curve by curve ([`study`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use liquid_flit::{Config, Estimate, Forwarding, GroupEstimate, Simulator};
use liquid_latency::model::{Model, SourceQueues};
use liquid_latency::{LatencyError, Timing};
use liquid_topology::multi_cluster::MultiCluster;
use serde::Serialize;

use crate::StudyError;

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

/// A library refusal as an input error naming the command-line option.
fn input(e: LatencyError) -> StudyError {
    match e {
        LatencyError::BadParameter { name, why } => {
            StudyError::Input(format!("--{}: {why}", name.replace(' ', "-")))
        }
        e => StudyError::Input(e.to_string()),
    }
}

/// One load or a sweep of the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    /// One offered traffic λ_g (messages per node per time unit).
    Rate(f64),
    /// This many loads evenly spaced from 0 to `up_to` × the saturation load.
    Points {
        /// Number of loads.
        points: usize,
        /// The last load as a fraction of the saturation load (below 1).
        up_to: f64,
    },
}

/// The model's answer: one point's report, or a sweep's table.
pub enum ModelAnswer {
    /// At one load.
    Point(Box<report::PointReport>),
    /// A sweep, as a table.
    Table(String),
}

/// Paper 002's analytical model of `system` with `timing` and the source queues'
/// `reading`, at one load or over a sweep; with `csv`, also writes the point(s) there.
pub fn model(
    system: &MultiCluster,
    timing: Timing,
    reading: SourceQueues,
    load: Load,
    csv: Option<&Path>,
) -> Result<ModelAnswer, StudyError> {
    let model = Model::new(system, timing)
        .map_err(input)?
        .with_source_queues(reading);
    let saturation = model.saturation();
    let (points, answer) = match load {
        Load::Rate(rate) => {
            let p = model.at(rate).map_err(|e| match e {
                LatencyError::Saturated { .. } => StudyError::Input(format!(
                    "{e}; the model saturates at λ_g = {:.6e}",
                    saturation.rate
                )),
                e => input(e),
            })?;
            let r = report::point(&model, &saturation, &p);
            (vec![p], ModelAnswer::Point(Box::new(r)))
        }
        Load::Points { points, up_to } => {
            let sweep = model.sweep(up_to, points).map_err(input)?;
            let text = report::table(&model, &sweep.saturation, &sweep.points);
            (sweep.points, ModelAnswer::Table(text))
        }
    };
    if let Some(path) = csv {
        std::fs::write(path, report::csv(&model, &saturation, &points))
            .map_err(|e| StudyError::Input(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(answer)
}

/// The model's answers as reports, tables and CSV.
pub mod report {
    use std::fmt::Write;

    use serde::Serialize;

    use liquid_latency::model::{Journey, Model, Prediction, Saturation};

    use super::TimingReport;

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

    /// The model's answer at one load, with its components, per group of clusters.
    #[derive(Serialize)]
    pub struct PointReport {
        system: String,
        nodes: u64,
        clusters: usize,
        timing: TimingReport,
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
            timing: TimingReport::new(t, sig),
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
            let f = liquid_sim::study::csv_float;
            let _ = write!(
                out,
                "\"{}\",{},{},{},{},{},{},{},{},{},{}",
                model.system().spec(),
                t.flits,
                f(t.flit_bytes),
                f(p.rate),
                f(load(p, s)),
                f(p.latency),
                f(p.source_wait),
                f(p.network),
                f(p.tail),
                f(p.concentrator_wait),
                f(p.busiest.1)
            );
            for &(a, _) in &runs {
                let _ = write!(out, ",{}", f(p.clusters[a].latency));
            }
            out.push('\n');
        }
        out
    }
}

/// How many messages a simulation counts, and how many it generates before and after
/// them without counting (002: 100,000 counted, 10,000 warm-up, 10,000 drain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageCounts {
    /// Messages counted per run.
    pub messages: u64,
    /// Messages generated first and not counted.
    pub warmup: u64,
    /// Messages generated last and not counted.
    pub drain: u64,
}

/// Where the schedule of [`SimParams::plan`] comes from.
#[derive(Clone)]
pub enum PlanSource {
    /// A schedule file (transfer ids `c0.p1->c2.p3`).
    File(PathBuf),
    /// An engine's schedule of the system's all-to-all.
    Engine(&'static dyn liquid_engine::Engine),
}

/// What [`simulate`] runs.
#[derive(Clone)]
pub struct SimParams {
    /// The system.
    pub system: MultiCluster,
    /// The message and channel parameters.
    pub timing: Timing,
    /// The offered traffics λ_g.
    pub rates: Vec<f64>,
    /// Messages per run.
    pub counts: MessageCounts,
    /// Independent runs per rate (seeds `seed`, `seed + 1`, ...).
    pub replications: usize,
    /// Seed of the first replication.
    pub seed: u64,
    /// How concentrators/dispatchers forward messages.
    pub forwarding: Forwarding,
    /// Wall-clock limit: the run under way stops, later ones do not start.
    pub time_limit: Option<Duration>,
    /// Report per-cluster estimates too.
    pub per_cluster: bool,
    /// Also run the system's all-to-all as this schedule plans it.
    pub plan: Option<PlanSource>,
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
    /// Past saturation by the study's rule: not completed, or a mean latency above
    /// [`liquid_flit::study::SATURATION_FACTOR`] times the model's zero-load latency
    /// (the queues grow without bound: the mean measures the run's length).
    saturated: bool,
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

/// What [`simulate`] found: the latency per offered load, and the schedule's runs.
#[derive(Serialize)]
pub struct Report {
    system: String,
    nodes: usize,
    clusters: usize,
    timing: TimingReport,
    messages: u64,
    warmup: u64,
    drain: u64,
    replications: usize,
    seed: u64,
    concentrator: &'static str,
    /// The model's (002) latency at zero load: a point whose mean exceeds
    /// [`liquid_flit::study::SATURATION_FACTOR`] times it is `saturated`. None for a
    /// system the model does not take.
    zero_load_latency: Option<f64>,
    stopped: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    points: Vec<Point>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<PlanReport>,
    flit_moves: u64,
    time_s: f64,
    flit_moves_per_s: f64,
}

/// [`Report::stopped`] when the time limit stopped the runs.
const STOPPED_BY_TIME: &str = "time limit";

impl Report {
    /// Why the runs stopped before every rate was done (the time limit, or saturation),
    /// if they did.
    pub fn stopped(&self) -> Option<&'static str> {
        self.stopped
    }

    /// The rates simulated past saturation (see `saturated` in the points), each with its
    /// mean latency.
    pub fn saturated(&self) -> Vec<(f64, f64)> {
        self.points
            .iter()
            .filter(|p| p.saturated)
            .map(|p| (p.rate, p.overall.latency.mean))
            .collect()
    }

    /// The model's zero-load latency, the yardstick of `saturated` (none for a system
    /// the model does not take).
    pub fn zero_load_latency(&self) -> Option<f64> {
        self.zero_load_latency
    }

    /// Whether the time limit stopped the runs (not saturation).
    pub fn stopped_by_time(&self) -> bool {
        self.stopped == Some(STOPPED_BY_TIME)
    }
}

/// The all-to-all as a schedule plans it: frame by frame, all at once, and the same
/// number of messages per node to uniformly random destinations, all at once.
fn run_plans(
    a: &SimParams,
    source: &PlanSource,
    wiring: &liquid_topology::multi_cluster::Wiring,
    sim: &Simulator<'_>,
    base: &Config,
    deadline: Option<Instant>,
) -> Result<(PlanReport, Vec<PlanRunReport>), StudyError> {
    let traffic = a
        .system
        .traffic()
        .map_err(|e| StudyError::Input(e.to_string()))?;
    let (schedule, source) = match source {
        PlanSource::File(path) => (
            liquid_model::yaml::load_partition(path, &traffic)?,
            path.display().to_string(),
        ),
        PlanSource::Engine(engine) => {
            let (engine, name) = (*engine, engine.name());
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
            )?;
            let verdict = checked.verdict();
            let s = checked
                .into_outcome()
                .into_schedule()
                .ok_or_else(|| crate::simulate::no_schedule(name, verdict))?;
            (s, format!("engine {name}"))
        }
    };
    let index: std::collections::HashMap<&str, usize> =
        (0..wiring.nodes()).map(|v| (wiring.name(v), v)).collect();
    let node = |n: &Option<String>| -> Result<usize, StudyError> {
        n.as_deref()
            .and_then(|n| index.get(n).copied())
            .ok_or_else(|| {
                StudyError::Input(format!("schedule: transfer endpoint {n:?} is not a node"))
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
    let mut go =
        |mode: &'static str, frames: &[Vec<(usize, usize)>], pm| -> Result<(), StudyError> {
            let r = sim
                .run_plan(base, frames, pm, &mut |_| {
                    deadline.is_none_or(|d| Instant::now() < d)
                })
                .map_err(|e| StudyError::Input(e.to_string()))?;
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

/// Simulates `p.system` at every offered load of `p.rates` (stopping at the time limit),
/// and then, with `p.plan`, the all-to-all as the schedule plans it. `progress` gets the
/// counted messages delivered so far (of rates × replications × messages) and the index
/// of the rate under way.
pub fn simulate(p: &SimParams, progress: &mut dyn FnMut(u64, usize)) -> Result<Report, StudyError> {
    // The simulator's parameters are the command line's options (`--flits`, ...).
    let bad = |e: liquid_flit::FlitError| {
        let liquid_flit::FlitError::BadParameter { name, why } = e;
        StudyError::Input(format!("--{}: {why}", name.replace(' ', "-")))
    };
    let system = &p.system;
    let wiring = system
        .wiring()
        .map_err(|e| StudyError::Input(e.to_string()))?;
    let base = Config {
        timing: p.timing,
        rate: 1.0,
        messages: p.counts.messages,
        warmup: p.counts.warmup,
        drain: p.counts.drain,
        seed: p.seed,
        forwarding: p.forwarding,
    };
    // Check everything before the first run.
    for &rate in &p.rates {
        Config {
            rate,
            ..base.clone()
        }
        .check()
        .map_err(bad)?;
    }
    if p.replications == 0 {
        return Err(StudyError::Input(
            "replications: at least one replication is needed".into(),
        ));
    }
    // Every wait is 0 at zero load, under every reading of the model (none for a system
    // the model does not take).
    let zero_load = Model::new(system, p.timing)
        .ok()
        .map(|m| m.zero_load().latency);
    let sim = Simulator::new(&wiring);
    let start = Instant::now();
    let deadline = p.time_limit.map(|l| start + l);
    let mut points = Vec::new();
    let mut stopped = None;
    let mut done_before = 0u64;
    let mut moves = 0u64;
    for (i, &rate) in p.rates.iter().enumerate() {
        let cfg = Config {
            rate,
            ..base.clone()
        };
        let summary = sim
            .replicate(&cfg, p.replications, &mut |r, pr| {
                progress(done_before + r as u64 * p.counts.messages + pr.delivered, i);
                deadline.is_none_or(|d| Instant::now() < d)
            })
            .map_err(bad)?;
        done_before += p.replications as u64 * p.counts.messages;
        moves += summary.runs.iter().map(|r| r.flit_moves).sum::<u64>();
        let completed =
            summary.runs.len() == p.replications && summary.runs.iter().all(|r| r.completed);
        points.push(point(p, rate, completed, zero_load, &summary));
        if !completed {
            stopped = Some(if summary.runs.iter().any(|r| r.saturated) {
                "saturated: the messages in flight reached the memory bound (1 GiB)"
            } else {
                STOPPED_BY_TIME
            });
            break;
        }
    }
    let plan = match &p.plan {
        Some(source) if stopped.is_none() => {
            let (plan, runs) = run_plans(p, source, &wiring, &sim, &base, deadline)?;
            moves += runs.iter().map(|r| r.flit_moves).sum::<u64>();
            Some(PlanReport { runs, ..plan })
        }
        _ => None,
    };
    let secs = start.elapsed().as_secs_f64();
    Ok(Report {
        system: system.spec(),
        nodes: wiring.nodes(),
        clusters: system.cluster_count(),
        timing: TimingReport::new(p.timing, |x| x),
        messages: p.counts.messages,
        warmup: p.counts.warmup,
        drain: p.counts.drain,
        replications: p.replications,
        seed: p.seed,
        concentrator: match p.forwarding {
            Forwarding::CutThrough => "cut-through",
            Forwarding::StoreAndForward => "store-and-forward",
        },
        zero_load_latency: zero_load.map(|z| (z * 1e4).round() / 1e4),
        stopped,
        points,
        plan,
        flit_moves: moves,
        time_s: secs,
        flit_moves_per_s: (moves as f64 / secs.max(1e-9)).round(),
    })
}

/// One offered load's report.
fn point(
    p: &SimParams,
    rate: f64,
    completed: bool,
    zero_load: Option<f64>,
    summary: &liquid_flit::Summary,
) -> Point {
    let factor = liquid_flit::study::SATURATION_FACTOR;
    let mean = summary.overall.latency.mean;
    Point {
        rate,
        completed,
        saturated: !completed || zero_load.is_some_and(|z| mean > factor * z),
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
        clusters: if p.per_cluster {
            summary
                .clusters
                .iter()
                .enumerate()
                .map(|(i, g)| Group::of(g, Some((i, p.system.clusters[i]))))
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// What [`study`] runs.
#[derive(Debug, Clone)]
pub struct StudyParams {
    /// Directory for `latency-<system>-<M>.csv` and `.svg` (created if missing).
    pub out: PathBuf,
    /// The systems, as `M,LIST[,NC]` (with or without a `multi-cluster:` prefix).
    pub systems: Vec<String>,
    /// Message sizes as `M:L_m` (flits : bytes per flit).
    pub sizes: Vec<String>,
    /// Loads per curve.
    pub points: usize,
    /// The last load as a multiple of the larger of the two saturation loads.
    pub beyond: f64,
    /// Messages per run.
    pub counts: MessageCounts,
    /// Independent runs per load.
    pub replications: usize,
    /// Seed of the first replication.
    pub seed: u64,
    /// Also write the whole study as Markdown here.
    pub markdown: Option<PathBuf>,
    /// Wall-clock limit of the whole study (None: none): the load under way stops, later
    /// ones do not start, and the report says which were cut ([`Cut`]).
    pub time_limit: Option<Duration>,
}

/// The systems of 002's Table 1, the study's default.
pub const TABLE_1: [&str; 2] = ["8,12x1+16x2+4x3", "4,8x3+3x4+5x5"];

fn size(s: &str) -> Result<Timing, StudyError> {
    let bad = || StudyError::Input(format!("sizes: {s:?} is not M:L_m (e.g. 32:256)"));
    let (m, l) = s.trim().split_once(':').ok_or_else(bad)?;
    let flits: u32 = m.trim().parse().map_err(|_| bad())?;
    let bytes: f64 = l.trim().parse().map_err(|_| bad())?;
    let t = Timing::paper(flits, bytes);
    t.check()
        .map_err(|e| StudyError::Input(format!("sizes: {s:?}: {e}")))?;
    Ok(t)
}

/// A system written `M,LIST[,NC]`, with or without a `multi-cluster:` prefix; the error
/// quotes the spec without it.
pub fn parse_system(spec: &str) -> Result<MultiCluster, String> {
    let spec = spec.trim();
    let spec = spec.strip_prefix("multi-cluster:").unwrap_or(spec);
    MultiCluster::parse(spec).map_err(|e| format!("{spec:?}: {e}"))
}

/// The latency study's name in its shard files (`liquid merge` reads it).
pub const SWEEP: &str = "latency-study";

/// The study's own options in its shard files: every shard of one run shares them (the
/// output folder aside; the Markdown report by its file name, which the merge writes into
/// its own output folder).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ShardParams {
    systems: Vec<String>,
    sizes: Vec<String>,
    points: usize,
    beyond: f64,
    messages: u64,
    warmup: u64,
    drain: u64,
    replications: usize,
    seed: u64,
    markdown: Option<String>,
}

/// One load's simulation in a shard file (the model and the errors are recomputed by the
/// merge, exactly as the unsharded run computes them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoadResult {
    rate: f64,
    mean: f64,
    half_width: Option<f64>,
    completed: bool,
    flit_moves: u64,
    /// The time limit cut this load: it has no figures (zeros), and the merged report
    /// lists it as not simulated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    stopped: bool,
}

impl LoadResult {
    /// Checks a load's figures read from a shard file, as far as they can be without
    /// simulating again: a completed load has a positive mean latency, flit moves, and a
    /// 95 % interval exactly when the run had two replications or more; no figure is
    /// negative or infinite.
    fn recheck(&self, replications: usize) -> Result<(), String> {
        if self.stopped {
            if self.mean != 0.0
                || self.half_width.is_some()
                || self.completed
                || self.flit_moves != 0
            {
                return Err("a load cut by the time limit with figures".into());
            }
            return Ok(());
        }
        let time = |field: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{field} {v} is not a latency"))
            }
        };
        if let Some(h) = self.half_width {
            time("half_width", h)?;
        }
        if self.completed {
            time("mean", self.mean)?;
            if self.mean <= 0.0 || self.flit_moves == 0 {
                return Err(format!(
                    "a completed load with mean latency {} and {} flit moves",
                    self.mean, self.flit_moves
                ));
            }
            if self.half_width.is_some() != (replications >= 2) {
                return Err(format!(
                    "half_width {:?} from {replications} replications (an interval needs two or \
                     more)",
                    self.half_width
                ));
            }
        } else if self.mean.is_infinite() || self.mean < 0.0 {
            return Err(format!("mean {} is not a latency", self.mean));
        }
        Ok(())
    }
}

impl LoadResult {
    /// A load's result: its simulation, or (None) cut by the time limit at `rate`.
    fn of(rate: f64, s: Option<liquid_flit::study::Simulated>) -> LoadResult {
        match s {
            Some(s) => LoadResult {
                rate: s.rate,
                mean: s.simulated.mean,
                half_width: s.simulated.half_width,
                completed: s.completed,
                flit_moves: s.flit_moves,
                stopped: false,
            },
            None => LoadResult {
                rate,
                mean: 0.0,
                half_width: None,
                completed: false,
                flit_moves: 0,
                stopped: true,
            },
        }
    }

    /// The simulation, or None when the time limit cut the load.
    fn simulated(self) -> Option<liquid_flit::study::Simulated> {
        (!self.stopped).then_some(liquid_flit::study::Simulated {
            rate: self.rate,
            simulated: Estimate {
                mean: self.mean,
                half_width: self.half_width,
            },
            completed: self.completed,
            flit_moves: self.flit_moves,
        })
    }
}

/// The loads of a study that the time limit cut (the load under way when it passed, and
/// every later one): the report covers the loads simulated only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// Loads simulated (of those this run or these shards owned).
    pub simulated: usize,
    /// Loads this run or these shards owned.
    pub owned: usize,
    /// Per curve with loads cut: its name and the loads not simulated (1-based, as
    /// ranges), e.g. "`4,1+2,1` M = 8: loads 2-4 of 4".
    pub curves: Vec<String>,
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "stopped by the time limit: {} of {} loads simulated; not simulated: {}. A cut \
             curve's CSV, SVG, error row and Markdown cover its simulated loads only (its \
             \"simulation saturates at\" too); a curve without any has no row and no files.",
            self.simulated,
            self.owned,
            self.curves.join("; ")
        )
    }
}

/// 1-based ranges of sorted 0-based indices: `2-4, 7`.
fn ranges(ks: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ks.len() {
        let mut j = i;
        while j + 1 < ks.len() && ks[j + 1] == ks[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            format!("{}", ks[i] + 1)
        } else {
            format!("{}-{}", ks[i] + 1, ks[j] + 1)
        });
        i = j + 1;
    }
    out.join(", ")
}

/// A checked study: its curves (system, timing, loads) and the simulation settings.
struct Plan {
    curves: Vec<(MultiCluster, Timing, Vec<f64>)>,
    settings: liquid_flit::study::Settings,
}

impl Plan {
    /// Every load of every curve, in order: the study's items (curve index, load index).
    fn items(&self) -> Vec<(usize, usize)> {
        self.curves
            .iter()
            .enumerate()
            .flat_map(|(c, (_, _, rates))| (0..rates.len()).map(move |k| (c, k)))
            .collect()
    }

    /// An item's name in a shard file: the curve and the load, with its rate.
    fn key(&self, (c, k): (usize, usize)) -> String {
        let (system, timing, rates) = &self.curves[c];
        format!(
            "{} M = {} L_m = {}, load {}/{} (λ_g = {:e})",
            system.spec(),
            timing.flits,
            timing.flit_bytes,
            k + 1,
            rates.len(),
            rates[k]
        )
    }
}

/// Parses and checks every option of the study (systems, sizes, loads, counts) before
/// anything is simulated.
fn plan(a: &StudyParams) -> Result<Plan, StudyError> {
    use liquid_flit::study::{self, Settings};
    let input = |e: &dyn std::fmt::Display| StudyError::Input(e.to_string());
    let specs: Vec<String> = if a.systems.is_empty() {
        TABLE_1.iter().map(|s| s.to_string()).collect()
    } else {
        a.systems.clone()
    };
    let mut systems = Vec::new();
    for s in &specs {
        systems.push(parse_system(s).map_err(|e| StudyError::Input(format!("systems: {e}")))?);
    }
    let timings = a
        .sizes
        .iter()
        .map(|s| size(s))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = Settings {
        messages: a.counts.messages,
        warmup: a.counts.warmup,
        drain: a.counts.drain,
        replications: a.replications,
        seed: a.seed,
        forwarding: Forwarding::CutThrough,
    };
    let mut curves = Vec::new();
    // Each curve writes files of its name: two of one name would overwrite each other.
    let mut names: std::collections::HashMap<String, (String, String)> = Default::default();
    for (system, spec) in systems.iter().zip(&specs) {
        for (&timing, size) in timings.iter().zip(&a.sizes) {
            let name = study::curve_name(system, timing);
            if let Some((s0, z0)) = names.insert(name.clone(), (spec.clone(), size.clone())) {
                return Err(StudyError::Input(format!(
                    "systems {spec:?} with sizes {size:?} and systems {s0:?} with sizes {z0:?} \
                     would write the same files (latency-{name}.*, named by the system and M): \
                     give each system and M once"
                )));
            }
        }
    }
    for system in &systems {
        for &timing in &timings {
            let rates = study::loads(system, timing, a.points, a.beyond).map_err(|e| input(&e))?;
            Config {
                timing,
                rate: rates[0],
                messages: a.counts.messages,
                warmup: a.counts.warmup,
                drain: a.counts.drain,
                seed: a.seed,
                forwarding: settings.forwarding,
            }
            .check()
            .map_err(|e| input(&e))?;
            system
                .wiring()
                .map_err(|e| StudyError::Input(format!("systems: {e}")))?;
            curves.push((system.clone(), timing, rates));
        }
    }
    if a.replications == 0 {
        return Err(StudyError::Input(
            "replications: at least one replication is needed".into(),
        ));
    }
    Ok(Plan { curves, settings })
}

/// Simulates the items of `plan` that `owns` selects, in order, until `deadline`: the
/// load under way when it passes stops, and it and every later load give None (cut);
/// `log` gets a line as each curve and load starts.
fn simulate_items(
    plan: &Plan,
    owns: &dyn Fn(usize) -> bool,
    deadline: Option<Instant>,
    log: &mut dyn FnMut(String),
) -> Result<Vec<(usize, Option<liquid_flit::study::Simulated>)>, StudyError> {
    let input = |e: &dyn std::fmt::Display| StudyError::Input(e.to_string());
    let before = |d: Option<Instant>| d.is_none_or(|d| Instant::now() < d);
    let mut out = Vec::new();
    let items = plan.items();
    for (c, (system, timing, rates)) in plan.curves.iter().enumerate() {
        let mine: Vec<(usize, usize)> = items
            .iter()
            .enumerate()
            .filter(|&(i, &(ic, _))| ic == c && owns(i))
            .map(|(i, &(_, k))| (i, k))
            .collect();
        if mine.is_empty() {
            continue;
        }
        if !before(deadline) {
            out.extend(mine.iter().map(|&(i, _)| (i, None)));
            continue;
        }
        let n = rates.len();
        let some = if mine.len() == n {
            String::new()
        } else {
            format!("{} of ", mine.len())
        };
        log(format!(
            "{} M = {}: simulating {some}{n} loads up to λ_g = {:.3e}",
            system.spec(),
            timing.flits,
            rates[n - 1]
        ));
        let wiring = system
            .wiring()
            .map_err(|e| StudyError::Input(format!("systems: {e}")))?;
        let sim = Simulator::new(&wiring);
        for (i, k) in mine {
            if !before(deadline) {
                out.push((i, None));
                continue;
            }
            // A line when the simulator first reports on this load (long loads only).
            let mut announced = false;
            let s = liquid_flit::study::simulate_load(
                &sim,
                *timing,
                rates[k],
                plan.settings,
                &mut |_, _| {
                    if !announced {
                        announced = true;
                        log(format!(
                            "{} M = {}: load {}/{n} (λ_g = {:.3e})",
                            system.spec(),
                            timing.flits,
                            k + 1,
                            rates[k]
                        ));
                    }
                    before(deadline)
                },
            )
            .map_err(|e| input(&e))?;
            out.push((i, s));
        }
    }
    Ok(out)
}

/// The loads cut among `items` (item index, simulated or not), if any.
fn cut(plan: &Plan, items: &[(usize, bool)]) -> Option<Cut> {
    let index = plan.items();
    let mut curves = Vec::new();
    for (c, (system, timing, rates)) in plan.curves.iter().enumerate() {
        let ks: Vec<usize> = items
            .iter()
            .filter(|&&(i, done)| !done && index[i].0 == c)
            .map(|&(i, _)| index[i].1)
            .collect();
        if !ks.is_empty() {
            curves.push(format!(
                "`{}` M = {}: load{} {} of {}",
                system.spec(),
                timing.flits,
                if ks.len() == 1 { "" } else { "s" },
                ranges(&ks),
                rates.len()
            ));
        }
    }
    (!curves.is_empty()).then(|| Cut {
        simulated: items.iter().filter(|x| x.1).count(),
        owned: items.len(),
        curves,
    })
}

/// Writes every curve's CSV and SVG into `out` (and the Markdown report to `markdown`)
/// from every item's simulation (None: cut by the time limit), in item order; returns
/// the error table, followed by what was cut when the time limit cut loads. A cut curve
/// is drawn from its simulated loads; a curve without any is left out.
fn render(
    plan: &Plan,
    loads: Vec<Option<liquid_flit::study::Simulated>>,
    out: &Path,
    markdown: Option<&Path>,
) -> Result<Studied, StudyError> {
    use liquid_flit::study;
    let input = |e: &dyn std::fmt::Display| StudyError::Input(e.to_string());
    let done: Vec<(usize, bool)> = loads
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.is_some()))
        .collect();
    let cut = cut(plan, &done);
    let mut loads = loads.into_iter();
    let mut curves = Vec::new();
    let mut written = Vec::new();
    for (system, timing, rates) in &plan.curves {
        let mine: Vec<_> = loads.by_ref().take(rates.len()).flatten().collect();
        if mine.is_empty() {
            continue;
        }
        let curve = study::curve(system, *timing, plan.settings, &mine).map_err(|e| input(&e))?;
        let name = curve.name();
        for (ext, text) in [
            ("csv", curve.csv()),
            ("svg", curve.svg().map_err(|e| input(&e))?),
        ] {
            let path = out.join(format!("latency-{name}.{ext}"));
            std::fs::write(&path, text)
                .map_err(|e| StudyError::Failed(format!("cannot write {}: {e}", path.display())))?;
            written.push(path);
        }
        curves.push(curve);
    }
    let note = cut.as_ref().map(|c| format!("\n{c}\n")).unwrap_or_default();
    let table = format!("{}{note}", study::error_table(&curves));
    if let Some(md) = markdown {
        crate::outdir::not_a_written_file(md, &written)?;
        std::fs::write(md, format!("{}{note}", study::markdown(&curves)))
            .map_err(|e| StudyError::Failed(format!("cannot write {}: {e}", md.display())))?;
    }
    Ok(Studied { table, cut })
}

/// A whole study's (or a merge's) answer: the error table it prints, and the loads the
/// time limit cut (also said at the table's end).
#[derive(Debug, Clone)]
pub struct Studied {
    /// The error table, with [`Cut`]'s sentence after it when loads were cut.
    pub table: String,
    /// The loads the time limit cut, if any.
    pub cut: Option<Cut>,
}

/// The shard file's options of a study.
fn shard_params(a: &StudyParams) -> Result<serde_json::Value, StudyError> {
    let markdown = match &a.markdown {
        None => None,
        Some(p) => Some(
            p.file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| {
                    StudyError::Input(format!("markdown: {} has no file name", p.display()))
                })?
                .to_string(),
        ),
    };
    let p = ShardParams {
        systems: a.systems.clone(),
        sizes: a.sizes.clone(),
        points: a.points,
        beyond: a.beyond,
        messages: a.counts.messages,
        warmup: a.counts.warmup,
        drain: a.counts.drain,
        replications: a.replications,
        seed: a.seed,
        markdown,
    };
    serde_json::to_value(&p).map_err(StudyError::internal)
}

/// Paper 002's model (both readings of its source queues) against the flit-level
/// simulation, curve by curve (`liquid_flit::study`): writes each curve's CSV and SVG
/// into `a.out` (and the Markdown report when asked) and returns the table of relative
/// errors. Every curve's loads and the run parameters are checked before the first
/// simulation; `log` gets a line as each curve and load starts. Past `a.time_limit`
/// (counted from the call) the load under way stops and no later one starts: the report
/// covers the loads simulated and says which were cut ([`Studied::cut`]; with `shard`,
/// the second value).
///
/// With `shard`, runs only that shard of the study's loads (every load of every curve is
/// one item) and writes `latency-study-shard-I-of-N.json` into `a.out`; [`merge`] joins
/// the shards into the files and table of the unsharded run, byte for byte (loads a
/// shard's time limit cut are marked so, and the merge lists them as cut).
pub fn study(
    a: &StudyParams,
    shard: Option<liquid_shard::Shard>,
    log: &mut dyn FnMut(String),
) -> Result<(crate::Swept<Studied>, Option<Cut>), StudyError> {
    let deadline = crate::simulate::deadline_in(a.time_limit);
    let plan = plan(a)?;
    let params = match shard {
        Some(_) => Some(shard_params(a)?),
        None => None,
    };
    let dir = crate::outdir::for_sweep(&a.out, shard.is_some())?;
    let owns = |i: usize| shard.is_none_or(|s| s.owns(i));
    let done = simulate_items(&plan, &owns, deadline, log)?;
    match (shard, params) {
        (Some(s), Some(params)) => {
            let cut = cut(
                &plan,
                &done
                    .iter()
                    .map(|(i, l)| (*i, l.is_some()))
                    .collect::<Vec<_>>(),
            );
            let items = plan.items();
            let items: Vec<liquid_shard::Item<LoadResult>> = done
                .into_iter()
                .map(|(i, sim)| liquid_shard::Item {
                    index: i,
                    key: plan.key(items[i]),
                    result: LoadResult::of(plan.curves[items[i].0].2[items[i].1], sim),
                })
                .collect();
            let total = plan.items().len();
            let written = crate::ShardWritten::write(&a.out, SWEEP, &params, s, total, items)?;
            Ok((crate::Swept::Shard(written), cut))
        }
        _ => {
            let loads = done.into_iter().map(|(_, s)| s).collect();
            let studied = render(&plan, loads, &a.out, a.markdown.as_deref())?;
            if let Some(d) = dir {
                d.finish()?;
            }
            let cut = studied.cut.clone();
            Ok((crate::Swept::Full(studied), cut))
        }
    }
}

/// Joins the shard files of one [`study`] run (read and checked by `liquid_shard::merge_any`): checks
/// that every shard is there once and belongs to the run, and that every item is the load
/// its index names (same curve, same rate), then writes every curve's CSV and SVG (and
/// the Markdown report, by its file name, when the run asked for one) into `out` exactly
/// as the unsharded run does, and returns the error table.
pub(crate) fn merge(
    merged: liquid_shard::Merged<LoadResult>,
    out: &Path,
) -> Result<Studied, StudyError> {
    let p: ShardParams = serde_json::from_value(merged.params.clone())
        .map_err(|e| StudyError::Input(format!("shards of {SWEEP}: params: {e}")))?;
    let markdown = p
        .markdown
        .as_ref()
        .map(|name| crate::outdir::shard_file_in(out, "markdown", name))
        .transpose()
        .map_err(|e| StudyError::Input(format!("shards of {SWEEP}: {e}")))?;
    let a = StudyParams {
        out: out.to_path_buf(),
        systems: p.systems,
        sizes: p.sizes,
        points: p.points,
        beyond: p.beyond,
        counts: MessageCounts {
            messages: p.messages,
            warmup: p.warmup,
            drain: p.drain,
        },
        replications: p.replications,
        seed: p.seed,
        markdown: markdown.clone(),
        time_limit: None,
    };
    let plan = plan(&a).map_err(|e| StudyError::Input(format!("shards of {SWEEP}: {e}")))?;
    let items = plan.items();
    if merged.items.len() != items.len() {
        return Err(StudyError::Input(format!(
            "shards of {SWEEP}: {} loads, the study's options give {}",
            merged.items.len(),
            items.len()
        )));
    }
    let mut loads = Vec::with_capacity(items.len());
    for (item, &ck) in merged.items.into_iter().zip(&items) {
        let key = plan.key(ck);
        let rate = plan.curves[ck.0].2[ck.1];
        if item.key != key || item.result.rate.to_bits() != rate.to_bits() {
            return Err(StudyError::Input(format!(
                "shards of {SWEEP}: item {} is {:?} at λ_g = {:e}, the study's is {key:?}",
                item.index, item.key, item.result.rate
            )));
        }
        item.result.recheck(p.replications).map_err(|e| {
            StudyError::Input(format!(
                "shards of {SWEEP}: item {} ({key}): {e}",
                item.index
            ))
        })?;
        loads.push(item.result.simulated());
    }
    let dir = crate::outdir::prepare(out)?;
    let table = render(&plan, loads, out, markdown.as_deref())?;
    dir.finish()?;
    Ok(table)
}
