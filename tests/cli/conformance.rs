//! The conformance suite, written once and run against every engine (the `ENGINES` table):
//! on every bundled model and on seeded random traffics, each engine's schedule validates
//! (checked here by an independent validator), its verdict agrees with a brute-force
//! chromatic number, and its bounds never contradict it.

use std::collections::BTreeSet;

use crate::common::{expand, liquid, models};

/// What an engine promises on small traffics without limits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Promise {
    /// A valid schedule; no optimality claim beyond what its verdict says.
    Heuristic,
    /// Decides liquidity: `liquid` or `non-liquid`.
    DecidesLiquidity,
    /// Finds the optimal length: `liquid` or `optimal`.
    FindsOptimum,
}

/// Every engine `liquid solve` offers, with its promise.
const ENGINES: &[(&str, Promise)] = &[
    ("native", Promise::DecidesLiquidity),
    ("dsatur", Promise::Heuristic),
    ("exact", Promise::FindsOptimum),
    ("random", Promise::Heuristic),
    ("sat", Promise::FindsOptimum),
    ("ilp", Promise::FindsOptimum),
    ("portfolio", Promise::FindsOptimum),
];

/// A small seeded traffic: (transfer id, links).
type Small = Vec<(String, Vec<String>)>;

fn random_small(seed: u64) -> Small {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    let n = 2 + next(7) as usize; // 2..=8 transfers
    let links = 2 + next(5); // 2..=6 links
    (0..n)
        .map(|i| {
            let len = 1 + next(3.min(links)) as usize;
            let mut p = BTreeSet::new();
            while p.len() < len {
                p.insert(format!("l{}", next(links)));
            }
            (format!("t{i}"), p.into_iter().collect())
        })
        .collect()
}

fn to_yaml(name: &str, t: &Small) -> String {
    let mut s = format!("name: {name}\ntransfers:\n");
    for (id, p) in t {
        s.push_str(&format!("  - {{id: {id}, path: [{}]}}\n", p.join(", ")));
    }
    s
}

fn congest(a: &[String], b: &[String]) -> bool {
    a.iter().any(|l| b.contains(l))
}

fn duration(t: &Small) -> usize {
    let mut links: Vec<&String> = t.iter().flat_map(|(_, p)| p).collect();
    links.sort();
    links.dedup();
    links
        .iter()
        .map(|l| t.iter().filter(|(_, p)| p.contains(l)).count())
        .max()
        .unwrap_or(0)
}

/// The chromatic number of the conflict graph, by trying k = 1, 2, ... with backtracking.
fn chromatic(t: &Small) -> usize {
    fn colour(t: &Small, k: usize, i: usize, c: &mut Vec<usize>) -> bool {
        if i == t.len() {
            return true;
        }
        for x in 0..k {
            if (0..i).all(|j| c[j] != x || !congest(&t[i].1, &t[j].1)) {
                c.push(x);
                if colour(t, k, i + 1, c) {
                    return true;
                }
                c.pop();
            }
        }
        false
    }
    (1..=t.len())
        .find(|&k| colour(t, k, 0, &mut Vec::new()))
        .expect("n colours always suffice")
}

/// An independent validator: the timeframes partition the transfers, none congests.
fn valid(t: &Small, frames: &[Vec<String>]) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for (i, f) in frames.iter().enumerate() {
        for (a, x) in f.iter().enumerate() {
            if !seen.insert(x.clone()) {
                return Err(format!("{x} twice"));
            }
            let px = &t
                .iter()
                .find(|(id, _)| id == x)
                .ok_or(format!("unknown {x}"))?
                .1;
            for y in &f[a + 1..] {
                let py = &t
                    .iter()
                    .find(|(id, _)| id == y)
                    .ok_or(format!("unknown {y}"))?
                    .1;
                if congest(px, py) {
                    return Err(format!("frame {i}: {x} and {y} congest"));
                }
            }
        }
    }
    if seen.len() != t.len() {
        return Err("a transfer is missing".into());
    }
    Ok(())
}

fn check_engine(engine: &str, promise: Promise, file: &str, t: &Small) {
    let out = liquid()
        .args([
            "solve",
            file,
            "--engine",
            engine,
            "--format",
            "json",
            "--time-limit",
            "60",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{engine} on {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let (d, chi) = (duration(t), chromatic(t));
    let verdict = v["verdict"].as_str().expect("verdict");
    let lb = v["lower_bound"].as_u64().expect("lower bound") as usize;
    assert!(
        lb >= d && lb <= chi,
        "{engine} on {file}: lower bound {lb} outside [Λ={d}, χ={chi}]"
    );
    let frames: Option<Vec<Vec<String>>> =
        serde_json::from_value(v["timeframes"].clone()).expect("timeframes");
    if let Some(f) = &frames {
        valid(t, f).unwrap_or_else(|e| panic!("{engine} on {file}: invalid schedule: {e}"));
        assert!(
            f.len() >= chi,
            "{engine} on {file}: {} frames, below χ = {chi}",
            f.len()
        );
    }
    let len = frames.as_ref().map(Vec::len);
    match verdict {
        "liquid" => assert!(
            chi == d && len == Some(d),
            "{engine} on {file}: liquid but χ = {chi}, Λ = {d}"
        ),
        "optimal" => assert_eq!(len, Some(chi), "{engine} on {file}: optimal length"),
        "non-liquid" => assert!(chi > d, "{engine} on {file}: non-liquid but χ = Λ = {d}"),
        "feasible" => assert!(
            len.is_some(),
            "{engine} on {file}: feasible without schedule"
        ),
        other => panic!("{engine} on {file}: verdict {other} on a tiny traffic without limits"),
    }
    match promise {
        Promise::Heuristic => {}
        Promise::DecidesLiquidity => {
            assert!(
                matches!(verdict, "liquid" | "non-liquid"),
                "{engine} on {file}: {verdict}"
            )
        }
        Promise::FindsOptimum => {
            assert!(
                matches!(verdict, "liquid" | "optimal"),
                "{engine} on {file}: {verdict}"
            )
        }
    }
}

#[test]
fn every_engine_conforms_on_random_traffics() {
    let dir = tempfile::tempdir().expect("temp dir");
    for seed in 1..=40u64 {
        let t = random_small(seed);
        let file = dir.path().join(format!("random-{seed}.yaml"));
        std::fs::write(&file, to_yaml(&format!("random-{seed}"), &t)).expect("write");
        let file = file.to_str().expect("UTF-8 path").to_string();
        for &(engine, promise) in ENGINES {
            check_engine(engine, promise, &file, &t);
        }
    }
}

#[test]
fn every_engine_conforms_on_the_bundled_models() {
    for m in models() {
        let t: Small = expand(&m);
        for &(engine, promise) in ENGINES {
            check_engine(engine, promise, &m, &t);
        }
    }
}

#[test]
fn no_two_engines_contradict_on_random_traffics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let names: Vec<&str> = ENGINES.iter().map(|e| e.0).collect();
    let mut files = Vec::new();
    for seed in 100..120u64 {
        let file = dir.path().join(format!("random-{seed}.yaml"));
        std::fs::write(
            &file,
            to_yaml(&format!("random-{seed}"), &random_small(seed)),
        )
        .expect("write");
        files.push(file.to_str().expect("UTF-8 path").to_string());
    }
    let out = liquid()
        .args([
            "crosscheck",
            "--engines",
            &names.join(","),
            "--format",
            "json",
        ])
        .args(&files)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
