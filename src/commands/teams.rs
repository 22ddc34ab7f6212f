use std::path::Path;
use std::process::ExitCode;

use liquid_search::teams::{all_transfers, bottlenecks_in, FullTeams};
use serde::Serialize;

use crate::output::{emit, Format};

#[derive(Serialize)]
struct TeamsReport {
    model: String,
    transfers: usize,
    duration: usize,
    bottlenecks: Vec<String>,
    full_teams: u64,
    /// Ancestors examined by the two-phase reproduction of 004.
    ancestors: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    teams: Option<Vec<Vec<String>>>,
}

/// `liquid teams MODEL [--list]`: the full teams of the whole traffic, in enumeration order.
pub fn teams(model: &Path, list: bool, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let (duration, bottlenecks) = bottlenecks_in(&traffic, &all_transfers(&traffic));
    let mut it = FullTeams::of_traffic(&traffic);
    let mut count = 0u64;
    let mut listed = Vec::new();
    for team in it.by_ref() {
        count += 1;
        if list {
            listed.push(
                team.ones()
                    .map(|t| {
                        traffic
                            .transfer_name(liquid_model::TransferId(t as u32))
                            .to_string()
                    })
                    .collect(),
            );
        }
    }
    let report = TeamsReport {
        model: traffic.name().to_string(),
        transfers: traffic.len(),
        duration,
        bottlenecks: bottlenecks
            .iter()
            .map(|&l| traffic.link_name(l).to_string())
            .collect(),
        full_teams: count,
        ancestors: it.ancestors(),
        teams: list.then_some(listed),
    };
    emit(&report, format)?;
    Ok(ExitCode::SUCCESS)
}
