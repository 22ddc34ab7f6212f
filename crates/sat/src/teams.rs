//! Refutations of k = Λ timeframes by an exact cover of full teams, written as an LRAT
//! proof in extended resolution: the full-team recursion of papers 003/004, as a proof.
//!
//! When k = Λ, every timeframe of a schedule holds exactly one user of every bottleneck
//! (a link of load Λ): its transfers on bottlenecks form a *full team*. The encoding's
//! symmetry family fixes the k users of one bottleneck to the k timeframes, so every full
//! team of timeframe `c` holds that link's user fixed to `c`, its *root*. The proof has
//! four parts, all checked by `liquid-certify`. Before it writes anything, a plain
//! exact-cover search over the enumerated teams (counts of blocked teams, the bottleneck
//! transfer with the fewest open teams first; a quarter of the node budget) looks for a
//! cover: a cover in which the other transfers fit greedily is a schedule at once,
//! without the proof's cost (queen11_11: 55 ms). Otherwise the proof search decides; its
//! unit propagation also sees the transfers on no bottleneck.
//!
//! 1. **Definitions.** The full teams of every timeframe are enumerated (a plain search,
//!    no proof). Team `S` of timeframe `c` gets a new variable `y_S` meaning "every
//!    transfer of `S` is in `c`": `y_S ∨ ¬x[t1,c] ∨ … ∨ ¬x[tm,c]`, then `¬y_S ∨ x[t,c]`
//!    for each `t ∈ S`, RAT steps on `y_S` (extended resolution: they keep the formula
//!    satisfiable).
//! 2. **Timeframe `c` holds a full team:** `∨ y_S` over the teams of `c`, by a search that
//!    fills `c` alone (team clauses, fewest open users first) under the assumption that
//!    every `y_S` is false; a complete team falsifies its own definition. Its lemmas are
//!    deleted once the clause is derived.
//! 3. **Each bottleneck transfer `t` is in a team:** for every timeframe `c`,
//!    `¬x[t,c] ∨ ∨_{S ∋ t} y_S` follows by unit propagation from part 2 (a team of `c`
//!    without `t` holds another user of a bottleneck of `t`); then `∨_{S ∋ t} y_S` over
//!    every timeframe from those and `t`'s at-least-one clause.
//! 4. **No exact cover.** A search over the clauses of part 3 (the bottleneck transfer
//!    with the fewest open teams first; its branches are the teams that hold it) in which
//!    unit propagation through the definitions plays the part of dancing links: a chosen
//!    team's transfers exclude every team they meet. A failed node learns the negation of
//!    the teams chosen above it that the conflict used; the root's is the empty clause.
//!
//! On queen10_10 (k = 10): 544 teams (the bottlenecks are the rows, the columns and the
//! two long diagonals), 20,330 nodes and a 3.1 MB proof, where the frame search
//! ([`crate::frames`]) needs 3.2 million decisions in the variables of the encoding alone.
//! It declines ([`Covered::Declined`]) when the teams are too many ([`MAX_TEAMS`],
//! [`MAX_TEAM_WORK`]), when its proof passes [`MAX_PROOF_BYTES`], or when its search ends
//! on a cover of the bottleneck transfers in which the other transfers do not fit
//! greedily; a cover with the others placed is a schedule ([`Covered::Sat`], to be
//! validated by the caller).

use std::fmt::Write as _;
use std::time::Instant;

use liquid_model::{Schedule, Traffic, TransferId};

use crate::encode::Encoding;
use crate::frames::{indices, team_clauses, FramesError};
use crate::rup::write_step;
use crate::units::{out_of_budget, Units, NO_REASON};
use liquid_search::team_list::{Halt, TeamLister, TeamShape};

/// The most full teams (over every timeframe) the proof defines variables for.
pub const MAX_TEAMS: usize = 100_000;

