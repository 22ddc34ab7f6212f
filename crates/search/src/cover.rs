//! A liquid schedule as an exact cover of the bottleneck transfers by full teams, with
//! orbit schedules first (see `docs/src/hard-liquid.md`).
//!
//! In a liquid schedule (Λ timeframes) every timeframe holds exactly one user of every
//! bottleneck (a link of load Λ), so its transfers on bottlenecks form a *full team*: a
//! set of pairwise non-congesting bottleneck transfers meeting every bottleneck once. The
//! bottleneck transfers of a liquid schedule are therefore an exact cover by Λ full teams,
//! and an exact cover is a liquid schedule as soon as the other transfers (on no
//! bottleneck) fit into its timeframes. So:
//!
//! 1. **Teams.** Every full team of the traffic is enumerated once (the uncovered
//!    bottleneck with the fewest free users first), up to [`MAX_TEAMS`] and
//!    [`MAX_TEAM_WORDS`]; past them the search declines.
//! 2. **Orbit schedules.** For an automorphism σ of the traffic (a permutation of the
//!    transfers that maps the set of paths onto itself, from [`crate::symmetry`]), a
//!    schedule that σ maps onto itself frame to frame is a cover by *σ-orbits of teams*:
//!    a team T whose images T, σT, σ²T, … are pairwise disjoint stands for all of them.
//!    The exact cover by those unions is a much smaller problem (on the 12 × 12 queen
//!    graph, 2,888 unions of two teams for the half turn instead of 9,440 teams). The
//!    candidates σ are the generators of the group found, their pairwise products, and
//!    their powers of prime order, the ones with the fewest orbits on the transfers first,
//!    each within its share of the budget. No schedule of this kind need exist: an
//!    exhausted orbit search proves nothing, and the plain search follows.
//! 3. **Plain search.** The exact cover by single teams.
//!
//! Both searches are the same ([`Search`]): bitsets of the bottleneck transfers per
//! candidate row, the list of rows still available at each depth (those disjoint from
//! the rows chosen), the uncovered transfer with the fewest available rows first
//! (minimum remaining values; 0 fails the node), and the rows holding it as branches. A
//! transfer on no bottleneck must fit into some timeframe: a node whose chosen and
//! available rows leave one of them with no compatible team (none that it congests with
//! nothing of) fails at once; at a complete cover they are placed by a small search
//! ([`place_others`]), and a cover in which they do not fit is a failed leaf.
//! Restarts follow the Luby sequence (attempt i gets luby(i) × [`RESTART_BASE`] nodes);
//! the first attempt takes the rows in their order, later ones in an order drawn from the
//! seed and the attempt number, so a run is deterministic for a given seed. An attempt
//! that ends without reaching its budget has explored everything: for the plain search
//! that proves that no exact cover exists (the traffic is not liquid).

use std::collections::HashMap;
use std::time::Instant;

use liquid_model::rng::SplitMix64;
use liquid_model::{Schedule, Traffic, TransferId};

use crate::symmetry::{self, Automorphisms};
use crate::team_list::{Halt, TeamLister, TeamShape};

/// The most full teams enumerated; past it the search declines.
pub const MAX_TEAMS: usize = 400_000;

/// Random dives of Knuth's estimator of the number of full teams, made before the
/// enumeration: an estimate above twice [`MAX_TEAMS`] declines at once (a Swiss-T1
/// class, about 10^16 teams by the estimate, took 2.5 s to list 200,000 of them before it
/// declined).
pub const ESTIMATE_PROBES: u64 = 64;

/// The most 64-bit words the teams' bitsets (bottleneck transfers, and the transfers on
/// no bottleneck) may take together (32 MiB); past it the search declines.
pub const MAX_TEAM_WORDS: usize = 1 << 22;

/// Nodes of the first attempt of a restart sequence: attempt i gets luby(i) times this.
pub const RESTART_BASE: u64 = 512;

/// Steps of the search that places the transfers on no bottleneck into a cover's frames.
pub const PLACE_STEPS: u64 = 10_000;

/// What the cover search is given.
#[derive(Debug, Clone)]
pub struct CoverOptions {
    /// Seed of the restarts' orders (the first attempt of each search is the same for
    /// every seed).
    pub seed: u64,
    /// Nodes the whole stage may spend (orbit searches and plain search together).
    pub nodes: u64,
    /// When to stop.
    pub deadline: Option<Instant>,
    /// Look for orbit schedules first (needs `bliss`, see [`crate::symmetry`]).
    pub symmetry: bool,
    /// Nodes of the first attempt of each restart sequence ([`RESTART_BASE`]).
    pub restart_base: u64,
}

