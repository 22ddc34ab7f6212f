//! The runtime's report read back and set beside liquid's prediction of the same plan.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::MpiError;

/// Times, bytes and messages of one step (predicted or measured).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepFigures {
    /// The step number.
    pub step: usize,
    /// Its label (`frame 3`, `local phase`, ...).
    #[serde(default)]
    pub label: String,
    /// When its first operation was posted, seconds from the start (None: no message).
    pub start_s: Option<f64>,
    /// When its last operation completed.
    pub end_s: Option<f64>,
    /// `end_s - start_s`.
    pub time_s: Option<f64>,
    /// Bytes sent in the step.
    pub bytes: f64,
    /// Messages sent in the step.
    pub messages: usize,
}

/// liquid's prediction of a run: `liquid_sim` on the model's platform, of the plan as the
/// runtime runs it (barriers and library included, see [`crate::model`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The predicted time of the run (the largest rank's), seconds.
    pub total_s: f64,
    /// The makespan of the plan alone, without the runtime's barriers and the library's
    /// envelope: what `liquid simulate` reports for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_s: Option<f64>,
    /// How the MPI library was modelled (envelope bytes, eager limit, barrier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// Per step.
    pub steps: Vec<StepFigures>,
}

/// `manifest.json` of an exported plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `liquid-mpi-export/1`.
    pub format: String,
    /// The model's name.
    pub model: String,
    /// The plan's mode.
    pub mode: String,
    /// Where the plan came from (schedule file, engine, algorithm).
    pub source: String,
    /// The host of each rank.
    pub ranks: Vec<String>,
    /// Steps.
    pub steps: usize,
    /// Messages.
    pub messages: usize,
    /// Bytes of all messages.
    pub bytes: u64,
    /// The prediction's per-message overhead, seconds.
    pub overhead_s: f64,
    /// liquid's prediction.
    pub prediction: Prediction,
}

/// `report.json` written by `liquid-mpi-run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// `liquid-mpi-report/1`.
    pub format: String,
    /// The plan directory as the runner was given it.
    pub plan: String,
    /// The plan's mode.
    pub mode: String,
    /// Ranks of the run.
    pub ranks: usize,
    /// Whether every byte was checked.
    pub check: bool,
    /// Runs made.
    pub repeat: usize,
    /// `MPI_Get_library_version`.
    pub mpi_library: String,
    /// Errors found over all runs.
    pub errors: u64,
    /// The fastest run's time, seconds.
    pub total_s: Option<f64>,
    /// Every run's time.
    pub runs_s: Vec<Option<f64>>,
    /// Bytes sent.
    pub bytes: f64,
    /// Messages sent.
    pub messages: f64,
    /// Per step, of the fastest run.
    pub steps: Vec<StepFigures>,
}

fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, MpiError> {
    let text = std::fs::read_to_string(path).map_err(|source| MpiError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| MpiError::Report {
        file: path.display().to_string(),
        why: format!("line {}, column {}: {e}", e.line(), e.column()),
    })
}

impl Manifest {
    /// Reads `manifest.json`.
    pub fn read(path: &Path) -> Result<Manifest, MpiError> {
        let m: Manifest = read(path)?;
        if m.format != "liquid-mpi-export/1" {
            return Err(MpiError::Report {
                file: path.display().to_string(),
                why: format!("format {:?}, not liquid-mpi-export/1", m.format),
            });
        }
        Ok(m)
    }
}

impl RunReport {
    /// Reads a runtime report.
    pub fn read(path: &Path) -> Result<RunReport, MpiError> {
        let r: RunReport = read(path)?;
        if r.format != "liquid-mpi-report/1" {
            return Err(MpiError::Report {
                file: path.display().to_string(),
                why: format!("format {:?}, not liquid-mpi-report/1", r.format),
            });
        }
        Ok(r)
    }
}

/// One step, predicted and measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepComparison {
    /// The step.
    pub step: usize,
    /// Its label.
    pub label: String,
    /// Messages sent.
    pub messages: usize,
    /// Bytes sent.
    pub bytes: f64,
    /// liquid's predicted time of the step, seconds.
    pub predicted_s: Option<f64>,
    /// The run's time of the step.
    pub measured_s: Option<f64>,
    /// measured / predicted.
    pub ratio: Option<f64>,
}

/// A run beside its prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The model.
    pub model: String,
    /// The plan's mode and source.
    pub mode: String,
    /// Where the plan came from.
    pub source: String,
    /// Ranks.
    pub ranks: usize,
    /// The MPI library of the run.
    pub mpi_library: String,
    /// Whether the run checked every byte.
    pub checked: bool,
    /// Errors the run found (0 for a correct run).
    pub errors: u64,
    /// liquid's predicted total, seconds.
    pub predicted_s: f64,
    /// The run's total (fastest of its repetitions), seconds.
    pub measured_s: Option<f64>,
    /// measured / predicted.
    pub ratio: Option<f64>,
    /// Per step.
    pub steps: Vec<StepComparison>,
}

fn ratio(m: Option<f64>, p: Option<f64>) -> Option<f64> {
    match (m, p) {
        (Some(m), Some(p)) if p > 0.0 => Some(m / p),
        _ => None,
    }
}

/// Sets a run beside its prediction, after checking that the run ran the plan: the same
/// number of ranks and, in every step, the same messages and bytes.
pub fn compare(
    manifest: &Manifest,
    run: &RunReport,
    run_file: &str,
) -> Result<Comparison, MpiError> {
    let bad = |why: String| MpiError::Report {
        file: run_file.to_string(),
        why,
    };
    if run.ranks != manifest.ranks.len() {
        return Err(bad(format!(
            "the run had {} ranks, the plan has {}",
            run.ranks,
            manifest.ranks.len()
        )));
    }
    if run.steps.len() != manifest.prediction.steps.len() {
        return Err(bad(format!(
            "the run reports {} steps, the plan has {}",
            run.steps.len(),
            manifest.prediction.steps.len()
        )));
    }
    let mut steps = Vec::new();
    for (p, m) in manifest.prediction.steps.iter().zip(&run.steps) {
        if p.messages != m.messages || p.bytes != m.bytes {
            return Err(bad(format!(
                "step {}: the run sent {} messages of {} bytes, the plan has {} of {}",
                p.step, m.messages, m.bytes, p.messages, p.bytes
            )));
        }
        steps.push(StepComparison {
            step: p.step,
            label: p.label.clone(),
            messages: p.messages,
            bytes: p.bytes,
            predicted_s: p.time_s,
            measured_s: m.time_s,
            ratio: ratio(m.time_s, p.time_s),
        });
    }
    Ok(Comparison {
        model: manifest.model.clone(),
        mode: manifest.mode.clone(),
        source: manifest.source.clone(),
        ranks: run.ranks,
        mpi_library: run.mpi_library.clone(),
        checked: run.check,
        errors: run.errors,
        predicted_s: manifest.prediction.total_s,
        measured_s: run.total_s,
        ratio: ratio(run.total_s, Some(manifest.prediction.total_s)),
        steps,
    })
}
