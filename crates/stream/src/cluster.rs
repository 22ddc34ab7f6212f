//! Multi-cluster systems of paper 002 (`multi-cluster:M,LIST[,NC]`, see
//! `liquid_topology::multi_cluster`) without their network form: the wiring (vertices and
//! channels, O(nodes) of them) and routes computed one at a time, exactly as the
//! topology crate routes them; every link's load counted by route classes
//! ([`Wiring::all_to_all_loads`]: not per transfer); and its liquid schedule: in closed
//! form when the system is *homogeneous with a full ICN2*, by rounds of cluster pairs
//! otherwise.
//!
//! **The streamed schedule** (homogeneous: every cluster an m-port n-tree of `s` nodes;
//! full ICN2: `C = 2·(m/2)^n_c` clusters, every ICN2 node port used). Between clusters,
//! every ECN1 link of a source cluster is dominated by its concentrator's channel into the
//! ICN2, every ECN1 link of a destination cluster and every descending ICN2 link by the
//! ICN2's channel into its dispatcher (`liquid_search::classes`): a set of
//! inter-cluster transfers is conflict-free as soon as no two leave the same cluster, no
//! two enter the same cluster, and their cluster pairs share no ascending ICN2 link. The
//! orbit frames of the ICN2 (an m-port n_c-tree whose hosts are the clusters; frame `g`
//! sends cluster `i` to the digit-wise translation of `i` by `g + 1`, see
//! [`crate::tree`]) are such sets, and partition the cluster pairs. So frame
//! `F = g·s² + j` (`0 ≤ j < s²`) sends, from every cluster `i` to `v = orbit_g(i)`, node
//! `j div s` of `i` to node `j mod s` of `v`: each cluster pair's `s²` transfers in `s²`
//! frames, `s²(C − 1) = s(N − s)` frames in all, the load of a concentrator channel: Λ.
//! Transfers within a cluster use only its ICN1 and the nodes' ICN1 channels, which no
//! inter-cluster route uses: the first `s − 1` frames also carry every cluster's own
//! orbit frames. The validator checks every frame; the construction claims nothing it
//! does not check.
//!
//! **Every other system** (heterogeneous, or an ICN2 with unused ports): rounds of
//! partial permutations of clusters, the `classes` stage of the in-memory `structured`
//! engine (`liquid_search::classes`) run on the cluster level. The classes are the pairs
//! of clusters (i, v), with `N_i·N_v` members each and for core the non-dominated links of
//! the ICN2 part of their route (concentrator of i to dispatcher of v, which depends on
//! the two clusters only: one route per pair, `C(C − 1)` in all); domination is decided
//! among those links with pairs for users, exactly as the stage decides it with
//! transfers (every member of a pair uses its ICN2 part, and no transfer within a cluster
//! does), and the ECN1 links are dominated by the concentrator's and the dispatcher's
//! channels. [`liquid_search::classes::rounds_of`] makes the rounds (a set of pairs with
//! disjoint cores, repeated x times) from the cores and sizes alone; where a round cannot
//! cover the tight links it runs the native search on the stage's reduced copy (each
//! class as `size / g` copies of its core, at most 4,096 transfers: small), as in memory.
//! A round's frames then take, from each of its pairs, the pair's next member by counter:
//! member `x` of (i, v) is node `x div N_v` of i to node `x mod N_v` of v. The first
//! `N_i − 1` frames also carry cluster i's own orbit frames. The schedule has
//! `max(rounds' frames, N_i − 1)` frames; when that is not Λ, or the system has more than
//! `liquid_search::classes::MAX_CLASSES` cluster pairs, or the stage fails, `solve`
//! refuses it, saying why. Memory: the wiring and loads (O(nodes + links)), one core per
//! pair and the rounds' pair lists (O(C² + rounds·C): 279 rounds of at most 64 pairs for
//! the 8,192-node `8,32x2+24x3+8x4`), one tree per cluster height: never O(transfers).
//! The validator checks every frame; the construction claims nothing it does not check.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

use liquid_topology::multi_cluster::{MultiCluster, Wiring};

use crate::tree::{LoadClass, Tree};
use crate::{StreamError, Structured};

/// How the streamed schedule is made.
#[derive(Debug, Clone)]
enum Plan {
    /// Homogeneous with a full ICN2: cluster orbit frames in closed form.
    Orbits(Orbits),
    /// Any other system: rounds of classes of cluster pairs.
    Classes(ByClasses),
}

