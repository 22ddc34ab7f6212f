//! What the machines of [`crate::dragonfly`], [`crate::rail`] and [`crate::hyperx`] share:
//! a fabric of hosts and switches numbered as nodes (hosts `0..N` first, then the
//! switches), directed links between node numbers, and a deterministic route between any
//! two hosts as the node numbers it visits. From that, [`generated`] builds the network
//! form with its all-to-all and [`traffic`] the same traffic directly (without a named
//! route per pair, which at 2,000 hosts means four million strings).

use std::collections::HashMap;

use liquid_model::Traffic;

use crate::direct::FlatRoutes;
use crate::{bad, Generated, NetBuilder, TopologyError};

/// The largest number of hosts a machine of this family may have in memory (the model
/// grows with the square of it; the same bound as multi-cluster systems).
pub const MAX_FABRIC_HOSTS: usize = crate::multi_cluster::MAX_NODES;

/// A machine: its nodes, its directed links, and its static routing.
pub(crate) trait Fabric {
    /// The model's name.
    fn name(&self) -> String;
    /// The model's description (parameters, sizes, routing).
    fn description(&self) -> String;
    /// Number of hosts, `N`: nodes `0..N`.
    fn host_count(&self) -> usize;
    /// The node names: hosts first, then switches.
    fn node_names(&self) -> Vec<String>;
    /// The directed links as `(from, to)` node numbers, in the order the network declares
    /// them.
    fn links(&self) -> Vec<(u32, u32)>;
    /// The route from host `s` to host `d` (`s != d`): the node numbers it visits, `s`
    /// first and `d` last, written into `out` (cleared first).
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>);
    /// Each link's port at its tail, parallel to `links` ([`Generated::ports`]), when the
    /// machine is cabled in a way a subnet manager relies on; none by default.
    fn ports(&self, links: &[(u32, u32)]) -> Vec<u32> {
        let _ = links;
        Vec::new()
    }
}

/// Ports numbered per node in the order of its out-links (its k-th out-link on port k).
pub(crate) fn out_link_ordinals(links: &[(u32, u32)]) -> Vec<u32> {
    let mut next: HashMap<u32, u32> = HashMap::new();
    links
        .iter()
        .map(|&(from, _)| {
            let e = next.entry(from).or_insert(0);
            *e += 1;
            *e
        })
        .collect()
}

/// Refuses a machine with fewer than two hosts or more than [`MAX_FABRIC_HOSTS`].
pub(crate) fn check_hosts(name: &str, hosts: Option<usize>) -> Result<usize, TopologyError> {
    match hosts {
        Some(n) if n < 2 => Err(bad(
            name,
            format!("{n} host: the all-to-all is empty; give at least 2 hosts"),
        )),
        Some(n) if n <= MAX_FABRIC_HOSTS => Ok(n),
        Some(n) => Err(bad(
            name,
            format!(
                "{n} hosts: at most {MAX_FABRIC_HOSTS} in memory (routes are listed per pair){}",
                crate::stream_hint(Some(n as u128))
            ),
        )),
        None => Err(bad(name, "the machine is too large")),
    }
}

/// The sender-major pairs of the all-to-all without self-transfers.
fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
}

/// The link index of every `(from, to)` pair.
fn link_map(links: &[(u32, u32)]) -> HashMap<(u32, u32), u32> {
    links
        .iter()
        .enumerate()
        .map(|(i, &l)| (l, i as u32))
        .collect()
}

/// The network form of the machine with its all-to-all (explicit routes).
pub(crate) fn generated(f: &impl Fabric) -> Result<Generated, TopologyError> {
    let n = f.host_count();
    let names = f.node_names();
    let links = f.links();
    let at = link_map(&links);
    let mut b = NetBuilder::default();
    for (i, name) in names.iter().enumerate() {
        if i < n {
            b.host(name.clone());
        } else {
            b.switch(name.clone());
        }
    }
    for &(x, y) in &links {
        b.link(&names[x as usize], &names[y as usize]);
    }
    let mut nodes = Vec::new();
    let mut path = Vec::new();
    for (s, d) in pairs(n) {
        f.route(s, d, &mut nodes);
        path.clear();
        path.extend(nodes.windows(2).map(|w| at[&(w[0], w[1])] as usize));
        b.route(&names[s], &names[d], &path);
    }
    let hosts = names[..n].to_vec();
    Ok(Generated {
        name: f.name(),
        description: f.description(),
        link_throughput: None,
        network: b.finish(),
        link_params: Vec::new(),
        ports: f.ports(&links),
        pattern: crate::all_to_all(&hosts, false),
    })
}

/// The traffic of the machine's all-to-all, built directly: the traffic
/// `generated(f)?.expand()` gives, without the named routes.
pub(crate) fn traffic(f: &impl Fabric) -> Result<Traffic, TopologyError> {
    let n = f.host_count();
    let names = f.node_names();
    let links = f.links();
    let at = link_map(&links);
    let mut routes = FlatRoutes::new(links.len());
    let mut nodes = Vec::new();
    for (s, d) in pairs(n) {
        f.route(s, d, &mut nodes);
        routes.push(nodes.windows(2).map(|w| at[&(w[0], w[1])]));
    }
    let link_id = |i: usize| {
        let (x, y) = links[i];
        format!("{}>{}", names[x as usize], names[y as usize])
    };
    routes.traffic(f.name(), f.description(), link_id, &names[..n], pairs(n))
}

