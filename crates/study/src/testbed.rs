//! The Swiss-T1 sweep of 000 section 3 and 003 sections 2, 4 and the annex, on the
//! reconstructed testbed of [`liquid_topology::t1`] (`liquid testbed t1` and `liquid
//! merge`): every class of allocations through round-robin, DSatur and the native
//! search ([`t1`], in parallel, optionally one shard of the classes), the CSV files, the
//! charts and the summary; [`merge`] joins shards.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use liquid_model::{Limits, Traffic};
#[cfg(test)]
use liquid_topology::t1::Allocation;
use liquid_topology::t1::{self, Class};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::StudyError;
use liquid_model::display::round2;
use liquid_plot::{Axis, Chart, Mark, Series};

/// Runs the sweeps of this process on `jobs` worker threads (at least one) instead of
/// one per core; only before the first sweep starts.
pub fn set_workers(jobs: usize) -> Result<(), StudyError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build_global()
        .map_err(|e| StudyError::Failed(format!("cannot start {jobs} worker threads: {e}")))
}

/// The CSV file name of a full (or merged) sweep.
pub const CSV: &str = "t1-classes.csv";

const HEADER: &str = "class,nodes,allocation,allocations,transfers,duration,\
liquid_throughput_ratio,liquid_throughput_mb_s,round_robin_length,\
round_robin_throughput_mb_s,round_robin_loss_percent,dsatur_length,dsatur_loss_percent,\
dsatur_time_s,native_verdict,native_length,native_time_s";

/// The file of simulated throughputs (`--sim-size`), beside [`CSV`].
pub const SIM_CSV: &str = "t1-simulated.csv";

const SIM_HEADER: &str = "class,nodes,allocation,transfers,size_bytes,liquid_throughput_mb_s,\
schedule,schedule_length,schedule_sim_mb_s,round_robin_length,round_robin_sim_mb_s,\
all_at_once_sim_mb_s";

/// `testbed t1 --sim-size`: simulate each class's schedules (003's measured-throughput
/// study) on the flow-level simulator of `liquid-sim`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimParams {
    /// Bytes per transfer.
    pub size: f64,
    /// Latency of every link, seconds.
    pub latency: f64,
    /// Software overhead per message, seconds.
    pub overhead: f64,
}

/// One class's simulated throughputs: a row of [`SIM_CSV`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SimRow {
    class: usize,
    nodes: u32,
    allocation: String,
    transfers: u64,
    size: f64,
    liquid_mb_s: f64,
    /// The engine whose schedule ran (native's when it found one, DSatur's otherwise).
    schedule: String,
    schedule_length: usize,
    schedule_sim: f64,
    rr_length: usize,
    rr_sim: f64,
    all_at_once_sim: f64,
}

use liquid_sim::study::csv_float;

impl SimRow {
    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            self.class,
            self.nodes,
            self.allocation,
            self.transfers,
            csv_float(self.size),
            csv_float(self.liquid_mb_s),
            self.schedule,
            self.schedule_length,
            csv_float(self.schedule_sim),
            self.rr_length,
            csv_float(self.rr_sim),
            csv_float(self.all_at_once_sim)
        )
    }
}

/// Simulated throughput (MB/s) of a schedule in a mode.
fn sim_throughput(
    traffic: &Traffic,
    mapped: &liquid_sim::MappedTraffic,
    schedule: &liquid_model::Schedule,
    mode: liquid_sim::Mode,
    p: &SimParams,
) -> Result<f64, String> {
    let sizes = vec![p.size; traffic.len()];
    let plan = liquid_sim::from_schedule(traffic, &mapped.routes, &sizes, schedule, mode)
        .map_err(|e| e.to_string())?;
    let opts = liquid_sim::Options {
        overhead: p.overhead,
        trace: false,
    };
    let run = liquid_sim::simulate(&mapped.platform, &plan, &opts).map_err(|e| e.to_string())?;
    Ok(if run.makespan > 0.0 {
        round2(p.size * traffic.len() as f64 / run.makespan / 1e6)
    } else {
        0.0
    })
}

