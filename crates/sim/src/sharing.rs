//! Max-min fair sharing kept up to date as flows start and end, re-solving only the flows
//! whose rates can change.
//!
//! [`crate::maxmin::MaxMin`] solves the sharing from scratch: progressive filling over
//! every flow. An event-driven simulation changes only a few flows at a time (one ends,
//! a few start), and with thousands of flows in the network a full re-solve at every
//! event costs O(events × Σ route lengths × log) (issue 43: 16,256 flows of an
//! all-to-allv on 128 hosts ran for minutes). [`Sharing`] keeps the last solution and
//! re-solves from the level where the new solution can first differ from it.
//!
//! # Why the flows below a level keep their rates
//! Progressive filling raises a *level* λ (the rate per unit of weight of every unfrozen
//! flow); a link *fills* at the level where its capacity is used up and freezes its
//! unfrozen flows there. A flow's level is the level at which it froze.
//!
//! - **A flow f ends.** Below λ = level(f), f is unfrozen, so every link on its route
//!   fills at λ or above. Without f those links have more room at every level, so they
//!   fill no earlier; every other link has the same flows and, by induction over the
//!   levels, the same frozen flows below λ. So every flow whose level is below λ keeps
//!   its level and its rate.
//! - **A flow g starts.** A link l filling at level t has all its flows at rates ≤ t
//!   per unit of weight, so t ≥ capacity(l) / W(l), W(l) being the sum of the weights of
//!   the flows on l. With g, no link of g's route fills below
//!   λ = min over l in g's route of capacity(l) / W(l) (W with g), and no link filled
//!   there before g came either (it has fewer flows), so again every flow below λ keeps
//!   its rate.
//!
//! So after a batch of starts and ends, [`Sharing::solve`] keeps the flows below the
//! smallest such λ (less a relative margin of [`MARGIN`], so that flows at λ up to
//! round-off are re-solved too) and runs progressive filling over the others only, on
//! the capacity the kept flows leave (each link's sum of the rates in use is kept up to
//! date as rates change, so the kept flows are not visited). The result is the max-min
//! solution of the whole flow set, as [`crate::maxmin::MaxMin`] computes it, up to
//! floating-point round-off (the sums are taken in another order); `tests/properties.rs`
//! checks it on random cases against a full re-solve. A solve costs O(active flows) for
//! finding the open ones, plus O(Σ their route lengths × log links).
//!
//! Progressive filling itself keeps the links in a heap by their share per unit of
//! weight. Freezing a flow at the current level never lowers another link's share
//! (the link loses the flow's weight and exactly the flow's rate, the level times its
//! weight), so a link's key is a lower bound of its share: the heap is updated lazily
//! (a popped link whose share has grown goes back with its share), not at every freeze.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Flows whose level is within this fraction below the level where the solution may
/// change are re-solved too (levels computed in different orders differ by round-off,
/// many orders of magnitude less than this).
pub const MARGIN: f64 = 1e-9;

// A share ordered totally (shares are not NaN).
use crate::Total as Share;

/// Not in the active set.
const INACTIVE: u32 = u32::MAX;

