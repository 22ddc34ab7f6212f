//! Solver-output baselines: what each engine answered for each model, recorded in a stable,
//! reviewable form (no timings), and compared with a later run.
//!
//! A baseline (format [`FORMAT`]) records each model it ran on: its file (as given to
//! crosscheck, relative paths kept relative; a generated-model spec stands for itself)
//! and the digest of its traffic (SHA-256 of the explicit form `liquid expand` prints,
//! the `traffic_sha256` of proof manifests: a comment or a re-formatting of the file is no
//! change, a changed transfer, path or name is). Answers are keyed by file and engine,
//! never by the name inside a model file, which two files may share.
//!
//! Comparing a run with a baseline sorts every difference into one of three kinds:
//! - a *model change*: the file's traffic is not the one recorded; its answers may differ
//!   for that reason alone, so they are listed with it and classified as nothing else;
//! - an *improvement*: on an unchanged model, the new answer is at least as good in every
//!   respect and better in one (a shorter schedule, a higher bound, stronger evidence, a
//!   verdict that settles more), or a model or engine the baseline does not have;
//! - a *regression*: any other difference on an unchanged model (an engine that answered
//!   now errs, a longer schedule, a lower bound, weaker evidence, a verdict that settles
//!   less, a mixed change), or a recorded model or engine no longer run.
//!
//! A user's CI can then tell an engine that got worse from a model that was edited.

use std::path::Path;

use liquid_model::yaml::LoadError;
use liquid_model::{Strength, Traffic, Verdict};
use serde::{Deserialize, Serialize};

use crate::gate::Checked;

/// Format tag of baseline files.
pub const FORMAT: &str = "liquid-baseline/2";

/// The first format, which keyed answers by model name and recorded no digest; refused
/// with a message saying so ([`Baseline::load`]).
pub const FORMAT_1: &str = "liquid-baseline/1";

/// A baseline file: the models of one crosscheck run and its answers, without timings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// [`FORMAT`].
    pub format: String,
    /// The models, in the run's order.
    pub models: Vec<Model>,
    /// The answers, in the run's order (models as given, engines as given).
    pub answers: Vec<Entry>,
}

/// A model as a baseline records it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// The model file as given (see [`file_key`]), or the generated-model spec.
    pub file: String,
    /// The model's name (inside the file; two files may share one).
    pub name: String,
    /// SHA-256 (lower-case hex) of the traffic's explicit form ([`Traffic::sha256`]).
    pub traffic_sha256: String,
}

impl Model {
    /// The record of `traffic`, read from `file` (a key made by [`file_key`]).
    pub fn of(file: &str, traffic: &Traffic) -> Model {
        Model {
            file: file.to_string(),
            name: traffic.name().to_string(),
            traffic_sha256: traffic.sha256(),
        }
    }
}

/// The key a baseline records for a model file or spec as given: the path with `.`
/// components dropped and `/` between components; an absolute path inside the current
/// directory made relative to it. `./models/a.yaml`, `models//a.yaml` and
/// `models/a.yaml` are one key.
pub fn file_key(path: &Path) -> String {
    use std::path::Component;
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    let path = match &relative {
        Some(p) if path.is_absolute() && !p.as_os_str().is_empty() => p.as_path(),
        _ => path,
    };
    let parts: Vec<String> = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::RootDir => String::new(),
            c => c.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    match parts.as_slice() {
        [] => path.display().to_string(),
        [root] if root.is_empty() => "/".to_string(),
        _ => parts.join("/"),
    }
}

/// Just the format tag, read before the rest so that an old format gets its own message.
#[derive(Deserialize)]
struct Tag {
    format: String,
}

impl Baseline {
    /// A baseline of these models and answers.
    pub fn new(models: Vec<Model>, answers: Vec<Entry>) -> Baseline {
        Baseline {
            format: FORMAT.to_string(),
            models,
            answers,
        }
    }