impl Default for CoverOptions {
    fn default() -> Self {
        CoverOptions {
            seed: 0,
            nodes: u64::MAX,
            deadline: None,
            symmetry: true,
            restart_base: RESTART_BASE,
        }
    }
}

/// What the cover search found.
#[derive(Debug, Clone, PartialEq)]
pub enum Covered {
    /// A schedule of Λ frames (not yet validated: the caller's model validator decides),
    /// and how it was found (`plain` or the automorphism's description).
    Schedule(Schedule, String),
    /// The plain search explored everything: no exact cover by full teams, or none in
    /// which the other transfers fit; the traffic has no liquid schedule.
    NoCover,
    /// The budget or the deadline came first.
    Stopped,
    /// The method does not apply here: why.
    Declined(String),
}

/// How far the search got.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoverStats {
    /// Full teams enumerated.
    pub teams: u64,
    /// Bottleneck transfers (the items to cover).
    pub items: u64,
    /// Search nodes over every search (enumeration not counted).
    pub nodes: u64,
    /// Restarts over every search.
    pub restarts: u64,
    /// The most bottleneck transfers a partial cover held (of `items`).
    pub best_covered: u64,
    /// Frames in that best partial cover.
    pub best_frames: u64,
    /// Automorphisms tried for orbit schedules, each with its end.
    pub orbits: Vec<String>,
    /// What the symmetry detection said.
    pub symmetry: String,
}

impl CoverStats {
    /// One line on how far the search got.
    pub fn summary(&self) -> String {
        format!(
            "{} teams, {} nodes, {} restarts, best partial cover {} of {} bottleneck transfers in {} frames",
            self.teams,
            self.nodes,
            self.restarts,
            self.best_covered,
            self.items,
            self.best_frames
        )
    }
}

/// The traffic as the search sees it.
struct Shape {
    /// Per link: its users.
    users: Vec<Vec<u32>>,
    /// Per transfer: its links.
    paths: Vec<Vec<u32>>,
    /// The bottlenecks.
    bottlenecks: Vec<u32>,
    /// Per transfer: its index among the bottleneck transfers.
    item: Vec<Option<u32>>,
    /// The bottleneck transfers (item index → transfer).
    items: Vec<u32>,
    /// The transfers on no bottleneck.
    others: Vec<u32>,
}

impl Shape {
    fn new(traffic: &Traffic) -> Shape {
        let k = traffic.duration();
        let users: Vec<Vec<u32>> = traffic
            .link_ids()
            .map(|l| traffic.users(l).iter().map(|t| t.index() as u32).collect())
            .collect();
        let paths: Vec<Vec<u32>> = traffic
            .transfers()
            .iter()
            .map(|t| t.path.iter().map(|l| l.index() as u32).collect())
            .collect();
        let bottlenecks: Vec<u32> = (0..users.len() as u32)
            .filter(|&l| users[l as usize].len() == k)
            .collect();
        let mut item = vec![None; paths.len()];
        let mut items = Vec::new();
        for t in 0..paths.len() {
            if paths[t]
                .iter()
                .any(|&l| users[l as usize].len() == k && k > 0)
            {
                item[t] = Some(items.len() as u32);
                items.push(t as u32);
            }
        }
        let others = (0..paths.len() as u32)
            .filter(|&t| item[t as usize].is_none())
            .collect();
        Shape {
            users,
            paths,
            bottlenecks,
            item,
            items,
            others,
        }
    }
}

/// The full teams of the traffic: every set of pairwise non-congesting bottleneck
/// transfers that meets every bottleneck exactly once, as sorted transfer indices, in a
/// deterministic order; `Err` with the reason when there are too many or the deadline
/// passed.
pub fn full_teams(
    traffic: &Traffic,
    deadline: Option<Instant>,
) -> Result<Vec<Vec<TransferId>>, String> {
    let shape = Shape::new(traffic);
    enumerate(&shape, deadline).map(|teams| {
        teams
            .into_iter()
            .map(|t| t.into_iter().map(TransferId).collect())
            .collect()
    })
}

/// The most transfers the cover stage takes on; past it it declines (before any work).
pub const MAX_TRANSFERS: usize = 50_000;

/// Whether the cover search applies to the traffic, without listing its teams: `Err`
/// with the reason when it has more than [`MAX_TRANSFERS`] transfers, or when Knuth's
/// estimate of its full teams is above twice [`MAX_TEAMS`] (what [`liquid_cover`] would
/// decline on), else the estimate. Costs [`ESTIMATE_PROBES`] dives.
pub fn applies(traffic: &Traffic) -> Result<f64, String> {
    if traffic.len() > MAX_TRANSFERS {
        return Err(format!("more than {MAX_TRANSFERS} transfers"));
    }
    if traffic.is_empty() {
        return Err("an empty traffic".to_string());
    }
    let shape = Shape::new(traffic);
    estimate(&shape)
}

