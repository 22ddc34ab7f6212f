//! `liquid study routing`: which subnet-manager routing engine serves a job's all-to-all?
//!
//! The input is a set of *runs*: folders that each hold one fabric routed by one engine,
//! as a user collects it on a cluster (or as `scripts/ib-local run` writes it from an
//! ibsim fabric): `topology.txt` (`ibnetdiscover`; else `topology-p.txt`, its `-p` form)
//! and `opensm-lfts.dump` (OpenSM's forwarding tables; else `dump_fts.txt`). A run's
//! fabric is its folder's parent's name and its engine the folder's own name
//! (`runs/fat-tree-8-3/ftree`); `engine.txt`, when present, is the engine OpenSM reports
//! it used (a different one means the engine asked for did not apply).
//!
//! Every run is imported ([`liquid_fabric::import`], every host pair's route through the
//! tables), then each *allocation* of its hosts is one item of the sweep:
//!
//! - `whole`: every host;
//! - `random-F` with seed s: F % of the hosts drawn at random (seeded, reproducible);
//! - `block-F` with seed s: F % of the hosts, consecutive in the hosts' name order (natural
//!   order: `n2` before `n10`), from a seeded random first host: the contiguous block that
//!   Slurm's default placement (consecutive nodes in node-name order, first fit) gives a
//!   job on a machine whose other nodes are partly busy.
//!
//! Per item: Λ of the all-to-all of the allocation's hosts over the imported routes; the
//! full-bisection bound N − 1 (Λ of the same all-to-all on a non-blocking crossbar); the
//! engine's schedule (through the gate: validated, evidence checked) with its length,
//! verdict and evidence; and the simulated makespans (`liquid-sim`, max-min fair sharing)
//! of that schedule timeframe by timeframe, of every transfer posted at once, and of Open
//! MPI's pairwise exchange (ranks in host order), against the crossbar's (N − 1) · size /
//! bandwidth.
//!
//! Items run in parallel; `--shard i/n` runs items i, i+n, ... and `liquid merge` joins the
//! shards into what the unsharded run writes. Output is deterministic (the solve times
//! aside) and independent of the order the runs are given in: runs are sorted by fabric
//! and engine.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use liquid_engine::{Engine, Request};
use liquid_model::display::round4;
use liquid_model::rng::SplitMix64;
use liquid_model::{Limits, Schedule};
use liquid_plot::{Axis, Chart, Mark, Series, PALETTE};
use liquid_sim::study::csv_float;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::StudyError;

/// The sweep's name in its shard files (`liquid merge` reads it).
pub const SWEEP: &str = "routing-study";

/// The CSV file of a whole (or merged) study.
pub const CSV: &str = "routing.csv";

const HEADER: &str = "fabric,engine,engine_used,allocation,seed,hosts,host_list,transfers,\
lambda,crossbar_bound,liquid_ratio,schedule_engine,verdict,schedule_length,schedule_ratio,\
evidence,size_bytes,crossbar_makespan_s,liquid_makespan_s,all_at_once_makespan_s,\
pairwise_makespan_s,solve_time_s";

/// The default percentages of the hosts in random and block allocations.
pub const DEFAULT_FRACTIONS: [u32; 2] = [25, 50];
/// The default number of seeds per random or block allocation size.
pub const DEFAULT_SEEDS: u64 = 10;
/// The default time limit of one schedule search.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);
/// The default bytes each host sends each other host in the simulations (1 MiB).
pub const DEFAULT_SIZE: u64 = 1 << 20;
/// The default link bandwidth of the simulations, MB/s: 4X EDR InfiniBand's 100 Gb/s.
pub const DEFAULT_LINK_MB_S: f64 = 12_500.0;

/// What the study runs.
#[derive(Clone)]
pub struct RoutingArgs {
    /// Run folders, or folders holding them (one or two levels down).
    pub runs: Vec<PathBuf>,
    /// Output directory.
    pub out: PathBuf,
    /// Percentages of the hosts for the random and block allocations.
    pub fractions: Vec<u32>,
    /// Seeds 1..=seeds of each random and block allocation size.
    pub seeds: u64,
    /// The engine that schedules each all-to-all.
    pub engine: &'static dyn Engine,
    /// Time limit of each schedule search.
    pub time_limit: Duration,
    /// Bytes per host pair in the simulations.
    pub size: f64,
    /// Link bandwidth of the simulations, MB/s.
    pub link_mb_s: f64,
    /// Link latency of the simulations, seconds.
    pub link_latency: f64,
    /// The machine's hosts, of which allocations are drawn (`--hosts`/`--hostfile`: the
    /// compute nodes, leaving out storage, login and gateway nodes); every adapter by
    /// default.
    pub hosts: liquid_fabric::hosts::Selection,
}

/// The sweep's own options, which every shard of one run shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Params {
    runs: Vec<String>,
    /// Per run, the SHA-256 of its topology file and forwarding tables: shards of folders
    /// whose fabric changed between them are of two runs.
    inputs: Vec<String>,
    fractions: Vec<u32>,
    seeds: u64,
    engine: String,
    time_limit_s: f64,
    size: f64,
    link_mb_s: f64,
    link_latency: f64,
    /// The hosts selected (`--hosts`/`--hostfile`), in order; empty: every adapter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hosts: Vec<String>,
}

/// One run folder: a fabric routed by one engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir {
    /// The fabric (the folder's parent's name).
    pub fabric: String,
    /// The engine asked for (the folder's name).
    pub engine: String,
    /// The folder.
    pub dir: PathBuf,
    /// The topology file.
    pub topology: PathBuf,
    /// The forwarding tables.
    pub lfts: PathBuf,
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// The run in `dir`, if it holds a topology file.
fn run_in(dir: &Path) -> Result<Option<RunDir>, StudyError> {
    let first = |names: &[&str]| names.iter().map(|n| dir.join(n)).find(|p| p.is_file());
    let Some(topology) = first(&["topology.txt", "topology-p.txt"]) else {
        return Ok(None);
    };
    let lfts = first(&["opensm-lfts.dump", "dump_fts.txt"]).ok_or_else(|| {
        StudyError::Input(format!(
            "{}: has {} but no forwarding tables (opensm-lfts.dump or dump_fts.txt)",
            dir.display(),
            name_of(&topology)
        ))
    })?;
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let fabric = abs.parent().map(name_of).unwrap_or_else(|| "fabric".into());
    Ok(Some(RunDir {
        fabric,
        engine: name_of(&abs),
        dir: dir.to_path_buf(),
        topology,
        lfts,
    }))
}

