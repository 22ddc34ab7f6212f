//! Times every engine on the bundled models and on seeded random traffics.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use liquid_benchmarks::{models, random_traffic};

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

criterion_group!(benches, dsatur);
criterion_main!(benches);
