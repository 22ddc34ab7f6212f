use std::path::PathBuf;
use std::process::ExitCode;

use liquid_search::teams::TeamsReport;

use crate::output::{emitted, Format};

// `liquid teams`'s arguments.
#[derive(Debug, clap::Args)]
pub struct TeamsArgs {
    /// Model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    /// Also list every full team as transfer ids.
    #[arg(long)]
    list: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

/// `liquid teams MODEL [--list]`: the full teams of the whole traffic, in enumeration order
/// (the report is `liquid_search::teams::TeamsReport`).
pub fn teams(a: &TeamsArgs) -> anyhow::Result<ExitCode> {
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    emitted(&TeamsReport::new(&traffic, a.list), a.format)
}
