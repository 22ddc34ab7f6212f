//! ILP engine for liquid: the optimal schedule length as a 0-1 program solved by HiGHS
//! (through `good_lp`), with the MIP dual bound as the optimality certificate, and a
//! CPLEX-LP export of the same model for external solvers.
//!
//! The model (see `formulation.rs` for every row and why the symmetry breaking is sound)
//! offers K timeframes, K = the length of a starting schedule ([`offered_frames`]: the
//! one place K is chosen, by `solve` and by the LP export), so the model stays small and
//! always has a solution; it minimises the number of used timeframes.
//!
//! Verdicts: `liquid` when the schedule has Λ timeframes, on every path (a starting
//! schedule of Λ timeframes is the answer, without HiGHS: no search can shorten it); `optimal` only when the schedule
//! meets ⌈dual bound − 1e-6⌉ (the solver's own bound: its word, reported as such);
//! `non-liquid` when that bound exceeds Λ but the gap is open; `unknown` when a limit
//! stopped the solver first, with the best schedule (HiGHS's or the starting one). Every
//! step honours the time limit: the starting DSatur run, the model's construction (checked
//! row by row), its hand-over to HiGHS and HiGHS, which gets the time that remains less a
//! reserve (see [`run_highs`]). The solver saying "infeasible" is never taken as a proof:
//! for [`solve`] it is an error (the model has a solution by construction), for
//! [`decide_liquid`] it is reported as `unknown` with HiGHS's status in the stats (the SAT
//! engine's clausal proof is the certificate of non-liquidity).
//!
//! This is the only crate of the workspace that links HiGHS.
#![forbid(unsafe_code)]

mod formulation;
mod lp;

use good_lp::solvers::highs::highs;
use good_lp::{variable, Expression, ProblemVariables, SolverModel, Variable};
use highs::{HighsModelStatus, HighsSolutionStatus};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{
    Answer, Evidence, Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId,
};
use thiserror::Error;

use crate::formulation::{Formulation, Sense};
pub use crate::lp::{lp_file, write_lp, LpRefusal};

/// The engine's name in reports.
pub const ENGINE: &str = "ilp";

/// Tolerance when rounding the dual bound up: ⌈bound − 1e-6⌉.
const BOUND_TOLERANCE: f64 = 1e-6;

/// Why the ILP engine could not answer.
#[derive(Debug, Error)]
pub enum IlpError {
    /// HiGHS rejected the model or an option.
    #[error("HiGHS rejected the model: {0}")]
    Setup(String),
    /// HiGHS failed while solving.
    #[error("HiGHS failed while solving: {0}")]
    Solve(String),
    /// HiGHS says the model with K = DSatur's length has no solution, which is false by
    /// construction (DSatur's colouring is one): a solver or modelling failure, never a
    /// proof of anything.
    #[error(
        "HiGHS reports the model infeasible (status {status}), but DSatur's colouring with \
         {k} timeframes is a solution: solver or model failure"
    )]
    UnexpectedInfeasible {
        /// HiGHS's model status.
        status: String,
        /// The upper bound K offered.
        k: usize,
    },
    /// The solver's solution does not put a transfer in exactly one timeframe.
    #[error("HiGHS's solution places transfer {0:?} in no single timeframe")]
    NotIntegral(String),
    /// The model would exceed [`MAX_NONZEROS`]: said up front, before memory runs out.
    #[error(
        "the 0-1 model with {colours} timeframes would hold about {nonzeros} nonzeros \
         ({transfers} transfers), beyond the limit of {limit}: too large for the ILP engine; \
         use the dsatur or native engine"
    )]
    TooLarge {
        /// Transfers.
        transfers: usize,
        /// Timeframes offered.
        colours: usize,
        /// Estimated nonzeros.
        nonzeros: usize,
        /// [`MAX_NONZEROS`].
        limit: usize,
    },
}

/// The largest model the ILP engine builds, in constraint-matrix nonzeros (about 2^25:
/// a few GiB in good_lp's expressions and HiGHS together).
pub const MAX_NONZEROS: usize = 1 << 25;

