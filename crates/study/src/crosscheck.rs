//! Several engines on each model through the gate, and what the comparison rule of
//! `liquid_engine::crosscheck` finds (`liquid crosscheck`); the answers recorded as a
//! baseline, or compared with one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use liquid_engine::baseline::{Baseline, Change, Entry, Model};
use liquid_engine::crosscheck::{compare, Claim, Status};
use liquid_engine::{Engine, Request, SolveError};
use liquid_model::yaml::Document;
use liquid_model::Traffic;
use serde::Serialize;

use crate::StudyError;

/// How crosscheck runs an engine through the gate: [`quietly`], or a caller's function
/// that shows progress under the label (model and engine) while [`liquid_engine::solve`]
/// runs.
pub type Solver<'a> = &'a dyn Fn(
    &str,
    &Traffic,
    &'static dyn Engine,
    &Request,
) -> Result<liquid_engine::Checked, SolveError>;

/// Runs an engine through the gate without showing progress.
pub fn quietly(
    _label: &str,
    traffic: &Traffic,
    engine: &'static dyn Engine,
    request: &Request,
) -> Result<liquid_engine::Checked, SolveError> {
    crate::quietly(traffic, engine, request)
}

/// How one engine's run went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RowStatus {
    /// It answered and the answer passed the gate.
    Ok,
    /// It answered and the answer failed the gate.
    WrongAnswer,
    /// It declined the input before running (too large for its encoding, not the kind
    /// of traffic it schedules): its documented limit, not a fault.
    Declined,
    /// It failed to run (a solver error): a fault.
    Error,
}

impl RowStatus {
    fn as_str(self) -> &'static str {
        match self {
            RowStatus::Ok => "ok",
            RowStatus::WrongAnswer => "wrong-answer",
            RowStatus::Declined => "declined",
            RowStatus::Error => "error",
        }
    }
}

#[derive(Serialize, serde::Deserialize)]
struct EngineRow {
    engine: String,
    status: RowStatus,
    verdict: Option<String>,
    length: Option<usize>,
    lower_bound: Option<usize>,
    witness: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
    time_s: f64,
    /// The validated schedule (schedule-file YAML), kept in shard files only, so that
    /// `liquid merge` validates it again against the model ([`recheck`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schedule: Option<String>,
}

#[derive(Serialize, serde::Deserialize)]
pub(crate) struct ModelReport {
    model: String,
    file: String,
    transfers: usize,
    duration: usize,
    /// The best lower bound claimed by an engine whose answer checked.
    lower_bound: Option<usize>,
    /// The shortest validated schedule.
    upper_bound: Option<usize>,
    /// `liquid`, `optimal`, `open` or `contradiction`.
    status: String,
    engines: Vec<EngineRow>,
    contradictions: Vec<String>,
    /// The answers as a baseline records them.
    #[serde(skip)]
    entries: Vec<Entry>,
}

/// What crosscheck found: each model's answers and contradictions, and the comparison
/// with a baseline.
#[derive(Serialize)]
pub struct Report {
    consistent: bool,
    models: Vec<ModelReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<BaselineReport>,
}

/// How this run compares with a recorded baseline.
#[derive(Serialize)]
struct BaselineReport {
    file: String,
    /// Model files whose traffic is not the one recorded (their answers are listed
    /// as `model-changed`, neither regressions nor improvements).
    models_changed: usize,
    regressions: usize,
    improvements: usize,
    /// Whether the baseline file was rewritten with this run's answers (`--update`).
    updated: bool,
    changed_models: Vec<ChangedModelReport>,
    differences: Vec<DiffReport>,
}

/// A model file whose traffic changed since the baseline.
#[derive(Serialize)]
struct ChangedModelReport {
    file: String,
    model: String,
    /// The digest recorded ([`Model::traffic_sha256`]).
    recorded_sha256: String,
    /// The digest of the traffic read now.
    sha256: String,
}

#[derive(Serialize)]
struct DiffReport {
    change: &'static str,
    file: String,
    model: String,
    engine: String,
    old: Option<String>,
    new: Option<String>,
}

/// Where crosscheck's answers go besides the report (`--record`, `--baseline`).
#[derive(Debug, Clone, Default)]
pub struct BaselineArgs {
    /// Write the answers to this file.
    pub record: Option<PathBuf>,
    /// Compare the answers with this file.
    pub baseline: Option<PathBuf>,
    /// With `baseline`: rewrite it with this run's answers.
    pub update: bool,
    /// With `baseline`: exit 0 when the only differences are improvements.
    pub accept_improvements: bool,
}

/// How a crosscheck ended, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Two answers contradict each other.
    Contradiction,
    /// An engine failed to run.
    EngineError,
    /// Every engine declined a model (too large, not its kind of traffic): nothing
    /// about it was checked.
    Unchecked,
    /// A schedule file given among the models was rejected (invalid for its model).
    ScheduleRejected,
    /// A model file changed since the baseline.
    ModelChanged,
    /// An answer regressed against the baseline.
    Regression,
    /// Answers only improved on the baseline (without `accept_improvements`).
    Improvement,
    /// Every answer checks, none contradicts another.
    Agreed,
}

