//! An independent checker of clausal unsatisfiability proofs: DIMACS CNF and textual
//! LRAT.
//!
//! This crate shares no code with liquid's SAT engine or with varisat: it reads the two
//! texts and nothing else. A proof is accepted when it derives the empty clause and every
//! added clause is a reverse-unit-propagation (RUP) consequence of the clauses its hints
//! name:
//!
//! - assign every literal of the new clause false;
//! - walk the hints in order: each hinted clause must exist (original or added, not
//!   deleted) and, under the current assignment, have all literals false (a conflict: the
//!   step is proven) or all false but one, which is then assigned true (a unit);
//! - a hint that is satisfied or has two unassigned literals, an unknown clause id, or hints
//!   that end without a conflict reject the proof.
//!
//! A step whose hints reach no conflict is accepted as a resolution-asymmetric-tautology
//! (RAT) step on its first literal `p`, the pivot, when its hints go on with one group
//! `-j h*` for every live clause `D` (id `j`) that contains `¬p`, as drat-trim's
//! `lrat-check` requires: under the assignment the RUP hints left, every literal of
//! `D \ {¬p}` is made false (a literal already true there makes the resolvent a
//! tautology: the group is done) and the group's hints must then reach a conflict as
//! above. A group for a clause without `¬p`, two groups for one clause, or a clause with
//! `¬p` and no group reject the step. RAT steps keep the formula satisfiable if it was,
//! so a refutation that uses them still proves the formula unsatisfiable. They let a
//! proof define new variables (extended resolution: a fresh `y` with `y ∨ ¬a ∨ ¬b`, then
//! `¬y ∨ a` and `¬y ∨ b`): a step may use variables beyond the formula's, up to the
//! formula's count plus the number of steps added so far (this one included), which
//! bounds the checker's memory by the proof's length. varisat's proofs have RUP steps
//! only; liquid's team-cover search defines one variable per full team
//! (`liquid_sat::teams`). Added clause ids must increase and be larger than every
//! existing id.
//!
//! # LRAT text format
//!
//! ```text
//! <id> <lit>* 0 <hint id>* 0      add clause <id> with the given hints
//! <id> d <clause id>* 0           delete clauses (the leading id is ignored)
//! ```
//! Lines starting with `c` are comments. Original clauses have ids 1..C in file order.
//!
//! Numbers (ids, literals, hints) are plain decimal, as the LRAT format defines them: an
//! optional `-` and digits, without a leading `+` or leading zeros (`0` alone is the
//! terminator). Other checkers read `035` differently (drat-trim's `lrat-check` reads it
//! with C's `%i`, as octal 29), so such a proof is refused rather than read one way. The
//! same holds in the DIMACS text.
//!
//! # Cost
//!
//! Time linear in the proof's size (hash look-ups aside): per literal, the ids of the
//! clauses that hold it are pruned of deleted clauses whenever a RAT step reads them, so
//! every id is scanned once after its deletion. [`check_until`] stops at a deadline.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::time::Instant;

use thiserror::Error;

/// Why a formula or proof was rejected. Line numbers are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CheckError {
    /// The DIMACS text is malformed.
    #[error("formula line {line}: {message}")]
    Dimacs {
        /// Line in the CNF.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The LRAT text is malformed.
    #[error("proof line {line}: {message}")]
    Syntax {
        /// Line in the proof.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A step does not follow from its hints.
    #[error("proof line {line}: step {id}: {message}")]
    Step {
        /// Line in the proof.
        line: usize,
        /// The step's clause id.
        id: u64,
        /// What is wrong.
        message: String,
    },
    /// The proof ends without deriving the empty clause.
    #[error("the proof never derives the empty clause ({steps} steps checked)")]
    NoEmptyClause {
        /// Addition steps checked.
        steps: u64,
    },
    /// The deadline passed before the check ended: the proof is neither accepted nor
    /// rejected.
    #[error("the time limit stopped the check at proof line {line} ({steps} steps checked)")]
    TimeLimit {
        /// The proof line reached.
        line: usize,
        /// Addition steps checked.
        steps: u64,
    },
    /// The formula is not the one the caller expected (for liquid: not the encoding of the
    /// model), so a proof of it would prove something else.
    #[error("the formula is not the expected one (first difference at line {line})")]
    UnexpectedFormula {
        /// First line (1-based) where the two texts differ.
        line: usize,
    },
}

/// A parsed DIMACS CNF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cnf {
    /// Variables declared in the `p cnf` header.
    pub num_vars: usize,
    /// The clauses, in file order (clause i has LRAT id i + 1).
    pub clauses: Vec<Vec<i32>>,
}

