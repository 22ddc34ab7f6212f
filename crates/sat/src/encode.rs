//! CNF encoding of "the traffic has a schedule of length at most k".
//!
//! # Variables
//!
//! `x[t,c]` (transfer `t` runs in timeframe `c`, both 0-based) is DIMACS variable
//! `t·k + c + 1`. Auxiliary variables of sequential-counter at-most-one constraints are
//! numbered after the `#X·k` primary ones, in the order the constraints are emitted. The
//! numbering and the clause order depend only on the traffic (transfer and link order),
//! `k` and the [`EncodeOptions`], so the same input gives the same bytes.
//!
//! # Clause families, in file order, and why each is sound
//!
//! A clause family is *sound* for unsatisfiability proofs when every schedule of length at
//! most `k` yields (possibly after renaming timeframes) an assignment that satisfies it:
//! then an UNSAT formula proves that no such schedule exists.
//!
//! 1. `at-least-one`: `x[t,0] ∨ … ∨ x[t,k-1]` for every transfer. Every transfer is in
//!    some timeframe of a schedule.
//! 2. `transfer-at-most-one`: at most one `x[t,c]` per transfer. A schedule is a partition:
//!    a transfer is in one timeframe only.
//! 3. `link-at-most-one`: for every link with load ≥ 2 and every timeframe, at most one of
//!    the link's users. The users of a link pairwise congest, so a timeframe holds at most
//!    one of them. The conflict graph is the union of one clique per link, so these
//!    constraints (one per link, not one per conflict edge) forbid exactly the congesting
//!    pairs: every model of families 1-3 is a schedule.
//! 4. `team` (only links whose load is exactly `k`, i.e. the bottlenecks when `k = Λ`):
//!    `∨_{u ∈ users(l)} x[u,c]` for every such link `l` and timeframe `c`. Its `k` users
//!    pairwise congest, so in a schedule of length at most `k` they occupy `k` distinct
//!    timeframes: all of them (paper 003 section 3: a liquid schedule's timeframes are
//!    teams). Implied by families 1-3; stated to help the solver.
//! 5. `symmetry`: unit clauses `x[u_i, i]` for the first `min(k, load)` users `u_i` of the
//!    first link of largest load. Those users pairwise congest, so any schedule puts them
//!    in distinct timeframes; renaming the timeframes (a schedule's frames can be permuted
//!    freely, and the other families are invariant under a permutation of `c`) moves `u_i`
//!    to timeframe `i`.
//! 6. `closed` (only with [`EncodeOptions::frames`] = `Some(K)`, `K > k`): the formula is
//!    written in the variables of `K` timeframes (families 1-5 exactly as for `K`), and
//!    the unit clauses `¬x[t,c]` for `c` from `K - 1` down to `k`, every transfer `t` in
//!    order within each `c`, close the timeframes beyond `k`. A schedule of length at most
//!    `k` satisfies families 1-5 of `K` (its timeframes are among the first `k`, with the
//!    symmetry family's renaming, which needs only `load ≤ Λ ≤ k` frames) and leaves the
//!    closed frames empty. This is the formula of the incremental SAT engine
//!    (`sat-incremental`), which starts at `K` and closes timeframes as it finds shorter
//!    schedules, in one solver: its LRAT proof refutes exactly this text.
//!
//! # At-most-one encodings
//!
//! [`AmoEncoding::Pairwise`]: `¬a ∨ ¬b` for every pair, `n(n-1)/2` clauses, no auxiliary
//! variable. [`AmoEncoding::Sequential`]: Sinz's sequential counter, `3n - 4` clauses and
//! `n - 1` auxiliary variables `s_i` ("one of the first i literals is true"):
//! `¬x_1 ∨ s_1`; for `1 < i < n`: `¬x_i ∨ s_i`, `¬s_{i-1} ∨ s_i`, `¬x_i ∨ ¬s_{i-1}`; and
//! `¬x_n ∨ ¬s_{n-1}`. Every assignment with at most one true `x` extends to the `s`
//! (set `s_i` iff one of `x_1..x_i` is true), so it is sound; it forbids two true `x`.
//! [`AmoEncoding::Auto`] uses pairwise up to [`PAIRWISE_MAX`] literals and the sequential
//! counter above (the benchmark `sat_encodings` measures the choice).
//! [`AmoEncoding::Wide`], the default, uses pairwise up to [`WIDE_PAIRWISE_MAX`] literals:
//! more clauses on links of 7 to 16 users, and faster refutations there (varisat on
//! queen10_10 at k = 10 with the LRAT writer: 23.9 CPU seconds instead of 34.8 with
//! `Auto`; queen9_9 at k = 9: 1.31 instead of 1.74). Proofs record the choice in their
//! manifest, so proofs written with `Auto` still check.

