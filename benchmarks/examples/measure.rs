//! Prints search nodes, verdicts and times of the native engines on the models and on
//! seeded random traffics: `cargo run --release -p liquid-benchmarks --example measure`.
#![forbid(unsafe_code)]

use std::time::Instant;

use liquid_benchmarks::{models, random_traffic};
use liquid_model::{check_outcome, Limits, Outcome, StatValue, Traffic};

fn show(name: &str, t: &Traffic, engine: &str, o: Outcome, secs: f64) {
    check_outcome(t, &o).expect("engine answers pass the gate");
    let len = o.schedule.as_ref().map(|s| s.len());
    let nodes = o
        .stats
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
        o.verdict.as_str(),
        len.map_or("-".into(), |l| l.to_string()),
        o.lower_bound.value,
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
    for (name, t) in &cases {
        let s = Instant::now();
        let o = liquid_search::liquid::solve(t, &limits);
        show(name, t, "native", o, s.elapsed().as_secs_f64());
        let s = Instant::now();
        let o = liquid_search::exact::solve(t, &limits);
        show(name, t, "exact", o, s.elapsed().as_secs_f64());
        let s = Instant::now();
        let o = liquid_search::dsatur::solve(t);
        show(name, t, "dsatur", o, s.elapsed().as_secs_f64());
        let s = Instant::now();
        let o = liquid_search::baseline::random(t, 1);
        show(name, t, "random", o, s.elapsed().as_secs_f64());
        if let Ok(o) = liquid_search::baseline::round_robin(t) {
            show(name, t, "round-robin", o, s.elapsed().as_secs_f64());
        }
    }
}
