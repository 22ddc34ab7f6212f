//! Load time of a generated model, for `/usr/bin/time -v` (peak memory):
//!
//! `cargo run --release -p liquid-topology --example load -- MODE SPEC`
//!
//! MODE is `direct` (the CLI's path, [`liquid_topology::spec::traffic`]: fat-trees and
//! multi-cluster systems built directly), `expand` (the network form with a named route
//! per pair, then its expansion: the path before direct construction) or `generate` (the
//! network form only, as `liquid generate --form network` builds it). After loading, it
//! computes what `liquid analyze` reports by default (Λ, Σ path, the bottleneck users and
//! the conflict-counting work, counting the edges only when that is cheap, as analyze
//! does) and prints one line of figures.

use std::process::ExitCode;
use std::time::Instant;

use liquid_model::Traffic;
use liquid_topology::spec;

/// Conflict edges are counted when that takes at most this many steps (as `analyze`).
const COUNT_WORK: u64 = 1 << 31;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, s] = &args[..] else {
        eprintln!("usage: load direct|expand|generate SPEC");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let traffic: Result<Option<Traffic>, String> = match mode.as_str() {
        "direct" => spec::traffic(s).map_err(|e| e.to_string()),
        "expand" => spec::parse(s)
            .map_err(|e| e.to_string())
            .and_then(|g| g.map(|g| g.expand().map_err(|e| e.to_string())).transpose()),
        "generate" => match spec::parse(s) {
            Ok(Some(g)) => {
                println!(
                    "generate {s}: {:.2} s, {} routes",
                    start.elapsed().as_secs_f64(),
                    g.network.routes.len()
                );
                return ExitCode::SUCCESS;
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e.to_string()),
        },
        _ => Err(format!("unknown mode {mode:?}")),
    };
    let traffic = match traffic {
        Ok(Some(t)) => t,
        Ok(None) => {
            eprintln!("{s:?} is not a spec");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let loaded = start.elapsed().as_secs_f64();
    let users: usize = traffic
        .bottlenecks()
        .iter()
        .map(|&l| traffic.users(l).len())
        .sum();
    let work = traffic.conflict_work();
    let edges = (work <= COUNT_WORK).then(|| traffic.conflict_stats().edges);
    println!(
        "{mode} {s}: load {loaded:.2} s, analyze {:.2} s in all; {} transfers, {} links, \
         Σ path {}, Λ {} ({} bottleneck users), conflict work {work:.1e}, edges {}",
        start.elapsed().as_secs_f64(),
        traffic.len(),
        traffic.num_links(),
        traffic.total_path_length(),
        traffic.duration(),
        users,
        edges.map_or("not counted".to_string(), |e| e.to_string()),
    );
    ExitCode::SUCCESS
}