fn describe(e: &Entry) -> String {
    let opt = |v: Option<usize>| v.map_or("-".to_string(), |v| v.to_string());
    match (&e.evidence, &e.strength) {
        (Some(k), Some(s)) => format!(
            "{}, length {}, bound {} ({k}, {})",
            e.verdict,
            opt(e.length),
            opt(e.lower_bound),
            s.as_str()
        ),
        _ => format!("{}, length {}", e.verdict, opt(e.length)),
    }
}

/// A schedule file given among the models: one more claim, checked like an engine's.
struct ScheduleClaim {
    file: String,
    text: String,
}

/// How a schedule file's row begins (`schedule FILE`), where an engine's names the engine.
const SCHEDULE_ROW: &str = "schedule ";

/// The verdict of a valid schedule file's row: liquid when it has Λ timeframes, else
/// feasible (a file proves no bound).
fn schedule_verdict(liquid: bool) -> &'static str {
    if liquid {
        liquid_model::Verdict::Liquid.as_str()
    } else {
        liquid_model::Verdict::Feasible.as_str()
    }
}

fn check_model(
    file: &str,
    key: &str,
    traffic: &Traffic,
    engines: &[&'static dyn Engine],
    schedules: &[&ScheduleClaim],
    request: &Request,
    solve: Solver<'_>,
) -> Result<ModelReport, StudyError> {
    let mut rows = Vec::new();
    let mut wrong = Vec::new();
    let mut claims = Vec::new();
    let mut entries = Vec::new();
    for s in schedules {
        // Every problem of the schedule, transfer names the model lacks included.
        let mut problems = liquid_model::Problems::new();
        let schedule =
            liquid_model::yaml::parse_schedule_listing(&s.file, &s.text, traffic, &mut problems)?;
        let start = std::time::Instant::now();
        let checked = liquid_model::validate_all(traffic, &schedule, &mut problems)
            .filter(|_| problems.is_empty())
            .ok_or(problems);
        let mut row = EngineRow {
            engine: format!("{SCHEDULE_ROW}{}", s.file),
            status: RowStatus::Ok,
            verdict: None,
            length: Some(schedule.len()),
            lower_bound: None,
            witness: None,
            problem: None,
            time_s: start.elapsed().as_secs_f64(),
            schedule: None,
        };
        match checked {
            Ok(r) => {
                row.schedule = Some(liquid_model::yaml::write_schedule(traffic, &schedule));
                row.verdict = Some(schedule_verdict(r.liquid).to_string());
                claims.push(Claim {
                    source: row.engine.clone(),
                    lower: None,
                    length: Some(r.length),
                });
            }
            Err(e) => {
                row.status = RowStatus::WrongAnswer;
                row.length = None;
                let msg = format!("the schedule in {} is invalid: {e}", s.file);
                wrong.push(msg.clone());
                row.problem = Some(msg);
            }
        }
        rows.push(row);
    }
    for &e in engines {
        let start = std::time::Instant::now();
        let mut row = EngineRow {
            engine: e.name().to_string(),
            status: RowStatus::Ok,
            verdict: None,
            length: None,
            lower_bound: None,
            witness: None,
            problem: None,
            time_s: 0.0,
            schedule: None,
        };
        let label = format!("{} · {}", traffic.name(), e.name());
        let answer = solve(&label, traffic, e, request);
        match answer {
            Err(SolveError::Wrong { engine, reason }) => {
                entries.push(Entry::failed(key, e.name(), "wrong-answer"));
                row.status = RowStatus::WrongAnswer;
                row.time_s = start.elapsed().as_secs_f64();
                let msg = format!("engine {engine} returned a wrong answer: {reason}");
                wrong.push(msg.clone());
                row.problem = Some(msg);
            }
            Err(err) => {
                // An input the engine refuses is its documented limit (`declined`, exit
                // 0 as far as it goes); any other failure to run is a fault (`error`).
                let status = match err {
                    SolveError::Input(_) => RowStatus::Declined,
                    _ => RowStatus::Error,
                };
                entries.push(Entry::failed(key, e.name(), status.as_str()));
                row.status = status;
                row.problem = Some(err.to_string());
                row.time_s = start.elapsed().as_secs_f64();
            }
            Ok(c) => {
                entries.push(Entry::of(key, traffic, &c));
                let claim = Claim::of(traffic, &c);
                row.verdict = Some(c.verdict().as_str().to_string());
                row.length = c.length();
                row.lower_bound = claim.lower.map(|l| l.0);
                row.witness = claim.lower.map(|l| l.1.to_string());
                row.time_s = c.seconds();
                row.schedule = c
                    .outcome()
                    .schedule()
                    .map(|s| liquid_model::yaml::write_schedule(traffic, s));
                claims.push(claim);
            }
        }
        rows.push(row);
    }
    let cmp = compare(traffic.duration(), &claims, wrong);
    Ok(ModelReport {
        model: traffic.name().to_string(),
        file: file.to_string(),
        transfers: traffic.len(),
        duration: traffic.duration(),
        lower_bound: cmp.lower,
        upper_bound: cmp.upper,
        status: cmp.status.as_str().to_string(),
        engines: rows,
        contradictions: cmp.contradictions,
        entries,
    })
}

/// The optimum's range, in words: no schedule found leaves it open above. `lower` is
/// never below Λ (`duration`), which bounds every schedule.
fn between(lower: Option<usize>, upper: Option<usize>, duration: usize) -> String {
    let lower = Some(lower.map_or(duration, |l| l.max(duration)));
    match upper {
        Some(u) => format!("optimal length between {} and {u}", opt(&lower)),
        None => format!(
            "optimal length at least {} (no schedule found)",
            opt(&lower)
        ),
    }
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or("-".to_string(), ToString::to_string)
}

impl Report {
    /// The report as tables for people: one per model, then the baseline's differences,
    /// then the closing line ([`Report::summary`]).
    pub fn table(&self, accept_improvements: bool) -> String {
        table(self, accept_improvements)
    }

    /// Contradictions that an engine caused (its wrong answer, or a bound above a valid
    /// schedule), as opposed to a schedule file given among the models being invalid.
    fn engine_contradictions(&self) -> usize {
        self.models
            .iter()
            .map(|m| m.contradictions.len().saturating_sub(rejected_schedules(m)))
            .sum()
    }

    /// How the crosscheck ended, most serious first; improvements count as agreement
    /// with `accept_improvements`.
    pub fn outcome(&self, accept_improvements: bool) -> Outcome {
        let errored = self
            .models
            .iter()
            .any(|m| m.engines.iter().any(|r| r.status == RowStatus::Error));
        let rejected = self.models.iter().map(rejected_schedules).sum::<usize>();
        let (changed, regressions, improvements) = self
            .baseline
            .as_ref()
            .filter(|b| !b.updated)
            .map_or((0, 0, 0), |b| {
                (b.models_changed, b.regressions, b.improvements)
            });
        if self.engine_contradictions() > 0 {
            Outcome::Contradiction
        } else if errored {
            Outcome::EngineError
        } else if self.models.iter().any(unchecked) {
            Outcome::Unchecked
        } else if rejected > 0 {
            Outcome::ScheduleRejected
        } else if changed > 0 {
            Outcome::ModelChanged
        } else if regressions > 0 {
            Outcome::Regression
        } else if improvements > 0 && !accept_improvements {
            Outcome::Improvement
        } else {
            Outcome::Agreed
        }
    }

    /// The closing line: "all engines agree" only when nothing else is to be said, else
    /// every problem found (contradictions, rejected schedules, failed runs, changed
    /// models, regressions, improvements not accepted).
    pub fn summary(&self, accept_improvements: bool) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut problems = Vec::new();
        let mut notes = Vec::new();
        let contradictions = self.engine_contradictions();
        if contradictions > 0 {
            problems.push(format!(
                "engines contradict each other ({}: see the CONTRADICTION lines)",
                plural(contradictions, "contradiction", "contradictions")
            ));
        }
        let rejected = self.models.iter().map(rejected_schedules).sum::<usize>();
        if rejected > 0 {
            problems.push(format!(
                "{} rejected (see the REJECTED lines)",
                plural(rejected, "schedule file", "schedule files")
            ));
        }
        let count = |status: RowStatus| {
            self.models
                .iter()
                .flat_map(|m| &m.engines)
                .filter(|r| r.status == status)
                .count()
        };
        let failed = count(RowStatus::Error);
        if failed > 0 {
            problems.push(format!(
                "{} failed (see the error lines)",
                plural(failed, "engine run", "engine runs")
            ));
        }
        let declined = count(RowStatus::Declined);
        if declined > 0 {
            notes.push(format!(
                "{} declined the input, too large or not of its kind (see the declined \
                 lines)",
                plural(declined, "engine run", "engine runs")
            ));
        }
        let unchecked = self.models.iter().filter(|m| unchecked(m)).count();
        if unchecked > 0 {
            problems.push(format!(
                "{} by no engine: every engine declined it (choose others with --engines)",
                plural(unchecked, "model checked", "models checked")
            ));
        }
        if let Some(b) = &self.baseline {
            if b.updated {
                notes.push(format!(
                    "baseline {} rewritten with this run's answers",
                    b.file
                ));
            } else {
                if b.models_changed > 0 {
                    problems.push(format!(
                        "{} since baseline {} (record it again with --update)",
                        plural(b.models_changed, "model changed", "models changed"),
                        b.file
                    ));
                }
                if b.regressions > 0 {
                    problems.push(format!(
                        "{} against baseline {}",
                        plural(b.regressions, "answer regressed", "answers regressed"),
                        b.file
                    ));
                }
                if b.improvements > 0 && accept_improvements {
                    notes.push(format!(
                        "{} on baseline {} accepted",
                        plural(b.improvements, "improvement", "improvements"),
                        b.file
                    ));
                } else if b.improvements > 0 {
                    problems.push(format!(
                        "{} on baseline {} (--accept-improvements passes them, --update \
                         records them)",
                        plural(b.improvements, "answer improved", "answers improved"),
                        b.file
                    ));
                }
            }
        }
        match (problems.is_empty(), notes.is_empty()) {
            (true, true) if self.baseline.is_some() => {
                "all engines agree, and every answer matches the baseline".to_string()
            }
            (true, true) => "all engines agree".to_string(),
            (true, false) => format!("no contradiction between engines; {}", notes.join("; ")),
            (false, _) => {
                let all = [problems, notes].concat().join("; ");
                if contradictions > 0 {
                    all
                } else {
                    format!("no contradiction between engines, but {all}")
                }
            }
        }
    }
}