/// The most teams × bottleneck transfers the search takes on: the exact-cover pass's
/// nodes and part 3's hints cost their product, and part 2's lemmas hold up to a
/// timeframe's teams each (a 78-transfer core of a random traffic at k = 4 has 65,433
/// teams: its proof passed [`MAX_PROOF_BYTES`] after 8 s, where the frame search refutes
/// it in 0.24 s).
pub const MAX_TEAM_WORK: usize = 1 << 20;

/// The largest proof the search writes (256 MiB); past it, it declines.
pub const MAX_PROOF_BYTES: usize = 1 << 28;

/// What [`refute`] found.
#[derive(Debug, Clone)]
pub enum Covered {
    /// The CNF is unsatisfiable: its LRAT proof (unchecked), with RAT steps for the
    /// definitions.
    Unsat {
        /// LRAT text, step ids after the CNF's clauses.
        lrat: String,
        /// Full teams defined.
        teams: usize,
        /// Search nodes: enumeration, part 2 and part 4 decisions.
        nodes: u64,
        /// Steps written, the definitions and the empty clause included.
        steps: u64,
    },
    /// A schedule of k timeframes (decoded, not yet validated).
    Sat(Schedule),
    /// The method does not apply or cannot finish here: why.
    Declined(String),
    /// The deadline (looked at on the first node and every 1,024 after) or the node budget
    /// came first.
    Stopped {
        /// Search nodes.
        nodes: u64,
    },
}

/// How a search below a node ended.
enum End {
    /// Every branching clause is satisfied.
    Complete,
    /// The node failed: this clause is false under the current assignment.
    Conflict(u32),
    /// The deadline or the budget.
    Stopped,
    /// A lemma satisfied the branching clause: choose again.
    Again,
}

/// What the search branches on.
#[derive(Clone, Copy)]
enum Mode {
    /// The team clauses of one timeframe (part 2).
    Frame(usize),
    /// The clauses "this bottleneck transfer is in a team" (part 4).
    Cover,
}

/// The traffic as the enumeration sees it.
struct Shape {
    /// Per link: its users.
    users: Vec<Vec<u32>>,
    /// Per transfer: its links.
    paths: Vec<Vec<u32>>,
    /// The bottlenecks (links of load k).
    bottlenecks: Vec<u32>,
    /// Per transfer: the timeframe the encoding fixes it to.
    fixed: Vec<Option<usize>>,
}

/// An exact cover of the bottleneck transfers by teams, without a proof (dancing links by
/// counts): the search looks for a cover before it writes anything, so that a traffic
/// that has one gets its schedule without the proof's cost, and the proof is written only
/// for traffics that have none.
struct Exact<'a> {
    /// Per team: its transfers.
    teams: &'a [(usize, Vec<u32>)],
    /// Per transfer: the teams that hold it.
    holding: &'a [Vec<usize>],
    /// The bottleneck transfers.
    items: &'a [u32],
    /// Per transfer: covered by a chosen team.
    covered: Vec<bool>,
    /// Per team: how many of its transfers are covered (available when none).
    blocked: Vec<u32>,
    chosen: Vec<usize>,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
}

impl Exact<'_> {
    fn take(&mut self, team: usize, on: bool) {
        for &t in &self.teams[team].1 {
            self.covered[t as usize] = on;
            for &other in &self.holding[t as usize] {
                if on {
                    self.blocked[other] += 1;
                } else {
                    self.blocked[other] -= 1;
                }
            }
        }
    }

    /// `Ok(true)` with a cover in `chosen`, `Ok(false)` when there is none, `Err` at the
    /// budget or the deadline.
    fn run(&mut self) -> Result<bool, ()> {
        self.nodes += 1;
        if out_of_budget(self.nodes, self.budget, self.deadline) {
            return Err(());
        }
        // The uncovered transfer with the fewest available teams.
        let mut best: Option<(usize, u32)> = None;
        for &t in self.items {
            if self.covered[t as usize] {
                continue;
            }
            let open = self.holding[t as usize]
                .iter()
                .filter(|&&s| self.blocked[s] == 0)
                .count();
            if best.is_none_or(|(b, _)| open < b) {
                best = Some((open, t));
                if open == 0 {
                    break;
                }
            }
        }
        let Some((_, t)) = best else {
            return Ok(true);
        };
        for i in 0..self.holding[t as usize].len() {
            let team = self.holding[t as usize][i];
            if self.blocked[team] != 0 {
                continue;
            }
            self.take(team, true);
            self.chosen.push(team);
            match self.run() {
                Ok(false) => {}
                other => return other,
            }
            self.chosen.pop();
            self.take(team, false);
        }
        Ok(false)
    }
}

