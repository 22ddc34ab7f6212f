//! Full teams listed by a depth-first search over the bottlenecks: the search that both
//! the cover stage ([`crate::cover`]) and the SAT stage's team cover (`liquid-sat`'s
//! `teams`) run on the traffic's own indices.
//!
//! A *full team* is a set of pairwise non-congesting bottleneck transfers meeting every
//! bottleneck exactly once. The search branches on the uncovered bottleneck with the
//! fewest free users (the first such in the bottleneck list on a tie) and tries its free
//! users in their order on the link; a bottleneck with no free user ends the branch. A
//! transfer is *free* while none of its links is used and it was not excluded; the free
//! users of every link are counted as links are used and freed, so a node costs the paths
//! of the users of the links it marks, not a scan of every user. Every team is listed
//! once, as sorted transfer indices, in an order fixed by the traffic.
//!
//! (The ancestor technique of paper 004, [`crate::teams`], lists the same teams of a
//! traffic with every transfer; this search is the faster one for the bottleneck
//! transfers alone, which is all an exact cover needs.)

use std::time::Instant;

use liquid_model::rng::SplitMix64;

/// Why a listing stopped before it was complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// More teams than the cap.
    TooMany,
    /// The node budget or the deadline.
    Stopped,
}

/// The traffic as the search sees it, by index: per link its users, per transfer its
/// links, and the bottlenecks.
#[derive(Debug, Clone, Copy)]
pub struct TeamShape<'a> {
    /// Per link: its users (transfer indices).
    pub users: &'a [Vec<u32>],
    /// Per transfer: its links (link indices).
    pub paths: &'a [Vec<u32>],
    /// The links every team meets once.
    pub bottlenecks: &'a [u32],
}

/// The search's state: which links are used, which transfers are blocked, how many free
/// users each link has, the team being built, and its limits.
pub struct TeamLister<'a> {
    shape: TeamShape<'a>,
    used: Vec<bool>,
    /// Per transfer: how many of its links are used, plus one while it is excluded.
    blocked: Vec<u32>,
    /// Per link: its free users.
    free: Vec<u32>,
    chosen: Vec<u32>,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    max: usize,
}

impl<'a> TeamLister<'a> {
    /// A search with every transfer free, no budget, no deadline and no cap.
    pub fn new(shape: TeamShape<'a>) -> Self {
        TeamLister {
            shape,
            used: vec![false; shape.users.len()],
            blocked: vec![0; shape.paths.len()],
            free: shape.users.iter().map(|u| u.len() as u32).collect(),
            chosen: Vec::new(),
            nodes: 0,
            budget: u64::MAX,
            deadline: None,
            max: usize::MAX,
        }
    }

    /// Stops a listing after `budget` nodes in all (counted over every call of
    /// [`TeamLister::list`]) or at the deadline, read on the first node and every 1,024
    /// after.
    pub fn with_limits(mut self, budget: u64, deadline: Option<Instant>) -> Self {
        self.budget = budget;
        self.deadline = deadline;
        self
    }

    /// Stops a listing once its output holds more than `max` teams.
    pub fn with_cap(mut self, max: usize) -> Self {
        self.max = max;
        self
    }

    /// Nodes searched so far, over every listing.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Excludes (`on`) a transfer from the teams, or takes it back (`!on`).
    pub fn exclude(&mut self, t: u32, on: bool) {
        self.block(t, on);
    }

    fn block(&mut self, v: u32, on: bool) {
        let b = &mut self.blocked[v as usize];
        if on {
            *b += 1;
            if *b == 1 {
                for &m in &self.shape.paths[v as usize] {
                    self.free[m as usize] -= 1;
                }
            }
        } else {
            *b -= 1;
            if *b == 0 {
                for &m in &self.shape.paths[v as usize] {
                    self.free[m as usize] += 1;
                }
            }
        }
    }

    fn mark(&mut self, t: u32, on: bool) {
        let shape = self.shape;
        for &l in &shape.paths[t as usize] {
            self.used[l as usize] = on;
            for &v in &shape.users[l as usize] {
                self.block(v, on);
            }
        }
    }

    /// Appends to `out` the full teams that hold `root` (every full team when `None`);
    /// `root` must be free. `Err` when the cap, the budget or the deadline stopped it (the
    /// teams found so far stay in `out`).
    pub fn list(&mut self, root: Option<u32>, out: &mut Vec<Vec<u32>>) -> Result<(), Halt> {
        if let Some(r) = root {
            self.mark(r, true);
            self.chosen.push(r);
        }
        let result = self.run(out);
        if let Some(r) = root {
            self.chosen.pop();
            self.mark(r, false);
        }
        result
    }

