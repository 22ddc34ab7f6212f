//! Any network-form model as an ibsim net file, so that a real subnet manager (OpenSM)
//! routes liquid's own networks.
//!
//! The format, from ibsim's `sim_net.c` (`parse_netconf`, `parse_switch`,
//! `parse_endnode`, `parse_port`): a record per node, a header `Switch N "id" # "desc"`
//! or `Hca N "id" # "desc"` (N ports, 1-255; the id at most 64 characters, without `#`
//! or `@`) followed by one line per connected port, `[p] "remote id"[q]`, and a blank
//! line. ibsim gives GUIDs in the order of the file (switches from 0x200000, adapters
//! from 0x100000) and attaches the first node's first port as the subnet manager's.
//!
//! The net file keeps only the topology: routes are the subnet manager's to make.
//! Directed links are paired into cables: the k-th link from a to b with the k-th link
//! from b to a (InfiniBand links are bidirectional: a link without its reverse is an
//! error). Each node numbers its cables 1, 2, ... in the order of the model's links.
//! A host's node description is `"<host> HCA-1"`, so that `liquid import ib` names it
//! `<host>` again; a switch's is its model id.

use std::collections::HashMap;
use std::path::Path;

use liquid_model::network::Network;

use crate::FabricError;

/// The longest node id ibsim accepts (`NODEIDLEN` 65, with the terminating NUL).
pub const MAX_ID: usize = 64;

/// Loads a network-form model (a file or a generated-model spec) and writes its net file.
pub fn export(model: &Path) -> Result<String, FabricError> {
    let arg = model.display().to_string();
    let network = if liquid_topology::spec::is_spec(&arg) {
        liquid_topology::spec::parse(&arg)
            .map_err(|e| FabricError::file(&arg, e.to_string()))?
            .ok_or_else(|| FabricError::file(&arg, "not a generated-model spec"))?
            .network
    } else {
        let m = liquid_model::yaml::load_model_full(model)
            .map_err(|e| FabricError::file(&arg, e.to_string()))?;
        m.network.ok_or_else(|| {
            FabricError::file(
                &arg,
                "an explicit-form model (transfers with paths) has no network to export: give a network-form model (network: hosts, switches, links)",
            )
        })?
    };
    net_file(&arg, &network)
}

fn check_id(model: &str, id: &str) -> Result<(), FabricError> {
    let bad =
        |why: &str| FabricError::file(model, format!("node {id:?}: {why}; ibsim cannot name it"));
    if id.is_empty() {
        return Err(bad("an empty name"));
    }
    if id.len() > MAX_ID - 8 {
        return Err(bad(&format!("longer than {} bytes", MAX_ID - 8)));
    }
    if id
        .chars()
        .any(|c| c == '"' || c == '#' || c == '@' || c.is_whitespace() || c.is_control())
    {
        return Err(bad("it holds a quote, #, @ or white space"));
    }
    Ok(())
}

/// The net file of a network (`model` names it in errors).
pub fn net_file(model: &str, net: &Network) -> Result<String, FabricError> {
    for id in net.hosts.iter().chain(&net.switches) {
        check_id(model, id)?;
    }
    let is_switch: HashMap<&str, bool> = net
        .hosts
        .iter()
        .map(|h| (h.as_str(), false))
        .chain(net.switches.iter().map(|s| (s.as_str(), true)))
        .collect();
    // Pair the directed links into cables.
    let mut pending: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    let mut cables: Vec<(usize, usize)> = Vec::new(); // (link a->b, link b->a)
    let mut paired = vec![false; net.links.len()];
    for (i, l) in net.links.iter().enumerate() {
        for end in [&l.from, &l.to] {
            if !is_switch.contains_key(end.as_str()) {
                return Err(FabricError::file(
                    model,
                    format!(
                        "link {:?} names node {end:?}, which the network does not declare",
                        l.id
                    ),
                ));
            }
        }
        if l.from == l.to {
            return Err(FabricError::file(
                model,
                format!("link {:?} goes from {:?} to itself", l.id, l.from),
            ));
        }
        let back = pending.get_mut(&(l.to.as_str(), l.from.as_str()));
        match back.and_then(|v| {
            if v.is_empty() {
                None
            } else {
                Some(v.remove(0))
            }
        }) {
            Some(j) => {
                paired[i] = true;
                paired[j] = true;
                cables.push((j, i));
            }
            None => pending
                .entry((l.from.as_str(), l.to.as_str()))
                .or_default()
                .push(i),
        }
    }
    if let Some(i) = paired.iter().position(|&p| !p) {
        let l = &net.links[i];
        return Err(FabricError::file(
            model,
            format!(
                "link {:?} from {:?} to {:?} has no link back: InfiniBand cables carry both directions, so an ibsim fabric needs every link paired with one the other way",
                l.id, l.from, l.to
            ),
        ));
    }
    cables.sort_by_key(|&(a, b)| a.min(b));
    // Port numbers: per node, cables in the order of their first link.
    let mut next: HashMap<&str, u32> = HashMap::new();
    let mut ports: HashMap<&str, Vec<(u32, &str, usize)>> = HashMap::new(); // node -> (port, remote, cable)
    let mut port_of: Vec<(u32, u32)> = vec![(0, 0); cables.len()];
    for (c, &(a, _)) in cables.iter().enumerate() {
        let l = &net.links[a];
        let pa = {
            let e = next.entry(l.from.as_str()).or_insert(0);
            *e += 1;
            *e
        };
        let pb = {
            let e = next.entry(l.to.as_str()).or_insert(0);
            *e += 1;
            *e
        };
        port_of[c] = (pa, pb);
        ports
            .entry(l.from.as_str())
            .or_default()
            .push((pa, l.to.as_str(), c));
        ports
            .entry(l.to.as_str())
            .or_default()
            .push((pb, l.from.as_str(), c));
    }
    for (node, &n) in &next {
        if n > 255 {
            return Err(FabricError::file(
                model,
                format!("node {node:?} has {n} cables: an InfiniBand node has at most 255 ports"),
            ));
        }
    }
    if net.switches.len() > 256 {
        // Not an error: ibsim needs -S; say so in the file.
    }
    let mut out = String::new();
    out.push_str(&format!(
        "# ibsim net file written by liquid export ibsim from {model}: {} switches, {} hosts, {} cables.\n",
        net.switches.len(),
        net.hosts.len(),
        cables.len()
    ));
    out.push_str("# Run it with: ibsim -s -n FILE");
    if net.switches.len() > 256 || net.hosts.len() > 2048 {
        out.push_str(&format!(
            " -S {} -N {}",
            net.switches.len().max(256),
            (net.hosts.len() + net.switches.len()).max(2048)
        ));
    }
    out.push_str(" (then OpenSM through umad2sim: see scripts/ib-local)\n");
    let record = |out: &mut String, node: &str, kind: &str, desc: &str| {
        let list = ports.get(node).map(Vec::as_slice).unwrap_or(&[]);
        let n = list.len().max(1);
        out.push_str(&format!("\n{kind}\t{n} \"{node}\"\t\t# \"{desc}\"\n"));
        for &(p, remote, c) in list {
            let (pa, pb) = port_of[c];
            let rp = if p == pa && net.links[cables[c].0].from == node {
                pb
            } else {
                pa
            };
            out.push_str(&format!("[{p}]\t\"{remote}\"[{rp}]\n"));
        }
    };
    for s in &net.switches {
        record(&mut out, s, "Switch", s);
    }
    for h in &net.hosts {
        record(&mut out, h, "Hca", &format!("{h} HCA-1"));
    }
    Ok(out)
}
