//! Unequal messages (all-to-allv) as library calls: a model with its message sizes on its
//! platform ([`load`]), its time bound beside `liquid analyze`'s report ([`analyze`]),
//! preemptive schedules by chunks and non-preemptive schedules in unequal timeframes with
//! their evidence ([`solve`], `liquid solve --sizes`), and seeded skewed sizes
//! ([`generate`], `liquid generate sizes`). The algorithms are `liquid-alltoallv`'s.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use liquid_alltoallv::bound::{time_bound, Platform, TimeBound};
use liquid_alltoallv::chunk::{self, Candidate, Chunked};
use liquid_alltoallv::generate::Dist;
use liquid_alltoallv::sizes::{Missing, Sizes};
use liquid_alltoallv::whole;
use liquid_model::analysis::{Analysis, AnalysisOptions};
use liquid_model::display::round_significant;
use liquid_model::{Schedule, Traffic, TransferId};
use liquid_sim::MappedTraffic;
use serde::Serialize;

use crate::simulate::Stopped;
use crate::{Solver, StudyError};

/// Where the sizes come from and the platform's parameters.
#[derive(Debug, Clone)]
pub struct SizesArgs {
    /// The sizes file (`src,dst,bytes` CSV or YAML `transfer id: bytes`).
    pub sizes: PathBuf,
    /// Bytes of the pairs the file leaves out; `None`: such a pair is an error.
    pub size: Option<u64>,
    /// Software overhead per message (per piece), seconds.
    pub overhead: f64,
    /// Link throughput in MB/s for links without their own (over the model's).
    pub link_throughput: Option<f64>,
    /// Link latency in seconds for links without their own (over the model's).
    pub link_latency: Option<f64>,
}

/// A model with its sizes on its platform.
pub struct Loaded {
    /// The traffic.
    pub traffic: Traffic,
    /// Its routes on the simulator's links.
    pub mapped: MappedTraffic,
    /// Throughput and latency per traffic link, and the overhead.
    pub platform: Platform,
    /// Bytes per transfer.
    pub sizes: Sizes,
    /// What the report says of the sizes.
    pub info: SizesInfo,
}

/// The sizes, as reports show them.
#[derive(Debug, Clone, Serialize)]
pub struct SizesInfo {
    /// The file.
    pub file: String,
    /// Transfers (messages).
    pub messages: usize,
    /// Transfers that took `--size` (the file left them out).
    pub defaulted: usize,
    /// Total bytes.
    pub total_bytes: u128,
    /// The smallest message, bytes.
    pub smallest_bytes: u64,
    /// The largest message, bytes.
    pub largest_bytes: u64,
}

/// The most pieces a schedule of pieces may have: as many as transfers a traffic may
/// ([`liquid_model::network::MAX_TRANSFERS`]); each takes about 100 bytes.
pub const MAX_PIECES: u64 = liquid_model::network::MAX_TRANSFERS;

/// The most pieces the default quantum may make: `--max-pieces` per message on average,
/// and never more than [`MAX_PIECES`] in all (a quantum given is held to the same:
/// [`check_quantum`]). At 1,024 hosts 64 per message allowed 67 million: the first fit of
/// a 34-million-piece candidate ran 29 s past a 5 s limit, and `export mpi --plan pieces`
/// of a 7-million-piece one filled 24 GB.
fn piece_cap(o: &SolveOptions, messages: usize) -> u64 {
    o.max_pieces_per_message
        .saturating_mul(messages as u64)
        .min(MAX_PIECES)
}

/// A quantum given (`--quantum`) must make pieces of at least 1 byte, and at most
/// [`MAX_PIECES`] of them: else an error naming the count and the smallest quantum that
/// fits, before anything is allocated.
fn check_quantum(quantum: Option<u64>, bytes: &[u64]) -> Result<(), StudyError> {
    let Some(q) = quantum else { return Ok(()) };
    if q == 0 {
        return Err(StudyError::Input(
            "--quantum 0: a piece has at least 1 byte".into(),
        ));
    }
    let total = |q: u64| -> u128 { bytes.iter().map(|&b| u128::from(b.div_ceil(q))).sum() };
    let n = total(q);
    if n <= u128::from(MAX_PIECES) {
        return Ok(());
    }
    // The smallest quantum that fits: the count falls as the quantum grows.
    let (mut lo, mut hi) = (q, bytes.iter().copied().max().unwrap_or(1).max(q));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if total(mid) <= u128::from(MAX_PIECES) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Err(StudyError::Input(format!(
        "--quantum {q}: {n} pieces, more than the {MAX_PIECES} a schedule of pieces may have \
         (about 100 bytes each): give a quantum of at least {lo} bytes, or none (the default \
         keeps within both this and 64 pieces per message on average)"
    )))
}

/// Says on stderr how many of `messages` transfers the sizes file `file` leaves out and
/// take `--size` bytes (nothing when none do).
pub(crate) fn note_defaulted(defaulted: usize, messages: usize, file: &str, size: u64) {
    if defaulted > 0 {
        eprintln!(
            "note: {defaulted} of the {messages} transfers have no size in {file}: they take \
             --size ({size} bytes)"
        );
    }
}

/// Loads a model, its sizes and its platform.
pub fn load(model_arg: &Path, a: &SizesArgs) -> Result<Loaded, StudyError> {
    if !(a.overhead.is_finite() && a.overhead >= 0.0) {
        return Err(StudyError::Input(format!(
            "--overhead must be finite and not negative, not {}",
            a.overhead
        )));
    }
    if a.size == Some(0) {
        return Err(StudyError::Input(
            "--size 0: every message has at least 1 byte".into(),
        ));
    }
    let (traffic, mapped, links) =
        crate::simulate::load_mapped(model_arg, a.link_throughput, a.link_latency)?;
    let missing = a.size.map_or(Missing::Error, Missing::Default);
    let sizes = liquid_alltoallv::sizes::load(&a.sizes, &traffic, missing)?;
    let platform = Platform {
        bandwidth: links.iter().map(|l| l.0).collect(),
        latency: links.iter().map(|l| l.1).collect(),
        overhead: a.overhead,
    };
    let info = SizesInfo {
        file: a.sizes.display().to_string(),
        messages: traffic.len(),
        defaulted: sizes.defaulted,
        total_bytes: sizes.total(),
        smallest_bytes: sizes.bytes.iter().copied().min().unwrap_or(0),
        largest_bytes: sizes.bytes.iter().copied().max().unwrap_or(0),
    };
    Ok(Loaded {
        traffic,
        mapped,
        platform,
        sizes,
        info,
    })
}

/// `liquid analyze MODEL --sizes FILE`: the analysis of the traffic, its sizes and its
/// time bound with the bottleneck links.
#[derive(Serialize)]
pub struct AnalyzeReport {
    #[serde(flatten)]
    analysis: Analysis,
    sizes: SizesInfo,
    overhead_s: f64,
    time_bound: TimeBound,
}

/// The analysis of a traffic with its message sizes.
pub fn analyze(
    model_arg: &Path,
    a: &SizesArgs,
    options: AnalysisOptions,
) -> Result<AnalyzeReport, StudyError> {
    let l = load(model_arg, a)?;
    let mut analysis = Analysis::new(&l.traffic, options);
    // Every real link at one rate (`--link-throughput`, or the model's): the report's
    // link and liquid throughputs are at that rate, the one the time bound uses.
    // Links at several rates: `--link-throughput` is the rate of those without their own.
    let mut rates = l.platform.bandwidth.iter().filter(|b| b.is_finite());
    if let Some(&first) = rates.next() {
        if rates.all(|&b| b == first) {
            analysis = analysis.at_link_throughput(&l.traffic, first / 1e6);
        } else if let Some(mb_s) = a.link_throughput {
            analysis = analysis.with_default_link_throughput(mb_s);
        }
    }
    Ok(AnalyzeReport {
        analysis,
        time_bound: time_bound(&l.traffic, &l.sizes.bytes, &l.platform),
        sizes: l.info,
        overhead_s: a.overhead,
    })
}

/// Which schedules `solve` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preemption {
    /// Preemptive, by chunks.
    Chunks,
    /// Non-preemptive (every message whole).
    Whole,
    /// Both, and the gap between them.
    Both,
}

/// How `solve` schedules.
#[derive(Clone)]
pub struct SolveOptions {
    /// Bytes per piece; `None`: the default quantum ([`chunk::choose_quantum`]).
    pub quantum: Option<u64>,
    /// With the default quantum: at most this many pieces per message on average.
    pub max_pieces_per_message: u64,
    /// Which schedules.
    pub preemption: Preemption,
    /// An engine of the registry for the pieces; `None`: first fit, then (when it is not
    /// liquid and the pieces are at most [`ENGINE_PIECES`]) the default engine.
    pub engine: Option<&'static dyn liquid_engine::Engine>,
    /// Limits and seed of engine runs (the pieces' engine, the ILP's time limit).
    pub request: liquid_engine::Request,
    /// The exact ILP runs on traffics of at most this many messages.
    pub exact_max: usize,
    /// Also run the schedules on the flow-level simulator.
    pub simulate: bool,
    /// Let a link carry as many messages per frame as it has lanes
    /// ([`Platform::lanes`]); otherwise one, 004's model.
    pub lanes: bool,
    /// The schedule of pieces runs on liquid's MPI runtime frame by frame, with an
    /// `MPI_Barrier` between frames, modelled as this library: every frame then also
    /// costs one barrier ([`liquid_mpi::barrier_s`]), in the predicted makespan and in the
    /// choice of the default quantum. `None` (`solve`): frames cost only their pieces.
    pub frame_barrier: Option<liquid_mpi::RuntimeModel>,
}

/// The lanes of every link the schedules use: [`Platform::lanes`] with `o.lanes`, else 1.
fn lanes_of(l: &Loaded, o: &SolveOptions) -> Vec<u32> {
    if o.lanes {
        l.platform.lanes(&l.traffic)
    } else {
        vec![1; l.traffic.num_links()]
    }
}

/// Without `--engine`, the default engine is tried on the pieces when first fit is not
/// liquid and there are at most this many pieces.
pub const ENGINE_PIECES: u64 = 20_000;

