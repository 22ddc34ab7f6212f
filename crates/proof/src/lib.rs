//! Proof directories and certificates: the only place liquid turns a refutation into a
//! checked proof.
//!
//! A proof directory holds `formula.cnf` (DIMACS), `proof.lrat` (textual LRAT) and
//! `manifest.yaml` ([`manifest`]). A refutation or a directory is accepted when
//! 1. every field of the manifest is what the traffic and the files give (hashes, sizes,
//!    line counts, claim, Λ, options, clause families),
//! 2. the formula is byte-identical to a fresh encoding of the traffic with the manifest's
//!    k (`liquid-sat`'s encoder), and
//! 3. the LRAT proof refutes it, by the checker of `liquid-certify`, which shares no code
//!    with the SAT engine or varisat.
//!
//! Only then is a [`CheckedProof`] made, by the checker itself (`liquid_certify::check_proof`,
//! its only constructor). [`certificate`] says what a schedule file and a proof directory prove
//! together, from files alone; [`report`] holds the reports of `prove`, `check-proof` and
//! `certify`.
#![forbid(unsafe_code)]

pub mod certificate;
pub mod manifest;
pub mod report;

use std::path::Path;

use liquid_model::yaml::LoadError;
use liquid_model::{CheckedProof, Traffic};
use liquid_sat::{encode, Encoding, Refutation, ENCODING_VERSION};
use thiserror::Error;

pub use crate::manifest::{
    traffic_sha256, ProofManifest, CORE_FILE, FORMULA_FILE, MANIFEST_FILE, MANIFEST_FORMAT,
    PROOF_FILE,
};

/// The file `verify --proof DIR` writes into DIR, in place of a proof, when a shorter
/// schedule exists.
pub const SHORTER_FILE: &str = "shorter-schedule.yaml";

/// The files liquid writes into an evidence directory, and the only ones it replaces or
/// removes there.
const OWNED: [&str; 5] = [
    FORMULA_FILE,
    PROOF_FILE,
    MANIFEST_FILE,
    CORE_FILE,
    SHORTER_FILE,
];

/// Removes what an earlier run left in the evidence directory `dir` (the files liquid
/// writes there: a proof, its core, a shorter schedule), for a run that writes other
/// evidence or none, so that `dir` never holds another run's evidence under this run's
/// name. A `dir` that does not exist, that holds any other file, or whose files of
/// liquid's names do not read as liquid's (a `manifest.yaml` that is no proof manifest:
/// where a proof would be refused), is left alone. Returns the names removed.
pub fn clear_stale(dir: &Path) -> Result<Vec<&'static str>, ProofError> {
    if !dir.is_dir() || check_target(dir).is_err() {
        return Ok(Vec::new());
    }
    let mut removed = Vec::new();
    for name in OWNED {
        let p = dir.join(name);
        match std::fs::remove_file(&p) {
            Ok(()) => removed.push(name),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(write_error(&p, &e)),
        }
    }
    Ok(removed)
}

/// Writes `schedule` (a schedule file's text) as `dir/`[`SHORTER_FILE`], the evidence of
/// `verify --proof` when a shorter schedule exists: `dir` is created if needed, an earlier
/// run's evidence there removed ([`clear_stale`]: a proof beside a schedule that refutes
/// its claim), and the file written beside and renamed onto its name, so that a link
/// there is replaced, never written through (to a file outside `dir`). Returns its path.
pub fn write_shorter(dir: &Path, schedule: &str) -> Result<std::path::PathBuf, ProofError> {
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, &e))?;
    clear_stale(dir)?;
    let file = dir.join(SHORTER_FILE);
    let temp = dir.join(format!(".{SHORTER_FILE}.{}", std::process::id()));
    std::fs::write(&temp, schedule)
        .and_then(|()| std::fs::rename(&temp, &file))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            write_error(&file, &e)
        })?;
    Ok(file)
}

