//! Paper 001's total exchange between two clusters on the simulator (Figs. 4-6), LG
//! against the direct algorithms, and LG with liquid schedules (`liquid study
//! two-clusters`). The cases, plans and simulations are `liquid_sim::study`'s; [`run`]
//! computes the schedules through the engine gate, writes the CSV, the SVG charts and
//! (optionally) the Markdown report, and returns the [`Summary`].

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use liquid_model::Traffic;
use liquid_plot::{Axis, Chart, Mark, Scale, Series, Units, PALETTE};
use liquid_sim::study::{
    self, Algorithm, Case, Phase, Point, Row, ScheduleInfo, Scheduled, Setting,
};
use serde::Serialize;

use crate::StudyError;

/// Everything the two-cluster study takes.
#[derive(Clone)]
pub struct StudyArgs {
    /// Output directory.
    pub out: PathBuf,
    /// Smallest and largest exponent k of the message sizes 2^k.
    pub size_exponents: (u32, u32),
    /// The cases of the size sweep (n1, n2).
    pub size_cases: Vec<(usize, usize)>,
    /// n1 values of the node sweep with n1 = n2.
    pub equal: Vec<usize>,
    /// n1 values of the node sweep with n2 = 2·n1.
    pub double: Vec<usize>,
    /// Message sizes of the node sweeps.
    pub node_sizes: Vec<f64>,
    /// The physical setting.
    pub setting: Setting,
    /// The engine that schedules.
    pub engine: &'static dyn liquid_engine::Engine,
    /// Its time limit per traffic, and the limit of each simulation (a run it stops has
    /// no makespan).
    pub time_limit: Duration,
    /// Also write the report as Markdown here.
    pub markdown: Option<PathBuf>,
}

impl StudyArgs {
    /// With a cluster topology (`setting.cluster`), the sweeps its host count H allows:
    /// the size sweep runs H+H, and the node sweep (unless it is off: `equal` and
    /// `double` both empty) the one point n1 = n2 = H, without n2 = 2·n1. Without one,
    /// nothing changes. An unreadable spec is refused as `--cluster`.
    pub fn fit_to_cluster(&mut self) -> Result<(), StudyError> {
        let Some(spec) = &self.setting.cluster else {
            return Ok(());
        };
        let h = liquid_topology::two_clusters::TwoClusters::shaped(spec)
            .map_err(|e| StudyError::Input(format!("--cluster: {e}")))?
            .n1;
        self.size_cases = vec![(h, h)];
        if !(self.equal.is_empty() && self.double.is_empty()) {
            self.equal = vec![h];
        }
        self.double.clear();
        Ok(())
    }
}

/// Parses `FIRST..LAST`, the exponents of the message sizes 2^FIRST..2^LAST.
pub fn parse_exponents(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?}: give FIRST..LAST, like 0..24"))?;
    let n = |x: &str| {
        x.trim()
            .parse::<u32>()
            .map_err(|_| format!("{s:?}: {x:?} is not an exponent"))
    };
    Ok((n(a)?, n(b)?))
}

/// Parses `30+30,20+40`.
pub fn parse_cases(s: &str) -> Result<Vec<(usize, usize)>, String> {
    s.split(',')
        .map(|c| {
            let (a, b) = c
                .split_once('+')
                .ok_or_else(|| format!("{c:?}: give a case as N1+N2, like 20+40"))?;
            let n = |x: &str| {
                x.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&v| v >= 1)
                    .ok_or_else(|| format!("{c:?}: {x:?} is not a number of nodes"))
            };
            Ok((n(a)?, n(b)?))
        })
        .collect()
}

#[derive(Serialize)]
struct Param {
    value: f64,
    unit: &'static str,
    source: &'static str,
}

#[derive(Serialize)]
struct SettingReport {
    backbone_bandwidth: Param,
    backbone_latency: Param,
    node_bandwidth: Param,
    node_link_latency: Param,
    overhead_per_message: Param,
    tcp_window: Param,
    eager_limit: Param,
    serial_overhead_per_message: Param,
    rtt_unfair_sharing: Param,
    scheduling_lanes: usize,
    /// Each cluster's topology (absent: crossbars).
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<String>,
}

#[derive(Serialize)]
struct ScheduleReport {
    traffic: &'static str,
    transfers: usize,
    lambda: usize,
    length: usize,
    source: String,
}

#[derive(Serialize)]
struct CaseSchedules {
    case: String,
    traffics: Vec<ScheduleReport>,
}

#[derive(Serialize)]
struct BackboneReport {
    n1: usize,
    n2: usize,
    lg: usize,
    lg_expected: usize,
    direct: usize,
    direct_expected: usize,
    counts_match: bool,
}

#[derive(Serialize)]
struct Comparison {
    n1: usize,
    n2: usize,
    faster: &'static str,
    than: &'static str,
    /// The smallest size from which `faster` wins at every larger size of the sweep.
    wins_from_bytes: Option<f64>,
    largest_speedup: f64,
    largest_speedup_at_bytes: f64,
    smallest_speedup: f64,
    smallest_speedup_at_bytes: f64,
}