struct Cover {
    u: Units,
    seen: Vec<bool>,
    lrat: String,
    steps: u64,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    refuted: bool,
    /// Part 2's lemmas, deleted once its clause is derived; collected while `inner`.
    forget: Vec<u32>,
    inner: bool,
    /// Lemmas of one literal (not part 2's): re-asserted after every backtrack.
    singles: Vec<u32>,
    /// The proof passed [`MAX_PROOF_BYTES`] (the search stopped).
    too_large: bool,
    mode: Mode,
    /// Per timeframe: its team clauses (indices).
    team_clauses: Vec<Vec<u32>>,
    /// Part 3's clauses "t is in a team", one per bottleneck transfer not already placed.
    cover_clauses: Vec<u32>,
}

impl Cover {
    fn level(&self) -> u32 {
        self.u.level()
    }

    fn value(&self, lit: i32) -> i8 {
        self.u.value(lit)
    }

    fn open_level(&mut self) {
        self.u.open_level();
    }

    fn assume(&mut self, lit: i32) {
        if self.value(lit) == 0 {
            self.u.assign_here(lit, NO_REASON);
        }
    }

    fn propagate(&mut self) -> Option<u32> {
        self.u.propagate_here()
    }

    fn backtrack(&mut self, level: u32) {
        self.u.backtrack(level);
    }

    fn id(&self) -> u64 {
        self.u.clauses.len() as u64 + 1
    }

    /// Adds a clause written to the proof already, and handles what it implies now: a
    /// false clause is a conflict, a unit is assigned and propagated.
    fn add(&mut self, clause: Vec<i32>) -> Option<u32> {
        let ci = self.u.add(clause);
        self.u.settle(ci)
    }

    /// Analyses the false clause `conflict` back to the decisions and assumptions it
    /// used: the lemma is their negation. Writes it (unless it is `conflict` itself) and
    /// adds it after backtracking to `level`; returns the lemma's index and whether it is
    /// false there (a conflict).
    fn learn(&mut self, conflict: u32, level: u32) -> (u32, Option<u32>) {
        let mut lemma = Vec::new();
        let used = self.u.walk(conflict, &mut self.seen, |lit, r, level| {
            let expand = level == 0 || r != NO_REASON;
            if !expand {
                lemma.push(-lit);
            }
            expand
        });
        self.refuted = lemma.is_empty();
        let mut same = lemma.clone();
        same.sort_unstable();
        let mut old = self.u.clauses[conflict as usize].clone();
        old.sort_unstable();
        self.backtrack(level);
        let before = self.reassert();
        if same == old && !lemma.is_empty() {
            return (conflict, before.or_else(|| self.u.settle(conflict)));
        }
        let id = self.id();
        write_step(&mut self.lrat, id, &lemma, &used);
        self.steps += 1;
        let ci = self.u.clauses.len() as u32;
        if self.inner {
            self.forget.push(ci);
        } else if lemma.len() == 1 {
            self.singles.push(ci);
        }
        if before.is_some() {
            self.u.add(lemma);
            return (ci, before);
        }
        (ci, self.add(lemma))
    }

    /// Asserts the one-literal lemmas again after a backtrack: a conflict if one is false.
    fn reassert(&mut self) -> Option<u32> {
        for i in 0..self.singles.len() {
            if let Some(c) = self.u.settle(self.singles[i]) {
                return Some(c);
            }
        }
        None
    }