/// Sets what every liquid run of HiGHS needs: no log (HiGHS logs to stdout by default, and
/// `liquid`'s stdout must stay a clean report), one thread and no parallel search (the
/// same answer on every run), and a relative MIP gap of 0 (an optimum, not a near one).
/// The name of an option HiGHS refused, if one was.
pub fn exact_and_quiet(model: &mut highs::Model) -> Result<(), &'static str> {
    let opt = |r: Result<(), highs::TrySetOptionError>, name: &'static str| r.map_err(|_| name);
    opt(model.try_set_option("output_flag", false), "output_flag")?;
    opt(
        model.try_set_option("log_to_console", false),
        "log_to_console",
    )?;
    opt(model.try_set_option("threads", 1), "threads")?;
    opt(model.try_set_option("parallel", "off"), "parallel")?;
    opt(model.try_set_option("mip_rel_gap", 0.0), "mip_rel_gap")
}

/// An upper estimate of the nonzeros of the model with `k` timeframes, in O(1): every
/// x[t,c] sits in its transfer's assignment row and in one link row per link of its path,
/// plus the y[c] of the link, ordering and objective rows.
pub fn estimated_nonzeros(traffic: &Traffic, k: usize) -> Option<usize> {
    let per_frame = traffic.len().checked_add(traffic.total_path_length())?;
    k.checked_mul(per_frame)?
        .checked_add(k.checked_mul(traffic.num_links().checked_add(3)?)?)
}

/// Refuses a model with `k` timeframes that would exceed [`MAX_NONZEROS`].
pub fn check_size(traffic: &Traffic, k: usize) -> Result<(), IlpError> {
    match estimated_nonzeros(traffic, k) {
        Some(n) if n <= MAX_NONZEROS => Ok(()),
        n => Err(IlpError::TooLarge {
            transfers: traffic.len(),
            colours: k,
            nonzeros: n.unwrap_or(usize::MAX),
            limit: MAX_NONZEROS,
        }),
    }
}

/// HiGHS's model status as a short name for reports.
fn status_name(s: HighsModelStatus) -> &'static str {
    match s {
        HighsModelStatus::NotSet => "not-set",
        HighsModelStatus::LoadError => "load-error",
        HighsModelStatus::ModelError => "model-error",
        HighsModelStatus::PresolveError => "presolve-error",
        HighsModelStatus::SolveError => "solve-error",
        HighsModelStatus::PostsolveError => "postsolve-error",
        HighsModelStatus::ModelEmpty => "model-empty",
        HighsModelStatus::Infeasible => "infeasible",
        HighsModelStatus::UnboundedOrInfeasible => "unbounded-or-infeasible",
        HighsModelStatus::Unbounded => "unbounded",
        HighsModelStatus::Optimal => "optimal",
        HighsModelStatus::ObjectiveBound => "objective-bound",
        HighsModelStatus::ObjectiveTarget => "objective-target",
        HighsModelStatus::ReachedTimeLimit => "time-limit",
        HighsModelStatus::ReachedIterationLimit => "iteration-limit",
        HighsModelStatus::Unknown => "unknown",
        HighsModelStatus::ReachedSolutionLimit => "solution-limit",
        HighsModelStatus::ReachedInterrupt => "interrupted",
        HighsModelStatus::ReachedMemoryLimit => "memory-limit",
        _ => "other",
    }
}

/// What one HiGHS run returned.
struct Run {
    status: HighsModelStatus,
    /// Column values, when HiGHS has a feasible primal solution.
    columns: Option<Vec<f64>>,
    objective: f64,
    dual_bound: f64,
    gap: f64,
    variables: usize,
    constraints: usize,
}