use std::fmt::Write as _;
use std::time::Instant;

use liquid_model::{Schedule, Traffic, TransferId};
use thiserror::Error;

/// Version of the encoding; part of the DIMACS header and of proof manifests. Change it
/// whenever the variables, clauses or their order change.
pub const ENCODING_VERSION: &str = "liquid-sat/1";

/// [`AmoEncoding::Auto`] encodes an at-most-one over at most this many literals pairwise,
/// over more with a sequential counter. Measured with `cargo run --release -p
/// liquid-benchmarks --example sat_encodings` (see the benchmarks crate).
pub const PAIRWISE_MAX: usize = 6;

/// [`AmoEncoding::Wide`] encodes an at-most-one over at most this many literals pairwise
/// (at most 120 clauses), over more with a sequential counter.
pub const WIDE_PAIRWISE_MAX: usize = 16;

/// How an at-most-one constraint is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AmoEncoding {
    /// Pairwise up to [`PAIRWISE_MAX`] literals, sequential counter above.
    Auto,
    /// Always pairwise.
    Pairwise,
    /// Always a sequential counter (pairwise for two literals: one clause).
    Sequential,
    /// Pairwise up to [`WIDE_PAIRWISE_MAX`] literals, sequential counter above (the
    /// default).
    #[default]
    Wide,
}

impl AmoEncoding {
    /// Every choice, in the order benchmarks report them.
    pub const ALL: [AmoEncoding; 4] = [
        AmoEncoding::Pairwise,
        AmoEncoding::Sequential,
        AmoEncoding::Auto,
        AmoEncoding::Wide,
    ];

    /// The choice named `name` (as [`AmoEncoding::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<AmoEncoding> {
        AmoEncoding::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// The choice's name, for headers and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AmoEncoding::Auto => "auto",
            AmoEncoding::Pairwise => "pairwise",
            AmoEncoding::Sequential => "sequential",
            AmoEncoding::Wide => "wide",
        }
    }
}

/// Choices of the encoding. The default is what `liquid encode`, `prove` and
/// `check-proof` use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeOptions {
    /// How at-most-one constraints are written.
    pub amo: AmoEncoding,
    /// Whether transfers get an at-most-one over their timeframes (family 2).
    pub transfer_amo: bool,
    /// Whether links of load exactly k get team clauses (family 4).
    pub team: bool,
    /// Whether one largest clique gets fixed timeframes (family 5).
    pub symmetry: bool,
    /// `Some(K)` with `K ≥ k`: write the variables and families 1-5 of `K` timeframes and
    /// close the timeframes `k..K` by unit clauses (family 6, `closed`); `None` is `K = k`.
    pub frames: Option<usize>,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            amo: AmoEncoding::Wide,
            transfer_amo: true,
            team: true,
            symmetry: true,
            frames: None,
        }
    }
}

/// The largest encoding [`encode`] builds, in literals (an upper estimate made before
/// anything is allocated; a run of the engine takes about [`BYTES_PER_LITERAL`] bytes
/// per literal, so about 5 GiB at this limit). Larger instances
/// are refused up front with [`EncodeError::BeyondLimit`] instead of exhausting memory:
/// the all-to-all of a 1024-host fat-tree (a million transfers, Λ = 1023) would need
/// about 10^9 variables and 5·10^10 literals.
pub const MAX_LITERALS: usize = 1 << 26;