pub use liquid_shard::Shard;

/// The sweep's name in its shard files (`liquid merge` reads it).
pub const SWEEP: &str = "t1-testbed";

/// One class's results in a shard file: its CSV row and, with `--sim-size`, its simulated
/// row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClassResult {
    row: Row,
    sim: Option<SimRow>,
}

/// The sweep's own options, which every shard of one run shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Params {
    time_limit_s: f64,
    sim: Option<SimParams>,
}

/// A class's name in a shard file: its index and representative allocation.
fn class_key(index: usize, c: &Class) -> String {
    let allocation: String = c.representative.0.iter().map(u8::to_string).collect();
    format!("class {index} [{allocation}]")
}

/// One class's results: a CSV row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Row {
    class: usize,
    nodes: u32,
    allocation: String,
    allocations: u64,
    transfers: u64,
    duration: u64,
    ratio: String,
    liquid_mb_s: f64,
    rr_length: usize,
    rr_mb_s: f64,
    rr_loss: f64,
    dsatur_length: usize,
    dsatur_loss: f64,
    dsatur_time: f64,
    native_verdict: String,
    native_length: Option<usize>,
    native_time: f64,
}

fn loss(duration: u64, length: usize) -> f64 {
    round2(100.0 * (1.0 - duration as f64 / length as f64))
}

impl Row {
    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6},{},{},{:.6}",
            self.class,
            self.nodes,
            self.allocation,
            self.allocations,
            self.transfers,
            self.duration,
            self.ratio,
            self.liquid_mb_s,
            self.rr_length,
            self.rr_mb_s,
            self.rr_loss,
            self.dsatur_length,
            self.dsatur_loss,
            self.dsatur_time,
            self.native_verdict,
            self.native_length
                .map(|l| l.to_string())
                .unwrap_or_default(),
            self.native_time
        )
    }
}

/// Runs one engine of the registry through the gate (every answer checked).
fn gated(
    traffic: &Traffic,
    engine: &str,
    limits: &Limits,
) -> Result<liquid_engine::Checked, String> {
    let e = liquid_engine::find(engine).ok_or_else(|| format!("no engine {engine}"))?;
    let request = liquid_engine::Request {
        limits: *limits,
        ..Default::default()
    };
    liquid_engine::solve(traffic, e, &request, None, &AtomicU64::new(0)).map_err(|e| e.to_string())
}

fn length(c: &liquid_engine::Checked, what: &str) -> Result<usize, String> {
    c.length().ok_or_else(|| format!("{what}: no schedule"))
}

