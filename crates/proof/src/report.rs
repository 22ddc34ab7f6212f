//! The reports of `liquid prove`, `liquid check-proof` and `liquid certify`: a proof run
//! from a traffic to a checked proof directory, a directory checked against a traffic,
//! and a certificate checked from files, in the fields (and their order) that the YAML
//! and JSON outputs show.

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::stage::{self, Stage};
use liquid_model::{Schedule, Traffic};
use liquid_sat::{EncodeOptions, Proved, SatError, SearchProofError, SearchProved};
use serde::Serialize;
use thiserror::Error;

use crate::certificate::certify;
use crate::{write_and_verify, ProofError};

/// Who writes the proof of [`prove`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prover {
    /// At k = Λ the team-cover search (`liquid_sat::teams`), varisat when it declines or
    /// stops, and at other k.
    Auto,
    /// varisat with its LRAT writer.
    Sat,
    /// The native searches' refutation, made LRAT (when k = Λ the team-cover search, then
    /// the frame search; else, or when they give up, the colouring search).
    Search,
}

impl Prover {
    /// The prover's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Prover::Auto => "auto",
            Prover::Sat => "sat",
            Prover::Search => "search",
        }
    }
}

/// Why [`prove`] has no report.
#[derive(Debug, Error)]
pub enum ProveError {
    /// The user's input: too large to encode, k = 0, or k outside what the search refutes.
    #[error("{0}")]
    Input(String),
    /// The prover failed (varisat, or a search trace that is not a proof).
    #[error("{0}")]
    Internal(String),
    /// The proof directory could not be written or read back.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// The proof written was rejected when read back (a bug of the prover or the writer).
    #[error("the proof written to {dir} was rejected: {why}")]
    Rejected {
        /// The proof directory.
        dir: String,
        /// Why.
        why: String,
    },
}

/// `liquid prove`'s report.
#[derive(Debug, Serialize)]
pub struct ProveReport {
    model: String,
    duration: usize,
    colours: usize,
    prover: &'static str,
    result: &'static str,
    /// Who wrote the proof (`varisat`, or a native search), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    proof_by: Option<&'static str>,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    variables: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clauses: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof_bytes: Option<usize>,
    time_s: f64,
}

impl ProveReport {
    /// Whether a checked proof that `colours` timeframes do not suffice was written.
    pub fn proved(&self) -> bool {
        self.proof.is_some()
    }
}

/// The proof run, with who made it: `Err(why)` when it ended with neither (the deadline
/// came first, or the colouring search's trace passed its cap).
fn run(
    traffic: &Traffic,
    k: usize,
    prover: Prover,
    deadline: Option<Instant>,
) -> Result<Result<(Proved, &'static str), String>, ProveError> {
    let neither = format!("no proof that {k} timeframes do not suffice, and no schedule of {k}");
    let late = || Ok(Err(format!("the time limit came first: {neither}")));
    let sat = |r: Result<Option<(Proved, &'static str)>, SatError>| match r {
        Ok(Some(p)) => Ok(Ok(p)),
        Ok(None) => late(),
        // Too large to encode, or k = 0: the user's input.
        Err(SatError::Encode(e)) => Err(ProveError::Input(e.to_string())),
        // varisat failed: ours.
        Err(e) => Err(ProveError::Internal(e.to_string())),
    };
    match prover {
        Prover::Auto => sat(liquid_sat::prove_auto(traffic, k, deadline)),
        Prover::Sat => sat(
            liquid_sat::prove(traffic, k, &EncodeOptions::default(), deadline)
                .map(|p| p.map(|p| (p, "varisat"))),
        ),
        Prover::Search => match liquid_sat::prove_by_search(traffic, k, deadline) {
            Ok(SearchProved::Unsat {
                refutation, search, ..
            }) => Ok(Ok((Proved::Unsat(refutation), search))),
            Ok(SearchProved::Sat(s)) => Ok(Ok((Proved::Sat(s), "native search"))),
            Ok(SearchProved::Stopped) => late(),
            Err(e @ SearchProofError::TraceTooLarge) => Ok(Err(format!("{e}: {neither}"))),
            // Too large, or k outside what the search refutes: the user's input.
            Err(e @ (SearchProofError::Encode(_) | SearchProofError::Search(_))) => {
                Err(ProveError::Input(e.to_string()))
            }
            // A trace that is not a proof: ours.
            Err(e) => Err(ProveError::Internal(e.to_string())),
        },
    }
}

