//! `liquid`: optimal schedules for collective network traffic, with proofs.
//!
//! Exit codes (also in README):
//! - 0: success (a schedule is valid, a report was written);
//! - 1: a negative answer: the schedule, proof or certificate given was rejected;
//! - 2: bad input: unreadable or invalid model or schedule file, bad arguments;
//! - 3: internal error: an engine returned a schedule that fails validation (a bug).
#![forbid(unsafe_code)]

mod commands;
mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands::{EncodeFormat, EngineName};
use crate::output::Format;

/// Exit code of a negative answer (rejected schedule, proof or certificate).
pub const EXIT_REJECTED: u8 = 1;
/// Exit code of bad input.
pub const EXIT_INPUT: u8 = 2;
/// Exit code of an internal error.
pub const EXIT_INTERNAL: u8 = 3;

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
        /// Model file (explicit or network form).
        model: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Checks a schedule file against a model: valid, liquid, optimal.
    Verify {
        /// Model file.
        model: PathBuf,
        /// Schedule file (`timeframes:` as lists of transfer ids).
        schedule: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Schedules a traffic with one engine and reports the verdict with its evidence.
    Solve {
        /// Model file.
        model: PathBuf,
        /// The engine to run.
        #[arg(long, value_enum, default_value_t = EngineName::Dsatur)]
        engine: EngineName,
        /// Wall-clock limit in seconds (fractions allowed).
        #[arg(long, value_parser = commands::parse_seconds)]
        time_limit: Option<std::time::Duration>,
        /// Search-node limit, for engines that count nodes.
        #[arg(long)]
        node_limit: Option<u64>,
        /// Seed for randomised engines.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// ILP engine only: decide liquidity (K = Λ timeframes, no objective) instead of
        /// minimising the length. Answers `liquid` or `unknown` (HiGHS's "infeasible" is
        /// reported in the stats, not as a proof).
        #[arg(long)]
        decide: bool,
        /// Also write the schedule to this file (schedule-file format).
        #[arg(long)]
        schedule_out: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Yaml)]
        format: Format,
    },
    /// Prints a model in the explicit form (every transfer with its path).
    Expand {
        /// Model file.
        model: PathBuf,
    },
    /// Writes the scheduling problem of a model for an external solver, on stdout.
    Encode {
        /// Model file.
        model: PathBuf,
        /// The encoding.
        #[arg(long, value_enum)]
        format: EncodeFormat,
        /// Number of timeframes offered (default: DSatur's length; at least Λ).
        #[arg(long)]
        colours: Option<usize>,
    },
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

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Analyze { model, format } => commands::analyze(&model, format),
        Command::Verify {
            model,
            schedule,
            format,
        } => commands::verify(&model, &schedule, format),
        Command::Expand { model } => commands::expand(&model),
        Command::Encode {
            model,
            format,
            colours,
        } => commands::encode(&model, format, colours),
        Command::Solve {
            model,
            engine,
            time_limit,
            node_limit,
            seed,
            decide,
            schedule_out,
            format,
        } => {
            let opts = commands::SolveOptions {
                limits: liquid_model::Limits {
                    time: time_limit,
                    nodes: node_limit,
                },
                seed,
                decide,
            };
            commands::solve(&model, engine, &opts, schedule_out.as_ref(), format)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            let input = e.downcast_ref::<liquid_model::yaml::LoadError>().is_some()
                || e.downcast_ref::<InputError>().is_some();
            ExitCode::from(if input { EXIT_INPUT } else { EXIT_INTERNAL })
        }
    }
}
