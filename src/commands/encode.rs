use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::InputError;

/// The formats `liquid encode` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EncodeFormat {
    /// CPLEX-LP: the ILP engine's 0-1 model (minimise the used timeframes), for Gurobi,
    /// CPLEX, SCIP or HiGHS's command line.
    Lp,
}

/// `liquid encode MODEL --format F [--colours K]`: the encoding on stdout.
///
/// `colours` is the number of timeframes offered (default: DSatur's length, which always
/// admits a solution); fewer than Λ is rejected (the model would be trivially infeasible).
pub fn encode(
    model: &Path,
    format: EncodeFormat,
    colours: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let traffic = liquid_model::yaml::load_model(model)?;
    let text = match format {
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
                None => liquid_search::dsatur::colour(&traffic).colours as usize,
            };
            liquid_ilp::write_lp(&traffic, k)
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
