//! Links, transfers and traffics: the traffic-set model of papers 003 and 004.
//!
//! A [`Traffic`] stores every transfer's path as a list of dense [`LinkId`]s and, for every
//! link, the list of its users. Everything the engines need (loads, bottlenecks, the
//! conflict structure) is derived from these two lists, so the memory is linear in the
//! total path length: the conflict graph's edge list is never materialised.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use thiserror::Error;

/// Dense index of a link in a [`Traffic`] (0-based, in order of first appearance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// Dense index of a transfer in a [`Traffic`] (0-based, in the model's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransferId(pub u32);

impl LinkId {
    /// The index as a `usize`, for indexing vectors.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl TransferId {
    /// The index as a `usize`, for indexing vectors.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One transfer: a user-facing id, optional end points, and its path (a set of links).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    /// The user's id, unique in the traffic.
    pub id: String,
    /// The sending node, when known.
    pub from: Option<String>,
    /// The receiving node, when known.
    pub to: Option<String>,
    /// The links of the route, in route order; no link twice.
    pub path: Vec<LinkId>,
}

/// A traffic: a set of transfers over named links.
#[derive(Debug, Clone)]
pub struct Traffic {
    name: String,
    description: Option<String>,
    link_throughput: Option<f64>,
    /// Some link has its own bandwidth, other than `link_throughput` (the network form's
    /// per-link `bandwidth`): no single liquid throughput then.
    mixed_bandwidths: bool,
    links: Vec<String>,
    /// Per link, whether it is a virtual link (a copy's, [`TrafficBuilder::virtual_link`]).
    is_virtual: Vec<bool>,
    transfers: Vec<Transfer>,
    users: Vec<Vec<TransferId>>,
    transfer_index: NameMap<TransferId>,
}

/// Why a traffic could not be built. `at` is the field path inside the model
/// (for example `transfers[3].path[1]`), which the YAML layer turns into a line.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BuildError {
    /// The traffic has no transfer.
    #[error("the traffic is empty: a model needs at least one transfer")]
    Empty {
        /// Field path of the offending element.
        at: String,
    },
    /// Two transfers share an id.
    #[error("duplicate transfer id {id:?}: first defined at {first}")]
    DuplicateTransfer {
        /// Field path of the second definition.
        at: String,
        /// The duplicated id.
        id: String,
        /// Field path of the first definition.
        first: String,
    },
    /// A transfer's path is empty.
    #[error("transfer {id:?} has an empty path: a transfer uses at least one link")]
    EmptyPath {
        /// Field path of the path.
        at: String,
        /// The transfer's id.
        id: String,
    },
    /// A link appears twice in one path.
    #[error("transfer {id:?} uses link {link:?} twice: a path is a set of links")]
    RepeatedLink {
        /// Field path of the repeated link.
        at: String,
        /// The transfer's id.
        id: String,
        /// The repeated link.
        link: String,
    },
    /// A virtual link whose name is already in use, as a real link or as the virtual link
    /// of another copy.
    #[error("virtual link {link:?} is already in use as {first_kind} at {first}: a virtual link must be a link of its own")]
    VirtualLinkClash {
        /// Field path of the virtual link's declaration.
        at: String,
        /// The link's name.
        link: String,
        /// Field path where the name was first used.
        first: String,
        /// What the first use declared: `a real link` or `a virtual link`.
        first_kind: &'static str,
    },
    /// A real link (in a path) that is the name of a virtual link declared earlier.
    #[error("link {link:?} is a virtual link, declared at {first}: a virtual link must not also be a real link")]
    RealLinkIsVirtual {
        /// Field path of the path element.
        at: String,
        /// The link's name.
        link: String,
        /// Field path of the virtual link's declaration.
        first: String,
    },
    /// An id (transfer or link) is empty.
    #[error("an empty string is not a valid {what} id")]
    EmptyId {
        /// Field path of the id.
        at: String,
        /// `transfer` or `link`.
        what: &'static str,
    },
    /// More elements than the dense 32-bit ids can hold.
    #[error("too many {what}: at most {max} are supported")]
    TooMany {
        /// Field path of the collection.
        at: String,
        /// What overflowed.
        what: &'static str,
        /// The limit.
        max: u64,
    },
    /// A path given by link ids names a link this builder never declared.
    #[error("link id {link} was never declared")]
    UndeclaredLink {
        /// Field path of the path element.
        at: String,
        /// The link id.
        link: u32,
    },
    /// A link throughput that is not a positive finite number.
    #[error("link_throughput must be a positive finite number of MB/s, not {value}")]
    BadThroughput {
        /// Field path.
        at: String,
        /// The value given.
        value: f64,
    },
}

