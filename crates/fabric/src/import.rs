//! From a topology and forwarding tables to a network-form model: every selected host
//! pair's route, followed hop by hop from the source adapter through the switches' tables
//! to the destination's LID.
//!
//! # The model
//! - Switches are named `S-<node GUID>` (as ibnetdiscover names them), adapters by their
//!   host name, the first word of the node description (`"n001 HCA-1"` → `n001`). The
//!   model file's leading comments list every node's GUID, LID and description.
//! - Names need to be unique, non-empty and not a switch's among the selected hosts
//!   only, and a selected host's port needs a LID (not 0); with no selection every
//!   adapter is selected. An adapter left out that its first word cannot name (a storage
//!   server with the firmware's description, an empty one, a multi-rail node's) is named
//!   `H-<port or node GUID>` as ibnetdiscover names it; [`Imported::notes`] says how many
//!   and why, and notes adapters left out whose port has LID 0.
//! - One directed link per connected port and direction, named `<node>/<port>`: the link
//!   that leaves that node by that port (`S-0002c90300a1b2c3/17`, `n001/1`).
//! - A host sends and receives on its adapter's lowest-numbered connected port (port 1 on
//!   the usual single-port cluster); a second connected port stays in the network, unused
//!   by the routes.
//! - Routes are explicit (`routing: explicit`), one per ordered pair of selected hosts.
//! - Link rates: the width and speed ibnetdiscover prints for each port (`4xEDR`) give
//!   its link's data rate ([`crate::topology::Rate::mb_s`]). The rate most links run at
//!   is the model's `link_throughput`; a link at another rate (a cable trained at 1X, a
//!   slower adapter) gets its own `bandwidth`, and [`Imported::notes`] names it. Without
//!   any rate in the file the model has none (give `--link-throughput`).
//!
//! # LMC > 0
//! With LMC l a port has 2^l LIDs and the tables may route each differently. A message
//! goes to the LID its sender chose; MPI libraries use the base LID unless told otherwise
//! (path bits 0). The model follows the base LID of every destination: one path per pair.
//! [`Imported::notes`] says so whenever a port has LMC > 0.
//!
//! # Unrouted pairs
//! A switch on the way without an entry for the destination's LID leaves the pair
//! unrouted. That is an error unless `allow_unrouted` is set; then the model's pattern is
//! the routed pairs only and [`Summary::unrouted`] lists every other pair, with the switch
//! and the LID where its route stops.

use std::collections::{BTreeMap, HashMap};

use liquid_model::network::{LinkParams, NetLink, Network, Pair, Pattern, Route, Routing};

use crate::hosts::Selection;
use crate::lft::Lfts;
use crate::topology::{NodeKind, Rate, Topology};
use crate::{guid_str, FabricError};

/// What to import.
#[derive(Debug, Clone)]
pub struct Options {
    /// The model's name.
    pub name: String,
    /// Which hosts the traffic covers.
    pub selection: Selection,
    /// Import the routed pairs when some are unrouted (listed in the summary) instead of
    /// refusing.
    pub allow_unrouted: bool,
}

/// A host pair the subnet manager left without a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrouted {
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// The switch whose table has no entry (its model id).
    pub switch: String,
    /// The destination LID.
    pub lid: u16,
}

/// Figures of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Switches in the fabric.
    pub switches: usize,
    /// Adapters in the fabric.
    pub adapters: usize,
    /// Hosts the traffic covers.
    pub hosts: usize,
    /// Routes followed.
    pub routes: usize,
    /// Pairs without a route.
    pub unrouted: Vec<Unrouted>,
    /// Number of routes by hop count (links on the path).
    pub hops: BTreeMap<usize, usize>,
}

/// An imported fabric: the model and where each link comes from.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Model name.
    pub name: String,
    /// Model description.
    pub description: String,
    /// The network, with explicit routes.
    pub network: Network,
    /// The traffic: the all-to-all of the selected hosts (or, with unrouted pairs
    /// allowed, the routed pairs).
    pub pattern: Pattern,
    /// Figures.
    pub summary: Summary,
    /// Remarks the user should read (LMC handling, links at another rate, adapters left
    /// out of the selection named by GUID or with LID 0, short names matched).
    pub notes: Vec<String>,
    /// The rate most links run at, MB/s (the model's `link_throughput`); `None` when the
    /// topology file prints no rates.
    pub link_throughput: Option<f64>,
    /// Per link (as `network.links`), its own bandwidth when its rate is not
    /// `link_throughput`'s.
    pub link_params: Vec<LinkParams>,
    /// YAML comment lines listing every node (GUID, LID, description).
    pub header: String,
    /// For each link, the topology node and port it leaves by.
    pub link_ends: Vec<(usize, u8)>,
    /// Host name → topology node index and the port it uses.
    pub host_ports: HashMap<String, (usize, u8)>,
}

impl Imported {
    /// The model file: the header comments and the network form.
    pub fn to_yaml(&self) -> String {
        let mut out = self.header.clone();
        out.push_str(&liquid_model::yaml::write_network_with_params(
            &self.name,
            Some(&self.description),
            self.link_throughput,
            &self.network,
            &self.link_params,
            &self.pattern,
        ));
        out
    }
}

