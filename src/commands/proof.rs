use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use liquid_sat::{EncodeOptions, Proved};
use serde::Serialize;

use crate::commands::encode::colours_or_duration;
use crate::output::{emit, Format};
use crate::{InputError, EXIT_REJECTED};

#[derive(Serialize)]
struct ProveReport {
    model: String,
    duration: usize,
    colours: usize,
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

/// `liquid prove MODEL [--colours k] --out DIR`: exit 0 with a proof in DIR when k
/// timeframes do not suffice, 1 when they do (no proof exists).
pub fn prove(
    model: &Path,
    colours: Option<usize>,
    out: &Path,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let k = colours_or_duration(&traffic, colours)?;
    let start = Instant::now();
    let proved = liquid_sat::prove(&traffic, k, &EncodeOptions::default(), None)
        .map_err(|e| InputError(format!("{}: {e}", model.display())))?
        .context("the proof run stopped without an answer")?;
    let mut report = ProveReport {
        model: traffic.name().to_string(),
        duration: traffic.duration(),
        colours: k,
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
        Proved::Unsat(p) => {
            liquid_sat::write_proof_dir(out, &p)?;
            report.result = "unsatisfiable";
            report.message = format!(
                "no schedule of at most {k} timeframes: every schedule needs at least {}",
                k + 1
            );
            report.proof = Some(out.display().to_string());
            let cnf = liquid_certify::parse_dimacs(&p.cnf)
                .context("the written formula does not parse")?;
            report.variables = Some(cnf.num_vars);
            report.clauses = Some(cnf.clauses.len());
            report.proof_lines = Some(p.manifest.proof.lines);
            report.proof_bytes = Some(p.manifest.proof.bytes);
            ExitCode::SUCCESS
        }
        Proved::Sat => {
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

fn read(dir: &Path, name: &str) -> anyhow::Result<String> {
    let p = dir.join(name);
    Ok(liquid_model::yaml::read_text(&p)?)
}

/// The line of the first difference between two texts (1-based).
fn first_difference(a: &str, b: &str) -> usize {
    let mut la = a.lines();
    let mut lb = b.lines();
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (None, None) => return n,
            _ => return n,
        }
    }
}

/// A proof directory that passed every check: the manifest's k and the checker's report.
pub struct VerifiedProof {
    /// The number of timeframes proven insufficient.
    pub colours: usize,
    /// What the independent checker saw.
    pub report: liquid_certify::CheckReport,
}

/// Checks a proof directory against a traffic: manifest format and encoding version, the
/// traffic's hash, DIR/formula.cnf byte-identical to a fresh encoding with the manifest's
/// k, and DIR/proof.lrat accepted by the independent checker of liquid-certify.
/// Unreadable files are input errors (`Err`); a proof that fails a check is `Ok(Err(why))`.
pub fn verify_proof_dir(
    traffic: &liquid_model::Traffic,
    model: &Path,
    dir: &Path,
) -> anyhow::Result<Result<VerifiedProof, String>> {
    let manifest = liquid_model::yaml::load_manifest(&dir.join(liquid_sat::MANIFEST_FILE))?;
    let cnf = read(dir, liquid_sat::FORMULA_FILE)?;
    let lrat = read(dir, liquid_sat::PROOF_FILE)?;
    Ok((|| -> Result<VerifiedProof, String> {
        if manifest.format != liquid_sat::prove::MANIFEST_FORMAT {
            return Err(format!(
                "manifest format {:?} is not {:?}",
                manifest.format,
                liquid_sat::prove::MANIFEST_FORMAT
            ));
        }
        if manifest.encoding != liquid_sat::ENCODING_VERSION {
            return Err(format!(
                "the proof uses encoding {:?}; this liquid writes {:?}",
                manifest.encoding,
                liquid_sat::ENCODING_VERSION
            ));
        }
        let hash = liquid_sat::traffic_sha256(traffic);
        if manifest.traffic_sha256 != hash {
            return Err(format!(
                "the manifest is for another traffic ({:?}, sha256 {}), not for {} (sha256 {hash})",
                manifest.model,
                manifest.traffic_sha256,
                model.display()
            ));
        }
        if manifest.colours == 0 {
            return Err("the manifest claims 0 timeframes".to_string());
        }
        let opts = liquid_sat::options_from_manifest(&manifest.options)?;
        let expected = liquid_sat::dimacs(traffic, manifest.colours, &opts)
            .map_err(|e| format!("cannot re-encode the model: {e}"))?;
        if expected != cnf {
            return Err(format!(
                "{} is not the encoding of {} with {} timeframes (first difference at line {})",
                liquid_sat::FORMULA_FILE,
                model.display(),
                manifest.colours,
                first_difference(&expected, &cnf)
            ));
        }
        let report = liquid_certify::check_texts(&cnf, &lrat)
            .map_err(|e| format!("{}: {e}", liquid_sat::PROOF_FILE))?;
        Ok(VerifiedProof {
            colours: manifest.colours,
            report,
        })
    })())
}

/// `liquid check-proof MODEL DIR`: re-encodes the model with the manifest's k, requires
/// DIR/formula.cnf to be that encoding byte for byte, and checks DIR/proof.lrat with the
/// independent checker of liquid-certify. Exit 0 when verified, 1 when rejected.
pub fn check_proof(model: &Path, dir: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let verdict = verify_proof_dir(&traffic, model, dir)?;
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
        Ok(VerifiedProof {
            colours: k,
            report: r,
        }) => {
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
            report.reason = Some(reason);
            ExitCode::from(EXIT_REJECTED)
        }
    };
    emit(&report, format)?;
    Ok(code)
}
