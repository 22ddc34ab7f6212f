//! A model, a plan and sizes into a directory the C runtime runs.
//!
//! `DIR/rank-R.txt` per rank (see [`crate::format`]), `DIR/ranks.txt` (rank → the model's
//! host), `DIR/hostfile` (the hosts in rank order, one per line: rank i runs on line i
//! with `smpirun -hostfile`, and with Open MPI's `--hostfile` and `--mca rmaps seq`), and
//! `DIR/manifest.json` ([`Manifest`]): the plan's shape and liquid's prediction of the
//! same plan by `liquid_sim`, step by step.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;

use liquid_model::display::round_significant;
use liquid_model::{Schedule, Traffic};
use liquid_sim::two_clusters::{Layout, Lg};
use liquid_sim::{MappedTraffic, Plan, Step};
use serde::Serialize;

use crate::format;
use crate::model::{self, RuntimeModel};
use crate::program::{self, Data, Program, ScheduleMode};
use crate::report::{Manifest, Prediction};
use crate::MpiError;

/// Which plan to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanKind {
    /// A schedule, run in a mode.
    Schedule(ScheduleMode),
    /// Rounds i → i+s with a barrier between rounds.
    RoundRobin,
    /// Rounds i → i+s, each rank moving on when its own round is done (Open MPI's pairwise).
    Pairwise,
    /// Paper 001's LG, exactly as `liquid_sim`'s plan.
    Lg,
    /// LG with each phase run by a liquid schedule frame by frame
    /// ([`liquid_sim::two_clusters::Lg::plan_scheduled`]); the schedules come from
    /// [`ExportInput::phase_schedule`].
    LgLiquid,
}

/// Schedules a phase's traffic (a [`liquid_sim::two_clusters::scheduling_traffic`]):
/// the schedule and where it came from, or why there is none.
pub type PhaseScheduler<'a> = &'a dyn Fn(&Traffic) -> Result<(Schedule, String), String>;

/// What [`export`] takes.
pub struct ExportInput<'a> {
    /// The traffic (its transfers name their hosts).
    pub traffic: &'a Traffic,
    /// The traffic on its platform (links with bandwidth and latency, routes).
    pub mapped: &'a MappedTraffic,
    /// Bytes per transfer (whole numbers).
    pub sizes: &'a [f64],
    /// The schedule for [`PlanKind::Schedule`], with where it came from.
    pub schedule: Option<(&'a Schedule, String)>,
    /// The plan.
    pub kind: PlanKind,
    /// Per-message software overhead of the prediction, seconds.
    pub overhead: f64,
    /// How the prediction models the MPI library (envelope, eager limit).
    pub library: RuntimeModel,
    /// Schedules LG's phases for [`PlanKind::LgLiquid`].
    pub phase_schedule: Option<PhaseScheduler<'a>>,
    /// The prediction's deadline and progress report ([`model::predict`]): past the
    /// deadline the program is still written, its prediction says where it stopped.
    pub budget: model::Budget<'a>,
}

/// What [`export`] wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Exported {
    /// The directory.
    pub dir: String,
    /// The plan's mode.
    pub mode: String,
    /// Ranks (`mpirun -np`).
    pub ranks: usize,
    /// Steps.
    pub steps: usize,
    /// Messages.
    pub messages: usize,
    /// Bytes of all messages (relayed data at every hop).
    pub bytes: u64,
    /// liquid's simulated time of the plan, seconds, to 4 significant digits
    /// (`manifest.json` has it in full); None when the time limit stopped the prediction.
    pub predicted_s: Option<f64>,
    /// Where the time limit stopped the prediction, for people (absent: it ran to the
    /// end; `manifest.json` has the figures under `prediction.stopped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The command that runs it here (Open MPI), every rank on this machine.
    pub run: String,
    /// The command that runs it on the machines of `DIR/hostfile` (rank i on its line i):
    /// the one for a cluster, once the hostfile names its machines (an imported fabric's
    /// hosts are its machines already).
    pub run_on_hosts: String,
    /// Rank pairs whose messages the runtime sends for its barriers (every rank with rank
    /// 0, both ways) and for rendezvous acknowledgements (receiver to sender, from the
    /// eager limit up) that have no route in the model (a traffic without every pair, as
    /// `pattern: pairs` gives): the prediction counts those messages as free. Absent: 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_without_route: Option<usize>,
}

