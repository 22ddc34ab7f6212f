//! A schedule (a file's, an engine's, or the whole traffic at once) on the flow-level
//! simulator of `liquid-sim` ([`simulate`], `liquid simulate`), and the same platform and
//! plan for SimGrid ([`export_simgrid`], `liquid export simgrid`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use liquid_model::network::{LinkParams, Network};
use liquid_model::{Schedule, Traffic};
use liquid_sim::{MappedTraffic, Mode, Plan};
use serde::Serialize;

use crate::{Solver, StudyError};

/// Everything a simulation or an export takes besides the model.
#[derive(Clone)]
pub struct SimArgs {
    /// A schedule file to run.
    pub schedule: Option<PathBuf>,
    /// An engine whose schedule to run.
    pub engine: Option<&'static dyn liquid_engine::Engine>,
    /// Engine options (limits, seed).
    pub request: liquid_engine::Request,
    /// How to run the schedule.
    pub mode: Mode,
    /// Bytes per transfer.
    pub size: f64,
    /// Whether the user gave `size` (`--size`): with `sizes`, the transfers the file
    /// leaves out then take it; otherwise they are an error.
    pub size_given: bool,
    /// Per-transfer sizes, a `src,dst,bytes` CSV or a YAML mapping `transfer id: bytes`.
    pub sizes: Option<PathBuf>,
    /// Software overhead per message, seconds.
    pub overhead: f64,
    /// Overrides the model-wide link bandwidth (MB/s).
    pub link_throughput: Option<f64>,
    /// Overrides the model-wide link latency (s).
    pub link_latency: Option<f64>,
}

/// A model with its physical parameters, from a file or a generated-model spec.
struct Model {
    traffic: Traffic,
    network: Option<Network>,
    link_params: Vec<LinkParams>,
    link_latency: Option<f64>,
}

fn load_model(arg: &Path) -> Result<Model, StudyError> {
    if let Some(s) = arg.to_str() {
        if s.starts_with("fat-tree:") || s.starts_with("multi-cluster:") {
            // Built directly (no network form, see `input::load_traffic`): these generators
            // give no link its own parameters, so the model-wide ones apply to every link,
            // as they would through the network form.
            return Ok(Model {
                traffic: crate::input::load_traffic(arg)?,
                network: None,
                link_params: Vec::new(),
                link_latency: None,
            });
        }
        if liquid_topology::spec::is_spec(s) {
            let generated = liquid_topology::spec::parse(s)
                .map_err(|e| StudyError::Input(e.to_string()))?
                .ok_or_else(|| StudyError::Input(format!("{s:?} is not a generated-model spec")))?;
            let traffic = generated.expand().map_err(|e| {
                StudyError::Failed(format!("generated model {s:?} does not expand: {e}"))
            })?;
            let n = generated.network.links.len();
            let mut link_params = generated.link_params;
            link_params.resize(n, LinkParams::default());
            return Ok(Model {
                traffic,
                network: Some(generated.network),
                link_params,
                link_latency: None,
            });
        }
    }
    crate::input::no_misspelt_spec(arg)?;
    let m = liquid_model::yaml::load_model_full(arg)?;
    Ok(Model {
        traffic: m.traffic,
        network: m.network,
        link_params: m.link_params,
        link_latency: m.link_latency,
    })
}

/// What `liquid expand` prints: the model in the explicit form (its `link_latency` kept),
/// with a warning for each figure the explicit form cannot hold: the links' own bandwidth
/// and latency, and the copies' virtual links, which become ordinary links (not physical
/// in the original: with a latency, `simulate` would add it on them).
pub fn expanded(arg: &Path) -> Result<(String, Vec<String>), StudyError> {
    let m = load_model(arg)?;
    let text = liquid_model::yaml::write_explicit_with_latency(&m.traffic, m.link_latency);
    let mut warnings = Vec::new();
    let own = m.link_params.iter().filter(|p| p.is_set()).count();
    if own > 0 {
        warnings.push(format!(
            "{own} links have their own bandwidth or latency, which the explicit form cannot \
             hold: dropped here (simulate and export the model itself, or its network form)"
        ));
    }
    let latency = m.link_latency.is_some_and(|l| l > 0.0)
        || m.link_params
            .iter()
            .any(|p| p.latency.is_some_and(|l| l > 0.0));
    let copies = m
        .traffic
        .link_ids()
        .filter(|&l| m.traffic.is_virtual(l))
        .count();
    if copies > 0 && latency {
        warnings.push(format!(
            "{copies} virtual links of `count:` copies become ordinary links here: with a \
             link latency, simulate adds it on them (the original's are not physical)"
        ));
    }
    Ok((text, warnings))
}

