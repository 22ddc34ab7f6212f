//! `liquid study two-clusters`: paper 001's total exchange between two clusters on the
//! simulator (`liquid_study::two_clusters`).

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_study::two_clusters::{self, StudyArgs};

use crate::output::{emit, Format};

// `liquid study two-clusters`'s arguments.
#[derive(Debug, clap::Args)]
pub struct TwoClustersArgs {
    /// Output directory (new or empty, or one liquid wrote, whose earlier files are
    /// replaced; with --shard, the shard folder).
    #[arg(long, default_value = "two-clusters-study")]
    out: PathBuf,
    /// Message sizes 2^K for K from the first to the last exponent, like 0..24.
    #[arg(long, default_value = "0..24", value_parser = liquid_study::two_clusters::parse_exponents)]
    size_exponents: (u32, u32),
    /// Cases of the size sweep, N1+N2 separated by commas.
    #[arg(long, default_value = "30+30,20+40", value_parser = liquid_study::two_clusters::parse_cases)]
    size_cases: std::vec::Vec<(usize, usize)>,
    /// Node sweep with n1 = n2: the values of n1.
    #[arg(long, value_delimiter = ',', default_value = "5,10,15,20,25,30,35,40")]
    equal: Vec<usize>,
    /// Node sweep with n2 = 2·n1: the values of n1.
    #[arg(long, value_delimiter = ',', default_value = "5,10,15,20,25")]
    double: Vec<usize>,
    /// Skip the node sweeps (sizes only).
    #[arg(long)]
    no_node_sweep: bool,
    /// Message sizes of the node sweeps, bytes.
    #[arg(long, value_delimiter = ',', default_value = "65536,524288")]
    node_sizes: Vec<f64>,
    #[command(flatten)]
    links: super::TwoClusterLinks,
    /// Software overhead per message, s.
    #[arg(long, default_value_t = 0.0)]
    overhead: f64,
    /// Bytes in flight per connection (TCP window): a message's rate is at most
    /// window / (2 · route latency); 0: no bound. Default: Open MPI's TCP socket buffers
    /// (btl_tcp_sndbuf/rcvbuf, 128 KiB).
    #[arg(long, default_value_t = 131072.0)]
    window: f64,
    /// Messages of this many bytes or more are Open MPI ob1 rendezvous (first fragment,
    /// ACK, rest) and complete only at delivery; 0: every message is eager.
    /// Default: Open MPI's TCP eager limit (btl_tcp_eager_limit, 64 KiB).
    #[arg(long, default_value_t = 65536.0)]
    eager_limit: f64,
    /// Software overhead per message paid in turn by each sender (LogGP o), s.
    #[arg(long, default_value_t = 0.0)]
    serial_overhead: f64,
    /// Every flow gets the same share of a link (default: TCP's RTT unfairness as
    /// SimGrid's CM02 models it, shares in inverse proportion to the route latency).
    #[arg(long)]
    equal_sharing: bool,
    /// Backbone lanes of the scheduling model (default: backbone / node bandwidth).
    #[arg(long)]
    lanes: Option<usize>,
    /// Each cluster's topology, a spec like fat-tree:4,2 (default: a crossbar). Both
    /// clusters then have its host count H: the size sweep runs H+H, the node sweep
    /// the one point n1 = n2 = H (no n2 = 2·n1 sweep); the liquid schedules are still
    /// computed on the crossbar model, the simulation routes through the topology.
    #[arg(long, conflicts_with_all = ["size_cases", "equal", "double"])]
    cluster: Option<String>,
    /// The engine that computes the liquid schedules (DSatur's schedule is used when
    /// it finds none).
    #[arg(long, value_parser = super::engine_parser(), default_value = "native")]
    engine: String,
    /// Time limit of the engine per traffic, and of each simulation, in seconds: a
    /// simulation stopped by it has no makespan (an empty CSV cell, left out of the charts
    /// and comparisons; listed in the summary's stopped_by_time_limit, a warning, exit 0).
    #[arg(long, value_parser = super::parse_seconds, default_value = "10")]
    time_limit: std::time::Duration,
    /// Also write the report as Markdown into this file.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Run only shard i of n (1 <= i <= n) of the runs (every case at every message size
    /// is one item: items i, i+n, ...), writing DIR/two-clusters-shard-i-of-n.json into
    /// --out; join the shards with `liquid merge` (it writes the Markdown report into its
    /// --out).
    #[arg(long, value_name = "I/N")]
    shard: Option<liquid_study::Shard>,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid study two-clusters`: the summary on stdout (or, one shard, what was written on
/// stderr); exit 3 when the plans' backbone message counts are not 001's.
pub fn two_clusters(a: TwoClustersArgs) -> anyhow::Result<ExitCode> {
    let links = a.links;
    let mut args = StudyArgs {
        out: a.out,
        size_exponents: a.size_exponents,
        size_cases: a.size_cases,
        equal: if a.no_node_sweep { vec![] } else { a.equal },
        double: if a.no_node_sweep { vec![] } else { a.double },
        node_sizes: a.node_sizes,
        setting: liquid_sim::study::Setting {
            backbone_mb_s: links.backbone_bandwidth,
            backbone_latency_s: links.backbone_latency,
            node_mb_s: links.node_bandwidth,
            node_latency_s: links.node_latency,
            overhead_s: a.overhead,
            lanes: a.lanes,
            cluster: a.cluster,
            transport: liquid_sim::Transport {
                window_bytes: a.window,
                eager_limit_bytes: (a.eager_limit != 0.0).then_some(a.eager_limit),
                serial_overhead_s: a.serial_overhead,
                rtt_unfair: !a.equal_sharing,
            },
        },
        engine: super::engine(&a.engine)?,
        time_limit: a.time_limit,
        markdown: a.markdown,
    };
    args.fit_to_cluster()?;
    let summary = match two_clusters::run(&args, a.shard)? {
        liquid_study::Swept::Full(summary) => summary,
        liquid_study::Swept::Shard(written) => {
            eprintln!("{written}");
            return Ok(ExitCode::SUCCESS);
        }
    };
    emitted(&summary, a.format)
}

/// The summary of a whole two-cluster study (run or merged) on stdout; exit 3 when the
/// plans' backbone message counts are not 001's.
pub fn emitted(summary: &two_clusters::Summary, format: Format) -> anyhow::Result<ExitCode> {
    emit(summary, format)?;
    warn_stopped(summary.stopped_by_time_limit());
    if !summary.counts_match() {
        eprintln!("error: backbone message counts differ from 2·max(n1, n2) and 2·n1·n2");
        return Ok(ExitCode::from(crate::EXIT_INTERNAL));
    }
    Ok(ExitCode::SUCCESS)
}

// `liquid study routing`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RoutingArgs {
    /// Run folders, each one fabric routed by one engine: topology.txt (`ibnetdiscover`;
    /// else topology-p.txt) and opensm-lfts.dump (else dump_fts.txt), as `scripts/ib-local
    /// run` writes them; the fabric is the folder's parent's name, the engine its own
    /// (runs/fat-tree-8-3/ftree); engine.txt, when there, the engine OpenSM used. A folder
    /// without these files is searched one and two levels down.
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Output directory: routing.csv and, per fabric, SVG charts (new or empty, or one
    /// liquid wrote, whose earlier files are replaced; with --shard, the shard folder).
    #[arg(long, default_value = "routing-study")]
    out: PathBuf,
    /// Allocation sizes, percent of the fabric's hosts: each gives random subsets and
    /// contiguous blocks (host name order, as Slurm's default placement) of that size.
    #[arg(long, value_delimiter = ',', default_value = "25,50")]
    fractions: Vec<u32>,
    /// Seeds per allocation size and kind (1..=SEEDS); the whole machine is one more row.
    #[arg(long, default_value_t = liquid_study::routing::DEFAULT_SEEDS)]
    seeds: u64,
    /// The engine that schedules each all-to-all (DSatur's schedule is simulated when it
    /// finds none in the time limit).
    #[arg(long, value_parser = super::engine_parser(), default_value = liquid_engine::DEFAULT_ENGINE)]
    engine: String,
    /// Time limit of each engine run (the schedule search, and DSatur's when it runs) and
    /// of each simulation, in seconds (fractions allowed; default 10 s): a simulation
    /// stopped by it has no makespan (null, an empty CSV cell, left out of the charts and
    /// the means; listed in the summary's stopped_by_time_limit, a warning, exit 0).
    #[arg(long, value_parser = super::parse_seconds, default_value = "10")]
    time_limit: std::time::Duration,
    /// Whole bytes each host sends each other host in the simulations (`4096`, `64KiB`;
    /// default 1 MiB).
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = super::parse_bytes,
        default_value_t = liquid_study::routing::DEFAULT_SIZE
    )]
    size: u64,
    /// Link bandwidth of the simulations, MB/s (default: 4X EDR InfiniBand, 100 Gb/s).
    #[arg(long, default_value_t = liquid_study::routing::DEFAULT_LINK_MB_S)]
    link_throughput: f64,
    /// Link latency of the simulations, s.
    #[arg(long, default_value_t = 0.0)]
    link_latency: f64,
    /// The machine's hosts, of which the allocations are drawn, in Slurm's hostlist
    /// syntax (`n[001-128]`, e.g. `sinfo -p compute -h -o %N`): storage, login and
    /// gateway nodes left out. Default: every adapter of the fabric.
    #[arg(long, value_name = "LIST", conflicts_with = "hostfile")]
    hosts: Option<String>,
    /// The machine's hosts, one per line (the first word: Open MPI host files work).
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// Worker threads, 1 to 4096 (default: one per core); never more than the rows to
    /// run.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    jobs: Option<u64>,
    /// Run only shard i of n (1 <= i <= n) of the rows (items i, i+n, ... of the runs ×
    /// allocations in order), writing DIR/routing-study-shard-i-of-n.json into --out;
    /// join the shards with `liquid merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<liquid_study::Shard>,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid study routing`: the summary on stdout (or, one shard, what was written on
