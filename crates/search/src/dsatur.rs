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
//! colour live in one array of n words (8 MB at a million transfers). At a million
//! transfers and 1613 colours the blocks take 26 · 8 MB; the first 16 are used about
//! equally often, so most of these reads miss the cache: they, and the keys', are most
//! of the time.
//! The priority key (saturation, uncoloured degree) is one `u64` per transfer, under upper
//! bounds per block of 64 transfers and per group of 64 blocks: an update is O(1) (a
//! raised key raises its two bounds, a lowered one leaves them stale), and the next
//! transfer is the first key equal to the largest group bound, found by scanning the
//! groups, then one group's blocks, then one block's keys (the lowest id among the ties),
//! repairing the stale bounds met on the way. (A binary tournament tree spent a quarter of
//! the time walking up: the neighbours of a transfer come in runs of consecutive ids.)
//!
//! **Degrees.** The conflict degrees come from [`Traffic::conflict_degrees`], which
//! counts the distinct users of consecutive paths (read backwards) incrementally: at 1024
//! hosts (fat-tree:16,3) it reads 2.4·10^9 list entries instead of 6.1·10^9, about 2.5 s
//! on one thread where merging each transfer's lists afresh took 11 s of CPU.
//!
//! **Parts.** From 2^16 transfers, the state above (lists, keys, colour bits) is split
//! into one part per thread (up to [`MAX_THREADS`]), dealt in runs of 64 transfer ids.
//! At every step the calling thread takes the best transfer of every part (largest key,
//! then lowest id: the same pick as one queue), then updates its own part while helper
//! threads update the others; a part that no helper has taken on when the calling thread
//! is done with its own, it updates itself. A helper the system does not run costs only
//! its share of the speed, and one it stops in the middle of an update (a busy machine)
//! pauses the helpers for a while (see `STALL`). The colouring is the same on any number
//! of threads (tested against the definition on 1 to 3 parts). One lock-step exchange
//! per step between threads that each own a part was twice as slow as one thread on a
//! busy machine.
//!
//! Measured with `cargo run --release -p liquid-search --example dsatur_scale --
//! fat-tree:16,3` (1,047,552 transfers, 1613 colours, the same schedule as before,
//! transfer by transfer; wall time of DSatur alone) on 2 cores shared with other builds:
//! before, 38-41 s (39-42 s of CPU) at load 2-2.5; now 20 s on two threads when the
//! second core is free (36 s of CPU), 32-39 s when it is not (the helpers paused), 32-39
//! s on one thread (`threads=1`). Peak memory unchanged (558 MB). The colour-bit and key
//! reads miss the cache and dominate; neither tiles of transfers by (first link, last
//! link), nor 32-colour words, nor a key and path per transfer tested against per-link
//! colour bits, nor two passes over the neighbours made one thread faster; huge pages
//! for the colour bits saved about 7 % for 25 MB more memory and were left out.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use liquid_model::{Answer, Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId};

/// The engine's name in answers and on the command line (`--engine dsatur`).
pub const ENGINE: &str = "dsatur";

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
        Schedule::from_timeframes(&self.colour)
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
///
/// Large traffics use up to [`MAX_THREADS`] threads (see the module documentation); the
/// colouring is the same for every number of threads.
pub fn colour_until(
    traffic: &Traffic,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Option<Colouring> {
    let threads = if traffic.len() < PARALLEL_FROM {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |p| p.get().min(MAX_THREADS))
    };
    colour_on_threads(traffic, deadline, progress, threads)
}

/// [`colour_until`] on `threads` threads (at least one), whatever the traffic's size: the
/// same colouring, sooner or later.
pub fn colour_on_threads(
    traffic: &Traffic,
    deadline: Option<Instant>,
    progress: &AtomicU64,
    threads: usize,
) -> Option<Colouring> {
    let split = Split {
        parts: threads.max(1),
        run: RUN,
    };
    colour_with(traffic, deadline, progress, split)
}

/// The most threads DSatur uses.
pub const MAX_THREADS: usize = 4;

/// Below this many transfers DSatur runs on one thread.
const PARALLEL_FROM: usize = 1 << 16;

/// Transfers are dealt to the parts in runs of this many consecutive ids.
const RUN: usize = 64;

/// How the transfers are dealt to the parts of the colouring's state: in runs of `run`
/// consecutive ids, the runs in turn to parts 0, 1, …, `parts` − 1, 0, 1, …
#[derive(Debug, Clone, Copy)]
struct Split {
    parts: usize,
    run: usize,
}

impl Split {
    /// The part that owns transfer t.
    fn owner(self, t: usize) -> usize {
        (t / self.run) % self.parts
    }

    /// Transfer t's index in its part (a part keeps its transfers in id order).
    fn local(self, t: usize) -> usize {
        t / (self.run * self.parts) * self.run + t % self.run
    }

