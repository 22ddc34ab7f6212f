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
/// distinct links (a small xorshift generator, so the instance is the same everywhere).
pub fn random_traffic(seed: u64, n: usize, links: usize, max_path: usize) -> Traffic {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |m: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % m as u64) as usize
    };
    let transfers: Vec<(String, Vec<String>)> = (0..n)
        .map(|i| {
            let len = 1 + next(max_path.min(links));
            let mut path: Vec<usize> = Vec::with_capacity(len);
            while path.len() < len {
                let l = next(links);
                if !path.contains(&l) {
                    path.push(l);
                }
            }
            (
                format!("t{i}"),
                path.into_iter().map(|l| format!("l{l}")).collect(),
            )
        })
        .collect();
    Traffic::from_paths(&format!("random-{seed}-{n}"), &transfers)
        .expect("generated traffic is valid")
}