    /// Reads a baseline file; errors name the file, line and field. A `liquid-baseline/1`
    /// file is refused with what it lacks and how to record it again.
    pub fn load(path: &Path) -> Result<Baseline, LoadError> {
        let file = path.display().to_string();
        let text = liquid_model::yaml::read_text(path)?;
        let tag: Tag = liquid_model::yaml::from_str(&file, &text)?;
        if tag.format == FORMAT_1 {
            return Err(LoadError::at_field(
                &file,
                &text,
                "format",
                format!(
                    "{FORMAT_1} keys answers by model name and records neither each model's \
                     file nor its digest, so a changed model cannot be told from an engine \
                     regression (and two files with one model name cannot be recorded): \
                     record the baseline again with `liquid crosscheck MODELS... --record \
                     {file}` ({FORMAT})"
                ),
            ));
        }
        if tag.format != FORMAT {
            return Err(LoadError::at_field(
                &file,
                &text,
                "format",
                format!("format {:?} is not {FORMAT:?}", tag.format),
            ));
        }
        let b: Baseline = liquid_model::yaml::from_str(&file, &text)?;
        b.check()
            .map_err(|(at, why)| LoadError::at_field(&file, &text, &at, why))?;
        Ok(b)
    }

    /// Checks what a run could have recorded: each model once, with a digest; known
    /// verdicts, evidence kinds and strengths, one entry per model file and engine, of a
    /// model recorded, a length not below its lower bound, and an engine that failed with
    /// nothing else. The error is (field path, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        let mut files = std::collections::HashMap::new();
        for (i, m) in self.models.iter().enumerate() {
            let at = |field: &str| format!("models[{i}].{field}");
            let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
            if m.traffic_sha256.len() != 64 || !m.traffic_sha256.chars().all(hex) {
                return Err((
                    at("traffic_sha256"),
                    format!(
                        "{:?} is not a SHA-256 digest (64 lower-case hex digits)",
                        m.traffic_sha256
                    ),
                ));
            }
            if let Some(first) = files.insert(m.file.as_str(), i) {
                return Err((
                    at("file"),
                    format!(
                        "model file {:?} is already recorded at models[{first}]",
                        m.file
                    ),
                ));
            }
        }
        let mut seen = std::collections::HashMap::new();
        for (i, e) in self.answers.iter().enumerate() {
            let at = |field: &str| format!("answers[{i}].{field}");
            if !files.contains_key(e.file.as_str()) {
                return Err((
                    at("file"),
                    format!("model file {:?} is not among the models recorded", e.file),
                ));
            }
            if !VERDICTS.contains(&e.verdict.as_str()) {
                return Err((
                    at("verdict"),
                    format!("{:?} is not a verdict ({})", e.verdict, VERDICTS.join(", ")),
                ));
            }
            if let Some(k) = &e.evidence {
                if !liquid_model::Evidence::KINDS.contains(&k.as_str()) {
                    return Err((
                        at("evidence"),
                        format!(
                            "{k:?} is not a kind of evidence ({})",
                            liquid_model::Evidence::KINDS.join(", ")
                        ),
                    ));
                }
            }
            if let Some(k) = &e.strength {
                if !STRENGTHS.contains(&k.as_str()) {
                    return Err((
                        at("strength"),
                        format!("{k:?} is not a strength ({})", STRENGTHS.join(", ")),
                    ));
                }
            }
            if let (Some(len), Some(lb)) = (e.length, e.lower_bound) {
                if len < lb {
                    return Err((
                        at("length"),
                        format!("a schedule of length {len} is below its lower bound {lb}"),
                    ));
                }
            }
            // The gate's rule ([`liquid_model::Verdict::fits`]) without Λ, which a
            // baseline does not record: liquid and optimal answers meet their bound,
            // the others do not; a feasible answer has a schedule.
            if let Some(lb) = e.lower_bound {
                let v = e.verdict.as_str();
                let meets = e.length == Some(lb);
                if (matches!(v, "liquid" | "optimal") != meets)
                    || (v == "feasible" && e.length.is_none())
                {
                    return Err((
                        at("verdict"),
                        format!(
                            "verdict {v} does not go with length {} and lower bound {lb}",
                            e.length.map_or("none".to_string(), |l| l.to_string())
                        ),
                    ));
                }
            }
            let failed = FAILED.contains(&e.verdict.as_str());
            let recorded = [
                e.length.is_some(),
                e.lower_bound.is_some(),
                e.evidence.is_some(),
                e.strength.is_some(),
            ];
            if failed && recorded.contains(&true) {
                return Err((
                    at("verdict"),
                    format!(
                        "an engine that answered {:?} has no length, bound or evidence",
                        e.verdict
                    ),
                ));
            }
            if !failed && recorded[1..].contains(&false) {
                return Err((
                    at("lower_bound"),
                    "an answer records its lower bound, evidence and strength".into(),
                ));
            }
            if let Some(first) = seen.insert(e.key(), i) {
                return Err((
                    at("engine"),
                    format!(
                        "model file {:?} and engine {:?} are already recorded at answers[{first}]",
                        e.file, e.engine
                    ),
                ));
            }
        }
        // Every model a run records, it records the answers of its engines for.
        if let Some(i) = self
            .models
            .iter()
            .position(|m| !self.answers.iter().any(|e| e.file == m.file))
        {
            return Err((
                format!("models[{i}].file"),
                format!(
                    "model file {:?} has no answers recorded (a run records every model it \
                     ran with its engines' answers)",
                    self.models[i].file
                ),
            ));
        }
        Ok(())
    }

    /// The file's text (YAML, stable: the same answers give the same bytes).
    pub fn to_yaml(&self) -> String {
        liquid_model::yaml::to_string(self).unwrap_or_default()
    }

    /// The recorded model of a file.
    pub fn model(&self, file: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.file == file)
    }
}