/// The rank pairs of [`Exported::control_without_route`], given the routes by rank pair.
fn control_without_route(
    program: &Program,
    input: &ExportInput<'_>,
    routes: &RankRoutes<'_>,
) -> usize {
    let n = program.ranks.len() as u32;
    let mut needed: std::collections::BTreeSet<(u32, u32)> =
        (1..n).flat_map(|r| [(r, 0), (0, r)]).collect();
    for m in &program.messages {
        if m.from != m.to && m.bytes() >= input.library.eager_limit {
            needed.insert((m.to, m.from));
        }
    }
    needed.iter().filter(|p| !routes.contains_key(p)).count()
}

/// Builds the program and the simulator's plan of the same messages, checks both, predicts
/// the plan's times and writes the directory.
pub fn export(input: &ExportInput<'_>, out: &Path) -> Result<Exported, MpiError> {
    say(input, "building the program and the simulator's plan");
    let (program, plan, source) = build(input)?;
    finish(input, program, plan, source, out, None)
}

/// Names the phase under way on the progress line, if there is one.
fn say(input: &ExportInput<'_>, phase: &str) {
    if let Some(say) = input.budget.progress {
        say(phase);
    }
}

/// A piece of a transfer's message: (transfer index, offset in the transfer's bytes,
/// length); a schedule of pieces is a list of timeframes of them.
pub type PieceOf = (usize, u64, u64);

/// Exports a schedule of pieces (unequal messages cut by a quantum, `liquid solve
/// --sizes`): each piece one message carrying its slice of its pair's stream; the receiver
/// holds every transfer's bytes once, in place, which [`Program::check`] and the runtime's
/// byte check verify. `input.kind` is the mode, `PlanKind::Schedule(mode)`:
/// [`ScheduleMode::Frames`], frame by frame with a barrier between frames;
/// [`ScheduleMode::Async`], no barrier, each rank's pieces in frame order, each a
/// synchronous send waited for before the next; [`ScheduleMode::AllAtOnce`], every piece
/// posted at once (see [`program::from_pieces`]). The prediction of the plan alone
/// (`plan_s`) is `liquid_sim`'s plan of the same mode ([`liquid_sim::from_frames`], the
/// sender of a piece its rank); `input.schedule` is not used; `source` says where the
/// schedule came from.
pub fn export_pieces(
    input: &ExportInput<'_>,
    frames: &[Vec<PieceOf>],
    source: String,
    out: &Path,
) -> Result<Exported, MpiError> {
    let (data, program, mode) = pieces_program(input, frames)?;
    let plan = pieces_plan(input, &data, frames, mode);
    finish(input, program, plan, source, out, None)
}

/// A run's prediction made before the export ([`predict_pieces`]): [`export_pieces_predicted`]
/// writes it instead of predicting the run again.
#[derive(Debug, Clone)]
pub struct RunPredicted {
    /// The prediction of the run (no `plan_s` yet).
    pub prediction: Prediction,
    /// Segments simulated to their end.
    pub segments: usize,
}

/// liquid's prediction of the run of a schedule of pieces, as [`export_pieces`] exports
/// it (same program, same runtime model, same deadline), without writing anything and
/// without the plan alone (`plan_s`): what weighs one candidate quantum against another.
/// Past `input.budget.deadline`, the prediction has no total and says where it stopped.
pub fn predict_pieces(
    input: &ExportInput<'_>,
    frames: &[Vec<PieceOf>],
) -> Result<RunPredicted, MpiError> {
    let (_, program, _) = pieces_program(input, frames)?;
    program.check()?;
    let routes = rank_routes(&program.ranks, input.traffic, input.mapped);
    let (prediction, segments) = predict_run(&program, input, &routes)?;
    Ok(RunPredicted {
        prediction,
        segments,
    })
}

