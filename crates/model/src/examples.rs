//! Small named traffics from the papers, for examples, tests and benchmarks.

use crate::traffic::Traffic;

/// Three transfers pairwise sharing three different links (004 makes the same point with
/// its Fig. 8): Λ = 2, every link a bottleneck, no team, optimum 3. The same traffic as
/// `models/no-team.yaml`.
pub fn no_team() -> Traffic {
    Traffic::from_paths(
        "no-team",
        &[
            ("x", vec!["a", "b"]),
            ("y", vec!["b", "c"]),
            ("z", vec!["a", "c"]),
        ],
    )
    .expect("the no-team traffic is valid")
}
