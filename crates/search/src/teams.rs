//! Full simultaneities and full teams, enumerated one by one without repetition by the
//! ancestor technique of paper 004 (sections 2 and 3).
//!
//! An *ancestor* is a triplet (outer, depot, inner): the inner is a simultaneity, the depot
//! holds the transfers simultaneous with the inner that may still join it, the outer those
//! that are denied. Its *progeny* is the set of full simultaneities that contain the inner,
//! avoid the outer and are built from the depot. Binary fission on a depot element `a`
//! splits an ancestor into ψ+a (a joins the inner; everything congesting with `a` leaves
//! outer and depot) and ψ-a (a moves to the outer); the two progenies partition the
//! parent's, so no full simultaneity is produced twice. An ancestor is *barren* (ρ) when an
//! outer element congests with no depot element (nothing could ever block it, so no heir
//! is full) and *viscid* (τ) when inner ∪ depot misses a bottleneck (no heir is a team);
//! both are dropped. A *completed* ancestor (empty outer and depot) yields its inner.
//!
//! Full teams are built in the two phases of 004 section 3:
//! 1. the full teams of the *skeleton* ζ(X) (the transfers that use a bottleneck) are
//!    reproduced from the prim-ancestor (∅, ζ(X), ∅) with τ∘ρ∘Ψ. Every skeleton transfer
//!    uses a bottleneck and a team uses every bottleneck exactly once, so these are the
//!    exact covers of the bottleneck links by skeleton transfers; the fission element is
//!    a depot user of the uncovered bottleneck with the fewest depot users (any choice is
//!    allowed by 004; this one makes viscid ancestors appear early);
//! 2. each skeleton team A becomes the ancestor (∅, {x ∈ X | x ∩ ∪A = ∅}, A), reproduced
//!    with ρ∘Ψ: its completed descendants are exactly the full teams of X whose skeleton
//!    is A. Distinct skeletons give disjoint progenies, so again nothing repeats.
//!
//! Transfer sets are [`FixedBitSet`]s indexed by [`TransferId`]. Congestion is computed
//! through the traffic's per-link user lists (never a conflict edge list), so memory is
//! linear in the total path length plus one bitset per ancestor on the depth-first stack.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fixedbitset::FixedBitSet;
use liquid_model::{LinkId, Traffic, TransferId};

/// Ancestors examined between two looks at the clock (see [`FullTeams::with_deadline`]),
/// on small traffics. An ancestor step costs time linear in the traffic's size, so on large
/// ones the clock is read more often: every `CLOCK_WORK / #X` steps, at least every step
/// (256 steps on a million transfers overran a time limit by seconds).
const CLOCK_EVERY: u64 = 256;
/// Transfers' worth of work between two looks at the clock.
const CLOCK_WORK: u64 = 1 << 16;

/// A set of transfers of one traffic, as a bitset indexed by [`TransferId`].
pub type TransferSet = FixedBitSet;

/// The set holding every transfer of `traffic`.
pub fn all_transfers(traffic: &Traffic) -> TransferSet {
    let mut s = FixedBitSet::with_capacity(traffic.len());
    s.insert_range(..);
    s
}

/// The transfer ids of a set, in increasing order.
pub fn to_ids(set: &TransferSet) -> Vec<TransferId> {
    set.ones().map(|i| TransferId(i as u32)).collect()
}

/// Loads of every link restricted to the transfers of `set`.
pub fn loads_in(traffic: &Traffic, set: &TransferSet) -> Vec<usize> {
    let mut loads = vec![0usize; traffic.num_links()];
    for t in set.ones() {
        for l in &traffic.transfer(TransferId(t as u32)).path {
            loads[l.index()] += 1;
        }
    }
    loads
}

/// Λ and the bottlenecks (in increasing id order) of the sub-traffic `set`.
pub fn bottlenecks_in(traffic: &Traffic, set: &TransferSet) -> (usize, Vec<LinkId>) {
    let loads = loads_in(traffic, set);
    let d = loads.iter().copied().max().unwrap_or(0);
    if d == 0 {
        return (0, Vec::new());
    }
    let b = loads
        .iter()
        .enumerate()
        .filter(|&(_, &x)| x == d)
        .map(|(l, _)| LinkId(l as u32))
        .collect();
    (d, b)
}

#[derive(Debug, Clone)]
struct Ancestor {
    outer: FixedBitSet,
    depot: FixedBitSet,
    inner: FixedBitSet,
}

