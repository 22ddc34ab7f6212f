use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use liquid_engine::report::SolveReport;
use liquid_engine::{Engine, Request, SolveError};

use crate::output::emit;
use crate::{InputError, EXIT_INTERNAL, EXIT_REJECTED};

/// The `--engine` values: every engine of the registry (hidden ones accepted, not listed).
pub fn engine_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(liquid_engine::ENGINES.iter().map(|e| {
        clap::builder::PossibleValue::new(e.name())
            .help(e.about())
            .hide(e.hidden())
    }))
}

/// The engine a validated `--engine` value names.
pub fn engine(name: &str) -> anyhow::Result<&'static dyn Engine> {
    liquid_engine::find(name).ok_or_else(|| InputError(format!("no engine {name:?}")).into())
}

/// Parses `--time-limit` (seconds, fractional allowed).
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(0.0..1e9).contains(&v) {
        return Err(format!("{s:?} is not a usable number of seconds"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A gate error as the CLI reports it: input errors exit 2, the rest 3.
pub fn gate_error(e: SolveError) -> anyhow::Error {
    match e {
        SolveError::Input(m) => InputError(m).into(),
        e => anyhow::anyhow!(e),
    }
}

/// `liquid solve MODEL --engine E` (with `--stream`, [`super::solve_stream`]).
pub fn solve(a: &crate::SolveCliArgs) -> anyhow::Result<ExitCode> {
    if a.stream {
        let out = a.schedule_out.as_deref();
        return super::solve_stream(&a.model, out, a.prefix, a.limits.time_limit, a.format);
    }
    let engine = engine(&a.engine)?;
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    let request = Request {
        limits: a.limits.limits(),
        seed: a.seed,
        decide: a.decide,
        proofs: a.require_proof,
    };
    let checked = crate::progress::with_progress(engine.counts(), |p| {
        liquid_engine::solve(&traffic, engine, &request, a.prove.as_deref(), p)
    });
    let c = match checked {
        Ok(c) => c,
        Err(e @ SolveError::Wrong { .. }) => {
            eprintln!("internal error: {e}");
            return Ok(ExitCode::from(EXIT_INTERNAL));
        }
        Err(e) => return Err(gate_error(e)),
    };
    let report = SolveReport::new(&traffic, &c);
    let schedule = c.outcome().schedule();
    match (&a.schedule_out, schedule) {
        (Some(path), Some(s)) => {
            std::fs::write(path, liquid_model::yaml::write_schedule(&traffic, s))
                .with_context(|| format!("cannot write {}", path.display()))?
        }
        (Some(path), None) => {
            return Err(InputError(format!(
                "no schedule to write to {}: the engine found none",
                path.display()
            ))
            .into())
        }
        (None, _) => {}
    }
    emit(&report, a.format)?;
    if let Some(why) = report.uncertified_reason().filter(|_| a.require_proof) {
        eprintln!("not certified: {why}");
        return Ok(ExitCode::from(EXIT_REJECTED));
    }
    Ok(ExitCode::SUCCESS)
}