fn run_class(
    index: usize,
    c: &Class,
    limits: &Limits,
    sim: Option<&SimParams>,
) -> Result<(Row, Option<SimRow>), String> {
    let what = |e: &str| format!("class {index} [{}]: {e}", c.representative);
    let g = t1::generated(c.representative).map_err(|e| what(&e.to_string()))?;
    let traffic = g.expand().map_err(|e| what(&e.to_string()))?;
    let nodes = c.key.nodes as u64;
    if traffic.duration() as u64 != c.duration || traffic.len() as u64 != nodes * nodes {
        return Err(what(
            "the expanded traffic disagrees with the fast load computation",
        ));
    }
    let mb = traffic.link_throughput().unwrap_or(1.0);
    let n = traffic.len() as f64;
    let none = Limits::default();
    let rr = gated(&traffic, "round-robin", &none).map_err(|e| what(&e))?;
    let rr_length = length(&rr, "round-robin").map_err(|e| what(&e))?;
    let ds = gated(&traffic, "dsatur", &none).map_err(|e| what(&e))?;
    let dsatur_time = ds.seconds();
    let dsatur_length = length(&ds, "dsatur").map_err(|e| what(&e))?;
    let nat = gated(&traffic, "native", limits).map_err(|e| what(&e))?;
    let native_time = nat.seconds();
    let native_length = nat.length();
    let d = c.duration;
    let allocation: String = c.representative.0.iter().map(u8::to_string).collect();
    let sim_row = match sim {
        None => None,
        Some(p) => {
            let mapped = liquid_sim::MappedTraffic::new(&traffic, |_| Some((mb * 1e6, p.latency)))
                .map_err(|e| what(&e.to_string()))?;
            let (schedule, engine) = match (nat.outcome().schedule(), ds.outcome().schedule()) {
                (Some(s), _) => (s, "native"),
                (None, Some(s)) => (s, "dsatur"),
                (None, None) => return Err(what("dsatur: no schedule")),
            };
            let rr_schedule = rr
                .outcome()
                .schedule()
                .ok_or_else(|| what("round-robin: no schedule"))?;
            let all = liquid_model::Schedule::new(vec![traffic.transfer_ids().collect()]);
            let run = |s, mode| sim_throughput(&traffic, &mapped, s, mode, p).map_err(|e| what(&e));
            Some(SimRow {
                class: index,
                nodes: c.key.nodes,
                allocation: allocation.clone(),
                transfers: traffic.len() as u64,
                size: p.size,
                liquid_mb_s: round2(mb * n / d as f64),
                schedule: engine.to_string(),
                schedule_length: schedule.frames.len(),
                schedule_sim: run(schedule, liquid_sim::Mode::Frames)?,
                rr_length,
                rr_sim: run(rr_schedule, liquid_sim::Mode::Frames)?,
                all_at_once_sim: run(&all, liquid_sim::Mode::AllAtOnce)?,
            })
        }
    };
    let row = Row {
        class: index,
        nodes: c.key.nodes,
        allocation,
        allocations: c.count,
        transfers: traffic.len() as u64,
        duration: d,
        ratio: c.key.throughput.to_string(),
        liquid_mb_s: round2(mb * n / d as f64),
        rr_length,
        rr_mb_s: round2(mb * n / rr_length as f64),
        rr_loss: loss(d, rr_length),
        dsatur_length,
        dsatur_loss: loss(d, dsatur_length),
        dsatur_time,
        native_verdict: nat.verdict().as_str().to_string(),
        native_length,
        native_time,
    };
    Ok((row, sim_row))
}

#[derive(Debug, Serialize)]
struct Buckets {
    none: f64,
    under_10: f64,
    from_10_to_20: f64,
    over_20: f64,
}

#[derive(Debug, Serialize)]
struct NativeSummary {
    liquid: usize,
    non_liquid: usize,
    unknown: usize,
    decided_under_100ms_percent: f64,
    decided_under_10ms_percent: f64,
    slowest_time_s: f64,
}

/// What a sweep found, against what 003 published.
#[derive(Debug, Serialize)]
pub struct Summary {
    testbed: &'static str,
    allocations: u32,
    classes: usize,
    classes_without_one_node: usize,
    classes_in_this_output: usize,
    /// Share of classes (percent) by DSatur's loss against the liquid schedule.
    dsatur_loss_percent_of_classes: Buckets,
    /// 003 annex, Fig. 11.
    published_dsatur_loss_percent_of_classes: Buckets,
    round_robin_mean_loss_percent: f64,
    round_robin_at_most_half_of_liquid_percent_of_classes: f64,
    native: NativeSummary,
    /// `--sim-size`: mean simulated throughput of each strategy, as a percentage of the
    /// liquid throughput, over the classes of this output.
    #[serde(skip_serializing_if = "Option::is_none")]
    simulated: Option<SimSummary>,
    files: Vec<String>,
    wall_time_s: f64,
}

#[derive(Debug, Serialize)]
struct SimSummary {
    size_bytes: f64,
    link_latency_s: f64,
    overhead_s: f64,
    schedule_mean_percent_of_liquid: f64,
    round_robin_mean_percent_of_liquid: f64,
    all_at_once_mean_percent_of_liquid: f64,
}

