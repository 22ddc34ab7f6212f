//! The manifest of a proof directory (`manifest.yaml`), and its comparison with what it
//! describes. A manifest that says anything untrue of its files or its traffic is
//! rejected: every field is recomputed and compared.

use liquid_model::Traffic;
use liquid_sat::{AmoEncoding, EncodeOptions, Family, Refutation, ENCODING_VERSION};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Format tag of proof manifests.
pub const MANIFEST_FORMAT: &str = "liquid-proof/1";
/// File name of the formula in a proof directory.
pub const FORMULA_FILE: &str = "formula.cnf";
/// File name of the LRAT proof in a proof directory.
pub const PROOF_FILE: &str = "proof.lrat";
/// File name of the manifest in a proof directory.
pub const MANIFEST_FILE: &str = "manifest.yaml";
/// File name of the traffic a proof is about, when that traffic is no file of the user's
/// (the core `liquid explain --proof DIR` found): its explicit form, which `check-proof`
/// and `certify` take as the model. Optional: the proof is checked without it.
pub const CORE_FILE: &str = "core.yaml";

/// The manifest of a proof directory: what the proof claims and how the formula was built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofManifest {
    /// Manifest format ([`MANIFEST_FORMAT`]).
    pub format: String,
    /// The claim in words.
    pub claim: String,
    /// The model's name.
    pub model: String,
    /// SHA-256 (hex) of the traffic's explicit form, as `liquid expand` prints it.
    pub traffic_sha256: String,
    /// Number of transfers.
    pub transfers: usize,
    /// Λ, the traffic's duration.
    pub duration: usize,
    /// k: the formula says "a schedule of at most k timeframes exists".
    pub colours: usize,
    /// Encoding version ([`ENCODING_VERSION`]).
    pub encoding: String,
    /// Encoding options.
    pub options: ManifestOptions,
    /// Clause families in file order.
    pub families: Vec<ManifestFamily>,
    /// The formula file.
    pub formula: ManifestFile,
    /// The proof file.
    pub proof: ManifestFile,
}

/// Encoding options recorded in a [`ProofManifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestOptions {
    /// At-most-one encoding (`auto`, `pairwise`, `sequential`).
    pub amo: String,
    /// Transfer at-most-one clauses present.
    pub transfer_amo: bool,
    /// Team clauses present.
    pub team: bool,
    /// Symmetry-breaking units present.
    pub symmetry: bool,
    /// The timeframes of the variables when more than the claim's k (the `closed` family
    /// closes the rest): the incremental SAT engine's formula.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<usize>,
}

/// One clause family of a [`ProofManifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFamily {
    /// The family's name.
    pub name: String,
    /// Its number of clauses.
    pub clauses: usize,
}

/// A file of a proof directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// File name inside the directory.
    pub file: String,
    /// Format (`dimacs`, `lrat`).
    pub format: String,
    /// Size in bytes.
    pub bytes: usize,
    /// Lines (clauses or proof steps plus headers).
    pub lines: usize,
    /// SHA-256 (hex) of the file.
    pub sha256: String,
}

/// SHA-256 (hex) of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (hex) of the traffic's explicit form, as `liquid expand` prints it
/// ([`Traffic::sha256`]).
pub fn traffic_sha256(traffic: &Traffic) -> String {
    traffic.sha256()
}

/// The options as a manifest records them.
pub fn manifest_options(o: &EncodeOptions) -> ManifestOptions {
    ManifestOptions {
        amo: o.amo.as_str().to_string(),
        transfer_amo: o.transfer_amo,
        team: o.team,
        symmetry: o.symmetry,
        frames: o.frames,
    }
}

/// The encoding options a manifest records, or why they are not understood.
pub fn options_from_manifest(m: &ManifestOptions) -> Result<EncodeOptions, String> {
    let amo = AmoEncoding::from_name(&m.amo)
        .ok_or_else(|| format!("unknown at-most-one encoding {:?}", m.amo))?;
    Ok(EncodeOptions {
        amo,
        transfer_amo: m.transfer_amo,
        team: m.team,
        symmetry: m.symmetry,
        frames: m.frames,
    })
}

/// The manifest's entry for a file with this text.
pub fn file_entry(file: &str, format: &str, text: &str) -> ManifestFile {
    ManifestFile {
        file: file.to_string(),
        format: format.to_string(),
        bytes: text.len(),
        lines: text.lines().count(),
        sha256: sha256_hex(text.as_bytes()),
    }
}