/// Depth-first reproduction of a collection of ancestors with ρ∘Ψ (and τ when bottlenecks
/// are given), yielding the inner of every completed ancestor.
#[derive(Debug)]
struct Reproducer<'a> {
    traffic: &'a Traffic,
    /// Bottlenecks for the viscid test τ and the fission choice; empty: no τ.
    bottlenecks: Vec<LinkId>,
    stack: Vec<Ancestor>,
    /// Per-link stamp: the link is used by the current ancestor's depot.
    depot_mark: Vec<u32>,
    /// Per-link stamp: the link is used by the current ancestor's inner.
    inner_mark: Vec<u32>,
    /// Per-link count of depot users (valid for links stamped in `depot_mark`).
    depot_users: Vec<u32>,
    stamp: u32,
    ancestors: u64,
    /// When to give up (checked every [`CLOCK_EVERY`] ancestors).
    deadline: Option<Instant>,
    /// Whether the deadline stopped the reproduction.
    timed_out: bool,
    /// Where to add the ancestors examined, at each look at the clock (for progress).
    progress: Option<&'a AtomicU64>,
}

impl<'a> Reproducer<'a> {
    fn new(traffic: &'a Traffic, bottlenecks: Vec<LinkId>) -> Self {
        let m = traffic.num_links();
        Reproducer {
            traffic,
            bottlenecks,
            stack: Vec::new(),
            depot_mark: vec![0; m],
            inner_mark: vec![0; m],
            depot_users: vec![0; m],
            stamp: 0,
            ancestors: 0,
            deadline: None,
            timed_out: false,
            progress: None,
        }
    }

    fn path(&self, t: usize) -> &'a [LinkId] {
        &self.traffic.transfer(TransferId(t as u32)).path
    }

    /// Marks the links of the depot and inner of `r` with a fresh stamp.
    fn mark(&mut self, r: &Ancestor) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.depot_mark.iter_mut().for_each(|x| *x = 0);
            self.inner_mark.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
        let s = self.stamp;
        for t in r.depot.ones() {
            for l in self.path(t) {
                let li = l.index();
                if self.depot_mark[li] != s {
                    self.depot_mark[li] = s;
                    self.depot_users[li] = 0;
                }
                self.depot_users[li] += 1;
            }
        }
        if !self.bottlenecks.is_empty() {
            for t in r.inner.ones() {
                for l in self.path(t) {
                    self.inner_mark[l.index()] = s;
                }
            }
        }
    }

    /// ρ: some outer transfer congests with no depot transfer.
    fn barren(&self, r: &Ancestor) -> bool {
        let s = self.stamp;
        r.outer
            .ones()
            .any(|x| self.path(x).iter().all(|l| self.depot_mark[l.index()] != s))
    }

    /// τ: inner ∪ depot misses a bottleneck.
    fn viscid(&self) -> bool {
        let s = self.stamp;
        self.bottlenecks
            .iter()
            .any(|l| self.inner_mark[l.index()] != s && self.depot_mark[l.index()] != s)
    }

    /// The depot element to split on (the ancestor is neither barren, viscid nor completed).
    fn choose(&self, r: &Ancestor) -> usize {
        let s = self.stamp;
        // A depot user of the uncovered bottleneck with the fewest depot users.
        let best = self
            .bottlenecks
            .iter()
            .filter(|l| self.inner_mark[l.index()] != s)
            .min_by_key(|l| self.depot_users[l.index()]);
        if let Some(&l) = best {
            if let Some(&t) = self
                .traffic
                .users(l)
                .iter()
                .find(|t| r.depot.contains(t.index()))
            {
                return t.index();
            }
        }
        // The first outer transfer must be blocked by a depot transfer: split on one.
        if let Some(x) = r.outer.minimum() {
            let px = self.path(x);
            if let Some(t) = r
                .depot
                .ones()
                .find(|&t| self.path(t).iter().any(|l| px.contains(l)))
            {
                return t;
            }
        }
        r.depot
            .minimum()
            .expect("a non-completed ancestor has a depot")
    }

    fn next_inner(&mut self) -> Option<FixedBitSet> {
        if self.timed_out {
            return None;
        }
        while let Some(r) = self.stack.pop() {
            self.ancestors += 1;
            let every = (CLOCK_WORK / self.traffic.len().max(1) as u64).clamp(1, CLOCK_EVERY);
            if self.ancestors % every == 0 {
                if let Some(p) = self.progress {
                    p.fetch_add(every, Ordering::Relaxed);
                }
                if self.deadline.is_some_and(|d| Instant::now() >= d) {
                    // Finding one team can take long on large traffics: a deadline must
                    // stop the enumeration itself, not only the search between teams.
                    self.timed_out = true;
                    self.stack.clear();
                    return None;
                }
            }
            if r.outer.is_clear() && r.depot.is_clear() {
                if !self.bottlenecks.is_empty() {
                    self.mark(&r);
                    if self.viscid() {
                        continue;
                    }
                }
                return Some(r.inner);
            }
            self.mark(&r);
            if self.barren(&r) || self.viscid() {
                continue;
            }
            let a = self.choose(&r);
            // ψ-a: a moves from the depot to the outer.
            let mut minus = r.clone();
            minus.depot.remove(a);
            minus.outer.insert(a);
            // ψ+a: a joins the inner; everything congesting with a leaves outer and depot.
            let mut plus = r;
            for l in self.path(a) {
                for u in self.traffic.users(*l) {
                    plus.depot.remove(u.index());
                    plus.outer.remove(u.index());
                }
            }
            plus.inner.insert(a);
            self.stack.push(minus);
            self.stack.push(plus);
        }
        None
    }
}