impl Shape {
    fn lister(&self) -> TeamLister<'_> {
        TeamLister::new(TeamShape {
            users: &self.users,
            paths: &self.paths,
            bottlenecks: &self.bottlenecks,
        })
    }
}

fn estimate(shape: &Shape) -> Result<f64, String> {
    let estimate = shape
        .lister()
        .estimate(ESTIMATE_PROBES, &mut SplitMix64(0x5eed));
    if estimate > 2.0 * MAX_TEAMS as f64 {
        return Err(format!(
            "about {estimate:.0} full teams (Knuth's estimate from {ESTIMATE_PROBES} dives), \
             more than {MAX_TEAMS}"
        ));
    }
    Ok(estimate)
}

fn enumerate(shape: &Shape, deadline: Option<Instant>) -> Result<Vec<Vec<u32>>, String> {
    estimate(shape)?;
    let mut out = Vec::new();
    let listed = shape
        .lister()
        .with_limits(u64::MAX, deadline)
        .with_cap(MAX_TEAMS)
        .list(None, &mut out);
    match listed {
        Ok(()) => Ok(out),
        Err(Halt::TooMany) => Err(format!("more than {MAX_TEAMS} full teams")),
        Err(Halt::Stopped) => Err("the deadline passed while the teams were listed".into()),
    }
}

/// The Luby sequence 1, 1, 2, 1, 1, 2, 4, … (i from 1).
pub fn luby(i: u64) -> u64 {
    let mut i = i.max(1);
    loop {
        // The smallest k with 2^k - 1 >= i.
        let mut k = 1u32;
        while (1u64 << k) - 1 < i {
            k += 1;
        }
        if (1u64 << k) - 1 == i {
            return 1 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

/// The rows of one exact-cover problem: each row is one or more frames (teams) whose
/// union covers its items.
struct Rows {
    /// Words per item bitset.
    w: usize,
    /// Row r's item bits: `bits[r*w..(r+1)*w]`.
    bits: Vec<u64>,
    /// Row r's items.
    items: Vec<Vec<u32>>,
    /// Row r's frames (team indices).
    frames: Vec<Vec<u32>>,
    /// Words per compatibility bitset (0 when every transfer is on a bottleneck).
    cw: usize,
    /// Row r's compatible others: the transfers on no bottleneck that fit in one of its
    /// frames (by that frame's team alone).
    compat: Vec<u64>,
}

impl Rows {
    fn len(&self) -> usize {
        self.items.len()
    }

    fn row_bits(&self, r: usize) -> &[u64] {
        &self.bits[r * self.w..(r + 1) * self.w]
    }

    fn disjoint(&self, a: usize, b: usize) -> bool {
        self.row_bits(a)
            .iter()
            .zip(self.row_bits(b))
            .all(|(x, y)| x & y == 0)
    }
}

/// Per team: its item bitset and its compatibility bitset over the others.
struct Teams {
    w: usize,
    cw: usize,
    bits: Vec<u64>,
    compat: Vec<u64>,
    items: Vec<Vec<u32>>,
    members: Vec<Vec<u32>>,
}

impl Teams {
    fn new(shape: &Shape, teams: Vec<Vec<u32>>) -> Teams {
        let w = shape.items.len().div_ceil(64).max(1);
        let cw = shape.others.len().div_ceil(64);
        let mut bits = vec![0u64; teams.len() * w];
        let mut compat = vec![0u64; teams.len() * cw];
        let mut items = Vec::with_capacity(teams.len());
        // Which links each team uses, to test the others against it.
        let mut used = vec![false; shape.users.len()];
        for (i, team) in teams.iter().enumerate() {
            let mut its = Vec::with_capacity(team.len());
            for &t in team {
                let it = shape.item[t as usize].expect("a team holds bottleneck transfers");
                bits[i * w + it as usize / 64] |= 1 << (it % 64);
                its.push(it);
                for &l in &shape.paths[t as usize] {
                    used[l as usize] = true;
                }
            }
            for (j, &o) in shape.others.iter().enumerate() {
                if shape.paths[o as usize].iter().all(|&l| !used[l as usize]) {
                    compat[i * cw + j / 64] |= 1 << (j % 64);
                }
            }
            for &t in team {
                for &l in &shape.paths[t as usize] {
                    used[l as usize] = false;
                }
            }
            items.push(its);
        }
        Teams {
            w,
            cw,
            bits,
            compat,
            items,
            members: teams,
        }
    }

    fn team_bits(&self, i: usize) -> &[u64] {
        &self.bits[i * self.w..(i + 1) * self.w]
    }

    /// One row per team.
    fn plain_rows(&self) -> Rows {
        Rows {
            w: self.w,
            bits: self.bits.clone(),
            items: self.items.clone(),
            frames: (0..self.items.len() as u32).map(|i| vec![i]).collect(),
            cw: self.cw,
            compat: self.compat.clone(),
        }
    }

    /// One row per σ-orbit of teams whose images are pairwise disjoint (σ on items).
    fn orbit_rows(&self, sigma: &[u32], index: &HashMap<Vec<u64>, u32>) -> Rows {
        let w = self.w;
        let mut rows = Rows {
            w,
            bits: Vec::new(),
            items: Vec::new(),
            frames: Vec::new(),
            cw: self.cw,
            compat: Vec::new(),
        };
        let mut image = vec![0u64; w];
        'teams: for t in 0..self.items.len() {
            let mut union: Vec<u64> = self.team_bits(t).to_vec();
            let mut compat: Vec<u64> = self.compat[t * self.cw..(t + 1) * self.cw].to_vec();
            let mut frames = vec![t as u32];
            let mut cur = t;
            loop {
                image.iter_mut().for_each(|x| *x = 0);
                for &it in &self.items[cur] {
                    let s = sigma[it as usize];
                    image[s as usize / 64] |= 1 << (s % 64);
                }
                let Some(&next) = index.get(&image) else {
                    // Not a team: σ is not an automorphism of the bottleneck structure.
                    continue 'teams;
                };
                let next = next as usize;
                if next == t {
                    break;
                }
                // Only the orbit's least team makes the row.
                if next < t {
                    continue 'teams;
                }
                let nb = self.team_bits(next);
                if union.iter().zip(nb).any(|(a, b)| a & b != 0) {
                    continue 'teams;
                }
                union.iter_mut().zip(nb).for_each(|(a, b)| *a |= b);
                for (c, x) in compat
                    .iter_mut()
                    .zip(&self.compat[next * self.cw..(next + 1) * self.cw])
                {
                    *c |= x;
                }
                frames.push(next as u32);
                cur = next;
            }
            let mut items = Vec::new();
            for (wi, &word) in union.iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    items.push((wi * 64) as u32 + x.trailing_zeros());
                    x &= x - 1;
                }
            }
            rows.bits.extend_from_slice(&union);
            rows.compat.extend_from_slice(&compat);
            rows.items.push(items);
            rows.frames.push(frames);
        }
        rows
    }
}

