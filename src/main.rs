//! `liquid`: optimal schedules for collective network traffic, with proofs.
//!
//! Exit codes (also in README):
//! - 0: success (a schedule is valid, a report was written);
//! - 1: a negative answer: the schedule, proof or certificate given was rejected;
//! - 2: bad input: unreadable or invalid model or schedule file, bad arguments;
//! - 3: internal error: an engine returned an answer that fails validation, or failed to run;
//! - 4: `crosscheck` found engines contradicting each other.
#![forbid(unsafe_code)]

mod commands;
mod output;
mod progress;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands::EncodeFormat;
use crate::output::Format;

/// Exit code of a negative answer (rejected schedule, proof or certificate).
pub const EXIT_REJECTED: u8 = 1;
/// Exit code of bad input.
pub const EXIT_INPUT: u8 = 2;
/// Exit code of an internal error.
pub const EXIT_INTERNAL: u8 = 3;
/// Exit code of a contradiction between engines.
pub const EXIT_CONTRADICTION: u8 = 4;

/// Optimal schedules for collective network traffic, and proofs of their optimality.
#[derive(Debug, Parser)]
#[command(name = "liquid", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Loads, duration, bottlenecks, liquid throughput and conflict-graph size of a traffic.
    Analyze {
        /// Model file (explicit or network form), or a generated-model spec such as
        /// `t1:4,4,4,4,0,0,2,1`, `fat-tree:4,3`, `ring:6,2`, `torus:4x4,1`, `paper-fig1:`,
        /// `two-clusters:20,40`, `multi-cluster:8,12x1+16x2+4x3`.
        model: PathBuf,
        /// Count the conflict edges even when that takes long (by default they are
        /// counted when it takes at most about 2^31 steps, and `conflict_edges_note` says
        /// why they were not).
        #[arg(long)]
        count_conflicts: bool,
        /// Closed forms only, for traffics too large to hold (`fat-tree:32,3`: 8,192
        /// hosts; `fat-tree:64,3`: 65,536): loads per class of links, Λ, bottlenecks and
        /// liquid throughput, derived without the transfers (see crates/stream/README.md).
        #[arg(long, conflicts_with = "count_conflicts")]
        stream: bool,
        /// With --stream: the link throughput in MB/s for the liquid throughput.
        #[arg(long, value_name = "MB/s", requires = "stream")]
        link_throughput: Option<f64>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Checks a schedule file against a model: valid, liquid, optimal.
    Verify {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
        /// Schedule file (`timeframes:` as lists of transfer ids).
        schedule: PathBuf,
        /// When the schedule is valid but not liquid, settle with SAT whether a shorter one
        /// exists, and write the evidence (an LRAT proof, or the shorter schedule) to DIR.
        #[arg(long, value_name = "DIR")]
        prove: Option<PathBuf>,
        /// Wall-clock limit for --prove, or for --stream (default 3600 s), in seconds.
        #[arg(long, value_parser = commands::parse_seconds)]
        time_limit: Option<std::time::Duration>,
        /// Read SCHEDULE one frame at a time (the compact format `solve --stream` writes)
        /// and check it in memory O(hosts + links), for schedules too big to load: ranges
        /// and shared links per frame, each transfer exactly once by per-host counts and
        /// random fingerprints (a wrong schedule passes with probability below 2^-90 at
        /// 65,536 hosts), Λ frames. MODEL: a fat-tree spec such as `fat-tree:32,3`.
        #[arg(long, conflicts_with = "prove")]
        stream: bool,
        /// With --stream: check only the first K frames, as a prefix of a schedule (for
        /// measurements; "exactly once" and Λ need the whole schedule and are not checked).
        #[arg(long, value_name = "K", requires = "stream")]
        prefix: Option<u64>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Schedules a traffic with one engine and reports the verdict with its evidence.
    Solve(Box<SolveCliArgs>),
    /// Counts (and with --list lists) the full teams of a traffic (004, sections 2-3).
    Teams {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
        /// Also list every full team as transfer ids.
        #[arg(long)]
        list: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Runs several engines on each model and reports any contradiction between them;
    /// records their answers as a baseline, or compares them with one. Each engine run
    /// stops at --time-limit, 60 s by default; an engine stopped by it answers `unknown`.
    Crosscheck(Box<CrosscheckArgs>),
    /// Checks a certificate (a schedule, a proof directory, or both) from files alone and
    /// says exactly what it proves.
    Certify {
        /// Model file.
        model: PathBuf,
        /// A schedule file: the upper-bound witness.
        #[arg(long)]
        schedule: Option<PathBuf>,
        /// A proof directory written by `prove` (or `solve --prove`): the lower-bound witness.
        #[arg(long)]
        proof: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Why a traffic is not liquid: a minimal set of transfers that cannot share Λ
    /// timeframes (removing any one makes them fit), with a checked proof and, for each
    /// of its transfers, a schedule of the rest; the structure when it is a known one.
    Explain {
        /// Model files or generated-model specs (see `analyze --help`); with several, the
        /// list of their reports, in order.
        #[arg(required = true)]
        models: Vec<PathBuf>,
        /// Report disjoint cores until what remains is liquid.
        #[arg(long)]
        all: bool,
        /// Wall-clock limit in seconds per model (default 60). When it comes, the smallest
        /// core found so far is reported with its checked proof, marked `minimal: false`,
        /// or none (`liquid: null`).
        #[arg(long, value_parser = commands::parse_seconds)]
        time_limit: Option<std::time::Duration>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
        /// Run only shard i of n (1 <= i <= n) of the models (items i, i+n, ... in the order
        /// given), writing DIR/explain-shard-i-of-n.json into --out; `liquid merge` prints
        /// the reports of the whole run.
        #[arg(long, value_name = "I/N", requires = "out")]
        shard: Option<liquid_study::Shard>,
        /// With --shard: the folder for the shard file.
        #[arg(long, value_name = "DIR", requires = "shard")]
        out: Option<PathBuf>,
    },
    /// Prints a model in the explicit form (every transfer with its path).
    Expand {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
    },
    /// Writes the scheduling problem for an external solver to stdout: DIMACS CNF of "a
    /// schedule of at most k timeframes exists", or the ILP as a CPLEX-LP file.
    Encode {
        /// Model file.
        model: PathBuf,
        /// The number of timeframes k (dimacs default: the duration Λ; lp default:
        /// DSatur's length, at least Λ).
        #[arg(long)]
        colours: Option<usize>,
        /// DIMACS in the variables of K ≥ k timeframes, the timeframes k..K closed by unit
        /// clauses: the formula a `sat-incremental` proof refutes (its manifest's
        /// `options.frames`).
        #[arg(long, value_name = "K")]
        frames: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = EncodeFormat::Dimacs)]
        format: EncodeFormat,
    },
    /// Proves with SAT that k timeframes do not suffice (exit 1 if they do): writes
    /// DIR/formula.cnf, DIR/proof.lrat and DIR/manifest.yaml.
    Prove {
        /// Model file.
        model: PathBuf,
        /// The number of timeframes k (default: the duration Λ, i.e. prove non-liquidity).
        #[arg(long)]
        colours: Option<usize>,
        /// The proof directory (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Who writes the proof: varisat, or the native colouring search (k from Λ to 32;
        /// its refutation trace becomes LRAT hints by unit propagation on the same CNF).
        #[arg(long, value_enum, default_value_t = commands::Prover::Sat)]
        prover: commands::Prover,
        /// Wall-clock limit in seconds: without a proof by then, the report says `unknown`
        /// (exit 1).
        #[arg(long, value_parser = commands::parse_seconds)]
        time_limit: Option<std::time::Duration>,
        /// Output format of the report.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Checks a proof directory written by `prove` against a model, with a checker that
    /// shares no code with the solver (exit 1 when rejected).
    CheckProof {
        /// Model file.
        model: PathBuf,
        /// The proof directory.
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Writes a generated model (a network with its all-to-all) to stdout or a file.
    Generate {
        #[command(subcommand)]
        what: commands::GenerateWhat,
    },
    /// Runs a schedule on a flow-level network simulator (max-min fair sharing, per-link
    /// latency, per-message overhead) and reports the makespan and throughput.
    Simulate {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
        #[command(flatten)]
        sim: SimCliArgs,
        /// Draw a timeline (frames, link utilisation, throughput) into this SVG file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Run an MPI library's all-to-all between the model's nodes instead of a
        /// schedule: mpi-ompi-1.1.2, mpi-ompi-4.1, mpi-mpich-3.3 (each picks its
        /// algorithm by size), or basic-linear, pairwise, pair, bruck, scattered-K; --size
        /// bytes per pair, every send eager.
        #[arg(long, value_name = "NAME", conflicts_with = "plot")]
        plan: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Mean message latency in heterogeneous multi-cluster systems (paper 002).
    Latency {
        #[command(subcommand)]
        what: commands::LatencyWhat,
    },
    /// Writes a model and a plan for another simulator.
    Export {
        #[command(subcommand)]
        what: ExportWhat,
    },
    /// Joins the shards of a sweep run with --shard i/n (testbed t1, latency study, study two-clusters, crosscheck, explain) into what the
    /// unsharded run writes and prints; checks that every shard is there once and that all
    /// belong to one run (same sweep and options).
    Merge {
        /// Shard files, or folders holding them (their *-shard-*-of-*.json files).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Output directory, as the sweep's own --out.
        #[arg(long)]
        out: PathBuf,
        /// Summary format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Sets an MPI run of an exported plan (`liquid export mpi`, then `liquid-mpi-run`)
    /// beside liquid's prediction of the same plan, step by step (exit 1 when the run
    /// found errors).
    Compare {
        /// The directory `liquid export mpi` wrote.
        dir: PathBuf,
        /// The runtime's report (default: DIR/report.json).
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Testbed sweeps (the Swiss-T1 evaluation of papers 000 and 003).
    Testbed {
        #[command(subcommand)]
        what: TestbedWhat,
    },
    /// Studies on the simulator (paper 001's total exchange between two clusters).
    Study {
        #[command(subcommand)]
        what: StudyWhat,
    },
}

#[derive(Debug, Subcommand)]
enum StudyWhat {
    /// Paper 001 (Figs. 4-6): LG's two-phase total exchange between two clusters against
    /// the direct all-to-all (posted at once, round-robin, a liquid schedule), and LG with
    /// liquid schedules for both phases, simulated over message sizes and node counts.
    /// Writes DIR/two-clusters.csv and SVG charts, prints backbone message counts, where
    /// LG starts to win and the largest speed-ups.
    TwoClusters(Box<TwoClustersArgs>),
}

// `liquid study two-clusters`'s arguments.
#[derive(Debug, clap::Args)]
struct TwoClustersArgs {
    /// Output directory.
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
    links: commands::TwoClusterLinks,
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
    #[arg(long, value_parser = commands::engine_parser(), default_value = "native")]
    engine: String,
    /// Time limit of the engine per traffic, in seconds.
    #[arg(long, value_parser = commands::parse_seconds, default_value = "10")]
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

// `liquid solve`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct SolveCliArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    /// The engine to run.
    #[arg(long, value_parser = commands::engine_parser(), default_value = "native")]
    engine: String,
    #[command(flatten)]
    limits: LimitArgs,
    /// Seed for randomised engines (random) and for the tabu search of sat and portfolio.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// ILP engine only: decide liquidity (K = Λ timeframes, no objective) instead of
    /// minimising the length. Answers `liquid` or `unknown` (HiGHS's "infeasible" is
    /// reported in the stats, not as a proof).
    #[arg(long)]
    decide: bool,
    /// Also write the schedule to this file (schedule-file format; with --stream, the
    /// compact format, or YAML when FILE ends in .yaml or .yml).
    #[arg(long)]
    schedule_out: Option<PathBuf>,
    /// Make the liquid schedule of a structured traffic too large to hold from its
    /// closed form, one frame at a time in memory O(hosts + links), writing each frame
    /// to --schedule-out and validating it as it goes: fat-tree all-to-alls such as
    /// `fat-tree:32,3` (8,192 hosts) and `fat-tree:64,3` (65,536). Default
    /// --time-limit: 3600 s. See crates/stream/README.md.
    #[arg(long, conflicts_with_all = ["prove", "require_proof", "decide", "engine"])]
    stream: bool,
    /// With --stream: make only the first K frames (a prefix, for measurements).
    #[arg(long, value_name = "K", requires = "stream")]
    prefix: Option<usize>,
    /// Write the proof of a lower bound above Λ (non-liquid or optimal answers) into
    /// this directory: formula.cnf, proof.lrat, manifest.yaml. Any engine: the SAT
    /// engine and the portfolio refute the bound themselves, the others' bounds are
    /// refuted with SAT at one timeframe fewer; the directory is read back and checked
    /// before the report calls it a proof.
    #[arg(long, value_name = "DIR")]
    prove: Option<PathBuf>,
    /// Accept checked evidence only: the bound of an optimal or non-liquid answer must
    /// be a bottleneck, a clique or a checked proof (one is produced as with --prove,
    /// in memory). Otherwise the report says how strong the evidence is, and the exit
    /// code is 1.
    #[arg(long)]
    require_proof: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

// `liquid crosscheck`'s arguments.
#[derive(Debug, clap::Args)]
struct CrosscheckArgs {
    /// Model files, folders (every `.yaml` inside) or generated-model specs.
    #[arg(required = true)]
    models: Vec<PathBuf>,
    /// Engines to run, comma-separated (default: native, dsatur, exact, sat, ilp).
    #[arg(long, value_parser = commands::engine_parser(), value_delimiter = ',')]
    engines: Vec<String>,
    /// Record every engine's answer (verdict, length, bound, evidence; no timings) in
    /// FILE: a baseline to compare later runs with.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    record: Option<PathBuf>,
    /// Compare the answers with a recorded baseline: exit 5 when an answer regressed,
    /// 6 when answers only improved (0 with --accept-improvements).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// With --baseline: rewrite the baseline with this run's answers.
    #[arg(long, requires = "baseline")]
    update: bool,
    /// With --baseline: improvements (a shorter schedule, a higher bound, stronger
    /// evidence, a verdict that settles more) exit 0.
    #[arg(long, requires = "baseline")]
    accept_improvements: bool,
    /// Limits for each engine run.
    #[command(flatten)]
    limits: LimitArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = commands::CrossFormat::Table)]
    format: commands::CrossFormat,
    /// Run only shard i of n (1 <= i <= n) of the models (items i, i+n, ... in the order
    /// given, a folder's models in name order), writing DIR/crosscheck-shard-i-of-n.json
    /// into --out; `liquid merge` prints the report of the whole run.
    #[arg(long, value_name = "I/N", requires = "out", conflicts_with_all = ["record", "baseline"])]
    shard: Option<liquid_study::Shard>,
    /// With --shard: the folder for the shard file.
    #[arg(long, value_name = "DIR", requires = "shard")]
    out: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum ExportWhat {
    /// SimGrid: DIR/platform.xml (hosts, links with bandwidth and latency, the model's
    /// routes as one-way `<route>`s) and DIR/plan.json (the plan `simulate` runs).
    Simgrid {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
        #[command(flatten)]
        sim: SimCliArgs,
        /// Write the platform for SimGrid's ns-3 model instead: every link a one-hop route
        /// between its two ends (hosts, and the switches as routers); ns-3 routes over
        /// them itself (`--cfg=network/model:ns-3`).
        #[arg(long)]
        one_hop: bool,
        /// Output directory (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// MPI: per rank, the ordered sends and receives with sizes and steps
    /// (DIR/rank-R.txt, for `liquid-mpi-run` of crates/mpi/runtime), the rank → host map
    /// (DIR/ranks.txt), a hostfile, and DIR/manifest.json with liquid's prediction of the
    /// same plan. Run it with `mpirun -np N liquid-mpi-run DIR`, then `liquid compare DIR`.
    Mpi {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
        #[command(flatten)]
        sim: SimCliArgs,
        /// The plan: the schedule in --mode, all-at-once, round-robin, pairwise, or 001's
        /// LG (two-clusters models).
        #[arg(long, value_enum, default_value_t = commands::MpiPlan::Schedule)]
        plan: commands::MpiPlan,
        /// Bytes the MPI library adds to every message, in the prediction (SimGrid SMPI:
        /// 16). The prediction runs the plan as the runtime does: every rank's operations
        /// in order, and MPI_Barrier as SMPI's default basic linear barrier.
        #[arg(long, value_name = "BYTES", default_value_t = 0.0)]
        envelope: f64,
        /// Sends below this many bytes complete when posted (eager), in the prediction
        /// (SMPI's smpi/send-is-detached-thresh and Open MPI's TCP eager limit: 65536).
        #[arg(long, value_name = "BYTES", default_value_t = 65536)]
        eager_limit: u64,
        /// Output directory (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Write the streamed liquid schedule of a fat-tree all-to-all (`fat-tree:M,N`,
        /// up to 65,536 hosts) frame by frame, validated as it goes, in memory O(hosts +
        /// links): --mode frames, --size for every transfer, a closed-form prediction.
        /// Default --time-limit: 3600 s. See crates/stream/README.md.
        #[arg(long)]
        stream: bool,
    },
}

/// What to simulate and how, shared by `simulate` and `export simgrid`.
#[derive(Debug, Clone, clap::Args)]
struct SimCliArgs {
    /// A schedule file to run.
    #[arg(long)]
    schedule: Option<PathBuf>,
    /// Run the schedule of this engine (default: native, except all-at-once, which
    /// without a schedule posts the whole traffic at once).
    #[arg(long, value_parser = commands::engine_parser())]
    engine: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Seed for randomised engines.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How the schedule runs: frames (a barrier between timeframes), async (each sender
    /// moves on when its transfer ends), all-at-once (everything posted at time 0).
    #[arg(long, value_enum, default_value_t = commands::SimMode::Frames)]
    mode: commands::SimMode,
    /// Message size in bytes, for every transfer.
    #[arg(long, default_value_t = 1e6)]
    size: f64,
    /// YAML mapping `transfer id: bytes` for per-transfer sizes (others use --size).
    #[arg(long, value_name = "FILE")]
    sizes: Option<PathBuf>,
    /// Software overhead per message, in seconds.
    #[arg(long, default_value_t = 0.0)]
    overhead: f64,
    /// Link bandwidth in MB/s for links without their own (overrides link_throughput).
    #[arg(long, value_name = "MB/s")]
    link_throughput: Option<f64>,
    /// Link latency in seconds for links without their own (overrides link_latency).
    #[arg(long, value_name = "SECONDS")]
    link_latency: Option<f64>,
}

impl SimCliArgs {
    fn args(&self) -> anyhow::Result<liquid_study::simulate::SimArgs> {
        Ok(liquid_study::simulate::SimArgs {
            schedule: self.schedule.clone(),
            engine: self.engine.as_deref().map(commands::engine).transpose()?,
            request: liquid_engine::Request {
                limits: self.limits.limits(),
                seed: self.seed,
                ..Default::default()
            },
            mode: self.mode.mode(),
            size: self.size,
            sizes: self.sizes.clone(),
            overhead: self.overhead,
            link_throughput: self.link_throughput,
            link_latency: self.link_latency,
        })
    }
}

#[derive(Debug, Subcommand)]
enum TestbedWhat {
    /// Swiss-T1: all 5^8 allocation vectors, grouped into classes by (nodes, liquid
    /// throughput); for each class's smallest allocation: liquid throughput, round-robin,
    /// DSatur and the native search. Writes DIR/t1-classes.csv and SVG plots, prints a
    /// summary.
    T1 {
        /// Output directory.
        #[arg(long, default_value = "t1-testbed")]
        out: PathBuf,
        /// Run only shard i of n (1 <= i <= n; classes i, i+n, ...), writing
        /// DIR/t1-testbed-shard-i-of-n.json; join the shards with `liquid merge`.
        #[arg(long)]
        shard: Option<liquid_study::testbed::Shard>,
        /// Wall-clock limit of the native search per class, in seconds.
        #[arg(long, value_parser = commands::parse_seconds, default_value = "10")]
        time_limit: std::time::Duration,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Also simulate each class (liquid schedule and round-robin frame by frame, and
        /// all-at-once) with messages of this many bytes: writes DIR/t1-simulated.csv.
        #[arg(long, value_name = "BYTES")]
        sim_size: Option<f64>,
        /// Link latency in seconds for --sim-size.
        #[arg(long, default_value_t = 0.0, requires = "sim_size")]
        sim_latency: f64,
        /// Per-message software overhead in seconds for --sim-size.
        #[arg(long, default_value_t = 0.0, requires = "sim_size")]
        sim_overhead: f64,
        /// Summary format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
}

/// `--time-limit` and `--node-limit`, shared by the commands that run engines.
#[derive(Debug, Clone, clap::Args)]
struct LimitArgs {
    /// Wall-clock limit in seconds (fractions allowed).
    #[arg(long, value_parser = commands::parse_seconds)]
    time_limit: Option<std::time::Duration>,
    /// Search-node limit, for engines that count nodes.
    #[arg(long)]
    node_limit: Option<u64>,
}

impl LimitArgs {
    fn limits(&self) -> liquid_model::Limits {
        liquid_model::Limits {
            time: self.time_limit,
            nodes: self.node_limit,
        }
    }
}

/// An error of the user's input (exit code 2), as opposed to an internal error.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

impl InputError {
    /// A library's refusal of the user's input, as an input error (exit code 2) carrying
    /// the library's message.
    pub fn of(e: impl std::fmt::Display) -> anyhow::Error {
        InputError(e.to_string()).into()
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Analyze {
            model,
            stream: true,
            link_throughput,
            format,
            ..
        } => commands::analyze_stream(&model, link_throughput, format),
        Command::Analyze {
            model,
            count_conflicts,
            format,
            ..
        } => commands::analyze(&model, count_conflicts, format),
        Command::Verify {
            model,
            schedule,
            stream: true,
            prefix,
            time_limit,
            format,
            ..
        } => commands::verify_stream(&model, &schedule, prefix, time_limit, format),
        Command::Verify {
            model,
            schedule,
            prove,
            time_limit,
            format,
            ..
        } => commands::verify(&model, &schedule, prove.as_deref(), time_limit, format),
        Command::Expand { model } => commands::expand(&model),
        Command::Explain {
            models,
            all,
            time_limit,
            format,
            shard,
            out,
        } => commands::explain(&models, all, time_limit, format, shard.zip(out.as_deref())),
        Command::Certify {
            model,
            schedule,
            proof,
            format,
        } => commands::certify(&model, schedule.as_ref(), proof.as_ref(), format),
        Command::Teams {
            model,
            list,
            format,
        } => commands::teams(&model, list, format),
        Command::Crosscheck(args) => crosscheck(*args),
        Command::Encode {
            model,
            colours,
            frames,
            format,
        } => commands::encode(&model, colours, frames, format),
        Command::Prove {
            model,
            colours,
            out,
            prover,
            time_limit,
            format,
        } => commands::prove(
            &model,
            colours,
            &out,
            commands::ProveOptions { prover, time_limit },
            format,
        ),
        Command::CheckProof { model, dir, format } => commands::check_proof(&model, &dir, format),
        Command::Solve(args) => commands::solve(&args),
        other => run_studies(other),
    }
}

/// The commands that generate, simulate, export and sweep.
fn run_studies(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Generate { what } => commands::generate(what),
        Command::Latency { what } => commands::latency(what),
        Command::Simulate {
            model,
            sim,
            plot: _, // clap refuses --plot with --plan
            plan: Some(plan),
            format,
        } => commands::simulate_mpi(&model, &sim.args()?, &plan, format),
        Command::Simulate {
            model,
            sim,
            plot,
            plan: None,
            format,
        } => commands::simulate(&model, &sim.args()?, plot.as_deref(), format),
        Command::Export {
            what:
                ExportWhat::Simgrid {
                    model,
                    sim,
                    one_hop,
                    out,
                },
        } => commands::export_simgrid(&model, &sim.args()?, one_hop, &out),
        Command::Export {
            what:
                ExportWhat::Mpi {
                    model,
                    sim,
                    plan,
                    envelope,
                    eager_limit,
                    out,
                    stream,
                },
        } => match stream {
            true => commands::export_mpi_stream(&model, &sim.args()?, plan, &out),
            false => commands::export_mpi(
                &model,
                &sim.args()?,
                plan,
                liquid_mpi::RuntimeModel {
                    envelope,
                    eager_limit,
                },
                &out,
            ),
        },
        Command::Compare {
            dir,
            report,
            format,
        } => commands::compare_mpi(&dir, report.as_deref(), format),
        Command::Testbed { what } => testbed(what),
        Command::Merge {
            shards,
            out,
            format,
        } => commands::merge(&shards, &out, format),
        Command::Study {
            what: StudyWhat::TwoClusters(args),
        } => study_two_clusters(*args),
        _ => unreachable!("run dispatches the other commands"),
    }
}

/// `liquid testbed ...`.
fn testbed(what: TestbedWhat) -> anyhow::Result<ExitCode> {
    match what {
        TestbedWhat::T1 {
            out,
            shard,
            time_limit,
            jobs,
            sim_size,
            sim_latency,
            sim_overhead,
            format,
        } => {
            if let Some(j) = jobs {
                liquid_study::testbed::set_workers(j)?;
            }
            let sim = sim_size.map(|size| liquid_study::testbed::SimParams {
                size,
                latency: sim_latency,
                overhead: sim_overhead,
            });
            commands::testbed_t1(&out, shard, time_limit, sim, format)
        }
    }
}

/// `liquid study two-clusters`.
fn study_two_clusters(a: TwoClustersArgs) -> anyhow::Result<ExitCode> {
    let links = a.links;
    let mut args = liquid_study::two_clusters::StudyArgs {
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
        engine: commands::engine(&a.engine)?,
        time_limit: a.time_limit,
        markdown: a.markdown,
    };
    args.fit_to_cluster()?;
    commands::study_two_clusters(&args, a.shard, a.format)
}

/// `liquid crosscheck`.
fn crosscheck(a: CrosscheckArgs) -> anyhow::Result<ExitCode> {
    let base = commands::BaselineArgs {
        record: a.record,
        baseline: a.baseline,
        update: a.update,
        accept_improvements: a.accept_improvements,
    };
    let request = liquid_engine::Request {
        limits: a.limits.limits(),
        ..Default::default()
    };
    let engines: Vec<&'static dyn liquid_engine::Engine> = a
        .engines
        .iter()
        .map(|e| commands::engine(e))
        .collect::<anyhow::Result<_>>()?;
    if let (Some(shard), Some(out)) = (a.shard, &a.out) {
        return commands::crosscheck_shard(&a.models, &engines, &request, a.format, shard, out);
    }
    commands::crosscheck(&a.models, &engines, &request, a.format, &base)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!(
                "error: {}",
                liquid_model::display::shorten_numbers(&format!("{e:#}"))
            );
            // A file that cannot be read or written (a directory, a full disk, a closed
            // pipe, no permission) is the user's to fix, like bad input.
            let input = e.downcast_ref::<liquid_model::yaml::LoadError>().is_some()
                || e.downcast_ref::<InputError>().is_some()
                || e.downcast_ref::<liquid_proof::ProofError>().is_some()
                || e.downcast_ref::<liquid_study::StudyError>()
                    .is_some_and(liquid_study::StudyError::is_input)
                || e.chain()
                    .any(|c| c.downcast_ref::<std::io::Error>().is_some());
            ExitCode::from(if input { EXIT_INPUT } else { EXIT_INTERNAL })
        }
    }
}