impl BuildError {
    /// The field path inside the model that the error is about.
    pub fn at(&self) -> &str {
        match self {
            BuildError::Empty { at }
            | BuildError::DuplicateTransfer { at, .. }
            | BuildError::EmptyPath { at, .. }
            | BuildError::RepeatedLink { at, .. }
            | BuildError::VirtualLinkClash { at, .. }
            | BuildError::RealLinkIsVirtual { at, .. }
            | BuildError::EmptyId { at, .. }
            | BuildError::TooMany { at, .. }
            | BuildError::UndeclaredLink { at, .. }
            | BuildError::BadThroughput { at, .. } => at,
        }
    }

    /// The field path of a second place the error is about (the first definition of a
    /// duplicate, the other use of a clashing link), when there is one. The message names
    /// it, last, so that a caller can add its line and column.
    pub fn related_at(&self) -> Option<&str> {
        match self {
            BuildError::DuplicateTransfer { first, .. }
            | BuildError::VirtualLinkClash { first, .. }
            | BuildError::RealLinkIsVirtual { first, .. } => Some(first),
            _ => None,
        }
    }
}

/// Names (of links, of transfers) to their ids. foldhash rather than the standard
/// library's SipHash: hashing the names was a fifth of loading a million-transfer model,
/// and its per-process random seed still keeps crafted names from colliding on purpose.
/// Nothing iterates these maps, so their order never reaches an output.
type NameMap<V> = HashMap<String, V, foldhash::fast::RandomState>;

/// Builds a [`Traffic`] transfer by transfer, checking every invariant of the model.
#[derive(Debug, Default)]
pub struct TrafficBuilder {
    name: String,
    description: Option<String>,
    link_throughput: Option<f64>,
    links: Vec<String>,
    link_index: NameMap<LinkId>,
    /// Per link: the field path of its first use, and whether it is a virtual link.
    link_at: Vec<(Arc<str>, bool)>,
    transfers: Vec<Transfer>,
    transfer_index: NameMap<TransferId>,
    transfer_at: Vec<Arc<str>>,
    /// The field paths stored last in `link_at` and `transfer_at`: the copies of a
    /// `count` share theirs instead of holding one string each.
    last_at: [Option<Arc<str>>; 2],
}

/// Paths longer than this are checked for repeated links with a hash set rather than by
/// pairwise comparison, so that a hostile path of many links loads in linear time.
const SHORT_PATH: usize = 16;

/// The largest number of transfers or links a traffic may hold (dense `u32` ids).
pub const MAX_ELEMENTS: u64 = u32::MAX as u64;

