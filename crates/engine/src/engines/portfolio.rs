//! `portfolio`: what 003's conclusion suggests, made deterministic.
//!
//! 0. The closed form ([`super::closed_form`]): when the traffic is the all-to-all of a
//!    generated dragonfly, Dragonfly+, rail-optimised fat-tree or HyperX that has a
//!    closed-form liquid schedule (recognised by its model name, then route by route, in
//!    O(Σ|x|)), that schedule, its machine and construction named in the statistics; the
//!    gate validates it like any other. A machine without one says why in the statistics
//!    (`closed_form`); any other traffic costs a look at its name.
//!
//!    The structure stage of the `structured` engine ([`liquid_search::structured`]): for an
//!    all-to-all whose hosts' translations (or cyclic shifts) give conflict-free orbits,
//!    those orbits are a liquid schedule. It costs one pass over the transfers to see
//!    that a traffic is no all-to-all, and O(Σ|x|) per group tried otherwise.
//! 1. From [`REPAIR_FIRST`] transfers up (a million on a 1,024-host all-to-all), the
//!    repair search ([`liquid_search::repair`]) first, from its own placement at Λ
//!    timeframes, within half the time left: liquid there is done; otherwise its schedule
//!    is the best so far. (Neither repair stage runs when its state, links × Λ occupants,
//!    would exceed 8 per link of the total path length: [`liquid_search::repair::fits`].)
//!    Then first fit in a seeded random order (the `random` engine, linear in the total
//!    path length where no link's frames are scattered: [`liquid_search::fit`]), with the
//!    time left: liquid there is done; otherwise the shorter schedule so far is kept. It
//!    runs before DSatur there because DSatur is quadratic in a link's users: one
//!    transfer with `count: 100000` took DSatur 25 s and first fit 0.1 s.
//!
//!    DSatur (polynomial, milliseconds). If it reaches Λ, the schedule is liquid: done.
//!    Under a time limit DSatur gets [`DSATUR_SHARE`] of the time left (at a million
//!    transfers on a busy machine it needs minutes); when it does not finish in its share,
//!    first fit in a seeded random order (the `random` engine, seconds at a million
//!    transfers) runs with the rest of the time, so that a limit that stops DSatur still
//!    leaves a schedule. When DSatur finishes above Λ, first fit runs too (below
//!    [`REPAIR_FIRST`] transfers; above, it ran before DSatur), and the
//!    shorter of the schedules so far is kept (the first when equal: the repair's, then
//!    DSatur's). Below [`REPAIR_FIRST`] transfers, the repair search then starts from that
//!    schedule at Λ timeframes, on a budget of two steps per transfer (at least 10,000)
//!    and a quarter of the time left: liquid there is done.
//! 2. The native full-team search, on a budget of [`NATIVE_NODES`] search nodes (and half
//!    the time left, under a time limit), with `native`'s cover stage after its first
//!    [`liquid_search::native::FIRST_NODES`] nodes (an exact cover by full teams, orbit
//!    schedules of the traffic's automorphisms first:
//!    [`liquid_search::native::liquid_by_cover`]). It finds liquid schedules fast, and refutes
//!    liquidity at once when a clique exceeds Λ; what it cannot settle within the budget
//!    goes to stage 3. When it and DSatur settle the optimum between them, a proof (with
//!    proofs requested) comes from a native search, as for `native`.
//! 3. SAT, started from the best schedule so far (it proves non-liquidity and optimal
//!    lengths far faster than a colouring branch and bound), with the time that remains;
//!    with proofs requested, it refutes the final bound's k − 1 in the run that finds it.
//!    When the encoding would be too large (SAT refuses it up front), the exact engine
//!    runs instead.
//!
//! The answer combines the best schedule and the best lower bound found by any stage
//! (between equal bounds, the stronger evidence), with the stage that decided named in the
//! statistics. A limit that stops a stage leaves the best schedule with the best bound:
//! `non-liquid` or `unknown`, never a guess. The stages run one after the other on budgets
//! counted in nodes, not in parallel threads, so that without a time limit the output is
//! deterministic.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{Answer, Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, Verdict};
use liquid_sat::SatOptions;

