//! Liquid schedules from link-disjoint parts and from ports (König), a stage of the
//! `structured` engine.
//!
//! **Parts.** Transfers that share no link, directly or through other transfers, never
//! meet: the traffic splits into *parts* (the connected components of the transfers
//! joined by their links), and schedules of the parts laid over one another frame by
//! frame form a schedule of the whole, as long as the longest. Every link lies in one
//! part, so Λ is the largest of the parts' Λ: liquid schedules of the parts make a liquid
//! schedule of the whole. A multi-cluster system of paper 002 splits into one part per
//! cluster (its ICN1 all-to-all, a fat-tree all-to-all that the orbits settle) and one
//! part for the traffic between clusters.
//!
//! **Ports.** Within a part, a set P of *port* links such that every transfer uses at
//! most two ports, every link's users all share one port, and the graph with the ports
//! as vertices and the transfers as edges (a transfer with one port: an edge to a vertex
//! of its own) is bipartite. Then two transfers that share any link share a port, so a
//! proper edge colouring of that graph is a schedule; the graph is bipartite, so König's
//! theorem gives one with as many colours as the largest port degree, which is a port's
//! load: at most Λ, hence liquid. The ports are chosen greedily, links by decreasing load
//! (then id): a link becomes a port unless all its users already share one. Between the
//! clusters of a multi-cluster system whose ICN2 is one switch, the ports are the
//! concentrator channels (every other link of the journey is used only by transfers of one
//! cluster out, or into one cluster); with a deeper ICN2 its inner links are shared by
//! transfers from several clusters to several others, and the construction does not apply.
//!
//! The colouring is the classical alternating-path algorithm: for the edge u–v, take a
//! colour a free at u and b free at v; unless a is free at v too, swap a and b along the
//! path from v whose edges alternate a, b (it cannot reach u in a bipartite graph), which
//! frees a at v. Each path is simple, so an edge costs at most the number of ports;
//! memory is one table of Λ entries per port, refused beyond [`MAX_TABLE`] entries.
//! Everything is deterministic: transfers in id order, free colours from per-vertex stacks.

use std::time::Instant;

use liquid_model::{LinkId, Schedule, Traffic, TransferId};

/// The largest colour table (ports × Λ entries, 12 bytes each with the free-colour stacks:
/// at most 192 MiB) the port colouring builds. A system of 64 concentrator channels at
/// Λ = 126,976 (Table 1's size) needs 8.1 million.
pub const MAX_TABLE: usize = 1 << 24;

/// [`crate::structured::by_parts`] gives up on traffics of more parts than this (each part is copied into a
/// traffic of its own; thousands of tiny parts are the search's job).
pub const MAX_PARTS: usize = 1024;

/// No edge / no vertex / no port.
const NONE: u32 = u32::MAX;

/// The parts of `traffic` ([`crate::components::components`]: transfers joined by shared
/// links), each in increasing id order, the parts by decreasing size (then first id).
pub fn parts(traffic: &Traffic) -> Vec<Vec<TransferId>> {
    parts_until(traffic, None).expect("no deadline")
}

