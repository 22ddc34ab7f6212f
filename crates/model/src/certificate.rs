//! Certificates as data: what an engine's answer rests on, in a form anyone can check.
//!
//! A lower bound is witnessed by a bottleneck link (its users pairwise congest, so they
//! need distinct timeframes: Λ) or by a clique of pairwise congesting transfers. Both are
//! checked here in time linear in the witness, or quadratic for a clique.

use std::fmt;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::schedule::{validate, Schedule, ScheduleReport};

use crate::traffic::{LinkId, Traffic, TransferId};

/// What an engine concluded about the optimal schedule length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A schedule of length Λ was found: liquid, hence optimal.
    Liquid,
    /// A schedule longer than Λ was found and proven optimal.
    Optimal,
    /// The traffic was proven to have no liquid schedule (the optimum is not settled).
    NonLiquid,
    /// A valid schedule was found; its optimality is not proven.
    Feasible,
    /// No schedule and no proof: a limit stopped the engine.
    Unknown,
}

impl Verdict {
    /// The verdict's name as it appears in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Liquid => "liquid",
            Verdict::Optimal => "optimal",
            Verdict::NonLiquid => "non-liquid",
            Verdict::Feasible => "feasible",
            Verdict::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why no schedule can be shorter than some length.
///
/// `Bottleneck`, `Clique` and `SatProof` can be checked independently of the engine that
/// produced them; `Exhaustion`, `Unsat` and `DualBound` are an engine's word (the number of search
/// nodes, or the MIP solver's bound) and are reported as such.
#[derive(Debug, Clone, PartialEq)]
pub enum Witness {
    /// A link whose users pairwise congest: the bound is the link's load.
    Bottleneck(LinkId),
    /// Transfers that pairwise congest: the bound is their number.
    Clique(Vec<TransferId>),
    /// An exhaustive search showed that `value - 1` timeframes do not suffice.
    Exhaustion {
        /// Which engine searched.
        engine: String,
        /// Search nodes visited: the size of the explored space.
        nodes: u64,
    },
    /// A clausal proof (DIMACS CNF + LRAT) that `value - 1` timeframes do not suffice.
    SatProof {
        /// Directory holding `formula.cnf`, `proof.lrat` and `manifest.yaml`.
        dir: String,
    },
    /// A SAT solver found the CNF for `value - 1` timeframes unsatisfiable but wrote no
    /// proof: the solver's word (ask for a proof with `liquid prove` or `--prove`).
    Unsat {
        /// Which engine said so.
        engine: String,
    },
    /// A MIP dual bound: every schedule needs at least `bound` timeframes.
    DualBound {
        /// The solver's bound (rounded up to give `value`).
        bound: f64,
    },
}

/// A lower bound on the length of every schedule, with its witness.
#[derive(Debug, Clone, PartialEq)]
pub struct LowerBound {
    /// The bound.
    pub value: usize,
    /// Why it holds.
    pub witness: Witness,
}

impl LowerBound {
    /// The bound Λ witnessed by the first bottleneck link.
    pub fn duration(traffic: &Traffic) -> LowerBound {
        let link = traffic.bottlenecks()[0];
        LowerBound {
            value: traffic.load(link),
            witness: Witness::Bottleneck(link),
        }
    }

    /// Checks the witness against the traffic: the bottleneck's load, or the clique's
    /// size and pairwise congestion, must equal the claimed value.
    pub fn check(&self, traffic: &Traffic) -> Result<(), String> {
        match &self.witness {
            Witness::Bottleneck(l) => {
                if l.index() >= traffic.num_links() {
                    return Err(format!("{l} is not a link of the traffic"));
                }
                let load = traffic.load(*l);
                if load != self.value {
                    return Err(format!(
                        "link {:?} has load {load}, not {}",
                        traffic.link_name(*l),
                        self.value
                    ));
                }
                Ok(())
            }
            Witness::Clique(ts) => {
                if ts.len() != self.value {
                    return Err(format!(
                        "the clique has {} transfers, not {}",
                        ts.len(),
                        self.value
                    ));
                }
                if let Some(t) = ts.iter().find(|t| t.index() >= traffic.len()) {
                    return Err(format!("{t} is not a transfer of the traffic"));
                }
                for (i, &a) in ts.iter().enumerate() {
                    for &b in &ts[i + 1..] {
                        if a == b || !traffic.congest(a, b) {
                            return Err(format!(
                                "transfers {:?} and {:?} do not congest",
                                traffic.transfer_name(a),
                                traffic.transfer_name(b)
                            ));
                        }
                    }
                }
                Ok(())
            }
            Witness::Exhaustion { .. }
            | Witness::SatProof { .. }
            | Witness::Unsat { .. }
            | Witness::DualBound { .. } => {
                Err("this witness is not checkable from the traffic alone".to_string())
            }
        }
    }