/// Why a proof could not be written or read (as opposed to rejected).
#[derive(Debug, Error)]
pub enum ProofError {
    /// A file could not be written.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// A file could not be read or parsed (names the file, line and field).
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Why a proof was rejected: it does not prove what it claims about this traffic.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct Rejection(pub String);

/// Checks a refutation held in memory against the traffic (manifest-free: the same checks
/// on the formula and the proof as [`verify_dir`]).
pub fn check_refutation(traffic: &Traffic, r: &Refutation) -> Result<CheckedProof, Rejection> {
    let expected = reencode(traffic, r.colours, &r.options)?;
    check(traffic, &expected, &r.options, &r.cnf, &r.lrat, None, None)
}

/// The model's encoding with `k` timeframes: what a proof's formula must be.
fn reencode(
    traffic: &Traffic,
    k: usize,
    options: &liquid_sat::EncodeOptions,
) -> Result<Encoding, Rejection> {
    if k == 0 {
        return Err(Rejection("the proof claims 0 timeframes".to_string()));
    }
    encode(traffic, k, options).map_err(|e| Rejection(format!("cannot re-encode the model: {e}")))
}

/// The encoding options as a [`CheckedProof`] records them: their manifest entry in YAML.
fn encoding_text(options: &liquid_sat::EncodeOptions) -> String {
    liquid_model::yaml::to_string(&manifest::manifest_options(options))
        .unwrap_or_else(|e| format!("unwritable options: {e}"))
}

/// Checks that `cnf` is `expected`'s DIMACS text and that `lrat` refutes it.
fn check(
    traffic: &Traffic,
    expected: &Encoding,
    options: &liquid_sat::EncodeOptions,
    cnf: &str,
    lrat: &str,
    dir: Option<&Path>,
    deadline: Option<std::time::Instant>,
) -> Result<CheckedProof, Rejection> {
    let k = expected.colours();
    let subject = liquid_certify::Subject {
        traffic_sha256: traffic.sha256(),
        encoding: encoding_text(options),
        dir: dir.map(|d| d.display().to_string()),
    };
    liquid_certify::check_proof_until(&expected.dimacs(), k, cnf, lrat, subject, deadline).map_err(|e| {
        Rejection(match e {
            liquid_certify::CheckError::UnexpectedFormula { line } => format!(
                "{FORMULA_FILE} is not the encoding of {:?} with {k} timeframes (first difference at line {line})",
                traffic.name()
            ),
            e => format!("{PROOF_FILE}: {e}"),
        })
    })
}

/// Verifies that a checked proof is about `traffic`: its traffic digest is the traffic's,
/// and its formula is, digest for digest, the traffic's encoding with the proof's k and
/// encoding options. The LRAT proof itself is not re-read: the checker's acceptance of
/// the formula with that digest is what the proof carries, and only the checker makes
/// one. The engine gate calls this on every checked proof it passes.
pub fn verify_binding(traffic: &Traffic, proof: &CheckedProof) -> Result<(), Rejection> {
    let hash = traffic.sha256();
    if proof.traffic_sha256() != hash {
        return Err(Rejection(format!(
            "the proof was checked for another traffic (sha256 {}), not for {:?} (sha256 {hash})",
            proof.traffic_sha256(),
            traffic.name()
        )));
    }
    let recorded: manifest::ManifestOptions =
        liquid_model::yaml::from_str("the proof's encoding options", proof.encoding())
            .map_err(|e| Rejection(e.to_string()))?;
    let options = manifest::options_from_manifest(&recorded).map_err(Rejection)?;
    let k = proof.colours();
    let formula = reencode(traffic, k, &options)?.dimacs();
    if liquid_certify::sha256_hex(&formula) != proof.formula_sha256() {
        return Err(Rejection(format!(
            "the refuted formula is not the encoding of {:?} with {k} timeframes (its \
             digest differs)",
            traffic.name()
        )));
    }
    Ok(())
}

/// Writes `formula.cnf`, `proof.lrat` and `manifest.yaml` into `dir` (created if needed).
pub fn write_dir(dir: &Path, traffic: &Traffic, r: &Refutation) -> Result<(), ProofError> {
    let err = |p: &Path, e: &dyn std::fmt::Display| ProofError::Write {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| err(dir, &e))?;
    let m = manifest::manifest(traffic, r);
    let text = liquid_model::yaml::to_string(&m).map_err(|e| err(dir, &e))?;
    for (name, content) in [
        (FORMULA_FILE, r.cnf.as_str()),
        (PROOF_FILE, r.lrat.as_str()),
        (MANIFEST_FILE, text.as_str()),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, content).map_err(|e| err(&p, &e))?;
    }
    Ok(())
}