use super::search_proof::with_search_proof;
use crate::{Counts, Engine, EngineError, Request, Run};

/// The portfolio's name in answers and on the command line.
const NAME: &str = "portfolio";

/// Search nodes the native stage may spend before SAT takes over.
pub const NATIVE_NODES: u64 = 100_000;

/// The share of the time left (numerator, denominator) that DSatur may take under a time
/// limit before first fit takes over; the rest is first fit's, then the later stages'.
pub const DSATUR_SHARE: (u32, u32) = (1, 2);

/// From this many transfers up, the repair search ([`liquid_search::repair`]) runs
/// before DSatur, from its own placement: at a million transfers DSatur takes minutes
/// (65-220 s on the 1,024-host all-to-alls of OpenSM's minhop and dfsssp routes) where
/// the repair reaches Λ in 1-2 s. Below, it runs after DSatur, from its schedule.
pub const REPAIR_FIRST: usize = 100_000;

/// The repair's step budget after DSatur: two steps per transfer, at least 10,000 (the
/// node limit, when lower).
fn repair_steps(transfers: usize, nodes: Option<u64>) -> u64 {
    let steps = (2 * transfers as u64).max(10_000);
    nodes.map_or(steps, |n| n.min(steps))
}

/// The portfolio.
pub struct Portfolio;

/// The shorter of two schedules (the first when equal).
fn shorter(a: Option<Schedule>, b: Option<Schedule>) -> Option<Schedule> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
        (a, b) => a.or(b),
    }
}

impl Engine for Portfolio {
    fn seeded(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn about(&self) -> &'static str {
        "the closed form of a generated machine's all-to-all (dragonfly, Dragonfly+, rail, HyperX) when it has one, orbits for all-to-alls, then DSatur (in half the time) and first fit, the shorter kept, and the tabu repair at Λ (repair and first fit before DSatur from 100,000 transfers up), then the native search on a node budget, then SAT (the exact engine when the \
         encoding is too large), sharing one time limit"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        super::SETTLING
    }
    fn in_crosscheck(&self) -> bool {
        // A sequence of dsatur, native and sat (or exact), which crosscheck runs on
        // their own.
        false
    }
    fn counts(&self) -> Counts {
        Counts::Nodes
    }
    fn takes_node_limit(&self) -> bool {
        true
    }
    fn proves(&self) -> bool {
        true
    }
    fn run(
        &self,
        traffic: &Traffic,
        req: &Request,
        progress: &AtomicU64,
    ) -> Result<Run, EngineError> {
        run_with_share(traffic, req, progress, DSATUR_SHARE, REPAIR_FIRST)
    }
}

/// The first-fit stage (seeded random order, within `time`): the outcome when it is
/// liquid; otherwise its length (or its verdict) goes to `stats` and its schedule replaces
/// `best` when shorter.
fn first_fit_stage(
    traffic: &Traffic,
    req: &Request,
    time: Option<std::time::Duration>,
    stats: &mut Vec<(String, StatValue)>,
    best: &mut Option<Schedule>,
) -> Option<Outcome> {
    let rest = Limits {
        time,
        nodes: req.limits.nodes,
    };
    let fit = liquid_search::baseline::random_with_limits(traffic, req.seed, &rest);
    match fit.outcome.schedule() {
        Some(s) => stats.push(("first_fit_length".into(), StatValue::Count(s.len() as u64))),
        None => stats.push((
            "first_fit_verdict".into(),
            StatValue::Text(fit.verdict().as_str().to_string()),
        )),
    }
    if fit.verdict() == Verdict::Liquid {
        return Some(fit.outcome);
    }
    *best = shorter(best.take(), fit.outcome.into_schedule());
    None
}