/// [`parts`], or `None` once `deadline` has passed.
pub(crate) fn parts_until(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Option<Vec<Vec<TransferId>>> {
    let mut parts = crate::components::components_until(traffic, deadline)?;
    parts.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    Some(parts)
}

/// A schedule of `traffic` with as many frames as its largest port load (at most Λ, so
/// liquid), by the port colouring of the module documentation; or why the construction
/// does not apply (or that the deadline passed).
pub fn colour(traffic: &Traffic, deadline: Option<Instant>) -> Result<Schedule, String> {
    let all: Vec<TransferId> = traffic.transfer_ids().collect();
    colour_part(traffic, &all, deadline).map(Schedule::new)
}

/// [`colour`] on one part of `traffic` (every user of a link of the part is in the part,
/// as [`parts`] makes them), without copying it: the frames, of the traffic's ids.
pub(crate) fn colour_part(
    traffic: &Traffic,
    part: &[TransferId],
    deadline: Option<Instant>,
) -> Result<Vec<Vec<TransferId>>, String> {
    let n = traffic.len();
    let mut seen = vec![false; traffic.num_links()];
    let mut loads: Vec<(usize, LinkId)> = Vec::new();
    for (i, &t) in part.iter().enumerate() {
        if i % 65_536 == 65_535 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Err("the time limit passed while counting the loads".into());
        }
        for &l in &traffic.transfer(t).path {
            if !std::mem::replace(&mut seen[l.index()], true) {
                loads.push((traffic.load(l), l));
            }
        }
    }
    drop(seen);
    loads.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    // Ports of each transfer (at most two), as port numbers.
    let mut ports_of: Vec<[u32; 2]> = vec![[NONE, NONE]; n];
    let mut port_links: Vec<LinkId> = Vec::new();
    // Every link here has users (it is on a transfer's path), so every transfer gets a
    // port: its most loaded link becomes one, or its users already share one.
    for (i, &(_, l)) in loads.iter().enumerate() {
        if i % 1024 == 1023 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Err("the time limit passed while choosing the ports".into());
        }
        let users = traffic.users(l);
        let first = ports_of[users[0].index()];
        let shared = first
            .iter()
            .copied()
            .filter(|&p| p != NONE)
            .any(|p| users.iter().all(|u| ports_of[u.index()].contains(&p)));
        if shared {
            continue;
        }
        let p = port_links.len() as u32;
        port_links.push(l);
        for u in users {
            let slot = &mut ports_of[u.index()];
            if slot[0] == NONE {
                slot[0] = p;
            } else if slot[1] == NONE {
                slot[1] = p;
            } else {
                return Err(format!(
                    "transfer {} would need a third port ({})",
                    traffic.transfer_name(*u),
                    traffic.link_name(l)
                ));
            }
        }
    }
    let np = port_links.len();
    let delta = loads.first().map_or(0, |x| x.0);
    if np.saturating_mul(delta) > MAX_TABLE {
        return Err(format!(
            "{np} ports of up to {delta} transfers each: beyond the colour table's limit"
        ));
    }
    // Two sides: 2-colour the port graph.
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); np];
    for p in &ports_of {
        if p[1] != NONE {
            adj[p[0] as usize].push(p[1]);
            adj[p[1] as usize].push(p[0]);
        }
    }
    let mut side = vec![NONE; np];
    for s in 0..np {
        if side[s] != NONE {
            continue;
        }
        side[s] = 0;
        let mut stack = vec![s as u32];
        while let Some(v) = stack.pop() {
            for &w in &adj[v as usize] {
                if side[w as usize] == NONE {
                    side[w as usize] = 1 - side[v as usize];
                    stack.push(w);
                } else if side[w as usize] == side[v as usize] {
                    return Err(format!(
                        "the ports {} and {} are joined by an odd cycle",
                        traffic.link_name(port_links[v as usize]),
                        traffic.link_name(port_links[w as usize])
                    ));
                }
            }
        }
    }
    drop(adj);
    let mut k = Konig::new(np, delta);
    for (i, &t) in part.iter().enumerate() {
        if i % 4096 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Err("the time limit passed during the port colouring".into());
        }
        match ports_of[t.index()] {
            [a, NONE] => k.add(i as u32, a, None),
            [a, b] => {
                // u on side 0, v on side 1.
                let (u, v) = if side[a as usize] == 0 {
                    (a, b)
                } else {
                    (b, a)
                };
                k.add(i as u32, u, Some(v))
            }
        }
    }
    let mut frames = vec![Vec::new(); delta.max(1)];
    for (i, &c) in k.colour.iter().enumerate() {
        frames[c as usize].push(part[i]);
    }
    frames.retain(|f| !f.is_empty());
    Ok(frames)
}

/// König's edge colouring of a bipartite multigraph with `delta` colours, edges added one
/// at a time. An edge with one port ends in a vertex of its own (never on a path's inside:
/// such a vertex has one edge).
struct Konig {
    delta: usize,
    /// Per port, the edge of each colour (NONE: free).
    table: Vec<u32>,
    /// Per port, its free colours (a stack), and each colour's position in it.
    free: Vec<Vec<u32>>,
    pos: Vec<u32>,
    /// Per edge: its colour and its two ends (NONE: a vertex of its own).
    colour: Vec<u32>,
    ends: Vec<[u32; 2]>,
}

impl Konig {
    fn new(ports: usize, delta: usize) -> Self {
        let delta = delta.max(1);
        Konig {
            delta,
            table: vec![NONE; ports * delta],
            free: (0..ports)
                .map(|_| (0..delta as u32).rev().collect())
                .collect(),
            pos: (0..ports)
                .flat_map(|_| (0..delta as u32).map(move |c| delta as u32 - 1 - c))
                .collect(),
            colour: Vec::new(),
            ends: Vec::new(),
        }
    }

    fn take(&mut self, v: u32, c: u32, e: u32) {
        let d = self.delta;
        let v = v as usize;
        self.table[v * d + c as usize] = e;
        let i = self.pos[v * d + c as usize] as usize;
        let last = self.free[v].pop().expect("a free colour to take");
        if last != c {
            self.free[v][i] = last;
            self.pos[v * d + last as usize] = i as u32;
        }
    }

    fn release(&mut self, v: u32, c: u32) {
        let d = self.delta;
        let v = v as usize;
        self.table[v * d + c as usize] = NONE;
        self.pos[v * d + c as usize] = self.free[v].len() as u32;
        self.free[v].push(c);
    }

    fn is_free(&self, v: u32, c: u32) -> bool {
        self.table[v as usize * self.delta + c as usize] == NONE
    }

    /// The other end of edge `e` from `v`.
    fn other(&self, e: u32, v: u32) -> u32 {
        let [a, b] = self.ends[e as usize];
        if a == v {
            b
        } else {
            a
        }
    }

