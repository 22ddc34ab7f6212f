//! Why a traffic is not liquid: minimal non-liquid cores (`liquid explain`).
//!
//! A *core* is a set of transfers that cannot be scheduled in Λ timeframes (Λ of the whole
//! traffic) although every proper subset obtained by removing one transfer can. A core
//! proves the whole traffic non-liquid (more transfers never help), and it is the smallest
//! reason in the sense that nothing can be dropped from it.
//!
//! Technique: deletion-based minimisation, by chunks. Every question "do these transfers
//! fit in Λ timeframes?" goes first to a greedy repair of the last schedule found (the
//! next question usually differs from it by a transfer or two), then to the native
//! colouring search with propagation ([`liquid_search::kcolour::fits`], within
//! [`search_nodes`] nodes), which answers most of them in microseconds (a colouring, or
//! an exhaustive refutation); only the questions it leaves open go to SAT
//! ([`liquid_sat::Subsets`]: one varisat under selector assumptions, whose failed
//! assumptions are a smaller non-fitting subset, so the core shrinks at once: clause-set
//! refinement). The loop tries the transfers not yet shown needed out a chunk at a time:
//! when the rest still does not fit, the core shrinks to it (or to SAT's smaller subset)
//! and the chunk doubles; otherwise the chunk halves, and at one transfer that transfer is
//! needed, and the colouring of the rest is kept: restricted to the final core without
//! that transfer, it is the certificate that the transfer is needed. Questions on chunks
//! never go to SAT (an open one only halves the chunk), and a single transfer whose
//! question the search leaves open waits until every other is settled: only then does
//! SAT answer it.
//!
//! Time: the loop runs until 70 % of the time to the deadline, the certificate of the
//! core reached (its proof) in the rest. When the loop is stopped, the smallest core so far
//! is answered, marked not minimal; when even its proof does not fit in the time left,
//! nothing is (`unknown`).
//!
//! The certificate is checked, not trusted: the core is re-encoded and refuted with a
//! proof that `liquid-proof` checks (a native search's refutation as LRAT, or
//! varisat's when the search does not apply or the core is a clique), and for every core
//! transfer shown needed the core without it gets a Λ-frame schedule validated by the
//! model crate.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use liquid_model::stage::{self, Stage};
use liquid_model::{validate, CheckedProof, Schedule, Traffic, TransferId};
use liquid_sat::{
    prove, prove_by_search, EncodeError, EncodeOptions, Proved, SatError, SearchProved, Subset,
    Subsets,
};
use liquid_search::kcolour::{fits, Fit, MAX_TIMEFRAMES};
use thiserror::Error;

/// Nodes the colouring search may spend on one subset question before SAT answers it
/// (with more than [`FEW_FRAMES`] timeframes; see [`search_nodes`]).
pub const SEARCH_NODES: u64 = 20_000;

/// Up to this many timeframes, SAT (with the question's own symmetry breaking, see
/// [`liquid_sat::Subsets`]) answers what the colouring search leaves open faster than
/// more search nodes would: the search gets [`FEW_FRAMES_SEARCH_NODES`] per question.
pub const FEW_FRAMES: usize = 4;

/// Nodes of the colouring search per subset question with at most [`FEW_FRAMES`]
/// timeframes. Measured on the peer benchmark's random-1029-194 (Λ = 4, 194 transfers):
/// a minimal core in 0.45 CPU seconds instead of 2.2 with [`SEARCH_NODES`], which went
/// to the search's open questions. With 8 timeframes (queen8_8) the same budget sends
/// questions to SAT that it does not answer in 60 s.
pub const FEW_FRAMES_SEARCH_NODES: u64 = 2_000;

/// The colouring search's node budget per subset question with `k` timeframes.
pub fn search_nodes(k: usize) -> u64 {
    if k <= FEW_FRAMES {
        FEW_FRAMES_SEARCH_NODES
    } else {
        SEARCH_NODES
    }
}

/// Share of the time to the deadline the minimisation loop may use (per mille); the
/// rest is for the proof of the core reached.
const LOOP_SHARE: u32 = 700;

/// A structure that explains a core by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structure {
    /// More than Λ transfers that pairwise congest: each needs a timeframe of its own.
    Clique,
    /// An odd cycle of transfers, each congesting with its two neighbours only, with
    /// Λ = 2: two timeframes would have to alternate around an odd cycle.
    OddCycle,
    /// A hub congesting every transfer of an odd cycle (each congesting with its two
    /// neighbours and the hub only), with Λ = 3: the cycle needs 3 timeframes and the hub
    /// a fourth (the Mycielski-style wheel W_{2m+1}).
    OddWheel,
    /// None of the named structures.
    Unrecognised,
}