/// What a successful check established.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckReport {
    /// Variables of the formula.
    pub variables: usize,
    /// Clauses of the formula.
    pub clauses: usize,
    /// Clause additions checked, the empty clause included.
    pub added: u64,
    /// Clauses deleted.
    pub deleted: u64,
    /// Hints followed.
    pub hints: u64,
    /// Additions checked as RAT steps (see the crate's documentation).
    pub rat: u64,
}

/// A plain decimal integer: an optional `-`, then `0` alone or digits without a leading
/// zero (no `+`, no `-0`, no leading zeros: see the crate's documentation).
fn decimal(tok: &str) -> Option<i64> {
    if plain_syntax(tok) {
        tok.parse().ok()
    } else {
        None
    }
}

/// Whether `tok` is written as [`decimal`] takes it, whatever its size.
fn plain_syntax(tok: &str) -> bool {
    let digits = tok.strip_prefix('-').unwrap_or(tok);
    match digits.as_bytes() {
        [b'0'] => digits.len() == tok.len(),
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// Whether `tok` looks like a number: digits after an optional sign.
fn numeric(tok: &str) -> bool {
    let digits = tok.trim_start_matches(['-', '+']);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A plain decimal number >= 0 (a clause id).
fn parse_id(tok: &str) -> Option<u64> {
    decimal(tok).and_then(|v| u64::try_from(v).ok())
}

/// Why a token is not a number here: its range when it is plain decimal but too large (or
/// negative where it cannot be), the rule when it is a number in another syntax.
fn not_plain(what: &str, tok: &str) -> String {
    if plain_syntax(tok) {
        let range = match what {
            "literal" => format!("from {} to {}", -i32::MAX, i32::MAX),
            "hint" => format!("from {} to {}", i64::MIN, i64::MAX),
            _ => format!("from 0 to {}", i64::MAX),
        };
        format!("bad {what} {tok:?}: out of range (a {what} is {range})")
    } else if numeric(tok) {
        format!(
            "bad {what} {tok:?}: numbers are plain decimal (no `+`, no leading zeros, no `-0`), \
             as the LRAT and DIMACS formats define them"
        )
    } else {
        format!("bad {what} {tok:?}")
    }
}

fn parse_lit(tok: &str) -> Option<i32> {
    let v = decimal(tok)?;
    (v.unsigned_abs() <= i32::MAX as u64).then_some(v as i32)
}

/// Parses DIMACS CNF text: comments (`c`), one `p cnf V C` header, then clauses ended by
/// `0` (they may span lines). The clause count and variable bound must match the header.
pub fn parse_dimacs(text: &str) -> Result<Cnf, CheckError> {
    let err = |line: usize, message: String| CheckError::Dimacs { line, message };
    let mut header: Option<(usize, usize)> = None;
    let mut clauses = Vec::new();
    let mut current = Vec::new();
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('c') {
            continue;
        }
        if l.starts_with('p') {
            if header.is_some() {
                return Err(err(line, "a second `p cnf` header".to_string()));
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            let (v, c) = match f.as_slice() {
                ["p", "cnf", v, c] => (
                    parse_id(v).and_then(|v| usize::try_from(v).ok()),
                    parse_id(c).and_then(|c| usize::try_from(c).ok()),
                ),
                _ => (None, None),
            };
            match (v, c) {
                (Some(v), Some(c)) => header = Some((v, c)),
                _ => return Err(err(line, format!("bad header {l:?}"))),
            }
            continue;
        }
        let Some((num_vars, _)) = header else {
            return Err(err(line, "clause before the `p cnf` header".to_string()));
        };
        for tok in l.split_whitespace() {
            let lit = parse_lit(tok).ok_or_else(|| err(line, not_plain("literal", tok)))?;
            if lit == 0 {
                clauses.push(std::mem::take(&mut current));
            } else if lit.unsigned_abs() as usize > num_vars {
                return Err(err(
                    line,
                    format!("literal {lit} exceeds the {num_vars} declared variables"),
                ));
            } else {
                current.push(lit);
            }
        }
    }
    let Some((num_vars, num_clauses)) = header else {
        return Err(err(last_line, "no `p cnf` header".to_string()));
    };
    if !current.is_empty() {
        return Err(err(
            last_line,
            "the last clause is not ended by 0".to_string(),
        ));
    }
    if clauses.len() != num_clauses {
        return Err(err(
            last_line,
            format!(
                "the header declares {num_clauses} clauses, the file has {}",
                clauses.len()
            ),
        ));
    }
    Ok(Cnf { num_vars, clauses })
}

/// Truth values: 0 unassigned, 1 true, -1 false, per variable.
struct Assignment {
    value: Vec<i8>,
    trail: Vec<usize>,
}

impl Assignment {
    fn value(&self, lit: i32) -> i8 {
        let v = self
            .value
            .get(lit.unsigned_abs() as usize)
            .copied()
            .unwrap_or(0);
        if lit > 0 {
            v
        } else {
            -v
        }
    }

    fn set_true(&mut self, lit: i32) {
        let var = lit.unsigned_abs() as usize;
        if var >= self.value.len() {
            self.value.resize(var + 1, 0);
        }
        self.value[var] = if lit > 0 { 1 } else { -1 };
        self.trail.push(var);
    }

    fn reset(&mut self) {
        self.restore(0);
    }

    /// Unassigns the variables assigned after the first `len`.
    fn restore(&mut self, len: usize) {
        for v in self.trail.drain(len..) {
            self.value[v] = 0;
        }
    }
}

/// Follows `hints` from the current assignment: `Ok(true)` when one of them is false (a
/// conflict), `Ok(false)` when they end without one; hints that are neither units nor
/// conflicts are an error (its message).
fn follow(
    db: &HashMap<u64, Vec<i32>>,
    a: &mut Assignment,
    hints: &[u64],
    count: &mut u64,
) -> Result<bool, String> {
    for &h in hints {
        *count += 1;
        let c = db
            .get(&h)
            .ok_or_else(|| format!("hint {h} names no live clause"))?;
        let mut unassigned = None;
        let mut open = 0;
        for &lit in c {
            match a.value(lit) {
                1 => return Err(format!("hint {h} is already satisfied, not unit")),
                0 if unassigned != Some(lit) => {
                    open += 1;
                    unassigned = Some(lit);
                }
                _ => {}
            }
        }
        match (open, unassigned) {
            (0, _) => return Ok(true),
            (1, Some(lit)) => a.set_true(lit),
            _ => return Err(format!("hint {h} has {open} unassigned literals, not unit")),
        }
    }
    Ok(false)
}

/// Checks the RAT part of a step: `clause` (not empty) on its first literal, with the
/// assignment its RUP hints left and the groups `(clause id, hints)`; `occurs` lists, per
/// literal, the ids of the clauses that contained it when they were added, and loses here
/// those of ¬pivot's that were deleted since (each id is dropped once: the check stays
/// linear in the proof, however many RAT steps share a pivot).
fn check_rat(
    db: &HashMap<u64, Vec<i32>>,
    occurs: &mut HashMap<i32, Vec<u64>>,
    a: &mut Assignment,
    clause: &[i32],
    groups: &[(u64, Vec<u64>)],
    count: &mut u64,
) -> Result<(), String> {
    let pivot = clause[0];
    let mut with: Vec<u64> = match occurs.get_mut(&-pivot) {
        Some(ids) => {
            ids.retain(|id| db.contains_key(id));
            ids.clone()
        }
        None => Vec::new(),
    };
    with.sort_unstable();
    with.dedup();
    let mut named: Vec<u64> = groups.iter().map(|g| g.0).collect();
    named.sort_unstable();
    if let Some(w) = named.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("RAT: two hint groups for clause {}", w[0]));
    }
    if let Some(&extra) = named.iter().find(|j| with.binary_search(j).is_err()) {
        return Err(format!(
            "RAT: hint group -{extra} names a clause that does not contain {}, the negated pivot",
            -pivot
        ));
    }
    if let Some(&missing) = with.iter().find(|j| named.binary_search(j).is_err()) {
        return Err(format!(
            "RAT on pivot {pivot}: clause {missing} contains {} and has no hint group",
            -pivot
        ));
    }
    let mark = a.trail.len();
    for (j, hints) in groups {
        let d = &db[j];
        let mut blocked = false;
        for &lit in d.iter().filter(|&&l| l != -pivot) {
            match a.value(lit) {
                1 => {
                    blocked = true;
                    break;
                }
                0 => a.set_true(-lit),
                _ => {}
            }
        }
        let ok = blocked || follow(db, a, hints, count)?;
        a.restore(mark);
        if !ok {
            return Err(format!(
                "RAT on pivot {pivot}: the hints of group -{j} end without a conflict"
            ));
        }
    }
    Ok(())
}

/// Checks an LRAT proof against a CNF: the proof must derive the empty clause.
pub fn check(cnf: &Cnf, lrat: &str) -> Result<CheckReport, CheckError> {
    check_until(cnf, lrat, None)
}

/// Proof lines checked between two looks at the clock.
const CLOCK_EVERY: usize = 1024;

/// [`check`], stopped with [`CheckError::TimeLimit`] when `deadline` passes first.
pub fn check_until(
    cnf: &Cnf,
    lrat: &str,
    deadline: Option<Instant>,
) -> Result<CheckReport, CheckError> {
    let mut db: HashMap<u64, Vec<i32>> = HashMap::with_capacity(cnf.clauses.len() * 2);
    for (i, c) in cnf.clauses.iter().enumerate() {
        db.insert(i as u64 + 1, c.clone());
    }
    let mut max_id = cnf.clauses.len() as u64;
    // Values grow with the variables assigned (not with the header's count, which may
    // be anything).
    let mut a = Assignment {
        value: Vec::new(),
        trail: Vec::new(),
    };
    let mut report = CheckReport {
        variables: cnf.num_vars,
        clauses: cnf.clauses.len(),
        added: 0,
        deleted: 0,
        hints: 0,
        rat: 0,
    };
    if cnf.clauses.iter().any(Vec::is_empty) {
        // The formula itself contains the empty clause.
        return Ok(report);
    }
    // Per literal, the clauses that contain it: built at the first RAT step (RUP-only
    // proofs never pay for it), then kept up to date.
    let mut occurs: Option<HashMap<i32, Vec<u64>>> = None;
    for (i, raw) in lrat.lines().enumerate() {
        let line = i + 1;
        if i % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(CheckError::TimeLimit {
                line,
                steps: report.added,
            });
        }
        let l = raw.trim();
        if l.is_empty() || l.starts_with('c') {
            continue;
        }
        let syntax = |message: String| CheckError::Syntax { line, message };
        let mut toks = l.split_whitespace();
        let first = toks.next().unwrap_or("");
        let id: u64 = parse_id(first).ok_or_else(|| {
            syntax(if numeric(first) {
                not_plain("step id", first)
            } else {
                format!("expected a step id at the start of {l:?}")
            })
        })?;
        let rest: Vec<&str> = toks.collect();
        if rest.first() == Some(&"d") {
            let mut ended = false;
            for tok in &rest[1..] {
                if ended {
                    return Err(syntax("text after the closing 0".to_string()));
                }
                let del: u64 = parse_id(tok).ok_or_else(|| syntax(not_plain("clause id", tok)))?;
                if del == 0 {
                    ended = true;
                } else if db.remove(&del).is_none() {
                    return Err(CheckError::Step {
                        line,
                        id,
                        message: format!("deletes clause {del}, which does not exist"),
                    });
                } else {
                    report.deleted += 1;
                }
            }
            if !ended {
                return Err(syntax("deletion not ended by 0".to_string()));
            }
            continue;
        }
        let step = |message: String| CheckError::Step { line, id, message };
        if id <= max_id || db.contains_key(&id) {
            return Err(step(format!(
                "clause ids must increase: {id} is not above {max_id}"
            )));
        }
        // New variables: at most one per step so far, this one included.
        let var_bound = cnf.num_vars as u64 + report.added + 1;
        // Literals up to the first 0, hints up to the second: RUP hints, then RAT groups.
        let mut clause = Vec::new();
        let mut hints = Vec::new();
        let mut groups: Vec<(u64, Vec<u64>)> = Vec::new();
        let mut part = 0;
        for tok in &rest {
            if part == 2 {
                return Err(syntax("text after the closing 0".to_string()));
            }
            if part == 0 {
                let lit = parse_lit(tok).ok_or_else(|| syntax(not_plain("literal", tok)))?;
                if u64::from(lit.unsigned_abs()) > var_bound {
                    return Err(step(format!(
                        "literal {lit} is beyond the formula's {} variables and the {} new \
                         ones its steps so far may define",
                        cnf.num_vars,
                        var_bound - cnf.num_vars as u64
                    )));
                }
                if lit == 0 {
                    part = 1;
                } else {
                    clause.push(lit);
                }
            } else {
                let h: i64 = decimal(tok).ok_or_else(|| syntax(not_plain("hint", tok)))?;
                if h == 0 {
                    part = 2;
                } else if h < 0 {
                    groups.push((h.unsigned_abs(), Vec::new()));
                } else if let Some(g) = groups.last_mut() {
                    g.1.push(h as u64);
                } else {
                    hints.push(h as u64);
                }
            }
        }
        if part != 2 {
            return Err(syntax("a step needs `lits 0 hints 0`".to_string()));
        }
        // Reverse unit propagation along the hints.
        a.reset();
        let mut conflict = false;
        for &lit in &clause {
            match a.value(lit) {
                1 => {
                    // The clause holds l and ¬l: a tautology, trivially implied.
                    conflict = true;
                    break;
                }
                -1 => {}
                _ => a.set_true(-lit),
            }
        }
        if !conflict {
            conflict = follow(&db, &mut a, &hints, &mut report.hints).map_err(&step)?;
        }
        if !conflict {
            if clause.is_empty() {
                a.reset();
                return Err(step(
                    "the hints end without a conflict: the clause is not implied".to_string(),
                ));
            }
            let occurs = occurs.get_or_insert_with(|| {
                let mut m: HashMap<i32, Vec<u64>> = HashMap::new();
                for (&j, c) in &db {
                    for &lit in c {
                        m.entry(lit).or_default().push(j);
                    }
                }
                m
            });
            check_rat(&db, occurs, &mut a, &clause, &groups, &mut report.hints).map_err(|m| {
                step(if groups.is_empty() {
                    format!(
                        "the hints end without a conflict: the clause is not implied, nor a RAT \
                         step ({m})"
                    )
                } else {
                    m
                })
            })?;
            report.rat += 1;
        }
        a.reset();
        report.added += 1;
        if clause.is_empty() {
            return Ok(report);
        }
        max_id = id;
        if let Some(m) = occurs.as_mut() {
            for &lit in &clause {
                m.entry(lit).or_default().push(id);
            }
        }
        db.insert(id, clause);
    }
    Err(CheckError::NoEmptyClause {
        steps: report.added,
    })
}