/// Bandwidth (bytes/s) and latency (s) of every physical link by name; virtual links (the
/// copies' links of the network form) are absent.
fn link_table(model: &Model, args: &SimArgs) -> Result<HashMap<String, (f64, f64)>, StudyError> {
    let wide_bw = args.link_throughput.or(model.traffic.link_throughput());
    let wide_lat = args.link_latency.or(model.link_latency).unwrap_or(0.0);
    let resolve = |name: &str, p: LinkParams| -> Result<(f64, f64), StudyError> {
        let bw = p.bandwidth.or(wide_bw).ok_or_else(|| {
            StudyError::Input(format!(
                "link {name:?} has no bandwidth: give the model a link_throughput, the link a \
                 bandwidth, or pass --link-throughput"
            ))
        })?;
        Ok((bw * 1e6, p.latency.unwrap_or(wide_lat)))
    };
    let mut table = HashMap::new();
    match &model.network {
        Some(net) => {
            for (l, p) in net.links.iter().zip(&model.link_params) {
                table.insert(l.id.clone(), resolve(&l.id, *p)?);
            }
            // --link-throughput is for the links without their own bandwidth: refused
            // when there is none, where it would change nothing.
            if args.link_throughput.is_some()
                && !net.links.is_empty()
                && model.link_params.iter().all(|p| p.bandwidth.is_some())
            {
                return Err(StudyError::Input(format!(
                    "--link-throughput changes nothing: every link of model {:?} has its own \
                     bandwidth (the links' `bandwidth` fields)",
                    model.traffic.name()
                )));
            }
        }
        // A copy's virtual link (`count`) only tells the copies apart: no hop, so no
        // bandwidth or latency, as in the network form (where it is in no table).
        None => {
            for l in model
                .traffic
                .link_ids()
                .filter(|&l| !model.traffic.is_virtual(l))
            {
                let name = model.traffic.link_name(l);
                table.insert(name.to_string(), resolve(name, LinkParams::default())?);
            }
        }
    }
    Ok(table)
}

fn check_args(args: &SimArgs) -> Result<(), StudyError> {
    let bad = |what: &str, v: f64| {
        StudyError::Input(format!("{what} must be finite and not negative, not {v}"))
    };
    if !(args.size.is_finite() && args.size >= 0.0) {
        return Err(bad("--size", args.size));
    }
    if !(args.overhead.is_finite() && args.overhead >= 0.0) {
        return Err(bad("--overhead", args.overhead));
    }
    if let Some(l) = args.link_latency {
        if !(l.is_finite() && l >= 0.0) {
            return Err(bad("--link-latency", l));
        }
    }
    if let Some(b) = args.link_throughput {
        if !(b > 0.0 && (b * 1e6).is_normal()) {
            return Err(StudyError::Input(format!(
                "--link-throughput {b}: give a positive bandwidth whose bytes per second are a finite number"
            )));
        }
    }
    if args.schedule.is_some() && args.engine.is_some() {
        return Err(StudyError::Input(
            "give --schedule or --engine, not both".into(),
        ));
    }
    Ok(())
}

/// `--size` for every transfer, or the sizes of `--sizes` (a `src,dst,bytes` CSV or a
/// YAML mapping `transfer id: bytes`, read by [`liquid_alltoallv::sizes::load`]: each
/// pair once, positive whole bytes, every error with its line). A transfer the file
/// leaves out is an error, as in `solve` and `analyze`, unless `--size` was given: then
/// it takes that size, and stderr says how many did.
fn load_sizes(traffic: &Traffic, args: &SimArgs) -> Result<Vec<f64>, StudyError> {
    let Some(path) = &args.sizes else {
        return Ok(vec![args.size; traffic.len()]);
    };
    use liquid_alltoallv::sizes::Missing;
    let missing = match args.size_given {
        // Exact: --size is a whole number of bytes of at most 2^53.
        true => Missing::Default(args.size as u64),
        false => Missing::Error,
    };
    let sizes = liquid_alltoallv::sizes::load(path, traffic, missing)?;
    // Exact: --size is a whole number of bytes of at most 2^53.
    crate::alltoallv::note_defaulted(
        sizes.defaulted,
        traffic.len(),
        &path.display().to_string(),
        args.size as u64,
    );
    Ok(sizes.bytes.into_iter().map(|b| b as f64).collect())
}

/// Where the schedule came from, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleInfo {
    source: String,
    length: usize,
    duration: usize,
    liquid: bool,
    /// Whether no two transfers of a timeframe share a link.
    simultaneous: bool,
}

