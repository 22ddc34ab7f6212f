//! The conformance suite (issue 12): every engine of the registry ([`liquid_engine::ENGINES`],
//! the hidden test engines aside), in every mode it offers (`decide`, `proofs`), through the
//! gate ([`liquid_engine::solve`]), on seeded random traffics small enough for brute force
//! and on every bundled model in the explicit form.
//!
//! A new engine is picked up without touching this file. Its answers are judged by an
//! oracle that shares no code with the engines nor with `liquid-model`'s analysis: link sets
//! come from the generator below or straight from the model files (read with `serde_yaml`
//! into this file's own structs, `count:` expanded here), and Λ, congestion and the optimum
//! (a brute-force chromatic number) are computed here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use liquid_engine::{Checked, Engine, Request, SolveError, ENGINES};
use liquid_model::{Evidence, Outcome, StatValue, Traffic, Verdict};
use serde::Deserialize;

// ---------------------------------------------------------------------------------------
// The oracle.

/// A traffic as the oracle sees it: transfer id → set of link names.
#[derive(Debug, Clone)]
struct Oracle {
    name: String,
    transfers: BTreeMap<String, BTreeSet<String>>,
}

impl Oracle {
    fn new(name: &str, transfers: Vec<(String, BTreeSet<String>)>) -> Oracle {
        let n = transfers.len();
        let transfers: BTreeMap<_, _> = transfers.into_iter().collect();
        assert_eq!(transfers.len(), n, "{name}: duplicate transfer ids");
        Oracle {
            name: name.to_string(),
            transfers,
        }
    }

    fn path(&self, id: &str) -> Result<&BTreeSet<String>, String> {
        self.transfers
            .get(id)
            .ok_or_else(|| format!("{id:?} is not a transfer of {}", self.name))
    }

    /// The same transfers as the model crate's traffic (for the engines).
    fn traffic(&self) -> Traffic {
        let paths: Vec<(String, Vec<String>)> = self
            .transfers
            .iter()
            .map(|(id, p)| (id.clone(), p.iter().cloned().collect()))
            .collect();
        Traffic::from_paths(&self.name, &paths).expect("a valid traffic")
    }

    /// Whether two transfers share a link.
    fn congest(&self, a: &str, b: &str) -> Result<bool, String> {
        Ok(!self.path(a)?.is_disjoint(self.path(b)?))
    }

    /// The number of transfers using a link.
    fn load(&self, link: &str) -> usize {
        self.transfers.values().filter(|p| p.contains(link)).count()
    }

    /// Λ: the largest load.
    fn lambda(&self) -> usize {
        let links: BTreeSet<&String> = self.transfers.values().flatten().collect();
        links.iter().map(|l| self.load(l)).max().unwrap_or(0)
    }