/// Parses both texts and checks the proof: the whole job of `liquid check-proof` after the
/// formula has been compared with the model's encoding.
pub fn check_texts(cnf: &str, lrat: &str) -> Result<CheckReport, CheckError> {
    check_texts_until(cnf, lrat, None)
}

/// [`check_texts`] with a deadline ([`check_until`]).
pub fn check_texts_until(
    cnf: &str,
    lrat: &str,
    deadline: Option<Instant>,
) -> Result<CheckReport, CheckError> {
    check_until(&parse_dimacs(cnf)?, lrat, deadline)
}

/// A refutation this checker accepted: a formula identical, byte for byte, to the one the
/// caller expected, and an LRAT proof that derives the empty clause from it.
///
/// It carries its identity: the SHA-256 of the formula it refuted and the k (number of
/// timeframes) that formula claims, so whoever holds one can re-derive the expected formula
/// and compare digests instead of trusting a label. Only [`check_refutation`] builds one
/// (its fields are private), so a value of this type is evidence that the check ran and
/// passed. A [`CheckedProof`] wraps one, bound to what it is about ([`check_proof`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refuted {
    report: CheckReport,
    formula_sha256: String,
    colours: usize,
}

impl Refuted {
    /// What the checker saw.
    pub fn report(&self) -> &CheckReport {
        &self.report
    }

