//! Which subsets of a traffic fit in k timeframes: one varisat for many questions, under
//! selector assumptions (the SAT side of `liquid explain`'s core search).
//!
//! The encoding of the whole traffic with k timeframes is loaded once, each transfer's
//! at-least-one clause extended by the negation of a selector of its own. Asking whether
//! a subset S fits assumes the selectors of S: the clauses of the other transfers are then
//! satisfied by their selectors, so the question is exactly "do the transfers of S have a
//! schedule of k timeframes". Only the families that stay sound for any subset are
//! encoded: at-most-one per link and per transfer, no team or symmetry clauses (those
//! hold for the whole traffic only). Team clauses are added guarded by the selectors of
//! the link's users (they hold when all of them are asked about). Instead of symmetry
//! clauses, each question breaks the symmetry of the
//! timeframes by assumptions of its own: the users in S of the link with the most users
//! in S are placed in timeframes 0, 1, … (sound for S, see
//! `Subsets::clique_placements`; without it, a "no" is refuted k! times over). On "no",
//! varisat names the assumptions it used: a subset of S that does not fit either
//! (clause-set refinement for a deletion loop; a placement counts as its transfer).
//!
//! A deadline stops a question within one buffer of proof steps, as for every run of
//! this crate ([`crate::solver::DeadlineSink`]); the solver is not used again after that.

use std::time::Instant;

use liquid_model::{Schedule, Traffic, TransferId};
use varisat::{ExtendFormula, Lit, ProofFormat, Solver, Var};

use crate::encode::{encode_until, AmoEncoding, EncodeOptions, Encoding};
use crate::solver::{model, DeadlineSink, SolverError, ADD_CHECK_EVERY};
use crate::SatError;

/// The answer to one question of [`Subsets::fits`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subset {
    /// The subset has a schedule of k timeframes (in the whole traffic's transfer ids;
    /// decoded from a model: validate it).
    Fits(Schedule),
    /// It has none; a subset of it (increasing ids) that has none either.
    Core(Vec<TransferId>),
    /// The deadline came first.
    Stopped,
}

/// One varisat loaded with the selector encoding of a traffic (see the module docs).
pub struct Subsets {
    solver: Solver<'static>,
    encoding: Encoding,
    /// The users of every link, in the traffic's link order.
    links: Vec<Vec<TransferId>>,
    first_selector: usize,
    n: usize,
    deadline: Option<Instant>,
    /// Whether the deadline stopped a question (the solver is then spent).
    spent: bool,
}

impl std::fmt::Debug for Subsets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subsets")
            .field("transfers", &self.n)
            .field("frames", &self.encoding.frames())
            .finish_non_exhaustive()
    }
}

/// The encoding options of the subset questions: the families sound for any subset.
pub fn subset_options() -> EncodeOptions {
    EncodeOptions {
        amo: AmoEncoding::Auto,
        transfer_amo: true,
        team: false,
        symmetry: false,
        frames: None,
    }
}

