//! `liquid`: optimal schedules for collective network traffic, with proofs.
//!
//! Exit codes, one rule for every command (the table per command is
//! docs/src/reference/exit-codes.md):
//! - 0: the answer holds (a schedule is valid, a proof checks, a report was written);
//! - 1: the answer is negative or the input schedule is rejected: a schedule invalid for
//!   its model (every problem listed), a proof or certificate rejected, a schedule shown
//!   not optimal under `verify --prove`, `prove` finding that k timeframes suffice, a
//!   `crosscheck` baseline that a model change, a regression or an improvement differs
//!   from;
//! - 2: the input cannot be read: a missing, unreadable or invalid model, schedule or
//!   proof file, bad arguments, an output that cannot be written;
//! - 3: an internal fault: an engine's answer fails validation or engines contradict each
//!   other, an engine failed to run, a panic.
#![forbid(unsafe_code)]

mod commands;
mod output;
mod progress;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands as c;

/// Exit code of a negative answer or a rejected input schedule (a schedule, proof or
/// certificate rejected; a schedule not optimal; a baseline differed from).
pub const EXIT_REJECTED: u8 = 1;
/// Exit code of input that cannot be read (files, arguments, outputs not writable).
pub const EXIT_INPUT: u8 = 2;
/// Exit code of an internal fault (a wrong answer, a contradiction, a panic).
pub const EXIT_INTERNAL: u8 = 3;

/// Bytes per message of `simulate` and `export` without --size.
const DEFAULT_SIZE: u64 = 1_000_000;

/// `generate --help`: what each spec builds, and how large it is.
const GENERATE_ABOUT: &str = "Writes a generated model (a network with its all-to-all) to stdout or a file.

Every command that takes a MODEL also takes the spec of a generated network in its place:

  spec                      hosts                  switches                  example
  fat-tree:M,N              2(M/2)^N               (2N-1)(M/2)^(N-1)         fat-tree:4,3: 16 hosts, 20 switches
  ring:S,H                  S*H                    S                         ring:6,2: 12 hosts, 6 switches
  mesh:AxB,H / torus:AxB,H  A*B*H                  A*B                       torus:4x4,1: 16 hosts, 16 switches
  two-clusters:N1,N2        N1+N2                  2                         two-clusters:20,40: 60 hosts
  multi-cluster:M,LIST      sum of 2(M/2)^n_i      ICN1, ECN1 and ICN2 trees multi-cluster:4,2x1+3x2: 32 hosts
  t1:n0,...,n7              n0+...+n7 (of 32)      8                         t1:4,4,4,4,0,0,2,1: 19 hosts
  paper-fig1:               10 (5 send, 5 receive) 2
  dragonfly:A,P,H[,G]       A*P*G (G = A*H+1)      A*G                       dragonfly:4,2,2: 72 hosts, 36 routers
  dragonfly-plus:L,S,P,H[,G] L*P*G                 (L+S)*G                   dragonfly-plus:2,2,2,2: 20 hosts
  rail:S,G[,K][,pxn]        S*G (S servers, G GPUs) G+K+S*(G+1)              rail:32,8: 256 GPUs
  hyperx:S1xS2...,T         T*S1*S2*...            S1*S2*...                 hyperx:16x16,4: 1,024 hosts

