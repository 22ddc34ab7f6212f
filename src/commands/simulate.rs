//! `liquid simulate`: runs a schedule (or the whole traffic at once) on the flow-level
//! simulator of `liquid-sim`, and `liquid export simgrid`: the same platform and plan for
//! SimGrid.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use liquid_model::network::{LinkParams, Network};
use liquid_model::{Schedule, Traffic};
use liquid_sim::{MappedTraffic, Mode, Plan};
use serde::Serialize;

use crate::output::{emit, Format};
use crate::InputError;

/// How a schedule is run (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SimMode {
    /// Timeframe by timeframe, a barrier between frames (as 003 ran liquid schedules).
    Frames,
    /// Each sender moves to its next transfer when its previous one ends; no barrier.
    Async,
    /// Every transfer posted at time 0 (a topology-unaware MPI all-to-all).
    AllAtOnce,
}

impl SimMode {
    fn mode(self) -> Mode {
        match self {
            SimMode::Frames => Mode::Frames,
            SimMode::Async => Mode::Async,
            SimMode::AllAtOnce => Mode::AllAtOnce,
        }
    }
}

/// Everything `simulate` and `export simgrid` take besides the model.
#[derive(Clone)]
pub struct SimArgs {
    /// A schedule file to run.
    pub schedule: Option<PathBuf>,
    /// An engine whose schedule to run.
    pub engine: Option<&'static dyn liquid_engine::Engine>,
    /// Engine options (limits, seed).
    pub request: liquid_engine::Request,
    /// How to run the schedule.
    pub mode: SimMode,
    /// Bytes per transfer.
    pub size: f64,
    /// A YAML mapping `transfer id: bytes` overriding `size` per transfer.
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

fn load_model(arg: &Path) -> anyhow::Result<Model> {
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
                .map_err(|e| InputError(e.to_string()))?
                .ok_or_else(|| InputError(format!("{s:?} is not a generated-model spec")))?;
            let traffic = generated
                .expand()
                .map_err(|e| anyhow::anyhow!("generated model {s:?} does not expand: {e}"))?;
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
    let m = liquid_model::yaml::load_model_full(arg)?;
    Ok(Model {
        traffic: m.traffic,
        network: m.network,
        link_params: m.link_params,
        link_latency: m.link_latency,
    })
}

/// Bandwidth (bytes/s) and latency (s) of every physical link by name; virtual links (the
/// copies' links of the network form) are absent.
fn link_table(model: &Model, args: &SimArgs) -> anyhow::Result<HashMap<String, (f64, f64)>> {
    let wide_bw = args.link_throughput.or(model.traffic.link_throughput());
    let wide_lat = args.link_latency.or(model.link_latency).unwrap_or(0.0);
    let resolve = |name: &str, p: LinkParams| -> anyhow::Result<(f64, f64)> {
        let bw = p.bandwidth.or(wide_bw).ok_or_else(|| {
            InputError(format!(
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
        }
        None => {
            for l in model.traffic.link_ids() {
                let name = model.traffic.link_name(l);
                table.insert(name.to_string(), resolve(name, LinkParams::default())?);
            }
        }
    }
    Ok(table)
}

fn check_args(args: &SimArgs) -> anyhow::Result<()> {
    let bad =
        |what: &str, v: f64| InputError(format!("{what} must be finite and not negative, not {v}"));
    if !(args.size.is_finite() && args.size >= 0.0) {
        return Err(bad("--size", args.size).into());
    }
    if !(args.overhead.is_finite() && args.overhead >= 0.0) {
        return Err(bad("--overhead", args.overhead).into());
    }
    if let Some(l) = args.link_latency {
        if !(l.is_finite() && l >= 0.0) {
            return Err(bad("--link-latency", l).into());
        }
    }
    if let Some(b) = args.link_throughput {
        if !(b.is_finite() && b > 0.0) {
            return Err(InputError(format!(
                "--link-throughput must be positive and finite, not {b}"
            ))
            .into());
        }
    }
    if args.schedule.is_some() && args.engine.is_some() {
        return Err(InputError("give --schedule or --engine, not both".into()).into());
    }
    Ok(())
}

fn load_sizes(traffic: &Traffic, args: &SimArgs) -> anyhow::Result<Vec<f64>> {
    let mut sizes = vec![args.size; traffic.len()];
    if let Some(path) = &args.sizes {
        let file = path.display().to_string();
        let text = liquid_model::yaml::read_text(path)?;
        let map: sizes_file::Sizes = liquid_model::yaml::from_str(&file, &text)?;
        for (id, bytes) in map.0 {
            let t = traffic.find_transfer(&id).ok_or_else(|| {
                InputError(format!(
                    "{file}: transfer {id:?} is not in model {:?}",
                    traffic.name()
                ))
            })?;
            if !(bytes.is_finite() && bytes >= 0.0) {
                return Err(InputError(format!("{file}: {id}: size must be a finite, non-negative number of bytes, not {bytes}")).into());
            }
            sizes[t.index()] = bytes;
        }
    }
    Ok(sizes)
}

mod sizes_file {
    //! The `--sizes` file: a mapping from transfer id to bytes, kept in file order.

    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

    /// Transfer id and bytes, in file order.
    pub struct Sizes(pub Vec<(String, f64)>);

    impl<'de> Deserialize<'de> for Sizes {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Sizes;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a mapping from transfer id to bytes")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Sizes, A::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = m.next_entry::<String, f64>()? {
                        out.push((k, v));
                    }
                    Ok(Sizes(out))
                }
            }
            d.deserialize_map(V)
        }
    }
}

