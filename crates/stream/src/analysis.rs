//! Λ, bottlenecks and liquid throughput of a streamed model from closed forms, without
//! its transfers.
//!
//! **Derived** (from the formulas of [`crate::tree::Tree::load_classes`], not counted):
//! the load of every class of links, Λ (the largest), the bottleneck classes (the
//! classes at Λ), the total path length (Σ count · load), the liquid ratio (#X / Λ) and
//! the liquid throughput (liquid ratio × link throughput, when one is given).
//! **Computed** (counted from the parameters): hosts, switches, links, transfers.
//! The formulas are checked against the in-memory model's counted loads on small trees
//! by this crate's tests, and every run of the streaming validator counts the loads of
//! the whole schedule and compares them link by link with the formulas.

use serde::Serialize;

use crate::closed::ClosedForm;
use crate::cluster::Clusters;
use crate::tree::{LoadClass, Tree};
use crate::{Model, Structured};

/// The closed-form analysis of a streamed model.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The traffic's name.
    pub model: String,
    /// The spec.
    pub spec: String,
    /// Hosts (computed).
    pub hosts: u64,
    /// Switches (computed).
    pub switches: u64,
    /// Directed links (computed).
    pub links: u64,
    /// Transfers, N(N-1) (computed).
    pub transfers: u64,
    /// Σ of the route lengths (derived).
    pub total_path_length: u64,
    /// Λ, the largest load (derived).
    pub duration: u64,
    /// The classes of links at Λ (derived).
    pub bottlenecks: Vec<LoadClass>,
    /// Number of bottleneck links (derived).
    pub bottleneck_links: u64,
    /// One bottleneck link, by name.
    pub bottleneck_example: String,
    /// Every class of links with its load (derived).
    pub loads: Vec<LoadClass>,
    /// #X / Λ, in units of one link's throughput (derived).
    pub liquid_ratio: f64,
    /// The link throughput used, MB/s (given).
    pub link_throughput: Option<f64>,
    /// Liquid ratio × link throughput, MB/s (derived).
    pub liquid_throughput: Option<f64>,
    /// Which figures are computed and which derived, in words.
    pub figures: String,
}

/// The analysis of a streamed model's all-to-all; `link_throughput` in MB/s, when known.
pub fn analyze_model(model: &Model, link_throughput: Option<f64>) -> Analysis {
    match model {
        Model::Tree(t) => analyze(t, link_throughput),
        Model::Clusters(c) => analyze_clusters(c, link_throughput),
        Model::Dragonfly(d) => analyze_closed_form(d.as_ref(), link_throughput),
        Model::DragonflyPlus(d) => analyze_closed_form(d.as_ref(), link_throughput),
        Model::Rail(d) => analyze_closed_form(d.as_ref(), link_throughput),
        Model::HyperX(d) => analyze_closed_form(d.as_ref(), link_throughput),
    }
}

/// The analysis of the all-to-all of a machine streamed from closed forms (a dragonfly,
/// Dragonfly+, rail-optimised fat-tree or HyperX): hosts, switches, links and transfers
/// computed from the parameters; loads by class, Λ, bottlenecks and liquid throughput
/// derived from the closed-form loads (tested against the counted loads of the
/// in-memory models), not counted.
pub fn analyze_closed_form(d: &impl ClosedForm, link_throughput: Option<f64>) -> Analysis {
    let loads = d.load_classes();
    let total: u64 = loads.iter().map(|x| x.count * x.load).sum();
    finish(
        Analysis {
            model: d.name(),
            spec: d.spec(),
            hosts: d.hosts() as u64,
            switches: d.switches(),
            links: d.links() as u64,
            transfers: d.transfers(),
            total_path_length: total,
            duration: d.duration(),
            bottlenecks: Vec::new(),
            bottleneck_links: 0,
            bottleneck_example: (0..d.links())
                .find(|&l| d.load(l) == d.duration())
                .map(|l| d.link_name(l))
                .unwrap_or_default(),
            loads,
            liquid_ratio: 0.0,
            link_throughput,
            liquid_throughput: None,
            figures: format!(
                "computed from the parameters: hosts, switches, links, transfers; derived from \
                 closed-form loads (not counted): loads, duration, bottlenecks, \
                 total_path_length, liquid_ratio, liquid_throughput. Streamed schedule: {}",
                match d.not_streamed() {
                    None => format!(
                        "yes (closed-form {} rounds, {} frames)",
                        d.family(),
                        d.frames()
                    ),
                    Some(why) => format!("none ({why})"),
                }
            ),
        },
        link_throughput,
    )
}

