//! Times the full-team search alone (`liquid::solve`, without the orbit, ports and
//! classes check that `native` runs first) on generated models, in release mode without
//! building the CLI (and so without HiGHS):
//!
//! ```text
//! cargo run --release -p liquid-search --example team_search -- SECONDS SPEC...
//! ```
//!
//! e.g. `team_search 10 multi-cluster:4,5x1 multi-cluster:8,9x1`. One line per model:
//! verdict, engine seconds and the search's counters. Every answer is checked with
//! `liquid_model::check_outcome`.

use std::time::{Duration, Instant};

use liquid_model::{check_outcome, Limits, StatValue};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs: f64 = args
        .first()
        .and_then(|s| s.parse().ok())
        .expect("usage: team_search SECONDS SPEC...");
    for spec in &args[1..] {
        let t = liquid_topology::spec::parse(spec)
            .expect("a valid spec")
            .expect("a generated-model spec")
            .expand()
            .expect("the model expands");
        let limits = Limits {
            time: Some(Duration::from_secs_f64(secs)),
            nodes: None,
        };
        let start = Instant::now();
        let a = liquid_search::liquid::solve(&t, &limits);
        let el = start.elapsed().as_secs_f64();
        check_outcome(&t, &a.outcome).expect("the answer checks");
        let counters: Vec<String> = a
            .stats
            .iter()
            .filter_map(|(k, v)| match v {
                StatValue::Count(n) if *n > 0 => Some(format!("{k}={n}")),
                StatValue::Text(x) => Some(format!("{k}={x}")),
                _ => None,
            })
            .collect();
        println!(
            "{spec:28} n={:6} Λ={:6} {:10} {el:8.3} s {}",
            t.len(),
            t.duration(),
            a.verdict().as_str(),
            counters.join(" ")
        );
    }
}