/// Where the schedule came from, for the report.
#[derive(Debug, Clone, Serialize)]
struct ScheduleInfo {
    source: String,
    length: usize,
    duration: usize,
    liquid: bool,
    /// Whether no two transfers of a timeframe share a link.
    simultaneous: bool,
}

/// The schedule to run: a file, an engine's, or (all-at-once without either) the traffic
/// in model order as one frame. The engine is called from this one place.
fn get_schedule(traffic: &Traffic, args: &SimArgs) -> anyhow::Result<(Schedule, String)> {
    if let Some(path) = &args.schedule {
        let s = liquid_model::yaml::load_schedule(path, traffic)?;
        return Ok((s, path.display().to_string()));
    }
    let engine = match (args.engine, args.mode) {
        (Some(e), _) => e,
        (None, SimMode::AllAtOnce) => {
            let all = traffic.transfer_ids().collect();
            return Ok((
                Schedule::new(vec![all]),
                "traffic order (no schedule)".into(),
            ));
        }
        (None, _) => super::solve::engine("native")?,
    };
    let checked = crate::progress::with_progress(engine.counts(), |p| {
        liquid_engine::solve(traffic, engine, &args.request, None, p)
    })
    .map_err(super::solve::gate_error)?;
    let verdict = checked.verdict();
    let Some(s) = checked.into_outcome().into_schedule() else {
        return Err(InputError(format!(
            "engine {} found no schedule ({}); raise --time-limit or give --schedule",
            engine.name(),
            verdict.as_str()
        ))
        .into());
    };
    Ok((s, format!("engine {}", engine.name())))
}

