//! Certificates as data: what an engine's answer rests on, in a form anyone can check.
//!
//! An engine answers with an [`Outcome`]: an enum whose variants carry exactly the
//! evidence their verdict needs (a liquid answer its schedule; an optimal one its schedule
//! and a lower bound; a non-liquid one a lower bound above Λ; ...), so that a verdict
//! without its evidence cannot be built. A lower bound carries its [`Evidence`]:
//!
//! | evidence | strength |
//! | --- | --- |
//! | a bottleneck link, a clique of pairwise congesting transfers | checked here, from the traffic alone |
//! | a [`CheckedProof`] | an LRAT proof the independent checker (`liquid-certify`) accepted |
//! | an exhaustive search | the engine's word, with its node count |
//! | a solver's claim (UNSAT without a proof) | the solver's word |
//! | a MIP dual bound | the solver's word, in floating point |
//!
//! A [`CheckedProof`] is made only by the checker (`liquid_certify::check_proof`, which
//! `liquid-proof` calls once it has re-encoded the traffic): no engine can call its own
//! answer a proof.

use std::fmt;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::schedule::{validate, Schedule, ScheduleReport};
use crate::traffic::{LinkId, Traffic, TransferId};

/// What an engine concluded about the optimal schedule length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A schedule of length Λ was found: liquid, hence optimal.
    Liquid,
    /// A schedule longer than Λ was found, with a lower bound equal to its length.
    Optimal,
    /// A lower bound above Λ: no liquid schedule exists (the optimum is not settled).
    NonLiquid,
    /// A valid schedule; its optimality is not settled.
    Feasible,
    /// A limit stopped the engine before it settled anything (it may still have a schedule).
    Unknown,
}

impl Verdict {
    /// Every verdict, in the order of the variants.
    pub const ALL: [Verdict; 5] = [
        Verdict::Liquid,
        Verdict::Optimal,
        Verdict::NonLiquid,
        Verdict::Feasible,
        Verdict::Unknown,
    ];

    /// The verdict a report names ([`Verdict::as_str`]), if any.
    pub fn from_name(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// Whether this verdict is the one a schedule of `length` timeframes (if any) and a
    /// lower bound `lower` give on a traffic of duration Λ = `duration`: the rule of the
    /// gate ([`check_outcome`]), for answers read back from files (a shard's rows).
    pub fn fits(self, length: Option<usize>, lower: usize, duration: usize) -> bool {
        let (len, lb, d) = (length, lower, duration);
        match self {
            Verdict::Liquid => len == Some(d),
            Verdict::Optimal => len == Some(lb) && lb > d,
            Verdict::NonLiquid => lb > d && len != Some(lb),
            Verdict::Feasible | Verdict::Unknown => lb == d && len != Some(d),
        }
    }

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

/// A proof that k timeframes do not suffice, accepted by the independent checker, bound
/// to the traffic's digest and the encoding options: defined by `liquid-certify`, whose
/// `check_proof` is its only constructor (see there).
pub use liquid_certify::CheckedProof;

/// Why no schedule can be shorter than some length.
#[derive(Debug, Clone, PartialEq)]
pub enum Evidence {
    /// A link whose users pairwise congest: the bound is the link's load.
    Bottleneck(LinkId),
    /// Transfers that pairwise congest: the bound is their number.
    Clique(Vec<TransferId>),
    /// An exhaustive search showed that `value - 1` timeframes do not suffice.
    Exhaustive {
        /// Which engine searched.
        engine: String,
        /// Search nodes visited: the size of the explored space.
        nodes: u64,
    },
    /// A solver found `value - 1` timeframes infeasible but gave no checkable proof.
    SolverClaim {
        /// Which engine said so.
        engine: String,
    },
    /// A MIP dual bound: every schedule needs at least `bound` timeframes.
    DualBound {
        /// The solver's bound (rounded up to give `value`).
        bound: f64,
    },
    /// A checked LRAT proof that `value - 1` timeframes do not suffice.
    CheckedProof(CheckedProof),
}

/// How much a lower bound can be trusted, strongest first (the order of `Ord`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Strength {
    /// Checked in this run without trusting any engine: a bottleneck or clique recomputed
    /// from the traffic, or a proof the independent checker accepted.
    Checked,
    /// An engine's exhaustive search (sound if the engine is; not independently checked).
    ExhaustiveSearch,
    /// A solver's word (UNSAT without a proof).
    SolverClaim,
    /// A MIP solver's dual bound (floating point, the solver's word).
    DualBound,
}

impl Strength {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Checked => "checked",
            Strength::ExhaustiveSearch => "exhaustive-search",
            Strength::SolverClaim => "solver-claim",
            Strength::DualBound => "dual-bound",
        }
    }
}