/// The max-min fair rates of a changing set of flows over fixed links (weighted max-min
/// when the flows have weights). Flows are numbered `0..flows` with their routes given
/// up front; [`Sharing::add`] and [`Sharing::remove`] start and end them, and
/// [`Sharing::solve`] brings the rates up to date. Allocation-free after warm-up.
#[derive(Debug, Clone)]
pub struct Sharing {
    capacity: Vec<f64>,
    /// Flow f's route is `routes[starts[f]..starts[f + 1]]` (link indices, none twice).
    routes: Vec<u32>,
    starts: Vec<usize>,
    /// Per route entry (a *hop*): its flow, and its place in its link's `link_hops`.
    hop_flow: Vec<u32>,
    hop_pos: Vec<u32>,
    /// Per link: the hops of the active flows crossing it.
    link_hops: Vec<Vec<u32>>,
    weight: Vec<f64>,
    /// Each flow's rate and level (rate / weight); meaningful while it is active.
    rate: Vec<f64>,
    level: Vec<f64>,
    /// Each flow's index in `active`, or [`INACTIVE`].
    pos: Vec<u32>,
    active: Vec<u32>,
    /// Flows added since the last solve.
    added: Vec<u32>,
    /// The least level at which the solution may change since the last solve.
    floor: f64,
    /// Per link: the sum of the weights of its active flows (for the bound of a start).
    link_weight: Vec<f64>,
    link_count: Vec<u32>,
    /// Per link: the sum of the rates of its active flows, kept up to date as rates
    /// change (so a solve need not visit the flows it keeps).
    used: Vec<f64>,
    // Scratch of one solve, per link: capacity not yet given, weight and number of the
    // flows not yet frozen.
    remaining: Vec<f64>,
    open_weight: Vec<f64>,
    open_count: Vec<u32>,
    touched: Vec<u32>,
    /// Per flow: not yet frozen in this solve.
    open: Vec<bool>,
    opened: Vec<u32>,
    heap: BinaryHeap<Reverse<(Share, u32)>>,
    changed: Vec<u32>,
    resolved: u64,
}

impl Sharing {
    /// Links of the given capacities (positive; infinite: no bound) and `starts.len() - 1`
    /// flows, flow f crossing `routes[starts[f]..starts[f + 1]]`, with positive finite
    /// weights (`None`: all 1). No flow is active yet.
    pub fn new(
        capacity: Vec<f64>,
        routes: Vec<u32>,
        starts: Vec<usize>,
        weights: Option<Vec<f64>>,
    ) -> Self {
        let flows = starts.len().saturating_sub(1);
        let links = capacity.len();
        let mut hop_flow = vec![0; routes.len()];
        for f in 0..flows {
            hop_flow[starts[f]..starts[f + 1]].fill(f as u32);
        }
        Sharing {
            capacity,
            hop_pos: vec![0; routes.len()],
            routes,
            starts,
            hop_flow,
            link_hops: vec![Vec::new(); links],
            weight: weights.unwrap_or_else(|| vec![1.0; flows]),
            rate: vec![0.0; flows],
            level: vec![0.0; flows],
            pos: vec![INACTIVE; flows],
            active: Vec::new(),
            added: Vec::new(),
            floor: f64::INFINITY,
            link_weight: vec![0.0; links],
            link_count: vec![0; links],
            used: vec![0.0; links],
            remaining: vec![0.0; links],
            open_weight: vec![0.0; links],
            open_count: vec![0; links],
            touched: Vec::new(),
            open: vec![false; flows],
            opened: Vec::new(),
            heap: BinaryHeap::new(),
            changed: Vec::new(),
            resolved: 0,
        }
    }

    fn route(&self, f: usize) -> &[u32] {
        &self.routes[self.starts[f]..self.starts[f + 1]]
    }

    /// Flow f's rate, as of the last [`Sharing::solve`] (infinite for an empty route).
    pub fn rate(&self, f: usize) -> f64 {
        self.rate[f]
    }

    /// The active flows, in no particular order.
    pub fn active(&self) -> &[u32] {
        &self.active
    }

    /// How many flow rates the solves have computed in all (kept flows not counted).
    pub fn resolved(&self) -> u64 {
        self.resolved
    }

    /// Starts flow f (not active); its rate is known after the next [`Sharing::solve`].
    pub fn add(&mut self, f: usize) {
        debug_assert_eq!(self.pos[f], INACTIVE, "flow {f} added twice");
        self.pos[f] = self.active.len() as u32;
        self.active.push(f as u32);
        self.added.push(f as u32);
        self.rate[f] = f64::NAN;
        for i in self.starts[f]..self.starts[f + 1] {
            let l = self.routes[i] as usize;
            self.link_weight[l] += self.weight[f];
            self.link_count[l] += 1;
            self.hop_pos[i] = self.link_hops[l].len() as u32;
            self.link_hops[l].push(i as u32);
        }
    }