    /// Adds edge `e` between `u` (side 0) and `v` (side 1, or a vertex of its own) and
    /// colours it.
    fn add(&mut self, e: u32, u: u32, v: Option<u32>) {
        debug_assert_eq!(e as usize, self.colour.len());
        self.ends.push([u, v.unwrap_or(NONE)]);
        let c = match v {
            None => {
                let c = *self.free[u as usize].last().expect("degree at most delta");
                self.take(u, c, e);
                c
            }
            Some(v) => {
                let a = *self.free[u as usize].last().expect("degree at most delta");
                if !self.is_free(v, a) {
                    let b = *self.free[v as usize].last().expect("degree at most delta");
                    self.flip(v, a, b);
                }
                self.take(u, a, e);
                self.take(v, a, e);
                a
            }
        };
        self.colour.push(c);
    }

    /// Swaps colours `a` and `b` along the path from `v` whose edges alternate a, b.
    fn flip(&mut self, v: u32, a: u32, b: u32) {
        let d = self.delta;
        let mut path = Vec::new();
        let (mut at, mut want) = (v, a);
        loop {
            let e = self.table[at as usize * d + want as usize];
            if e == NONE {
                break;
            }
            path.push(e);
            at = self.other(e, at);
            if at == NONE {
                break;
            }
            want = if want == a { b } else { a };
        }
        // Take the path's edges off their ends, then put them back with the other colour.
        for &e in &path {
            let c = self.colour[e as usize];
            for x in self.ends[e as usize] {
                if x != NONE && self.table[x as usize * d + c as usize] == e {
                    self.release(x, c);
                }
            }
        }
        for &e in &path {
            let c = if self.colour[e as usize] == a { b } else { a };
            self.colour[e as usize] = c;
            for x in self.ends[e as usize] {
                if x != NONE {
                    self.take(x, c, e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::{check_outcome, validate, LowerBound, Outcome};

    fn traffic(paths: &[&[&str]]) -> Traffic {
        let ts: Vec<(String, Vec<String>)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("t{i}"), p.iter().map(|l| l.to_string()).collect()))
            .collect();
        Traffic::from_paths("test", &ts).expect("valid")
    }

    fn liquid(t: &Traffic, s: Schedule) {
        let r = validate(t, &s).expect("a valid schedule");
        assert_eq!(r.length, t.duration(), "liquid");
        let o = Outcome::settle(t, Some(s), LowerBound::duration(t), false);
        check_outcome(t, &o).expect("checks");
    }

    #[test]
    fn parts_are_the_link_connected_components() {
        let t = traffic(&[&["a"], &["b"], &["a", "c"], &["d"], &["c", "b"]]);
        let p = parts(&t);
        let ids = |v: &[TransferId]| v.iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(
            p.iter().map(|v| ids(v)).collect::<Vec<_>>(),
            vec![vec![0, 1, 2, 4], vec![3]]
        );
    }

    #[test]
    fn two_port_transfers_are_coloured_by_konig() {
        // Clusters A, B, C behind "out" and "in" channels, with private links on the way:
        // every pair of clusters sends two transfers; Λ = 4 on each channel.
        let mut paths: Vec<Vec<String>> = Vec::new();
        for s in ["A", "B", "C"] {
            for d in ["A", "B", "C"] {
                if s == d {
                    continue;
                }
                for i in 0..2 {
                    paths.push(vec![
                        format!("{s}{i}.up"),
                        format!("{s}.out"),
                        format!("{d}.in"),
                        format!("{d}{i}.down"),
                    ]);
                }
            }
        }
        let refs: Vec<Vec<&str>> = paths
            .iter()
            .map(|p| p.iter().map(String::as_str).collect())
            .collect();
        let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
        let t = traffic(&slices);
        assert_eq!(t.duration(), 4);
        let s = colour(&t, None).expect("ports apply");
        liquid(&t, s);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Whenever the ports or the parts give a schedule, it is valid and liquid; and
        /// they give one on every traffic whose transfers use one link each (one port).
        #[test]
        fn what_they_give_is_liquid(t in crate::test_support::arb_traffic(14, 6)) {
            if let Ok(s) = colour(&t, None) {
                let r = validate(&t, &s).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                proptest::prop_assert_eq!(r.length, t.duration());
            }
            if let Ok((s, _)) = crate::structured::by_parts(&t, None) {
                let r = validate(&t, &s).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                proptest::prop_assert_eq!(r.length, t.duration());
            }
            if t.transfers().iter().all(|x| x.path.len() == 1) {
                proptest::prop_assert!(colour(&t, None).is_ok());
            }
        }
    }

    #[test]
    fn an_odd_cycle_of_ports_is_refused() {
        // The odd cycle: five transfers on links a..e, each using two neighbours.
        let t = traffic(&[
            &["a", "b"],
            &["b", "c"],
            &["c", "d"],
            &["d", "e"],
            &["e", "a"],
        ]);
        let e = colour(&t, None).expect_err("not bipartite");
        assert!(e.contains("odd cycle"), "{e}");
        // Three ports on one transfer.
        let t = traffic(&[&["a", "b", "c"], &["a"], &["b"], &["c"]]);
        assert!(colour(&t, None).is_err());
    }
}