impl TrafficBuilder {
    /// Starts an empty traffic with a name.
    pub fn new(name: impl Into<String>) -> Self {
        TrafficBuilder {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Makes room for `transfers` more transfers at once (a generator knows how many it
    /// will add): the name index then never grows by rehashing all it holds.
    pub fn reserve(&mut self, transfers: usize) {
        self.transfers.reserve(transfers);
        self.transfer_index.reserve(transfers);
        self.transfer_at.reserve(transfers);
    }

    /// Sets the free-text description.
    pub fn description(&mut self, description: Option<String>) -> &mut Self {
        self.description = description;
        self
    }

    /// Sets the single-link throughput in MB/s (checked to be positive and finite).
    pub fn link_throughput(
        &mut self,
        mb_s: Option<f64>,
        at: &str,
    ) -> Result<&mut Self, BuildError> {
        if let Some(v) = mb_s {
            if !(v.is_finite() && v > 0.0) {
                return Err(BuildError::BadThroughput {
                    at: at.to_string(),
                    value: v,
                });
            }
        }
        self.link_throughput = mb_s;
        Ok(self)
    }

    /// Declares a real link (idempotent) and returns its dense id. Naming a link that was
    /// declared as a virtual link ([`TrafficBuilder::virtual_link`]) is an error.
    pub fn link(&mut self, name: &str, at: &str) -> Result<LinkId, BuildError> {
        if let Some(&id) = self.link_index.get(name) {
            let (first, is_virtual) = &self.link_at[id.index()];
            if *is_virtual {
                return Err(BuildError::RealLinkIsVirtual {
                    at: at.to_string(),
                    link: name.to_string(),
                    first: first.to_string(),
                });
            }
            return Ok(id);
        }
        self.new_link(name, at, false)
    }

    /// Declares a virtual link: a link of its own that distinguishes one copy of a
    /// repeated transfer (004 Fig. 2). The name must not be in use yet, as a real link or
    /// as another virtual link; a later real use of it is an error too (see
    /// [`TrafficBuilder::link`]), so the check does not depend on declaration order.
    pub fn virtual_link(&mut self, name: &str, at: &str) -> Result<LinkId, BuildError> {
        if let Some(&id) = self.link_index.get(name) {
            let (first, first_is_virtual) = &self.link_at[id.index()];
            return Err(BuildError::VirtualLinkClash {
                at: at.to_string(),
                link: name.to_string(),
                first: first.to_string(),
                first_kind: if *first_is_virtual {
                    "a virtual link"
                } else {
                    "a real link"
                },
            });
        }
        self.new_link(name, at, true)
    }

    fn new_link(&mut self, name: &str, at: &str, is_virtual: bool) -> Result<LinkId, BuildError> {
        if name.is_empty() {
            return Err(BuildError::EmptyId {
                at: at.to_string(),
                what: "link",
            });
        }
        if self.links.len() as u64 >= MAX_ELEMENTS {
            return Err(BuildError::TooMany {
                at: at.to_string(),
                what: "links",
                max: MAX_ELEMENTS,
            });
        }
        let id = LinkId(self.links.len() as u32);
        self.links.push(name.to_string());
        self.link_index.insert(name.to_string(), id);
        let at = self.intern(0, at);
        self.link_at.push((at, is_virtual));
        Ok(id)
    }

    /// A shared copy of a field path: equal to the one stored last in the same `slot`,
    /// it is that one.
    fn intern(&mut self, slot: usize, at: &str) -> Arc<str> {
        match &self.last_at[slot] {
            Some(last) if **last == *at => last.clone(),
            _ => {
                let at: Arc<str> = Arc::from(at);
                self.last_at[slot] = Some(at.clone());
                at
            }
        }
    }

    /// Whether a link of that name was declared (real or virtual).
    pub fn has_link(&self, name: &str) -> bool {
        self.link_index.contains_key(name)
    }

    /// Adds a transfer. `at` is its field path; `path_at(i)` names the path's i-th element.
    pub fn transfer(
        &mut self,
        id: &str,
        from: Option<String>,
        to: Option<String>,
        path: &[&str],
        at: &str,
        path_at: &dyn Fn(usize) -> String,
    ) -> Result<TransferId, BuildError> {
        self.add_transfer(id, from, to, path, None, at, path_at)
    }

    /// Adds one copy of a repeated transfer: the links of `path` plus `virtual_link`, a
    /// link declared by [`TrafficBuilder::virtual_link`] (last in the path).
    #[allow(clippy::too_many_arguments)]
    pub fn transfer_copy(
        &mut self,
        id: &str,
        from: Option<String>,
        to: Option<String>,
        path: &[&str],
        virtual_link: LinkId,
        at: &str,
        path_at: &dyn Fn(usize) -> String,
    ) -> Result<TransferId, BuildError> {
        self.add_transfer(id, from, to, path, Some(virtual_link), at, path_at)
    }

    /// Adds a transfer whose path is given as ids of links declared earlier with
    /// [`TrafficBuilder::link`] (for generators that compute routes as link indices). The
    /// checks are [`TrafficBuilder::transfer`]'s, plus [`BuildError::UndeclaredLink`].
    pub fn transfer_on_links(
        &mut self,
        id: impl Into<String>,
        from: Option<String>,
        to: Option<String>,
        path: &[LinkId],
        at: &str,
    ) -> Result<TransferId, BuildError> {
        // Owned: a generator's id becomes the transfer's without a copy.
        let id: String = id.into();
        self.check_new_transfer(&id, path.len(), at)?;
        let mut seen: HashSet<LinkId> = HashSet::new();
        for (i, &l) in path.iter().enumerate() {
            if l.index() >= self.links.len() {
                return Err(BuildError::UndeclaredLink {
                    at: format!("{at}.path[{i}]"),
                    link: l.0,
                });
            }
            let repeated = if path.len() <= SHORT_PATH {
                path[..i].contains(&l)
            } else {
                !seen.insert(l)
            };
            if repeated {
                return Err(BuildError::RepeatedLink {
                    at: format!("{at}.path[{i}]"),
                    id,
                    link: self.links[l.index()].clone(),
                });
            }
        }
        Ok(self.push_transfer(id, from, to, path.to_vec(), at))
    }

    /// The checks of a new transfer that do not depend on its links.
    fn check_new_transfer(&self, id: &str, path_len: usize, at: &str) -> Result<(), BuildError> {
        if id.is_empty() {
            return Err(BuildError::EmptyId {
                at: format!("{at}.id"),
                what: "transfer",
            });
        }
        if let Some(&first) = self.transfer_index.get(id) {
            return Err(BuildError::DuplicateTransfer {
                at: format!("{at}.id"),
                id: id.to_string(),
                first: self.transfer_at[first.index()].to_string(),
            });
        }
        if path_len == 0 {
            return Err(BuildError::EmptyPath {
                at: format!("{at}.path"),
                id: id.to_string(),
            });
        }
        if self.transfers.len() as u64 >= MAX_ELEMENTS {
            return Err(BuildError::TooMany {
                at: at.to_string(),
                what: "transfers",
                max: MAX_ELEMENTS,
            });
        }
        Ok(())
    }

    /// Stores a checked transfer.
    fn push_transfer(
        &mut self,
        id: String,
        from: Option<String>,
        to: Option<String>,
        path: Vec<LinkId>,
        at: &str,
    ) -> TransferId {
        let tid = TransferId(self.transfers.len() as u32);
        self.transfer_index.insert(id.clone(), tid);
        self.transfers.push(Transfer { id, from, to, path });
        let at = self.intern(1, at);
        self.transfer_at.push(at);
        tid
    }

    #[allow(clippy::too_many_arguments)]
    fn add_transfer(
        &mut self,
        id: &str,
        from: Option<String>,
        to: Option<String>,
        path: &[&str],
        extra: Option<LinkId>,
        at: &str,
        path_at: &dyn Fn(usize) -> String,
    ) -> Result<TransferId, BuildError> {
        self.check_new_transfer(id, path.len(), at)?;
        let mut links = Vec::with_capacity(path.len() + usize::from(extra.is_some()));
        let mut seen: HashSet<LinkId> = HashSet::new();
        for (i, name) in path.iter().enumerate() {
            // A real link declared before needs no field path (formatting one per link
            // of every transfer was a tenth of loading a `count: 1000000`).
            let l = match self.link_index.get(*name) {
                Some(&l) if !self.link_at[l.index()].1 => l,
                _ => self.link(name, &path_at(i))?,
            };
            let repeated = if path.len() <= SHORT_PATH {
                links.contains(&l)
            } else {
                !seen.insert(l)
            };
            if repeated {
                return Err(BuildError::RepeatedLink {
                    at: path_at(i),
                    id: id.to_string(),
                    link: name.to_string(),
                });
            }
            links.push(l);
        }
        // A virtual link is new when declared, so it cannot repeat a link of the path.
        links.extend(extra);
        Ok(self.push_transfer(id.to_string(), from, to, links, at))
    }

    /// Finishes the traffic; `at` names the transfer list for the empty-traffic error.
    pub fn build(self, at: &str) -> Result<Traffic, BuildError> {
        if self.transfers.is_empty() {
            return Err(BuildError::Empty { at: at.to_string() });
        }
        Ok(self.finish())
    }

    /// Builds the per-link user lists; no check (an empty traffic is allowed here).
    fn finish(self) -> Traffic {
        let mut users = vec![Vec::new(); self.links.len()];
        for (t, transfer) in self.transfers.iter().enumerate() {
            for l in &transfer.path {
                users[l.index()].push(TransferId(t as u32));
            }
        }
        Traffic {
            name: self.name,
            description: self.description,
            link_throughput: self.link_throughput,
            mixed_bandwidths: false,
            is_virtual: self.link_at.iter().map(|(_, v)| *v).collect(),
            links: self.links,
            transfers: self.transfers,
            users,
            transfer_index: self.transfer_index,
        }
    }
}

/// Conflict-graph statistics, computed without building the edge list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConflictStats {
    /// Vertices: one per transfer.
    pub vertices: u64,
    /// Edges: unordered pairs of transfers that share at least one link.
    pub edges: u64,
    /// The largest number of transfers one transfer congests with.
    pub max_degree: u64,
}

impl Traffic {
    /// Builds a traffic from `(id, path)` pairs of plain strings: a convenience for tests
    /// and generators. Errors are the same as [`TrafficBuilder`]'s.
    pub fn from_paths<S: AsRef<str>>(
        name: &str,
        transfers: &[(S, Vec<S>)],
    ) -> Result<Traffic, BuildError> {
        let mut b = TrafficBuilder::new(name);
        for (i, (id, path)) in transfers.iter().enumerate() {
            let path: Vec<&str> = path.iter().map(|s| s.as_ref()).collect();
            let at = format!("transfers[{i}]");
            b.transfer(id.as_ref(), None, None, &path, &at, &|j| {
                format!("transfers[{i}].path[{j}]")
            })?;
        }
        b.build("transfers")
    }

    /// SHA-256 (lower-case hex) of the traffic's explicit form, as `liquid expand` prints
    /// it: the traffic's identity in proof manifests and checked proofs.
    pub fn sha256(&self) -> String {
        liquid_certify::sha256_hex(&crate::yaml::write_explicit(self))
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model's description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Single-link throughput in MB/s, if the model gives one.
    pub fn link_throughput(&self) -> Option<f64> {
        self.link_throughput
    }

    /// Number of transfers, #X.
    pub fn len(&self) -> usize {
        self.transfers.len()
    }

    /// Whether the traffic has no transfer (never true for a built traffic).
    pub fn is_empty(&self) -> bool {
        self.transfers.is_empty()
    }

    /// Number of links used by the traffic.
    pub fn num_links(&self) -> usize {
        self.links.len()
    }

    /// All transfers, indexed by [`TransferId`].
    pub fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }

    /// One transfer.
    pub fn transfer(&self, t: TransferId) -> &Transfer {
        &self.transfers[t.index()]
    }

    /// Every transfer id, in order.
    pub fn transfer_ids(&self) -> impl ExactSizeIterator<Item = TransferId> + '_ {
        (0..self.transfers.len() as u32).map(TransferId)
    }

    /// Every link id, in order.
    pub fn link_ids(&self) -> impl ExactSizeIterator<Item = LinkId> + '_ {
        (0..self.links.len() as u32).map(LinkId)
    }

