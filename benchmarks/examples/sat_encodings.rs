//! Prints encoding sizes and SAT solve times per model and per at-most-one encoding:
//!
//! ```text
//! cargo run --release -p liquid-benchmarks --example sat_encodings
//! ```
//!
//! For every bundled model and a few seeded random traffics, at k = Λ (liquidity) and,
//! when the traffic is not liquid, at the optimum minus one (the proof that matters): the
//! variables, clauses, the answer and the median of three solve times per choice; then the
//! LRAT proof size of the default encoding.

use std::time::{Duration, Instant};

use liquid_benchmarks::{models, random_traffic};
use liquid_model::Traffic;
use liquid_sat::{decide, encode, prove, AmoEncoding, EncodeOptions, Proved};

fn median_solve(t: &Traffic, k: usize, o: &EncodeOptions) -> (String, f64) {
    let mut times = Vec::new();
    let mut answer = String::new();
    for _ in 0..3 {
        let start = Instant::now();
        let deadline = Some(Instant::now() + Duration::from_secs(20));
        let (_, r) = decide(t, k, o, deadline).expect("encodes");
        times.push(start.elapsed().as_secs_f64());
        answer = match r {
            Some(Some(_)) => "sat".to_string(),
            Some(None) => "unsat".to_string(),
            None => "timeout".to_string(),
        };
        if answer == "timeout" {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    (answer, times[times.len() / 2])
}

fn main() {
    let mut inputs = models();
    for (seed, n, links, path) in [(7, 60, 20, 3), (11, 120, 30, 4), (13, 200, 40, 4)] {
        let t = random_traffic(seed, n, links, path);
        inputs.push((t.name().to_string(), t));
    }
    println!(
        "{:<22} {:>3} {:>3} {:<10} {:>7} {:>8} {:>8} {:>10}",
        "model", "Λ", "k", "amo", "vars", "clauses", "answer", "time_s"
    );
    for (name, t) in &inputs {
        let lam = t.duration();
        let optimum = liquid_sat::solve(
            t,
            &liquid_model::Limits {
                time: Some(Duration::from_secs(60)),
                nodes: None,
            },
        )
        .outcome
        .lower_bound(t);
        let mut ks = vec![lam];
        if optimum.value > lam + 1 {
            ks.push(optimum.value - 1);
        }
        for &k in &ks {
            for amo in AmoEncoding::ALL {
                let o = EncodeOptions {
                    amo,
                    ..Default::default()
                };
                let e = encode(t, k, &o).expect("encodes");
                let (answer, time) = median_solve(t, k, &o);
                println!(
                    "{:<22} {:>3} {:>3} {:<10} {:>7} {:>8} {:>8} {:>10.5}",
                    name,
                    lam,
                    k,
                    amo.as_str(),
                    e.num_vars(),
                    e.num_clauses(),
                    answer,
                    time
                );
            }
        }
        if optimum.value > lam {
            let k = optimum.value - 1;
            let deadline = Some(Instant::now() + Duration::from_secs(60));
            if let Ok(Some(Proved::Unsat(p))) = prove(t, k, &EncodeOptions::default(), deadline) {
                println!(
                    "{:<22} proof for k = {k}: {} LRAT lines, {} bytes",
                    name,
                    p.lrat.lines().count(),
                    p.lrat.len()
                );
            }
        }
    }
}
