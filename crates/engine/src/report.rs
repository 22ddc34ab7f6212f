//! The reports of `liquid solve`, `liquid verify` and `liquid explain`: what a checked
//! answer, a verified schedule or a set of cores says, in the fields (and their order)
//! that the YAML and JSON outputs show. Built here so that a benchmark, a test or another
//! program gets the same report as the command line.

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use liquid_model::display::round2;
use liquid_model::{validate_all, Evidence, Problems, Schedule, StatValue, Traffic, TransferId};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::explain::{cores, cores_with_progress, ExplainError, Explained};
use crate::gate::{Checked, SolveError};

fn names(traffic: &Traffic, ts: &[TransferId]) -> Vec<String> {
    ts.iter()
        .map(|&t| traffic.transfer_name(t).to_string())
        .collect()
}

/// An engine's statistics, with the run's time last.
struct Stats<'a>(&'a [(String, StatValue)], f64);

impl Serialize for Stats<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len() + 1))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("time_s", &self.1)?;
        m.end()
    }
}

/// A lower bound's evidence as reports show it.
#[derive(Serialize)]
pub struct EvidenceReport {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transfers: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dual_bound: Option<f64>,
}

impl EvidenceReport {
    /// The report of a lower bound's evidence: the bottleneck and its users, the clique,
    /// the search, the proof's directory, the solver or the dual bound.
    pub fn new(traffic: &Traffic, e: &Evidence) -> EvidenceReport {
        let mut r = EvidenceReport {
            kind: e.kind(),
            link: None,
            transfers: None,
            engine: None,
            nodes: None,
            proof: None,
            dual_bound: None,
        };
        match e {
            Evidence::Bottleneck(l) => {
                r.link = Some(traffic.link_name(*l).to_string());
                r.transfers = Some(names(traffic, traffic.users(*l)));
            }
            Evidence::Clique(ts) => r.transfers = Some(names(traffic, ts)),
            Evidence::Exhaustive { engine, nodes } => {
                r.engine = Some(engine.clone());
                r.nodes = Some(*nodes);
            }
            Evidence::CheckedProof(p) => {
                r.proof = Some(
                    p.dir()
                        .unwrap_or("checked in memory, not written")
                        .to_string(),
                );
            }
            Evidence::SolverClaim { engine } => r.engine = Some(engine.clone()),
            Evidence::DualBound { bound } => r.dual_bound = Some(*bound),
        }
        r
    }
}

/// `liquid solve`'s report of a checked answer.
#[derive(Serialize)]
pub struct SolveReport<'a> {
    model: String,
    engine: String,
    verdict: &'static str,
    transfers: usize,
    duration: usize,
    length: Option<usize>,
    lower_bound: usize,
    lower_bound_witness: EvidenceReport,
    /// How strong the lower bound's evidence is (`checked`, `exhaustive-search`,
    /// `solver-claim`, `dual-bound`).
    evidence: &'static str,
    /// Whether the verdict's claim rests on checked evidence only.
    certified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid_throughput: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule_throughput: Option<f64>,
    /// Throughput lost against a liquid schedule, in percent: 100 (1 - Λ/length).
    loss_percent: Option<f64>,
    stats: Stats<'a>,
    timeframes: Option<Vec<Vec<String>>>,
}