/// The study's summary: the setting with its sources, the backbone message counts, the
/// schedules, who wins where, and the files written.
#[derive(Serialize)]
pub struct Summary {
    setting: SettingReport,
    model: &'static str,
    sizes: String,
    backbone_messages: Vec<BackboneReport>,
    schedules: Vec<CaseSchedules>,
    comparisons: Vec<Comparison>,
    node_sweep: Vec<Comparison>,
    rows: usize,
    /// The runs whose simulation the time limit stopped (each simulation within
    /// --time-limit): null in the summary's sense, an empty `makespan_s` cell in the CSV,
    /// left out of the charts and the comparisons. Absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stopped_by_time_limit: Vec<String>,
    files: Vec<String>,
    wall_time_s: f64,
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Direct => "direct all-to-all",
        Phase::LgLocal => "LG local phase",
        Phase::LgExchange => "LG inter-cluster phase",
        Phase::LgRelay => "LG relay messages",
        Phase::LgInternal => "LG cluster-internal all-to-all",
    }
}

impl Summary {
    /// The runs whose simulation the time limit stopped (`sweep n1+n2 bytes B
    /// algorithm`), empty when none was.
    pub fn stopped_by_time_limit(&self) -> &[String] {
        &self.stopped_by_time_limit
    }

    /// Whether every case's backbone message counts are 001's 2·max(n1, n2) (LG) and
    /// 2·n1·n2 (direct): when not, the plans are wrong.
    pub fn counts_match(&self) -> bool {
        self.backbone_messages.iter().all(|b| b.counts_match)
    }
}

/// Runs the study: every case of the size and node sweeps, simulated with every
/// algorithm; writes `two-clusters.csv` and the SVG charts into `args.out` (and the
/// Markdown report when asked), and returns the summary.
pub fn run(
    args: &StudyArgs,
    shard: Option<liquid_shard::Shard>,
) -> Result<crate::Swept<Summary>, StudyError> {
    let start = Instant::now();
    let s = &args.setting;
    // Every parameter (lanes included) is checked before the output folder is made.
    s.check().map_err(|e| StudyError::Input(format!("{e}")))?;
    let (k0, k1) = args.size_exponents;
    if k0 > k1 || k1 > 40 {
        return Err(StudyError::Input(format!(
            "--size-exponents {k0}..{k1}: give 0 <= first <= last <= 40"
        )));
    }
    if args
        .node_sizes
        .iter()
        .any(|b| !(b.is_finite() && *b >= 0.0))
    {
        return Err(StudyError::Input("--node-sizes must be byte counts".into()));
    }
    // A value given twice would run its rows twice (and write one chart for both).
    let twice = |what: &str, values: Vec<String>| -> Result<(), StudyError> {
        let mut seen = std::collections::HashSet::new();
        match values.into_iter().find(|v| !seen.insert(v.clone())) {
            Some(v) => Err(StudyError::Input(format!("{what}: {v} is given twice"))),
            None => Ok(()),
        }
    };
    twice(
        "--size-cases",
        args.size_cases
            .iter()
            .map(|(a, b)| format!("{a}+{b}"))
            .collect(),
    )?;
    twice("--equal", args.equal.iter().map(usize::to_string).collect())?;
    twice(
        "--double",
        args.double.iter().map(usize::to_string).collect(),
    )?;
    twice(
        "--node-sizes",
        args.node_sizes.iter().map(f64::to_string).collect(),
    )?;
    let dir = crate::outdir::for_sweep(&args.out, shard.is_some())?;
    let request = liquid_engine::Request {
        limits: liquid_model::Limits {
            time: Some(args.time_limit),
            nodes: None,
        },
        ..Default::default()
    };
    let mut scheduler = |_: Phase, t: &Traffic| -> Result<Scheduled, String> {
        let progress = AtomicU64::new(0);
        let mut engines = vec![args.engine];
        if args.engine.name() != "dsatur" {
            // When the engine gives no schedule, DSatur's (always one) is used.
            engines.push(liquid_engine::find("dsatur").ok_or("no dsatur engine")?);
        }
        let mut why = String::new();
        for e in engines {
            let checked = match liquid_engine::solve(t, e, &request, None, &progress) {
                Ok(c) => c,
                Err(err) => {
                    // An engine that cannot take this traffic (round-robin wants an
                    // all-to-all): DSatur's schedule is used instead.
                    let _ = write!(why, "{}: {err}; ", e.name());
                    continue;
                }
            };
            let verdict = checked.verdict().as_str();
            if let Some(schedule) = checked.into_outcome().into_schedule() {
                return Ok(Scheduled {
                    schedule,
                    source: format!("{} ({verdict})", e.name()),
                });
            }
            let _ = write!(why, "{}: {verdict}; ", e.name());
        }
        Err(why)
    };
    let mut cases: Vec<Case> = Vec::new();
    let mut case = |n1: usize, n2: usize, cases: &mut Vec<Case>| -> Result<usize, StudyError> {
        if let Some(i) = cases.iter().position(|c| (c.n1, c.n2) == (n1, n2)) {
            return Ok(i);
        }
        let c = Case::new(n1, n2, s, &mut scheduler).map_err(|e| sim_error(n1, n2, e))?;
        cases.push(c);
        Ok(cases.len() - 1)
    };
    // The study's items (sweep, case, size), in order: a shard runs its own, computing
    // the schedules of the cases they need.
    let items = items(args);
    let mut done: Vec<(usize, ItemResult)> = Vec::new();
    for (index, &(sweep, n1, n2, b)) in items.iter().enumerate() {
        if !shard.is_none_or(|sh| sh.owns(index)) {
            continue;
        }
        let i = case(n1, n2, &mut cases)?;
        let option = if sweep == "sizes" {
            "--size-exponents"
        } else {
            "--node-sizes"
        };
        let points = cases[i]
            .run_within(b, s, Some(args.time_limit))
            .map_err(|e| sized_error(n1, n2, option, b, e))?;
        let facts = CaseFacts::of(&cases[i])?;
        done.push((
            index,
            ItemResult {
                points,
                case: facts,
            },
        ));
    }
    if let Some(sh) = shard {
        let params = ShardParams::of(args)?;
        let mine = done
            .into_iter()
            .map(|(index, result)| liquid_shard::Item {
                index,
                key: key(items[index]),
                result,
            })
            .collect();
        return crate::ShardWritten::write(&args.out, SWEEP, &params, sh, items.len(), mine)
            .map(crate::Swept::Shard);
    }
    let results: Vec<ItemResult> = done.into_iter().map(|(_, r)| r).collect();
    let summary = finish(args, &items, results, start)?;
    if let Some(d) = dir {
        d.finish()?;
    }
    Ok(crate::Swept::Full(summary))
}

