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

/// `liquid encode MODEL [--colours k] [--format dimacs]`: the formula on stdout.
pub fn encode(
    model: &Path,
    colours: Option<usize>,
    format: EncodeFormat,
) -> anyhow::Result<ExitCode> {
    let traffic = crate::input::load_traffic(model)?;
    let k = colours_or_duration(&traffic, colours)?;
    let text = match format {
        EncodeFormat::Dimacs => liquid_sat::dimacs(&traffic, k, &EncodeOptions::default())
            .map_err(|e| InputError(format!("{}: {e}", model.display())))?,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