impl<'a> SolveReport<'a> {
    /// The report of an answer the gate checked for `traffic`.
    pub fn new(traffic: &Traffic, c: &'a Checked) -> SolveReport<'a> {
        let o = c.outcome();
        let d = traffic.duration();
        let bound = o.lower_bound(traffic);
        let length = c.length();
        SolveReport {
            model: traffic.name().to_string(),
            engine: c.engine().to_string(),
            verdict: o.verdict().as_str(),
            transfers: traffic.len(),
            duration: d,
            length,
            lower_bound: bound.value,
            lower_bound_witness: EvidenceReport::new(traffic, &bound.evidence),
            evidence: bound.evidence.strength().as_str(),
            certified: c.certified(traffic),
            liquid_throughput: traffic.liquid_throughput().map(round2),
            schedule_throughput: length.and_then(|len| {
                traffic
                    .uniform_throughput()
                    .map(|t| round2(t * traffic.len() as f64 / len as f64))
            }),
            loss_percent: length.map(|len| round2(100.0 * (1.0 - d as f64 / len as f64))),
            stats: Stats(c.stats(), c.seconds()),
            timeframes: o.schedule().map(|s| s.frame_names(traffic)),
        }
    }

    /// Whether the verdict's claim rests on checked evidence only.
    pub fn certified(&self) -> bool {
        self.certified
    }

    /// Why the answer is not certified, when it is not: the verdict and the strength of
    /// the evidence it rests on.
    pub fn uncertified_reason(&self) -> Option<String> {
        (!self.certified).then(|| {
            format!(
                "the {} verdict rests on {} evidence, not on a checked proof",
                self.verdict, self.evidence
            )
        })
    }
}

/// `liquid verify`'s report: a schedule checked against a traffic, and with a proof
/// directory whether it is optimal.
#[derive(Serialize)]
pub struct Verification {
    model: String,
    schedule: String,
    valid: bool,
    /// Every problem found when the schedule is rejected (the first
    /// [`liquid_model::schedule::MAX_PROBLEMS`], then `and N more`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<String>,
    length: usize,
    duration: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    optimality: Option<String>,
    /// What `--proof` wrote: the proof directory, or the shorter schedule it found.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<String>,
    /// Whether the schedule is known optimal (liquid, or proven with `--prove`).
    #[serde(skip)]
    optimal: bool,
    /// Whether `--prove` showed a shorter schedule.
    #[serde(skip)]
    not_optimal: bool,
}

impl Verification {
    /// Validates `schedule` (read from the file named `label`, with the `problems`
    /// found reading it: transfer names the traffic does not have) against `traffic`,
    /// listing every problem ([`liquid_model::validate_all`]). A liquid schedule is
    /// optimal; with `prove`, a valid schedule that is not liquid is settled with SAT
    /// ([`crate::optimality::settle`]), the evidence written there, the stage that runs
    /// told on `progress`.
    pub fn new(
        traffic: &Traffic,
        schedule: &Schedule,
        mut problems: Problems,
        label: &str,
        prove: Option<&Path>,
        deadline: Option<Instant>,
        progress: &AtomicU64,
    ) -> Result<Verification, SolveError> {
        let mut report = Verification {
            model: traffic.name().to_string(),
            schedule: label.to_string(),
            valid: false,
            problems: Vec::new(),
            length: schedule.len(),
            duration: traffic.duration(),
            liquid: None,
            optimality: None,
            evidence: None,
            optimal: false,
            not_optimal: false,
        };
        match validate_all(traffic, schedule, &mut problems) {
            Some(r) if problems.is_empty() => {
                report.valid = true;
                report.liquid = Some(r.liquid);
                report.optimal = r.liquid;
                // A liquid schedule meets the lower bound Λ, so it is optimal; anything
                // longer needs a proof that no shorter schedule exists.
                report.optimality = Some(match prove {
                    _ if r.liquid => "optimal".to_string(),
                    None => "not proven".to_string(),
                    Some(dir) => {
                        let (settled, statement, evidence) =
                            settle(traffic, r.length, dir, deadline, progress)?;
                        report.evidence = evidence;
                        report.optimal = settled == Some(true);
                        report.not_optimal = settled == Some(false);
                        statement
                    }
                });
            }
            _ => report.problems = problems.lines(),
        }
        Ok(report)
    }

    /// Whether the schedule is valid.
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// Whether the schedule is known optimal: liquid, or proven so by `--prove`.
    pub fn optimal(&self) -> bool {
        self.optimal
    }

