//! Topology-unaware baselines (papers 000/003): the round-robin schedule of an all-to-all
//! exchange and a seeded random-order schedule. Both report `liquid` when their length
//! happens to equal Λ and `feasible` otherwise; the lower bound is Λ.
//!
//! **Round-robin rule.** Senders and receivers are the transfers' `from` and `to` nodes, each
//! numbered in order of first appearance in the traffic: S_0..S_{p-1}, R_0..R_{q-1}. The
//! traffic must be all-to-all: every transfer has both end points and every pair (S_i, R_j)
//! occurs exactly once (p·q transfers). Phase s (s = 0..q-1) holds the transfers
//! S_i → R_{(i+s) mod q} for every i, so each transfer is in exactly one phase. A phase
//! whose transfers congest is split into the fewest timeframes by an exact colouring of
//! the phase ([`crate::chromatic::colour_subset`]; phases hold at most p transfers). The
//! schedule is the phases' timeframes in phase order.
//!
//! An all-to-all *without self-transfers* (the senders are the receivers, every pair of
//! distinct nodes occurs exactly once and no node sends to itself: n·(n-1) transfers) is
//! scheduled the same way with the receivers numbered like the senders and the phase
//! s = 0, which would hold only self-transfers, left out: phase s (s = 1..n-1) holds
//! S_i → S_{(i+s) mod n}. Any other traffic gets a [`BaselineError`], never a panic.
//!
//! **Random rule.** The transfers are shuffled by a Fisher-Yates shuffle driven by
//! SplitMix64 seeded with `seed`; each transfer, in that order, goes to the lowest
//! timeframe holding no transfer it congests with (first fit), opening a new one if none.
//!
//! **Limits.** Under a time limit ([`round_robin_with_limits`], [`random_with_limits`])
//! both look at the clock between phases and inside the exact colouring of each phase
//! (round-robin), or every [`CLOCK_EVERY`] transfers (random); when it has run out before
//! the schedule is complete they answer `unknown` with no schedule. A phase holds one
//! transfer per sender, but splitting it into the fewest timeframes is a colouring that
//! can take long: on `torus:8x8,2` (128 hosts) it ran past 20 minutes. A phase the
//! limit stopped is not used half-split, since the rule asks for its fewest timeframes.

use std::collections::HashMap;
use std::time::Instant;

use liquid_model::{Answer, Limits, LowerBound, Outcome, Schedule, StatValue, Traffic, TransferId};
use thiserror::Error;

use crate::chromatic::colour_subset;
use liquid_model::rng::SplitMix64;

/// The random engine's name in answers and on the command line.
pub const RANDOM: &str = "random";

/// The round-robin engine's name in answers and on the command line.
pub const ROUND_ROBIN: &str = "round-robin";

/// Why the round-robin baseline does not apply to a traffic.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BaselineError {
    /// A transfer lacks its `from` or `to` node.
    #[error("round-robin needs the from/to nodes of every transfer; transfer {transfer:?} has no {missing}")]
    MissingEndpoint {
        /// The transfer's id.
        transfer: String,
        /// `from` or `to`.
        missing: &'static str,
    },
    /// A sender-receiver pair occurs twice.
    #[error("round-robin needs an all-to-all traffic: the pair {from} -> {to} occurs twice (transfers {first:?} and {second:?})")]
    DuplicatePair {
        /// Sender.
        from: String,
        /// Receiver.
        to: String,
        /// First transfer of the pair.
        first: String,
        /// Second transfer of the pair.
        second: String,
    },
    /// A sender-receiver pair is missing.
    #[error("round-robin needs an all-to-all traffic: no transfer from {from} to {to} ({senders} senders x {receivers} receivers, {transfers} transfers)")]
    MissingPair {
        /// Sender.
        from: String,
        /// Receiver.
        to: String,
        /// Number of senders.
        senders: usize,
        /// Number of receivers.
        receivers: usize,
        /// Number of transfers.
        transfers: usize,
    },
}