/// Imports a fabric (see the module docs).
pub fn import(topo: &Topology, lfts: &Lfts, opts: &Options) -> Result<Imported, FabricError> {
    let lfile = lfts.file.as_str();
    let tfile = topo.file.as_str();
    // Every table belongs to a switch of the topology, and names its destinations as the
    // topology does.
    let port_base: HashMap<u64, u16> = topo
        .lids
        .iter()
        .filter(|(_, t)| t.offset == 0)
        .map(|(&lid, &t)| (topo.lid_guid(t), lid))
        .collect();
    // Adapter ports with LID 0 in the topology (no LID yet when it was collected), by port
    // GUID: the tables, collected a moment later, may route the LID the port got since.
    // Refused for a selected host (`name_hosts`); no route needs one left out.
    let zero_ports: std::collections::HashSet<u64> = topo
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Adapter)
        .flat_map(|n| {
            n.ports
                .values()
                .filter(|p| p.lid == 0)
                .map(move |p| p.guid.unwrap_or(n.guid))
        })
        .collect();
    let mut lmc_in_tables = false;
    for t in &lfts.tables {
        let Some(s) = topo.node_by_guid(NodeKind::Switch, t.guid) else {
            return Err(FabricError::at(
                lfile,
                t.line,
                format!(
                    "switch {} ({:?}) has a forwarding table here, but {tfile} has no switch with that GUID: were both files collected from the same fabric?",
                    guid_str(t.guid),
                    t.desc
                ),
            ));
        };
        let mut dests: Vec<(&u16, &u64)> = t.dests.iter().collect();
        dests.sort();
        for (&lid, &g) in dests {
            let line = t.line_of(lid).unwrap_or(t.line);
            match topo.lids.get(&lid) {
                // ibnetdiscover -p prints no LMC: a LID above a port's base LID that the
                // tables give to the same port GUID is one of its LMC LIDs.
                None if topo.form == crate::topology::Form::Ports
                    && lmc_lid_of(&port_base, g, lid) =>
                {
                    lmc_in_tables = true;
                }
                None if zero_ports.contains(&g) => {}
                None => {
                    return Err(FabricError::at(
                        lfile,
                        line,
                        format!(
                            "switch {} routes LID {lid} (port GUID {}), which no port of {tfile} has: were both files collected from the same fabric at the same time?",
                            topo.nodes[s].switch_id(),
                            guid_str(g)
                        ),
                    ))
                }
                Some(&target) => {
                    let tg = topo.lid_guid(target);
                    if tg != g {
                        return Err(FabricError::at(
                            lfile,
                            line,
                            format!(
                                "switch {}: LID {lid} belongs to port GUID {} here but to {} ({}) in {tfile}: were both files collected from the same fabric at the same time?",
                                topo.nodes[s].switch_id(),
                                guid_str(g),
                                guid_str(tg),
                                topo.nodes[target.node].label()
                            ),
                        ));
                    }
                }
            }
        }
    }

    // Hosts: adapters named by the first word of their description. Names must be
    // unique, non-empty and not a switch's among the selected hosts only (with no
    // selection, every adapter is selected); an adapter left out that its first word
    // cannot name is named by GUID, as ibnetdiscover names it.
    let names = name_hosts(topo, &opts.selection)?;
    let HostNames {
        selected,
        by_name,
        notes: name_notes,
    } = names;
    if selected.len() < 2 {
        return Err(FabricError::file(
            tfile,
            format!(
                "{} host(s) selected: an all-to-all needs at least 2",
                selected.len()
            ),
        ));
    }
    // Refused before the routes are followed: a model no command could read (a 2,304-host
    // fabric was imported in 10 s and 3.2 GB, and `analyze` refused it after 23 s).
    let n = selected.len() as u64;
    let max = liquid_model::network::MAX_TRANSFERS;
    if n * (n - 1) > max {
        let most = (1..=n)
            .take_while(|&k| k * (k - 1) <= max)
            .last()
            .unwrap_or(1);
        return Err(FabricError::file(
            tfile,
            format!(
                "{n} hosts selected: their all-to-all has {} transfers, more than the {max} a \
                 model may hold; choose at most {most} hosts with --hosts, --hostfile or \
                 SLURM_JOB_NODELIST (a job's allocation)",
                n * (n - 1)
            ),
        ));
    }

    // Node ids and links: switches by GUID, then adapters by host name; ports in order.
    let mut switches: Vec<usize> = (0..topo.nodes.len())
        .filter(|&i| topo.nodes[i].kind == NodeKind::Switch)
        .collect();
    switches.sort_by_key(|&i| topo.nodes[i].guid);
    let mut adapters: Vec<(&String, usize)> = by_name.iter().map(|(k, &v)| (k, v)).collect();
    adapters.sort();
    let mut id: Vec<String> = vec![String::new(); topo.nodes.len()];
    for &s in &switches {
        id[s] = topo.nodes[s].switch_id();
    }
    for &(name, a) in &adapters {
        id[a] = name.clone();
    }
    let order: Vec<usize> = switches
        .iter()
        .copied()
        .chain(adapters.iter().map(|&(_, a)| a))
        .collect();
    let mut links: Vec<NetLink> = Vec::new();
    let mut link_ends: Vec<(usize, u8)> = Vec::new();
    // Link index by node and port (usize::MAX: none), for the million lookups below.
    let mut link_of: Vec<[usize; 256]> = vec![[usize::MAX; 256]; topo.nodes.len()];
    for &i in &order {
        for p in topo.nodes[i].ports.values() {
            link_of[i][p.num as usize] = links.len();
            link_ends.push((i, p.num));
            links.push(NetLink {
                id: format!("{}/{}", id[i], p.num),
                from: id[i].clone(),
                to: id[p.remote].clone(),
            });
        }
    }

    // Each selected host's port and LID (1 or more: `name_hosts` refuses a selected
    // adapter's connected port with LID 0 at its line).
    let mut host_ports: HashMap<String, (usize, u8)> = HashMap::new();
    let mut dlid: HashMap<&str, u16> = HashMap::new();
    for name in &selected {
        let a = by_name[name];
        let n = &topo.nodes[a];
        let Some(p) = n.ports.values().next() else {
            return Err(FabricError::at(
                tfile,
                n.line,
                format!("host {name:?} ({}) has no connected port", n.label()),
            ));
        };
        host_ports.insert(name.clone(), (a, p.num));
        dlid.insert(name, p.lid);
    }

    // Each switch's table, by node index.
    let table_of: Vec<Option<usize>> = topo
        .nodes
        .iter()
        .map(|n| match n.kind {
            NodeKind::Switch => lfts.by_guid.get(&n.guid).copied(),
            NodeKind::Adapter => None,
        })
        .collect();

    // Follow every pair.
    let nswitches = switches.len();
    let mut routes: Vec<Route> = Vec::with_capacity(selected.len() * (selected.len() - 1));
    let mut unrouted: Vec<Unrouted> = Vec::new();
    let mut hops: BTreeMap<usize, usize> = BTreeMap::new();
    let mut path: Vec<usize> = Vec::new();
    let mut visited: Vec<usize> = Vec::new();
    for src in &selected {
        let (sa, sp) = host_ports[src];
        for dst in &selected {
            if src == dst {
                continue;
            }
            let (da, _) = host_ports[dst];
            let lid = dlid[dst.as_str()];
            path.clear();
            visited.clear();
            path.push(link_of[sa][sp as usize]);
            let first = &topo.nodes[sa].ports[&sp];
            let mut here = first.remote;
            let mut stopped: Option<Unrouted> = None;
            loop {
                let node = &topo.nodes[here];
                if node.kind == NodeKind::Adapter {
                    if here != da {
                        return Err(FabricError::file(
                            lfile,
                            format!(
                                "the route {src} -> {dst} (LID {lid}) arrives at {} instead: the tables and {tfile} disagree",
                                node.label()
                            ),
                        ));
                    }
                    break;
                }
                visited.push(here);
                if visited.len() > nswitches {
                    let names: Vec<String> = visited
                        .iter()
                        .rev()
                        .take(nswitches + 1)
                        .rev()
                        .map(|&s| topo.nodes[s].switch_id())
                        .collect();
                    let line = table_of[here]
                        .map(|t| lfts.tables[t].line_of(lid).unwrap_or(lfts.tables[t].line))
                        .unwrap_or(1);
                    return Err(FabricError::at(
                        lfile,
                        line,
                        format!(
                            "routing loop for LID {lid} ({src} -> {dst}): it crosses {} switches, more than the fabric has: {}",
                            visited.len(),
                            names.join(" -> ")
                        ),
                    ));
                }
                let Some(ti) = table_of[here] else {
                    return Err(FabricError::file(
                        lfile,
                        format!(
                            "switch {} ({:?}, line {} of {tfile}) has no forwarding table here, but the route {src} -> {dst} (LID {lid}) crosses it",
                            node.switch_id(),
                            node.desc,
                            node.line
                        ),
                    ));
                };
                let table = &lfts.tables[ti];
                let Some(out) = table.port(lid) else {
                    let mut hint = String::new();
                    if table.layout == crate::lft::Layout::DumpFts
                        && lid == table.range.1
                        && lid % 64 == 0
                    {
                        hint = format!(
                            " LID {lid} is this switch's top LID and a multiple of 64: dump_fts and ibroute never read the table block that holds it (a known gap of rdma-core's tools, see liquid-fabric's lft module). Collect OpenSM's opensm-lfts.dump instead."
                        );
                    }
                    if lid < table.range.0 || lid > table.range.1 {
                        hint = format!(
                            " The table covers LIDs {}-{} only.",
                            table.range.0, table.range.1
                        );
                    }
                    if !opts.allow_unrouted || !hint.is_empty() {
                        return Err(FabricError::at(
                            lfile,
                            table.line,
                            format!(
                                "switch {} ({:?}) has no entry for LID {lid} (host {dst}), which the route {src} -> {dst} needs: the pair is unrouted.{}",
                                node.switch_id(),
                                node.desc,
                                if hint.is_empty() {
                                    " Give --allow-unrouted to import the routed pairs and list the others".to_string()
                                } else {
                                    hint
                                }
                            ),
                        ));
                    }
                    stopped = Some(Unrouted {
                        from: src.clone(),
                        to: dst.clone(),
                        switch: node.switch_id(),
                        lid,
                    });
                    break;
                };
                let line = table.line_of(lid).unwrap_or(table.line);
                if out == 0 {
                    return Err(FabricError::at(
                        lfile,
                        line,
                        format!(
                            "switch {} sends LID {lid} to port 0 (itself), but LID {lid} is host {dst}'s",
                            node.switch_id()
                        ),
                    ));
                }
                let Some(p) = node.ports.get(&out) else {
                    return Err(FabricError::at(
                        lfile,
                        line,
                        format!(
                            "switch {} ({:?}) sends LID {lid} (host {dst}) to port {out}, which has nothing attached in {tfile}",
                            node.switch_id(),
                            node.desc
                        ),
                    ));
                };
                path.push(link_of[here][out as usize]);
                here = p.remote;
            }
            if let Some(u) = stopped {
                unrouted.push(u);
                continue;
            }
            *hops.entry(path.len()).or_default() += 1;
            routes.push(Route {
                from: src.clone(),
                to: dst.clone(),
                path: path.iter().map(|&l| links[l].id.clone()).collect(),
            });
        }
    }

    let pattern = if unrouted.is_empty() {
        Pattern::AllToAll {
            senders: selected.clone(),
            receivers: selected.clone(),
            self_transfers: false,
        }
    } else {
        Pattern::Pairs(
            routes
                .iter()
                .map(|r| Pair {
                    from: r.from.clone(),
                    to: r.to.clone(),
                    count: 1,
                })
                .collect(),
        )
    };
    let rates: Vec<Option<Rate>> = link_ends
        .iter()
        .map(|&(i, p)| topo.nodes[i].ports.get(&p).and_then(|port| port.rate))
        .collect();
    // A link as a person finds it: its id, and the nodes' descriptions with the port.
    let label = |i: usize| {
        let (node, port) = link_ends[i];
        let n = &topo.nodes[node];
        let remote = n
            .ports
            .get(&port)
            .map_or("", |p| topo.nodes[p.remote].desc.as_str());
        format!("{} ({:?} port {port} -> {remote:?})", links[i].id, n.desc)
    };
    let (common, link_params, rate_notes) = link_rates(&rates, label);
    let mut notes = name_notes;
    notes.extend(rate_notes);
    if lmc_in_tables {
        notes.push(format!(
            "{lfile} routes more LIDs than ports' base LIDs (LMC > 0; ibnetdiscover -p does not print the LMC): every route follows its destination's base LID (what MPI uses unless told otherwise), the tables' entries for the other LIDs are not followed"
        ));
    }
    if topo.max_lmc > 0 {
        notes.push(format!(
            "LMC {} in {tfile}: ports have up to {} LIDs; every route follows its destination's base LID (what MPI uses unless told otherwise), the tables' entries for the other LIDs are not followed",
            topo.max_lmc,
            1u32 << topo.max_lmc
        ));
    }
    if !unrouted.is_empty() {
        notes.push(format!(
            "{} of {} host pairs are unrouted and not in the traffic (listed in the model's comments)",
            unrouted.len(),
            unrouted.len() + routes.len()
        ));
    }
    let form = match topo.form {
        crate::topology::Form::Default => "ibnetdiscover",
        crate::topology::Form::Ports => "ibnetdiscover -p",
    };
    let layout = match lfts.tables[0].layout {
        crate::lft::Layout::OpenSm => "opensm-lfts.dump",
        crate::lft::Layout::DumpFts => "dump_fts/ibroute",
    };
    let description = format!(
        "InfiniBand fabric read by liquid import ib from {tfile} ({form}) and {lfile} ({layout}): {} switches, {} adapters{}; the all-to-all of {} hosts over the subnet manager's routes",
        switches.len(),
        adapters.len(),
        common.map_or(String::new(), |r| format!(", links at {r} ({} MB/s)", r.mb_s())),
        selected.len()
    );

    // The header: every node with its GUID, LID and description.
    let mut header = String::new();
    header.push_str(&format!("# {description}\n"));
    for n in &notes {
        header.push_str(&format!("# Note: {n}\n"));
    }
    header.push_str("# Switches (model id, LID, description):\n");
    for &s in &switches {
        let n = &topo.nodes[s];
        header.push_str(&format!(
            "#   {}  lid {}  {:?}\n",
            n.switch_id(),
            n.lid,
            n.desc
        ));
    }
    header.push_str("# Adapters (host, GUID, port used, its LID, description):\n");
    for &(name, a) in &adapters {
        let n = &topo.nodes[a];
        let (pnum, plid) = n
            .ports
            .values()
            .next()
            .map(|p| (p.num, p.lid))
            .unwrap_or((0, 0));
        header.push_str(&format!(
            "#   {name}  {}  port {pnum}  lid {plid}  {:?}\n",
            guid_str(n.guid),
            n.desc
        ));
    }
    if !unrouted.is_empty() {
        header.push_str("# Unrouted pairs (sender -> receiver: switch without an entry, LID):\n");
        for u in &unrouted {
            header.push_str(&format!(
                "#   {} -> {}: {} has no entry for LID {}\n",
                u.from, u.to, u.switch, u.lid
            ));
        }
    }

    let network = Network {
        hosts: adapters.iter().map(|&(n, _)| n.clone()).collect(),
        switches: switches.iter().map(|&s| id[s].clone()).collect(),
        links,
        routing: Routing::Explicit,
        routes,
    };
    let summary = Summary {
        switches: switches.len(),
        adapters: adapters.len(),
        hosts: selected.len(),
        routes: network.routes.len(),
        unrouted,
        hops,
    };
    Ok(Imported {
        name: opts.name.clone(),
        description,
        network,
        pattern,
        summary,
        notes,
        header,
        link_throughput: common.map(|r| r.mb_s()),
        link_params,
        link_ends,
        host_ports,
    })
}