/// [`export_pieces`] of a schedule whose run [`predict_pieces`] predicted already (with
/// the same `input`): that prediction is written, completed by the plan alone (`plan_s`)
/// within what the deadline leaves.
pub fn export_pieces_predicted(
    input: &ExportInput<'_>,
    frames: &[Vec<PieceOf>],
    run: RunPredicted,
    source: String,
    out: &Path,
) -> Result<Exported, MpiError> {
    let (data, program, mode) = pieces_program(input, frames)?;
    let plan = pieces_plan(input, &data, frames, mode);
    finish(input, program, plan, source, out, Some(run))
}

/// The runtime's program of a schedule of pieces in `input.kind`'s mode, with the data it
/// carries and the mode.
fn pieces_program(
    input: &ExportInput<'_>,
    frames: &[Vec<PieceOf>],
) -> Result<(Data, Program, ScheduleMode), MpiError> {
    let PlanKind::Schedule(mode) = input.kind else {
        return Err(MpiError::Input(
            "a schedule of pieces runs as a schedule: frames, async or all-at-once".into(),
        ));
    };
    let data = Data::new(input.traffic, input.sizes, None)?;
    // The runtime's operations: a send and a receive per piece, and frame by frame a
    // barrier per rank and frame. 3.6 million pieces in 532,485 frames of 432 ranks made
    // 230 million barrier calls and filled 24 GB: refused before anything is built.
    let pieces: u64 = frames.iter().map(|f| f.len() as u64).sum();
    let barriers = match mode {
        ScheduleMode::Frames => frames.len() as u64 * data.ranks.len() as u64,
        _ => 0,
    };
    let ops = 2 * pieces + barriers;
    if ops > MAX_OPERATIONS {
        return Err(MpiError::Input(format!(
            "the plan of {pieces} pieces in {} frames on {} ranks has {ops} operations \
             (sends, receives{}), more than the {MAX_OPERATIONS} liquid builds: give a larger \
             --quantum{}",
            frames.len(),
            data.ranks.len(),
            if barriers > 0 {
                ", a barrier per rank and frame"
            } else {
                ""
            },
            if barriers > 0 {
                ", or --mode async (no barriers)"
            } else {
                ""
            }
        )));
    }
    let program = program::from_pieces(&data, frames, mode)?;
    Ok((data, program, mode))
}

/// The most operations (sends, receives, barriers) of a plan of pieces liquid builds:
/// each takes tens of bytes in the program and the prediction (about 2 GB here).
pub const MAX_OPERATIONS: u64 = 1 << 26;

/// The simulator's plan of a schedule of pieces: the same messages as the program's, the
/// sender of a piece its rank.
fn pieces_plan(
    input: &ExportInput<'_>,
    data: &Data,
    frames: &[Vec<PieceOf>],
    mode: ScheduleMode,
) -> Plan {
    let routes = &input.mapped.routes;
    let sim_frames = frames.iter().map(|frame| {
        frame
            .iter()
            .map(|&(t, _, len)| {
                let message = liquid_sim::Message {
                    route: routes[t].clone(),
                    bytes: len as f64,
                    transfer: None,
                };
                (data.ends[t].0, message)
            })
            .collect::<Vec<_>>()
    });
    liquid_sim::from_frames(sim_frames, sim_mode(mode))
}

/// The simulator's mode of a schedule mode.
fn sim_mode(mode: ScheduleMode) -> liquid_sim::Mode {
    match mode {
        ScheduleMode::Frames => liquid_sim::Mode::Frames,
        ScheduleMode::Async => liquid_sim::Mode::Async,
        ScheduleMode::AllAtOnce => liquid_sim::Mode::AllAtOnce,
    }
}