    /// Whether [`LowerBound::check`] can verify this witness from the traffic alone.
    pub fn is_self_checking(&self) -> bool {
        matches!(self.witness, Witness::Bottleneck(_) | Witness::Clique(_))
    }
}

/// Limits on an engine's run. An engine that hits one answers with what it has
/// ([`Verdict::Feasible`] or [`Verdict::Unknown`]), never with a guess.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock limit.
    pub time: Option<Duration>,
    /// Search-node limit (engines that count nodes).
    pub nodes: Option<u64>,
}

impl Limits {
    /// The instant at which the time limit runs out, counted from now.
    pub fn deadline(&self) -> Option<Instant> {
        self.time.map(|t| Instant::now() + t)
    }
}

/// One engine statistic, for reports (`nodes: 1234`, `backtracks: 17`, ...).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StatValue {
    /// A count.
    Count(u64),
    /// A real number (seconds, ratios).
    Real(f64),
    /// Text.
    Text(String),
}

/// What an engine returns: its verdict with the evidence for it.
///
/// The schedule (if any) is the upper-bound witness and must still be validated with
/// [`crate::validate`] before anyone reports it: engines never trust each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The engine's name (`native`, `dsatur`, `sat`, ...).
    pub engine: String,
    /// The conclusion.
    pub verdict: Verdict,
    /// The best schedule found.
    pub schedule: Option<Schedule>,
    /// The best lower bound known, with its witness.
    pub lower_bound: LowerBound,
    /// Engine statistics, in a stable order.
    pub stats: Vec<(String, StatValue)>,
}

/// Checks an engine's outcome for internal consistency against the traffic: the schedule
/// validates, the verdict agrees with its length and the lower bound, and a
/// self-checking lower-bound witness holds. Returns the schedule's report, if any.
///
/// This is the gate every engine's answer passes before it is reported.
pub fn check_outcome(
    traffic: &Traffic,
    outcome: &Outcome,
) -> Result<Option<ScheduleReport>, String> {
    let report = match &outcome.schedule {
        Some(s) => Some(validate(traffic, s).map_err(|e| format!("invalid schedule: {e}"))?),
        None => None,
    };
    let lb = outcome.lower_bound.value;
    if lb < traffic.duration() {
        return Err(format!(
            "lower bound {lb} is below Λ = {}",
            traffic.duration()
        ));
    }
    if outcome.lower_bound.is_self_checking() {
        outcome
            .lower_bound
            .check(traffic)
            .map_err(|e| format!("lower-bound witness fails: {e}"))?;
    }
    let len = report.map(|r| r.length);
    if let Some(len) = len {
        if len < lb {
            return Err(format!(
                "schedule of length {len} below the claimed lower bound {lb}"
            ));
        }
    }
    let ok = match outcome.verdict {
        Verdict::Liquid => len == Some(traffic.duration()),
        Verdict::Optimal => len == Some(lb),
        Verdict::NonLiquid => lb > traffic.duration(),
        Verdict::Feasible => len.is_some(),
        Verdict::Unknown => true,
    };
    if !ok {
        return Err(format!(
            "verdict {} does not match schedule length {} and lower bound {lb} (Λ = {})",
            outcome.verdict,
            len.map_or("none".to_string(), |l| l.to_string()),
            traffic.duration()
        ));
    }
    Ok(report)
}