fn subdirs(dir: &Path) -> Result<Vec<PathBuf>, StudyError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| StudyError::Input(format!("{}: cannot read: {e}", dir.display())))?;
    let mut out = Vec::new();
    for e in entries {
        let e = e.map_err(|e| StudyError::Input(format!("{}: cannot read: {e}", dir.display())))?;
        if e.path().is_dir() {
            out.push(e.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Why `dir` is a failed run, if it is one: `scripts/ib-local run` writes `engine.txt`
/// whatever happens, and the topology and tables only when OpenSM routed the fabric (a
/// `timeout`, an engine failing without a fallback). `None` for a folder without
/// `engine.txt` (not a run folder) or with a topology file (a run).
fn failed_run(dir: &Path) -> Option<String> {
    let engine = std::fs::read_to_string(dir.join("engine.txt")).ok()?;
    if ["topology.txt", "topology-p.txt"]
        .iter()
        .any(|n| dir.join(n).is_file())
    {
        return None;
    }
    let engine = engine.trim();
    let log = if dir.join("opensm.log").is_file() {
        " (see its opensm.log)"
    } else {
        ""
    };
    Some(format!(
        "{}: skipped, a run folder (engine.txt) without topology.txt or topology-p.txt: its \
         engine.txt says {engine:?}, so the OpenSM run failed{log}",
        dir.display()
    ))
}

/// The runs the arguments name: each folder that holds a topology file is a run; a folder
/// that holds none is searched for runs in its subfolders and theirs (two levels). Sorted
/// by fabric and engine; the same fabric and engine twice is an error.
pub fn find_runs(args: &[PathBuf]) -> Result<Vec<RunDir>, StudyError> {
    find_runs_and_failed(args).map(|(runs, _)| runs)
}

/// [`find_runs`], and a warning for each folder found that is a failed run
/// (`engine.txt` without a topology: `scripts/ib-local run` after an OpenSM timeout),
/// which is left out.
pub fn find_runs_and_failed(args: &[PathBuf]) -> Result<(Vec<RunDir>, Vec<String>), StudyError> {
    let mut failed = Vec::new();
    let mut runs = Vec::new();
    for a in args {
        if !a.is_dir() {
            return Err(StudyError::Input(format!(
                "{}: not a folder (give run folders holding topology.txt and \
                 opensm-lfts.dump, or folders of them)",
                a.display()
            )));
        }
        if let Some(r) = run_in(a)? {
            runs.push(r);
            continue;
        }
        if let Some(why) = failed_run(a) {
            return Err(StudyError::Input(why.replacen(": skipped, ", ": ", 1)));
        }
        let before = runs.len();
        let failed_before = failed.len();
        for sub in subdirs(a)? {
            if let Some(r) = run_in(&sub)? {
                runs.push(r);
                continue;
            }
            if let Some(why) = failed_run(&sub) {
                failed.push(why);
                continue;
            }
            for subsub in subdirs(&sub)? {
                match run_in(&subsub)? {
                    Some(r) => runs.push(r),
                    None => failed.extend(failed_run(&subsub)),
                }
            }
        }
        if runs.len() == before {
            return Err(StudyError::Input(format!(
                "{}: no run found (a folder with topology.txt or topology-p.txt and \
                 opensm-lfts.dump or dump_fts.txt, here or one or two levels down){}",
                a.display(),
                if failed.len() > failed_before {
                    format!("; {}", failed[failed_before..].join("; "))
                } else {
                    String::new()
                }
            )));
        }
    }
    runs.sort_by(|a, b| (&a.fabric, &a.engine).cmp(&(&b.fabric, &b.engine)));
    for w in runs.windows(2) {
        if w[0].fabric == w[1].fabric && w[0].engine == w[1].engine {
            return Err(StudyError::Input(format!(
                "fabric {} engine {} is given twice: {} and {}",
                w[0].fabric,
                w[0].engine,
                w[0].dir.display(),
                w[1].dir.display()
            )));
        }
    }
    Ok((runs, failed))
}

/// A run imported: its traffic (the all-to-all of every host) and its hosts in natural
/// name order.
struct Loaded {
    engine_used: String,
    /// The model's name.
    name: String,
    /// The fabric with every host pair's route.
    network: liquid_model::network::Network,
    hosts: Vec<String>,
    /// Per link at another rate than the fabric's (a cable trained at 1X, faster
    /// uplinks), by link id: its rate over the fabric's, as the topology file gives them.
    rate_ratio: HashMap<String, f64>,
}

fn load(run: &RunDir, selection: &liquid_fabric::hosts::Selection) -> Result<Loaded, StudyError> {
    let input = |e: liquid_fabric::FabricError| StudyError::Input(e.to_string());
    let tname = run.topology.display().to_string();
    let lname = run.lfts.display().to_string();
    let topo =
        liquid_fabric::topology::parse(&tname, &liquid_fabric::read(&run.topology).map_err(input)?)
            .map_err(input)?;
    let lfts = liquid_fabric::lft::parse(&lname, &liquid_fabric::read(&run.lfts).map_err(input)?)
        .map_err(input)?;
    let imported = liquid_fabric::import::import(
        &topo,
        &lfts,
        &liquid_fabric::import::Options {
            name: format!("{}-{}", run.fabric, run.engine),
            selection: selection.clone(),
            allow_unrouted: false,
        },
    )
    .map_err(input)?;
    let mut hosts: Vec<String> = imported.host_ports.keys().cloned().collect();
    hosts.sort_by(|a, b| natural(a, b));
    let engine_file = run.dir.join("engine.txt");
    let engine_used = if engine_file.is_file() {
        let text = std::fs::read_to_string(&engine_file).map_err(|e| {
            StudyError::Input(format!("{}: cannot read: {e}", engine_file.display()))
        })?;
        let word = text.split_whitespace().next().unwrap_or("").to_string();
        if word.is_empty() {
            return Err(StudyError::Input(format!(
                "{}: empty (it names the engine OpenSM used)",
                engine_file.display()
            )));
        }
        word
    } else {
        "not recorded".into()
    };
    let rate_ratio = match imported.link_throughput {
        Some(common) => imported
            .network
            .links
            .iter()
            .zip(&imported.link_params)
            .filter_map(|(l, p)| p.bandwidth.map(|b| (l.id.clone(), b / common)))
            .collect(),
        None => HashMap::new(),
    };
    Ok(Loaded {
        engine_used,
        name: imported.name,
        network: imported.network,
        hosts,
        rate_ratio,
    })
}

/// Natural order of host names: digit runs compare as numbers (`n2` < `n10`).
pub fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let i = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let j = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (p, q) = (&x[..i], &y[..j]);
                let strip = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
                let (p, q) = (&p[strip(p)..], &q[strip(q)..]);
                let o = p.len().cmp(&q.len()).then_with(|| p.cmp(q));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[i..];
                y = &y[j..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

/// A number below `n` (`n` > 0) from liquid's seeded generator, uniform by rejection (the
/// generator is the same on every machine, so a seed names the same allocation
/// everywhere).
fn below(rng: &mut SplitMix64, n: u64) -> u64 {
    let zone = u64::MAX - u64::MAX % n;
    loop {
        let v = rng.next();
        if v < zone {
            return v % n;
        }
    }
}

/// An allocation kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Kind {
    /// Every host.
    Whole,
    /// A seeded random subset of this percentage of the hosts.
    Random(u32),
    /// A contiguous block (host name order) of this percentage, at a seeded start.
    Block(u32),
}

impl Kind {
    /// The allocation's name in the CSV file and the charts.
    pub fn name(self) -> String {
        match self {
            Kind::Whole => "whole".into(),
            Kind::Random(f) => format!("random-{f}"),
            Kind::Block(f) => format!("block-{f}"),
        }
    }
}

/// The hosts an allocation takes, as indices into the hosts in name order (ascending).
pub fn allocate(hosts: usize, kind: Kind, seed: u64) -> Vec<usize> {
    let size = |f: u32| ((hosts as u64 * f as u64 + 50) / 100).clamp(2, hosts as u64) as usize;
    // The kind is mixed into the seed, so that random-25 and block-25 with seed 1 do not
    // draw the same numbers.
    let salt = match kind {
        Kind::Whole => 0,
        Kind::Random(f) => 0x5241_4e44_0000_0000 | f as u64,
        Kind::Block(f) => 0x424c_4f43_0000_0000 | f as u64,
    };
    let mut rng = SplitMix64(seed ^ salt);
    match kind {
        Kind::Whole => (0..hosts).collect(),
        Kind::Random(f) => {
            let k = size(f);
            let mut all: Vec<usize> = (0..hosts).collect();
            for i in 0..k {
                let j = i + below(&mut rng, (hosts - i) as u64) as usize;
                all.swap(i, j);
            }
            let mut chosen = all[..k].to_vec();
            chosen.sort_unstable();
            chosen
        }
        Kind::Block(f) => {
            let k = size(f);
            let start = below(&mut rng, (hosts - k + 1) as u64) as usize;
            (start..start + k).collect()
        }
    }
}

/// One item of the sweep: a run and an allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ItemSpec {
    run: usize,
    kind: Kind,
    seed: u64,
}

fn items(runs: usize, fractions: &[u32], seeds: u64) -> Vec<ItemSpec> {
    let mut out = Vec::new();
    for run in 0..runs {
        out.push(ItemSpec {
            run,
            kind: Kind::Whole,
            seed: 0,
        });
        for &f in fractions {
            for kind in [Kind::Random(f), Kind::Block(f)] {
                for seed in 1..=seeds {
                    out.push(ItemSpec { run, kind, seed });
                }
            }
        }
    }
    out
}

fn item_key(runs: &[RunDir], it: &ItemSpec) -> String {
    let r = &runs[it.run];
    format!(
        "{}/{} {} seed {}",
        r.fabric,
        r.engine,
        it.kind.name(),
        it.seed
    )
}

/// One row of the study: a run and an allocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The fabric.
    pub fabric: String,
    /// The engine asked for.
    pub engine: String,
    /// The engine OpenSM reports it used (`engine.txt`), or `not recorded`.
    pub engine_used: String,
    /// The allocation kind (`whole`, `random-25`, `block-50`, ...).
    pub allocation: String,
    /// Its seed (0 for `whole`).
    pub seed: u64,
    /// Hosts in the allocation.
    pub hosts: usize,
    /// The hosts, space-separated, in name order.
    pub host_list: String,
    /// Transfers of its all-to-all: hosts · (hosts − 1).
    pub transfers: usize,
    /// Λ of the all-to-all over the fabric's routes.
    pub lambda: usize,
    /// Λ of the same all-to-all on a non-blocking crossbar: hosts − 1.
    pub crossbar_bound: usize,
    /// crossbar_bound / Λ: a liquid schedule's throughput against full bisection.
    pub liquid_ratio: f64,
    /// The engine whose schedule was simulated (the study's engine, or DSatur when it
    /// found none in the time limit).
    pub schedule_engine: String,
    /// The study engine's verdict.
    pub verdict: String,
    /// The simulated schedule's length (timeframes).
    pub schedule_length: usize,
    /// crossbar_bound / schedule_length.
    pub schedule_ratio: f64,
    /// The kind of the lower bound's evidence (`bottleneck`, `clique`, `sat-proof`, ...).
    pub evidence: String,
    /// Bytes per host pair in the simulations.
    pub size: f64,
    /// (hosts − 1) · size / bandwidth: the all-to-all on a non-blocking crossbar.
    pub crossbar_makespan_s: f64,
    /// The schedule run timeframe by timeframe (a barrier between frames); None (null, an
    /// empty CSV cell) when the time limit stopped the simulation, as for the other two.
    pub liquid_makespan_s: Option<f64>,
    /// Every transfer posted at once.
    pub all_at_once_makespan_s: Option<f64>,
    /// Open MPI's pairwise exchange (ranks in host order).
    pub pairwise_makespan_s: Option<f64>,
    /// Wall time of the engine run, seconds (the only column that varies between runs).
    pub solve_time_s: f64,
}

impl Row {
    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3}",
            self.fabric,
            self.engine,
            self.engine_used,
            self.allocation,
            self.seed,
            self.hosts,
            self.host_list,
            self.transfers,
            self.lambda,
            self.crossbar_bound,
            self.liquid_ratio,
            self.schedule_engine,
            self.verdict,
            self.schedule_length,
            self.schedule_ratio,
            self.evidence,
            csv_float(self.size),
            csv_float(self.crossbar_makespan_s),
            self.liquid_makespan_s.map(csv_float).unwrap_or_default(),
            self.all_at_once_makespan_s
                .map(csv_float)
                .unwrap_or_default(),
            self.pairwise_makespan_s.map(csv_float).unwrap_or_default(),
            self.solve_time_s
        )
    }
}