/// The hosts' names: which adapters are selected, under which name, and every other
/// adapter's name in the network.
struct HostNames {
    /// The selected hosts, in the selection's order (sorted with no selection).
    selected: Vec<String>,
    /// Every adapter by its name in the model (selected or not).
    by_name: HashMap<String, usize>,
    /// Adapters named by GUID, ports with LID 0 left out, short names matched.
    notes: Vec<String>,
}

/// Why an adapter's first word cannot name it: the topology's line and the message.
fn unnameable(
    topo: &Topology,
    a: usize,
    by_word: &HashMap<&str, Vec<usize>>,
    switch_ids: &std::collections::HashSet<String>,
) -> Option<(usize, String)> {
    let n = &topo.nodes[a];
    let name = n.host_name();
    if name.is_empty() {
        return Some((
            n.line,
            format!(
                "{} has an empty node description: liquid names a host by its first word",
                n.label()
            ),
        ));
    }
    let same = &by_word[name];
    if same.len() > 1 {
        let first = same[0];
        let (here, other) = if first == a {
            (&topo.nodes[same[1]], n)
        } else {
            (n, &topo.nodes[first])
        };
        let why = if same
            .iter()
            .all(|&b| topo.nodes[b].desc == topo.nodes[same[0]].desc)
        {
            "give each adapter a description of its own (rdma-ndd sets \"<hostname> <device>\")"
        } else {
            "hosts with several adapters (multi-rail, \"<hostname> mlx5_0\" and \"<hostname> mlx5_1\") are not supported"
        };
        return Some((
            here.line,
            format!(
                "host {name:?} is named twice: by {} here and by {} at line {}{}. liquid names a host by the first word of its adapter's node description; {why}",
                here.label(),
                other.label(),
                other.line,
                if same.len() > 2 {
                    format!(" (and by {} more)", same.len() - 2)
                } else {
                    String::new()
                }
            ),
        ));
    }
    if switch_ids.contains(name) {
        return Some((n.line, format!("host {name:?} has the name of a switch")));
    }
    None
}