impl Subsets {
    /// The solver for subsets of `traffic` in `k` timeframes, stopped at `deadline`;
    /// `None` when the deadline passed while it was built (encoding and loading the
    /// clauses take seconds on a large traffic: `explain torus:6x6,2 --time-limit 2` ran
    /// 10.9 s when they did not look at it). Fails when the encoding is too large
    /// (refused up front, like every encoding).
    pub fn new(
        traffic: &Traffic,
        k: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, SatError> {
        let Some(encoding) = encode_until(traffic, k, &subset_options(), deadline)? else {
            return Ok(None);
        };
        let n = traffic.len();
        let mut solver = Solver::new();
        if let Some(d) = deadline {
            // Varisat's own format: DRAT cannot say assumptions.
            solver.write_proof(DeadlineSink::new(d), ProofFormat::Varisat);
        }
        let first_selector = encoding.num_vars() + 1;
        let mut buf = Vec::new();
        for (i, c) in encoding.clauses().iter().enumerate() {
            if i % ADD_CHECK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
            buf.clear();
            buf.extend(c.iter().map(|&l| Lit::from_dimacs(l as isize)));
            // Clauses 0..n are the at-least-one clauses, in transfer order (family 1).
            if i < n {
                buf.push(!Self::selector_lit(first_selector, i));
            }
            solver.add_clause(&buf);
        }
        // Guarded team clauses: a link with exactly k users, all of them selected, has a
        // user in every timeframe (k pairwise congesting transfers in k timeframes); with
        // one of them left out, the clause is satisfied by that selector. Implied by the
        // clauses above (a pigeonhole a solver finds slowly), so sound for every subset.
        for l in traffic.link_ids() {
            let users = traffic.users(l);
            if users.len() != k || k < 2 {
                continue;
            }
            for c in 0..k {
                buf.clear();
                buf.extend(
                    users
                        .iter()
                        .map(|&u| !Self::selector_lit(first_selector, u.index())),
                );
                buf.extend(
                    users
                        .iter()
                        .map(|&u| Lit::from_dimacs(encoding.var(u, c) as isize)),
                );
                solver.add_clause(&buf);
            }
        }
        Ok(Some(Subsets {
            solver,
            encoding,
            links: traffic
                .link_ids()
                .map(|l| traffic.users(l).to_vec())
                .collect(),
            first_selector,
            n,
            deadline,
            spent: false,
        }))
    }

    fn selector_lit(first: usize, t: usize) -> Lit {
        Lit::from_var(Var::from_dimacs((first + t) as isize), true)
    }

    /// Placements that break the symmetry of the timeframes for one question: the users
    /// in `set` of the link with the most users in `set` (the first such link), at most k
    /// of them, in timeframes 0, 1, … in the link's order.
    ///
    /// Sound for the question and for every subset `S'` of `set` that contains those
    /// users: they pairwise congest, so any schedule of `S'` in k timeframes puts them in
    /// distinct timeframes, and renaming the timeframes (the clauses are invariant under a
    /// permutation of them) moves the i-th to timeframe i. So a set of selectors and
    /// placements that has no model means that the selected transfers together with the
    /// placed ones have no schedule: [`Subsets::fits`] counts a placement in its answer's
    /// core as the placed transfer.
    fn clique_placements(&self, set: &[TransferId]) -> Vec<(TransferId, usize)> {
        let mut member = vec![false; self.n];
        for &x in set {
            member[x.index()] = true;
        }
        let mut best: Option<(usize, &[TransferId])> = None;
        for users in &self.links {
            let n = users.iter().filter(|u| member[u.index()]).count();
            if best.is_none_or(|(m, _)| n > m) {
                best = Some((n, users));
            }
        }
        let Some((_, users)) = best else {
            return Vec::new();
        };
        users
            .iter()
            .copied()
            .filter(|u| member[u.index()])
            .take(self.encoding.frames())
            .enumerate()
            .map(|(c, u)| (u, c))
            .collect()
    }

    /// Whether the transfers `set` (distinct ids of the traffic) fit in k timeframes.
    pub fn fits(&mut self, set: &[TransferId]) -> Result<Subset, SatError> {
        if self.spent || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.spent = true;
            return Ok(Subset::Stopped);
        }
        let mut lits: Vec<Lit> = set
            .iter()
            .map(|&t| Self::selector_lit(self.first_selector, t.index()))
            .collect();
        lits.extend(
            self.clique_placements(set)
                .into_iter()
                .map(|(t, c)| Lit::from_dimacs(self.encoding.var(t, c) as isize)),
        );
        self.solver.assume(&lits);
        match self.solver.solve() {
            Ok(true) => {
                let m = model(&self.solver);
                // Decode the subset's placements only (the others are free).
                let k = self.encoding.frames();
                let mut frames: Vec<Vec<TransferId>> = vec![Vec::new(); k];
                let truth: std::collections::HashSet<i32> =
                    m.iter().copied().filter(|&l| l > 0).collect();
                for &t in set {
                    if let Some(c) = (0..k).find(|&c| truth.contains(&self.encoding.var(t, c))) {
                        frames[c].push(t);
                    }
                }
                frames.retain(|f| !f.is_empty());
                Ok(Subset::Fits(Schedule::new(frames)))
            }
            Ok(false) => {
                let core = self.solver.failed_core().unwrap_or(&[]);
                // Selectors name their transfers; a placement assumption names the
                // transfer it places (still in the set: see `clique_placements`).
                let k = self.encoding.frames();
                let mut out: Vec<TransferId> = core
                    .iter()
                    .map(|l| {
                        let v = l.var().to_dimacs() as usize;
                        if v >= self.first_selector {
                            TransferId((v - self.first_selector) as u32)
                        } else {
                            TransferId(((v - 1) / k) as u32)
                        }
                    })
                    .filter(|t| t.index() < self.n)
                    .collect();
                out.sort_unstable();
                out.dedup();
                Ok(Subset::Core(out))
            }
            Err(e) => {
                if self.deadline.is_some_and(|d| Instant::now() >= d) {
                    self.spent = true;
                    Ok(Subset::Stopped)
                } else {
                    Err(SolverError::Solver(e.to_string()).into())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::examples::{no_team, queens};
    use liquid_model::validate;

    #[test]
    fn a_triangle_in_two_frames_is_its_own_core_and_any_pair_fits() {
        let t = no_team();
        let mut s = Subsets::new(&t, 2, None)
            .expect("encodes")
            .expect("in time");
        let all: Vec<TransferId> = t.transfer_ids().collect();
        assert_eq!(s.fits(&all).expect("runs"), Subset::Core(all.clone()));
        for i in 0..3 {
            let pair: Vec<TransferId> = all.iter().copied().filter(|x| x.index() != i).collect();
            let Subset::Fits(sched) = s.fits(&pair).expect("runs") else {
                panic!("two transfers fit in two frames");
            };
            let sub = t.sub_traffic(&pair);
            let local = renumbered(&sched, &pair);
            validate(&sub, &local).expect("a valid schedule of the pair");
        }
    }

    /// `sched`, a schedule of the transfers `ids` (sorted) in the whole traffic's ids, in
    /// the ids of `ids`' sub-traffic.
    fn renumbered(sched: &Schedule, ids: &[TransferId]) -> Schedule {
        let local = |x: &TransferId| TransferId(ids.binary_search(x).expect("in") as u32);
        Schedule::new(
            sched
                .frames
                .iter()
                .map(|f| f.iter().map(local).collect())
                .collect(),
        )
    }

    #[test]
    fn answers_with_placements_and_guarded_teams_agree_with_a_fresh_solver() {
        // 4 queens in 4 frames: rows and columns are full links (guarded team clauses);
        // the whole board needs 5. Subsets of every size, by a fixed LCG.
        let t = queens(4);
        let k = 4;
        let mut s = Subsets::new(&t, k, None)
            .expect("encodes")
            .expect("in time");
        let mut x: u64 = 7;
        let (mut fits, mut cores) = (0, 0);
        for round in 0..120 {
            let mut set: Vec<TransferId> = t
                .transfer_ids()
                .filter(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 33) % 16 < 8 + round % 9
                })
                .collect();
            if round == 0 {
                set = t.transfer_ids().collect();
            }
            let fresh = |ids: &[TransferId]| {
                crate::decide(&t.sub_traffic(ids), k, &EncodeOptions::default(), None)
                    .expect("runs")
                    .1
                    .expect("no deadline")
            };
            match s.fits(&set).expect("runs") {
                Subset::Fits(sched) => {
                    fits += 1;
                    let local = renumbered(&sched, &set);
                    let r = validate(&t.sub_traffic(&set), &local).expect("valid");
                    assert!(r.length <= k);
                }
                Subset::Core(core) => {
                    cores += 1;
                    assert!(core.iter().all(|c| set.contains(c)), "{core:?} ⊄ {set:?}");
                    assert!(fresh(&core).is_none(), "the core {core:?} fits after all");
                }
                Subset::Stopped => panic!("no deadline"),
            }
        }
        assert!(fits > 10 && cores > 10, "{fits} fit, {cores} cores");
    }

    #[test]
    fn questions_under_a_deadline_are_answered() {
        // A deadline makes varisat write a proof into the sink, with assumptions.
        let t = no_team();
        let far = Instant::now() + std::time::Duration::from_secs(3600);
        let mut s = Subsets::new(&t, 2, Some(far))
            .expect("encodes")
            .expect("in time");
        let all: Vec<TransferId> = t.transfer_ids().collect();
        assert_eq!(s.fits(&all).expect("runs"), Subset::Core(all.clone()));
        assert!(matches!(s.fits(&all[..2]).expect("runs"), Subset::Fits(_)));
    }

    #[test]
    fn a_deadline_in_the_past_stops_every_question() {
        let t = no_team();
        assert!(Subsets::new(&t, 2, Some(Instant::now()))
            .expect("encodes")
            .is_none());
        let soon = Instant::now() + std::time::Duration::from_secs(1);
        let mut s = Subsets::new(&t, 2, Some(soon))
            .expect("encodes")
            .expect("in time");
        std::thread::sleep(soon.saturating_duration_since(Instant::now()));
        let all: Vec<TransferId> = t.transfer_ids().collect();
        assert_eq!(s.fits(&all).expect("runs"), Subset::Stopped);
        assert_eq!(s.fits(&all[..1]).expect("runs"), Subset::Stopped);
    }
}