/// Rounds a simulated time to the nanosecond (the simulator's sums differ in the last
/// bits between otherwise identical runs on other machines; a nanosecond is far below
/// anything the study compares).
fn ns(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

fn run_item(
    run: &RunDir,
    loaded: &Loaded,
    it: &ItemSpec,
    a: &RoutingArgs,
) -> Result<Row, StudyError> {
    let what = |e: &dyn std::fmt::Display| {
        format!(
            "{}/{} {} seed {}: {e}",
            run.fabric,
            run.engine,
            it.kind.name(),
            it.seed
        )
    };
    let n_all = loaded.hosts.len();
    if n_all < 2 {
        return Err(StudyError::Input(what(&format!(
            "{} host(s): an all-to-all needs two",
            n_all
        ))));
    }
    let chosen = allocate(n_all, it.kind, it.seed);
    let names: Vec<&str> = chosen.iter().map(|&i| loaded.hosts[i].as_str()).collect();
    let rank: HashMap<&str, usize> = names.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    // The all-to-all of the allocation, expanded as `liquid import ib --hosts` with these
    // hosts writes it and every command reads it back: a row is reproduced by importing
    // its host list and running `liquid solve`.
    let hosts: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let traffic = liquid_model::network::expand(
        &loaded.name,
        None,
        None,
        &loaded.network,
        &liquid_model::network::Pattern::AllToAll {
            senders: hosts.clone(),
            receivers: hosts,
            self_transfers: false,
        },
    )
    .map_err(|e| StudyError::Failed(what(&format!("the imported model: {e}"))))?;
    let n = names.len();
    if traffic.len() != n * (n - 1) {
        return Err(StudyError::Failed(what(&format!(
            "{} transfers among {n} hosts, not {}",
            traffic.len(),
            n * (n - 1)
        ))));
    }
    let lambda = traffic.duration();
    let request = Request {
        limits: Limits {
            time: Some(a.time_limit),
            nodes: None,
        },
        ..Default::default()
    };
    let checked = liquid_engine::solve(&traffic, a.engine, &request, None, &AtomicU64::new(0))?;
    let verdict = checked.verdict().as_str().to_string();
    let evidence = checked
        .outcome()
        .lower_bound(&traffic)
        .evidence
        .kind()
        .to_string();
    let (schedule, schedule_engine): (Schedule, String) = match checked.outcome().schedule() {
        Some(s) => (s.clone(), a.engine.name().to_string()),
        None => {
            let ds = liquid_engine::find("dsatur")
                .ok_or_else(|| StudyError::internal("no dsatur engine"))?;
            // DSatur within the same limit: every engine run is bounded.
            let c = liquid_engine::solve(&traffic, ds, &request, None, &AtomicU64::new(0))?;
            let s = c
                .outcome()
                .schedule()
                .ok_or_else(|| {
                    StudyError::Input(what(&format!(
                        "{} and dsatur found no schedule within the time limit ({} s): raise \
                         --time-limit",
                        a.engine.name(),
                        a.time_limit.as_secs_f64()
                    )))
                })?
                .clone();
            (s, "dsatur".into())
        }
    };
    let length = schedule.frames.len();
    // Simulations.
    let bandwidth = a.link_mb_s * 1e6;
    // Every link at --link-throughput, but a link at another rate than the fabric's keeps
    // its ratio to it (a 1X cable among 4X ones runs at a quarter).
    let mapped = liquid_sim::MappedTraffic::new(&traffic, |name| {
        let ratio = loaded.rate_ratio.get(name).copied().unwrap_or(1.0);
        Some((bandwidth * ratio, a.link_latency))
    })
    .map_err(|e| StudyError::Internal(what(&e)))?;
    let opts = liquid_sim::Options {
        overhead: 0.0,
        trace: false,
    };
    let sizes = vec![a.size; traffic.len()];
    // Each simulation within the time limit (as each engine run): one it stops has no
    // makespan.
    let sim = |plan: &liquid_sim::Plan| -> Result<Option<f64>, StudyError> {
        crate::simulate::run_within(
            &mapped.platform,
            plan,
            &opts,
            &liquid_sim::Transport::default(),
            crate::simulate::deadline_in(Some(a.time_limit)),
            None,
        )
        .map(|r| r.ok().map(|r| ns(r.makespan)))
        .map_err(|e| StudyError::Internal(what(&e)))
    };
    let frames = liquid_sim::from_schedule(
        &traffic,
        &mapped.routes,
        &sizes,
        &schedule,
        liquid_sim::Mode::Frames,
    )
    .map_err(|e| StudyError::Internal(what(&e)))?;
    let everything = Schedule::new(vec![traffic.transfer_ids().collect()]);
    let at_once = liquid_sim::from_schedule(
        &traffic,
        &mapped.routes,
        &sizes,
        &everything,
        liquid_sim::Mode::AllAtOnce,
    )
    .map_err(|e| StudyError::Internal(what(&e)))?;
    let mut pair_index: HashMap<(usize, usize), usize> = HashMap::new();
    for (k, t) in traffic.transfers().iter().enumerate() {
        if let (Some(f), Some(to)) = (&t.from, &t.to) {
            pair_index.insert((rank[f.as_str()], rank[to.as_str()]), k);
        }
    }
    let route = |i: usize, j: usize| mapped.routes[pair_index[&(i, j)]].clone();
    // Open MPI's pairwise exchange as its ob1 runs it: a message of the eager limit or more
    // is a rendezvous, which leaves once its receiver has reached its round (the limit of
    // `export mpi`'s runtime model, Open MPI's and SMPI's 64 KiB). Every send eager let the
    // 1 MiB sends of many rounds pile up on the links: 2.2 times the rendezvous figure.
    let eager = liquid_mpi::RuntimeModel::default().eager_limit as f64;
    let pairwise = liquid_sim::mpi_alltoall::Algorithm::Pairwise
        .plan(n, a.size, Some(eager), &route)
        .map_err(|e| StudyError::Internal(what(&e)))?;
    Ok(Row {
        fabric: run.fabric.clone(),
        engine: run.engine.clone(),
        engine_used: loaded.engine_used.clone(),
        allocation: it.kind.name(),
        seed: it.seed,
        hosts: n,
        host_list: names.join(" "),
        transfers: traffic.len(),
        lambda,
        crossbar_bound: n - 1,
        liquid_ratio: round4((n - 1) as f64 / lambda as f64),
        schedule_engine,
        verdict,
        schedule_length: length,
        schedule_ratio: round4((n - 1) as f64 / length as f64),
        evidence,
        size: a.size,
        crossbar_makespan_s: ns((n - 1) as f64 * a.size / bandwidth),
        liquid_makespan_s: sim(&frames)?,
        all_at_once_makespan_s: sim(&at_once)?,
        pairwise_makespan_s: sim(&pairwise)?,
        solve_time_s: checked.seconds(),
    })
}

/// Per run and allocation kind: the rows' figures.
#[derive(Debug, Serialize)]
pub struct Group {
    /// The fabric.
    pub fabric: String,
    /// The engine asked for.
    pub engine: String,
    /// The engine OpenSM used.
    pub engine_used: String,
    /// The allocation kind.
    pub allocation: String,
    /// Rows (seeds).
    pub rows: usize,
    /// Hosts per allocation.
    pub hosts: usize,
    /// Λ: smallest, mean, largest.
    pub lambda: [f64; 3],
    /// (N − 1) / Λ: smallest, mean, largest.
    pub liquid_ratio: [f64; 3],
    /// Rows whose schedule is liquid (length Λ).
    pub liquid_schedules: usize,
    /// Mean simulated makespan against the crossbar's: liquid schedule, all at once,
    /// pairwise (1 = a non-blocking crossbar).
    pub mean_makespan_over_crossbar: MakespanRatios,
}

/// Makespans against the crossbar's, over the rows whose simulation the time limit did
/// not stop (None, null: it stopped every one).
#[derive(Debug, Serialize)]
pub struct MakespanRatios {
    /// The schedule, timeframe by timeframe.
    pub liquid: Option<f64>,
    /// Every transfer posted at once.
    pub all_at_once: Option<f64>,
    /// Open MPI's pairwise exchange.
    pub pairwise: Option<f64>,
}

/// What the study found.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Fabric × engine runs.
    pub runs: usize,
    /// Rows (runs × allocations).
    pub rows: usize,
    /// Per run and allocation kind.
    pub groups: Vec<Group>,
    /// The simulations the time limit stopped (`fabric/engine allocation seed S: mode`),
    /// each within --time-limit: null makespans, empty CSV cells, no chart point, left out
    /// of the groups' means. Absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stopped_by_time_limit: Vec<String>,
    /// Files written.
    pub files: Vec<String>,
    /// Wall time, seconds.
    pub wall_time_s: f64,
}

