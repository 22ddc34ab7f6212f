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

/// Writes a report of measured figures to stdout; exit 0. YAML, for people, drops the
/// noise of binary arithmetic ([`without_float_noise`]; the fields named in `integers` as
/// integers when whole); JSON, for machines, keeps full precision.
pub fn emitted_figures<T: Serialize>(
    value: &T,
    format: Format,
    integers: &[&str],
) -> anyhow::Result<std::process::ExitCode> {
    emit_figures(value, format, integers)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// [`emitted_figures`] without the exit code, for commands that go on after the report.
pub fn emit_figures<T: Serialize>(
    value: &T,
    format: Format,
    integers: &[&str],
) -> anyhow::Result<()> {
    match format {
        Format::Yaml => emit(
            &without_float_noise(serde_json::to_value(value)?, integers),
            format,
        ),
        Format::Json => emit(value, format),
    }
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

/// Significant digits of the floats in reports for people ([`for_people`]).
pub const SIGNIFICANT_DIGITS: usize = 4;

/// A report's value rounded for people: every float to [`SIGNIFICANT_DIGITS`]
/// significant digits (`0.07340031999999999` → `0.0734`), and the fields named in
/// `integers` printed as integers when they are whole (`bytes: 8388608.0` → `8388608`).
/// JSON output keeps full precision: this is for the YAML a person reads.
pub fn for_people(value: serde_json::Value, integers: &[&str]) -> serde_json::Value {
    rounded(value, integers, SIGNIFICANT_DIGITS)
}

/// Significant digits of the floats in reports whose figures other tools read back
/// ([`without_float_noise`]): enough to keep every figure a simulation can resolve, few
/// enough to drop the noise of binary arithmetic (`0.01900000000000001` → `0.019`).
pub const EXACT_DIGITS: usize = 12;

/// A report's value with every float to [`EXACT_DIGITS`] significant digits and the
/// fields named in `integers` printed as integers when they are whole.
pub fn without_float_noise(value: serde_json::Value, integers: &[&str]) -> serde_json::Value {
    rounded(value, integers, EXACT_DIGITS)
}

/// Every float of `value` to `digits` significant digits, the fields named in `integers`
/// as integers when they are whole.
fn rounded(value: serde_json::Value, integers: &[&str], digits: usize) -> serde_json::Value {
    use serde_json::Value;
    fn walk(v: Value, key: Option<&str>, integers: &[&str], digits: usize) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let v = walk(v, Some(&k), integers, digits);
                        (k, v)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|v| walk(v, key, integers, digits))
                    .collect(),
            ),
            Value::Number(n) if n.is_f64() => {
                let x = n.as_f64().unwrap_or_default();
                let whole = x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15;
                if whole && key.is_some_and(|k| integers.contains(&k)) {
                    return Value::from(x as i64);
                }
                Value::from(round_significant(x, digits))
            }
            v => v,
        }
    }
    walk(value, None, integers, digits)
}

/// `x` rounded to `digits` significant digits (non-finite values unchanged).
pub use liquid_model::display::round_significant;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_rounded_for_people_and_whole_byte_counts_are_integers() {
        let v = serde_json::json!({"predicted_s": 0.07340031999999999, "bytes": 8388608.0,
            "steps": [{"bytes": 4096.0, "ratio": 1.523456, "time_s": 2.0}], "ranks": 8});
        let r = for_people(v, &["bytes"]);
        assert_eq!(
            r,
            serde_json::json!({"predicted_s": 0.0734, "bytes": 8388608,
                "steps": [{"bytes": 4096, "ratio": 1.523, "time_s": 2.0}], "ranks": 8})
        );
        let v = serde_json::json!({"makespan_s": 0.01900000000000001, "end_s": 0.6534211234567,
            "total_bytes": 56000000.0, "overhead_s": 0.0});
        assert_eq!(
            without_float_noise(v, &["total_bytes"]),
            serde_json::json!({"makespan_s": 0.019, "end_s": 0.653421123457,
                "total_bytes": 56000000, "overhead_s": 0.0})
        );
    }
}
