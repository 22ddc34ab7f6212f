//! Solver-output baselines: what each engine answered for each model, recorded in a stable,
//! reviewable form (no timings), and compared with a later run.
//!
//! A difference is an *improvement* when the new answer is at least as good in every
//! respect and better in one (a shorter schedule, a higher bound, stronger evidence, a
//! verdict that settles more), and a *regression* otherwise (an engine that answered now
//! errs, a longer schedule, a lower bound, weaker evidence, a verdict that settles less, or
//! any change that is not an improvement). A user's CI can then gate on regressions only.

use std::path::Path;

use liquid_model::yaml::LoadError;
use liquid_model::{Strength, Traffic, Verdict};
use serde::{Deserialize, Serialize};

use crate::gate::Checked;

/// Format tag of baseline files.
pub const FORMAT: &str = "liquid-baseline/1";

/// A baseline file: the answers of one crosscheck run, without timings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// [`FORMAT`].
    pub format: String,
    /// The answers, in the run's order (models as given, engines as given).
    pub answers: Vec<Entry>,
}

impl Baseline {
    /// A baseline of these answers.
    pub fn new(answers: Vec<Entry>) -> Baseline {
        Baseline {
            format: FORMAT.to_string(),
            answers,
        }
    }

    /// Reads a baseline file; errors name the file, line and field.
    pub fn load(path: &Path) -> Result<Baseline, LoadError> {
        let file = path.display().to_string();
        let text = liquid_model::yaml::read_text(path)?;
        let b: Baseline = liquid_model::yaml::from_str(&file, &text)?;
        if b.format != FORMAT {
            return Err(LoadError::at_field(
                &file,
                &text,
                "format",
                format!("format {:?} is not {FORMAT:?}", b.format),
            ));
        }
        b.check()
            .map_err(|(at, why)| LoadError::at_field(&file, &text, &at, why))?;
        Ok(b)
    }