/// The schedule to run: a file, an engine's, or (all-at-once without either) the traffic
/// in model order as one frame. The engine is called from this one place.
fn get_schedule(
    traffic: &Traffic,
    args: &SimArgs,
    solve: Solver<'_>,
) -> Result<(Schedule, String), StudyError> {
    if let Some(path) = &args.schedule {
        let s = liquid_model::yaml::load_partition(path, traffic)?;
        return Ok((s, path.display().to_string()));
    }
    let find = |name: &str| {
        liquid_engine::find(name).ok_or_else(|| StudyError::Input(format!("no engine {name:?}")))
    };
    let engine = match (args.engine, args.mode) {
        (Some(e), _) => e,
        (None, Mode::AllAtOnce) => {
            let all = traffic.transfer_ids().collect();
            return Ok((
                Schedule::new(vec![all]),
                "traffic order (no schedule)".into(),
            ));
        }
        (None, _) => {
            // A generated machine's all-to-all with a closed form: that liquid schedule,
            // through the gate like any engine's; the closed-form engine refuses every
            // other traffic (an input it does not take), which goes to the native engine.
            let closed = find(liquid_engine::engines::closed_form::NAME)?;
            match solve(traffic, closed, &args.request) {
                Ok(c) => {
                    if let Some(s) = c.into_outcome().into_schedule() {
                        return Ok((s, format!("engine {}", closed.name())));
                    }
                }
                Err(liquid_engine::SolveError::Input(_)) => {}
                Err(e) => return Err(e.into()),
            }
            // From REPAIR_FIRST transfers up the portfolio, whose repair and first fit are
            // near linear there: native's search took the whole half of the limit on a
            // transfer with `count: 100000` before the portfolio ran.
            if traffic.len() >= liquid_engine::engines::portfolio::REPAIR_FIRST {
                find(liquid_engine::DEFAULT_ENGINE)?
            } else {
                find("native")?
            }
        }
    };
    // By default the native engine gets half of the time limit, and a traffic it finds
    // non-liquid, or leaves undecided without a schedule, gets the portfolio's best
    // schedule within half the time left, the rest for the simulation: the user asked to
    // run a schedule, not to decide liquidity (before, native's `unknown` on torus:8x8,2
    // was an error after the whole 300 s).
    let start = Instant::now();
    let within = |time: Option<std::time::Duration>| liquid_engine::Request {
        limits: liquid_model::Limits {
            time,
            ..args.request.limits
        },
        ..args.request
    };
    let default = args.engine.is_none();
    let first = if default {
        within(args.request.limits.time.map(|t| t / 2))
    } else {
        args.request
    };
    let mut checked = solve(traffic, engine, &first)?;
    let undecided = checked.verdict() == liquid_model::Verdict::NonLiquid
        || checked.outcome().schedule().is_none();
    let engine = if default && undecided && engine.name() != liquid_engine::DEFAULT_ENGINE {
        let portfolio = find(liquid_engine::DEFAULT_ENGINE)?;
        let rest = (args.request.limits.time).map(|t| t.saturating_sub(start.elapsed()) / 2);
        checked = solve(traffic, portfolio, &within(rest))?;
        portfolio
    } else {
        engine
    };
    let verdict = checked.verdict();
    let Some(s) = checked.into_outcome().into_schedule() else {
        return Err(no_schedule(engine.name(), verdict));
    };
    if verdict == liquid_model::Verdict::Unknown {
        // The run goes on with the best schedule found, but not as if it were the
        // engine's answer: `solve` says the same on stderr.
        eprintln!(
            "warning: a limit stopped engine {} before it settled the traffic: the schedule \
             run is the best it found ({} timeframes, Λ = {}), not known optimal; raise \
             --time-limit",
            engine.name(),
            s.len(),
            traffic.duration()
        );
        let source = format!(
            "engine {} (stopped by its limit: verdict unknown)",
            engine.name()
        );
        return Ok((s, source));
    }
    Ok((s, format!("engine {}", engine.name())))
}

/// Checks that a schedule is a partition of the traffic (every transfer exactly once, no
/// empty frame) and says whether its frames are simultaneous.
fn schedule_info(
    traffic: &Traffic,
    s: &Schedule,
    source: String,
) -> Result<ScheduleInfo, StudyError> {
    let mut seen = vec![false; traffic.len()];
    for (i, f) in s.frames.iter().enumerate() {
        if f.is_empty() {
            return Err(StudyError::Input(format!(
                "{source}: timeframe {} is empty",
                i + 1
            )));
        }
        for &t in f {
            if std::mem::replace(&mut seen[t.index()], true) {
                return Err(StudyError::Input(format!(
                    "{source}: transfer {:?} appears twice",
                    traffic.transfer_name(t)
                )));
            }
        }
    }
    if let Some(t) = seen.iter().position(|&x| !x) {
        return Err(StudyError::Input(format!(
            "{source}: transfer {:?} is in no timeframe",
            traffic.transfers()[t].id
        )));
    }
    let simultaneous = liquid_model::validate(traffic, s).is_ok();
    Ok(ScheduleInfo {
        source,
        length: s.frames.len(),
        duration: traffic.duration(),
        liquid: simultaneous && s.frames.len() == traffic.duration(),
        simultaneous,
    })
}

/// A model, its mapped platform, the schedule and the plan, ready to run or export.
struct Prepared {
    model: Model,
    mapped: MappedTraffic,
    sizes: Vec<f64>,
    info: ScheduleInfo,
    plan: Plan,
    schedule: Schedule,
}

/// (bandwidth in bytes/s, latency in s) of each link of a traffic.
pub(crate) type LinkParamsPerLink = Vec<(f64, f64)>;

/// A model on its platform: the traffic, its routes on the simulator's links, and each
/// traffic link's (bandwidth in bytes/s, latency in s); virtual links (the copies' links of
/// a network-form model) are infinitely fast and without latency. `link_throughput` (MB/s)
/// and `link_latency` (s) apply to the links without their own, over the model's.
pub(crate) fn load_mapped(
    model_arg: &Path,
    link_throughput: Option<f64>,
    link_latency: Option<f64>,
) -> Result<(Traffic, MappedTraffic, LinkParamsPerLink), StudyError> {
    let args = SimArgs {
        schedule: None,
        engine: None,
        request: liquid_engine::Request::default(),
        mode: Mode::Frames,
        size: 0.0,
        size_given: false,
        sizes: None,
        overhead: 0.0,
        link_throughput,
        link_latency,
    };
    check_args(&args)?;
    let model = load_model(model_arg)?;
    let table = link_table(&model, &args)?;
    let traffic = model.traffic;
    let mapped = MappedTraffic::new(&traffic, |name| table.get(name).copied())
        .map_err(|e| StudyError::Input(e.to_string()))?;
    let links = traffic
        .link_ids()
        .map(|l| {
            table
                .get(traffic.link_name(l))
                .copied()
                .unwrap_or((f64::INFINITY, 0.0))
        })
        .collect();
    Ok((traffic, mapped, links))
}