/// Every full simultaneity (maximal set of pairwise simultaneous transfers) of a
/// sub-traffic, one by one without repetition (004 section 2: ρ∘Ψ from the prim-ancestor).
#[derive(Debug)]
pub struct FullSimultaneities<'a> {
    rep: Reproducer<'a>,
}

impl<'a> FullSimultaneities<'a> {
    /// The full simultaneities of the sub-traffic `set` of `traffic` (nothing when empty).
    pub fn new(traffic: &'a Traffic, set: &TransferSet) -> Self {
        let mut rep = Reproducer::new(traffic, Vec::new());
        if !set.is_clear() {
            let empty = FixedBitSet::with_capacity(traffic.len());
            rep.stack.push(Ancestor {
                outer: empty.clone(),
                depot: set.clone(),
                inner: empty,
            });
        }
        FullSimultaneities { rep }
    }

    /// Ancestors examined so far.
    pub fn ancestors(&self) -> u64 {
        self.rep.ancestors
    }
}

impl Iterator for FullSimultaneities<'_> {
    type Item = TransferSet;
    fn next(&mut self) -> Option<TransferSet> {
        self.rep.next_inner()
    }
}

/// Every full team (full simultaneity using every bottleneck) of a sub-traffic, one by one
/// without repetition, by the two-phase skeleton construction of 004 section 3.
#[derive(Debug)]
pub struct FullTeams<'a> {
    set: TransferSet,
    skeletons: Reproducer<'a>,
    bodies: Reproducer<'a>,
    /// Skeleton teams produced by phase 1 so far.
    skeleton_teams: u64,
}

impl<'a> FullTeams<'a> {
    /// The full teams of the whole traffic.
    pub fn of_traffic(traffic: &'a Traffic) -> Self {
        Self::new(traffic, &all_transfers(traffic))
    }

    /// The full teams of the sub-traffic `set` of `traffic` (its own bottlenecks count;
    /// nothing when the set is empty).
    pub fn new(traffic: &'a Traffic, set: &TransferSet) -> Self {
        let (_, bottlenecks) = bottlenecks_in(traffic, set);
        let mut skeleton = FixedBitSet::with_capacity(traffic.len());
        for &l in &bottlenecks {
            for t in traffic.users(l) {
                if set.contains(t.index()) {
                    skeleton.insert(t.index());
                }
            }
        }
        let mut skeletons = Reproducer::new(traffic, bottlenecks);
        if !skeleton.is_clear() {
            let empty = FixedBitSet::with_capacity(traffic.len());
            skeletons.stack.push(Ancestor {
                outer: empty.clone(),
                depot: skeleton,
                inner: empty,
            });
        }
        FullTeams {
            set: set.clone(),
            skeletons,
            bodies: Reproducer::new(traffic, Vec::new()),
            skeleton_teams: 0,
        }
    }

    /// Ancestors examined so far (both phases).
    pub fn ancestors(&self) -> u64 {
        self.skeletons.ancestors + self.bodies.ancestors
    }

