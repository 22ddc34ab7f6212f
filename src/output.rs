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

/// The name `--format` takes for `format`, which a shard file records.
pub fn format_name<F: clap::ValueEnum>(format: &F) -> String {
    let name = format.to_possible_value().map(|v| v.get_name().to_string());
    name.unwrap_or_default()
}

/// The format a shard file of `sweep` records by `name`.
pub fn format_named<F: clap::ValueEnum>(sweep: &str, name: &str) -> anyhow::Result<F> {
    F::from_str(name, false).map_err(|_| {
        let names: Vec<String> = F::value_variants().iter().map(format_name).collect();
        let names = names.join(" or ");
        crate::InputError(format!("shards of {sweep}: format {name:?}: {names}")).into()
    })
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

/// Writes a report to stdout in the chosen format; exit 0.
pub fn emitted<T: Serialize>(value: &T, format: Format) -> anyhow::Result<std::process::ExitCode> {
    emit(value, format)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Exit 0 when what was checked is accepted, 1 (a negative answer) otherwise.
pub fn verdict(accepted: bool) -> std::process::ExitCode {
    match accepted {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(crate::EXIT_REJECTED),
    }
}