    /// Whether `--prove` found a shorter valid schedule.
    pub fn not_optimal(&self) -> bool {
        self.not_optimal
    }

    /// Where `--prove` wrote its evidence (the proof directory, or the shorter schedule's
    /// file); `None` when it wrote none.
    pub fn evidence(&self) -> Option<&str> {
        self.evidence.as_deref()
    }
}

/// Settles whether a schedule shorter than `len` exists: whether it was settled (optimal
/// or not), the optimality statement and the evidence's path.
fn settle(
    traffic: &Traffic,
    len: usize,
    dir: &Path,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Result<(Option<bool>, String, Option<String>), SolveError> {
    use crate::optimality::{settle, Settled};
    Ok(match settle(traffic, len, dir, deadline, progress)? {
        Settled::Optimal(p) => (
            Some(true),
            format!(
                "optimal: proven (checked proof) that {} timeframes do not suffice",
                p.colours()
            ),
            Some(dir.display().to_string()),
        ),
        Settled::Shorter { length, file } => (
            Some(false),
            format!("not optimal: a valid schedule of {length} timeframes exists"),
            Some(file.display().to_string()),
        ),
        Settled::Stopped => (
            None,
            "not proven (the time limit stopped the proof)".into(),
            None,
        ),
        Settled::TooLarge(why) => (None, format!("not proven: {why}"), None),
    })
}

/// `explain`'s time limit when none is given.
pub const DEFAULT_EXPLAIN_LIMIT: Duration = Duration::from_secs(60);

/// `liquid explain`'s report: the cores found, each with its checked proof and a
/// schedule of the core without each of its transfers, and in words what they prove.
#[derive(Serialize, serde::Deserialize)]
pub struct ExplainReport {
    model: String,
    transfers: usize,
    duration: usize,
    /// `None` when the time limit came first, or the search could not decide
    /// (`undecided`).
    liquid: Option<bool>,
    /// Whether the time limit stopped the search (the cores found before it are listed).
    stopped: bool,
    /// Why the search could not decide before the time limit, when it could not (the
    /// traffic is too large for the SAT encoding of an open question).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    undecided: Option<String>,
    /// The time limit applied, in seconds.
    time_limit_s: f64,
    /// In words.
    explanation: String,
    cores: Vec<CoreReport>,
    /// Where `--proof DIR` wrote the first core's checked proof and the core itself
    /// (`DIR/core.yaml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    proof_dir: Option<String>,
    time_s: f64,
}

#[derive(Serialize, serde::Deserialize)]
struct CoreReport {
    size: usize,
    /// Whether removing any one transfer makes the rest fit (false: the time limit
    /// stopped the minimisation; a smaller core may exist).
    minimal: bool,
    structure: String,
    transfers: Vec<String>,
    /// The links two or more of the core's transfers share.
    shared_links: Vec<String>,
    /// The checked proof that the core needs more than Λ timeframes.
    proof: ProofReport,
    /// For each core transfer, a validated Λ-frame schedule of the core without it.
    without_one: Vec<WithoutOne>,
}

#[derive(Serialize, serde::Deserialize)]
struct ProofReport {
    checked: bool,
    colours: usize,
    variables: usize,
    clauses: usize,
    added: u64,
}

#[derive(Serialize, serde::Deserialize)]
struct WithoutOne {
    removed: String,
    timeframes: Vec<Vec<String>>,
}

impl ExplainReport {
    /// Explains `traffic` within `limit` (default [`DEFAULT_EXPLAIN_LIMIT`]): its first
    /// core, or with `all` disjoint cores until the rest is liquid ([`cores`]). The stage
    /// that runs is told on `progress` ([`crate::explain::cores_with_progress`]).
    pub fn new(
        traffic: &Traffic,
        all: bool,
        limit: Option<Duration>,
        progress: &AtomicU64,
    ) -> Result<ExplainReport, ExplainError> {
        Ok(ExplainReport::with_cores(traffic, all, limit, progress)?.0)
    }

    /// [`ExplainReport::new`], and the cores it reports (to write their proofs:
    /// [`crate::explain::Core::write_proof`]).
    pub fn with_cores(
        traffic: &Traffic,
        all: bool,
        limit: Option<Duration>,
        progress: &AtomicU64,
    ) -> Result<(ExplainReport, Explained), ExplainError> {
        let start = Instant::now();
        let limit = limit.unwrap_or(DEFAULT_EXPLAIN_LIMIT);
        let found = cores_with_progress(traffic, all, start.checked_add(limit), progress)?;
        let mut report = ExplainReport::of(traffic, &found, limit);
        report.time_s = start.elapsed().as_secs_f64();
        Ok((report, found))
    }

    /// Says in the report that the first core's checked proof was written to `dir`
    /// (with the core as `dir/core.yaml`).
    pub fn set_proof_dir(&mut self, dir: &Path) {
        self.proof_dir = Some(dir.display().to_string());
    }

    /// Whether the traffic was found not liquid (a core was given).
    pub fn non_liquid(&self) -> bool {
        self.liquid == Some(false)
    }

    /// What the time limit left undone, for a warning: `None` when it did not stop the
    /// run; else the model, the limit and the report's explanation.
    pub fn stopped_warning(&self) -> Option<String> {
        self.stopped.then(|| {
            format!(
                "explain {:?}: stopped by --time-limit {} s: {}",
                self.model, self.time_limit_s, self.explanation
            )
        })
    }

    /// Checks this report (read from a shard file of `liquid explain --shard`) against
    /// `traffic`, the model it names, rather than trust it: the model's name, size and Λ;
    /// every core's transfers (the model's, each once, cores disjoint), shared links and
    /// structure found again, its proof made anew and checked ([`crate::explain::recheck_core`]),
    /// and every schedule of the core without one transfer validated in at most Λ
    /// timeframes (one per transfer when the core is called minimal); a claim of liquidity
    /// searched again ([`cores`]); and the explanation, which must be the one these facts
    /// give. The first disagreement, in words (also when `deadline` came before the
    /// checks ended).
    pub fn recheck(&self, traffic: &Traffic, deadline: Option<Instant>) -> Result<(), String> {
        let k = traffic.duration();
        let said = |field: &str, got: &dyn std::fmt::Display, want: &dyn std::fmt::Display| {
            format!("{field} is {got}, the model's is {want}")
        };
        let stopped = |what: &str| format!("the time limit came before {what} was checked again");
        if self.model != traffic.name() {
            return Err(said("model", &self.model, &traffic.name()));
        }
        if self.transfers != traffic.len() {
            return Err(said("transfers", &self.transfers, &traffic.len()));
        }
        if self.duration != k {
            return Err(said("duration", &self.duration, &k));
        }
        let mut seen: std::collections::HashSet<TransferId> = std::collections::HashSet::new();
        for (i, c) in self.cores.iter().enumerate() {
            let at = |e: String| format!("cores[{i}]: {e}");
            let mut ids = Vec::with_capacity(c.transfers.len());
            for name in &c.transfers {
                let t = traffic
                    .find_transfer(name)
                    .ok_or_else(|| at(format!("transfer {name:?} is not the model's")))?;
                if !seen.insert(t) {
                    return Err(at(format!("transfer {name:?} is in two cores or twice")));
                }
                ids.push(t);
            }
            ids.sort_unstable();
            if c.size != ids.len() {
                return Err(at(format!(
                    "size is {}, it lists {} transfers",
                    c.size,
                    ids.len()
                )));
            }
            let found = CoreReport::shared_links(traffic, &ids);
            if c.shared_links != found {
                return Err(at(format!(
                    "shared_links are {:?}, its transfers share {found:?}",
                    c.shared_links
                )));
            }
            let (structure, proof) = match crate::explain::recheck_core(traffic, &ids, deadline) {
                Ok(p) => p,
                Err(ExplainError::Stopped) => return Err(at(stopped("its proof"))),
                Err(e) => return Err(at(format!("not a core of the model: {e}"))),
            };
            if c.structure != structure.as_str() {
                return Err(at(format!(
                    "structure is {:?}, the core is {:?}",
                    c.structure,
                    structure.as_str()
                )));
            }
            if !c.proof.checked || c.proof.colours != proof.colours() {
                return Err(at(format!(
                    "its proof is of {} colours (checked: {}), the core's checked proof is of {}",
                    c.proof.colours,
                    c.proof.checked,
                    proof.colours()
                )));
            }
            let mut removed = std::collections::HashSet::new();
            for w in &c.without_one {
                let at = |e: String| at(format!("without_one {:?}: {e}", w.removed));
                let t = traffic
                    .find_transfer(&w.removed)
                    .filter(|t| ids.binary_search(t).is_ok())
                    .ok_or_else(|| at("not a transfer of the core".into()))?;
                if !removed.insert(t) {
                    return Err(at("given twice".into()));
                }
                let rest: Vec<TransferId> = ids.iter().copied().filter(|&u| u != t).collect();
                let local = |name: &String| -> Result<TransferId, String> {
                    traffic
                        .find_transfer(name)
                        .and_then(|u| rest.binary_search(&u).ok())
                        .map(|i| TransferId(i as u32))
                        .ok_or_else(|| at(format!("{name:?} is not one of the rest of the core")))
                };
                let frames = w
                    .timeframes
                    .iter()
                    .map(|f| f.iter().map(local).collect::<Result<Vec<_>, _>>())
                    .collect::<Result<Vec<_>, _>>()?;
                let schedule = Schedule::new(frames);
                let sub = traffic.sub_traffic(&rest);
                let report = liquid_model::validate(&sub, &schedule)
                    .map_err(|e| at(format!("not a schedule of the rest of the core: {e}")))?;
                if report.length > k {
                    return Err(at(format!(
                        "{} timeframes, more than Λ = {k}",
                        report.length
                    )));
                }
            }
            if c.minimal && removed.len() != ids.len() {
                return Err(at(format!(
                    "called minimal with {} of its {} transfers shown needed",
                    removed.len(),
                    ids.len()
                )));
            }
        }
        let liquid = liquidity(&self.cores, self.stopped, self.undecided.as_deref());
        if self.liquid != liquid {
            let name = |l: Option<bool>| l.map_or("null".to_string(), |l| l.to_string());
            return Err(format!(
                "liquid is {}, but {} cores and stopped {} give {}",
                name(self.liquid),
                self.cores.len(),
                self.stopped,
                name(liquid)
            ));
        }
        if liquid == Some(true) {
            match cores(traffic, false, deadline) {
                Ok(found) if found.stopped => return Err(stopped("its liquidity")),
                Ok(found) if !found.cores.is_empty() => {
                    return Err("called liquid, but the model has a non-liquid core".into())
                }
                Ok(_) => {}
                Err(ExplainError::Stopped) => return Err(stopped("its liquidity")),
                Err(e) => return Err(format!("its liquidity could not be checked again: {e}")),
            }
        }
        let want = explanation(
            traffic,
            &self.cores,
            self.stopped,
            self.undecided.as_deref(),
        );
        if self.explanation != want {
            return Err(format!(
                "the explanation is {:?}, these facts give {want:?}",
                self.explanation
            ));
        }
        let finite = |v: f64| v.is_finite() && v >= 0.0;
        if !finite(self.time_s) || !finite(self.time_limit_s) {
            return Err(format!(
                "time_s {} and time_limit_s {} must be seconds",
                self.time_s, self.time_limit_s
            ));
        }
        Ok(())
    }

    /// The time limit the run had, in seconds.
    pub fn time_limit_s(&self) -> f64 {
        self.time_limit_s
    }

    /// The report of what [`cores`] found within `limit` (its time left at 0).
    fn of(traffic: &Traffic, found: &Explained, limit: Duration) -> ExplainReport {
        let reports: Vec<CoreReport> = found
            .cores
            .iter()
            .map(|c| CoreReport::new(traffic, c))
            .collect();
        let stopped = found.stopped;
        let undecided = found.undecided.clone();
        ExplainReport {
            model: traffic.name().to_string(),
            transfers: traffic.len(),
            duration: traffic.duration(),
            liquid: liquidity(&reports, stopped, undecided.as_deref()),
            stopped,
            time_limit_s: limit.as_secs_f64(),
            explanation: explanation(traffic, &reports, stopped, undecided.as_deref()),
            undecided,
            cores: reports,
            proof_dir: None,
            time_s: 0.0,
        }
    }
}

impl CoreReport {
    /// The links two or more of the core's transfers share (the others play no part), by
    /// name in name order.
    fn shared_links(traffic: &Traffic, core: &[TransferId]) -> Vec<String> {
        let mut uses: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for &t in core {
            for &l in &traffic.transfer(t).path {
                *uses.entry(traffic.link_name(l)).or_default() += 1;
            }
        }
        uses.into_iter()
            .filter(|&(_, n)| n >= 2)
            .map(|(l, _)| l.to_string())
            .collect()
    }

    fn new(traffic: &Traffic, c: &crate::explain::Core) -> CoreReport {
        let r = c.proof().report();
        CoreReport {
            size: c.transfers().len(),
            minimal: c.minimal(),
            structure: c.structure().as_str().to_string(),
            transfers: names(traffic, c.transfers()),
            shared_links: CoreReport::shared_links(traffic, c.transfers()),
            proof: ProofReport {
                checked: true,
                colours: c.proof().colours(),
                variables: r.variables,
                clauses: r.clauses,
                added: r.added,
            },
            without_one: c
                .without_one()
                .iter()
                .map(|(t, s)| WithoutOne {
                    removed: traffic.transfer_name(*t).to_string(),
                    timeframes: s.frame_names(traffic),
                })
                .collect(),
        }
    }
}

/// Whether the traffic is liquid as the report's facts say: not with a core; yes without
/// one when the search ended on its own; unknown when the time limit or the size stopped it.
fn liquidity(reports: &[CoreReport], stopped: bool, undecided: Option<&str>) -> Option<bool> {
    if !reports.is_empty() {
        Some(false)
    } else {
        (!stopped && undecided.is_none()).then_some(true)
    }
}

/// What the cores prove, in words.
fn explanation(
    traffic: &Traffic,
    reports: &[CoreReport],
    stopped: bool,
    undecided: Option<&str>,
) -> String {
    let d = traffic.duration();
    match reports.first() {
        None if stopped => "the time limit came first: no core was found".to_string(),
        None if undecided.is_some() => "undecided: no core was found and the traffic was not shown liquid, as SAT cannot take a traffic this large (see `undecided`)".to_string(),
        Some(c) if !c.minimal => format!(
            "not liquid: {} of its {} transfers cannot share {d} timeframes (a checked proof), so every schedule needs at least {}; the time limit stopped the minimisation, so a smaller core may exist",
            c.size,
            traffic.len(),
            d + 1
        ),
        None => format!("liquid: the traffic has a schedule of Λ = {d} timeframes; nothing to explain"),
        Some(c) => format!(
            "not liquid: {} of its {} transfers ({}) cannot share {d} timeframes, and removing any one of them makes them fit; every schedule needs at least {}{}",
            c.size,
            traffic.len(),
            c.structure,
            d + 1,
            if reports.len() > 1 {
                format!(
                    " ({} disjoint cores; each alone forces {} frames, and as they can share frames the bound stays {})",
                    reports.len(),
                    d + 1,
                    d + 1
                )
            } else {
                String::new()
            }
        ),
    }
}