/// Checks that a schedule is a partition of the traffic (every transfer exactly once, no
/// empty frame) and says whether its frames are simultaneous.
fn schedule_info(traffic: &Traffic, s: &Schedule, source: String) -> anyhow::Result<ScheduleInfo> {
    let mut seen = vec![false; traffic.len()];
    for (i, f) in s.frames.iter().enumerate() {
        if f.is_empty() {
            return Err(InputError(format!("{source}: timeframe {} is empty", i + 1)).into());
        }
        for &t in f {
            if std::mem::replace(&mut seen[t.index()], true) {
                return Err(InputError(format!(
                    "{source}: transfer {:?} appears twice",
                    traffic.transfer_name(t)
                ))
                .into());
            }
        }
    }
    if let Some(t) = seen.iter().position(|&x| !x) {
        return Err(InputError(format!(
            "{source}: transfer {:?} is in no timeframe",
            traffic.transfers()[t].id
        ))
        .into());
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
pub(crate) struct Prepared {
    model: Model,
    pub(crate) mapped: MappedTraffic,
    pub(crate) sizes: Vec<f64>,
    info: ScheduleInfo,
    plan: Plan,
    pub(crate) schedule: Schedule,
}

impl Prepared {
    /// The traffic.
    pub(crate) fn traffic(&self) -> &Traffic {
        &self.model.traffic
    }

    /// Where the schedule came from.
    pub(crate) fn source(&self) -> &str {
        &self.info.source
    }
}

pub(crate) fn prepare(model_arg: &Path, args: &SimArgs) -> anyhow::Result<Prepared> {
    check_args(args)?;
    let model = load_model(model_arg)?;
    let table = link_table(&model, args)?;
    let traffic = &model.traffic;
    let mapped = MappedTraffic::new(traffic, |name| table.get(name).copied())
        .map_err(|e| InputError(e.to_string()))?;
    let sizes = load_sizes(traffic, args)?;
    let (schedule, source) = get_schedule(traffic, args)?;
    let info = schedule_info(traffic, &schedule, source)?;
    let plan =
        liquid_sim::from_schedule(traffic, &mapped.routes, &sizes, &schedule, args.mode.mode())
            .map_err(|e| anyhow::anyhow!("internal error: {e}"))?;
    Ok(Prepared {
        model,
        mapped,
        sizes,
        info,
        plan,
        schedule,
    })
}

#[derive(Serialize)]
struct FrameReport {
    frame: usize,
    transfers: usize,
    start_s: f64,
    end_s: f64,
}

#[derive(Serialize)]
struct SimReport {
    model: String,
    mode: &'static str,
    schedule: ScheduleInfo,
    transfers: usize,
    links: usize,
    total_bytes: f64,
    overhead_s: f64,
    makespan_s: f64,
    throughput_mb_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid_throughput_mb_s: Option<f64>,
    /// max over links of bytes on the link / its bandwidth: no plan can beat it.
    link_bound_s: f64,
    events: u64,
    reallocations: u64,
    /// Wall time of the simulation proper (not loading, not the engine), seconds.
    wall_s: f64,
    frames: Vec<FrameReport>,
}

/// `liquid simulate MODEL`.
pub fn simulate(
    model_arg: &Path,
    args: &SimArgs,
    plot: Option<&Path>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let p = prepare(model_arg, args)?;
    let opts = liquid_sim::Options {
        overhead: args.overhead,
        trace: plot.is_some(),
    };
    let start = Instant::now();
    let run = liquid_sim::simulate(&p.mapped.platform, &p.plan, &opts)
        .map_err(|e| anyhow::anyhow!("internal error: {e}"))?;
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
    // Frames: the union of the spans of the steps of each group.
    let mut frames: Vec<FrameReport> = Vec::new();
    for (s, step) in p.plan.steps.iter().enumerate() {
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
    let link_throughput = args.link_throughput.or(traffic.link_throughput());
    let report = SimReport {
        model: traffic.name().to_string(),
        mode: args.mode.mode().name(),
        schedule: p.info.clone(),
        transfers: traffic.len(),
        links: platform.links().len(),
        total_bytes,
        overhead_s: args.overhead,
        makespan_s: run.makespan,
        throughput_mb_s: if run.makespan > 0.0 {
            total_bytes / run.makespan / 1e6
        } else {
            0.0
        },
        liquid_throughput_mb_s: link_throughput.map(|t| t * traffic.liquid_ratio()),
        link_bound_s,
        events: run.events,
        reallocations: run.reallocations,
        wall_s,
        frames,
    };
    if let Some(path) = plot {
        let svg = timeline_svg(&report, platform, &run);
        std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))?;
    }
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The timeline: frames as bars on top, one row per link shaded by its utilisation over
/// time, and the aggregate throughput below. Hand-written SVG, deterministic.
fn timeline_svg(r: &SimReport, platform: &liquid_sim::Platform, run: &liquid_sim::Run) -> String {
    let links = platform.links();
    let row = if links.len() > 200 {
        2.0
    } else if links.len() > 60 {
        5.0
    } else {
        12.0
    };
    let (left, right, top) = (140.0, 30.0, 60.0);
    let w = 1200.0;
    let pw = w - left - right;
    let frames_h = 30.0;
    let links_top = top + frames_h + 20.0;
    let links_h = row * links.len() as f64;
    let thr_top = links_top + links_h + 30.0;
    let thr_h = 160.0;
    let h = thr_top + thr_h + 60.0;
    let span = r.makespan_s.max(1e-12);
    let x = |t: f64| left + pw * t / span;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="25" font-size="16">{} — {} mode, makespan {:.6} s, {:.2} MB/s (liquid {})</text>"#,
        esc(&r.model),
        r.mode,
        r.makespan_s,
        r.throughput_mb_s,
        r.liquid_throughput_mb_s
            .map_or("n/a".to_string(), |t| format!("{t:.2} MB/s"))
    );
    // Frames.
    let _ = writeln!(s, r#"<text x="10" y="{}">frames</text>"#, top + 20.0);
    for (i, f) in r.frames.iter().enumerate() {
        if !f.start_s.is_finite() {
            continue;
        }
        let colour = if i % 2 == 0 { "#4e79a7" } else { "#f28e2b" };
        let _ = writeln!(
            s,
            r#"<rect x="{:.2}" y="{top}" width="{:.2}" height="{frames_h}" fill="{colour}" fill-opacity="0.7"><title>frame {}: {} transfers, {:.6}-{:.6} s</title></rect>"#,
            x(f.start_s),
            (x(f.end_s) - x(f.start_s)).max(0.5),
            f.frame,
            f.transfers,
            f.start_s,
            f.end_s
        );
    }
    // Link utilisation: merge each link's consecutive segments of equal utilisation.
    let _ = writeln!(
        s,
        r#"<text x="10" y="{}">link utilisation</text>"#,
        links_top - 5.0
    );
    if row >= 12.0 {
        for (i, l) in links.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{:.2}" text-anchor="end" font-size="10">{}</text>"#,
                left - 5.0,
                links_top + row * (i as f64 + 0.8),
                esc(&l.name)
            );
        }
    }
    let mut open: Vec<Option<(f64, f64)>> = vec![None; links.len()]; // (start, utilisation)
    let close = |s: &mut String, l: usize, start: f64, u: f64, end: f64| {
        if u > 0.0 && end > start {
            let _ = writeln!(
                s,
                r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="#59a14f" fill-opacity="{:.3}"/>"##,
                x(start),
                links_top + row * l as f64,
                (x(end) - x(start)).max(0.2),
                row * 0.9,
                u
            );
        }
    };
    for seg in &run.trace {
        let mut now: Vec<f64> = vec![0.0; links.len()];
        for &(l, u) in &seg.links {
            now[l as usize] = u;
        }
        for l in 0..links.len() {
            match open[l] {
                Some((_, u)) if (u - now[l]).abs() <= 1e-9 => {}
                Some((start, u)) => {
                    close(&mut s, l, start, u, seg.start);
                    open[l] = Some((seg.start, now[l]));
                }
                None => open[l] = Some((seg.start, now[l])),
            }
        }
    }
    for (l, o) in open.iter().enumerate() {
        if let Some((start, u)) = *o {
            close(&mut s, l, start, u, r.makespan_s);
        }
    }
    let _ = writeln!(
        s,
        r##"<rect x="{left}" y="{links_top}" width="{pw}" height="{links_h}" fill="none" stroke="#888"/>"##
    );
    // Aggregate throughput.
    let max_thr = run
        .trace
        .iter()
        .map(|g| g.throughput)
        .fold(0.0, f64::max)
        .max(1e-12);
    let y = |v: f64| thr_top + thr_h - thr_h * v / max_thr;
    let _ = writeln!(
        s,
        r#"<text x="10" y="{}">throughput</text><text x="10" y="{}" font-size="10">max {:.1} MB/s</text>"#,
        thr_top + 15.0,
        thr_top + 30.0,
        max_thr / 1e6
    );
    let mut pts = String::new();
    let mut last = 0.0;
    for seg in &run.trace {
        let _ = write!(
            pts,
            "{:.2},{:.2} {:.2},{:.2} ",
            x(seg.start),
            y(last),
            x(seg.start),
            y(seg.throughput)
        );
        last = seg.throughput;
    }
    let _ = write!(pts, "{:.2},{:.2}", x(r.makespan_s), y(last));
    let _ = writeln!(
        s,
        r##"<polyline points="{pts}" fill="none" stroke="#e15759" stroke-width="1.5"/>"##
    );
    let _ = writeln!(
        s,
        r##"<rect x="{left}" y="{thr_top}" width="{pw}" height="{thr_h}" fill="none" stroke="#888"/>"##
    );
    // Time axis.
    for k in 0..=10 {
        let t = span * k as f64 / 10.0;
        let _ = writeln!(
            s,
            r#"<text x="{:.2}" y="{}" text-anchor="middle" font-size="10">{:.4}</text>"#,
            x(t),
            thr_top + thr_h + 15.0,
            t
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time (s)</text>"#,
        left + pw / 2.0,
        thr_top + thr_h + 35.0
    );
    s.push_str("</svg>\n");
    s
}

// ---------------------------------------------------------------------------------------
// Export for SimGrid
// ---------------------------------------------------------------------------------------

#[derive(Serialize)]
struct ExportPlan<'a> {
    format: &'static str,
    model: &'a str,
    mode: &'static str,
    overhead_s: f64,
    steps: Vec<ExportStep>,
}