/// The preemptive schedule by chunks, in the report.
#[derive(Debug, Clone, Serialize)]
pub struct ChunkReport {
    /// Bytes per piece.
    pub quantum: u64,
    /// How the quantum was set.
    pub quantum_rule: String,
    /// Messages.
    pub messages: usize,
    /// Pieces in all.
    pub pieces: u64,
    /// Λ of the pieces: the most pieces on one link.
    pub piece_duration: u64,
    /// Links carrying Λ pieces (at most 8 listed: `piece_bottleneck_count` says how many
    /// there are).
    pub piece_bottlenecks: Vec<String>,
    /// How many links carry Λ pieces.
    pub piece_bottleneck_count: usize,
    /// What made the schedule.
    pub engine: String,
    /// Timeframes.
    pub frames: usize,
    /// Whether frames = Λ of the pieces.
    pub liquid: bool,
    /// What the schedule's optimality at the quantum level rests on, if anything.
    pub evidence: String,
    /// How the schedule was checked.
    pub validated_by: String,
    /// The time every frame costs besides its pieces, seconds: the MPI runtime's barrier
    /// between frames, by liquid's prediction of one barrier on this platform (`export mpi
    /// --plan pieces --mode frames`); absent when frames cost nothing more (`solve`).
    #[serde(skip_serializing_if = "is_zero")]
    pub frame_cost_s: f64,
    /// The sum of the frames' predicted times (frame cost + overhead + longest piece),
    /// seconds.
    pub predicted_makespan_s: f64,
    /// predicted makespan - time bound: what chunking costs (padding, overheads).
    pub chunking_overhead_s: f64,
    /// predicted makespan / time bound.
    pub over_bound: f64,
    /// (predicted makespan - time bound) / predicted makespan: how far the schedule may be
    /// from the fastest one, by the time bound.
    pub gap: f64,
    /// The makespan on the flow-level simulator, frame by frame (with `--simulate`;
    /// `Some(None)`, null, when the time limit stopped the simulation or came before it:
    /// `cut_by_time_limit` says which).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_makespan_s: Option<Option<f64>>,
    /// The quanta weighed for the default one, with their predictions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
}

/// For `skip_serializing_if`: a figure that is exactly zero is left out.
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The non-preemptive schedule, in the report.
#[derive(Debug, Clone, Serialize)]
pub struct WholeReport {
    /// What made the schedule: `first-fit-decreasing`, `ilp` or an engine of the
    /// registry (on the messages, when neither settled it).
    pub engine: String,
    /// The time every frame costs besides its longest message, seconds (the MPI
    /// runtime's barrier, as [`ChunkReport::frame_cost_s`]); counted in the makespan and
    /// the bounds; absent when frames cost nothing more (`solve`).
    #[serde(skip_serializing_if = "is_zero")]
    pub frame_cost_s: f64,
    /// Timeframes.
    pub frames: usize,
    /// The sum of the frames' lengths (each its longest message's time), seconds.
    pub makespan_s: f64,
    /// The best lower bound, seconds.
    pub lower_bound_s: f64,
    /// What gives the lower bound.
    pub lower_bound_by: String,
    /// (makespan - lower bound) / makespan.
    pub gap: f64,
    /// Whether the makespan is proven optimal, and by what.
    pub optimal: bool,
    /// What the optimality or the bound rests on.
    pub evidence: String,
    /// The ILP's run, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ilp: Option<IlpReport>,
    /// The makespan on the flow-level simulator, frame by frame (with `--simulate`;
    /// `Some(None)`, null, when the time limit stopped the simulation or came before it:
    /// `cut_by_time_limit` says which).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_makespan_s: Option<Option<f64>>,
    /// makespan / the preemptive schedule's predicted makespan (both made).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_preemptive: Option<f64>,
}

/// What the ILP did.
#[derive(Debug, Clone, Serialize)]
pub struct IlpReport {
    /// HiGHS's status.
    pub status: String,
    /// Columns and rows.
    pub columns: usize,
    /// Rows.
    pub rows: usize,
    /// HiGHS's dual bound, seconds.
    pub dual_bound_s: f64,
    /// Wall time, seconds.
    pub time_s: f64,
}

/// `liquid solve MODEL --sizes FILE`'s report.
#[derive(Debug, Clone, Serialize)]
pub struct SolveReport {
    model: String,
    sizes: SizesInfo,
    overhead_s: f64,
    time_bound: TimeBound,
    /// The time limit of the whole run (every phase), seconds.
    time_limit_s: f64,
    /// What the time limit cut short or left out (empty: nothing). The schedules reported
    /// are then the best validated ones made before it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cut_by_time_limit: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preemptive: Option<ChunkReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    non_preemptive: Option<WholeReport>,
}

impl SolveReport {
    /// The preemptive part.
    pub fn preemptive(&self) -> Option<&ChunkReport> {
        self.preemptive.as_ref()
    }
    /// The non-preemptive part.
    pub fn non_preemptive(&self) -> Option<&WholeReport> {
        self.non_preemptive.as_ref()
    }
    /// The time bound.
    pub fn time_bound(&self) -> &TimeBound {
        &self.time_bound
    }
    /// What the time limit cut short (empty: nothing).
    pub fn cut_by_time_limit(&self) -> &[String] {
        &self.cut_by_time_limit
    }
}

/// The default time limit of `solve` with sizes (every phase together).
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);

/// A run's deadline and what it cut.
struct Clock {
    deadline: Instant,
    cut: Vec<String>,
}

impl Clock {
    fn passed(&self) -> bool {
        Instant::now() >= self.deadline
    }
    fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
    /// Runs the simulation `what` (`f`, given the deadline, which stops it inside): its
    /// makespan, or `Some(None)` (a null figure) when the deadline had passed before it
    /// (then recorded as not run) or stopped it (recorded with how far it got).
    fn simulation(
        &mut self,
        what: &str,
        f: impl FnOnce(Instant) -> Result<Result<f64, Stopped>, StudyError>,
    ) -> Result<Option<Option<f64>>, StudyError> {
        if self.passed() {
            self.cut.push(format!("{what}: not run"));
            return Ok(Some(None));
        }
        Ok(Some(match f(self.deadline)? {
            Ok(makespan) => Some(makespan),
            Err(stopped) => {
                self.cut.push(format!("{what}: {}", stopped_at(&stopped)));
                None
            }
        }))
    }
}

/// The schedules `solve` made, for `--schedule-out` and `export mpi`.
pub struct Solved {
    /// The report.
    pub report: SolveReport,
    /// The preemptive schedule.
    pub chunked: Option<Chunked>,
    /// The non-preemptive schedule.
    pub whole: Option<Schedule>,
    /// The model, sizes and platform.
    pub loaded: Loaded,
}

/// Schedules a traffic with unequal messages: preemptive by chunks and/or non-preemptive,
/// each validated, with the time bound and each schedule's evidence, within
/// `o.request.limits.time` ([`DEFAULT_TIME_LIMIT`] when none) for every phase together:
/// the first schedule of each kind (first fit) is always made; what comes after the limit
/// (more first-fit orders, quantum candidates weighed by their schedules, the exact ILP,
/// an engine on the pieces, the simulation) is cut short or left out, and the report says
/// which (`cut_by_time_limit`). `phase` is told what runs (for progress on stderr).
pub fn solve(
    model_arg: &Path,
    a: &SizesArgs,
    o: &SolveOptions,
    solver: Solver<'_>,
    phase: &dyn Fn(&str),
) -> Result<Solved, StudyError> {
    let limit = o.request.limits.time.unwrap_or(DEFAULT_TIME_LIMIT);
    let mut clock = Clock {
        deadline: Instant::now() + limit,
        cut: Vec::new(),
    };
    phase("loading the model and the sizes");
    let l = load(model_arg, a)?;
    let (traffic, bytes, platform) = (&l.traffic, &l.sizes.bytes, &l.platform);
    check_quantum(o.quantum, bytes)?;
    let bound = time_bound(traffic, bytes, platform);
    let frame_cost_s = match &o.frame_barrier {
        Some(library) => {
            phase("predicting the runtime's barrier between frames");
            liquid_mpi::barrier_s(&l.traffic, &l.mapped, library, a.overhead)
                .map_err(crate::mpi_error)?
        }
        None => 0.0,
    };
    let mut whole_schedule = None;
    let mut non_preemptive = match o.preemption {
        Preemption::Chunks => None,
        _ => {
            let (report, s) = non_preemptive(&l, o, frame_cost_s, solver, &mut clock, phase)?;
            whole_schedule = Some(s);
            Some(report)
        }
    };
    let mut chunked = None;
    let preemptive = match o.preemption {
        Preemption::Whole => None,
        _ => {
            let whole = whole_schedule.as_ref().zip(non_preemptive.as_ref());
            let (report, c) = chunks(
                &l,
                o,
                frame_cost_s,
                &bound,
                solver,
                whole,
                &mut clock,
                phase,
            )?;
            chunked = Some(c);
            Some(report)
        }
    };
    if let (Some(w), Some(p)) = (&mut non_preemptive, &preemptive) {
        w.over_preemptive = Some(w.makespan_s / p.predicted_makespan_s);
    }
    Ok(Solved {
        report: SolveReport {
            model: traffic.name().to_string(),
            sizes: l.info.clone(),
            overhead_s: a.overhead,
            time_bound: bound,
            time_limit_s: limit.as_secs_f64(),
            cut_by_time_limit: clock.cut,
            preemptive,
            non_preemptive,
        },
        chunked,
        whole: whole_schedule,
        loaded: l,
    })
}