/// A round of [`ByClasses`]: its first frame, its repetitions, and per class in it the
/// member its first frame takes.
#[derive(Debug, Clone)]
struct RoundAt {
    start: u64,
    times: u64,
    members: Vec<(u32, u64)>,
}

/// The schedule of any multi-cluster system by rounds of partial permutations of its
/// clusters (module docs).
#[derive(Debug, Clone)]
struct ByClasses {
    /// Per class, its cluster pairs (i, v) (pairs whose cores are the same; usually one)
    /// with the members before each pair's first.
    pairs: Vec<Vec<(u32, u32, u64)>>,
    rounds: Vec<RoundAt>,
    /// Per cluster, its tree (the clusters' own orbit frames), by height.
    trees: Vec<Tree>,
    tree_of: Vec<u32>,
    frames: u64,
    how: String,
}

/// The closed-form schedule of a homogeneous system with a full ICN2.
#[derive(Debug, Clone)]
struct Orbits {
    /// Nodes per cluster, `s`.
    size: usize,
    /// The ICN2 as a tree whose hosts are the clusters.
    icn2: Tree,
    /// A cluster's tree (all clusters alike).
    cluster: Tree,
}

/// A multi-cluster system's all-to-all, streamed (module docs).
#[derive(Debug)]
pub struct Clusters {
    system: MultiCluster,
    wiring: Wiring,
    /// Per vertex, its out-channels as (to, channel), by `to` (a concentrator has one per
    /// ECN1 switch: hundreds).
    out: Vec<Vec<(u32, u32)>>,
    /// Per channel, its link number (the traffic's links are the channels some route
    /// uses, in channel order), or `u32::MAX`.
    link_of: Vec<u32>,
    /// Per link, its channel.
    channel_of: Vec<u32>,
    /// Per link, its load.
    loads: Vec<u64>,
    duration: u64,
    first: Vec<usize>,
    /// The schedule's plan, made when first asked (`analyze` and `verify` need none).
    plan: OnceCell<Result<Plan, String>>,
    scratch: RefCell<Vec<usize>>,
}