/// How one attempt ended.
enum End {
    Found(Vec<usize>),
    Exhausted,
    Budget,
    Deadline,
}

/// The exact-cover search over `rows` (see the module's docs).
struct Search<'a> {
    rows: &'a Rows,
    shape: &'a Shape,
    teams: &'a Teams,
    n_items: usize,
    /// Per item: its rank for ties (drawn per attempt).
    rank: Vec<u32>,
    /// Per row: its rank in the branching order (drawn per attempt).
    order: Vec<u32>,
    covered: Vec<u64>,
    covered_count: usize,
    chosen: Vec<usize>,
    chosen_compat: Vec<u64>,
    counts: Vec<u32>,
    nodes: u64,
    limit: u64,
    deadline: Option<Instant>,
    best_covered: usize,
    best_frames: usize,
    all_others: Vec<u64>,
    /// A cover's others could not be placed within [`PLACE_STEPS`]: an exhausted attempt
    /// then proves nothing.
    unsure: bool,
}

impl Search<'_> {
    fn node(&mut self, avail: &[u32]) -> Result<bool, End> {
        self.nodes += 1;
        if self.nodes >= self.limit {
            return Err(End::Budget);
        }
        if self.nodes % 256 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(End::Deadline);
        }
        if self.covered_count > self.best_covered {
            self.best_covered = self.covered_count;
            self.best_frames = self.chosen.iter().map(|&r| self.rows.frames[r].len()).sum();
        }
        if self.covered_count == self.n_items {
            return Ok(self.complete());
        }
        // The others: each must fit with some chosen or available row.
        let cw = self.rows.cw;
        if cw > 0 {
            let mut fit = self.chosen_compat.clone();
            for &r in avail {
                let c = &self.rows.compat[r as usize * cw..(r as usize + 1) * cw];
                fit.iter_mut().zip(c).for_each(|(a, b)| *a |= b);
            }
            if fit != self.all_others {
                return Ok(false);
            }
        }
        // Minimum remaining values.
        for &r in avail {
            for &it in &self.rows.items[r as usize] {
                self.counts[it as usize] += 1;
            }
        }
        let mut best: Option<(u32, u32, usize)> = None;
        for it in 0..self.n_items {
            if self.covered[it / 64] >> (it % 64) & 1 == 1 {
                continue;
            }
            let c = self.counts[it];
            let key = (c, self.rank[it]);
            if best.is_none_or(|(bc, br, _)| key < (bc, br)) {
                best = Some((c, self.rank[it], it));
            }
        }
        for &r in avail {
            for &it in &self.rows.items[r as usize] {
                self.counts[it as usize] = 0;
            }
        }
        let Some((count, _, it)) = best else {
            return Ok(false);
        };
        if count == 0 {
            return Ok(false);
        }
        let mut branches: Vec<u32> = avail
            .iter()
            .copied()
            .filter(|&r| self.rows.row_bits(r as usize)[it / 64] >> (it % 64) & 1 == 1)
            .collect();
        branches.sort_by_key(|&r| self.order[r as usize]);
        for r in branches {
            let r = r as usize;
            let child: Vec<u32> = avail
                .iter()
                .copied()
                .filter(|&s| self.rows.disjoint(r, s as usize))
                .collect();
            self.take(r, true);
            let found = self.node(&child);
            match found {
                Ok(true) => return Ok(true),
                Ok(false) => self.take(r, false),
                Err(e) => {
                    self.take(r, false);
                    return Err(e);
                }
            }
        }
        Ok(false)
    }

    fn take(&mut self, r: usize, on: bool) {
        let bits = self.rows.row_bits(r);
        for (c, b) in self.covered.iter_mut().zip(bits) {
            if on {
                *c |= b;
            } else {
                *c &= !b;
            }
        }
        let n = self.rows.items[r].len();
        if on {
            self.covered_count += n;
            self.chosen.push(r);
        } else {
            self.covered_count -= n;
            self.chosen.pop();
        }
        if self.rows.cw > 0 {
            self.recompute_compat();
        }
    }

    fn recompute_compat(&mut self) {
        let cw = self.rows.cw;
        self.chosen_compat.iter_mut().for_each(|x| *x = 0);
        for &r in &self.chosen {
            let c = &self.rows.compat[r * cw..(r + 1) * cw];
            self.chosen_compat
                .iter_mut()
                .zip(c)
                .for_each(|(a, b)| *a |= b);
        }
    }

    /// A complete cover: whether the others fit (then it stays in `chosen`).
    fn complete(&mut self) -> bool {
        let frames: Vec<u32> = self
            .chosen
            .iter()
            .flat_map(|&r| self.rows.frames[r].iter().copied())
            .collect();
        match place_others(self.shape, self.teams, &frames) {
            Ok(placed) => placed.is_some(),
            Err(()) => {
                self.unsure = true;
                false
            }
        }
    }
}