    /// The user-facing name of a link.
    pub fn link_name(&self, l: LinkId) -> &str {
        &self.links[l.index()]
    }

    /// Whether `l` is a virtual link: it tells apart the copies of a repeated transfer
    /// (`count`, 004's multiplicity) and carries no bytes, so it has no bandwidth or
    /// latency of its own.
    pub fn is_virtual(&self, l: LinkId) -> bool {
        self.is_virtual[l.index()]
    }

    /// The user-facing id of a transfer.
    pub fn transfer_name(&self, t: TransferId) -> &str {
        &self.transfers[t.index()].id
    }

    /// Looks a transfer up by its user-facing id.
    pub fn find_transfer(&self, id: &str) -> Option<TransferId> {
        self.transfer_index.get(id).copied()
    }

    /// Looks a link up by its user-facing name (linear; for reports, not hot paths).
    pub fn find_link(&self, name: &str) -> Option<LinkId> {
        self.links
            .iter()
            .position(|n| n == name)
            .map(|i| LinkId(i as u32))
    }

    /// The transfers that use a link, in increasing id order.
    pub fn users(&self, l: LinkId) -> &[TransferId] {
        &self.users[l.index()]
    }

    /// λ(l, X): the load of a link.
    pub fn load(&self, l: LinkId) -> usize {
        self.users[l.index()].len()
    }

