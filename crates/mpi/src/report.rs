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
    /// The predicted time of the run (the largest rank's), seconds; None (null) when the
    /// time limit stopped the prediction first ([`Prediction::stopped`]).
    #[serde(default)]
    pub total_s: Option<f64>,
    /// The makespan of the plan alone, without the runtime's barriers and the library's
    /// envelope: what `liquid simulate` reports for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_s: Option<f64>,
    /// How the MPI library was modelled (envelope bytes, eager limit, barrier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// Where the time limit stopped the prediction (absent: it ran to the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// Per step.
    pub steps: Vec<StepFigures>,
}

/// How far a prediction got before the time limit stopped it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stopped {
    /// The simulation stopped: `run` (the prediction of the run: no `total_s`, and no
    /// figures for the steps not simulated to their end) or `plan` (the plan alone: no
    /// `plan_s`; the run's prediction is complete).
    pub simulation: String,
    /// The simulated time it had reached, seconds from the start of its plan (for `run`,
    /// the start of the first barrier).
    pub simulated_s: f64,
    /// Segments of the run simulated to their end (the run is cut into segments at the
    /// barriers where the network is empty, see `liquid_mpi::model::predict`).
    pub segments_done: usize,
    /// Barriers of the program passed by the simulated segments, of [`Stopped::barriers`].
    pub barriers_passed: usize,
    /// Barriers of the program (every rank enters each; the first included).
    pub barriers: usize,
}