/// Memory of a run of the SAT engine per literal of its encoding, in bytes: the clause
/// lists (a `Vec` of 24 bytes and its allocation per clause, most clauses holding two
/// literals) and varisat's own copy with its watch lists. Measured at 72.5 (`solve
/// --engine sat` on fat-tree:4,2 with one transfer of count 1024, k = 1030: 36.3 M
/// literals in 16.5 M clauses, 2.64 GB peak), rounded up. It was taken as 8, which
/// announced 277 MiB for that run.
pub const BYTES_PER_LITERAL: usize = 80;

/// The memory a run of the SAT engine takes on an encoding of `literals` literals, in
/// MiB (see [`BYTES_PER_LITERAL`]).
pub fn estimated_mib(literals: usize) -> usize {
    literals.saturating_mul(BYTES_PER_LITERAL) >> 20
}

/// An upper estimate of the literals of the encoding of `traffic` with `k` timeframes
/// and at-most-ones written as `amo`, computed in O(links) from the links' loads before
/// anything is allocated; `None` on overflow. Each at-most-one over `n` literals counts
/// `n(n - 1)` literals where `amo` writes it pairwise and `6n` where it writes a
/// sequential counter (`3n - 4` clauses of two); the at-least-one and closing clauses
/// add at most `2k` literals per transfer, the team clauses `k` per link user, and the
/// symmetry clauses `k`.
pub fn estimated_literals(traffic: &Traffic, k: usize, amo: AmoEncoding) -> Option<usize> {
    let n = traffic.len();
    let per_transfer = amo_literals(k, amo)?.checked_add(k.checked_mul(2)?)?;
    let mut total = n.checked_mul(per_transfer)?.checked_add(k)?;
    for l in traffic.link_ids() {
        let load = traffic.load(l);
        let per_frame = amo_literals(load, amo)?.checked_add(load)?;
        total = total.checked_add(k.checked_mul(per_frame)?)?;
    }
    Some(total)
}

/// The literals of an at-most-one over `n` literals as `how` writes it (see
/// [`estimated_literals`]).
fn amo_literals(n: usize, how: AmoEncoding) -> Option<usize> {
    match n {
        0 | 1 => Some(0),
        n if pairwise(n, how) => n.checked_mul(n - 1),
        n => n.checked_mul(6),
    }
}

/// Whether `how` writes an at-most-one over `n >= 2` literals pairwise.
fn pairwise(n: usize, how: AmoEncoding) -> bool {
    match how {
        AmoEncoding::Pairwise => true,
        AmoEncoding::Sequential => n == 2,
        AmoEncoding::Auto => n <= PAIRWISE_MAX,
        AmoEncoding::Wide => n <= WIDE_PAIRWISE_MAX,
    }
}

/// Why a traffic could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    /// Zero timeframes: no schedule of a non-empty traffic.
    #[error("the number of timeframes must be at least 1")]
    NoColours,
    /// More variables than DIMACS literals (i32) can name.
    #[error("the encoding needs more than 2^31 - 1 variables ({transfers} transfers, {colours} timeframes)")]
    TooLarge {
        /// Transfers.
        transfers: usize,
        /// Timeframes.
        colours: usize,
    },
    /// [`EncodeOptions::frames`] below the number of timeframes.
    #[error("the encoding's {frames} timeframes of variables cannot hold a schedule of {colours} timeframes")]
    FramesBelowColours {
        /// Timeframes asked for (k).
        colours: usize,
        /// [`EncodeOptions::frames`].
        frames: usize,
    },
    /// The encoding would exceed [`MAX_LITERALS`].
    #[error("the encoding with {colours} timeframes would hold about {literals} literals ({transfers} transfers), beyond the limit of {limit} (it would take about {mib} MiB): too large for the SAT engine; use the dsatur or native engine")]
    BeyondLimit {
        /// Transfers.
        transfers: usize,
        /// Timeframes.
        colours: usize,
        /// Estimated literals.
        literals: usize,
        /// [`MAX_LITERALS`].
        limit: usize,
        /// Rough memory the encoding would take, in MiB.
        mib: usize,
    },
}