    /// Loads of every link, indexed by [`LinkId`].
    pub fn loads(&self) -> Vec<usize> {
        self.users.iter().map(Vec::len).collect()
    }

    /// Λ(X): the largest load.
    pub fn duration(&self) -> usize {
        self.users.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// σ(X): the links whose load equals the duration, in increasing id order.
    pub fn bottlenecks(&self) -> Vec<LinkId> {
        let d = self.duration();
        self.link_ids().filter(|&l| self.load(l) == d).collect()
    }

    /// #X / Λ(X): the liquid throughput in units of one link's throughput.
    pub fn liquid_ratio(&self) -> f64 {
        self.len() as f64 / self.duration().max(1) as f64
    }

    /// Liquid throughput in MB/s, when the model gives a link throughput that every link
    /// has ([`Traffic::uniform_throughput`]).
    pub fn liquid_throughput(&self) -> Option<f64> {
        self.uniform_throughput().map(|t| t * self.liquid_ratio())
    }

    /// The link throughput of every link, MB/s: `link_throughput`, unless some link has
    /// its own bandwidth ([`Traffic::with_mixed_bandwidths`]), which a figure of one
    /// throughput (#X / Λ × it) would ignore.
    pub fn uniform_throughput(&self) -> Option<f64> {
        self.link_throughput.filter(|_| !self.mixed_bandwidths)
    }

    /// The traffic of a model some of whose links have their own bandwidth, other than
    /// `link_throughput`: its [`Traffic::liquid_throughput`] is none.
    pub fn with_mixed_bandwidths(mut self) -> Traffic {
        self.mixed_bandwidths = true;
        self
    }

    /// Total path length Σ|x|: the size measure that memory bounds refer to.
    pub fn total_path_length(&self) -> usize {
        self.transfers.iter().map(|t| t.path.len()).sum()
    }

    /// Whether two transfers share a link.
    pub fn congest(&self, a: TransferId, b: TransferId) -> bool {
        let pa = &self.transfers[a.index()].path;
        let pb = &self.transfers[b.index()].path;
        pa.iter().any(|l| pb.contains(l))
    }

    /// A link shared by two transfers, if any (the first in `a`'s path order).
    pub fn shared_link(&self, a: TransferId, b: TransferId) -> Option<LinkId> {
        let pb = &self.transfers[b.index()].path;
        self.transfers[a.index()]
            .path
            .iter()
            .copied()
            .find(|l| pb.contains(l))
    }

    /// Calls `f` once for every transfer that congests with `t` (excluding `t`), using
    /// `mark` (length #X, reset on return) to skip repeats. Time O(Σ loads of t's links).
    pub fn for_each_neighbour(
        &self,
        t: TransferId,
        mark: &mut [bool],
        mut f: impl FnMut(TransferId),
    ) {
        mark[t.index()] = true;
        let mut seen = Vec::new();
        for &l in &self.transfers[t.index()].path {
            for &u in &self.users[l.index()] {
                if !mark[u.index()] {
                    mark[u.index()] = true;
                    seen.push(u);
                    f(u);
                }
            }
        }
        mark[t.index()] = false;
        for u in seen {
            mark[u.index()] = false;
        }
    }

    /// Degree of every transfer in the conflict graph, without the edge list.
    ///
    /// A transfer's degree is the number of other users of its links. The transfers are
    /// taken in the order of their paths read backwards, so that consecutive transfers
    /// share their last links (in an all-to-all over a tree, the same receiver and most of
    /// the way down to it; the copies of a `count`, all of it), and the number of distinct
    /// users of the current path is kept incrementally: only the users of the links the
    /// path has and the previous one has not (or the converse) are counted in (out), with a
    /// counter per transfer of how many of the current links it is on. At 1024 hosts
    /// (fat-tree:16,3) that reads 2.4·10^9 user-list entries where merging every
    /// transfer's lists afresh reads 6.1·10^9 ([`Traffic::conflict_work`]). The order is
    /// cut into one run per thread (up to [`MAX_DEGREE_THREADS`], from
    /// [`PARALLEL_DEGREES_FROM`] transfers); memory is a counter per transfer (a byte when
    /// no path is longer than 255 links) and a stamp per link, per thread.
    pub fn conflict_degrees(&self) -> Vec<u64> {
        self.conflict_degrees_until(None)
            .expect("without a deadline the degrees are complete")
    }

    /// [`Traffic::conflict_degrees`], or `None` when the clock passes `deadline` first
    /// (looked at every 4096 transfers of each run: at a million transfers the whole count
    /// takes seconds).
    pub fn conflict_degrees_until(&self, deadline: Option<std::time::Instant>) -> Option<Vec<u64>> {
        let n = self.len();
        let threads = if n < PARALLEL_DEGREES_FROM {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |p| p.get().min(MAX_DEGREE_THREADS))
        };
        self.conflict_degrees_on(threads, deadline)
    }