    /// The transfer at index i of part k: the inverse of [`Split::local`].
    fn global(self, i: usize, k: usize) -> usize {
        i / self.run * self.run * self.parts + k * self.run + i % self.run
    }

    /// How many of n transfers part k owns.
    fn owned(self, n: usize, k: usize) -> usize {
        let round = self.run * self.parts;
        n / round * self.run + (n % round).saturating_sub(self.run * k).min(self.run)
    }
}

/// One part of the colouring's state: the transfers of the runs of [`RUN`] ids numbered
/// k modulo the number of parts, by index in the part (id order), with their keys,
/// colour bits and their share of the per-link lists.
struct Part {
    /// The part's number.
    k: usize,
    /// How the transfers are dealt to the parts.
    split: Split,
    /// The uncoloured users of link l in this part: `users[first[l]..end[l]]`, by index.
    first: Vec<usize>,
    end: Vec<usize>,
    users: Vec<u32>,
    queue: Queue,
    coloured: Vec<u64>,
    marked: Vec<u64>,
    /// seen[b][i] bit j: a neighbour of the part's transfer i has colour 64 · b + j.
    seen: Vec<Vec<u64>>,
    /// The colour of each of the part's transfers.
    colour: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Part {
    fn new(traffic: &Traffic, degrees: &[u32], k: usize, split: Split) -> Self {
        let mine = split.owned(traffic.len(), k);
        let mut first = Vec::with_capacity(traffic.num_links());
        let mut end = Vec::with_capacity(traffic.num_links());
        let mut users = Vec::new();
        for l in traffic.link_ids() {
            first.push(users.len());
            users.extend(
                traffic
                    .users(l)
                    .iter()
                    .map(|u| u.index())
                    .filter(|&u| split.owner(u) == k)
                    .map(|u| split.local(u) as u32),
            );
            end.push(users.len());
        }
        let words = mine.div_ceil(64);
        Part {
            k,
            split,
            first,
            end,
            users,
            queue: Queue::new((0..mine).map(|i| key(0, u64::from(degrees[split.global(i, k)])))),
            coloured: vec![0; words],
            marked: vec![0; words],
            seen: Vec::new(),
            colour: vec![0; mine],
            neighbours: Vec::new(),
        }
    }

    /// The part's best uncoloured transfer: its key (0 if none is left), id and the
    /// lowest colour none of its neighbours has.
    fn best(&mut self) -> (u64, usize, usize) {
        let i = self.queue.leftmost_max();
        if self.queue.key[i] == 0 {
            return (0, usize::MAX, 0);
        }
        let c = self
            .seen
            .iter()
            .enumerate()
            .find(|(_, block)| block[i] != u64::MAX)
            .map_or(64 * self.seen.len(), |(b, block)| {
                64 * b + block[i].trailing_ones() as usize
            });
        (self.queue.key[i], self.split.global(i, self.k), c)
    }

    /// Colours transfer v with c on the part's side: v's colour if the part owns it, and
    /// the update of its uncoloured neighbours in the part. Returns their number.
    fn colour(&mut self, traffic: &Traffic, v: usize, c: usize) -> usize {
        let mine = self.colour.len();
        while c / 64 >= self.seen.len() {
            self.seen.push(vec![0; mine]);
        }
        if self.split.owner(v) == self.k {
            let i = self.split.local(v);
            self.colour[i] = c as u32;
            self.coloured[i / 64] |= 1 << (i % 64);
            self.queue.set(i, 0);
        }
        let (first, end, users) = (&self.first, &mut self.end, &mut self.users);
        let (coloured, marked) = (&self.coloured, &mut self.marked);
        // The uncoloured neighbours, each once; the lists drop their coloured users.
        // Both loops are branch-free (a mispredicted branch on a cache miss stalls the
        // loads of the next neighbours, which otherwise overlap).
        let path = &traffic.transfer(TransferId(v as u32)).path;
        let most: usize = path.iter().map(|l| end[l.index()] - first[l.index()]).sum();
        self.neighbours.resize(most, 0);
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
                self.neighbours[found] = u;
                found += usize::from(new);
            }
            end[l] = kept;
        }
        let block = &mut self.seen[c / 64];
        let bit = 1u64 << (c % 64);
        for &u in &self.neighbours[..found] {
            let u = u as usize;
            marked[u / 64] = 0;
            // One coloured neighbour more: the uncoloured degree drops by one, and the
            // saturation grows by one if c is new to u.
            let was = block[u];
            block[u] = was | bit;
            let k = self.queue.key[u] + (u64::from(was & bit == 0) << 32) - 1;
            self.queue.set(u, k);
        }
        found
    }
}

