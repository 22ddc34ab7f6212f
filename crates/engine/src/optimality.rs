//! Settles whether a valid schedule is optimal (`liquid verify --proof DIR`): SAT decides
//! whether one timeframe fewer suffices, and the evidence is written either way: a checked
//! proof that it does not, or the shorter schedule, validated.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::stage::{self, Stage};
use liquid_model::{validate, CheckedProof, Schedule, Traffic};
use liquid_sat::{Proved, SatError};

use crate::gate::SolveError;

/// What [`settle`] found.
#[derive(Debug, Clone)]
pub enum Settled {
    /// The schedule is optimal: a checked proof that one timeframe fewer does not suffice.
    Optimal(CheckedProof),
    /// A shorter valid schedule exists; it was written to the file named.
    Shorter {
        /// Its length.
        length: usize,
        /// The file it was written to.
        file: PathBuf,
    },
    /// The time limit came first.
    Stopped,
    /// SAT cannot encode the traffic (too large): nothing was decided.
    TooLarge(String),
}

/// Settles whether a schedule of `length` timeframes is optimal, writing the evidence into
/// `dir` (created if needed): a proof directory, or `dir/shorter-schedule.yaml`. The stage
/// that runs (the proof search, its check) is told on `progress`.
pub fn settle(
    traffic: &Traffic,
    length: usize,
    dir: &Path,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Result<Settled, SolveError> {
    let failed = |message: String| SolveError::Failed {
        engine: "sat".to_string(),
        message,
    };
    let k = length - 1;
    stage::enter(progress, Stage::Proof);
    match liquid_sat::prove_auto(traffic, k, deadline).map(|p| p.map(|(p, _)| p)) {
        Err(SatError::Encode(e)) => Ok(Settled::TooLarge(e.to_string())),
        Err(e) => Err(failed(e.to_string())),
        Ok(None) => Ok(Settled::Stopped),
        Ok(Some(Proved::Unsat(r))) => {
            stage::enter(progress, Stage::Check);
            match liquid_proof::write_and_verify(dir, traffic, &r)
                .map_err(|e| SolveError::Input(e.to_string()))?
            {
                Ok(p) => Ok(Settled::Optimal(p)),
                Err(why) => Err(SolveError::Wrong {
                    engine: "sat".to_string(),
                    reason: format!(
                        "its proof that {k} timeframes do not suffice was rejected: {why}"
                    ),
                }),
            }
        }
        Ok(Some(Proved::Sat(shorter))) => {
            let shorter: Schedule = shorter.normalized();
            let r = validate(traffic, &shorter)
                .map_err(|e| failed(format!("the SAT schedule is invalid: {e}")))?;
            let file = liquid_proof::write_shorter(
                dir,
                &liquid_model::yaml::write_schedule(traffic, &shorter),
            )
            .map_err(|e| SolveError::Input(e.to_string()))?;
            Ok(Settled::Shorter {
                length: r.length,
                file,
            })
        }
    }
}