    /// [`Traffic::conflict_degrees_until`] on `threads` threads (at least one).
    fn conflict_degrees_on(
        &self,
        threads: usize,
        deadline: Option<std::time::Instant>,
    ) -> Option<Vec<u64>> {
        let n = self.len();
        if n == 0 {
            return Some(Vec::new());
        }
        let threads = threads.max(1);
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            let path = |t: u32| self.transfers[t as usize].path.iter().rev();
            path(a).cmp(path(b))
        });
        let longest = self.transfers.iter().map(|t| t.path.len()).max();
        let byte = longest.unwrap_or(0) <= usize::from(u8::MAX);
        let run = |run: &[u32]| {
            if byte {
                self.distinct_users::<u8>(run, deadline)
            } else {
                self.distinct_users::<u32>(run, deadline)
            }
        };
        // Scoped threads of their own, not a shared pool: callers may run inside a pool
        // (the testbed runs its classes on rayon's), and waiting there for the pool's
        // jobs can deadlock.
        let runs: Vec<Option<Vec<u32>>> = std::thread::scope(|scope| {
            let mut chunks = order.chunks(n.div_ceil(threads));
            let first = chunks.next().expect("a transfer");
            let handles: Vec<_> = chunks.map(|c| scope.spawn(move || run(c))).collect();
            let mut runs = vec![run(first)];
            runs.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a degree thread")),
            );
            runs
        });
        let mut degrees = vec![0u64; n];
        let counts = runs.into_iter().collect::<Option<Vec<_>>>()?;
        for (&t, d) in order.iter().zip(counts.into_iter().flatten()) {
            // Every transfer is among the users of its own links.
            degrees[t as usize] = u64::from(d) - 1;
        }
        Some(degrees)
    }

    /// For every transfer of `order`, the number of distinct users of its links, kept
    /// incrementally from the transfer before it (see [`Traffic::conflict_degrees`]), or
    /// `None` if the clock passes `deadline`.
    fn distinct_users<C: UserCount>(
        &self,
        order: &[u32],
        deadline: Option<std::time::Instant>,
    ) -> Option<Vec<u32>> {
        let mut count = vec![C::default(); self.len()];
        // stamp[l] == step + 1: link l is on the path of step `step` of the run (none is
        // before the first step).
        let mut stamp = vec![u32::MAX; self.num_links()];
        let mut distinct = 0u32;
        let mut out = Vec::with_capacity(order.len());
        let mut before: &[LinkId] = &[];
        for (step, &t) in order.iter().enumerate() {
            if step % 4096 == 0 && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return None;
            }
            let (was, is) = (step as u32, step as u32 + 1);
            let path = &self.transfers[t as usize].path;
            for &l in path {
                if stamp[l.index()] != was {
                    for u in &self.users[l.index()] {
                        let c = &mut count[u.index()];
                        distinct += u32::from(*c == C::default());
                        *c = *c + C::ONE;
                    }
                }
                stamp[l.index()] = is;
            }
            for &l in before {
                if stamp[l.index()] != is {
                    for u in &self.users[l.index()] {
                        let c = &mut count[u.index()];
                        *c = *c - C::ONE;
                        distinct -= u32::from(*c == C::default());
                    }
                }
            }
            out.push(distinct);
            before = path;
        }
        Some(out)
    }

    /// How long [`Traffic::conflict_degrees`] may take, in user-list steps, computed in
    /// O(Σ|x|) without counting anything, so that a caller can skip the count when it
    /// would take long: the steps of merging the lists afresh, that is, for each transfer
    /// with at least two shared links (links of load above 1) that are not those of the
    /// transfer before it, the loads of those links (6.1·10^9 for the 1024-host fat-tree
    /// all-to-all, where the incremental count reads 2.4·10^9).
    pub fn conflict_work(&self) -> u64 {
        const CHUNK: usize = 4096;
        let shared = |t: usize| {
            self.transfers[t]
                .path
                .iter()
                .copied()
                .filter(|l| self.users[l.index()].len() > 1)
        };
        let mut work = 0u64;
        for t in 0..self.len() {
            if t % CHUNK > 0 && shared(t).eq(shared(t - 1)) {
                continue;
            }
            if shared(t).nth(1).is_some() {
                work += shared(t)
                    .map(|l| self.users[l.index()].len() as u64)
                    .sum::<u64>();
            }
        }
        work
    }

    /// Conflict-graph statistics (vertices, edges, largest degree).
    pub fn conflict_stats(&self) -> ConflictStats {
        let degrees = self.conflict_degrees();
        ConflictStats {
            vertices: self.len() as u64,
            edges: degrees.iter().sum::<u64>() / 2,
            max_degree: degrees.iter().copied().max().unwrap_or(0),
        }
    }

    /// The sub-traffic made of the given transfers (ids, names and link names kept,
    /// links renumbered densely). Panics on an out-of-range id: callers pass their own.
    pub fn sub_traffic(&self, keep: &[TransferId]) -> Traffic {
        let mut b = TrafficBuilder::new(self.name.clone());
        b.description = self.description.clone();
        b.link_throughput = self.link_throughput;
        for &t in keep {
            let tr = &self.transfers[t.index()];
            let names: Vec<&str> = tr.path.iter().map(|&l| self.link_name(l)).collect();
            // The source traffic already satisfies every invariant, so this cannot fail
            // except on a repeated id in `keep`, which is a caller bug.
            b.transfer(&tr.id, tr.from.clone(), tr.to.clone(), &names, "", &|_| {
                String::new()
            })
            .expect("sub_traffic: transfer ids must be distinct");
        }
        let mut sub = b.finish();
        sub.mixed_bandwidths = self.mixed_bandwidths;
        sub.is_virtual = sub
            .links
            .iter()
            .map(|n| self.find_link(n).is_some_and(|l| self.is_virtual(l)))
            .collect();
        sub
    }
}

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "link#{}", self.0)
    }
}