/// The claim in words, as a manifest states it.
pub fn claim(traffic: &Traffic, k: usize) -> String {
    format!(
        "{:?} has no schedule of at most {k} timeframes: formula.cnf is unsatisfiable",
        traffic.name()
    )
}

fn families(fs: &[Family]) -> Vec<ManifestFamily> {
    fs.iter()
        .map(|f| ManifestFamily {
            name: f.name.to_string(),
            clauses: f.clauses,
        })
        .collect()
}

/// The manifest of a refutation of `traffic`: every field computed from the traffic and
/// the two texts.
pub fn manifest(traffic: &Traffic, r: &Refutation) -> ProofManifest {
    ProofManifest {
        format: MANIFEST_FORMAT.to_string(),
        claim: claim(traffic, r.colours),
        model: traffic.name().to_string(),
        traffic_sha256: traffic_sha256(traffic),
        transfers: traffic.len(),
        duration: traffic.duration(),
        colours: r.colours,
        encoding: ENCODING_VERSION.to_string(),
        options: manifest_options(&r.options),
        families: families(&r.families),
        formula: file_entry(FORMULA_FILE, "dimacs", &r.cnf),
        proof: file_entry(PROOF_FILE, "lrat", &r.lrat),
    }
}

/// Compares a manifest read from a directory with the one its traffic and files give
/// (`expected`, from [`manifest`]): every difference, field by field.
pub fn differences(found: &ProofManifest, expected: &ProofManifest) -> Vec<String> {
    let mut out = Vec::new();
    let mut cmp = |field: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{field} says {a}, but it is {b}"));
        }
    };
    cmp("format", q(&found.format), q(&expected.format));
    cmp("encoding", q(&found.encoding), q(&expected.encoding));
    cmp("model", q(&found.model), q(&expected.model));
    cmp(
        "traffic_sha256",
        found.traffic_sha256.clone(),
        expected.traffic_sha256.clone(),
    );
    cmp(
        "transfers",
        found.transfers.to_string(),
        expected.transfers.to_string(),
    );
    cmp(
        "duration",
        found.duration.to_string(),
        expected.duration.to_string(),
    );
    cmp(
        "colours",
        found.colours.to_string(),
        expected.colours.to_string(),
    );
    cmp("claim", q(&found.claim), q(&expected.claim));
    let (o, e) = (&found.options, &expected.options);
    cmp("options.amo", q(&o.amo), q(&e.amo));
    for (field, a, b) in [
        ("options.transfer_amo", o.transfer_amo, e.transfer_amo),
        ("options.team", o.team, e.team),
        ("options.symmetry", o.symmetry, e.symmetry),
    ] {
        cmp(field, a.to_string(), b.to_string());
    }
    let frames = |f: Option<usize>| f.map_or_else(|| "nothing".to_string(), |f| f.to_string());
    cmp("options.frames", frames(o.frames), frames(e.frames));
    let names = |fs: &[ManifestFamily]| {
        let n: Vec<&str> = fs.iter().map(|f| f.name.as_str()).collect();
        format!("{} ({})", fs.len(), n.join(", "))
    };
    if found.families.len() != expected.families.len() {
        cmp(
            "families",
            names(&found.families),
            names(&expected.families),
        );
    } else {
        for (i, (a, b)) in found.families.iter().zip(&expected.families).enumerate() {
            cmp(&format!("families[{i}].name"), q(&a.name), q(&b.name));
            cmp(
                &format!("families[{i}].clauses ({})", b.name),
                a.clauses.to_string(),
                b.clauses.to_string(),
            );
        }
    }
    for (name, a, b) in [
        ("formula", &found.formula, &expected.formula),
        ("proof", &found.proof, &expected.proof),
    ] {
        cmp(&format!("{name}.file"), q(&a.file), q(&b.file));
        cmp(&format!("{name}.format"), q(&a.format), q(&b.format));
        cmp(
            &format!("{name}.bytes"),
            a.bytes.to_string(),
            b.bytes.to_string(),
        );
        cmp(
            &format!("{name}.lines"),
            a.lines.to_string(),
            b.lines.to_string(),
        );
        cmp(
            &format!("{name}.sha256"),
            a.sha256.clone(),
            b.sha256.clone(),
        );
    }
    out
}

fn q(s: &str) -> String {
    format!("{s:?}")
}