/// The analysis of a multi-cluster system's all-to-all: loads counted by route classes
/// ([`liquid_topology::multi_cluster::Wiring::all_to_all_loads`]), not per transfer.
pub fn analyze_clusters(c: &Clusters, link_throughput: Option<f64>) -> Analysis {
    let loads = c.load_classes();
    let duration = c.duration();
    let transfers = c.transfers();
    let total: u64 = loads.iter().map(|x| x.count * x.load).sum();
    finish(
        Analysis {
            model: c.name(),
            spec: Structured::spec(c),
            hosts: c.hosts() as u64,
            switches: c.switches(),
            links: c.links() as u64,
            transfers,
            total_path_length: total,
            duration,
            bottlenecks: Vec::new(),
            bottleneck_links: 0,
            bottleneck_example: c.bottleneck_example(),
            loads,
            liquid_ratio: 0.0,
            link_throughput,
            liquid_throughput: None,
            figures: format!(
                "computed from the parameters: hosts, switches, transfers; computed from the \
                 wiring (vertices and channels, no route list) and counted by route classes \
                 (a route part once per class with its multiplicity, not once per transfer): \
                 links, loads, duration, bottlenecks, total_path_length; derived: \
                 liquid_ratio, liquid_throughput. Streamed schedule: {}",
                match c.not_streamed() {
                    None => "yes (cluster orbit frames)".to_string(),
                    Some(why) => format!("none ({why})"),
                }
            ),
        },
        link_throughput,
    )
}

fn finish(mut a: Analysis, link_throughput: Option<f64>) -> Analysis {
    a.bottlenecks = a
        .loads
        .iter()
        .filter(|c| c.load == a.duration)
        .cloned()
        .collect();
    a.bottleneck_links = a.bottlenecks.iter().map(|c| c.count).sum();
    let ratio = a.transfers as f64 / a.duration as f64;
    a.liquid_ratio = round(ratio, 4);
    a.liquid_throughput = link_throughput.map(|t| round(t * ratio, 2));
    a
}

fn round(x: f64, d: i32) -> f64 {
    let p = 10f64.powi(d);
    (x * p).round() / p
}

/// The analysis of `tree`'s all-to-all; `link_throughput` in MB/s, when known.
pub fn analyze(tree: &Tree, link_throughput: Option<f64>) -> Analysis {
    let loads = tree.load_classes();
    let duration = tree.duration();
    let bottlenecks: Vec<LoadClass> = loads
        .iter()
        .filter(|c| c.load == duration)
        .cloned()
        .collect();
    let ratio = tree.transfers() as f64 / duration as f64;
    let round = |x: f64, d: i32| {
        let p = 10f64.powi(d);
        (x * p).round() / p
    };
    Analysis {
        model: tree.name(),
        spec: tree.spec(),
        hosts: tree.hosts() as u64,
        switches: tree.switches() as u64,
        links: tree.links() as u64,
        transfers: tree.transfers(),
        total_path_length: tree.total_path_length(),
        duration,
        bottleneck_links: bottlenecks.iter().map(|c| c.count).sum(),
        bottleneck_example: tree.link_name(0),
        bottlenecks,
        loads,
        liquid_ratio: round(ratio, 4),
        link_throughput,
        liquid_throughput: link_throughput.map(|t| round(t * ratio, 2)),
        figures: "computed from the parameters: hosts, switches, links, transfers; derived from \
                  closed-form loads (not counted): loads, duration, bottlenecks, \
                  total_path_length, liquid_ratio, liquid_throughput"
            .into(),
    }
}
