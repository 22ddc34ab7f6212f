//! Issue 28's diagnosis: the concentrators' and dispatchers' time on Table 1's 1120-node
//! system split into queueing behind other messages, waiting for the first channel and
//! blocking downstream, at 0.3, 0.5 and 0.66 of the `per_node` reading's saturation load,
//! next to each reading's predicted wait and latency. Prints Markdown:
//!
//! ```sh
//! cargo run --release -p liquid-flit --example diagnosis [-- MESSAGES FLITS]
//! ```
#![allow(missing_docs)]

use liquid_flit::study::{self, Settings};
use liquid_flit::Timing;
use liquid_topology::multi_cluster::MultiCluster;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let messages: u64 = args
        .first()
        .map_or(30_000, |s| s.parse().expect("MESSAGES"));
    let flits: u32 = args.get(1).map_or(32, |s| s.parse().expect("FLITS"));
    let bytes = if flits == 64 { 512.0 } else { 256.0 };
    let settings = Settings {
        messages,
        warmup: messages / 10,
        drain: messages / 10,
        ..Settings::paper(1, 1)
    };
    let system = MultiCluster::parse("8,12x1+16x2+4x3").expect("a system");
    let timing = Timing::paper(flits, bytes);
    let rows = study::diagnose(&system, timing, &[0.3, 0.5, 0.66], settings, &mut |i, p| {
        if p.delivered == 0 {
            eprintln!("load {}", i + 1);
        }
        true
    })
    .expect("diagnosis");
    println!(
        "`{}` (N = {}), M = {flits}, L_m = {bytes}: {messages} counted messages per load ({} warm-up, {} drain), seed 1.\n",
        system.spec(),
        system.nodes(),
        settings.warmup,
        settings.drain
    );
    print!("{}", study::diagnosis_table(timing, &rows));
}
