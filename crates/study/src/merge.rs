//! `liquid merge`: the shards of any sweep (see [`liquid_shard`]) joined into what the
//! unsharded run writes and prints. The sweep is read from the first shard file; each
//! sweep's own merge checks that the shards belong together and renders the results.

use std::path::{Path, PathBuf};

use crate::{crosscheck, explain, latency, routing, testbed, two_clusters, StudyError};

/// What a merge produced: the summary the unsharded run prints, per sweep.
pub enum Merged {
    /// The Swiss-T1 testbed ([`testbed::SWEEP`]).
    Testbed(testbed::Summary),
    /// The latency study ([`latency::SWEEP`]): its error table, and the loads the shards'
    /// time limits cut.
    Latency(latency::Studied),
    /// The two-cluster study ([`two_clusters::SWEEP`]).
    TwoClusters(Box<two_clusters::Summary>),
    /// `crosscheck` over many models ([`crosscheck::SWEEP`]): the report and the format
    /// the run asked for.
    Crosscheck(crosscheck::Report, String),
    /// `explain` over many models ([`explain::SWEEP`]): the reports and the format the run
    /// asked for.
    Explain(Vec<liquid_engine::report::ExplainReport>, String),
    /// The routing study ([`routing::SWEEP`]).
    Routing(Box<routing::Summary>),
}

/// The sweeps `liquid merge` knows, by the name their shard files carry.
pub const SWEEPS: [&str; 6] = [
    testbed::SWEEP,
    latency::SWEEP,
    two_clusters::SWEEP,
    crosscheck::SWEEP,
    explain::SWEEP,
    routing::SWEEP,
];

/// Merges the shard files among `paths` (files, or folders holding them) into `out`:
/// every file is read once, and the sweep named by the first one joins them. The sweeps
/// whose unsharded run writes files (testbed, latency, two-clusters, routing) need `out`;
/// crosscheck and explain, whose unsharded runs only print, write nothing there.
pub fn merge(paths: &[PathBuf], out: Option<&Path>) -> Result<Merged, StudyError> {
    let shards = liquid_shard::merge_any(paths)?;
    let sweep = shards.sweep.clone();
    let need_out = || {
        out.ok_or_else(|| {
            StudyError::Input(format!(
                "the {sweep} shards merge into the files of the unsharded run: give --out DIR"
            ))
        })
    };
    match sweep.as_str() {
        testbed::SWEEP => Ok(Merged::Testbed(testbed::merge(
            shards.typed()?,
            need_out()?,
        )?)),
        latency::SWEEP => Ok(Merged::Latency(latency::merge(
            shards.typed()?,
            need_out()?,
        )?)),
        crosscheck::SWEEP => {
            let (report, format) = crosscheck::merge(shards.typed()?)?;
            Ok(Merged::Crosscheck(report, format))
        }
        explain::SWEEP => {
            let (reports, format) = explain::merge(shards.typed()?)?;
            Ok(Merged::Explain(reports, format))
        }
        two_clusters::SWEEP => Ok(Merged::TwoClusters(Box::new(two_clusters::merge(
            shards.typed()?,
            need_out()?,
        )?))),
        routing::SWEEP => Ok(Merged::Routing(Box::new(routing::merge(
            shards.typed()?,
            need_out()?,
        )?))),
        other => Err(StudyError::Input(format!(
            "sweep {other:?} is not one that liquid merges (known: {})",
            SWEEPS.join(", ")
        ))),
    }
}