    /// Writes and adds the RAT steps that define `y` as the conjunction of `xs`.
    fn define(&mut self, y: i32, xs: &[i32]) -> Option<u32> {
        let long = self.id();
        let mut clause = vec![y];
        clause.extend(xs.iter().map(|&x| -x));
        write_step(&mut self.lrat, long, &clause, &[]);
        self.steps += 1;
        if let Some(c) = self.add(clause) {
            return Some(c);
        }
        for &x in xs {
            let id = self.id();
            let _ = writeln!(self.lrat, "{id} {} {x} 0 -{long} 0", -y);
            self.steps += 1;
            if let Some(c) = self.add(vec![-y, x]) {
                return Some(c);
            }
        }
        None
    }

    /// Deletes part 2's lemmas (in the proof too).
    fn forget_inner(&mut self) {
        let gone = std::mem::take(&mut self.forget);
        let last = self.id() - 1;
        self.u.delete_in_proof(gone, last, &mut self.lrat);
    }

    /// The branching clause: the unsatisfied one with the fewest open literals.
    fn choose(&self) -> Option<u32> {
        let list = match self.mode {
            Mode::Frame(c) => &self.team_clauses[c],
            Mode::Cover => &self.cover_clauses,
        };
        let mut best: Option<(usize, u32)> = None;
        'clauses: for &ci in list {
            let mut open = 0;
            for &l in &self.u.clauses[ci as usize] {
                match self.value(l) {
                    1 => continue 'clauses,
                    0 => open += 1,
                    _ => {}
                }
            }
            if best.is_none_or(|(b, _)| open < b) {
                best = Some((open, ci));
            }
        }
        best.map(|(_, ci)| ci)
    }

    fn search(&mut self) -> End {
        loop {
            let Some(ci) = self.choose() else {
                return End::Complete;
            };
            let mut candidates: Vec<i32> = self.u.clauses[ci as usize]
                .iter()
                .copied()
                .filter(|&l| self.value(l) == 0)
                .collect();
            candidates.sort_unstable_by_key(|l| l.unsigned_abs());
            match self.try_each(ci, candidates) {
                End::Again => {}
                end => return end,
            }
        }
    }

    /// Tries each literal of clause `ci` in turn.
    fn try_each(&mut self, ci: u32, candidates: Vec<i32>) -> End {
        let level = self.level();
        for lit in candidates {
            match self.value(lit) {
                1 => return End::Again,
                -1 => continue,
                _ => {}
            }
            self.nodes += 1;
            if self.lrat.len() > MAX_PROOF_BYTES {
                self.too_large = true;
                return End::Stopped;
            }
            if out_of_budget(self.nodes, self.budget, self.deadline) {
                return End::Stopped;
            }
            self.open_level();
            self.assume(lit);
            let end = match self.propagate() {
                Some(c) => End::Conflict(c),
                None => self.search(),
            };
            let conflict = match end {
                End::Conflict(c) if !self.refuted => c,
                other => return other,
            };
            let (lemma, now) = self.learn(conflict, level);
            if self.refuted {
                return End::Conflict(lemma);
            }
            if let Some(c) = now {
                return End::Conflict(c);
            }
        }
        // Every literal of the clause is false: it is the conflict.
        End::Conflict(ci)
    }

    /// Derives, under the assumptions `lits` at level 1 (those not already decided),
    /// what unit propagation and a search in `mode` refute: their negation (a subset of
    /// it). `Ok(Some(index))` of the lemma; `Ok(None)` when the search stopped;
    /// `Err(what)` when nothing was refuted (a bug).
    fn derive(&mut self, lits: &[i32], mode: Option<Mode>) -> Result<Option<u32>, String> {
        self.inner = matches!(mode, Some(Mode::Frame(_)));
        self.open_level();
        for &l in lits {
            self.assume(l);
        }
        let end = match self.propagate() {
            Some(c) => End::Conflict(c),
            None => match mode {
                Some(m) => {
                    self.mode = m;
                    self.search()
                }
                None => End::Complete,
            },
        };
        self.inner = false;
        match end {
            End::Conflict(c) => {
                if self.refuted {
                    return Ok(Some(c));
                }
                let (lemma, now) = self.learn(c, 0);
                if self.refuted {
                    return Ok(Some(lemma));
                }
                self.forget_inner();
                if let Some(c) = now {
                    // The lemma, at level 0, leaves a false clause: the empty clause.
                    self.learn(c, 0);
                }
                Ok(Some(lemma))
            }
            End::Stopped => {
                self.backtrack(0);
                Ok(None)
            }
            End::Complete | End::Again => {
                Err("unit propagation and the search left a case open".to_string())
            }
        }
    }
}