/// Builds the formulation with good_lp, takes the `highs::Model` out of it, sets the
/// options good_lp would only apply inside its own `solve` (quiet, one thread, gap 0,
/// limits), solves, and reads the MIP dual bound from HiGHS's info.
///
/// Under a deadline two steps cannot be interrupted and are paid for in advance. The
/// hand-over of the rows to HiGHS takes about as long as building them (1.8 s after 3 s
/// at 128 hosts, 2.6 M columns): it starts only if at least the building time remains.
/// HiGHS reads its clock only between phases and ran over its `time_limit` by about as
/// long as the hand-over took (1.3 s at 128 hosts), so it gets the time that remains less
/// that reserve; `None` (no HiGHS run) when nothing is left.
fn run_highs(
    f: &Formulation,
    limits: &Limits,
    deadline: Option<Instant>,
    start: Option<&[f64]>,
) -> Result<Option<Run>, IlpError> {
    let passed = || deadline.is_some_and(|d| Instant::now() >= d);
    let mut vars = ProblemVariables::new();
    // good_lp creates HiGHS columns in the order variables are added: column j = cols[j].
    let cols: Vec<Variable> = (0..f.num_vars())
        .map(|_| vars.add(variable().binary()))
        .collect();
    let mut objective = Expression::with_capacity(f.k);
    if f.minimise {
        for c in 0..f.k {
            objective.add_mul(1.0, cols[f.y(c)]);
        }
    }
    let mut problem = vars.minimise(objective).using(highs);
    let building = Instant::now();
    for (i, row) in f.rows.iter().enumerate() {
        if i % 1024 == 1023 && passed() {
            return Ok(None);
        }
        let mut e = Expression::with_capacity(row.terms.len());
        for &(v, coef) in &row.terms {
            e.add_mul(coef, cols[v]);
        }
        problem.add_constraint(match row.sense {
            Sense::Le => e.leq(row.rhs),
            Sense::Eq => e.eq(row.rhs),
            Sense::Ge => e.geq(row.rhs),
        });
    }
    let built = building.elapsed();
    if deadline.is_some_and(|d| d.saturating_duration_since(Instant::now()) < built) {
        return Ok(None);
    }
    let handing_over = Instant::now();
    let mut model = problem
        .try_into_inner()
        .map_err(|e| IlpError::Setup(e.to_string()))?;
    let reserve = handing_over.elapsed();
    let opt = |r: Result<(), highs::TrySetOptionError>, name: &str| {
        r.map_err(|_| IlpError::Setup(format!("option {name} refused")))
    };
    exact_and_quiet(&mut model)
        .map_err(|name| IlpError::Setup(format!("option {name} refused")))?;
    if let Some(d) = deadline {
        // The time that remains after building the model, less the reserve.
        let left = d
            .saturating_duration_since(Instant::now())
            .saturating_sub(reserve);
        if left.is_zero() {
            return Ok(None);
        }
        opt(
            model.try_set_option("time_limit", left.as_secs_f64()),
            "time_limit",
        )?;
    }
    if let Some(nodes) = limits.nodes {
        let nodes = i32::try_from(nodes).unwrap_or(i32::MAX);
        opt(
            model.try_set_option("mip_max_nodes", nodes),
            "mip_max_nodes",
        )?;
    }
    if let Some(start) = start {
        model
            .try_set_solution(Some(start), None, None, None)
            .map_err(|e| IlpError::Setup(format!("initial solution refused: {e:?}")))?;
    }
    let variables = model.num_cols();
    let constraints = model.num_rows();
    let solved = model
        .try_solve()
        .map_err(|e| IlpError::Solve(format!("{e:?}")))?;
    let status = solved.status();
    let columns = (solved.primal_solution_status() == HighsSolutionStatus::Feasible)
        .then(|| solved.get_solution().columns().to_vec());
    let dual_bound = solved
        .double_info_value(c"mip_dual_bound")
        .map_err(|e| IlpError::Solve(format!("cannot read mip_dual_bound: {e:?}")))?;
    Ok(Some(Run {
        status,
        columns,
        objective: solved.objective_value(),
        dual_bound,
        gap: solved.mip_gap(),
        variables,
        constraints,
    }))
}

/// Fails on the statuses that carry no usable answer (errors), and on "infeasible"
/// when the model is known to have a solution.
fn check_status(run: &Run, k: usize, infeasible_is_error: bool) -> Result<(), IlpError> {
    match run.status {
        HighsModelStatus::NotSet
        | HighsModelStatus::LoadError
        | HighsModelStatus::ModelError
        | HighsModelStatus::PresolveError
        | HighsModelStatus::SolveError
        | HighsModelStatus::PostsolveError
        | HighsModelStatus::ModelEmpty
        | HighsModelStatus::Unbounded => Err(IlpError::Solve(format!(
            "model status {}",
            status_name(run.status)
        ))),
        HighsModelStatus::Infeasible | HighsModelStatus::UnboundedOrInfeasible
            if infeasible_is_error =>
        {
            Err(IlpError::UnexpectedInfeasible {
                status: status_name(run.status).to_string(),
                k,
            })
        }
        _ => Ok(()),
    }
}

