//! Runs the repair search on a model file (release mode, without the CLI):
//!
//! `cargo run --release -p liquid-search --example repair_model -- MODEL.yaml [SEED] [STEPS]`
//!
//! Loads the model and repairs it to Λ timeframes from the search's own first fit (from
//! DSatur's schedule with DSATUR=1), printing the times, the lengths and the link loads.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("MODEL.yaml");
    let seed: u64 = args.get(2).map_or(1, |s| s.parse().expect("a seed"));
    let steps: Option<u64> = args.get(3).map(|s| s.parse().expect("steps"));
    let t0 = Instant::now();
    let t = liquid_model::yaml::load_model(std::path::Path::new(path)).expect("a model");
    let d = t.duration();
    eprintln!(
        "loaded {} transfers, {} links, Λ {d} in {:.1?}",
        t.len(),
        t.num_links(),
        t0.elapsed()
    );
    let mut loads: Vec<usize> = t.loads();
    loads.sort_unstable_by(|a, b| b.cmp(a));
    let at = |x: usize| loads.iter().filter(|&&l| l >= x).count();
    eprintln!(
        "links at Λ: {}, ≥ 0.9Λ: {}, ≥ 0.5Λ: {}, top loads {:?}",
        at(d),
        at(d * 9 / 10),
        at(d / 2),
        &loads[..loads.len().min(12)]
    );
    // DSATUR=1: start from DSatur's schedule (minutes at a million transfers).
    let start = std::env::var_os("DSATUR").map(|_| {
        let t1 = Instant::now();
        let s = liquid_search::dsatur::colour(&t).to_schedule();
        eprintln!("dsatur: {} frames in {:.1?}", s.len(), t1.elapsed());
        s
    });
    let t2 = Instant::now();
    let r =
        liquid_search::repair::repair(&t, start.as_ref(), d, seed, steps, None, &AtomicU64::new(0));
    eprintln!(
        "repair: {} frames (placed all: {}) in {:.1?}, {} steps, {} unplaced at start, fewest {}",
        r.schedule.len(),
        r.placed_all,
        t2.elapsed(),
        r.steps,
        r.unplaced_at_start,
        r.fewest_unplaced
    );
    let v = liquid_model::validate(&t, &r.schedule).expect("valid");
    eprintln!("validated: length {}", v.length);
}