fn groups(rows: &[Row]) -> Vec<Group> {
    let mut by: BTreeMap<(usize, String), Vec<&Row>> = BTreeMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    for r in rows {
        let run = (r.fabric.clone(), r.engine.clone());
        let i = match order.iter().position(|o| *o == run) {
            Some(i) => i,
            None => {
                order.push(run);
                order.len() - 1
            }
        };
        by.entry((i, r.allocation.clone())).or_default().push(r);
    }
    let mut out: Vec<(usize, usize, Group)> = by
        .into_iter()
        .map(|((i, alloc), rs)| {
            let span = |f: &dyn Fn(&Row) -> f64| {
                let v: Vec<f64> = rs.iter().map(|r| f(r)).collect();
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                [
                    v.iter().copied().fold(f64::INFINITY, f64::min),
                    round4(mean),
                    v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                ]
            };
            let mean = |f: &dyn Fn(&Row) -> Option<f64>| {
                let v: Vec<f64> = rs.iter().filter_map(|r| f(r)).collect();
                (!v.is_empty()).then(|| round4(v.iter().sum::<f64>() / v.len() as f64))
            };
            let rank = match alloc.as_str() {
                "whole" => 0,
                a if a.starts_with("random") => 1,
                _ => 2,
            };
            (
                i,
                rank,
                Group {
                    fabric: rs[0].fabric.clone(),
                    engine: rs[0].engine.clone(),
                    engine_used: rs[0].engine_used.clone(),
                    allocation: alloc,
                    rows: rs.len(),
                    hosts: rs[0].hosts,
                    lambda: span(&|r| r.lambda as f64),
                    liquid_ratio: span(&|r| r.liquid_ratio),
                    liquid_schedules: rs.iter().filter(|r| r.schedule_length == r.lambda).count(),
                    mean_makespan_over_crossbar: MakespanRatios {
                        liquid: mean(&|r| r.liquid_makespan_s.map(|m| m / r.crossbar_makespan_s)),
                        all_at_once: mean(&|r| {
                            r.all_at_once_makespan_s.map(|m| m / r.crossbar_makespan_s)
                        }),
                        pairwise: mean(&|r| {
                            r.pairwise_makespan_s.map(|m| m / r.crossbar_makespan_s)
                        }),
                    },
                },
            )
        })
        .collect();
    out.sort_by(|a, b| {
        (a.0, a.1, &a.2.allocation)
            .partial_cmp(&(b.0, b.1, &b.2.allocation))
            .unwrap_or(Ordering::Equal)
    });
    out.into_iter().map(|(_, _, g)| g).collect()
}