/// What the thread that picks the transfers shares with the helpers that update parts.
struct Board {
    /// The parts 1.. (part 0 stays with the picking thread).
    parts: Vec<Mutex<Part>>,
    /// The current step (the number of transfers coloured so far, plus one); [`DONE`]
    /// when the colouring is over.
    step: AtomicU64,
    /// The current step's transfer (low half) and colour (high half).
    task: AtomicU64,
    /// `claimed[k]`: the last step whose update of part k + 1 a thread took on.
    claimed: Vec<AtomicU64>,
    /// The helpers take on no update before this step (see [`STALL`]).
    paused_until: AtomicU64,
}

/// A wait this long for a helper's update (the system stopped running it in the middle
/// of one: the machine is busy) pauses the helpers for [`PAUSE`] steps, during which the
/// picking thread updates every part itself.
const STALL: Duration = Duration::from_millis(2);

/// The steps a [`STALL`] pauses the helpers for (about half a second at 1024 hosts).
const PAUSE: u64 = 20_000;

/// The step that ends the helpers.
const DONE: u64 = u64::MAX;

/// Sets the step to [`DONE`] when dropped.
struct Done<'a>(&'a AtomicU64);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(DONE, Ordering::Release);
    }
}

impl Board {
    /// Takes on the update of part `k + 1` at `step` unless another thread did: a thread
    /// claims it while holding the part's lock and keeps the lock until the update is
    /// done, so a thread that fails to claim it under the lock finds it done. With
    /// `wait`, waits for the lock; otherwise gives up if the part is locked. Whether this
    /// thread did the update.
    fn update(
        &self,
        k: usize,
        step: u64,
        traffic: &Traffic,
        v: usize,
        c: usize,
        wait: bool,
    ) -> bool {
        let mut part = if wait {
            self.parts[k].lock().expect("a part's lock")
        } else {
            match self.parts[k].try_lock() {
                Ok(part) => part,
                Err(_) => return false,
            }
        };
        let claim =
            self.claimed[k].compare_exchange(step - 1, step, Ordering::AcqRel, Ordering::Relaxed);
        if claim.is_ok() {
            part.colour(traffic, v, c);
        }
        claim.is_ok()
    }

    /// A helper: updates the parts it can claim at every step until [`DONE`].
    fn help(&self, traffic: &Traffic) {
        let mut last = 0;
        let mut idle = 0u32;
        loop {
            let step = self.step.load(Ordering::Acquire);
            if step == DONE {
                return;
            }
            if step == last {
                idle += 1;
                if idle < 1 << 10 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
                continue;
            }
            idle = 0;
            last = step;
            if step < self.paused_until.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_micros(500));
                continue;
            }
            let task = self.task.load(Ordering::Acquire);
            let (v, c) = ((task & 0xffff_ffff) as usize, (task >> 32) as usize);
            for k in 0..self.parts.len() {
                self.update(k, step, traffic, v, c, false);
            }
        }
    }
}

