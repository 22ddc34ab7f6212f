//! Networks with static routing, and traffic patterns over them (the *network* form of a
//! model file). Expanding a network model gives an ordinary [`Traffic`].
//!
//! # The shortest-path rule
//! When a pair has no explicit route, its route is a shortest path in hops over the
//! directed links, where only switches may be crossed (end nodes do not forward: 003
//! section 1). Among shortest paths the rule takes, hop by hop, the out-link declared first
//! in the model's `links` list that still lies on a shortest path. The result is the
//! lexicographically smallest shortest path by link declaration order: deterministic, and
//! independent of hashing or platform.

use std::collections::{HashMap, HashSet, VecDeque};

use thiserror::Error;

use crate::traffic::{BuildError, Traffic, TrafficBuilder};

/// A directed link between two nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetLink {
    /// The link's id (also its name in the traffic).
    pub id: String,
    /// Tail node.
    pub from: String,
    /// Head node.
    pub to: String,
}

/// Physical parameters of one link of a network-form model (`bandwidth`, `latency` in
/// `network.links`), used by simulators; `None` means "the model-wide default"
/// (`link_throughput`, `link_latency`). They never change the traffic or its schedules.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LinkParams {
    /// Bandwidth in MB/s (10^6 bytes per second), positive and finite.
    pub bandwidth: Option<f64>,
    /// One-way latency in seconds, finite and not negative.
    pub latency: Option<f64>,
}

impl LinkParams {
    /// Whether the link gives a figure of its own (which the explicit form cannot hold).
    pub fn is_set(&self) -> bool {
        self.bandwidth.is_some() || self.latency.is_some()
    }
}

/// An explicit route for one (sender, receiver) pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Link ids, in order from sender to receiver.
    pub path: Vec<String>,
}

/// How routes are found for pairs without an explicit route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Routing {
    /// The documented shortest-path rule (see the module docs).
    #[default]
    ShortestPath,
    /// Every pair of the pattern must have an explicit route.
    Explicit,
}

/// A network: end nodes (hosts), switches, directed links and static routing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Network {
    /// End nodes: senders and receivers; never crossed by a route.
    pub hosts: Vec<String>,
    /// Switches: crossed by routes.
    pub switches: Vec<String>,
    /// Directed links, in declaration order (the order breaks routing ties).
    pub links: Vec<NetLink>,
    /// The routing rule for pairs without an explicit route.
    pub routing: Routing,
    /// Explicit routes, which take precedence over the rule.
    pub routes: Vec<Route>,
}

/// One (sender, receiver) demand, possibly repeated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// How many transfers go from `from` to `to` (at least 1).
    pub count: u64,
}

/// A traffic pattern over a network's hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// Every sender sends one transfer to every receiver. A node that is both sender and
    /// receiver sends to itself only when `self_transfers` is set: such a transfer leaves
    /// the host and comes back through the network (up to its switch and back, as in the
    /// Swiss-T1 figures of 000/003), so its path is not empty.
    AllToAll {
        /// Sending hosts, in order.
        senders: Vec<String>,
        /// Receiving hosts, in order.
        receivers: Vec<String>,
        /// Whether a host that sends and receives also sends to itself.
        self_transfers: bool,
    },
    /// An explicit list of pairs.
    Pairs(Vec<Pair>),
}