fn sim_summary(rows: &[SimRow], p: &SimParams) -> SimSummary {
    let mean = |f: &dyn Fn(&SimRow) -> f64| {
        if rows.is_empty() {
            0.0
        } else {
            round2(
                rows.iter()
                    .map(|r| 100.0 * f(r) / r.liquid_mb_s)
                    .sum::<f64>()
                    / rows.len() as f64,
            )
        }
    };
    SimSummary {
        size_bytes: p.size,
        link_latency_s: p.latency,
        overhead_s: p.overhead,
        schedule_mean_percent_of_liquid: mean(&|r| r.schedule_sim),
        round_robin_mean_percent_of_liquid: mean(&|r| r.rr_sim),
        all_at_once_mean_percent_of_liquid: mean(&|r| r.all_at_once_sim),
    }
}

fn write_sim_csv(path: &Path, rows: &[SimRow]) -> Result<(), StudyError> {
    crate::write_csv(path, SIM_HEADER, rows.iter().map(SimRow::to_csv))
}

fn pct(k: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        round2(100.0 * k as f64 / n as f64)
    }
}

fn summary(rows: &[Row], classes: &[Class], files: Vec<String>, wall: Duration) -> Summary {
    let n = rows.len();
    let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
    let decided = |r: &Row| r.native_verdict == "liquid" || r.native_verdict == "non-liquid";
    Summary {
        testbed: "swiss-t1 (reconstructed routing, see liquid_topology::t1)",
        allocations: t1::ALLOCATIONS,
        classes: classes.len(),
        classes_without_one_node: classes.iter().filter(|c| c.key.nodes > 1).count(),
        classes_in_this_output: n,
        dsatur_loss_percent_of_classes: Buckets {
            none: pct(count(&|r| r.dsatur_length as u64 == r.duration), n),
            under_10: pct(
                count(&|r| r.dsatur_length as u64 > r.duration && r.dsatur_loss < 10.0),
                n,
            ),
            from_10_to_20: pct(
                count(&|r| r.dsatur_loss >= 10.0 && r.dsatur_loss <= 20.0),
                n,
            ),
            over_20: pct(count(&|r| r.dsatur_loss > 20.0), n),
        },
        published_dsatur_loss_percent_of_classes: Buckets {
            none: 74.0,
            under_10: 18.0,
            from_10_to_20: 8.0,
            over_20: 0.0,
        },
        round_robin_mean_loss_percent: if n == 0 {
            0.0
        } else {
            round2(rows.iter().map(|r| r.rr_loss).sum::<f64>() / n as f64)
        },
        round_robin_at_most_half_of_liquid_percent_of_classes: pct(
            count(&|r| 2 * r.duration as usize <= r.rr_length),
            n,
        ),
        native: NativeSummary {
            liquid: count(&|r| r.native_verdict == "liquid"),
            non_liquid: count(&|r| r.native_verdict == "non-liquid"),
            unknown: count(&|r| !decided(r)),
            decided_under_100ms_percent: pct(count(&|r| decided(r) && r.native_time < 0.1), n),
            decided_under_10ms_percent: pct(count(&|r| decided(r) && r.native_time < 0.01), n),
            slowest_time_s: rows.iter().map(|r| r.native_time).fold(0.0, f64::max),
        },
        simulated: None,
        files,
        wall_time_s: wall.as_secs_f64(),
    }
}

fn write_csv(path: &Path, rows: &[Row]) -> Result<(), StudyError> {
    crate::write_csv(path, HEADER, rows.iter().map(Row::to_csv))
}

fn x_ticks(rows: &[Row]) -> Vec<(f64, String)> {
    let mut ticks = Vec::new();
    let mut last = 0;
    for r in rows {
        if r.nodes != last && r.nodes % 4 == 0 {
            ticks.push((r.class as f64, format!("({})", r.nodes)));
        }
        last = r.nodes;
    }
    ticks
}