/// Whether every engine (and no schedule file) was run on the model and declined it:
/// nothing about it was checked.
fn unchecked(m: &ModelReport) -> bool {
    m.engines.iter().all(|r| r.status == RowStatus::Declined)
}

/// The schedule files given with a model that were found invalid for it.
fn rejected_schedules(m: &ModelReport) -> usize {
    m.engines
        .iter()
        .filter(|r| r.engine.starts_with(SCHEDULE_ROW) && r.status == RowStatus::WrongAnswer)
        .count()
}

fn table(report: &Report, accept_improvements: bool) -> String {
    let mut out = String::new();
    for m in &report.models {
        let summary = match m.status.as_str() {
            s if s == Status::Liquid.as_str() => format!("optimal length {} (liquid)", m.duration),
            s if s == Status::Optimal.as_str() => format!(
                "optimal length {} (Λ = {})",
                opt(&m.upper_bound),
                m.duration
            ),
            s if s == Status::Open.as_str() => between(m.lower_bound, m.upper_bound, m.duration),
            // Only schedule files given were wrong: the engines' answer stands.
            _ if m.contradictions.len() == rejected_schedules(m) => {
                let engines = match (m.lower_bound, m.upper_bound) {
                    (_, Some(u)) if u == m.duration => format!("optimal length {u} (liquid)"),
                    (Some(l), Some(u)) if l == u => {
                        format!("optimal length {u} (Λ = {})", m.duration)
                    }
                    (l, u) => between(l, u, m.duration),
                };
                format!("SCHEDULE REJECTED; {engines}")
            }
            _ => "CONTRADICTION".to_string(),
        };
        let w = m
            .engines
            .iter()
            .map(|r| r.engine.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            out,
            "{} ({}, {} transfers, Λ = {}): {summary}",
            m.model, m.file, m.transfers, m.duration
        );
        let _ = writeln!(
            out,
            "  {:<w$} {:<12} {:>6} {:>6}  {:<18} {:>9}",
            "engine", "verdict", "length", "bound", "witness", "time"
        );
        for r in &m.engines {
            let verdict = r.verdict.as_deref().unwrap_or(r.status.as_str());
            let _ = writeln!(
                out,
                "  {:<w$} {:<12} {:>6} {:>6}  {:<18} {:>8.3}s",
                r.engine,
                verdict,
                opt(&r.length),
                opt(&r.lower_bound),
                r.witness.as_deref().unwrap_or("-"),
                r.time_s
            );
            match (&r.problem, r.status) {
                (Some(p), RowStatus::Error) => {
                    let _ = writeln!(out, "    error: {p}");
                }
                (Some(p), RowStatus::Declined) => {
                    let _ = writeln!(out, "    declined: {p}");
                }
                _ => {}
            }
        }
        // A rejected schedule file comes first among the contradictions (one each).
        let rejected = rejected_schedules(m);
        for (i, c) in m.contradictions.iter().enumerate() {
            let kind = if i < rejected {
                "REJECTED"
            } else {
                "CONTRADICTION"
            };
            let _ = writeln!(out, "  {kind}: {c}");
        }
        out.push('\n');
    }
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            out,
            "baseline {}: {} models changed, {} regressions, {} improvements{}",
            b.file,
            b.models_changed,
            b.regressions,
            b.improvements,
            if b.updated { " (baseline updated)" } else { "" }
        );
        for c in &b.changed_models {
            let _ = writeln!(
                out,
                "  model changed: {} ({}): traffic sha256 {}… recorded, {}… now",
                c.file,
                c.model,
                c.recorded_sha256.get(..12).unwrap_or(&c.recorded_sha256),
                c.sha256.get(..12).unwrap_or(&c.sha256)
            );
        }
        for d in &b.differences {
            let _ = writeln!(
                out,
                "  {}: {} ({}) / {}",
                d.change, d.model, d.file, d.engine
            );
            if let Some(o) = &d.old {
                let _ = writeln!(out, "  - {o}");
            }
            match (&d.old, &d.new) {
                (_, Some(n)) => {
                    let _ = writeln!(out, "  + {n}");
                }
                (Some(_), None) => {
                    let _ = writeln!(out, "  + (not run: the model or the engine was not given)");
                }
                (None, None) => {}
            }
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", report.summary(accept_improvements));
    out
}