/// The verdicts an entry may record: an engine's, or [`FAILED`].
const VERDICTS: [&str; 8] = [
    "liquid",
    "optimal",
    "non-liquid",
    "feasible",
    "unknown",
    "declined",
    "error",
    "wrong-answer",
];

/// The verdicts of an engine that gave no answer that checked ([`Entry::failed`]):
/// it declined the input (too large, not its kind of traffic), failed to run, or answered
/// wrongly.
const FAILED: [&str; 3] = ["declined", "error", "wrong-answer"];

/// The strengths ([`Strength::as_str`]).
const STRENGTHS: [&str; 4] = ["checked", "exhaustive-search", "solver-claim", "dual-bound"];

/// One engine's answer on one model file, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The model file ([`Model::file`]).
    pub file: String,
    /// The engine.
    pub engine: String,
    /// The verdict, or `declined`/`error`/`wrong-answer` when the engine gave none that
    /// checked.
    pub verdict: String,
    /// The schedule's length.
    pub length: Option<usize>,
    /// The lower bound.
    pub lower_bound: Option<usize>,
    /// The lower bound's evidence kind (`bottleneck`, `clique`, `sat-proof`, ...).
    pub evidence: Option<String>,
    /// How strong that evidence is (`checked`, `exhaustive-search`, ...).
    pub strength: Option<Strength>,
}

impl Entry {
    /// The entry of a checked answer on `traffic`, read from `file`.
    pub fn of(file: &str, traffic: &Traffic, c: &Checked) -> Entry {
        let b = c.outcome().lower_bound(traffic);
        Entry {
            file: file.to_string(),
            engine: c.engine().to_string(),
            verdict: c.verdict().as_str().to_string(),
            length: c.length(),
            lower_bound: Some(b.value),
            evidence: Some(b.evidence.kind().to_string()),
            strength: Some(b.evidence.strength()),
        }
    }

    /// The entry of an engine that gave no answer that checked on the model of `file`.
    pub fn failed(file: &str, engine: &str, what: &str) -> Entry {
        Entry {
            file: file.to_string(),
            engine: engine.to_string(),
            verdict: what.to_string(),
            length: None,
            lower_bound: None,
            evidence: None,
            strength: None,
        }
    }

    fn key(&self) -> (&str, &str) {
        (&self.file, &self.engine)
    }
}

/// What kind of change a difference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Better in one respect, worse in none (or a model or engine the baseline lacks).
    Improvement,
    /// Anything else on an unchanged model (or a recorded answer no longer given).
    Regression,
    /// The model itself changed since the baseline: the answer is not compared.
    ModelChanged,
}

impl Change {
    /// `improvement`, `regression` or `model-changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Improvement => "improvement",
            Change::Regression => "regression",
            Change::ModelChanged => "model-changed",
        }
    }
}

/// One difference between a baseline and a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The recorded entry (`None`: a new model or engine).
    pub old: Option<Entry>,
    /// The new entry (`None`: no longer run).
    pub new: Option<Entry>,
    /// Its kind.
    pub change: Change,
}

/// A model file whose traffic is not the one recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChange {
    /// As recorded.
    pub old: Model,
    /// As read now.
    pub new: Model,
}

/// Everything that differs between a baseline and a run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Comparison {
    /// The model files whose traffic changed, in the baseline's order.
    pub changed_models: Vec<ModelChange>,
    /// The answers that differ: the baseline's in its order, then the run's new ones.
    pub differences: Vec<Difference>,
}