/// The portfolio with DSatur given `share` (numerator, denominator) of the time left
/// under a time limit (tests give it none, to stand for a DSatur that cannot finish), and
/// the repair search first from `repair_first` transfers up (tests give small traffics
/// the path of large ones).
fn run_with_share(
    traffic: &Traffic,
    req: &Request,
    progress: &AtomicU64,
    share: (u32, u32),
    repair_first: usize,
) -> Result<Run, EngineError> {
    {
        let limits = &req.limits;
        let start = Instant::now();
        let deadline = limits.deadline();
        let left = || limits.time.map(|t| t.saturating_sub(start.elapsed()));
        let out_of_time = || left().is_some_and(|t| t.is_zero());
        // The answer of a run the limit stopped before any schedule.
        let nothing = || Outcome::Unknown {
            best: None,
            bound: LowerBound::duration(traffic),
        };
        let mut stats: Vec<(String, StatValue)> = Vec::new();
        let say = |stats: &mut Vec<(String, StatValue)>, k: &str, v: &str| {
            stats.push((k.to_string(), StatValue::Text(v.to_string())));
        };
        let finish = |outcome: Outcome, by: &str, mut stats: Vec<(String, StatValue)>| {
            stats.push(("decided_by".into(), StatValue::Text(by.to_string())));
            Answer {
                engine: NAME.into(),
                outcome,
                stats,
            }
        };

        use crate::stage::{enter, Stage};
        // Stage 0: the closed form of a generated machine's all-to-all.
        enter(progress, Stage::ClosedForm);
        match super::closed_form::closed_form_until(traffic, deadline) {
            Ok(form) => {
                stats.extend(form.stats());
                let outcome = Outcome::Liquid {
                    schedule: form.schedule,
                };
                return Ok(finish(outcome, super::closed_form::NAME, stats).into());
            }
            Err(why @ super::closed_form::NoForm::NoClosedForm(_)) => {
                say(&mut stats, "closed_form", &why.to_string())
            }
            // Past the deadline: nothing else runs (a later stage's set-up, such as the
            // repair search's placement, would take longer than the closed form).
            Err(why @ super::closed_form::NoForm::TimeLimit) => {
                say(&mut stats, "closed_form", &why.to_string());
                return Ok(finish(nothing(), "none (limit reached)", stats).into());
            }
            Err(super::closed_form::NoForm::NotAMachine(_)) => {}
        }

        // Stage 0, then: the orbits of a group, for all-to-all traffics.
        enter(progress, Stage::Structure);
        if let Some((outcome, group)) =
            liquid_search::native::liquid_by_structure(traffic, deadline)
        {
            say(&mut stats, "structure", &group);
            return Ok(finish(outcome, "structure", stats).into());
        }

        let share_deadline = |num: u32, den: u32| left().map(|t| Instant::now() + t * num / den);
        let lambda = traffic.duration();
        // No time left (a limit the building of the model used up): the repair's
        // placement alone takes seconds at a million transfers, and looks at no clock.
        if out_of_time() {
            return Ok(finish(nothing(), "none (limit reached)", stats).into());
        }
        // Stage 1a, from REPAIR_FIRST transfers up: the repair search from its own
        // placement, within half the time left (DSatur takes minutes there).
        let mut repaired: Option<Schedule> = None;
        let repair_fits = liquid_search::repair::fits(traffic, lambda);
        if repair_fits && traffic.len() >= repair_first {
            enter(progress, Stage::Repair);
            let r = liquid_search::repair::repair(
                traffic,
                None,
                lambda,
                req.seed,
                limits.nodes,
                share_deadline(1, 2),
                progress,
            );
            stats.push(("repair_length".into(), StatValue::Count(r.schedule.len() as u64)));
            stats.push(("repair_steps".into(), StatValue::Count(r.steps)));
            if r.placed_all {
                let outcome = Outcome::settle(traffic, Some(r.schedule), LowerBound::duration(traffic), true);
                return Ok(finish(outcome, liquid_search::repair::ENGINE, stats).into());
            }
            repaired = Some(r.schedule);
        }

        // Stage 1a', from REPAIR_FIRST transfers up: first fit, before DSatur. On a link
        // of many users DSatur is quadratic (one transfer with `count: 100000` took it 25
        // s, a million more than the default limit) where first fit is linear.
        let fit_first = traffic.len() >= repair_first;
        if fit_first {
            enter(progress, Stage::FirstFit);
            if let Some(outcome) = first_fit_stage(traffic, req, left(), &mut stats, &mut repaired) {
                return Ok(finish(outcome, "first fit", stats).into());
            }
        }

        // Stage 1: DSatur, within its share of the time limit (at data-centre scale it
        // takes minutes).
        let dsatur_limits = Limits {
            time: left().map(|t| t * share.0 / share.1),
            nodes: limits.nodes,
        };
        enter(progress, Stage::Dsatur);
        let dsatur = liquid_search::dsatur::solve_with_progress(traffic, &dsatur_limits, progress);
        match dsatur.outcome.schedule() {
            Some(s) => stats.push(("dsatur_length".into(), StatValue::Count(s.len() as u64))),
            None => say(&mut stats, "dsatur_verdict", dsatur.verdict().as_str()),
        }
        if dsatur.verdict() == Verdict::Liquid {
            return Ok(finish(dsatur.outcome, liquid_search::dsatur::ENGINE, stats).into());
        }
        let mut best = shorter(repaired, dsatur.outcome.into_schedule());
        // Stage 1b: first fit with the rest of the time, when DSatur was stopped by its
        // share (so that a limit still leaves a schedule) or finished above Λ (first fit
        // is sometimes shorter: 1,195 against DSatur's 1,265 frames on `dragonfly:8,4,4`);
        // the shorter schedule is kept.
        if !fit_first && !out_of_time() {
            enter(progress, Stage::FirstFit);
            if let Some(outcome) = first_fit_stage(traffic, req, left(), &mut stats, &mut best) {
                return Ok(finish(outcome, "first fit", stats).into());
            }
        }
        // Stage 1c, below REPAIR_FIRST transfers: the repair search from the best schedule
        // so far, on a step budget and a quarter of the time left.
        if let Some(start) = best.as_ref().filter(|_| repair_fits && traffic.len() < repair_first) {
            enter(progress, Stage::Repair);
            let r = liquid_search::repair::repair(
                traffic,
                Some(start),
                lambda,
                req.seed,
                Some(repair_steps(traffic.len(), limits.nodes)),
                share_deadline(1, 4),
                progress,
            );
            stats.push(("repair_steps".into(), StatValue::Count(r.steps)));
            if r.placed_all {
                let outcome = Outcome::settle(traffic, Some(r.schedule), LowerBound::duration(traffic), true);
                return Ok(finish(outcome, liquid_search::repair::ENGINE, stats).into());
            }
        }
        let mut bound = LowerBound::duration(traffic);
        // No time left: the later stages would only spend their set-up time (seconds at a
        // million transfers) past the limit.
        if out_of_time() {
            let outcome = Outcome::settle(traffic, best, bound, false);
            return Ok(finish(outcome, "none (limit reached)", stats).into());
        }

        // Stage 2: the native search on a node budget.
        let native_limits = Limits {
            time: left().map(|t| t / 2),
            nodes: Some(limits.nodes.map_or(NATIVE_NODES, |n| n.min(NATIVE_NODES))),
        };
        enter(progress, Stage::Native);
        let native = liquid_search::native::search_with_cover(
            traffic,
            &native_limits,
            req.seed,
            limits.nodes.map_or(liquid_search::native::COVER_NODES, |n| {
                n.min(liquid_search::native::COVER_NODES)
            }),
            progress,
        );
        say(&mut stats, "native_verdict", native.verdict().as_str());
        // What the cover stage of the native stage did, when it ran.
        stats.extend(
            native
                .stats
                .iter()
                .filter(|(k, _)| k.starts_with("cover") || k == "symmetry")
                .cloned(),
        );
        if native.verdict() == Verdict::Liquid {
            return Ok(finish(native.outcome, liquid_search::native::ENGINE, stats).into());
        }
        bound = bound.better(native.outcome.lower_bound(traffic));
        if best.as_ref().is_some_and(|s| s.len() == bound.value) {
            let outcome = Outcome::settle(traffic, best, bound, false);
            let answer = finish(outcome, "native+dsatur", stats);
            return Ok(with_search_proof(traffic, answer, req.proofs, deadline));
        }

        if out_of_time() {
            let outcome = Outcome::settle(traffic, best, bound, false);
            return Ok(finish(outcome, "none (limit reached)", stats).into());
        }

        // Stage 3: SAT from the best schedule, or the exact engine when SAT refuses.
        let rest = Limits {
            time: left(),
            nodes: limits.nodes,
        };
        let opts = SatOptions {
            proofs: req.proofs,
            start: best.clone(),
            seed: req.seed,
            ..Default::default()
        };
        enter(progress, Stage::Sat);
        let (third, refutation, by) = match liquid_sat::solve_with(traffic, &rest, &opts, progress)
        {
            Ok(r) => (r.answer, r.refutation, liquid_sat::ENGINE),
            Err(liquid_sat::SatError::Encode(e)) => {
                say(&mut stats, "sat_skipped", &e.to_string());
                enter(progress, Stage::Exact);
                (
                    liquid_search::exact::solve_with_progress(traffic, &rest, progress),
                    None,
                    liquid_search::exact::ENGINE,
                )
            }
            Err(e) => return Err(EngineError::Failed(e.to_string())),
        };
        say(
            &mut stats,
            &format!("{by}_verdict"),
            third.verdict().as_str(),
        );
        let third_bound = third.outcome.lower_bound(traffic);
        best = shorter(best, third.outcome.into_schedule());
        bound = bound.better(third_bound);
        // The refutation backs the final bound only if it is of one timeframe fewer.
        let refutation = refutation.filter(|r| r.colours + 1 == bound.value);
        let outcome = Outcome::settle(traffic, best, bound, false);
        let decided = match outcome.verdict() {
            Verdict::Liquid | Verdict::Optimal => by,
            _ => "none (limit reached)",
        };
        Ok(Run {
            answer: finish(outcome, decided, stats),
            refutation,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::check_outcome;

    /// The same transfers under another name, which the closed-form stage does not
    /// recognise as a machine: for the tests of the generic stages on a machine's traffic.
    fn generic(t: &Traffic) -> Traffic {
        let paths: Vec<(String, Vec<String>)> = t
            .transfers()
            .iter()
            .map(|x| {
                let p = x.path.iter().map(|&l| t.link_name(l).to_string());
                (x.id.clone(), p.collect())
            })
            .collect();
        let g = Traffic::from_paths("generic", &paths).expect("valid");
        assert!(super::super::closed_form::closed_form(&g).is_err());
        g
    }

    /// The closed-form stage answers a machine that has one before any other stage, named
    /// with its construction; one without says why and goes on.
    #[test]
    fn the_closed_form_stage_answers_first() {
        let machine = |spec: &str| {
            liquid_topology::spec::traffic(spec)
                .expect("valid")
                .expect("a spec")
        };
        let t = machine("dragonfly:4,2,2");
        let run = Portfolio
            .run(&t, &Request::default(), &AtomicU64::new(0))
            .expect("runs");
        assert_eq!(run.answer.outcome.verdict(), Verdict::Liquid);
        let stats: Vec<&str> = run.answer.stats.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(stats, ["machine", "construction", "decided_by"]);
        assert!(matches!(&run.answer.stats[2].1, StatValue::Text(x) if x == "closed-form"));
        let t = machine("rail:3,2,1");
        let run = Portfolio
            .run(&t, &Request::default(), &AtomicU64::new(0))
            .expect("runs");
        assert!(
            matches!(&run.answer.stats[0], (k, StatValue::Text(x)) if k == "closed_form" && x.contains("no closed-form schedule for rail:3,2,1")),
            "{:?}",
            run.answer.stats
        );
    }

    /// The progress counter names the stage that ran last: the closed form for a machine
    /// that has one, the native search for queen11_11 (liquid there), SAT for the odd wheel
    /// (DSatur's 4 frames against native's clique of 3).
    #[test]
    fn the_progress_counter_names_the_last_stage() {
        let last = |t: &Traffic| {
            let p = AtomicU64::new(0);
            Portfolio.run(t, &Request::default(), &p).expect("runs");
            crate::stage::read(p.load(std::sync::atomic::Ordering::Relaxed)).0.map(|s| s.0)
        };
        let machine = liquid_topology::spec::traffic("dragonfly:4,2,2")
            .expect("valid")
            .expect("a spec");
        assert_eq!(last(&machine), Some("closed form"));
        assert_eq!(last(&liquid_model::examples::queens(11)), Some("native search"));
        let wheel = liquid_model::yaml::load_model(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../models/odd-wheel.yaml"
        )))
        .expect("the bundled model");
        assert_eq!(last(&wheel), Some("SAT"));
    }

    /// The portfolio's native stage reaches the cover stage: queen11_11's liquid schedule
    /// (which neither DSatur nor the full-team search's first nodes find).
    #[test]
    fn the_native_stage_reaches_the_cover_stage() {
        let t = liquid_model::examples::queens(11);
        let run = Portfolio
            .run(&t, &Request::default(), &AtomicU64::new(0))
            .expect("runs");
        check_outcome(&t, &run.answer.outcome).expect("consistent outcome");
        assert_eq!(run.answer.outcome.verdict(), Verdict::Liquid);
        let cover = run.answer.stats.iter().find(|(k, _)| k == "cover");
        assert!(
            matches!(cover, Some((_, StatValue::Text(x))) if x.starts_with("liquid")),
            "{:?}",
            run.answer.stats
        );
    }

    /// DSatur stopped by its share of the limit (here: given none, as on a million
    /// transfers where it needs minutes) leaves first fit's schedule, which the later
    /// stages start from; before the share, DSatur took the whole limit and the answer
    /// had no schedule.
    #[test]
    fn a_dsatur_stopped_by_its_share_leaves_first_fits_schedule() {
        let t = generic(
            &liquid_topology::dragonfly::Dragonfly::parse("dragonfly:4,2,2", "4,2,2")
                .expect("a valid spec")
                .generated()
                .expect("builds")
                .expand()
                .expect("expands"),
        );
        let request = Request {
            limits: Limits {
                time: Some(std::time::Duration::from_secs(2)),
                nodes: None,
            },
            ..Request::default()
        };
        let run =
            run_with_share(&t, &request, &AtomicU64::new(0), (0, 1), REPAIR_FIRST).expect("runs");
        check_outcome(&t, &run.answer.outcome).expect("consistent outcome");
        let schedule = run.answer.outcome.schedule().expect("a schedule");
        liquid_model::validate(&t, schedule).expect("a valid schedule");
        let stat = |k: &str| run.answer.stats.iter().find(|(n, _)| n == k).cloned();
        assert!(
            matches!(stat("dsatur_verdict"), Some((_, StatValue::Text(v))) if v == "unknown"),
            "{:?}",
            run.answer.stats
        );
        assert!(
            matches!(stat("first_fit_length"), Some((_, StatValue::Count(n))) if n as usize >= schedule.len()),
            "{:?}",
            run.answer.stats
        );
    }

    /// DSatur finishing above Λ is followed by first fit, and the answer's schedule is
    /// no longer than either (before: DSatur's was kept even when first fit's was shorter).
    #[test]
    fn a_finished_dsatur_is_followed_by_first_fit_and_the_shorter_is_kept() {
        let t = generic(
            &liquid_topology::dragonfly::Dragonfly::parse("dragonfly:4,2,2", "4,2,2")
                .expect("a valid spec")
                .traffic()
                .expect("builds"),
        );
        let request = Request {
            limits: Limits {
                time: Some(std::time::Duration::from_secs(3)),
                nodes: None,
            },
            ..Request::default()
        };
        let run = Portfolio
            .run(&t, &request, &AtomicU64::new(0))
            .expect("runs");
        check_outcome(&t, &run.answer.outcome).expect("consistent outcome");
        let schedule = run.answer.outcome.schedule().expect("a schedule");
        liquid_model::validate(&t, schedule).expect("a valid schedule");
        let count = |k: &str| match run.answer.stats.iter().find(|(n, _)| n == k) {
            Some((_, StatValue::Count(n))) => *n as usize,
            other => panic!("{k}: {other:?} in {:?}", run.answer.stats),
        };
        assert!(schedule.len() <= count("dsatur_length").min(count("first_fit_length")));
    }

    /// From `repair_first` transfers up, first fit runs before DSatur and settles a
    /// traffic of many copies of one transfer (DSatur is quadratic there); below, DSatur
    /// settles it first.
    #[test]
    fn a_large_traffic_is_first_fitted_before_dsatur() {
        let mut ts: Vec<(String, Vec<String>)> = (0..5000)
            .map(|i| {
                let path = vec!["a".into(), "b".into(), "c".into(), format!("v{i}")];
                (format!("c#{i}"), path)
            })
            .collect();
        ts.extend(["a", "b", "c"].map(|l| (format!("x{l}"), vec![l.to_string()])));
        let t = Traffic::from_paths("copies", &ts).expect("valid");
        assert!(!liquid_search::repair::fits(&t, t.duration()), "no repair stage");
        for (repair_first, by) in [(0, "first fit"), (REPAIR_FIRST, "dsatur")] {
            let stats = decided_at(&t, repair_first, 5001, by);
            assert_eq!(
                stats.iter().any(|k| k.starts_with("dsatur")),
                by == "dsatur",
                "{stats:?}"
            );
        }
    }

    /// Runs the portfolio with the repair search first from `repair_first` transfers up,
    /// checks its answer, that its schedule has `length` timeframes and that `by`
    /// decided; returns the names of its statistics.
    fn decided_at(t: &Traffic, repair_first: usize, length: usize, by: &str) -> Vec<String> {
        let run = run_with_share(
            t,
            &Request::default(),
            &AtomicU64::new(0),
            DSATUR_SHARE,
            repair_first,
        )
        .expect("runs");
        check_outcome(t, &run.answer.outcome).expect("consistent outcome");
        let schedule = run.answer.outcome.schedule().expect("a schedule");
        assert_eq!(liquid_model::validate(t, schedule).expect("valid").length, length);
        let decided = run.answer.stats.iter().find(|(k, _)| k == "decided_by");
        assert!(
            matches!(decided, Some((_, StatValue::Text(x))) if x == by),
            "{:?}",
            run.answer.stats
        );
        run.answer.stats.into_iter().map(|(k, _)| k).collect()
    }

    /// queen7_7: DSatur needs more than Λ = 7 timeframes; the repair stage reaches 7 from
    /// DSatur's schedule (below REPAIR_FIRST) and from its own placement (from it up),
    /// before the native search runs.
    #[test]
    fn the_repair_stage_reaches_lambda_where_dsatur_does_not() {
        let t = liquid_model::examples::queens(7);
        assert!(liquid_search::dsatur::colour(&t).colours > 7);
        for repair_first in [REPAIR_FIRST, 0] {
            let stats = decided_at(&t, repair_first, 7, "repair");
            let repaired_first = stats.iter().any(|k| k == "repair_length");
            assert_eq!(repaired_first, repair_first == 0, "{stats:?}");
        }
    }

    #[test]
    fn a_zero_limit_skips_the_later_stages_and_answers_unknown() {
        let t = liquid_model::examples::odd_cycle();
        let request = Request {
            limits: Limits {
                time: Some(std::time::Duration::ZERO),
                nodes: None,
            },
            ..Request::default()
        };
        let run = Portfolio
            .run(&t, &request, &AtomicU64::new(0))
            .expect("runs");
        check_outcome(&t, &run.answer.outcome).expect("consistent outcome");
        assert_eq!(run.answer.outcome.verdict(), Verdict::Unknown);
        assert!(run.answer.outcome.schedule().is_none());
        // Not even DSatur or the repair's placement (seconds at a million transfers).
        let stats: Vec<&str> = run.answer.stats.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(stats, ["decided_by"]);
    }
}