/// The sweeps' items, in order: (sweep, n1, n2, bytes), the size sweep's cases over its
/// sizes, then the node sweeps' cases over the node sizes.
fn items(args: &StudyArgs) -> Vec<(&'static str, usize, usize, f64)> {
    let (k0, k1) = args.size_exponents;
    let sizes: Vec<f64> = (k0..=k1).map(|k| 2f64.powi(k as i32)).collect();
    let mut out = Vec::new();
    for &(n1, n2) in &args.size_cases {
        for &b in &sizes {
            out.push(("sizes", n1, n2, b));
        }
    }
    for &(n1, n2) in &node_cases(args) {
        for &b in &args.node_sizes {
            out.push(("nodes", n1, n2, b));
        }
    }
    out
}

/// The node sweeps' cases: n1 = n2, then n2 = 2·n1.
fn node_cases(args: &StudyArgs) -> Vec<(usize, usize)> {
    args.equal
        .iter()
        .map(|&n| (n, n))
        .chain(args.double.iter().map(|&n| (n, 2 * n)))
        .collect()
}

/// An item's name in a shard file.
fn key((sweep, n1, n2, b): (&'static str, usize, usize, f64)) -> String {
    format!("{sweep} {n1}+{n2} at {b} bytes")
}

/// The two-cluster study's name in its shard files (`liquid merge` reads it).
pub const SWEEP: &str = "two-clusters";

/// The study's own options in its shard files: every shard of one run shares them (the
/// output folder aside; the Markdown report by its file name, which the merge writes into
/// its own output folder).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
struct ShardParams {
    size_exponents: (u32, u32),
    size_cases: Vec<(usize, usize)>,
    equal: Vec<usize>,
    double: Vec<usize>,
    node_sizes: Vec<f64>,
    setting: Setting,
    engine: String,
    time_limit_s: f64,
    markdown: Option<String>,
}

impl ShardParams {
    fn of(args: &StudyArgs) -> Result<ShardParams, StudyError> {
        let markdown = match &args.markdown {
            None => None,
            Some(p) => Some(
                p.file_name()
                    .and_then(|n| n.to_str())
                    .ok_or_else(|| {
                        StudyError::Input(format!("--markdown: {} has no file name", p.display()))
                    })?
                    .to_string(),
            ),
        };
        Ok(ShardParams {
            size_exponents: args.size_exponents,
            size_cases: args.size_cases.clone(),
            equal: args.equal.clone(),
            double: args.double.clone(),
            node_sizes: args.node_sizes.clone(),
            setting: args.setting.clone(),
            engine: args.engine.name().to_string(),
            time_limit_s: args.time_limit.as_secs_f64(),
            markdown,
        })
    }
}

/// What a case's schedules and plans are: the same for every item of the case.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
struct CaseFacts {
    n1: usize,
    n2: usize,
    schedules: Vec<ScheduleInfo>,
    lg_backbone: usize,
    direct_backbone: usize,
}

impl CaseFacts {
    fn of(c: &Case) -> Result<CaseFacts, StudyError> {
        let count = |a: Algorithm| c.backbone_messages(a).map_err(StudyError::internal);
        Ok(CaseFacts {
            n1: c.n1,
            n2: c.n2,
            schedules: c.schedules.clone(),
            lg_backbone: count(Algorithm::Lg)?,
            direct_backbone: count(Algorithm::DirectAllAtOnce)?,
        })
    }
}

/// One item's results in a shard file: every algorithm's run, and its case's facts.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub(crate) struct ItemResult {
    points: Vec<Point>,
    case: CaseFacts,
}

