//! `liquid crosscheck`: runs several engines on each model and compares their answers.
//!
//! Every answer first passes the model's checks (`check_outcome`). Then the claims are
//! compared: a lower bound claimed by one engine must not exceed the length of a schedule
//! that another engine found and that validated. This one rule covers every disagreement
//! that matters: "liquid" against "non-liquid" (length Λ against a bound Λ + 1), and two
//! different optimal lengths (one's schedule is shorter than the other's bound).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use liquid_model::yaml::Document;
use liquid_model::{Traffic, Witness};
use serde::Serialize;

use super::solve::{checked, EngineName, SolveOptions};
use crate::output::{emit, Format};
use crate::{InputError, EXIT_CONTRADICTION, EXIT_INTERNAL};

/// The engines crosscheck runs when `--engines` is not given.
pub const DEFAULT_ENGINES: &[EngineName] = &[
    EngineName::Native,
    EngineName::Dsatur,
    EngineName::Exact,
    EngineName::Sat,
    EngineName::Ilp,
];

/// Output of crosscheck: a table for people, or YAML/JSON for machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CrossFormat {
    /// One table per model, then the verdict.
    Table,
    /// YAML.
    Yaml,
    /// JSON.
    Json,
}

#[derive(Serialize)]
struct EngineRow {
    engine: String,
    /// `ok`, `wrong-answer` or `error`.
    status: &'static str,
    verdict: Option<&'static str>,
    length: Option<usize>,
    lower_bound: Option<usize>,
    witness: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
    time_s: f64,
}

#[derive(Serialize)]
struct ModelReport {
    model: String,
    file: String,
    transfers: usize,
    duration: usize,
    /// The best lower bound claimed by an engine whose answer checked.
    lower_bound: Option<usize>,
    /// The shortest validated schedule.
    upper_bound: Option<usize>,
    /// `liquid`, `optimal`, `open` or `contradiction`.
    status: &'static str,
    engines: Vec<EngineRow>,
    contradictions: Vec<String>,
}

#[derive(Serialize)]
struct Report {
    consistent: bool,
    models: Vec<ModelReport>,
}

fn witness_kind(w: &Witness) -> &'static str {
    match w {
        Witness::Bottleneck(_) => "bottleneck",
        Witness::Clique(_) => "clique",
        Witness::Exhaustion { .. } => "exhaustive-search",
        Witness::SatProof { .. } => "sat-proof",
        Witness::Unsat { .. } => "unsat-claim",
        Witness::DualBound { .. } => "dual-bound",
    }
}

/// A schedule file given among the models: one more claim, checked like an engine's.
struct ScheduleClaim {
    file: String,
    text: String,
}

