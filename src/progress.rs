//! A progress indicator on stderr for long searches.
//!
//! The engines count their search nodes (or coloured transfers) in an [`AtomicU64`]; a second thread polls it and,
//! only when stderr is a terminal and the run has lasted more than [`QUIET_FOR`], shows a
//! spinner with the node count and rate (with the elapsed time only, for runs that count
//! nothing: SAT, ILP, proofs); under the portfolio, the stage that runs and its own count
//! (`liquid_engine::stage`). Otherwise nothing is written to stderr, so tests,
//! pipes and CI stay quiet and deterministic. The engines' crates hold no terminal code.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use liquid_engine::Counts;

/// How long a run stays silent before the indicator appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// How often the counter is polled.
const POLL: Duration = Duration::from_millis(100);

/// Runs `job` with a counter of what the engine `counts`; shows a spinner on a terminal
/// while it runs long.
pub fn with_progress<T>(counts: Counts, job: impl FnOnce(&AtomicU64) -> T) -> T {
    with_progress_as("searching", counts, job)
}

/// [`with_progress`] with the spinner's line starting with `label` (for instance the model
/// and the engine, where one command runs several).
pub fn with_progress_as<T>(label: &str, counts: Counts, job: impl FnOnce(&AtomicU64) -> T) -> T {
    let nodes = AtomicU64::new(0);
    let unit = match counts {
        Counts::Nodes => "nodes",
        Counts::Transfers => "transfers coloured",
        Counts::Nothing => "",
    };
    if !std::io::stderr().is_terminal() {
        return job(&nodes);
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| show(label, &nodes, &done, unit, None));
        let out = job(&nodes);
        done.store(true, Ordering::Relaxed);
        out
    })
}

/// Runs `job`, which says what it is doing through the function it is given (a phase, such
/// as "first fit of 139300 pieces"); on a terminal, after [`QUIET_FOR`], a spinner on
/// stderr shows `label`, the current phase and the elapsed time.
pub fn with_phases<T>(label: &str, job: impl FnOnce(&dyn Fn(&str)) -> T) -> T {
    let phase = Mutex::new(String::new());
    let say = |p: &str| {
        if let Ok(mut s) = phase.lock() {
            p.clone_into(&mut s);
        }
    };
    if !std::io::stderr().is_terminal() {
        return job(&say);
    }
    let (nodes, done) = (AtomicU64::new(0), AtomicBool::new(false));
    std::thread::scope(|scope| {
        scope.spawn(|| show(label, &nodes, &done, "", Some(&phase)));
        let out = job(&say);
        done.store(true, Ordering::Relaxed);
        out
    })
}

/// Runs `engine` on `traffic` through the gate, the spinner's line starting with `label`.
pub fn solve_as(
    label: &str,
    traffic: &liquid_model::Traffic,
    engine: &'static dyn liquid_engine::Engine,
    request: &liquid_engine::Request,
) -> Result<liquid_engine::Checked, liquid_engine::SolveError> {
    with_progress_as(label, engine.counts(), |p| {
        liquid_engine::solve(traffic, engine, request, None, p)
    })
}

/// [`solve_as`] labelled "searching": the solver the studies and exports are given.
pub fn solve(
    traffic: &liquid_model::Traffic,
    engine: &'static dyn liquid_engine::Engine,
    request: &liquid_engine::Request,
) -> Result<liquid_engine::Checked, liquid_engine::SolveError> {
    solve_as("searching", traffic, engine, request)
}

/// A bar of `len` steps on stderr drawn with `template`; hidden (every call a no-op)
/// when stderr is not a terminal.
pub fn bar(len: u64, template: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    b.set_style(ProgressStyle::with_template(template).expect("a valid template"));
    b
}

/// `n` things of `unit` counted in `secs`, with their rate; `running` when nothing is
/// counted (yet): not "0 nodes, 0/s", which looks stuck.
fn counted(n: u64, unit: &str, secs: Duration) -> String {
    if unit.is_empty() || n == 0 {
        return "running".into();
    }
    // "1 question", "1 transfer coloured": the unit's first word without its plural s.
    let unit = match (n, unit.split_once(' ')) {
        (1, Some((word, rest))) => format!("{} {rest}", word.trim_end_matches('s')),
        (1, None) => unit.trim_end_matches('s').to_string(),
        _ => unit.to_string(),
    };
    format!(
        "{n} {unit}, {:.0}/s",
        n as f64 / secs.as_secs_f64().max(1e-3)
    )
}

fn show(
    label: &str,
    nodes: &AtomicU64,
    done: &AtomicBool,
    unit: &str,
    phase: Option<&Mutex<String>>,
) {
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    // The portfolio's stage (liquid_engine::stage) and when it began, for its rate.
    let mut stage: (Option<&str>, Instant) = (None, start);
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
        let elapsed = start.elapsed();
        if elapsed < QUIET_FOR {
            continue;
        }
        let bar = bar.get_or_insert_with(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{spinner} {prefix}: {msg} [{elapsed}]")
                    .expect("a valid template"),
            );
            b.set_prefix(label.to_string());
            b
        });
        let (named, n) = liquid_engine::stage::read(nodes.load(Ordering::Relaxed));
        if let Some((name, stage_unit)) = named {
            if stage.0 != Some(name) {
                stage = (Some(name), Instant::now());
            }
            // Each stage counts its own thing, or nothing (SAT): its name says which runs.
            bar.set_message(format!(
                "{name}, {}",
                counted(n, stage_unit, stage.1.elapsed())
            ));
        } else if let Some(p) = phase {
            let now = p.lock().map(|s| s.clone()).unwrap_or_default();
            bar.set_message(if now.is_empty() {
                "running".into()
            } else {
                now
            });
        } else {
            bar.set_message(counted(n, unit, elapsed));
        }
        bar.tick();
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thing_is_counted_in_the_singular() {
        let s = Duration::from_secs(2);
        assert_eq!(counted(1, "questions", s), "1 question, 0/s");
        assert_eq!(
            counted(1, "transfers coloured", s),
            "1 transfer coloured, 0/s"
        );
        assert_eq!(
            counted(4, "transfers coloured", s),
            "4 transfers coloured, 2/s"
        );
        assert_eq!(counted(0, "nodes", s), "running");
        assert_eq!(counted(9, "", s), "running");
    }
}
