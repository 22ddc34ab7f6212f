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
//! link's users pairwise congest), read from the paths copied into one flat array (most
//! of the time goes into reading the neighbours' paths: at scale every neighbour update
//! is a cache miss, so the paths are kept compact). The colours on a busy link (load at
//! least (Δ + 1) / 32, Δ the largest conflict degree) are a bitset of Δ + 1 bits (at most
//! 32 bits per user of the link); on the other links they are a list, scanned while it is
//! short and mirrored in a hash set of (link, colour) pairs once it is long.
//! The priority queue is a binary heap with lazy deletion, compacted whenever it outgrows
//! four entries per vertex (at 1024 hosts it takes about a tenth of the time).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use liquid_model::{Answer, Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId};

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

/// A link gets a bitset of the colours on it when `BITSET_FACTOR · load ≥ Δ + 1` (Δ the
/// largest conflict degree, so every colour is below Δ + 1): its bitset then takes at most
/// `BITSET_FACTOR` bits per user, linear in the total path length.
const BITSET_FACTOR: usize = 32;

/// Work (neighbour updates, plus one per coloured transfer) between two looks at the clock.
const CHECK_EVERY: u64 = 4096;

type Key = (u32, u32, Reverse<u32>); // (saturation, uncoloured degree, lowest id first)

/// How the colours present on a link are represented (tests force each representation).
#[derive(Clone, Copy)]
struct Tiers {
    scan_max: usize,
    bitset_factor: usize,
}

/// Colours the conflict graph of `traffic` with DSatur.
pub fn colour(traffic: &Traffic) -> Colouring {
    colour_until(traffic, None, &AtomicU64::new(0))
        .expect("without a deadline the colouring completes")
}