    /// Stops the enumeration (it then yields nothing more) once `deadline` has passed;
    /// [`FullTeams::timed_out`] tells a stop from the end of the enumeration.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.skeletons.deadline = deadline;
        self.bodies.deadline = deadline;
        self
    }

    /// Whether the deadline stopped the enumeration (then it is incomplete).
    pub fn timed_out(&self) -> bool {
        self.skeletons.timed_out || self.bodies.timed_out
    }

    /// Adds the ancestors examined to `counter` as the enumeration goes (at each look at
    /// the clock, every [`CLOCK_EVERY`] ancestors or sooner on large traffics), for a
    /// progress indicator.
    pub fn with_progress(mut self, counter: &'a AtomicU64) -> Self {
        self.skeletons.progress = Some(counter);
        self.bodies.progress = Some(counter);
        self
    }

    /// Skeleton teams (phase 1: the full teams of the skeleton ζ(X)) produced so far;
    /// the full teams yielded so far are those of these skeletons (the last one's maybe
    /// not all yet).
    pub fn skeleton_teams(&self) -> u64 {
        self.skeleton_teams
    }
}

impl Iterator for FullTeams<'_> {
    type Item = TransferSet;
    fn next(&mut self) -> Option<TransferSet> {
        loop {
            if let Some(team) = self.bodies.next_inner() {
                return Some(team);
            }
            if self.timed_out() {
                return None;
            }
            let skeleton = self.skeletons.next_inner()?;
            self.skeleton_teams += 1;
            // (∅, {x ∈ X | x ∩ ∪A = ∅}, A)
            let traffic = self.skeletons.traffic;
            let mut depot = self.set.clone();
            for t in skeleton.ones() {
                depot.remove(t);
                for l in &traffic.transfer(TransferId(t as u32)).path {
                    for u in traffic.users(*l) {
                        depot.remove(u.index());
                    }
                }
            }
            self.bodies.stack.push(Ancestor {
                outer: FixedBitSet::with_capacity(traffic.len()),
                depot,
                inner: skeleton,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::arb_traffic;
    use proptest::prelude::*;

    fn simultaneous(t: &Traffic, s: &[usize]) -> bool {
        s.iter().enumerate().all(|(i, &a)| {
            s[i + 1..]
                .iter()
                .all(|&b| !t.congest(TransferId(a as u32), TransferId(b as u32)))
        })
    }

    /// Brute force: subsets of `set` that are simultaneous, full, and (if `teams`) use
    /// every bottleneck of `set`.
    pub(crate) fn brute(t: &Traffic, set: &[usize], teams: bool) -> Vec<Vec<usize>> {
        let mut fs = FixedBitSet::with_capacity(t.len());
        set.iter().for_each(|&x| fs.insert(x));
        let (_, b) = bottlenecks_in(t, &fs);
        let mut out = Vec::new();
        for mask in 0u32..(1 << set.len()) {
            let s: Vec<usize> = (0..set.len())
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| set[i])
                .collect();
            if s.is_empty() || !simultaneous(t, &s) {
                continue;
            }
            let full = set.iter().filter(|x| !s.contains(x)).all(|&x| {
                s.iter()
                    .any(|&y| t.congest(TransferId(x as u32), TransferId(y as u32)))
            });
            let team = b.iter().all(|l| {
                s.iter()
                    .any(|&y| t.transfer(TransferId(y as u32)).path.contains(l))
            });
            if full && (team || !teams) {
                out.push(s);
            }
        }
        out.sort();
        out
    }

    fn sorted(it: impl Iterator<Item = TransferSet>) -> (Vec<Vec<usize>>, usize) {
        let mut v: Vec<Vec<usize>> = it.map(|s| s.ones().collect()).collect();
        let n = v.len();
        v.sort();
        (v, n)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(192))]
        #[test]
        fn full_teams_equal_brute_force(t in arb_traffic(9, 6), mask in any::<u32>()) {
            // The whole traffic, and a random sub-traffic.
            let all: Vec<usize> = (0..t.len()).collect();
            let sub: Vec<usize> = all.iter().copied().filter(|i| mask >> i & 1 == 1).collect();
            for set in [all, sub] {
                let mut fs = FixedBitSet::with_capacity(t.len());
                set.iter().for_each(|&x| fs.insert(x));
                let (got, n) = sorted(FullTeams::new(&t, &fs));
                let mut dedup = got.clone();
                dedup.dedup();
                prop_assert_eq!(dedup.len(), n, "repetition");
                prop_assert_eq!(got, brute(&t, &set, true));
                let (got, n) = sorted(FullSimultaneities::new(&t, &fs));
                let mut dedup = got.clone();
                dedup.dedup();
                prop_assert_eq!(dedup.len(), n, "repetition");
                prop_assert_eq!(got, brute(&t, &set, false));
            }
        }
    }

    /// A deadline already passed stops the enumeration at its first look at the clock;
    /// the report holds what was found before (a prefix of the whole enumeration, in the
    /// same order), says it stopped, and counted the ancestors for progress. Without a
    /// limit, the report is the whole enumeration and says nothing of a stop.
    #[test]
    fn a_deadline_stops_the_report_with_what_it_found() {
        let t = liquid_model::examples::queens(8);
        let whole = TeamsReport::new(&t, true);
        assert!(whole.stopped.is_none() && whole.stopped().is_none());
        let all = whole.teams.clone().expect("listed");
        assert_eq!(all.len() as u64, whole.full_teams());
        assert!(whole.ancestors > 2 * CLOCK_EVERY, "{}", whole.ancestors);
        let counter = AtomicU64::new(0);
        let limit = TimeLimit {
            start: Instant::now(),
            limit: Duration::ZERO,
        };
        let part = TeamsReport::within(&t, true, Some(limit), &counter);
        let stopped = part.stopped.clone().expect("stopped");
        assert_eq!(stopped.time_limit_s, 0.0);
        assert!(stopped.incomplete.contains("lower bound"), "{stopped:?}");
        assert!(stopped.incomplete.contains("teams lists"), "{stopped:?}");
        assert!(part.stopped().expect("said").contains("lower bound"));
        // Each of the two phases stops at its first look at the clock, at the latest.
        assert!(part.ancestors <= 2 * CLOCK_EVERY, "{}", part.ancestors);
        assert!(part.full_teams() < whole.full_teams());
        let listed = part.teams.clone().expect("listed");
        assert_eq!(listed.len() as u64, part.full_teams());
        assert_eq!(
            listed[..],
            all[..listed.len()],
            "not a prefix of the whole list"
        );
        assert!(counter.load(Ordering::Relaxed) > 0);
        assert!(counter.load(Ordering::Relaxed) <= part.ancestors);
        // A limit that does not come changes nothing.
        let ample = TimeLimit {
            start: Instant::now(),
            limit: Duration::from_secs(3600),
        };
        let within = TeamsReport::within(&t, false, Some(ample), &AtomicU64::new(0));
        assert!(within.stopped.is_none());
        assert_eq!(
            (within.full_teams, within.ancestors),
            (whole.full_teams, whole.ancestors)
        );
    }

    /// On a traffic so large that one ancestor costs about [`CLOCK_WORK`] transfers'
    /// worth of work, the clock is read at every ancestor: a passed deadline stops the
    /// enumeration at the first one, before any team.
    #[test]
    fn on_a_large_traffic_the_deadline_is_read_at_every_ancestor() {
        let t = liquid_topology::spec::traffic("fat-tree:24,2")
            .expect("a valid spec")
            .expect("a generated model");
        assert!(t.len() as u64 >= CLOCK_WORK, "{} transfers", t.len());
        let mut it = FullTeams::of_traffic(&t).with_deadline(Some(Instant::now()));
        assert!(it.next().is_none());
        assert!(it.timed_out());
        assert_eq!(it.ancestors(), 1);
        assert_eq!(it.skeleton_teams(), 0);
    }

    #[test]
    fn no_team_has_no_full_team() {
        let t = crate::test_support::no_team();
        assert_eq!(FullTeams::of_traffic(&t).count(), 0);
        assert_eq!(FullSimultaneities::new(&t, &all_transfers(&t)).count(), 3);
    }
}