/// The preemptive schedule. `whole`: the non-preemptive schedule, which is a schedule of
/// pieces too when the quantum is at least the largest message (one piece each): taken
/// when its makespan is lower than the pieces' schedule's (the quantum then the largest
/// message). Every frame costs `frame_cost_s` besides its pieces (the runtime's barrier,
/// [`SolveOptions::frame_barrier`]): counted as overhead per frame in every prediction
/// here, so in the choice of the quantum too.
#[allow(clippy::too_many_arguments)]
fn chunks(
    l: &Loaded,
    o: &SolveOptions,
    frame_cost_s: f64,
    bound: &TimeBound,
    solver: Solver<'_>,
    whole: Option<(&Schedule, &WholeReport)>,
    clock: &mut Clock,
    phase: &dyn Fn(&str),
) -> Result<(ChunkReport, Chunked), StudyError> {
    let (traffic, bytes) = (&l.traffic, &l.sizes.bytes);
    // Frame times (`Chunked::frame_times`, the liquid estimate) count the platform's
    // overhead once per frame: the frame cost joins it there, and nowhere else (the time
    // bound is the traffic's, without it).
    let platform = &Platform {
        overhead: l.platform.overhead + frame_cost_s,
        ..l.platform.clone()
    };
    let lanes = lanes_of(l, o);
    let deadline = Some(clock.deadline);
    let mut chosen_schedule = None;
    let (quantum, rule, candidates) = match o.quantum {
        Some(q) => (q, "given (--quantum)".to_string(), Vec::new()),
        None => {
            phase("weighing the candidate quanta");
            let cap = piece_cap(o, traffic.len());
            let by_schedule = traffic.len() <= chunk::SCHEDULE_CANDIDATES_UP_TO;
            let choice = chunk::choose_quantum_until(
                traffic,
                bytes,
                platform,
                &lanes,
                cap,
                by_schedule,
                deadline,
            );
            if choice.cut {
                let estimated: Vec<String> = choice
                    .candidates
                    .iter()
                    .filter(|c| c.predicted_by == chunk::BY_ESTIMATE)
                    .map(|c| c.quantum.to_string())
                    .collect();
                clock.cut.push(format!(
                    "quanta {} weighed by the liquid estimate, not by their first-fit schedule",
                    estimated.join(", ")
                ));
            }
            chosen_schedule = choice.schedule;
            (
                choice.quantum,
                format!(
                    "chosen: the candidate with the lowest predicted makespan, {} (at most {} \
                     pieces per message on average)",
                    if by_schedule {
                        "that of its first-fit schedule"
                    } else {
                        "that of a liquid schedule of its pieces, each frame a full piece on \
                         the slowest route"
                    },
                    o.max_pieces_per_message
                ) + &if frame_cost_s > 0.0 {
                    format!(
                        "; every frame counted with the MPI runtime's barrier between frames \
                         ({} s, liquid's prediction of one barrier on this platform)",
                        round_significant(frame_cost_s, 4)
                    )
                } else {
                    String::new()
                },
                choice.candidates,
            )
        }
    };
    let counts: Vec<u32> = bytes.iter().map(|&b| chunk::pieces(b, quantum)).collect();
    let (_, lambda, at) = chunk::piece_loads(traffic, &counts, &lanes);
    let total: u64 = counts.iter().map(|&k| u64::from(k)).sum();
    let mut c = None;
    let mut engine = String::new();
    if o.engine.is_none() {
        let largest = bytes.iter().copied().max().unwrap_or(1);
        // Past the deadline, the non-preemptive schedule is a schedule of pieces already
        // (one per message) when the quantum may be the largest message: no first fit.
        let whole_will_do =
            clock.passed() && whole.is_some() && o.quantum.is_none_or(|q| q >= largest);
        let ff = match chosen_schedule {
            Some(ff) => Some(ff),
            None if whole_will_do => {
                clock.cut.push(
                    "first fit of the pieces: not run (the non-preemptive schedule is one)"
                        .to_string(),
                );
                None
            }
            None => {
                phase(&format!("first fit of {total} pieces"));
                let ff = chunk::first_fit_until(
                    traffic, bytes, quantum, platform, &lanes, deadline, true,
                )
                .ok_or_else(|| StudyError::internal("first fit without a schedule"))?;
                if clock.passed() {
                    clock
                        .cut
                        .push("first fit of the pieces: its later orders".to_string());
                }
                Some(ff)
            }
        };
        engine = "first-fit".into();
        c = ff;
    }
    let liquid_so_far = c.as_ref().is_some_and(|c| c.frames.len() as u64 == lambda);
    let mut run_engine = match o.engine {
        Some(e) => Some(e),
        None if !liquid_so_far && total <= ENGINE_PIECES => {
            liquid_engine::find(liquid_engine::DEFAULT_ENGINE)
        }
        None => None,
    };
    if let (Some(e), None) = (run_engine, o.engine) {
        if clock.passed() {
            clock
                .cut
                .push(format!("engine {} on the pieces: not run", e.name()));
            run_engine = None;
        }
    }
    let mut validated_by = if lanes.iter().all(|&c| c <= 1) {
        "every frame through the model's simultaneity check \
         (liquid_model::is_simultaneous), every piece once"
            .to_string()
    } else {
        "every frame through the model's validator (liquid_model::validate) with a lane per \
         message on links of several lanes, every piece once"
            .to_string()
    };
    if let Some(e) = run_engine {
        phase(&format!("engine {} on {total} pieces", e.name()));
        let (pt, origin) = chunk::pieces_traffic(traffic, &counts)
            .map_err(|e| StudyError::Failed(format!("the pieces do not make a traffic: {e}")))?;
        let mut request = o.request;
        // The rest of the run's time (an engine given by --engine runs even when none is
        // left: it makes the only schedule).
        request.limits.time = Some(clock.left().max(Duration::from_millis(1)));
        // An engine that does not take the pieces' traffic (closed-form needs a generated
        // machine's all-to-all, round-robin an all-to-all: the pieces are neither; SAT a
        // traffic it can encode) leaves the pieces' first fit below, said so with the
        // engine's reason, as an engine that gives no schedule does.
        let checked = match solver(&pt, e, &request) {
            Ok(c) => Ok(c),
            Err(liquid_engine::SolveError::Input(why)) => Err(why),
            Err(err) => return Err(err.into()),
        };
        if clock.passed() && c.is_some() {
            clock
                .cut
                .push(format!("engine {} on the pieces: stopped", e.name()));
        }
        if let Some(s) = checked.as_ref().ok().and_then(|c| c.outcome().schedule()) {
            // The gate validated it; once more, here, against the pieces traffic.
            liquid_model::validate(&pt, s).map_err(StudyError::internal)?;
            let from_engine = chunk::from_pieces_schedule(quantum, &counts, &origin, s);
            // Kept when its predicted makespan is lower (fewer frames need not be faster:
            // a frame lasts its longest piece).
            let time = |x: &Chunked| -> f64 { x.makespan(traffic, bytes, platform) };
            let better = c.as_ref().is_none_or(|c| time(&from_engine) < time(c));
            if better {
                c = Some(from_engine);
                engine = e.name().to_string();
                validated_by = "the engine gate and liquid_model::validate on the pieces \
                                traffic (004's multiplicity: a virtual link per piece)"
                    .into();
            }
        } else if c.is_none() {
            // An engine that gives no schedule of a non-liquid traffic (native, structured)
            // or stopped without one: the pieces' first fit is the schedule, said so (no
            // time limit would have helped native on non-liquid pieces).
            phase(&format!("first fit of {total} pieces"));
            c = Some(
                chunk::first_fit_until(traffic, bytes, quantum, platform, &lanes, deadline, true)
                    .ok_or_else(|| StudyError::internal("first fit without a schedule"))?,
            );
            engine = match &checked {
                Ok(checked) => format!(
                    "first-fit ({} gave no schedule of the pieces: {})",
                    e.name(),
                    checked.verdict().as_str()
                ),
                Err(why) => format!(
                    "first-fit ({} does not take the pieces' traffic: {why})",
                    e.name()
                ),
            };
        }
        if engine != e.name() && !engine.starts_with("first-fit (") {
            engine = format!("first-fit ({} found no faster schedule)", e.name());
        }
    }
    if let Some(c) = &c {
        chunk::validate(traffic, &lanes, c).map_err(StudyError::internal)?;
    }
    let mut predicted: f64 = c
        .as_ref()
        .map_or(f64::INFINITY, |c| c.makespan(traffic, bytes, platform));
    let largest = bytes.iter().copied().max().unwrap_or(1);
    let (mut quantum, mut rule, mut lambda, mut at, mut total) = (quantum, rule, lambda, at, total);
    // With the default quantum, the default engine on the messages themselves (one piece
    // each, the largest candidate) too, when the chosen quantum is another one, time is
    // left and first fit is not liquid there: a liquid schedule of the messages can be
    // faster than every first fit (fat-tree:4,3, Zipf 1 MiB per rank: 15 frames and
    // 5.04 ms against first fit's 5.19 ms at 256 KiB).
    let one: Vec<u32> = vec![1; traffic.len()];
    let one_lambda = chunk::piece_loads(traffic, &one, &lanes);
    let default_engine = liquid_engine::find(liquid_engine::DEFAULT_ENGINE);
    if let (None, None, Some(e)) = (o.engine, o.quantum, default_engine) {
        let ff_one = (quantum != largest && traffic.len() as u64 <= ENGINE_PIECES)
            .then(|| {
                chunk::first_fit_until(traffic, bytes, largest, platform, &lanes, deadline, false)
            })
            .flatten();
        if let Some(ff_one) = ff_one.filter(|f| f.frames.len() as u64 > one_lambda.1) {
            let time = |x: &Chunked| -> f64 { x.makespan(traffic, bytes, platform) };
            let mut best_one = (time(&ff_one), ff_one, "first-fit".to_string());
            // The non-preemptive schedule, when made, weighed this engine's schedule of the
            // messages already (`whole`, below).
            let from_engine = match whole {
                Some(_) => None,
                None => {
                    let what = "the messages (one piece each)";
                    let left = clock.left();
                    engine_on_messages(l, o, e, &lanes, left, what, solver, clock, phase)?
                }
            };
            if let Some(s) = &from_engine {
                let origin: Vec<(TransferId, u32)> =
                    traffic.transfer_ids().map(|t| (t, 0)).collect();
                let x = chunk::from_pieces_schedule(largest, &one, &origin, s);
                let tx = time(&x);
                if tx < best_one.0 {
                    best_one = (
                        tx,
                        x,
                        format!("{} on the messages (one piece each)", e.name()),
                    );
                }
            }
            if best_one.0 < predicted {
                chunk::validate(traffic, &lanes, &best_one.1).map_err(StudyError::internal)?;
                predicted = best_one.0;
                c = Some(best_one.1);
                engine = best_one.2;
                if engine != "first-fit" {
                    validated_by = "the engine gate and liquid_model::validate on the \
                                    traffic (one piece per message)"
                        .into();
                }
                rule = format!(
                    "{rule}; a schedule of one piece per message (the largest candidate) \
                     by {engine} was faster"
                );
                quantum = largest;
                (_, lambda, at) = one_lambda.clone();
                total = traffic.len() as u64;
            }
        }
    }
    // The non-preemptive makespan counts the same frame cost ([`non_preemptive`]).
    if let Some((s, w)) = whole.filter(|&(_, w)| w.makespan_s < predicted) {
        if o.quantum.is_none_or(|q| q >= largest) {
            let frames = s
                .frames
                .iter()
                .map(|f| {
                    let mut v: Vec<(TransferId, u32)> = f.iter().map(|&t| (t, 0)).collect();
                    v.sort();
                    v
                })
                .collect();
            let q = o.quantum.unwrap_or(largest);
            let one_each = Chunked {
                quantum: q,
                pieces: one.clone(),
                frames,
            };
            chunk::validate(traffic, &lanes, &one_each).map_err(StudyError::internal)?;
            predicted = one_each.makespan(traffic, bytes, platform);
            c = Some(one_each);
            engine = format!(
                "the non-preemptive schedule ({}): one piece per message",
                w.engine
            );
            rule = format!(
                "{rule}; the non-preemptive schedule was shorter, so one piece per message"
            );
            quantum = q;
            (_, lambda, at) = chunk::piece_loads(traffic, &one, &lanes);
            total = traffic.len() as u64;
        }
    }
    let c = c.ok_or_else(|| StudyError::internal("no schedule of the pieces"))?;
    let liquid = c.frames.len() as u64 == lambda;
    let names: Vec<String> = at
        .iter()
        .take(8)
        .map(|&l| traffic.link_name(l).to_string())
        .collect();
    let evidence = if liquid {
        format!(
            "liquid: {} frames = Λ of the pieces, which link {} carries: optimal at the \
             quantum level",
            c.frames.len(),
            names.first().map_or("", String::as_str)
        )
    } else {
        format!(
            "not proven: {} frames against Λ = {lambda} pieces on link {}",
            c.frames.len(),
            names.first().map_or("", String::as_str)
        )
    };
    let simulated = if o.simulate {
        clock.simulation("the simulation of the schedule of pieces", |deadline| {
            phase("simulating the schedule of pieces");
            simulate_chunked(l, &c, Some(deadline))
        })?
    } else {
        None
    };
    Ok((
        ChunkReport {
            quantum,
            quantum_rule: rule,
            messages: traffic.len(),
            pieces: total,
            piece_duration: lambda,
            piece_bottlenecks: names,
            piece_bottleneck_count: at.len(),
            engine,
            frames: c.frames.len(),
            liquid,
            evidence,
            validated_by,
            frame_cost_s,
            predicted_makespan_s: predicted,
            chunking_overhead_s: predicted - bound.seconds,
            over_bound: predicted / bound.seconds,
            gap: ((predicted - bound.seconds) / predicted).max(0.0),
            simulated_makespan_s: simulated,
            candidates,
        },
        c,
    ))
}