fn finish(
    input: &ExportInput<'_>,
    program: Program,
    plan: Plan,
    source: String,
    out: &Path,
    run: Option<RunPredicted>,
) -> Result<Exported, MpiError> {
    say(
        input,
        &format!("checking the program ({} messages)", program.messages.len()),
    );
    program.check()?;
    let routes = rank_routes(&program.ranks, input.traffic, input.mapped);
    let prediction = predict(&program, &plan, input, &routes, run)?;
    say(
        input,
        &format!(
            "writing the plan ({} rank files, not stopped by --time-limit)",
            program.ranks.len()
        ),
    );
    let manifest = Manifest {
        format: "liquid-mpi-export/1".into(),
        model: input.traffic.name().to_string(),
        mode: program.mode.clone(),
        source,
        ranks: program.ranks.clone(),
        steps: program.steps.len(),
        messages: program.messages.len(),
        bytes: program.bytes(),
        overhead_s: input.overhead,
        prediction,
    };
    write(&program, &manifest, out)?;
    Ok(Exported {
        dir: out.display().to_string(),
        mode: program.mode.clone(),
        ranks: program.ranks.len(),
        steps: program.steps.len(),
        messages: program.messages.len(),
        bytes: program.bytes(),
        predicted_s: manifest.prediction.total_s.map(|t| round_significant(t, 4)),
        stopped: manifest.prediction.stopped.as_ref().map(|s| s.describe()),
        run: run_here(program.ranks.len(), &out.display().to_string()),
        run_on_hosts: run_on_hosts(program.ranks.len(), &out.display().to_string()),
        control_without_route: Some(control_without_route(&program, input, &routes))
            .filter(|&c| c > 0),
    })
}

/// The Open MPI command that runs the plan in `dir` of `ranks` ranks on this machine.
pub fn run_here(ranks: usize, dir: &str) -> String {
    format!("mpirun -np {ranks} --oversubscribe ./liquid-mpi-run {dir}")
}

/// The Open MPI command that runs the plan in `dir` of `ranks` ranks on the machines of
/// its hostfile, rank i on line i: Open MPI's sequential mapper (`--mca rmaps seq`, "reads
/// the hostfile line by line, assigning processes to nodes in whatever order the hostfile
/// specifies", mpirun(1) of Open MPI 4.1). Without it a hostfile is no ordered list: a line
/// without `slots=` gets the machine's cores as slots, filled first, and the node mpirun
/// runs on comes first. `liquid compare` checks where the ranks ran.
pub fn run_on_hosts(ranks: usize, dir: &str) -> String {
    format!("mpirun -np {ranks} --hostfile {dir}/hostfile --mca rmaps seq ./liquid-mpi-run {dir}")
}

