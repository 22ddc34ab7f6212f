//! Independent replications: means with Student-t 95 % confidence intervals.

use crate::{Means, Run};

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom
/// (`t_{0.975, df}`; tabulated to 30, then the 1.96 of the normal law approached by
/// `1.96 + 2.4/df`).
pub fn student_t_975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// A mean over replications and the half-width of its 95 % confidence interval
/// (`None` with one replication).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The mean of the replications' values.
    pub mean: f64,
    /// `t_{0.975, R−1} · s / √R`, with `s` the replications' standard deviation.
    pub half_width: Option<f64>,
}

impl Estimate {
    /// The estimate from the replications' values.
    pub fn of(values: &[f64]) -> Estimate {
        let r = values.len();
        let mean = values.iter().sum::<f64>() / r.max(1) as f64;
        let half_width = (r >= 2).then(|| {
            let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (r - 1) as f64;
            student_t_975(r - 1) * (var / r as f64).sqrt()
        });
        Estimate { mean, half_width }
    }
}

/// Estimates over one group of messages (a cluster, or all).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupEstimate {
    /// Counted messages, summed over the replications.
    pub messages: u64,
    /// Of which between clusters.
    pub inter: u64,
    /// Mean latency.
    pub latency: Estimate,
    /// Mean source waiting.
    pub source_wait: Estimate,
    /// Mean network time.
    pub network: Estimate,
    /// Mean waiting at concentrators/dispatchers.
    pub concentrator_wait: Estimate,
}

impl GroupEstimate {
    fn of(groups: &[&Means]) -> GroupEstimate {
        let e =
            |f: fn(&Means) -> f64| Estimate::of(&groups.iter().map(|g| f(g)).collect::<Vec<_>>());
        GroupEstimate {
            messages: groups.iter().map(|g| g.messages).sum(),
            inter: groups.iter().map(|g| g.inter).sum(),
            latency: e(|g| g.latency),
            source_wait: e(|g| g.source_wait),
            network: e(|g| g.network),
            concentrator_wait: e(|g| g.concentrator_wait),
        }
    }
}

/// Independent replications of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The runs, in order.
    pub runs: Vec<Run>,
    /// Over all counted messages.
    pub overall: GroupEstimate,
    /// Per cluster of the source.
    pub clusters: Vec<GroupEstimate>,
}

impl Summary {
    /// Summarises replications (at least one).
    pub fn of(runs: Vec<Run>) -> Summary {
        let overall = GroupEstimate::of(&runs.iter().map(|r| &r.overall).collect::<Vec<_>>());
        let c = runs.first().map_or(0, |r| r.clusters.len());
        let clusters = (0..c)
            .map(|i| GroupEstimate::of(&runs.iter().map(|r| &r.clusters[i]).collect::<Vec<_>>()))
            .collect();
        Summary {
            runs,
            overall,
            clusters,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_interval_by_hand() {
        let e = Estimate::of(&[1.0, 2.0, 3.0]);
        assert_eq!(e.mean, 2.0);
        // s = 1, t_{0.975,2} = 4.303: 4.303 / sqrt(3).
        assert!((e.half_width.expect("3 values") - 4.303 / 3f64.sqrt()).abs() < 1e-12);
        assert_eq!(Estimate::of(&[5.0]).half_width, None);
        assert!(student_t_975(40) > 1.96 && student_t_975(40) < student_t_975(30));
    }
}