/// `liquid teams`'s report: the full teams of a whole traffic, counted (and listed) in
/// enumeration order; when the time limit stopped the enumeration, what was found before
/// it, with [`TeamsStopped`].
#[derive(Debug, serde::Serialize)]
pub struct TeamsReport {
    model: String,
    transfers: usize,
    duration: usize,
    bottlenecks: Vec<String>,
    /// Full teams found (a lower bound when `stopped` is present).
    full_teams: u64,
    /// Ancestors examined by the two-phase reproduction of 004.
    ancestors: u64,
    /// Where the time limit stopped the enumeration (absent: it ran to the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<TeamsStopped>,
    #[serde(skip_serializing_if = "Option::is_none")]
    teams: Option<Vec<Vec<String>>>,
}

/// How far the enumeration of the full teams got before the time limit stopped it: the
/// report's `full_teams` and `ancestors` (and its `teams`, listed) are what it found
/// before, so `full_teams` is a lower bound.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TeamsStopped {
    /// The time limit, seconds.
    pub time_limit_s: f64,
    /// Wall time from the caller's start (for `liquid teams`, before it loads the model)
    /// to the stop, seconds.
    pub wall_s: f64,
    /// Skeleton teams produced by phase 1 by then ([`FullTeams::skeleton_teams`]): the
    /// full teams found are those of these skeletons, the last one's maybe not all.
    pub skeleton_teams: u64,
    /// What the report's figures are, said for people.
    pub incomplete: String,
}