    /// Ends flow f (active).
    pub fn remove(&mut self, f: usize) {
        let p = self.pos[f];
        debug_assert_ne!(p, INACTIVE, "flow {f} removed but not active");
        self.active.swap_remove(p as usize);
        if let Some(&moved) = self.active.get(p as usize) {
            self.pos[moved as usize] = p;
        }
        self.pos[f] = INACTIVE;
        let rate = if self.rate[f].is_nan() {
            // Added and removed before a solve: it changed nothing.
            self.added.retain(|&g| g as usize != f);
            0.0
        } else {
            self.floor = self.floor.min(self.level[f]);
            self.rate[f]
        };
        for i in self.starts[f]..self.starts[f + 1] {
            let l = self.routes[i] as usize;
            let p = self.hop_pos[i] as usize;
            self.link_hops[l].swap_remove(p);
            if let Some(&moved) = self.link_hops[l].get(p) {
                self.hop_pos[moved as usize] = p as u32;
            }
            self.link_count[l] -= 1;
            if self.link_count[l] == 0 {
                // No round-off left behind.
                self.link_weight[l] = 0.0;
                self.used[l] = 0.0;
            } else {
                self.link_weight[l] -= self.weight[f];
                self.used[l] -= rate;
            }
        }
    }

    /// Brings every active flow's rate up to date; returns the flows whose rate changed
    /// (the added ones among them), in no particular order.
    pub fn solve(&mut self) -> &[u32] {
        self.changed.clear();
        for k in 0..self.added.len() {
            let f = self.added[k] as usize;
            let bound = self
                .route(f)
                .iter()
                .map(|&l| self.capacity[l as usize] / self.link_weight[l as usize])
                .fold(f64::INFINITY, f64::min);
            self.floor = self.floor.min(bound);
        }
        if self.floor == f64::INFINITY && self.added.is_empty() {
            return &self.changed;
        }
        // An infinite floor (only flows on no bounded link changed) reopens no kept flow.
        let floor = if self.floor.is_finite() {
            self.floor - self.floor.abs() * MARGIN
        } else {
            f64::INFINITY
        };
        self.floor = f64::INFINITY;
        for &f in &self.added {
            self.open[f as usize] = true;
        }
        self.added.clear();
        // Open the flows at or above the floor, and count them on their links, each
        // link's capacity less what its kept flows use (its rates in use less the open
        // flows' former rates).
        for k in 0..self.active.len() {
            let f = self.active[k] as usize;
            if !(self.open[f] || self.level[f] >= floor) {
                continue;
            }
            self.open[f] = true;
            self.opened.push(f as u32);
            let former = if self.rate[f].is_nan() {
                0.0
            } else {
                self.rate[f]
            };
            for i in self.starts[f]..self.starts[f + 1] {
                let l = self.routes[i] as usize;
                if self.open_count[l] == 0 {
                    self.touched.push(l as u32);
                    self.remaining[l] = self.capacity[l] - self.used[l];
                    self.open_weight[l] = 0.0;
                }
                self.remaining[l] += former;
                self.open_count[l] += 1;
                self.open_weight[l] += self.weight[f];
            }
        }
        self.resolved += self.opened.len() as u64;
        // Progressive filling over the open flows.
        self.heap.clear();
        for &l in &self.touched {
            let share = self.share(l as usize);
            self.heap.push(Reverse((Share(share), l)));
        }
        while let Some(Reverse((Share(key), l))) = self.heap.pop() {
            let li = l as usize;
            if self.open_count[li] == 0 {
                continue; // every flow on it froze elsewhere
            }
            let share = self.share(li);
            if share > key {
                self.heap.push(Reverse((Share(share), l))); // stale key: it grew
                continue;
            }
            let hops = std::mem::take(&mut self.link_hops[li]);
            for &i in &hops {
                let f = self.hop_flow[i as usize] as usize;
                if self.open[f] {
                    self.freeze(f, share);
                }
            }
            self.link_hops[li] = hops;
        }
        // Flows on no link (empty routes) are never frozen: unbounded.
        for k in 0..self.opened.len() {
            let f = self.opened[k] as usize;
            if self.open[f] {
                self.open[f] = false;
                self.set_rate(f, f64::INFINITY, f64::INFINITY);
            }
        }
        self.opened.clear();
        for &l in &self.touched {
            self.open_count[l as usize] = 0;
        }
        self.touched.clear();
        &self.changed
    }

