//! Non-preemptive schedules: every message whole, in timeframes of unequal length (a
//! frame lasts as long as its longest message, overhead and latency included), so that
//! the makespan, the sum of the frames' lengths, is least.
//!
//! - [`frame_bound`]: no such schedule is shorter than max over links of the sum of the
//!   times of the messages crossing the link (each of them is in a frame of its own on
//!   that link, and a frame lasts at least as long as each of its messages): checkable
//!   evidence, the link named.
//! - [`first_fit_decreasing`]: the heuristic for any size: messages longest first, each
//!   into the first frame (in order of opening) where its links are free.
//! - [`exact`]: an ILP (good_lp + HiGHS) that finds the optimum of small traffics within
//!   a time limit; its optimality rests on HiGHS's word (MIP gap 0), its dual bound is
//!   a lower bound on the same word. Formulation: messages sorted longest first; frame f
//!   is "opened" by message f (its longest one, so the frame lasts τ_f); x[i][f] (f ≤ i)
//!   puts message i in frame f; Σ_f x[i][f] = 1; on each link, the messages of frame f
//!   crossing it are at most x[f][f] (none when f itself crosses it, as f is there);
//!   minimise Σ_f τ_f x[f][f]. Every partition into frames is one solution (label each
//!   frame by its longest message), so the optimum is exact.

use std::time::{Duration, Instant};

use good_lp::solvers::highs::highs;
use good_lp::{variable, Expression, ProblemVariables, SolverModel, Variable};
use liquid_model::{LinkId, Schedule, Traffic, TransferId};

use crate::bound::{argmax_links, Platform, TimeSum};
use crate::occupancy::Occupancy;

/// Every message's time alone (overhead + route latency + bytes / slowest link), as a
/// slice of seconds per transfer, with what each time is made of, so that sums of them
/// ([`makespan`], [`frame_bound`]) are added up as a [`TimeSum`] and rounding cannot put
/// a schedule below its bound.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageTimes {
    seconds: Vec<f64>,
    latency: Vec<f64>,
    rate: Vec<f64>,
    bytes: Vec<u64>,
    overhead: f64,
}

impl MessageTimes {
    /// Messages of `bytes[t]` on routes of `latency[t]` seconds and `rate[t]` bytes/s,
    /// each with `overhead` seconds; the three slices as long as each other.
    pub fn from_parts(bytes: &[u64], latency: &[f64], rate: &[f64], overhead: f64) -> Self {
        let seconds = bytes
            .iter()
            .zip(latency.iter().zip(rate))
            .map(|(&b, (&l, &r))| overhead + l + b as f64 / r)
            .collect();
        MessageTimes {
            seconds,
            latency: latency.to_vec(),
            rate: rate.to_vec(),
            bytes: bytes.to_vec(),
            overhead,
        }
    }

    /// The sum of the times of `messages`.
    pub fn sum(&self, messages: impl IntoIterator<Item = TransferId>) -> f64 {
        let mut sum = TimeSum::default();
        for t in messages {
            let i = t.index();
            sum.add(self.latency[i], self.rate[i], self.bytes[i]);
        }
        sum.seconds(self.overhead)
    }
}

impl std::ops::Deref for MessageTimes {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.seconds
    }
}

/// Every message's time alone on `platform` ([`MessageTimes`]).
pub fn message_times(traffic: &Traffic, bytes: &[u64], platform: &Platform) -> MessageTimes {
    let (latency, rate): (Vec<f64>, Vec<f64>) = traffic
        .transfer_ids()
        .map(|t| {
            (
                platform.route_latency(traffic, t),
                platform.route_bandwidth(traffic, t),
            )
        })
        .unzip();
    MessageTimes::from_parts(bytes, &latency, &rate, platform.overhead)
}

/// The makespan of a schedule of whole messages: the sum of its frames' longest message
/// (the first of the longest on a tie), added up as a [`TimeSum`].
pub fn makespan(schedule: &Schedule, times: &MessageTimes) -> f64 {
    times.sum(schedule.frames.iter().filter_map(|f| longest(f, times)))
}

/// A frame's longest message (the first of them on a tie).
fn longest(frame: &[TransferId], times: &[f64]) -> Option<TransferId> {
    let mut best: Option<TransferId> = None;
    for &t in frame {
        if best.is_none_or(|b| times[t.index()] > times[b.index()]) {
            best = Some(t);
        }
    }
    best
}