/// A selected adapter's connected port with LID 0, refused at its line.
fn lid_zero(topo: &Topology, a: usize) -> Option<(usize, String)> {
    let n = &topo.nodes[a];
    n.ports.values().find(|p| p.lid == 0).map(|p| {
        (
            p.line,
            format!(
                "the adapter port has LID 0, which is never a unicast LID (1-49151): was a subnet manager running when the topology was collected? (port {} of {})",
                p.num,
                n.label()
            ),
        )
    })
}

/// Names the hosts (see [`import`]'s comments): the selected adapters by the first word
/// of their description (an error when it is empty, shared or a switch's, or when a
/// selected adapter's port has LID 0), the others by it when they can be, by GUID
/// otherwise.
fn name_hosts(topo: &Topology, selection: &Selection) -> Result<HostNames, FabricError> {
    let tfile = topo.file.as_str();
    let adapters: Vec<usize> = (0..topo.nodes.len())
        .filter(|&i| topo.nodes[i].kind == NodeKind::Adapter)
        .collect();
    let mut by_word: HashMap<&str, Vec<usize>> = HashMap::new();
    for &a in &adapters {
        by_word
            .entry(topo.nodes[a].host_name())
            .or_default()
            .push(a);
    }
    let switch_ids: std::collections::HashSet<String> = topo
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Switch)
        .map(|n| n.switch_id())
        .collect();
    let leave_out = "; --hosts or --hostfile can leave such adapters out (storage, login or \
                     multi-rail nodes): an adapter left out that its first word cannot name \
                     is named by its GUID";
    let mut notes = Vec::new();
    // (name, adapter) of each selected host.
    let mut chosen: Vec<(String, usize)> = Vec::new();
    match selection {
        Selection::All => {
            for &a in &adapters {
                if let Some((line, msg)) = unnameable(topo, a, &by_word, &switch_ids) {
                    return Err(FabricError::at(tfile, line, format!("{msg}{leave_out}")));
                }
                if let Some((line, msg)) = lid_zero(topo, a) {
                    return Err(FabricError::at(
                        tfile,
                        line,
                        format!("{msg}; --hosts or --hostfile can leave this adapter out"),
                    ));
                }
                chosen.push((topo.nodes[a].host_name().to_string(), a));
            }
            chosen.sort();
        }
        Selection::Named {
            source,
            names,
            lines,
        } => {
            let mut short = Vec::new();
            for (k, name) in names.iter().enumerate() {
                let at = |msg: String| match lines.get(k) {
                    Some(&l) => FabricError::at(source, l, msg),
                    None => FabricError::file(source, msg),
                };
                let a = match by_word.get(name.as_str()) {
                    Some(v) => v[0],
                    None => {
                        // A short name (SLURM_JOB_NODELIST's) for the one adapter whose
                        // description starts with the full name (rdma-ndd's %h).
                        let prefix = format!("{name}.");
                        let full: Vec<usize> = adapters
                            .iter()
                            .copied()
                            .filter(|&a| topo.nodes[a].host_name().starts_with(&prefix))
                            .collect();
                        if let [a] = full[..] {
                            short.push(format!("{name} -> {}", topo.nodes[a].host_name()));
                            a
                        } else {
                            let mut known: Vec<&str> = by_word
                                .iter()
                                .filter(|(w, v)| {
                                    !w.is_empty() && v.len() == 1 && !switch_ids.contains(**w)
                                })
                                .map(|(w, _)| *w)
                                .collect();
                            known.sort();
                            let sample: Vec<&str> = known.iter().take(5).copied().collect();
                            return Err(at(format!(
                                "host {name:?} is not in the fabric {tfile} ({} hosts: {}{}){}",
                                known.len(),
                                sample.join(", "),
                                if known.len() > 5 { ", ..." } else { "" },
                                if full.len() > 1 {
                                    format!(
                                        "; the descriptions of {} adapters start with {prefix:?}, so the short name names none",
                                        full.len()
                                    )
                                } else {
                                    String::new()
                                }
                            )));
                        }
                    }
                };
                if let Some((line, mut msg)) = unnameable(topo, a, &by_word, &switch_ids) {
                    msg.push_str(&format!(
                        " ({source} selects {name:?}; a selection without it works)"
                    ));
                    return Err(FabricError::at(tfile, line, msg));
                }
                if let Some((line, msg)) = lid_zero(topo, a) {
                    return Err(FabricError::at(tfile, line, msg));
                }
                if let Some((other, _)) = chosen.iter().find(|(_, b)| *b == a) {
                    return Err(at(format!(
                        "hosts {other:?} and {name:?} are the same adapter, {}",
                        topo.nodes[a].label()
                    )));
                }
                chosen.push((name.clone(), a));
            }
            if !short.is_empty() {
                notes.push(format!(
                    "{} selected host(s) matched by short name to the one adapter whose description starts with that name and a dot (the model names them by the short name, as selected): {}",
                    short.len(),
                    short.join(", ")
                ));
            }
        }
    }
    let selected: Vec<String> = chosen.iter().map(|(n, _)| n.clone()).collect();
    let mut by_name: HashMap<String, usize> = chosen.iter().cloned().collect();
    let is_chosen: std::collections::HashSet<usize> = chosen.iter().map(|&(_, a)| a).collect();
    // The adapters left out.
    let (mut by_guid, mut empty, mut shared, mut switch_named, mut zero) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut shared_words: Vec<&str> = Vec::new();
    for &a in &adapters {
        if is_chosen.contains(&a) {
            continue;
        }
        let n = &topo.nodes[a];
        if n.ports.values().any(|p| p.lid == 0) {
            zero += 1;
        }
        let word = n.host_name();
        let name = if word.is_empty() {
            empty += 1;
            None
        } else if by_word[word].len() > 1 {
            shared += 1;
            if !shared_words.contains(&word) {
                shared_words.push(word);
            }
            None
        } else if switch_ids.contains(word) {
            switch_named += 1;
            None
        } else if by_name.contains_key(word) {
            // A selected short name took it (`n001` for `n001.example.org`).
            shared += 1;
            None
        } else {
            Some(word.to_string())
        };
        let name = name.unwrap_or_else(|| {
            by_guid += 1;
            format!("H-{:016x}", n.guid)
        });
        if let Some(&b) = by_name.get(&name) {
            return Err(FabricError::at(
                tfile,
                n.line,
                format!(
                    "{} would be named {name:?} in the model, as is {} at line {}",
                    n.label(),
                    topo.nodes[b].label(),
                    topo.nodes[b].line
                ),
            ));
        }
        by_name.insert(name, a);
    }
    if by_guid > 0 {
        let mut why = Vec::new();
        if shared > 0 {
            shared_words.sort();
            let shown: Vec<String> = shared_words
                .iter()
                .take(5)
                .map(|w| format!("{w:?}"))
                .collect();
            why.push(format!(
                "{shared} whose first word another adapter's description shares ({}{})",
                shown.join(", "),
                if shared_words.len() > 5 { ", ..." } else { "" }
            ));
        }
        if empty > 0 {
            why.push(format!("{empty} with an empty description"));
        }
        if switch_named > 0 {
            why.push(format!("{switch_named} with a switch's name"));
        }
        notes.push(format!(
            "{by_guid} adapter(s) left out of the selection named by GUID in the model (H-<GUID>, as ibnetdiscover names them), since the first word of their description cannot name them: {}; they stay in the network, and no route starts or ends at them",
            why.join(", ")
        ));
    }
    if zero > 0 {
        notes.push(format!(
            "{zero} adapter(s) left out of the selection have a port with LID 0 (none assigned when the topology was collected: a node coming up?); no route starts or ends at them"
        ));
    }
    Ok(HostNames {
        selected,
        by_name,
        notes,
    })
}