/// The non-preemptive schedule: first fit decreasing, the exact ILP on small traffics,
/// and an engine's schedule of the messages (the fewest frames) when neither proved
/// optimal, the lowest makespan kept. Every frame costs `frame_cost_s` besides its longest
/// message (the runtime's barrier, [`SolveOptions::frame_barrier`]), in every makespan and
/// bound here: with it, fewer frames can win.
fn non_preemptive(
    l: &Loaded,
    o: &SolveOptions,
    frame_cost_s: f64,
    solver: Solver<'_>,
    clock: &mut Clock,
    phase: &dyn Fn(&str),
) -> Result<(WholeReport, Schedule), StudyError> {
    let (traffic, bytes) = (&l.traffic, &l.sizes.bytes);
    // A frame lasts its longest message, overhead included: the frame cost joins the
    // overhead, so every frame pays it once.
    let platform = &Platform {
        overhead: l.platform.overhead + frame_cost_s,
        ..l.platform.clone()
    };
    let times = whole::message_times(traffic, bytes, platform);
    let lanes = lanes_of(l, o);
    let fb = whole::frame_bound(traffic, &lanes, &times);
    phase(&format!(
        "first fit decreasing of {} whole messages",
        traffic.len()
    ));
    let ffd = whole::first_fit_decreasing(traffic, &lanes, &times);
    whole::validate(traffic, &lanes, &ffd).map_err(StudyError::internal)?;
    let mut best = (
        whole::makespan(&ffd, &times),
        ffd,
        "first-fit-decreasing".to_string(),
    );
    let fb_by = if fb.links.is_empty() {
        "frame bound: the longest message alone".to_string()
    } else {
        format!(
            "frame bound: link {} (the sum of the times of the messages crossing it)",
            traffic.link_name(fb.links[0])
        )
    };
    let (mut lb, mut lb_by) = (fb.seconds, fb_by.clone());
    let mut ilp = None;
    let mut optimal_by = None;
    let at_frame_bound_already = best.0 <= fb.seconds * (1.0 + 1e-12);
    if traffic.len() <= o.exact_max && !at_frame_bound_already && clock.passed() {
        clock
            .cut
            .push("the exact ILP of the non-preemptive schedule: not run".into());
    } else if traffic.len() <= o.exact_max && !at_frame_bound_already {
        // Half of the time left when the preemptive schedule comes next, all of it else.
        let left = clock.left();
        let limit = if o.preemption == Preemption::Both {
            left / 2
        } else {
            left
        };
        phase(&format!(
            "exact ILP of {} whole messages (HiGHS)",
            traffic.len()
        ));
        let started = Instant::now();
        let e = whole::exact(traffic, &lanes, &times, limit, o.exact_max, Some(&best.1))
            .map_err(StudyError::internal)?;
        let time_s = started.elapsed().as_secs_f64();
        if let Some(s) = &e.schedule {
            whole::validate(traffic, &lanes, s).map_err(StudyError::internal)?;
            let m = whole::makespan(s, &times);
            if m < best.0 {
                best = (m, s.clone(), "ilp".to_string());
            }
        }
        // HiGHS's "optimal" within its tolerances, held to its own dual bound: only a
        // bound at the best makespan (up to rounding) settles it; else the gap is stated.
        let proven = e.optimal && e.dual_bound >= best.0 * (1.0 - 1e-9);
        if proven {
            optimal_by = Some(format!(
                "HiGHS proved the ILP optimal (MIP gap 0): the solver's word, not \
                 independently checked; the frame bound is {:.6} s",
                fb.seconds
            ));
            if e.dual_bound > lb {
                (lb, lb_by) = (
                    e.dual_bound.min(best.0),
                    "HiGHS's dual bound (the solver's word)".into(),
                );
            }
        } else if e.dual_bound.is_finite() && e.dual_bound > lb {
            (lb, lb_by) = (
                e.dual_bound,
                "HiGHS's dual bound (the solver's word)".into(),
            );
        }
        if !proven && e.status.contains("Time") {
            clock.cut.push(format!(
                "the exact ILP of the non-preemptive schedule: stopped ({})",
                e.status
            ));
        }
        ilp = Some(IlpReport {
            status: e.status,
            columns: e.size.0,
            rows: e.size.1,
            dual_bound_s: e.dual_bound,
            time_s,
        });
    }
    // An engine's schedule of the messages (the fewest frames: Λ when liquid), when
    // neither the frame bound nor the ILP settled it and first fit took more frames: a
    // frame lasts its longest message, so more, shorter frames can be faster, and fewer
    // frames can (with a cost per frame, fat-tree:8,3 at 1 KiB per rank: 127 frames of the
    // default engine against first fit decreasing's 193).
    let ones = vec![1u32; traffic.len()];
    let (_, lambda, _) = chunk::piece_loads(traffic, &ones, &lanes);
    let settled = best.0 <= fb.seconds * (1.0 + 1e-12) || optimal_by.is_some();
    let engine = o
        .engine
        .or_else(|| liquid_engine::find(liquid_engine::DEFAULT_ENGINE));
    if let (false, true, Some(e)) = (settled, best.1.len() as u64 > lambda, engine) {
        let left = clock.left();
        let time = if o.preemption == Preemption::Both {
            left / 2
        } else {
            left
        };
        let what = "the whole messages";
        if let Some(s) = engine_on_messages(l, o, e, &lanes, time, what, solver, clock, phase)? {
            let m = whole::makespan(&s, &times);
            if m < best.0 {
                best = (m, s, e.name().to_string());
            }
        }
    }
    // The frame bound proves optimality by itself when the schedule reaches it.
    let at_frame_bound = best.0 <= fb.seconds * (1.0 + 1e-12);
    let (optimal, evidence) = if at_frame_bound {
        (
            true,
            format!("the makespan equals the {fb_by}: optimal, checkable"),
        )
    } else if let Some(by) = optimal_by {
        (true, by)
    } else {
        (
            false,
            format!(
                "not proven: the best lower bound is {lb_by}{}",
                if traffic.len() > o.exact_max {
                    format!(
                        "; the exact ILP takes at most {} messages (--exact-max)",
                        o.exact_max
                    )
                } else {
                    String::new()
                }
            ),
        )
    };
    let (makespan, schedule, engine) = best;
    let gap = if optimal {
        0.0
    } else {
        (makespan - lb).max(0.0) / makespan
    };
    let simulated = if o.simulate {
        clock.simulation(
            "the simulation of the non-preemptive schedule",
            |deadline| {
                phase("simulating the non-preemptive schedule");
                simulate_whole(l, &schedule, Some(deadline))
            },
        )?
    } else {
        None
    };
    Ok((
        WholeReport {
            engine,
            frame_cost_s,
            frames: schedule.len(),
            makespan_s: makespan,
            lower_bound_s: if optimal { makespan } else { lb },
            lower_bound_by: if optimal && !at_frame_bound {
                "the optimum (HiGHS)".into()
            } else {
                lb_by
            },
            gap,
            optimal,
            evidence,
            ilp,
            simulated_makespan_s: simulated,
            over_preemptive: None,
        },
        schedule,
    ))
}

/// Runs engine `e` on the messages themselves within `time` (1 ms at least), unless the
/// deadline has passed: its schedule, which the engine gate validated, validated once more
/// here with the lanes. `what` names the run in `cut_by_time_limit` (not run, stopped).
#[allow(clippy::too_many_arguments)]
fn engine_on_messages(
    l: &Loaded,
    o: &SolveOptions,
    e: &'static dyn liquid_engine::Engine,
    lanes: &[u32],
    time: Duration,
    what: &str,
    solver: Solver<'_>,
    clock: &mut Clock,
    phase: &dyn Fn(&str),
) -> Result<Option<Schedule>, StudyError> {
    if clock.passed() {
        clock
            .cut
            .push(format!("engine {} on {what}: not run", e.name()));
        return Ok(None);
    }
    phase(&format!(
        "engine {} on {what} ({} messages)",
        e.name(),
        l.traffic.len()
    ));
    let mut request = o.request;
    request.limits.time = Some(time.max(Duration::from_millis(1)));
    let checked = solver(&l.traffic, e, &request)?;
    if clock.passed() {
        clock
            .cut
            .push(format!("engine {} on {what}: stopped", e.name()));
    }
    let Some(s) = checked.outcome().schedule() else {
        return Ok(None);
    };
    whole::validate(&l.traffic, lanes, s).map_err(StudyError::internal)?;
    Ok(Some(s.clone()))
}