impl Structure {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Structure::Clique => "clique",
            Structure::OddCycle => "odd-cycle",
            Structure::OddWheel => "odd-wheel",
            Structure::Unrecognised => "none recognised",
        }
    }
}

/// A non-liquid core with its certificate: minimal, unless the time limit stopped its
/// minimisation. Only [`core_of`] and [`cores`] make one (its fields are private), so
/// holding one means its checks passed.
#[derive(Debug, Clone)]
pub struct Core {
    transfers: Vec<TransferId>,
    structure: Structure,
    proof: CheckedProof,
    /// The refutation [`Core::proof`] checked, kept to be written ([`Core::write_proof`]).
    refutation: liquid_sat::Refutation,
    without_one: Vec<(TransferId, Schedule)>,
    minimal: bool,
}

impl Core {
    /// The core's transfers, in traffic order.
    pub fn transfers(&self) -> &[TransferId] {
        &self.transfers
    }

    /// A named structure, if the core is one.
    pub fn structure(&self) -> Structure {
        self.structure
    }

    /// A checked proof that the core (as a sub-traffic of its transfers) has no schedule
    /// of Λ timeframes, Λ of the whole traffic.
    pub fn proof(&self) -> &CheckedProof {
        &self.proof
    }

    /// For every core transfer shown needed (all of them when [`Core::minimal`]), a
    /// validated Λ-frame schedule of the core without it.
    pub fn without_one(&self) -> &[(TransferId, Schedule)] {
        &self.without_one
    }

    /// Whether every transfer was shown needed (false: the time limit stopped the
    /// minimisation, and a smaller core may exist).
    pub fn minimal(&self) -> bool {
        self.minimal
    }

    /// The core as a traffic of its own ([`Traffic::sub_traffic`] of `traffic`, the
    /// traffic it is a core of): what its proof is about.
    pub fn traffic(&self, traffic: &Traffic) -> Traffic {
        traffic.sub_traffic(&self.transfers)
    }

    /// Writes the core's checked proof into `dir` as `liquid prove --proof DIR` does
    /// (formula.cnf, proof.lrat, manifest.yaml), with the core itself as
    /// `dir/core.yaml` ([`liquid_proof::CORE_FILE`]): the model to give `check-proof`
    /// and `certify`. The directory is read back and checked before it is put in place.
    /// [`ExplainError::Write`] when it cannot be written; [`ExplainError::Internal`] if
    /// the check rejects what was written (a bug).
    pub fn write_proof(
        &self,
        traffic: &Traffic,
        dir: &std::path::Path,
    ) -> Result<CheckedProof, ExplainError> {
        let sub = self.traffic(traffic);
        let comment = format!(
            "A non-liquid core of {:?} found by `liquid explain`: {} of its {} transfers \
             cannot share Λ = {} timeframes (name and description are the whole model's).\nThe \
             proof in this directory is about exactly this traffic: liquid check-proof {} --proof {}",
            traffic.name(),
            self.transfers.len(),
            traffic.len(),
            traffic.duration(),
            dir.join(liquid_proof::CORE_FILE).display(),
            dir.display()
        );
        match liquid_proof::write_and_verify_with_traffic(dir, &sub, &self.refutation, &comment) {
            Err(e) => Err(ExplainError::Write(e.to_string())),
            Ok(Err(why)) => Err(ExplainError::Internal(format!(
                "the core's proof written to {} was rejected: {why}",
                dir.display()
            ))),
            Ok(Ok(p)) => Ok(p),
        }
    }
}

/// What a core of `traffic` (its transfers, in traffic order) is and proves, found again
/// from the core alone: its structure and a checked proof, made anew, that it has no
/// schedule of Λ timeframes (Λ of `traffic`). `liquid merge` checks the cores of explain's
/// shards this way rather than trust them. [`ExplainError::Internal`] when the core has a
/// Λ-frame schedule after all; [`ExplainError::Stopped`] at `deadline`.
pub fn recheck_core(
    traffic: &Traffic,
    core: &[TransferId],
    deadline: Option<Instant>,
) -> Result<(Structure, CheckedProof), ExplainError> {
    let k = traffic.duration();
    let structure = structure(traffic, core, k);
    let sub = traffic.sub_traffic(core);
    let (proof, _) = certify(
        &sub,
        k,
        structure == Structure::Clique,
        deadline,
        &AtomicU64::new(0),
    )?;
    Ok((structure, proof))
}

/// The file of the core's model in the directory [`Core::write_proof`] writes.
pub const CORE_FILE: &str = liquid_proof::CORE_FILE;

