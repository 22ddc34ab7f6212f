//! Times DSatur (and, with `exact`, the exact engine) on a generated model, in release
//! mode without building the CLI (and so without HiGHS):
//!
//! `cargo run --release -p liquid-search --example dsatur_scale -- fat-tree:8,3 [SECONDS] [exact]`
//!
//! SECONDS is the time limit (none by default).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use liquid_model::Limits;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = args.get(1).map_or("fat-tree:8,3", String::as_str);
    let limits = Limits {
        time: args
            .get(2)
            .map(|s| Duration::from_secs_f64(s.parse().expect("SECONDS is a number"))),
        nodes: None,
    };
    let exact = args.get(3).is_some_and(|s| s == "exact");
    let start = Instant::now();
    let traffic = liquid_topology::spec::parse(spec)
        .expect("a valid spec")
        .expect("a generated-model spec")
        .expand()
        .expect("the model expands");
    eprintln!(
        "{spec}: {} transfers, Λ = {}, generated in {:.2} s",
        traffic.len(),
        traffic.duration(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let progress = AtomicU64::new(0);
    let o = if exact {
        liquid_search::exact::solve(&traffic, &limits)
    } else {
        liquid_search::dsatur::solve_with_progress(&traffic, &limits, &progress)
    };
    println!(
        "{}: {} {:?} in {:.3} s, {} transfers coloured, stats {:?}",
        spec,
        o.engine,
        o.verdict(),
        start.elapsed().as_secs_f64(),
        progress.load(Ordering::Relaxed),
        o.stats
    );
}
