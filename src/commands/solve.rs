use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use liquid_engine::{Checked, Engine, Request, SolveError};
use liquid_model::{Evidence, StatValue, Traffic};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::output::{emit, round2, Format};
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

struct Stats<'a>(&'a [(String, StatValue)], f64);

impl Serialize for Stats<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len() + 1))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("time_s", &self.1)?;
        m.end()
    }
}

/// A lower bound's evidence as reports show it.
#[derive(Serialize)]
pub struct EvidenceReport {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transfers: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dual_bound: Option<f64>,
}

/// The report of a lower bound's evidence.
pub fn evidence_report(traffic: &Traffic, e: &Evidence) -> EvidenceReport {
    let mut r = EvidenceReport {
        kind: e.kind(),
        link: None,
        transfers: None,
        engine: None,
        nodes: None,
        proof: None,
        dual_bound: None,
    };
    let names = |ts: &[liquid_model::TransferId]| {
        ts.iter()
            .map(|&t| traffic.transfer_name(t).to_string())
            .collect()
    };
    match e {
        Evidence::Bottleneck(l) => {
            r.link = Some(traffic.link_name(*l).to_string());
            r.transfers = Some(names(traffic.users(*l)));
        }
        Evidence::Clique(ts) => r.transfers = Some(names(ts)),
        Evidence::Exhaustive { engine, nodes } => {
            r.engine = Some(engine.clone());
            r.nodes = Some(*nodes);
        }
        Evidence::CheckedProof(p) => {
            r.proof = Some(
                p.dir()
                    .unwrap_or("checked in memory, not written")
                    .to_string(),
            );
        }
        Evidence::SolverClaim { engine } => r.engine = Some(engine.clone()),
        Evidence::DualBound { bound } => r.dual_bound = Some(*bound),
    }
    r
}

#[derive(Serialize)]
struct SolveReport<'a> {
    model: String,
    engine: String,
    verdict: &'static str,
    transfers: usize,
    duration: usize,
    length: Option<usize>,
    lower_bound: usize,
    lower_bound_witness: EvidenceReport,
    /// How strong the lower bound's evidence is (`checked`, `exhaustive-search`,
    /// `solver-claim`, `dual-bound`).
    evidence: &'static str,
    /// Whether the verdict's claim rests on checked evidence only.
    certified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid_throughput: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule_throughput: Option<f64>,
    /// Throughput lost against a liquid schedule, in percent: 100 (1 - Λ/length).
    loss_percent: Option<f64>,
    stats: Stats<'a>,
    timeframes: Option<Vec<Vec<String>>>,
}

/// What `solve` was asked, beyond the model and the engine.
pub struct SolveArgs<'a> {
    /// Limits, seed, decision mode, proofs.
    pub request: Request,
    /// Where to write the proof of a bound above Λ.
    pub prove: Option<&'a Path>,
    /// Exit 1 when the verdict's claim could not be certified.
    pub require_proof: bool,
    /// Where to write the schedule.
    pub schedule_out: Option<&'a PathBuf>,
    /// Output format.
    pub format: Format,
}

/// `liquid solve MODEL --engine E`.
pub fn solve(model: &Path, engine: &dyn Engine, args: &SolveArgs<'_>) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let mut request = args.request;
    request.proofs |= args.require_proof;
    let checked = crate::progress::with_progress(engine.counts(), |p| {
        liquid_engine::solve(&traffic, engine, &request, args.prove, p)
    });
    let c = match checked {
        Ok(c) => c,
        Err(e @ SolveError::Wrong { .. }) => {
            eprintln!("internal error: {e}");
            return Ok(ExitCode::from(EXIT_INTERNAL));
        }
        Err(e) => return Err(gate_error(e)),
    };
    let report = report(&traffic, &c);
    let schedule = c.outcome().schedule();
    match (args.schedule_out, schedule) {
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
    emit(&report, args.format)?;
    if args.require_proof && !report.certified {
        eprintln!(
            "not certified: the {} verdict rests on {} evidence, not on a checked proof",
            report.verdict, report.evidence
        );
        return Ok(ExitCode::from(EXIT_REJECTED));
    }
    Ok(ExitCode::SUCCESS)
}

fn report<'a>(traffic: &Traffic, c: &'a Checked) -> SolveReport<'a> {
    let o = c.outcome();
    let d = traffic.duration();
    let bound = o.lower_bound(traffic);
    let length = c.length();
    SolveReport {
        model: traffic.name().to_string(),
        engine: c.engine().to_string(),
        verdict: o.verdict().as_str(),
        transfers: traffic.len(),
        duration: d,
        length,
        lower_bound: bound.value,
        lower_bound_witness: evidence_report(traffic, &bound.evidence),
        evidence: bound.evidence.strength().as_str(),
        certified: c.certified(traffic),
        liquid_throughput: traffic.liquid_throughput().map(round2),
        schedule_throughput: length.and_then(|len| {
            traffic
                .link_throughput()
                .map(|t| round2(t * traffic.len() as f64 / len as f64))
        }),
        loss_percent: length.map(|len| round2(100.0 * (1.0 - d as f64 / len as f64))),
        stats: Stats(c.stats(), c.seconds()),
        timeframes: o.schedule().map(|s| s.frame_names(traffic)),
    }
}