/// Each frame's length: its longest message's time.
pub fn frame_lengths(schedule: &Schedule, times: &[f64]) -> Vec<f64> {
    schedule
        .frames
        .iter()
        .map(|f| f.iter().map(|t| times[t.index()]).fold(0.0, f64::max))
        .collect()
}

/// The frame bound: its value, seconds, and the links that give it.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameBound {
    /// max over links of Σ τ of the messages crossing it, and over messages of τ.
    pub seconds: f64,
    /// The links at the maximum (empty when a single message gives it).
    pub links: Vec<LinkId>,
}

/// The lower bound of every non-preemptive schedule ([module docs](self)). A link of c
/// lanes holds c messages per frame, so its messages' frames last at least the sum of
/// every c-th of their times, longest first (the sum of all of them with one lane).
pub fn frame_bound(traffic: &Traffic, lanes: &[u32], times: &MessageTimes) -> FrameBound {
    let sums: Vec<f64> = traffic
        .link_ids()
        .map(|l| {
            let c = lanes[l.index()].max(1) as usize;
            let mut ts: Vec<TransferId> = traffic.users(l).to_vec();
            if c > 1 {
                ts.sort_by(|a, b| times[b.index()].total_cmp(&times[a.index()]));
            }
            times.sum(ts.into_iter().step_by(c))
        })
        .collect();
    let (max, links) = argmax_links(&sums);
    let longest = times.iter().copied().fold(0.0, f64::max);
    if longest > max {
        FrameBound {
            seconds: longest,
            links: Vec::new(),
        }
    } else {
        FrameBound {
            seconds: max,
            links,
        }
    }
}

/// Checks a schedule of whole messages: every transfer in exactly one frame and every
/// frame within the links' lanes, by the model's validator ([`liquid_model::validate`]
/// when every link has one lane; otherwise the partition here and the frames with a lane
/// per message, see [`crate::chunk::validate`]).
pub fn validate(traffic: &Traffic, lanes: &[u32], s: &Schedule) -> Result<(), String> {
    if lanes.iter().all(|&c| c <= 1) {
        return liquid_model::validate(traffic, s)
            .map(|_| ())
            .map_err(|e| e.to_string());
    }
    let mut seen = vec![false; traffic.len()];
    for (f, frame) in s.frames.iter().enumerate() {
        if frame.is_empty() {
            return Err(format!("timeframe {} is empty", f + 1));
        }
        for t in frame {
            match seen.get_mut(t.index()) {
                Some(x) if !*x => *x = true,
                Some(_) => {
                    return Err(format!(
                        "{} is in two timeframes",
                        traffic.transfer_name(*t)
                    ))
                }
                None => return Err(format!("timeframe {}: no transfer {}", f + 1, t.index())),
            }
        }
    }
    if let Some(t) = seen.iter().position(|&x| !x) {
        return Err(format!("{} is in no timeframe", traffic.transfers()[t].id));
    }
    let frames: Vec<Vec<(TransferId, u32)>> = s
        .frames
        .iter()
        .map(|f| f.iter().map(|&t| (t, 0)).collect())
        .collect();
    crate::occupancy::check_frames(traffic, lanes, &frames)
}

/// Messages longest first (ties in model order).
fn longest_first(times: &[f64]) -> Vec<TransferId> {
    let mut order: Vec<TransferId> = (0..times.len() as u32).map(TransferId).collect();
    order.sort_by(|a, b| times[b.index()].total_cmp(&times[a.index()]).then(a.cmp(b)));
    order
}

/// First fit decreasing: messages longest first, each into the first frame (in order of
/// opening, so the longest frame that has room) where none of its links is taken.
pub fn first_fit_decreasing(traffic: &Traffic, lanes: &[u32], times: &[f64]) -> Schedule {
    let mut occupied = Occupancy::new(lanes);
    let mut frames: Vec<Vec<TransferId>> = Vec::new();
    for t in longest_first(times) {
        let path = &traffic.transfer(t).path;
        let words = path
            .iter()
            .map(|&l| occupied.full(l).len())
            .max()
            .unwrap_or(0);
        let mut f = None;
        for w in 0..=words {
            let mut free = !0u64;
            for &l in path {
                free &= !occupied.full(l).get(w).copied().unwrap_or(0);
            }
            if free != 0 {
                f = Some(w * 64 + free.trailing_zeros() as usize);
                break;
            }
        }
        let f = f.unwrap_or(words * 64);
        for &l in path {
            occupied.take(l, f);
        }
        if frames.len() <= f {
            frames.resize(f + 1, Vec::new());
        }
        frames[f].push(t);
    }
    Schedule::new(frames.into_iter().filter(|f| !f.is_empty()).collect()).normalized()
}