/// The schedule in the solver's columns: frames in increasing index, empty ones dropped.
fn extract(traffic: &Traffic, f: &Formulation, cols: &[f64]) -> Result<Schedule, IlpError> {
    let mut frames: Vec<Vec<TransferId>> = vec![Vec::new(); f.k];
    for t in traffic.transfer_ids() {
        let row = &cols[t.index() * f.k..(t.index() + 1) * f.k];
        let mut on = (0..f.k).filter(|&c| row[c] > 0.5);
        match (on.next(), on.next()) {
            (Some(c), None) => frames[c].push(t),
            _ => return Err(IlpError::NotIntegral(traffic.transfer_name(t).to_string())),
        }
    }
    frames.retain(|fr| !fr.is_empty());
    Ok(Schedule::new(frames))
}

/// DSatur's colouring relabelled to satisfy the model's rows: the i-th bottleneck user's
/// colour becomes frame i, the other colours follow in increasing order, isolated
/// transfers go to frame 0, and y[c] = 1 for every colour.
fn dsatur_start(traffic: &Traffic, f: &Formulation, colour: &[u32], colours: usize) -> Vec<f64> {
    const NONE: usize = usize::MAX;
    let mut perm = vec![NONE; colours];
    let bottleneck = traffic.bottlenecks()[0];
    for (i, &u) in traffic.users(bottleneck).iter().enumerate() {
        perm[colour[u.index()] as usize] = i;
    }
    let mut next = traffic.duration();
    for p in perm.iter_mut() {
        if *p == NONE {
            *p = next;
            next += 1;
        }
    }
    let mut v = vec![0.0; f.num_vars()];
    for t in traffic.transfer_ids() {
        let isolated = traffic
            .transfer(t)
            .path
            .iter()
            .all(|&l| traffic.load(l) < 2);
        let frame = if isolated {
            0
        } else {
            perm[colour[t.index()] as usize]
        };
        v[t.index() * f.k + frame] = 1.0;
    }
    for c in 0..colours {
        v[f.y(c)] = 1.0;
    }
    v
}

fn base_stats(mode: &str, f: &Formulation, run: &Run) -> Vec<(String, StatValue)> {
    vec![
        ("mode".to_string(), StatValue::Text(mode.to_string())),
        ("frames_offered".to_string(), StatValue::Count(f.k as u64)),
        (
            "variables".to_string(),
            StatValue::Count(run.variables as u64),
        ),
        (
            "constraints".to_string(),
            StatValue::Count(run.constraints as u64),
        ),
        (
            "highs_status".to_string(),
            StatValue::Text(status_name(run.status).to_string()),
        ),
    ]
}

/// The timeframes the model offers (K): the length of a starting schedule, DSatur's
/// (computed within the deadline; `None` when it passes first), with that schedule's
/// colouring. The one place K is chosen: [`solve`] and `liquid encode --format lp` use it.
pub fn offered_frames(
    traffic: &Traffic,
    deadline: Option<Instant>,
    progress: &AtomicU64,
) -> Option<liquid_search::dsatur::Colouring> {
    liquid_search::dsatur::colour_until(traffic, deadline, progress)
}

/// The answer when HiGHS did not run to the end (a limit, or a starting schedule that
/// already meets Λ): settled by [`Outcome::settle`], so a schedule of Λ timeframes is
/// `liquid` and anything else `unknown`, with `why` in the `stopped` stat.
fn stopped(traffic: &Traffic, best: Option<Schedule>, mode: &str, why: &str) -> Answer {
    Answer::new(
        ENGINE,
        Outcome::settle(traffic, best, LowerBound::duration(traffic), false),
    )
    .stat("mode", StatValue::Text(mode.to_string()))
    .stat("stopped", StatValue::Text(why.to_string()))
}