/// The steps of a chunked schedule for the simulator: one per frame, each piece a message
/// on its transfer's route, a barrier between frames.
pub fn chunked_plan(l: &Loaded, c: &Chunked) -> liquid_sim::Plan {
    let steps = c
        .frames
        .iter()
        .enumerate()
        .map(|(f, frame)| liquid_sim::Step {
            after: if f == 0 { vec![] } else { vec![f - 1] },
            delay: 0.0,
            messages: frame
                .iter()
                .map(|&(t, i)| liquid_sim::Message {
                    route: l.mapped.routes[t.index()].clone(),
                    bytes: chunk::piece_bytes(l.sizes.bytes[t.index()], c.quantum, i) as f64,
                    transfer: Some(t),
                })
                .collect(),
            group: Some(f),
        })
        .collect();
    liquid_sim::Plan { steps }
}

/// The makespan of `plan` on the flow-level simulator, or (`Err`) how far it got when
/// `deadline` came first.
fn run(
    l: &Loaded,
    plan: &liquid_sim::Plan,
    deadline: Option<Instant>,
) -> Result<Result<f64, Stopped>, StudyError> {
    let opts = liquid_sim::Options {
        overhead: l.platform.overhead,
        trace: false,
    };
    let transport = liquid_sim::Transport::default();
    let run =
        crate::simulate::run_within(&l.mapped.platform, plan, &opts, &transport, deadline, None)
            .map_err(StudyError::internal)?;
    Ok(run.map(|r| r.makespan))
}

/// Where the time limit stopped a simulation, for `cut_by_time_limit` and the notes of
/// `crosscheck --sizes` (steps are frames here).
fn stopped_at(s: &Stopped) -> String {
    format!(
        "stopped at {} s of simulated time ({} of {} frames, {} of {} messages done)",
        round_significant(s.simulated_s, 4),
        s.steps_done,
        s.steps,
        s.messages_done,
        s.messages
    )
}

fn simulate_chunked(
    l: &Loaded,
    c: &Chunked,
    deadline: Option<Instant>,
) -> Result<Result<f64, Stopped>, StudyError> {
    run(l, &chunked_plan(l, c), deadline)
}

fn simulate_whole(
    l: &Loaded,
    s: &Schedule,
    deadline: Option<Instant>,
) -> Result<Result<f64, Stopped>, StudyError> {
    let sizes: Vec<f64> = l.sizes.bytes.iter().map(|&b| b as f64).collect();
    let plan = liquid_sim::from_schedule(
        &l.traffic,
        &l.mapped.routes,
        &sizes,
        s,
        liquid_sim::Mode::Frames,
    )
    .map_err(StudyError::internal)?;
    run(l, &plan, deadline)
}

/// What `liquid generate sizes` writes: a `src,dst,bytes` CSV, with how many senders have
/// more destinations than bytes ([`liquid_alltoallv::generate::Generated::short`]).
pub fn generate(
    model_arg: &Path,
    dist: &Dist,
    bytes_per_rank: u64,
    seed: u64,
) -> Result<(String, usize), StudyError> {
    let traffic = crate::input::load_traffic(model_arg)?;
    let g = liquid_alltoallv::generate::generate(&traffic, dist, bytes_per_rank, seed)
        .map_err(|e| StudyError::Input(e.to_string()))?;
    let csv = liquid_alltoallv::sizes::to_csv(&traffic, &g.bytes).ok_or_else(|| {
        StudyError::Input(format!(
            "model {:?} has transfers without hosts: sizes are written per pair",
            traffic.name()
        ))
    })?;
    Ok((csv, g.short))
}

/// The schedule of pieces as YAML, with the quantum: each piece `ID#k`, piece k (from 1)
/// of message ID, a message of one piece too (`ID#1`), so that the piece number after
/// the last `#` names it whatever the ids hold (`m#1` is piece 1 of `m`, `m#1#1` the
/// message `m#1`).
pub fn pieces_yaml(traffic: &Traffic, c: &Chunked) -> String {
    let mut out = format!(
        "# pieces of {} bytes (the last of a message: the rest), frame by frame; ID#k is \
         piece k of message ID\nquantum: {}\ntimeframes:\n",
        c.quantum, c.quantum
    );
    for f in &c.frames {
        let names: Vec<String> = f
            .iter()
            .map(|&(t, i)| {
                let id = traffic.transfer_name(t);
                liquid_model::yaml::scalar(&liquid_model::network::copy_id(id, u64::from(i) + 1))
            })
            .collect();
        out.push_str(&format!("  - [{}]\n", names.join(", ")));
    }
    out
}

/// `liquid export mpi MODEL --sizes FILE --plan pieces|whole [--mode frames|async]`: the
/// preemptive schedule by chunks (each piece a message of its slice of the pair's data) or
/// the non-preemptive one (each message whole, frames of unequal length), made as `solve`
/// makes it (`o.preemption`: [`Preemption::Chunks`] or [`Preemption::Whole`]), for the
/// MPI runtime, run in `mode` (frame by frame with a barrier between frames, or async: no
/// barrier, each rank's messages in schedule order, each a synchronous send), with
/// liquid's prediction of the run. The schedule is made within `o.request.limits.time`
/// ([`DEFAULT_TIME_LIMIT`] when none), the whole command, the prediction included, within
/// `limit` from the start (the prediction stops at what the schedule left of it).
#[allow(clippy::too_many_arguments)]
pub fn export_mpi(
    model_arg: &Path,
    a: &SizesArgs,
    o: &SolveOptions,
    limit: Duration,
    mode: liquid_mpi::program::ScheduleMode,
    library: liquid_mpi::RuntimeModel,
    out: &Path,
    solver: Solver<'_>,
    phase: &dyn Fn(&str),
) -> Result<liquid_mpi::Exported, StudyError> {
    if o.preemption == Preemption::Both {
        return Err(StudyError::internal("export one schedule: pieces or whole"));
    }
    // The command's limit bounds the prediction too, whatever the solve leaves of it.
    let deadline = Instant::now().checked_add(limit);
    let solved = solve(model_arg, a, o, solver, phase)?;
    let l = &solved.loaded;
    // As `simulate` and `export mpi` of a schedule say it (the plan's files do not).
    if let Some(size) = a.size {
        note_defaulted(l.info.defaulted, l.info.messages, &l.info.file, size);
    }
    let sizes: Vec<f64> = l.sizes.bytes.iter().map(|&b| b as f64).collect();
    let mut input = liquid_mpi::ExportInput {
        traffic: &l.traffic,
        mapped: &l.mapped,
        sizes: &sizes,
        schedule: None,
        kind: liquid_mpi::PlanKind::Schedule(mode),
        overhead: a.overhead,
        library,
        phase_schedule: None,
        budget: liquid_mpi::Budget {
            deadline,
            progress: Some(phase),
        },
    };
    let dir = crate::outdir::prepare(out)?;
    let exported = match (&solved.chunked, &solved.whole, &solved.report) {
        (Some(c), _, r) => {
            let p = r
                .preemptive()
                .ok_or_else(|| StudyError::internal("no report"))?;
            let weigh = mode != liquid_mpi::program::ScheduleMode::Frames && o.quantum.is_none();
            let weighed = if weigh {
                weigh_by_run(l, o, c, &p.engine, &input, phase)?
            } else {
                None
            };
            match weighed {
                Some(w) => {
                    let frames = piece_frames(&w.chunked, &l.sizes.bytes);
                    liquid_mpi::export_pieces_predicted(&input, &frames, w.run, w.source, out)
                        .map_err(crate::mpi_error)?
                }
                None => {
                    let mut source = format!(
                        "pieces of {} bytes ({} pieces of {} messages), {} frames, by {}",
                        c.quantum, p.pieces, p.messages, p.frames, p.engine
                    );
                    if p.frame_cost_s > 0.0 {
                        source += &format!(
                            "; each frame counted with the runtime's barrier, {} s",
                            round_significant(p.frame_cost_s, 4)
                        );
                    }
                    if weigh {
                        source += "; solve's quantum: the time limit came before any quantum \
                                   was weighed by its run without barriers";
                    }
                    let frames = piece_frames(c, &l.sizes.bytes);
                    liquid_mpi::export_pieces(&input, &frames, source, out)
                        .map_err(crate::mpi_error)?
                }
            }
        }
        (None, Some(w), r) => {
            let p = r
                .non_preemptive()
                .ok_or_else(|| StudyError::internal("no report"))?;
            let mut source = format!(
                "every message whole, {} frames of unequal length, by {}",
                p.frames, p.engine
            );
            if p.frame_cost_s > 0.0 {
                source += &format!(
                    "; each frame counted with the runtime's barrier, {} s",
                    round_significant(p.frame_cost_s, 4)
                );
            }
            input.schedule = Some((w, source));
            liquid_mpi::export(&input, out).map_err(crate::mpi_error)?
        }
        _ => return Err(StudyError::internal("no schedule to export")),
    };
    dir.finish()?;
    Ok(exported)
}

/// A schedule of pieces as the MPI runtime takes it: per frame, (transfer, offset, length)
/// of every piece.
fn piece_frames(c: &Chunked, bytes: &[u64]) -> Vec<Vec<liquid_mpi::PieceOf>> {
    c.frames
        .iter()
        .map(|f| {
            f.iter()
                .map(|&(t, i)| {
                    let len = chunk::piece_bytes(bytes[t.index()], c.quantum, i);
                    (t.index(), u64::from(i) * c.quantum, len)
                })
                .collect()
        })
        .collect()
}

/// The schedule of pieces [`weigh_by_run`] chose, its run's prediction and where it came
/// from.
struct WeighedByRun {
    chunked: Chunked,
    run: liquid_mpi::RunPredicted,
    source: String,
}

