use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// `liquid expand MODEL`: the explicit form on stdout.
pub fn expand(model: &Path) -> anyhow::Result<ExitCode> {
    let (text, warnings) = liquid_study::simulate::expanded(model)?;
    for w in warnings {
        eprintln!("warning: expand: {w}");
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
