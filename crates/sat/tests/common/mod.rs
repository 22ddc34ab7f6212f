//! Brute force shared by the property tests: sharing no code with any engine.

use liquid_model::Traffic;

/// Whether the transfers can be scheduled in `k` timeframes (plain backtracking over
/// transfers in id order, conflicts from shared links).
pub fn colourable(paths: &[Vec<usize>], k: usize) -> bool {
    fn go(paths: &[Vec<usize>], k: usize, colour: &mut Vec<usize>) -> bool {
        let t = colour.len();
        if t == paths.len() {
            return true;
        }
        // Symmetry: a transfer never opens a timeframe beyond the first unused one.
        let used = colour.iter().copied().max().map_or(0, |m| m + 1);
        for c in 0..k.min(used + 1) {
            let clash = colour
                .iter()
                .enumerate()
                .any(|(u, &cu)| cu == c && paths[u].iter().any(|l| paths[t].contains(l)));
            if !clash {
                colour.push(c);
                if go(paths, k, colour) {
                    return true;
                }
                colour.pop();
            }
        }
        false
    }
    go(paths, k, &mut Vec::new())
}

/// A traffic of the given paths (links `l0`, `l1`, …; transfers `t0`, `t1`, …).
pub fn build(paths: &[Vec<usize>]) -> Traffic {
    let named: Vec<(String, Vec<String>)> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("t{i}"), p.iter().map(|l| format!("l{l}")).collect()))
        .collect();
    Traffic::from_paths("random", &named).expect("valid traffic")
}
