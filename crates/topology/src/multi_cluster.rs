//! Heterogeneous multi-cluster systems (paper 002 section 2): `C` clusters, cluster `i`
//! an m-port n_i-tree (`N_i = 2·(m/2)^n_i` nodes), joined through concentrators /
//! dispatchers by a second-level m-port n_c-tree (ICN2) whose nodes are the clusters.
//!
//! This module holds the parameters of such a system and their textual form,
//! `M,LIST[,NC]`, where `LIST` is a `+`-separated list of `COUNTxN` (COUNT clusters that
//! are m-port N-trees) or `N` (one cluster), e.g. 002's Table 1 organisations
//! `8,12x1+16x2+4x3` (N = 1120, C = 32) and `4,8x3+3x4+5x5` (N = 544, C = 16).
//! `NC` defaults to the smallest ICN2 with `2·(m/2)^NC ≥ C` node ports; 002 sizes the
//! ICN2 so that `C = 2·(m/2)^n_c` exactly, which both organisations of Table 1 satisfy.

use crate::fat_tree::FatTree;
use crate::{bad, TopologyError};

/// The largest number of clusters accepted.
pub const MAX_CLUSTERS: usize = 4096;

/// The largest tree height (of a cluster or of the ICN2) accepted.
pub const MAX_LEVELS: usize = 24;

/// Parameters of a heterogeneous multi-cluster system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiCluster {
    /// Ports per switch, `m` (even, at least 4), the same in every network.
    pub ports: usize,
    /// Height of every cluster's tree, `n_i`, in cluster order.
    pub clusters: Vec<usize>,
    /// Height of the second-level tree (ICN2), `n_c`.
    pub icn2_levels: usize,
}

impl MultiCluster {
    /// Checked parameters; `icn2_levels: None` chooses the smallest ICN2 with at least
    /// `C` node ports.
    pub fn new(
        ports: usize,
        clusters: Vec<usize>,
        icn2_levels: Option<usize>,
    ) -> Result<MultiCluster, TopologyError> {
        if ports < 4 || ports % 2 == 1 {
            return Err(bad("ports", "m must be even and at least 4"));
        }
        if clusters.is_empty() {
            return Err(bad("clusters", "at least one cluster is needed"));
        }
        if clusters.len() > MAX_CLUSTERS {
            return Err(bad(
                "clusters",
                format!("{} clusters; at most {MAX_CLUSTERS}", clusters.len()),
            ));
        }
        if let Some(&n) = clusters.iter().find(|&&n| n == 0 || n > MAX_LEVELS) {
            return Err(bad(
                "clusters",
                format!("a cluster of height {n}; heights run from 1 to {MAX_LEVELS}"),
            ));
        }
        let k = ports / 2;
        let capacity = |nc: usize| 2u128.saturating_mul((k as u128).saturating_pow(nc as u32));
        let c = clusters.len() as u128;
        let icn2_levels = match icn2_levels {
            Some(nc) => {
                if nc == 0 || nc > MAX_LEVELS {
                    return Err(bad(
                        "icn2 levels",
                        format!("n_c = {nc}; it runs from 1 to {MAX_LEVELS}"),
                    ));
                }
                if capacity(nc) < c {
                    return Err(bad(
                        "icn2 levels",
                        format!(
                            "an m-port {nc}-tree has {} node ports, fewer than the {c} clusters",
                            capacity(nc)
                        ),
                    ));
                }
                nc
            }
            None => (1..=MAX_LEVELS)
                .find(|&nc| capacity(nc) >= c)
                .expect("MAX_CLUSTERS fits in a tree of MAX_LEVELS levels"),
        };
        Ok(MultiCluster {
            ports,
            clusters,
            icn2_levels,
        })
    }