/// DSatur with up to `threads` threads: the degrees are the model's ([`Traffic::conflict_degrees`]), and
/// the colouring state is split into `threads` parts (see [`Part`]). One thread picks
/// each transfer from the parts' best and updates part 0; the helpers update the other
/// parts, and the picking thread updates those no helper took on in time, so that a
/// helper that the system does not run only costs its share of the speed.
fn colour_with(
    traffic: &Traffic,
    deadline: Option<Instant>,
    progress: &AtomicU64,
    split: Split,
) -> Option<Colouring> {
    let n = traffic.len();
    // Degrees are below the number of transfers, a `u32`.
    let degrees: Vec<u32> = traffic
        .conflict_degrees_until(deadline)?
        .into_iter()
        .map(|d| d as u32)
        .collect();
    let parts = split.parts;
    let mut part0 = Part::new(traffic, &degrees, 0, split);
    let shared = Board {
        parts: (1..parts)
            .map(|k| Mutex::new(Part::new(traffic, &degrees, k, split)))
            .collect(),
        step: AtomicU64::new(0),
        task: AtomicU64::new(0),
        claimed: (1..parts).map(|_| AtomicU64::new(0)).collect(),
        paused_until: AtomicU64::new(0),
    };
    drop(degrees);
    let board = &shared;
    let finished = std::thread::scope(|s| {
        for _ in 1..parts {
            s.spawn(move || board.help(traffic));
        }
        // The helpers stop however this thread leaves the loop (a panic included).
        let _done = Done(&board.step);
        // Work done since the clock was last read; starts full so the clock is read first.
        let mut work = CHECK_EVERY;
        let mut reported = 0u64;
        let mut colours = 0u32;
        let mut outcome = Some(());
        for done in 0..n {
            if work >= CHECK_EVERY {
                work = 0;
                progress.fetch_add(done as u64 - reported, Ordering::Relaxed);
                reported = done as u64;
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    outcome = None;
                    break;
                }
            }
            // The best proposal: largest key, then lowest id.
            let mut best = part0.best();
            for part in &board.parts {
                let b = part.lock().expect("a part's lock").best();
                if b.0 > best.0 || (b.0 == best.0 && b.1 < best.1) {
                    best = b;
                }
            }
            let (key, v, c) = best;
            debug_assert!(key > 0, "an uncoloured transfer is left");
            debug_assert!(c <= colours as usize);
            colours = colours.max(c as u32 + 1);
            let step = done as u64 + 1;
            board
                .task
                .store(v as u64 | (c as u64) << 32, Ordering::Release);
            board.step.store(step, Ordering::Release);
            work += 1 + part0.colour(traffic, v, c) as u64;
            for k in 0..board.parts.len() {
                let start = Instant::now();
                let helped = !board.update(k, step, traffic, v, c, true);
                if helped && start.elapsed() > STALL {
                    board.paused_until.store(step + PAUSE, Ordering::Relaxed);
                }
            }
        }
        outcome.map(|()| (colours, reported))
    });
    let (colours, reported) = finished?;
    progress.fetch_add(n as u64 - reported, Ordering::Relaxed);
    let mut colour = vec![0u32; n];
    let others = shared
        .parts
        .into_iter()
        .map(|p| p.into_inner().expect("a part's lock"));
    for part in std::iter::once(part0).chain(others) {
        for (i, &c) in part.colour.iter().enumerate() {
            colour[split.global(i, part.k)] = c;
        }
    }
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
            ENGINE,
            Outcome::Unknown {
                best: None,
                bound: lower_bound,
            },
        )
        .stat("complete", StatValue::Text("no".to_string()));
    };
    let outcome = Outcome::settle(traffic, Some(c.to_schedule()), lower_bound, true);
    Answer::new(ENGINE, outcome).stat("colours", StatValue::Count(c.colours as u64))
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

    /// DSatur with its state split into `parts` parts dealt in runs of `run` transfers.
    fn colour_split(t: &Traffic, parts: usize, run: usize) -> Colouring {
        let progress = AtomicU64::new(0);
        let c = colour_with(t, None, &progress, Split { parts, run }).expect("no deadline");
        assert_eq!(
            progress.into_inner(),
            t.len() as u64,
            "every transfer reported"
        );
        c
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Split over 1 to 3 parts (threads), dealt in runs of 1, 2 or 64 transfers,
        /// DSatur makes the choices of the definition.
        #[test]
        fn same_colouring_on_any_split(
            t in arb_traffic(40, 6),
            parts in 1usize..=3,
            run in prop::sample::select(vec![1usize, 2, 64]),
        ) {
            prop_assert_eq!(&colour_split(&t, parts, run), &reference(&t));
        }

    }

    /// Every transfer is in exactly one part, at the index `local` gives.
    #[test]
    fn a_split_deals_every_transfer_once() {
        for parts in 1..=3 {
            for run in [1, 2, 64] {
                let split = Split { parts, run };
                for n in [1, 5, 64, 130, 200] {
                    let mut dealt = vec![0; n];
                    for k in 0..parts {
                        for i in 0..split.owned(n, k) {
                            let t = split.global(i, k);
                            assert_eq!((split.owner(t), split.local(t)), (k, i));
                            dealt[t] += 1;
                        }
                    }
                    assert!(dealt.iter().all(|&d| d == 1), "{split:?}, {n} transfers");
                }
            }
        }
    }

    /// A path of 300 links (beyond what a byte counts in the model's degree count): the
    /// colouring is the definition's.
    #[test]
    fn a_long_path_as_the_definition() {
        let mut paths = vec![(
            "long".to_string(),
            (0..300).map(|l| format!("l{l}")).collect(),
        )];
        paths.extend((0..30).map(|i| {
            let links = vec![format!("l{}", 10 * i), format!("l{}", 10 * i + 3)];
            (format!("x{i}"), links)
        }));
        paths.extend((0..30).map(|i| (format!("y{i}"), vec![format!("l{}", 7 * i)])));
        let t = Traffic::from_paths("long", &paths).expect("valid");
        let reference = reference(&t);
        assert_eq!(colour(&t), reference);
        assert_eq!(colour_split(&t, 2, 1), reference);
    }

    /// A deadline that passes while two threads colour a fat-tree all-to-all (16,256
    /// transfers): no colouring, and the helper stops too (the test would hang).
    #[test]
    fn a_deadline_stops_every_thread() {
        let t = liquid_topology::spec::traffic("fat-tree:8,3")
            .expect("a valid spec")
            .expect("a spec");
        let deadline = Instant::now() + std::time::Duration::from_millis(2);
        let progress = AtomicU64::new(0);
        assert_eq!(colour_on_threads(&t, Some(deadline), &progress, 2), None);
        assert!(progress.into_inner() < t.len() as u64);
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
