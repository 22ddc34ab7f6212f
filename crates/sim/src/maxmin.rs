//! Max-min fair bandwidth sharing by progressive filling.
//!
//! Every flow crosses a set of links; a link's capacity is shared among the flows that
//! cross it. Progressive filling raises every unfrozen flow's rate together; the first
//! link to fill (the one with the smallest remaining capacity per unfrozen flow) freezes
//! its flows at that share; repeat until every flow is frozen. The result is the unique
//! max-min fair allocation: no flow can get more without taking from a flow that has less.
//!
//! The links are kept in a heap by their current share (stale entries are skipped), so a
//! solution costs O((Σ route lengths + links) log links), not links².

use std::cmp::Reverse;
use std::collections::BinaryHeap;

// A share ordered totally (shares are finite and not negative).
use crate::Total as Share;

/// Reusable buffers for [`MaxMin::solve`] (allocation-free after warm-up).
#[derive(Debug, Clone, Default)]
pub struct MaxMin {
    remaining: Vec<f64>,
    count: Vec<u32>,
    /// Sum of the weights of the unfrozen flows on each link.
    weight: Vec<f64>,
    users: Vec<Vec<u32>>,
    version: Vec<u32>,
    touched: Vec<u32>,
    changed: Vec<u32>,
    frozen: Vec<bool>,
    heap: BinaryHeap<Reverse<(Share, u32, u32)>>,
}

impl MaxMin {
    /// Buffers for a platform of `links` links.
    pub fn new(links: usize) -> Self {
        MaxMin {
            remaining: vec![0.0; links],
            count: vec![0; links],
            weight: vec![0.0; links],
            users: vec![Vec::new(); links],
            version: vec![0; links],
            ..Default::default()
        }
    }

    /// What one unit of weight gets on link l if it filled now.
    fn share(&self, l: usize) -> f64 {
        self.remaining[l].max(0.0) / self.weight[l]
    }

    /// The max-min fair rates of `routes` (each a list of link indices, no link twice)
    /// over links of the given `capacity`, written into `rates` (one per route). A flow
    /// with an empty route gets an infinite rate. Deterministic: ties between links go to
    /// the link with the smallest index.
    pub fn solve<'a, R>(&mut self, capacity: &[f64], routes: R, rates: &mut Vec<f64>)
    where
        R: IntoIterator<Item = &'a [u32]>,
    {
        self.solve_weighted(capacity, routes, None, rates);
    }

    /// [`MaxMin::solve`] with a weight per flow (positive, finite): weighted max-min
    /// fairness, where the flows frozen by a link get rates in proportion to their weights
    /// (SimGrid's sharing with a penalty = 1 / weight per variable). `None`: all weigh 1.
    pub fn solve_weighted<'a, R>(
        &mut self,
        capacity: &[f64],
        routes: R,
        weights: Option<&[f64]>,
        rates: &mut Vec<f64>,
    ) where
        R: IntoIterator<Item = &'a [u32]>,
    {
        if self.count.len() < capacity.len() {
            *self = MaxMin::new(capacity.len());
        }
        let flows: Vec<&[u32]> = routes.into_iter().collect();
        rates.clear();
        rates.resize(flows.len(), f64::INFINITY);
        self.frozen.clear();
        self.frozen.resize(flows.len(), false);
        let w = |f: usize| weights.map_or(1.0, |w| w[f]);
        for (f, route) in flows.iter().enumerate() {
            for &l in route.iter() {
                let li = l as usize;
                if self.count[li] == 0 {
                    self.touched.push(l);
                    self.remaining[li] = capacity[li];
                    self.weight[li] = 0.0;
                }
                self.count[li] += 1;
                self.weight[li] += w(f);
                self.users[li].push(f as u32);
            }
        }
        self.heap.clear();
        for &l in &self.touched {
            let li = l as usize;
            self.heap
                .push(Reverse((Share(self.share(li)), l, self.version[li])));
        }
        while let Some(Reverse((Share(share), l, version))) = self.heap.pop() {
            let li = l as usize;
            if version != self.version[li] || self.count[li] == 0 {
                continue; // stale, or every flow on it is frozen already
            }
            let users = std::mem::take(&mut self.users[li]);
            for &f in &users {
                let fi = f as usize;
                if self.frozen[fi] {
                    continue;
                }
                self.frozen[fi] = true;
                let rate = share * w(fi);
                rates[fi] = rate;
                for &k in flows[fi] {
                    let ki = k as usize;
                    self.remaining[ki] -= rate;
                    self.count[ki] -= 1;
                    self.weight[ki] -= w(fi);
                    self.changed.push(k);
                }
            }
            self.users[li] = users;
            self.changed.sort_unstable();
            self.changed.dedup();
            for i in 0..self.changed.len() {
                let k = self.changed[i] as usize;
                self.version[k] = self.version[k].wrapping_add(1);
                if self.count[k] > 0 {
                    self.heap
                        .push(Reverse((Share(self.share(k)), k as u32, self.version[k])));
                }
            }
            self.changed.clear();
        }
        for &l in &self.touched {
            let li = l as usize;
            self.users[li].clear();
            self.count[li] = 0;
        }
        self.touched.clear();
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn rates(capacity: &[f64], routes: &[Vec<u32>]) -> Vec<f64> {
        let mut m = MaxMin::new(capacity.len());
        let mut r = Vec::new();
        m.solve(capacity, routes.iter().map(Vec::as_slice), &mut r);
        r
    }

    #[test]
    fn two_flows_on_one_link_get_half_each() {
        assert_eq!(rates(&[10.0], &[vec![0], vec![0]]), vec![5.0, 5.0]);
    }

    #[test]
    fn a_flow_limited_elsewhere_leaves_the_rest_to_the_others() {
        // Flow 0 crosses links 0 (cap 10) and 1 (cap 2, shared with flow 2); flow 1 uses
        // link 0 only. Link 1 freezes flows 0 and 2 at 1; flow 1 gets the 9 left on link 0.
        let r = rates(&[10.0, 2.0], &[vec![0, 1], vec![0], vec![1]]);
        assert_eq!(r, vec![1.0, 9.0, 1.0]);
    }

    #[test]
    fn weights_share_a_link_in_proportion() {
        let mut m = MaxMin::new(2);
        let mut r = Vec::new();
        let routes = [vec![0u32], vec![0], vec![0, 1]];
        // Link 0 (cap 12) shared 1 : 2 : 3 → 2, 4, 6; link 1 (cap 3) bounds flow 2 at 3,
        // so the 9 left go 1 : 2 → 3, 6.
        m.solve_weighted(
            &[12.0, 3.0],
            routes.iter().map(Vec::as_slice),
            Some(&[1.0, 2.0, 3.0]),
            &mut r,
        );
        assert_eq!(r, vec![3.0, 6.0, 3.0]);
    }

    #[test]
    fn buffers_are_reset_between_calls() {
        let mut m = MaxMin::new(2);
        let mut r = Vec::new();
        let routes = [vec![0u32, 1], vec![1]];
        m.solve(&[4.0, 4.0], routes.iter().map(Vec::as_slice), &mut r);
        assert_eq!(r, vec![2.0, 2.0]);
        m.solve(&[4.0, 4.0], routes[..1].iter().map(Vec::as_slice), &mut r);
        assert_eq!(r, vec![4.0]);
    }
}
