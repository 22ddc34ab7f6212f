//! `liquid explain MODEL [--all]`: why a traffic is not liquid, as minimal non-liquid cores
//! with their certificates (the search and checks are `liquid_engine::explain`).

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use liquid_engine::explain::{cores, ExplainError};
use liquid_model::Traffic;
use serde::Serialize;

use crate::output::{emit, Format};
use crate::InputError;

#[derive(Serialize)]
struct Report {
    model: String,
    transfers: usize,
    duration: usize,
    /// `None` when the time limit came first.
    liquid: Option<bool>,
    /// Whether the time limit stopped the search (the cores found before it are listed).
    stopped: bool,
    /// In words.
    explanation: String,
    cores: Vec<CoreReport>,
    time_s: f64,
}

#[derive(Serialize)]
struct CoreReport {
    size: usize,
    structure: &'static str,
    transfers: Vec<String>,
    /// The links two or more of the core's transfers share.
    shared_links: Vec<String>,
    /// The checked proof that the core needs more than Λ timeframes.
    proof: ProofReport,
    /// For each core transfer, a validated Λ-frame schedule of the core without it.
    without_one: Vec<WithoutOne>,
}

#[derive(Serialize)]
struct ProofReport {
    checked: bool,
    colours: usize,
    variables: usize,
    clauses: usize,
    added: u64,
}

#[derive(Serialize)]
struct WithoutOne {
    removed: String,
    timeframes: Vec<Vec<String>>,
}

fn names(traffic: &Traffic, ts: &[liquid_model::TransferId]) -> Vec<String> {
    ts.iter()
        .map(|&t| traffic.transfer_name(t).to_string())
        .collect()
}

/// Runs `explain`.
pub fn explain(
    model: &Path,
    all: bool,
    time_limit: Option<Duration>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let start = Instant::now();
    let deadline = time_limit.map(|t| start + t);
    let mut stopped = false;
    let found = match cores(&traffic, all, deadline) {
        Ok(c) => c,
        Err(ExplainError::Stopped) => {
            stopped = true;
            Vec::new()
        }
        Err(ExplainError::Sat(liquid_sat::SatError::Encode(e))) => {
            return Err(InputError(format!("{}: {e}", model.display())).into())
        }
        Err(e) => anyhow::bail!("{}: {e}", model.display()),
    };
    let d = traffic.duration();
    let mut reports = Vec::new();
    for c in &found {
        // The links the core's transfers share (the others play no part).
        let mut uses: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for &t in c.transfers() {
            for &l in &traffic.transfer(t).path {
                *uses.entry(traffic.link_name(l)).or_default() += 1;
            }
        }
        let links: Vec<&str> = uses
            .into_iter()
            .filter(|&(_, n)| n >= 2)
            .map(|(l, _)| l)
            .collect();
        let r = c.proof().report();
        reports.push(CoreReport {
            size: c.transfers().len(),
            structure: c.structure().as_str(),
            transfers: names(&traffic, c.transfers()),
            shared_links: links.into_iter().map(str::to_string).collect(),
            proof: ProofReport {
                checked: true,
                colours: c.proof().colours(),
                variables: r.variables,
                clauses: r.clauses,
                added: r.added,
            },
            without_one: c
                .without_one()
                .iter()
                .map(|(t, s)| WithoutOne {
                    removed: traffic.transfer_name(*t).to_string(),
                    timeframes: s.frame_names(&traffic),
                })
                .collect(),
        });
    }
    let explanation = match reports.first() {
        None if stopped => "the time limit came first: no minimal core was found".to_string(),
        None => format!("liquid: the traffic has a schedule of Λ = {d} timeframes; nothing to explain"),
        Some(c) => format!(
            "not liquid: {} of its {} transfers ({}) cannot share {d} timeframes, and removing any one of them makes them fit; every schedule needs at least {}{}",
            c.size,
            traffic.len(),
            c.structure,
            d + 1,
            if reports.len() > 1 {
                format!(
                    " ({} disjoint cores; each alone forces {} frames, and as they can share frames the bound stays {})",
                    reports.len(),
                    d + 1,
                    d + 1
                )
            } else {
                String::new()
            }
        ),
    };
    let report = Report {
        model: traffic.name().to_string(),
        transfers: traffic.len(),
        duration: d,
        liquid: (!stopped).then_some(reports.is_empty()),
        stopped,
        explanation,
        cores: reports,
        time_s: start.elapsed().as_secs_f64(),
    };
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}
