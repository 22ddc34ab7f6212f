//! Solves one DIMACS CNF file with varisat (the solver of liquid's `sat` engine) and prints
//! one JSON line: `{"answer": "sat"|"unsat", "variables": V, "clauses": C, "time_s": T}`.
//!
//! `time_s` covers `solve()` only (not reading, parsing or loading the clauses), the same
//! span the peer harness (`bash scripts/bench-peers`) measures around CaDiCaL's `solve()`.
//! A satisfying assignment is checked against every clause before `sat` is printed.
//!
//! `cargo run --release -p liquid-benchmarks --example varisat_dimacs -- FILE.cnf`
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use varisat::{ExtendFormula, Lit, Solver};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: varisat_dimacs FILE.cnf");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    // The same parser as the proof checker's: the header must match the clauses.
    let (vars, clauses) = match liquid_certify::parse_dimacs(&text) {
        Ok(cnf) => (cnf.num_vars, cnf.clauses),
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut solver = Solver::new();
    let mut buf = Vec::new();
    for c in &clauses {
        buf.clear();
        buf.extend(c.iter().map(|&l| Lit::from_dimacs(l as isize)));
        solver.add_clause(&buf);
    }
    let start = Instant::now();
    let result = solver.solve();
    let secs = start.elapsed().as_secs_f64();
    let answer = match result {
        Ok(true) => {
            let model = solver.model().unwrap_or_default();
            let mut value = vec![false; vars + 1];
            for l in model {
                let v = l.to_dimacs();
                if v > 0 {
                    value[v as usize] = true;
                }
            }
            let satisfied = clauses.iter().all(|c| {
                c.iter()
                    .any(|&l| value[l.unsigned_abs() as usize] == (l > 0))
            });
            if !satisfied {
                eprintln!("error: varisat's model does not satisfy {path}");
                return ExitCode::from(3);
            }
            "sat"
        }
        Ok(false) => "unsat",
        Err(e) => {
            eprintln!("error: varisat failed on {path}: {e}");
            return ExitCode::from(3);
        }
    };
    println!(
        "{{\"answer\": \"{answer}\", \"variables\": {vars}, \"clauses\": {}, \"time_s\": {secs}}}",
        clauses.len()
    );
    ExitCode::SUCCESS
}