/// Why a network model could not be expanded. `at` is a field path in the model file.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum NetworkError {
    /// A node or link id declared twice.
    #[error("duplicate {what} id {id:?}")]
    Duplicate {
        /// Field path.
        at: String,
        /// `node` or `link`.
        what: &'static str,
        /// The id.
        id: String,
    },
    /// A reference to a node that is not declared.
    #[error("unknown node {id:?}: declare it under network.hosts or network.switches")]
    UnknownNode {
        /// Field path.
        at: String,
        /// The id.
        id: String,
    },
    /// A reference to a link that is not declared.
    #[error("unknown link {id:?}: declare it under network.links")]
    UnknownLink {
        /// Field path.
        at: String,
        /// The id.
        id: String,
    },
    /// A pattern endpoint that is a switch.
    #[error("{id:?} is a switch; senders and receivers must be hosts")]
    NotAHost {
        /// Field path.
        at: String,
        /// The id.
        id: String,
    },
    /// An explicit route whose links do not form a walk from sender to receiver.
    #[error("route {from} -> {to} is broken: {why}")]
    BrokenRoute {
        /// Field path.
        at: String,
        /// Sender.
        from: String,
        /// Receiver.
        to: String,
        /// What is wrong.
        why: String,
    },
    /// Two explicit routes for one pair.
    #[error("a second route for {from} -> {to}")]
    DuplicateRoute {
        /// Field path.
        at: String,
        /// Sender.
        from: String,
        /// Receiver.
        to: String,
    },
    /// No route exists (or none is given with explicit routing).
    #[error("no route from {from:?} to {to:?}: {why}")]
    NoRoute {
        /// Field path.
        at: String,
        /// Sender.
        from: String,
        /// Receiver.
        to: String,
        /// Why.
        why: &'static str,
    },
    /// A count outside 1..=MAX_COUNT.
    #[error("count must be between 1 and {max}, not {count}")]
    BadCount {
        /// Field path.
        at: String,
        /// The count given.
        count: u64,
        /// The limit.
        max: u64,
    },
    /// A list of virtual link names whose length differs from the count.
    #[error("virtual_links names {given} links but count is {count}")]
    VirtualLinks {
        /// Field path.
        at: String,
        /// Names given.
        given: usize,
        /// The count.
        count: u64,
    },
    /// A self-pair in an explicit pair list.
    #[error("a transfer from {id:?} to itself has an empty path")]
    SelfPair {
        /// Field path.
        at: String,
        /// The node.
        id: String,
    },
    /// The pattern produces more transfers than supported.
    #[error("the pattern produces {count} transfers; at most {max} are supported")]
    TooLarge {
        /// Field path.
        at: String,
        /// How many it would produce.
        count: u128,
        /// The limit.
        max: u64,
    },
    /// A sender or receiver listed twice in an all-to-all pattern, or a pair given twice
    /// in a list of pairs.
    #[error("{what} is given twice: first at {first}; {hint}")]
    Repeated {
        /// Field path of the second entry.
        at: String,
        /// What is repeated, as the user wrote it (`sender "T1"`, `pair T1 -> R1`).
        what: String,
        /// Field path of the first entry.
        first: String,
        /// What to write instead.
        hint: &'static str,
    },
    /// An error of the underlying traffic.
    #[error(transparent)]
    Build(#[from] BuildError),
}

impl NetworkError {
    /// The field path inside the model that the error is about.
    pub fn at(&self) -> &str {
        match self {
            NetworkError::Duplicate { at, .. }
            | NetworkError::UnknownNode { at, .. }
            | NetworkError::UnknownLink { at, .. }
            | NetworkError::NotAHost { at, .. }
            | NetworkError::BrokenRoute { at, .. }
            | NetworkError::DuplicateRoute { at, .. }
            | NetworkError::NoRoute { at, .. }
            | NetworkError::BadCount { at, .. }
            | NetworkError::VirtualLinks { at, .. }
            | NetworkError::SelfPair { at, .. }
            | NetworkError::TooLarge { at, .. }
            | NetworkError::Repeated { at, .. } => at,
            NetworkError::Build(e) => e.at(),
        }
    }

    /// A second field path the error is about (the first entry of a repeated one).
    pub fn related_at(&self) -> Option<&str> {
        match self {
            NetworkError::Repeated { first, .. } => Some(first),
            NetworkError::Build(e) => e.related_at(),
            _ => None,
        }
    }
}

/// The first entry of `list` equal to an earlier one: (the earlier one's index, its own).
fn first_repeat<K: std::hash::Hash + Eq>(list: impl Iterator<Item = K>) -> Option<(usize, usize)> {
    let mut seen: HashMap<K, usize> = HashMap::new();
    for (i, k) in list.enumerate() {
        if let Some(&first) = seen.get(&k) {
            return Some((first, i));
        }
        seen.insert(k, i);
    }
    None
}