fn write_csv(path: &Path, rows: &[Row]) -> Result<(), StudyError> {
    crate::write_csv(path, HEADER, rows.iter().map(Row::to_csv))
}

/// A file name's safe form of a fabric name.
fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Per fabric: the throughput of each engine's schedules against full bisection, one
/// series per allocation kind (points of one engine side by side), and the simulated
/// makespans against the crossbar's.
fn plots(dir: &Path, rows: &[Row]) -> Result<Vec<String>, StudyError> {
    let mut fabrics: Vec<&str> = Vec::new();
    for r in rows {
        if !fabrics.contains(&r.fabric.as_str()) {
            fabrics.push(&r.fabric);
        }
    }
    let mut files = Vec::new();
    for fabric in fabrics {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.fabric == fabric).collect();
        let mut engines: Vec<&str> = Vec::new();
        let mut kinds: Vec<&str> = Vec::new();
        for r in &rs {
            if !engines.contains(&r.engine.as_str()) {
                engines.push(&r.engine);
            }
            if !kinds.contains(&r.allocation.as_str()) {
                kinds.push(&r.allocation);
            }
        }
        let ticks: Vec<(f64, String)> = engines
            .iter()
            .enumerate()
            .map(|(i, e)| (i as f64, e.to_string()))
            .collect();
        let e_index = |r: &Row| engines.iter().position(|e| *e == r.engine).unwrap_or(0) as f64;
        let width = 0.6;
        let offset = |k: usize| {
            if kinds.len() <= 1 {
                0.0
            } else {
                -width / 2.0 + width * k as f64 / (kinds.len() - 1) as f64
            }
        };
        let throughput = Chart {
            title: format!(
                "{fabric}: all-to-all throughput of the schedule against full bisection, per routing engine and allocation"
            ),
            x: Axis {
                label: "routing engine (points of one engine: its allocations)".into(),
                ticks: ticks.clone(),
                ..Axis::default()
            },
            y: Axis {
                label: "(N − 1) / schedule length".into(),
                ..Axis::default()
            },
            series: kinds
                .iter()
                .enumerate()
                .map(|(k, kind)| Series {
                    name: kind.to_string(),
                    colour: PALETTE[k % PALETTE.len()].into(),
                    mark: Mark::Dots,
                    dashed: false,
                    points: rs
                        .iter()
                        .filter(|r| r.allocation == *kind)
                        .map(|r| (e_index(r) + offset(k), r.schedule_ratio))
                        .collect(),
                })
                .collect(),
            size: (1100, 520),
        };
        let modes: [Mode<'_>; 3] = [
            ("liquid schedule, frame by frame", &|r| {
                r.liquid_makespan_s.map(|m| r.crossbar_makespan_s / m)
            }),
            ("all at once", &|r| {
                r.all_at_once_makespan_s.map(|m| r.crossbar_makespan_s / m)
            }),
            ("Open MPI pairwise", &|r| {
                r.pairwise_makespan_s.map(|m| r.crossbar_makespan_s / m)
            }),
        ];
        let makespans = Chart {
            title: format!(
                "{fabric}: simulated all-to-all, crossbar makespan / makespan (every allocation)"
            ),
            x: Axis {
                label: "routing engine (points of one engine: its allocations)".into(),
                ticks,
                ..Axis::default()
            },
            y: Axis {
                label: "throughput against a non-blocking crossbar".into(),
                ..Axis::default()
            },
            series: modes
                .iter()
                .enumerate()
                .map(|(m, (name, f))| Series {
                    name: name.to_string(),
                    colour: PALETTE[m].into(),
                    mark: Mark::Dots,
                    dashed: false,
                    points: rs
                        .iter()
                        .filter_map(|r| f(r).map(|y| (e_index(r) + (m as f64 - 1.0) * 0.25, y)))
                        .collect(),
                })
                .collect(),
            size: (1100, 520),
        };
        for (name, chart) in [
            (
                format!("routing-{}-throughput.svg", slug(fabric)),
                throughput,
            ),
            (format!("routing-{}-makespan.svg", slug(fabric)), makespans),
        ] {
            let path = dir.join(name);
            crate::write(&path, chart.to_svg().map_err(StudyError::internal)?)?;
            files.push(path.display().to_string());
        }
    }
    Ok(files)
}

