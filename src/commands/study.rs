//! `liquid study two-clusters`: paper 001's total exchange between two clusters on the
//! simulator (`liquid_study::two_clusters`).

use std::process::ExitCode;

use liquid_study::two_clusters::{self, StudyArgs};

use crate::output::{emit, Format};

/// `liquid study two-clusters`: the summary on stdout; exit 3 when the plans' backbone
/// message counts are not 001's.
pub fn two_clusters(
    args: &StudyArgs,
    shard: Option<liquid_study::Shard>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let summary = match two_clusters::run(args, shard)? {
        liquid_study::Swept::Full(summary) => summary,
        liquid_study::Swept::Shard(written) => {
            eprintln!("{written}");
            return Ok(ExitCode::SUCCESS);
        }
    };
    emitted(&summary, format)
}

/// The summary of a whole two-cluster study (run or merged) on stdout; exit 3 when the
/// plans' backbone message counts are not 001's.
pub fn emitted(summary: &two_clusters::Summary, format: Format) -> anyhow::Result<ExitCode> {
    emit(summary, format)?;
    if !summary.counts_match() {
        eprintln!("error: backbone message counts differ from 2·max(n1, n2) and 2·n1·n2");
        return Ok(ExitCode::from(crate::EXIT_INTERNAL));
    }
    Ok(ExitCode::SUCCESS)
}