    /// What one unit of weight gets on link l if it filled now.
    fn share(&self, l: usize) -> f64 {
        self.remaining[l].max(0.0) / self.open_weight[l]
    }

    fn freeze(&mut self, f: usize, level: f64) {
        self.open[f] = false;
        let rate = level * self.weight[f];
        let former = if self.rate[f].is_nan() {
            0.0
        } else {
            self.rate[f]
        };
        self.set_rate(f, rate, level);
        for i in self.starts[f]..self.starts[f + 1] {
            let k = self.routes[i] as usize;
            self.remaining[k] -= rate;
            self.used[k] += rate - former;
            self.open_weight[k] -= self.weight[f];
            self.open_count[k] -= 1;
        }
    }

    fn set_rate(&mut self, f: usize, rate: f64, level: f64) {
        if rate.to_bits() != self.rate[f].to_bits() {
            self.changed.push(f as u32);
        }
        self.rate[f] = rate;
        self.level[f] = level;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sharing(capacity: &[f64], routes: &[&[u32]]) -> Sharing {
        let mut starts = vec![0];
        let mut all = Vec::new();
        for r in routes {
            all.extend_from_slice(r);
            starts.push(all.len());
        }
        Sharing::new(capacity.to_vec(), all, starts, None)
    }

    #[test]
    fn an_ending_flow_gives_its_share_to_the_others() {
        // Flows 0 and 1 share link 0 (cap 10); flow 2 shares link 1 (cap 2) with flow 0.
        let mut s = sharing(&[10.0, 2.0], &[&[0, 1], &[0], &[1]]);
        for f in 0..3 {
            s.add(f);
        }
        s.solve();
        assert_eq!([s.rate(0), s.rate(1), s.rate(2)], [1.0, 9.0, 1.0]);
        s.remove(2);
        let mut changed = s.solve().to_vec();
        changed.sort_unstable();
        assert_eq!(changed, vec![0, 1]);
        assert_eq!([s.rate(0), s.rate(1)], [2.0, 8.0]);
        s.remove(0);
        s.solve();
        assert_eq!(s.rate(1), 10.0);
    }

    #[test]
    fn a_flow_below_the_ending_one_keeps_its_rate() {
        // Link 0 (cap 1) holds flows 0 and 1 at 0.5; link 1 (cap 10) holds 1, 2 and 3:
        // 2 and 3 get 4.75. When 3 ends, 2 gets 9.5 and flow 0 and 1 are not re-solved.
        let mut s = sharing(&[1.0, 10.0], &[&[0], &[0, 1], &[1], &[1]]);
        for f in 0..4 {
            s.add(f);
        }
        s.solve();
        assert_eq!(s.rate(2), 4.75);
        let before = s.resolved();
        s.remove(3);
        assert_eq!(s.solve(), &[2]);
        assert_eq!(s.rate(2), 9.5);
        assert_eq!(s.resolved() - before, 1);
    }

    #[test]
    fn an_empty_route_is_unbounded() {
        let mut s = sharing(&[1.0], &[&[], &[0]]);
        s.add(0);
        s.add(1);
        s.solve();
        assert_eq!([s.rate(0), s.rate(1)], [f64::INFINITY, 1.0]);
    }
}