/// The default quantum of a run without barriers (`--mode async`), weighed by what the
/// run costs: each candidate quantum of [`chunk::candidate_quanta`] (at most
/// `o.max_pieces_per_message` pieces per message on average, and `solved`'s own) is
/// scheduled (`solved` itself at its quantum, first fit at the others), the schedule
/// validated, and its run predicted as `export mpi` predicts it ([`liquid_mpi::predict_pieces`]:
/// each rank's pieces in frame order, each a synchronous send); the lowest predicted run is
/// kept (the larger quantum on a tie). The frames' sum that chose `solved`'s quantum is no
/// measure of such a run: nothing holds the ranks to the frames, and every piece costs its
/// sender a wait. Candidates are weighed from the largest quantum down (the fewest pieces,
/// the quickest first) until the deadline; `None` when it came before the first was weighed.
fn weigh_by_run(
    l: &Loaded,
    o: &SolveOptions,
    solved: &Chunked,
    solved_by: &str,
    input: &liquid_mpi::ExportInput<'_>,
    phase: &dyn Fn(&str),
) -> Result<Option<WeighedByRun>, StudyError> {
    let (traffic, bytes) = (&l.traffic, &l.sizes.bytes);
    let lanes = lanes_of(l, o);
    let cap = piece_cap(o, traffic.len());
    let mut quanta = chunk::candidate_quanta(bytes, cap);
    quanta.push(solved.quantum);
    quanta.sort_unstable_by(|a, b| b.cmp(a));
    quanta.dedup();
    let deadline = input.budget.deadline;
    let passed = || deadline.is_some_and(|d| Instant::now() >= d);
    let mut best: Option<(f64, Chunked, liquid_mpi::RunPredicted, String)> = None;
    let mut weighed: Vec<String> = Vec::new();
    let mut left: Vec<u64> = Vec::new();
    for &q in &quanta {
        if passed() || !left.is_empty() {
            left.push(q);
            continue;
        }
        let (c, by) = if q == solved.quantum {
            (solved.clone(), solved_by.to_string())
        } else {
            phase(&format!("first fit at a quantum of {q} bytes"));
            match chunk::first_fit_until(traffic, bytes, q, &l.platform, &lanes, deadline, false) {
                Some(c) => (c, "first-fit".to_string()),
                None => {
                    left.push(q);
                    continue;
                }
            }
        };
        chunk::validate(traffic, &lanes, &c).map_err(StudyError::internal)?;
        phase(&format!(
            "predicting the run at a quantum of {q} bytes ({} pieces)",
            c.total_pieces()
        ));
        let run = liquid_mpi::predict_pieces(input, &piece_frames(&c, bytes))
            .map_err(crate::mpi_error)?;
        let Some(t) = run.prediction.total_s else {
            left.push(q);
            continue;
        };
        weighed.push(format!(
            "{q} B ({} pieces, {} frames, by {by}) {} s",
            c.total_pieces(),
            c.frames.len(),
            round_significant(t, 4)
        ));
        if best.as_ref().is_none_or(|b| t < b.0) {
            best = Some((t, c, run, by));
        }
    }
    let Some((_, chunked, run, by)) = best else {
        return Ok(None);
    };
    let mut source = format!(
        "pieces of {} bytes ({} pieces of {} messages), {} frames, by {by}; the quantum \
         with the lowest predicted run without barriers, of {}: {}",
        chunked.quantum,
        chunked.total_pieces(),
        traffic.len(),
        chunked.frames.len(),
        weighed.len(),
        weighed.join(", ")
    );
    if !left.is_empty() {
        let left: Vec<String> = left.iter().map(u64::to_string).collect();
        source += &format!(
            "; not weighed, the time limit came first: {} B",
            left.join(" B, ")
        );
    }
    Ok(Some(WeighedByRun {
        chunked,
        run,
        source,
    }))
}

/// What `liquid verify MODEL SCHEDULE --sizes FILE` adds: the schedule's time with these
/// sizes, run frame by frame with every message whole (each frame as long as its longest
/// message), against the time bound and the frame bound.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleTime {
    sizes: SizesInfo,
    overhead_s: f64,
    /// The sum of the frames' lengths, seconds.
    makespan_s: f64,
    /// The time bound (every schedule, preemptive or not).
    time_bound: TimeBound,
    /// The frame bound of non-preemptive schedules, seconds, and its link.
    frame_bound_s: f64,
    frame_bound_by: String,
    /// makespan / time bound.
    over_bound: f64,
    /// (makespan - frame bound) / makespan: 0 proves the schedule optimal among
    /// non-preemptive ones.
    gap_to_frame_bound: f64,
}

/// The time of a (valid) schedule of the model with its sizes, its frames given by
/// transfer ids (the model is loaded again here, with its platform).
pub fn schedule_time(
    model_arg: &Path,
    a: &SizesArgs,
    frames: &[Vec<String>],
) -> Result<ScheduleTime, StudyError> {
    let l = load(model_arg, a)?;
    let (traffic, bytes, platform) = (&l.traffic, &l.sizes.bytes, &l.platform);
    let mut ids = Vec::with_capacity(frames.len());
    for f in frames {
        let mut frame = Vec::with_capacity(f.len());
        for name in f {
            frame.push(traffic.find_transfer(name).ok_or_else(|| {
                StudyError::internal(format!(
                    "transfer {name:?} of the schedule is not in the model"
                ))
            })?);
        }
        ids.push(frame);
    }
    let schedule = &Schedule::new(ids);
    let times = whole::message_times(traffic, bytes, platform);
    let makespan = whole::makespan(schedule, &times);
    let fb = whole::frame_bound(traffic, &vec![1; traffic.num_links()], &times);
    let bound = time_bound(traffic, bytes, platform);
    Ok(ScheduleTime {
        sizes: l.info.clone(),
        overhead_s: a.overhead,
        makespan_s: makespan,
        over_bound: makespan / bound.seconds,
        time_bound: bound,
        frame_bound_s: fb.seconds,
        frame_bound_by: fb
            .links
            .first()
            .map_or("the longest message alone".to_string(), |&x| {
                format!("link {}", traffic.link_name(x))
            }),
        gap_to_frame_bound: ((makespan - fb.seconds) / makespan).max(0.0),
    })
}

/// One schedule `liquid crosscheck --sizes` made, and what its checks found.
#[derive(Debug, Clone, Serialize)]
pub struct CrossRow {
    /// What made it: `first-fit`, `first-fit-decreasing`, `ilp`, or an engine of the
    /// registry on the pieces traffic (`pieces`) or on the traffic of whole messages.
    pub by: String,
    /// `pieces` (at the report's quantum) or `whole` (every message whole).
    pub kind: &'static str,
    /// Timeframes, when a schedule was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<usize>,
    /// Its predicted makespan (the sum of its frames' times), seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_s: Option<f64>,
    /// Its makespan on the flow-level simulator, frame by frame, seconds (absent: not
    /// simulated; `Some(None)`, null: the time limit stopped the simulation, the note says
    /// where).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_s: Option<Option<f64>>,
    /// Whether every check of this row passed (a row without a schedule passes).
    pub ok: bool,
    /// What was checked, or what failed, or why there is no schedule.
    pub note: String,
}

/// `liquid crosscheck MODEL --sizes FILE`: every path that schedules with sizes on one
/// model, checked against each other.
#[derive(Debug, Clone, Serialize)]
pub struct CrossReport {
    model: String,
    sizes: SizesInfo,
    overhead_s: f64,
    time_bound: TimeBound,
    /// The link part of the bound recomputed on the simulator's platform (its routes and
    /// link bandwidths), seconds.
    link_bound_on_simulator_s: f64,
    /// Every message posted at once on the flow-level simulator, seconds (null when the
    /// time limit stopped the simulation: `cut_by_time_limit` says where).
    all_at_once_s: Option<f64>,
    /// The frame bound of non-preemptive schedules, seconds.
    frame_bound_s: f64,
    /// The quantum of the schedules of pieces, and Λ of its pieces.
    quantum: u64,
    piece_duration: u64,
    /// The schedules.
    rows: Vec<CrossRow>,
    /// The simulations the time limit stopped (each within --time-limit, as each engine
    /// run), and where: their figures are null and their comparisons not made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cut_by_time_limit: Vec<String>,
    /// Every disagreement found (empty: all agree).
    pub contradictions: Vec<String>,
}

impl CrossReport {
    /// Whether every path agreed and every schedule checked.
    pub fn agreed(&self) -> bool {
        self.contradictions.is_empty()
    }

    /// A table for people: one line per schedule, then the verdict.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} with sizes {} ({} messages): time bound {:.6} s ({}), on the simulator's \
             links {:.6} s; all at once {}; frame bound {:.6} s; quantum {} (Λ of the \
             pieces {})\n",
            self.model,
            self.sizes.file,
            self.sizes.messages,
            self.time_bound.seconds,
            self.time_bound.by,
            self.link_bound_on_simulator_s,
            self.all_at_once_s
                .map_or("stopped by the time limit".to_string(), |t| format!(
                    "{t:.6} s"
                )),
            self.frame_bound_s,
            self.quantum,
            self.piece_duration
        );
        out.push_str(&format!(
            "{:<28} {:<6} {:>7} {:>12} {:>12}  {:<4} note\n",
            "by", "kind", "frames", "predicted s", "simulated s", "ok"
        ));
        let num = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.6}"));
        for r in &self.rows {
            out.push_str(&format!(
                "{:<28} {:<6} {:>7} {:>12} {:>12}  {:<4} {}\n",
                r.by,
                r.kind,
                r.frames.map_or("-".to_string(), |f| f.to_string()),
                num(r.predicted_s),
                num(r.simulated_s.flatten()),
                if r.ok { "yes" } else { "NO" },
                r.note
            ));
        }
        for c in &self.cut_by_time_limit {
            out.push_str(&format!("not compared: {c}\n"));
        }
        if self.contradictions.is_empty() {
            let simulated = self
                .rows
                .iter()
                .filter(|r| r.simulated_s.flatten().is_some())
                .count();
            out.push_str(&match (self.cut_by_time_limit.len(), simulated) {
                (0, _) => "agreed: every schedule valid, every time at or above its bound, \
                           every prediction the simulator's\n"
                    .to_string(),
                (cut, 0) => format!(
                    "agreed: every schedule valid, every time at or above its bound; no \
                     prediction compared with the simulator ({cut} stopped by the time limit)\n"
                ),
                (cut, n) => format!(
                    "agreed: every schedule valid, every time at or above its bound; the {n} \
                     predictions simulated to their end are the simulator's ({cut} stopped by \
                     the time limit)\n"
                ),
            });
        } else {
            for c in &self.contradictions {
                out.push_str(&format!("contradiction: {c}\n"));
            }
        }
        out
    }
}

/// Relative agreement of two times.
fn same_time(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
}

