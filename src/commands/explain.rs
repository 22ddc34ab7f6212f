//! `liquid explain MODEL... [--all]`: why a traffic is not liquid, as minimal non-liquid
//! cores with their certificates (the search and checks are `liquid_engine::explain`, the
//! report `liquid_engine::report::ExplainReport`; many models and their shards
//! `liquid_study::explain`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::output::{emit, Format};

/// Runs `explain`: one model's report, or with several models the list of their reports,
/// in order; with `shard`, only that shard's models, into a shard file in `out`.
pub fn explain(
    models: &[PathBuf],
    all: bool,
    time_limit: Option<Duration>,
    format: Format,
    shard: Option<(liquid_study::Shard, &Path)>,
) -> anyhow::Result<ExitCode> {
    if let Some((shard, out)) = shard {
        let written =
            liquid_study::explain::shard(models, all, time_limit, shard, format_name(format), out)?;
        eprintln!("{written}");
        return Ok(ExitCode::SUCCESS);
    }
    match models {
        [one] => emit(&liquid_study::explain::one(one, all, time_limit)?, format)?,
        many => emit(&liquid_study::explain::run(many, all, time_limit)?, format)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The name of an output format, as a shard file records it.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Yaml => "yaml",
        Format::Json => "json",
    }
}

/// `liquid merge` of explain's shards: the reports in the run's format.
pub fn emit_many(
    reports: &[liquid_engine::report::ExplainReport],
    format: &str,
) -> anyhow::Result<()> {
    let format = match format {
        "json" => Format::Json,
        "yaml" => Format::Yaml,
        other => {
            return Err(crate::InputError(format!(
                "shards of explain: format {other:?}: yaml or json"
            ))
            .into())
        }
    };
    emit(&reports, format)
}
