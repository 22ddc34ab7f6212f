//! The closed-form pieces of 002's model that do not depend on the load: tree sizes
//! (eqs. 1-2), path-length probabilities (eq. 4), mean distances (eqs. 8-9), the
//! probability of an outgoing message (eq. 13), and the backward recursion of the
//! service times along a journey's stages (eqs. 16-18 and 28).
//!
//! Trees are m-port n-trees; `k = m/2` throughout.

/// Number of nodes of an m-port n-tree, `N = 2·(m/2)^n` (eq. 1).
pub fn tree_nodes(m: usize, n: usize) -> f64 {
    2.0 * half(m).powi(n as i32)
}

/// Number of switches of an m-port n-tree, `N_sw = (2n-1)·(m/2)^(n-1)` (eq. 2).
pub fn tree_switches(m: usize, n: usize) -> f64 {
    (2.0 * n as f64 - 1.0) * half(m).powi(n as i32 - 1)
}

/// `P_{j,n}` for `j = 1..=n` (index `j-1`): the probability that a message to a
/// uniformly chosen other node of an m-port n-tree climbs `j` levels, i.e. crosses `2j`
/// links (eq. 4). The `(m/2-1)·(m/2)^(j-1)` nodes whose nearest common ancestor is at
/// level `j < n`, and the `(m-1)·(m/2)^(n-1)` nodes reached through the roots, over the
/// `N-1` other nodes.
pub fn path_probabilities(m: usize, n: usize) -> Vec<f64> {
    let k = half(m);
    let others = tree_nodes(m, n) - 1.0;
    (1..=n)
        .map(|j| {
            let factor = if j < n { k - 1.0 } else { m as f64 - 1.0 };
            factor * k.powi(j as i32 - 1) / others
        })
        .collect()
}

/// Mean number of links of a journey, `d_avg = Σ_j 2j·P_{j,n}` (eq. 8), summed.
pub fn mean_distance_sum(m: usize, n: usize) -> f64 {
    path_probabilities(m, n)
        .iter()
        .enumerate()
        .map(|(j, p)| 2.0 * (j + 1) as f64 * p)
        .sum()
}

/// Mean number of links of a journey in closed form (eq. 9):
/// `d_avg = ((m·n - 2n - 1)·(m/2)^n + 1) / (((m/2)^n - 1/2)·(m/2 - 1))`.
pub fn mean_distance(m: usize, n: usize) -> f64 {
    let k = half(m);
    let kn = k.powi(n as i32);
    let (m, n) = (m as f64, n as f64);
    ((m * n - 2.0 * n - 1.0) * kn + 1.0) / ((kn - 0.5) * (k - 1.0))
}

/// `P_o^(i)`: the probability that a message of cluster `i` leaves it,
/// `Σ_{j≠i} N_j / (N-1)` (eq. 13), for cluster sizes `nodes`.
pub fn outgoing_probability(nodes: &[f64], i: usize) -> f64 {
    let total: f64 = nodes.iter().sum();
    (total - nodes[i]) / (total - 1.0)
}

/// Service time of the first stage, `S_0`, of a journey of `stages` stages: the
/// journey's network latency. Backwards from the last stage (eq. 18):
/// `S_{K-1} = M·t_cn`; `S_k = Σ_{s=k+1}^{K-1} W_s + M·t_cs`, with
/// `W_s = S_s·P_B/2 = η_s·S_s²/2` (eqs. 16-17, 28). `rate(k)` is the channel rate `η_k`
/// at stage `k`; `blocking(k, P_B)` is told the blocking probability `P_B = η_k·S_k`
/// (eq. 17) of every stage `k ≥ 1`, the stages whose waiting time enters the latency.
pub fn stage_service_times(
    stages: usize,
    flits: f64,
    t_cn: f64,
    t_cs: f64,
    rate: impl Fn(usize) -> f64,
    mut blocking: impl FnMut(usize, f64),
) -> f64 {
    debug_assert!(stages >= 1);
    let last = stages - 1;
    let mut s = flits * t_cn;
    let mut waits = 0.0;
    for k in (0..=last).rev() {
        if k < last {
            s = waits + flits * t_cs;
        }
        if k >= 1 {
            let eta = rate(k);
            blocking(k, eta * s);
            waits += 0.5 * eta * s * s;
        }
    }
    s
}

/// The time for the tail flit to follow the header over a journey of `stages` stages:
/// `Σ_{k=1}^{K-1} t_cs + t_cn` (the bracket of eqs. 24 and 32).
pub fn tail_time(stages: usize, t_cn: f64, t_cs: f64) -> f64 {
    (stages as f64 - 1.0) * t_cs + t_cn
}

