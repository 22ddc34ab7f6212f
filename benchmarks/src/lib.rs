//! Shared inputs for the benchmarks: the bundled models and seeded generated traffics.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use liquid_model::Traffic;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every model in `models/` (schedule files excluded), loaded, with its file stem.
pub fn models() -> Vec<(String, Traffic)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("models"))
        .expect("models/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".yaml") && !name.ends_with("-schedule.yaml")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            let t = liquid_model::yaml::load_model(&p).expect("bundled models load");
            (stem, t)
        })
        .collect()
}

/// A seeded random traffic: `n` transfers over `links` links, each path of 1..=`max_path`
/// distinct links ([`liquid_model::examples::random_paths`], so the instance is the same
/// everywhere).
pub fn random_traffic(seed: u64, n: usize, links: usize, max_path: usize) -> Traffic {
    use liquid_model::examples::{random_paths, Draws, RandomShape};
    let shape = RandomShape {
        transfers: n,
        links,
        path: (1, max_path.min(links)),
        distinct: false,
    };
    let transfers = random_paths(&mut Draws::new(seed), &shape);
    Traffic::from_paths(&format!("random-{seed}-{n}"), &transfers)
        .expect("generated traffic is valid")
}
