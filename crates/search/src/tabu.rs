//! Shorter schedules by tabu search (TabuCol: Hertz and de Werra 1987, with the tabu tenure
//! of Galinier and Hao 1999), a heuristic that only ever shortens a valid schedule.
//!
//! From a valid schedule of c timeframes, the search empties the smallest timeframe (each
//! of its transfers moves to the frame where it congests least) and then repairs the c − 1
//! frames: at every step it moves one congesting transfer to another frame, the move that
//! lowers the number of congesting pairs most (ties broken by a seeded generator), never
//! moving a transfer back to a frame it left within the last
//! `0.6·(congesting transfers) + rand(10)` steps unless that yields the fewest congesting
//! pairs seen so far. When no
//! pair congests, the c − 1 frames are a schedule; it tries c − 2, and so on down to the
//! lower bound it is given, until a step budget runs out for one length.
//!
//! The congestion of a pair is counted per link shared and per frame (the load of link l
//! in frame f gives `load·(load − 1)/2` pairs): zero exactly when every frame is
//! simultaneous. `gamma[t][f]`, the users of t's links in frame f, is kept up to date in
//! O(Σ loads of the moved transfer's links) per move; a step scans the congesting
//! transfers only. Memory: `(transfers + links) × frames` counters, at most
//! [`MAX_COUNTERS`] (above it the schedule given is returned).
//!
//! The result is a heuristic's: the caller validates it with the model crate (the gate
//! does), and nothing here claims optimality.

use std::time::Instant;

use liquid_model::{Schedule, Traffic, TransferId};

use liquid_model::rng::SplitMix64;

/// Steps between two looks at the clock.
const CLOCK_EVERY: u64 = 256;

/// The default step budget for one length (queen8_8 needs a few hundred to a few
/// thousand steps for 9 frames; `cargo run --release -p liquid-sat --example sat_proofs`).
pub const STEPS: u64 = 20_000;

/// The most work one [`shorten`] call does, counted as (transfer, frame) pairs examined:
/// about a second, so that a traffic far larger than queen8_8 costs a bounded time (with
/// 10⁴ congesting transfers and 100 frames, 200 steps).
pub const MAX_WORK: u64 = 400_000_000;

/// The most counters the search state may hold ((transfers + links) × frames, 4 bytes
/// each: 1 GiB). Above it, or when setting the state up would take more than
/// [`MAX_WORK`] (total path length × frames), [`shorten`] returns the schedule it was
/// given: `rail:64,8,4` (261,632 transfers, 7,135 frames) took 16 GB and ran 30 s past
/// its time limit setting up, with no clock to look at.
pub const MAX_COUNTERS: u64 = 1 << 28;

/// What [`shorten`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortened {
    /// The shortest valid schedule found (the one given if no shorter one was found).
    pub schedule: Schedule,
    /// Moves made, over all lengths tried.
    pub steps: u64,
    /// Whether the deadline stopped the search.
    pub stopped: bool,
}

/// The search state for k frames.
struct State<'a> {
    k: usize,
    /// Per transfer, its links of load ≥ 2 (the others never congest).
    paths: Vec<Vec<u32>>,
    users: Vec<&'a [TransferId]>,
    frame: Vec<u32>,
    /// `count[l·k + f]`: users of link l in frame f.
    count: Vec<u32>,
    /// `gamma[t·k + f]`: Σ over t's links of their users in frame f (t included when f is
    /// t's frame).
    gamma: Vec<u32>,
    /// Congesting pairs, counted per link and frame.
    cost: u64,
}

impl<'a> State<'a> {
    fn new(traffic: &'a Traffic, k: usize, frame: Vec<u32>) -> Self {
        let users: Vec<&[TransferId]> = traffic.link_ids().map(|l| traffic.users(l)).collect();
        let paths: Vec<Vec<u32>> = traffic
            .transfers()
            .iter()
            .map(|t| {
                t.path
                    .iter()
                    .filter(|l| users[l.index()].len() >= 2)
                    .map(|l| l.index() as u32)
                    .collect()
            })
            .collect();
        let mut s = State {
            k,
            paths,
            users,
            frame,
            count: vec![0; traffic.num_links() * k],
            gamma: vec![0; traffic.len() * k],
            cost: 0,
        };
        for t in 0..s.frame.len() {
            let f = s.frame[t] as usize;
            for &l in &s.paths[t] {
                let c = &mut s.count[l as usize * k + f];
                s.cost += u64::from(*c);
                *c += 1;
            }
        }
        for t in 0..s.frame.len() {
            for &l in &s.paths[t] {
                for f in 0..k {
                    s.gamma[t * k + f] += s.count[l as usize * k + f];
                }
            }
        }
        s
    }