The traffic is the all-to-all of the hosts: N hosts give N(N-1) transfers (t1 includes each
host's transfer to itself, as papers 000 and 003 do: N^2).

`liquid generate SPEC [--out FILE] [--form explicit|network]` writes the model of a spec
(`liquid generate fat-tree:4,3 --form network`); the commands below name a generator and
its parameters as options, with the options a spec has no place for.";

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
    Analyze(c::AnalyzeArgs),
    /// Checks a schedule file against a model: valid, liquid, optimal.
    Verify(c::VerifyArgs),
    /// Schedules a traffic (by default with the portfolio of engines; one engine with
    /// --engine) and reports the verdict with its evidence.
    Solve(Box<c::SolveArgs>),
    /// Counts (and with --list lists) the full teams of a traffic (004, sections 2-3).
    /// --time-limit (default 300 s) bounds the whole command: past it the report counts
    /// (and lists) the teams found so far, a lower bound, with a `stopped` section saying
    /// how far the enumeration got (a warning, exit 0).
    Teams(c::TeamsArgs),
    /// Runs several engines on each model and reports any contradiction between them;
    /// records their answers as a baseline, or compares them with one. Each engine run
    /// stops at --time-limit, 60 s by default; an engine stopped by it answers `unknown`.
    /// With --sizes, each engine run and each simulation stops at --time-limit, 10 s by
    /// default; a simulation stopped by it has a null figure (a warning, exit 0).
    Crosscheck(Box<c::CrosscheckArgs>),
    /// Checks a certificate (a schedule, a proof directory, or both) from files alone and
    /// says exactly what it proves.
    Certify(c::CertifyArgs),
    /// Why a traffic is not liquid: a minimal set of transfers that cannot share Λ
    /// timeframes (removing any one makes them fit), with a checked proof and, for each
    /// of its transfers, a schedule of the rest; the structure when it is a known one.
    Explain(c::ExplainArgs),
    /// Prints a model in the explicit form (every transfer with its path).
    Expand {
        /// Model file, or a generated-model spec (see `analyze --help`).
        model: PathBuf,
    },
    /// Writes the scheduling problem for an external solver to stdout: DIMACS CNF of "a
    /// schedule of at most k timeframes exists", or the ILP as a CPLEX-LP file.
    Encode(c::EncodeArgs),
    /// Proves with SAT that k timeframes do not suffice (exit 1 if they do): writes
    /// DIR/formula.cnf, DIR/proof.lrat and DIR/manifest.yaml.
    Prove(c::ProveArgs),
    /// Checks a proof directory written by `prove` against a model, with a checker that
    /// shares no code with the solver (exit 1 when rejected).
    CheckProof(c::CheckProofArgs),
    /// Writes a generated model (a network with its all-to-all) to stdout or a file.
    #[command(long_about = GENERATE_ABOUT)]
    Generate {
        #[command(subcommand)]
        what: c::GenerateWhat,
    },
    /// Runs a schedule on a flow-level network simulator (max-min fair sharing, per-link
    /// latency, per-message overhead) and reports the makespan and throughput.
    /// --time-limit (default 300 s) bounds the whole command, the engine and the
    /// simulation (with --plan too): past it the report says where the simulation stopped
    /// (makespan_s null, a `stopped` section; a warning, exit 0).
    Simulate(Box<c::SimulateArgs>),
    /// Mean message latency in heterogeneous multi-cluster systems (paper 002).
    Latency {
        #[command(subcommand)]
        what: c::LatencyWhat,
    },
    /// Reads a real fabric into a model: `import ib TOPOLOGY LFTS` follows every host
    /// pair's route through an InfiniBand subnet manager's forwarding tables.
    Import {
        #[command(subcommand)]
        what: ImportWhat,
    },
    /// Writes a model and a plan for another tool: an MPI program (`mpi`), SimGrid
    /// (`simgrid`), an ibsim fabric (`ibsim`).
    Export {
        #[command(subcommand)]
        what: ExportWhat,
    },
    /// Joins the shards of a sweep run with --shard i/n (testbed t1, latency study, study two-clusters, study routing, crosscheck, explain) into what the
    /// unsharded run writes and prints; checks that every shard is there once and that all
    /// belong to one run (same sweep and options).
    Merge(c::MergeArgs),
    /// Sets an MPI run of an exported plan (`liquid export mpi`, then `liquid-mpi-run`)
    /// beside liquid's prediction of the same plan, step by step (exit 1 when the run
    /// found errors).
    Compare(c::CompareArgs),
    /// Testbed sweeps (the Swiss-T1 evaluation of papers 000 and 003).
    Testbed {
        #[command(subcommand)]
        what: TestbedWhat,
    },
    /// Studies: paper 001's total exchange between two clusters on the simulator, and
    /// OpenSM routing engines on imported fabrics (`study routing`).
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
    /// LG starts to win and the largest speed-ups. --time-limit (default 10 s) bounds each
    /// engine run and each simulation: a simulation stopped by it has no makespan (a
    /// warning, exit 0).
    TwoClusters(Box<c::TwoClustersArgs>),
    /// Which InfiniBand routing engine serves a job's all-to-all: per fabric × OpenSM
    /// engine (folders of collected topology and forwarding tables, see `scripts/ib-local`)
    /// × allocation (the whole machine, random subsets and contiguous blocks of a share of
    /// the hosts, seeded): Λ, the throughput against full bisection (N − 1), the schedule
    /// with its evidence, and simulated makespans of the schedule, all at once and Open
    /// MPI's pairwise exchange. Writes DIR/routing.csv and SVG charts; see
    /// docs/src/infiniband.md. --time-limit (default 10 s) bounds each engine run and each
    /// simulation: a simulation stopped by it has no makespan (a warning, exit 0).
    Routing(Box<c::RoutingArgs>),
}