fn check_model(
    file: &str,
    traffic: &Traffic,
    engines: &[EngineName],
    schedules: &[&ScheduleClaim],
    opts: &SolveOptions,
) -> anyhow::Result<ModelReport> {
    let mut rows = Vec::new();
    let mut contradictions = Vec::new();
    // (engine, claimed lower bound, witness kind) and (engine, validated length).
    let mut bounds: Vec<(String, usize, &'static str)> = Vec::new();
    let mut lengths: Vec<(String, usize)> = Vec::new();
    for s in schedules {
        let schedule = liquid_model::yaml::parse_schedule(&s.file, &s.text, traffic)?;
        let start = std::time::Instant::now();
        let checked = liquid_model::validate(traffic, &schedule);
        let mut row = EngineRow {
            engine: format!("schedule {}", s.file),
            status: "ok",
            verdict: None,
            length: Some(schedule.len()),
            lower_bound: None,
            witness: None,
            problem: None,
            time_s: start.elapsed().as_secs_f64(),
        };
        match checked {
            Ok(r) => {
                row.verdict = Some(if r.liquid { "liquid" } else { "feasible" });
                lengths.push((row.engine.clone(), r.length));
            }
            Err(e) => {
                row.status = "wrong-answer";
                row.length = None;
                let msg = format!("the schedule in {} is invalid: {e}", s.file);
                contradictions.push(msg.clone());
                row.problem = Some(msg);
            }
        }
        rows.push(row);
    }
    for &e in engines {
        let start = std::time::Instant::now();
        let mut row = EngineRow {
            engine: e.name().to_string(),
            status: "ok",
            verdict: None,
            length: None,
            lower_bound: None,
            witness: None,
            problem: None,
            time_s: 0.0,
        };
        match checked(e, traffic, opts) {
            Err(err) => {
                row.status = "error";
                row.problem = Some(format!("{err:#}"));
                row.time_s = start.elapsed().as_secs_f64();
            }
            Ok(Err(wrong)) => {
                row.status = "wrong-answer";
                row.time_s = start.elapsed().as_secs_f64();
                contradictions.push(wrong.clone());
                row.problem = Some(wrong);
            }
            Ok(Ok(c)) => {
                let o = &c.outcome;
                row.verdict = Some(o.verdict.as_str());
                row.length = c.length;
                row.lower_bound = Some(o.lower_bound.value);
                row.witness = Some(witness_kind(&o.lower_bound.witness));
                row.time_s = c.seconds;
                bounds.push((
                    row.engine.clone(),
                    o.lower_bound.value,
                    witness_kind(&o.lower_bound.witness),
                ));
                if let Some(len) = c.length {
                    lengths.push((row.engine.clone(), len));
                }
            }
        }
        rows.push(row);
    }
    for (a, lb, w) in &bounds {
        for (b, len) in &lengths {
            if lb > len {
                contradictions.push(format!(
                    "{a} claims that no schedule has fewer than {lb} timeframes (witness: {w}), \
                     but {b} found a valid schedule of {len}"
                ));
            }
        }
    }
    let lower = bounds.iter().map(|b| b.1).max();
    let upper = lengths.iter().map(|l| l.1).min();
    let status = if !contradictions.is_empty() {
        "contradiction"
    } else if upper == Some(traffic.duration()) {
        "liquid"
    } else if lower.is_some() && lower == upper {
        "optimal"
    } else {
        "open"
    };
    Ok(ModelReport {
        model: traffic.name().to_string(),
        file: file.to_string(),
        transfers: traffic.len(),
        duration: traffic.duration(),
        lower_bound: lower,
        upper_bound: upper,
        status,
        engines: rows,
        contradictions,
    })
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or("-".to_string(), ToString::to_string)
}

fn table(report: &Report) -> String {
    let mut out = String::new();
    for m in &report.models {
        let summary = match m.status {
            "liquid" => format!("optimal length {} (liquid)", m.duration),
            "optimal" => format!(
                "optimal length {} (Λ = {})",
                opt(&m.upper_bound),
                m.duration
            ),
            "open" => format!(
                "optimal length between {} and {}",
                opt(&m.lower_bound),
                opt(&m.upper_bound)
            ),
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
            let verdict = r.verdict.unwrap_or(r.status);
            let _ = writeln!(
                out,
                "  {:<w$} {:<12} {:>6} {:>6}  {:<18} {:>8.3}s",
                r.engine,
                verdict,
                opt(&r.length),
                opt(&r.lower_bound),
                r.witness.unwrap_or("-"),
                r.time_s
            );
            if let (Some(p), "error") = (&r.problem, r.status) {
                let _ = writeln!(out, "    error: {p}");
            }
        }
        for c in &m.contradictions {
            let _ = writeln!(out, "  CONTRADICTION: {c}");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{}",
        if report.consistent {
            "all engines agree"
        } else {
            "engines contradict each other: see CONTRADICTION lines above"
        }
    );
    out
}

/// `liquid crosscheck MODEL...`: exit 0 when every answer checks and no two contradict,
/// 4 on a contradiction, 3 when an engine failed to run.
pub fn crosscheck(
    models: &[PathBuf],
    engines: &[EngineName],
    opts: &SolveOptions,
    format: CrossFormat,
) -> anyhow::Result<ExitCode> {
    let mut traffics = Vec::new();
    let mut schedules: Vec<(Option<String>, ScheduleClaim)> = Vec::new();
    for path in models {
        let document = match path.to_str() {
            Some(s) if liquid_topology::spec::is_spec(s) => {
                Document::Model(crate::input::load_traffic(path)?)
            }
            _ => liquid_model::yaml::load_document(path)?,
        };
        match document {
            Document::Model(t) => traffics.push((path.display().to_string(), t)),
            Document::Schedule { file, text, model } => {
                schedules.push((model, ScheduleClaim { file, text }))
            }
        }
    }
    // Every schedule file must name one of the models given, so that none is ignored.
    for (model, s) in &schedules {
        match model {
            None => {
                return Err(InputError(format!(
                    "{}: a schedule given to crosscheck needs a `model:` field naming its model",
                    s.file
                ))
                .into())
            }
            Some(m) if !traffics.iter().any(|(_, t)| t.name() == m) => {
                return Err(InputError(format!(
                    "{}: its model {m:?} is not among the models given",
                    s.file
                ))
                .into())
            }
            Some(_) => {}
        }
    }
    let mut reports = Vec::new();
    for (file, traffic) in &traffics {
        let mine: Vec<&ScheduleClaim> = schedules
            .iter()
            .filter(|(m, _)| m.as_deref() == Some(traffic.name()))
            .map(|(_, s)| s)
            .collect();
        reports.push(check_model(file, traffic, engines, &mine, opts)?);
    }
    let consistent = reports.iter().all(|m| m.contradictions.is_empty());
    let errored = reports
        .iter()
        .any(|m| m.engines.iter().any(|r| r.status == "error"));
    let report = Report {
        consistent,
        models: reports,
    };
    match format {
        CrossFormat::Table => print!("{}", table(&report)),
        CrossFormat::Yaml => emit(&report, Format::Yaml)?,
        CrossFormat::Json => emit(&report, Format::Json)?,
    }
    Ok(if !consistent {
        ExitCode::from(EXIT_CONTRADICTION)
    } else if errored {
        ExitCode::from(EXIT_INTERNAL)
    } else {
        ExitCode::SUCCESS
    })
}