#[derive(Serialize)]
struct ExportStep {
    after: Vec<usize>,
    delay_s: f64,
    group: Option<usize>,
    /// `[sender host, receiver host, bytes, route latency in seconds]`.
    messages: Vec<(String, String, f64, f64)>,
}

/// `liquid export simgrid MODEL --out DIR`: DIR/platform.xml (hosts, links with bandwidth
/// and latency, every used route as an explicit one-way `<route>`) and DIR/plan.json (the
/// plan `simulate` would run, with host names).
pub fn export_simgrid(model_arg: &Path, args: &SimArgs, out: &Path) -> anyhow::Result<ExitCode> {
    let p = prepare(model_arg, args)?;
    let traffic = &p.model.traffic;
    let endpoints = |t: usize| -> anyhow::Result<(String, String)> {
        let x = &traffic.transfers()[t];
        match (&x.from, &x.to) {
            (Some(f), Some(to)) => Ok((f.clone(), to.clone())),
            _ => Err(InputError(format!(
                "transfer {:?} names no sender and receiver (from/to): SimGrid routes go between hosts",
                x.id
            ))
            .into()),
        }
    };
    // Hosts in first-use order, and one route per (sender, receiver) pair.
    let mut hosts: Vec<String> = Vec::new();
    let mut host_seen: HashSet<String> = HashSet::new();
    let mut routes: Vec<((String, String), &Vec<u32>)> = Vec::new();
    let mut route_of: HashMap<(String, String), usize> = HashMap::new();
    for (t, route) in p.mapped.routes.iter().enumerate() {
        let (f, to) = endpoints(t)?;
        for h in [&f, &to] {
            if host_seen.insert(h.clone()) {
                hosts.push(h.clone());
            }
        }
        let key = (f, to);
        match route_of.get(&key) {
            Some(&i) if routes[i].1 != route => {
                return Err(InputError(format!(
                    "{} -> {} has two different routes: SimGrid has one route per pair",
                    key.0, key.1
                ))
                .into())
            }
            Some(_) => {}
            None => {
                route_of.insert(key.clone(), routes.len());
                routes.push((key, route));
            }
        }
    }
    let mut xml = String::new();
    xml.push_str(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n",
    );
    let _ = writeln!(
        xml,
        "<!-- {} exported by liquid: links in bytes/s and seconds; one-way routes. -->",
        esc(traffic.name())
    );
    xml.push_str("<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n");
    for h in &hosts {
        let _ = writeln!(xml, "    <host id=\"{}\" speed=\"1Gf\"/>", xml_attr(h));
    }
    for l in p.mapped.platform.links() {
        let _ = writeln!(
            xml,
            "    <link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"SHARED\"/>",
            xml_attr(&l.name),
            l.bandwidth,
            l.latency
        );
    }
    for ((f, to), route) in &routes {
        let _ = writeln!(
            xml,
            "    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">",
            xml_attr(f),
            xml_attr(to)
        );
        for &l in route.iter() {
            let _ = writeln!(
                xml,
                "      <link_ctn id=\"{}\"/>",
                xml_attr(&p.mapped.platform.links()[l as usize].name)
            );
        }
        xml.push_str("    </route>\n");
    }
    xml.push_str("  </zone>\n</platform>\n");
    let mut steps = Vec::with_capacity(p.plan.steps.len());
    for step in &p.plan.steps {
        let mut messages = Vec::with_capacity(step.messages.len());
        for m in &step.messages {
            let t = m.transfer.ok_or_else(|| {
                anyhow::anyhow!("internal error: a schedule message without its transfer")
            })?;
            let (f, to) = endpoints(t.index())?;
            messages.push((f, to, m.bytes, p.mapped.platform.route_latency(&m.route)));
        }
        steps.push(ExportStep {
            after: step.after.clone(),
            delay_s: step.delay,
            group: step.group,
            messages,
        });
    }
    let plan = ExportPlan {
        format: "liquid-plan/1",
        model: traffic.name(),
        mode: args.mode.mode().name(),
        overhead_s: args.overhead,
        steps,
    };
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let xml_path = out.join("platform.xml");
    std::fs::write(&xml_path, xml)
        .with_context(|| format!("cannot write {}", xml_path.display()))?;
    let plan_path = out.join("plan.json");
    std::fs::write(&plan_path, serde_json::to_string(&plan)? + "\n")
        .with_context(|| format!("cannot write {}", plan_path.display()))?;
    #[derive(Serialize)]
    struct Written {
        platform: String,
        plan: String,
        hosts: usize,
        links: usize,
        routes: usize,
        steps: usize,
        messages: usize,
    }
    emit(
        &Written {
            platform: xml_path.display().to_string(),
            plan: plan_path.display().to_string(),
            hosts: hosts.len(),
            links: p.mapped.platform.links().len(),
            routes: routes.len(),
            steps: p.plan.steps.len(),
            messages: p.plan.messages(),
        },
        Format::Yaml,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn xml_attr(s: &str) -> String {
    esc(s).replace('"', "&quot;")
}
