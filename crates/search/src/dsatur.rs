//! DSatur (Brélaz 1979) exactly as the annex of paper 003 describes it:
//!
//! 1. arrange the vertices by decreasing degree;
//! 2. colour a vertex of maximal degree with colour 1;
//! 3. choose a vertex of maximal saturation (number of distinct colours among its
//!    neighbours); ties go to the largest degree in the uncoloured subgraph;
//! 4. give it the lowest colour none of its neighbours has;
//! 5. repeat until every vertex is coloured.
//!
//! Remaining ties go to the lowest transfer id, so the result is deterministic.
//!
//! Memory is linear in the total path length: no edge list. Neighbours are enumerated
//! through the per-link user lists, and "does `u` already see colour `c`" is answered by
//! the colours present on `u`'s links (a colour appears at most once per link, because a
//! link's users pairwise congest). Whether a neighbour already sees the colour just given
//! is answered by a hash set of the (link, colour) pairs in use (one entry per coloured
//! transfer per link: linear), in O(path length), not by scanning the colours of every
//! link (O(load) each), except on links with few coloured users, where a scan is faster.
//! The priority queue is a binary heap with lazy
//! deletion, compacted whenever it outgrows four entries per vertex.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use liquid_model::{LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId, Verdict};

/// The colouring DSatur produces: `colour[t]` is transfer t's timeframe (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colouring {
    /// Timeframe of every transfer.
    pub colour: Vec<u32>,
    /// Number of timeframes used.
    pub colours: u32,
}

impl Colouring {
    /// The colouring as a schedule (timeframe c holds the transfers of colour c, by id).
    pub fn to_schedule(&self) -> Schedule {
        let mut frames = vec![Vec::new(); self.colours as usize];
        for (t, &c) in self.colour.iter().enumerate() {
            frames[c as usize].push(TransferId(t as u32));
        }
        Schedule::new(frames)
    }
}

/// A multiplicative hash for the (link, colour) keys (no denial-of-service concern here:
/// the keys come from the traffic, and a bad spread only costs time).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Links with at most this many coloured users are scanned, not looked up in the set.
const SCAN_MAX: usize = 256;

type Key = (u32, u64, Reverse<u32>); // (saturation, uncoloured degree, lowest id first)

/// Colours the conflict graph of `traffic` with DSatur.
pub fn colour(traffic: &Traffic) -> Colouring {
    let n = traffic.len();
    const NONE: u32 = u32::MAX;
    let mut colour = vec![NONE; n];
    let mut sat = vec![0u32; n];
    let mut deg: Vec<u64> = traffic.conflict_degrees();
    // Colours present on each link (at most one transfer per colour per link).
    let mut on_link: Vec<Vec<u32>> = vec![Vec::new(); traffic.num_links()];
    // The same pairs as a set, keyed by link · 2^32 + colour.
    let mut in_use: HashSet<u64, BuildHasherDefault<KeyHasher>> =
        HashSet::with_capacity_and_hasher(traffic.total_path_length(), Default::default());
    let mut mark = vec![false; n];
    let mut heap: BinaryHeap<Key> = traffic
        .transfer_ids()
        .map(|t| (0, deg[t.index()], Reverse(t.0)))
        .collect();
    let mut colours = 0u32;
    let mut forbidden: Vec<bool> = Vec::new();
    let mut neighbours: Vec<TransferId> = Vec::new();

    for _ in 0..n {
        // Pop the best current entry (stale entries no longer match the vertex's key).
        let v = loop {
            let (s, d, Reverse(v)) = heap.pop().expect("an uncoloured vertex is in the heap");
            let vi = v as usize;
            if colour[vi] == NONE && sat[vi] == s && deg[vi] == d {
                break TransferId(v);
            }
        };
        // Lowest colour absent from v's links.
        forbidden.clear();
        forbidden.resize(colours as usize + 1, false);
        for &l in &traffic.transfer(v).path {
            for &c in &on_link[l.index()] {
                forbidden[c as usize] = true;
            }
        }
        let c = forbidden
            .iter()
            .position(|&f| !f)
            .expect("colour `colours` is always free") as u32;
        colours = colours.max(c + 1);
        // Update the uncoloured neighbours before recording c on v's links.
        neighbours.clear();
        traffic.for_each_neighbour(v, &mut mark, |u| {
            if colour[u.index()] == NONE {
                neighbours.push(u);
            }
        });
        for &u in &neighbours {
            let ui = u.index();
            let sees = traffic.transfer(u).path.iter().any(|l| {
                let here = &on_link[l.index()];
                if here.len() <= SCAN_MAX {
                    here.contains(&c)
                } else {
                    in_use.contains(&(u64::from(l.0) << 32 | u64::from(c)))
                }
            });
            if !sees {
                sat[ui] += 1;
            }
            deg[ui] -= 1;
            heap.push((sat[ui], deg[ui], Reverse(u.0)));
        }
        colour[v.index()] = c;
        for &l in &traffic.transfer(v).path {
            on_link[l.index()].push(c);
            in_use.insert(u64::from(l.0) << 32 | u64::from(c));
        }
        if heap.len() > 4 * n + 16 {
            heap.retain(|&(s, d, Reverse(u))| {
                let ui = u as usize;
                colour[ui] == NONE && sat[ui] == s && deg[ui] == d
            });
        }
    }
    Colouring { colour, colours }
}

/// Runs DSatur as an engine: `liquid` when it reaches Λ, otherwise `feasible` (DSatur
/// proves nothing about optimality). The lower bound is Λ, witnessed by a bottleneck.
pub fn solve(traffic: &Traffic) -> Outcome {
    let c = colour(traffic);
    let lower_bound = LowerBound::duration(traffic);
    let verdict = if c.colours as usize == lower_bound.value {
        Verdict::Liquid
    } else {
        Verdict::Feasible
    };
    Outcome {
        engine: "dsatur".to_string(),
        verdict,
        schedule: Some(c.to_schedule()),
        lower_bound,
        stats: vec![("colours".to_string(), StatValue::Count(c.colours as u64))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::validate;

    #[test]
    fn no_team_needs_three() {
        let t = Traffic::from_paths(
            "t",
            &[
                ("x", vec!["a", "b"]),
                ("y", vec!["b", "c"]),
                ("z", vec!["a", "c"]),
            ],
        )
        .expect("valid traffic");
        let o = solve(&t);
        let s = o.schedule.expect("schedule");
        assert_eq!(validate(&t, &s).expect("valid").length, 3);
        assert_eq!(o.verdict, Verdict::Feasible);
    }
}