fn number(names: &mut Vec<String>, index: &mut HashMap<String, usize>, name: &str) -> usize {
    *index.entry(name.to_string()).or_insert_with(|| {
        names.push(name.to_string());
        names.len() - 1
    })
}

/// The round-robin phases of an all-to-all traffic: phase s holds S_i → R_{(i+s) mod q}.
pub fn round_robin_phases(traffic: &Traffic) -> Result<Vec<Vec<TransferId>>, BaselineError> {
    let (mut senders, mut receivers) = (Vec::new(), Vec::new());
    let (mut si, mut ri) = (HashMap::new(), HashMap::new());
    let mut pair: HashMap<(usize, usize), TransferId> = HashMap::new();
    for t in traffic.transfer_ids() {
        let x = traffic.transfer(t);
        let missing = |m| BaselineError::MissingEndpoint {
            transfer: x.id.clone(),
            missing: m,
        };
        let from = x.from.as_deref().ok_or_else(|| missing("from"))?;
        let to = x.to.as_deref().ok_or_else(|| missing("to"))?;
        let key = (
            number(&mut senders, &mut si, from),
            number(&mut receivers, &mut ri, to),
        );
        if let Some(&first) = pair.get(&key) {
            return Err(BaselineError::DuplicatePair {
                from: from.to_string(),
                to: to.to_string(),
                first: traffic.transfer_name(first).to_string(),
                second: x.id.clone(),
            });
        }
        pair.insert(key, t);
    }
    let (p, q) = (senders.len(), receivers.len());
    // Without self-transfers: the same nodes send and receive, and none sends to itself.
    let self_free = p == q
        && receivers.iter().all(|r| si.contains_key(r))
        && pair.keys().all(|&(i, j)| senders[i] != receivers[j]);
    // Phase s sends sender i to receiver `receiver[(i + s) % n]`: with self-transfers the
    // receivers in their own order, phases 0..q; without, the senders' own receiver
    // numbers, phases 1..p (phase 0 would be each node to itself).
    let (shifts, receiver): (std::ops::Range<usize>, Vec<usize>) = if self_free {
        (1..p, senders.iter().map(|s| ri[s]).collect())
    } else {
        (0..q, (0..q).collect())
    };
    let n = receiver.len();
    let mut phases = Vec::with_capacity(shifts.len());
    for s in shifts {
        let mut phase = Vec::with_capacity(p);
        for (i, sender) in senders.iter().enumerate() {
            let j = receiver[(i + s) % n];
            match pair.get(&(i, j)) {
                Some(&t) => phase.push(t),
                None => {
                    return Err(BaselineError::MissingPair {
                        from: sender.clone(),
                        to: receivers[j].clone(),
                        senders: p,
                        receivers: q,
                        transfers: traffic.len(),
                    })
                }
            }
        }
        phases.push(phase);
    }
    Ok(phases)
}

fn outcome(
    traffic: &Traffic,
    engine: &str,
    frames: Vec<Vec<TransferId>>,
    stats: Vec<(String, StatValue)>,
) -> Answer {
    let outcome = Outcome::settle(
        traffic,
        Some(Schedule::new(frames)),
        LowerBound::duration(traffic),
        true,
    );
    Answer {
        engine: engine.to_string(),
        outcome,
        stats,
    }
}

/// Transfers the random engine places between two looks at the clock.
pub const CLOCK_EVERY: usize = 1024;

/// `unknown` with no schedule and Λ as the bound: a limit stopped the engine.
fn stopped(traffic: &Traffic, engine: &str, stats: Vec<(String, StatValue)>) -> Answer {
    Answer {
        engine: engine.to_string(),
        outcome: Outcome::Unknown {
            best: None,
            bound: LowerBound::duration(traffic),
        },
        stats,
    }
}

fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// The `round-robin` engine (see the module documentation for the rule), without limits.
pub fn round_robin(traffic: &Traffic) -> Result<Answer, BaselineError> {
    round_robin_with_limits(traffic, &Limits::default())
}