#[derive(Debug, Subcommand)]
enum ExportWhat {
    /// SimGrid: DIR/platform.xml (hosts, links with bandwidth and latency, the model's
    /// routes as one-way `<route>`s) and DIR/plan.json (the plan `simulate` runs).
    Simgrid(Box<c::ExportSimgridArgs>),
    /// MPI: per rank, the ordered sends and receives with sizes and steps
    /// (DIR/rank-R.txt, for `liquid-mpi-run` of crates/mpi/runtime), the rank → host map
    /// (DIR/ranks.txt), a hostfile, and DIR/manifest.json with liquid's prediction of the
    /// same plan. Run it with `mpirun -np N liquid-mpi-run DIR`, then `liquid compare DIR`.
    /// --time-limit (default 300 s) bounds the schedule's engine and the prediction
    /// (with --plan pieces or whole, the schedule within 10 s by default, as `solve
    /// --sizes`): past it the manifest's prediction says where it stopped (total_s null;
    /// a warning, exit 0), and the plan is still built, checked and written, which the
    /// limit does not stop (about 10 s at 1,056 hosts, release build; --stream stops
    /// there too).
    Mpi(Box<c::ExportMpiArgs>),
    /// ibsim: the network of a network-form model or generated spec as a net file for
    /// ibsim, InfiniBand's fabric simulator, so that OpenSM can route it (scripts/ib-local).
    Ibsim(Box<c::ExportIbsimArgs>),
}

#[derive(Debug, Subcommand)]
enum ImportWhat {
    /// InfiniBand: TOPOLOGY is `ibnetdiscover` output (default form or -p), LFTS OpenSM's
    /// opensm-lfts.dump or `dump_fts`/`ibroute` output. Writes a network-form model:
    /// switches (S-<GUID>) and adapters (named by the first word of their node
    /// description), one link per port and direction, every selected host pair's route
    /// as the tables give it, and their all-to-all. See docs/src/infiniband.md.
    Ib(Box<c::ImportIbArgs>),
}

#[derive(Debug, Subcommand)]
enum TestbedWhat {
    /// Swiss-T1: all 5^8 allocation vectors, grouped into classes by (nodes, liquid
    /// throughput); for each class's smallest allocation: liquid throughput, round-robin,
    /// DSatur and the native search. Writes DIR/t1-classes.csv and SVG plots, prints a
    /// summary.
    T1(c::T1Args),
}

/// What to simulate and how, shared by `simulate` and `export simgrid`.
#[derive(Debug, Clone, clap::Args)]
struct SimCliArgs {
    /// A schedule file to run.
    #[arg(long)]
    schedule: Option<PathBuf>,
    /// Run the schedule of this engine (default: the closed-form liquid schedule of a
    /// generated dragonfly, Dragonfly+, rail or HyperX that has one; otherwise native's
    /// liquid schedule within half the time limit, or, when native finds the traffic
    /// non-liquid or does not decide it, the portfolio's best schedule within half the
    /// time left; from 100,000 transfers up, the portfolio's within half the time limit;
    /// all-at-once without a schedule posts the whole traffic at once).
    #[arg(long, value_parser = c::engine_parser())]
    engine: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Seed of the engine that schedules (default 0), for the engines that draw at random
    /// (see `solve --help`); refused with --schedule, with --plan runs of an MPI
    /// library's algorithm, and with an engine whose answer is the same for every seed.
    #[arg(long, conflicts_with = "schedule")]
    seed: Option<u64>,
    /// How the schedule runs: frames (a barrier between timeframes), async (each sender
    /// moves on when its transfer ends), all-at-once (everything posted at time 0).
    #[arg(long, value_enum, default_value_t = c::SimMode::Frames)]
    mode: c::SimMode,
    /// Message size in whole bytes (`4096`, `64KiB`, `1MB`; at least 1), for every
    /// transfer (default 1000000); with --sizes, for the transfers the file leaves out.
    #[arg(long, value_name = "BYTES", value_parser = c::parse_bytes)]
    size: Option<u64>,
    /// Message sizes per transfer: a CSV `src,dst,bytes` (header optional; hosts by name or
    /// by index in the order the model's transfers first name them, the ranks of
    /// `export mpi`'s ranks.txt) or a YAML mapping `transfer
    /// id: bytes`; positive whole bytes, each pair once. A transfer the file leaves out is
    /// an error unless --size is given: then it takes --size. See docs/src/alltoallv.md.
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
        let engine = self.engine.as_deref().map(c::engine).transpose()?;
        if let Some(e) = engine {
            c::seeded(e, self.seed)?;
            c::node_limited(e, self.limits.node_limit)?;
        }
        if self.schedule.is_some() && self.limits.node_limit.is_some() {
            return Err(
                InputError("--schedule runs no engine: give no --node-limit".into()).into(),
            );
        }
        Ok(liquid_study::simulate::SimArgs {
            schedule: self.schedule.clone(),
            engine,
            request: liquid_engine::Request {
                limits: self.limits.or_default(),
                seed: self.seed.unwrap_or_default(),
                ..Default::default()
            },
            mode: self.mode.mode(),
            // Exact: at most 2^53 (liquid_alltoallv::sizes::MAX_BYTES).
            size: self.size.unwrap_or(DEFAULT_SIZE) as f64,
            size_given: self.size.is_some(),
            sizes: self.sizes.clone(),
            overhead: self.overhead,
            link_throughput: self.link_throughput,
            link_latency: self.link_latency,
        })
    }
}