fn plots(dir: &Path, rows: &[Row]) -> Result<Vec<String>, StudyError> {
    let x = |r: &Row| r.class as f64;
    let link = 86.0;
    let axes = |y_label: &str| {
        (
            Axis {
                label: "sub-topologies (classes), sorted by nodes then liquid throughput; (nodes)"
                    .into(),
                ticks: x_ticks(rows),
                ..Axis::default()
            },
            Axis {
                label: y_label.into(),
                ..Axis::default()
            },
        )
    };
    let series = |name: &str, colour: &str, mark: Mark, points: Vec<(f64, f64)>| Series {
        name: name.into(),
        colour: colour.into(),
        mark,
        dashed: false,
        points,
    };
    let chart = |title: &str, y_label: &str, series: Vec<Series>| {
        let (x, y) = axes(y_label);
        Chart {
            title: title.into(),
            x,
            y,
            series,
            size: (1100, 520),
        }
    };
    let charts = [
        (
            "t1-liquid-throughput.svg",
            chart(
                "Swiss-T1: liquid and crossbar throughput (cf. 000 Fig. 8, 003 Fig. 5)",
                "throughput (MB/s)",
                vec![
                    series(
                        "full crossbar (nodes × 86 MB/s)",
                        "#999999",
                        Mark::Line,
                        rows.iter().map(|r| (x(r), r.nodes as f64 * link)).collect(),
                    ),
                    series(
                        "liquid throughput",
                        "#1f4e9c",
                        Mark::Line,
                        rows.iter().map(|r| (x(r), r.liquid_mb_s)).collect(),
                    ),
                ],
            ),
        ),
        (
            "t1-round-robin.svg",
            chart(
                "Swiss-T1: liquid vs round-robin throughput, timeframe model (cf. 000 Fig. 9-10, 003 Fig. 6, 9)",
                "throughput (MB/s)",
                vec![
                    series(
                        "liquid throughput",
                        "#1f4e9c",
                        Mark::Line,
                        rows.iter().map(|r| (x(r), r.liquid_mb_s)).collect(),
                    ),
                    series(
                        "round-robin schedule",
                        "#c0392b",
                        Mark::Dots,
                        rows.iter().map(|r| (x(r), r.rr_mb_s)).collect(),
                    ),
                ],
            ),
        ),
        (
            "t1-dsatur-loss.svg",
            chart(
                "Swiss-T1: DSatur loss against the liquid schedule (cf. 003 Fig. 11)",
                "loss (%)",
                vec![series(
                    "DSatur: 1 - Λ / length",
                    "#d35400",
                    Mark::Dots,
                    rows.iter().map(|r| (x(r), r.dsatur_loss)).collect(),
                )],
            ),
        ),
    ];
    let mut files = Vec::new();
    for (name, chart) in charts {
        let path = dir.join(name);
        let svg = chart.to_svg().map_err(StudyError::internal)?;
        crate::write(&path, svg)?;
        files.push(path.display().to_string());
    }
    Ok(files)
}

fn finish(
    dir: &Path,
    rows: &[Row],
    classes: &[Class],
    sim: Option<(&SimParams, &[SimRow])>,
    start: Instant,
) -> Result<Summary, StudyError> {
    let csv = dir.join(CSV);
    write_csv(&csv, rows)?;
    let mut files = vec![csv.display().to_string()];
    if let Some((_, sim_rows)) = sim {
        let path = dir.join(SIM_CSV);
        write_sim_csv(&path, sim_rows)?;
        files.push(path.display().to_string());
    }
    files.extend(plots(dir, rows)?);
    let mut s = summary(rows, classes, files, start.elapsed());
    s.simulated = sim.map(|(p, r)| sim_summary(r, p));
    Ok(s)
}

/// What [`t1`] did: the whole sweep with its summary, or one shard's file.
pub enum Sweep {
    /// Every class: the summary (the files are in it).
    Full(Box<Summary>),
    /// One shard.
    Shard {
        /// The shard file (join the shards with `liquid merge`).
        file: PathBuf,
        /// Classes in this shard.
        rows: usize,
        /// Classes of the testbed.
        classes: usize,
    },
}

