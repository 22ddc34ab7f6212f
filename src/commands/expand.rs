use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// `liquid expand MODEL`: the explicit form on stdout.
pub fn expand(model: &Path) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(model)?;
    let mut out = std::io::stdout().lock();
    out.write_all(liquid_model::yaml::write_explicit(&traffic).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
