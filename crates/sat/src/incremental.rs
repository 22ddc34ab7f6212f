//! One varisat across several lengths: solve, add clauses, solve again, with the LRAT
//! proof of the final "unsatisfiable" captured in the run that found it.
//!
//! varisat numbers every clause it is given or derives in one sequence, so clauses added
//! between two runs get ids after the clauses learned before them. An LRAT proof, though,
//! must number the formula's clauses 1..C in file order. [`Recorder`] therefore keeps the
//! proof steps (literals in the caller's variables, hints as varisat's ids) and renumbers
//! them when the run ends: the given clauses in the order given, then the derived ones.
//! The proof then refutes the formula "initial clauses, then every added clause in the
//! order added", which is what [`crate::encode`] writes with
//! [`EncodeOptions::frames`](crate::EncodeOptions::frames) for the incremental SAT engine.
//! Nothing here is trusted: `liquid-certify` checks the proof like any other.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Instant;

use varisat::checker::{CheckedProofStep, CheckerData, ProofProcessor};
use varisat::{Lit, ProofFormat, Solver};

use crate::solver::{add_clauses, model, stopped, DeadlineSink, Run, SolverError};

/// A clause of the proof: one the caller gave (its position, from 1) or one varisat
/// derived (its position among the derived ones, from 1).
#[derive(Debug, Clone, Copy)]
enum Slot {
    Given(u64),
    Derived(u64),
}

/// A proof step, before renumbering.
#[derive(Debug)]
enum Step {
    /// A derived clause (the `n`-th), its literals and its RUP hints.
    Add {
        n: u64,
        lits: Vec<i32>,
        hints: Vec<Slot>,
    },
    /// Clauses no longer needed.
    Delete(Vec<Slot>),
}

/// A varisat proof processor that records the steps of the whole incremental run.
#[derive(Debug, Default)]
struct Recorder {
    slots: HashMap<u64, Slot>,
    given: u64,
    derived: u64,
    steps: Vec<Step>,
    /// What went wrong (a step the LRAT text cannot say), reported when the run ends.
    error: Option<String>,
}

impl Recorder {
    fn slot(&mut self, id: u64) -> Option<Slot> {
        let s = self.slots.get(&id).copied();
        if s.is_none() && self.error.is_none() {
            self.error = Some(format!(
                "varisat's proof names clause {id} before giving it"
            ));
        }
        s
    }

    fn delete(&mut self, id: u64) {
        if let Some(s) = self.slot(id) {
            match self.steps.last_mut() {
                Some(Step::Delete(ids)) => ids.push(s),
                _ => self.steps.push(Step::Delete(vec![s])),
            }
        }
    }

    /// The textual LRAT proof, the `given` clauses numbered 1..C in the order given. That
    /// can be more than the proof saw: once varisat has the empty clause, its checker
    /// takes no further clause, so the last ones given may have no step (and no use).
    fn lrat(&self, given: u64) -> String {
        let given = given.max(self.given);
        let id = |s: Slot| match s {
            Slot::Given(i) => i,
            Slot::Derived(j) => given + j,
        };
        let mut out = String::new();
        let mut last = given;
        for step in &self.steps {
            match step {
                Step::Add { n, lits, hints } => {
                    last = given + n;
                    let _ = write!(out, "{last} ");
                    for l in lits {
                        let _ = write!(out, "{l} ");
                    }
                    out.push_str("0 ");
                    for &h in hints {
                        let _ = write!(out, "{} ", id(h));
                    }
                    out.push_str("0\n");
                }
                Step::Delete(ids) => {
                    let _ = write!(out, "{last} d ");
                    for &s in ids {
                        let _ = write!(out, "{} ", id(s));
                    }
                    out.push_str("0\n");
                }
            }
        }
        out
    }
}

impl ProofProcessor for Recorder {
    // varisat's trait names anyhow's error type; every failure is kept in `error` instead.
    fn process_step(
        &mut self,
        step: &CheckedProofStep<'_>,
        data: CheckerData<'_, '_>,
    ) -> anyhow::Result<()> {
        match *step {
            CheckedProofStep::AddClause { id, .. }
            | CheckedProofStep::DuplicatedClause { id, .. }
            | CheckedProofStep::TautologicalClause { id, .. } => {
                self.given += 1;
                self.slots.insert(id, Slot::Given(self.given));
            }
            CheckedProofStep::AtClause {
                id,
                clause,
                propagations,
                ..
            } => {
                let mut lits = Vec::with_capacity(clause.len());
                for &l in clause {
                    match data.user_from_proof_var(l.var()) {
                        Some(v) => lits.push(Lit::from_var(v, l.is_positive()).to_dimacs() as i32),
                        None => {
                            self.error.get_or_insert_with(|| {
                                format!("varisat's proof uses a hidden variable in clause {id}")
                            });
                        }
                    }
                }
                let hints = propagations.iter().filter_map(|&h| self.slot(h)).collect();
                self.derived += 1;
                let n = self.derived;
                self.slots.insert(id, Slot::Derived(n));
                self.steps.push(Step::Add { n, lits, hints });
            }
            CheckedProofStep::DeleteAtClause {
                id,
                keep_as_redundant: false,
                ..
            }
            | CheckedProofStep::DeleteRatClause {
                id,
                keep_as_redundant: false,
                ..
            }
            | CheckedProofStep::DeleteClause { id, .. } => self.delete(id),
            _ => {}
        }
        Ok(())
    }
}

