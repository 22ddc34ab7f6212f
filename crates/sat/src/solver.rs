//! One varisat run, stoppable at a deadline, with an LRAT proof on request.
//!
//! varisat 0.2 has no interrupt. It does stop, though, when writing its proof fails: the
//! I/O error becomes the solver's error and the search loop ends at its next step. So a
//! run with a deadline writes a binary DRAT proof into [`DeadlineSink`], which discards
//! the bytes and fails once the deadline has passed (on a write or on the flush varisat
//! makes before it returns). The run then ends in the calling thread, within one buffer
//! of proof steps of the deadline: no thread is left running, nothing keeps a core busy
//! after the engine has answered.

use std::io;
use std::time::Instant;

use thiserror::Error;
use varisat::{ExtendFormula, Lit, ProofFormat, Solver};
use varisat_lrat::WriteLrat;

/// Errors of a solver run.
#[derive(Debug, Error)]
pub enum SolverError {
    /// varisat failed (proof processing or I/O), not because of the deadline.
    #[error("varisat failed: {0}")]
    Solver(String),
    /// The input text is not DIMACS varisat can read.
    #[error("varisat cannot read the formula: {0}")]
    Input(String),
    /// The LRAT writer produced non-UTF-8 text.
    #[error("the LRAT writer produced non-UTF-8 text")]
    Utf8,
}

/// What a run answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// A model (the true and false literals, DIMACS numbering).
    Sat(Vec<i32>),
    /// Unsatisfiable; with the textual LRAT proof when one was asked for.
    Unsat(Option<String>),
    /// The deadline passed first.
    Timeout,
}

/// A proof target that discards what it is given and fails once the deadline has passed,
/// which stops varisat (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct DeadlineSink {
    deadline: Instant,
}

impl DeadlineSink {
    /// A sink that fails from `deadline` on.
    pub fn new(deadline: Instant) -> Self {
        DeadlineSink { deadline }
    }

    fn check(&self) -> io::Result<()> {
        if Instant::now() >= self.deadline {
            Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"))
        } else {
            Ok(())
        }
    }
}

impl io::Write for DeadlineSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.check()
    }
}

/// The formula of a run: clauses as DIMACS literals, or DIMACS text (an LRAT proof needs
/// the text, so that clause ids 1..C are the file's clauses in file order).
#[derive(Debug, Clone, Copy)]
pub enum Formula<'a> {
    /// Clauses, added in order.
    Clauses(&'a [Vec<i32>]),
    /// DIMACS CNF text.
    Dimacs(&'a str),
}

/// Clauses added between two looks at the deadline in [`add_clauses`].
pub(crate) const ADD_CHECK_EVERY: usize = 4096;

/// Adds DIMACS clauses to a solver, in order; `false` when `deadline` passed first
/// (looked at every [`ADD_CHECK_EVERY`] clauses: loading 5 M clauses into varisat takes
/// seconds, which no limit cut before).
pub(crate) fn add_clauses(
    solver: &mut Solver<'_>,
    clauses: &[Vec<i32>],
    deadline: Option<Instant>,
) -> bool {
    let mut buf = Vec::new();
    for (i, c) in clauses.iter().enumerate() {
        if i % ADD_CHECK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        buf.clear();
        buf.extend(c.iter().map(|&l| Lit::from_dimacs(l as isize)));
        solver.add_clause(&buf);
    }
    true
}

/// Bytes of DIMACS text parsed between two looks at the deadline in [`add_dimacs`]
/// (about 5,000 clauses of an encoding).
const DIMACS_CHUNK: usize = 1 << 16;

/// Loads DIMACS text into `solver` as varisat's `add_dimacs_cnf` does (the same clauses in
/// the same order, so the same clause numbers in an LRAT proof), looking at the deadline
/// every [`DIMACS_CHUNK`] bytes: with a proof checker attached, loading is the slow part
/// (`prove torus:6x6,2`, 13.2 M clauses, ran 94 s past a limit of 5 s in it). `false`
/// when the deadline passed first.
pub(crate) fn add_dimacs(
    solver: &mut Solver<'_>,
    text: &str,
    deadline: Option<Instant>,
) -> Result<bool, SolverError> {
    let input = |e: varisat::dimacs::ParserError| SolverError::Input(e.to_string());
    let mut parser = varisat::dimacs::DimacsParser::new();
    for chunk in text.as_bytes().chunks(DIMACS_CHUNK) {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(false);
        }
        parser.parse_chunk(chunk).map_err(input)?;
        solver.add_formula(&parser.take_formula());
    }
    parser.eof().map_err(input)?;
    solver.add_formula(&parser.take_formula());
    parser.check_header().map_err(input)?;
    Ok(true)
}

/// The solver's model, as DIMACS literals.
pub(crate) fn model(solver: &Solver<'_>) -> Vec<i32> {
    solver
        .model()
        .unwrap_or_default()
        .iter()
        .map(|l| l.to_dimacs() as i32)
        .collect()
}

/// What a varisat error means: the deadline's sink stopping it (see the module
/// documentation), or a failure.
pub(crate) fn stopped(
    e: impl std::fmt::Display,
    deadline: Option<Instant>,
) -> Result<Run, SolverError> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        Ok(Run::Timeout)
    } else {
        Err(SolverError::Solver(e.to_string()))
    }
}