/// `liquid crosscheck MODEL --sizes FILE`: the time bound by liquid's bound and on the
/// simulator's platform; schedules of pieces at the quantum (`o.quantum`, else the
/// default) by first fit and by each of `engines` on the pieces traffic; schedules of
/// whole messages by first fit decreasing, the exact ILP (at most `o.exact_max`
/// messages) and each engine on the traffic of whole messages (one frame per
/// timeframe, each as long as its longest message). Every schedule is validated by the
/// model's checks and run on the flow-level simulator. They agree when every schedule is
/// valid, none beats the bound it must respect (the time bound; Λ of the pieces in
/// frames; the frame bound for whole messages; an ILP optimum HiGHS proved), every
/// prediction is the simulator's makespan, all at once on the simulator is not below the
/// link bound, and the two computations of the bound are equal. `o.request` bounds each
/// engine run and each simulation ([`DEFAULT_TIME_LIMIT`] when it has no time limit): a
/// simulation stopped by it has a null figure, is compared with nothing, and is listed in
/// `cut_by_time_limit`.
pub fn crosscheck(
    model_arg: &Path,
    a: &SizesArgs,
    o: &SolveOptions,
    engines: &[&'static dyn liquid_engine::Engine],
    solver: Solver<'_>,
) -> Result<CrossReport, StudyError> {
    let l = load(model_arg, a)?;
    let (traffic, bytes, platform) = (&l.traffic, &l.sizes.bytes, &l.platform);
    check_quantum(o.quantum, bytes)?;
    let ones = vec![1u32; traffic.num_links()];
    let bound = time_bound(traffic, bytes, platform);
    let mut contradictions = Vec::new();
    // Each simulation within the limit of an engine run.
    let sim_limit = Some(o.request.limits.time.unwrap_or(DEFAULT_TIME_LIMIT));
    let mut cut = Vec::new();
    // The link bound again, from the simulator's routes and links.
    let links = l.mapped.platform.links();
    let mut on_link = vec![0f64; links.len()];
    for (t, route) in l.mapped.routes.iter().enumerate() {
        for &k in route {
            on_link[k as usize] += bytes[t] as f64;
        }
    }
    let sim_bound = on_link
        .iter()
        .zip(links)
        .map(|(b, k)| b / k.bandwidth)
        .fold(0.0, f64::max);
    if !same_time(sim_bound, bound.link_seconds) {
        contradictions.push(format!(
            "the link bound is {} s by liquid's bound and {sim_bound} s on the simulator's links",
            bound.link_seconds
        ));
    }
    let sizes_f: Vec<f64> = bytes.iter().map(|&b| b as f64).collect();
    let all = Schedule::new(vec![traffic.transfer_ids().collect()]);
    let plan = liquid_sim::from_schedule(
        traffic,
        &l.mapped.routes,
        &sizes_f,
        &all,
        liquid_sim::Mode::AllAtOnce,
    )
    .map_err(StudyError::internal)?;
    let all_at_once = match run(&l, &plan, crate::simulate::deadline_in(sim_limit))? {
        Ok(t) => Some(t),
        Err(stopped) => {
            cut.push(format!(
                "all at once on the simulator: {}",
                stopped_at(&stopped)
            ));
            None
        }
    };
    if let Some(t) = all_at_once.filter(|&t| t < bound.link_seconds * (1.0 - 1e-9)) {
        contradictions.push(format!(
            "all at once takes {t} s on the simulator, below the link bound {} s",
            bound.link_seconds
        ));
    }
    let quantum = match o.quantum {
        Some(q) => q,
        None => {
            let cap = piece_cap(o, traffic.len());
            chunk::choose_quantum(traffic, bytes, platform, &ones, cap).0
        }
    };
    let counts: Vec<u32> = bytes.iter().map(|&b| chunk::pieces(b, quantum)).collect();
    let (_, lambda, _) = chunk::piece_loads(traffic, &counts, &ones);
    let mut rows = Vec::new();
    // A schedule of pieces: validated, at least Λ_p frames, at or above the bound, and
    // the simulator's makespan is the prediction.
    let check_pieces = |by: String,
                        c: &Chunked,
                        extra: &str,
                        rows: &mut Vec<CrossRow>,
                        cut: &mut Vec<String>| {
        let mut notes = Vec::new();
        if let Err(e) = chunk::validate(traffic, &ones, c) {
            notes.push(e.to_string());
        }
        let lp = chunk::piece_loads(traffic, &c.pieces, &ones).1;
        if (c.frames.len() as u64) < lp {
            notes.push(format!(
                "{} frames, below Λ = {lp} of its pieces",
                c.frames.len()
            ));
        }
        let predicted: f64 = c.makespan(traffic, bytes, platform);
        if predicted < bound.seconds * (1.0 - 1e-9) {
            notes.push(format!("predicted {predicted} s, below the time bound"));
        }
        let mut stopped = None;
        let simulated = if notes.is_empty() {
            match simulate_chunked(&l, c, crate::simulate::deadline_in(sim_limit))? {
                Ok(s) => {
                    if !same_time(s, predicted) {
                        notes.push(format!(
                            "simulated {s} s against the predicted {predicted} s"
                        ));
                    }
                    Some(Some(s))
                }
                Err(s) => {
                    let at = stopped_at(&s);
                    cut.push(format!("{by} (pieces): the simulation {at}"));
                    stopped = Some(at);
                    Some(None)
                }
            }
        } else {
            None
        };
        let ok = notes.is_empty();
        rows.push(CrossRow {
            by,
            kind: "pieces",
            frames: Some(c.frames.len()),
            predicted_s: Some(predicted),
            simulated_s: simulated,
            ok,
            note: match (ok, stopped) {
                (true, None) => format!("valid{extra}, frames >= Λ of the pieces, at or above the bound, simulated = predicted"),
                (true, Some(at)) => format!("valid{extra}, frames >= Λ of the pieces, at or above the bound; the simulation {at}: not compared"),
                (false, _) => notes.join("; "),
            },
        });
        Ok::<(), StudyError>(())
    };
    let ff = chunk::first_fit(traffic, bytes, quantum, platform, &ones);
    check_pieces("first-fit".into(), &ff, "", &mut rows, &mut cut)?;
    // Engines on the pieces traffic (at the quantum) and on the whole messages (one
    // piece each); an engine's schedule is also checked by liquid_model::validate.
    let times = whole::message_times(traffic, bytes, platform);
    let fb = whole::frame_bound(traffic, &ones, &times);
    let mut whole_schedules: Vec<(String, Schedule)> = Vec::new();
    let one: Vec<u32> = vec![1; traffic.len()];
    for (kind, cs) in [("pieces", &counts), ("whole", &one)] {
        let total: u64 = cs.iter().map(|&k| u64::from(k)).sum();
        let (pt, origin) = chunk::pieces_traffic(traffic, cs)
            .map_err(|e| StudyError::Failed(format!("the pieces do not make a traffic: {e}")))?;
        for &e in engines {
            let by = format!(
                "{} on {}",
                e.name(),
                if kind == "pieces" {
                    "the pieces"
                } else {
                    "whole messages"
                }
            );
            if kind == "pieces" && total > ENGINE_PIECES {
                rows.push(CrossRow {
                    by,
                    kind,
                    frames: None,
                    predicted_s: None,
                    simulated_s: None,
                    ok: true,
                    note: format!("not run: {total} pieces (more than {ENGINE_PIECES})"),
                });
                continue;
            }
            let checked = match solver(&pt, e, &o.request) {
                Ok(c) => c,
                Err(err @ liquid_engine::SolveError::Wrong { .. }) => {
                    rows.push(CrossRow {
                        by,
                        kind,
                        frames: None,
                        predicted_s: None,
                        simulated_s: None,
                        ok: false,
                        note: err.to_string(),
                    });
                    continue;
                }
                Err(err) => {
                    rows.push(CrossRow {
                        by,
                        kind,
                        frames: None,
                        predicted_s: None,
                        simulated_s: None,
                        ok: true,
                        note: format!("did not run: {err}"),
                    });
                    continue;
                }
            };
            let Some(s) = checked.outcome().schedule() else {
                rows.push(CrossRow {
                    by,
                    kind,
                    frames: None,
                    predicted_s: None,
                    simulated_s: None,
                    ok: true,
                    note: format!("no schedule ({})", checked.verdict().as_str()),
                });
                continue;
            };
            let model_check = liquid_model::validate(&pt, s).err().map(|e| e.to_string());
            if kind == "pieces" {
                let c = chunk::from_pieces_schedule(quantum, &counts, &origin, s);
                check_pieces(
                    by,
                    &c,
                    ", also by liquid_model::validate on the pieces traffic",
                    &mut rows,
                    &mut cut,
                )?;
                if let (Some(e), Some(r)) = (model_check, rows.last_mut()) {
                    r.ok = false;
                    r.note = format!("liquid_model::validate on the pieces traffic: {e}");
                }
            } else {
                let w = Schedule::new(
                    s.frames
                        .iter()
                        .map(|f| f.iter().map(|p| origin[p.index()].0).collect())
                        .collect(),
                );
                whole_schedules.push((by, w));
            }
        }
    }
    let ffd = whole::first_fit_decreasing(traffic, &ones, &times);
    whole_schedules.insert(0, ("first-fit-decreasing".into(), ffd));
    let mut ilp_optimum = None;
    if traffic.len() <= o.exact_max {
        let limit = o.request.limits.time.unwrap_or(DEFAULT_TIME_LIMIT);
        match whole::exact(traffic, &ones, &times, limit, o.exact_max, None) {
            Ok(e) => {
                if let Some(s) = e.schedule {
                    if e.optimal {
                        ilp_optimum = Some(whole::makespan(&s, &times));
                    }
                    whole_schedules.insert(1, (format!("ilp ({})", e.status), s));
                }
            }
            Err(e) => contradictions.push(format!("the exact ILP failed: {e}")),
        }
    }
    for (by, s) in whole_schedules {
        let mut notes = Vec::new();
        if let Err(e) = whole::validate(traffic, &ones, &s) {
            notes.push(e);
        }
        let m = whole::makespan(&s, &times);
        if m < fb.seconds * (1.0 - 1e-9) {
            notes.push(format!(
                "makespan {m} s, below the frame bound {} s",
                fb.seconds
            ));
        }
        if let Some(opt) = ilp_optimum {
            if m < opt * (1.0 - 1e-9) {
                notes.push(format!(
                    "makespan {m} s, below the optimum {opt} s HiGHS proved"
                ));
            }
        }
        let mut stopped = None;
        let simulated = if notes.is_empty() {
            match simulate_whole(&l, &s, crate::simulate::deadline_in(sim_limit))? {
                Ok(x) => {
                    if !same_time(x, m) {
                        notes.push(format!("simulated {x} s against the predicted {m} s"));
                    }
                    Some(Some(x))
                }
                Err(x) => {
                    let at = stopped_at(&x);
                    cut.push(format!("{by} (whole): the simulation {at}"));
                    stopped = Some(at);
                    Some(None)
                }
            }
        } else {
            None
        };
        let ok = notes.is_empty();
        rows.push(CrossRow {
            by,
            kind: "whole",
            frames: Some(s.len()),
            predicted_s: Some(m),
            simulated_s: simulated,
            ok,
            note: match (ok, stopped) {
                (true, None) => "valid (liquid_model::validate), at or above the frame bound and any proven optimum, simulated = predicted".into(),
                (true, Some(at)) => format!("valid (liquid_model::validate), at or above the frame bound and any proven optimum; the simulation {at}: not compared"),
                (false, _) => notes.join("; "),
            },
        });
    }

    for r in rows.iter().filter(|r| !r.ok) {
        contradictions.push(format!("{} ({}): {}", r.by, r.kind, r.note));
    }
    Ok(CrossReport {
        model: traffic.name().to_string(),
        sizes: l.info.clone(),
        overhead_s: a.overhead,
        time_bound: bound,
        link_bound_on_simulator_s: sim_bound,
        all_at_once_s: all_at_once,
        frame_bound_s: fb.seconds,
        quantum,
        piece_duration: lambda,
        rows,
        cut_by_time_limit: cut,
        contradictions,
    })
}

/// A message as `explain --sizes` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct MessageOn {
    /// Its transfer id.
    pub transfer: String,
    /// Its bytes.
    pub bytes: u64,
    /// Its time alone (overhead + route latency + bytes / slowest link), seconds.
    pub seconds: f64,
}