/// Joins the shard files of one [`run`] (read and checked by `liquid_shard::merge_any`): checks that
/// every shard is there once and belongs to the run, that every item is the one its
/// index names, and that the shards computed the same schedules for a case (a time limit
/// that stopped an engine in one shard and not in another gives different ones: the merge
/// refuses them), then writes the files into `out` exactly as the unsharded run does
/// (the Markdown report, by its file name, when the run asked for one) and returns the
/// summary.
pub(crate) fn merge(
    merged: liquid_shard::Merged<ItemResult>,
    out: &std::path::Path,
) -> Result<Summary, StudyError> {
    let start = Instant::now();
    let bad = |e: String| StudyError::Input(format!("shards of {SWEEP}: {e}"));
    let p: ShardParams =
        serde_json::from_value(merged.params.clone()).map_err(|e| bad(format!("params: {e}")))?;
    let args = StudyArgs {
        out: out.to_path_buf(),
        size_exponents: p.size_exponents,
        size_cases: p.size_cases,
        equal: p.equal,
        double: p.double,
        node_sizes: p.node_sizes,
        setting: p.setting,
        engine: liquid_engine::find(&p.engine)
            .ok_or_else(|| bad(format!("no engine {:?}", p.engine)))?,
        time_limit: Duration::try_from_secs_f64(p.time_limit_s)
            .map_err(|e| bad(format!("time limit: {e}")))?,
        markdown: p
            .markdown
            .as_ref()
            .map(|m| crate::outdir::shard_file_in(out, "markdown", m))
            .transpose()
            .map_err(|e| bad(e.to_string()))?,
    };
    let items = items(&args);
    if merged.items.len() != items.len() {
        return Err(bad(format!(
            "{} items, the study's options give {}",
            merged.items.len(),
            items.len()
        )));
    }
    let mut facts: Vec<(usize, CaseFacts)> = Vec::new();
    let mut results = Vec::with_capacity(items.len());
    for (item, &it) in merged.items.into_iter().zip(&items) {
        let k = key(it);
        if item.key != k || (item.result.case.n1, item.result.case.n2) != (it.1, it.2) {
            return Err(bad(format!(
                "item {} is {:?}, the study's is {k:?}",
                item.index, item.key
            )));
        }
        match facts.iter().find(|(_, f)| (f.n1, f.n2) == (it.1, it.2)) {
            Some((first, f)) if *f != item.result.case => {
                return Err(bad(format!(
                    "items {first} and {} ({k}) were computed with different schedules or plans for \
                     {}+{} (an engine stopped by its time limit in one shard and not in \
                     another?): run again with a larger --time-limit or a deterministic engine",
                    item.index, it.1, it.2
                )));
            }
            Some(_) => {}
            None => facts.push((item.index, item.result.case.clone())),
        }
        results.push(item.result);
    }
    // What the shards say is checked against the cases, not trusted.
    let mut checked: Vec<((usize, usize), Case)> = Vec::new();
    for (index, (r, &it)) in results.iter().zip(&items).enumerate() {
        let (_, n1, n2, bytes) = it;
        let at = |e: String| bad(format!("item {index} ({}): {e}", key(it)));
        if !checked.iter().any(|(k, _)| *k == (n1, n2)) {
            let case = unscheduled(n1, n2, &args.setting).map_err(|e| at(e.to_string()))?;
            recheck_case(&r.case, &case).map_err(at)?;
            checked.push(((n1, n2), case));
        }
        let case = &checked
            .iter()
            .find(|(k, _)| *k == (n1, n2))
            .expect("checked")
            .1;
        recheck_points(&r.points, case, bytes).map_err(at)?;
    }
    let dir = crate::outdir::prepare(out)?;
    let summary = finish(&args, &items, results, start)?;
    dir.finish()?;
    Ok(summary)
}

/// The case of `n1 + n2` nodes with every traffic "scheduled" one transfer per timeframe:
/// its traffics, Λ and the plans that take no schedule are the real case's, at no
/// engine's cost, for checking what shards say of the case.
fn unscheduled(n1: usize, n2: usize, setting: &Setting) -> Result<Case, liquid_sim::SimError> {
    Case::new(n1, n2, setting, &mut |_, t: &Traffic| {
        Ok(Scheduled {
            schedule: liquid_model::Schedule::new(t.transfer_ids().map(|x| vec![x]).collect()),
            source: "one per timeframe".into(),
        })
    })
}