/// The largest multiplicity one transfer may have.
pub const MAX_COUNT: u64 = 1_000_000;

/// The largest number of transfers a model may have in all, counts expanded: 2^22 =
/// 4,194,304 (a 2048-host all-to-all has 4,192,256). Checked before any transfer is
/// built, in both forms, so that a small file with large counts is refused at once
/// instead of filling the memory (about 0.5 KB per transfer).
pub const MAX_TRANSFERS: u64 = 1 << 22;

/// The transfer id of the `k`-th copy (1-based) of a repeated transfer.
pub fn copy_id(id: &str, k: u64) -> String {
    format!("{id}#{k}")
}

/// The default name of the virtual link that distinguishes the `k`-th copy.
pub fn default_virtual_link(id: &str, k: u64) -> String {
    format!("{id}#{k}~v")
}

/// Adds a transfer with multiplicity to a builder, as Fig. 2 of 004 describes: with
/// `count == 1` the transfer is added as it is; with `count == n > 1`, n transfers
/// `id#1..id#n` are added, copy k using the same links plus one virtual link of its own
/// (named by `virtual_links[k-1]`, or `id#k~v`), so the traffic stays a set of distinct
/// transfers. A virtual link has load 1, so it never changes Λ when Λ ≥ 2.
#[allow(clippy::too_many_arguments)]
pub fn add_with_count(
    b: &mut TrafficBuilder,
    id: &str,
    from: Option<String>,
    to: Option<String>,
    path: &[&str],
    count: u64,
    virtual_links: Option<&[String]>,
    at: &str,
) -> Result<(), NetworkError> {
    if count == 0 || count > MAX_COUNT {
        return Err(NetworkError::BadCount {
            at: format!("{at}.count"),
            count,
            max: MAX_COUNT,
        });
    }
    if let Some(v) = virtual_links {
        if v.len() as u64 != count || count == 1 {
            return Err(NetworkError::VirtualLinks {
                at: format!("{at}.virtual_links"),
                given: v.len(),
                count,
            });
        }
    }
    let path_at = |i: usize| format!("{at}.path[{i}]");
    if count == 1 {
        b.transfer(id, from, to, path, at, &path_at)?;
        return Ok(());
    }
    let count_at = format!("{at}.count");
    for k in 1..=count {
        let v = match virtual_links {
            Some(v) => {
                let vat = format!("{at}.virtual_links[{}]", k - 1);
                b.virtual_link(&v[(k - 1) as usize], &vat)?
            }
            None => b.virtual_link(&default_virtual_link(id, k), &count_at)?,
        };
        b.transfer_copy(
            &copy_id(id, k),
            from.clone(),
            to.clone(),
            path,
            v,
            at,
            &path_at,
        )?;
    }
    Ok(())
}

struct Resolved<'a> {
    net: &'a Network,
    node: HashMap<&'a str, (usize, bool)>, // index, is_switch
    link: HashMap<&'a str, usize>,
    out: Vec<Vec<usize>>, // per node, out-links in declaration order
    routes: HashMap<(&'a str, &'a str), usize>,
    /// Each explicit route's links, as indices into `net.links` (checked once here).
    route_links: Vec<Vec<u32>>,
}