/// Finds a shortest schedule of `traffic` with HiGHS, proven optimal by the MIP dual bound
/// unless a limit (`limits.time`, `limits.nodes` as HiGHS's `mip_max_nodes`) stops it.
///
/// One thread, relative gap 0, HiGHS's output silenced. The model offers K =
/// [`offered_frames`] timeframes and starts from that colouring. Stats: `mode`,
/// `frames_offered` (K), `variables`, `constraints`, `highs_status`, `objective` (when a
/// solution exists), `dual_bound` (HiGHS's `mip_dual_bound`) and `gap` (HiGHS's `mip_gap`).
pub fn solve(traffic: &Traffic, limits: &Limits, progress: &AtomicU64) -> Result<Answer, IlpError> {
    // K is at least Λ: refuse before DSatur when even Λ timeframes are too many.
    check_size(traffic, traffic.duration())?;
    let deadline = limits.deadline();
    let Some(dsatur) = offered_frames(traffic, deadline, progress) else {
        return Ok(stopped(
            traffic,
            None,
            "optimise",
            "time limit (before a starting schedule)",
        ));
    };
    // DSatur's count stops here: the display names the solver.
    liquid_model::stage::enter(progress, liquid_model::stage::Stage::Highs);
    let k = dsatur.colours as usize;
    if k == traffic.duration() {
        // DSatur's schedule meets the bound Λ: it is liquid, and HiGHS could only confirm.
        return Ok(stopped(
            traffic,
            Some(dsatur.to_schedule()),
            "optimise",
            "starting schedule meets the bound",
        ));
    }
    check_size(traffic, k)?;
    let f = Formulation::new(traffic, k, true);
    let start = dsatur_start(traffic, &f, &dsatur.colour, k);
    let Some(run) = run_highs(&f, limits, deadline, Some(&start))? else {
        return Ok(stopped(
            traffic,
            Some(dsatur.to_schedule()),
            "optimise",
            "time limit (while building the model)",
        ));
    };
    check_status(&run, k, true)?;
    let lambda = traffic.duration();
    let schedule = match &run.columns {
        Some(cols) => Some(extract(traffic, &f, cols)?),
        None => Some(dsatur.to_schedule()),
    };
    let bound = if run.dual_bound.is_finite() {
        (run.dual_bound - BOUND_TOLERANCE).ceil()
    } else {
        f64::NEG_INFINITY
    };
    let lower_bound = if bound > lambda as f64 {
        LowerBound {
            value: bound as usize,
            evidence: Evidence::DualBound {
                bound: run.dual_bound,
            },
        }
    } else {
        LowerBound::duration(traffic)
    };
    let objective = run.objective.round();
    let outcome = Outcome::settle(traffic, schedule, lower_bound, false);
    let mut stats = base_stats("optimise", &f, &run);
    if run.columns.is_some() {
        stats.push((
            "objective".to_string(),
            StatValue::Count(objective.max(0.0) as u64),
        ));
    }
    stats.push(("dual_bound".to_string(), StatValue::Real(run.dual_bound)));
    stats.push(("gap".to_string(), StatValue::Real(run.gap)));
    Ok(Answer {
        engine: ENGINE.to_string(),
        outcome,
        stats,
    })
}

/// Decides liquidity with the same model restricted to K = Λ timeframes and no objective:
/// `liquid` with a schedule when HiGHS finds one; otherwise `unknown` (a limit, or HiGHS
/// reporting the model infeasible, which is its word and not a checkable proof: the
/// `highs_status` stat says which).
pub fn decide_liquid(traffic: &Traffic, limits: &Limits) -> Result<Answer, IlpError> {
    // The deadline counts from the start: building the formulation is part of the run.
    let deadline = limits.deadline();
    let k = traffic.duration();
    check_size(traffic, k)?;
    let f = Formulation::new(traffic, k, false);
    let Some(run) = run_highs(&f, limits, deadline, None)? else {
        return Ok(stopped(
            traffic,
            None,
            "decide",
            "time limit (while building the model)",
        ));
    };
    check_status(&run, k, false)?;
    let schedule = match &run.columns {
        Some(cols) => Some(extract(traffic, &f, cols)?),
        None => None,
    };
    let outcome = Outcome::settle(traffic, schedule, LowerBound::duration(traffic), false);
    Ok(Answer {
        engine: ENGINE.to_string(),
        outcome,
        stats: base_stats("decide", &f, &run),
    })
}