/// Checks a shard's facts of a case against the case ([`unscheduled`]): each traffic's
/// transfers and Λ, each schedule at least Λ long (none for an empty traffic), and the
/// backbone messages of LG and of the direct all-at-once.
fn recheck_case(f: &CaseFacts, case: &Case) -> Result<(), String> {
    if f.schedules.len() != case.schedules.len() {
        return Err(format!(
            "{} schedules, the case has {} traffics",
            f.schedules.len(),
            case.schedules.len()
        ));
    }
    for (got, want) in f.schedules.iter().zip(&case.schedules) {
        let phase = want.phase;
        if got.phase != phase || got.transfers != want.transfers || got.duration != want.duration {
            return Err(format!(
                "the schedule of {:?} is of {} transfers with Λ {}; the case's {phase:?} traffic \
                 has {} transfers and Λ {}",
                got.phase, got.transfers, got.duration, want.transfers, want.duration
            ));
        }
        if got.length < got.duration || (got.length == 0) != (got.transfers == 0) {
            return Err(format!(
                "the schedule of {phase:?} has {} timeframes for {} transfers with Λ {}",
                got.length, got.transfers, got.duration
            ));
        }
    }
    let count = |a: Algorithm| case.backbone_messages(a).map_err(|e| e.to_string());
    for (field, got, a) in [
        ("lg_backbone", f.lg_backbone, Algorithm::Lg),
        (
            "direct_backbone",
            f.direct_backbone,
            Algorithm::DirectAllAtOnce,
        ),
    ] {
        let want = count(a)?;
        if got != want {
            return Err(format!("{field} is {got}, the case's plan has {want}"));
        }
    }
    Ok(())
}

/// Checks an item's simulated points: every algorithm once, in the study's order, each
/// makespan a time; for the algorithms that take no schedule, the messages and backbone
/// messages of their plan at `bytes`.
fn recheck_points(points: &[Point], case: &Case, bytes: f64) -> Result<(), String> {
    let algorithms: Vec<Algorithm> = points.iter().map(|p| p.algorithm).collect();
    if algorithms != Algorithm::ALL {
        return Err(format!(
            "the algorithms are {algorithms:?}, the study runs {:?}",
            Algorithm::ALL
        ));
    }
    for p in points {
        let a = p.algorithm.name();
        // None: the time limit stopped the simulation.
        if let Some(t) = p.makespan_s.filter(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(format!("{a}: makespan {t} is not a time"));
        }
        if p.backbone_messages > p.messages {
            return Err(format!(
                "{a}: {} backbone messages of {}",
                p.backbone_messages, p.messages
            ));
        }
        let scheduled = matches!(
            p.algorithm,
            Algorithm::DirectLiquid | Algorithm::LgLiquid | Algorithm::LgRelayFirst
        );
        if !scheduled {
            let plan = case.plan(p.algorithm, bytes).map_err(|e| e.to_string())?;
            let (m, b) = (plan.messages(), case.plan_backbone_messages(&plan));
            if (p.messages, p.backbone_messages) != (m, b) {
                return Err(format!(
                    "{a}: {} messages, {} over the backbone; its plan has {m} and {b}",
                    p.messages, p.backbone_messages
                ));
            }
        }
    }
    Ok(())
}