/// A clause family's name and its number of clauses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// The family's name (`at-least-one`, `link-at-most-one`, ...).
    pub name: &'static str,
    /// Number of clauses it contributes.
    pub clauses: usize,
}

/// A CNF encoding of one traffic for one number of timeframes.
#[derive(Debug, Clone)]
pub struct Encoding {
    model: String,
    transfers: usize,
    colours: usize,
    /// Timeframes of the variables: `options.frames`, or `colours`.
    frames: usize,
    options: EncodeOptions,
    num_vars: usize,
    clauses: Vec<Vec<i32>>,
    families: Vec<Family>,
}

struct Builder {
    num_vars: usize,
    clauses: Vec<Vec<i32>>,
    /// When to stop building (see [`encode_until`]).
    deadline: Option<Instant>,
    /// The clause count at which the clock is read next.
    next_look: usize,
    /// Whether the deadline passed.
    stopped: bool,
}

/// Clauses built between two looks at the clock in [`encode_until`].
const CLOCK_EVERY: usize = 1 << 16;

impl Builder {
    /// Whether the deadline has passed, reading the clock every [`CLOCK_EVERY`] clauses.
    fn past(&mut self) -> bool {
        if !self.stopped && self.clauses.len() >= self.next_look {
            self.next_look = self.clauses.len() + CLOCK_EVERY;
            self.stopped = self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.stopped
    }

    fn fresh(&mut self) -> i32 {
        self.num_vars += 1;
        self.num_vars as i32
    }

    /// At most one of `lits` (positive literals) is true.
    fn at_most_one(&mut self, lits: &[i32], how: AmoEncoding) {
        let n = lits.len();
        if n < 2 {
            return;
        }
        if pairwise(n, how) {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.clauses.push(vec![-a, -b]);
                }
            }
            return;
        }
        // Sinz's sequential counter with s_1..s_{n-1}.
        let mut prev = self.fresh();
        self.clauses.push(vec![-lits[0], prev]);
        for &x in &lits[1..n - 1] {
            let s = self.fresh();
            self.clauses.push(vec![-x, s]);
            self.clauses.push(vec![-prev, s]);
            self.clauses.push(vec![-x, -prev]);
            prev = s;
        }
        self.clauses.push(vec![-lits[n - 1], -prev]);
    }
}

/// Refuses, in O(links) and before anything is allocated, an encoding with `k` timeframes
/// and at-most-ones written as `amo` that cannot be built: zero timeframes, more variables
/// than DIMACS can name, or more than [`MAX_LITERALS`] literals.
pub fn check_size(traffic: &Traffic, k: usize, amo: AmoEncoding) -> Result<(), EncodeError> {
    if k == 0 {
        return Err(EncodeError::NoColours);
    }
    let n = traffic.len();
    let too_large = EncodeError::TooLarge {
        transfers: n,
        colours: k,
    };
    // Primary variables plus at most one auxiliary per literal of every at-most-one.
    let budget = n
        .checked_mul(k)
        .and_then(|p| p.checked_mul(2))
        .and_then(|p| p.checked_add(traffic.total_path_length().checked_mul(k)?))
        .ok_or(too_large.clone())?;
    if budget > i32::MAX as usize {
        return Err(too_large);
    }
    let literals = estimated_literals(traffic, k, amo).ok_or(too_large.clone())?;
    if literals > MAX_LITERALS {
        return Err(EncodeError::BeyondLimit {
            transfers: n,
            colours: k,
            literals,
            limit: MAX_LITERALS,
            mib: estimated_mib(literals),
        });
    }
    Ok(())
}