/// The rate most links run at (ties: the faster), each link's own bandwidth where its
/// rate differs, and the notes that name those links and the links without a rate.
fn link_rates(
    rates: &[Option<Rate>],
    label: impl Fn(usize) -> String,
) -> (Option<Rate>, Vec<LinkParams>, Vec<String>) {
    let mut count: Vec<(Rate, usize)> = Vec::new();
    for r in rates.iter().flatten() {
        match count.iter_mut().find(|(c, _)| c == r) {
            Some((_, n)) => *n += 1,
            None => count.push((*r, 1)),
        }
    }
    let Some(&(common, _)) = count.iter().max_by(|a, b| {
        a.1.cmp(&b.1)
            .then(a.0.mb_s().total_cmp(&b.0.mb_s()))
            .then(b.0.to_string().cmp(&a.0.to_string()))
    }) else {
        return (None, Vec::new(), Vec::new());
    };
    let mut params = vec![LinkParams::default(); rates.len()];
    let mut other = Vec::new();
    for (i, r) in rates.iter().enumerate() {
        if let Some(r) = r.filter(|r| *r != common) {
            params[i].bandwidth = Some(r.mb_s());
            other.push(format!("{} at {r} ({} MB/s)", label(i), r.mb_s()));
        }
    }
    let mut notes = Vec::new();
    if !other.is_empty() {
        notes.push(format!(
            "{} of {} links run at another rate than the fabric's {common} ({} MB/s), each with its own bandwidth in the model: {}",
            other.len(),
            rates.len(),
            common.mb_s(),
            other.join(", ")
        ));
    }
    let unknown = rates.iter().filter(|r| r.is_none()).count();
    if unknown > 0 {
        notes.push(format!(
            "{unknown} of {} links have no rate in the topology file (width or speed `??`): they take the fabric's {common}",
            rates.len()
        ));
    }
    (Some(common), params, notes)
}