fn prepare(model_arg: &Path, args: &SimArgs, solve: Solver<'_>) -> Result<Prepared, StudyError> {
    check_args(args)?;
    let model = load_model(model_arg)?;
    let table = link_table(&model, args)?;
    let traffic = &model.traffic;
    let mapped = MappedTraffic::new(traffic, |name| table.get(name).copied())
        .map_err(|e| StudyError::Input(e.to_string()))?;
    let sizes = load_sizes(traffic, args)?;
    let (schedule, source) = get_schedule(traffic, args, solve)?;
    let info = schedule_info(traffic, &schedule, source)?;
    let plan = liquid_sim::from_schedule(traffic, &mapped.routes, &sizes, &schedule, args.mode)
        .map_err(StudyError::internal)?;
    Ok(Prepared {
        model,
        mapped,
        sizes,
        info,
        plan,
        schedule,
    })
}

/// How far a simulation got before the time limit stopped it (the simulator's own report).
pub use liquid_sim::Stopped;

/// [`run_within`] with the default transport on what the user gave: a size, latency or
/// bandwidth whose times or totals overflow is an input error naming `options`.
fn run_given(
    platform: &liquid_sim::Platform,
    plan: &Plan,
    opts: &liquid_sim::Options,
    deadline: Option<Instant>,
    progress: &dyn Fn(&str),
    options: &str,
) -> Result<Result<liquid_sim::Run, Stopped>, StudyError> {
    let transport = liquid_sim::Transport::default();
    run_within(platform, plan, opts, &transport, deadline, Some(progress)).map_err(|e| match e {
        liquid_sim::SimError::BadParameter { .. } => StudyError::Input(format!("{e} ({options})")),
        e => StudyError::internal(e),
    })
}

/// Runs `plan` on `platform` until `deadline` ([`liquid_sim::simulate_controlled`]): the
/// run, or (`Err`) how far it got when the deadline came first. `progress`, when given,
/// is told the simulated time reached (`simulating: 0.0123 s simulated`) at most every
/// [`liquid_mpi::model::PROGRESS_EVERY`]. Every other error of the simulator is returned as it
/// is.
pub(crate) fn run_within(
    platform: &liquid_sim::Platform,
    plan: &Plan,
    opts: &liquid_sim::Options,
    transport: &liquid_sim::Transport,
    deadline: Option<Instant>,
    progress: Option<&dyn Fn(&str)>,
) -> Result<Result<liquid_sim::Run, Stopped>, liquid_sim::SimError> {
    let last = std::cell::Cell::new(None::<Instant>);
    let say = |simulated: f64| {
        let Some(progress) = progress else { return };
        let now = Instant::now();
        if last
            .get()
            .is_some_and(|t| now.duration_since(t) < liquid_mpi::model::PROGRESS_EVERY)
        {
            return;
        }
        last.set(Some(now));
        progress(&format!("simulating: {simulated:.6} s simulated"));
    };
    let control = liquid_sim::Control {
        start: 0.0,
        deadline,
        progress: progress.is_some().then_some(&say as &dyn Fn(f64)),
    };
    match liquid_sim::simulate_controlled(platform, plan, opts, transport, &control) {
        Ok(run) => Ok(Ok(run)),
        Err(liquid_sim::SimError::TimeLimit(stopped)) => Ok(Err(stopped)),
        Err(e) => Err(e),
    }
}

/// The instant `limit` after now (None: no limit, or one too far to represent).
pub(crate) fn deadline_in(limit: Option<std::time::Duration>) -> Option<Instant> {
    limit.and_then(|t| Instant::now().checked_add(t))
}

/// One frame of a simulated schedule: its transfers' span.
#[derive(Serialize)]
pub struct FrameReport {
    frame: usize,
    transfers: usize,
    start_s: f64,
    end_s: f64,
}

/// What a simulation found.
#[derive(Serialize)]
pub struct SimReport {
    model: String,
    mode: &'static str,
    schedule: ScheduleInfo,
    transfers: usize,
    links: usize,
    total_bytes: f64,
    overhead_s: f64,
    /// When the last message was delivered, seconds; null when the time limit stopped the
    /// simulation first ([`SimReport::stopped`]).
    makespan_s: Option<f64>,
    /// Null when the time limit stopped the simulation.
    throughput_mb_s: Option<f64>,
    /// #X / Λ × the links' bandwidth, when every link has the same bandwidth (absent when
    /// they differ: no single liquid throughput then).
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid_throughput_mb_s: Option<f64>,
    /// max over links of bytes on the link / its bandwidth: no plan can beat it.
    link_bound_s: f64,
    /// Events and bandwidth reallocations of the simulation (absent when it was stopped).
    #[serde(skip_serializing_if = "Option::is_none")]
    events: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reallocations: Option<u64>,
    /// Wall time of the simulation proper (not loading, not the engine), seconds.
    wall_s: f64,
    /// Where the time limit stopped the simulation (absent: it ran to the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<Stopped>,
    /// Every frame's span (empty when the simulation was stopped).
    frames: Vec<FrameReport>,
}

