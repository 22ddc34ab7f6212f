//! `liquid merge`: the shards of any sweep (see [`liquid_shard`]) joined into what the
//! unsharded run writes and prints. The sweep is read from the first shard file; each
//! sweep's own merge checks that the shards belong together and renders the results.

use std::path::{Path, PathBuf};

use crate::{crosscheck, latency, testbed, two_clusters, StudyError};

/// What a merge produced: the summary the unsharded run prints, per sweep.
pub enum Merged {
    /// The Swiss-T1 testbed ([`testbed::SWEEP`]).
    Testbed(testbed::Summary),
    /// The latency study ([`latency::SWEEP`]): its error table.
    Latency(String),
    /// The two-cluster study ([`two_clusters::SWEEP`]).
    TwoClusters(Box<two_clusters::Summary>),
    /// `crosscheck` over many models ([`crosscheck::SWEEP`]): the report and the format
    /// the run asked for.
    Crosscheck(crosscheck::Report, String),
}

/// The sweeps `liquid merge` knows, by the name their shard files carry.
pub const SWEEPS: [&str; 4] = [
    testbed::SWEEP,
    latency::SWEEP,
    two_clusters::SWEEP,
    crosscheck::SWEEP,
];

/// Merges the shard files among `paths` (files, or folders holding them) into `out`.
pub fn merge(paths: &[PathBuf], out: &Path) -> Result<Merged, StudyError> {
    let files = liquid_shard::shard_files(paths)?;
    let head = liquid_shard::header(&files[0])?;
    match head.sweep.as_str() {
        testbed::SWEEP => Ok(Merged::Testbed(testbed::merge(&files, out)?)),
        latency::SWEEP => Ok(Merged::Latency(latency::merge(&files, out)?)),
        crosscheck::SWEEP => {
            let (report, format) = crosscheck::merge(&files)?;
            Ok(Merged::Crosscheck(report, format))
        }
        two_clusters::SWEEP => Ok(Merged::TwoClusters(Box::new(two_clusters::merge(
            &files, out,
        )?))),
        other => Err(StudyError::Input(format!(
            "{}: sweep {other:?} is not one that liquid merges (known: {})",
            files[0].display(),
            SWEEPS.join(", ")
        ))),
    }
}