/// What [`cores`] found.
#[derive(Debug, Clone, Default)]
pub struct Explained {
    /// The cores found, disjoint.
    pub cores: Vec<Core>,
    /// Whether the time limit stopped the search (the cores found before it are listed).
    pub stopped: bool,
    /// Why the search could not go on before the time limit, when it could not: the
    /// colouring search left a question open and the traffic is too large for the SAT
    /// encoding that would answer it (the cores found before are listed).
    pub undecided: Option<String>,
    /// Subset questions answered by the colouring search.
    pub by_search: u64,
    /// Subset questions answered by SAT.
    pub by_sat: u64,
    /// Subset questions answered by repairing the last schedule found (no search).
    pub by_repair: u64,
}

/// Why no core could be given.
#[derive(Debug, Error)]
pub enum ExplainError {
    /// The encoding is too large, or varisat failed.
    #[error(transparent)]
    Sat(#[from] SatError),
    /// The time limit came first.
    #[error("the time limit came first")]
    Stopped,
    /// A check of the result failed (a bug: the core is not what it should be).
    #[error("internal error: {0}")]
    Internal(String),
    /// The core's proof could not be written where asked ([`Core::write_proof`]).
    #[error("{0}")]
    Write(String),
}

/// The answer to one subset question.
enum Answer {
    /// A schedule of the subset (traffic ids), at most Λ frames.
    Fits(Schedule),
    /// No schedule; a non-fitting subset of the question (possibly all of it).
    NoFit(Vec<TransferId>),
    /// The colouring search gave up and SAT was not asked.
    Open,
    /// The deadline came first.
    Stopped,
}

/// Answers subset questions: the colouring search first, SAT where it gives up.
struct Oracle<'a> {
    traffic: &'a Traffic,
    k: usize,
    sat: Option<Subsets>,
    by_search: u64,
    by_sat: u64,
    /// Questions left before the oracle answers `Stopped` as at a deadline (the tests'
    /// deterministic stand-in for a clock).
    questions: Option<u64>,
    /// The timeframe of every transfer in the last schedule found (`NONE` if not in it):
    /// the next question usually differs from it by a transfer or two, which a greedy
    /// repair places without a search.
    last: Vec<u32>,
    /// Questions answered by that repair.
    by_repair: u64,
    /// The progress display's counter: every question counts one.
    progress: &'a AtomicU64,
}

/// No timeframe (in [`Oracle::last`]).
const NONE: u32 = u32::MAX;

/// Largest number of transfers missing from the last schedule that the repair tries to
/// place.
const REPAIR_MAX: usize = 4;