/// stderr); a line per row on stderr as it finishes.
pub fn routing(a: RoutingArgs) -> anyhow::Result<ExitCode> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let args = liquid_study::routing::RoutingArgs {
        runs: a.runs,
        out: a.out,
        fractions: a.fractions,
        seeds: a.seeds,
        engine: super::engine(&a.engine)?,
        time_limit: a.time_limit,
        // Exact: at most 2^53 (liquid_alltoallv::sizes::MAX_BYTES).
        size: a.size as f64,
        link_mb_s: a.link_throughput,
        link_latency: a.link_latency,
        hosts: super::fabric::host_selection(a.hosts.as_deref(), a.hostfile.as_deref())?
            .unwrap_or(liquid_fabric::hosts::Selection::All),
    };
    let (runs, total) = liquid_study::routing::plan(&args)?;
    let todo = a.shard.map_or(total, |s| s.item_count(total));
    if let Some(j) = a.jobs {
        liquid_study::testbed::set_workers((j as usize).min(todo))?;
    }
    eprintln!(
        "study routing: {} runs, {total} rows{}",
        runs.len(),
        a.shard
            .map(|s| format!(", shard {s}: {todo} rows"))
            .unwrap_or_default()
    );
    let done = AtomicUsize::new(0);
    let start = std::time::Instant::now();
    let tick = |key: &str| {
        let k = done.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "study routing: [{k}/{todo}] {key} ({:.1} s)",
            start.elapsed().as_secs_f64()
        );
    };
    match liquid_study::routing::run(&args, a.shard, &tick)? {
        liquid_study::Swept::Full(summary) => return routing_emitted(&summary, a.format),
        liquid_study::Swept::Shard(written) => eprintln!("{written}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary of a whole routing study (run or merged) on stdout, with a warning when
/// the time limit stopped simulations (exit 0, as `study two-clusters`).
pub fn routing_emitted(
    summary: &liquid_study::routing::Summary,
    format: Format,
) -> anyhow::Result<ExitCode> {
    emit(summary, format)?;
    warn_stopped(&summary.stopped_by_time_limit);
    Ok(ExitCode::SUCCESS)
}

/// The warning of a study whose simulations the time limit stopped (none: nothing).
fn warn_stopped(stopped: &[String]) {
    if let Some(first) = stopped.first() {
        eprintln!(
            "warning: the time limit stopped {} simulations, which have no makespan (first: \
             {first}); raise --time-limit for them",
            stopped.len()
        );
    }
}