/// Places the transfers on no bottleneck into the frames (teams) of a cover: first fit
/// in order of fewest fitting frames, then a backtracking search within
/// [`PLACE_STEPS`] steps. The frames' transfers, `None` when they do not fit, `Err` when
/// the steps ran out first.
fn place_others(shape: &Shape, teams: &Teams, frames: &[u32]) -> Result<Option<Vec<Vec<u32>>>, ()> {
    let k = frames.len();
    let mut busy = vec![vec![false; shape.users.len()]; k];
    let mut out: Vec<Vec<u32>> = Vec::with_capacity(k);
    for (f, &team) in frames.iter().enumerate() {
        for &t in &teams.members[team as usize] {
            for &l in &shape.paths[t as usize] {
                busy[f][l as usize] = true;
            }
        }
        out.push(teams.members[team as usize].clone());
    }
    if shape.others.is_empty() {
        return Ok(Some(out));
    }
    // The others, the most constrained (fewest frames whose team they fit) first.
    let mut order: Vec<(usize, u32)> = shape
        .others
        .iter()
        .map(|&o| {
            let fits = (0..k)
                .filter(|&f| {
                    shape.paths[o as usize]
                        .iter()
                        .all(|&l| !busy[f][l as usize])
                })
                .count();
            (fits, o)
        })
        .collect();
    order.sort_unstable();
    let order: Vec<u32> = order.into_iter().map(|(_, o)| o).collect();
    let mut steps = 0u64;
    fn place(
        i: usize,
        order: &[u32],
        shape: &Shape,
        busy: &mut Vec<Vec<bool>>,
        out: &mut Vec<Vec<u32>>,
        steps: &mut u64,
    ) -> Option<bool> {
        if i == order.len() {
            return Some(true);
        }
        *steps += 1;
        if *steps > PLACE_STEPS {
            return None;
        }
        let o = order[i];
        let path = &shape.paths[o as usize];
        for f in 0..busy.len() {
            if path.iter().any(|&l| busy[f][l as usize]) {
                continue;
            }
            path.iter().for_each(|&l| busy[f][l as usize] = true);
            out[f].push(o);
            match place(i + 1, order, shape, busy, out, steps) {
                Some(true) => return Some(true),
                None => return None,
                Some(false) => {}
            }
            out[f].pop();
            path.iter().for_each(|&l| busy[f][l as usize] = false);
        }
        Some(false)
    }
    match place(0, &order, shape, &mut busy, &mut out, &mut steps) {
        Some(true) => Ok(Some(out)),
        Some(false) => Ok(None),
        None => Err(()),
    }
}