/// The time limit of an enumeration: it started at `start` (which may be before the
/// enumeration, for instance before the model was loaded) and stops `limit` later (a
/// limit too far for an [`Instant`] is no limit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeLimit {
    /// When the clock started.
    pub start: Instant,
    /// How long the whole run may take.
    pub limit: Duration,
}

impl TeamsReport {
    /// Enumerates the full teams of `traffic` to the end, listing them as transfer names
    /// with `list`.
    pub fn new(traffic: &Traffic, list: bool) -> TeamsReport {
        TeamsReport::within(traffic, list, None, &AtomicU64::new(0))
    }

    /// [`TeamsReport::new`] within `time_limit` (the enumeration looks at the clock every
    /// [`CLOCK_EVERY`] ancestors, every ancestor on large traffics): past it the report
    /// holds the teams found before (counted, and listed with `list`) and says where it
    /// stopped ([`TeamsReport::stopped`]). `progress` is given the ancestors examined as
    /// the enumeration goes.
    pub fn within(
        traffic: &Traffic,
        list: bool,
        time_limit: Option<TimeLimit>,
        progress: &AtomicU64,
    ) -> TeamsReport {
        let (duration, bottlenecks) = bottlenecks_in(traffic, &all_transfers(traffic));
        let mut it = FullTeams::of_traffic(traffic)
            .with_deadline(time_limit.and_then(|t| t.start.checked_add(t.limit)))
            .with_progress(progress);
        let mut count = 0u64;
        let mut listed = Vec::new();
        for team in it.by_ref() {
            count += 1;
            if list {
                listed.push(
                    team.ones()
                        .map(|t| traffic.transfer_name(TransferId(t as u32)).to_string())
                        .collect(),
                );
            }
        }
        let stopped = time_limit.filter(|_| it.timed_out()).map(|t| TeamsStopped {
            time_limit_s: t.limit.as_secs_f64(),
            wall_s: t.start.elapsed().as_secs_f64(),
            skeleton_teams: it.skeleton_teams(),
            incomplete: format!(
                "the time limit stopped the enumeration: full_teams and ancestors count what \
                 was found before it, full_teams is a lower bound{}",
                if list {
                    "; teams lists the full teams found so far"
                } else {
                    ""
                }
            ),
        });
        TeamsReport {
            model: traffic.name().to_string(),
            transfers: traffic.len(),
            duration,
            bottlenecks: bottlenecks
                .iter()
                .map(|&l| traffic.link_name(l).to_string())
                .collect(),
            full_teams: count,
            ancestors: it.ancestors(),
            stopped,
            teams: list.then_some(listed),
        }
    }

    /// Full teams found (all of them unless [`TeamsReport::stopped`]).
    pub fn full_teams(&self) -> u64 {
        self.full_teams
    }

    /// Where the time limit stopped the enumeration, said for people (None: it ran to the
    /// end).
    pub fn stopped(&self) -> Option<String> {
        self.stopped.as_ref().map(|s| {
            format!(
                "the time limit stopped the enumeration of the full teams after {} s \
                 ({} full teams from {} skeleton teams, {} ancestors examined): full_teams \
                 is a lower bound; raise --time-limit for the whole enumeration",
                liquid_model::display::round_significant(s.wall_s, 4),
                self.full_teams,
                s.skeleton_teams,
                self.ancestors
            )
        })
    }
}