impl<'a> Resolved<'a> {
    fn new(net: &'a Network) -> Result<Self, NetworkError> {
        let mut node = HashMap::new();
        for (kind, list, is_switch) in [
            ("hosts", &net.hosts, false),
            ("switches", &net.switches, true),
        ] {
            for (i, id) in list.iter().enumerate() {
                let at = format!("network.{kind}[{i}]");
                if node.insert(id.as_str(), (node.len(), is_switch)).is_some() {
                    return Err(NetworkError::Duplicate {
                        at,
                        what: "node",
                        id: id.clone(),
                    });
                }
            }
        }
        let mut link = HashMap::new();
        let mut out = vec![Vec::new(); node.len()];
        for (i, l) in net.links.iter().enumerate() {
            let at = format!("network.links[{i}]");
            if link.insert(l.id.as_str(), i).is_some() {
                return Err(NetworkError::Duplicate {
                    at: format!("{at}.id"),
                    what: "link",
                    id: l.id.clone(),
                });
            }
            let (u, _) = *node
                .get(l.from.as_str())
                .ok_or_else(|| NetworkError::UnknownNode {
                    at: format!("{at}.from"),
                    id: l.from.clone(),
                })?;
            node.get(l.to.as_str())
                .ok_or_else(|| NetworkError::UnknownNode {
                    at: format!("{at}.to"),
                    id: l.to.clone(),
                })?;
            out[u].push(i);
        }
        let mut r = Resolved {
            net,
            node,
            link,
            out,
            routes: HashMap::new(),
            route_links: Vec::with_capacity(net.routes.len()),
        };
        r.routes.reserve(net.routes.len());
        for (i, route) in net.routes.iter().enumerate() {
            // The field path is written only for an error: a fabric has a million routes.
            let at = || format!("network.routes[{i}]");
            let links = r.check_route(route, &at)?;
            r.route_links.push(links);
            if r.routes
                .insert((route.from.as_str(), route.to.as_str()), i)
                .is_some()
            {
                return Err(NetworkError::DuplicateRoute {
                    at: at(),
                    from: route.from.clone(),
                    to: route.to.clone(),
                });
            }
        }
        Ok(r)
    }

    /// [`Resolved::host`] with the field path written only for an error.
    fn host_lazy(&self, id: &str, at: &dyn Fn() -> String) -> Result<usize, NetworkError> {
        match self.node.get(id) {
            Some(&(i, false)) => Ok(i),
            _ => self.host(id, at()),
        }
    }

    fn host(&self, id: &str, at: String) -> Result<usize, NetworkError> {
        match self.node.get(id) {
            None => Err(NetworkError::UnknownNode {
                at,
                id: id.to_string(),
            }),
            Some(&(_, true)) => Err(NetworkError::NotAHost {
                at,
                id: id.to_string(),
            }),
            Some(&(i, false)) => Ok(i),
        }
    }

    /// Checks a route; `at` writes its field path (only for an error).
    fn check_route(
        &self,
        route: &Route,
        at: &dyn Fn() -> String,
    ) -> Result<Vec<u32>, NetworkError> {
        self.host_lazy(&route.from, &|| format!("{}.from", at()))?;
        self.host_lazy(&route.to, &|| format!("{}.to", at()))?;
        let broken = |why: String| NetworkError::BrokenRoute {
            at: format!("{}.path", at()),
            from: route.from.clone(),
            to: route.to.clone(),
            why,
        };
        if route.path.is_empty() {
            return Err(broken("the path is empty".into()));
        }
        let mut here = route.from.as_str();
        let mut links = Vec::with_capacity(route.path.len());
        for (j, id) in route.path.iter().enumerate() {
            let &li = self
                .link
                .get(id.as_str())
                .ok_or_else(|| NetworkError::UnknownLink {
                    at: format!("{}.path[{j}]", at()),
                    id: id.clone(),
                })?;
            let l = &self.net.links[li];
            if l.from != here {
                return Err(broken(format!(
                    "link {:?} starts at {:?}, not at {:?}",
                    l.id, l.from, here
                )));
            }
            if j + 1 < route.path.len() && !self.node[l.to.as_str()].1 {
                return Err(broken(format!(
                    "it crosses host {:?}; only switches forward",
                    l.to
                )));
            }
            // A route that comes back over a link is a cycle, and no path (a path is a
            // set of links): said here, at the route, not at the pairs that use it.
            if let Some(first) = links.iter().position(|&x| x == li as u32) {
                return Err(NetworkError::BrokenRoute {
                    at: format!("{}.path[{j}]", at()),
                    from: route.from.clone(),
                    to: route.to.clone(),
                    why: format!(
                        "it uses link {:?} twice (path[{first}] and path[{j}]): a path is a set of links",
                        l.id
                    ),
                });
            }
            here = &l.to;
            links.push(li as u32);
        }
        if here != route.to {
            return Err(broken(format!("it ends at {here:?}")));
        }
        Ok(links)
    }

