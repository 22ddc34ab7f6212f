//! The ILP engine (HiGHS) on the bundled models and on seeded random traffics: prints each
//! model's size (variables, constraints, K = DSatur's length, Λ) and the verdict, then
//! times a full solve (one thread, gap 0).

use std::sync::atomic::AtomicU64;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use liquid_benchmarks::{models, random_traffic};
use liquid_model::{Limits, Traffic};

fn report(name: &str, t: &Traffic) {
    let k = liquid_search::dsatur::colour(t).colours as usize;
    let (vars, rows) = liquid_ilp::model_size(t, k);
    let o = liquid_ilp::solve(t, &Limits::default(), &AtomicU64::new(0))
        .expect("the ILP engine answers")
        .outcome;
    let len = o.schedule().map_or(0, |s| s.len());
    println!(
        "ilp {name}: {} transfers, Λ = {}, K = {k}, {vars} variables, {rows} constraints, \
         {} at length {len} (lower bound {})",
        t.len(),
        t.duration(),
        o.verdict(),
        o.lower_bound(t).value
    );
}

fn ilp(c: &mut Criterion) {
    let mut g = c.benchmark_group("ilp");
    g.sample_size(10);
    let limits = Limits::default();
    for (name, t) in models() {
        report(&name, &t);
        g.bench_with_input(BenchmarkId::new("model", &name), &t, |b, t| {
            b.iter(|| liquid_ilp::solve(t, &limits, &AtomicU64::new(0)).expect("answers"))
        });
    }
    for n in [20, 40, 80] {
        // Sparse enough that DSatur overshoots Λ on some of them.
        let t = random_traffic(7, n, n / 2, 4);
        report(&format!("random-{n}"), &t);
        g.bench_with_input(BenchmarkId::new("random", n), &t, |b, t| {
            b.iter(|| liquid_ilp::solve(t, &limits, &AtomicU64::new(0)).expect("answers"))
        });
    }
    g.finish();
}

criterion_group!(benches, ilp);
criterion_main!(benches);