/// [`round_robin`] under the time limit of `limits`: `unknown` with no schedule when the
/// time runs out before every phase is coloured.
pub fn round_robin_with_limits(
    traffic: &Traffic,
    limits: &Limits,
) -> Result<Answer, BaselineError> {
    let deadline = limits.deadline();
    let phases = round_robin_phases(traffic)?;
    let mut frames = Vec::new();
    let mut split = 0u64;
    for (k, phase) in phases.iter().enumerate() {
        let halt = || {
            let stats = vec![
                ("phases".to_string(), StatValue::Count(phases.len() as u64)),
                ("phases_coloured".to_string(), StatValue::Count(k as u64)),
            ];
            Ok(stopped(traffic, ROUND_ROBIN, stats))
        };
        if passed(deadline) {
            return halt();
        }
        // The phase's colouring gets the time left, and only that.
        let left = Limits {
            time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
            nodes: None,
        };
        let c = colour_subset(traffic, phase, &left);
        if !c.optimal {
            return halt();
        }
        if c.frames.len() > 1 {
            split += 1;
        }
        frames.extend(c.frames);
    }
    let stats = vec![
        ("phases".to_string(), StatValue::Count(phases.len() as u64)),
        ("split_phases".to_string(), StatValue::Count(split)),
    ];
    Ok(outcome(traffic, ROUND_ROBIN, frames, stats))
}

/// First fit of the transfers in the given order: each goes to the lowest timeframe with
/// none of its links already used there.
pub fn first_fit(traffic: &Traffic, order: &[TransferId]) -> Vec<Vec<TransferId>> {
    first_fit_until(traffic, order, None).expect("without a deadline first fit completes")
}

/// [`first_fit`], or `None` when `deadline` passes first (looked at every
/// [`CLOCK_EVERY`] transfers).
pub fn first_fit_until(
    traffic: &Traffic,
    order: &[TransferId],
    deadline: Option<Instant>,
) -> Option<Vec<Vec<TransferId>>> {
    let mut fit = crate::fit::FrameFit::new(traffic);
    let mut frames: Vec<Vec<TransferId>> = Vec::new();
    let mut path = Vec::new();
    for (k, &t) in order.iter().enumerate() {
        if k % CLOCK_EVERY == 0 && passed(deadline) {
            return None;
        }
        path.clear();
        path.extend(traffic.transfer(t).path.iter().map(|l| l.index()));
        let c = fit.place(&path);
        if c == frames.len() {
            frames.push(Vec::new());
        }
        frames[c].push(t);
    }
    Some(frames)
}

/// The `random` engine: first fit in a seeded random order (see the module documentation),
/// without limits.
pub fn random(traffic: &Traffic, seed: u64) -> Answer {
    random_with_limits(traffic, seed, &Limits::default())
}