impl Evidence {
    /// Every name [`Evidence::kind`] gives, in the order of the variants: what a file that
    /// names a kind (a baseline, a shard's claim) may say.
    pub const KINDS: [&'static str; 6] = [
        "bottleneck",
        "clique",
        "exhaustive-search",
        "unsat-claim",
        "dual-bound",
        "sat-proof",
    ];

    /// The kind's name in reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Evidence::Bottleneck(_) => "bottleneck",
            Evidence::Clique(_) => "clique",
            Evidence::Exhaustive { .. } => "exhaustive-search",
            Evidence::SolverClaim { .. } => "unsat-claim",
            Evidence::DualBound { .. } => "dual-bound",
            Evidence::CheckedProof(_) => "sat-proof",
        }
    }

    /// How strong this evidence is, once [`LowerBound::check`] has passed.
    pub fn strength(&self) -> Strength {
        match self {
            Evidence::Bottleneck(_) | Evidence::Clique(_) | Evidence::CheckedProof(_) => {
                Strength::Checked
            }
            Evidence::Exhaustive { .. } => Strength::ExhaustiveSearch,
            Evidence::SolverClaim { .. } => Strength::SolverClaim,
            Evidence::DualBound { .. } => Strength::DualBound,
        }
    }
}

/// A lower bound on the length of every schedule, with its evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct LowerBound {
    /// The bound.
    pub value: usize,
    /// Why it holds.
    pub evidence: Evidence,
}

impl LowerBound {
    /// The bound Λ witnessed by the first bottleneck link.
    pub fn duration(traffic: &Traffic) -> LowerBound {
        let link = traffic.bottlenecks()[0];
        LowerBound {
            value: traffic.load(link),
            evidence: Evidence::Bottleneck(link),
        }
    }

    /// A bound above Λ that an engine's exhaustive search established.
    pub fn exhaustive(value: usize, engine: &str, nodes: u64) -> LowerBound {
        LowerBound {
            value,
            evidence: Evidence::Exhaustive {
                engine: engine.to_string(),
                nodes,
            },
        }
    }

    /// A bound that a clique of pairwise congesting transfers witnesses.
    pub fn clique(transfers: Vec<TransferId>) -> LowerBound {
        LowerBound {
            value: transfers.len(),
            evidence: Evidence::Clique(transfers),
        }
    }

    /// Checks what can be checked of the evidence against the traffic: a bottleneck's
    /// load, a clique's size and pairwise congestion, a checked proof's traffic (by
    /// digest) and number of timeframes (that its formula is this traffic's encoding is
    /// the engine gate's to re-derive: this crate has no encoder). An engine's or solver's word is accepted as such (its
    /// [`Evidence::strength`] says so).
    pub fn check(&self, traffic: &Traffic) -> Result<(), String> {
        match &self.evidence {
            Evidence::Bottleneck(l) => {
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
            Evidence::Clique(ts) => {
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
            Evidence::CheckedProof(p) => {
                let hash = traffic.sha256();
                if p.traffic_sha256() != hash {
                    return Err(format!(
                        "the proof was checked for another traffic (sha256 {}), not for {:?} \
                         (sha256 {hash})",
                        p.traffic_sha256(),
                        traffic.name()
                    ));
                }
                if p.colours() + 1 != self.value {
                    return Err(format!(
                        "the proof shows that {} timeframes do not suffice, not {}",
                        p.colours(),
                        self.value - 1
                    ));
                }
                Ok(())
            }
            Evidence::Exhaustive { .. }
            | Evidence::SolverClaim { .. }
            | Evidence::DualBound { .. } => Ok(()),
        }
    }

    /// Whether this bound is checked evidence (see [`Strength::Checked`]).
    pub fn is_checked(&self) -> bool {
        self.evidence.strength() == Strength::Checked
    }

    /// The better of two bounds: the larger; between equal ones, the stronger evidence.
    pub fn better(self, other: LowerBound) -> LowerBound {
        if other.value > self.value
            || (other.value == self.value && other.evidence.strength() < self.evidence.strength())
        {
            other
        } else {
            self
        }
    }
}

/// Limits on an engine's run. An engine that hits one answers with what it has
/// ([`Outcome::Unknown`] with its best schedule, or a bound it proved), never with a guess.
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

/// An engine's conclusion, each verdict with the evidence it needs.
///
/// Schedules are upper-bound witnesses and must still be validated with
/// [`crate::validate`] before anyone reports them: engines never trust each other
/// ([`check_outcome`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A schedule of length Λ: liquid, hence optimal (Λ is witnessed by a bottleneck).
    Liquid {
        /// The schedule.
        schedule: Schedule,
    },
    /// A schedule longer than Λ and a lower bound equal to its length.
    Optimal {
        /// The schedule.
        schedule: Schedule,
        /// The matching lower bound.
        bound: LowerBound,
    },
    /// A lower bound above Λ: no liquid schedule exists; the optimum is not settled.
    NonLiquid {
        /// The bound.
        bound: LowerBound,
        /// The best schedule found, if any.
        best: Option<Schedule>,
    },
    /// A valid schedule; the engine does not settle its optimality (a heuristic).
    Feasible {
        /// The schedule.
        schedule: Schedule,
        /// The best lower bound known (at least Λ, not above Λ).
        bound: LowerBound,
    },
    /// A limit stopped the engine before it settled anything.
    Unknown {
        /// The best schedule found before the limit, if any.
        best: Option<Schedule>,
        /// The best lower bound known (not above Λ).
        bound: LowerBound,
    },
}

impl Outcome {
    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        match self {
            Outcome::Liquid { .. } => Verdict::Liquid,
            Outcome::Optimal { .. } => Verdict::Optimal,
            Outcome::NonLiquid { .. } => Verdict::NonLiquid,
            Outcome::Feasible { .. } => Verdict::Feasible,
            Outcome::Unknown { .. } => Verdict::Unknown,
        }
    }