/// Writes the refutation into `dir`, then reads it back and verifies it: the proof a
/// user is handed is the one that was checked. `dir` must be new, empty or a proof
/// directory (holding only the three proof files); anything else is refused before
/// anything is written. The files are written and checked in a fresh sibling directory
/// that is then renamed into place, so that two runs writing to the same `dir` at once
/// leave the complete, checked files of one of them, never a mixture.
pub fn write_and_verify(
    dir: &Path,
    traffic: &Traffic,
    r: &Refutation,
) -> Result<Result<CheckedProof, Rejection>, ProofError> {
    write_and_verify_with(dir, traffic, r, None)
}

/// [`write_and_verify`], with the traffic itself written as `dir/`[`CORE_FILE`] (its
/// explicit form after the comment lines `comment`), for a proof about a traffic that is
/// no file of the user's: `liquid check-proof DIR/core.yaml --proof DIR` then checks it. The
/// file is written before the check and installed with the proof, never apart from it.
pub fn write_and_verify_with_traffic(
    dir: &Path,
    traffic: &Traffic,
    r: &Refutation,
    comment: &str,
) -> Result<Result<CheckedProof, Rejection>, ProofError> {
    write_and_verify_with(dir, traffic, r, Some(comment))
}

fn write_and_verify_with(
    dir: &Path,
    traffic: &Traffic,
    r: &Refutation,
    comment: Option<&str>,
) -> Result<Result<CheckedProof, Rejection>, ProofError> {
    check_target(dir)?;
    let staging = sibling(dir, "new")?;
    let model = |()| match comment {
        None => Ok(()),
        Some(c) => {
            let p = staging.join(CORE_FILE);
            let lines: String = c.lines().map(|l| format!("# {l}\n")).collect();
            let text = lines + &liquid_model::yaml::write_explicit(traffic);
            std::fs::write(&p, text).map_err(|e| write_error(&p, &e))
        }
    };
    let result = write_dir(&staging, traffic, r)
        .and_then(model)
        .and_then(|()| verify_read(traffic, &staging, dir, None));
    match result {
        Ok(verdict) => {
            install(&staging, dir)?;
            Ok(verdict)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(e)
        }
    }
}

/// The error of a proof directory that cannot be written.
fn write_error(p: &Path, e: &dyn std::fmt::Display) -> ProofError {
    ProofError::Write {
        path: p.display().to_string(),
        message: e.to_string(),
    }
}