/// Writes the CSV, the charts and (when asked) the Markdown report of the whole study
/// from every item's results, in item order, and returns the summary.
fn finish(
    args: &StudyArgs,
    items: &[(&'static str, usize, usize, f64)],
    results: Vec<ItemResult>,
    start: Instant,
) -> Result<Summary, StudyError> {
    let s = &args.setting;
    let (k0, k1) = args.size_exponents;
    let mut rows: Vec<Row> = Vec::new();
    let mut cases: Vec<CaseFacts> = Vec::new();
    for (&(sweep, n1, n2, bytes), r) in items.iter().zip(results) {
        if !cases.iter().any(|c| (c.n1, c.n2) == (n1, n2)) {
            cases.push(r.case);
        }
        for point in r.points {
            rows.push(Row {
                sweep,
                n1,
                n2,
                bytes,
                point,
            });
        }
    }
    let node_cases = node_cases(args);
    // Files.
    let mut files = Vec::new();
    let csv = args.out.join("two-clusters.csv");
    crate::write_csv(&csv, study::CSV_HEADER, rows.iter().map(Row::to_csv))?;
    files.push(csv.display().to_string());
    for (name, chart) in charts(args, &rows) {
        let path = args.out.join(name);
        let svg = chart.to_svg().map_err(StudyError::internal)?;
        crate::write(&path, svg)?;
        files.push(path.display().to_string());
    }
    // Summary.
    let mut backbone = Vec::new();
    for c in &cases {
        let (lg, direct) = (c.lg_backbone, c.direct_backbone);
        let (le, de) = (2 * c.n1.max(c.n2), 2 * c.n1 * c.n2);
        backbone.push(BackboneReport {
            n1: c.n1,
            n2: c.n2,
            lg,
            lg_expected: le,
            direct,
            direct_expected: de,
            counts_match: lg == le && direct == de,
        });
    }
    let pairs = [
        (Algorithm::Lg, Algorithm::MpiOmpi112),
        (Algorithm::LgLiquid, Algorithm::MpiOmpi112),
        (Algorithm::LgRelayFirst, Algorithm::MpiOmpi112),
        (Algorithm::Lg, Algorithm::MpiOmpi41),
        (Algorithm::Lg, Algorithm::MpiMpich33),
        (Algorithm::Lg, Algorithm::DirectAllAtOnce),
        (Algorithm::Lg, Algorithm::DirectRoundRobin),
        (Algorithm::LgLiquid, Algorithm::Lg),
        (Algorithm::LgRelayFirst, Algorithm::Lg),
        (Algorithm::LgRelayFirst, Algorithm::DirectAllAtOnce),
        (Algorithm::DirectLiquid, Algorithm::DirectAllAtOnce),
        (Algorithm::DirectLiquid, Algorithm::DirectRoundRobin),
    ];
    let compare = |sweep: &str, n1: usize, n2: usize| -> Vec<Comparison> {
        let mine: Vec<Row> = rows
            .iter()
            .filter(|r| r.sweep == sweep && (r.n1, r.n2) == (n1, n2))
            .cloned()
            .collect();
        pairs
            .iter()
            .filter_map(|&(a, b)| {
                study::crossover(&mine, a, b).map(|c| Comparison {
                    n1,
                    n2,
                    faster: a.name(),
                    than: b.name(),
                    wins_from_bytes: c.wins_from_bytes,
                    largest_speedup: round(c.best_speedup.0),
                    largest_speedup_at_bytes: c.best_speedup.1,
                    smallest_speedup: round(c.worst_speedup.0),
                    smallest_speedup_at_bytes: c.worst_speedup.1,
                })
            })
            .collect()
    };
    let comparisons = args
        .size_cases
        .iter()
        .flat_map(|&(n1, n2)| compare("sizes", n1, n2))
        .collect();
    let node_sweep = node_cases
        .iter()
        .flat_map(|&(n1, n2)| compare("nodes", n1, n2))
        .filter(|c| {
            (c.faster, c.than) == ("lg", "direct-all-at-once")
                || (c.faster, c.than) == ("lg", "mpi-ompi-1.1.2")
                || (c.faster, c.than) == ("lg-liquid-relay-first", "lg")
        })
        .collect();
    let assumed = "assumption (001 gives none)";
    let summary = Summary {
        setting: SettingReport {
            backbone_bandwidth: Param {
                value: s.backbone_mb_s,
                unit: "MB/s",
                source: "001: 10 Gbit/s private backbone",
            },
            backbone_latency: Param {
                value: s.backbone_latency_s,
                unit: "s, one way",
                source: "assumption: about 1000 km (001) of fibre at 2e8 m/s",
            },
            node_bandwidth: Param {
                value: s.node_mb_s,
                unit: "MB/s",
                source: "001: Gigabit nodes (HP ProLiant DL145G2)",
            },
            node_link_latency: Param {
                value: s.node_latency_s,
                unit: "s per link",
                source: assumed,
            },
            overhead_per_message: Param {
                value: s.overhead_s,
                unit: "s",
                source: assumed,
            },
            tcp_window: Param {
                value: s.transport.window_bytes,
                unit: "bytes in flight per connection (0: none)",
                source: "Open MPI 1.1.2 btl_tcp_sndbuf = btl_tcp_rcvbuf = 128 KiB (btl_tcp_component.c)",
            },
            eager_limit: Param {
                value: s.transport.eager_limit_bytes.unwrap_or(f64::INFINITY),
                unit: "bytes (inf: no rendezvous)",
                source: "Open MPI 1.1.2 btl_tcp_eager_limit = 64 KiB (btl_tcp_component.c)",
            },
            serial_overhead_per_message: Param {
                value: s.transport.serial_overhead_s,
                unit: "s, paid in turn by each sender",
                source: "no source found for 001's nodes: off unless set",
            },
            rtt_unfair_sharing: Param {
                value: if s.transport.rtt_unfair { 1.0 } else { 0.0 },
                unit: "(1: shares in inverse proportion to route latency, 0: equal)",
                source: "SimGrid CM02's TCP model (network_cm02.cpp: sharing penalty = latency)",
            },
            scheduling_lanes: s.lanes(),
            cluster: s.cluster.clone(),
        },
        model: "flow level, max-min sharing; TCP only as a window bound per connection, ob1's rendezvous (first fragment, ACK, rest) and RTT-unfair sharing (no slow start, no losses): see README, Simulation",
        sizes: format!(
            "2^{k0} .. 2^{k1} bytes (size sweep); {:?} bytes (node sweep)",
            args.node_sizes
        ),
        backbone_messages: backbone,
        schedules: cases
            .iter()
            .map(|c| CaseSchedules {
                case: format!("{}+{}", c.n1, c.n2),
                traffics: c
                    .schedules
                    .iter()
                    .map(|i| ScheduleReport {
                        traffic: phase_name(i.phase),
                        transfers: i.transfers,
                        lambda: i.duration,
                        length: i.length,
                        source: i.source.clone(),
                    })
                    .collect(),
            })
            .collect(),
        comparisons,
        node_sweep,
        rows: rows.len(),
        stopped_by_time_limit: rows
            .iter()
            .filter(|r| r.point.makespan_s.is_none())
            .map(|r| {
                format!(
                    "{} {}+{} {} B {}",
                    r.sweep,
                    r.n1,
                    r.n2,
                    study::csv_float(r.bytes),
                    r.point.algorithm.name()
                )
            })
            .collect(),
        files,
        wall_time_s: start.elapsed().as_secs_f64(),
    };
    if let Some(path) = &args.markdown {
        let written: Vec<PathBuf> = summary.files.iter().map(PathBuf::from).collect();
        crate::outdir::not_a_written_file(path, &written)?;
        let md = markdown(args, &summary, &rows);
        crate::write(path, md)?;
    }
    Ok(summary)
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn colour(a: Algorithm) -> &'static str {
    match a {
        Algorithm::DirectAllAtOnce => PALETTE[1],
        Algorithm::DirectRoundRobin => PALETTE[9],
        Algorithm::DirectLiquid => PALETTE[3],
        Algorithm::Lg => PALETTE[0],
        Algorithm::LgLiquid => PALETTE[2],
        Algorithm::LgRelayFirst => PALETTE[4],
        Algorithm::MpiOmpi112 => PALETTE[5],
        Algorithm::MpiOmpi41 => PALETTE[6],
        Algorithm::MpiMpich33 => PALETTE[7],
    }
}

fn charts(args: &StudyArgs, rows: &[Row]) -> Vec<(String, Chart)> {
    let time = Axis {
        label: "completion time".into(),
        scale: Scale::Log,
        units: Units::Seconds,
        ticks: vec![],
    };
    let mut out = Vec::new();
    for &(n1, n2) in &args.size_cases {
        let series = Algorithm::ALL
            .iter()
            .map(|&a| Series {
                name: a.name().into(),
                colour: colour(a).into(),
                mark: Mark::LineDots,
                dashed: false,
                points: rows
                    .iter()
                    .filter(|r| r.sweep == "sizes" && (r.n1, r.n2) == (n1, n2))
                    .filter(|r| r.point.algorithm == a)
                    .filter_map(|r| r.point.makespan_s.map(|t| (r.bytes, t)))
                    .collect(),
            })
            .collect();
        out.push((
            format!("sizes-{n1}-{n2}.svg"),
            Chart {
                title: format!("Total exchange, {n1}+{n2} nodes (cf. 001 Fig. 4)"),
                x: Axis {
                    label: "message size".into(),
                    scale: Scale::Log,
                    units: Units::Bytes,
                    ticks: vec![],
                },
                y: time.clone(),
                series,
                size: (1000, 560),
            },
        ));
    }
    for (name, title, keep) in [
        (
            "nodes-equal.svg",
            "n1 = n2 (cf. 001 Fig. 5)",
            &(|r: &Row| r.n1 == r.n2) as &dyn Fn(&Row) -> bool,
        ),
        (
            "nodes-double.svg",
            "n2 = 2·n1 (cf. 001 Fig. 6)",
            &|r: &Row| r.n2 == 2 * r.n1,
        ),
    ] {
        if !rows.iter().any(|r| r.sweep == "nodes" && keep(r)) {
            continue;
        }
        let mut series = Vec::new();
        for (k, &b) in args.node_sizes.iter().enumerate() {
            for &a in &Algorithm::ALL {
                series.push(Series {
                    name: format!(
                        "{} {}",
                        a.name(),
                        liquid_plot::format_value(b, Units::Bytes)
                    ),
                    colour: colour(a).into(),
                    mark: Mark::LineDots,
                    dashed: k % 2 == 1,
                    points: rows
                        .iter()
                        .filter(|r| r.sweep == "nodes" && keep(r) && r.bytes == b)
                        .filter(|r| r.point.algorithm == a)
                        .filter_map(|r| r.point.makespan_s.map(|t| ((r.n1 + r.n2) as f64, t)))
                        .collect(),
                });
            }
        }
        out.push((
            name.to_string(),
            Chart {
                title: format!("Total exchange over node counts, {title}"),
                x: Axis {
                    label: "nodes (n1 + n2)".into(),
                    ..Axis::default()
                },
                y: time.clone(),
                series,
                size: (1000, 560),
            },
        ));
    }
    out
}

fn bytes(b: f64) -> String {
    liquid_plot::format_value(b, Units::Bytes)
}

fn markdown(args: &StudyArgs, s: &Summary, rows: &[Row]) -> String {
    let mut m = String::new();
    let _ = writeln!(
        m,
        "# Two clusters: LG against direct all-to-alls, and LG with liquid schedules\n"
    );
    let _ = writeln!(
        m,
        "Generated by `liquid study two-clusters --markdown` (`scripts/bench-two-clusters`); \
         do not edit by hand above the notes.\n"
    );
    let st = &s.setting;
    let _ = writeln!(
        m,
        "## Setting\n\n| parameter | value | source |\n| --- | --- | --- |"
    );
    for (name, p) in [
        ("backbone bandwidth", &st.backbone_bandwidth),
        ("backbone latency", &st.backbone_latency),
        ("node bandwidth", &st.node_bandwidth),
        ("node link latency", &st.node_link_latency),
        ("overhead per message", &st.overhead_per_message),
        ("TCP window", &st.tcp_window),
        ("eager limit", &st.eager_limit),
        (
            "serial overhead per message",
            &st.serial_overhead_per_message,
        ),
        ("RTT-unfair sharing", &st.rtt_unfair_sharing),
    ] {
        let _ = writeln!(m, "| {name} | {} {} | {} |", p.value, p.unit, p.source);
    }
    let _ = writeln!(
        m,
        "\nModel: {}. Schedules: engine `{}`, {} s per traffic, on a traffic-set model whose \
         backbone has {} lanes (one node card's bandwidth each).\n",
        s.model,
        args.engine.name(),
        args.time_limit.as_secs_f64(),
        st.scheduling_lanes
    );
    let _ = writeln!(
        m,
        "## Backbone messages (counted from the plans)\n\n| n1+n2 | LG | 2·max | direct | 2·n1·n2 |\n| --- | --- | --- | --- | --- |"
    );
    for b in &s.backbone_messages {
        let _ = writeln!(
            m,
            "| {}+{} | {} | {} | {} | {} |",
            b.n1, b.n2, b.lg, b.lg_expected, b.direct, b.direct_expected
        );
    }
    let _ = writeln!(
        m,
        "\n## Who wins, over sizes {}\n\n| n1+n2 | faster | than | wins from | largest speed-up (at) | smallest speed-up (at) |\n| --- | --- | --- | --- | --- | --- |",
        s.sizes
    );
    for c in s.comparisons.iter().chain(&s.node_sweep) {
        let _ = writeln!(
            m,
            "| {}+{} | {} | {} | {} | {:.3}× ({}) | {:.3}× ({}) |",
            c.n1,
            c.n2,
            c.faster,
            c.than,
            c.wins_from_bytes.map_or("never".into(), bytes),
            c.largest_speedup,
            bytes(c.largest_speedup_at_bytes),
            c.smallest_speedup,
            bytes(c.smallest_speedup_at_bytes)
        );
    }
    let _ = writeln!(m, "\n## Schedules\n\n| case | traffic | transfers | Λ | length | source |\n| --- | --- | --- | --- | --- | --- |");
    for cs in &s.schedules {
        let case = &cs.case;
        for r in &cs.traffics {
            let _ = writeln!(
                m,
                "| {case} | {} | {} | {} | {} | {} |",
                r.traffic, r.transfers, r.lambda, r.length, r.source
            );
        }
    }
    let _ = writeln!(m, "\n## Completion times (s), size sweep\n");
    for &(n1, n2) in &args.size_cases {
        let _ = write!(m, "{n1}+{n2} nodes:\n\n| size |");
        for a in Algorithm::ALL {
            let _ = write!(m, " {} |", a.name());
        }
        let _ = write!(m, "\n| --- |");
        for _ in Algorithm::ALL {
            m.push_str(" --- |");
        }
        m.push('\n');
        let mut sizes: Vec<f64> = rows
            .iter()
            .filter(|r| r.sweep == "sizes" && (r.n1, r.n2) == (n1, n2))
            .map(|r| r.bytes)
            .collect();
        sizes.dedup();
        for b in sizes {
            let _ = write!(m, "| {} |", bytes(b));
            for a in Algorithm::ALL {
                let t = rows
                    .iter()
                    .find(|r| {
                        r.sweep == "sizes"
                            && (r.n1, r.n2) == (n1, n2)
                            && r.bytes == b
                            && r.point.algorithm == a
                    })
                    .map(|r| r.point.makespan_s);
                let _ = match t {
                    Some(Some(t)) => write!(m, " {t:.6} |"),
                    // The time limit stopped the simulation.
                    Some(None) => write!(m, " stopped |"),
                    None => write!(m, " {:.6} |", f64::NAN),
                };
            }
            m.push('\n');
        }
        m.push('\n');
    }
    let _ = writeln!(m, "Study wall time: {:.1} s.", s.wall_time_s);
    m
}

/// A simulator's refusal in case `n1 + n2`: a parameter out of range (named), or no
/// schedule because a time limit stopped every engine, is the user's to change (exit 2);
/// anything else is internal.
/// [`sim_error`] for a run at `bytes` per message: a size the simulator refuses is
/// reported under the option that gave it.
fn sized_error(
    n1: usize,
    n2: usize,
    option: &str,
    bytes: f64,
    e: liquid_sim::SimError,
) -> StudyError {
    match e {
        liquid_sim::SimError::BadParameter { name: "size", why } => {
            // Huge sizes in exponent form, as the user is likely to have typed them.
            let bytes = if bytes >= 1e15 {
                format!("{bytes:e}")
            } else {
                format!("{bytes}")
            };
            StudyError::Input(format!(
                "{n1}+{n2} nodes: {option}: {bytes} B per message: {why}"
            ))
        }
        e => sim_error(n1, n2, e),
    }
}

fn sim_error(n1: usize, n2: usize, e: liquid_sim::SimError) -> StudyError {
    match e {
        liquid_sim::SimError::BadParameter { .. } => {
            StudyError::Input(format!("{n1}+{n2} nodes: {e}"))
        }
        liquid_sim::SimError::Mismatch(m) if m.starts_with("no schedule for") => {
            StudyError::Input(format!(
                "{n1}+{n2} nodes: {m}(the engines stopped at their time limit before a schedule: raise --time-limit or study fewer nodes)"
            ))
        }
        e => StudyError::internal(e),
    }
}
