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
//! error). Each node numbers its cables 1, 2, ... in the order of the model's links,
//! unless the generator cables it (tori, meshes and rings by dimension: port `k + 2d + 1`
//! leads to the next switch along dimension `d`, `k + 2d + 2` to the previous one, after
//! the `k` host ports), as OpenSM's dor needs to route in dimension order.
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
    let (network, cabled) = if liquid_topology::spec::is_spec(&arg) {
        let generated = liquid_topology::spec::parse(&arg)
            .map_err(|e| FabricError::file(&arg, e.to_string()))?
            .ok_or_else(|| FabricError::file(&arg, "not a generated-model spec"))?;
        let cabled = (!generated.ports.is_empty()).then_some(generated.ports);
        (generated.network, cabled)
    } else {
        // The model's error names its file, line and field already: kept as it is.
        let m = liquid_model::yaml::load_model_full(model).map_err(|e| FabricError {
            message: [
                e.column.map(|c| format!("column {c}")),
                e.field.clone(),
                Some(e.message.clone()),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": "),
            file: e.file,
            line: e.line,
        })?;
        let network = m.network.ok_or_else(|| {
            FabricError::file(
                &arg,
                "an explicit-form model (transfers with paths) has no network to export: give a network-form model (network: hosts, switches, links)",
            )
        })?;
        (network, None)
    };
    net_file(&arg, &network, cabled.as_deref()).map_err(|mut e| {
        // PXN's hop from a server's NVSwitch to a NIC is NVLink inside the server, one way
        // in the model: not an InfiniBand cable. The same machine without PXN has one.
        if arg.starts_with("rail:") && arg.ends_with(",pxn") {
            e.message.push_str(&format!(
                "; with pxn, a server's NVSwitch reaches the NICs over NVLink, which is not InfiniBand: export the same machine without pxn (`{}`) for its InfiniBand fabric",
                arg.trim_end_matches(",pxn")
            ));
        }
        e
    })
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

/// The net file of a network (`model` names it in errors). `cabled` gives each link's
/// port number at its tail, parallel to `net.links` (a generator's cabling, e.g. a
/// lattice's by dimension); without it, each node numbers its cables 1, 2, ... in the
/// order of the model's links.
pub fn net_file(model: &str, net: &Network, cabled: Option<&[u32]>) -> Result<String, FabricError> {
    if let Some(given) = cabled {
        if given.len() != net.links.len() || given.contains(&0) {
            return Err(FabricError::file(
                model,
                format!(
                    "the cabling gives {} port numbers for {} links (each a port, 1 to 255)",
                    given.len(),
                    net.links.len()
                ),
            ));
        }
    }
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
    // Port numbers: the generator's (`cabled`: each link's port at its tail), or per node,
    // cables in the order of their first link.
    let mut next: HashMap<&str, u32> = HashMap::new();
    let mut ports: HashMap<&str, Vec<(u32, &str, usize)>> = HashMap::new(); // node -> (port, remote, cable)
    let mut port_of: Vec<(u32, u32)> = vec![(0, 0); cables.len()];
    for (c, &(a, b)) in cables.iter().enumerate() {
        let l = &net.links[a];
        let mut port = |link: usize| -> u32 {
            let e = next.entry(net.links[link].from.as_str()).or_insert(0);
            match cabled {
                Some(given) => {
                    *e = (*e).max(given[link]);
                    given[link]
                }
                None => {
                    *e += 1;
                    *e
                }
            }
        };
        let (pa, pb) = (port(a), port(b));
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
    for (node, list) in &mut ports {
        list.sort_unstable();
        if let Some(w) = list.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(FabricError::file(
                model,
                format!(
                    "node {node:?}: port {} given to two cables (to {:?} and {:?})",
                    w[0].0, w[0].1, w[1].1
                ),
            ));
        }
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
        let n = next.get(node).copied().unwrap_or(0).max(1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::network::NetLink;

    /// Hosts `a` and `b` on switch `s`, cabled both ways.
    fn star() -> Network {
        let link = |from: &str, to: &str| NetLink {
            id: format!("{from}>{to}"),
            from: from.into(),
            to: to.into(),
        };
        Network {
            hosts: vec!["a".into(), "b".into()],
            switches: vec!["s".into()],
            links: vec![
                link("a", "s"),
                link("s", "a"),
                link("b", "s"),
                link("s", "b"),
            ],
            ..Network::default()
        }
    }

    #[test]
    fn a_generator_s_ports_are_kept_and_a_port_given_twice_is_an_error() {
        let net = star();
        let text = net_file("star", &net, Some(&[1, 7, 1, 3])).expect("cabled");
        assert!(text.contains("Switch\t7 \"s\""), "{text}");
        assert!(text.contains("[3]\t\"b\"[1]\n[7]\t\"a\"[1]"), "{text}");
        let e = net_file("star", &net, Some(&[1, 2, 1, 2])).expect_err("port 2 twice");
        assert!(e.to_string().contains("port 2 given to two cables"), "{e}");
        let e = net_file("star", &net, Some(&[1, 2, 1])).expect_err("too few");
        assert!(e.to_string().contains("3 port numbers for 4 links"), "{e}");
        // Without a cabling, cables in the order of their first link.
        let text = net_file("star", &net, None).expect("by order");
        assert!(text.contains("[1]\t\"a\"[1]\n[2]\t\"b\"[1]"), "{text}");
    }
}