/// Size of the model [`solve`] builds for `traffic` with `k` timeframes, as
/// (variables, constraints): for benchmarks and reports.
pub fn model_size(traffic: &Traffic, k: usize) -> (usize, usize) {
    let f = Formulation::new(traffic, k, true);
    (f.num_vars(), f.rows.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::{check_outcome, Verdict};

    use liquid_model::examples::no_team;

    #[test]
    fn no_team_is_optimal_at_three() {
        let t = no_team();
        let o = solve(&t, &Limits::default(), &AtomicU64::new(0))
            .expect("solves")
            .outcome;
        check_outcome(&t, &o).expect("passes the gate");
        assert_eq!(o.verdict(), Verdict::Optimal);
        assert_eq!(o.schedule().map(|s| s.len()), Some(3));
        assert_eq!(o.lower_bound(&t).value, 3);
        assert!(matches!(
            o.lower_bound(&t).evidence,
            Evidence::DualBound { .. }
        ));
    }

    #[test]
    fn no_team_is_not_decided_liquid() {
        let t = no_team();
        let o = decide_liquid(&t, &Limits::default()).expect("runs").outcome;
        check_outcome(&t, &o).expect("passes the gate");
        assert_eq!(o.verdict(), Verdict::Unknown);
        assert!(o.schedule().is_none());
    }

    #[test]
    fn isolated_transfers_go_to_frame_zero() {
        let t = Traffic::from_paths(
            "iso",
            &[
                ("a", vec!["l1"]),
                ("b", vec!["l1", "l2"]),
                ("c", vec!["l3"]),
            ],
        )
        .expect("valid traffic");
        let o = solve(&t, &Limits::default(), &AtomicU64::new(0))
            .expect("solves")
            .outcome;
        check_outcome(&t, &o).expect("passes the gate");
        assert_eq!(o.verdict(), Verdict::Liquid);
        assert_eq!(o.schedule().map(|s| s.len()), Some(2));
        let d = decide_liquid(&t, &Limits::default()).expect("runs");
        assert_eq!(d.verdict(), Verdict::Liquid);
    }

    #[test]
    fn a_zero_time_limit_answers_unknown() {
        let t = no_team();
        let zero = Limits {
            time: Some(std::time::Duration::ZERO),
            nodes: None,
        };
        let o = solve(&t, &zero, &AtomicU64::new(0)).expect("runs").outcome;
        check_outcome(&t, &o).expect("passes the gate");
        assert_eq!(o.verdict(), Verdict::Unknown);
    }

    /// 400 transfers on one link: DSatur's schedule has Λ = 400 frames. Under a limit too
    /// short to build the 160,000-column model it was `unknown` with that schedule, which
    /// the gate refuses; it is `liquid`, and HiGHS is not run.
    #[test]
    fn a_starting_schedule_at_the_bound_is_liquid_under_a_short_limit() {
        let names: Vec<String> = (0..400).map(|i| format!("a{i}")).collect();
        let paths: Vec<(&str, Vec<&str>)> = names.iter().map(|n| (n.as_str(), vec!["x"])).collect();
        let t = Traffic::from_paths("big", &paths).expect("valid traffic");
        let short = Limits {
            time: Some(std::time::Duration::from_millis(50)),
            nodes: None,
        };
        let a = solve(&t, &short, &AtomicU64::new(0)).expect("runs");
        check_outcome(&t, &a.outcome).expect("passes the gate");
        assert_eq!(a.verdict(), Verdict::Liquid);
        assert_eq!(a.outcome.schedule().map(|s| s.len()), Some(400));
    }

    #[test]
    fn escaping_is_injective_on_tricky_ids() {
        let ids = ["a_1", "a", "a-1", "a.1", "_", "__", "_5f", "é", "T1->R1"];
        let mut seen = std::collections::HashSet::new();
        for (i, id) in ids.iter().enumerate() {
            let e = formulation::escape(id, i);
            assert!(e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
            assert!(seen.insert(e), "collision on {id}");
        }
        assert_eq!(formulation::escape("T1->R1", 0), "T1_2d_3eR1");
        assert_eq!(formulation::escape(&"x".repeat(300), 7), "_i7");
    }
}