fn build(input: &ExportInput<'_>) -> Result<(Program, Plan, String), MpiError> {
    let traffic = input.traffic;
    let routes = &input.mapped.routes;
    match input.kind {
        PlanKind::Schedule(mode) => {
            let (schedule, source) = input
                .schedule
                .as_ref()
                .ok_or_else(|| MpiError::Input("a schedule plan needs a schedule".into()))?;
            let data = Data::new(traffic, input.sizes, None)?;
            let program = program::from_schedule(&data, schedule, mode);
            let plan =
                liquid_sim::from_schedule(traffic, routes, input.sizes, schedule, sim_mode(mode))?;
            Ok((program, plan, source.clone()))
        }
        PlanKind::RoundRobin | PlanKind::Pairwise => {
            let data = Data::new(traffic, input.sizes, None)?;
            let pairwise = input.kind == PlanKind::Pairwise;
            let program = program::rounds(&data, pairwise);
            let route = |a: u32, b: u32| -> Vec<u32> {
                let t = data.pairs[&(a, b)][0];
                routes[t].clone()
            };
            let msg = |k: usize| {
                let m = &program.messages[k];
                liquid_sim::Message {
                    route: route(m.from, m.to),
                    bytes: m.bytes() as f64,
                    transfer: None,
                }
            };
            let n = data.ranks.len();
            let mut steps: Vec<Step> = Vec::new();
            if pairwise {
                // Step (round q, rank i): i's send of round q, after i's round q-1 step and
                // the round q-1 step of the rank that sent to i.
                let mut prev: Vec<usize> = Vec::new();
                let mut prev_from: Vec<Option<u32>> = vec![None; n];
                for q in 0..program.steps.len() {
                    let base = steps.len();
                    let mut from_of = vec![None; n];
                    for (i, from) in prev_from.iter().enumerate() {
                        let mut after = Vec::new();
                        if let Some(&p) = prev.get(i) {
                            after.push(p);
                            if let Some(k) = *from {
                                after.push(prev[k as usize]);
                            }
                        }
                        after.sort_unstable();
                        after.dedup();
                        let messages = program
                            .messages
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| m.step as usize == q && m.from as usize == i)
                            .map(|(k, _)| msg(k))
                            .collect();
                        steps.push(Step {
                            after,
                            delay: 0.0,
                            messages,
                            group: Some(q),
                        });
                    }
                    for m in program.messages.iter().filter(|m| m.step as usize == q) {
                        from_of[m.to as usize] = Some(m.from);
                    }
                    prev = (base..base + n).collect();
                    prev_from = from_of;
                }
            } else {
                for q in 0..program.steps.len() {
                    steps.push(Step {
                        after: if q == 0 { vec![] } else { vec![q - 1] },
                        delay: 0.0,
                        messages: (0..program.messages.len())
                            .filter(|&k| program.messages[k].step as usize == q)
                            .map(msg)
                            .collect(),
                        group: Some(q),
                    });
                }
            }
            let source = if pairwise {
                "pairwise exchange".to_string()
            } else {
                "round-robin".to_string()
            };
            Ok((program, Plan { steps }, source))
        }
        PlanKind::Lg | PlanKind::LgLiquid => {
            let (n1, n2) = two_clusters(traffic)?;
            let ranks: Vec<String> = (0..n1)
                .map(|k| format!("a{k}"))
                .chain((0..n2).map(|k| format!("b{k}")))
                .collect();
            let data = Data::new(traffic, input.sizes, Some(ranks.clone()))?;
            let sizes: std::collections::BTreeSet<u64> = data
                .pairs
                .keys()
                .filter_map(|&(a, b)| data.stream(a, b).map(|p| p.len))
                .collect();
            let n = n1 + n2;
            if data.pairs.len() != n * (n - 1) || sizes.len() != 1 {
                return Err(MpiError::Input(format!(
                    "LG needs an all-to-all with the same size for every pair of nodes; \
                     the model has {} pairs of {} and sizes {:?}",
                    data.pairs.len(),
                    n * (n - 1),
                    sizes
                )));
            }
            let bytes = sizes.iter().next().copied().unwrap_or(0);
            let alg = Lg::new(n1, n2);
            let layout = Layout::from_traffic(traffic, routes, n1, &ranks, Vec::new())?;
            if input.kind == PlanKind::Lg {
                let program = program::lg(&data, &alg)?;
                let plan = alg.plan(&layout, bytes as f64)?;
                return Ok((
                    program,
                    plan,
                    format!("001's LG (Algorithm 1) for {n1}+{n2} nodes"),
                ));
            }
            let schedule = input.phase_schedule.ok_or_else(|| {
                MpiError::Input("--plan lg-liquid needs an engine for LG's phases".into())
            })?;
            let lanes = lanes(
                &input.mapped.platform,
                &routes[data.pairs[&(0, n1 as u32)][0]],
            );
            let mut sources = Vec::new();
            let mut phase = |name: &str, pairs: Vec<(usize, usize)>| {
                if pairs.is_empty() {
                    return Ok(Vec::new());
                }
                let t = liquid_sim::two_clusters::scheduling_traffic(name, n1, &pairs, lanes)?;
                let (s, source) = schedule(&t)
                    .map_err(|why| MpiError::Input(format!("no schedule for {name}: {why}")))?;
                liquid_model::validate(&t, &s).map_err(|e| {
                    MpiError::Inconsistent(format!("the schedule of {name} is not valid: {e}"))
                })?;
                sources.push(format!("{name}: {source}, {} frames", s.frames.len()));
                Ok::<_, MpiError>(liquid_sim::two_clusters::frames_of(&s))
            };
            let ends = |ps: Vec<liquid_sim::two_clusters::Parcel>| -> Vec<(usize, usize)> {
                ps.into_iter().map(|p| (p.from, p.to)).collect()
            };
            let local = phase(&format!("lg-local-{n1}-{n2}"), ends(alg.local_aggregated()))?;
            let exchanges = phase(&format!("lg-exchange-{n1}-{n2}"), ends(alg.exchanges()))?;
            let program = program::lg_frames(&data, &alg, &local, &exchanges)?;
            let plan = alg.plan_scheduled(&layout, bytes as f64, &local, &exchanges)?;
            Ok((
                program,
                plan,
                format!(
                    "001's LG for {n1}+{n2} nodes, each phase by a liquid schedule ({}; {lanes} \
                     backbone lanes)",
                    sources.join("; ")
                ),
            ))
        }
    }
}

