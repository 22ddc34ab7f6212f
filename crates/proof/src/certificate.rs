//! What a certificate (a schedule, a proof directory, or both) proves about a traffic,
//! checked from the files alone: `liquid certify`.
//!
//! The upper-bound witness is a schedule, validated by the model crate; the lower-bound
//! witnesses are the bottleneck link (Λ, always) and, when given, a proof directory,
//! verified by [`crate::verify_dir_until`].

use std::path::Path;

use liquid_model::{validate_all, Problems, Schedule, Traffic};

use crate::{verify_dir_until, ProofError};

/// One lower bound and why it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The bound.
    pub value: usize,
    /// Its witness, in words.
    pub witness: String,
}

/// What a certificate proves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certificate {
    /// Whether every part checked and the parts agree.
    pub accepted: bool,
    /// What it proves, or why it is rejected.
    pub statement: String,
    /// The schedule's length, when a valid schedule was given.
    pub length: Option<usize>,
    /// The lower bounds established (Λ first).
    pub lower_bounds: Vec<Bound>,
}

/// Checks a certificate: `schedule` (already read from its file, with the problems found
/// reading it: transfer names the traffic lacks) and/or the proof directory `proof`. A
/// rejected schedule's statement lists every problem found (bounded: [`Problems`]).
/// Unreadable proof files are errors; a certificate that fails a check is returned with
/// `accepted: false` and the reason; so is a proof whose check `deadline` stopped.
pub fn certify(
    traffic: &Traffic,
    schedule: Option<(&Schedule, Problems)>,
    proof: Option<&Path>,
    deadline: Option<std::time::Instant>,
) -> Result<Certificate, ProofError> {
    let d = traffic.duration();
    let bottleneck = traffic.bottlenecks()[0];
    let mut c = Certificate {
        accepted: false,
        statement: String::new(),
        length: None,
        lower_bounds: vec![Bound {
            value: d,
            witness: format!(
                "link {:?} has {} users, which pairwise congest",
                traffic.link_name(bottleneck),
                traffic.load(bottleneck)
            ),
        }],
    };
    let reject = |mut c: Certificate, why: String| {
        c.statement = format!("rejected: {why}");
        Ok(c)
    };
    if let Some((s, mut problems)) = schedule {
        match validate_all(traffic, s, &mut problems) {
            Some(r) if problems.is_empty() => c.length = Some(r.length),
            _ => return reject(c, format!("the schedule is invalid: {problems}")),
        }
    }
    let mut proven = None;
    if let Some(dir) = proof {
        match verify_dir_until(traffic, dir, deadline)? {
            Ok(p) => {
                let k = p.colours();
                c.lower_bounds.push(Bound {
                    value: k + 1,
                    witness: format!(
                        "a checked LRAT proof that {k} timeframes do not suffice ({})",
                        dir.display()
                    ),
                });
                proven = Some(k + 1);
            }
            Err(why) => return reject(c, format!("the proof is invalid: {why}")),
        }
    }
    let lower = proven.unwrap_or(d).max(d);
    c.statement = match c.length {
        Some(len) if len < lower => {
            return reject(
                c,
                format!(
                    "the schedule has {len} timeframes but the proof says at least {lower} are needed: \
                     the two contradict each other"
                ),
            )
        }
        Some(len) if len == d => "liquid, hence optimal".to_string(),
        Some(len) if len == lower => format!(
            "optimal: a schedule of length {len} and a checked proof that {} timeframes are impossible",
            len - 1
        ),
        Some(len) => format!(
            "valid (length {len}), but optimality not proven: every schedule needs at least {lower}"
        ),
        None if lower > d => format!(
            "not liquid: a checked proof that {} timeframes do not suffice (every schedule needs at least {lower}; Λ = {d})",
            lower - 1
        ),
        None => format!("a checked proof that every schedule needs at least {lower} timeframes"),
    };
    c.accepted = true;
    Ok(c)
}