/// Solves `formula` with a fresh varisat, in the calling thread, until `deadline`; with
/// `lrat`, an unsatisfiable answer carries its LRAT proof (the formula must then be
/// DIMACS text).
pub fn run(
    formula: Formula<'_>,
    lrat: bool,
    deadline: Option<Instant>,
) -> Result<Run, SolverError> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(Run::Timeout);
    }
    let mut proof: Vec<u8> = Vec::new();
    let answer = {
        let mut writer = WriteLrat::new(&mut proof, false);
        let answer = {
            let mut solver = Solver::new();
            if let Some(d) = deadline {
                solver.write_proof(DeadlineSink::new(d), ProofFormat::BinaryDrat);
            }
            if lrat {
                solver.add_proof_processor(&mut writer);
            }
            match formula {
                Formula::Clauses(clauses) => {
                    if !add_clauses(&mut solver, clauses, deadline) {
                        return Ok(Run::Timeout);
                    }
                }
                Formula::Dimacs(text) => {
                    if !add_dimacs(&mut solver, text, deadline)? {
                        return Ok(Run::Timeout);
                    }
                }
            }
            let r = match solver.solve() {
                Ok(r) => r,
                Err(e) => return stopped(e, deadline),
            };
            if lrat {
                if let Err(e) = solver.close_proof() {
                    return stopped(e, deadline);
                }
            }
            if r {
                Run::Sat(model(&solver))
            } else {
                Run::Unsat(None)
            }
        };
        if lrat {
            writer
                .flush()
                .map_err(|e| SolverError::Solver(e.to_string()))?;
        }
        answer
    };
    Ok(match answer {
        Run::Unsat(None) if lrat => Run::Unsat(Some(
            String::from_utf8(proof).map_err(|_| SolverError::Utf8)?,
        )),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    // x1 ∨ x2, ¬x1 ∨ x2, x1 ∨ ¬x2, ¬x1 ∨ ¬x2: unsatisfiable.
    const UNSAT: &str = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n";

    /// Adding clauses looks at the deadline: a passed one adds nothing more (and says
    /// so), none adds them all.
    #[test]
    fn adding_clauses_stops_at_a_passed_deadline() {
        let clauses = vec![vec![1, 2], vec![-1, 2], vec![1, -2], vec![-1, -2]];
        let mut solver = Solver::new();
        assert!(!add_clauses(&mut solver, &clauses, Some(Instant::now())));
        assert_eq!(solver.solve().ok(), Some(true), "no clause was added");
        let mut solver = Solver::new();
        assert!(add_clauses(&mut solver, &clauses, None));
        assert_eq!(solver.solve().ok(), Some(false));
    }

    /// The pigeonhole formula: n + 1 pigeons, n holes (hard for resolution).
    fn pigeonhole(n: i32) -> Vec<Vec<i32>> {
        let var = |p: i32, h: i32| p * n + h + 1;
        let mut cs: Vec<Vec<i32>> = (0..=n)
            .map(|p| (0..n).map(|h| var(p, h)).collect())
            .collect();
        for h in 0..n {
            for p in 0..=n {
                for q in p + 1..=n {
                    cs.push(vec![-var(p, h), -var(q, h)]);
                }
            }
        }
        cs
    }

    #[test]
    fn answers_with_a_proof_when_asked() {
        let Run::Unsat(Some(lrat)) = run(Formula::Dimacs(UNSAT), true, None).expect("runs") else {
            panic!("unsatisfiable, with a proof");
        };
        liquid_certify::check_texts(UNSAT, &lrat).expect("the proof checks");
        assert_eq!(
            run(Formula::Dimacs(UNSAT), false, None).expect("runs"),
            Run::Unsat(None)
        );
        let sat = [vec![1, 2], vec![-1]];
        let Run::Sat(m) = run(Formula::Clauses(&sat), false, None).expect("runs") else {
            panic!("satisfiable");
        };
        assert!(m.contains(&2) && m.contains(&-1), "{m:?}");
    }

    #[test]
    fn a_deadline_stops_a_hard_run_in_this_thread() {
        // Pigeonhole 11 into 10 takes varisat far longer than a second.
        let cs = pigeonhole(10);
        let start = Instant::now();
        let r = run(
            Formula::Clauses(&cs),
            false,
            Some(start + Duration::from_millis(300)),
        )
        .expect("runs");
        // It returned, in this thread: nothing is left running after the answer.
        assert_eq!(r, Run::Timeout);
    }

    #[test]
    fn a_large_dimacs_text_loads_in_chunks_under_the_deadline() {
        // 400,000 binary clauses (about 80 chunks), then x1 and ¬x1.
        let n = 400_000;
        let mut text = format!("p cnf {} {}\n", n + 1, n + 2);
        for v in 2..=n + 1 {
            text.push_str(&format!("{} -{v} 0\n", v - 1));
        }
        text.push_str("1 0\n-1 0\n");
        // A passed deadline stops the load before its first chunk.
        let mut solver = Solver::new();
        assert!(!add_dimacs(&mut solver, &text, Some(Instant::now())).expect("parses"));
        assert!(add_dimacs(&mut solver, UNSAT, None).expect("parses"));
        // Loaded chunk by chunk, the clauses keep their numbers: the LRAT proof checks.
        let Run::Unsat(Some(lrat)) = run(Formula::Dimacs(&text), true, None).expect("runs") else {
            panic!("unsatisfiable, with a proof");
        };
        liquid_certify::check_texts(&text, &lrat).expect("the proof checks");
        // A wrong header is refused as varisat's own loader refuses it.
        let bad = "p cnf 1 1\n1 2 0\n";
        assert!(add_dimacs(&mut Solver::new(), bad, None).is_err());
    }

    #[test]
    fn a_deadline_in_the_past_answers_timeout_at_once() {
        let r = run(Formula::Dimacs(UNSAT), true, Some(Instant::now())).expect("runs");
        assert_eq!(r, Run::Timeout);
    }
}
