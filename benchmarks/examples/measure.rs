//! Prints search nodes, verdicts and times of the native engines on the models and on
//! seeded random traffics: `cargo run --release -p liquid-benchmarks --example measure`.
#![forbid(unsafe_code)]

use liquid_benchmarks::{models, random_traffic};
use std::sync::atomic::AtomicU64;

use liquid_engine::Request;
use liquid_model::{Limits, StatValue, Traffic};

/// Runs an engine of the registry through the gate and prints one line (engines that
/// refuse the input, round-robin on a non-all-to-all, are skipped).
fn show(name: &str, t: &Traffic, engine: &str, limits: &Limits) {
    let e = liquid_engine::find(engine).expect("registered");
    let request = Request {
        limits: *limits,
        seed: 1,
        ..Default::default()
    };
    let o = match liquid_engine::solve(t, e, &request, None, &AtomicU64::new(0)) {
        Ok(o) => o,
        Err(liquid_engine::SolveError::Input(_)) => return,
        Err(e) => panic!("{name}: {e}"),
    };
    let secs = o.seconds();
    let len = o.length();
    let nodes = o
        .stats()
        .iter()
        .find(|(k, _)| k == "nodes")
        .map(|(_, v)| match v {
            StatValue::Count(n) => n.to_string(),
            _ => "-".into(),
        })
        .unwrap_or_else(|| "-".into());
    println!(
        "{name:28} n={:4} Λ={:3} {engine:12} {:11} len={:>4} lb={:3} nodes={nodes:>9} {:.6}s",
        t.len(),
        t.duration(),
        o.verdict().as_str(),
        len.map_or("-".into(), |l| l.to_string()),
        o.outcome().lower_bound(t).value,
        secs
    );
}

fn main() {
    let limits = Limits {
        time: Some(std::time::Duration::from_secs(10)),
        nodes: None,
    };
    let mut cases: Vec<(String, Traffic)> = models();
    for (seed, n, links, path) in [
        (1, 20, 10, 3),
        (2, 30, 12, 3),
        (3, 40, 16, 3),
        (4, 60, 20, 3),
        (5, 100, 30, 4),
        (6, 200, 50, 4),
        (7, 16, 6, 3),
        (8, 24, 8, 3),
        (9, 30, 10, 4),
        (10, 40, 12, 4),
        (11, 50, 14, 4),
        (12, 60, 16, 5),
    ] {
        cases.push((
            format!("random-{seed}-{n}-{links}-{path}"),
            random_traffic(seed, n, links, path),
        ));
    }
    // Dense random traffics, to show exhaustion (non-liquid) figures.
    let mut dense = 0;
    for seed in 100..400 {
        let t = random_traffic(seed, 24, 8, 4);
        let (r, _) =
            liquid_search::liquid::search(&t, &liquid_search::teams::all_transfers(&t), &limits);
        if r == liquid_search::liquid::SearchResult::NonLiquid && dense < 3 {
            dense += 1;
            cases.push((format!("dense-{seed}-24-8-4"), t));
        }
    }
    for (name, t) in &cases {
        for engine in [
            "native",
            "exact",
            "dsatur",
            "random",
            "round-robin",
            "portfolio",
        ] {
            show(name, t, engine, &limits);
        }
    }
}