/// Refuses a `dir` that exists and is not an empty or proof directory.
fn check_target(dir: &Path) -> Result<(), ProofError> {
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(write_error(dir, &e)),
        Ok(entries) => entries,
    };
    let mut held: Vec<&'static str> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| write_error(dir, &e))?;
        let name = entry.file_name();
        match OWNED.iter().find(|f| name == std::ffi::OsStr::new(f)) {
            Some(f) => held.push(f),
            None => {
                return Err(write_error(
                    dir,
                    &format!(
                        "the directory holds {:?}: a proof goes into a new or empty \
                         directory, or replaces evidence written by liquid (only {})",
                        name.to_string_lossy(),
                        OWNED.join(", ")
                    ),
                ))
            }
        }
    }
    // Files of liquid's names are liquid's only when they read as such: a proof
    // directory's manifest, or a shorter schedule alone; a user's `manifest.yaml` is not.
    let (ours, read) = if held.is_empty() {
        (true, None)
    } else if held.contains(&MANIFEST_FILE) {
        let m = dir.join(MANIFEST_FILE);
        (is_proof_manifest(&m), Some(m))
    } else {
        let s = dir.join(SHORTER_FILE);
        (held == [SHORTER_FILE] && is_shorter_schedule(&s), Some(s))
    };
    // Gone since the listing: another run moved the folder aside (`install` tries again).
    if read.is_some_and(|f| f.symlink_metadata().is_err()) {
        return Ok(());
    }
    if !ours {
        return Err(write_error(
            dir,
            &format!(
                "the directory holds {}, which liquid did not write (no proof manifest of \
                 format {MANIFEST_FORMAT:?}, or a shorter schedule alone): a proof goes into a \
                 new or empty directory, or replaces evidence written by liquid",
                held.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Whether `path` is a proof manifest liquid writes (a regular file of [`MANIFEST_FORMAT`],
/// read only up to 1 MiB: a manifest is a few hundred bytes).
fn is_proof_manifest(path: &Path) -> bool {
    read_file_limited(path, 1 << 20)
        .ok()
        .and_then(|text| {
            liquid_model::yaml::from_str::<ProofManifest>(&path.display().to_string(), &text).ok()
        })
        .is_some_and(|m| m.format == MANIFEST_FORMAT)
}

/// Whether `path` is a schedule file as `verify --proof` writes it (`model:`, then
/// `timeframes:`).
fn is_shorter_schedule(path: &Path) -> bool {
    read_file(path)
        .is_ok_and(|text| text.starts_with("model: ") && text.lines().nth(1) == Some("timeframes:"))
}

/// A fresh directory beside `dir` (same parent, so a rename moves it in place).
fn sibling(dir: &Path, what: &str) -> Result<std::path::PathBuf, ProofError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = dir
        .file_name()
        .ok_or_else(|| write_error(dir, &"give the proof directory a name"))?;
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    let parent = parent.unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| write_error(parent, &e))?;
    let path = parent.join(format!(
        ".{}.{what}-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    if what == "new" {
        std::fs::create_dir(&path).map_err(|e| {
            write_error(
                dir,
                &format!(
                    "{e} (making its staging folder {} beside it)",
                    path.display()
                ),
            )
        })?;
    }
    Ok(path)
}

/// Renames the checked `staging` directory to `dir`, moving an earlier proof directory
/// there aside first (and deleting it). Other runs may move or replace `dir` between
/// any two of these steps: a step that loses such a race is tried again.
fn install(staging: &Path, dir: &Path) -> Result<(), ProofError> {
    let mut last = String::from("none");
    for _ in 0..INSTALL_TRIES {
        match std::fs::rename(staging, dir) {
            Ok(()) => return Ok(()),
            // Another proof is there (or was, until another run moved it aside): still
            // only proof files? Then move it aside.
            Err(e)
                if dir.is_dir()
                    || matches!(
                        e.kind(),
                        std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists
                    ) =>
            {
                if let Err(refused) = check_target(dir) {
                    let _ = std::fs::remove_dir_all(staging);
                    return Err(refused);
                }
                let old = sibling(dir, "old")?;
                match std::fs::rename(dir, &old) {
                    Ok(()) => {
                        let _ = std::fs::remove_dir_all(&old);
                    }
                    // Moved aside (and perhaps replaced) by another run meanwhile.
                    Err(aside) => {
                        last = format!("{e}; moving the earlier proof aside: {aside}");
                        std::thread::yield_now();
                    }
                }
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(staging);
                return Err(write_error(dir, &e));
            }
        }
    }
    let _ = std::fs::remove_dir_all(staging);
    Err(write_error(
        dir,
        &format!("other runs kept replacing it ({INSTALL_TRIES} tries; last: {last})"),
    ))
}

/// How often [`install`] tries to put its directory in place before it gives up.
const INSTALL_TRIES: usize = 256;

/// Verifies a proof directory against a traffic (see the crate documentation). Unreadable
/// or malformed files are errors (`Err`); a proof that fails a check is `Ok(Err(why))`.
pub fn verify_dir(
    traffic: &Traffic,
    dir: &Path,
) -> Result<Result<CheckedProof, Rejection>, ProofError> {
    verify_read(traffic, dir, dir, None)
}

/// [`verify_dir`], the LRAT check stopped when `deadline` passes (a rejection that says
/// so: the proof was not accepted).
pub fn verify_dir_until(
    traffic: &Traffic,
    dir: &Path,
    deadline: Option<std::time::Instant>,
) -> Result<Result<CheckedProof, Rejection>, ProofError> {
    verify_read(traffic, dir, dir, deadline)
}

/// [`verify_dir`] of the files in `from`, the proof named as being in `dir`.
fn verify_read(
    traffic: &Traffic,
    from: &Path,
    dir: &Path,
    deadline: Option<std::time::Instant>,
) -> Result<Result<CheckedProof, Rejection>, ProofError> {
    let path = from.join(MANIFEST_FILE);
    let text = read_file(&path)?;
    let found: ProofManifest = liquid_model::yaml::from_str(&path.display().to_string(), &text)?;
    let cnf = read_file(&from.join(FORMULA_FILE))?;
    let lrat = read_file(&from.join(PROOF_FILE))?;
    Ok(verify_texts(traffic, dir, &found, cnf, lrat, deadline))
}

/// Reads a file of a proof directory, which must be a regular file (or a link to one):
/// opening a FIFO would wait for a writer for ever.
fn read_file(path: &Path) -> Result<String, ProofError> {
    read_file_limited(path, liquid_model::yaml::MAX_TEXT_BYTES)
}

/// [`read_file`] of at most `max` bytes.
fn read_file_limited(path: &Path, max: u64) -> Result<String, ProofError> {
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() {
            return Err(ProofError::Load(LoadError {
                file: path.display().to_string(),
                line: None,
                column: None,
                field: None,
                message: "not a regular file (a FIFO, a device or a folder): a proof \
                          directory holds files"
                    .into(),
            }));
        }
    }
    Ok(liquid_model::yaml::read_text_limited(path, max)?)
}

fn verify_texts(
    traffic: &Traffic,
    dir: &Path,
    found: &ProofManifest,
    cnf: String,
    lrat: String,
    deadline: Option<std::time::Instant>,
) -> Result<CheckedProof, Rejection> {
    {
        if found.format != MANIFEST_FORMAT {
            return Err(Rejection(format!(
                "manifest format {:?} is not {MANIFEST_FORMAT:?}",
                found.format
            )));
        }
        if found.encoding != ENCODING_VERSION {
            return Err(Rejection(format!(
                "the proof uses encoding {:?}; this liquid writes {ENCODING_VERSION:?}",
                found.encoding
            )));
        }
        let hash = traffic_sha256(traffic);
        if found.traffic_sha256 != hash {
            return Err(Rejection(format!(
                "the manifest is for another traffic ({:?}, sha256 {}), not for {:?} (sha256 {hash})",
                found.model,
                found.traffic_sha256,
                traffic.name()
            )));
        }
        let options = manifest::options_from_manifest(&found.options).map_err(Rejection)?;
        let e = reencode(traffic, found.colours, &options)?;
        let checked = check(traffic, &e, &options, &cnf, &lrat, Some(dir), deadline)?;
        // The formula and proof check; now the manifest must say only what is true.
        let expected = manifest::manifest(
            traffic,
            &Refutation {
                colours: found.colours,
                options,
                families: e.families().to_vec(),
                cnf,
                lrat,
            },
        );
        let diffs = manifest::differences(found, &expected);
        if !diffs.is_empty() {
            return Err(Rejection(format!(
                "{MANIFEST_FILE} does not describe this proof: {}",
                diffs.join("; ")
            )));
        }
        Ok(checked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::examples::no_team;
    use liquid_sat::{prove, EncodeOptions, Proved};

    fn refutation() -> (Traffic, Refutation) {
        let t = no_team();
        let Some(Proved::Unsat(r)) = prove(&t, 2, &EncodeOptions::default(), None).expect("runs")
        else {
            panic!("no-team is not 2-colourable");
        };
        (t, *r)
    }

    #[test]
    fn a_written_proof_verifies_and_says_what_it_proves() {
        let (t, r) = refutation();
        let dir = tempfile::tempdir().expect("temp dir");
        let p = write_and_verify(dir.path(), &t, &r)
            .expect("written")
            .expect("accepted");
        assert_eq!(p.colours(), 2);
        assert!(p.report().added >= 1);
        assert_eq!(check_refutation(&t, &r).expect("in memory").colours(), 2);
    }

    #[test]
    fn an_incremental_proof_with_closed_timeframes_verifies_from_its_directory() {
        // From one transfer per timeframe, without the tabu search, the incremental engine
        // goes down through satisfiable runs: its proof refutes 2 timeframes in the
        // variables of 4, the last two closed by units.
        let t = liquid_model::examples::odd_cycle();
        let opts = liquid_sat::SatOptions {
            proofs: true,
            incremental: true,
            tabu: false,
            start: Some(liquid_model::Schedule::new(
                t.transfer_ids().map(|x| vec![x]).collect(),
            )),
            ..Default::default()
        };
        let run = liquid_sat::solve_with(
            &t,
            &liquid_model::Limits::default(),
            &opts,
            &std::sync::atomic::AtomicU64::new(0),
        )
        .expect("runs");
        let r = run.refutation.expect("a refutation of 2 timeframes");
        assert_eq!((r.colours, r.options.frames), (2, Some(4)));
        assert!(r
            .families
            .iter()
            .any(|f| f.name == "closed" && f.clauses > 0));
        let dir = tempfile::tempdir().expect("temp dir");
        write_and_verify(dir.path(), &t, &r)
            .expect("written")
            .expect("accepted");
        let manifest = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).expect("manifest");
        assert!(manifest.contains("frames: 4"), "{manifest}");
        // Without the closed timeframes' record, the formula is not the manifest's.
        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            manifest.replace("  frames: 4\n", ""),
        )
        .expect("edit");
        assert!(verify_dir(&t, dir.path()).expect("readable").is_err());
    }

    #[test]
    fn a_lying_manifest_is_rejected() {
        let (t, r) = refutation();
        let dir = tempfile::tempdir().expect("temp dir");
        write_dir(dir.path(), &t, &r).expect("written");
        let path = dir.path().join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).expect("manifest");
        for (from, to) in [
            (
                format!("duration: {}", t.duration()),
                "duration: 7".to_string(),
            ),
            (
                format!("bytes: {}", r.lrat.len()),
                format!("bytes: {}", r.lrat.len() + 1),
            ),
            (
                "has no schedule".to_string(),
                "has no liquid schedule".to_string(),
            ),
        ] {
            assert!(text.contains(&from), "{from} in {text}");
            std::fs::write(&path, text.replacen(&from, &to, 1)).expect("edit");
            let why = verify_dir(&t, dir.path())
                .expect("readable")
                .expect_err("a lie");
            assert!(why.0.contains("does not describe this proof"), "{why}");
        }
        // A family's clause count: named field by field, in words.
        let f = &r.families[1];
        let from = format!("name: {}\n  clauses: {}", f.name, f.clauses);
        let to = format!("name: {}\n  clauses: {}", f.name, f.clauses + 1);
        assert!(text.contains(&from), "{from} in {text}");
        std::fs::write(&path, text.replacen(&from, &to, 1)).expect("edit");
        let why = verify_dir(&t, dir.path())
            .expect("readable")
            .expect_err("a lie");
        let want = format!(
            "families[1].clauses ({}) says {}, but it is {}",
            f.name,
            f.clauses + 1,
            f.clauses
        );
        assert!(
            why.0.contains(&want) && !why.0.contains("Manifest"),
            "{why}"
        );
    }

    #[test]
    fn another_formula_or_a_broken_proof_is_rejected() {
        let (t, mut r) = refutation();
        let good = r.clone();
        r.cnf = r.cnf.replacen(" 0\n", " 1 0\n", 1);
        let why = check_refutation(&t, &r).expect_err("another formula");
        assert!(why.0.contains("is not the encoding"), "{why}");
        let mut r = good;
        let last = r.lrat.trim_end().rfind('\n').map_or(0, |i| i + 1);
        r.lrat.truncate(last);
        assert!(
            check_refutation(&t, &r).is_err(),
            "a proof without its last step"
        );
    }

    #[test]
    fn a_folder_that_is_not_a_proof_folder_is_refused_before_anything_is_written() {
        let (t, r) = refutation();
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("notes.txt"), "mine").expect("write");
        let e = write_and_verify(dir.path(), &t, &r).expect_err("refused");
        assert!(e.to_string().contains("notes.txt"), "{e}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("readable")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("notes.txt")]);
        assert!(write_and_verify(Path::new("/"), &t, &r).is_err());
        // A proof folder is replaced (by the new proof, checked).
        let p = dir.path().join("proof");
        write_and_verify(&p, &t, &r)
            .expect("written")
            .expect("accepted");
        let p2 = write_and_verify(&p, &t, &r)
            .expect("rewritten")
            .expect("accepted");
        assert_eq!(p2.dir(), Some(p.display().to_string().as_str()));
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("readable").count(),
            2,
            "no leftovers"
        );
    }

    #[test]
    fn concurrent_writers_leave_one_complete_checked_proof() {
        let (t, r) = refutation();
        let other = liquid_model::examples::odd_cycle();
        let Some(Proved::Unsat(r2)) =
            prove(&other, 2, &EncodeOptions::default(), None).expect("runs")
        else {
            panic!("an odd cycle is not 2-colourable");
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path().join("proof");
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    write_and_verify(&d, &t, &r)
                        .expect("written")
                        .expect("accepted");
                });
                s.spawn(|| {
                    write_and_verify(&d, &other, &r2)
                        .expect("written")
                        .expect("accepted");
                });
            }
        });
        let first = verify_dir(&t, &d).expect("readable").is_ok();
        let second = verify_dir(&other, &d).expect("readable").is_ok();
        assert!(
            first != second,
            "the directory holds exactly one writer's proof"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("readable").count(),
            1,
            "no leftovers"
        );
    }
}
