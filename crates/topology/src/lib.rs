//! Network builders for liquid: networks of end nodes, switches and directed links with
//! static routing, and traffic patterns over them, built programmatically and expanded
//! into a [`Traffic`] by the model crate ([`liquid_model::network::expand`]).
//!
//! - [`paper`]: the 2-switch network of the worked example (000/003/004 Fig. 1);
//! - [`t1`]: the Swiss-T1 testbed (8 switches in a K-ring, 4 nodes each) and its
//!   allocation vectors, with a fast per-allocation load computation;
//! - [`grid`]: rings, 2-D (or n-D) meshes and tori with dimension-order routing;
//! - [`fat_tree`]: m-port n-trees with deterministic up*/down* routing (002 section 2);
//! - [`multi_cluster`]: heterogeneous multi-cluster systems of m-port trees (002);
//! - [`two_clusters`]: two clusters (crossbars or copies of any generated topology) joined by
//!   a backbone with its own bandwidth and latency
//!   (paper 001), links with their bandwidth and latency;
//! - [`dragonfly`]: dragonflies (Kim et al. 2008) and Dragonfly+ (Shpiner et al. 2017),
//!   palm-tree global links, minimal routing;
//! - [`rail`]: rail-optimised GPU fat-trees, with or without NCCL's PXN;
//! - [`hyperx`]: HyperX (Ahn et al. 2009) with dimension-order routing;
//! - [`closed_form`]: the closed-form liquid schedules of those machines' all-to-alls, one
//!   entry point, and the recognition of a traffic as such a machine's all-to-all;
//! - [`spec`]: short textual specs (`t1:4,4,4,4,0,0,2,1`, `fat-tree:4,3`, ...).
//!
//! Every builder returns a [`Generated`]: a [`Network`] whose routing is explicit (a route
//! for every pair of the pattern) and a [`Pattern`].
#![forbid(unsafe_code)]

pub mod closed_form;
mod direct;
pub mod dragonfly;
pub mod fabric;
pub mod fat_tree;
pub mod field;
pub mod grid;
pub mod hyperx;
pub mod multi_cluster;
pub mod network_spec;
pub mod paper;
pub mod rail;
pub mod ratio;
pub mod spec;
pub mod t1;
pub mod two_clusters;

use std::collections::HashMap;

use liquid_model::network::{
    self, LinkParams, NetLink, Network, NetworkError, Pattern, Route, Routing,
};
use liquid_model::{yaml, Traffic};
use thiserror::Error;

pub use fabric::MAX_FABRIC_HOSTS;
pub use ratio::Ratio;

/// The largest number of hosts a generated network may have (routes are listed for every
/// pair, so the model grows with the square of this).
pub const MAX_HOSTS: usize = 1024;

/// Added to the refusal of a machine of `hosts` hosts, too large for memory, that `--stream`
/// takes (fat-trees, multi-cluster systems, dragonflies, Dragonflies+, rail machines and
/// HyperX up to [`multi_cluster::MAX_STREAMED_NODES`] hosts, the streamed machines' limit).
pub(crate) fn stream_hint(hosts: Option<u128>) -> &'static str {
    if hosts.is_some_and(|n| n <= multi_cluster::MAX_STREAMED_NODES as u128) {
        "; --stream works from closed forms instead (analyze; solve, verify and export mpi where the machine has a closed-form schedule)"
    } else {
        ""
    }
}

/// Why a topology could not be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TopologyError {
    /// A parameter out of range or malformed.
    #[error("{name}: {why}")]
    BadParameter {
        /// The parameter (`--ports`, `alloc`, ...).
        name: String,
        /// What is wrong.
        why: String,
    },
    /// A spec string that cannot be read.
    #[error("bad generated-model spec {spec:?}: {why}")]
    BadSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// A parameter that is required unless another is given.
    #[error("{name} is required (or give {alternative})")]
    Missing {
        /// The parameter (`--n1`, ...).
        name: String,
        /// What may be given instead.
        alternative: String,
    },
    /// The network could not be expanded (a builder bug if it happens).
    #[error(transparent)]
    Network(#[from] NetworkError),
}

pub(crate) fn bad(name: &str, why: impl Into<String>) -> TopologyError {
    TopologyError::BadParameter {
        name: name.to_string(),
        why: why.into(),
    }
}