    /// Parses the textual form `M,LIST[,NC]` (see the module docs).
    pub fn parse(s: &str) -> Result<MultiCluster, TopologyError> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() < 2 || parts.len() > 3 {
            return Err(bad(
                "multi-cluster",
                format!("{s:?}: expected M,LIST or M,LIST,NC (e.g. 8,12x1+16x2+4x3)"),
            ));
        }
        let number = |what: &str, t: &str| -> Result<usize, TopologyError> {
            t.trim()
                .parse()
                .map_err(|_| bad(what, format!("{t:?} is not a whole number")))
        };
        let ports = number("ports", parts[0])?;
        let mut clusters = Vec::new();
        for item in parts[1].split('+') {
            let (count, height) = match item.split_once('x') {
                Some((c, n)) => (number("cluster count", c)?, number("cluster height", n)?),
                None => (1, number("cluster height", item)?),
            };
            if count == 0 {
                return Err(bad("cluster count", format!("{item:?} has no clusters")));
            }
            if clusters.len() + count > MAX_CLUSTERS {
                return Err(bad(
                    "clusters",
                    format!("more than {MAX_CLUSTERS} clusters"),
                ));
            }
            clusters.extend(std::iter::repeat_n(height, count));
        }
        let nc = parts.get(2).map(|t| number("icn2 levels", t)).transpose()?;
        MultiCluster::new(ports, clusters, nc)
    }

    /// The textual form, clusters grouped by runs of equal height (`8,12x1+16x2+4x3,2`).
    pub fn spec(&self) -> String {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &n in &self.clusters {
            match runs.last_mut() {
                Some((count, h)) if *h == n => *count += 1,
                _ => runs.push((1, n)),
            }
        }
        let list: Vec<String> = runs
            .iter()
            .map(|&(count, n)| {
                if count == 1 {
                    n.to_string()
                } else {
                    format!("{count}x{n}")
                }
            })
            .collect();
        format!("{},{},{}", self.ports, list.join("+"), self.icn2_levels)
    }

    /// Number of clusters, `C`.
    pub fn cluster_count(&self) -> usize {
        self.clusters.len()
    }

    /// Cluster `i`'s tree (ICN1 and ECN1 have this shape).
    pub fn cluster_tree(&self, i: usize) -> FatTree {
        FatTree::new(self.ports, self.clusters[i])
    }

    /// Number of nodes of cluster `i`, `N_i = 2·(m/2)^n_i` (002 eq. 1), saturating.
    pub fn cluster_nodes(&self, i: usize) -> u128 {
        2u128.saturating_mul(((self.ports / 2) as u128).saturating_pow(self.clusters[i] as u32))
    }

    /// Number of nodes of the whole system, `N = Σ N_i`, saturating.
    pub fn nodes(&self) -> u128 {
        (0..self.cluster_count()).fold(0u128, |acc, i| acc.saturating_add(self.cluster_nodes(i)))
    }

    /// The second-level tree (ICN2), whose node ports take the clusters' concentrators /
    /// dispatchers, cluster `i` at port `i`.
    pub fn icn2(&self) -> FatTree {
        FatTree::new(self.ports, self.icn2_levels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_1_organisations() {
        let a = MultiCluster::parse("8,12x1+16x2+4x3").expect("table 1");
        assert_eq!((a.cluster_count(), a.nodes(), a.icn2_levels), (32, 1120, 2));
        assert_eq!(a.spec(), "8,12x1+16x2+4x3,2");
        let b = MultiCluster::parse("4,8x3+3x4+5x5").expect("table 1");
        assert_eq!((b.cluster_count(), b.nodes(), b.icn2_levels), (16, 544, 3));
        assert_eq!(MultiCluster::parse(&b.spec()).expect("own spec"), b);
    }

    #[test]
    fn single_items_and_explicit_nc() {
        let s = MultiCluster::parse("4,2+3,3").expect("valid");
        assert_eq!(s.clusters, vec![2, 3]);
        assert_eq!(s.icn2_levels, 3);
        assert_eq!(s.cluster_nodes(1), 16);
        assert_eq!(s.spec(), "4,2+3,3");
    }

    #[test]
    fn bad_parameters_are_named() {
        for (s, field) in [
            ("3,2x1", "ports"),
            ("8", "multi-cluster"),
            ("8,0x1", "cluster count"),
            ("8,2x0", "clusters"),
            ("8,2xa", "cluster height"),
            ("4,8x1,1", "icn2 levels"),
            ("4,1,0", "icn2 levels"),
        ] {
            match MultiCluster::parse(s) {
                Err(TopologyError::BadParameter { name, .. }) => assert_eq!(name, field, "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
    }
}