/// Whether `lid` is one of the LMC LIDs of the port with GUID `guid` (at most 127 above
/// its base LID, LMC 7), as the tables name it.
fn lmc_lid_of(port_base: &HashMap<u64, u16>, guid: u64, lid: u16) -> bool {
    matches!(port_base.get(&guid), Some(&base) if lid > base && lid - base < 128)
}

/// What checking an import against `ibtracert` output found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracertCheck {
    /// Traces compared.
    pub compared: usize,
    /// Of them, traces that found no route (`# ibtracert SLID DLID failed`, as
    /// `scripts/ib-local` records them) for a pair the model leaves unrouted too.
    pub failed_unrouted: usize,
    /// Traces that found no route for a pair the model routes, on a fabric the subnet
    /// manager left partly unrouted: not checked, since `ibtracert` reaches the switches
    /// of a path by LID routes, which such a fabric may lack from where it runs. (On a
    /// fully routed fabric such a trace is a disagreement.)
    pub failed_unchecked: usize,
    /// Traces from or to an adapter the host selection (`--hosts`, `--hostfile`,
    /// `SLURM_JOB_NODELIST`) left out: not checked, since the model has no route of them
    /// (traces collected once for the whole fabric serve every job's import).
    pub outside: usize,
    /// Traces from or to a port of a host's adapter that the model does not route by (a
    /// host uses its adapter's lowest-numbered connected port; `scripts/ib-local` traces
    /// every adapter LID): not checked, since the model has no route of that port.
    pub other_port: usize,
    /// Traces from a host to itself (`ibtracert 2 2`): not checked, since an all-to-all
    /// has no such pair and the model no route of it.
    pub self_traces: usize,
    /// Traces from or to a switch's LID (`ibtracert 2 1`, as a "trace every LID" loop
    /// makes them): not checked, since the model routes between hosts only.
    pub switch: usize,
    /// Traces to a port with several LIDs (LMC > 0) that follow the route of one of its
    /// other LIDs, not the base LID's the model follows (ibtracert names the
    /// destination's LID range, not the LID it was given): not disagreements. Each with
    /// the trace's line and the LID whose route it matches.
    pub other_lid: Vec<String>,
    /// Each disagreement, with the trace's line.
    pub disagreements: Vec<String>,
}

