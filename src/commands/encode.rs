use std::io::Write;
use std::path::Path;
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
/// k timeframes and minimises the used ones (default: the ILP engine's own choice,
/// `liquid_ilp::offered_frames`, DSatur's length, which always admits a solution); fewer than Λ is rejected there (the model would be trivially infeasible).
pub fn encode(
    model: &Path,
    colours: Option<usize>,
    frames: Option<usize>,
    format: EncodeFormat,
) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    let text = match format {
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
        EncodeFormat::Lp => {
            let k = match colours {
                Some(k) if k < traffic.duration() => {
                    return Err(InputError(format!(
                        "--colours {k} is below the duration Λ = {} of {}: the users of a \
                         bottleneck link need Λ distinct timeframes",
                        traffic.duration(),
                        model.display()
                    ))
                    .into())
                }
                Some(k) => k,
                None => {
                    liquid_ilp::check_size(&traffic, traffic.duration())
                        .map_err(|e| InputError(format!("{}: {e}", model.display())))?;
                    liquid_ilp::offered_frames(
                        &traffic,
                        None,
                        &std::sync::atomic::AtomicU64::new(0),
                    )
                    .map_or(traffic.duration(), |c| c.colours as usize)
                }
            };
            liquid_ilp::check_size(&traffic, k)
                .map_err(|e| InputError(format!("{}: {e}", model.display())))?;
            liquid_ilp::write_lp(&traffic, k)
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