/// Whether `t` is the machine's all-to-all as [`traffic`] builds it: `N·(N − 1)` transfers
/// in the sender-major order, each from and to the right hosts (where the traffic names
/// them) over the links, named `from>to`, of the machine's route. The first difference
/// otherwise. O(total path length), no second traffic built.
/// With `deadline`, the clock is read every 1,024 transfers: past it, `Ok(false)` (not
/// every route checked); `Ok(true)` when every route is the machine's.
pub(crate) fn same_traffic(
    f: &impl Fabric,
    t: &Traffic,
    deadline: Option<std::time::Instant>,
) -> Result<bool, String> {
    let n = f.host_count();
    let all = n * (n - 1);
    if t.len() != all {
        return Err(format!(
            "{} transfers, not the {all} of an all-to-all of {n} hosts",
            t.len()
        ));
    }
    let names = f.node_names();
    let links = f.links();
    let at = link_map(&links);
    // The traffic's id of every link of the machine (none for a link it does not have).
    let ids: Vec<Option<liquid_model::LinkId>> = links
        .iter()
        .map(|&(x, y)| t.find_link(&format!("{}>{}", names[x as usize], names[y as usize])))
        .collect();
    let mut nodes = Vec::new();
    for (k, ((s, d), x)) in pairs(n).zip(t.transfers()).enumerate() {
        if k % 1024 == 0 && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Ok(false);
        }
        let ends = [(&x.from, s), (&x.to, d)]
            .iter()
            .all(|(given, h)| given.as_deref().is_none_or(|g| g == names[*h]));
        f.route(s, d, &mut nodes);
        let route = nodes.len() == x.path.len() + 1
            && nodes
                .windows(2)
                .zip(&x.path)
                .all(|(w, &l)| ids[at[&(w[0], w[1])] as usize] == Some(l));
        if !ends || !route {
            return Err(format!(
                "transfer {:?} is not the one from {} to {} over the machine's route",
                x.id, names[s], names[d]
            ));
        }
    }
    Ok(true)
}

/// Timeframes of `(sender, receiver)` host numbers: a closed-form schedule of an
/// all-to-all ([`crate::rail::Rail::schedule`], [`crate::hyperx::HyperX::schedule`]).
pub type PairFrames = Vec<Vec<(usize, usize)>>;

/// A closed-form schedule of a machine's all-to-all made one frame at a time, at any size
/// (no model built): what `liquid solve --stream` streams ([`crate::dragonfly::Rounds`],
/// [`crate::dragonfly::PlusRounds`], [`crate::rail::RailRounds`],
/// [`crate::hyperx::HyperXRounds`]).
pub trait FrameRounds {
    /// Number of frames.
    fn frames(&self) -> usize;
    /// Frame `f < frames()` as `(sender, receiver)` host numbers, into `out` (cleared
    /// first).
    fn frame(&self, f: usize, out: &mut Vec<(u32, u32)>);

    /// Every frame, in memory, as [`PairFrames`].
    fn pair_frames(&self) -> PairFrames {
        let mut pairs = Vec::new();
        (0..self.frames())
            .map(|f| {
                self.frame(f, &mut pairs);
                pairs
                    .iter()
                    .map(|&(s, d)| (s as usize, d as usize))
                    .collect()
            })
            .collect()
    }
}

/// A schedule of a machine's all-to-all given as timeframes of `(sender, receiver)` host
/// pairs, as a schedule of its traffic ([`traffic`] or the network form's expansion:
/// both number the transfers sender-major, `s·(N−1) + d − [d > s]`). Not validated here:
/// callers run the model's validator.
pub fn pairs_schedule(n: usize, frames: &[Vec<(usize, usize)>]) -> liquid_model::Schedule {
    let id = |(s, d): (usize, usize)| {
        liquid_model::TransferId((s * (n - 1) + d - usize::from(d > s)) as u32)
    };
    liquid_model::Schedule::new(
        frames
            .iter()
            .map(|f| f.iter().map(|&p| id(p)).collect())
            .collect(),
    )
}

/// The load of every link (transfers crossing it) under the machine's routing, counted
/// route by route (what the closed forms are tested against).
#[cfg(test)]
pub(crate) fn counted_loads(f: &impl Fabric) -> Vec<u64> {
    let links = f.links();
    let at = link_map(&links);
    let mut load = vec![0u64; links.len()];
    let mut nodes = Vec::new();
    for (s, d) in pairs(f.host_count()) {
        f.route(s, d, &mut nodes);
        for w in nodes.windows(2) {
            load[at[&(w[0], w[1])] as usize] += 1;
        }
    }
    load
}

/// The parts of a spec's parameter list as whole numbers.
pub(crate) fn numbers(
    spec: &str,
    parts: &[&str],
    names: &[&str],
) -> Result<Vec<usize>, TopologyError> {
    parts
        .iter()
        .zip(names)
        .map(|(p, name)| crate::network_spec::number(spec, name, p))
        .collect()
}