impl Comparison {
    /// How many differences are of this kind.
    pub fn count(&self, change: Change) -> usize {
        self.differences
            .iter()
            .filter(|d| d.change == change)
            .count()
    }
}

/// How much a verdict settles: liquid and optimal settle the optimum, non-liquid a bound,
/// feasible and unknown nothing; an engine that declined the input did not run, and one
/// that failed or answered wrongly is worse still.
fn settles(verdict: &str) -> u8 {
    match verdict {
        v if v == Verdict::Liquid.as_str() || v == Verdict::Optimal.as_str() => 4,
        v if v == Verdict::NonLiquid.as_str() => 3,
        v if v == Verdict::Feasible.as_str() || v == Verdict::Unknown.as_str() => 2,
        "declined" => 1,
        _ => 0,
    }
}

/// Classifies a changed entry of an unchanged model.
pub fn classify(old: &Entry, new: &Entry) -> Change {
    use std::cmp::Ordering::{Greater, Less};
    // Each respect: Greater = the new answer is better, Less = worse.
    let length = match (old.length, new.length) {
        (Some(a), Some(b)) => a.cmp(&b),
        (None, Some(_)) => Greater,
        (Some(_), None) => Less,
        (None, None) => std::cmp::Ordering::Equal,
    };
    let bound = new
        .lower_bound
        .unwrap_or(0)
        .cmp(&old.lower_bound.unwrap_or(0));
    let verdict = settles(&new.verdict).cmp(&settles(&old.verdict));
    let strength = if old.lower_bound == new.lower_bound {
        // Strength is ordered strongest first; no evidence at all is the weakest.
        let stronger = |s: Option<Strength>| s.map(std::cmp::Reverse);
        stronger(new.strength).cmp(&stronger(old.strength))
    } else {
        std::cmp::Ordering::Equal
    };
    let respects = [length, bound, verdict, strength];
    if respects.contains(&Less) || !respects.contains(&Greater) {
        Change::Regression
    } else {
        Change::Improvement
    }
}