/// Runs the sweep (or one shard of it) into the directory `out`: each class through
/// round-robin and DSatur, and the native search within `time_limit`; with `sim`, each
/// class's schedules on the flow-level simulator too. Classes run in parallel on rayon's
/// global pool; `tick` is called after each class.
pub fn t1(
    out: &Path,
    shard: Option<Shard>,
    time_limit: Duration,
    sim: Option<SimParams>,
    tick: &(dyn Fn() + Sync),
) -> Result<Sweep, StudyError> {
    if let Some(p) = &sim {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !(ok(p.size) && ok(p.latency) && ok(p.overhead)) {
            return Err(StudyError::Input(
                "--sim-size, --sim-latency and --sim-overhead must be finite and not negative"
                    .into(),
            ));
        }
    }
    let start = Instant::now();
    let dir = crate::outdir::for_sweep(out, shard.is_some())?;
    let classes = t1::classes();
    let limits = Limits {
        time: Some(time_limit),
        nodes: None,
    };
    let todo: Vec<(usize, &Class)> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| (i + 1, c))
        .filter(|(i, _)| shard.is_none_or(|s| (i - 1) % s.count == s.index - 1))
        .collect();
    let results: Vec<Result<(Row, Option<SimRow>), String>> = todo
        .par_iter()
        .map(|&(i, c)| {
            let r = run_class(i, c, &limits, sim.as_ref());
            tick();
            r
        })
        .collect();
    let mut rows = Vec::with_capacity(results.len());
    let mut sim_rows = Vec::new();
    for r in results {
        let (row, sim_row) = r.map_err(StudyError::Internal)?;
        rows.push(row);
        sim_rows.extend(sim_row);
    }
    match shard {
        None => {
            let summary = finish(
                out,
                &rows,
                &classes,
                sim.as_ref().map(|p| (p, sim_rows.as_slice())),
                start,
            )?;
            if let Some(d) = dir {
                d.finish()?;
            }
            Ok(Sweep::Full(Box::new(summary)))
        }
        Some(s) => {
            let params = Params {
                time_limit_s: time_limit.as_secs_f64(),
                sim,
            };
            let mut sims = sim_rows.into_iter();
            let items = todo
                .iter()
                .zip(rows)
                .map(|(&(i, c), row)| liquid_shard::Item {
                    index: i - 1,
                    key: class_key(i, c),
                    result: ClassResult {
                        row,
                        sim: if sim.is_some() { sims.next() } else { None },
                    },
                })
                .collect::<Vec<_>>();
            let written = crate::ShardWritten::write(out, SWEEP, &params, s, classes.len(), items)?;
            Ok(Sweep::Shard {
                file: written.file,
                rows: written.items,
                classes: written.total,
            })
        }
    }
}