    /// The best schedule, if any.
    pub fn schedule(&self) -> Option<&Schedule> {
        match self {
            Outcome::Liquid { schedule }
            | Outcome::Optimal { schedule, .. }
            | Outcome::Feasible { schedule, .. } => Some(schedule),
            Outcome::NonLiquid { best, .. } | Outcome::Unknown { best, .. } => best.as_ref(),
        }
    }

    /// The best schedule, taken out.
    pub fn into_schedule(self) -> Option<Schedule> {
        match self {
            Outcome::Liquid { schedule }
            | Outcome::Optimal { schedule, .. }
            | Outcome::Feasible { schedule, .. } => Some(schedule),
            Outcome::NonLiquid { best, .. } | Outcome::Unknown { best, .. } => best,
        }
    }

    /// The lower bound the outcome rests on (for a liquid one: Λ, by a bottleneck).
    pub fn lower_bound(&self, traffic: &Traffic) -> LowerBound {
        match self {
            Outcome::Liquid { .. } => LowerBound::duration(traffic),
            Outcome::Optimal { bound, .. }
            | Outcome::NonLiquid { bound, .. }
            | Outcome::Feasible { bound, .. }
            | Outcome::Unknown { bound, .. } => bound.clone(),
        }
    }

    /// The lower bound, mutable (to upgrade its evidence), when the outcome carries one.
    pub fn bound_mut(&mut self) -> Option<&mut LowerBound> {
        match self {
            Outcome::Liquid { .. } => None,
            Outcome::Optimal { bound, .. }
            | Outcome::NonLiquid { bound, .. }
            | Outcome::Feasible { bound, .. }
            | Outcome::Unknown { bound, .. } => Some(bound),
        }
    }

    /// The outcome that a best schedule and a best lower bound settle, for an engine that
    /// ran to completion (`finished`) or was stopped by a limit: liquid when the schedule
    /// has length Λ, optimal when it meets a bound above Λ, non-liquid when the bound
    /// exceeds Λ, and otherwise feasible (finished) or unknown (stopped).
    pub fn settle(
        traffic: &Traffic,
        best: Option<Schedule>,
        bound: LowerBound,
        finished: bool,
    ) -> Outcome {
        let d = traffic.duration();
        match best {
            Some(schedule) if schedule.len() == d => Outcome::Liquid { schedule },
            Some(schedule) if schedule.len() == bound.value => Outcome::Optimal { schedule, bound },
            best if bound.value > d => Outcome::NonLiquid { bound, best },
            Some(schedule) if finished => Outcome::Feasible { schedule, bound },
            best => Outcome::Unknown { best, bound },
        }
    }
}

/// What one engine run returns: who answered, the outcome, and statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The engine's name (`native`, `dsatur`, `sat`, ...).
    pub engine: String,
    /// The conclusion with its evidence.
    pub outcome: Outcome,
    /// Engine statistics, in a stable order.
    pub stats: Vec<(String, StatValue)>,
}

impl Answer {
    /// An answer with no statistics.
    pub fn new(engine: &str, outcome: Outcome) -> Answer {
        Answer {
            engine: engine.to_string(),
            outcome,
            stats: Vec::new(),
        }
    }

    /// The verdict (shorthand).
    pub fn verdict(&self) -> Verdict {
        self.outcome.verdict()
    }