impl fmt::Display for TransferId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "transfer#{}", self.0)
    }
}

/// The most threads [`Traffic::conflict_degrees`] uses.
pub const MAX_DEGREE_THREADS: usize = 4;

/// Below this many transfers [`Traffic::conflict_degrees`] counts on one thread.
pub const PARALLEL_DEGREES_FROM: usize = 1 << 16;

/// A counter of how many links of the current transfer a user is on
/// ([`Traffic::conflict_degrees`]).
trait UserCount:
    Copy + Default + Eq + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self>
{
    const ONE: Self;
}
impl UserCount for u8 {
    const ONE: Self = 1;
}
impl UserCount for u32 {
    const ONE: Self = 1;
}

#[cfg(test)]
mod tests {
    /// Runs of the order on several threads each start afresh: the same degrees as one
    /// run, on a traffic whose consecutive paths overlap (queens) and on one with a path
    /// longer than a byte counts.
    #[test]
    fn conflict_degrees_are_the_same_on_any_number_of_threads() {
        let mut long = vec![(
            "long".to_string(),
            (0..300).map(|l| format!("l{l}")).collect::<Vec<_>>(),
        )];
        long.extend((0..30).map(|i| (format!("x{i}"), vec![format!("l{}", 10 * i)])));
        for t in [
            crate::examples::queens(8),
            Traffic::from_paths("long", &long).expect("valid"),
        ] {
            let one = t.conflict_degrees_on(1, None).expect("no deadline");
            for threads in 2..=5 {
                assert_eq!(t.conflict_degrees_on(threads, None).as_ref(), Some(&one));
            }
        }
    }

    use super::*;

    fn no_path_at(_: usize) -> String {
        String::new()
    }