impl Stopped {
    /// One line for people: what stopped where (the simulated time to 4 significant
    /// digits; `manifest.json` has it in full).
    pub fn describe(&self) -> String {
        let at = liquid_model::display::round_significant(self.simulated_s, 4);
        match self.simulation.as_str() {
            "plan" => format!(
                "the time limit stopped the simulation of the plan alone at {} s of \
                 simulated time: manifest.json has no plan_s",
                at
            ),
            _ => format!(
                "the time limit stopped the prediction of the run at {} s of simulated time \
                 ({} of {} barriers passed, {} segments simulated): manifest.json has no \
                 total_s; raise --time-limit for the whole prediction",
                at, self.barriers_passed, self.barriers, self.segments_done
            ),
        }
    }
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
    /// Where each rank ran (`MPI_Get_processor_name`), rank by rank; empty in a report of
    /// a runtime that did not record it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
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
    /// Where the ranks ran, against the plan's hostfile ([`placement`]).
    pub placement: String,
    /// Ranks that ran on another machine than their line of the hostfile names: their
    /// times are another placement's (0 when all are on their line, or when the run was
    /// on one machine or did not record its hosts).
    pub misplaced_ranks: usize,
    /// Errors the run found (0 for a correct run).
    pub errors: u64,
    /// liquid's predicted total, seconds (None: the time limit stopped the prediction).
    pub predicted_s: Option<f64>,
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

/// A time read from a file: a number >= 0 (`None` when absent).
fn time(field: &str, v: Option<f64>) -> Result<(), String> {
    match v {
        Some(x) if !(x.is_finite() && x >= 0.0) => Err(format!(
            "field {field}: {x} is not a time (a number of seconds >= 0)"
        )),
        _ => Ok(()),
    }
}

/// Whether two times written with 9 significant digits are the same.
fn same_time(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 * a.abs().max(b.abs()).max(1e-9)
}

/// The checks a step's figures pass on their own: times >= 0, ending after they start,
/// `time_s` = `end_s` − `start_s`, and whole numbers of bytes.
fn check_step(at: &str, s: &StepFigures) -> Result<(), String> {
    time(&format!("{at}.start_s"), s.start_s)?;
    time(&format!("{at}.end_s"), s.end_s)?;
    time(&format!("{at}.time_s"), s.time_s)?;
    if !(s.bytes.is_finite() && s.bytes >= 0.0 && s.bytes.fract() == 0.0) {
        return Err(format!(
            "field {at}.bytes: {} is not a number of bytes",
            s.bytes
        ));
    }
    if let (Some(a), Some(b)) = (s.start_s, s.end_s) {
        if b < a {
            return Err(format!("field {at}.end_s: {b} is before its start_s {a}"));
        }
        if let Some(t) = s.time_s {
            // Each of the three is written with 9 significant digits (liquid-mpi-run's
            // `%.9g`): their rounding errors add up.
            if (t - (b - a)).abs() > 1e-8 * (a.abs() + b.abs() + t.abs()) + 1e-12 {
                return Err(format!(
                    "field {at}.time_s: {t} is not end_s - start_s = {}",
                    b - a
                ));
            }
        }
    }
    Ok(())
}

/// The checks a manifest passes on its own: ranks, a prediction whose times are times and
/// whose steps add up to the manifest's counts.
pub fn check_manifest(m: &Manifest) -> Result<(), String> {
    if m.ranks.is_empty() {
        return Err("field ranks: a plan has at least one rank".into());
    }
    time("prediction.total_s", m.prediction.total_s)?;
    time("prediction.plan_s", m.prediction.plan_s)?;
    time("overhead_s", Some(m.overhead_s))?;
    if m.prediction.steps.len() != m.steps {
        return Err(format!(
            "field steps: {}, but the prediction has {} steps",
            m.steps,
            m.prediction.steps.len()
        ));
    }
    for (i, s) in m.prediction.steps.iter().enumerate() {
        check_step(&format!("prediction.steps[{i}]"), s)?;
    }
    let messages: usize = m.prediction.steps.iter().map(|s| s.messages).sum();
    let bytes: f64 = m.prediction.steps.iter().map(|s| s.bytes).sum();
    if messages != m.messages {
        return Err(format!(
            "field messages: {}, but its steps send {messages}",
            m.messages
        ));
    }
    if bytes != m.bytes as f64 {
        return Err(format!(
            "field bytes: {}, but its steps send {bytes}",
            m.bytes
        ));
    }
    Ok(())
}

/// The checks a run report passes on its own: its repetitions, times >= 0, and totals that
/// are the sums of its steps.
pub fn check_run(r: &RunReport) -> Result<(), String> {
    if r.ranks == 0 {
        return Err("field ranks: a run has at least one rank".into());
    }
    if r.repeat == 0 {
        return Err("field repeat: a run is made at least once".into());
    }
    if !r.hosts.is_empty() && r.hosts.len() != r.ranks {
        return Err(format!(
            "field hosts: {} names for {} ranks",
            r.hosts.len(),
            r.ranks
        ));
    }
    if r.runs_s.len() != r.repeat {
        return Err(format!(
            "field runs_s: {} entries for repeat {}",
            r.runs_s.len(),
            r.repeat
        ));
    }
    for (i, t) in r.runs_s.iter().enumerate() {
        time(&format!("runs_s[{i}]"), *t)?;
    }
    time("total_s", r.total_s)?;
    let fastest = r.runs_s.iter().flatten().copied().reduce(f64::min);
    match (r.total_s, fastest) {
        (Some(t), Some(f)) if !same_time(t, f) => {
            return Err(format!(
                "field total_s: {t} is not the fastest of runs_s ({f})"
            ))
        }
        (Some(t), None) => {
            return Err(format!(
                "field total_s: {t}, but no run of runs_s has a time"
            ))
        }
        _ => {}
    }
    for (i, s) in r.steps.iter().enumerate() {
        check_step(&format!("steps[{i}]"), s)?;
    }
    let messages: usize = r.steps.iter().map(|s| s.messages).sum();
    let bytes: f64 = r.steps.iter().map(|s| s.bytes).sum();
    if r.messages != messages as f64 {
        return Err(format!(
            "field messages: {}, but its steps send {messages}",
            r.messages
        ));
    }
    if r.bytes != bytes {
        return Err(format!(
            "field bytes: {}, but its steps send {bytes}",
            r.bytes
        ));
    }
    Ok(())
}

/// Whether the plan directory a run names (`plan`, as the runner was given it) is `dir`:
/// the same directory when both exist here, else the same last path component (a run
/// made on another machine).
fn same_plan(plan: &str, dir: &Path) -> bool {
    let named = Path::new(plan);
    match (named.canonicalize(), dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => {
            let last = |p: &Path| {
                p.components()
                    .rev()
                    .find(|c| matches!(c, std::path::Component::Normal(_)))
                    .map(|c| c.as_os_str().to_owned())
            };
            let here = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
            last(named).is_some() && last(named) == last(&here)
        }
    }
}

/// Sets a run beside its prediction, after checking each file on its own
/// ([`check_manifest`], [`check_run`]) and that the run ran the plan: the plan directory
/// `dir`, its mode, the same number of ranks and, in every step (numbered alike), the
/// same messages and bytes. Each inconsistency is an error naming the file and field.
pub fn compare(
    manifest: &Manifest,
    manifest_file: &str,
    run: &RunReport,
    run_file: &str,
    dir: &Path,
) -> Result<Comparison, MpiError> {
    let bad = |why: String| MpiError::Report {
        file: run_file.to_string(),
        why,
    };
    check_manifest(manifest).map_err(|why| MpiError::Report {
        file: manifest_file.to_string(),
        why,
    })?;
    check_run(run).map_err(bad)?;
    // The runtime writes its report into the plan directory it ran: a report found there
    // is that directory's run wherever the run was started from (its `plan` is the path
    // as mpirun was given it, relative to a directory this command does not know). A
    // report given from elsewhere must name the plan.
    let in_dir = Path::new(run_file) == dir.join("report.json");
    if !in_dir && !same_plan(&run.plan, dir) {
        return Err(bad(format!(
            "field plan: the run ran {:?}, not the plan in {}",
            run.plan,
            dir.display()
        )));
    }
    if run.mode != manifest.mode {
        return Err(bad(format!(
            "field mode: the run ran mode {:?}, the plan's is {:?}",
            run.mode, manifest.mode
        )));
    }
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
    for (i, (p, m)) in manifest.prediction.steps.iter().zip(&run.steps).enumerate() {
        if p.step != m.step {
            return Err(bad(format!(
                "field steps[{i}].step: the run numbers it {}, the plan {}",
                m.step, p.step
            )));
        }
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
    let hostfile = std::fs::read_to_string(dir.join("hostfile")).ok();
    let (placement, misplaced_ranks) = placement(&run.hosts, hostfile.as_deref());
    Ok(Comparison {
        placement,
        misplaced_ranks,
        model: manifest.model.clone(),
        mode: manifest.mode.clone(),
        source: manifest.source.clone(),
        ranks: run.ranks,
        mpi_library: run.mpi_library.clone(),
        checked: run.check,
        errors: run.errors,
        predicted_s: manifest.prediction.total_s,
        measured_s: run.total_s,
        ratio: ratio(run.total_s, manifest.prediction.total_s),
        steps,
    })
}

/// Where a run's ranks ran (`hosts`, rank by rank, as the runtime recorded them) against
/// the plan's `hostfile` (rank i on its line i): in words, and how many ranks ran
/// elsewhere than their line names. A machine matches a line by its name, or by the part
/// before the first dot on either side (`n001` and `n001.cluster`), in any case. A run on
/// one machine that the hostfile does not name is the `run` command's (every rank here):
/// nothing to check.
pub fn placement(hosts: &[String], hostfile: Option<&str>) -> (String, usize) {
    if hosts.is_empty() {
        return (
            "not recorded (the run's report names no hosts: a runtime older than this liquid)"
                .into(),
            0,
        );
    }
    let Some(hostfile) = hostfile else {
        return (
            "not checked: the plan directory has no readable hostfile".into(),
            0,
        );
    };
    let lines: Vec<&str> = hostfile
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap_or(l))
        .collect();
    let same = |a: &str, b: &str| {
        let short = |s: &str| s.split('.').next().unwrap_or(s).to_lowercase();
        a.eq_ignore_ascii_case(b) || short(a) == short(b)
    };
    let first = &hosts[0];
    if hosts.iter().all(|h| h == first) && !lines.iter().any(|l| same(l, first)) {
        return (
            format!(
                "every rank on {first}, one machine the hostfile does not name (the `run` \
                 command): the hostfile's placement was not used"
            ),
            0,
        );
    }
    let misplaced: Vec<String> = hosts
        .iter()
        .enumerate()
        .filter(|(r, h)| !lines.get(*r).is_some_and(|l| same(l, h)))
        .map(|(r, h)| match lines.get(r) {
            Some(l) => format!("rank {r} on {h}, line {} names {l}", r + 1),
            None => format!("rank {r} on {h}, the hostfile has no line {}", r + 1),
        })
        .collect();
    if misplaced.is_empty() {
        return (
            format!(
                "every rank on its line of the hostfile ({} ranks)",
                hosts.len()
            ),
            0,
        );
    }
    let shown: Vec<&str> = misplaced.iter().take(3).map(String::as_str).collect();
    (
        format!(
            "{} of {} ranks not on their line of the hostfile ({}{}): the times are another \
             placement's; with Open MPI, run_on_hosts's `--mca rmaps seq` puts rank i on line i \
             when each machine has one line",
            misplaced.len(),
            hosts.len(),
            shown.join("; "),
            if misplaced.len() > shown.len() {
                "; ..."
            } else {
                ""
            }
        ),
        misplaced.len(),
    )
}

#[cfg(test)]
mod tests {
    use super::placement;