    /// SHA-256 (lower-case hex) of the formula's text (the DIMACS bytes) that was refuted.
    pub fn formula_sha256(&self) -> &str {
        &self.formula_sha256
    }

    /// The k the refuted formula encodes: "a schedule of at most k timeframes exists".
    pub fn colours(&self) -> usize {
        self.colours
    }
}

/// SHA-256 (lower-case hex) of a text: the digest a [`Refuted`] records of its formula.
pub fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The line (1-based) of the first difference between two texts, if they differ.
fn first_difference(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let mut la = a.split('\n');
    let mut lb = b.split('\n');
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            _ => return Some(n),
        }
    }
}

/// Checks that `cnf` is exactly `expected` (the formula that says `colours` timeframes
/// suffice) and that `lrat` refutes it. The [`Refuted`] records the formula's digest and
/// `colours`.
pub fn check_refutation(
    expected: &str,
    colours: usize,
    cnf: &str,
    lrat: &str,
) -> Result<Refuted, CheckError> {
    check_refutation_until(expected, colours, cnf, lrat, None)
}

/// [`check_refutation`] with a deadline ([`check_until`]).
pub fn check_refutation_until(
    expected: &str,
    colours: usize,
    cnf: &str,
    lrat: &str,
    deadline: Option<Instant>,
) -> Result<Refuted, CheckError> {
    if let Some(line) = first_difference(expected, cnf) {
        return Err(CheckError::UnexpectedFormula { line });
    }
    Ok(Refuted {
        report: check_texts_until(cnf, lrat, deadline)?,
        formula_sha256: sha256_hex(cnf),
        colours,
    })
}