/// A simulated mode in a chart: its name and its throughput against the crossbar (None:
/// the time limit stopped the simulation, no point).
type Mode<'a> = (&'a str, &'a dyn Fn(&Row) -> Option<f64>);

/// Writes the CSV and the charts into `dir` (made ready by [`crate::outdir`]) and returns
/// the summary.
fn finish(dir: &Path, rows: &[Row], runs: usize, start: Instant) -> Result<Summary, StudyError> {
    let csv = dir.join(CSV);
    write_csv(&csv, rows)?;
    let mut files = vec![csv.display().to_string()];
    files.extend(plots(dir, rows)?);
    let stopped_by_time_limit = rows
        .iter()
        .flat_map(|r| {
            [
                ("liquid schedule", r.liquid_makespan_s),
                ("all at once", r.all_at_once_makespan_s),
                ("pairwise", r.pairwise_makespan_s),
            ]
            .into_iter()
            .filter(|(_, m)| m.is_none())
            .map(move |(mode, _)| {
                format!(
                    "{}/{} {} seed {}: {mode}",
                    r.fabric, r.engine, r.allocation, r.seed
                )
            })
        })
        .collect();
    Ok(Summary {
        runs,
        rows: rows.len(),
        groups: groups(rows),
        stopped_by_time_limit,
        files,
        wall_time_s: start.elapsed().as_secs_f64(),
    })
}

