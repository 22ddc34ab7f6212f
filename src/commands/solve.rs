use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use liquid_model::{check_outcome, Limits, Outcome, StatValue, Traffic, Witness};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::output::{emit, round2, Format};
use crate::{InputError, EXIT_INTERNAL};

/// The engines `liquid solve` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineName {
    /// Liquid schedule search over full teams (003/004): liquid, non-liquid or unknown.
    Native,
    /// DSatur greedy colouring (003 annex): fast, no optimality proof.
    Dsatur,
    /// Exact optimal length by DSATUR branch and bound (chromatic number).
    Exact,
    /// Round-robin baseline for all-to-all traffics (phases split into fewest timeframes).
    RoundRobin,
    /// First fit in a seeded random order (`--seed`).
    Random,
    /// SAT (varisat): liquidity and the optimal length, with LRAT proofs on request.
    Sat,
    /// 0-1 program solved by HiGHS (minimise the used timeframes): `optimal` only when
    /// the MIP dual bound proves it; `--decide` asks only whether a liquid schedule exists.
    Ilp,
    /// DSatur, then the native search, then the exact engine, sharing one time limit.
    Portfolio,
    /// Deliberately wrong (for tests of the checks): DSatur's schedule minus one transfer.
    #[value(hide = true, name = "test-drop-transfer")]
    TestDropTransfer,
    /// Deliberately wrong (for tests of the checks): claims that no liquid schedule exists.
    #[value(hide = true, name = "test-false-non-liquid")]
    TestFalseNonLiquid,
}

impl EngineName {
    /// The engine's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            EngineName::Native => "native",
            EngineName::Dsatur => "dsatur",
            EngineName::Exact => "exact",
            EngineName::RoundRobin => "round-robin",
            EngineName::Random => "random",
            EngineName::Portfolio => "portfolio",
            EngineName::TestDropTransfer => "test-drop-transfer",
            EngineName::TestFalseNonLiquid => "test-false-non-liquid",
            EngineName::Sat => "sat",
            EngineName::Ilp => liquid_ilp::ENGINE,
        }
    }
}

/// Options shared by every engine.
#[derive(Debug, Clone, Default)]
pub struct SolveOptions {
    /// Time and node limits.
    pub limits: Limits,
    /// Seed for randomised engines.
    pub seed: u64,
    /// Where a proof-writing engine (sat) writes the proof of its lower bound.
    pub prove: Option<PathBuf>,
    /// Decision mode (ILP engine): only ask whether a liquid schedule exists.
    pub decide: bool,
}

