use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use liquid_topology::fat_tree::FatTree;
use liquid_topology::grid::Grid;
use liquid_topology::multi_cluster::MultiCluster;
use liquid_topology::t1::{self, Allocation};
use liquid_topology::two_clusters::TwoClusters;
use liquid_topology::Generated;

use crate::InputError;

/// The form of a generated model file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Form {
    /// Every transfer with its path (the interchange format).
    Explicit,
    /// The network (hosts, switches, links, explicit routes) and the pattern.
    Network,
}

/// Where and how to write a generated model.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateOutput {
    /// Write the model to this file instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Model form.
    #[arg(long, value_enum, default_value_t = Form::Explicit)]
    form: Form,
}

/// The shape of a mesh or torus.
#[derive(Debug, Clone, clap::Args)]
pub struct GridArgs {
    /// Dimensions, like 4x4.
    #[arg(long)]
    dims: String,
    /// Hosts in front of each switch.
    #[arg(long, default_value_t = 1)]
    hosts_per_switch: usize,
    /// Each host also sends to itself (up to its switch and back).
    #[arg(long)]
    self_transfers: bool,
}

/// The networks `liquid generate` builds (each with its all-to-all).
#[derive(Debug, Clone, clap::Subcommand)]
pub enum GenerateWhat {
    /// Swiss-T1 testbed (reconstructed routing): the all-to-all, self-transfers included,
    /// of the nodes an allocation vector picks.
    T1 {
        /// Allocation vector n0,...,n7: nodes taking part on each switch (0 to 4).
        #[arg(long)]
        alloc: String,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// m-port n-tree fat-tree with deterministic up*/down* routing.
    FatTree {
        /// Ports per switch, m (even).
        #[arg(long)]
        ports: usize,
        /// Levels, n.
        #[arg(long)]
        levels: usize,
        /// Each node also sends to itself (up to its switch and back).
        #[arg(long)]
        self_transfers: bool,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Ring of switches, shortest-way routing (ties: the positive way).
    Ring {
        /// Number of switches.
        #[arg(long)]
        switches: usize,
        /// Hosts in front of each switch.
        #[arg(long, default_value_t = 1)]
        hosts_per_switch: usize,
        /// Each host also sends to itself (up to its switch and back).
        #[arg(long)]
        self_transfers: bool,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Mesh of switches with dimension-order routing.
    Mesh {
        #[command(flatten)]
        grid: GridArgs,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Torus of switches with dimension-order routing (shorter way round).
    Torus {
        #[command(flatten)]
        grid: GridArgs,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Two crossbar clusters joined by a backbone (paper 001): nodes a0.. on switch A,
    /// b0.. on switch B, backbone A>B and B>A; every link with its bandwidth and latency
    /// (write it with --form network to keep them). With --cluster SPEC both clusters are
    /// a copy of that topology instead, A and B gateways cabled to its first switch.
    TwoClusters {
        /// Nodes of cluster 1 (with --cluster: the topology's host count, may be omitted).
        #[arg(long)]
        n1: Option<usize>,
        /// Nodes of cluster 2 (with --cluster: the topology's host count, may be omitted).
        #[arg(long)]
        n2: Option<usize>,
        /// Each cluster's topology, a spec like fat-tree:4,2, ring:4,2, mesh:2x2,2 or
        /// torus:2x2,1 (default: a crossbar).
        #[arg(long)]
        cluster: Option<String>,
        #[command(flatten)]
        links: TwoClusterLinks,
        /// Split the backbone into this many parallel lanes (each 1/K of its bandwidth;
        /// pair (a_i, b_j) on lane (i + j) mod K), so that the traffic-set model's
        /// timeframes respect the backbone's capacity.
        #[arg(long, default_value_t = 1)]
        lanes: usize,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Heterogeneous multi-cluster system of paper 002: per cluster an ICN1 and an ECN1
    /// (m-port n_i-trees, every node on both), a concentrator/dispatcher `c{i}.cd`, and
    /// the ICN2 (an m-port n_c-tree) joining the concentrators; the all-to-all over all
    /// nodes (`c{i}.p{j}`), ICN1 within a cluster, ECN1-ICN2-ECN1 between clusters.
    MultiCluster {
        /// The system as M,LIST[,NC]: ports, cluster heights as COUNTxN items joined by
        /// `+`, ICN2 height (default: the smallest that fits), e.g. 8,12x1+16x2+4x3.
        system: String,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// The 2-switch worked example of the papers (Fig. 1).
    PaperFig1 {
        #[command(flatten)]
        output: GenerateOutput,
    },
}

/// The links of a two-cluster network (paper 001's setting by default).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TwoClusterLinks {
    /// Backbone bandwidth, MB/s each way (001: 10 Gbit/s).
    #[arg(long, default_value_t = liquid_topology::two_clusters::DEFAULT_BACKBONE_MB_S)]
    pub backbone_bandwidth: f64,
    /// Backbone one-way latency, s (assumed: about 1000 km of fibre).
    #[arg(long, default_value_t = liquid_topology::two_clusters::DEFAULT_BACKBONE_LATENCY_S)]
    pub backbone_latency: f64,
    /// Node card bandwidth, MB/s each way (001: Gigabit).
    #[arg(long, default_value_t = liquid_topology::two_clusters::DEFAULT_NODE_MB_S)]
    pub node_bandwidth: f64,
    /// Latency of each node link, s (assumed).
    #[arg(long, default_value_t = liquid_topology::two_clusters::DEFAULT_NODE_LATENCY_S)]
    pub node_latency: f64,
}

impl GridArgs {
    /// The mesh (or with `wrap`, the torus) these arguments give.
    fn generated(&self, wrap: bool) -> anyhow::Result<Generated> {
        Grid::with_dims(&self.dims, wrap, self.hosts_per_switch, self.self_transfers)
            .and_then(|g| g.generated())
            .map_err(InputError::of)
    }
}

/// Two clusters, crossbars or copies of `cluster`.
fn two_clusters(
    n1: Option<usize>,
    n2: Option<usize>,
    cluster: Option<&str>,
    links: TwoClusterLinks,
    lanes: usize,
) -> anyhow::Result<Generated> {
    TwoClusters::sized(n1, n2, cluster)
        .and_then(|base| {
            TwoClusters {
                backbone_bandwidth: links.backbone_bandwidth,
                backbone_latency: links.backbone_latency,
                node_bandwidth: links.node_bandwidth,
                node_latency: links.node_latency,
                lanes,
                ..base
            }
            .generated()
        })
        .map_err(InputError::of)
}

/// `liquid generate ...`.
pub fn generate(what: GenerateWhat) -> anyhow::Result<ExitCode> {
    let (g, output) = build(what)?;
    write(&g, output)
}

/// The network a `generate` subcommand names, and where to write it.
fn build(what: GenerateWhat) -> anyhow::Result<(Generated, GenerateOutput)> {
    Ok(match what {
        GenerateWhat::T1 { alloc, output } => (
            t1::generated(Allocation::parse(&alloc).map_err(InputError::of)?)
                .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::FatTree {
            ports,
            levels,
            self_transfers,
            output,
        } => (
            FatTree {
                ports,
                levels,
                self_transfers,
            }
            .generated()
            .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::Ring {
            switches,
            hosts_per_switch,
            self_transfers,
            output,
        } => (
            Grid {
                self_transfers,
                ..Grid::ring(switches, hosts_per_switch)
            }
            .generated()
            .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::Mesh { grid, output } => (grid.generated(false)?, output),
        GenerateWhat::Torus { grid, output } => (grid.generated(true)?, output),
        GenerateWhat::MultiCluster { system, output } => (
            MultiCluster::parse(&system)
                .and_then(|m| m.generated())
                .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::PaperFig1 { output } => (liquid_topology::paper::fig1(), output),
        GenerateWhat::TwoClusters {
            n1,
            n2,
            cluster,
            links,
            lanes,
            output,
        } => (
            two_clusters(n1, n2, cluster.as_deref(), links, lanes)?,
            output,
        ),
    })
}

/// Writes a generated model in the output's form.
fn write(g: &Generated, output: GenerateOutput) -> anyhow::Result<ExitCode> {
    let text = match output.form {
        Form::Explicit => g
            .to_explicit_yaml()
            .map_err(|e| anyhow::anyhow!("generated model does not expand: {e}"))?,
        Form::Network => g.to_network_yaml(),
    };
    match output.out {
        Some(path) => std::fs::write(&path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