/// Colours the conflict graph of `traffic` with DSatur unless the clock passes
/// `deadline` first (looked at before the first transfer is coloured and then every few
/// thousand neighbour updates): `None` then, since a partial colouring is no schedule.
/// Every coloured transfer is added to `progress`.
pub fn colour_until(
    traffic: &Traffic,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Option<Colouring> {
    colour_tiered(
        traffic,
        deadline,
        progress,
        Tiers {
            scan_max: SCAN_MAX,
            bitset_factor: BITSET_FACTOR,
        },
    )
}

fn colour_tiered(
    traffic: &Traffic,
    deadline: Option<Instant>,
    progress: &AtomicU64,
    tiers: Tiers,
) -> Option<Colouring> {
    let n = traffic.len();
    // Work done since the clock was last read; starts full so the clock is read first.
    let mut work = CHECK_EVERY;
    let mut reported = 0u64;
    const NONE: u32 = u32::MAX;
    let mut colour = vec![NONE; n];
    let mut sat = vec![0u32; n];
    // The degrees take seconds at a million transfers: they look at the clock too.
    // A degree is below the number of transfers, which fits in a u32.
    let mut deg: Vec<u32> = traffic
        .conflict_degrees_until(deadline)?
        .into_iter()
        .map(|d| d as u32)
        .collect();
    // The paths in one flat array (`links[start[t]..start[t + 1]]`): reading a
    // neighbour's path is then one access into a compact array, not two pointer chases.
    let mut start: Vec<usize> = Vec::with_capacity(n + 1);
    let mut links: Vec<u32> = Vec::with_capacity(traffic.total_path_length());
    for t in traffic.transfer_ids() {
        start.push(links.len());
        links.extend(traffic.transfer(t).path.iter().map(|l| l.0));
    }
    start.push(links.len());
    let path_of = |t: usize| start[t]..start[t + 1];
    // Colours on the busy links as bitsets of `words` words each (colours are < Δ + 1).
    let max_deg = deg.iter().copied().max().unwrap_or(0) as usize;
    let words = (max_deg + 1).div_ceil(64);
    let mut bits_at: Vec<usize> = vec![usize::MAX; traffic.num_links()];
    let mut n_bitsets = 0;
    for l in traffic.link_ids() {
        if tiers.bitset_factor.saturating_mul(traffic.load(l)) > max_deg {
            bits_at[l.index()] = n_bitsets * words;
            n_bitsets += 1;
        }
    }
    let mut bits: Vec<u64> = vec![0; n_bitsets * words];
    // Colours present on every other link (at most one transfer per colour per link).
    let mut on_link: Vec<Vec<u32>> = vec![Vec::new(); traffic.num_links()];
    // The same pairs as a set, keyed by link · 2^32 + colour (long lists only).
    let mut in_use: HashSet<u64, BuildHasherDefault<KeyHasher>> = HashSet::default();
    let sees = |on_link: &[Vec<u32>],
                in_use: &HashSet<u64, BuildHasherDefault<KeyHasher>>,
                bits: &[u64],
                l: u32,
                c: u32| {
        let at = bits_at[l as usize];
        if at != usize::MAX {
            return bits[at + c as usize / 64] >> (c % 64) & 1 == 1;
        }
        let here = &on_link[l as usize];
        if here.len() <= tiers.scan_max {
            here.contains(&c)
        } else {
            in_use.contains(&(u64::from(l) << 32 | u64::from(c)))
        }
    };
    // Per transfer: COLOURED once coloured, MARKED while listed as a neighbour of the
    // transfer being coloured. One byte each (a million transfers fit in a megabyte, in
    // cache), read for every user of the links of every transfer coloured.
    const COLOURED: u8 = 1;
    const MARKED: u8 = 2;
    let mut state = vec![0u8; n];
    let mut heap: BinaryHeap<Key> = traffic
        .transfer_ids()
        .map(|t| (0, deg[t.index()], Reverse(t.0)))
        .collect();
    let mut colours = 0u32;
    let mut forbidden: Vec<u64> = Vec::new();
    let mut neighbours: Vec<u32> = Vec::new();

    for done in 0..n {
        if work >= CHECK_EVERY {
            work = 0;
            progress.fetch_add(done as u64 - reported, Ordering::Relaxed);
            reported = done as u64;
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
        }
        // Pop the best current entry (stale entries no longer match the vertex's key).
        let v = loop {
            let (s, d, Reverse(v)) = heap.pop().expect("an uncoloured vertex is in the heap");
            let vi = v as usize;
            if colour[vi] == NONE && sat[vi] == s && deg[vi] == d {
                break v;
            }
        };
        let vi = v as usize;
        let path = &links[path_of(vi)];
        // Lowest colour absent from v's links.
        let used_words = (colours as usize + 1).div_ceil(64);
        forbidden.clear();
        forbidden.resize(used_words, 0);
        for &l in path {
            let at = bits_at[l as usize];
            if at != usize::MAX {
                for (f, b) in forbidden.iter_mut().zip(&bits[at..at + words]) {
                    *f |= b;
                }
            } else {
                for &c in &on_link[l as usize] {
                    forbidden[c as usize / 64] |= 1 << (c % 64);
                }
            }
        }
        let c = forbidden
            .iter()
            .enumerate()
            .find(|(_, w)| **w != u64::MAX)
            .map(|(i, w)| i as u32 * 64 + w.trailing_ones())
            .expect("colour `colours` is always free");
        debug_assert!(c <= colours);
        colours = colours.max(c + 1);
        // Update the uncoloured neighbours before recording c on v's links.
        neighbours.clear();
        for &l in path {
            for &u in traffic.users(liquid_model::LinkId(l)) {
                let ui = u.index();
                if state[ui] == 0 && u.0 != v {
                    state[ui] = MARKED;
                    neighbours.push(u.0);
                }
            }
        }
        work += 1 + neighbours.len() as u64;
        for &u in &neighbours {
            let ui = u as usize;
            state[ui] = 0;
            let seen = links[path_of(ui)]
                .iter()
                .any(|&l| sees(&on_link, &in_use, &bits, l, c));
            if !seen {
                sat[ui] += 1;
            }
            deg[ui] -= 1;
            heap.push((sat[ui], deg[ui], Reverse(u)));
        }
        colour[vi] = c;
        state[vi] = COLOURED;
        for &l in path {
            let at = bits_at[l as usize];
            if at != usize::MAX {
                bits[at + c as usize / 64] |= 1 << (c % 64);
            } else {
                let here = &mut on_link[l as usize];
                here.push(c);
                if here.len() > tiers.scan_max {
                    if here.len() == tiers.scan_max + 1 {
                        in_use.extend(here.iter().map(|&c| u64::from(l) << 32 | u64::from(c)));
                    } else {
                        in_use.insert(u64::from(l) << 32 | u64::from(c));
                    }
                }
            }
        }
        if heap.len() > 4 * n + 16 {
            heap.retain(|&(s, d, Reverse(u))| {
                let ui = u as usize;
                colour[ui] == NONE && sat[ui] == s && deg[ui] == d
            });
        }
    }
    progress.fetch_add(n as u64 - reported, Ordering::Relaxed);
    Some(Colouring { colour, colours })
}

/// Runs DSatur as an engine: `liquid` when it reaches Λ, otherwise `feasible` (DSatur
/// proves nothing about optimality). The lower bound is Λ, witnessed by a bottleneck.
/// No limit applies: see [`solve_with_limits`].
pub fn solve(traffic: &Traffic) -> Answer {
    solve_with_limits(traffic, &Limits::default())
}

/// [`solve`] under the time limit of `limits` (the node limit does not apply: DSatur does
/// not search). When the time runs out before every transfer is coloured the verdict is
/// `unknown`, with Λ as the lower bound and no schedule.
pub fn solve_with_limits(traffic: &Traffic, limits: &Limits) -> Answer {
    solve_with_progress(traffic, limits, &AtomicU64::new(0))
}

/// [`solve_with_limits`], adding every coloured transfer to `progress` as it goes (a
/// caller may poll it from another thread to show progress).
pub fn solve_with_progress(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Answer {
    let lower_bound = LowerBound::duration(traffic);
    let Some(c) = colour_until(traffic, limits.deadline(), progress) else {
        return Answer::new(
            "dsatur",
            Outcome::Unknown {
                best: None,
                bound: lower_bound,
            },
        )
        .stat("complete", StatValue::Text("no".to_string()));
    };
    let outcome = Outcome::settle(traffic, Some(c.to_schedule()), lower_bound, true);
    Answer::new("dsatur", outcome).stat("colours", StatValue::Count(c.colours as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{arb_traffic, no_team};
    use liquid_model::{validate, Verdict};
    use proptest::prelude::*;

    /// DSatur by its definition, in O(n²) per step: the uncoloured transfer of largest
    /// saturation, then largest uncoloured degree, then lowest id, gets the lowest colour
    /// none of its neighbours has.
    fn reference(t: &Traffic) -> Colouring {
        let n = t.len();
        let id = |i: usize| TransferId(i as u32);
        let mut colour: Vec<Option<u32>> = vec![None; n];
        for _ in 0..n {
            let key = |i: usize| {
                let mut seen: Vec<u32> = (0..n)
                    .filter(|&j| j != i && t.congest(id(i), id(j)))
                    .filter_map(|j| colour[j])
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                let d = (0..n)
                    .filter(|&j| j != i && colour[j].is_none() && t.congest(id(i), id(j)))
                    .count();
                (seen.len(), d, Reverse(i))
            };
            let v = (0..n)
                .filter(|&i| colour[i].is_none())
                .max_by_key(|&i| key(i))
                .expect("an uncoloured transfer");
            let c = (0u32..)
                .find(|&c| (0..n).all(|j| colour[j] != Some(c) || !t.congest(id(v), id(j))))
                .expect("a free colour");
            colour[v] = Some(c);
        }
        let colour: Vec<u32> = colour.into_iter().map(|c| c.expect("coloured")).collect();
        let colours = colour.iter().max().map_or(0, |&c| c + 1);
        Colouring { colour, colours }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// The fast implementation makes exactly the choices of the definition, whichever
        /// representation the links' colours take (bitsets, short lists, hash set).
        #[test]
        fn same_colouring_as_the_definition(t in arb_traffic(24, 6)) {
            let want = reference(&t);
            prop_assert_eq!(&colour(&t), &want);
            for (scan_max, bitset_factor) in [(0, 0), (1, 0), (usize::MAX, 0), (0, usize::MAX)] {
                let got = colour_tiered(&t, None, &AtomicU64::new(0), Tiers { scan_max, bitset_factor })
                    .expect("no deadline");
                prop_assert_eq!(&got, &want);
            }
        }
    }

    #[test]
    fn no_team_needs_three() {
        let t = no_team();
        let o = solve(&t).outcome;
        let s = o.schedule().cloned().expect("schedule");
        assert_eq!(validate(&t, &s).expect("valid").length, 3);
        assert_eq!(o.verdict(), Verdict::Feasible);
    }

    #[test]
    fn time_limit_zero_is_unknown_without_schedule() {
        let t = Traffic::from_paths("t", &[("x", vec!["a"]), ("y", vec!["a"])]).expect("valid");
        let limits = Limits {
            time: Some(std::time::Duration::ZERO),
            nodes: None,
        };
        let o = solve_with_limits(&t, &limits).outcome;
        assert_eq!(o.verdict(), Verdict::Unknown);
        assert_eq!(o.schedule(), None);
        assert_eq!(o.lower_bound(&t).value, 2);
        liquid_model::check_outcome(&t, &o).expect("a consistent outcome");
    }
}