impl<'a> Oracle<'a> {
    /// An oracle for Λ timeframes of `traffic`, with an optional question budget.
    fn new(traffic: &'a Traffic, questions: Option<u64>, progress: &'a AtomicU64) -> Oracle<'a> {
        Oracle {
            progress,
            traffic,
            k: traffic.duration(),
            sat: None,
            by_search: 0,
            by_sat: 0,
            questions,
            last: vec![NONE; traffic.len()],
            by_repair: 0,
        }
    }

    /// Remembers the timeframes of `s` (the last schedule found).
    fn remember(&mut self, s: &Schedule) {
        self.last.fill(NONE);
        for (c, f) in s.frames.iter().enumerate() {
            for t in f {
                self.last[t.index()] = c as u32;
            }
        }
    }

    /// A schedule of `set` in at most Λ timeframes from the last one: its timeframes for
    /// the transfers of `set` it has, and for the few it lacks the first timeframe where
    /// nothing of `set` congests with them; `None` when one does not fit anywhere.
    fn repair(&self, set: &[TransferId]) -> Option<Schedule> {
        let missing: Vec<TransferId> = set
            .iter()
            .copied()
            .filter(|t| self.last[t.index()] == NONE)
            .collect();
        if missing.len() > REPAIR_MAX || missing.len() == set.len() {
            return None;
        }
        let mut frames: Vec<Vec<TransferId>> = vec![Vec::new(); self.k];
        for &t in set {
            let c = self.last[t.index()];
            if c != NONE {
                frames[c as usize].push(t);
            }
        }
        for &m in &missing {
            let c =
                (0..self.k).find(|&c| frames[c].iter().all(|&u| !self.traffic.congest(u, m)))?;
            frames[c].push(m);
        }
        frames.retain(|f| !f.is_empty());
        Some(Schedule::new(frames))
    }

    /// Whether `set` fits in Λ timeframes; with `sat` false, a question the colouring
    /// search leaves open is answered [`Answer::Open`] instead of going to SAT.
    fn ask(
        &mut self,
        set: &[TransferId],
        sat: bool,
        deadline: Option<Instant>,
    ) -> Result<Answer, ExplainError> {
        if deadline.is_some_and(|d| Instant::now() >= d) || self.questions == Some(0) {
            return Ok(Answer::Stopped);
        }
        if let Some(q) = &mut self.questions {
            *q -= 1;
        }
        self.progress.fetch_add(1, Ordering::Relaxed);
        if let Some(s) = self.repair(set) {
            self.by_repair += 1;
            return Ok(Answer::Fits(s));
        }
        let r = self.ask_inner(set, sat, deadline);
        if let Ok(Answer::Fits(s)) = &r {
            self.remember(s);
        }
        r
    }

    fn ask_inner(
        &mut self,
        set: &[TransferId],
        sat: bool,
        deadline: Option<Instant>,
    ) -> Result<Answer, ExplainError> {
        if (1..=MAX_TIMEFRAMES).contains(&self.k) {
            let ids: Vec<usize> = set.iter().map(|t| t.index()).collect();
            match fits(self.traffic, &ids, self.k, search_nodes(self.k), deadline).0 {
                Fit::Coloured(col) => {
                    self.by_search += 1;
                    let mut frames = vec![Vec::new(); self.k];
                    for (i, &c) in col.iter().enumerate() {
                        frames[c as usize].push(set[i]);
                    }
                    frames.retain(|f: &Vec<TransferId>| !f.is_empty());
                    return Ok(Answer::Fits(Schedule::new(frames)));
                }
                Fit::Impossible => {
                    self.by_search += 1;
                    return Ok(Answer::NoFit(set.to_vec()));
                }
                Fit::Open if deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Ok(Answer::Stopped)
                }
                Fit::Open if !sat => return Ok(Answer::Open),
                Fit::Open => {}
            }
        }
        if self.sat.is_none() {
            // The deadline of the SAT questions is the minimisation's (one per core).
            match Subsets::new(self.traffic, self.k, deadline)? {
                Some(s) => self.sat = Some(s),
                None => return Ok(Answer::Stopped),
            }
        }
        let sat = self.sat.as_mut().expect("just made");
        self.by_sat += 1;
        Ok(match sat.fits(set)? {
            Subset::Fits(s) => Answer::Fits(s),
            Subset::Core(c) => Answer::NoFit(c),
            Subset::Stopped => Answer::Stopped,
        })
    }
}

/// The core reached by deletion from `candidates`, whether it is minimal, and a schedule
/// (of a superset of the core without it) for every transfer shown needed; `None` when
/// the candidates fit. Stops at `deadline` with what it has (`Err(Stopped)` before any
/// core).
#[allow(clippy::type_complexity)]
fn minimise(
    oracle: &mut Oracle<'_>,
    candidates: &[TransferId],
    deadline: Option<Instant>,
) -> Result<Option<(Vec<TransferId>, bool, Vec<(TransferId, Schedule)>)>, ExplainError> {
    // A clique of more than Λ transfers is the smallest kind of core there is: Λ + 1 of
    // them, minimal as they stand (the search below still shows each one needed).
    let k = oracle.k;
    let mut set = liquid_search::teams::TransferSet::with_capacity(oracle.traffic.len());
    set.extend(candidates.iter().map(|t| t.index()));
    let clique =
        liquid_search::exact::greedy_clique_in(oracle.traffic, &set, deadline).unwrap_or_default();
    let mut core = if clique.len() > k {
        let mut c = clique;
        c.sort_unstable();
        c.truncate(k + 1);
        c
    } else {
        match oracle.ask(candidates, true, deadline)? {
            Answer::Fits(_) => return Ok(None),
            Answer::NoFit(c) => c,
            Answer::Stopped | Answer::Open => return Err(ExplainError::Stopped),
        }
    };
    // Deletion by chunks: the transfers not yet shown needed are tried out `chunk` at a
    // time; when the rest still does not fit, the whole chunk goes at once (and the
    // chunk doubles), otherwise it halves, down to one transfer, which is then needed
    // (the schedule of the rest is its certificate). A core of c among n candidates
    // takes O(c log(n / c)) questions instead of n.
    let mut needed: Vec<(TransferId, Schedule)> = Vec::new();
    let mut minimal = true;
    let mut chunk = (core.len() / 8).max(1);
    // Single transfers whose question the colouring search left open wait until every
    // other transfer is settled; only then SAT answers them (a hard question no longer
    // holds back the easy ones).
    let mut deferred: Vec<TransferId> = Vec::new();
    let mut by_sat = false;
    loop {
        let open: Vec<TransferId> = core
            .iter()
            .copied()
            .filter(|t| !needed.iter().any(|(u, _)| u == t) && (by_sat || !deferred.contains(t)))
            .collect();
        if open.is_empty() {
            if by_sat || deferred.is_empty() {
                break;
            }
            by_sat = true;
            continue;
        }
        chunk = if by_sat {
            1
        } else {
            chunk.clamp(1, open.len())
        };
        let out = &open[..chunk];
        let rest: Vec<TransferId> = core.iter().copied().filter(|u| !out.contains(u)).collect();
        match oracle.ask(&rest, by_sat, deadline)? {
            Answer::Fits(s) if chunk == 1 => needed.push((out[0], s)),
            Answer::Open if chunk == 1 => deferred.push(out[0]),
            Answer::Fits(_) | Answer::Open => chunk /= 2,
            // Still no fit without them: the smaller subset is the core (the transfers
            // shown needed stay needed in any subset that does not fit).
            Answer::NoFit(smaller) => {
                core = smaller;
                chunk *= 2;
            }
            Answer::Stopped => {
                minimal = false;
                break;
            }
        }
    }
    needed.retain(|(t, _)| core.contains(t));
    Ok(Some((core, minimal, needed)))
}

