//! Report output: YAML for people (the default) and JSON for machines.

use std::io::Write;

use serde::Serialize;

/// A report's output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// YAML (readable, the default).
    Yaml,
    /// JSON (one object, pretty-printed).
    Json,
}

/// A report as text in the chosen format.
pub fn render<T: Serialize>(value: &T, format: Format) -> anyhow::Result<String> {
    Ok(match format {
        Format::Yaml => liquid_model::yaml::to_string(value)?,
        Format::Json => serde_json::to_string_pretty(value)? + "\n",
    })
}

/// Writes a report to stdout in the chosen format.
pub fn emit<T: Serialize>(value: &T, format: Format) -> anyhow::Result<()> {
    let text = render(value, format)?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes text to stdout; a full disk or a closed pipe is an error (exit code 2), not a
/// panic.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Rounds a throughput for display (MB/s, two decimals).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Rounds a ratio for display (four decimals).
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
