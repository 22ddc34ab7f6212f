//! Why a traffic is not liquid: minimal non-liquid cores (`liquid explain`).
//!
//! A *core* is a set of transfers that cannot be scheduled in Λ timeframes (Λ of the whole
//! traffic) although every proper subset obtained by removing one transfer can. A core
//! proves the whole traffic non-liquid (more transfers never help), and it is the smallest
//! reason in the sense that nothing can be dropped from it.
//!
//! Technique: a group-MUS over the SAT encoding with Λ timeframes. Each transfer's
//! at-least-one clause gets a selector; varisat solves under the selectors as assumptions
//! and names a failed subset; deletion-based minimisation then tries each transfer out,
//! keeping the solver's smaller failed subset when the rest is still unsatisfiable
//! (clause-set refinement). The encoding omits the team and symmetry clauses, which are
//! only sound for the whole traffic. The certificate is checked, not trusted: the core
//! itself is re-encoded and refuted with a proof that `liquid-proof` checks, and for every
//! core transfer the core without it gets a Λ-frame schedule validated by the model crate.

use std::time::Instant;

use liquid_model::{validate, CheckedProof, Schedule, Traffic, TransferId};
use liquid_sat::{encode, prove, AmoEncoding, EncodeOptions, Proved, SatError};
use thiserror::Error;
use varisat::{ExtendFormula, Lit, Solver, Var};

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

/// A minimal non-liquid core with its certificate. Only [`core_of`] makes one (its fields
/// are private), so holding one means its checks passed.
#[derive(Debug, Clone)]
pub struct Core {
    transfers: Vec<TransferId>,
    structure: Structure,
    proof: CheckedProof,
    without_one: Vec<(TransferId, Schedule)>,
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

    /// For every core transfer, a validated Λ-frame schedule of the core without it.
    pub fn without_one(&self) -> &[(TransferId, Schedule)] {
        &self.without_one
    }
}

