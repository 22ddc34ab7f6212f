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
//! Memory is linear in the total path length plus one bit per transfer and colour: no
//! edge list. Neighbours are enumerated through per-link lists of the *uncoloured* users
//! (each list is compacted while it is read, so coloured transfers are skipped once), a
//! bitset of one bit per transfer merging the lists of the links of the transfer being
//! coloured. "Is colour `c` new for neighbour `u`" is one bit: the colours seen by each
//! transfer are kept in blocks of 64 colours, block `b` holding one word per transfer
//! (allocated when colour 64 · b is first used), so all the neighbours' bits for one
//! colour live in one array of n words (8 MB at a million transfers, in cache). At a
//! million transfers and 1613 colours the blocks take 26 · 8 MB.
//! The priority key (saturation, uncoloured degree) is one `u64` per transfer, under upper
//! bounds per block of 64 transfers and per group of 64 blocks: an update is O(1) (a
//! raised key raises its two bounds, a lowered one leaves them stale), and the next
//! transfer is the first key equal to the largest group bound, found by scanning the
//! groups, then one group's blocks, then one block's keys (the lowest id among the ties),
//! repairing the stale bounds met on the way. (A binary tournament tree spent a quarter of
//! the time walking up: the neighbours of a transfer come in runs of consecutive ids.)

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

/// Work (neighbour updates, plus one per coloured transfer) between two looks at the clock.
const CHECK_EVERY: u64 = 4096;

/// The key of an uncoloured transfer: saturation + 1 in the high half (so that every
/// uncoloured key is above 0, the key of a coloured transfer), uncoloured degree in the
/// low half. Saturation and degree are below the number of transfers, a `u32`.
fn key(saturation: u64, degree: u64) -> u64 {
    (saturation + 1) << 32 | degree
}

/// The keys of the transfers with upper bounds over blocks of 64 keys and groups of 64
/// blocks. A raised key raises its bounds at once (two `max`); a lowered key leaves them
/// stale (too high), and [`Queue::leftmost_max`] repairs a stale bound when it meets one.
struct Queue {
    /// The key of every transfer (0 once coloured), padded with zeros to whole blocks.
    key: Vec<u64>,
    /// `block[b]` ≥ every key in `key[64 b..64 b + 64]`.
    block: Vec<u64>,
    /// `group[g]` ≥ every bound in `block[64 g..64 g + 64]`.
    group: Vec<u64>,
}

/// The maximum of a slice of keys and the first position holding it.
fn first_max(keys: &[u64]) -> (u64, usize) {
    let m = keys.iter().copied().max().unwrap_or(0);
    (m, keys.iter().position(|&k| k == m).unwrap_or(0))
}

impl Queue {
    fn new(keys: impl ExactSizeIterator<Item = u64>) -> Self {
        let blocks = keys.len().div_ceil(64).max(1).next_multiple_of(64);
        let mut key: Vec<u64> = keys.collect();
        key.resize(64 * blocks, 0);
        let block: Vec<u64> = key.chunks(64).map(|c| first_max(c).0).collect();
        let group = block.chunks(64).map(|c| first_max(c).0).collect();
        Queue { key, block, group }
    }

    /// Sets the key of t to `k`: its bounds rise to `k` if below it; a lowered key leaves
    /// them as they are (stale), without a branch.
    fn set(&mut self, t: usize, k: u64) {
        self.key[t] = k;
        let b = &mut self.block[t / 64];
        *b = (*b).max(k);
        let g = &mut self.group[t / 4096];
        *g = (*g).max(k);
    }