/// The time bound's first bottleneck link and its largest messages.
#[derive(Debug, Clone, Serialize)]
pub struct BottleneckWhy {
    /// The link.
    pub link: String,
    /// Its throughput, MB/s.
    pub throughput_mb_s: f64,
    /// Bytes crossing it.
    pub bytes: u128,
    /// Messages crossing it.
    pub messages: usize,
    /// bytes / throughput: the bound, seconds.
    pub seconds: f64,
    /// Its largest messages (at most 5), largest first.
    pub largest: Vec<MessageOn>,
}

/// A timeframe of the best non-preemptive schedule in which the frame-bound link waits.
#[derive(Debug, Clone, Serialize)]
pub struct IdleFrame {
    /// The frame, 1-based.
    pub frame: usize,
    /// Its length, seconds.
    pub length_s: f64,
    /// The message that sets its length.
    pub set_by: String,
    /// The link's own message in the frame, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_message: Option<String>,
    /// How long the link waits in it, seconds.
    pub idle_s: f64,
}

/// Why the best non-preemptive schedule exceeds the time bound, if it does.
#[derive(Debug, Clone, Serialize)]
pub struct WholeWhy {
    /// The best non-preemptive makespan, seconds, and whether it is proven optimal.
    pub makespan_s: f64,
    /// Whether `makespan_s` is the optimum, and by what.
    pub optimal: bool,
    /// What the optimality or the bound rests on.
    pub evidence: String,
    /// makespan - time bound, seconds (0: the bound is met).
    pub over_time_bound_s: f64,
    /// The frame bound, seconds, and its link (none: the longest message alone).
    pub frame_bound_s: f64,
    /// The frame bound's link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_bound_link: Option<String>,
    /// frame bound - time bound: what whole messages cost beyond bytes / throughput on
    /// the frame-bound link (overhead, latency, routes slower than the link), seconds.
    pub per_message_costs_s: f64,
    /// makespan - frame bound: how long the frame-bound link waits in the schedule, in
    /// frames made longer by a message elsewhere, seconds.
    pub idle_on_frame_bound_link_s: f64,
    /// The frames where it waits longest (at most 5).
    pub idle_frames: Vec<IdleFrame>,
    /// The explanation in sentences.
    pub why: Vec<String>,
}

/// `liquid explain MODEL --sizes FILE`.
#[derive(Debug, Clone, Serialize)]
pub struct ExplainSizes {
    model: String,
    sizes: SizesInfo,
    overhead_s: f64,
    time_bound: TimeBound,
    /// The bottleneck of the bound (when links give it).
    #[serde(skip_serializing_if = "Option::is_none")]
    bottleneck: Option<BottleneckWhy>,
    /// The non-preemptive optimum against the bound.
    non_preemptive: WholeWhy,
}

/// `liquid explain MODEL --sizes FILE`: the time bound's bottleneck link with its largest
/// messages, and why the non-preemptive optimum (the best schedule of whole messages,
/// made as `solve --sizes --preemption none` makes it, within `o`'s time limit) exceeds
/// the bound, if it does: by the per-message costs on the frame-bound link (the frame
/// bound over the time bound) and by the time that link waits in frames made longer by
/// messages elsewhere (the makespan over the frame bound), with the frames where it waits
/// most.
pub fn explain(
    model_arg: &Path,
    a: &SizesArgs,
    o: &SolveOptions,
    phase: &dyn Fn(&str),
) -> Result<ExplainSizes, StudyError> {
    let mut o = o.clone();
    o.preemption = Preemption::Whole;
    o.simulate = false;
    let solved = solve(model_arg, a, &o, &crate::quietly, phase)?;
    let l = &solved.loaded;
    let (traffic, bytes, platform) = (&l.traffic, &l.sizes.bytes, &l.platform);
    let report = &solved.report;
    let bound = report.time_bound.clone();
    let w = report
        .non_preemptive
        .as_ref()
        .ok_or_else(|| StudyError::internal("no non-preemptive report"))?;
    let s = solved
        .whole
        .as_ref()
        .ok_or_else(|| StudyError::internal("no non-preemptive schedule"))?;
    let lanes = lanes_of(l, &o);
    let times = whole::message_times(traffic, bytes, platform);
    let msg = |t: TransferId| MessageOn {
        transfer: traffic.transfer_name(t).to_string(),
        bytes: bytes[t.index()],
        seconds: times[t.index()],
    };
    let bottleneck = bound.bottlenecks.first().and_then(|b| {
        let link = traffic.find_link(&b.link)?;
        let mut users: Vec<TransferId> = traffic.users(link).to_vec();
        users.sort_by(|x, y| bytes[y.index()].cmp(&bytes[x.index()]).then(x.cmp(y)));
        Some(BottleneckWhy {
            link: b.link.clone(),
            throughput_mb_s: platform.bandwidth[link.index()] / 1e6,
            bytes: b.bytes,
            messages: b.messages,
            seconds: b.seconds,
            largest: users.iter().take(5).map(|&t| msg(t)).collect(),
        })
    });
    let fb = whole::frame_bound(traffic, &lanes, &times);
    let fb_link = fb.links.first().copied();
    let lengths = whole::frame_lengths(s, &times);
    let mut idle_frames = Vec::new();
    if let Some(link) = fb_link.filter(|&k| lanes[k.index()] <= 1) {
        for (f, frame) in s.frames.iter().enumerate() {
            let own = frame
                .iter()
                .copied()
                .find(|&t| traffic.transfer(t).path.contains(&link));
            let idle = lengths[f] - own.map_or(0.0, |t| times[t.index()]);
            if idle > 1e-12 * lengths[f] {
                let set_by = frame
                    .iter()
                    .copied()
                    .max_by(|x, y| times[x.index()].total_cmp(&times[y.index()]).then(y.cmp(x)))
                    .map(|t| traffic.transfer_name(t).to_string())
                    .unwrap_or_default();
                idle_frames.push(IdleFrame {
                    frame: f + 1,
                    length_s: lengths[f],
                    set_by,
                    link_message: own.map(|t| traffic.transfer_name(t).to_string()),
                    idle_s: idle,
                });
            }
        }
    }
    idle_frames.sort_by(|x, y| y.idle_s.total_cmp(&x.idle_s).then(x.frame.cmp(&y.frame)));
    idle_frames.truncate(5);
    let over = (w.makespan_s - bound.seconds).max(0.0);
    let per_message = (fb.seconds - bound.seconds).max(0.0);
    let idle = (w.makespan_s - fb.seconds).max(0.0);
    let fb_name = fb_link.map(|k| traffic.link_name(k).to_string());
    let mut why = Vec::new();
    let tol = 1e-9 * bound.seconds.max(1e-300);
    if over <= tol {
        why.push(format!(
            "the best non-preemptive schedule meets the time bound ({:.6} s): nothing to explain",
            bound.seconds
        ));
    } else {
        why.push(format!(
            "the best non-preemptive schedule takes {:.6} s, {:.6} s over the time bound {:.6} s ({})",
            w.makespan_s, over, bound.seconds, bound.by
        ));
        if per_message > tol {
            why.push(match &fb_name {
                Some(n) => format!(
                    "{per_message:.6} s of it: every message of link {n} needs a frame of its own \
                     there, and each frame lasts at least the message's own time (overhead, \
                     latency, its route's slowest link), not only its bytes over the link: \
                     the frame bound is {:.6} s",
                    fb.seconds
                ),
                None => format!(
                    "{per_message:.6} s of it: the longest message alone ({}) takes {:.6} s",
                    bound.longest_message.transfer, fb.seconds
                ),
            });
        }
        if idle > tol {
            why.push(match &fb_name {
                Some(n) => format!(
                    "{idle:.6} s of it: link {n} waits in frames made longer by messages \
                     elsewhere (a frame lasts its longest message; see idle_frames)"
                ),
                None => format!("{idle:.6} s of it: frames beyond the longest message"),
            });
        }
        why.push(if w.optimal {
            format!(
                "the makespan is optimal ({}): no schedule of whole messages avoids this",
                w.evidence
            )
        } else {
            format!(
                "the makespan is not proven optimal: the optimum is between {:.6} s and it ({})",
                w.lower_bound_s, w.evidence
            )
        });
    }
    Ok(ExplainSizes {
        model: traffic.name().to_string(),
        sizes: l.info.clone(),
        overhead_s: a.overhead,
        time_bound: bound,
        bottleneck,
        non_preemptive: WholeWhy {
            makespan_s: w.makespan_s,
            optimal: w.optimal,
            evidence: w.evidence.clone(),
            over_time_bound_s: over,
            frame_bound_s: fb.seconds,
            frame_bound_link: fb_name,
            per_message_costs_s: per_message,
            idle_on_frame_bound_link_s: idle,
            idle_frames,
            why,
        },
    })
}