/// Who a refutation is about, as the caller of [`check_proof`] states it: the traffic's
/// digest and the encoding options the expected formula was built with. The checker
/// cannot verify these (it knows no traffics); it records them beside the formula's
/// digest and k, so that whoever holds the proof can re-encode the traffic and compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// SHA-256 of the traffic (`liquid_model::Traffic::sha256`).
    pub traffic_sha256: String,
    /// The encoding options, as `liquid-proof` writes them.
    pub encoding: String,
    /// The proof directory, when the proof was written to one.
    pub dir: Option<String>,
}

/// A proof that `colours` timeframes do not suffice, accepted by this checker: the CNF
/// was byte-identical to the formula its caller expected (the model's encoding with
/// `colours` timeframes), and the LRAT proof refutes it.
///
/// It carries its identity, so that it cannot be passed off as a proof about anything
/// else: the refuted formula's digest and k, and the [`Subject`] (the traffic's digest
/// and the encoding options). `liquid_model::LowerBound::check` compares the traffic's
/// digest and k with the traffic and the bound it is checked against; the engine gate
/// re-encodes the traffic with k and the options and compares the formula's digest.
///
/// Its fields are private and [`check_proof`] is its only constructor: a value of this
/// type exists only where this checker ran and passed, and nothing outside the checker
/// (which `liquid-proof` calls) can build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedProof {
    refuted: Refuted,
    subject: Subject,
}