/// Runs the search over `rows` in attempts with Luby budgets, within `budget` nodes and
/// the deadline. `Ok(Some(frames))` with a cover's frames (teams), `Ok(None)` when an
/// attempt explored everything, `Err(true)` at the deadline, `Err(false)` at the budget.
fn restarts(
    rows: &Rows,
    shape: &Shape,
    teams: &Teams,
    options: &CoverOptions,
    budget: u64,
    stats: &mut CoverStats,
) -> Result<Option<Vec<u32>>, bool> {
    let (seed, deadline) = (options.seed, options.deadline);
    let n_items = shape.items.len();
    let w = rows.w;
    let mut all_others = vec![0u64; rows.cw];
    for j in 0..shape.others.len() {
        all_others[j / 64] |= 1 << (j % 64);
    }
    let mut spent = 0u64;
    let mut attempt = 0u64;
    loop {
        attempt += 1;
        let left = budget.saturating_sub(spent);
        if left == 0 {
            return Err(false);
        }
        // Each attempt checks the deadline only every 256 of its nodes, and short attempts
        // (most of a Luby sequence) end before that: without this check a run of thousands
        // of them went on for minutes past its time limit.
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(true);
        }
        let limit = luby(attempt)
            .saturating_mul(options.restart_base.max(1))
            .min(left);
        let mut rng = SplitMix64(seed ^ attempt.wrapping_mul(0x2545_f491_4f6c_dd1d));
        let (rank, order): (Vec<u32>, Vec<u32>) = if attempt == 1 {
            (
                (0..n_items as u32).collect(),
                (0..rows.len() as u32).collect(),
            )
        } else {
            (
                (0..n_items).map(|_| rng.next() as u32).collect(),
                (0..rows.len()).map(|_| rng.next() as u32).collect(),
            )
        };
        let mut s = Search {
            rows,
            shape,
            teams,
            n_items,
            rank,
            order,
            covered: vec![0; w],
            covered_count: 0,
            chosen: Vec::new(),
            chosen_compat: vec![0; rows.cw],
            counts: vec![0; n_items],
            nodes: 0,
            limit,
            deadline,
            best_covered: 0,
            best_frames: 0,
            all_others: all_others.clone(),
            unsure: false,
        };
        let all: Vec<u32> = (0..rows.len() as u32).collect();
        let end = match s.node(&all) {
            Ok(true) => End::Found(s.chosen.clone()),
            Ok(false) if !s.unsure => End::Exhausted,
            // Some cover's others were not placed in time: nothing is proven.
            Ok(false) => End::Budget,
            Err(e) => e,
        };
        spent += s.nodes;
        stats.nodes += s.nodes;
        if s.best_covered as u64 > stats.best_covered {
            stats.best_covered = s.best_covered as u64;
            stats.best_frames = s.best_frames as u64;
        }
        match end {
            End::Found(chosen) => {
                return Ok(Some(
                    chosen
                        .iter()
                        .flat_map(|&r| rows.frames[r].iter().copied())
                        .collect(),
                ))
            }
            End::Exhausted => return Ok(None),
            End::Deadline => return Err(true),
            End::Budget => stats.restarts += 1,
        }
    }
}