fn half(m: usize) -> f64 {
    (m / 2) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn sizes_of_table_1_trees() {
        // m = 8: n = 1, 2, 3 give 8, 32, 128 nodes and 1, 12, 80 switches.
        assert_eq!(
            [1, 2, 3].map(|n| (tree_nodes(8, n), tree_switches(8, n))),
            [(8.0, 1.0), (32.0, 12.0), (128.0, 80.0)]
        );
        // m = 4: n = 3, 4, 5 give 16, 32, 64 nodes and 20, 56, 144 switches.
        assert_eq!(
            [3, 4, 5].map(|n| (tree_nodes(4, n), tree_switches(4, n))),
            [(16.0, 20.0), (32.0, 56.0), (64.0, 144.0)]
        );
        // The ICN2s: 8-port 2-tree for 32 clusters, 4-port 3-tree for 16.
        assert_eq!(tree_nodes(8, 2), 32.0);
        assert_eq!(tree_nodes(4, 3), 16.0);
        // Table 1's totals.
        let a = 12.0 * tree_nodes(8, 1) + 16.0 * tree_nodes(8, 2) + 4.0 * tree_nodes(8, 3);
        let b = 8.0 * tree_nodes(4, 3) + 3.0 * tree_nodes(4, 4) + 5.0 * tree_nodes(4, 5);
        assert_eq!((a, b), (1120.0, 544.0));
    }

    #[test]
    fn path_probabilities_by_hand() {
        // 8-port 2-tree: 3 of the 31 other nodes share the leaf switch, 28 do not.
        let p = path_probabilities(8, 2);
        assert!(close(p[0], 3.0 / 31.0) && close(p[1], 28.0 / 31.0));
        // 4-port 3-tree: 1, 2 and 12 of the 15 others.
        let p = path_probabilities(4, 3);
        assert!(close(p[0], 1.0 / 15.0) && close(p[1], 2.0 / 15.0) && close(p[2], 12.0 / 15.0));
        // A 1-tree is a single switch: every journey has 2 links.
        assert_eq!(path_probabilities(8, 1), vec![1.0]);
    }

    #[test]
    fn path_probabilities_sum_to_one() {
        for m in [4, 6, 8, 16, 32] {
            for n in 1..=8 {
                let s: f64 = path_probabilities(m, n).iter().sum();
                assert!(close(s, 1.0), "m = {m}, n = {n}: {s}");
            }
        }
    }

    #[test]
    fn closed_form_distance_is_the_sum() {
        for m in [4, 6, 8, 12, 16, 24] {
            for n in 1..=7 {
                let (sum, closed) = (mean_distance_sum(m, n), mean_distance(m, n));
                assert!(close(sum, closed), "m = {m}, n = {n}: {sum} vs {closed}");
            }
        }
        assert!(close(mean_distance(8, 1), 2.0));
        assert!(close(mean_distance(8, 2), 118.0 / 31.0));
        assert!(close(mean_distance(4, 3), (2.0 + 8.0 + 72.0) / 15.0));
    }

    #[test]
    fn outgoing_probability_by_hand() {
        // Clusters of 4, 8 and 16 nodes: N = 28.
        let nodes = [4.0, 8.0, 16.0];
        assert!(close(outgoing_probability(&nodes, 0), 24.0 / 27.0));
        assert!(close(outgoing_probability(&nodes, 1), 20.0 / 27.0));
        assert!(close(outgoing_probability(&nodes, 2), 12.0 / 27.0));
        // One cluster: nothing leaves.
        assert_eq!(outgoing_probability(&[16.0], 0), 0.0);
    }

    #[test]
    fn service_times_without_load_are_the_transfer_times() {
        let mut seen = Vec::new();
        let s = stage_service_times(1, 32.0, 0.5, 0.25, |_| 1.0, |k, b| seen.push((k, b)));
        assert_eq!((s, seen), (16.0, vec![]));
        let s = stage_service_times(5, 32.0, 0.5, 0.25, |_| 0.0, |_, b| assert_eq!(b, 0.0));
        assert_eq!(s, 8.0);
        assert_eq!(tail_time(5, 0.5, 0.25), 1.5);
    }

    #[test]
    fn service_times_by_hand() {
        // Three stages, M = 2, t_cn = 1, t_cs = 0.5, η = 0.1 everywhere:
        // S_2 = 2, W_2 = 0.1·4/2 = 0.2; S_1 = 0.2 + 1 = 1.2, W_1 = 0.1·1.44/2 = 0.072;
        // S_0 = 0.272 + 1 = 1.272. Blocking: stage 2 has 0.2, stage 1 0.12.
        let mut seen = Vec::new();
        let s = stage_service_times(3, 2.0, 1.0, 0.5, |_| 0.1, |k, b| seen.push((k, b)));
        assert!(close(s, 1.272));
        assert_eq!(seen.len(), 2);
        assert_eq!((seen[0].0, seen[1].0), (2, 1));
        assert!(close(seen[0].1, 0.2) && close(seen[1].1, 0.12));
        // Rates per stage are honoured: only stage 1 loaded, S_1 = 1, W_1 = 0.05.
        let s = stage_service_times(
            3,
            2.0,
            1.0,
            0.5,
            |k| if k == 1 { 0.1 } else { 0.0 },
            |_, _| {},
        );
        assert!(close(s, 1.05));
    }
}