/// Every difference between a recorded baseline and a run (both keyed by model file):
/// the models whose digest changed, and the answers that differ, each classified
/// ([`Change`]).
pub fn compare(baseline: &Baseline, run: &Baseline) -> Comparison {
    let changed_models: Vec<ModelChange> = baseline
        .models
        .iter()
        .filter_map(|old| {
            let new = run.model(&old.file)?;
            (new.traffic_sha256 != old.traffic_sha256).then(|| ModelChange {
                old: old.clone(),
                new: new.clone(),
            })
        })
        .collect();
    let changed = |file: &str| changed_models.iter().any(|c| c.old.file == file);
    let mut differences = Vec::new();
    for old in &baseline.answers {
        match run.answers.iter().find(|n| n.key() == old.key()) {
            None => differences.push(Difference {
                old: Some(old.clone()),
                new: None,
                change: Change::Regression,
            }),
            Some(new) if new != old => differences.push(Difference {
                old: Some(old.clone()),
                new: Some(new.clone()),
                change: if changed(&old.file) {
                    Change::ModelChanged
                } else {
                    classify(old, new)
                },
            }),
            Some(_) => {}
        }
    }
    for new in &run.answers {
        if !baseline.answers.iter().any(|o| o.key() == new.key()) {
            // A model or engine the baseline does not have: nothing to regress from
            // (unless its model changed: then it is listed with the change).
            differences.push(Difference {
                old: None,
                new: Some(new.clone()),
                change: if changed(&new.file) {
                    Change::ModelChanged
                } else {
                    Change::Improvement
                },
            });
        }
    }
    Comparison {
        changed_models,
        differences,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(verdict: &str, length: Option<usize>, lb: usize, strength: Strength) -> Entry {
        Entry {
            file: "m.yaml".into(),
            engine: "x".into(),
            verdict: verdict.into(),
            length,
            lower_bound: Some(lb),
            evidence: Some("clique".into()),
            strength: Some(strength),
        }
    }

    fn model(file: &str, digit: char) -> Model {
        Model {
            file: file.into(),
            name: "m".into(),
            traffic_sha256: digit.to_string().repeat(64),
        }
    }

    #[test]
    fn better_answers_are_improvements_and_the_rest_regressions() {
        let feasible = e("unknown", Some(5), 3, Strength::Checked);
        let optimal = e("optimal", Some(4), 4, Strength::Checked);
        assert_eq!(classify(&feasible, &optimal), Change::Improvement);
        assert_eq!(classify(&optimal, &feasible), Change::Regression);
        let claim = e("optimal", Some(4), 4, Strength::SolverClaim);
        assert_eq!(classify(&claim, &optimal), Change::Improvement);
        assert_eq!(classify(&optimal, &claim), Change::Regression);
        // Shorter schedule but a lower bound: mixed, so a regression.
        let mixed = e("unknown", Some(4), 3, Strength::Checked);
        assert_eq!(classify(&optimal, &mixed), Change::Regression);
        let failed = Entry {
            verdict: "error".into(),
            length: None,
            lower_bound: None,
            evidence: None,
            strength: None,
            ..optimal.clone()
        };
        assert_eq!(classify(&optimal, &failed), Change::Regression);
        assert_eq!(classify(&failed, &optimal), Change::Improvement);
        // Declining the input is less than running, more than failing to run.
        let declined = Entry {
            verdict: "declined".into(),
            ..failed.clone()
        };
        let ran = Entry {
            verdict: "unknown".into(),
            ..failed.clone()
        };
        assert_eq!(classify(&failed, &declined), Change::Improvement);
        assert_eq!(classify(&declined, &failed), Change::Regression);
        assert_eq!(classify(&declined, &ran), Change::Improvement);
        assert_eq!(classify(&ran, &declined), Change::Regression);
    }

    #[test]
    fn compare_finds_changed_missing_and_new_entries() {
        let a = e("optimal", Some(4), 4, Strength::Checked);
        let b = Entry {
            engine: "y".into(),
            ..a.clone()
        };
        let models = vec![model("m.yaml", 'a')];
        let one = Baseline::new(models.clone(), vec![a.clone()]);
        let other = Baseline::new(models, vec![b]);
        assert_eq!(compare(&one, &one), Comparison::default());
        let c = compare(&one, &other);
        assert!(c.changed_models.is_empty());
        assert_eq!(c.differences.len(), 2);
        assert_eq!(c.differences[0].change, Change::Regression, "x is gone");
        assert_eq!(c.differences[1].change, Change::Improvement, "y is new");
    }

    #[test]
    fn answers_of_a_changed_model_are_neither_regressions_nor_improvements() {
        let optimal = e("optimal", Some(4), 4, Strength::Checked);
        let worse = e("unknown", Some(5), 3, Strength::Checked);
        let other = Entry {
            file: "n.yaml".into(),
            ..optimal.clone()
        };
        let recorded = Baseline::new(
            vec![model("m.yaml", 'a'), model("n.yaml", 'b')],
            vec![optimal.clone(), other.clone()],
        );
        // m.yaml changed and its answer with it; n.yaml did not, and regressed.
        let run = Baseline::new(
            vec![model("m.yaml", 'c'), model("n.yaml", 'b')],
            vec![
                worse.clone(),
                Entry {
                    file: "n.yaml".into(),
                    ..worse.clone()
                },
            ],
        );
        let c = compare(&recorded, &run);
        assert_eq!(c.changed_models.len(), 1);
        assert_eq!(c.changed_models[0].old.file, "m.yaml");
        assert_eq!(c.count(Change::ModelChanged), 1);
        assert_eq!(c.count(Change::Regression), 1);
        assert_eq!(c.differences[1].old.as_ref(), Some(&other));
        // A changed model with the same answers is still a change.
        let same = Baseline::new(run.models.clone(), recorded.answers.clone());
        let c = compare(&recorded, &same);
        assert_eq!(c.changed_models.len(), 1);
        assert!(c.differences.is_empty());
    }

    #[test]
    fn two_files_with_one_model_name_are_two_models() {
        let a = e("optimal", Some(4), 4, Strength::Checked);
        let b = Entry {
            file: "copy.yaml".into(),
            ..a.clone()
        };
        let both = Baseline::new(
            vec![model("m.yaml", 'a'), model("copy.yaml", 'a')],
            vec![a, b],
        );
        assert_eq!(both.check(), Ok(()));
    }

    #[test]
    fn file_keys_drop_dot_components() {
        for p in [
            "models/a.yaml",
            "./models/a.yaml",
            "models/./a.yaml",
            "models//a.yaml",
        ] {
            assert_eq!(file_key(Path::new(p)), "models/a.yaml", "{p}");
        }
        assert_eq!(file_key(Path::new("fat-tree:4,2")), "fat-tree:4,2");
        let cwd = std::env::current_dir().expect("cwd");
        assert_eq!(file_key(&cwd.join("models/a.yaml")), "models/a.yaml");
        assert_eq!(
            file_key(Path::new("/elsewhere/a.yaml")),
            "/elsewhere/a.yaml"
        );
    }

    #[test]
    fn every_recorded_verdict_is_one_of_the_known_ones() {
        for v in [
            Verdict::Liquid,
            Verdict::Optimal,
            Verdict::NonLiquid,
            Verdict::Feasible,
            Verdict::Unknown,
        ] {
            assert!(VERDICTS.contains(&v.as_str()));
        }
        for st in [
            Strength::Checked,
            Strength::ExhaustiveSearch,
            Strength::SolverClaim,
            Strength::DualBound,
        ] {
            assert!(STRENGTHS.contains(&st.as_str()));
        }
    }

    const GOOD: &str = "format: liquid-baseline/2\nmodels:\n- file: m.yaml\n  name: m\n  traffic_sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nanswers:\n- file: m.yaml\n  engine: x\n  verdict: optimal\n  length: 4\n  lower_bound: 4\n  evidence: clique\n  strength: checked\n";

    #[test]
    fn made_up_duplicated_or_impossible_entries_are_refused_with_their_line() {
        let good = GOOD;
        let dir = tempfile::tempdir().expect("temp dir");
        let f = dir.path().join("b.yaml");
        std::fs::write(&f, good).expect("write");
        Baseline::load(&f).expect("a good baseline");
        let dup = format!("{good}{}", &good[good.rfind("- file").expect("entry")..]);
        let dup_model = good.replace(
            "answers:\n",
            &format!(
                "{}answers:\n",
                &good[good.find("- file").expect("model")..good.find("answers").expect("a")]
            ),
        );
        for (text, field, line) in [
            (
                good.replace("optimal", "super-liquid"),
                "answers[0].verdict",
                9,
            ),
            (good.replace("clique", "a-hunch"), "answers[0].evidence", 12),
            (
                good.replace("length: 4", "length: 3"),
                "answers[0].length",
                10,
            ),
            (dup, "answers[1].engine", 15),
            (
                good.replace("engine: x", "engine: x\n  model: m"),
                "answers[0]",
                9,
            ),
            (
                good.replace("- file: m.yaml\n  engine", "- file: n.yaml\n  engine"),
                "answers[0].file",
                7,
            ),
            (
                good.replacen("aaaa", "AAAA", 1),
                "models[0].traffic_sha256",
                5,
            ),
            (dup_model.clone(), "models[1].file", 6),
            // A verdict its length and bound do not give.
            (
                good.replace("length: 4", "length: 5"),
                "answers[0].verdict",
                9,
            ),
            (good.replace("optimal", "feasible"), "answers[0].verdict", 9),
            // A model recorded with no answer.
            (
                dup_model
                    .replacen("- file: m.yaml\n  name: m", "- file: g.yaml\n  name: g", 2)
                    .replacen("- file: g.yaml\n  name: g", "- file: m.yaml\n  name: m", 1),
                "models[1].file",
                6,
            ),
        ] {
            std::fs::write(&f, &text).expect("write");
            let e = Baseline::load(&f).expect_err(&text);
            assert_eq!(e.field.as_deref(), Some(field), "{e}\n{text}");
            assert_eq!(e.line, Some(line), "{e}\n{text}");
        }
    }

    #[test]
    fn a_first_format_baseline_is_refused_with_what_it_lacks() {
        let dir = tempfile::tempdir().expect("temp dir");
        let f = dir.path().join("old.yaml");
        let old = "format: liquid-baseline/1\nanswers:\n- model: m\n  engine: x\n  verdict: optimal\n  length: 4\n  lower_bound: 4\n  evidence: clique\n  strength: checked\n";
        std::fs::write(&f, old).expect("write");
        let e = Baseline::load(&f).expect_err("format 1");
        assert_eq!((e.field.as_deref(), e.line), (Some("format"), Some(1)));
        assert!(
            e.message
                .contains("neither each model's file nor its digest"),
            "{e}"
        );
        assert!(e.message.contains("--record"), "{e}");
    }
}
