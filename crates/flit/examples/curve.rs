//! Speed of the flit-level simulator: one whole latency curve (20 load points, 100,000
//! counted messages each, 10,000 warm-up and 10,000 drain) on 002's N = 1120 system
//! (`8,12x1+16x2+4x3`, M = 32, L_m = 256), one core. Writes
//! `benchmarks/results/flit-curve.md` (run from the repository root):
//!
//! ```sh
//! cargo run --release -p liquid-flit --example curve [-- SPEC FLITS FLIT_BYTES MAX_RATE]
//! ```
#![allow(missing_docs)]

use std::fmt::Write as _;
use std::time::Instant;

use liquid_flit::{Config, Simulator, Timing};
use liquid_topology::multi_cluster::MultiCluster;

/// CPU time of this thread in seconds (Linux: /proc/thread-self/schedstat), if known.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().map_or("8,12x1+16x2+4x3", String::as_str);
    let flits: u32 = args.get(1).map_or(32, |s| s.parse().expect("FLITS"));
    let flit_bytes: f64 = args
        .get(2)
        .map_or(256.0, |s| s.parse().expect("FLIT_BYTES"));
    let max_rate: f64 = args.get(3).map_or(5e-4, |s| s.parse().expect("MAX_RATE"));
    let system = MultiCluster::parse(spec).expect("a system");
    let wiring = system.wiring().expect("wires");
    let sim = Simulator::new(&wiring);
    let timing = Timing::paper(flits, flit_bytes);
    let mut table = String::new();
    let (mut moves, mut events) = (0u64, 0u64);
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    for p in 1..=20 {
        let rate = max_rate * p as f64 / 20.0;
        let t = Instant::now();
        let run = sim
            .run(&Config::paper(timing, rate), &mut |_| true)
            .expect("runs");
        let secs = t.elapsed().as_secs_f64();
        moves += run.flit_moves;
        events += run.events;
        writeln!(
            table,
            "| {rate:.3e} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {:.2} | {:.1} |",
            run.overall.latency,
            run.overall.source_wait,
            run.overall.network,
            run.overall.concentrator_wait,
            run.flit_moves,
            secs,
            run.flit_moves as f64 / secs / 1e6,
        )
        .expect("string");
        eprintln!(
            "rate {rate:.3e}: latency {:.2} in {secs:.2} s",
            run.overall.latency
        );
    }
    let total = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds()
        .zip(cpu_start)
        .map(|(b, a)| b - a)
        .map_or("unknown".to_string(), |c| {
            format!(
                "{c:.1} s ({:.1} million flit moves per CPU second)",
                moves as f64 / c / 1e6
            )
        });
    let text = format!(
        "# Flit-level simulator: one latency curve\n\n\
         `cargo run --release -p liquid-flit --example curve -- {spec} {flits} {flit_bytes} {max_rate}`\n\n\
         System `{}` (N = {}), M = {flits}, L_m = {flit_bytes}, 002's timing; 20 load points \
         up to λ_g = {max_rate}, 100,000 counted messages each (plus 10,000 warm-up and \
         10,000 drain), seed 1, cut-through concentrators, one core.\n\n\
         Whole curve: **{total:.1} s** wall clock, {moves} flit moves ({:.1} million/s), \
         {events} events; CPU time of the simulating thread: **{cpu}** (the wall clock \
         includes time the machine gave to other jobs).\n\n\
         | λ_g | latency | source wait | network | conc./disp. wait | flit moves | s | Mmoves/s |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n{table}",
        system.spec(),
        system.nodes(),
        moves as f64 / total / 1e6,
    );
    std::fs::create_dir_all("benchmarks/results").expect("results directory");
    let name = format!(
        "benchmarks/results/flit-curve-{}-{flits}.md",
        system.spec().replace([',', '+'], "-")
    );
    std::fs::write(&name, &text).expect("write results");
    print!("{text}");
}