/// Backbone lanes of a two-clusters platform, as the two-cluster study counts them: the
/// backbone's bandwidth over a node's (the narrowest link inside a route between the
/// clusters over its first link), rounded, at least 1.
fn lanes(platform: &liquid_sim::Platform, route: &[u32]) -> usize {
    let links = platform.links();
    let bw = |l: &u32| links[*l as usize].bandwidth;
    let node = route.first().map_or(1.0, bw);
    let inner = route.get(1..route.len().saturating_sub(1)).unwrap_or(&[]);
    let backbone = inner.iter().map(bw).fold(f64::INFINITY, f64::min);
    if backbone.is_finite() {
        (backbone / node).round().max(1.0) as usize
    } else {
        1
    }
}

/// The clusters of a two-clusters model: hosts `a0 … a(n1-1)` and `b0 … b(n2-1)`.
fn two_clusters(traffic: &Traffic) -> Result<(usize, usize), MpiError> {
    let mut hosts = std::collections::BTreeSet::new();
    for t in traffic.transfers() {
        hosts.extend(t.from.iter().chain(&t.to).cloned());
    }
    let count = |c: char| {
        hosts
            .iter()
            .filter(|h| h.starts_with(c) && h[1..].parse::<usize>().is_ok())
            .count()
    };
    let (n1, n2) = (count('a'), count('b'));
    let named = |c: char, n: usize| (0..n).all(|k| hosts.contains(&format!("{c}{k}")));
    if n1 == 0 || n2 == 0 || n1 + n2 != hosts.len() || !named('a', n1) || !named('b', n2) {
        return Err(MpiError::Input(
            "--plan lg needs a two-clusters model (hosts a0 … a(n1-1) and b0 … b(n2-1), as \
             `two-clusters:N1,N2` makes)"
                .into(),
        ));
    }
    Ok((n1, n2))
}

