use std::path::PathBuf;
use std::process::ExitCode;

use liquid_sat::EncodeOptions;

use crate::InputError;

/// The formats `liquid encode` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EncodeFormat {
    /// DIMACS CNF for any SAT solver (the encoding of liquid-sat, with a comment header).
    Dimacs,
    /// CPLEX-LP: the ILP engine's 0-1 model (minimise the used timeframes), for Gurobi,
    /// CPLEX, SCIP or HiGHS's command line.
    Lp,
}

// `liquid encode`'s arguments.
#[derive(Debug, clap::Args)]
pub struct EncodeArgs {
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
}

/// The number of timeframes to encode: `--colours`, or Λ by default; 0 is bad input.
pub fn colours_or_duration(
    traffic: &liquid_model::Traffic,
    colours: Option<usize>,
) -> anyhow::Result<usize> {
    match colours {
        Some(0) => Err(InputError("--colours must be at least 1".to_string()).into()),
        Some(k) => Ok(k),
        None => Ok(traffic.duration()),
    }
}

/// `liquid encode MODEL [--colours k] [--frames K] [--format dimacs|lp]`: the encoding on
/// stdout.
///
/// DIMACS encodes "a schedule of at most k timeframes exists" (default k = Λ). LP offers
/// k timeframes and minimises the used ones (`liquid_ilp::lp_file`; default k: the ILP
/// engine's own choice, DSatur's length); fewer than Λ is rejected.
pub fn encode(a: &EncodeArgs) -> anyhow::Result<ExitCode> {
    let (model, colours, frames) = (&a.model, a.colours, a.frames);
    let traffic = liquid_study::input::load_traffic(model)?;
    let text = match a.format {
        EncodeFormat::Dimacs => {
            let k = colours_or_duration(&traffic, colours)?;
            let options = EncodeOptions {
                frames,
                ..Default::default()
            };
            liquid_sat::dimacs(&traffic, k, &options)
                .map_err(|e| InputError(format!("{}: {e}", model.display())))?
        }
        EncodeFormat::Lp if frames.is_some() => {
            return Err(InputError(
                "--frames applies to the DIMACS encoding only (--format dimacs)".to_string(),
            )
            .into())
        }
        EncodeFormat::Lp => liquid_ilp::lp_file(&traffic, colours).map_err(|e| match e {
            liquid_ilp::LpRefusal::BelowDuration { colours, duration } => InputError(format!(
                "--colours {colours} is below the duration Λ = {duration} of {}: the users of \
                 a bottleneck link need Λ distinct timeframes",
                model.display()
            )),
            e => InputError(format!("{}: {e}", model.display())),
        })?,
    };
    crate::output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