/// One `ibtracert` trace: source and destination LIDs and, per hop, the output port and
/// the base LID of the node reached.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Trace {
    line: usize,
    src: u16,
    dst: u16,
    /// The last LID of the destination's range (`lid 98-99`: 99); `dst` without LMC.
    dst_last: u16,
    hops: Vec<(u8, u16)>,
    /// `ibtracert` found no route (a `# ibtracert SLID DLID failed` line).
    failed: bool,
}

/// `(SLID, DLID)` of a `# ibtracert SLID DLID failed` line: the record `scripts/ib-local`
/// writes when `ibtracert` finds no route.
fn failed_trace(t: &str) -> Option<(u16, u16)> {
    let rest = t.strip_prefix('#')?.trim().strip_prefix("ibtracert ")?;
    let mut w = rest.split_whitespace();
    let (s, d) = (w.next()?.parse().ok()?, w.next()?.parse().ok()?);
    (w.next() == Some("failed") && w.next().is_none()).then_some((s, d))
}

/// The base LID in `lid A-B "..."`.
fn lid_in(s: &str) -> Option<u16> {
    lid_range_in(s).map(|(a, _)| a)
}

/// The LID range `A-B` in `lid A-B "..."` (`lid A`: A-A).
fn lid_range_in(s: &str) -> Option<(u16, u16)> {
    let at = s.find(" lid ")?;
    let w = s[at + 5..].split_whitespace().next()?;
    let mut parts = w.split('-');
    let a: u16 = parts.next()?.parse().ok()?;
    let b = match parts.next() {
        Some(b) => b.parse().ok()?,
        None => a,
    };
    Some((a, b))
}

fn parse_traces(file: &str, text: &str) -> Result<Vec<Trace>, FabricError> {
    let mut out = Vec::new();
    let mut cur: Option<Trace> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw.trim();
        if let Some((src, dst)) = failed_trace(t) {
            out.push(Trace {
                line: n,
                src,
                dst,
                dst_last: dst,
                hops: Vec::new(),
                failed: true,
            });
            continue;
        }
        if t.is_empty() || t.starts_with("ibwarn:") || t.starts_with('#') {
            continue;
        }
        let bad = |why: &str| FabricError::at(file, n, why.to_string());
        if t.starts_with("From ") {
            if cur.is_some() {
                return Err(bad(
                    "a trace starts before the previous one ended (\"To ...\")",
                ));
            }
            let src = lid_in(t).ok_or_else(|| bad("the From line has no lid"))?;
            cur = Some(Trace {
                line: n,
                src,
                dst: 0,
                dst_last: 0,
                hops: Vec::new(),
                failed: false,
            });
        } else if t.starts_with('[') {
            let c = cur.as_mut().ok_or_else(|| bad("a hop outside a trace"))?;
            let end = t
                .find(']')
                .ok_or_else(|| bad("a hop line starts with [port]"))?;
            let port: u8 = t[1..end]
                .parse()
                .map_err(|_| bad("a hop line starts with [port]"))?;
            let lid = lid_in(t).ok_or_else(|| bad("the hop line has no lid"))?;
            c.hops.push((port, lid));
        } else if t.starts_with("To ") {
            let mut c = cur.take().ok_or_else(|| bad("a To line outside a trace"))?;
            (c.dst, c.dst_last) = lid_range_in(t).ok_or_else(|| bad("the To line has no lid"))?;
            out.push(c);
        } else {
            return Err(bad(&format!("not a line of ibtracert output: {t:?}")));
        }
    }
    if let Some(c) = cur {
        return Err(FabricError::at(
            file,
            c.line,
            "the trace starting here has no To line: a truncated file?",
        ));
    }
    Ok(out)
}

/// The hops (output port, LID reached: a switch's, an adapter port's base LID) of the
/// route to `lid` from adapter `src` by its port `port`, through the switches' tables,
/// as `ibtracert` prints them; `None` when a table lacks the LID or the route crosses
/// more than the fabric's `nswitches` switches (a loop).
fn follow_lid(
    topo: &Topology,
    lfts: &Lfts,
    nswitches: usize,
    src: usize,
    port: u8,
    lid: u16,
) -> Option<Vec<(u8, u16)>> {
    let reached = |node: usize, p: u8| -> Option<(usize, u16)> {
        let link = topo.nodes[node].ports.get(&p)?;
        let r = &topo.nodes[link.remote];
        let l = match r.kind {
            NodeKind::Switch => r.lid,
            NodeKind::Adapter => r.ports.get(&link.remote_port)?.lid,
        };
        Some((link.remote, l))
    };
    let (mut here, l) = reached(src, port)?;
    let mut hops = vec![(port, l)];
    while topo.nodes[here].kind == NodeKind::Switch {
        if hops.len() > nswitches + 1 {
            return None;
        }
        let t = &lfts.tables[*lfts.by_guid.get(&topo.nodes[here].guid)?];
        let out = t.port(lid).filter(|&o| o != 0)?;
        let (next, l) = reached(here, out)?;
        hops.push((out, l));
        here = next;
    }
    Some(hops)
}