/// Why no core could be given.
#[derive(Debug, Error)]
pub enum ExplainError {
    /// The encoding is too large, or varisat failed.
    #[error(transparent)]
    Sat(#[from] SatError),
    /// varisat failed in the minimisation.
    #[error("varisat failed: {0}")]
    Solver(String),
    /// The time limit came first.
    #[error("the time limit came first")]
    Stopped,
    /// A check of the result failed (a bug: the core is not what it should be).
    #[error("internal error: {0}")]
    Internal(String),
}

/// The encoding options of the core search: only the families that stay sound for any
/// subset of the traffic.
fn options() -> EncodeOptions {
    EncodeOptions {
        amo: AmoEncoding::Auto,
        transfer_amo: true,
        team: false,
        symmetry: false,
        frames: None,
    }
}

/// A minimal subset of `candidates` (transfers of `traffic`) that cannot be scheduled in
/// `k` timeframes; `None` when all of them can.
fn mus(
    traffic: &Traffic,
    candidates: &[TransferId],
    k: usize,
    deadline: Option<Instant>,
) -> Result<Option<Vec<TransferId>>, ExplainError> {
    let e = encode(traffic, k, &options()).map_err(SatError::from)?;
    let n = traffic.len();
    let mut solver = Solver::new();
    let first_selector = e.num_vars() + 1;
    let selector = |t: TransferId| {
        Lit::from_var(
            Var::from_dimacs((first_selector + t.index()) as isize),
            true,
        )
    };
    let mut buf = Vec::new();
    for (i, c) in e.clauses().iter().enumerate() {
        buf.clear();
        buf.extend(c.iter().map(|&l| Lit::from_dimacs(l as isize)));
        // Clauses 0..n are the at-least-one clauses, in transfer order (family 1).
        if i < n {
            buf.push(!selector(TransferId(i as u32)));
        }
        solver.add_clause(&buf);
    }
    let mut solve = |set: &[TransferId]| -> Result<Option<Vec<TransferId>>, ExplainError> {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(ExplainError::Stopped);
        }
        let lits: Vec<Lit> = set.iter().map(|&t| selector(t)).collect();
        solver.assume(&lits);
        match solver.solve() {
            Ok(true) => Ok(None),
            Ok(false) => {
                let core = solver.failed_core().unwrap_or(&[]);
                let mut out: Vec<TransferId> = core
                    .iter()
                    .map(|l| TransferId((l.var().to_dimacs() as usize - first_selector) as u32))
                    .collect();
                out.sort_unstable();
                Ok(Some(out))
            }
            Err(e) => Err(ExplainError::Solver(e.to_string())),
        }
    };
    let Some(mut core) = solve(candidates)? else {
        return Ok(None);
    };
    let mut i = 0;
    while i < core.len() {
        let rest: Vec<TransferId> = core.iter().copied().filter(|&t| t != core[i]).collect();
        match solve(&rest)? {
            // Still unsatisfiable without it: keep the solver's (smaller) failed subset.
            Some(smaller) => {
                let keep: Vec<TransferId> = core[..i].to_vec();
                core = smaller;
                // The transfers before i were shown necessary; continue after those kept.
                i = core.iter().filter(|t| keep.contains(t)).count();
            }
            // Needed: it stays.
            None => i += 1,
        }
    }
    Ok(Some(core))
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

/// A checked minimal core of `candidates` at Λ timeframes of `traffic`; `None` when the
/// candidates can be scheduled in Λ.
pub fn core_of(
    traffic: &Traffic,
    candidates: &[TransferId],
    deadline: Option<Instant>,
) -> Result<Option<Core>, ExplainError> {
    let k = traffic.duration();
    let Some(core) = mus(traffic, candidates, k, deadline)? else {
        return Ok(None);
    };
    let sub = traffic.sub_traffic(&core);
    let refutation = match prove(&sub, k, &EncodeOptions::default(), deadline)? {
        Some(Proved::Unsat(r)) => r,
        Some(Proved::Sat(_)) => {
            return Err(ExplainError::Internal(
                "the core has a schedule of Λ timeframes after all".into(),
            ))
        }
        None => return Err(ExplainError::Stopped),
    };
    let proof = liquid_proof::check_refutation(&sub, &refutation)
        .map_err(|e| ExplainError::Internal(format!("the core's proof was rejected: {e}")))?;
    let mut without_one = Vec::new();
    for (i, &t) in core.iter().enumerate() {
        let rest: Vec<TransferId> = core.iter().copied().filter(|&u| u != t).collect();
        let rest_traffic = traffic.sub_traffic(&rest);
        let schedule =
            match liquid_sat::decide(&rest_traffic, k, &EncodeOptions::default(), deadline)?.1 {
                Some(Some(s)) => s,
                Some(None) => {
                    return Err(ExplainError::Internal(format!(
                        "the core is not minimal: it stays non-liquid without {:?}",
                        traffic.transfer_name(t)
                    )))
                }
                None => return Err(ExplainError::Stopped),
            };
        validate(&rest_traffic, &schedule).map_err(|e| {
            ExplainError::Internal(format!("the schedule without transfer {i} is invalid: {e}"))
        })?;
        // Back to the traffic's transfer ids (the sub-traffic numbers them 0..).
        let frames = schedule
            .frames
            .iter()
            .map(|f| f.iter().map(|&x| rest[x.index()]).collect())
            .collect();
        without_one.push((t, Schedule::new(frames)));
    }
    Ok(Some(Core {
        structure: structure(traffic, &core, k),
        transfers: core,
        proof,
        without_one,
    }))
}

/// Disjoint minimal cores: the first of the whole traffic, then (with `all`) one of what
/// remains once the earlier cores are set aside, until the rest is liquid.
pub fn cores(
    traffic: &Traffic,
    all: bool,
    deadline: Option<Instant>,
) -> Result<Vec<Core>, ExplainError> {
    let mut out: Vec<Core> = Vec::new();
    let mut rest: Vec<TransferId> = traffic.transfer_ids().collect();
    while let Some(c) = core_of(traffic, &rest, deadline)? {
        rest.retain(|t| !c.transfers.contains(t));
        out.push(c);
        if !all {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::examples::no_team;

    #[test]
    fn no_team_is_its_own_core_a_clique() {
        let t = no_team();
        let cs = cores(&t, true, None).expect("runs");
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
        let cs = cores(&t, false, None).expect("runs");
        assert_eq!(cs.len(), 1);
        let names: Vec<&str> = cs[0]
            .transfers
            .iter()
            .map(|&x| t.transfer_name(x))
            .collect();
        assert_eq!(names, ["c0", "c1", "c2", "c3", "c4"]);
        assert_eq!(cs[0].structure, Structure::OddCycle);
    }

    #[test]
    fn a_liquid_traffic_has_no_core() {
        let t = Traffic::from_paths("t", &[("x", vec!["a"]), ("y", vec!["b"])]).expect("valid");
        assert!(cores(&t, true, None).expect("runs").is_empty());
    }
}
