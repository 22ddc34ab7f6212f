use std::path::Path;
use std::process::ExitCode;

use liquid_model::Traffic;
use serde::Serialize;

use crate::output::{emit, round2, round4, Format};

#[derive(Serialize)]
struct BottleneckUsers {
    link: String,
    load: usize,
    users: Vec<String>,
}

#[derive(Serialize)]
struct Analysis {
    model: String,
    transfers: usize,
    links: usize,
    total_path_length: usize,
    duration: usize,
    bottlenecks: Vec<String>,
    bottleneck_users: Vec<BottleneckUsers>,
    /// #X / Λ, in units of one link's throughput.
    liquid_ratio: f64,
    link_throughput: Option<f64>,
    /// MB/s, when the model gives a link throughput.
    liquid_throughput: Option<f64>,
    conflict_vertices: u64,
    conflict_edges: u64,
    max_conflict_degree: u64,
}

fn analysis(traffic: &Traffic) -> Analysis {
    let bottlenecks = traffic.bottlenecks();
    let stats = traffic.conflict_stats();
    Analysis {
        model: traffic.name().to_string(),
        transfers: traffic.len(),
        links: traffic.num_links(),
        total_path_length: traffic.total_path_length(),
        duration: traffic.duration(),
        bottlenecks: bottlenecks
            .iter()
            .map(|&l| traffic.link_name(l).to_string())
            .collect(),
        bottleneck_users: bottlenecks
            .iter()
            .map(|&l| BottleneckUsers {
                link: traffic.link_name(l).to_string(),
                load: traffic.load(l),
                users: traffic
                    .users(l)
                    .iter()
                    .map(|&t| traffic.transfer_name(t).to_string())
                    .collect(),
            })
            .collect(),
        liquid_ratio: round4(traffic.liquid_ratio()),
        link_throughput: traffic.link_throughput(),
        liquid_throughput: traffic.liquid_throughput().map(round2),
        conflict_vertices: stats.vertices,
        conflict_edges: stats.edges,
        max_conflict_degree: stats.max_degree,
    }
}

/// `liquid analyze MODEL`.
pub fn analyze(model: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    emit(&analysis(&traffic), format)?;
    Ok(ExitCode::SUCCESS)
}
