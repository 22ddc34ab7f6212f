use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use liquid_sat::{EncodeOptions, Proved, SatError, SearchProofError, SearchProved};
use serde::Serialize;

use crate::commands::encode::colours_or_duration;
use crate::output::{emit, Format};
use crate::{InputError, EXIT_INTERNAL, EXIT_REJECTED};

/// Who writes the proof of `liquid prove`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prover {
    /// varisat with its LRAT writer.
    Sat,
    /// The native colouring search's refutation trace, made LRAT.
    Search,
}

impl Prover {
    fn as_str(self) -> &'static str {
        match self {
            Prover::Sat => "sat",
            Prover::Search => "search",
        }
    }
}

/// How `liquid prove` runs.
#[derive(Debug, Clone, Copy)]
pub struct ProveOptions {
    /// Who writes the proof.
    pub prover: Prover,
    /// Wall-clock limit.
    pub time_limit: Option<std::time::Duration>,
}

/// Why `liquid prove` has no answer: the user's input (exit 2) or ours (exit 3).
enum Failure {
    Input(String),
    Internal(String),
}

/// The proof run: `None` when the deadline came first.
fn prove_with(
    traffic: &liquid_model::Traffic,
    k: usize,
    prover: Prover,
    deadline: Option<Instant>,
) -> Result<Option<Proved>, Failure> {
    match prover {
        Prover::Sat => match liquid_sat::prove(traffic, k, &EncodeOptions::default(), deadline) {
            Ok(p) => Ok(p),
            // Too large to encode, or k = 0: the user's input.
            Err(SatError::Encode(e)) => Err(Failure::Input(e.to_string())),
            // varisat failed: ours.
            Err(e) => Err(Failure::Internal(e.to_string())),
        },
        Prover::Search => match liquid_sat::prove_by_search(traffic, k, deadline) {
            Ok(SearchProved::Unsat { refutation, .. }) => Ok(Some(Proved::Unsat(refutation))),
            Ok(SearchProved::Sat(s)) => Ok(Some(Proved::Sat(s))),
            Ok(SearchProved::Stopped) => Ok(None),
            // Too large, or k outside what the search refutes: the user's input.
            Err(e @ (SearchProofError::Encode(_) | SearchProofError::Search(_))) => {
                Err(Failure::Input(e.to_string()))
            }
            // A trace that is not a proof: ours.
            Err(e) => Err(Failure::Internal(e.to_string())),
        },
    }
}

#[derive(Serialize)]
struct ProveReport {
    model: String,
    duration: usize,
    colours: usize,
    prover: &'static str,
    result: &'static str,
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

/// `liquid prove MODEL [--colours k] --out DIR [--prover sat|search] [--time-limit S]`:
/// exit 0 with a proof in DIR when k timeframes do not suffice, 1 when they do (no proof
/// exists) or when the time limit came first (`result: unknown`).
pub fn prove(
    model: &Path,
    colours: Option<usize>,
    out: &Path,
    options: ProveOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let k = colours_or_duration(&traffic, colours)?;
    let start = Instant::now();
    let prover = options.prover;
    let deadline = options.time_limit.map(|t| start + t);
    let input = |e: &dyn std::fmt::Display| InputError(format!("{}: {e}", model.display()));
    let proved = crate::progress::with_progress(liquid_engine::Counts::Nothing, |_| {
        prove_with(&traffic, k, prover, deadline)
    });
    let proved = match proved {
        Ok(p) => p,
        Err(Failure::Input(e)) => return Err(input(&e).into()),
        Err(Failure::Internal(e)) => return Err(anyhow::anyhow!("{}: {e}", model.display())),
    };
    let mut report = ProveReport {
        model: traffic.name().to_string(),
        duration: traffic.duration(),
        colours: k,
        prover: prover.as_str(),
        result: "",
        message: String::new(),
        proof: None,
        variables: None,
        clauses: None,
        proof_lines: None,
        proof_bytes: None,
        time_s: 0.0,
    };
    let code = match proved {
        None => {
            report.result = "unknown";
            report.message = format!(
                "the time limit came first: no proof that {k} timeframes do not suffice, and no \
                 schedule of {k}"
            );
            ExitCode::from(EXIT_REJECTED)
        }
        Some(Proved::Unsat(p)) => {
            // Written, read back and checked before it is called a proof.
            match liquid_proof::write_and_verify(out, &traffic, &p)? {
                Ok(_) => {}
                Err(why) => {
                    eprintln!(
                        "internal error: the proof written to {} was rejected: {why}",
                        out.display()
                    );
                    return Ok(ExitCode::from(EXIT_INTERNAL));
                }
            }
            report.result = "unsatisfiable";
            report.message = format!(
                "no schedule of at most {k} timeframes: every schedule needs at least {}",
                k + 1
            );
            report.proof = Some(out.display().to_string());
            let m = liquid_proof::manifest::manifest(&traffic, &p);
            let cnf = liquid_certify::parse_dimacs(&p.cnf)?;
            report.variables = Some(cnf.num_vars);
            report.clauses = Some(cnf.clauses.len());
            report.proof_lines = Some(m.proof.lines);
            report.proof_bytes = Some(m.proof.bytes);
            ExitCode::SUCCESS
        }
        Some(Proved::Sat(_)) => {
            report.result = "satisfiable";
            report.message =
                format!("a schedule of at most {k} timeframes exists: there is nothing to prove");
            ExitCode::from(EXIT_REJECTED)
        }
    };
    report.time_s = start.elapsed().as_secs_f64();
    emit(&report, format)?;
    Ok(code)
}

#[derive(Serialize)]
struct CheckReport {
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
    checked: Option<Checked>,
}

#[derive(Serialize)]
struct Checked {
    variables: usize,
    clauses: usize,
    added: u64,
    deleted: u64,
    hints: u64,
}

/// `liquid check-proof MODEL DIR`: re-encodes the model with the manifest's k, requires
/// DIR/formula.cnf to be that encoding byte for byte, and checks DIR/proof.lrat with the
/// independent checker of liquid-certify. Exit 0 when verified, 1 when rejected.
pub fn check_proof(model: &Path, dir: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let verdict = liquid_proof::verify_dir(&traffic, dir)?;
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
    let code = match verdict {
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
            report.checked = Some(Checked {
                variables: r.variables,
                clauses: r.clauses,
                added: r.added,
                deleted: r.deleted,
                hints: r.hints,
            });
            ExitCode::SUCCESS
        }
        Err(reason) => {
            report.reason = Some(reason.0);
            ExitCode::from(EXIT_REJECTED)
        }
    };
    emit(&report, format)?;
    Ok(code)
}