/// liquid's simulation of the plan, per step of the program, after checking that the plan
/// and the program carry the same messages and bytes in every step.
fn predict(
    program: &Program,
    plan: &Plan,
    input: &ExportInput<'_>,
    routes: &RankRoutes<'_>,
    run: Option<RunPredicted>,
) -> Result<Prediction, MpiError> {
    let per = program.per_step();
    let mut sim_per = vec![(0usize, 0f64); per.len()];
    for s in &plan.steps {
        let g = s.group.unwrap_or(0);
        let e = sim_per.get_mut(g).ok_or_else(|| {
            MpiError::Inconsistent(format!(
                "the simulator's plan has group {g}, the program {} steps",
                per.len()
            ))
        })?;
        e.0 += s.messages.len();
        e.1 += s.messages.iter().map(|m| m.bytes).sum::<f64>();
    }
    for (q, (a, b)) in per.iter().zip(&sim_per).enumerate() {
        if a.0 != b.0 || a.1 as f64 != b.1 {
            return Err(MpiError::Inconsistent(format!(
                "step {q}: the program has {} messages of {} bytes, the simulator's plan {} of {}",
                a.0, a.1, b.0, b.1
            )));
        }
    }
    let (mut prediction, segments) = match run {
        Some(r) => (r.prediction, r.segments),
        None => predict_run(program, input, routes)?,
    };
    if prediction.stopped.is_some() {
        return Ok(prediction);
    }
    // The plan alone, within what the deadline leaves.
    say(input, "simulating the plan alone (plan_s)");
    let control = liquid_sim::Control {
        deadline: input.budget.deadline,
        ..liquid_sim::Control::default()
    };
    let transport = liquid_sim::Transport::default();
    match liquid_sim::simulate_controlled(
        &input.mapped.platform,
        plan,
        &options(input),
        &transport,
        &control,
    ) {
        Ok(run) => prediction.plan_s = Some(run.makespan),
        Err(liquid_sim::SimError::TimeLimit(liquid_sim::Stopped { simulated_s, .. })) => {
            let barriers = model::barriers(program);
            prediction.stopped = Some(crate::report::Stopped {
                simulation: "plan".into(),
                simulated_s,
                segments_done: segments,
                barriers_passed: barriers,
                barriers,
            });
        }
        Err(e) => return Err(e.into()),
    }
    Ok(prediction)
}

/// The simulator's options of every prediction: the input's overhead, no trace.
fn options(input: &ExportInput<'_>) -> liquid_sim::Options {
    liquid_sim::Options {
        overhead: input.overhead,
        trace: false,
    }
}

/// The prediction of the program's run ([`model::predict`] with the routes by rank pair,
/// the input's runtime model and budget), and the segments simulated to their end.
fn predict_run(
    program: &Program,
    input: &ExportInput<'_>,
    routes: &RankRoutes<'_>,
) -> Result<(Prediction, usize), MpiError> {
    let route = |a: u32, b: u32| routes.get(&(a, b)).map(|r| (*r).clone());
    model::predict_counted(
        program,
        &input.mapped.platform,
        &route,
        &input.library,
        &options(input),
        &input.budget,
    )
}

/// The platform route between two ranks' hosts: the model's (one per pair of hosts, as
/// `liquid export simgrid` writes it), by (rank, rank).
/// Routes by (sending rank, receiving rank).
type RankRoutes<'m> = HashMap<(u32, u32), &'m Vec<u32>>;

fn rank_routes<'m>(
    ranks: &[String],
    traffic: &Traffic,
    mapped: &'m MappedTraffic,
) -> RankRoutes<'m> {
    let rank_of: HashMap<&str, u32> = ranks
        .iter()
        .enumerate()
        .map(|(r, h)| (h.as_str(), r as u32))
        .collect();
    let mut routes: HashMap<(u32, u32), &Vec<u32>> = HashMap::new();
    for (t, x) in traffic.transfers().iter().enumerate() {
        let end = |h: &Option<String>| h.as_deref().and_then(|h| rank_of.get(h).copied());
        if let (Some(a), Some(b)) = (end(&x.from), end(&x.to)) {
            routes.entry((a, b)).or_insert(&mapped.routes[t]);
        }
    }
    routes
}