/// Runs one engine. The outcome is *not* checked here: see [`checked`].
pub fn run_engine(
    engine: EngineName,
    traffic: &Traffic,
    opts: &SolveOptions,
) -> anyhow::Result<Outcome> {
    if opts.prove.is_some() && engine != EngineName::Sat {
        return Err(InputError(format!(
            "--prove needs an engine that writes proofs (sat), not {}",
            engine.name()
        ))
        .into());
    }
    if opts.decide && engine != EngineName::Ilp {
        return Err(InputError(format!(
            "--decide is a mode of the ilp engine, not of {}",
            engine.name()
        ))
        .into());
    }
    // Round-robin and random are single fast passes: no limit applies to them.
    Ok(match engine {
        EngineName::Native => crate::progress::with_progress(|p| {
            liquid_search::liquid::solve_with_progress(traffic, &opts.limits, p)
        }),
        EngineName::Dsatur => crate::progress::with_progress(|p| {
            liquid_search::dsatur::solve_with_progress(traffic, &opts.limits, p)
        }),
        EngineName::Exact => crate::progress::with_progress(|p| {
            liquid_search::exact::solve_with_progress(traffic, &opts.limits, p)
        }),
        EngineName::RoundRobin => liquid_search::baseline::round_robin(traffic)
            .map_err(|e| InputError(format!("{}: {e}", traffic.name())))?,
        EngineName::Random => liquid_search::baseline::random(traffic, opts.seed),
        EngineName::Sat => liquid_sat::solve_with(
            traffic,
            &opts.limits,
            &liquid_sat::SatOptions {
                prove_dir: opts.prove.clone(),
                ..Default::default()
            },
        )
        .map_err(|e| match e {
            // Too large to encode: said up front, before memory runs out (exit 2).
            liquid_sat::SatError::Encode(e) => {
                anyhow::Error::new(InputError(format!("{}: {e}", traffic.name())))
            }
            e => e.into(),
        })?,
        EngineName::Ilp => if opts.decide {
            liquid_ilp::decide_liquid(traffic, &opts.limits)
        } else {
            liquid_ilp::solve(traffic, &opts.limits)
        }
        .map_err(|e| match e {
            // Too large to build: said up front, before memory runs out (exit 2).
            e @ liquid_ilp::IlpError::TooLarge { .. } => {
                anyhow::Error::new(InputError(format!("{}: {e}", traffic.name())))
            }
            e => e.into(),
        })?,
        EngineName::Portfolio => {
            crate::progress::with_progress(|p| super::portfolio::solve(traffic, &opts.limits, p))
        }
        EngineName::TestDropTransfer => super::broken::drop_transfer(traffic),
        EngineName::TestFalseNonLiquid => super::broken::false_non_liquid(traffic),
    })
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

#[derive(Serialize)]
struct WitnessReport {
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

fn witness_report(traffic: &Traffic, w: &Witness) -> WitnessReport {
    let mut r = WitnessReport {
        kind: "",
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
    match w {
        Witness::Bottleneck(l) => {
            r.kind = "bottleneck";
            r.link = Some(traffic.link_name(*l).to_string());
            r.transfers = Some(names(traffic.users(*l)));
        }
        Witness::Clique(ts) => {
            r.kind = "clique";
            r.transfers = Some(names(ts));
        }
        Witness::Exhaustion { engine, nodes } => {
            r.kind = "exhaustive-search";
            r.engine = Some(engine.clone());
            r.nodes = Some(*nodes);
        }
        Witness::SatProof { dir } => {
            r.kind = "sat-proof";
            r.proof = Some(dir.clone());
        }
        Witness::Unsat { engine } => {
            r.kind = "unsat-claim";
            r.engine = Some(engine.clone());
        }
        Witness::DualBound { bound } => {
            r.kind = "dual-bound";
            r.dual_bound = Some(*bound);
        }
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
    lower_bound_witness: WitnessReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    liquid_throughput: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule_throughput: Option<f64>,
    /// Throughput lost against a liquid schedule, in percent: 100 (1 - Λ/length).
    loss_percent: Option<f64>,
    stats: Stats<'a>,
    timeframes: Option<Vec<Vec<String>>>,
}

/// An outcome that passed [`check_outcome`], with the time the engine took.
pub struct Checked {
    /// The outcome.
    pub outcome: Outcome,
    /// The schedule's length, if any.
    pub length: Option<usize>,
    /// Wall time of the engine run.
    pub seconds: f64,
}

/// Runs an engine and checks its outcome with the model's validator. A failing check is
/// an internal error: the engine is wrong.
pub fn checked(
    engine: EngineName,
    traffic: &Traffic,
    opts: &SolveOptions,
) -> anyhow::Result<Result<Checked, String>> {
    let start = Instant::now();
    let outcome = run_engine(engine, traffic, opts)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(match check_outcome(traffic, &outcome) {
        Ok(r) => Ok(Checked {
            length: r.map(|r| r.length),
            outcome,
            seconds,
        }),
        Err(e) => Err(format!(
            "engine {} returned a wrong answer: {e}",
            engine.name()
        )),
    })
}

/// `liquid solve MODEL --engine E`.
pub fn solve(
    model: &Path,
    engine: EngineName,
    opts: &SolveOptions,
    schedule_out: Option<&PathBuf>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let c = match checked(engine, &traffic, opts)? {
        Ok(c) => c,
        Err(e) => {
            eprintln!("internal error: {e}");
            return Ok(ExitCode::from(EXIT_INTERNAL));
        }
    };
    let o = &c.outcome;
    let d = traffic.duration();
    let report = SolveReport {
        model: traffic.name().to_string(),
        engine: o.engine.clone(),
        verdict: o.verdict.as_str(),
        transfers: traffic.len(),
        duration: d,
        length: c.length,
        lower_bound: o.lower_bound.value,
        lower_bound_witness: witness_report(&traffic, &o.lower_bound.witness),
        liquid_throughput: traffic.liquid_throughput().map(round2),
        schedule_throughput: c.length.and_then(|len| {
            traffic
                .link_throughput()
                .map(|t| round2(t * traffic.len() as f64 / len as f64))
        }),
        loss_percent: c
            .length
            .map(|len| round2(100.0 * (1.0 - d as f64 / len as f64))),
        stats: Stats(&o.stats, c.seconds),
        timeframes: o.schedule.as_ref().map(|s| s.frame_names(&traffic)),
    };
    if let (Some(path), Some(s)) = (schedule_out, &o.schedule) {
        std::fs::write(path, liquid_model::yaml::write_schedule(&traffic, s))
            .with_context(|| format!("cannot write {}", path.display()))?;
    } else if let (Some(path), None) = (schedule_out, &o.schedule) {
        return Err(InputError(format!(
            "no schedule to write to {}: the engine found none",
            path.display()
        ))
        .into());
    }
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}