impl SimReport {
    /// When the last message was delivered, seconds (None: the time limit stopped the
    /// simulation first).
    pub fn makespan_s(&self) -> Option<f64> {
        self.makespan_s
    }

    /// Where the time limit stopped the simulation, said for people (None: it ran to the
    /// end).
    pub fn stopped(&self) -> Option<String> {
        self.stopped.as_ref().map(|s| {
            format!(
                "{}: the report has no makespan_s; raise --time-limit for the whole run",
                s.describe("the schedule")
            )
        })
    }
}

/// Frames: the union of the spans of the steps of each group.
fn frame_spans(plan: &Plan, run: &liquid_sim::Run) -> Vec<FrameReport> {
    let mut frames: Vec<FrameReport> = Vec::new();
    for (s, step) in plan.steps.iter().enumerate() {
        let g = step.group.unwrap_or(0);
        while frames.len() <= g {
            frames.push(FrameReport {
                frame: frames.len() + 1,
                transfers: 0,
                start_s: f64::INFINITY,
                end_s: 0.0,
            });
        }
        let f = &mut frames[g];
        f.transfers += step.messages.len();
        f.start_s = f.start_s.min(run.steps[s].start);
        f.end_s = f.end_s.max(run.steps[s].end);
    }
    frames
}

/// Runs the schedule of `args` on the model's platform and reports the makespan and the
/// throughput, frame by frame; with `plot`, draws the timeline into that SVG file.
/// `solve` runs the engine when the schedule is an engine's.
///
/// `args.request.limits.time` bounds the whole call, the engine and the simulation: when
/// the simulation is still running at that instant it stops, and the report says how far
/// it got ([`SimReport::stopped`]) with a null makespan (and no timeline drawn).
/// `progress` is told what runs, for progress on stderr.
pub fn simulate(
    model_arg: &Path,
    args: &SimArgs,
    plot: Option<&Path>,
    solve: Solver<'_>,
    progress: &dyn Fn(&str),
) -> Result<SimReport, StudyError> {
    let deadline = deadline_in(args.request.limits.time);
    progress("making the schedule");
    let p = prepare(model_arg, args, solve)?;
    let opts = liquid_sim::Options {
        overhead: args.overhead,
        trace: plot.is_some(),
    };
    let start = Instant::now();
    let run = run_given(
        &p.mapped.platform,
        &p.plan,
        &opts,
        deadline,
        progress,
        "--size, --sizes, --overhead, --link-latency or --link-throughput",
    )?;
    let wall_s = start.elapsed().as_secs_f64();
    let traffic = &p.model.traffic;
    let total_bytes: f64 = p.sizes.iter().sum();
    let platform = &p.mapped.platform;
    let mut on_link = vec![0.0; platform.links().len()];
    for (t, route) in p.mapped.routes.iter().enumerate() {
        for &l in route {
            on_link[l as usize] += p.sizes[t];
        }
    }
    let link_bound_s = on_link
        .iter()
        .zip(platform.links())
        .map(|(b, l)| b / l.bandwidth)
        .fold(0.0, f64::max);
    // The liquid throughput (#X / Λ × the links' bandwidth) is that of links of one
    // bandwidth: from the simulated links' real bandwidths, none when they differ.
    let bandwidths: Vec<f64> = platform.links().iter().map(|l| l.bandwidth).collect();
    let link_throughput = match bandwidths.split_first() {
        Some((&b, rest)) if rest.iter().all(|&o| o == b) => Some(b / 1e6),
        _ => None,
    };
    let report = SimReport {
        model: traffic.name().to_string(),
        mode: args.mode.name(),
        schedule: p.info.clone(),
        transfers: traffic.len(),
        links: platform.links().len(),
        total_bytes,
        overhead_s: args.overhead,
        makespan_s: run.as_ref().ok().map(|r| r.makespan),
        throughput_mb_s: run.as_ref().ok().map(|r| {
            if r.makespan > 0.0 {
                total_bytes / r.makespan / 1e6
            } else {
                0.0
            }
        }),
        liquid_throughput_mb_s: link_throughput.map(|t| t * traffic.liquid_ratio()),
        link_bound_s,
        events: run.as_ref().ok().map(|r| r.events),
        reallocations: run.as_ref().ok().map(|r| r.reallocations),
        wall_s,
        stopped: run.as_ref().err().cloned(),
        frames: run
            .as_ref()
            .map_or_else(|_| Vec::new(), |r| frame_spans(&p.plan, r)),
    };
    if let (Some(path), Ok(run)) = (plot, &run) {
        crate::write(path, timeline(&report, platform, run))?;
    }
    Ok(report)
}

/// The timeline of a simulation (`simulate --plot`).
fn timeline(r: &SimReport, platform: &liquid_sim::Platform, run: &liquid_sim::Run) -> String {
    use liquid_plot::timeline::{Frame, Segment, Timeline};
    let frames: Vec<Frame> = r
        .frames
        .iter()
        .map(|f| Frame {
            frame: f.frame,
            transfers: f.transfers,
            start_s: f.start_s,
            end_s: f.end_s,
        })
        .collect();
    let segments: Vec<Segment> = run
        .trace
        .iter()
        .map(|s| Segment {
            start: s.start,
            throughput: s.throughput,
            links: s.links.clone(),
        })
        .collect();
    Timeline {
        title: format!(
            "{} — {} mode, makespan {:.6} s, {:.2} MB/s (liquid {})",
            r.model,
            r.mode,
            r.makespan_s.unwrap_or(f64::NAN),
            r.throughput_mb_s.unwrap_or(f64::NAN),
            r.liquid_throughput_mb_s
                .map_or("n/a".to_string(), |t| format!("{t:.2} MB/s"))
        ),
        frames: &frames,
        links: platform.links().iter().map(|l| l.name.as_str()).collect(),
        segments: &segments,
        makespan_s: r.makespan_s.unwrap_or(f64::NAN),
    }
    .to_svg()
}

