//! Times the native engine (`native::solve`: the orbit check, then the search) on the papers' testbed and on random
//! traffics, in release mode without building the CLI (and so without HiGHS):
//!
//! ```text
//! cargo run --release -p liquid-search --example native_speed -- t1 [SECONDS]
//! cargo run --release -p liquid-search --example native_speed -- perm [SECONDS] [SPEC]
//! cargo run --release -p liquid-search --example native_speed -- spec SPEC [SECONDS]
//! cargo run --release -p liquid-search --example native_speed -- random [SECONDS] [SEEDS]
//! cargo run --release -p liquid-search --example native_speed -- files SECONDS FILE...
//! ```
//!
//! - `t1`: one traffic per Swiss-T1 class (its representative allocation), all 363;
//! - `perm`: the full 32-node T1 all-to-all (or SPEC) in its given order, in sender-major
//!   order and in 20 seeded random orders of its transfers;
//! - `spec`: one generated model (e.g. `fat-tree:8,3`);
//! - `random`: seeded random traffics of 20 to 200 transfers, the "odd seed" family of
//!   `benchmarks/peers/peers.py` (link loads capped at 2-4, paths of 2-5 links: many
//!   conflicts for a small Λ, mostly not liquid), SEEDS seeds per size.
//!
//! With `NATIVE_STATS` set in the environment, `files` solves each file a second time and
//! prints the engine's counters.
//!
//! Every time is engine time (`solve` alone, the model built beforehand); every answer
//! is checked with `liquid_model::check_outcome`. SECONDS is the time limit (default 10).

use std::time::{Duration, Instant};

use liquid_model::{check_outcome, Limits, Traffic, TrafficBuilder, Verdict};

fn limits(secs: f64) -> Limits {
    Limits {
        time: Some(Duration::from_secs_f64(secs)),
        nodes: None,
    }
}

/// Solves, checks, and returns (verdict, engine seconds, nodes).
fn run(t: &Traffic, secs: f64) -> (Verdict, f64, u64) {
    let start = Instant::now();
    let o = liquid_search::native::solve(t, &limits(secs));
    let el = start.elapsed().as_secs_f64();
    check_outcome(t, &o.outcome).expect("the answer checks");
    let nodes = o
        .stats
        .iter()
        .find(|(k, _)| k == "nodes")
        .map_or(0, |(_, v)| match v {
            liquid_model::StatValue::Count(n) => *n,
            _ => 0,
        });
    (o.verdict(), el, nodes)
}

fn generated(spec: &str) -> Traffic {
    liquid_topology::spec::parse(spec)
        .expect("a valid spec")
        .expect("a generated-model spec")
        .expand()
        .expect("the model expands")
}

/// The traffic with its transfers in the order `order` (links declared by first use, so
/// link ids change too).
fn permuted(t: &Traffic, order: &[usize], name: &str) -> Traffic {
    let mut b = TrafficBuilder::new(name);
    for (i, &k) in order.iter().enumerate() {
        let tr = &t.transfers()[k];
        let path: Vec<&str> = tr.path.iter().map(|&l| t.link_name(l)).collect();
        b.transfer(
            &tr.id,
            tr.from.clone(),
            tr.to.clone(),
            &path,
            &format!("transfers[{i}]"),
            &|j| format!("transfers[{i}].path[{j}]"),
        )
        .expect("valid transfer");
    }
    b.build("transfers").expect("non-empty")
}

/// xorshift64*, seeded.
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

fn stats(times: &mut [f64]) -> (f64, f64, f64) {
    times.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    (times[0], times[times.len() / 2], times[times.len() - 1])
}

fn node_index(name: &str) -> usize {
    name.trim_start_matches('n').parse().unwrap_or(usize::MAX)
}

fn t1(secs: f64) {
    let classes = liquid_topology::t1::classes();
    let mut times = Vec::new();
    let (mut decided, mut liquid) = (0, 0);
    for c in &classes {
        let spec = format!("t1:{}", c.representative);
        let t = generated(&spec);
        let (v, el, nodes) = run(&t, secs);
        if v != Verdict::Unknown {
            decided += 1;
        }
        if v == Verdict::Liquid {
            liquid += 1;
        }
        if el > 0.01 || v == Verdict::Unknown {
            println!(
                "{spec:24} n={:5} Λ={:3} {:10} {el:.4} s nodes={nodes}",
                t.len(),
                t.duration(),
                v.as_str()
            );
        }
        times.push(el);
    }
    let n = times.len();
    let under = |x: f64| times.iter().filter(|&&t| t < x).count();
    let (u10, u100) = (under(0.01), under(0.1));
    let total: f64 = times.iter().sum();
    let (min, med, max) = stats(&mut times);
    println!(
        "T1 classes: {n}, decided {decided} ({liquid} liquid), under 10 ms {u10} ({:.1} %), \
         under 100 ms {u100} ({:.1} %), min {min:.4} s, median {med:.4} s, max {max:.4} s, total {total:.3} s",
        100.0 * u10 as f64 / n as f64,
        100.0 * u100 as f64 / n as f64
    );
}

