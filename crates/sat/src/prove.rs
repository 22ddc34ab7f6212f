//! Proofs that k timeframes do not suffice: the exact DIMACS CNF, a textual LRAT proof
//! produced by varisat's `varisat-lrat` proof processor, and a manifest.
//!
//! The proof run uses a fresh solver fed with the DIMACS text itself (the bytes written to
//! `formula.cnf`), so LRAT clause ids 1..C are the file's clauses in file order. No
//! assumptions and no incremental clauses are used: varisat's proof output does not
//! support them.

use std::path::Path;
use std::time::Instant;

use liquid_model::yaml::{ManifestFamily, ManifestFile, ManifestOptions, ProofManifest};
use liquid_model::Traffic;
use sha2::{Digest, Sha256};
use thiserror::Error;
use varisat::Solver;
use varisat_lrat::WriteLrat;

use crate::encode::{encode, AmoEncoding, EncodeOptions, ENCODING_VERSION};
use crate::solve::{on_worker, SatError};

/// Format tag of proof manifests.
pub const MANIFEST_FORMAT: &str = "liquid-proof/1";
/// File name of the formula in a proof directory.
pub const FORMULA_FILE: &str = "formula.cnf";
/// File name of the LRAT proof in a proof directory.
pub const PROOF_FILE: &str = "proof.lrat";
/// File name of the manifest in a proof directory.
pub const MANIFEST_FILE: &str = "manifest.yaml";

/// Errors while producing or writing a proof.
#[derive(Debug, Error)]
pub enum ProofError {
    /// varisat or its LRAT writer failed.
    #[error("proof generation failed: {0}")]
    Generate(String),
    /// A file could not be written.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: String,
        /// The I/O error.
        message: String,
    },
}

/// A proof that the traffic has no schedule of at most `colours` timeframes.
#[derive(Debug, Clone)]
pub struct Proof {
    /// k.
    pub colours: usize,
    /// The DIMACS CNF, byte for byte.
    pub cnf: String,
    /// The textual LRAT proof.
    pub lrat: String,
    /// The manifest.
    pub manifest: ProofManifest,
}

/// What a proof run found.
#[derive(Debug, Clone)]
pub enum Proved {
    /// Unsatisfiable: the proof.
    Unsat(Box<Proof>),
    /// Satisfiable: there is a schedule of at most k timeframes, hence no proof.
    Sat,
}

/// SHA-256 (hex) of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (hex) of the traffic's explicit form, as `liquid expand` prints it.
pub fn traffic_sha256(traffic: &Traffic) -> String {
    sha256_hex(liquid_model::yaml::write_explicit(traffic).as_bytes())
}

/// The options recorded in a manifest.
pub fn manifest_options(o: &EncodeOptions) -> ManifestOptions {
    ManifestOptions {
        amo: o.amo.as_str().to_string(),
        transfer_amo: o.transfer_amo,
        team: o.team,
        symmetry: o.symmetry,
    }
}

/// The encoding options a manifest records, or why they are not understood.
pub fn options_from_manifest(m: &ManifestOptions) -> Result<EncodeOptions, String> {
    let amo = match m.amo.as_str() {
        "auto" => AmoEncoding::Auto,
        "pairwise" => AmoEncoding::Pairwise,
        "sequential" => AmoEncoding::Sequential,
        other => return Err(format!("unknown at-most-one encoding {other:?}")),
    };
    Ok(EncodeOptions {
        amo,
        transfer_amo: m.transfer_amo,
        team: m.team,
        symmetry: m.symmetry,
    })
}

fn file_entry(file: &str, format: &str, text: &str) -> ManifestFile {
    ManifestFile {
        file: file.to_string(),
        format: format.to_string(),
        bytes: text.len(),
        lines: text.lines().count(),
        sha256: sha256_hex(text.as_bytes()),
    }
}

/// Runs varisat with the LRAT writer on the CNF text; the proof text if unsatisfiable.
fn run_lrat(cnf: String) -> Result<Option<String>, String> {
    let mut lrat: Vec<u8> = Vec::new();
    let unsat = {
        let mut writer = WriteLrat::new(&mut lrat, false);
        let unsat = {
            let mut solver = Solver::new();
            solver.add_proof_processor(&mut writer);
            solver
                .add_dimacs_cnf(cnf.as_bytes())
                .map_err(|e| e.to_string())?;
            let r = solver.solve().map_err(|e| e.to_string())?;
            solver.close_proof().map_err(|e| e.to_string())?;
            !r
        };
        writer.flush().map_err(|e| e.to_string())?;
        unsat
    };
    if !unsat {
        return Ok(None);
    }
    String::from_utf8(lrat)
        .map(Some)
        .map_err(|_| "the LRAT writer produced non-UTF-8 text".to_string())
}

/// Proves that `traffic` has no schedule of at most `k` timeframes, or finds that it has
/// one. `None` when the deadline passed first.
pub fn prove(
    traffic: &Traffic,
    k: usize,
    options: &EncodeOptions,
    deadline: Option<Instant>,
) -> Result<Option<Proved>, SatError> {
    let e = encode(traffic, k, options)?;
    let cnf = e.dimacs();
    let input = cnf.clone();
    let lrat = match on_worker(deadline, move || run_lrat(input))? {
        None => return Ok(None),
        Some(r) => r.map_err(ProofError::Generate)?,
    };
    let Some(lrat) = lrat else {
        return Ok(Some(Proved::Sat));
    };
    let manifest = ProofManifest {
        format: MANIFEST_FORMAT.to_string(),
        claim: format!(
            "{:?} has no schedule of at most {k} timeframes: formula.cnf is unsatisfiable",
            traffic.name()
        ),
        model: traffic.name().to_string(),
        traffic_sha256: traffic_sha256(traffic),
        transfers: traffic.len(),
        duration: traffic.duration(),
        colours: k,
        encoding: ENCODING_VERSION.to_string(),
        options: manifest_options(options),
        families: e
            .families()
            .iter()
            .map(|f| ManifestFamily {
                name: f.name.to_string(),
                clauses: f.clauses,
            })
            .collect(),
        formula: file_entry(FORMULA_FILE, "dimacs", &cnf),
        proof: file_entry(PROOF_FILE, "lrat", &lrat),
    };
    Ok(Some(Proved::Unsat(Box::new(Proof {
        colours: k,
        cnf,
        lrat,
        manifest,
    }))))
}

/// Writes `formula.cnf`, `proof.lrat` and `manifest.yaml` into `dir` (created if needed).
pub fn write_proof_dir(dir: &Path, proof: &Proof) -> Result<(), ProofError> {
    let err = |p: &Path, e: &dyn std::fmt::Display| ProofError::Write {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| err(dir, &e))?;
    let manifest = liquid_model::yaml::write_manifest(&proof.manifest).map_err(|e| err(dir, &e))?;
    for (name, text) in [
        (FORMULA_FILE, proof.cnf.as_str()),
        (PROOF_FILE, proof.lrat.as_str()),
        (MANIFEST_FILE, manifest.as_str()),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| err(&p, &e))?;
    }
    Ok(())
}