    #[test]
    fn conflict_degrees_stop_at_a_past_deadline_and_complete_without_one() {
        let paths: Vec<(String, Vec<String>)> = (0..10)
            .map(|i| {
                (
                    format!("x{i}"),
                    vec![format!("l{}", i % 3), format!("m{}", i % 4)],
                )
            })
            .collect();
        let t = Traffic::from_paths("t", &paths).expect("valid");
        let past = std::time::Instant::now();
        assert_eq!(t.conflict_degrees_until(Some(past)), None);
        let degrees = t.conflict_degrees_until(None).expect("no deadline");
        assert_eq!(degrees, t.conflict_degrees());
        // x0 shares l0 with x3, x6, x9 and m0 with x4, x8.
        assert_eq!(degrees[0], 5);
        // Every transfer has two shared links, of loads 4 or 3 and 3 or 2.
        let work: u64 = (0..10u64)
            .map(|i| [4, 3, 3][i as usize % 3] + [3, 3, 2, 2][i as usize % 4])
            .sum();
        assert_eq!(t.conflict_work(), work);
    }

    #[test]
    fn a_virtual_link_never_coincides_with_another_link_in_either_order() {
        // Virtual first, real later.
        let mut b = TrafficBuilder::new("t");
        b.virtual_link("c", "transfers[0].virtual_links[0]")
            .expect("new");
        let e = b
            .transfer("y", None, None, &["c", "d"], "transfers[1]", &|i| {
                format!("transfers[1].path[{i}]")
            })
            .expect_err("c is virtual");
        assert_eq!(
            e,
            BuildError::RealLinkIsVirtual {
                at: "transfers[1].path[0]".into(),
                link: "c".into(),
                first: "transfers[0].virtual_links[0]".into(),
            }
        );
        assert_eq!(e.related_at(), Some("transfers[0].virtual_links[0]"));
        // Real first, virtual later.
        let mut b = TrafficBuilder::new("t");
        b.transfer("y", None, None, &["c", "d"], "transfers[0]", &|i| {
            format!("transfers[0].path[{i}]")
        })
        .expect("valid");
        let e = b
            .virtual_link("c", "transfers[1].virtual_links[0]")
            .expect_err("c is real");
        assert!(
            matches!(&e, BuildError::VirtualLinkClash { first, first_kind: "a real link", .. } if first == "transfers[0].path[0]"),
            "{e:?}"
        );
        // Virtual twice.
        let e = b
            .virtual_link("v", "x")
            .and_then(|_| b.virtual_link("v", "y"))
            .expect_err("v twice");
        assert!(
            matches!(&e, BuildError::VirtualLinkClash { first, first_kind: "a virtual link", .. } if first == "x"),
            "{e:?}"
        );
    }

    #[test]
    fn a_copy_uses_its_path_and_its_virtual_link() {
        let mut b = TrafficBuilder::new("t");
        let v = b.virtual_link("a#1~v", "transfers[0].count").expect("new");
        b.transfer_copy("a#1", None, None, &["l"], v, "transfers[0]", &no_path_at)
            .expect("valid");
        let t = b.build("transfers").expect("not empty");
        let names: Vec<&str> = t.transfers()[0]
            .path
            .iter()
            .map(|&l| t.link_name(l))
            .collect();
        assert_eq!(names, ["l", "a#1~v"]);
    }

    #[test]
    fn a_path_of_link_ids_is_checked_like_a_path_of_names() {
        let mut b = TrafficBuilder::new("t");
        let (l, m) = (
            b.link("l", "a").expect("new"),
            b.link("m", "b").expect("new"),
        );
        let e = b
            .transfer_on_links("x", None, None, &[l, m, l], "transfers[0]")
            .expect_err("l twice");
        assert_eq!(e.at(), "transfers[0].path[2]");
        let e = b
            .transfer_on_links("x", None, None, &[l, LinkId(7)], "transfers[0]")
            .expect_err("undeclared");
        assert_eq!(
            e,
            BuildError::UndeclaredLink {
                at: "transfers[0].path[1]".into(),
                link: 7
            }
        );
        assert!(b.transfer_on_links("x", None, None, &[], "t").is_err());
        b.transfer_on_links("x", None, None, &[m, l], "transfers[0]")
            .expect("valid");
        let e = b
            .transfer_on_links("x", None, None, &[l], "transfers[1]")
            .expect_err("duplicate id");
        assert_eq!(e.related_at(), Some("transfers[0]"));
        let t = b.build("transfers").expect("not empty");
        assert_eq!(t.transfers()[0].path, [m, l]);
        assert_eq!(t.users(l), [TransferId(0)]);
    }

    #[test]
    fn a_long_path_with_a_repeat_is_refused() {
        let mut names: Vec<String> = (0..1000).map(|i| format!("l{i}")).collect();
        names.push("l500".into());
        let path: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut b = TrafficBuilder::new("t");
        let e = b
            .transfer("x", None, None, &path, "transfers[0]", &|i| {
                format!("p[{i}]")
            })
            .expect_err("l500 twice");
        assert_eq!(e.at(), "p[1000]");
        let mut b = TrafficBuilder::new("t");
        b.transfer("x", None, None, &path[..1000], "transfers[0]", &no_path_at)
            .expect("distinct links");
    }
}