/// Checks a class's results read from a shard file against the class, as far as they can
/// be without running the slow engines again: the class's own facts (nodes, allocation, its
/// count, transfers, Λ, liquid throughput, computed again from the class's traffic; the
/// round-robin and DSatur lengths, computed again);
/// every schedule length at least Λ, and consistent with native's verdict (a liquid
/// verdict is a schedule of Λ frames; after a proof that Λ frames are impossible no
/// schedule has Λ); every figure derived from a length (throughputs, losses) as the
/// unsharded run derives it; times and simulated throughputs finite and not negative; the
/// simulated row the class's, of the schedule it names.
fn recheck(r: &ClassResult, c: &Class, sim: Option<&SimParams>) -> Result<(), String> {
    let row = &r.row;
    let g = t1::generated(c.representative).map_err(|e| e.to_string())?;
    let traffic = g.expand().map_err(|e| e.to_string())?;
    let mb = traffic.link_throughput().unwrap_or(1.0);
    let n = traffic.len() as f64;
    let d = c.duration;
    let allocation: String = c.representative.0.iter().map(u8::to_string).collect();
    let differs = |field: &str, got: String, want: String| {
        if got == want {
            Ok(())
        } else {
            Err(format!("{field} is {got}, the class's is {want}"))
        }
    };
    differs("nodes", row.nodes.to_string(), c.key.nodes.to_string())?;
    differs("allocation", row.allocation.clone(), allocation.clone())?;
    differs(
        "allocations",
        row.allocations.to_string(),
        c.count.to_string(),
    )?;
    differs(
        "transfers",
        row.transfers.to_string(),
        traffic.len().to_string(),
    )?;
    differs(
        "duration",
        row.duration.to_string(),
        traffic.duration().to_string(),
    )?;
    differs("duration", row.duration.to_string(), d.to_string())?;
    differs("ratio", row.ratio.clone(), c.key.throughput.to_string())?;
    let derived = |field: &str, got: f64, want: f64| {
        if got.to_bits() == want.to_bits() {
            Ok(())
        } else {
            Err(format!("{field} is {got}, its length gives {want}"))
        }
    };
    derived("liquid_mb_s", row.liquid_mb_s, round2(mb * n / d as f64))?;
    let lengths = [
        ("rr_length", Some(row.rr_length)),
        ("dsatur_length", Some(row.dsatur_length)),
        ("native_length", row.native_length),
    ];
    for (field, l) in lengths {
        if let Some(l) = l {
            if (l as u64) < d {
                return Err(format!("{field} {l} is below the class's Λ {d}"));
            }
        }
    }
    // Round-robin and DSatur are deterministic and quick, and run without a limit: their
    // lengths are computed again.
    for (field, engine, got) in [
        ("rr_length", "round-robin", row.rr_length),
        ("dsatur_length", "dsatur", row.dsatur_length),
    ] {
        let again = gated(&traffic, engine, &Limits::default()).and_then(|c| length(&c, engine))?;
        if got != again {
            return Err(format!("{field} is {got}, {engine} gives {again}"));
        }
    }
    derived(
        "rr_mb_s",
        row.rr_mb_s,
        round2(mb * n / row.rr_length as f64),
    )?;
    derived("rr_loss", row.rr_loss, loss(d, row.rr_length))?;
    derived("dsatur_loss", row.dsatur_loss, loss(d, row.dsatur_length))?;
    let liquid = liquid_model::Verdict::Liquid.as_str();
    let settled_above = [
        liquid_model::Verdict::NonLiquid.as_str(),
        liquid_model::Verdict::Optimal.as_str(),
    ];
    let verdict = row.native_verdict.as_str();
    if verdict == liquid && row.native_length.map(|l| l as u64) != Some(d) {
        return Err(format!(
            "native_verdict liquid with native_length {:?}, not Λ = {d}",
            row.native_length
        ));
    }
    if settled_above.contains(&verdict) {
        for (field, l) in lengths {
            if l.is_some_and(|l| l as u64 == d) {
                return Err(format!(
                    "native_verdict {verdict} (no schedule of Λ = {d} frames), yet {field} is {d}"
                ));
            }
        }
    } else if verdict != liquid && verdict != liquid_model::Verdict::Unknown.as_str() {
        return Err(format!(
            "native_verdict {verdict:?} is not a verdict of native's"
        ));
    }
    let time = |field: &str, v: f64| {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(format!("{field} {v} is not a time"))
        }
    };
    time("dsatur_time", row.dsatur_time)?;
    time("native_time", row.native_time)?;
    if let (Some(s), Some(p)) = (&r.sim, sim) {
        differs("sim class", s.class.to_string(), row.class.to_string())?;
        differs("sim nodes", s.nodes.to_string(), row.nodes.to_string())?;
        differs("sim allocation", s.allocation.clone(), allocation)?;
        differs(
            "sim transfers",
            s.transfers.to_string(),
            row.transfers.to_string(),
        )?;
        derived("sim size", s.size, p.size)?;
        derived("sim liquid_mb_s", s.liquid_mb_s, row.liquid_mb_s)?;
        let length = match (s.schedule.as_str(), row.native_length) {
            ("native", Some(l)) => l,
            ("dsatur", None) => row.dsatur_length,
            (engine, _) => {
                return Err(format!(
                    "the simulated schedule is {engine:?}'s; the run simulates native's when it \
                     has one (native_length {:?}), else dsatur's",
                    row.native_length
                ))
            }
        };
        differs(
            "sim schedule_length",
            s.schedule_length.to_string(),
            length.to_string(),
        )?;
        differs(
            "sim rr_length",
            s.rr_length.to_string(),
            row.rr_length.to_string(),
        )?;
        for (field, v) in [
            ("schedule_sim", s.schedule_sim),
            ("rr_sim", s.rr_sim),
            ("all_at_once_sim", s.all_at_once_sim),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{field} {v} is not a throughput"));
            }
        }
    }
    Ok(())
}

