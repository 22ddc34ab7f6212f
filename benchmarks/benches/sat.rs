//! Times the SAT engine (encoding plus varisat) on the bundled models and on seeded random
//! traffics, per at-most-one encoding. Sizes per choice: `cargo run --release -p
//! liquid-benchmarks --example sat_encodings`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use liquid_benchmarks::{models, random_traffic};
use liquid_sat::{decide, AmoEncoding, EncodeOptions};

fn sat(c: &mut Criterion) {
    let mut g = c.benchmark_group("sat");
    g.sample_size(10);
    let mut inputs = models();
    inputs.push(("random-60".to_string(), random_traffic(7, 60, 20, 3)));
    for (name, t) in &inputs {
        for amo in AmoEncoding::ALL {
            let o = EncodeOptions {
                amo,
                ..Default::default()
            };
            let id = BenchmarkId::new(format!("liquidity-{}", amo.as_str()), name);
            g.bench_with_input(id, t, |b, t| {
                b.iter(|| decide(t, t.duration(), &o, None).expect("encodes"))
            });
        }
        g.bench_with_input(BenchmarkId::new("engine", name), t, |b, t| {
            b.iter(|| liquid_sat::solve(t, &liquid_model::Limits::default()))
        });
    }
    g.finish();
}

criterion_group!(benches, sat);
criterion_main!(benches);