/// What one barrier between two frames costs the runtime, by liquid's prediction: the run
/// of a program whose every rank (the traffic's hosts, ranked as [`export`] ranks them)
/// only calls `MPI_Barrier` once after the first barrier, on an otherwise empty network,
/// predicted as [`model::predict`] predicts every run (SMPI's basic linear barrier, the
/// library's envelope, `overhead` per message). This is the time a frame of a
/// frame-by-frame plan adds to its longest message when every rank enters the barrier at
/// once.
pub fn barrier_s(
    traffic: &Traffic,
    mapped: &MappedTraffic,
    library: &RuntimeModel,
    overhead: f64,
) -> Result<f64, MpiError> {
    let data = Data::new(traffic, &vec![0.0; traffic.len()], None)?;
    let n = data.ranks.len();
    let program = Program {
        mode: "barrier".into(),
        ranks: data.ranks.clone(),
        steps: Vec::new(),
        messages: Vec::new(),
        ops: vec![vec![program::Op::Barrier]; n],
        expect: vec![Vec::new(); n],
    };
    let routes = rank_routes(&program.ranks, traffic, mapped);
    let route = |a: u32, b: u32| routes.get(&(a, b)).map(|r| (*r).clone());
    let opts = liquid_sim::Options {
        overhead,
        trace: false,
    };
    // One barrier: 2(n - 1) empty messages, quick at every size; no deadline.
    let budget = model::Budget {
        deadline: None,
        progress: None,
    };
    let p = model::predict(&program, &mapped.platform, &route, library, &opts, &budget)?;
    p.total_s.ok_or_else(|| {
        MpiError::Inconsistent("the prediction of one barrier stopped without a deadline".into())
    })
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MpiError + '_ {
    move |source| MpiError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Whether `host` can be a line of a hostfile and of ranks.txt: one host a line, in Open
/// MPI's hostfile format (where white space separates options such as `slots=N` and `#`
/// starts a comment). An error names the host and its rank.
pub fn check_host_name(rank: usize, host: &str) -> Result<(), MpiError> {
    let bad = host.is_empty()
        || host
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '#');
    if bad {
        return Err(MpiError::Input(format!(
            "host {host:?} (rank {rank}) cannot be a line of the hostfile and ranks.txt: a \
             host name there has no white space, control character or `#` (Open MPI's \
             hostfile reads them as options and comments); rename it in the model"
        )));
    }
    Ok(())
}

/// Writes the directory: rank files, ranks.txt, hostfile, manifest.json (every host name
/// checked first, [`check_host_name`]: no file of the plan is written for a name that is
/// no line).
pub fn write(program: &Program, manifest: &Manifest, out: &Path) -> Result<(), MpiError> {
    for (r, h) in program.ranks.iter().enumerate() {
        check_host_name(r, h)?;
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    let n = program.ranks.len() as u32;
    for (r, ops) in program.ops.iter().enumerate() {
        let path = out.join(format!("rank-{r}.txt"));
        let file = std::fs::File::create(&path).map_err(io(&path))?;
        let mut w = std::io::BufWriter::new(file);
        let mut text = format::header(r as u32, n, &program.mode);
        for &(src, bytes) in &program.expect[r] {
            text.push_str(&format::expect(src, bytes));
        }
        w.write_all(text.as_bytes()).map_err(io(&path))?;
        for op in ops {
            w.write_all(format::op_line(op, &program.messages).as_bytes())
                .map_err(io(&path))?;
        }
        w.write_all(format::END.as_bytes()).map_err(io(&path))?;
        w.flush().map_err(io(&path))?;
    }
    let mut ranks = String::from("# rank host\n");
    let mut hostfile = String::new();
    for (r, h) in program.ranks.iter().enumerate() {
        ranks.push_str(&format!("{r} {h}\n"));
        hostfile.push_str(&format!("{h}\n"));
    }
    for (name, text) in [("ranks.txt", ranks), ("hostfile", hostfile)] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    let path = out.join("manifest.json");
    let json = serde_json::to_string_pretty(manifest)
        .map_err(|e| MpiError::Inconsistent(e.to_string()))?;
    std::fs::write(&path, json + "\n").map_err(io(&path))?;
    Ok(())
}