/// Encodes "`traffic` has a schedule of length at most `k`" (see the module docs).
pub fn encode(
    traffic: &Traffic,
    k: usize,
    options: &EncodeOptions,
) -> Result<Encoding, EncodeError> {
    match encode_until(traffic, k, options, None)? {
        Some(e) => Ok(e),
        None => unreachable!("an encoding without a deadline is never stopped"),
    }
}

/// [`encode`], stopped when `deadline` passes (the clock is read every 65,536 clauses):
/// `Ok(None)` then, and the clauses built so far are dropped. A large traffic takes
/// seconds to encode (16.5 M clauses for fat-tree:4,2 with one transfer of count 1024).
pub fn encode_until(
    traffic: &Traffic,
    k: usize,
    options: &EncodeOptions,
    deadline: Option<Instant>,
) -> Result<Option<Encoding>, EncodeError> {
    check_size(traffic, k, options.amo)?;
    let colours = k;
    let k = match options.frames {
        Some(frames) if frames < colours => {
            return Err(EncodeError::FramesBelowColours { colours, frames })
        }
        Some(frames) => {
            check_size(traffic, frames, options.amo)?;
            frames
        }
        None => colours,
    };
    let n = traffic.len();
    let x = |t: usize, c: usize| (t * k + c + 1) as i32;
    let mut b = Builder {
        num_vars: n * k,
        clauses: Vec::new(),
        deadline,
        next_look: 0,
        stopped: false,
    };
    let mut families = Vec::new();
    let mut mark = |b: &Builder, name: &'static str, before: usize| {
        families.push(Family {
            name,
            clauses: b.clauses.len() - before,
        })
    };

    let before = b.clauses.len();
    for t in 0..n {
        if b.past() {
            return Ok(None);
        }
        b.clauses.push((0..k).map(|c| x(t, c)).collect());
    }
    mark(&b, "at-least-one", before);

    if options.transfer_amo {
        let before = b.clauses.len();
        let mut lits = Vec::with_capacity(k);
        for t in 0..n {
            if b.past() {
                return Ok(None);
            }
            lits.clear();
            lits.extend((0..k).map(|c| x(t, c)));
            b.at_most_one(&lits, options.amo);
        }
        mark(&b, "transfer-at-most-one", before);
    }

    let before = b.clauses.len();
    let mut lits = Vec::new();
    for l in traffic.link_ids() {
        let users = traffic.users(l);
        if users.len() < 2 {
            continue;
        }
        for c in 0..k {
            if b.past() {
                return Ok(None);
            }
            lits.clear();
            lits.extend(users.iter().map(|u| x(u.index(), c)));
            b.at_most_one(&lits, options.amo);
        }
    }
    mark(&b, "link-at-most-one", before);

    if options.team {
        let before = b.clauses.len();
        for l in traffic.link_ids() {
            let users = traffic.users(l);
            if users.len() != k {
                continue;
            }
            for c in 0..k {
                if b.past() {
                    return Ok(None);
                }
                b.clauses
                    .push(users.iter().map(|u| x(u.index(), c)).collect());
            }
        }
        mark(&b, "team", before);
    }

    if options.symmetry {
        let before = b.clauses.len();
        if let Some(&l) = traffic.bottlenecks().first() {
            for (i, u) in traffic.users(l).iter().take(k).enumerate() {
                b.clauses.push(vec![x(u.index(), i)]);
            }
        }
        mark(&b, "symmetry", before);
    }

    if k > colours {
        let before = b.clauses.len();
        for c in (colours..k).rev() {
            if b.past() {
                return Ok(None);
            }
            for t in 0..n {
                b.clauses.push(vec![-x(t, c)]);
            }
        }
        mark(&b, "closed", before);
    }

    Ok(Some(Encoding {
        model: traffic.name().to_string(),
        transfers: n,
        colours,
        frames: k,
        options: *options,
        num_vars: b.num_vars,
        clauses: b.clauses,
        families,
    }))
}

/// The DIMACS text of [`encode`]: shorthand for `encode(..)?.dimacs()`.
pub fn dimacs(traffic: &Traffic, k: usize, options: &EncodeOptions) -> Result<String, EncodeError> {
    Ok(encode(traffic, k, options)?.dimacs())
}