/// The SHA-256 (hex) of a run folder's topology file and forwarding tables, in order.
fn inputs_digest(r: &RunDir) -> Result<String, StudyError> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for f in [&r.topology, &r.lfts] {
        let bytes = std::fs::read(f)
            .map_err(|e| StudyError::Input(format!("{}: cannot read: {e}", f.display())))?;
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn params(a: &RoutingArgs, runs: &[RunDir]) -> Result<Params, StudyError> {
    Ok(Params {
        runs: runs
            .iter()
            .map(|r| format!("{}/{}", r.fabric, r.engine))
            .collect(),
        inputs: runs.iter().map(inputs_digest).collect::<Result<_, _>>()?,
        fractions: a.fractions.clone(),
        seeds: a.seeds,
        engine: a.engine.name().to_string(),
        time_limit_s: a.time_limit.as_secs_f64(),
        size: a.size,
        link_mb_s: a.link_mb_s,
        link_latency: a.link_latency,
        hosts: match &a.hosts {
            liquid_fabric::hosts::Selection::All => Vec::new(),
            liquid_fabric::hosts::Selection::Named { names, .. } => names.clone(),
        },
    })
}

/// How many items the study of `args` has, and the runs it found (for a progress bar).
pub fn plan(a: &RoutingArgs) -> Result<(Vec<RunDir>, usize), StudyError> {
    check(a)?;
    let runs = find_runs(&a.runs)?;
    let total = items(runs.len(), &a.fractions, a.seeds).len();
    Ok((runs, total))
}

fn check(a: &RoutingArgs) -> Result<(), StudyError> {
    if a.runs.is_empty() {
        return Err(StudyError::Input("give at least one run folder".into()));
    }
    for &f in &a.fractions {
        if f == 0 || f > 100 {
            return Err(StudyError::Input(format!(
                "--fractions: {f} is not a percentage of the hosts in 1..=100"
            )));
        }
    }
    let mut sorted = a.fractions.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != a.fractions.len() {
        return Err(StudyError::Input(
            "--fractions: a percentage is given twice".into(),
        ));
    }
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !(ok(a.size) && ok(a.link_mb_s) && a.link_latency.is_finite() && a.link_latency >= 0.0) {
        return Err(StudyError::Input(
            "--size and --link-throughput must be positive, --link-latency not negative".into(),
        ));
    }
    Ok(())
}

/// Runs the study (or one shard of it) into `a.out`; `tick(done, total, key)` is called
/// after each item (for progress on stderr).
pub fn run(
    a: &RoutingArgs,
    shard: Option<crate::Shard>,
    tick: &(dyn Fn(&str) + Sync),
) -> Result<crate::Swept<Summary>, StudyError> {
    let start = Instant::now();
    check(a)?;
    let (runs, failed) = find_runs_and_failed(&a.runs)?;
    for why in &failed {
        eprintln!("warning: study routing: {why}");
    }
    let all = items(runs.len(), &a.fractions, a.seeds);
    let todo: Vec<(usize, ItemSpec)> = all
        .iter()
        .copied()
        .enumerate()
        .filter(|(i, _)| shard.is_none_or(|s| s.owns(*i)))
        .collect();
    // Import each run this shard needs, once.
    let mut needed: Vec<usize> = todo.iter().map(|(_, it)| it.run).collect();
    needed.dedup();
    needed.sort_unstable();
    needed.dedup();
    let loaded: Vec<(usize, Loaded)> = needed
        .par_iter()
        .map(|&r| load(&runs[r], &a.hosts).map(|l| (r, l)))
        .collect::<Result<_, _>>()?;
    let loaded: HashMap<usize, Loaded> = loaded.into_iter().collect();
    let rows: Vec<Row> = todo
        .par_iter()
        .map(|(_, it)| {
            let row = run_item(&runs[it.run], &loaded[&it.run], it, a);
            tick(&item_key(&runs, it));
            row
        })
        .collect::<Result<_, _>>()?;
    let dir = crate::outdir::for_sweep(&a.out, shard.is_some())?;
    match shard {
        None => {
            let summary = finish(&a.out, &rows, runs.len(), start)?;
            if let Some(d) = dir {
                d.finish()?;
            }
            Ok(crate::Swept::Full(summary))
        }
        Some(s) => {
            let items = todo
                .iter()
                .zip(rows)
                .map(|((i, it), row)| liquid_shard::Item {
                    index: *i,
                    key: item_key(&runs, it),
                    result: row,
                })
                .collect();
            Ok(crate::Swept::Shard(crate::ShardWritten::write(
                &a.out,
                SWEEP,
                &params(a, &runs)?,
                s,
                all.len(),
                items,
            )?))
        }
    }
}

/// Joins the shards of one study run into `out`, as the unsharded run writes it: checks
/// that every item's key is the one its index names in the run's options.
pub(crate) fn merge(merged: liquid_shard::Merged<Row>, out: &Path) -> Result<Summary, StudyError> {
    let start = Instant::now();
    let p: Params = serde_json::from_value(merged.params.clone())
        .map_err(|e| StudyError::Input(format!("shards of {SWEEP}: params: {e}")))?;
    let runs: Vec<RunDir> = p
        .runs
        .iter()
        .map(|r| {
            let (fabric, engine) = r.split_once('/').unwrap_or((r.as_str(), ""));
            RunDir {
                fabric: fabric.into(),
                engine: engine.into(),
                dir: PathBuf::new(),
                topology: PathBuf::new(),
                lfts: PathBuf::new(),
            }
        })
        .collect();
    let all = items(runs.len(), &p.fractions, p.seeds);
    if merged.items.len() != all.len() {
        return Err(StudyError::Input(format!(
            "shards of {SWEEP}: {} items, the run's options make {}",
            merged.items.len(),
            all.len()
        )));
    }
    let mut rows = Vec::with_capacity(all.len());
    for (item, spec) in merged.items.into_iter().zip(&all) {
        let key = item_key(&runs, spec);
        let r = &item.result;
        let consistent = r.allocation == spec.kind.name()
            && r.seed == spec.seed
            && format!("{}/{}", r.fabric, r.engine) == p.runs[spec.run];
        if item.key != key || !consistent {
            return Err(StudyError::Input(format!(
                "shards of {SWEEP}: item {} is {:?}, the run's options name {key:?}",
                item.index, item.key
            )));
        }
        recheck(r, &p).map_err(|e| {
            StudyError::Input(format!(
                "shards of {SWEEP}: item {} ({key}): {e}",
                item.index
            ))
        })?;
        rows.push(item.result);
    }
    let dir = crate::outdir::prepare(out)?;
    let summary = finish(out, &rows, runs.len(), start)?;
    dir.finish()?;
    Ok(summary)
}

/// Checks a row read from a shard file as far as it can be without the fabric: its hosts
/// and their count, the transfers and the crossbar bound they give, the schedule at least
/// Λ long (Λ exactly when the verdict is liquid), the ratios the row's figures give, the
/// evidence a kind liquid knows, the run's message size and the crossbar's makespan, and
/// every makespan a time.
fn recheck(r: &Row, p: &Params) -> Result<(), String> {
    let n = r.host_list.split_whitespace().count();
    let count = |field: &str, got: usize, want: usize| {
        if got == want {
            Ok(())
        } else {
            Err(format!("{field} is {got}, its hosts give {want}"))
        }
    };
    count("hosts", r.hosts, n)?;
    if n < 2 {
        return Err(format!("{n} hosts: an all-to-all needs two"));
    }
    count("transfers", r.transfers, n * (n - 1))?;
    count("crossbar_bound", r.crossbar_bound, n - 1)?;
    if r.lambda == 0 || r.schedule_length < r.lambda {
        return Err(format!(
            "Λ {} and a schedule of {} timeframes (a schedule is at least Λ long)",
            r.lambda, r.schedule_length
        ));
    }
    if r.verdict == liquid_model::Verdict::Liquid.as_str() && r.schedule_length != r.lambda {
        return Err(format!(
            "verdict liquid with a schedule of {} timeframes, not Λ = {}",
            r.schedule_length, r.lambda
        ));
    }
    let derived = |field: &str, got: f64, want: f64| {
        if got.to_bits() == want.to_bits() {
            Ok(())
        } else {
            Err(format!("{field} is {got}, the row's figures give {want}"))
        }
    };
    derived(
        "liquid_ratio",
        r.liquid_ratio,
        round4((n - 1) as f64 / r.lambda as f64),
    )?;
    derived(
        "schedule_ratio",
        r.schedule_ratio,
        round4((n - 1) as f64 / r.schedule_length as f64),
    )?;
    derived("size", r.size, p.size)?;
    derived(
        "crossbar_makespan_s",
        r.crossbar_makespan_s,
        ns((n - 1) as f64 * p.size / (p.link_mb_s * 1e6)),
    )?;
    if !liquid_model::Evidence::KINDS.contains(&r.evidence.as_str()) {
        return Err(format!(
            "evidence {:?} is not a kind of evidence",
            r.evidence
        ));
    }
    // A makespan is null when the time limit stopped its simulation.
    for (field, v) in [
        ("liquid_makespan_s", r.liquid_makespan_s),
        ("all_at_once_makespan_s", r.all_at_once_makespan_s),
        ("pairwise_makespan_s", r.pairwise_makespan_s),
        ("solve_time_s", Some(r.solve_time_s)),
    ]
    .into_iter()
    .filter_map(|(f, v)| v.map(|v| (f, v)))
    {
        if !(v.is_finite() && v >= 0.0) {
            return Err(format!("{field} {v} is not a time"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder `scripts/ib-local run` left after an OpenSM timeout (engine.txt, no
    /// topology or tables) is reported, not dropped silently.
    #[test]
    fn a_failed_run_folder_is_reported() {
        let root = tempfile::tempdir().expect("temp dir");
        let fab = root.path().join("fab");
        let ok = fab.join("minhop");
        let bad = fab.join("lash");
        std::fs::create_dir_all(&ok).expect("mkdir");
        std::fs::create_dir_all(&bad).expect("mkdir");
        for f in ["topology.txt", "opensm-lfts.dump", "engine.txt"] {
            std::fs::write(ok.join(f), "x\n").expect("write");
        }
        std::fs::write(bad.join("engine.txt"), "timeout\n").expect("write");
        let (runs, failed) =
            find_runs_and_failed(&[root.path().to_path_buf()]).expect("one run found");
        assert_eq!(runs.len(), 1);
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert!(failed[0].contains("lash: skipped"), "{}", failed[0]);
        assert!(
            failed[0].contains("engine.txt says \"timeout\""),
            "{}",
            failed[0]
        );
        // The failed folder alone: no run, and the error says why.
        let e = find_runs(std::slice::from_ref(&fab.join("lash"))).expect_err("no run");
        assert!(e.to_string().contains("engine.txt says \"timeout\""), "{e}");
        // A folder of failed runs only.
        std::fs::remove_dir_all(&ok).expect("rm");
        let e = find_runs(&[fab]).expect_err("no run");
        assert!(e.to_string().contains("no run found"), "{e}");
        assert!(e.to_string().contains("engine.txt says \"timeout\""), "{e}");
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["n10", "n2", "n1", "m3", "n02x", "n2a"];
        v.sort_by(|a, b| natural(a, b));
        assert_eq!(v, ["m3", "n1", "n2", "n2a", "n02x", "n10"]);
        assert_eq!(natural("p9", "p10"), Ordering::Less);
        assert_eq!(natural("p010", "p10"), Ordering::Less);
    }

    #[test]
    fn allocations_are_seeded_sized_and_sorted() {
        let a = allocate(128, Kind::Random(25), 3);
        assert_eq!(a.len(), 32);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(a, allocate(128, Kind::Random(25), 3));
        assert_ne!(a, allocate(128, Kind::Random(25), 4));
        let b = allocate(128, Kind::Block(50), 7);
        assert_eq!(b.len(), 64);
        assert!(b.windows(2).all(|w| w[1] == w[0] + 1));
        assert!(b.last().is_some_and(|&l| l < 128));
        assert_eq!(allocate(16, Kind::Whole, 0), (0..16).collect::<Vec<_>>());
        // At least two hosts, never more than there are.
        assert_eq!(allocate(3, Kind::Random(1), 1).len(), 2);
        assert_eq!(allocate(3, Kind::Block(100), 1), vec![0, 1, 2]);
        // Pinned: a seed names the same hosts in every version.
        assert_eq!(allocate(16, Kind::Random(25), 1), vec![1, 10, 14, 15]);
    }
}