/// Whether a file declares the baseline format (`format: liquid-baseline/…` at the top
/// level): such a file is not a model.
fn is_baseline(path: &std::path::Path) -> bool {
    let Ok(text) = liquid_model::yaml::read_text(path) else {
        return false;
    };
    text.lines().any(|l| {
        l.strip_prefix("format:").is_some_and(|v| {
            v.trim()
                .trim_matches(['"', '\''])
                .starts_with("liquid-baseline/")
        })
    })
}

/// A model given to crosscheck.
struct Loaded {
    /// Its file as given (a folder's file under the folder as given), or its spec.
    file: String,
    /// The key a baseline records it by ([`liquid_engine::baseline::file_key`]).
    key: String,
    traffic: Traffic,
    /// The schedule files among the arguments that name it.
    schedules: Vec<ScheduleClaim>,
}

/// The files a folder given to crosscheck stands for: its `.yaml` files in name order,
/// then apart the baseline files among them (kept beside the models, they are skipped).
/// The one listing of a folder's models: [`run`] reads them, and `crosscheck --record`
/// refuses to write over one of them.
pub fn folder_models(dir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), StudyError> {
    let mut inside: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| StudyError::Input(format!("{}: cannot read: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    inside.sort();
    let (baselines, models) = inside.into_iter().partition(|p| is_baseline(p));
    Ok((models, baselines))
}

/// The models given (files, folders of `.yaml` files, generated-model specs), in order,
/// each with its file and the schedule files among the arguments that name it.
fn load(models: &[PathBuf]) -> Result<Vec<Loaded>, StudyError> {
    let mut traffics: Vec<(&PathBuf, Traffic)> = Vec::new();
    let mut schedules: Vec<(Option<String>, ScheduleClaim)> = Vec::new();
    // A folder stands for every `.yaml` file inside it, in name order.
    let mut paths = Vec::new();
    for path in models {
        if path.is_dir() {
            let (inside, baselines) = folder_models(path)?;
            // A baseline kept beside the models is no model: skipped, and said so.
            for p in baselines {
                eprintln!(
                    "note: {}: a baseline file, not a model: skipped",
                    p.display()
                );
            }
            if inside.is_empty() {
                return Err(StudyError::Input(format!(
                    "{}: the folder holds no model (no .yaml file)",
                    path.display()
                )));
            }
            paths.extend(inside);
        } else {
            if is_baseline(path) {
                return Err(StudyError::Input(format!(
                    "{}: a baseline file (format {}), not a model: give it with --baseline",
                    path.display(),
                    liquid_engine::baseline::FORMAT
                )));
            }
            paths.push(path.clone());
        }
    }
    for path in &paths {
        let document = match path.to_str() {
            Some(s) if liquid_topology::spec::is_spec(s) => {
                Document::Model(crate::input::load_traffic(path)?)
            }
            _ => {
                crate::input::no_misspelt_spec(path)?;
                liquid_model::yaml::load_document(path)?
            }
        };
        match document {
            Document::Model(t) => traffics.push((path, t)),
            Document::Schedule { file, text, model } => {
                schedules.push((model, ScheduleClaim { file, text }))
            }
        }
    }
    // Every schedule file must name one of the models given, so that none is ignored.
    for (model, s) in &schedules {
        match model {
            None => {
                return Err(StudyError::Input(format!(
                    "{}: a schedule given to crosscheck needs a `model:` field naming its model",
                    s.file
                )))
            }
            Some(m) if !traffics.iter().any(|(_, t)| t.name() == m) => {
                return Err(StudyError::Input(format!(
                    "{}: its model {m:?} is not among the models given",
                    s.file
                )))
            }
            Some(_) => {}
        }
    }
    Ok(traffics
        .into_iter()
        .map(|(path, traffic)| {
            let mine = schedules
                .iter()
                .filter(|(m, _)| m.as_deref() == Some(traffic.name()))
                .map(|(_, s)| ScheduleClaim {
                    file: s.file.clone(),
                    text: s.text.clone(),
                })
                .collect();
            Loaded {
                file: path.display().to_string(),
                key: liquid_engine::baseline::file_key(path),
                traffic,
                schedules: mine,
            }
        })
        .collect())
}

/// The engines and limits a crosscheck runs with: no `engines` means the registry's
/// crosscheck engines ([`liquid_engine::registry::crosscheck_defaults`]); a request
/// without a time limit stops each engine at
/// [`liquid_engine::crosscheck::DEFAULT_ENGINE_TIME_LIMIT`].
fn with_defaults(
    engines: &[&'static dyn Engine],
    request: &Request,
) -> (Vec<&'static dyn Engine>, Request) {
    let engines = if engines.is_empty() {
        liquid_engine::registry::crosscheck_defaults().collect()
    } else {
        engines.to_vec()
    };
    let mut request = *request;
    request.limits.time = request
        .limits
        .time
        .or(Some(liquid_engine::crosscheck::DEFAULT_ENGINE_TIME_LIMIT));
    (engines, request)
}

/// Runs every engine on every model (files, folders of `.yaml` files, generated-model
/// specs; schedule files among them are claims checked like an engine's answers), and
/// records or compares the answers as `base` asks. Engines and time limit default as
/// [`with_defaults`] says.
pub fn run(
    models: &[PathBuf],
    engines: &[&'static dyn Engine],
    request: &Request,
    base: &BaselineArgs,
    solve: Solver<'_>,
) -> Result<Report, StudyError> {
    let (engines, request) = with_defaults(engines, request);
    let (engines, request) = (&engines[..], &request);
    if base.update && base.baseline.is_none() {
        return Err(StudyError::Input("--update needs --baseline FILE".into()));
    }
    // A bad or missing baseline is reported before any engine runs.
    let recorded = base
        .baseline
        .as_ref()
        .map(|f| Baseline::load(f))
        .transpose()?;
    let loaded = load(models)?;
    if base.record.is_some() || base.baseline.is_some() {
        // A baseline keys answers by model file: each file once.
        let mut seen = std::collections::HashMap::new();
        for l in &loaded {
            if let Some(first) = seen.insert(l.key.as_str(), l.file.as_str()) {
                return Err(StudyError::Input(format!(
                    "{} is given twice (as {first:?} and {:?}): a baseline records each \
                     model file once",
                    l.key, l.file
                )));
            }
        }
    }
    let mut reports = Vec::new();
    for l in &loaded {
        let mine: Vec<&ScheduleClaim> = l.schedules.iter().collect();
        let mut report = check_model(&l.file, &l.key, &l.traffic, engines, &mine, request, solve)?;
        report.drop_schedules();
        reports.push(report);
    }
    let consistent = reports.iter().all(|m| m.contradictions.is_empty());
    let answers: Vec<Entry> = reports.iter().flat_map(|m| m.entries.clone()).collect();
    let this_run = Baseline::new(
        loaded
            .iter()
            .map(|l| Model::of(&l.key, &l.traffic))
            .collect(),
        answers,
    );
    // Recording must never write what comparing refuses.
    let write = |file: &PathBuf| -> Result<(), StudyError> {
        this_run.check().map_err(|(at, why)| {
            StudyError::Internal(format!("the baseline this run would record: {at}: {why}"))
        })?;
        std::fs::write(file, this_run.to_yaml()).map_err(|source| StudyError::Io {
            action: "write",
            path: file.clone(),
            source,
        })
    };
    if let Some(file) = &base.record {
        write(file)?;
    }
    let baseline = match (&base.baseline, recorded) {
        (Some(file), Some(recorded)) => {
            let cmp = liquid_engine::baseline::compare(&recorded, &this_run);
            if base.update {
                write(file)?;
            }
            let name_of = |file: &str| {
                this_run
                    .model(file)
                    .or_else(|| recorded.model(file))
                    .map(|m| m.name.clone())
                    .unwrap_or_default()
            };
            Some(BaselineReport {
                file: file.display().to_string(),
                models_changed: cmp.changed_models.len(),
                regressions: cmp.count(Change::Regression),
                improvements: cmp.count(Change::Improvement),
                updated: base.update,
                changed_models: cmp
                    .changed_models
                    .iter()
                    .map(|c| ChangedModelReport {
                        file: c.new.file.clone(),
                        model: c.new.name.clone(),
                        recorded_sha256: c.old.traffic_sha256.clone(),
                        sha256: c.new.traffic_sha256.clone(),
                    })
                    .collect(),
                differences: cmp
                    .differences
                    .iter()
                    .map(|d| {
                        let any = d.old.as_ref().or(d.new.as_ref());
                        let file = any.map(|e| e.file.clone()).unwrap_or_default();
                        DiffReport {
                            change: d.change.as_str(),
                            model: name_of(&file),
                            file,
                            engine: any.map(|e| e.engine.clone()).unwrap_or_default(),
                            old: d.old.as_ref().map(describe),
                            new: d.new.as_ref().map(describe),
                        }
                    })
                    .collect(),
            })
        }
        _ => None,
    };
    Ok(Report {
        consistent,
        models: reports,
        baseline,
    })
}

/// `crosscheck`'s name in its shard files (`liquid merge` reads it).
pub const SWEEP: &str = "crosscheck";

/// crosscheck's own options in its shard files: every shard of one run shares them,
/// the models included (as their items' keys).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ShardParams {
    engines: Vec<String>,
    time_limit_s: Option<f64>,
    nodes: Option<u64>,
    seed: u64,
    decide: bool,
    proofs: bool,
    /// How the merge prints the report (the caller's name of the format).
    format: String,
    models: Vec<String>,
    /// Each model's traffic digest ([`Traffic::sha256`]) when the shard ran, in the
    /// order of `models`: the merge refuses a model file that changed since, whose
    /// answers the shards' bounds no longer are.
    digests: Vec<String>,
}

/// A model's name in a shard file: its file and its name.
fn key(file: &str, traffic: &Traffic) -> String {
    format!("{file}: {}", traffic.name())
}

/// Runs shard `shard` of [`run`] (each model given is one item; schedule files go with
/// the model they name) and writes `crosscheck-shard-I-of-N.json` into `out`: the merge
/// ([`merge`]) prints the report of the unsharded run, in `format`. A baseline
/// (`--record`, `--baseline`) is not kept by shards. Engines and time limit default as
/// [`with_defaults`] says.
pub fn shard(
    models: &[PathBuf],
    engines: &[&'static dyn Engine],
    request: &Request,
    shard: liquid_shard::Shard,
    format: &str,
    out: &std::path::Path,
    solve: Solver<'_>,
) -> Result<crate::ShardWritten, StudyError> {
    let (engines, request) = with_defaults(engines, request);
    let (engines, request) = (&engines[..], &request);
    let loaded = load(models)?;
    let params = ShardParams {
        engines: engines.iter().map(|e| e.name().to_string()).collect(),
        time_limit_s: request.limits.time.map(|t| t.as_secs_f64()),
        nodes: request.limits.nodes,
        seed: request.seed,
        decide: request.decide,
        proofs: request.proofs,
        format: format.to_string(),
        models: loaded.iter().map(|l| key(&l.file, &l.traffic)).collect(),
        digests: loaded.iter().map(|l| l.traffic.sha256()).collect(),
    };
    crate::create_dir(out)?;
    let mut items = Vec::new();
    for index in shard.items(loaded.len()) {
        let l = &loaded[index];
        let mine: Vec<&ScheduleClaim> = l.schedules.iter().collect();
        items.push(liquid_shard::Item {
            index,
            key: key(&l.file, &l.traffic),
            result: check_model(&l.file, &l.key, &l.traffic, engines, &mine, request, solve)?,
        });
    }
    crate::ShardWritten::write(out, SWEEP, &params, shard, loaded.len(), items)
}

impl ModelReport {
    /// Drops the schedules kept for the merge (the report prints none).
    fn drop_schedules(&mut self) {
        for row in &mut self.engines {
            row.schedule = None;
        }
    }
}

/// Runs again on a shard's result for one model the checks of the unsharded run: the
/// model is loaded from its file (it must be the one the shard names: its name, number
/// of transfers and Λ); every schedule is validated against it and must have the length
/// its row says (else the row is a wrong answer); and the claims are compared again
/// (`liquid_engine::crosscheck::compare`), so the lower and upper bounds, the status and
/// the contradictions are the merge's own, not the shard's.
fn recheck(mut m: ModelReport, p: &ShardParams, digest: &str) -> Result<ModelReport, StudyError> {
    let path = PathBuf::from(&m.file);
    let traffic = match path.to_str() {
        Some(s) if liquid_topology::spec::is_spec(s) => crate::input::load_traffic(&path)?,
        _ => match liquid_model::yaml::load_document(&path)? {
            Document::Model(t) => t,
            Document::Schedule { .. } => {
                return Err(StudyError::Input(format!(
                    "{}: a schedule file, not the model the shard names",
                    m.file
                )))
            }
        },
    };
    for (field, shard, model) in [
        ("transfers", m.transfers, traffic.len()),
        ("duration", m.duration, traffic.duration()),
    ] {
        if shard != model {
            return Err(StudyError::Input(format!(
                "model {:?} ({}): the shard gives {field} {shard}, the model has {model}",
                m.model, m.file
            )));
        }
    }
    if traffic.name() != m.model {
        return Err(StudyError::Input(format!(
            "{}: the model is {:?}, the shard's is {:?}",
            m.file,
            traffic.name(),
            m.model
        )));
    }
    let now = traffic.sha256();
    if now != digest {
        return Err(StudyError::Input(format!(
            "{}: the model changed since the shards ran (its traffic's SHA-256 is {now}, \
             theirs {digest}): their answers are not about this traffic; run the sweep again",
            m.file
        )));
    }
    // The rows the run writes: its schedule files', then one per engine of the run, in
    // its order, each with a time.
    let engines: Vec<&str> = m
        .engines
        .iter()
        .map(|r| r.engine.as_str())
        .filter(|e| !e.starts_with(SCHEDULE_ROW))
        .collect();
    if engines != p.engines {
        return Err(StudyError::Input(format!(
            "model {:?}: the shard's rows are of the engines {engines:?}, the run's engines \
             are {:?}",
            m.model, p.engines
        )));
    }
    if let Some(row) = m
        .engines
        .iter()
        .find(|r| !(r.time_s.is_finite() && r.time_s >= 0.0))
    {
        return Err(StudyError::Input(format!(
            "model {:?}: {}: time_s {} is no duration",
            m.model, row.engine, row.time_s
        )));
    }
    let d = traffic.duration();
    let mut claims = Vec::new();
    let mut wrong = Vec::new();
    for row in &mut m.engines {
        if row.status != RowStatus::Ok {
            if row.status == RowStatus::WrongAnswer {
                wrong.push(
                    row.problem
                        .clone()
                        .unwrap_or_else(|| format!("{} returned a wrong answer", row.engine)),
                );
            }
            continue;
        }
        let mut fail = |row: &mut EngineRow, why: String| {
            let msg = format!("{}: {why} (checked again by the merge)", row.engine);
            row.status = RowStatus::WrongAnswer;
            row.problem = Some(msg.clone());
            wrong.push(msg);
        };
        let length = match (&row.schedule, row.length) {
            (None, None) => None,
            (None, Some(l)) => {
                fail(
                    row,
                    format!("the shard claims a schedule of {l} timeframes but holds none"),
                );
                continue;
            }
            (Some(text), claimed) => {
                let checked = liquid_model::yaml::parse_schedule(&m.file, text, &traffic)
                    .map_err(|e| e.to_string())
                    .and_then(|s| liquid_model::validate(&traffic, &s).map_err(|e| e.to_string()));
                match checked {
                    Err(e) => {
                        fail(row, format!("its schedule is invalid: {e}"));
                        continue;
                    }
                    Ok(r) if Some(r.length) != claimed => {
                        fail(
                            row,
                            format!(
                                "the shard says length {}, its schedule has {} timeframes",
                                opt(&claimed),
                                r.length
                            ),
                        );
                        continue;
                    }
                    Ok(r) => Some(r.length),
                }
            }
        };
        let lower = match (row.lower_bound, row.witness.as_deref()) {
            (None, _) => None,
            (Some(b), Some(w)) => match liquid_model::Evidence::KINDS.iter().find(|&&k| k == w) {
                Some(&k) => Some((b, k)),
                None => {
                    fail(row, format!("witness {w:?} is not a kind of evidence"));
                    continue;
                }
            },
            (Some(b), None) => {
                fail(row, format!("the bound {b} has no witness"));
                continue;
            }
        };
        // The verdict the row's length and bound give, as the gate requires of every
        // answer (a schedule file's row: liquid or feasible by its length, no bound).
        let verdict = row.verdict.as_deref().unwrap_or("none");
        let fits = if row.engine.starts_with(SCHEDULE_ROW) {
            lower.is_none() && length.is_some() && verdict == schedule_verdict(length == Some(d))
        } else {
            match (liquid_model::Verdict::from_name(verdict), lower) {
                (Some(v), Some((b, _))) => b >= d && v.fits(length, b, d),
                _ => false,
            }
        };
        if !fits {
            fail(
                row,
                format!(
                    "verdict {verdict} does not match length {} and lower bound {} (Λ = {d})",
                    opt(&length),
                    lower.map_or("none".to_string(), |(b, _)| b.to_string())
                ),
            );
            continue;
        }
        match lower {
            Some((b, "bottleneck")) if b != d => {
                fail(row, format!("a bottleneck bound is Λ = {d}, not {b}"));
                continue;
            }
            Some((_, "sat-proof")) if !p.proofs => {
                fail(
                    row,
                    "a checked proof (sat-proof) from a run that wrote no proofs".to_string(),
                );
                continue;
            }
            _ => {}
        }
        claims.push(Claim {
            source: row.engine.clone(),
            lower,
            length,
        });
    }
    let cmp = compare(traffic.duration(), &claims, wrong);
    m.lower_bound = cmp.lower;
    m.upper_bound = cmp.upper;
    m.status = cmp.status.as_str().to_string();
    m.contradictions = cmp.contradictions;
    m.drop_schedules();
    Ok(m)
}

/// Joins the shard files of one crosscheck run (read and checked by `liquid_shard::merge_any`): checks
/// that every shard is there once and belongs to the run and that every item is the
/// model its index names, and returns the report of the unsharded run with the format
/// the run asked for.
pub(crate) fn merge(
    merged: liquid_shard::Merged<ModelReport>,
) -> Result<(Report, String), StudyError> {
    let bad = |e: String| StudyError::Input(format!("shards of {SWEEP}: {e}"));
    let (p, items) = crate::merged_models(merged, SWEEP, |p: &ShardParams| &p.models)?;
    let mut models = Vec::with_capacity(items.len());
    for item in items {
        if format!("{}: {}", item.result.file, item.result.model) != item.key {
            return Err(bad(format!(
                "item {} is {:?}, its report is of {}: {}",
                item.index, item.key, item.result.file, item.result.model
            )));
        }
        let index = item.index;
        let digest = p.digests.get(index).ok_or_else(|| {
            bad(format!(
                "params.digests: {} digests for {} models",
                p.digests.len(),
                p.models.len()
            ))
        })?;
        models
            .push(recheck(item.result, &p, digest).map_err(|e| bad(format!("item {index}: {e}")))?);
    }
    Ok((
        Report {
            // The contradictions of the checks run again here ([`recheck`]).
            consistent: models.iter().all(|m| m.contradictions.is_empty()),
            models,
            baseline: None,
        },
        p.format,
    ))
}