fn perm(secs: f64, spec: &str) {
    let t = generated(spec);
    let mut times = Vec::new();
    let mut orders: Vec<(String, Vec<usize>)> = vec![("given".into(), (0..t.len()).collect())];
    let mut sm: Vec<usize> = (0..t.len()).collect();
    sm.sort_by_key(|&k| {
        let tr = &t.transfers()[k];
        (
            tr.from.as_deref().map_or(usize::MAX, node_index),
            tr.to.as_deref().map_or(usize::MAX, node_index),
            k,
        )
    });
    orders.push(("sender-major".into(), sm));
    for seed in 1..=20u64 {
        let mut o: Vec<usize> = (0..t.len()).collect();
        Rng::new(seed).shuffle(&mut o);
        orders.push((format!("seed {seed}"), o));
    }
    for (name, order) in &orders {
        let p = permuted(&t, order, name);
        let (v, el, nodes) = run(&p, secs);
        println!("{spec} {name:14} {:10} {el:.4} s nodes={nodes}", v.as_str());
        times.push(el);
    }
    let (min, med, max) = stats(&mut times);
    println!(
        "{spec}: {} orders, min {min:.4} s, median {med:.4} s, max {max:.4} s",
        orders.len()
    );
}

/// The odd-seed family of `benchmarks/peers/peers.py` (same distribution, this crate's
/// generator): every link's load capped at `cap` (2-4), paths of 2-5 distinct links.
fn random_traffic(seed: u64, n: usize) -> Traffic {
    let mut rng = Rng::new(seed);
    let cap = 2 + rng.below(3);
    let mut load = vec![0usize; 8 + n * 5 / cap];
    let mut paths = Vec::with_capacity(n);
    for i in 0..n {
        let free: Vec<usize> = (0..load.len()).filter(|&l| load[l] < cap).collect();
        let len = 2 + rng.below(4);
        let mut path: Vec<usize> = Vec::with_capacity(len);
        while path.len() < len {
            let l = free[rng.below(free.len())];
            if !path.contains(&l) {
                path.push(l);
            }
        }
        for &l in &path {
            load[l] += 1;
        }
        path.sort_unstable();
        paths.push((
            format!("t{i}"),
            path.iter().map(|l| format!("l{l}")).collect::<Vec<_>>(),
        ));
    }
    Traffic::from_paths(&format!("random-{seed}-{n}"), &paths).expect("valid")
}

fn random(secs: f64, seeds: u64) {
    let mut times = Vec::new();
    let (mut decided, mut nonliquid, mut count) = (0, 0, 0);
    for n in (20..=200).step_by(20) {
        for seed in 0..seeds {
            let t = random_traffic(1000 * n as u64 + seed, n);
            let (v, el, nodes) = run(&t, secs);
            count += 1;
            if v != Verdict::Unknown {
                decided += 1;
            }
            if v == Verdict::NonLiquid {
                nonliquid += 1;
            }
            if el > 0.1 || v == Verdict::Unknown {
                println!(
                    "random n={n} seed={seed} Λ={} {:10} {el:.4} s nodes={nodes}",
                    t.duration(),
                    v.as_str()
                );
            }
            times.push(el);
        }
    }
    let under = |x: f64| times.iter().filter(|&&t| t < x).count();
    let u1 = under(1.0);
    let (min, med, max) = stats(&mut times);
    println!(
        "random: {count} traffics, decided {decided} ({nonliquid} non-liquid), under 1 s {u1}, \
         min {min:.4} s, median {med:.4} s, max {max:.4} s"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("t1", String::as_str);
    let secs = |i: usize| {
        args.get(i)
            .map_or(10.0, |s| s.parse().expect("SECONDS is a number"))
    };
    match mode {
        "t1" => t1(secs(2)),
        "perm" => perm(
            secs(2),
            args.get(3).map_or("t1:4,4,4,4,4,4,4,4", String::as_str),
        ),
        "spec" => {
            let spec = args.get(2).map_or("fat-tree:8,3", String::as_str);
            let t = generated(spec);
            let start = Instant::now();
            let o = liquid_search::native::solve(&t, &limits(secs(3)));
            let el = start.elapsed().as_secs_f64();
            check_outcome(&t, &o.outcome).expect("the answer checks");
            println!(
                "{spec}: n={} Λ={} {} {el:.4} s stats {:?}",
                t.len(),
                t.duration(),
                o.verdict().as_str(),
                o.stats
            );
        }
        "random" => random(
            secs(2),
            args.get(3)
                .map_or(5, |s| s.parse().expect("SEEDS is a number")),
        ),
        "files" => {
            // Model files (e.g. the peers' random instances written by
            // benchmarks/peers/peers.py), each solved once.
            let secs: f64 = args[2].parse().expect("SECONDS is a number");
            let mut times = Vec::new();
            for path in &args[3..] {
                let t = liquid_model::yaml::load_model(std::path::Path::new(path))
                    .expect("the model loads");
                let (v, el, nodes) = run(&t, secs);
                println!(
                    "{path}: n={} Λ={} {} {el:.4} s nodes={nodes}",
                    t.len(),
                    t.duration(),
                    v.as_str()
                );
                if std::env::var_os("NATIVE_STATS").is_some() {
                    let o = liquid_search::liquid::solve(&t, &limits(secs));
                    println!("  stats {:?}", o.stats);
                }
                times.push(el);
            }
            let (min, med, max) = stats(&mut times);
            println!(
                "files: {}, min {min:.4} s, median {med:.4} s, max {max:.4} s",
                times.len()
            );
        }
        other => panic!("unknown mode {other}: t1, perm, spec, random or files"),
    }
}