/// What `export simgrid` wrote.
#[derive(Serialize)]
pub struct Written {
    platform: String,
    plan: String,
    hosts: usize,
    /// Routers (the one-hop platform for ns-3 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    routers: Option<usize>,
    links: usize,
    routes: usize,
    steps: usize,
    messages: usize,
}

/// Writes `out/platform.xml` (hosts, links with bandwidth and latency, every used route as
/// an explicit one-way `<route>`; with `one_hop`, the variant for SimGrid's ns-3 model,
/// [`liquid_sim::simgrid::one_hop_platform`]) and `out/plan.json` (the plan [`simulate`]
/// would run, with host names), and says what they hold.
pub fn export_simgrid(
    model_arg: &Path,
    args: &SimArgs,
    one_hop: bool,
    out: &Path,
    solve: Solver<'_>,
) -> Result<Written, StudyError> {
    let p = prepare(model_arg, args, solve)?;
    let traffic = &p.model.traffic;
    let sg = liquid_sim::simgrid::export(traffic, &p.mapped, &p.plan, args.mode, args.overhead)
        .map_err(|e| match e {
            liquid_sim::SimError::Export(m) => StudyError::Input(m),
            e => StudyError::internal(e),
        })?;
    let hop = if one_hop {
        Some(
            liquid_sim::simgrid::one_hop_platform(traffic, &p.mapped).map_err(|e| match e {
                liquid_sim::SimError::Export(m) => StudyError::Input(m),
                e => StudyError::internal(e),
            })?,
        )
    } else {
        None
    };
    let dir = crate::outdir::prepare(out)?;
    let xml_path = out.join("platform.xml");
    let (xml, routes) = match &hop {
        Some(h) => (h.platform_xml.clone(), h.routes),
        None => (sg.platform_xml, sg.routes),
    };
    crate::write(&xml_path, xml)?;
    let plan_path = out.join("plan.json");
    crate::write(&plan_path, sg.plan_json)?;
    dir.finish()?;
    Ok(Written {
        platform: xml_path.display().to_string(),
        plan: plan_path.display().to_string(),
        hosts: sg.hosts,
        routers: hop.as_ref().map(|h| h.routers),
        links: p.mapped.platform.links().len()
            + hop
                .as_ref()
                .map_or(0, |h| h.routes - p.mapped.platform.links().len()),
        routes,
        steps: p.plan.steps.len(),
        messages: p.plan.messages(),
    })
}

