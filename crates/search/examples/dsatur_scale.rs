//! Times DSatur (and, with `exact`, the exact engine) on a generated model, in release
//! mode without building the CLI (and so without HiGHS):
//!
//! `cargo run --release -p liquid-search --example dsatur_scale -- fat-tree:8,3 [SECONDS] [exact | threads=N]`
//!
//! SECONDS is the time limit (none by default, or when `-`). `threads=N` colours on N threads
//! ([`liquid_search::dsatur::colour_on_threads`]) instead of the engine's default. The last
//! field printed is a fingerprint of the schedule: equal fingerprints, the same schedule
//! (up to an unlikely collision), to check that a change keeps it transfer by transfer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use liquid_model::{Limits, Schedule};

/// FNV-1a over the frames' transfer ids, frame by frame.
fn fingerprint(s: &Schedule) -> u64 {
    s.frames.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, frame| {
        frame.iter().fold(h ^ u64::MAX, |h, t| {
            (h ^ u64::from(t.0)).wrapping_mul(0x0100_0000_01b3)
        })
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = args.get(1).map_or("fat-tree:8,3", String::as_str);
    let limits = Limits {
        time: args
            .get(2)
            .filter(|s| *s != "-")
            .map(|s| Duration::from_secs_f64(s.parse().expect("SECONDS is a number"))),
        nodes: None,
    };
    let exact = args.get(3).is_some_and(|s| s == "exact");
    let threads: Option<usize> = args
        .get(3)
        .and_then(|s| s.strip_prefix("threads="))
        .map(|n| n.parse().expect("threads=N with N a whole number"));
    let start = Instant::now();
    // As the CLI builds it: fat-trees directly, without their network form.
    let traffic = liquid_topology::spec::traffic(spec)
        .expect("a valid spec")
        .expect("a generated-model spec");
    eprintln!(
        "{spec}: {} transfers, Λ = {}, generated in {:.2} s",
        traffic.len(),
        traffic.duration(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let progress = AtomicU64::new(0);
    if let Some(threads) = threads {
        let c = liquid_search::dsatur::colour_on_threads(
            &traffic,
            limits.deadline(),
            &progress,
            threads,
        );
        let seconds = start.elapsed().as_secs_f64();
        match c {
            Some(c) => println!(
                "{spec}: dsatur on {threads} threads: {} colours in {seconds:.3} s, schedule fingerprint {:016x}",
                c.colours,
                fingerprint(&c.to_schedule())
            ),
            None => println!("{spec}: dsatur on {threads} threads: out of time after {seconds:.3} s"),
        }
        return;
    }
    let o = if exact {
        liquid_search::exact::solve(&traffic, &limits)
    } else {
        liquid_search::dsatur::solve_with_progress(&traffic, &limits, &progress)
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{}: {} {:?} in {:.3} s, {} transfers coloured, stats {:?}, schedule fingerprint {:016x}",
        spec,
        o.engine,
        o.verdict(),
        seconds,
        progress.load(Ordering::Relaxed),
        o.stats,
        o.outcome.schedule().map_or(0, fingerprint)
    );
}