/// Proves that `k` timeframes do not suffice for `traffic`, writing the proof into `out`,
/// reading it back and checking it before the report calls it a proof. The report says
/// `unsatisfiable` (proved), `satisfiable` (a schedule of k exists: nothing to prove) or
/// `unknown` (the deadline came first, or the colouring search's trace passed its cap).
/// The stage that runs (the proof search, its check) is told on `progress`.
pub fn prove(
    traffic: &Traffic,
    k: usize,
    prover: Prover,
    deadline: Option<Instant>,
    out: &Path,
    progress: &AtomicU64,
) -> Result<ProveReport, ProveError> {
    let start = Instant::now();
    stage::enter(progress, Stage::Proof);
    let proved = run(traffic, k, prover, deadline)?;
    let mut report = ProveReport {
        model: traffic.name().to_string(),
        duration: traffic.duration(),
        colours: k,
        prover: prover.as_str(),
        result: "",
        proof_by: None,
        message: String::new(),
        proof: None,
        variables: None,
        clauses: None,
        proof_lines: None,
        proof_bytes: None,
        time_s: 0.0,
    };
    match proved {
        Err(why) => {
            report.result = "unknown";
            report.message = why;
        }
        Ok((Proved::Unsat(p), by)) => {
            // Written, read back and checked before it is called a proof.
            stage::enter(progress, Stage::Check);
            if let Err(why) = write_and_verify(out, traffic, &p)? {
                return Err(ProveError::Rejected {
                    dir: out.display().to_string(),
                    why: why.0,
                });
            }
            report.result = "unsatisfiable";
            report.proof_by = Some(by);
            report.message = format!(
                "no schedule of at most {k} timeframes: every schedule needs at least {}",
                k + 1
            );
            report.proof = Some(out.display().to_string());
            let m = crate::manifest::manifest(traffic, &p);
            let cnf = liquid_certify::parse_dimacs(&p.cnf)
                .map_err(|e| ProveError::Internal(e.to_string()))?;
            report.variables = Some(cnf.num_vars);
            report.clauses = Some(cnf.clauses.len());
            report.proof_lines = Some(m.proof.lines);
            report.proof_bytes = Some(m.proof.bytes);
        }
        Ok((Proved::Sat(_), _)) => {
            report.result = "satisfiable";
            report.message =
                format!("a schedule of at most {k} timeframes exists: there is nothing to prove");
        }
    }
    report.time_s = start.elapsed().as_secs_f64();
    Ok(report)
}

/// `liquid check-proof`'s report: a proof directory checked against a traffic.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    model: String,
    proof: String,
    verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    colours: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_bound: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    claim: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: Option<CheckedFigures>,
}

/// What the checker went through.
#[derive(Debug, Serialize)]
struct CheckedFigures {
    variables: usize,
    clauses: usize,
    added: u64,
    deleted: u64,
    hints: u64,
    /// Additions checked as RAT steps (definitions of new variables); omitted when none.
    #[serde(skip_serializing_if = "is_zero")]
    rat: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CheckReport {
    /// Checks the proof directory `dir` against `traffic` ([`crate::verify_dir_until`]):
    /// verified, with what it proves, or rejected, with why (a check `deadline` stopped is
    /// not verified, and says so). Unreadable files are errors.
    pub fn new(
        traffic: &Traffic,
        dir: &Path,
        deadline: Option<std::time::Instant>,
    ) -> Result<CheckReport, ProofError> {
        let verdict = crate::verify_dir_until(traffic, dir, deadline)?;
        let mut report = CheckReport {
            model: traffic.name().to_string(),
            proof: dir.display().to_string(),
            verified: false,
            reason: None,
            colours: None,
            lower_bound: None,
            claim: None,
            checked: None,
        };
        match verdict {
            Ok(p) => {
                let k = p.colours();
                let r = p.report();
                report.verified = true;
                report.colours = Some(k);
                report.lower_bound = Some(k + 1);
                report.claim = Some(format!(
                    "no schedule of at most {k} timeframes: every schedule needs at least {}{}",
                    k + 1,
                    if k >= traffic.duration() {
                        " (the traffic is not liquid)"
                    } else {
                        ""
                    }
                ));
                report.checked = Some(CheckedFigures {
                    variables: r.variables,
                    clauses: r.clauses,
                    added: r.added,
                    deleted: r.deleted,
                    hints: r.hints,
                    rat: r.rat,
                });
            }
            Err(reason) => report.reason = Some(reason.0),
        }
        Ok(report)
    }

    /// Whether the checker accepted the proof.
    pub fn verified(&self) -> bool {
        self.verified
    }
}

/// `liquid certify`'s report: what a schedule file and a proof directory prove together.
#[derive(Debug, Serialize)]
pub struct CertifyReport {
    model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<String>,
    accepted: bool,
    /// What the certificate proves, or why it is rejected.
    statement: String,
    duration: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<usize>,
    lower_bounds: Vec<BoundReport>,
}

/// One lower bound and its witness.
#[derive(Debug, Serialize)]
struct BoundReport {
    value: usize,
    witness: String,
}

impl CertifyReport {
    /// Checks a certificate ([`certify`]): `schedule`, read from the file it names (with
    /// the problems found reading it), and/or the proof directory `proof`.
    pub fn new(
        traffic: &Traffic,
        schedule: Option<(&Schedule, liquid_model::Problems, &Path)>,
        proof: Option<&Path>,
        deadline: Option<std::time::Instant>,
    ) -> Result<CertifyReport, ProofError> {
        let path = schedule.as_ref().map(|(_, _, p)| p.display().to_string());
        let c = certify(
            traffic,
            schedule.map(|(s, problems, _)| (s, problems)),
            proof,
            deadline,
        )?;
        Ok(CertifyReport {
            model: traffic.name().to_string(),
            schedule: path,
            proof: proof.map(|p| p.display().to_string()),
            accepted: c.accepted,
            statement: c.statement,
            duration: traffic.duration(),
            length: c.length,
            lower_bounds: c
                .lower_bounds
                .into_iter()
                .map(|b| BoundReport {
                    value: b.value,
                    witness: b.witness,
                })
                .collect(),
        })
    }

    /// Whether every part of the certificate checked.
    pub fn accepted(&self) -> bool {
        self.accepted
    }
}