/// `liquid export mpi`: the plan `kind` of a model (its schedule from `args` as
/// [`simulate`] gets it, for a schedule plan) for the MPI runtime of `liquid-mpi`, written to
/// `out` with liquid's prediction of the same plan.
///
/// `kind` `None` runs the schedule in `args.mode`. A schedule plan run all at once posts
/// the whole traffic when `args` name no schedule; round-robin, pairwise and LG are built
/// from the traffic alone and take no schedule or engine.
///
/// `args.request.limits.time` bounds the whole command: the prediction stops at what the
/// engine left of it (the program is written all the same, its manifest saying where the
/// prediction stopped). `progress` is told what runs, for progress on stderr.
pub fn export_mpi(
    model_arg: &Path,
    args: &SimArgs,
    kind: Option<liquid_mpi::PlanKind>,
    library: liquid_mpi::RuntimeModel,
    out: &Path,
    solve: Solver<'_>,
    progress: &dyn Fn(&str),
) -> Result<liquid_mpi::Exported, StudyError> {
    use liquid_mpi::program::ScheduleMode;
    use liquid_mpi::PlanKind;
    let deadline = args
        .request
        .limits
        .time
        .and_then(|t| std::time::Instant::now().checked_add(t));
    let mut args = args.clone();
    let kind = match kind {
        None => PlanKind::Schedule(match args.mode {
            Mode::Frames => ScheduleMode::Frames,
            Mode::Async => ScheduleMode::Async,
            Mode::AllAtOnce => ScheduleMode::AllAtOnce,
        }),
        Some(k @ PlanKind::Schedule(ScheduleMode::AllAtOnce)) => {
            if args.mode == Mode::Async {
                return Err(StudyError::Input(
                    "--plan all-at-once posts everything at once: give no --mode async".into(),
                ));
            }
            args.mode = Mode::AllAtOnce;
            k
        }
        Some(PlanKind::Schedule(m)) => PlanKind::Schedule(m),
        // Every plan named, no catch-all: a new plan must say here what it takes.
        Some(k @ (PlanKind::RoundRobin | PlanKind::Pairwise | PlanKind::Lg)) => {
            // `--mode frames` is the default, which cannot be told from none given.
            if args.schedule.is_some() || args.engine.is_some() || args.mode != Mode::Frames {
                return Err(StudyError::Input(
                    "--plan round-robin, pairwise and lg take no --schedule, --engine or --mode"
                        .into(),
                ));
            }
            // No engine run: the plans are built from the traffic alone.
            args.mode = Mode::AllAtOnce;
            k
        }
        Some(PlanKind::LgLiquid) => {
            if args.schedule.is_some() {
                return Err(StudyError::Input(
                    "--plan lg-liquid takes no --schedule: --engine schedules LG's phases".into(),
                ));
            }
            PlanKind::LgLiquid
        }
    };
    let args = &args;
    // LG's liquid phases are scheduled here, the model's own traffic not at all.
    let phases = kind == PlanKind::LgLiquid;
    let mut model_args = args.clone();
    if phases {
        model_args.engine = None;
        model_args.mode = Mode::AllAtOnce;
    }
    progress("loading the model and scheduling it");
    let p = prepare(model_arg, &model_args, solve)?;
    let phase_engine = match args.engine {
        Some(e) => Some(e),
        None if phases => Some(
            liquid_engine::find("native")
                .ok_or_else(|| StudyError::Input("no engine \"native\"".into()))?,
        ),
        None => None,
    };
    let phase = |t: &Traffic| -> Result<(Schedule, String), String> {
        let engine = phase_engine.ok_or("no engine")?;
        let checked = solve(t, engine, &args.request).map_err(|e| e.to_string())?;
        let verdict = checked.verdict();
        match checked.into_outcome().into_schedule() {
            Some(s) => Ok((s, format!("engine {}", engine.name()))),
            None => Err(format!(
                "engine {} found no schedule ({}); raise --time-limit",
                engine.name(),
                verdict.as_str()
            )),
        }
    };
    let input = liquid_mpi::ExportInput {
        traffic: &p.model.traffic,
        mapped: &p.mapped,
        sizes: &p.sizes,
        schedule: Some((&p.schedule, p.info.source.clone())),
        kind,
        overhead: args.overhead,
        library,
        phase_schedule: if phases { Some(&phase) } else { None },
        budget: liquid_mpi::Budget {
            deadline,
            progress: Some(progress),
        },
    };
    let dir = crate::outdir::prepare(out)?;
    let exported = liquid_mpi::export(&input, out).map_err(crate::mpi_error)?;
    dir.finish()?;
    Ok(exported)
}

/// What `liquid simulate --plan` found: an MPI library's all-to-all on the model.
#[derive(Serialize)]
pub struct MpiSimReport {
    model: String,
    plan: String,
    /// The algorithm the plan runs (a library's choice for this size and rank count).
    algorithm: String,
    /// The ranks, in order: the model's nodes as they first appear (sender, then
    /// receiver of each transfer).
    ranks: Vec<String>,
    bytes_per_pair: f64,
    messages: usize,
    total_bytes: f64,
    overhead_s: f64,
    /// Null when the time limit stopped the simulation first ([`MpiSimReport::stopped`]).
    makespan_s: Option<f64>,
    /// Wall time of building the plan's messages and simulating them.
    wall_s: f64,
    /// Where the time limit stopped the simulation (absent: it ran to the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<Stopped>,
}

impl MpiSimReport {
    /// Where the time limit stopped the simulation, said for people (None: it ran to the
    /// end).
    pub fn stopped(&self) -> Option<String> {
        self.stopped.as_ref().map(|s| {
            format!(
                "{}: the report has no makespan_s; raise --time-limit for the whole run",
                s.describe(&format!("--plan {}", self.plan))
            )
        })
    }
}

/// Why an engine asked for a schedule gave none: a limit came first (raise it), or it
/// decided the traffic is not liquid and schedules liquid traffics only (native,
/// structured: no limit helps, another engine does).
pub(crate) fn no_schedule(engine: &str, verdict: liquid_model::Verdict) -> StudyError {
    StudyError::Input(if verdict == liquid_model::Verdict::NonLiquid {
        format!(
            "engine {engine} found no schedule: the traffic is not liquid, and {engine} \
             schedules liquid traffics only; give an engine that schedules any traffic \
             (the default, portfolio, or dsatur) or --schedule"
        )
    } else {
        format!(
            "engine {engine} found no schedule ({}); raise --time-limit or give --schedule",
            verdict.as_str()
        )
    })
}