fn structure(traffic: &Traffic, core: &[TransferId], k: usize) -> Structure {
    let congest = |a: TransferId, b: TransferId| traffic.congest(a, b);
    let pairs = core
        .iter()
        .enumerate()
        .all(|(i, &a)| core[i + 1..].iter().all(|&b| congest(a, b)));
    if pairs && core.len() > k {
        return Structure::Clique;
    }
    let degree = |a: TransferId| core.iter().filter(|&&b| b != a && congest(a, b)).count();
    // Degree 2 everywhere: a union of cycles; minimality makes it one (odd) cycle.
    if k == 2 && core.len() % 2 == 1 && core.iter().all(|&a| degree(a) == 2) {
        return Structure::OddCycle;
    }
    // One hub adjacent to all, the rest of degree 3: the hub on an odd cycle.
    // (A hub on a triangle is K4, caught as a clique above.)
    if k == 3 && core.len() % 2 == 0 && core.len() >= 6 {
        let hubs = core
            .iter()
            .filter(|&&a| degree(a) == core.len() - 1)
            .count();
        let rim = core.iter().filter(|&&a| degree(a) == 3).count();
        if hubs == 1 && rim == core.len() - 1 {
            return Structure::OddWheel;
        }
    }
    Structure::Unrecognised
}

/// The refutation of `sub` in `k` timeframes: a native search's (unless the
/// core is a clique, a pigeonhole that search refutes only in exponential time, or `k`
/// is beyond its range), else varisat's; checked by `liquid-proof`.
fn certify(
    sub: &Traffic,
    k: usize,
    clique: bool,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Result<(CheckedProof, liquid_sat::Refutation), ExplainError> {
    stage::enter(progress, Stage::Proof);
    let schedule_found =
        || ExplainError::Internal("the core has a schedule of Λ timeframes after all".into());
    let mut refutation = None;
    if !clique && (sub.duration()..=MAX_TIMEFRAMES).contains(&k) {
        match prove_by_search(sub, k, deadline) {
            Ok(SearchProved::Unsat { refutation: r, .. }) => refutation = Some(r),
            Ok(SearchProved::Sat(_)) => return Err(schedule_found()),
            Ok(SearchProved::Stopped) => return Err(ExplainError::Stopped),
            // Not for this search: SAT below.
            Err(_) => {}
        }
    }
    let refutation = match refutation {
        Some(r) => r,
        None => match prove(sub, k, &EncodeOptions::default(), deadline)? {
            Some(Proved::Unsat(r)) => r,
            Some(Proved::Sat(_)) => return Err(schedule_found()),
            None => return Err(ExplainError::Stopped),
        },
    };
    stage::enter(progress, Stage::Check);
    let checked = liquid_proof::check_refutation(sub, &refutation)
        .map_err(|e| ExplainError::Internal(format!("the core's proof was rejected: {e}")))?;
    Ok((checked, *refutation))
}

/// A checked core of `candidates` at Λ timeframes of `traffic` (minimal unless the
/// deadline stopped its minimisation); `None` when the candidates can be scheduled in Λ.
pub fn core_of(
    traffic: &Traffic,
    candidates: &[TransferId],
    deadline: Option<Instant>,
) -> Result<Option<Core>, ExplainError> {
    let progress = AtomicU64::new(0);
    let mut oracle = Oracle::new(traffic, None, &progress);
    core_with(&mut oracle, candidates, deadline)
}

fn core_with(
    oracle: &mut Oracle<'_>,
    candidates: &[TransferId],
    deadline: Option<Instant>,
) -> Result<Option<Core>, ExplainError> {
    let (traffic, k) = (oracle.traffic, oracle.k);
    // A SAT solver stops for good at its deadline: each core gets its own.
    oracle.sat = None;
    // The minimisation's share of the time; the proof of its core gets the rest.
    let loop_deadline = deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) * LOOP_SHARE / 1000
    });
    stage::enter(oracle.progress, Stage::Core);
    let Some((core, minimal, needed)) = minimise(oracle, candidates, loop_deadline)? else {
        return Ok(None);
    };
    let structure = structure(traffic, &core, k);
    let sub = traffic.sub_traffic(&core);
    let (proof, refutation) = certify(
        &sub,
        k,
        structure == Structure::Clique,
        deadline,
        oracle.progress,
    )?;
    let mut without_one = Vec::new();
    for &(t, ref superset) in &needed {
        // The schedule of a superset of the core without t, restricted to it.
        let rest: Vec<TransferId> = core.iter().copied().filter(|&u| u != t).collect();
        let frames: Vec<Vec<TransferId>> = superset
            .frames
            .iter()
            .map(|f| {
                f.iter()
                    .copied()
                    .filter(|u| rest.binary_search(u).is_ok())
                    .collect::<Vec<_>>()
            })
            .filter(|f| !f.is_empty())
            .collect();
        let local = Schedule::new(
            frames
                .iter()
                .map(|f| {
                    f.iter()
                        .map(|u| TransferId(rest.binary_search(u).expect("in rest") as u32))
                        .collect()
                })
                .collect(),
        );
        let rest_traffic = traffic.sub_traffic(&rest);
        let report = validate(&rest_traffic, &local).map_err(|e| {
            ExplainError::Internal(format!(
                "the schedule without {:?} is invalid: {e}",
                traffic.transfer_name(t)
            ))
        })?;
        if report.length > k {
            return Err(ExplainError::Internal(format!(
                "the schedule without {:?} has {} timeframes, not at most {k}",
                traffic.transfer_name(t),
                report.length
            )));
        }
        without_one.push((t, Schedule::new(frames)));
    }
    without_one.sort_by_key(|(t, _)| *t);
    Ok(Some(Core {
        structure,
        transfers: core,
        proof,
        refutation,
        without_one,
        minimal,
    }))
}