/// Solves `clauses` in one varisat, until `deadline`; after each satisfiable run, `next`
/// gets the model and answers the clauses to add before the next run (`None`: stop with
/// that model). With `lrat`, the proof processor is attached from the first clause, so an
/// unsatisfiable answer carries its LRAT proof of the formula made of `clauses` and every
/// clause added, in order, without a second run.
pub fn descend(
    clauses: &[Vec<i32>],
    lrat: bool,
    deadline: Option<Instant>,
    mut next: impl FnMut(&[i32]) -> Option<Vec<Vec<i32>>>,
) -> Result<Run, SolverError> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(Run::Timeout);
    }
    let mut recorder = Recorder::default();
    let mut given = clauses.len() as u64;
    let last = {
        let mut solver = Solver::new();
        if let Some(d) = deadline {
            // The deadline's sink (see `crate::solver`) in varisat's own format: its DRAT
            // writers panic on clauses added between runs.
            solver.write_proof(DeadlineSink::new(d), ProofFormat::Varisat);
        }
        if lrat {
            solver.add_proof_processor(&mut recorder);
        }
        if !add_clauses(&mut solver, clauses, deadline) {
            return Ok(Run::Timeout);
        }
        loop {
            let sat = match solver.solve() {
                Ok(r) => r,
                Err(e) => break stopped(e, deadline)?,
            };
            if !sat {
                if lrat {
                    if let Err(e) = solver.close_proof() {
                        break stopped(e, deadline)?;
                    }
                }
                break Run::Unsat(None);
            }
            let model = model(&solver);
            match next(&model) {
                Some(more) => {
                    given += more.len() as u64;
                    if !add_clauses(&mut solver, &more, deadline) {
                        break Run::Timeout;
                    }
                }
                None => break Run::Sat(model),
            }
        }
    };
    Ok(match last {
        Run::Unsat(None) if lrat => {
            if let Some(e) = recorder.error {
                return Err(SolverError::Solver(e));
            }
            Run::Unsat(Some(recorder.lrat(given)))
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(clauses: &[Vec<i32>], vars: usize) -> String {
        let mut s = format!("p cnf {vars} {}\n", clauses.len());
        for c in clauses {
            for l in c {
                s.push_str(&format!("{l} "));
            }
            s.push_str("0\n");
        }
        s
    }

    #[test]
    fn the_proof_refutes_the_initial_and_added_clauses_in_order() {
        // At most one of x1..x4 (pairwise), at least one: satisfiable four times over;
        // each model's true variable is then forbidden, until none is left.
        let mut formula: Vec<Vec<i32>> = vec![vec![1, 2, 3, 4]];
        for a in 1..=4 {
            for b in a + 1..=4 {
                formula.push(vec![-a, -b]);
            }
        }
        let mut added = Vec::new();
        let last = descend(&formula, true, None, |m| {
            let t = *m.iter().find(|&&l| l > 0).expect("one true");
            added.push(vec![-t]);
            Some(vec![vec![-t]])
        })
        .expect("runs");
        assert_eq!(added.len(), 4, "four satisfiable runs");
        let Run::Unsat(Some(lrat)) = last else {
            panic!("unsatisfiable with a proof: {last:?}");
        };
        formula.extend(added);
        let report = liquid_certify::check_texts(&text(&formula, 4), &lrat).expect("checks");
        assert_eq!(report.clauses, 11);
        // The same proof against the clauses in another order is rejected.
        formula.swap(1, 7);
        assert!(liquid_certify::check_texts(&text(&formula, 4), &lrat).is_err());
    }

    #[test]
    fn clauses_given_after_the_refutation_keep_their_places() {
        // The second unit already refutes; varisat's checker sees no step for the third.
        let formula = vec![vec![1, 2]];
        let more = vec![vec![-1], vec![-2], vec![-1, 2]];
        let last = descend(&formula, true, None, |_| Some(more.clone())).expect("runs");
        let Run::Unsat(Some(lrat)) = last else {
            panic!("unsatisfiable with a proof: {last:?}");
        };
        let all: Vec<Vec<i32>> = formula.iter().chain(&more).cloned().collect();
        liquid_certify::check_texts(&text(&all, 2), &lrat).expect("checks");
    }

    #[test]
    fn clauses_can_be_added_between_runs_under_a_deadline() {
        // The deadline's proof sink must accept clauses added after a run, with and
        // without the LRAT recorder.
        for lrat in [false, true] {
            let deadline = Some(Instant::now() + std::time::Duration::from_secs(600));
            let mut runs = 0;
            let last = descend(&[vec![1, 2, 3]], lrat, deadline, |m| {
                runs += 1;
                let t = *m.iter().find(|&&l| l > 0).expect("one true");
                (runs < 3).then(|| vec![vec![-t]])
            })
            .expect("runs");
            assert!(matches!(last, Run::Sat(_)), "{last:?}");
            assert_eq!(
                runs, 3,
                "two satisfiable runs with clauses added, then the last"
            );
        }
    }

    #[test]
    fn stops_with_the_model_next_declines() {
        let mut runs = 0;
        let last = descend(&[vec![1, 2]], true, None, |_| {
            runs += 1;
            None
        })
        .expect("runs");
        assert!(matches!(last, Run::Sat(_)) && runs == 1);
    }
}