/// A name on one comment line: control characters become spaces.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl Encoding {
    /// Number of variables (primary and auxiliary).
    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    /// Number of clauses.
    pub fn num_clauses(&self) -> usize {
        self.clauses.len()
    }

    /// The clauses, as DIMACS literals, in file order.
    pub fn clauses(&self) -> &[Vec<i32>] {
        &self.clauses
    }

    /// The clause families, in file order, with their sizes.
    pub fn families(&self) -> &[Family] {
        &self.families
    }

    /// The number of timeframes k.
    pub fn colours(&self) -> usize {
        self.colours
    }

    /// The options the encoding was built with.
    pub fn options(&self) -> &EncodeOptions {
        &self.options
    }

    /// The timeframes of the variables: [`EncodeOptions::frames`], or k.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The DIMACS variable of `x[t,c]`.
    pub fn var(&self, t: TransferId, c: usize) -> i32 {
        (t.index() * self.frames + c + 1) as i32
    }

    /// The placements the CNF fixes by unit clauses (the `symmetry` family), as
    /// `(transfer, timeframe)`, in clause order.
    pub fn fixed(&self) -> Vec<(TransferId, usize)> {
        let k = self.frames;
        let primary = self.transfers * k;
        self.clauses
            .iter()
            .filter_map(|c| match c.as_slice() {
                &[l] if l > 0 && (l as usize) <= primary => {
                    let v = l as usize - 1;
                    Some((TransferId((v / k) as u32), v % k))
                }
                _ => None,
            })
            .collect()
    }

    /// The DIMACS CNF text: a comment header naming the model, k, the encoding version
    /// and the clause families, then `p cnf V C` and one clause per line.
    pub fn dimacs(&self) -> String {
        match self.dimacs_until(None) {
            Some(s) => s,
            None => unreachable!("text without a deadline is never stopped"),
        }
    }

    /// [`Encoding::dimacs`], stopped when `deadline` passes (the clock is read every
    /// [`CLOCK_EVERY`] clauses): `None` then. Writing 13.2 M clauses (torus:6x6,2 at
    /// Λ) takes seconds, and `prove --time-limit 5` ran 5 s past its limit in it.
    pub fn dimacs_until(&self, deadline: Option<Instant>) -> Option<String> {
        let mut s = String::with_capacity(16 * self.clauses.len() + 512);
        let o = &self.options;
        let _ = writeln!(
            s,
            "c liquid CNF: does the traffic have a schedule of at most k timeframes?"
        );
        let _ = writeln!(s, "c encoding: {ENCODING_VERSION}");
        let _ = writeln!(s, "c model: {}", one_line(&self.model));
        let _ = writeln!(s, "c transfers: {}", self.transfers);
        let _ = writeln!(s, "c colours: {}", self.colours);
        let _ = write!(
            s,
            "c options: amo={} transfer_amo={} team={} symmetry={}",
            o.amo.as_str(),
            o.transfer_amo,
            o.team,
            o.symmetry
        );
        if let Some(f) = o.frames {
            let _ = write!(s, " frames={f}");
        }
        s.push('\n');
        let primary = self.transfers * self.frames;
        let aux = if self.num_vars > primary {
            format!("auxiliaries {}..{}", primary + 1, self.num_vars)
        } else {
            "no auxiliaries".to_string()
        };
        let _ = writeln!(
            s,
            "c variables: x[t,c] = t*{} + c + 1 for transfer t and timeframe c (0-based); {aux}",
            self.frames
        );
        for f in &self.families {
            let _ = writeln!(s, "c family: {} ({} clauses)", f.name, f.clauses);
        }
        let _ = writeln!(s, "p cnf {} {}", self.num_vars, self.clauses.len());
        for (i, c) in self.clauses.iter().enumerate() {
            if i % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            for l in c {
                let _ = write!(s, "{l} ");
            }
            s.push_str("0\n");
        }
        Some(s)
    }

    /// Decodes a model (the true literals, or all literals with their signs) into a
    /// schedule: each transfer goes to its first true timeframe; empty timeframes are
    /// dropped. The result is validated by the caller, never trusted.
    pub fn decode(&self, model: &[i32]) -> Schedule {
        let k = self.frames;
        let mut truth = vec![false; self.transfers * k];
        for &l in model {
            if l > 0 && (l as usize) <= truth.len() {
                truth[l as usize - 1] = true;
            }
        }
        let mut frames = vec![Vec::new(); k];
        for t in 0..self.transfers {
            if let Some(c) = (0..k).find(|&c| truth[t * k + c]) {
                frames[c].push(TransferId(t as u32));
            }
        }
        frames.retain(|f| !f.is_empty());
        Schedule::new(frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use liquid_model::examples::no_team;

    #[test]
    fn dimacs_of_no_team_at_two() {
        let e = encode(&no_team(), 2, &EncodeOptions::default()).expect("encodes");
        assert_eq!(e.num_vars(), 6);
        let text = e.dimacs();
        let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('c')).collect();
        assert_eq!(
            body,
            vec![
                "p cnf 6 20",
                "1 2 0",
                "3 4 0",
                "5 6 0",
                "-1 -2 0",
                "-3 -4 0",
                "-5 -6 0",
                // links a (x, z), b (x, y), c (y, z), frames 0 and 1
                "-1 -5 0",
                "-2 -6 0",
                "-1 -3 0",
                "-2 -4 0",
                "-3 -5 0",
                "-4 -6 0",
                // team: every link has load 2 = k
                "1 5 0",
                "2 6 0",
                "1 3 0",
                "2 4 0",
                "3 5 0",
                "4 6 0",
                // symmetry on link a: x in frame 0, z in frame 1
                "1 0",
                "6 0",
            ]
        );
        assert!(text.contains("c family: team (6 clauses)"));
    }

    #[test]
    fn sequential_counter_forbids_exactly_two_true() {
        // Brute force: for n = 5, the counter's clauses have an extension iff <= 1 true.
        let n = 5;
        let mut b = Builder {
            num_vars: n,
            clauses: Vec::new(),
            deadline: None,
            next_look: 0,
            stopped: false,
        };
        let lits: Vec<i32> = (1..=n as i32).collect();
        b.at_most_one(&lits, AmoEncoding::Sequential);
        assert_eq!(b.clauses.len(), 3 * n - 4);
        let total = b.num_vars;
        for xs in 0u32..(1 << n) {
            let sat_some = (0u32..(1 << (total - n))).any(|ss| {
                let val = |l: i32| {
                    let v = l.unsigned_abs() as usize - 1;
                    let bit = if v < n {
                        xs >> v & 1
                    } else {
                        ss >> (v - n) & 1
                    };
                    (bit == 1) == (l > 0)
                };
                b.clauses.iter().all(|c| c.iter().any(|&l| val(l)))
            });
            assert_eq!(sat_some, xs.count_ones() <= 1, "x = {xs:b}");
        }
    }

    /// A passed deadline stops the encoding (it ran to the end, seconds past the limit,
    /// on 1,079 transfers with Λ = 1030: 16.5 M clauses); no deadline builds it whole.
    #[test]
    fn a_passed_deadline_stops_the_encoding() {
        let names: Vec<String> = (0..300).map(|i| format!("a{i}")).collect();
        let paths: Vec<(&str, Vec<&str>)> =
            names.iter().map(|n| (n.as_str(), vec!["x", "y"])).collect();
        let t = Traffic::from_paths("big", &paths).expect("valid traffic");
        let o = EncodeOptions::default();
        let now = Some(std::time::Instant::now());
        assert!(encode_until(&t, 300, &o, now).expect("fits").is_none());
        let whole = encode_until(&t, 300, &o, None)
            .expect("fits")
            .expect("no deadline");
        assert_eq!(whole.dimacs(), encode(&t, 300, &o).expect("fits").dimacs());
        // Its text, too: none past the deadline, the whole text without one.
        assert!(whole.dimacs_until(now).is_none());
        assert_eq!(whole.dimacs_until(None), Some(whole.dimacs()));
    }

    /// A transfer with a count (copies with a virtual link each, of load 1) is counted
    /// like its copies: the estimate covers the encoding's literals; and the memory it
    /// announces is that measured per literal (72.5 bytes on 36.3 M literals: 2.64 GB),
    /// not the 8 bytes it assumed.
    #[test]
    fn the_size_estimate_covers_a_transfer_with_a_count() {
        let text = "name: c\ntransfers:\n  - {id: a, path: [x, y], count: 40}\n  \
                    - {id: b, path: [y, z]}\n  - {id: c, path: [z]}\n";
        let t = liquid_model::yaml::parse_model("c.yaml", text).expect("valid model");
        assert_eq!(t.len(), 42);
        let k = t.duration();
        let o = EncodeOptions::default();
        let e = encode(&t, k, &o).expect("fits");
        let literals: usize = e.clauses().iter().map(Vec::len).sum();
        let estimate = estimated_literals(&t, k, o.amo).expect("fits");
        assert!(estimate >= literals, "{estimate} < {literals}");
        assert!(estimate <= 2 * literals, "{estimate} > 2 × {literals}");
        assert!(estimated_mib(36_348_308) >= 2_640_000_000 >> 20);
    }

    #[test]
    fn wide_is_pairwise_up_to_sixteen_literals_and_named_in_the_header() {
        let clauses = |n: usize, how: AmoEncoding| {
            let mut b = Builder {
                num_vars: n,
                clauses: Vec::new(),
                deadline: None,
                next_look: 0,
                stopped: false,
            };
            let lits: Vec<i32> = (1..=n as i32).collect();
            b.at_most_one(&lits, how);
            (b.clauses.len(), b.num_vars - n)
        };
        assert_eq!(clauses(10, AmoEncoding::Wide), (45, 0));
        assert_eq!(clauses(16, AmoEncoding::Wide), (120, 0));
        assert_eq!(clauses(17, AmoEncoding::Wide), (3 * 17 - 4, 16));
        assert_eq!(clauses(10, AmoEncoding::Auto), (3 * 10 - 4, 9));
        assert_eq!(AmoEncoding::from_name("wide"), Some(AmoEncoding::Wide));
        let o = EncodeOptions {
            amo: AmoEncoding::Wide,
            ..EncodeOptions::default()
        };
        let text = dimacs(&no_team(), 2, &o).expect("encodes");
        assert!(text.contains("c options: amo=wide "), "{text}");
    }

    /// The size guard's estimate is an upper bound of what `encode` builds, for every
    /// at-most-one choice, with and without closed frames, on loads on both sides of the
    /// pairwise thresholds (queens: links of 2 to 10 users; 12 × 12 queens: up to 12).
    #[test]
    fn the_estimate_bounds_the_encoding() {
        use liquid_model::examples::{odd_cycle, queens};
        for traffic in [no_team(), odd_cycle(), queens(5), queens(10), queens(12)] {
            for amo in AmoEncoding::ALL {
                for (k, frames) in [(2, None), (5, Some(7)), (traffic.duration(), None)] {
                    let o = EncodeOptions {
                        amo,
                        frames,
                        ..EncodeOptions::default()
                    };
                    let e = encode(&traffic, k, &o).expect("encodes");
                    let built: usize = e.clauses.iter().map(Vec::len).sum();
                    let top = frames.unwrap_or(k);
                    let estimate = estimated_literals(&traffic, top, amo).expect("fits");
                    assert!(
                        built <= estimate,
                        "{} k={k} {amo:?}: {built} > {estimate}",
                        traffic.name()
                    );
                }
            }
        }
    }

    #[test]
    fn zero_colours_is_an_error() {
        assert_eq!(
            encode(&no_team(), 0, &EncodeOptions::default()).err(),
            Some(EncodeError::NoColours)
        );
    }
}