/// `liquid simulate MODEL --plan NAME`: the all-to-all of an MPI library (`mpi-ompi-1.1.2`,
/// `mpi-ompi-4.1`, `mpi-mpich-3.3`) or one of its algorithms (`basic-linear`, `pairwise`,
/// `pair`, `bruck`, `scattered-K`) between the model's nodes, `args.size` bytes per pair,
/// over the model's routes (every ordered pair of nodes needs a transfer). Every send is
/// eager (no transport: `liquid study two-clusters` runs the plans over one). A schedule,
/// an engine, `--sizes` or a `--mode` other than frames are refused: the plan is the
/// library's.
///
/// `args.request.limits.time` bounds the whole call: a simulation still running then
/// stops, the report saying how far it got with a null makespan. `progress` is told the
/// simulated time reached, for progress on stderr.
pub fn simulate_mpi(
    model_arg: &Path,
    args: &SimArgs,
    plan: &str,
    progress: &dyn Fn(&str),
) -> Result<MpiSimReport, StudyError> {
    use liquid_sim::mpi_alltoall::{Algorithm, Library};
    let deadline = deadline_in(args.request.limits.time);
    check_args(args)?;
    if args.schedule.is_some() || args.engine.is_some() || args.sizes.is_some() {
        return Err(StudyError::Input(
            "--plan runs an MPI library's all-to-all: give no --schedule, --engine or --sizes"
                .into(),
        ));
    }
    if args.mode != Mode::Frames {
        return Err(StudyError::Input("--plan takes no --mode".into()));
    }
    let model = load_model(model_arg)?;
    let table = link_table(&model, args)?;
    let traffic = &model.traffic;
    let mapped = MappedTraffic::new(traffic, |name| table.get(name).copied())
        .map_err(|e| StudyError::Input(e.to_string()))?;
    // Ranks in order of first appearance; the first transfer of each ordered pair, in a
    // dense rank-by-rank table (a hash map of the pairs was a fifth of the run at 1,024
    // ranks; the table holds p² words, as the all-to-all holds p² transfers).
    let mut ranks: Vec<String> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut ends: Vec<(usize, usize)> = Vec::with_capacity(traffic.len());
    for x in traffic.transfers() {
        let (Some(f), Some(to)) = (&x.from, &x.to) else {
            return Err(StudyError::Input(format!(
                "--plan: transfer {:?} names no sender or receiver node",
                x.id
            )));
        };
        let mut ij = [0; 2];
        for (k, n) in [f.as_str(), to.as_str()].into_iter().enumerate() {
            ij[k] = match index.get(n) {
                Some(&r) => r,
                None => {
                    ranks.push(n.to_string());
                    index.insert(n, ranks.len() - 1);
                    ranks.len() - 1
                }
            };
        }
        ends.push((ij[0], ij[1]));
    }
    let p = ranks.len();
    let no_pair = |i: usize, j: usize| {
        StudyError::Input(format!(
            "--plan: no transfer from {} to {}: an all-to-all needs every ordered pair",
            ranks[i], ranks[j]
        ))
    };
    if p.saturating_mul(p.saturating_sub(1)) > ends.len() {
        // Too few transfers for the table: the first missing pair is among the first
        // ends.len() + 1 pairs, found without p² words.
        let have: std::collections::HashSet<(usize, usize)> = ends.iter().copied().collect();
        let missing = (0..p)
            .flat_map(|i| (0..p).filter(move |&j| j != i).map(move |j| (i, j)))
            .find(|ij| !have.contains(ij))
            .expect("fewer pairs than p(p - 1)");
        return Err(no_pair(missing.0, missing.1));
    }
    let mut pairs = vec![usize::MAX; p * p];
    for (t, &(i, j)) in ends.iter().enumerate().rev() {
        pairs[i * p + j] = t;
    }
    for i in 0..p {
        for j in (0..p).filter(|&j| j != i) {
            if pairs[i * p + j] == usize::MAX {
                return Err(no_pair(i, j));
            }
        }
    }
    let algorithm = match plan {
        "basic-linear" => Algorithm::BasicLinear,
        "pairwise" => Algorithm::Pairwise,
        "pair" => Algorithm::Pair,
        "bruck" => Algorithm::Bruck,
        name => match (name.strip_prefix("scattered-"), Library::from_name(name)) {
            (Some(k), _) => Algorithm::Scattered {
                throttle: k.parse().map_err(|_| {
                    StudyError::Input(format!("--plan {name}: give scattered-K, K a number"))
                })?,
            },
            (None, Some(l)) => l.choose(p, args.size),
            (None, None) => {
                return Err(StudyError::Input(format!(
                    "--plan {name}: give mpi-ompi-1.1.2, mpi-ompi-4.1, mpi-mpich-3.3, \
                     basic-linear, pairwise, pair, bruck or scattered-K"
                )))
            }
        },
    };
    let route = |i: usize, j: usize| mapped.routes[pairs[i * p + j]].clone();
    let start = Instant::now();
    // Building the messages counts against the limit as the simulation does: stopped
    // there, the report is that of a simulation stopped before its first event, with the
    // plan's size from its rounds.
    let (messages, total_bytes, run) = match algorithm
        .plan_until(p, args.size, None, true, &route, deadline)
    {
        Ok(built) => {
            let opts = liquid_sim::Options {
                overhead: args.overhead,
                trace: false,
            };
            let run = run_given(
                &mapped.platform,
                &built,
                &opts,
                deadline,
                progress,
                "--size, --overhead, --link-latency or --link-throughput",
            )?;
            (built.messages(), built.bytes(), run)
        }
        Err(liquid_sim::SimError::TimeLimit(stopped)) => {
            let size = (algorithm.size(p, args.size, None, true)).map_err(StudyError::internal)?;
            (stopped.messages, size.bytes, Err(stopped))
        }
        Err(e) => return Err(StudyError::Input(format!("--plan {plan}: {e}"))),
    };
    Ok(MpiSimReport {
        model: traffic.name().to_string(),
        plan: plan.to_string(),
        algorithm: algorithm.name(),
        ranks,
        bytes_per_pair: args.size,
        messages,
        total_bytes,
        overhead_s: args.overhead,
        makespan_s: run.as_ref().ok().map(|r| r.makespan),
        wall_s: start.elapsed().as_secs_f64(),
        stopped: run.err(),
    })
}