/// Compares every trace of `ibtracert` output (traces concatenated, as `ibtracert SLID
/// DLID` prints them) with the imported routes: the same output port at every hop and
/// the same node reached. Traces the model has no route of are counted apart, not
/// checked: from or to a host the selection left out, a port the model does not route
/// by, a switch's LID; from a host to itself.
pub fn check_tracert(
    imported: &Imported,
    topo: &Topology,
    lfts: &Lfts,
    file: &str,
    text: &str,
) -> Result<TracertCheck, FabricError> {
    let traces = parse_traces(file, text)?;
    if traces.is_empty() {
        return Err(FabricError::file(file, "no ibtracert traces"));
    }
    // Per adapter node, its host and the port the model routes by.
    let mut name_of: HashMap<usize, (&str, u8)> = HashMap::new();
    for (name, &(a, port)) in &imported.host_ports {
        name_of.insert(a, (name, port));
    }
    let route_of: HashMap<(&str, &str), &Route> = imported
        .network
        .routes
        .iter()
        .map(|r| ((r.from.as_str(), r.to.as_str()), r))
        .collect();
    let link_index: HashMap<&str, usize> = imported
        .network
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.id.as_str(), i))
        .collect();
    // What a LID addresses: a host of the model (and whether the LID is of the port the
    // model routes it by), an adapter the selection left out (--hosts), or a switch.
    enum End<'a> {
        Host(&'a str, bool),
        Outside,
        Switch,
    }
    let end = |lid: u16, line: usize| -> Result<End<'_>, FabricError> {
        let t = topo.lids.get(&lid).ok_or_else(|| {
            FabricError::at(file, line, format!("LID {lid} is not in {}", topo.file))
        })?;
        Ok(match name_of.get(&t.node) {
            Some(&(name, port)) => End::Host(name, t.port == port),
            None if topo.nodes[t.node].kind == NodeKind::Adapter => End::Outside,
            None => End::Switch,
        })
    };
    let mut disagreements = Vec::new();
    let (mut failed_unrouted, mut failed_unchecked, mut outside, mut other_port) = (0, 0, 0, 0);
    let (mut self_traces, mut switch) = (0, 0);
    let mut other_lid = Vec::new();
    let nswitches = topo
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Switch)
        .count();
    let partly_routed = !imported.summary.unrouted.is_empty();
    for tr in &traces {
        let (from, to) = (end(tr.src, tr.line)?, end(tr.dst, tr.line)?);
        let ((from, from_port), (to, to_port)) = match (from, to) {
            (End::Switch, _) | (_, End::Switch) => {
                switch += 1;
                continue;
            }
            (End::Host(f, fp), End::Host(t, tp)) => ((f, fp), (t, tp)),
            _ => {
                outside += 1;
                continue;
            }
        };
        if !(from_port && to_port) {
            other_port += 1;
            continue;
        }
        if from == to {
            self_traces += 1;
            continue;
        }
        if tr.failed {
            match (route_of.contains_key(&(from, to)), partly_routed) {
                (false, _) => failed_unrouted += 1,
                (true, true) => failed_unchecked += 1,
                (true, false) => disagreements.push(format!(
                    "{file}:{}: ibtracert found no route from {from} to {to}, but the model routes it",
                    tr.line
                )),
            }
            continue;
        }
        let Some(route) = route_of.get(&(from, to)) else {
            disagreements.push(format!(
                "{file}:{}: ibtracert traces {from} -> {to}, which the model leaves unrouted",
                tr.line
            ));
            continue;
        };
        let mine: Vec<(u8, u16)> = route
            .path
            .iter()
            .map(|id| {
                let (node, port) = imported.link_ends[link_index[id.as_str()]];
                let p = &topo.nodes[node].ports[&port];
                let r = &topo.nodes[p.remote];
                let lid = match r.kind {
                    NodeKind::Switch => r.lid,
                    NodeKind::Adapter => r.ports[&p.remote_port].lid,
                };
                (port, lid)
            })
            .collect();
        if mine != tr.hops {
            // LMC > 0: ibtracert was perhaps given another LID of the destination's range
            // (it prints the range, not the LID); the model follows the base LID.
            let (sa, sp) = imported.host_ports[from];
            let last = tr.dst_last.min(tr.dst.saturating_add(127));
            if let Some(lid) = (tr.dst.saturating_add(1)..=last).find(|&lid| {
                follow_lid(topo, lfts, nswitches, sa, sp, lid).as_deref() == Some(&tr.hops[..])
            }) {
                other_lid.push(format!(
                    "{file}:{}: {from} -> {to} matches LID {lid}'s route, not the base LID {}'s the model follows",
                    tr.line, tr.dst
                ));
                continue;
            }
            let show = |h: &[(u8, u16)]| {
                h.iter()
                    .map(|(p, l)| format!("[{p}]->lid {l}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            disagreements.push(format!(
                "{file}:{}: {from} -> {to}: ibtracert {} but the model {}",
                tr.line,
                show(&tr.hops),
                show(&mine)
            ));
        }
    }
    Ok(TracertCheck {
        compared: traces.len()
            - failed_unchecked
            - outside
            - other_port
            - self_traces
            - switch
            - other_lid.len(),
        failed_unrouted,
        failed_unchecked,
        outside,
        other_port,
        self_traces,
        switch,
        other_lid,
        disagreements,
    })
}