    /// Hop distance from every node to `dest`, crossing switches only (usize::MAX: none).
    fn distances_to(&self, dest: usize) -> Vec<usize> {
        let n = self.node.len();
        let mut is_switch = vec![false; n];
        for &(i, s) in self.node.values() {
            is_switch[i] = s;
        }
        let mut into = vec![Vec::new(); n];
        for l in &self.net.links {
            let u = self.node[l.from.as_str()].0;
            let v = self.node[l.to.as_str()].0;
            into[v].push(u);
        }
        let mut dist = vec![usize::MAX; n];
        dist[dest] = 0;
        let mut queue = VecDeque::from([dest]);
        while let Some(v) = queue.pop_front() {
            if v != dest && !is_switch[v] {
                continue; // a host is reached but never crossed
            }
            for &u in &into[v] {
                if dist[u] == usize::MAX {
                    dist[u] = dist[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        dist
    }
}

/// Expands a network and a pattern into a traffic. Transfer ids are `from->to` (and
/// `from->to#k` for repeated pairs); link names are the network's link ids.
pub fn expand(
    name: &str,
    description: Option<String>,
    link_throughput: Option<f64>,
    net: &Network,
    pattern: &Pattern,
) -> Result<Traffic, NetworkError> {
    let r = Resolved::new(net)?;
    // Each pair with its count and where the pattern names it (written out only when
    // needed: an all-to-all of a fabric has a million pairs).
    let mut pairs: Vec<(&str, &str, u64, PairAt)> = Vec::new();
    match pattern {
        Pattern::AllToAll {
            senders,
            receivers,
            self_transfers,
        } => {
            for (i, s) in senders.iter().enumerate() {
                r.host(s, format!("pattern.senders[{i}]"))?;
            }
            for (j, d) in receivers.iter().enumerate() {
                r.host(d, format!("pattern.receivers[{j}]"))?;
            }
            for (role, list) in [("sender", senders), ("receiver", receivers)] {
                if let Some((first, i)) = first_repeat(list.iter()) {
                    return Err(NetworkError::Repeated {
                        at: format!("pattern.{role}s[{i}]"),
                        what: format!("{role} {:?}", list[i]),
                        first: format!("pattern.{role}s[{first}]"),
                        hint: "an all-to-all pattern lists each node once (for repeated \
                               transfers, use `type: pairs` with `count`)",
                    });
                }
            }
            // A node that both sends and receives sends to itself only with self_transfers.
            let selves = match *self_transfers {
                true => 0,
                false => {
                    let receiving: HashSet<&String> = receivers.iter().collect();
                    senders.iter().filter(|s| receiving.contains(s)).count() as u128
                }
            };
            let total = senders.len() as u128 * receivers.len() as u128 - selves;
            if total > MAX_TRANSFERS as u128 {
                return Err(NetworkError::TooLarge {
                    at: "pattern".into(),
                    count: total,
                    max: MAX_TRANSFERS,
                });
            }
            pairs.reserve(total as usize);
            for (i, s) in senders.iter().enumerate() {
                for d in receivers {
                    if s != d || *self_transfers {
                        pairs.push((s, d, 1, PairAt::Sender(i)));
                    }
                }
            }
        }
        Pattern::Pairs(list) => {
            let total: u128 = list.iter().map(|p| p.count as u128).sum();
            if total > MAX_TRANSFERS as u128 {
                return Err(NetworkError::TooLarge {
                    at: "pattern.pairs".into(),
                    count: total,
                    max: MAX_TRANSFERS,
                });
            }
            for (i, p) in list.iter().enumerate() {
                let at = format!("pattern.pairs[{i}]");
                r.host(&p.from, format!("{at}.from"))?;
                r.host(&p.to, format!("{at}.to"))?;
                if p.from == p.to {
                    return Err(NetworkError::SelfPair {
                        at: format!("{at}.to"),
                        id: p.to.clone(),
                    });
                }
                pairs.push((&p.from, &p.to, p.count, PairAt::Pair(i)));
            }
            if let Some((first, i)) = first_repeat(list.iter().map(|p| (&p.from, &p.to))) {
                return Err(NetworkError::Repeated {
                    at: format!("pattern.pairs[{i}]"),
                    what: format!("pair {} -> {}", list[i].from, list[i].to),
                    first: format!("pattern.pairs[{first}]"),
                    hint: "give it once, with `count: N` for N transfers",
                });
            }
        }
    }
    let mut b = TrafficBuilder::new(name);
    b.description(description);
    b.link_throughput(link_throughput, "link_throughput")?;
    let mut dist_cache: HashMap<usize, Vec<usize>> = HashMap::new();
    // Each pair's route as indices into `net.links`.
    let mut routed: Vec<std::borrow::Cow<'_, [u32]>> = Vec::with_capacity(pairs.len());
    for &(from, to, _, at) in &pairs {
        let path: std::borrow::Cow<'_, [u32]> = if let Some(&ri) = r.routes.get(&(from, to)) {
            std::borrow::Cow::Borrowed(&r.route_links[ri])
        } else if net.routing == Routing::Explicit {
            return Err(NetworkError::NoRoute {
                at: at.to_string(),
                from: from.to_string(),
                to: to.to_string(),
                why: "routing is explicit and network.routes has no route for this pair",
            });
        } else {
            let d = r.node[to].0;
            let dist = dist_cache.entry(d).or_insert_with(|| r.distances_to(d));
            let mut here = r.node[from].0;
            let mut path = Vec::new();
            if here == d {
                // A transfer to itself leaves the host: the first out-link (in declaration
                // order) to a switch nearest back to the host, then the rule as usual.
                let first = r.out[here]
                    .iter()
                    .copied()
                    .filter(|&li| {
                        let v = r.node[net.links[li].to.as_str()];
                        v.1 && dist[v.0] != usize::MAX
                    })
                    .min_by_key(|&li| dist[r.node[net.links[li].to.as_str()].0]);
                let Some(li) = first else {
                    return Err(NetworkError::NoRoute {
                        at: at.to_string(),
                        from: from.to_string(),
                        to: to.to_string(),
                        why: "no switch leads back to the host",
                    });
                };
                path.push(li as u32);
                here = r.node[net.links[li].to.as_str()].0;
            }
            if dist[here] == usize::MAX {
                return Err(NetworkError::NoRoute {
                    at: at.to_string(),
                    from: from.to_string(),
                    to: to.to_string(),
                    why: "the receiver cannot be reached through switches",
                });
            }
            path.reserve(dist[here]);
            while here != d {
                let li = r.out[here]
                    .iter()
                    .copied()
                    .find(|&li| {
                        let v = r.node[net.links[li].to.as_str()];
                        dist[v.0] != usize::MAX && dist[v.0] + 1 == dist[here] && (v.1 || v.0 == d)
                    })
                    .expect("a node at finite distance has a link one hop closer");
                path.push(li as u32);
                here = r.node[net.links[li].to.as_str()].0;
            }
            std::borrow::Cow::Owned(path)
        };
        routed.push(path);
    }
    // Declare the links that routes use in the network's order, so link ids (and every
    // report listing links) follow the model file; unused links are not part of the traffic.
    let mut used = vec![false; net.links.len()];
    for path in &routed {
        for &li in path.iter() {
            used[li as usize] = true;
        }
    }
    let mut link_ids: Vec<Option<crate::traffic::LinkId>> = vec![None; net.links.len()];
    for (i, l) in net.links.iter().enumerate().filter(|&(i, _)| used[i]) {
        link_ids[i] = Some(b.link(&l.id, &format!("network.links[{i}].id"))?);
    }
    // The field path of the pairs of one sender is the same: written once per sender.
    let mut at_text: Option<(usize, String)> = None;
    for (k, (&(from, to, count, at), path)) in pairs.iter().zip(&routed).enumerate() {
        let id = format!("{from}->{to}");
        let fresh = !matches!(&at_text, Some((j, _)) if pairs[*j].3 == at);
        if fresh {
            at_text = Some((k, at.to_string()));
        }
        let at_str = at_text.as_ref().map_or("", |(_, t)| t.as_str());
        if count == 1 {
            // The links are declared: the builder's checks, without looking names up.
            let ids: Vec<crate::traffic::LinkId> = path
                .iter()
                .map(|&li| link_ids[li as usize].expect("every used link is declared"))
                .collect();
            b.transfer_on_links(
                &id,
                Some(from.to_string()),
                Some(to.to_string()),
                &ids,
                at_str,
            )?;
            continue;
        }
        let names: Vec<&str> = path
            .iter()
            .map(|&li| net.links[li as usize].id.as_str())
            .collect();
        add_with_count(
            &mut b,
            &id,
            Some(from.to_string()),
            Some(to.to_string()),
            &names,
            count,
            None,
            at_str,
        )?;
    }
    Ok(b.build("pattern")?)
}

/// Where the pattern names a pair: its sender in an all-to-all, or its entry in a list of
/// pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PairAt {
    Sender(usize),
    Pair(usize),
}

impl std::fmt::Display for PairAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairAt::Sender(i) => write!(f, "pattern.senders[{i}]"),
            PairAt::Pair(i) => write!(f, "pattern.pairs[{i}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn star() -> Network {
        let link = |id: &str, from: &str, to: &str| NetLink {
            id: id.into(),
            from: from.into(),
            to: to.into(),
        };
        Network {
            hosts: vec!["a".into(), "b".into()],
            switches: vec!["s".into()],
            links: vec![
                link("a>s", "a", "s"),
                link("s>a", "s", "a"),
                link("b>s", "b", "s"),
                link("s>b", "s", "b"),
            ],
            routing: Routing::ShortestPath,
            routes: vec![],
        }
    }

    #[test]
    fn self_transfers_go_up_to_the_switch_and_back() {
        let net = star();
        let with = |self_transfers| Pattern::AllToAll {
            senders: vec!["a".into(), "b".into()],
            receivers: vec!["a".into(), "b".into()],
            self_transfers,
        };
        let t = expand("x", None, None, &net, &with(false)).expect("expands");
        assert_eq!(t.len(), 2);
        let t = expand("x", None, None, &net, &with(true)).expect("expands");
        assert_eq!(t.len(), 4);
        let aa = t.find_transfer("a->a").expect("present");
        let names: Vec<&str> = t
            .transfer(aa)
            .path
            .iter()
            .map(|&l| t.link_name(l))
            .collect();
        assert_eq!(names, ["a>s", "s>a"]);
        assert_eq!(t.duration(), 2);
    }

    #[test]
    fn network_form_round_trips_with_self_transfers() {
        let net = star();
        let p = Pattern::AllToAll {
            senders: vec!["a".into(), "b".into()],
            receivers: vec!["a".into(), "b".into()],
            self_transfers: true,
        };
        let text = crate::yaml::write_network("x", Some("d"), Some(10.0), &net, &p);
        let back = crate::yaml::parse_model("x.yaml", &text).expect("parses");
        let direct = expand("x", Some("d".into()), Some(10.0), &net, &p).expect("expands");
        assert_eq!(
            crate::yaml::write_explicit(&back),
            crate::yaml::write_explicit(&direct)
        );
        assert_eq!(back.len(), 4);
    }

    #[test]
    fn link_params_round_trip() {
        let net = star();
        let p = Pattern::AllToAll {
            senders: vec!["a".into(), "b".into()],
            receivers: vec!["a".into(), "b".into()],
            self_transfers: false,
        };
        let params: Vec<LinkParams> = (0..net.links.len())
            .map(|i| LinkParams {
                bandwidth: (i % 2 == 0).then_some(125.0 + i as f64),
                latency: (i > 0).then_some(0.005 * i as f64),
            })
            .collect();
        let text = crate::yaml::write_network_with_params("x", None, None, &net, &params, &p);
        let back = crate::yaml::parse_model_full("x.yaml", &text).expect("parses");
        assert_eq!(back.link_params, params);
        // Without parameters, the same text as write_network.
        assert_eq!(
            crate::yaml::write_network_with_params("x", None, None, &net, &[], &p),
            crate::yaml::write_network("x", None, None, &net, &p)
        );
    }
}