/// Refutes the encoding `e` of `traffic` with k = Λ timeframes (every family, no closed
/// timeframe) by an exact cover of full teams, or finds a schedule, within `budget` nodes
/// and the deadline.
pub fn refute(
    traffic: &Traffic,
    e: &Encoding,
    budget: u64,
    deadline: Option<Instant>,
) -> Result<Covered, FramesError> {
    refute_capped(traffic, e, budget, deadline, MAX_TEAMS)
}

/// [`refute`] with at most `max_teams` teams.
fn refute_capped(
    traffic: &Traffic,
    e: &Encoding,
    budget: u64,
    deadline: Option<Instant>,
    max_teams: usize,
) -> Result<Covered, FramesError> {
    let o = e.options();
    let k = e.colours();
    if o.frames.is_some() || !o.transfer_amo || !o.team || k != traffic.duration() {
        return Err(FramesError::Encoding);
    }
    let team_clauses = team_clauses(traffic, e)?;
    let n = traffic.len();
    let mut fixed = vec![None; n];
    let mut roots = vec![None; k];
    for (t, c) in e.fixed() {
        fixed[t.index()] = Some(c);
        roots[c] = Some(t.index() as u32);
    }
    let Some(roots) = roots.into_iter().collect::<Option<Vec<u32>>>() else {
        return Ok(Covered::Declined(
            "the encoding fixes no transfer to some timeframe (no symmetry family)".to_string(),
        ));
    };
    let (users, paths) = indices(traffic);
    let shape = Shape {
        users,
        paths,
        bottlenecks: traffic
            .link_ids()
            .filter(|&l| traffic.users(l).len() == k)
            .map(|l| l.index() as u32)
            .collect(),
        fixed,
    };
    let mut on_bottleneck = vec![false; n];
    for &l in &shape.bottlenecks {
        for &u in &shape.users[l as usize] {
            on_bottleneck[u as usize] = true;
        }
    }
    let covered: Vec<u32> = (0..n as u32)
        .filter(|&t| on_bottleneck[t as usize])
        .collect();

    // Part 1: the teams, timeframe by timeframe: those holding the timeframe's root and
    // no transfer the encoding fixes to another timeframe.
    let mut lister = TeamLister::new(TeamShape {
        users: &shape.users,
        paths: &shape.paths,
        bottlenecks: &shape.bottlenecks,
    })
    .with_limits(budget, deadline)
    .with_cap(max_teams);
    // The cap counts the teams of every timeframe together.
    let mut listed: Vec<Vec<u32>> = Vec::new();
    let mut colour: Vec<usize> = Vec::new();
    for (c, &root) in roots.iter().enumerate() {
        let others: Vec<u32> = (0..n as u32)
            .filter(|&t| shape.fixed[t as usize].is_some_and(|f| f != c))
            .collect();
        for &t in &others {
            lister.exclude(t, true);
        }
        let r = lister.list(Some(root), &mut listed);
        colour.resize(listed.len(), c);
        for &t in &others {
            lister.exclude(t, false);
        }
        match r {
            Ok(()) => {}
            Err(Halt::Stopped) => {
                return Ok(Covered::Stopped {
                    nodes: lister.nodes(),
                })
            }
            Err(Halt::TooMany) => {
                return Ok(Covered::Declined(format!(
                    "more than {max_teams} full teams"
                )))
            }
        }
    }
    let teams: Vec<(usize, Vec<u32>)> = colour.into_iter().zip(listed).collect();
    // Both searches below cost teams × bottleneck transfers per node (or per clause).
    if teams.len().saturating_mul(covered.len()) > MAX_TEAM_WORK {
        return Ok(Covered::Declined(format!(
            "{} full teams × {} bottleneck transfers is beyond {MAX_TEAM_WORK}",
            teams.len(),
            covered.len()
        )));
    }
    // Which teams hold each transfer.
    let mut holding: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, (_, team)) in teams.iter().enumerate() {
        for &t in team {
            holding[t as usize].push(i);
        }
    }
    // A cover first, without a proof.
    let mut exact = Exact {
        teams: &teams,
        holding: &holding,
        items: &covered,
        covered: vec![false; n],
        blocked: vec![0; teams.len()],
        chosen: Vec::new(),
        nodes: lister.nodes(),
        // A quarter of what is left: without learning, a search that has no cover to
        // find can take far longer than the proof search, which learns.
        budget: lister
            .nodes()
            .saturating_add(budget.saturating_sub(lister.nodes()) / 4),
        deadline,
    };
    match exact.run() {
        Err(()) if deadline.is_some_and(|d| Instant::now() >= d) => {
            return Ok(Covered::Stopped { nodes: exact.nodes })
        }
        // Its budget: the proof search decides (and finds a cover, if there is one).
        Err(()) => {}
        Ok(true) => {
            let mut frame: Vec<Option<usize>> = vec![None; n];
            for &i in &exact.chosen {
                for &t in &teams[i].1 {
                    frame[t as usize] = Some(teams[i].0);
                }
            }
            // The other transfers may not fit this cover: then the proof search decides,
            // whose propagation sees them.
            if let found @ Covered::Sat(_) = schedule(&shape, k, frame) {
                return Ok(found);
            }
        }
        Ok(false) => {}
    }
    let nodes = exact.nodes;

    let num_vars = e.num_vars() + teams.len();
    let y = |i: usize| (e.num_vars() + 1 + i) as i32;
    let mut s = Cover {
        u: Units::new(num_vars),
        seen: vec![false; num_vars + 1],
        lrat: String::new(),
        steps: 0,
        nodes,
        budget,
        deadline,
        refuted: false,
        forget: Vec::new(),
        inner: false,
        singles: Vec::new(),
        too_large: false,
        mode: Mode::Cover,
        team_clauses,
        cover_clauses: Vec::new(),
    };
    let unsat = |s: Cover| Covered::Unsat {
        lrat: s.lrat,
        teams: teams.len(),
        nodes: s.nodes,
        steps: s.steps,
    };
    let internal = |what: String| FramesError::Internal(format!("team-cover proof: {what}"));
    // Level 0: the CNF, its units and what they propagate. Loading a large CNF takes
    // seconds: the deadline is looked at every 4,096 clauses, and after each part.
    let past = || deadline.is_some_and(|d| Instant::now() >= d);
    let mut conflict = None;
    for (i, c) in e.clauses().iter().enumerate() {
        if i % 4096 == 0 && past() {
            return Ok(stopped(&s));
        }
        let ci = s.u.add(c.clone());
        if conflict.is_none() && c.len() <= 1 {
            conflict = s.u.settle(ci);
        }
    }
    let mut conflict = conflict.or_else(|| s.propagate());
    // Part 1: the definitions.
    for (i, (c, team)) in teams.iter().enumerate() {
        if conflict.is_some() {
            break;
        }
        if i % 256 == 0 && past() {
            return Ok(stopped(&s));
        }
        let xs: Vec<i32> = team.iter().map(|&t| e.var(TransferId(t), *c)).collect();
        conflict = s.define(y(i), &xs);
    }
    if let Some(c) = conflict {
        s.learn(c, 0);
        return Ok(unsat(s));
    }
    // Part 2: every timeframe holds one of its teams.
    for c in 0..k {
        let ys: Vec<i32> = (0..teams.len())
            .filter(|&i| teams[i].0 == c)
            .map(y)
            .collect();
        if ys.iter().any(|&l| s.value(l) == 1) {
            continue;
        }
        let assumptions: Vec<i32> = ys.iter().map(|&l| -l).collect();
        let r = s
            .derive(&assumptions, Some(Mode::Frame(c)))
            .map_err(&internal)?;
        if r.is_none() {
            return Ok(stopped(&s));
        }
        if s.refuted {
            return Ok(unsat(s));
        }
    }
    // Part 3: each bottleneck transfer is in a team, timeframe by timeframe, then at all.
    for &t in &covered {
        let tid = TransferId(t);
        for c in 0..k {
            let x = e.var(tid, c);
            let ys: Vec<i32> = holding[t as usize]
                .iter()
                .filter(|&&i| teams[i].0 == c)
                .map(|&i| y(i))
                .collect();
            if s.value(x) == -1 || ys.iter().any(|&l| s.value(l) == 1) {
                continue;
            }
            let mut assumptions = vec![x];
            assumptions.extend(ys.iter().map(|&l| -l));
            s.derive(&assumptions, None).map_err(&internal)?;
            if s.refuted {
                return Ok(unsat(s));
            }
        }
        let ys: Vec<i32> = holding[t as usize].iter().map(|&i| y(i)).collect();
        if ys.iter().any(|&l| s.value(l) == 1) {
            continue;
        }
        let assumptions: Vec<i32> = ys.iter().map(|&l| -l).collect();
        let Some(ci) = s.derive(&assumptions, None).map_err(&internal)? else {
            // The deadline (or the proof's size cap) stopped it.
            return Ok(stopped(&s));
        };
        if s.refuted {
            return Ok(unsat(s));
        }
        s.cover_clauses.push(ci);
    }
    // Part 4: the exact cover.
    s.mode = Mode::Cover;
    match s.search() {
        End::Conflict(c) => {
            if !s.refuted {
                s.learn(c, 0);
            }
            if !s.refuted {
                return Err(internal(
                    "the cover search ended without the empty clause".to_string(),
                ));
            }
            Ok(unsat(s))
        }
        End::Stopped => Ok(stopped(&s)),
        End::Again => Err(internal(
            "the cover search chose again at its root".to_string(),
        )),
        End::Complete => {
            // A cover that propagation left open (the other transfers unplaced).
            let mut frame: Vec<Option<usize>> = vec![None; n];
            for (i, (c, team)) in teams.iter().enumerate() {
                if s.value(y(i)) == 1 {
                    for &t in team {
                        frame[t as usize] = Some(*c);
                    }
                }
            }
            Ok(schedule(&shape, k, frame))
        }
    }
}