impl CheckedProof {
    /// The number of timeframes proven insufficient (the refuted formula's k).
    pub fn colours(&self) -> usize {
        self.refuted.colours()
    }

    /// SHA-256 of the traffic the proof is about.
    pub fn traffic_sha256(&self) -> &str {
        &self.subject.traffic_sha256
    }

    /// SHA-256 of the refuted formula's DIMACS text.
    pub fn formula_sha256(&self) -> &str {
        self.refuted.formula_sha256()
    }

    /// The encoding options of the refuted formula, as `liquid-proof` writes them.
    pub fn encoding(&self) -> &str {
        &self.subject.encoding
    }

    /// The proof directory, when the proof was written to one.
    pub fn dir(&self) -> Option<&str> {
        self.subject.dir.as_deref()
    }

    /// What the checker saw.
    pub fn report(&self) -> &CheckReport {
        self.refuted.report()
    }
}

/// [`check_refutation`], its acceptance bound to `subject`: the only way to make a
/// [`CheckedProof`].
pub fn check_proof(
    expected: &str,
    colours: usize,
    cnf: &str,
    lrat: &str,
    subject: Subject,
) -> Result<CheckedProof, CheckError> {
    check_proof_until(expected, colours, cnf, lrat, subject, None)
}

/// [`check_proof`] with a deadline ([`check_until`]).
pub fn check_proof_until(
    expected: &str,
    colours: usize,
    cnf: &str,
    lrat: &str,
    subject: Subject,
    deadline: Option<Instant>,
) -> Result<CheckedProof, CheckError> {
    Ok(CheckedProof {
        refuted: check_refutation_until(expected, colours, cnf, lrat, deadline)?,
        subject,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // x1 ∨ x2, ¬x1 ∨ x2, x1 ∨ ¬x2, ¬x1 ∨ ¬x2: unsatisfiable.
    const CNF: &str = "c four clauses\np cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n";

    #[test]
    fn accepts_a_correct_proof() {
        // 5: x2 from 1 and 2 (¬x2 makes 1 unit x1, then 2 conflicts).
        let proof = "5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n";
        let r = check_texts(CNF, proof).expect("valid proof");
        assert_eq!(r.added, 2);
        assert_eq!(r.deleted, 2);
    }

    #[test]
    fn refutations_are_checked_against_the_expected_formula() {
        let proof = "5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n";
        let r = check_refutation(CNF, 1, CNF, proof).expect("same formula, valid proof");
        assert_eq!(r.report().added, 2);
        assert_eq!(
            (r.colours(), r.formula_sha256()),
            (1, sha256_hex(CNF).as_str())
        );
        // One literal changed on line 4: a proof of another formula proves nothing here.
        let other = CNF.replace("-1 2 0", "-1 -2 0");
        let e = check_refutation(CNF, 1, &other, proof).expect_err("another formula");
        assert_eq!(e, CheckError::UnexpectedFormula { line: 4 });
        // The expected formula with a wrong proof is still rejected.
        let e = check_refutation(CNF, 1, CNF, "5 2 0 1 3 0\n6 0 5 3 4 0\n").expect_err("bad proof");
        assert!(matches!(e, CheckError::Step { id: 5, .. }), "{e}");
    }

    #[test]
    fn a_checked_proof_is_made_only_by_a_passed_check_and_records_its_subject() {
        let proof = "5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n";
        let subject = Subject {
            traffic_sha256: "t".repeat(64),
            encoding: "options".to_string(),
            dir: Some("dir".to_string()),
        };
        let p = check_proof(CNF, 1, CNF, proof, subject.clone()).expect("passes");
        assert_eq!(
            (p.colours(), p.formula_sha256(), p.traffic_sha256()),
            (1, sha256_hex(CNF).as_str(), subject.traffic_sha256.as_str())
        );
        assert_eq!((p.encoding(), p.dir()), ("options", Some("dir")));
        assert_eq!(p.report().added, 2);
        // Another formula, or a proof that does not refute it: no checked proof.
        let other = CNF.replace("-1 2 0", "-1 -2 0");
        assert!(check_proof(CNF, 1, &other, proof, subject.clone()).is_err());
        assert!(check_proof(CNF, 1, CNF, "5 2 0 1 3 0\n6 0 5 3 4 0\n", subject).is_err());
    }

    #[test]
    fn rejects_a_wrong_hint_chain() {
        let proof = "5 2 0 1 3 0\n6 0 5 3 4 0\n";
        let e = check_texts(CNF, proof).expect_err("wrong hints");
        assert!(matches!(e, CheckError::Step { id: 5, .. }), "{e}");
    }

    // x1 ∨ x2, x1 ∨ ¬x2, ¬x1 ∨ x3, ¬x1 ∨ ¬x3: unsatisfiable.
    const CNF2: &str = "p cnf 3 4\n1 2 0\n1 -2 0\n-1 3 0\n-1 -3 0\n";

    /// A proof through a defined variable y = x1 ∧ x3 (variable 4): the definition's
    /// three clauses are RAT steps, the rest RUP.
    const EXTENDED: &str = "5 4 -1 -3 0 0\n\
                            6 -4 1 0 -5 0\n\
                            7 -4 3 0 -5 0\n\
                            8 1 0 1 2 0\n\
                            9 4 0 8 3 5 0\n\
                            10 0 9 8 4 7 0\n";

    #[test]
    fn accepts_definitions_of_new_variables_as_rat_steps() {
        let r = check_texts(CNF2, EXTENDED).expect("valid extended proof");
        assert_eq!((r.added, r.rat), (6, 3));
    }

    #[test]
    fn rejects_a_rat_step_with_a_missing_or_wrong_group() {
        // Step 6 without its group: clause 5 holds y = 4 and has no hints.
        let missing = EXTENDED.replace("6 -4 1 0 -5 0", "6 -4 1 0 0");
        let e = check_texts(CNF2, &missing).expect_err("missing group");
        assert!(
            e.to_string()
                .contains("clause 5 contains 4 and has no hint group"),
            "{e}"
        );
        // ¬x1 as a new clause on pivot ¬x1: clauses 1 and 2 hold x1; with a group for
        // each that reaches no conflict, the step is rejected.
        let wrong = "5 -1 0 -1 -2 0\n6 0 5 1 2 0\n";
        let e = check_texts(CNF2, wrong).expect_err("not RAT");
        assert!(e.to_string().contains("end without a conflict"), "{e}");
        // A pivot already used negated: ¬x3 is in clause 4, so x3 ∨ x1 needs a group.
        let e = check_texts(CNF2, "5 3 1 0 0\n").expect_err("not fresh");
        assert!(e.to_string().contains("clause 4 contains -3"), "{e}");
    }

    #[test]
    fn new_variables_are_bounded_by_the_steps_so_far() {
        // The first step may define variable 4 (3 + 1), not variable 5.
        let e = check_texts(CNF2, "5 5 -1 0 0\n").expect_err("too far");
        assert!(
            e.to_string().contains("beyond the formula's 3 variables"),
            "{e}"
        );
    }

    #[test]
    fn rejects_literals_beyond_the_formula() {
        // A variable far beyond the 2 declared: refused, not an allocation of its size.
        let e = check_texts(CNF, "5 2000000000 0 1 2 0\n").expect_err("out of range");
        assert!(
            e.to_string().contains("beyond the formula's 2 variables"),
            "{e}"
        );
    }

    #[test]
    fn rejects_a_proof_without_the_empty_clause() {
        let e = check_texts(CNF, "5 2 0 1 2 0\n").expect_err("no empty clause");
        assert_eq!(e, CheckError::NoEmptyClause { steps: 1 });
    }

    #[test]
    fn rejects_use_of_a_deleted_clause() {
        let proof = "5 2 0 1 2 0\n5 d 1 0\n6 0 5 3 1 0\n";
        let e = check_texts(CNF, proof).expect_err("deleted clause");
        assert!(e.to_string().contains("hint 1 names no live clause"), "{e}");
    }

    #[test]
    fn rejects_wrong_rat_groups_and_bad_headers() {
        // Clause 1 (x1 ∨ x2) does not contain ¬x2, the negated pivot.
        let e = check_texts(CNF, "5 2 0 -1 2 0\n").expect_err("RAT");
        assert!(e.to_string().contains("does not contain -2"), "{e}");
        let e = check_texts("p cnf 2 5\n1 2 0\n", "").expect_err("count");
        assert!(e.to_string().contains("declares 5 clauses"), "{e}");
    }

    #[test]
    fn numbers_are_plain_decimal() {
        let proof = "5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n";
        check_texts(CNF, proof).expect("plain");
        for (bad, what) in [
            ("+5 2 0 1 2 0\n6 0 5 3 4 0\n", "step id \"+5\""),
            ("05 2 0 1 2 0\n6 0 5 3 4 0\n", "step id \"05\""),
            ("5 +2 0 1 2 0\n6 0 5 3 4 0\n", "literal \"+2\""),
            ("5 2 -0 1 2 0\n6 0 5 3 4 0\n", "literal \"-0\""),
            ("5 2 0 01 2 0\n6 0 5 3 4 0\n", "hint \"01\""),
            ("5 2 0 1 2 0\n5 d 01 0\n6 0 5 3 4 0\n", "clause id \"01\""),
        ] {
            let e = check_texts(CNF, bad).expect_err(bad);
            let m = e.to_string();
            assert!(
                m.contains(what) && m.contains("plain decimal"),
                "{bad}: {m}"
            );
        }
        let e = check_texts("p cnf 2 1\n1 02 0\n", "").expect_err("dimacs");
        assert!(e.to_string().contains("plain decimal"), "{e}");
        // Plain decimal but too large: its range, not the syntax rule.
        for (bad, what) in [
            ("5 2147483648 0 0\n", "literal \"2147483648\": out of range (a literal is from -2147483647 to 2147483647)"),
            ("99999999999999999999999 0 0\n", "step id \"99999999999999999999999\": out of range"),
            ("5 2 0 99999999999999999999 0\n", "hint \"99999999999999999999\": out of range"),
            ("5 2 0 1 2 0\n5 d -1 0\n", "clause id \"-1\": out of range (a clause id is from 0 to"),
        ] {
            let m = check_texts(CNF, bad).expect_err(bad).to_string();
            assert!(m.contains(what) && !m.contains("plain decimal"), "{bad}: {m}");
        }
        let e = check_texts("p cnf 2 1\n1 -2147483648 0\n", "").expect_err("dimacs");
        assert!(e.to_string().contains("out of range"), "{e}");
    }

    #[test]
    fn an_empty_clause_whose_hints_reach_no_conflict_is_rejected() {
        // drat-trim's lrat-check (effa1dc) says VERIFIED to this on a satisfiable formula.
        let e = check_texts("p cnf 2 1\n1 2 0\n", "2 0 0\n").expect_err("satisfiable");
        assert!(e.to_string().contains("not implied"), "{e}");
    }

    /// A proof with `n` RAT steps on one pivot after `n` clauses holding its negation were
    /// deleted (issue 45 item 3's family): y (variable 3) is defined, `-y y` added `n`
    /// times and deleted at once, then `y` added `n` times, then the refutation.
    pub(crate) fn rat_family(n: u64) -> String {
        let mut p = String::from("5 3 0 0\n");
        let mut id = 5;
        for _ in 0..n {
            id += 1;
            p.push_str(&format!("{id} -3 3 0 0\n"));
        }
        p.push_str(&format!("{id} d"));
        for j in 6..=id {
            p.push_str(&format!(" {j}"));
        }
        p.push_str(" 0\n");
        for _ in 0..n {
            id += 1;
            p.push_str(&format!("{id} 3 0 0\n"));
        }
        p.push_str(&format!(
            "{} 2 0 1 2 0\n{} 0 {} 3 4 0\n",
            id + 1,
            id + 2,
            id + 1
        ));
        p
    }

    /// 100,000 RAT steps after 100,000 deletions: linear, well under a second; the old
    /// checker scanned the deleted ids at every step, 10^10 look-ups, which a test run
    /// shows as a hang (no test measures time: `scripts/bench-check-proof` does).
    #[test]
    fn many_rat_steps_on_one_pivot_after_deletions_check() {
        let r = check_texts(CNF, &rat_family(100_000)).expect("valid");
        assert_eq!((r.rat, r.deleted, r.added), (100_001, 100_000, 200_003));
    }

    #[test]
    fn a_deadline_stops_the_check() {
        let past = Instant::now();
        let e = check_texts_until(CNF, &rat_family(10), Some(past)).expect_err("stopped");
        assert_eq!(e, CheckError::TimeLimit { line: 1, steps: 0 });
    }

    #[test]
    fn a_huge_variable_count_in_the_header_allocates_nothing() {
        let e = check_texts("p cnf 4000000000 1\n1 2 0\n", "2 0 0\n").expect_err("sat");
        assert!(e.to_string().contains("not implied"), "{e}");
    }
}
