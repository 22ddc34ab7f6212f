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
use liquid_sim::study::{self, Algorithm, Case, Phase, Row, Scheduled, Setting};
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
    /// Its time limit per traffic.
    pub time_limit: Duration,
    /// Also write the report as Markdown here.
    pub markdown: Option<PathBuf>,
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
    /// Whether every case's backbone message counts are 001's 2·max(n1, n2) (LG) and
    /// 2·n1·n2 (direct): when not, the plans are wrong.
    pub fn counts_match(&self) -> bool {
        self.backbone_messages.iter().all(|b| b.counts_match)
    }
}

/// Runs the study: every case of the size and node sweeps, simulated with every
/// algorithm; writes `two-clusters.csv` and the SVG charts into `args.out` (and the
/// Markdown report when asked), and returns the summary.
pub fn run(args: &StudyArgs) -> Result<Summary, StudyError> {
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
    crate::create_dir(&args.out)?;
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
    let mut rows: Vec<Row> = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    let mut case = |n1: usize, n2: usize, cases: &mut Vec<Case>| -> Result<usize, StudyError> {
        if let Some(i) = cases.iter().position(|c| (c.n1, c.n2) == (n1, n2)) {
            return Ok(i);
        }
        let c = Case::new(n1, n2, s, &mut scheduler).map_err(|e| sim_error(n1, n2, e))?;
        cases.push(c);
        Ok(cases.len() - 1)
    };
    let internal = StudyError::internal;
    let sizes: Vec<f64> = (k0..=k1).map(|k| 2f64.powi(k as i32)).collect();
    for &(n1, n2) in &args.size_cases {
        let i = case(n1, n2, &mut cases)?;
        for &b in &sizes {
            let named = |e| sized_error(n1, n2, "--size-exponents", b, e);
            for p in cases[i].run(b, s).map_err(named)? {
                rows.push(Row {
                    sweep: "sizes",
                    n1,
                    n2,
                    bytes: b,
                    point: p,
                });
            }
        }
    }
    let node_cases: Vec<(usize, usize)> = args
        .equal
        .iter()
        .map(|&n| (n, n))
        .chain(args.double.iter().map(|&n| (n, 2 * n)))
        .collect();
    for &(n1, n2) in &node_cases {
        let i = case(n1, n2, &mut cases)?;
        for &b in &args.node_sizes {
            let named = |e| sized_error(n1, n2, "--node-sizes", b, e);
            for p in cases[i].run(b, s).map_err(named)? {
                rows.push(Row {
                    sweep: "nodes",
                    n1,
                    n2,
                    bytes: b,
                    point: p,
                });
            }
        }
    }
    // Files.
    let mut files = Vec::new();
    let csv = args.out.join("two-clusters.csv");
    let mut text = String::from(study::CSV_HEADER);
    text.push('\n');
    for r in &rows {
        text.push_str(&r.to_csv());
        text.push('\n');
    }
    crate::write(&csv, text)?;
    files.push(csv.display().to_string());
    for (name, chart) in charts(args, &rows) {
        let path = args.out.join(name);
        let svg = chart.to_svg().map_err(StudyError::internal)?;
        crate::write(&path, svg)?;
        files.push(path.display().to_string());
    }
    // Summary.
    let count = |c: &Case, a: Algorithm| c.backbone_messages(a).map_err(internal);
    let mut backbone = Vec::new();
    for c in &cases {
        let (lg, direct) = (
            count(c, Algorithm::Lg)?,
            count(c, Algorithm::DirectAllAtOnce)?,
        );
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
            scheduling_lanes: s.lanes(),
            cluster: s.cluster.clone(),
        },
        model: "flow level, max-min fair sharing, no TCP (slow start, losses, windows): see README, Simulation",
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
        files,
        wall_time_s: start.elapsed().as_secs_f64(),
    };
    if let Some(path) = &args.markdown {
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
                    .map(|r| (r.bytes, r.point.makespan_s))
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
                        .map(|r| ((r.n1 + r.n2) as f64, r.point.makespan_s))
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
                    .map_or(f64::NAN, |r| r.point.makespan_s);
                let _ = write!(m, " {t:.6} |");
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