    /// Checks what a run could have recorded: known verdicts, evidence kinds and
    /// strengths, one entry per model and engine, a length not below its lower bound, and
    /// an engine that failed with nothing else. The error is (field path, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        let mut seen = std::collections::HashMap::new();
        for (i, e) in self.answers.iter().enumerate() {
            let at = |field: &str| format!("answers[{i}].{field}");
            if !VERDICTS.contains(&e.verdict.as_str()) {
                return Err((
                    at("verdict"),
                    format!("{:?} is not a verdict ({})", e.verdict, VERDICTS.join(", ")),
                ));
            }
            if let Some(k) = &e.evidence {
                if !EVIDENCE.contains(&k.as_str()) {
                    return Err((
                        at("evidence"),
                        format!("{k:?} is not a kind of evidence ({})", EVIDENCE.join(", ")),
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
                        "model {:?} and engine {:?} are already recorded at answers[{first}]",
                        e.model, e.engine
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The file's text (YAML, stable: the same answers give the same bytes).
    pub fn to_yaml(&self) -> String {
        liquid_model::yaml::to_string(self).unwrap_or_default()
    }
}

/// The verdicts an entry may record: an engine's, or [`FAILED`].
const VERDICTS: [&str; 7] = [
    "liquid",
    "optimal",
    "non-liquid",
    "feasible",
    "unknown",
    "error",
    "wrong-answer",
];

/// The verdicts of an engine that gave no answer that checked ([`Entry::failed`]).
const FAILED: [&str; 2] = ["error", "wrong-answer"];

/// The kinds of evidence ([`liquid_model::Evidence::kind`]).
const EVIDENCE: [&str; 6] = [
    "bottleneck",
    "clique",
    "exhaustive-search",
    "unsat-claim",
    "dual-bound",
    "sat-proof",
];

/// The strengths ([`Strength::as_str`]).
const STRENGTHS: [&str; 4] = ["checked", "exhaustive-search", "solver-claim", "dual-bound"];

/// One engine's answer on one model, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The model's name.
    pub model: String,
    /// The engine.
    pub engine: String,
    /// The verdict, or `error`/`wrong-answer` when the engine gave none that checked.
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
    /// The entry of a checked answer.
    pub fn of(traffic: &Traffic, c: &Checked) -> Entry {
        let b = c.outcome().lower_bound(traffic);
        Entry {
            model: traffic.name().to_string(),
            engine: c.engine().to_string(),
            verdict: c.verdict().as_str().to_string(),
            length: c.length(),
            lower_bound: Some(b.value),
            evidence: Some(b.evidence.kind().to_string()),
            strength: Some(b.evidence.strength()),
        }
    }

    /// The entry of an engine that gave no answer that checked.
    pub fn failed(traffic: &Traffic, engine: &str, what: &str) -> Entry {
        Entry {
            model: traffic.name().to_string(),
            engine: engine.to_string(),
            verdict: what.to_string(),
            length: None,
            lower_bound: None,
            evidence: None,
            strength: None,
        }
    }

    fn key(&self) -> (&str, &str) {
        (&self.model, &self.engine)
    }
}

/// What kind of change a difference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Better in one respect, worse in none.
    Improvement,
    /// Anything else.
    Regression,
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

/// How much a verdict settles: liquid and optimal settle the optimum, non-liquid a bound,
/// feasible and unknown nothing; an engine that failed, less than nothing.
fn settles(verdict: &str) -> u8 {
    match verdict {
        v if v == Verdict::Liquid.as_str() || v == Verdict::Optimal.as_str() => 3,
        v if v == Verdict::NonLiquid.as_str() => 2,
        v if v == Verdict::Feasible.as_str() || v == Verdict::Unknown.as_str() => 1,
        _ => 0,
    }
}

/// Classifies a changed entry.
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

/// Every difference between a recorded baseline and a run, in model and engine order.
pub fn compare(baseline: &[Entry], run: &[Entry]) -> Vec<Difference> {
    let mut out = Vec::new();
    for old in baseline {
        match run.iter().find(|n| n.key() == old.key()) {
            None => out.push(Difference {
                old: Some(old.clone()),
                new: None,
                change: Change::Regression,
            }),
            Some(new) if new != old => out.push(Difference {
                old: Some(old.clone()),
                new: Some(new.clone()),
                change: classify(old, new),
            }),
            Some(_) => {}
        }
    }
    for new in run {
        if !baseline.iter().any(|o| o.key() == new.key()) {
            // A model or engine the baseline does not have: nothing to regress from.
            out.push(Difference {
                old: None,
                new: Some(new.clone()),
                change: Change::Improvement,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(verdict: &str, length: Option<usize>, lb: usize, strength: Strength) -> Entry {
        Entry {
            model: "m".into(),
            engine: "x".into(),
            verdict: verdict.into(),
            length,
            lower_bound: Some(lb),
            evidence: Some("k".into()),
            strength: Some(strength),
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
    }

    #[test]
    fn compare_finds_changed_missing_and_new_entries() {
        let a = e("optimal", Some(4), 4, Strength::Checked);
        let b = Entry {
            engine: "y".into(),
            ..a.clone()
        };
        let (one, other) = (vec![a.clone()], vec![b]);
        assert!(compare(&one, &one).is_empty());
        let d = compare(&one, &other);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].change, Change::Regression, "x is gone");
        assert_eq!(d[1].change, Change::Improvement, "y is new");
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

    #[test]
    fn made_up_duplicated_or_impossible_entries_are_refused_with_their_line() {
        let good = "format: liquid-baseline/1\nanswers:\n- model: m\n  engine: x\n  verdict: optimal\n  length: 4\n  lower_bound: 4\n  evidence: clique\n  strength: checked\n";
        let dir = std::env::temp_dir().join(format!("liquid-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let f = dir.join("b.yaml");
        std::fs::write(&f, good).expect("write");
        Baseline::load(&f).expect("a good baseline");
        let dup = format!("{good}{}", &good[good.find("- model").expect("entry")..]);
        for (text, field, line) in [
            (
                good.replace("optimal", "super-liquid"),
                "answers[0].verdict",
                5,
            ),
            (good.replace("checked", "divine"), "answers[0].strength", 9),
            (good.replace("clique", "a-hunch"), "answers[0].evidence", 8),
            (
                good.replace("length: 4", "length: 3"),
                "answers[0].length",
                6,
            ),
            (dup, "answers[1].engine", 11),
        ] {
            std::fs::write(&f, &text).expect("write");
            let e = Baseline::load(&f).expect_err(&text);
            assert_eq!(e.field.as_deref(), Some(field), "{e}");
            assert_eq!(e.line, Some(line), "{e}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
