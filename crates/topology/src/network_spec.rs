//! Specs of single networks (`t1:`, `fat-tree:`, `ring:`, `mesh:`, `torus:`,
//! `multi-cluster:`, `paper-fig1:`): everything [`crate::spec`] accepts but
//! `two-clusters:`, whose clusters are themselves such specs. Kept apart so that the
//! arrows point one way: `spec` → `two_clusters` → `network_spec`, and `spec` →
//! `network_spec`.

use crate::dragonfly::{Dragonfly, DragonflyPlus};
use crate::fat_tree::FatTree;
use crate::grid::Grid;
use crate::hyperx::HyperX;
use crate::multi_cluster::MultiCluster;
use crate::rail::Rail;
use crate::t1::{self, Allocation};
use crate::{Generated, TopologyError};

pub(crate) fn number(spec: &str, what: &str, s: &str) -> Result<usize, TopologyError> {
    s.trim().parse().map_err(|_| TopologyError::BadSpec {
        spec: spec.to_string(),
        why: format!("{what} {s:?} is not a whole number"),
    })
}

pub(crate) fn real(spec: &str, what: &str, s: &str) -> Result<f64, TopologyError> {
    s.trim().parse().map_err(|_| TopologyError::BadSpec {
        spec: spec.to_string(),
        why: format!("{what} {s:?} is not a number"),
    })
}

/// Parses `AxB` (or `A`, `AxBxC`).
pub fn parse_dims(spec: &str, s: &str) -> Result<Vec<usize>, TopologyError> {
    s.split('x').map(|d| number(spec, "dimension", d)).collect()
}

/// The tree of a `fat-tree:M,N` spec (`parts`: what follows the colon, split at commas).
pub(crate) fn fat_tree(arg: &str, parts: &[&str]) -> Result<FatTree, TopologyError> {
    let [m, n] = parts[..] else {
        return Err(TopologyError::BadSpec {
            spec: arg.to_string(),
            why: "give ports and levels, like fat-tree:4,3".to_string(),
        });
    };
    Ok(FatTree::new(
        number(arg, "ports", m)?,
        number(arg, "levels", n)?,
    ))
}

/// Turns a parameter error into an error naming the spec.
pub(crate) fn within(arg: &str, e: TopologyError) -> TopologyError {
    match e {
        TopologyError::BadParameter { name, why } => TopologyError::BadSpec {
            spec: arg.to_string(),
            why: format!("{name}: {why}"),
        },
        e => e,
    }
}

/// The all-to-all traffic of a `dragonfly:`, `dragonfly-plus:`, `rail:` or `hyperx:`
/// spec, built directly (no named routes); `Ok(None)` for any other argument.
pub(crate) fn machine_traffic(arg: &str) -> Result<Option<liquid_model::Traffic>, TopologyError> {
    let Some((kind, rest)) = arg.split_once(':') else {
        return Ok(None);
    };
    let within = |e: TopologyError| within(arg, e);
    let t = match kind {
        "dragonfly" => Dragonfly::parse(arg, rest)?.traffic().map_err(within)?,
        "dragonfly-plus" => DragonflyPlus::parse(arg, rest)?.traffic().map_err(within)?,
        "rail" => Rail::parse(arg, rest)?.traffic().map_err(within)?,
        "hyperx" => HyperX::parse(arg, rest)?.traffic().map_err(within)?,
        _ => return Ok(None),
    };
    Ok(Some(t))
}

/// Builds the network a spec of one network names (every spec but `two-clusters:`).
/// `Ok(None)` when `arg` is not one.
pub fn parse(arg: &str) -> Result<Option<Generated>, TopologyError> {
    let Some((kind, rest)) = arg.split_once(':') else {
        return Ok(None);
    };
    let wrong = |why: &str| TopologyError::BadSpec {
        spec: arg.to_string(),
        why: why.to_string(),
    };
    let within = |e: TopologyError| within(arg, e);
    let parts: Vec<&str> = rest.split(',').collect();
    let g = match kind {
        "t1" => t1::generated(Allocation::parse(rest).map_err(within)?).map_err(within)?,
        "fat-tree" => fat_tree(arg, &parts)?.generated().map_err(within)?,
        "ring" => {
            let [s, k] = parts[..] else {
                return Err(wrong("give switches and hosts per switch, like ring:6,2"));
            };
            Grid::ring(
                number(arg, "switches", s)?,
                number(arg, "hosts per switch", k)?,
            )
            .generated()
            .map_err(within)?
        }
        "mesh" | "torus" => {
            let (dims, k) = match parts[..] {
                [d] => (d, "1"),
                [d, k] => (d, k),
                _ => {
                    return Err(wrong(
                        "give dimensions and hosts per switch, like torus:4x4,1",
                    ))
                }
            };
            let dims = parse_dims(arg, dims)?;
            if dims.len() != 2 {
                return Err(wrong("give two dimensions, like 4x4"));
            }
            Grid {
                dims,
                wrap: kind == "torus",
                hosts_per_switch: number(arg, "hosts per switch", k)?,
                self_transfers: false,
            }
            .generated()
            .map_err(within)?
        }
        "dragonfly" => Dragonfly::parse(arg, rest)?.generated().map_err(within)?,
        "dragonfly-plus" => DragonflyPlus::parse(arg, rest)?
            .generated()
            .map_err(within)?,
        "rail" => Rail::parse(arg, rest)?.generated().map_err(within)?,
        "hyperx" => HyperX::parse(arg, rest)?.generated().map_err(within)?,
        "multi-cluster" => MultiCluster::parse(rest)
            .and_then(|m| m.generated())
            .map_err(within)?,
        "paper-fig1" => {
            if !rest.is_empty() {
                return Err(wrong("paper-fig1: takes no parameters"));
            }
            crate::paper::fig1()
        }
        _ => return Ok(None),
    };
    Ok(Some(g))
}
