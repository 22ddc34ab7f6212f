//! CPLEX-LP export of the formulation, readable by Gurobi, CPLEX, SCIP and HiGHS.

use std::fmt::Write as _;

use liquid_model::Traffic;

use crate::IlpError;

use crate::formulation::{escape, Formulation, Row, Sense};

/// Terms per line: keeps lines far below the 510-character limit of some readers.
const TERMS_PER_LINE: usize = 8;

/// Comment text in printable ASCII (others become `?`; the escaped names are exact).
fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii() && !c.is_control() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

fn write_terms(out: &mut String, terms: &[(usize, f64)], names: &[String]) {
    for (i, &(v, coef)) in terms.iter().enumerate() {
        if i > 0 && i % TERMS_PER_LINE == 0 {
            out.push_str("\n   ");
        }
        let sign = if coef < 0.0 { '-' } else { '+' };
        let a = coef.abs();
        if i == 0 && sign == '+' {
            // no leading sign
        } else {
            let _ = write!(out, " {sign}");
        }
        if a == 1.0 {
            let _ = write!(out, " {}", names[v]);
        } else {
            let _ = write!(out, " {a} {}", names[v]);
        }
    }
}

fn write_row(out: &mut String, row: &Row, names: &[String]) {
    let _ = write!(out, " {}:", row.name);
    write_terms(out, &row.terms, names);
    let op = match row.sense {
        Sense::Le => "<=",
        Sense::Eq => "=",
        Sense::Ge => ">=",
    };
    let _ = writeln!(out, " {op} {}", row.rhs);
}

/// The model of [`crate::solve`] with `k` timeframes, as a CPLEX-LP file: minimise the
/// number of used timeframes. Deterministic: the same traffic and `k` give the same bytes.
///
/// Names: `x_<transfer>_<frame>`, `y_<frame>`; rows `assign_<transfer>`,
/// `link_<link>_<frame>`, `isolated_<transfer>`, `order_<frame>`, `sym_<i>`, `duration`.
/// Ids are escaped injectively (see the file's header comment). With `k` below Λ the file
/// describes an infeasible model (Σ y ≥ Λ cannot hold), which any solver will report.
pub fn write_lp(traffic: &Traffic, k: usize) -> String {
    let f = Formulation::new(traffic, k, true);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\\ liquid ILP model of traffic {:?}: {} transfers, Lambda = {}, K = {k} timeframes offered",
        comment_text(traffic.name()),
        traffic.len(),
        traffic.duration()
    );
    out.push_str(
        "\\ x_<transfer>_<c> = 1: the transfer runs in timeframe c; y_<c> = 1: timeframe c is used.\n\
         \\ Minimise the number of used timeframes: the optimum is the optimal schedule length.\n\
         \\ Names: ASCII letters and digits of an id are kept; every other byte of its UTF-8\n\
         \\ text becomes _ and two lowercase hex digits (T1->R1 gives T1_2d_3eR1), so distinct\n\
         \\ ids give distinct names; an escaped id over 200 characters becomes _i<index>\n\
         \\ (0-based position in the model), which no escaped id contains.\n\
         \\ Rows: assign (one frame per transfer), link (users of a link of load >= 2 pairwise\n\
         \\ apart, and only in used frames), isolated (a transfer that congests with nobody goes\n\
         \\ to frame 0), order (used frames first), sym (the users of one bottleneck link in\n\
         \\ frames 0, 1, ...: symmetry breaking), duration (at least Lambda frames).\n",
    );
    out.push_str("\\ Transfers (index: id = name):\n");
    for t in traffic.transfer_ids() {
        let _ = writeln!(
            out,
            "\\   {}: {} = {}",
            t.index(),
            comment_text(traffic.transfer_name(t)),
            escape(traffic.transfer_name(t), t.index())
        );
    }
    out.push_str("Minimize\n frames:");
    let y: Vec<(usize, f64)> = (0..f.k).map(|c| (f.y(c), 1.0)).collect();
    if y.is_empty() {
        out.push_str(" 0");
    }
    write_terms(&mut out, &y, &f.names);
    out.push_str("\nSubject To\n");
    for row in &f.rows {
        write_row(&mut out, row, &f.names);
    }
    out.push_str("Binaries\n");
    for (i, name) in f.names.iter().enumerate() {
        if i % TERMS_PER_LINE == 0 {
            if i > 0 {
                out.push('\n');
            }
            out.push(' ');
        }
        out.push(' ');
        out.push_str(name);
    }
    out.push_str("\nEnd\n");
    out
}

/// Why [`lp_file`] writes no model.
#[derive(Debug, thiserror::Error)]
pub enum LpRefusal {
    /// Fewer timeframes offered than the duration Λ: the model would be trivially
    /// infeasible (the users of a bottleneck link need Λ distinct timeframes).
    #[error("{colours} timeframes are below the duration Λ = {duration}")]
    BelowDuration {
        /// The timeframes offered.
        colours: usize,
        /// The duration Λ.
        duration: usize,
    },
    /// The model would be too large.
    #[error(transparent)]
    TooLarge(#[from] IlpError),
}

/// The CPLEX-LP file of `traffic` offering `colours` timeframes, or by default the ILP
/// engine's own number ([`crate::offered_frames`]: DSatur's length, which always admits
/// a solution, or Λ when DSatur gives none), minimising the used ones.
pub fn lp_file(traffic: &Traffic, colours: Option<usize>) -> Result<String, LpRefusal> {
    let k = match colours {
        Some(k) if k < traffic.duration() => {
            return Err(LpRefusal::BelowDuration {
                colours: k,
                duration: traffic.duration(),
            })
        }
        Some(k) => k,
        None => {
            crate::check_size(traffic, traffic.duration())?;
            crate::offered_frames(traffic, None, &std::sync::atomic::AtomicU64::new(0))
                .map_or(traffic.duration(), |c| c.colours as usize)
        }
    };
    crate::check_size(traffic, k)?;
    Ok(write_lp(traffic, k))
}