    /// The lowest transfer holding the largest key.
    fn leftmost_max(&mut self) -> usize {
        loop {
            let (m, g) = first_max(&self.group);
            let blocks = &self.block[64 * g..64 * g + 64];
            let Some(b) = blocks.iter().position(|&k| k == m).map(|i| 64 * g + i) else {
                self.group[g] = first_max(blocks).0;
                continue;
            };
            let keys = &self.key[64 * b..64 * b + 64];
            match keys.iter().position(|&k| k == m) {
                Some(i) => return 64 * b + i,
                None => {
                    self.block[b] = first_max(keys).0;
                    self.group[g] = first_max(&self.block[64 * g..64 * g + 64]).0;
                }
            }
        }
    }
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
    let n = traffic.len();
    // Work done since the clock was last read; starts full so the clock is read first.
    let mut work = CHECK_EVERY;
    let mut reported = 0u64;
    // The degrees take seconds at a million transfers: they look at the clock too.
    let degrees = traffic.conflict_degrees_until(deadline)?;
    let mut queue = Queue::new(degrees.iter().map(|&d| key(0, d)));
    drop(degrees);
    // The uncoloured users of link l: `users[first[l]..end[l]]`, in increasing id order.
    let mut first: Vec<usize> = Vec::with_capacity(traffic.num_links());
    let mut end: Vec<usize> = Vec::with_capacity(traffic.num_links());
    let mut users: Vec<u32> = Vec::with_capacity(traffic.total_path_length());
    for l in traffic.link_ids() {
        first.push(users.len());
        users.extend(traffic.users(l).iter().map(|u| u.0));
        end.push(users.len());
    }
    let words = n.div_ceil(64);
    let mut coloured = vec![0u64; words];
    let mut marked = vec![0u64; words];
    // seen[b][t] bit i: a neighbour of t has colour 64 · b + i.
    let mut seen: Vec<Vec<u64>> = Vec::new();
    let mut colour = vec![0u32; n];
    let mut colours = 0u32;
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
        let v = queue.leftmost_max();
        // Lowest colour no neighbour of v has.
        let c = seen
            .iter()
            .enumerate()
            .find(|(_, block)| block[v] != u64::MAX)
            .map_or(64 * seen.len(), |(b, block)| {
                64 * b + block[v].trailing_ones() as usize
            });
        if c / 64 == seen.len() {
            seen.push(vec![0; n]);
        }
        debug_assert!(c <= colours as usize);
        colour[v] = c as u32;
        colours = colours.max(c as u32 + 1);
        coloured[v / 64] |= 1 << (v % 64);
        queue.set(v, 0);
        // The uncoloured neighbours, each once; the lists drop their coloured users.
        // Both loops are branch-free (a mispredicted branch on a cache miss stalls the
        // loads of the next neighbours, which otherwise overlap).
        let path = &traffic.transfer(TransferId(v as u32)).path;
        let most: usize = path.iter().map(|l| end[l.index()] - first[l.index()]).sum();
        neighbours.resize(most, 0);
        let mut found = 0;
        for &l in path {
            let l = l.index();
            let mut kept = first[l];
            for r in first[l]..end[l] {
                let u = users[r];
                let (w, bit) = (u as usize / 64, 1u64 << (u % 64));
                let uncoloured = coloured[w] & bit == 0;
                users[kept] = u;
                kept += usize::from(uncoloured);
                let new = uncoloured & (marked[w] & bit == 0);
                marked[w] |= bit;
                neighbours[found] = u;
                found += usize::from(new);
            }
            end[l] = kept;
        }
        work += 1 + found as u64;
        let block = &mut seen[c / 64];
        let bit = 1u64 << (c % 64);
        for &u in &neighbours[..found] {
            let u = u as usize;
            marked[u / 64] = 0;
            // One coloured neighbour more: the uncoloured degree drops by one, and the
            // saturation grows by one if c is new to u.
            let was = block[u];
            block[u] = was | bit;
            let k = queue.key[u] + (u64::from(was & bit == 0) << 32) - 1;
            queue.set(u, k);
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
    use std::cmp::Reverse;

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
        /// The fast implementation makes exactly the choices of the definition.
        #[test]
        fn same_colouring_as_the_definition(t in arb_traffic(24, 6)) {
            let want = reference(&t);
            prop_assert_eq!(&colour(&t), &want);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// The same on denser traffics (up to 150 transfers on 5 links, each on 1 to 3
        /// links), which often need more than 64 colours: the colours seen by a transfer
        /// then span several blocks of 64.
        #[test]
        fn same_colouring_as_the_definition_beyond_64_colours(t in arb_traffic(150, 5)) {
            let want = reference(&t);
            prop_assert_eq!(&colour(&t), &want);
        }
    }

    /// A clique of 130 transfers on one link (130 colours, three blocks) with a few
    /// transfers around it, against the definition.
    #[test]
    fn a_large_clique_as_the_definition() {
        let mut paths: Vec<(String, Vec<String>)> = (0..130)
            .map(|i| {
                (
                    format!("c{i}"),
                    vec!["hub".to_string(), format!("l{}", i % 7)],
                )
            })
            .collect();
        paths.extend((0..20).map(|i| (format!("x{i}"), vec![format!("l{}", i % 7)])));
        let t = Traffic::from_paths("clique", &paths).expect("valid");
        let got = colour(&t);
        assert_eq!(got, reference(&t));
        assert_eq!(got.colours, 130);
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