impl Clusters {
    /// The system of a spec (`M,LIST[,NC]`, as `multi-cluster:` takes it), wired and
    /// with its loads counted by route classes.
    pub fn new(spec: &str) -> Result<Clusters, StreamError> {
        let bad = |why: String| StreamError::Spec {
            spec: format!("multi-cluster:{spec}"),
            why,
        };
        let system = MultiCluster::parse(spec).map_err(|e| bad(e.to_string()))?;
        let wiring = system.large_wiring().map_err(|e| bad(e.to_string()))?;
        if wiring.nodes() < 2 {
            return Err(bad("the system has fewer than two nodes".into()));
        }
        let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); wiring.vertices()];
        for (c, ch) in wiring.channels().iter().enumerate() {
            out[ch.from].push((ch.to as u32, c as u32));
        }
        for list in &mut out {
            list.sort_unstable();
        }
        let per_channel = wiring.all_to_all_loads();
        let mut link_of = vec![u32::MAX; per_channel.len()];
        let (mut channel_of, mut loads) = (Vec::new(), Vec::new());
        for (c, &load) in per_channel.iter().enumerate().filter(|(_, &l)| l > 0) {
            link_of[c] = channel_of.len() as u32;
            channel_of.push(c as u32);
            loads.push(load);
        }
        let duration = loads.iter().copied().max().unwrap_or(0);
        let first = (0..system.cluster_count())
            .map(|i| wiring.first_node(i))
            .collect();
        Ok(Clusters {
            system,
            wiring,
            out,
            link_of,
            channel_of,
            loads,
            duration,
            first,
            plan: OnceCell::new(),
            scratch: RefCell::new(Vec::new()),
        })
    }

    /// The schedule's plan: cluster orbit frames for a homogeneous system with a full
    /// ICN2, rounds of classes otherwise; or why there is none.
    fn plan(&self) -> &Result<Plan, String> {
        self.plan.get_or_init(|| {
            let system = &self.system;
            let levels = system.clusters[0];
            let homogeneous = system.clusters.iter().all(|&n| n == levels);
            let full = Tree::new(system.ports, system.icn2_levels)
                .is_ok_and(|t| t.hosts() == system.cluster_count());
            if homogeneous && full && system.cluster_count() > 1 {
                Self::orbits(system, self.duration).map(Plan::Orbits)
            } else {
                self.by_classes().map(Plan::Classes)
            }
        })
    }

    fn orbits(system: &MultiCluster, duration: u64) -> Result<Orbits, String> {
        let c = system.cluster_count();
        let levels = system.clusters[0];
        let icn2 = Tree::new(system.ports, system.icn2_levels).map_err(|e| e.to_string())?;
        let cluster = Tree::new(system.ports, levels).map_err(|e| e.to_string())?;
        let size = cluster.hosts();
        let frames = (size * size * (c - 1)) as u64;
        if frames != duration {
            return Err(format!(
                "internal: the construction has {frames} frames, Λ is {duration}"
            ));
        }
        Ok(Orbits {
            size,
            icn2,
            cluster,
        })
    }

    /// The schedule by rounds of classes of cluster pairs (module docs), or why the stage
    /// does not settle the system.
    fn by_classes(&self) -> Result<ByClasses, String> {
        let c = self.first.len();
        if c * c.saturating_sub(1) > liquid_search::classes::MAX_CLASSES {
            return Err(format!(
                "{} cluster pairs, more than the classes stage takes ({})",
                c * (c - 1),
                liquid_search::classes::MAX_CLASSES
            ));
        }
        let n = self.wiring.nodes();
        let size = |i: usize| self.first.get(i + 1).copied().unwrap_or(n) - self.first[i];
        // The ICN2-level part of each pair's route (concentrator to dispatcher), which
        // depends on the two clusters only, in local link numbers.
        let mut local = vec![u32::MAX; self.links()];
        let mut global = Vec::new();
        let mut paths: Vec<Vec<u32>> = Vec::with_capacity(c * c.saturating_sub(1));
        let mut pair_of = Vec::with_capacity(paths.capacity());
        let (mut vertices, mut links) = (Vec::new(), Vec::new());
        for i in 0..c {
            for v in (0..c).filter(|&v| v != i) {
                let (s, d) = (self.first[i], self.first[v]);
                self.wiring.route(s, d, &mut vertices);
                self.route(s, d, &mut links);
                let (cd_i, cd_v) = (self.wiring.concentrator(i), self.wiring.concentrator(v));
                let (Some(a), Some(b)) = (
                    vertices.iter().position(|&x| x == cd_i),
                    vertices.iter().position(|&x| x == cd_v),
                ) else {
                    return Err(format!(
                        "internal: the route from cluster {i} to {v} misses a concentrator"
                    ));
                };
                let path = links[a..b]
                    .iter()
                    .map(|&l| {
                        if local[l as usize] == u32::MAX {
                            local[l as usize] = global.len() as u32;
                            global.push(l);
                        }
                        local[l as usize]
                    })
                    .collect();
                paths.push(path);
                pair_of.push((i as u32, v as u32));
            }
        }
        let weight: Vec<u64> = pair_of
            .iter()
            .map(|&(i, v)| (size(i as usize) * size(v as usize)) as u64)
            .collect();
        // Dominated ICN2-level links, as crate liquid_search::classes finds them, with
        // pairs of clusters for users (every member of a pair uses its ICN2 part): l is
        // dominated when another link x is used by every pair that uses l, and carries
        // more or has the smaller number. The ECN1 links are dominated by the
        // concentrator's and the dispatcher's channels (module docs): not core links.
        let m = global.len();
        let mut users: Vec<Vec<u32>> = vec![Vec::new(); m];
        let mut load = vec![0u64; m];
        for (p, path) in paths.iter().enumerate() {
            for &l in path {
                users[l as usize].push(p as u32);
                load[l as usize] += weight[p];
            }
        }
        let dominated = liquid_search::classes::dominated(
            m,
            |l| users[l].iter().copied(),
            |p| paths[p as usize].iter().map(|&x| x as usize),
            |l| load[l],
            |l| l as u64,
            || false,
        )
        .ok_or_else(|| "internal: no deadline, yet the dominated links stopped".to_string())?;
        let (core_no, n_core) = liquid_search::classes::core_numbers(&dominated);
        // Classes: pairs with the same core.
        let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut cores: Vec<Vec<u32>> = Vec::new();
        let mut pairs: Vec<Vec<(u32, u32, u64)>> = Vec::new();
        let mut sizes: Vec<u64> = Vec::new();
        for (p, path) in paths.iter().enumerate() {
            let mut core: Vec<u32> = path
                .iter()
                .map(|&l| core_no[l as usize])
                .filter(|&x| x != u32::MAX)
                .collect();
            core.sort_unstable();
            let k = *index.entry(core.clone()).or_insert_with(|| {
                cores.push(core);
                pairs.push(Vec::new());
                sizes.push(0);
                cores.len() as u32 - 1
            }) as usize;
            let (i, v) = pair_of[p];
            pairs[k].push((i, v, sizes[k]));
            sizes[k] += weight[p];
        }
        drop(paths);
        let (rounds, by) = liquid_search::classes::rounds_of(&cores, n_core as usize, &sizes, None)
            .map_err(|why| format!("the classes stage does not settle it: {why}"))?;
        let mut next = vec![0u64; cores.len()];
        let mut start = 0u64;
        let mut placed = Vec::with_capacity(rounds.len());
        for (set, times) in &rounds {
            placed.push(RoundAt {
                start,
                times: *times,
                members: set
                    .iter()
                    .map(|&k| {
                        let first = next[k as usize];
                        next[k as usize] += times;
                        (k, first)
                    })
                    .collect(),
            });
            start += times;
        }
        if let Some(k) = (0..cores.len()).find(|&k| next[k] != sizes[k]) {
            return Err(format!(
                "internal: the rounds take {} of the {} members of class {k}",
                next[k], sizes[k]
            ));
        }
        // Each cluster's own orbit frames, overlaid on the first frames.
        let mut trees: Vec<Tree> = Vec::new();
        let mut tree_of = Vec::with_capacity(c);
        for &levels in &self.system.clusters {
            let t = match trees.iter().position(|t| t.levels() == levels) {
                Some(t) => t,
                None => {
                    trees.push(Tree::new(self.system.ports, levels).map_err(|e| e.to_string())?);
                    trees.len() - 1
                }
            };
            tree_of.push(t as u32);
        }
        let within = (0..c).map(|i| size(i) as u64 - 1).max().unwrap_or(0);
        let frames = start.max(within);
        if frames != self.duration {
            return Err(format!(
                "the classes stage gives {frames} frames ({start} between clusters, {within} \
                 within the largest cluster) and Λ is {}: not a liquid schedule",
                self.duration
            ));
        }
        let how = format!(
            "rounds of partial permutations of clusters (liquid_search::classes on the \
             cluster level): {} classes of cluster pairs, {} dominated ICN2-level links, \
             {} rounds by {by}, each pair's nodes in turn; each cluster's own orbit frames in \
             its first N_i-1 frames",
            cores.len(),
            dominated.iter().filter(|&&d| d).count(),
            rounds.len()
        );
        Ok(ByClasses {
            pairs,
            rounds: placed,
            trees,
            tree_of,
            frames,
            how,
        })
    }

    /// The system's parameters.
    pub fn system(&self) -> &MultiCluster {
        &self.system
    }

    /// Why the system has no streamed schedule (`None`: it has one).
    pub fn not_streamed(&self) -> Option<&str> {
        self.plan().as_ref().err().map(String::as_str)
    }

    /// Number of switches (ICN1s, ECN1s and the ICN2).
    pub fn switches(&self) -> u64 {
        self.system.switches() as u64
    }

    /// Number of transfers, N(N − 1).
    pub fn transfers(&self) -> u64 {
        let n = self.wiring.nodes() as u64;
        n * (n - 1)
    }

    /// The links grouped by what they join and their load (counted by route classes).
    pub fn load_classes(&self) -> Vec<LoadClass> {
        let kind = |v: usize| -> &'static str {
            let name = self.wiring.name(v);
            if name.starts_with("x.") {
                "ICN2 switch"
            } else if name.ends_with(".cd") {
                "concentrator/dispatcher"
            } else if name.contains(".i.") {
                "ICN1 switch"
            } else if name.contains(".e.") {
                "ECN1 switch"
            } else {
                "node"
            }
        };
        let mut classes: std::collections::BTreeMap<(std::cmp::Reverse<u64>, String), u64> =
            std::collections::BTreeMap::new();
        for (l, &load) in self.loads.iter().enumerate() {
            let ch = self.wiring.channels()[self.channel_of[l] as usize];
            let what = format!("{} to {}", kind(ch.from), kind(ch.to));
            *classes.entry((std::cmp::Reverse(load), what)).or_default() += 1;
        }
        classes
            .into_iter()
            .map(|((load, links), count)| LoadClass {
                links,
                count,
                load: load.0,
                formula: "counted by route classes".into(),
            })
            .collect()
    }

    /// The first link at Λ, by name.
    pub fn bottleneck_example(&self) -> String {
        let l = self
            .loads
            .iter()
            .position(|&x| x == self.duration)
            .unwrap_or(0);
        self.link_name(l)
    }
}

