//! The crosscheck rule: what several checked answers about one traffic settle together,
//! and where they contradict each other.
//!
//! Every answer has already passed the gate. One rule then covers every disagreement that
//! matters: a lower bound claimed by one source must not exceed the length of a valid
//! schedule found by another. "Liquid" against "non-liquid" is a length Λ against a bound
//! Λ + 1; two different optimal lengths are one's schedule shorter than the other's bound.

use std::time::Duration;

use liquid_model::Traffic;

/// The time limit of each engine run of a crosscheck when none is given: an engine that
/// reaches it answers `unknown` (with its best schedule and bound), so no crosscheck
/// runs for hours by default.
pub const DEFAULT_ENGINE_TIME_LIMIT: Duration = Duration::from_secs(60);

use crate::gate::Checked;

/// What a set of answers settles about one traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A valid schedule of length Λ.
    Liquid,
    /// A valid schedule whose length equals the best lower bound.
    Optimal,
    /// The optimum lies between the best bound and the shortest schedule.
    Open,
    /// Two sources contradict each other, or one gave a wrong answer.
    Contradiction,
}

impl Status {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Liquid => "liquid",
            Status::Optimal => "optimal",
            Status::Open => "open",
            Status::Contradiction => "contradiction",
        }
    }
}

/// One source's claims: a lower bound (with its evidence kind) and a schedule length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// Who claims it (an engine, or a schedule file).
    pub source: String,
    /// The lower bound and its evidence kind.
    pub lower: Option<(usize, &'static str)>,
    /// The length of a valid schedule.
    pub length: Option<usize>,
}

impl Claim {
    /// The claims of a checked answer.
    pub fn of(traffic: &Traffic, c: &Checked) -> Claim {
        let b = c.outcome().lower_bound(traffic);
        Claim {
            source: c.engine().to_string(),
            lower: Some((b.value, b.evidence.kind())),
            length: c.length(),
        }
    }
}

/// What the claims settle together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// The settled status.
    pub status: Status,
    /// The best lower bound claimed.
    pub lower: Option<usize>,
    /// The shortest valid schedule.
    pub upper: Option<usize>,
    /// Every contradiction, in words (wrong answers first).
    pub contradictions: Vec<String>,
}

/// Compares the claims about a traffic of duration `duration`; `wrong` are answers that
/// failed the gate (each a contradiction by itself).
pub fn compare(duration: usize, claims: &[Claim], wrong: Vec<String>) -> Comparison {
    let mut contradictions = wrong;
    for a in claims {
        let Some((lb, kind)) = a.lower else { continue };
        for b in claims {
            if let Some(len) = b.length {
                if lb > len {
                    contradictions.push(format!(
                        "{} claims that no schedule has fewer than {lb} timeframes (witness: {kind}), \
                         but {} found a valid schedule of {len}",
                        a.source, b.source
                    ));
                }
            }
        }
    }
    let lower = claims.iter().filter_map(|c| c.lower.map(|l| l.0)).max();
    let upper = claims.iter().filter_map(|c| c.length).min();
    let status = if !contradictions.is_empty() {
        Status::Contradiction
    } else if upper == Some(duration) {
        Status::Liquid
    } else if lower.is_some() && lower == upper {
        Status::Optimal
    } else {
        Status::Open
    };
    Comparison {
        status,
        lower,
        upper,
        contradictions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(source: &str, lower: Option<usize>, length: Option<usize>) -> Claim {
        Claim {
            source: source.to_string(),
            lower: lower.map(|l| (l, "clique")),
            length,
        }
    }

    #[test]
    fn agreeing_claims_settle_the_optimum() {
        let c = compare(
            2,
            &[claim("a", Some(2), Some(3)), claim("b", Some(3), None)],
            vec![],
        );
        assert_eq!(
            (c.status, c.lower, c.upper),
            (Status::Optimal, Some(3), Some(3))
        );
        let c = compare(2, &[claim("a", Some(2), Some(2))], vec![]);
        assert_eq!(c.status, Status::Liquid);
        let c = compare(2, &[claim("a", Some(2), Some(4))], vec![]);
        assert_eq!(c.status, Status::Open);
    }

    #[test]
    fn a_bound_above_a_schedule_is_a_contradiction() {
        let c = compare(
            2,
            &[claim("a", Some(3), None), claim("b", Some(2), Some(2))],
            vec![],
        );
        assert_eq!(c.status, Status::Contradiction);
        assert_eq!(c.contradictions.len(), 1);
        assert!(
            c.contradictions[0].starts_with("a claims"),
            "{:?}",
            c.contradictions
        );
        let c = compare(2, &[], vec!["x is wrong".into()]);
        assert_eq!(c.status, Status::Contradiction);
    }
}