/// Why the proof search stopped: its proof's size, or the budget or the deadline.
fn stopped(s: &Cover) -> Covered {
    if s.too_large {
        Covered::Declined(format!("its proof passed {MAX_PROOF_BYTES} bytes"))
    } else {
        Covered::Stopped { nodes: s.nodes }
    }
}

/// The schedule of a cover (`frame`: the bottleneck transfers' timeframes), the other
/// transfers placed greedily in the first timeframe they fit; declined when one fits none.
fn schedule(shape: &Shape, k: usize, mut frame: Vec<Option<usize>>) -> Covered {
    let mut busy = vec![vec![false; shape.users.len()]; k];
    for (t, f) in frame.iter().enumerate() {
        if let Some(c) = *f {
            for &l in &shape.paths[t] {
                busy[c][l as usize] = true;
            }
        }
    }
    for (slot, path) in frame.iter_mut().zip(&shape.paths) {
        if slot.is_some() {
            continue;
        }
        let Some(c) = (0..k).find(|&c| path.iter().all(|&l| !busy[c][l as usize])) else {
            return Covered::Declined(
                "the bottleneck transfers have an exact cover by full teams, and the other \
                 transfers do not fit in its timeframes greedily"
                    .to_string(),
            );
        };
        for &l in path {
            busy[c][l as usize] = true;
        }
        *slot = Some(c);
    }
    let frames: Vec<u32> = frame.iter().map(|f| f.unwrap_or(0) as u32).collect();
    Covered::Sat(Schedule::from_timeframes(&frames))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{encode, EncodeOptions};
    use liquid_model::examples::queens;

    fn run(t: &Traffic, k: usize) -> (Covered, String) {
        let e = encode(t, k, &EncodeOptions::default()).expect("encodes");
        let r = refute(t, &e, u64::MAX, None).expect("runs");
        (r, e.dimacs())
    }

    #[test]
    fn queen8_8_and_queen10_10_have_no_cover_and_the_checker_agrees() {
        for n in [8, 10] {
            let t = queens(n);
            let (r, cnf) = run(&t, n);
            let Covered::Unsat {
                lrat, teams, steps, ..
            } = r
            else {
                panic!("queen{n}_{n} has no liquid schedule: {r:?}");
            };
            let report = liquid_certify::check_texts(&cnf, &lrat).expect("checks");
            assert_eq!(
                report.rat as usize,
                teams + teams * n,
                "one definition per team"
            );
            assert_eq!(report.added, steps);
        }
    }

    #[test]
    fn covers_the_other_transfers_do_not_fit_go_to_the_proof_search() {
        // The core `liquid explain` finds in queen8_8: rows 2-7, (0,7) and five squares of
        // row 1. Its bottleneck transfers have exact covers by full teams, but in none of
        // them do the others fit: the proof search's propagation sees them and refutes.
        let q = queens(8);
        let keep: Vec<TransferId> = q
            .transfer_ids()
            .filter(|t| {
                let (r, c) = (t.index() / 8, t.index() % 8);
                r >= 2 || (r, c) == (0, 7) || (r == 1 && [1, 3, 4, 6, 7].contains(&c))
            })
            .collect();
        let t = q.sub_traffic(&keep);
        assert_eq!((t.len(), t.duration()), (54, 8));
        let (r, cnf) = run(&t, 8);
        let Covered::Unsat { lrat, .. } = r else {
            panic!("the core has no schedule of 8 timeframes: {r:?}");
        };
        liquid_certify::check_texts(&cnf, &lrat).expect("checks");
    }

    #[test]
    fn queen7_7_has_a_cover_and_it_is_a_schedule() {
        let t = queens(7);
        let (r, _) = run(&t, 7);
        let Covered::Sat(s) = r else {
            panic!("queen7_7 is 7-colourable: {r:?}");
        };
        assert_eq!(liquid_model::validate(&t, &s).expect("valid").length, 7);
    }

    #[test]
    fn budgets_deadlines_and_team_caps_stop_it() {
        let t = queens(8);
        let e = encode(&t, 8, &EncodeOptions::default()).expect("encodes");
        let r = refute(&t, &e, 10, None).expect("runs");
        assert!(matches!(r, Covered::Stopped { nodes: 11 }), "{r:?}");
        let r = refute(&t, &e, u64::MAX, Some(Instant::now())).expect("runs");
        assert!(matches!(r, Covered::Stopped { nodes: 1 }), "{r:?}");
        // queen10_10 has 544 teams: declined once a cap below that is passed.
        let t = queens(10);
        let e = encode(&t, 10, &EncodeOptions::default()).expect("encodes");
        let r = refute_capped(&t, &e, u64::MAX, None, 100).expect("runs");
        assert!(
            matches!(&r, Covered::Declined(why) if why == "more than 100 full teams"),
            "{r:?}"
        );
    }
}
