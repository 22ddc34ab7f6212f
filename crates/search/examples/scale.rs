//! Times the stages of the scale benchmark inside one process (release build):
//! the traffic of a generated model (`liquid_topology::spec::traffic`), its conflict degrees, the structure stage with the model's
//! validation of its schedule, and optionally DSatur.
//!
//! `cargo run --release -p liquid-search --example scale -- fat-tree:16,3 [dsatur]`

use std::time::Instant;

use liquid_model::{validate, Limits};

/// CPU time of this process so far (user + system, all threads), from /proc/self/stat on
/// Linux (0 elsewhere): on a shared machine it says more than the wall time.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (in parentheses): utime and stime are the 12th and
    // 13th, in clock ticks of 1/100 s.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    ticks.iter().sum::<f64>() / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().map_or("fat-tree:8,3", String::as_str);
    let t0 = Instant::now();
    let traffic = liquid_topology::spec::traffic(spec)
        .expect("a valid spec")
        .expect("a spec, not a file");
    let t1 = Instant::now();
    let cpu1 = cpu_seconds();
    let degrees = traffic.conflict_degrees();
    let t2 = Instant::now();
    let cpu2 = cpu_seconds() - cpu1;
    println!(
        "{spec}: {} transfers, Σ path {}, Λ {}, {} conflict edges; traffic {:.2} s, conflict degrees {:.2} s ({cpu2:.2} s of CPU)",
        traffic.len(),
        traffic.total_path_length(),
        traffic.duration(),
        degrees.iter().sum::<u64>() / 2,
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64()
    );
    let t3 = Instant::now();
    let s = liquid_search::structured::construct(&traffic, None);
    let t4 = Instant::now();
    match s {
        liquid_search::structured::Structure::Liquid { schedule, group } => {
            let report = validate(&traffic, &schedule).expect("valid");
            println!(
                "structure: {group}, {} frames (liquid: {}) in {:.3} s, validated in {:.3} s",
                report.length,
                report.length == traffic.duration(),
                (t4 - t3).as_secs_f64(),
                t4.elapsed().as_secs_f64()
            );
        }
        other => println!("structure: no liquid schedule ({:?} ...)", {
            let s = format!("{other:?}");
            s.chars().take(200).collect::<String>()
        }),
    }
    if args.iter().any(|a| a == "dsatur") {
        let t5 = Instant::now();
        let cpu5 = cpu_seconds();
        let a = liquid_search::dsatur::solve_with_limits(&traffic, &Limits::default());
        let t6 = Instant::now();
        let schedule = a
            .outcome
            .schedule()
            .expect("DSatur completes without a limit");
        // A digest of the frames (FNV-1a over frame sizes and transfer ids) to compare
        // colourings between versions.
        let mut digest = 0xcbf2_9ce4_8422_2325u64;
        for frame in &schedule.frames {
            for x in std::iter::once(frame.len() as u32).chain(frame.iter().map(|t| t.0)) {
                digest = (digest ^ u64::from(x)).wrapping_mul(0x100_0000_01b3);
            }
        }
        println!(
            "dsatur: {} frames in {:.2} s, {:.2} s of CPU (validation included), digest {digest:016x}",
            schedule.len(),
            (t6 - t5).as_secs_f64(),
            cpu_seconds() - cpu5
        );
    }
}
