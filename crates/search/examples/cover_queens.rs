//! The cover stage alone on a queen graph, for measuring its choices (see
//! docs/src/hard-liquid.md):
//!
//! `cargo run --release -p liquid-search --example cover_queens -- N [SEED] [SYMMETRY 0|1]
//! [RESTART_BASE] [SECONDS]`
//!
//! prints the answer, the statistics and the time.

use std::time::{Duration, Instant};

use liquid_search::cover::{liquid_cover, CoverOptions, Covered};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers"))
        .collect();
    let n = args.first().copied().unwrap_or(12) as usize;
    let seed = args.get(1).copied().unwrap_or(0);
    let symmetry = args.get(2).copied().unwrap_or(1) == 1;
    let restart_base = args
        .get(3)
        .copied()
        .unwrap_or(liquid_search::cover::RESTART_BASE);
    let seconds = args.get(4).copied().unwrap_or(60);
    let t = liquid_model::examples::queens(n);
    let start = Instant::now();
    let options = CoverOptions {
        seed,
        symmetry,
        restart_base,
        deadline: Some(start + Duration::from_secs(seconds)),
        ..CoverOptions::default()
    };
    let (found, stats) = liquid_cover(&t, &options);
    let secs = start.elapsed().as_secs_f64();
    let what = match &found {
        Covered::Schedule(s, how) => {
            liquid_model::validate(&t, s).expect("a valid schedule");
            format!("liquid ({how}), validated")
        }
        other => format!("{other:?}"),
    };
    println!(
        "queen{n}_{n} seed {seed} symmetry {symmetry} base {restart_base}: {what} in {secs:.3} s"
    );
    println!("  {}", stats.summary());
    println!("  symmetry: {}", stats.symmetry);
    for o in &stats.orbits {
        println!("  orbit: {o}");
    }
}