    /// The pairs transfer t is in within its frame.
    fn conflicts(&self, t: usize) -> u32 {
        self.gamma[t * self.k + self.frame[t] as usize] - self.paths[t].len() as u32
    }

    fn moved(&mut self, t: usize, to: usize) {
        let k = self.k;
        let from = self.frame[t] as usize;
        let delta = i64::from(self.gamma[t * k + to]) - i64::from(self.conflicts(t));
        self.cost = (self.cost as i64 + delta) as u64;
        for i in 0..self.paths[t].len() {
            let l = self.paths[t][i] as usize;
            self.count[l * k + from] -= 1;
            self.count[l * k + to] += 1;
            for u in self.users[l] {
                let u = u.index();
                self.gamma[u * k + from] -= 1;
                self.gamma[u * k + to] += 1;
            }
        }
        self.frame[t] = to as u32;
    }
}

/// Repairs `state` to cost 0 within `budget` steps and what is left of `work`; the steps
/// made, and whether it succeeded (`None` when the deadline passed).
fn repair(
    state: &mut State<'_>,
    rng: &mut SplitMix64,
    budget: u64,
    work: &mut u64,
    deadline: Option<Instant>,
) -> (u64, Option<bool>) {
    let n = state.frame.len();
    let k = state.k;
    let mut tabu = vec![0u64; n * k];
    let mut best = state.cost;
    let mut congesting: Vec<usize> = Vec::new();
    let mut step = 0u64;
    while state.cost > 0 {
        if step >= budget || *work == 0 {
            return (step, Some(false));
        }
        if step % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return (step, None);
        }
        step += 1;
        congesting.clear();
        congesting.extend((0..n).filter(|&t| state.conflicts(t) > 0));
        *work = work.saturating_sub((n + congesting.len() * k) as u64);
        // The best move: smallest change of cost, not tabu unless it beats the best cost.
        let mut chosen: Option<(usize, usize)> = None;
        let mut chosen_delta = i64::MAX;
        let mut ties = 0u64;
        for &t in &congesting {
            let own = i64::from(state.conflicts(t));
            let f = state.frame[t] as usize;
            for g in (0..k).filter(|&g| g != f) {
                let delta = i64::from(state.gamma[t * k + g]) - own;
                let allowed = tabu[t * k + g] <= step || (state.cost as i64 + delta) < best as i64;
                if !allowed || delta > chosen_delta {
                    continue;
                }
                if delta < chosen_delta {
                    chosen_delta = delta;
                    chosen = Some((t, g));
                    ties = 1;
                } else {
                    ties += 1;
                    if rng.below(ties) == 0 {
                        chosen = Some((t, g));
                    }
                }
            }
        }
        let (t, g) = match chosen {
            Some(m) => m,
            None => {
                // Every move is tabu: a random one.
                let t = congesting[rng.below(congesting.len() as u64) as usize];
                let f = state.frame[t] as usize;
                let g = (f + 1 + rng.below(k as u64 - 1) as usize) % k;
                (t, g)
            }
        };
        let from = state.frame[t] as usize;
        state.moved(t, g);
        tabu[t * k + from] = step + (congesting.len() as u64 * 6) / 10 + rng.below(10) + 1;
        best = best.min(state.cost);
    }
    (step, Some(true))
}

