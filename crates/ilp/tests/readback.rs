//! The exported CPLEX-LP file of paper-fig1, read back and solved by HiGHS, has the same
//! optimum as the engine.
//!
//! The safe `highs` crate (2.4) has no call to read a model file (`Highs_readModel` exists
//! only in `highs-sys`, behind `unsafe`, which this workspace forbids), and no HiGHS
//! command-line binary is built. So the file is parsed here by a small, independent reader
//! of the LP subset the writer uses (Minimize, Subject To, Binaries, End; `\` comments;
//! signed terms with optional coefficients, possibly over several lines), loaded into a
//! `highs::RowProblem` column by column, and solved by HiGHS.

use std::collections::HashMap;
use std::path::PathBuf;

use highs::{HighsModelStatus, RowProblem, Sense};
use liquid_model::Limits;

/// A row: name, terms, comparison, right-hand side.
type LpRow = (String, Vec<(String, f64)>, String, f64);

struct Lp {
    objective: Vec<(String, f64)>,
    rows: Vec<LpRow>,
    binaries: Vec<String>,
}

fn parse_terms(tokens: &[&str]) -> Vec<(String, f64)> {
    let mut terms = Vec::new();
    let mut sign = 1.0;
    let mut coef: Option<f64> = None;
    for &tok in tokens {
        match tok {
            "+" => sign = 1.0,
            "-" => sign = -1.0,
            _ => {
                if let Ok(v) = tok.parse::<f64>() {
                    coef = Some(v);
                } else {
                    terms.push((tok.to_string(), sign * coef.unwrap_or(1.0)));
                    sign = 1.0;
                    coef = None;
                }
            }
        }
    }
    terms
}

fn parse_lp(text: &str) -> Lp {
    let mut section = String::new();
    let mut sections: HashMap<String, Vec<String>> = HashMap::new();
    for line in text.lines() {
        let line = line.split('\\').next().expect("a prefix");
        let key = line.trim().to_ascii_lowercase();
        if ["minimize", "subject to", "binaries", "end"].contains(&key.as_str()) {
            section = key;
            continue;
        }
        let tokens = sections.entry(section.clone()).or_default();
        tokens.extend(line.split_whitespace().map(str::to_string));
    }
    let tok = |s: &str| -> Vec<String> { sections.get(s).cloned().unwrap_or_default() };
    let obj = tok("minimize");
    assert!(obj[0].ends_with(':'), "a named objective");
    let obj_refs: Vec<&str> = obj[1..].iter().map(String::as_str).collect();
    let mut rows = Vec::new();
    let st = tok("subject to");
    let mut i = 0;
    while i < st.len() {
        let name = st[i].strip_suffix(':').expect("a row name").to_string();
        i += 1;
        let start = i;
        while !["<=", ">=", "="].contains(&st[i].as_str()) {
            i += 1;
        }
        let refs: Vec<&str> = st[start..i].iter().map(String::as_str).collect();
        let op = st[i].clone();
        let rhs: f64 = st[i + 1].parse().expect("a numeric right-hand side");
        rows.push((name, parse_terms(&refs), op, rhs));
        i += 2;
    }
    Lp {
        objective: parse_terms(&obj_refs),
        rows,
        binaries: tok("binaries"),
    }
}

fn solve_lp(lp: &Lp) -> (HighsModelStatus, f64) {
    let mut p = RowProblem::default();
    let cost: HashMap<&str, f64> = lp.objective.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    let mut col = HashMap::new();
    for name in &lp.binaries {
        let c = p.add_integer_column(cost.get(name.as_str()).copied().unwrap_or(0.0), 0..=1);
        assert!(col.insert(name.clone(), c).is_none(), "duplicate {name}");
    }
    for (name, terms, op, rhs) in &lp.rows {
        let factors: Vec<_> = terms
            .iter()
            .map(|(v, c)| (*col.get(v).unwrap_or_else(|| panic!("{v} in {name}")), *c))
            .collect();
        match op.as_str() {
            "<=" => p.add_row(..=*rhs, factors),
            ">=" => p.add_row(*rhs.., factors),
            _ => p.add_row(*rhs..=*rhs, factors),
        }
    }
    let mut m = p.optimise(Sense::Minimise);
    m.make_quiet();
    m.set_option("threads", 1);
    let solved = m.solve();
    (solved.status(), solved.objective_value())
}

fn model(name: &str) -> liquid_model::Traffic {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../models")
        .join(format!("{name}.yaml"));
    liquid_model::yaml::load_model(&p).expect("bundled model loads")
}

/// Exports `name` with `k` timeframes, reads the file back, solves it with HiGHS, checks
/// that the engine finds the same optimum, and returns that optimum.
fn readback(name: &str, k: usize) -> usize {
    let t = model(name);
    let text = liquid_ilp::write_lp(&t, k);
    let lp = parse_lp(&text);
    let (n, k) = (t.len(), k);
    assert_eq!(lp.binaries.len(), n * k + k);
    let (status, value) = solve_lp(&lp);
    assert_eq!(status, HighsModelStatus::Optimal, "{name}");
    let o = liquid_ilp::solve(
        &t,
        &Limits::default(),
        &std::sync::atomic::AtomicU64::new(0),
    )
    .expect("solves")
    .outcome;
    let len = o.schedule().expect("a schedule").len();
    assert!(
        (value - len as f64).abs() < 1e-6,
        "{name}: {value} vs {len}"
    );
    len
}

#[test]
fn paper_fig1_lp_file_solves_to_the_same_optimum() {
    let t = model("paper-fig1");
    let k = liquid_search::dsatur::colour(&t).colours as usize;
    // paper-fig1 is liquid: its optimum is Λ = 6 (004 Fig. 9).
    assert_eq!(t.duration(), 6);
    assert_eq!(readback("paper-fig1", k), 6);
    // With room to spare the optimum is still 6.
    assert_eq!(readback("paper-fig1", k + 2), 6);
}

#[test]
fn no_team_lp_file_solves_to_three() {
    // Three pairwise congesting transfers: three timeframes, one more than Λ = 2.
    assert_eq!(readback("no-team", 3), 3);
    assert_eq!(readback("no-team", 5), 3);
}

#[test]
fn lp_file_offers_dsatur_s_length_by_default_and_refuses_fewer_than_the_duration() {
    let t = model("no-team");
    let k = liquid_search::dsatur::colour(&t).colours as usize;
    let text = liquid_ilp::lp_file(&t, None).expect("writes");
    assert_eq!(text, liquid_ilp::write_lp(&t, k));
    assert_eq!(parse_lp(&text).binaries.len(), t.len() * k + k);
    assert_eq!(
        liquid_ilp::lp_file(&t, Some(4)).expect("writes"),
        liquid_ilp::write_lp(&t, 4)
    );
    match liquid_ilp::lp_file(&t, Some(1)) {
        Err(liquid_ilp::LpRefusal::BelowDuration { colours, duration }) => {
            assert_eq!((colours, duration), (1, 2))
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