    /// Adds a statistic.
    pub fn stat(mut self, key: &str, value: StatValue) -> Answer {
        self.stats.push((key.to_string(), value));
        self
    }
}

/// Checks an outcome for internal consistency against the traffic: the schedule
/// validates, the lower bound is at least Λ and what can be checked of its evidence holds,
/// and the verdict agrees with the schedule's length and the bound. Returns the schedule's
/// report, if any.
///
/// This is the gate every engine's answer passes before it is reported.
pub fn check_outcome(
    traffic: &Traffic,
    outcome: &Outcome,
) -> Result<Option<ScheduleReport>, String> {
    let report = match outcome.schedule() {
        Some(s) => Some(validate(traffic, s).map_err(|e| format!("invalid schedule: {e}"))?),
        None => None,
    };
    let d = traffic.duration();
    let bound = outcome.lower_bound(traffic);
    let lb = bound.value;
    if lb < d {
        return Err(format!("lower bound {lb} is below Λ = {d}"));
    }
    bound
        .check(traffic)
        .map_err(|e| format!("lower-bound evidence fails: {e}"))?;
    let len = report.map(|r| r.length);
    if let Some(len) = len {
        if len < lb {
            return Err(format!(
                "schedule of length {len} below the claimed lower bound {lb}"
            ));
        }
    }
    if !outcome.verdict().fits(len, lb, d) {
        return Err(format!(
            "verdict {} does not match schedule length {} and lower bound {lb} (Λ = {d})",
            outcome.verdict(),
            len.map_or("none".to_string(), |l| l.to_string()),
        ));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples;

    #[test]
    fn settle_names_what_the_bounds_show() {
        let t = examples::no_team();
        let d = t.duration();
        let all: Vec<TransferId> = (0..t.len() as u32).map(TransferId).collect();
        let three = Schedule::new(all.iter().map(|&x| vec![x]).collect());
        let o = Outcome::settle(&t, Some(three.clone()), LowerBound::duration(&t), true);
        assert_eq!(o.verdict(), Verdict::Feasible);
        let o = Outcome::settle(&t, Some(three.clone()), LowerBound::duration(&t), false);
        assert_eq!(o.verdict(), Verdict::Unknown);
        let bound = LowerBound::clique(all.clone());
        assert_eq!(bound.value, d + 1);
        let o = Outcome::settle(&t, Some(three), bound.clone(), false);
        assert_eq!(o.verdict(), Verdict::Optimal);
        assert_eq!(
            check_outcome(&t, &o).map(|r| r.map(|r| r.length)),
            Ok(Some(3))
        );
        let o = Outcome::settle(&t, None, bound, false);
        assert_eq!(o.verdict(), Verdict::NonLiquid);
    }

    #[test]
    fn the_gate_refuses_inconsistent_outcomes() {
        let t = examples::no_team();
        let all: Vec<TransferId> = (0..t.len() as u32).map(TransferId).collect();
        // Two transfers that congest, in one frame.
        let bad = Schedule::new(vec![all.clone()]);
        let e = check_outcome(&t, &Outcome::Liquid { schedule: bad }).expect_err("invalid");
        assert!(e.contains("invalid schedule"), "{e}");
        // "Non-liquid" on a bound of Λ.
        let o = Outcome::NonLiquid {
            bound: LowerBound::duration(&t),
            best: None,
        };
        assert!(check_outcome(&t, &o).is_err());
        // A clique that is not one.
        let o = Outcome::NonLiquid {
            bound: LowerBound {
                value: 3,
                evidence: Evidence::Clique(vec![all[0], all[0], all[1]]),
            },
            best: None,
        };
        let e = check_outcome(&t, &o).expect_err("not a clique");
        assert!(e.contains("do not congest"), "{e}");
        // "Feasible" with a bound above Λ hides a non-liquid claim.
        let o = Outcome::Feasible {
            schedule: Schedule::new(all.iter().map(|&x| vec![x]).collect()),
            bound: LowerBound::exhaustive(3, "x", 1),
        };
        assert!(check_outcome(&t, &o).is_err());
    }

    #[test]
    fn the_stronger_of_equal_bounds_wins() {
        let t = examples::no_team();
        let all: Vec<TransferId> = (0..t.len() as u32).map(TransferId).collect();
        let word = LowerBound::exhaustive(3, "native", 7);
        let clique = LowerBound::clique(all);
        assert_eq!(word.clone().better(clique.clone()), clique);
        assert_eq!(clique.clone().better(word.clone()), clique);
        assert_eq!(
            LowerBound::duration(&t).better(word.clone()),
            word,
            "the larger bound wins"
        );
    }
}