/// Disjoint cores: the first of the whole traffic, then (with `all`) one of what remains
/// once the earlier cores are set aside, until the rest is liquid or the deadline comes.
/// Fails only when the encoding is refused, varisat fails, or a check fails (a bug).
pub fn cores(
    traffic: &Traffic,
    all: bool,
    deadline: Option<Instant>,
) -> Result<Explained, ExplainError> {
    cores_with_progress(traffic, all, deadline, &AtomicU64::new(0))
}

/// [`cores`], saying on `progress` which stage runs ([`liquid_model::stage`]) and counting
/// the core search's questions, for a progress display.
pub fn cores_with_progress(
    traffic: &Traffic,
    all: bool,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Result<Explained, ExplainError> {
    cores_within(traffic, all, deadline, None, progress)
}

/// [`cores_with_progress`], the minimisation stopped after `questions` subset questions if
/// given.
fn cores_within(
    traffic: &Traffic,
    all: bool,
    deadline: Option<Instant>,
    questions: Option<u64>,
    progress: &AtomicU64,
) -> Result<Explained, ExplainError> {
    let mut oracle = Oracle::new(traffic, questions, progress);
    let mut out = Explained::default();
    // A valid schedule of Λ timeframes: the traffic is liquid, nothing to explain.
    let lambda = traffic.duration();
    let liquid = |s: &Schedule| validate(traffic, s).is_ok_and(|r| r.length == lambda);
    // A generated machine's all-to-all with a closed-form liquid schedule has nothing to
    // explain (its schedule validated here, in O(Σ|x|)).
    stage::enter(progress, Stage::ClosedForm);
    if let Ok(form) = crate::engines::closed_form::closed_form_until(traffic, deadline) {
        if liquid(&form.schedule) {
            return Ok(out);
        }
    }
    // First fit in traffic order, linear where the native engine is not: a transfer
    // with `count: 100000` kept explain searching until its 60 s limit, "no core found".
    let order: Vec<TransferId> = traffic.transfer_ids().collect();
    stage::enter(progress, Stage::FirstFit);
    if let Some(frames) = liquid_search::baseline::first_fit_until(traffic, &order, deadline) {
        if liquid(&Schedule::new(frames)) {
            return Ok(out);
        }
    }
    // From REPAIR_FIRST transfers up, the portfolio's repair search from its own placement
    // (its stage 1a), in a quarter of the time: on a 1,024-host InfiniBand fabric, liquid
    // for `solve` by this search in 1.3 s, explain answered "undecided" after 25 s.
    if traffic.len() >= crate::engines::portfolio::REPAIR_FIRST
        && liquid_search::repair::fits(traffic, lambda)
    {
        let quarter = deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now) / 4
        });
        let steps = Some(20 * traffic.len() as u64);
        stage::enter(progress, Stage::Repair);
        let r = liquid_search::repair::repair(traffic, None, lambda, 0, steps, quarter, progress);
        if r.placed_all && liquid(&r.schedule) {
            return Ok(out);
        }
    }
    // A liquid traffic has nothing to explain: the native engine (orbits, parts, the
    // full-team search) says so in milliseconds where the colouring questions would
    // not, within the minimisation's share of the time. Its schedule is validated.
    let native_deadline = deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) * LOOP_SHARE / 2000
    });
    let native_limits = liquid_model::Limits {
        time: native_deadline.map(|d| d.saturating_duration_since(Instant::now())),
        nodes: Some(SEARCH_NODES),
    };
    stage::enter(progress, Stage::Native);
    let native = liquid_search::native::solve(traffic, &native_limits);
    if native.outcome.schedule().is_some_and(liquid) {
        return Ok(out);
    }
    let mut rest: Vec<TransferId> = traffic.transfer_ids().collect();
    loop {
        match core_with(&mut oracle, &rest, deadline) {
            Ok(Some(c)) => {
                rest.retain(|t| !c.transfers.contains(t));
                let minimal = c.minimal;
                out.cores.push(c);
                if !minimal {
                    out.stopped = true;
                    break;
                }
                if !all {
                    break;
                }
            }
            Ok(None) => break,
            Err(ExplainError::Stopped) => {
                out.stopped = true;
                break;
            }
            Err(ExplainError::Sat(SatError::Encode(
                e @ (EncodeError::BeyondLimit { .. } | EncodeError::TooLarge { .. }),
            ))) => {
                out.undecided = Some(too_large(&e));
                break;
            }
            Err(e) => return Err(e),
        }
    }
    out.by_search = oracle.by_search;
    out.by_sat = oracle.by_sat;
    out.by_repair = oracle.by_repair;
    Ok(out)
}