    fn hosts(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ranks_on_their_lines_pass_and_filled_slots_are_named() {
        let file = "n001\nn013 # spine 2\n\nn021\nn030\n";
        let ok = placement(
            &hosts(&["n001", "N013.cluster", "n021", "n030"]),
            Some(file),
        );
        assert_eq!(ok.1, 0, "{}", ok.0);
        assert!(ok.0.starts_with("every rank on its line"), "{}", ok.0);
        // Open MPI without slots: the first machines' cores filled first.
        let (why, n) = placement(&hosts(&["n001", "n001", "n013", "n013"]), Some(file));
        assert_eq!(n, 3, "{why}");
        assert!(why.contains("rank 1 on n001, line 2 names n013"), "{why}");
        let (why, n) = placement(
            &hosts(&["n001", "n013", "n021", "n030", "n031"]),
            Some(file),
        );
        assert_eq!(n, 1);
        assert!(why.contains("the hostfile has no line 5"), "{why}");
    }

    #[test]
    fn a_run_on_this_machine_or_an_old_report_is_not_misplaced() {
        let file = "p0\np1\n";
        let (why, n) = placement(&hosts(&["vm", "vm"]), Some(file));
        assert_eq!(n, 0);
        assert!(why.contains("every rank on vm"), "{why}");
        assert_eq!(placement(&[], Some(file)).1, 0);
        assert!(placement(&[], Some(file)).0.starts_with("not recorded"));
        assert!(placement(&hosts(&["a", "b"]), None)
            .0
            .starts_with("not checked"));
        // One machine the hostfile does name: checked line by line.
        assert_eq!(placement(&hosts(&["p0", "p0"]), Some(file)).1, 1);
    }
}