    /// The uncovered bottleneck to branch on and its free users; `None` when every
    /// bottleneck is covered, `Some((0, _))` when one has no free user.
    fn branch(&self) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        for &l in self.shape.bottlenecks {
            if self.used[l as usize] {
                continue;
            }
            let free = self.free[l as usize];
            if free == 0 {
                return Some((0, l));
            }
            if best.is_none_or(|(b, _)| free < b) {
                best = Some((free, l));
            }
        }
        best
    }

    fn run(&mut self, out: &mut Vec<Vec<u32>>) -> Result<(), Halt> {
        self.nodes += 1;
        if self.nodes > self.budget
            || (self.nodes % 1024 == 1 && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            return Err(Halt::Stopped);
        }
        let Some((free, l)) = self.branch() else {
            let mut team = self.chosen.clone();
            team.sort_unstable();
            out.push(team);
            return if out.len() > self.max {
                Err(Halt::TooMany)
            } else {
                Ok(())
            };
        };
        if free == 0 {
            return Ok(());
        }
        for i in 0..self.shape.users[l as usize].len() {
            let u = self.shape.users[l as usize][i];
            if self.blocked[u as usize] != 0 {
                continue;
            }
            self.mark(u, true);
            self.chosen.push(u);
            let r = self.run(out);
            self.chosen.pop();
            self.mark(u, false);
            r?;
        }
        Ok(())
    }

    /// Knuth's estimate of the number of teams [`TeamLister::list`] with no root lists:
    /// the mean, over `probes` random dives down its tree (the same branching), of the
    /// product of the branching factors met (0 for a dive that ends without a team).
    pub fn estimate(&mut self, probes: u64, rng: &mut SplitMix64) -> f64 {
        let mut total = 0.0;
        for _ in 0..probes {
            let mut product = 1.0f64;
            let mut marked = Vec::new();
            while let Some((free, l)) = self.branch() {
                if free == 0 {
                    product = 0.0;
                    break;
                }
                product *= f64::from(free);
                let pick = (rng.next() % u64::from(free)) as usize;
                let u = self.shape.users[l as usize]
                    .iter()
                    .copied()
                    .filter(|&u| self.blocked[u as usize] == 0)
                    .nth(pick)
                    .expect("free users counted");
                self.mark(u, true);
                marked.push(u);
            }
            for &u in marked.iter().rev() {
                self.mark(u, false);
            }
            total += product;
        }
        total / probes.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every set of bottleneck users, brute force: the sorted transfer lists meeting every
    /// bottleneck once with no two sharing a link.
    fn brute(users: &[Vec<u32>], paths: &[Vec<u32>], bottlenecks: &[u32]) -> Vec<Vec<u32>> {
        let on: Vec<u32> = (0..paths.len() as u32)
            .filter(|&t| paths[t as usize].iter().any(|l| bottlenecks.contains(l)))
            .collect();
        let mut out = Vec::new();
        for mask in 0u32..(1 << on.len()) {
            let team: Vec<u32> = (0..on.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| on[i])
                .collect();
            let mut count = vec![0; users.len()];
            for &t in &team {
                for &l in &paths[t as usize] {
                    count[l as usize] += 1;
                }
            }
            if count.iter().all(|&c| c <= 1) && bottlenecks.iter().all(|&b| count[b as usize] == 1)
            {
                out.push(team);
            }
        }
        out.sort();
        out
    }

    fn users_of(paths: &[Vec<u32>], links: usize) -> Vec<Vec<u32>> {
        let mut users = vec![Vec::new(); links];
        for (t, p) in paths.iter().enumerate() {
            for &l in p {
                users[l as usize].push(t as u32);
            }
        }
        users
    }

    #[test]
    fn lists_every_team_once_with_roots_exclusions_and_caps() {
        let mut rng = SplitMix64(7);
        for _ in 0..300 {
            let links = 2 + (rng.next() % 5) as usize;
            let n = 1 + (rng.next() % 9) as usize;
            let paths: Vec<Vec<u32>> = (0..n)
                .map(|_| {
                    let mut p: Vec<u32> =
                        (0..links as u32).filter(|_| rng.next() % 3 == 0).collect();
                    if p.is_empty() {
                        p.push((rng.next() % links as u64) as u32);
                    }
                    p
                })
                .collect();
            let users = users_of(&paths, links);
            let k = users.iter().map(Vec::len).max().unwrap_or(0);
            let bottlenecks: Vec<u32> = (0..links as u32)
                .filter(|&l| users[l as usize].len() == k)
                .collect();
            let shape = TeamShape {
                users: &users,
                paths: &paths,
                bottlenecks: &bottlenecks,
            };
            let want = brute(&users, &paths, &bottlenecks);
            let mut got = Vec::new();
            TeamLister::new(shape)
                .list(None, &mut got)
                .expect("no limits");
            let mut sorted = got.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), got.len(), "a team listed twice: {got:?}");
            assert_eq!(sorted, want, "{paths:?}");
            // A root and an excluded transfer: the teams holding the one and not the other.
            // The root: a bottleneck's user (as the SAT stage's roots are).
            let b = &users[bottlenecks[0] as usize];
            let root = b[(rng.next() % b.len() as u64) as usize];
            let gone = (rng.next() % n as u64) as u32;
            if gone != root {
                let mut lister = TeamLister::new(shape);
                lister.exclude(gone, true);
                let mut got = Vec::new();
                lister.list(Some(root), &mut got).expect("no limits");
                got.sort();
                let want: Vec<Vec<u32>> = want
                    .iter()
                    .filter(|t| t.contains(&root) && !t.contains(&gone))
                    .cloned()
                    .collect();
                assert_eq!(got, want, "{paths:?} root {root} without {gone}");
                lister.exclude(gone, false);
                assert_eq!(lister.blocked, vec![0; n], "the exclusion taken back");
            }
            if want.len() > 1 {
                let mut got = Vec::new();
                let r = TeamLister::new(shape).with_cap(0).list(None, &mut got);
                assert_eq!(r, Err(Halt::TooMany));
                let r = TeamLister::new(shape)
                    .with_limits(0, None)
                    .list(None, &mut got);
                assert_eq!(r, Err(Halt::Stopped));
            }
        }
    }
}
