//! The independent components of a traffic: shared by the native search (one search per
//! component) and the ports stage (its parts).

use std::time::Instant;

use liquid_model::{Traffic, TransferId};

/// The independent components of a traffic (transfers linked by shared links), each as
/// increasing transfer ids, ordered by their lowest id. Union-find over links: time and
/// memory linear in the total path length.
pub fn components(traffic: &Traffic) -> Vec<Vec<TransferId>> {
    components_until(traffic, None).expect("no deadline")
}

/// [`components`], or `None` once `deadline` has passed (checked every 65,536 transfers).
pub fn components_until(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Option<Vec<Vec<TransferId>>> {
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let late = |i: usize| i % 65_536 == 65_535 && deadline.is_some_and(|d| Instant::now() >= d);
    let m = traffic.num_links();
    let mut parent: Vec<usize> = (0..m).collect();
    for (i, t) in traffic.transfers().iter().enumerate() {
        if late(i) {
            return None;
        }
        let a = find(&mut parent, t.path[0].index());
        for l in &t.path[1..] {
            let b = find(&mut parent, l.index());
            if a != b {
                parent[b] = a;
            }
        }
    }
    let mut index = vec![usize::MAX; m];
    let mut out: Vec<Vec<TransferId>> = Vec::new();
    for t in traffic.transfer_ids() {
        if late(t.index()) {
            return None;
        }
        let root = find(&mut parent, traffic.transfer(t).path[0].index());
        if index[root] == usize::MAX {
            index[root] = out.len();
            out.push(Vec::new());
        }
        out[index[root]].push(t);
    }
    Some(out)
}