    /// The optimum: the chromatic number of the conflict graph, by plain backtracking over
    /// k = Λ, Λ + 1, ... (the users of one link pairwise congest, so fewer than Λ colours
    /// never suffice). Vertices are coloured in decreasing degree order.
    fn optimum(&self) -> usize {
        let ids: Vec<&String> = self.transfers.keys().collect();
        let n = ids.len();
        let adj: Vec<Vec<bool>> = ids
            .iter()
            .map(|a| {
                ids.iter()
                    .map(|b| a != b && self.congest(a, b).expect("known ids"))
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| std::cmp::Reverse(adj[v].iter().filter(|&&x| x).count()));
        fn colour(adj: &[Vec<bool>], order: &[usize], k: usize, c: &mut [usize], i: usize) -> bool {
            let Some(&v) = order.get(i) else {
                return true;
            };
            // Symmetry: a vertex never opens more than one new colour.
            let used = order[..i].iter().map(|&u| c[u] + 1).max().unwrap_or(0);
            for x in 0..k.min(used + 1) {
                if order[..i].iter().all(|&u| !adj[v][u] || c[u] != x) {
                    c[v] = x;
                    if colour(adj, order, k, c, i + 1) {
                        return true;
                    }
                }
            }
            false
        }
        let mut c = vec![usize::MAX; n];
        (self.lambda().max(1)..=n)
            .find(|&k| colour(&adj, &order, k, &mut c, 0))
            .expect("n colours always suffice")
    }

    /// Checks that `frames` partition the transfers into sets of pairwise non-congesting
    /// transfers.
    fn validate(&self, frames: &[Vec<String>]) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for (i, f) in frames.iter().enumerate() {
            if f.is_empty() {
                return Err(format!("timeframe {i} is empty"));
            }
            for (a, x) in f.iter().enumerate() {
                self.path(x)?;
                if !seen.insert(x.as_str()) {
                    return Err(format!("{x} is scheduled twice"));
                }
                for y in &f[a + 1..] {
                    if self.congest(x, y)? {
                        return Err(format!("timeframe {i}: {x} and {y} congest"));
                    }
                }
            }
        }
        if let Some(x) = self.transfers.keys().find(|x| !seen.contains(x.as_str())) {
            return Err(format!("{x} is not scheduled"));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Inputs.

/// A seeded random traffic of 4 to 10 transfers over 5 to 9 links, paths of 2 or 3 links,
/// no two transfers with the same link set (sparse enough that about one in four is not
/// liquid).
fn random_traffic(seed: u64) -> Oracle {
    use liquid_model::examples::{random_paths, Draws, RandomShape};
    let mut draws = Draws::new(seed);
    let shape = RandomShape {
        transfers: 4 + draws.below(7) as usize,
        links: 5 + draws.below(5) as usize,
        path: (2, 3),
        distinct: true,
    };
    let transfers = random_paths(&mut draws, &shape)
        .into_iter()
        .map(|(id, p)| (id, p.into_iter().collect()))
        .collect();
    Oracle::new(&format!("random-{seed}"), transfers)
}

/// The explicit form as the oracle reads it: only ids, paths and multiplicities (serde
/// ignores the other fields).
#[derive(Deserialize)]
struct ModelFile {
    name: String,
    transfers: Option<Vec<Entry>>,
}

#[derive(Deserialize)]
struct Entry {
    id: String,
    path: Vec<String>,
    count: Option<usize>,
    virtual_links: Option<Vec<String>>,
}

/// The oracle's reading of a model file, or `None` for a model in the network form. Copy k
/// of `count: n` is `id#k` with the virtual link `id#k~v`, or the k-th of `virtual_links`.
fn read_model(path: &Path) -> Option<Oracle> {
    oracle_of(&std::fs::read_to_string(path).expect("readable model"))
}

/// [`read_model`] of a model's text.
fn oracle_of(text: &str) -> Option<Oracle> {
    let file: ModelFile = serde_yaml::from_str(text).expect("a YAML model");
    let mut transfers = Vec::new();
    for e in file.transfers? {
        let path: BTreeSet<String> = e.path.iter().cloned().collect();
        match e.count {
            None | Some(1) => transfers.push((e.id, path)),
            Some(n) => {
                for k in 1..=n {
                    let virtual_link = match &e.virtual_links {
                        Some(v) => v[k - 1].clone(),
                        None => format!("{}#{k}~v", e.id),
                    };
                    let mut p = path.clone();
                    p.insert(virtual_link);
                    transfers.push((format!("{}#{k}", e.id), p));
                }
            }
        }
    }
    Some(Oracle::new(&file.name, transfers))
}

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

/// Every bundled model in the explicit form: the oracle's reading and the model crate's.
fn bundled() -> Vec<(Oracle, Traffic)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(models_dir())
        .expect("models/")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().expect("name").to_string_lossy();
            name.ends_with(".yaml") && !name.ends_with("-schedule.yaml")
        })
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| {
            let oracle = read_model(f)?;
            let traffic = liquid_model::yaml::load_model(f).expect("a valid model");
            Some((oracle, traffic))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Engines and their promises.

/// One way of running an engine.
struct Config {
    label: String,
    engine: &'static dyn Engine,
    request: Request,
}

/// Every visible engine as registered, plus its decision mode and its proofs where it
/// has them.
fn configurations() -> Vec<Config> {
    let mut v = Vec::new();
    for &engine in ENGINES.iter().filter(|e| !e.hidden()) {
        let name = engine.name();
        let plain = Request::default();
        v.push(Config {
            label: name.to_string(),
            engine,
            request: plain,
        });
        if engine.decides() {
            v.push(Config {
                label: format!("{name} --decide"),
                engine,
                request: Request {
                    decide: true,
                    ..plain
                },
            });
        }
        if engine.proves() {
            v.push(Config {
                label: format!("{name} --prove"),
                engine,
                request: Request {
                    proofs: true,
                    ..plain
                },
            });
        }
    }
    v
}

/// What an engine promises without limits, beyond a verdict among its `verdicts()` that its
/// evidence supports: what its declared verdicts and decision mode promise
/// ([`Engine::verdicts`]), never its name. Engines that declare neither `optimal` nor
/// `non-liquid` (the heuristics) get the generic checks only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Promise {
    /// `liquid` or `non-liquid`: decides liquidity.
    DecidesLiquidity,
    /// `liquid` or `optimal`: finds and proves the optimum.
    FindsOptimum,
    /// `liquid` exactly when a liquid schedule exists, `unknown` otherwise (ILP's decision
    /// mode: HiGHS's "infeasible" is not a proof).
    FindsLiquid,
}

fn promise(c: &Config) -> Option<Promise> {
    let says = |v: Verdict| c.engine.verdicts().contains(&v);
    if c.request.decide {
        Some(Promise::FindsLiquid)
    } else if says(Verdict::Optimal) {
        Some(Promise::FindsOptimum)
    } else if says(Verdict::NonLiquid) {
        Some(Promise::DecidesLiquidity)
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------
// The checks.

/// What the oracle knows of one input.
struct Truth {
    lambda: usize,
    optimum: usize,
}

/// Judges one answer against the oracle. `frames` is the schedule by transfer id.
fn judge(
    c: &Config,
    oracle: &Oracle,
    truth: &Truth,
    traffic: &Traffic,
    outcome: &Outcome,
) -> Result<(), String> {
    let (lambda, opt) = (truth.lambda, truth.optimum);
    let verdict = outcome.verdict();
    if !c.engine.verdicts().contains(&verdict) {
        return Err(format!(
            "verdict {verdict} is not among the engine's verdicts"
        ));
    }
    let frames: Option<Vec<Vec<String>>> = outcome.schedule().map(|s| s.frame_names(traffic));
    let len = frames.as_ref().map(Vec::len);
    if let Some(f) = &frames {
        oracle
            .validate(f)
            .map_err(|e| format!("invalid schedule: {e}"))?;
        if f.len() < opt {
            return Err(format!("a schedule of {} beats the optimum {opt}", f.len()));
        }
    }
    match verdict {
        Verdict::Liquid if opt != lambda || len != Some(lambda) => {
            return Err(format!(
                "liquid with length {len:?}, but Λ = {lambda}, optimum {opt}"
            ))
        }
        Verdict::Optimal if len != Some(opt) => {
            return Err(format!("optimal with length {len:?}, but optimum {opt}"))
        }
        Verdict::NonLiquid if opt == lambda => {
            return Err(format!("non-liquid, but a schedule of Λ = {lambda} exists"))
        }
        Verdict::Feasible if len.is_none() => return Err("feasible without a schedule".into()),
        _ => {}
    }
    let bound = outcome.lower_bound(traffic);
    if bound.value > opt {
        return Err(format!(
            "lower bound {} exceeds the optimum {opt}",
            bound.value
        ));
    }
    if bound.value < lambda {
        return Err(format!("lower bound {} below Λ = {lambda}", bound.value));
    }
    match &bound.evidence {
        Evidence::Bottleneck(l) => {
            let name = traffic.link_name(*l);
            let load = oracle.load(name);
            if load != lambda || bound.value != lambda {
                return Err(format!(
                    "bottleneck {name:?} has {load} users, Λ = {lambda}, bound {}",
                    bound.value
                ));
            }
        }
        Evidence::Clique(ts) => {
            let names: Vec<&str> = ts.iter().map(|&t| traffic.transfer_name(t)).collect();
            if names.len() < bound.value {
                return Err(format!(
                    "a clique of {} for a bound of {}",
                    names.len(),
                    bound.value
                ));
            }
            for (i, a) in names.iter().enumerate() {
                for b in &names[i + 1..] {
                    if a == b || !oracle.congest(a, b)? {
                        return Err(format!("clique members {a} and {b} do not congest"));
                    }
                }
            }
        }
        Evidence::CheckedProof(p) => {
            if p.colours() + 1 != bound.value {
                return Err(format!(
                    "a proof for {} timeframes backs a bound of {}",
                    p.colours(),
                    bound.value
                ));
            }
        }
        Evidence::DualBound { bound: b } => {
            if *b > opt as f64 + 1e-6 {
                return Err(format!("dual bound {b} above the optimum {opt}"));
            }
        }
        Evidence::Exhaustive { .. } | Evidence::SolverClaim { .. } => {}
    }
    if c.request.proofs && bound.value > lambda && !bound.is_checked() {
        return Err(format!(
            "proofs requested, but the bound {} rests on {}",
            bound.value,
            bound.evidence.kind()
        ));
    }
    let kept = match promise(c) {
        None => verdict != Verdict::Unknown,
        Some(Promise::DecidesLiquidity) => {
            matches!(verdict, Verdict::Liquid | Verdict::NonLiquid)
        }
        Some(Promise::FindsOptimum) => matches!(verdict, Verdict::Liquid | Verdict::Optimal),
        Some(Promise::FindsLiquid) => {
            verdict
                == if opt == lambda {
                    Verdict::Liquid
                } else {
                    Verdict::Unknown
                }
        }
    };
    if !kept {
        return Err(format!(
            "verdict {verdict} breaks its promise {:?} without limits (Λ = {lambda}, optimum {opt})",
            promise(c)
        ));
    }
    Ok(())
}

/// With proofs requested, an engine proves its own bounds above Λ that need a proof (not
/// a clique's) up to the k it declares ([`Engine::refutes_up_to`]: `native` and `exact`
/// by the colouring search's refutation, up to 32 timeframes; `sat` and
/// `sat-incremental` from the run that refuted): the proof the gate checked is the
/// engine's, not the gate's SAT fallback.
/// Whether it checked one (an engine's proof was required and present).
fn proof_source(c: &Config, traffic: &Traffic, checked: &Checked) -> Result<bool, String> {
    let lower = checked.outcome().lower_bound(traffic);
    let bound = lower.value;
    let own = bound - 1 <= c.engine.refutes_up_to();
    if !c.request.proofs || !own || !matches!(lower.evidence, Evidence::CheckedProof(_)) {
        return Ok(false);
    }
    let by = checked
        .stats()
        .iter()
        .find(|(k, _)| k == "proof_by")
        .map(|(_, v)| v);
    match by {
        Some(StatValue::Text(t)) if t == "engine" => Ok(true),
        other => Err(format!(
            "the proof that {} timeframes do not suffice came from {other:?}, not the engine",
            bound - 1
        )),
    }
}

/// Runs every configuration on one input and judges each answer; returns the verdicts seen,
/// the configurations whose answers were judged and the number of engine proofs checked.
fn conform(oracle: &Oracle, traffic: &Traffic) -> (BTreeSet<Verdict>, Vec<String>, usize) {
    // The model crate reads the same transfers as the oracle.
    let names: BTreeSet<&str> = traffic
        .transfer_ids()
        .map(|t| traffic.transfer_name(t))
        .collect();
    let expected: BTreeSet<&str> = oracle.transfers.keys().map(String::as_str).collect();
    assert_eq!(names, expected, "{}: transfers", oracle.name);
    assert_eq!(names.len(), traffic.len(), "{}: duplicate ids", oracle.name);
    let truth = Truth {
        lambda: oracle.lambda(),
        optimum: oracle.optimum(),
    };
    assert_eq!(traffic.duration(), truth.lambda, "{}: Λ", oracle.name);
    let mut verdicts = BTreeSet::new();
    let mut judged = Vec::new();
    let mut engine_proofs = 0;
    for c in configurations() {
        let answer = liquid_engine::solve(traffic, c.engine, &c.request, None, &AtomicU64::new(0));
        let checked = match answer {
            Ok(checked) => checked,
            // An engine that declares a narrower domain (round-robin: all-to-alls) may
            // refuse the input.
            Err(SolveError::Input(_)) if !c.engine.accepts_every_traffic() => continue,
            Err(e) => panic!("{} on {}: {e}", c.label, oracle.name),
        };
        judge(&c, oracle, &truth, traffic, checked.outcome())
            .unwrap_or_else(|e| panic!("{} on {}: {e}", c.label, oracle.name));
        engine_proofs += usize::from(
            proof_source(&c, traffic, &checked)
                .unwrap_or_else(|e| panic!("{} on {}: {e}", c.label, oracle.name)),
        );
        verdicts.insert(checked.verdict());
        judged.push(c.label);
    }
    (verdicts, judged, engine_proofs)
}

// ---------------------------------------------------------------------------------------
// The suite.

#[test]
fn every_engine_conforms_on_random_traffics() {
    let mut verdicts = BTreeSet::new();
    let (mut liquid, mut not_liquid, mut judged) = (0, 0, 0);
    for seed in 1..=40 {
        let oracle = random_traffic(seed);
        let traffic = oracle.traffic();
        if oracle.optimum() == oracle.lambda() {
            liquid += 1;
        } else {
            not_liquid += 1;
        }
        // Their bounds above Λ are cliques here: no proof needed (the bundled models
        // exercise the engines' proofs).
        let (seen, n, _) = conform(&oracle, &traffic);
        verdicts.extend(seen);
        judged += n.len();
    }
    // Every configuration answered every input, round-robin (all-to-alls only) and
    // closed-form (generated machines' all-to-alls only) aside.
    assert_eq!(judged, 40 * (configurations().len() - 2));
    // The inputs exercise both sides and every verdict the engines give without limits.
    assert!(
        liquid >= 5 && not_liquid >= 5,
        "{liquid} liquid, {not_liquid} not"
    );
    let all = [
        Verdict::Liquid,
        Verdict::Optimal,
        Verdict::NonLiquid,
        Verdict::Feasible,
        Verdict::Unknown,
    ];
    assert_eq!(verdicts, all.into_iter().collect(), "verdicts seen");
}

/// An engine that does not declare itself seeded ([`Engine::seeded`]) gives the same
/// answer for every seed, in every mode: `solve --seed` refuses it because the seed would
/// change nothing.
#[test]
fn unseeded_engines_answer_the_same_for_every_seed() {
    let mut inputs: Vec<Traffic> = (1..=12)
        .map(|seed| random_traffic(seed).traffic())
        .collect();
    inputs.extend(bundled().into_iter().map(|(_, t)| t));
    let mut compared = 0;
    for c in configurations().iter().filter(|c| !c.engine.seeded()) {
        for t in &inputs {
            let run = |seed: u64| {
                let request = Request { seed, ..c.request };
                liquid_engine::solve(t, c.engine, &request, None, &AtomicU64::new(0))
                    .map(|checked| checked.outcome().clone())
                    .map_err(|e| e.to_string())
            };
            assert_eq!(run(0), run(7), "{} on {}", c.label, t.name());
            compared += 1;
        }
    }
    assert!(compared >= 5 * inputs.len(), "{compared} runs compared");
}

/// An engine that does not declare that the node limit bounds it
/// ([`Engine::takes_node_limit`]) gives the same answer under a node limit of 1 as
/// without one, in every mode: `--node-limit` with it is refused because the limit would
/// change nothing.
#[test]
fn engines_without_a_node_limit_answer_the_same_under_one() {
    let mut inputs: Vec<Traffic> = (1..=12)
        .map(|seed| random_traffic(seed).traffic())
        .collect();
    inputs.extend(bundled().into_iter().map(|(_, t)| t));
    let mut compared = 0;
    for c in configurations()
        .iter()
        .filter(|c| !c.engine.takes_node_limit())
    {
        for t in &inputs {
            let run = |nodes: Option<u64>| {
                let request = Request {
                    limits: liquid_model::Limits {
                        nodes,
                        ..c.request.limits
                    },
                    ..c.request
                };
                liquid_engine::solve(t, c.engine, &request, None, &AtomicU64::new(0))
                    .map(|checked| checked.outcome().clone())
                    .map_err(|e| e.to_string())
            };
            assert_eq!(run(None), run(Some(1)), "{} on {}", c.label, t.name());
            compared += 1;
        }
    }
    assert!(compared >= 4 * inputs.len(), "{compared} runs compared");
}

#[test]
fn every_engine_conforms_on_the_bundled_models() {
    let models = bundled();
    assert!(models.len() >= 6, "{} explicit models", models.len());
    let mut round_robin_answered = false;
    let mut engine_proofs = 0;
    for (oracle, traffic) in &models {
        let (_, judged, proofs) = conform(oracle, traffic);
        round_robin_answered |= judged.iter().any(|l| l == "round-robin");
        engine_proofs += proofs;
    }
    // native and exact proved their own bounds (odd-cycle and odd-wheel have no clique
    // above Λ): at least once each.
    assert!(engine_proofs >= 2, "{engine_proofs} engine proofs checked");
    // paper-fig1-explicit is an all-to-all: round-robin is judged there.
    assert!(round_robin_answered);
}

/// The all-to-alls of small generated machines (dragonfly, Dragonfly+, rail, HyperX), read
/// by the oracle from their explicit form: every engine conforms, the closed-form engine
/// answers on every machine that has a closed form and refuses the one that has none.
#[test]
fn every_engine_conforms_on_generated_machines() {
    for (spec, closed) in [
        ("dragonfly:2,1,1", true),
        ("dragonfly-plus:1,1,1,1", true),
        ("rail:2,2", true),
        ("hyperx:2x2,1", true),
        ("hyperx:3,1", true),
        ("rail:3,2,1", false),
    ] {
        let text = liquid_topology::spec::parse(spec)
            .expect("valid")
            .expect("a spec")
            .to_explicit_yaml()
            .expect("expands");
        let oracle = oracle_of(&text).expect("the explicit form");
        let traffic = liquid_topology::spec::traffic(spec)
            .expect("valid")
            .expect("a spec");
        let (_, judged, _) = conform(&oracle, &traffic);
        assert_eq!(
            judged.iter().any(|l| l == "closed-form"),
            closed,
            "{spec}: {judged:?}"
        );
        // Every other configuration answered (these are all-to-alls: round-robin too).
        let others = configurations().len() - 1;
        assert_eq!(
            judged.len(),
            others + usize::from(closed),
            "{spec}: {judged:?}"
        );
    }
}

/// Under a limit too short for the slow engines, every configuration still gives an answer
/// the gate accepts: an engine holding a schedule of Λ timeframes calls it `liquid`, never
/// `unknown` (ILP answered `unknown` with DSatur's 400 frames on 400 transfers of one
/// link, and the gate refused it as a wrong answer).
#[test]
fn a_short_limit_never_leaves_a_schedule_at_the_bound_unknown() {
    let names: Vec<String> = (0..400).map(|i| format!("a{i}")).collect();
    let paths: Vec<(&str, Vec<&str>)> = names.iter().map(|n| (n.as_str(), vec!["x"])).collect();
    let traffic = Traffic::from_paths("big", &paths).expect("valid traffic");
    for c in configurations() {
        let mut request = c.request;
        request.limits.time = Some(std::time::Duration::from_millis(50));
        let answer = liquid_engine::solve(&traffic, c.engine, &request, None, &AtomicU64::new(0));
        match answer {
            Ok(checked) => {
                let o = checked.outcome();
                if o.schedule().is_some_and(|s| s.len() == traffic.duration()) {
                    assert_eq!(o.verdict(), Verdict::Liquid, "{}", c.label);
                }
            }
            Err(SolveError::Input(_)) if !c.engine.accepts_every_traffic() => {}
            Err(e) => panic!("{}: {e}", c.label),
        }
    }
}

/// The suite runs every visible engine, and the modes it must: ILP's decision mode, SAT's
/// and the portfolio's proofs.
#[test]
fn the_suite_covers_the_registry() {
    let labels: Vec<String> = configurations().into_iter().map(|c| c.label).collect();
    for e in ENGINES.iter().filter(|e| !e.hidden()) {
        assert!(labels.iter().any(|l| l == e.name()), "{}", e.name());
    }
    for l in [
        "ilp --decide",
        "sat --prove",
        "native --prove",
        "exact --prove",
        "portfolio --prove",
        "round-robin",
        "repair",
    ] {
        assert!(labels.iter().any(|x| x == l), "{l} missing from {labels:?}");
    }
}

/// The optima the bundled models document (README, model comments, `tests/cli/sat.rs`),
/// recomputed by the oracle.
#[test]
fn the_oracle_finds_the_documented_optima() {
    let documented = [
        ("no-team", 2, 3),
        ("odd-cycle", 2, 3),
        ("odd-wheel", 2, 4),
        ("wheel-team", 3, 4),
        ("paper-fig1", 6, 6),
        ("paper-fig2", 6, 6),
    ];
    let models = bundled();
    for (name, lambda, optimum) in documented {
        let (oracle, _) = models
            .iter()
            .find(|(o, _)| o.name == name)
            .unwrap_or_else(|| panic!("{name} not bundled in the explicit form"));
        assert_eq!(
            (oracle.lambda(), oracle.optimum()),
            (lambda, optimum),
            "{name}"
        );
    }
    // paper-fig2 is paper-fig1 with T1->R1 twice, told apart by l13 and l14.
    let fig2 = &models
        .iter()
        .find(|(o, _)| o.name == "paper-fig2")
        .expect("")
        .0;
    assert_eq!(fig2.transfers.len(), 26);
    assert!(fig2.transfers["T1->R1#2"].contains("l14"));
}

/// The checks can fail: forged wrong answers are caught by the oracle, not only by the gate.
#[test]
fn the_checks_catch_wrong_answers() {
    use liquid_model::{LowerBound, Schedule};
    let oracle = Oracle::new(
        "no-team",
        vec![
            ("x".into(), ["a", "b"].map(String::from).into()),
            ("y".into(), ["b", "c"].map(String::from).into()),
            ("z".into(), ["a", "c"].map(String::from).into()),
        ],
    );
    let truth = Truth {
        lambda: oracle.lambda(),
        optimum: oracle.optimum(),
    };
    assert_eq!((truth.lambda, truth.optimum), (2, 3));
    let t = liquid_model::examples::no_team();
    let [x, y, z] = ["x", "y", "z"].map(|n| t.find_transfer(n).expect("a transfer"));
    let config = |name: &str| Config {
        label: name.to_string(),
        engine: liquid_engine::find(name).expect("registered"),
        request: Request::default(),
    };
    let exact = config("exact");
    let wrong = |c: &Config, o: Outcome| judge(c, &oracle, &truth, &t, &o).expect_err("caught");
    let singles = Schedule::new(vec![vec![x], vec![y], vec![z]]);
    assert_eq!(
        judge(
            &exact,
            &oracle,
            &truth,
            &t,
            &Outcome::Optimal {
                schedule: singles.clone(),
                bound: LowerBound::clique(vec![x, y, z]),
            }
        ),
        Ok(())
    );
    // Two congesting transfers in one frame; a transfer missing; one twice.
    for frames in [
        vec![vec![x, y], vec![z]],
        vec![vec![x], vec![y]],
        vec![vec![x], vec![y], vec![z], vec![x]],
    ] {
        let e = wrong(
            &config("dsatur"),
            Outcome::Feasible {
                schedule: Schedule::new(frames),
                bound: LowerBound::duration(&t),
            },
        );
        assert!(e.contains("invalid schedule"), "{e}");
    }
    // Liquid on a traffic that is not; a bound above the optimum; a clique that is not one.
    wrong(
        &config("dsatur"),
        Outcome::Liquid {
            schedule: Schedule::new(vec![vec![x], vec![y, z]]),
        },
    );
    wrong(
        &exact,
        Outcome::NonLiquid {
            bound: LowerBound::exhaustive(4, "exact", 1),
            best: None,
        },
    );
    let e = wrong(
        &exact,
        Outcome::NonLiquid {
            bound: LowerBound {
                value: 3,
                evidence: Evidence::Clique(vec![x, y, y]),
            },
            best: None,
        },
    );
    assert!(e.contains("do not congest"), "{e}");
    // A heuristic's honest answer from an engine that promised the optimum.
    let e = wrong(
        &exact,
        Outcome::Feasible {
            schedule: singles.clone(),
            bound: LowerBound::duration(&t),
        },
    );
    assert!(e.contains("not among the engine's verdicts"), "{e}");
    let e = wrong(
        &config("native"),
        Outcome::Unknown {
            best: Some(singles.clone()),
            bound: LowerBound::duration(&t),
        },
    );
    assert!(e.contains("promise"), "{e}");
    // Proofs requested, but the bound is an engine's word.
    let mut sat = config("sat");
    sat.request.proofs = true;
    let e = wrong(
        &sat,
        Outcome::Optimal {
            schedule: singles,
            bound: LowerBound::exhaustive(3, "sat", 1),
        },
    );
    assert!(e.contains("proofs requested"), "{e}");
    // The brute force: an odd cycle of five needs three colours, a path two.
    let ring = |n: usize, closed: bool| {
        let links = |i: usize| {
            let mut s = BTreeSet::from([format!("e{i}")]);
            if closed || i + 1 < n {
                s.insert(format!("e{}", (i + 1) % n));
            }
            s
        };
        Oracle::new(
            "ring",
            (0..n).map(|i| (format!("t{i}"), links(i))).collect(),
        )
    };
    assert_eq!((ring(5, true).lambda(), ring(5, true).optimum()), (2, 3));
    assert_eq!((ring(6, true).lambda(), ring(6, true).optimum()), (2, 2));
    assert_eq!((ring(5, false).lambda(), ring(5, false).optimum()), (2, 2));
}