/// [`random`] under the time limit of `limits`: `unknown` with no schedule when the time
/// runs out before every transfer is placed.
pub fn random_with_limits(traffic: &Traffic, seed: u64, limits: &Limits) -> Answer {
    let deadline = limits.deadline();
    let mut order: Vec<TransferId> = traffic.transfer_ids().collect();
    let mut rng = SplitMix64(seed);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let stats = vec![("seed".to_string(), StatValue::Count(seed))];
    match first_fit_until(traffic, &order, deadline) {
        Some(frames) => outcome(traffic, RANDOM, frames, stats),
        None => stopped(traffic, RANDOM, stats),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::check_outcome;

    #[test]
    fn not_all_to_all_is_an_error() {
        let t = Traffic::from_paths("t", &[("x", vec!["a"])]).expect("valid");
        assert!(matches!(
            round_robin(&t),
            Err(BaselineError::MissingEndpoint { .. })
        ));
    }

    /// All-to-all over n hosts of one switch (host i: links `u{i}` up, `d{i}` down).
    fn star(n: usize, self_transfers: bool) -> Traffic {
        let mut b = liquid_model::TrafficBuilder::new("star");
        for i in 0..n {
            for j in 0..n {
                if i == j && !self_transfers {
                    continue;
                }
                let path = [format!("u{i}"), format!("d{j}")];
                let path: Vec<&str> = path.iter().map(String::as_str).collect();
                b.transfer(
                    &format!("h{i}->h{j}"),
                    Some(format!("h{i}")),
                    Some(format!("h{j}")),
                    &path,
                    "",
                    &|_| String::new(),
                )
                .expect("valid");
            }
        }
        b.build("transfers").expect("not empty")
    }

    #[test]
    fn all_to_all_without_self_transfers_skips_the_diagonal_phase() {
        let t = star(5, false);
        let phases = round_robin_phases(&t).expect("an all-to-all without self-transfers");
        assert_eq!(phases.len(), 4);
        for (s, phase) in phases.iter().enumerate() {
            assert_eq!(phase.len(), 5);
            for (i, &x) in phase.iter().enumerate() {
                let expected = format!("h{i}->h{}", (i + s + 1) % 5);
                assert_eq!(t.transfer_name(x), expected);
            }
        }
        let o = round_robin(&t).expect("schedules").outcome;
        check_outcome(&t, &o).expect("valid outcome");
        assert_eq!(o.verdict(), liquid_model::Verdict::Liquid);
        assert_eq!(o.schedule().expect("schedule").len(), 4);
        // With self-transfers the rule is unchanged: n phases, diagonal first.
        let o = round_robin(&star(5, true)).expect("schedules").outcome;
        assert_eq!(o.schedule().expect("schedule").len(), 5);
    }

    #[test]
    fn a_missing_pair_is_still_an_error_without_self_transfers() {
        let full = star(4, false);
        let keep: Vec<TransferId> = full
            .transfer_ids()
            .filter(|&x| full.transfer_name(x) != "h2->h3")
            .collect();
        let t = full.sub_traffic(&keep);
        let e = round_robin(&t).expect_err("not all-to-all");
        assert!(
            matches!(&e, BaselineError::MissingPair { from, to, .. } if from == "h2" && to == "h3"),
            "{e}"
        );
    }

    #[test]
    fn random_is_valid_and_seeded() {
        let mut paths = crate::test_support::no_team_paths();
        paths.push(("w", vec!["d"]));
        let t = Traffic::from_paths("t", &paths).expect("valid");
        let a = random(&t, 1);
        check_outcome(&t, &a.outcome).expect("valid outcome");
        assert_eq!(a, random(&t, 1));
        assert_eq!(a.outcome.schedule().expect("schedule").len(), 3);
    }

    fn zero() -> Limits {
        Limits {
            time: Some(std::time::Duration::ZERO),
            nodes: None,
        }
    }

    #[test]
    fn random_under_a_zero_limit_is_unknown_without_a_schedule() {
        let t = star(6, false);
        let a = random_with_limits(&t, 1, &zero());
        check_outcome(&t, &a.outcome).expect("consistent outcome");
        assert_eq!(a.outcome.verdict(), liquid_model::Verdict::Unknown);
        assert!(a.outcome.schedule().is_none());
        // Without a limit the same call completes.
        let a = random_with_limits(&t, 1, &Limits::default());
        check_outcome(&t, &a.outcome).expect("valid outcome");
        assert!(a.outcome.schedule().is_some());
    }

    #[test]
    fn round_robin_under_a_zero_limit_is_unknown_without_a_schedule() {
        let t = star(6, false);
        let a = round_robin_with_limits(&t, &zero()).expect("all-to-all");
        check_outcome(&t, &a.outcome).expect("consistent outcome");
        assert_eq!(a.outcome.verdict(), liquid_model::Verdict::Unknown);
        assert!(a.outcome.schedule().is_none());
        assert_eq!(
            a.stats,
            vec![
                ("phases".to_string(), StatValue::Count(5)),
                ("phases_coloured".to_string(), StatValue::Count(0)),
            ]
        );
        let a = round_robin_with_limits(&t, &Limits::default()).expect("all-to-all");
        check_outcome(&t, &a.outcome).expect("valid outcome");
        assert_eq!(a.outcome.verdict(), liquid_model::Verdict::Liquid);
    }
}
