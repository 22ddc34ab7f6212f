use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use liquid_engine::engines::closed_form::solve_machine;
use liquid_engine::SolveError;
use liquid_topology::closed_form::Machine;
use liquid_topology::dragonfly::{Dragonfly, DragonflyPlus};
use liquid_topology::fat_tree::FatTree;
use liquid_topology::grid::Grid;
use liquid_topology::hyperx::HyperX;
use liquid_topology::multi_cluster::MultiCluster;
use liquid_topology::rail::Rail;
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
    /// (write it with --form network to keep them: the explicit form has no per-link
    /// figures, and refuses --backbone-bandwidth, --backbone-latency, --node-bandwidth and
    /// --node-latency). With --cluster SPEC both clusters are a copy of that topology
    /// instead, A and B gateways cabled to its first switch.
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
        /// The link options given on the command line ([`two_cluster_links_given`]).
        #[arg(skip)]
        links_given: Vec<&'static str>,
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
    /// Dragonfly (Kim, Dally, Scott, Abts, ISCA 2008): G groups of A routers, P hosts and
    /// H global links per router, the routers of a group fully connected; A·P·G hosts
    /// `g{g}.r{r}.h{k}` and A·G routers. Global links in the palm-tree arrangement
    /// (Camarero et al. 2015); minimal routing local-global-local, the parallel global
    /// links (when G < A·H + 1) shared out by the source's index in its group. Spec:
    /// dragonfly:A,P,H[,G] (dragonfly:4,2,2: 9 groups, 72 hosts, 36 routers).
    Dragonfly {
        /// Routers per group, A.
        #[arg(long)]
        routers: usize,
        /// Hosts per router, P.
        #[arg(long)]
        hosts_per_router: usize,
        /// Global links per router, H.
        #[arg(long)]
        global_links: usize,
        /// Groups, G: 2 to A·H + 1 with G - 1 dividing A·H and H < G (default A·H + 1).
        #[arg(long)]
        groups: Option<usize>,
        /// Also write the closed-form liquid schedule of the all-to-all (length Λ = N - 1,
        /// when H = P, A ≥ 2P, G = A·H + 1 and A·P is a prime power; validated before it
        /// is written) to this file.
        #[arg(long, value_name = "FILE")]
        schedule_out: Option<PathBuf>,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Dragonfly+ (Shpiner et al. 2017): G groups, each a two-level fat-tree of L leaves
    /// with P hosts and S spines, every leaf cabled to every spine, H global links per
    /// spine (palm-tree); L·P·G hosts and (L + S)·G switches. Routing
    /// leaf-spine-global-spine-leaf; within a group through spine (destination's index in
    /// the group mod S).
    /// Spec: dragonfly-plus:L,S,P,H[,G] (dragonfly-plus:4,4,4,4: 17 groups, 272 hosts,
    /// 136 switches).
    DragonflyPlus {
        /// Leaves per group, L.
        #[arg(long)]
        leaves: usize,
        /// Spines per group, S.
        #[arg(long)]
        spines: usize,
        /// Hosts per leaf, P.
        #[arg(long)]
        hosts_per_leaf: usize,
        /// Global links per spine, H.
        #[arg(long)]
        global_links: usize,
        /// Groups, G: 2 to S·H + 1 with G - 1 dividing S·H and H < G (default S·H + 1).
        #[arg(long)]
        groups: Option<usize>,
        /// Also write the closed-form liquid schedule of the all-to-all (length Λ = N - 1,
        /// when L = S, P = H ≤ L and G = S·H + 1; validated before it is written) to this
        /// file.
        #[arg(long, value_name = "FILE")]
        schedule_out: Option<PathBuf>,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Rail-optimised GPU fat-tree (DGX SuperPOD style): S servers of G GPUs, GPU j of
    /// every server on rail switch j through its NIC, K spines joining the rails, an
    /// NVSwitch per server; S·G hosts `s{s}.g{j}` and G + K + S·(G + 1) switches (rails,
    /// spines, NVSwitches, NICs). Same rail through its rail switch, across rails through
    /// spine (destination server mod K), or with --pxn first over NVLink to the GPU on the
    /// destination's rail (NCCL's PXN). Spec: rail:S,G[,K][,pxn] (rail:32,8: 256 GPUs,
    /// 328 switches).
    Rail {
        /// Servers, S.
        #[arg(long)]
        servers: usize,
        /// GPUs (and rails) per server, G.
        #[arg(long)]
        gpus: usize,
        /// Spine switches, K, 1 to S (default S: non-blocking).
        #[arg(long)]
        spines: Option<usize>,
        /// Route across rails by PXN (NVLink to the destination's rail first).
        #[arg(long)]
        pxn: bool,
        /// Also write the closed-form liquid schedule of the all-to-all (length Λ, with
        /// --pxn or K = S; validated before it is written) to this file.
        #[arg(long, value_name = "FILE")]
        schedule_out: Option<PathBuf>,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// HyperX (Ahn et al., SC 2009): routers on a lattice S1×S2×…, every row of every
    /// dimension fully connected, T hosts per router; T·ΠSi hosts and ΠSi routers,
    /// dimension-order routing. Spec: hyperx:S1xS2x...,T (hyperx:16x16,4: 1,024 hosts).
    Hyperx {
        /// Routers along each dimension, like 8x8 (each at least 2).
        #[arg(long)]
        dims: String,
        /// Hosts per router, T.
        #[arg(long, default_value_t = 1)]
        hosts_per_router: usize,
        /// Also write the closed-form liquid schedule of the all-to-all (length Λ = N - 1,
        /// when every dimension is a prime power above T or has its smallest prime factor
        /// above T; validated before it is written) to this file.
        #[arg(long, value_name = "FILE")]
        schedule_out: Option<PathBuf>,
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// The 2-switch worked example of the papers (Fig. 1).
    PaperFig1 {
        #[command(flatten)]
        output: GenerateOutput,
    },
    /// Message sizes for a model's traffic, not a model: a seeded `src,dst,bytes` CSV of
    /// skewed all-to-allv sizes (equal, uniform, Zipf over destinations as in hot experts,
    /// one hot expert, or a given rank-by-rank matrix), for `--sizes`.
    Sizes(Box<super::GenerateSizesArgs>),
    /// A spec (`fat-tree:4,3`) in place of a generator, then `--out` and `--form`: the
    /// spec's model. Any other word there is refused as an unknown generator.
    #[command(external_subcommand)]
    Spec(Vec<String>),
}

/// Writes the model of a generated-model spec (`liquid generate --help` lists the specs).
#[derive(Debug, clap::Parser)]
struct SpecArgs {
    #[command(flatten)]
    output: GenerateOutput,
}

/// The model of `liquid generate SPEC [--out FILE] [--form F]`: `args` is the spec and
/// the words after it.
fn from_spec(args: &[String]) -> anyhow::Result<(Generated, GenerateOutput)> {
    let spec = args.first().map(String::as_str).unwrap_or_default();
    if !liquid_topology::spec::is_spec(spec) {
        let why = liquid_topology::spec::unknown_generator(spec).unwrap_or_else(|| {
            format!(
                "{spec:?} is neither a generator nor a spec (`liquid generate --help` lists both)"
            )
        });
        return Err(InputError(why).into());
    }
    let name = format!("liquid generate {spec}");
    let options = <SpecArgs as clap::Parser>::try_parse_from(
        std::iter::once(name.as_str()).chain(args[1..].iter().map(String::as_str)),
    )
    .map_err(|e| {
        use clap::error::ErrorKind;
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            // `--help` is no error: printed on stdout, exit 0, as clap does.
            e.exit();
        }
        let text = e.to_string();
        InputError(text.trim_start_matches("error: ").trim_end().to_string())
    })?;
    let g = liquid_topology::spec::parse(spec)
        .map_err(InputError::of)?
        .ok_or_else(|| InputError(format!("{spec:?} is not a spec")))?;
    Ok((g, options.output))
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

/// The link options of `liquid generate two-clusters` that `matches` (the whole command
/// line) gives, by name: the explicit form cannot hold them, and a value the user gave is
/// never dropped without a word.
pub fn two_cluster_links_given(matches: &clap::ArgMatches) -> Vec<&'static str> {
    let Some(m) = matches
        .subcommand_matches("generate")
        .and_then(|g| g.subcommand_matches("two-clusters"))
    else {
        return Vec::new();
    };
    [
        ("backbone_bandwidth", "--backbone-bandwidth"),
        ("backbone_latency", "--backbone-latency"),
        ("node_bandwidth", "--node-bandwidth"),
        ("node_latency", "--node-latency"),
    ]
    .into_iter()
    .filter(|(id, _)| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
    .map(|(_, option)| option)
    .collect()
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
    if let GenerateWhat::Sizes(a) = &what {
        return super::generate_sizes(a);
    }
    let schedule = closed_form_machine(&what)?;
    let (g, output) = build(what)?;
    super::refuse_overwriting_inputs(
        &[
            (
                "--schedule-out",
                schedule.as_ref().map(|(_, p)| p.as_path()),
            ),
            ("--out", output.out.as_deref()),
        ],
        &[],
    )?;
    if let Some((machine, path)) = schedule {
        write_schedule(&machine, &path)?;
    }
    write(&g, output)
}

/// The machine whose closed-form schedule `--schedule-out` asks for, and its file.
fn closed_form_machine(what: &GenerateWhat) -> anyhow::Result<Option<(Machine, PathBuf)>> {
    Ok(match what {
        GenerateWhat::Rail {
            servers,
            gpus,
            spines,
            pxn,
            schedule_out: Some(path),
            ..
        } => Some((
            Machine::Rail(Rail {
                servers: *servers,
                gpus: *gpus,
                spines: *spines,
                pxn: *pxn,
            }),
            path.clone(),
        )),
        GenerateWhat::Hyperx {
            dims,
            hosts_per_router,
            schedule_out: Some(path),
            ..
        } => Some((
            Machine::HyperX(HyperX {
                dims: hyperx_dims(dims)?,
                hosts_per_router: *hosts_per_router,
            }),
            path.clone(),
        )),
        GenerateWhat::Dragonfly {
            routers,
            hosts_per_router,
            global_links,
            groups,
            schedule_out: Some(path),
            ..
        } => Some((
            Machine::Dragonfly(Dragonfly {
                routers: *routers,
                hosts_per_router: *hosts_per_router,
                global_per_router: *global_links,
                groups: *groups,
            }),
            path.clone(),
        )),
        GenerateWhat::DragonflyPlus {
            leaves,
            spines,
            hosts_per_leaf,
            global_links,
            groups,
            schedule_out: Some(path),
            ..
        } => Some((
            Machine::DragonflyPlus(DragonflyPlus {
                leaves: *leaves,
                spines: *spines,
                hosts_per_leaf: *hosts_per_leaf,
                global_per_spine: *global_links,
                groups: *groups,
            }),
            path.clone(),
        )),
        _ => None,
    })
}

/// Writes the machine's closed-form schedule, made by the `closed-form` engine and checked
/// by the gate (`liquid_engine::engines::closed_form::solve_machine`).
fn write_schedule(machine: &Machine, path: &std::path::Path) -> anyhow::Result<()> {
    let (traffic, checked) = match solve_machine(machine) {
        Ok(x) => x,
        Err(SolveError::Input(m)) => return Err(InputError(format!("--schedule-out: {m}")).into()),
        Err(e) => return Err(anyhow::anyhow!("internal error: {e}")),
    };
    let schedule = checked
        .outcome()
        .schedule()
        .ok_or_else(|| anyhow::anyhow!("internal error: the closed form gave no schedule"))?;
    std::fs::write(path, liquid_model::yaml::write_schedule(&traffic, schedule))
        .with_context(|| format!("cannot write {}", path.display()))
}

fn hyperx_dims(dims: &str) -> anyhow::Result<Vec<usize>> {
    liquid_topology::network_spec::parse_dims(dims, dims).map_err(|_| {
        InputError::of(format!(
            "--dims {dims:?}: give sizes separated by x, like 8x8"
        ))
    })
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
        GenerateWhat::Dragonfly {
            routers,
            hosts_per_router,
            global_links,
            groups,
            output,
            ..
        } => (
            Dragonfly {
                routers,
                hosts_per_router,
                global_per_router: global_links,
                groups,
            }
            .generated()
            .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::DragonflyPlus {
            leaves,
            spines,
            hosts_per_leaf,
            global_links,
            groups,
            output,
            ..
        } => (
            DragonflyPlus {
                leaves,
                spines,
                hosts_per_leaf,
                global_per_spine: global_links,
                groups,
            }
            .generated()
            .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::Rail {
            servers,
            gpus,
            spines,
            pxn,
            output,
            ..
        } => (
            Rail {
                servers,
                gpus,
                spines,
                pxn,
            }
            .generated()
            .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::Hyperx {
            dims,
            hosts_per_router,
            output,
            ..
        } => (
            HyperX {
                dims: hyperx_dims(&dims)?,
                hosts_per_router,
            }
            .generated()
            .map_err(InputError::of)?,
            output,
        ),
        GenerateWhat::PaperFig1 { output } => (liquid_topology::paper::fig1(), output),
        GenerateWhat::Sizes(_) => unreachable!("sizes are generated by generate_sizes"),
        GenerateWhat::Spec(args) => from_spec(&args)?,
        GenerateWhat::TwoClusters {
            n1,
            n2,
            cluster,
            links,
            lanes,
            output,
            links_given,
        } => {
            if output.form == Form::Explicit && !links_given.is_empty() {
                return Err(InputError(format!(
                    "{}: the explicit form has no per-link bandwidth or latency (only one \
                     link_throughput and link_latency for all links), so what was given would be \
                     dropped; write the model with --form network, which keeps every \
                     link's figures",
                    links_given.join(", ")
                ))
                .into());
            }
            (
                two_clusters(n1, n2, cluster.as_deref(), links, lanes)?,
                output,
            )
        }
    })
}

/// Writes a generated model in the output's form, saying on stderr what the form cannot
/// hold: the links' own bandwidth and latency (explicit form), a lattice's cabling by
/// dimension (no form: only `export ibsim SPEC` cables by it).
fn write(g: &Generated, output: GenerateOutput) -> anyhow::Result<ExitCode> {
    let own = g.link_params.iter().filter(|p| p.is_set()).count();
    if output.form == Form::Explicit && own > 0 {
        eprintln!(
            "warning: {own} links have their own bandwidth or latency, which the explicit \
             form cannot hold: dropped from this file (--form network keeps them; every \
             command also takes the spec itself)"
        );
    }
    if output.form == Form::Network && !g.ports.is_empty() {
        eprintln!(
            "note: the file does not keep the lattice's cabling by dimension: `export ibsim` \
             of it numbers the ports in link order, and OpenSM's dor then routes another way; \
             export the spec itself (`liquid export ibsim SPEC`) for dor"
        );
    }
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