/// Shortens the valid schedule `start` of `traffic` by tabu search, down to `lower` frames
/// at best (see the module documentation), with `steps` steps per length tried (`None`:
/// [`STEPS`]) and [`MAX_WORK`] in all, seeded with `seed`, until `deadline`. The schedule
/// returned is a heuristic's: validate it.
pub fn shorten(
    traffic: &Traffic,
    start: &Schedule,
    lower: usize,
    seed: u64,
    steps: Option<u64>,
    deadline: Option<Instant>,
) -> Shortened {
    let mut best = start.clone();
    let mut rng = SplitMix64(seed);
    let mut total = 0u64;
    let n = traffic.len();
    let frames = start.len() as u64;
    if (n + traffic.num_links()) as u64 * frames > MAX_COUNTERS
        || traffic.total_path_length() as u64 * frames > MAX_WORK
    {
        return Shortened {
            schedule: best,
            steps: 0,
            stopped: false,
        };
    }
    // A valid schedule places every transfer.
    let mut frame = start.timeframes(n);
    let mut work = MAX_WORK;
    let mut k = start.len();
    while k > lower.max(1) && k > 1 {
        // Empty the smallest frame: renumber it k − 1, then move its transfers.
        let mut sizes = vec![0usize; k];
        for &f in &frame {
            sizes[f as usize] += 1;
        }
        let smallest = (0..k).min_by_key(|&f| (sizes[f], f)).unwrap_or(0);
        for f in frame.iter_mut() {
            if *f as usize == smallest {
                *f = k as u32 - 1;
            } else if *f as usize == k - 1 {
                *f = smallest as u32;
            }
        }
        let mut state = State::new(traffic, k, frame);
        let k1 = k - 1;
        for t in 0..n {
            if state.frame[t] as usize == k1 {
                let to = (0..k1)
                    .min_by_key(|&g| (state.gamma[t * k + g], g))
                    .unwrap_or(0);
                state.moved(t, to);
            }
        }
        // Now on k − 1 frames.
        let narrowed: Vec<u32> = state.frame.clone();
        let mut state = State::new(traffic, k1, narrowed);
        let budget = steps.unwrap_or(STEPS);
        let (made, done) = repair(&mut state, &mut rng, budget, &mut work, deadline);
        total += made;
        match done {
            Some(true) => {
                best = Schedule::from_timeframes(&state.frame);
                frame = state.frame;
                k = k1;
            }
            Some(false) => break,
            None => {
                return Shortened {
                    schedule: best,
                    steps: total,
                    stopped: true,
                }
            }
        }
    }
    Shortened {
        schedule: best,
        steps: total,
        stopped: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsatur;
    use crate::test_support::arb_traffic;
    use liquid_model::validate;
    use proptest::prelude::*;

    /// Above MAX_COUNTERS the schedule given comes back untouched, without the state
    /// (here it would be 2 × 0.5 G counters, 4 GB): 16,400 transfers of two links each,
    /// one a frame.
    #[test]
    fn a_state_above_the_memory_bound_is_not_built() {
        let n = 16_400;
        let mut b = liquid_model::TrafficBuilder::new("wide".to_string());
        for i in 0..n {
            let (own, pair) = (format!("o{i}"), format!("s{}", i / 2));
            b.transfer(&format!("t{i}"), None, None, &[&own, &pair], "", &|_| {
                String::new()
            })
            .expect("a transfer");
        }
        let t = b.build("transfers").expect("builds");
        let start = Schedule::new((0..n).map(|i| vec![TransferId(i as u32)]).collect());
        assert!((n + t.num_links()) as u64 * n as u64 > MAX_COUNTERS);
        let began = std::time::Instant::now();
        let r = shorten(&t, &start, 2, 0, None, None);
        assert_eq!((r.schedule.len(), r.steps), (n, 0));
        assert!(began.elapsed().as_secs() < 5, "{:?}", began.elapsed());
    }

    #[test]
    fn shortens_dsatur_on_the_queen_graph_to_its_optimum() {
        // queen7_7 has chromatic number 7 = Λ; DSatur needs more.
        let t = liquid_model::examples::queens(7);
        let start = dsatur::colour(&t).to_schedule();
        assert!(start.len() > 7, "DSatur alone is not optimal here");
        let r = shorten(&t, &start, t.duration(), 1, None, None);
        assert_eq!(validate(&t, &r.schedule).expect("valid").length, 7);
        assert!(!r.stopped);
        // Seeded: the same seed gives the same schedule.
        assert_eq!(r, shorten(&t, &start, t.duration(), 1, None, None));
    }

    #[test]
    fn a_deadline_in_the_past_returns_the_start() {
        let t = liquid_model::examples::queens(6);
        let start = dsatur::colour(&t).to_schedule();
        let r = shorten(&t, &start, 1, 1, None, Some(Instant::now()));
        assert!(r.stopped);
        assert_eq!(r.schedule, start);
    }

    proptest! {
        #[test]
        fn never_longer_and_always_valid(t in arb_traffic(12, 6), seed in 0u64..4) {
            let start = dsatur::colour(&t).to_schedule();
            let r = shorten(&t, &start, t.duration(), seed, Some(500), None);
            let report = validate(&t, &r.schedule).expect("valid");
            prop_assert!(report.length <= start.len());
            prop_assert!(report.length >= t.duration());
        }
    }
}