/// A generated model: a network with explicit routes and a pattern over its hosts.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    /// Model name.
    pub name: String,
    /// Model description (provenance, parameters).
    pub description: String,
    /// Link throughput in MB/s, when known.
    pub link_throughput: Option<f64>,
    /// The network.
    pub network: Network,
    /// Each link's own bandwidth and latency, parallel to `network.links` (empty when the
    /// builder sets none: the model-wide values apply).
    pub link_params: Vec<LinkParams>,
    /// Each link's port number at its tail node, parallel to `network.links`, when the
    /// generator cables the network itself (tori, meshes and rings: by dimension, as
    /// OpenSM's dor routing needs); empty otherwise. Used by `export ibsim` only.
    pub ports: Vec<u32>,
    /// The traffic pattern.
    pub pattern: Pattern,
}

impl Generated {
    /// Expands the model into a traffic through the model crate.
    pub fn expand(&self) -> Result<Traffic, NetworkError> {
        network::expand(
            &self.name,
            Some(self.description.clone()),
            self.link_throughput,
            &self.network,
            &self.pattern,
        )
    }

    /// The model in the explicit form (every transfer with its path; a model file).
    pub fn to_explicit_yaml(&self) -> Result<String, NetworkError> {
        Ok(yaml::write_explicit(&self.expand()?))
    }

    /// The model in the network form (a model file).
    pub fn to_network_yaml(&self) -> String {
        yaml::write_network_with_params(
            &self.name,
            Some(&self.description),
            self.link_throughput,
            &self.network,
            &self.link_params,
            &self.pattern,
        )
    }
}

/// Accumulates hosts, switches, directed links and explicit routes by index.
#[derive(Debug, Default)]
pub(crate) struct NetBuilder {
    pub(crate) hosts: Vec<String>,
    pub(crate) switches: Vec<String>,
    pub(crate) links: Vec<NetLink>,
    link_at: HashMap<(String, String), usize>,
    routes: Vec<Route>,
}

impl NetBuilder {
    pub(crate) fn host(&mut self, id: String) {
        self.hosts.push(id);
    }

    pub(crate) fn switch(&mut self, id: String) {
        self.switches.push(id);
    }

    /// Adds the directed link `from>to` (once; a second call returns the same index).
    pub(crate) fn link(&mut self, from: &str, to: &str) -> usize {
        let key = (from.to_string(), to.to_string());
        if let Some(&i) = self.link_at.get(&key) {
            return i;
        }
        let i = self.links.len();
        self.links.push(NetLink {
            id: format!("{from}>{to}"),
            from: from.to_string(),
            to: to.to_string(),
        });
        self.link_at.insert(key, i);
        i
    }

    /// Adds a directed link `from -> to` named `id` (for parallel links between the same
    /// nodes, which `link` would merge). Not indexed by its ends.
    pub(crate) fn named_link(&mut self, id: &str, from: &str, to: &str) -> usize {
        self.links.push(NetLink {
            id: id.to_string(),
            from: from.to_string(),
            to: to.to_string(),
        });
        self.links.len() - 1
    }

    /// The index of the directed link `from>to`; panics if it was never added (a builder
    /// bug, caught by the builders' tests).
    pub(crate) fn link_index(&self, from: &str, to: &str) -> usize {
        *self
            .link_at
            .get(&(from.to_string(), to.to_string()))
            .unwrap_or_else(|| panic!("builder bug: no link {from}>{to}"))
    }

    pub(crate) fn route(&mut self, from: &str, to: &str, path: &[usize]) {
        self.routes.push(Route {
            from: from.to_string(),
            to: to.to_string(),
            path: path.iter().map(|&i| self.links[i].id.clone()).collect(),
        });
    }

    pub(crate) fn finish(self) -> Network {
        Network {
            hosts: self.hosts,
            switches: self.switches,
            links: self.links,
            routing: Routing::Explicit,
            routes: self.routes,
        }
    }
}

/// The all-to-all pattern over `hosts` (senders = receivers).
pub fn all_to_all(hosts: &[String], self_transfers: bool) -> Pattern {
    Pattern::AllToAll {
        senders: hosts.to_vec(),
        receivers: hosts.to_vec(),
        self_transfers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal of a machine too large for memory points to `--stream` only where the
    /// streamed machines go (up to their limit), not for any size.
    #[test]
    fn the_stream_hint_stops_at_the_streamed_limit() {
        let max = multi_cluster::MAX_STREAMED_NODES as u128;
        assert!(stream_hint(Some(8192)).contains("--stream"));
        assert!(stream_hint(Some(max)).contains("--stream"));
        assert_eq!(stream_hint(Some(max + 1)), "");
        assert_eq!(stream_hint(None), "");
        let e = fat_tree::FatTree::new(64, 9)
            .traffic()
            .expect_err("beyond memory and --stream");
        assert!(!e.to_string().contains("--stream"), "{e}");
        let e = fat_tree::FatTree::new(32, 3)
            .traffic()
            .expect_err("beyond memory");
        assert!(e.to_string().contains("--stream"), "{e}");
    }
}