/// `--time-limit` and `--node-limit`, shared by the commands that run engines.
#[derive(Debug, Clone, clap::Args)]
struct LimitArgs {
    /// Wall-clock limit in seconds (fractions allowed; default 300 s; `solve` counts it
    /// from its start, the building of the model included): an engine stopped
    /// by it answers `unknown` with the best it had (`solve` says so on stderr too, exit
    /// 0); a simulation it stops (`simulate`,
    /// `solve --simulate`) reports how far it got, its figures null, with a warning (exit 0).
    #[arg(long, value_parser = c::parse_seconds)]
    time_limit: Option<std::time::Duration>,
    /// Node limit of the engines that count nodes or steps: native, structured and exact
    /// (search nodes), repair (steps), ilp (HiGHS's branch-and-bound nodes) and the
    /// portfolio; refused with any other engine, a schedule file or an MPI library's plan.
    #[arg(long)]
    node_limit: Option<u64>,
}

impl LimitArgs {
    /// The limits as given (crosscheck applies its own default time limit).
    fn limits(&self) -> liquid_model::Limits {
        liquid_model::Limits {
            time: self.time_limit,
            nodes: self.node_limit,
        }
    }

    /// The limits, the time limit [`liquid_engine::DEFAULT_TIME_LIMIT`] when none is given.
    fn or_default(&self) -> liquid_model::Limits {
        let time = self.time_limit.or(Some(liquid_engine::DEFAULT_TIME_LIMIT));
        liquid_model::Limits {
            time,
            ..self.limits()
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
        Command::Analyze(a) => c::analyze(&a),
        Command::Verify(a) => c::verify(&a),
        Command::Solve(a) => c::solve(&a),
        Command::Teams(a) => c::teams(&a),
        Command::Crosscheck(a) => c::crosscheck(&a),
        Command::Certify(a) => c::certify(&a),
        Command::Explain(a) => c::explain(&a),
        Command::Expand { model } => c::expand(&model),
        Command::Encode(a) => c::encode(&a),
        Command::Prove(a) => c::prove(&a),
        Command::CheckProof(a) => c::check_proof(&a),
        Command::Generate { what } => c::generate(what),
        Command::Simulate(a) => c::simulate(&a),
        Command::Latency { what } => c::latency(what),
        Command::Export {
            what: ExportWhat::Simgrid(a),
        } => c::export_simgrid(&a),
        Command::Export {
            what: ExportWhat::Mpi(a),
        } => c::export_mpi(&a),
        Command::Export {
            what: ExportWhat::Ibsim(a),
        } => c::export_ibsim(&a),
        Command::Import {
            what: ImportWhat::Ib(a),
        } => c::import_ib(&a),
        Command::Merge(a) => c::merge(&a),
        Command::Compare(a) => c::compare_mpi(&a),
        Command::Testbed {
            what: TestbedWhat::T1(a),
        } => c::testbed_t1(&a),
        Command::Study {
            what: StudyWhat::TwoClusters(a),
        } => c::study_two_clusters(*a),
        Command::Study {
            what: StudyWhat::Routing(a),
        } => c::study_routing(*a),
    }
}

/// The command line: every option that takes a value takes a negative number as its
/// value, so that `--overhead -1` is refused by the option's own check ("not a usable
/// number of seconds") rather than by clap as an unexpected argument `-1`.
fn command() -> clap::Command {
    fn negatives(c: clap::Command) -> clap::Command {
        c.mut_args(|a| {
            if a.get_action().takes_values() && !a.is_positional() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(negatives)
    }
    negatives(Cli::command())
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Command::Generate {
        what: c::GenerateWhat::TwoClusters { links_given, .. },
    } = &mut cli.command
    {
        *links_given = c::two_cluster_links_given(&matches);
    }
    // The documentation tests (tests/docs.rs) check that every documented command line
    // parses, including those too long to run: with this variable set, stop here.
    if std::env::var_os("LIQUID_CHECK_ARGS").is_some() {
        return ExitCode::SUCCESS;
    }
    // A panic is an internal fault (exit 3), whatever the command; the hook has printed
    // its message.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)));
    let Ok(ran) = ran else {
        eprintln!("internal error: liquid panicked (a bug: please report it)");
        return ExitCode::from(EXIT_INTERNAL);
    };
    match ran {
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

#[cfg(test)]
mod tests {
    /// clap's own checks of the command line as liquid builds it (conflicting names,
    /// settings that do not fit an argument), negative numbers allowed included.
    #[test]
    fn the_command_line_is_consistent() {
        super::command().debug_assert();
    }
}
