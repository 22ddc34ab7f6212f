//! Times every engine of the registry (the portfolio included), through the gate that
//! checks every answer, on the bundled models and on seeded random traffics.
//!
//! The searching engines run under a node limit so that a hard instance bounds the
//! bench's time instead of hanging it; the limit is part of the measured work, so figures
//! stay comparable between versions. An engine that refuses an input (round-robin on a
//! traffic that is not an all-to-all) is skipped on it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use liquid_benchmarks::{models, random_traffic};
use std::sync::atomic::AtomicU64;

use liquid_engine::Request;
use liquid_model::{Limits, Traffic};

/// Random traffics: (seed, transfers, links, longest path).
const RANDOM: [(u64, usize, usize, usize); 5] = [
    (2, 30, 12, 3),
    (5, 100, 30, 4),
    (6, 200, 50, 4),
    (11, 50, 14, 4),
    (12, 60, 16, 5),
];

const LIMITS: Limits = Limits {
    time: None,
    nodes: Some(20_000),
};

fn inputs() -> Vec<(String, Traffic)> {
    let mut v: Vec<(String, Traffic)> = models()
        .into_iter()
        .map(|(n, t)| (format!("model/{n}"), t))
        .collect();
    for (seed, n, links, path) in RANDOM {
        v.push((
            format!("random/{seed}-{n}-{links}-{path}"),
            random_traffic(seed, n, links, path),
        ));
    }
    v
}

/// Every registered engine on every input, each run checked by the gate.
fn engines(c: &mut Criterion) {
    let request = Request {
        limits: LIMITS,
        seed: 1,
        ..Default::default()
    };
    for engine in liquid_engine::visible() {
        let mut g = c.benchmark_group(engine.name());
        for (name, t) in inputs() {
            let run = || liquid_engine::solve(&t, engine, &request, None, &AtomicU64::new(0));
            if run().is_err() {
                continue;
            }
            g.bench_function(BenchmarkId::from_parameter(&name), |b| b.iter(run));
        }
        g.finish();
    }
}

fn teams(c: &mut Criterion) {
    // Counting every full team of the larger random traffics takes seconds to hours
    // (random/5-100-30-4: 11.6 s), so only traffics with a modest team count are timed.
    let mut g = c.benchmark_group("full-teams");
    for (name, t) in inputs()
        .into_iter()
        .filter(|(n, _)| n.starts_with("model/") || n == "random/2-30-12-3")
    {
        g.bench_with_input(BenchmarkId::from_parameter(&name), &t, |b, t| {
            b.iter(|| liquid_search::teams::FullTeams::of_traffic(t).count())
        });
    }
    g.finish();
}

criterion_group!(benches, engines, teams);
criterion_main!(benches);