impl Structured for Clusters {
    fn name(&self) -> String {
        self.system.name()
    }
    fn spec(&self) -> String {
        format!("multi-cluster:{}", self.system.spec())
    }
    fn hosts(&self) -> usize {
        self.wiring.nodes()
    }
    fn links(&self) -> usize {
        self.loads.len()
    }
    fn host_name(&self, h: usize) -> String {
        self.wiring.name(h).to_string()
    }
    fn link_name(&self, l: usize) -> String {
        let ch = self.wiring.channels()[self.channel_of[l] as usize];
        format!("{}>{}", self.wiring.name(ch.from), self.wiring.name(ch.to))
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        let mut vertices = self.scratch.borrow_mut();
        self.wiring.route(s, d, &mut vertices);
        out.clear();
        out.extend(vertices.windows(2).map(|hop| {
            let list = &self.out[hop[0]];
            let c = list
                .binary_search_by_key(&(hop[1] as u32), |&(to, _)| to)
                .map_or(u32::MAX, |i| list[i].1);
            self.link_of[c as usize]
        }));
    }
    fn load(&self, l: usize) -> u64 {
        self.loads[l]
    }
    fn duration(&self) -> u64 {
        self.duration
    }
    fn frames(&self) -> usize {
        match self.plan() {
            Ok(Plan::Orbits(p)) => p.size * p.size * (self.first.len() - 1),
            Ok(Plan::Classes(p)) => p.frames as usize,
            Err(_) => 0,
        }
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        match self.plan() {
            Ok(Plan::Orbits(p)) => self.orbit_frame(p, f, pairs),
            Ok(Plan::Classes(p)) => self.class_frame(p, f, pairs),
            Err(_) => {}
        }
    }
    fn method(&self) -> String {
        match self.plan() {
            Ok(Plan::Orbits(p)) => format!(
                "cluster orbit frames: ICN2 orbit frame g (cluster i to the digit-wise \
                 translation of i by g+1) repeated s² = {} times, node j div s to node j mod s \
                 in repetition j; each cluster's own orbit frames in the first s-1 = {} frames",
                p.size * p.size,
                p.size - 1
            ),
            Ok(Plan::Classes(p)) => p.how.clone(),
            Err(why) => format!("no streamed schedule: {why}"),
        }
    }
    fn streamable(&self) -> Result<(), String> {
        self.plan().as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

impl Clusters {
    fn orbit_frame(&self, p: &Orbits, f: usize, pairs: &mut Vec<(u32, u32)>) {
        let s = p.size;
        let (g, j) = (f / (s * s), f % (s * s));
        let (a, b) = (j / s, j % s);
        for (i, &first) in self.first.iter().enumerate() {
            let v = p.icn2.orbit_destination(g, i);
            pairs.push(((first + a) as u32, (self.first[v] + b) as u32));
        }
        if f + 1 < s {
            for &first in &self.first {
                pairs.extend((0..s).map(|h| {
                    (
                        (first + h) as u32,
                        (first + p.cluster.orbit_destination(f, h)) as u32,
                    )
                }));
            }
        }
    }

    /// Frame `f` of the schedule by classes: the round that holds it, each of its classes'
    /// next member (member `x` of pair (i, v): node `x div N_v` of i to node `x mod N_v` of
    /// v), and every cluster's own orbit frame `f` while it has one.
    fn class_frame(&self, p: &ByClasses, f: usize, pairs: &mut Vec<(u32, u32)>) {
        let at = f as u64;
        let r = p.rounds.partition_point(|r| r.start <= at);
        if let Some(round) = r.checked_sub(1).map(|r| &p.rounds[r]) {
            let j = at - round.start;
            if j < round.times {
                let n = self.wiring.nodes();
                for &(k, first) in &round.members {
                    let x = first + j;
                    let list = &p.pairs[k as usize];
                    let at = list.partition_point(|&(_, _, before)| before <= x) - 1;
                    let (i, v, before) = list[at];
                    let (i, v) = (i as usize, v as usize);
                    let nv = self.first.get(v + 1).copied().unwrap_or(n) - self.first[v];
                    let x = (x - before) as usize;
                    pairs.push((
                        (self.first[i] + x / nv) as u32,
                        (self.first[v] + x % nv) as u32,
                    ));
                }
            }
        }
        for (i, &first) in self.first.iter().enumerate() {
            let t = &p.trees[p.tree_of[i] as usize];
            if f + 1 < t.hosts() {
                pairs.extend((0..t.hosts()).map(|h| {
                    (
                        (first + h) as u32,
                        (first + t.orbit_destination(f, h)) as u32,
                    )
                }));
            }
        }
    }
}
