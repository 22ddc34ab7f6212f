//! Times every engine on the bundled models and on seeded random traffics.
//!
//! The searching engines (`native`, `exact`) run under a node limit so that a hard
//! instance bounds the bench's time instead of hanging it; the limit is part of the
//! measured work, so figures stay comparable between versions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use liquid_benchmarks::{models, random_traffic};
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

fn bench(c: &mut Criterion, group: &str, run: impl Fn(&Traffic) -> liquid_model::Outcome) {
    let mut g = c.benchmark_group(group);
    for (name, t) in inputs() {
        g.bench_with_input(BenchmarkId::from_parameter(&name), &t, |b, t| {
            b.iter(|| run(t))
        });
    }
    g.finish();
}

fn dsatur(c: &mut Criterion) {
    let mut g = c.benchmark_group("dsatur");
    for (name, t) in models() {
        g.bench_with_input(BenchmarkId::new("model", &name), &t, |b, t| {
            b.iter(|| liquid_search::dsatur::solve(t))
        });
    }
    for n in [50, 200, 1000] {
        let t = random_traffic(7, n, n / 4, 4);
        g.bench_with_input(BenchmarkId::new("random", n), &t, |b, t| {
            b.iter(|| liquid_search::dsatur::solve(t))
        });
    }
    g.finish();
}

fn native(c: &mut Criterion) {
    bench(c, "native", |t| liquid_search::liquid::solve(t, &LIMITS));
}

fn exact(c: &mut Criterion) {
    bench(c, "exact", |t| liquid_search::exact::solve(t, &LIMITS));
}

fn random(c: &mut Criterion) {
    bench(c, "random", |t| liquid_search::baseline::random(t, 1));
}

fn teams(c: &mut Criterion) {
    let mut g = c.benchmark_group("full-teams");
    for (name, t) in inputs() {
        g.bench_with_input(BenchmarkId::from_parameter(&name), &t, |b, t| {
            b.iter(|| liquid_search::teams::FullTeams::of_traffic(t).count())
        });
    }
    g.finish();
}

fn round_robin(c: &mut Criterion) {
    let mut g = c.benchmark_group("round-robin");
    for (name, t) in models() {
        // Only all-to-all models have a round-robin schedule.
        if liquid_search::baseline::round_robin(&t).is_ok() {
            g.bench_with_input(BenchmarkId::from_parameter(&name), &t, |b, t| {
                b.iter(|| liquid_search::baseline::round_robin(t))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, dsatur, native, exact, random, round_robin, teams);
criterion_main!(benches);