/// Joins the shard files of one `t1` run (read and checked by `liquid_shard::merge_any`) into the whole
/// sweep: checks that every shard is there once and belongs to the run, and that every
/// item is the class its index names, then writes the CSV files and the charts into `out`
/// exactly as the unsharded run does and returns its summary.
pub(crate) fn merge(
    merged: liquid_shard::Merged<ClassResult>,
    out: &Path,
) -> Result<Summary, StudyError> {
    let start = Instant::now();
    let classes = t1::classes();
    let params: Params = serde_json::from_value(merged.params.clone())
        .map_err(|e| StudyError::Input(format!("shards of {SWEEP}: params: {e}")))?;
    if merged.items.len() != classes.len() {
        return Err(StudyError::Input(format!(
            "shards of {SWEEP}: {} classes, this testbed has {}",
            merged.items.len(),
            classes.len()
        )));
    }
    let mut rows = Vec::with_capacity(classes.len());
    let mut sim_rows = Vec::new();
    for (item, c) in merged.items.into_iter().zip(&classes) {
        let key = class_key(item.index + 1, c);
        if item.key != key || item.result.row.class != item.index + 1 {
            return Err(StudyError::Input(format!(
                "shards of {SWEEP}: item {} is {:?}, this testbed's is {key:?}",
                item.index, item.key
            )));
        }
        if item.result.sim.is_some() != params.sim.is_some() {
            return Err(StudyError::Input(format!(
                "shards of {SWEEP}: {key} has {} simulated row, as the run's options {}",
                if item.result.sim.is_some() { "a" } else { "no" },
                if params.sim.is_some() {
                    "ask for one"
                } else {
                    "do not"
                }
            )));
        }
        recheck(&item.result, c, params.sim.as_ref()).map_err(|e| {
            StudyError::Input(format!(
                "shards of {SWEEP}: item {} ({key}): {e}",
                item.index
            ))
        })?;
        rows.push(item.result.row);
        sim_rows.extend(item.result.sim);
    }
    let dir = crate::outdir::prepare(out)?;
    let summary = finish(
        out,
        &rows,
        &classes,
        params.sim.as_ref().map(|p| (p, sim_rows.as_slice())),
        start,
    )?;
    dir.finish()?;
    Ok(summary)
}

/// The allocation a row names.
#[cfg(test)]
fn allocation_of(row: &Row) -> Option<Allocation> {
    let digits: Vec<u8> = row
        .allocation
        .chars()
        .map(|c| c.to_digit(10).map(|d| d as u8))
        .collect::<Option<_>>()?;
    Allocation::new(digits.try_into().ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_shard_files() {
        let classes = t1::classes();
        let (row, sim) = run_class(
            5,
            &classes[4],
            &Limits {
                time: Some(Duration::from_secs(10)),
                nodes: None,
            },
            None,
        )
        .expect("runs");
        assert!(sim.is_none());
        // Exactly, timings included: the merge renders the CSV again from these.
        let text = serde_json::to_string(&row).expect("serialises");
        let back: Row = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, row);
        assert_eq!(back.to_csv(), row.to_csv());
        assert_eq!(allocation_of(&row), Some(classes[4].representative));
    }
}
