//! The ILP formulation as plain data, shared by the solver and the LP writer (so the
//! exported file is exactly the model that is solved).
//!
//! Variables (all binary), for a traffic of n transfers and an upper bound K:
//! - `x[t,c]` (index `t*K + c`): transfer t runs in timeframe c, for c < K;
//! - `y[c]` (index `n*K + c`): timeframe c is used.
//!
//! Rows:
//! - `assign_<t>`: Σ_c x[t,c] = 1 (every transfer in exactly one timeframe);
//! - `link_<l>_<c>`: Σ_{t uses l} x[t,c] − y[c] ≤ 0, for every link l of load ≥ 2 and
//!   every c. This is both the congestion constraint (at most one user of l per frame)
//!   and the coupling of x to y. A link of load 1 would only add x[t,c] ≤ y[c]: it cannot
//!   congest, and for a transfer that has some link of load ≥ 2 that coupling already
//!   follows from that link's row. The only transfers left uncoupled are *isolated* ones
//!   (every link of load 1: they congest with nobody); they get the next row instead;
//! - `isolated_<t>`: x[t,0] = 1 for every isolated transfer. Sound: frame 0 is always used
//!   (Σ y ≥ Λ ≥ 1 and y is non-increasing), and an isolated transfer fits in any frame;
//! - `order_<c>`: y[c] − y[c+1] ≥ 0 (the used frames are a prefix 0..m);
//! - `sym_<i>`: x[u_i, i] = 1 for the i-th user u_i of the first bottleneck link, i < Λ.
//!   Sound: the bottleneck's users pairwise congest, so every schedule puts them in Λ
//!   distinct frames, and relabelling the frames of a schedule keeps it valid and of the
//!   same length; label the frame of u_i as i and the other used frames Λ, Λ+1, ... in
//!   any order: the relabelled schedule meets both `sym` and `order`, so no schedule
//!   length is lost;
//! - `duration`: Σ_c y[c] ≥ Λ (the bottleneck bound, stated for the LP relaxation).
//!
//! Objective: minimise Σ_c y[c] (or none, in decision mode).

use liquid_model::{LinkId, Traffic, TransferId};

/// A row's comparison with its right-hand side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sense {
    /// `≤`
    Le,
    /// `=`
    Eq,
    /// `≥`
    Ge,
}

/// One linear constraint: Σ coef·var (sense) rhs.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub name: String,
    pub terms: Vec<(usize, f64)>,
    pub sense: Sense,
    pub rhs: f64,
}

/// The whole model.
#[derive(Debug, Clone)]
pub(crate) struct Formulation {
    /// Number of transfers.
    pub n: usize,
    /// Number of timeframes offered (the upper bound K).
    pub k: usize,
    /// Whether the objective is Σ y (otherwise: a feasibility model).
    pub minimise: bool,
    /// Variable names, by column index.
    pub names: Vec<String>,
    /// The constraints.
    pub rows: Vec<Row>,
}

/// Longest escaped id used in a name; longer ids fall back to `_i<index>`.
const MAX_ESCAPED: usize = 200;

/// An LP-legal, injective rendering of a transfer or link id: ASCII letters and digits are
/// kept, every other byte of the UTF-8 id becomes `_` followed by two lowercase hex digits
/// (`T1->R1` gives `T1_2d_3eR1`). An escaped id longer than 200 characters is replaced by
/// `_i<index>`, which no escaped id contains (`i` is not a hex digit).
pub(crate) fn escape(id: &str, index: usize) -> String {
    let mut s = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() {
            s.push(b as char);
        } else {
            s.push_str(&format!("_{b:02x}"));
        }
    }
    if s.len() > MAX_ESCAPED {
        format!("_i{index}")
    } else {
        s
    }
}

impl Formulation {
    /// The model for `traffic` with `k` timeframes. With `k < Λ` the model is infeasible
    /// (the `duration` row cannot hold) and the `sym` rows stop at frame `k - 1`.
    pub fn new(traffic: &Traffic, k: usize, minimise: bool) -> Formulation {
        let n = traffic.len();
        let lambda = traffic.duration();
        let tnames: Vec<String> = traffic
            .transfer_ids()
            .map(|t| escape(traffic.transfer_name(t), t.index()))
            .collect();
        let mut names = Vec::with_capacity(n * k + k);
        for tn in &tnames {
            for c in 0..k {
                names.push(format!("x_{tn}_{c}"));
            }
        }
        for c in 0..k {
            names.push(format!("y_{c}"));
        }
        let x = |t: TransferId, c: usize| t.index() * k + c;
        let y = |c: usize| n * k + c;
        let mut rows = Vec::new();
        for t in traffic.transfer_ids() {
            rows.push(Row {
                name: format!("assign_{}", tnames[t.index()]),
                terms: (0..k).map(|c| (x(t, c), 1.0)).collect(),
                sense: Sense::Eq,
                rhs: 1.0,
            });
        }
        for l in traffic.link_ids() {
            let users = traffic.users(l);
            if users.len() < 2 {
                continue;
            }
            let ln = escape(traffic.link_name(l), l.index());
            for c in 0..k {
                let mut terms: Vec<(usize, f64)> = users.iter().map(|&u| (x(u, c), 1.0)).collect();
                terms.push((y(c), -1.0));
                rows.push(Row {
                    name: format!("link_{ln}_{c}"),
                    terms,
                    sense: Sense::Le,
                    rhs: 0.0,
                });
            }
        }
        if k > 0 {
            for t in traffic.transfer_ids() {
                let isolated = traffic
                    .transfer(t)
                    .path
                    .iter()
                    .all(|&l: &LinkId| traffic.load(l) < 2);
                if isolated {
                    rows.push(Row {
                        name: format!("isolated_{}", tnames[t.index()]),
                        terms: vec![(x(t, 0), 1.0)],
                        sense: Sense::Eq,
                        rhs: 1.0,
                    });
                }
            }
        }
        for c in 0..k.saturating_sub(1) {
            rows.push(Row {
                name: format!("order_{c}"),
                terms: vec![(y(c), 1.0), (y(c + 1), -1.0)],
                sense: Sense::Ge,
                rhs: 0.0,
            });
        }
        let bottleneck = traffic.bottlenecks()[0];
        for (i, &u) in traffic.users(bottleneck).iter().enumerate().take(k) {
            rows.push(Row {
                name: format!("sym_{i}"),
                terms: vec![(x(u, i), 1.0)],
                sense: Sense::Eq,
                rhs: 1.0,
            });
        }
        rows.push(Row {
            name: "duration".to_string(),
            terms: (0..k).map(|c| (y(c), 1.0)).collect(),
            sense: Sense::Ge,
            rhs: lambda as f64,
        });
        Formulation {
            n,
            k,
            minimise,
            names,
            rows,
        }
    }

    /// Number of variables.
    pub fn num_vars(&self) -> usize {
        self.names.len()
    }

    /// Column of y[c].
    pub fn y(&self, c: usize) -> usize {
        self.n * self.k + c
    }
}