/// Searches a liquid schedule of `traffic` as an exact cover by full teams: orbit
/// schedules first (when `options.symmetry`), then the plain search. Deterministic for a
/// given seed (timings aside: the deadline can stop it earlier).
pub fn liquid_cover(traffic: &Traffic, options: &CoverOptions) -> (Covered, CoverStats) {
    let mut stats = CoverStats::default();
    if traffic.is_empty() {
        return (Covered::Declined("an empty traffic".to_string()), stats);
    }
    let shape = Shape::new(traffic);
    stats.items = shape.items.len() as u64;
    let words = (shape.items.len().div_ceil(64) + shape.others.len().div_ceil(64)).max(1);
    let teams = match enumerate(&shape, options.deadline) {
        Ok(t) => t,
        Err(why) => return (Covered::Declined(why), stats),
    };
    stats.teams = teams.len() as u64;
    if teams.len().saturating_mul(words) > MAX_TEAM_WORDS {
        return (
            Covered::Declined(format!(
                "{} full teams × {} words of bitsets is beyond {MAX_TEAM_WORDS}",
                teams.len(),
                words
            )),
            stats,
        );
    }
    let teams = Teams::new(&shape, teams);
    let k = traffic.duration();
    let found = |frames: Vec<u32>, how: String| -> Option<Covered> {
        let placed = place_others(&shape, &teams, &frames).ok()??;
        let mut timeframe = vec![0u32; traffic.len()];
        for (f, frame) in placed.iter().enumerate() {
            for &t in frame {
                timeframe[t as usize] = f as u32;
            }
        }
        debug_assert_eq!(placed.len(), k);
        Some(Covered::Schedule(
            Schedule::from_timeframes(&timeframe),
            how,
        ))
    };
    let mut spent = 0u64;
    if options.symmetry {
        let group = symmetry::automorphisms(traffic, options.deadline);
        stats.symmetry = group.describe();
        if let Automorphisms::Found { generators, .. } = &group {
            let candidates = symmetry::candidates(generators, traffic.len());
            let index: HashMap<Vec<u64>, u32> = (0..teams.items.len())
                .map(|i| (teams.team_bits(i).to_vec(), i as u32))
                .collect();
            // Half of the budget for the orbit searches, shared in turn.
            let orbit_budget = options.nodes / 2;
            for (i, sigma) in candidates.iter().enumerate() {
                let share = orbit_budget.saturating_sub(spent) / (candidates.len() - i) as u64;
                // σ on the items (bottleneck transfers map to bottleneck transfers).
                let Some(on_items) = shape
                    .items
                    .iter()
                    .map(|&t| shape.item[sigma.perm[t as usize] as usize])
                    .collect::<Option<Vec<u32>>>()
                else {
                    continue;
                };
                let rows = teams.orbit_rows(&on_items, &index);
                let before = stats.nodes;
                let r = restarts(&rows, &shape, &teams, options, share.max(1), &mut stats);
                spent += stats.nodes - before;
                let end = match &r {
                    Ok(Some(_)) => "schedule".to_string(),
                    Ok(None) => "none exists".to_string(),
                    Err(true) => "deadline".to_string(),
                    Err(false) => "budget".to_string(),
                };
                stats.orbits.push(format!(
                    "{} ({} rows, {} nodes): {end}",
                    sigma.describe(),
                    rows.len(),
                    stats.nodes - before
                ));
                match r {
                    Ok(Some(frames)) => {
                        if let Some(c) =
                            found(frames, format!("orbit schedule of {}", sigma.describe()))
                        {
                            return (c, stats);
                        }
                    }
                    Err(true) => return (Covered::Stopped, stats),
                    _ => {}
                }
            }
        }
    }
    let rows = teams.plain_rows();
    let r = restarts(
        &rows,
        &shape,
        &teams,
        options,
        options.nodes.saturating_sub(spent).max(1),
        &mut stats,
    );
    let covered = match r {
        Ok(Some(frames)) => {
            found(frames, "plain exact cover".to_string()).unwrap_or(Covered::Stopped)
        }
        Ok(None) => Covered::NoCover,
        Err(_) => Covered::Stopped,
    };
    (covered, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{arb_traffic, colourable};
    use liquid_model::validate;
    use proptest::prelude::*;

    fn options(seed: u64, restart_base: u64, symmetry: bool) -> CoverOptions {
        CoverOptions {
            seed,
            restart_base,
            symmetry,
            ..CoverOptions::default()
        }
    }

    #[test]
    fn restarts_stop_at_the_deadline_before_any_short_attempt() {
        // Attempts of a few nodes each never reach the search's own check (every 256
        // nodes): the restart loop must look at the deadline itself. With the deadline
        // already passed, no attempt runs.
        let t = liquid_model::examples::queens(10);
        let shape = Shape::new(&t);
        let teams = Teams::new(&shape, enumerate(&shape, None).expect("teams"));
        let rows = teams.plain_rows();
        let opts = CoverOptions {
            deadline: Some(Instant::now()),
            restart_base: 1,
            symmetry: false,
            ..CoverOptions::default()
        };
        let mut stats = CoverStats::default();
        let r = restarts(&rows, &shape, &teams, &opts, u64::MAX, &mut stats);
        assert_eq!(r, Err(true));
        assert_eq!(stats.nodes, 0, "{stats:?}");
    }

    #[test]
    fn the_luby_sequence() {
        let l: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(l, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Without a budget, the answer is a valid liquid schedule exactly when brute force
        /// finds a colouring with Λ colours, and "no cover" otherwise; with restarts every
        /// few nodes, orbit schedules first or not, and any seed.
        #[test]
        fn answers_agree_with_brute_force(
            t in arb_traffic(11, 6),
            seed in 0u64..4,
            restart_base in 1u64..6,
            symmetry in any::<bool>(),
        ) {
            let k = t.duration();
            let (found, stats) = liquid_cover(&t, &options(seed, restart_base, symmetry));
            match found {
                Covered::Schedule(s, how) => {
                    prop_assert!(validate(&t, &s).is_ok(), "{how}: invalid");
                    prop_assert_eq!(s.len(), k);
                }
                Covered::NoCover => prop_assert!(!colourable(&t, k), "no cover, yet colourable"),
                other => prop_assert!(false, "{other:?} without a budget ({stats:?})"),
            }
        }
    }

    /// The same seed gives the same schedule, restarts included (queen11_11's plain search
    /// restarts a few times); the statistics agree too.
    #[test]
    fn a_seed_fixes_the_answer() {
        let t = liquid_model::examples::queens(11);
        for seed in [0, 1] {
            let a = liquid_cover(&t, &options(seed, 64, false));
            let b = liquid_cover(&t, &options(seed, 64, false));
            assert!(matches!(a.0, Covered::Schedule(..)), "{a:?}");
            assert!(a.1.restarts > 0, "{:?}", a.1);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn a_budget_stops_it_and_says_how_far_it_got() {
        // queen10_10 has no liquid schedule; a few nodes cannot show it.
        let t = liquid_model::examples::queens(10);
        let opts = CoverOptions {
            nodes: 5,
            symmetry: false,
            ..CoverOptions::default()
        };
        let (found, stats) = liquid_cover(&t, &opts);
        assert_eq!(found, Covered::Stopped);
        assert!(stats.nodes <= 5 && stats.nodes > 0, "{stats:?}");
        assert!(stats.best_covered > 0 && stats.teams > 0);
        // Without it, the search is exhaustive.
        let (found, _) = liquid_cover(&t, &options(0, RESTART_BASE, false));
        assert_eq!(found, Covered::NoCover);
        // A deadline already passed.
        let opts = CoverOptions {
            deadline: Some(Instant::now()),
            symmetry: false,
            ..CoverOptions::default()
        };
        assert!(matches!(
            liquid_cover(&t, &opts).0,
            Covered::Stopped | Covered::Declined(_)
        ));
    }

    #[test]
    fn the_others_are_placed_or_the_cover_is_refused() {
        // Bottlenecks a, b (load 2); x and y on neither: x meets u, y meets v, and x, y
        // share a link. Covers {u, w}/{v, z} style teams must leave room for both.
        let paths = [
            ("u", vec!["a", "p"]),
            ("v", vec!["a", "q"]),
            ("w", vec!["b", "r"]),
            ("z", vec!["b", "s"]),
            ("x", vec!["p", "m"]),
            ("y", vec!["q", "m"]),
        ];
        let t = Traffic::from_paths("others", &paths).expect("valid");
        assert_eq!(t.duration(), 2);
        let (found, _) = liquid_cover(&t, &options(0, RESTART_BASE, false));
        let Covered::Schedule(s, _) = found else {
            panic!("{found:?}")
        };
        validate(&t, &s).expect("valid");
        // Three users of a bottleneck a, and a transfer on none that congests each of them
        // on a link of its own (load 2 < Λ = 3): it fits in no frame of any cover.
        let t = Traffic::from_paths(
            "others",
            &[
                ("u1", vec!["a", "p1"]),
                ("u2", vec!["a", "p2"]),
                ("u3", vec!["a", "p3"]),
                ("o", vec!["p1", "p2", "p3"]),
            ],
        )
        .expect("valid");
        assert_eq!(t.duration(), 3);
        assert!(!colourable(&t, 3));
        let (found, stats) = liquid_cover(&t, &options(0, RESTART_BASE, false));
        assert_eq!(found, Covered::NoCover);
        // Pruned at the root: no team leaves room for o.
        assert_eq!(stats.nodes, 1, "{stats:?}");
    }

    /// An orbit schedule: the 7 × 7 queen graph (liquid: 7 is prime to 6) has one under an
    /// automorphism bliss finds, and it is a valid schedule of Λ frames.
    #[test]
    fn an_orbit_schedule_is_found_and_validated() {
        let t = liquid_model::examples::queens(7);
        let (found, stats) = liquid_cover(&t, &options(0, RESTART_BASE, true));
        let Covered::Schedule(s, how) = found else {
            panic!("{found:?} {stats:?}")
        };
        assert!(how.starts_with("orbit schedule"), "{how} ({stats:?})");
        validate(&t, &s).expect("valid");
        assert_eq!(s.len(), 7);
    }
}