/// What the ILP found.
#[derive(Debug, Clone)]
pub struct Exact {
    /// Its best schedule, when it has one.
    pub schedule: Option<Schedule>,
    /// HiGHS's dual bound (a lower bound on its word), seconds.
    pub dual_bound: f64,
    /// Whether HiGHS proved its schedule optimal (MIP gap 0) within the limit.
    pub optimal: bool,
    /// HiGHS's status, as it names it.
    pub status: String,
    /// Columns and rows of the model.
    pub size: (usize, usize),
}

/// Why the ILP did not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExactError {
    /// The traffic has more messages than `max_messages`.
    #[error("{0} messages: the exact ILP takes at most {1}")]
    TooLarge(usize, usize),
    /// HiGHS refused the model or failed.
    #[error("HiGHS: {0}")]
    Solver(String),
}

/// The exact ILP ([module docs](self)) with a time limit, warm-started from `start` (a
/// schedule of the same traffic) when given.
pub fn exact(
    traffic: &Traffic,
    lanes: &[u32],
    times: &[f64],
    time_limit: Duration,
    max_messages: usize,
    start: Option<&Schedule>,
) -> Result<Exact, ExactError> {
    let n = traffic.len();
    if n > max_messages {
        return Err(ExactError::TooLarge(n, max_messages));
    }
    let began = Instant::now();
    let order = longest_first(times);
    let mut pos = vec![0usize; n];
    for (i, t) in order.iter().enumerate() {
        pos[t.index()] = i;
    }
    // The objective in units of the longest message: in seconds (about 1e-3), HiGHS's
    // absolute gap tolerance (1e-6, set to 0 below) let it call a schedule 77 ns above
    // the optimum of 0.7 ms optimal, its dual bound above a valid schedule.
    let unit = order
        .first()
        .map(|t| times[t.index()])
        .filter(|&u| u > 0.0 && u.is_finite())
        .unwrap_or(1.0);
    let tau: Vec<f64> = order.iter().map(|t| times[t.index()] / unit).collect();
    let mut vars = ProblemVariables::new();
    // x[i][f] for f <= i, added in this order: column of (i, f) = i(i+1)/2 + f.
    let mut x: Vec<Vec<Variable>> = Vec::with_capacity(n);
    for i in 0..n {
        x.push((0..=i).map(|_| vars.add(variable().binary())).collect());
    }
    let col = |i: usize, f: usize| i * (i + 1) / 2 + f;
    let mut objective = Expression::with_capacity(n);
    for (f, row) in x.iter().enumerate() {
        objective.add_mul(tau[f], row[f]);
    }
    let mut problem = vars.minimise(objective).using(highs);
    for (i, row) in x.iter().enumerate() {
        let mut e = Expression::with_capacity(i + 1);
        for v in row {
            e.add_mul(1.0, *v);
        }
        problem.add_constraint(e.eq(1.0));
    }
    for l in traffic.link_ids() {
        let mut users: Vec<usize> = traffic.users(l).iter().map(|t| pos[t.index()]).collect();
        users.sort_unstable();
        for (f, opener) in x.iter().map(|row| row[row.len() - 1]).enumerate() {
            let on = users.binary_search(&f).is_ok();
            let later: Vec<usize> = users.iter().copied().filter(|&i| i > f).collect();
            if later.is_empty() {
                continue;
            }
            let mut e = Expression::with_capacity(later.len() + 1);
            for &i in &later {
                e.add_mul(1.0, x[i][f]);
            }
            // At most c messages of frame f on l (c lanes), f itself among them when it
            // crosses l: Σ later + [on] x_ff <= c x_ff.
            let c = f64::from(lanes[l.index()].max(1));
            if on {
                e.add_mul(1.0, opener);
            }
            if later.len() as f64 + f64::from(u8::from(on)) <= c {
                continue;
            }
            problem.add_constraint(e.leq(c * opener));
        }
    }
    // Without another message on a link, x[i][f] <= x[f][f] still must hold.
    for (i, row) in x.iter().enumerate() {
        for (f, &v) in row.iter().enumerate().take(i) {
            let mut e = Expression::with_capacity(2);
            e.add_mul(1.0, v);
            problem.add_constraint(e.leq(Expression::from(x[f][f])));
        }
    }
    let mut model = problem
        .try_into_inner()
        .map_err(|e| ExactError::Solver(e.to_string()))?;
    let opt = |r: Result<(), highs::TrySetOptionError>, name: &str| {
        r.map_err(|_| ExactError::Solver(format!("option {name} refused")))
    };
    liquid_ilp::exact_and_quiet(&mut model)
        .map_err(|name| ExactError::Solver(format!("option {name} refused")))?;
    opt(model.try_set_option("random_seed", 0), "random_seed")?;
    opt(model.try_set_option("mip_abs_gap", 0.0), "mip_abs_gap")?;
    let left = time_limit
        .saturating_sub(began.elapsed())
        .as_secs_f64()
        .max(0.01);
    opt(model.try_set_option("time_limit", left), "time_limit")?;
    if let Some(s) = start {
        let mut v = vec![0.0; n * (n + 1) / 2];
        for frame in &s.frames {
            let Some(f) = frame.iter().map(|t| pos[t.index()]).min() else {
                continue;
            };
            for t in frame {
                v[col(pos[t.index()], f)] = 1.0;
            }
        }
        model
            .try_set_solution(Some(&v), None, None, None)
            .map_err(|e| ExactError::Solver(format!("initial solution refused: {e:?}")))?;
    }
    let size = (model.num_cols(), model.num_rows());
    let solved = model
        .try_solve()
        .map_err(|e| ExactError::Solver(format!("{e:?}")))?;
    let status = solved.status();
    let feasible = solved.primal_solution_status() == highs::HighsSolutionStatus::Feasible;
    let schedule = feasible.then(|| {
        let cols = solved.get_solution().columns().to_vec();
        let mut frames: Vec<Vec<TransferId>> = vec![Vec::new(); n];
        for i in 0..n {
            // The frame of message i: its largest x (a binary, up to HiGHS's tolerance).
            let f = (0..=i)
                .max_by(|&a, &b| cols[col(i, a)].total_cmp(&cols[col(i, b)]))
                .unwrap_or(i);
            frames[f].push(order[i]);
        }
        Schedule::new(frames.into_iter().filter(|f| !f.is_empty()).collect()).normalized()
    });
    let dual_bound = unit
        * solved
            .double_info_value(c"mip_dual_bound")
            .map_err(|e| ExactError::Solver(format!("cannot read mip_dual_bound: {e:?}")))?;
    Ok(Exact {
        schedule,
        dual_bound,
        optimal: status == highs::HighsModelStatus::Optimal,
        status: format!("{status:?}"),
        size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of these many seconds: bytes at 1 byte/s, no latency, no overhead.
    fn secs(bytes: &[u64]) -> MessageTimes {
        let n = bytes.len();
        MessageTimes::from_parts(bytes, &vec![0.0; n], &vec![1.0; n], 0.0)
    }

    #[test]
    fn a_schedule_at_the_bound_is_not_rounded_below_it() {
        // Seven messages of 149,796 bytes at 100 MB/s on one link: the frames' quotients
        // added one by one make 0.010485719999999999 s, below the time bound's 0.01048572.
        let names: Vec<String> = (0..7).map(|i| format!("m{i}")).collect();
        let paths: Vec<(&str, Vec<&str>)> = names.iter().map(|n| (n.as_str(), vec!["x"])).collect();
        let t = Traffic::from_paths("seven", &paths).expect("builds");
        let bytes = [149_796u64; 7];
        let platform = Platform::uniform(&t, 1e8);
        let times = message_times(&t, &bytes, &platform);
        assert!(
            (0..7).map(|_| times[0]).sum::<f64>() < 0.01048572,
            "the rounding shown"
        );
        let bound = crate::bound::time_bound(&t, &bytes, &platform).seconds;
        assert_eq!(bound, 0.01048572);
        let s = first_fit_decreasing(&t, &[1], &times);
        assert_eq!(s.len(), 7);
        assert_eq!(makespan(&s, &times), bound);
        assert_eq!(frame_bound(&t, &[1], &times).seconds, bound);
    }

    fn traffic() -> Traffic {
        // A path a-b-c of links: t1 on x, t2 on y, t3 on x and y, t4 on z.
        Traffic::from_paths(
            "t",
            &[
                ("t1", vec!["x"]),
                ("t2", vec!["y"]),
                ("t3", vec!["x", "y"]),
                ("t4", vec!["z"]),
            ],
        )
        .expect("builds")
    }

    #[test]
    fn hand_computed_optimum() {
        let t = traffic();
        // Times 3, 3, 2, 4: {t1, t2, t4} (4) then {t3} (2): 6; the frame bound on x is
        // 3 + 2 = 5, so the optimum 6 is above it.
        let times = secs(&[3, 3, 2, 4]);
        let b = frame_bound(&t, &vec![1; t.num_links()], &times);
        assert_eq!(b.seconds, 5.0);
        let g = first_fit_decreasing(&t, &vec![1; t.num_links()], &times);
        liquid_model::validate(&t, &g).expect("valid");
        assert_eq!(makespan(&g, &times), 6.0);
        let e = exact(
            &t,
            &vec![1; t.num_links()],
            &times,
            Duration::from_secs(10),
            64,
            Some(&g),
        )
        .expect("runs");
        assert!(e.optimal, "{}", e.status);
        let s = e.schedule.expect("a schedule");
        liquid_model::validate(&t, &s).expect("valid");
        assert_eq!(makespan(&s, &times), 6.0);
        assert!((e.dual_bound - 6.0).abs() < 1e-6);
    }

    #[test]
    fn the_optimum_in_milliseconds_is_not_lost_to_the_solver_s_tolerance() {
        // A case found by independent brute force (explore8 D1): messages of 51 B to
        // 529 KB at 1000 MB/s, 0.7 ms in all; in seconds, HiGHS's absolute gap (1e-6)
        // called first fit's 703.793 µs optimal, 77 ns above the optimum, 703.716 µs.
        let paths: Vec<(String, Vec<String>)> = [
            vec!["e0_8", "e0_9", "e0_7"],
            vec!["e1_9", "e1_6", "e1_5"],
            vec!["e2_6", "e2_8", "e2_4"],
            vec!["e3_5", "e3_4", "e3_7"],
            vec!["e2_4", "own4", "e4_9", "e3_4"],
            vec!["e1_5", "e3_5", "e5_8"],
            vec!["e6_7", "e2_6", "e1_6"],
            vec!["own7", "e0_7", "e3_7", "e6_7"],
            vec!["e2_8", "e0_8", "e5_8"],
            vec!["e4_9", "e0_9", "e1_9"],
        ]
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("g{i}"), p.iter().map(|l| l.to_string()).collect()))
        .collect();
        let t = Traffic::from_paths("z30", &paths).expect("builds");
        let bytes = [4417, 51, 170536, 77, 2855, 98, 4634, 196608, 528546, 65536];
        let times = MessageTimes::from_parts(&bytes, &[0.0; 10], &[1e9; 10], 0.0);
        let lanes = vec![1; t.num_links()];
        let g = first_fit_decreasing(&t, &lanes, &times);
        let e = exact(&t, &lanes, &times, Duration::from_secs(10), 64, Some(&g)).expect("runs");
        let best = brute_force(&t, &times);
        assert!((best - 703.716e-6).abs() < 1e-12, "{best}");
        let s = e.schedule.expect("a schedule");
        liquid_model::validate(&t, &s).expect("valid");
        assert!(e.optimal, "{}", e.status);
        assert!((makespan(&s, &times) - best).abs() < 1e-12);
        assert!(
            e.dual_bound <= best * (1.0 + 1e-9),
            "{} > {best}",
            e.dual_bound
        );
    }

    #[test]
    fn the_ilp_beats_first_fit_where_first_fit_is_wrong() {
        // The ILP never loses to first fit decreasing, and agrees with brute force.
        for seed in 0..20u64 {
            let mut rng = liquid_model::rng::SplitMix64(seed);
            let links = ["a", "b", "c", "d", "e"];
            let paths: Vec<(String, Vec<String>)> = (0..9)
                .map(|i| {
                    let mut p: Vec<String> = links
                        .iter()
                        .filter(|_| rng.below(3) == 0)
                        .map(|l| l.to_string())
                        .collect();
                    if p.is_empty() {
                        p.push(links[rng.below(5) as usize].to_string());
                    }
                    (format!("t{i}"), p)
                })
                .collect();
            let t = Traffic::from_paths("r", &paths).expect("builds");
            let times = secs(&(0..9).map(|_| 1 + rng.below(9)).collect::<Vec<u64>>());
            let g = first_fit_decreasing(&t, &vec![1; t.num_links()], &times);
            liquid_model::validate(&t, &g).expect("valid");
            let e = exact(
                &t,
                &vec![1; t.num_links()],
                &times,
                Duration::from_secs(10),
                64,
                Some(&g),
            )
            .expect("runs");
            assert!(e.optimal);
            let s = e.schedule.expect("schedule");
            liquid_model::validate(&t, &s).expect("valid");
            let (m, gm) = (makespan(&s, &times), makespan(&g, &times));
            assert!(m <= gm + 1e-9, "seed {seed}: ILP {m} > FFD {gm}");
            assert!(m + 1e-9 >= frame_bound(&t, &vec![1; t.num_links()], &times).seconds);
            // Brute force over all partitions agrees (9 messages: Bell(9) = 21,147).
            assert!((m - brute_force(&t, &times)).abs() < 1e-9, "seed {seed}");
        }
    }

    /// The optimum by enumerating every partition into non-congesting frames.
    fn brute_force(t: &Traffic, times: &[f64]) -> f64 {
        fn go(
            t: &Traffic,
            times: &[f64],
            i: usize,
            frames: &mut Vec<Vec<TransferId>>,
            best: &mut f64,
        ) {
            let cost: f64 = frames
                .iter()
                .map(|f| f.iter().map(|x| times[x.index()]).fold(0.0, f64::max))
                .sum();
            if cost >= *best {
                return;
            }
            if i == times.len() {
                *best = cost;
                return;
            }
            let x = TransferId(i as u32);
            for k in 0..frames.len() {
                if frames[k].iter().all(|&y| !t.congest(x, y)) {
                    frames[k].push(x);
                    go(t, times, i + 1, frames, best);
                    frames[k].pop();
                }
            }
            frames.push(vec![x]);
            go(t, times, i + 1, frames, best);
            frames.pop();
        }
        let mut best = f64::INFINITY;
        go(t, times, 0, &mut Vec::new(), &mut best);
        best
    }

    #[test]
    fn a_link_of_two_lanes_takes_two_messages_per_frame() {
        // a, b, c all cross s (2 lanes), each on a card of its own; times 3, 2, 1.
        let t = Traffic::from_paths(
            "lanes",
            &[
                ("a", vec!["ca", "s"]),
                ("b", vec!["cb", "s"]),
                ("c", vec!["cc", "s"]),
            ],
        )
        .expect("builds");
        let s = t.find_link("s").expect("s").index();
        let mut lanes = vec![1; t.num_links()];
        lanes[s] = 2;
        let times = secs(&[3, 2, 1]);
        // Every second time, longest first: 3 + 1.
        assert_eq!(frame_bound(&t, &lanes, &times).seconds, 4.0);
        let g = first_fit_decreasing(&t, &lanes, &times);
        validate(&t, &lanes, &g).expect("within the lanes");
        assert_eq!(makespan(&g, &times), 4.0);
        let e = exact(&t, &lanes, &times, Duration::from_secs(10), 64, Some(&g)).expect("runs");
        let x = e.schedule.expect("a schedule");
        validate(&t, &lanes, &x).expect("within the lanes");
        assert_eq!(makespan(&x, &times), 4.0);
        // The same schedule with one lane is refused, by the model's validator.
        assert!(validate(&t, &vec![1; t.num_links()], &g).is_err());
        // Three in one frame overfill the two lanes.
        let all = Schedule::new(vec![t.transfer_ids().collect()]);
        let err = validate(&t, &lanes, &all).expect_err("3 > 2");
        assert!(err.contains("s~2"), "{err}");
        // With one lane each message needs a frame of its own: 3 + 2 + 1.
        let one = vec![1; t.num_links()];
        assert_eq!(frame_bound(&t, &one, &times).seconds, 6.0);
        let e = exact(&t, &one, &times, Duration::from_secs(10), 64, None).expect("runs");
        assert_eq!(makespan(&e.schedule.expect("schedule"), &times), 6.0);
    }

    #[test]
    fn too_large_is_said() {
        let t = traffic();
        let e = exact(&t, &[1; 4], &[1.0; 4], Duration::from_secs(1), 3, None).expect_err("4 > 3");
        assert_eq!(e.to_string(), "4 messages: the exact ILP takes at most 3");
    }
}