/// Why SAT could not answer the question the colouring search left open, in words.
fn too_large(e: &EncodeError) -> String {
    let size = match e {
        EncodeError::BeyondLimit {
            transfers,
            colours,
            literals,
            limit,
            ..
        } => format!(
            "its encoding with {colours} timeframes would hold about {literals} literals ({transfers} transfers), beyond the limit of {limit}"
        ),
        e => e.to_string(),
    };
    format!("the colouring search left the question open, and SAT cannot take the traffic: {size}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::examples::no_team;

    #[test]
    fn no_team_is_its_own_core_a_clique() {
        let t = no_team();
        let cs = cores(&t, true, None).expect("runs").cores;
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].transfers.len(), 3);
        assert_eq!(cs[0].structure, Structure::Clique);
        assert_eq!(cs[0].proof.colours(), 2);
        assert_eq!(cs[0].without_one.len(), 3);
    }

    #[test]
    fn an_odd_cycle_hides_among_liquid_transfers() {
        // Five transfers in a ring on links of load 2, plus transfers that do not matter.
        let mut paths: Vec<(String, Vec<String>)> = (0..5)
            .map(|i| {
                (
                    format!("c{i}"),
                    vec![format!("e{i}"), format!("e{}", (i + 1) % 5)],
                )
            })
            .collect();
        paths.push(("p".into(), vec!["f".into(), "g".into()]));
        paths.push(("q".into(), vec!["g".into()]));
        let t = Traffic::from_paths("ring", &paths).expect("valid");
        let cs = cores(&t, false, None).expect("runs").cores;
        assert_eq!(cs.len(), 1);
        let names: Vec<&str> = cs[0]
            .transfers
            .iter()
            .map(|&x| t.transfer_name(x))
            .collect();
        assert_eq!(names, ["c0", "c1", "c2", "c3", "c4"]);
        assert_eq!(cs[0].structure, Structure::OddCycle);
    }

    /// The ring of five with a chord-free hub: an odd wheel (Λ = 3), plus a far pair.
    fn wheel() -> Traffic {
        let mut paths: Vec<(String, Vec<String>)> = Vec::new();
        for i in 0..5 {
            paths.push((
                format!("r{i}"),
                vec![
                    format!("e{i}"),
                    format!("e{}", (i + 4) % 5),
                    format!("s{i}"),
                ],
            ));
        }
        paths.push(("h".into(), (0..5).map(|i| format!("s{i}")).collect()));
        paths.push(("x".into(), vec!["e0".into(), "f".into()]));
        paths.push(("y".into(), vec!["f".into()]));
        paths.push(("z".into(), vec!["f".into(), "g".into()]));
        Traffic::from_paths("wheel", &paths).expect("valid")
    }

    #[test]
    fn the_colouring_search_answers_small_questions_without_sat() {
        let t = wheel();
        assert_eq!(t.duration(), 3);
        let e = cores(&t, false, None).expect("runs");
        assert!(!e.stopped);
        let c = &e.cores[0];
        assert!(c.minimal);
        assert_eq!(c.structure, Structure::OddWheel);
        assert_eq!(c.without_one.len(), 6);
        assert!(e.by_search > 0);
        assert_eq!(e.by_sat, 0, "every question was the colouring search's");
    }

    #[test]
    fn beyond_the_colouring_search_sat_answers() {
        // 33 transfers on one link (Λ = 33) and one more congesting each of them on a
        // link of its own: a clique of 34, beyond the 32 timeframes of the colouring
        // search.
        let mut paths: Vec<(String, Vec<String>)> = (0..33)
            .map(|i| (format!("t{i}"), vec!["a".to_string(), format!("e{i}")]))
            .collect();
        paths.push(("x".into(), (0..33).map(|i| format!("e{i}")).collect()));
        let t = Traffic::from_paths("k34", &paths).expect("valid");
        assert_eq!(t.duration(), 33);
        let e = cores(&t, false, None).expect("runs");
        let c = &e.cores[0];
        assert_eq!((c.transfers.len(), c.structure), (34, Structure::Clique));
        assert!(c.minimal);
        assert_eq!(c.without_one.len(), 34);
        assert!(e.by_sat > 0);
        assert_eq!(e.by_search, 0);
    }

    #[test]
    fn a_deadline_in_the_past_answers_nothing() {
        let e = cores(&wheel(), true, Some(Instant::now())).expect("runs");
        assert!(e.stopped);
        assert!(e.cores.is_empty());
    }

    #[test]
    fn a_stopped_minimisation_answers_its_core_so_far_not_minimal() {
        let t = wheel();
        // The first question finds the whole traffic non-fitting; the next two remove a
        // transfer each; then the limit.
        let e = cores_within(&t, true, None, Some(3), &AtomicU64::new(0)).expect("runs");
        assert!(e.stopped);
        assert_eq!(e.cores.len(), 1);
        let c = &e.cores[0];
        assert!(!c.minimal);
        assert!(
            c.transfers.len() > 6,
            "not yet minimised: {:?}",
            c.transfers
        );
        // Still a checked core: its proof refutes Λ timeframes for exactly these.
        assert_eq!(c.proof.colours(), 3);
        for (removed, s) in &c.without_one {
            assert!(c.transfers.contains(removed));
            assert_eq!(s.len(), 3);
        }
    }

    #[test]
    fn a_liquid_traffic_has_no_core() {
        let t = Traffic::from_paths("t", &[("x", vec!["a"]), ("y", vec!["b"])]).expect("valid");
        assert!(cores(&t, true, None).expect("runs").cores.is_empty());
    }

    #[test]
    fn a_liquid_all_to_all_is_the_native_engines_without_a_question() {
        // 4-port 2-tree all-to-all: liquid by orbits; Λ = 4 but 16 hosts' questions
        // would take the colouring search and SAT far longer.
        let t = liquid_topology::fat_tree::FatTree::new(4, 2)
            .traffic()
            .expect("a tree");
        let e = cores(&t, true, None).expect("runs");
        assert!(e.cores.is_empty() && !e.stopped);
        assert_eq!((e.by_search, e.by_sat), (0, 0));
    }

    #[test]
    fn many_copies_of_one_transfer_are_first_fitted_without_a_question() {
        // 20,000 copies on three links, one free frame for the three single-link
        // transfers: first fit in traffic order is liquid. The native engine was stopped
        // by the minimisation's share of the limit here, and explain said "no core found".
        let mut ts: Vec<(String, Vec<String>)> = (0..20_000)
            .map(|i| {
                (
                    format!("c#{i}"),
                    vec!["a".into(), "b".into(), "c".into(), format!("v{i}")],
                )
            })
            .collect();
        ts.extend(["a", "b", "c"].map(|l| (format!("x{l}"), vec![l.to_string()])));
        let t = Traffic::from_paths("copies", &ts).expect("valid");
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        let e = cores(&t, true, Some(deadline)).expect("runs");
        assert!(e.cores.is_empty() && !e.stopped && e.undecided.is_none());
        assert_eq!((e.by_search, e.by_sat), (0, 0));
    }
}
