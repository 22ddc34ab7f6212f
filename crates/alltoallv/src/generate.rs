//! Seeded skewed message sizes for studies (`liquid generate sizes`): every sending host
//! spreads `bytes_per_rank` over the destinations the traffic gives it, by weights that a
//! [`Dist`] draws. Every pair gets 1 byte first (a pair of the traffic always carries a
//! message), the rest by the weights, rounded to whole bytes by largest remainder, so
//! that each sender sends exactly `bytes_per_rank` in all; a sender with more
//! destinations than bytes sends 1 byte to each ([`Generated::short`]).

use liquid_model::rng::SplitMix64;
use liquid_model::Traffic;

use crate::sizes::pairs;

/// How the bytes of a rank are spread over its destinations.
#[derive(Debug, Clone, PartialEq)]
pub enum Dist {
    /// Every destination the same share.
    Equal,
    /// Each pair's weight drawn uniformly from (0, 1] (seeded).
    Uniform,
    /// Zipf over destinations ("hot experts"): the hosts are ranked by a seeded random
    /// permutation (one popularity order shared by all senders) and the destination of
    /// popularity rank r (1 = hottest) weighs 1 / r^s.
    Zipf(f64),
    /// One hot expert: every sender sends 1 byte to each destination and the rest of its
    /// bytes to its most popular one (the seeded popularity order of [`Dist::Zipf`]).
    OneHot,
    /// A given rank-by-rank matrix: `matrix[i][j]` bytes from host i to host j (hosts in
    /// [`crate::sizes::hosts`] order); `bytes_per_rank` is not used.
    Matrix(Matrix),
}

/// A rank-by-rank matrix of bytes, and where its rows are written (for messages).
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// `rows[i][j]`: bytes from host i to host j.
    pub rows: Vec<Vec<u64>>,
    /// The file the rows were read from, as messages name it.
    pub file: String,
    /// The line (1-based) of each row in the file.
    pub lines: Vec<usize>,
}

impl From<Vec<Vec<u64>>> for Matrix {
    /// Rows given in code: file `matrix`, row i on line i + 1.
    fn from(rows: Vec<Vec<u64>>) -> Self {
        let lines = (1..=rows.len()).collect();
        Matrix {
            rows,
            file: "matrix".into(),
            lines,
        }
    }
}

impl Matrix {
    /// `file:line: row r column c: ` for a message about row `a`, column `b` (0-based).
    fn at(&self, a: usize, b: usize) -> String {
        format!(
            "{}:{}: row {} column {}: ",
            self.file,
            self.lines[a],
            a + 1,
            b + 1
        )
    }
}

/// Why sizes could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    /// A parameter or the matrix does not fit the traffic.
    #[error("{0}")]
    Input(String),
}

/// The popularity order of the hosts: a seeded permutation (Fisher-Yates).
fn popularity(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = SplitMix64(seed);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    // rank[h] = popularity rank of host h, 1-based.
    let mut rank = vec![0; n];
    for (r, &h) in order.iter().enumerate() {
        rank[h] = r + 1;
    }
    rank
}

/// Generated sizes, with what the 1-byte minimum changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The bytes of every transfer, in model order.
    pub bytes: Vec<u64>,
    /// Senders with more destinations than the bytes per rank asked for: each sends 1
    /// byte to each destination, more than asked (every other sender sends exactly it).
    pub short: usize,
}

/// The bytes of every transfer of `traffic` (model order). Transfers without both end
/// hosts cannot be given a sender's share: an error.
pub fn generate(
    traffic: &Traffic,
    dist: &Dist,
    bytes_per_rank: u64,
    seed: u64,
) -> Result<Generated, GenerateError> {
    let (hosts, pairs) = pairs(traffic);
    let paired: usize = pairs.values().map(Vec::len).sum();
    if paired != traffic.len() {
        return Err(GenerateError::Input(format!(
            "model {:?} has transfers without a sending and a receiving host: sizes per pair \
             need both",
            traffic.name()
        )));
    }
    let n = hosts.len();
    if let Dist::Zipf(s) = dist {
        if !(s.is_finite() && *s >= 0.0) {
            return Err(GenerateError::Input(format!(
                "zipf exponent {s}: give a finite s >= 0"
            )));
        }
    }
    if let Dist::Matrix(matrix) = dist {
        let m = &matrix.rows;
        let shape = format!(
            "the matrix must be {n} x {n} (the hosts of model {:?})",
            traffic.name()
        );
        // The first row of another length, or the first row too many: its line.
        if let Some(a) = m.iter().position(|r| r.len() != n) {
            return Err(GenerateError::Input(format!(
                "{}:{}: row {}: {shape}: this row has {} columns",
                matrix.file,
                matrix.lines[a],
                a + 1,
                m[a].len()
            )));
        }
        if m.len() > n {
            return Err(GenerateError::Input(format!(
                "{}:{}: row {}: {shape}: this row is one too many",
                matrix.file,
                matrix.lines[n],
                n + 1
            )));
        }
        if m.len() < n {
            return Err(GenerateError::Input(format!(
                "{}: {shape}, not {} rows",
                matrix.file,
                m.len()
            )));
        }
    } else if bytes_per_rank == 0 {
        return Err(GenerateError::Input(
            "bytes per rank must be at least 1".into(),
        ));
    }
    if let Dist::Matrix(matrix) = dist {
        let m = &matrix.rows;
        // An entry for a pair that is no transfer of the model (the diagonal of an
        // all-to-all without self-transfers) would be dropped: it must be 0.
        for (a, row) in m.iter().enumerate() {
            for (b, &v) in row.iter().enumerate() {
                if v != 0 && !pairs.contains_key(&(a as u32, b as u32)) {
                    let what = if a == b {
                        format!(
                            "{} does not send to itself in model {:?}",
                            hosts[a],
                            traffic.name()
                        )
                    } else {
                        format!(
                            "{} -> {} is not a transfer of model {:?}",
                            hosts[a],
                            hosts[b],
                            traffic.name()
                        )
                    };
                    return Err(GenerateError::Input(format!(
                        "{}{v} bytes, but {what}: give 0 there",
                        matrix.at(a, b)
                    )));
                }
            }
        }
    }
    let rank = popularity(n, seed);
    let mut rng = SplitMix64(seed ^ 0x5EED_5EED_5EED_5EED);
    let mut out = vec![0u64; traffic.len()];
    let mut short = 0;
    // Per sender, its transfers in model order.
    let mut by_sender: Vec<Vec<(usize, liquid_model::TransferId)>> = vec![Vec::new(); n];
    let mut keys: Vec<&(u32, u32)> = pairs.keys().collect();
    keys.sort();
    for &&(a, b) in &keys {
        for &t in &pairs[&(a, b)] {
            by_sender[a as usize].push((b as usize, t));
        }
    }
    for (a, dests) in by_sender.iter_mut().enumerate() {
        dests.sort_by_key(|&(_, t)| t);
        if let Dist::Matrix(matrix) = dist {
            for &(b, t) in dests.iter() {
                let v = matrix.rows[a][b];
                if v == 0 {
                    return Err(GenerateError::Input(format!(
                        "{}0 bytes from {} to {}, a transfer of the model: every message \
                         has at least 1 byte",
                        matrix.at(a, b),
                        hosts[a],
                        hosts[b]
                    )));
                }
                out[t.index()] = v;
            }
            continue;
        }
        let weights: Vec<f64> = match dist {
            Dist::Equal => vec![1.0; dests.len()],
            Dist::Uniform => dests
                .iter()
                .map(|_| ((rng.next() >> 11) as f64 + 1.0) / (1u64 << 53) as f64)
                .collect(),
            // r^-s relative to the sender's hottest destination, in log space: 1/r^s
            // underflows to 0 for every r from s ≈ 1100 up, which left a sender whose
            // hottest host is itself with no weight at all.
            Dist::Zipf(s) => {
                let top = dests.iter().map(|&(b, _)| rank[b]).min().unwrap_or(1) as f64;
                dests
                    .iter()
                    .map(|&(b, _)| (-s * ((rank[b] as f64).ln() - top.ln())).exp())
                    .collect()
            }
            Dist::OneHot => {
                let hot = dests.iter().map(|&(b, _)| rank[b]).min().unwrap_or(0);
                dests
                    .iter()
                    .map(|&(b, _)| if rank[b] == hot { 1.0 } else { 0.0 })
                    .collect()
            }
            Dist::Matrix(_) => unreachable!("handled above"),
        };
        let shares = spread(bytes_per_rank, &weights);
        short += usize::from(bytes_per_rank < dests.len() as u64);
        for (&(_, t), b) in dests.iter().zip(shares) {
            out[t.index()] = b;
        }
    }
    Ok(Generated { bytes: out, short })
}

/// `total` bytes over destinations of these weights (at least one above 0): 1 byte each,
/// the rest in proportion to the weights, rounded down, and the bytes rounding lost one
/// each to the largest remainders (the first destinations on ties); exactly `total` in
/// all when `total` is at least the number of destinations, else 1 byte each.
fn spread(total: u64, weights: &[f64]) -> Vec<u64> {
    let n = weights.len() as u64;
    let rest = total.saturating_sub(n);
    let sum: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| rest as f64 * w / sum).collect();
    let mut out: Vec<u64> = exact.iter().map(|x| 1 + x.floor() as u64).collect();
    let given: u64 = out.iter().sum::<u64>() - n;
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let frac = |i: usize| exact[i] - exact[i].floor();
        frac(b).total_cmp(&frac(a)).then(a.cmp(&b))
    });
    for &i in order.iter().take(rest.saturating_sub(given) as usize) {
        out[i] += 1;
    }
    out
}

/// Reads a rank-by-rank matrix: one row per line (sender), whole bytes separated by
/// commas or white space; empty lines and `#` comments skipped.
pub fn parse_matrix(file: &str, text: &str) -> Result<Matrix, liquid_model::yaml::LoadError> {
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let mut row = Vec::new();
        for (i, f) in l
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .enumerate()
        {
            let v: u64 = f.parse().map_err(|_| liquid_model::yaml::LoadError {
                file: file.to_string(),
                line: Some(n + 1),
                column: None,
                field: Some(format!("column {}", i + 1)),
                message: format!("{f:?} is not a whole number of bytes"),
            })?;
            if v > crate::sizes::MAX_BYTES {
                return Err(liquid_model::yaml::LoadError {
                    file: file.to_string(),
                    line: Some(n + 1),
                    column: None,
                    field: Some(format!("column {}", i + 1)),
                    message: crate::sizes::too_large(f),
                });
            }
            row.push(v);
        }
        rows.push(row);
        lines.push(n + 1);
    }
    Ok(Matrix {
        rows,
        file: file.to_string(),
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ft() -> Traffic {
        liquid_topology::spec::traffic("fat-tree:4,2")
            .expect("spec")
            .expect("a spec")
    }

    fn per_sender(t: &Traffic, b: &[u64], host: &str) -> Vec<u64> {
        t.transfers()
            .iter()
            .zip(b)
            .filter(|(x, _)| x.from.as_deref() == Some(host))
            .map(|(_, &v)| v)
            .collect()
    }

    #[test]
    fn seeded_deterministic_and_each_rank_sends_about_its_bytes() {
        let t = ft();
        for d in [
            Dist::Equal,
            Dist::Uniform,
            Dist::Zipf(1.0),
            Dist::Zipf(1.5),
            Dist::OneHot,
        ] {
            let g = generate(&t, &d, 1 << 20, 7).expect("generates");
            assert_eq!(g, generate(&t, &d, 1 << 20, 7).expect("generates"), "{d:?}");
            assert_eq!(g.short, 0, "{d:?}");
            let a = g.bytes;
            assert!(a.iter().all(|&b| b >= 1));
            for h in ["p0", "p5"] {
                let s: u64 = per_sender(&t, &a, h).iter().sum();
                assert_eq!(s, 1 << 20, "{d:?} {h}: each rank sends exactly its bytes");
            }
        }
        assert_eq!(
            generate(&t, &Dist::Equal, 7000, 0).expect("ok").bytes[0],
            1000
        );
        // 5 bytes over 7 destinations: 1 byte each, more than asked, for all 8 senders.
        let small = generate(&t, &Dist::Equal, 5, 0).expect("ok");
        assert_eq!((small.short, small.bytes[0]), (8, 1));
        // Exactly the bytes asked for, down to one per destination, for every law: one
        // hot expert's 1 byte to each cold one included, and Zipf at an exponent whose
        // 1/r^s underflows (a sender whose hottest host is itself kept no weight).
        for d in [Dist::OneHot, Dist::Zipf(2000.0), Dist::Uniform, Dist::Equal] {
            for bytes in [7, 10, 1000] {
                let g = generate(&t, &d, bytes, 3).expect("ok");
                assert_eq!(g.short, 0);
                for h in ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"] {
                    let s: u64 = per_sender(&t, &g.bytes, h).iter().sum();
                    assert_eq!(s, bytes, "{d:?} {bytes} {h}");
                }
            }
        }
    }

    #[test]
    fn zipf_is_skewed_one_hot_is_one_destination() {
        let t = ft();
        let z = generate(&t, &Dist::Zipf(1.5), 1 << 20, 3)
            .expect("ok")
            .bytes;
        let p0 = per_sender(&t, &z, "p0");
        let (max, min) = (p0.iter().max().copied(), p0.iter().min().copied());
        // The hottest of 7 destinations against the coldest: at least (7/1)^1.5 / (8/7 ...)
        assert!(max.zip(min).is_some_and(|(a, b)| a > 10 * b), "{p0:?}");
        let o = generate(&t, &Dist::OneHot, 1 << 20, 3).expect("ok").bytes;
        let p0 = per_sender(&t, &o, "p0");
        assert_eq!(p0.iter().filter(|&&b| b > 1).count(), 1, "{p0:?}");
        // One hot expert for everyone but itself: the receivers of big messages are at most two.
        let mut hot: Vec<&str> = t
            .transfers()
            .iter()
            .zip(&o)
            .filter(|(_, &b)| b > 1)
            .filter_map(|(x, _)| x.to.as_deref())
            .collect();
        hot.sort();
        hot.dedup();
        assert!(hot.len() <= 2, "{hot:?}");
    }

    #[test]
    fn matrix_checked_against_the_hosts() {
        let t = ft();
        // The diagonal 0: fat-tree:4,2's all-to-all has no self-transfers.
        let m: Vec<Vec<u64>> = (0..8)
            .map(|i| {
                (0..8)
                    .map(|j| if i == j { 0 } else { 10 * i + j + 1 })
                    .collect()
            })
            .collect();
        let b = generate(&t, &Dist::Matrix(m.clone().into()), 0, 0)
            .expect("ok")
            .bytes;
        let mut d = m.clone();
        d[2][2] = 5;
        let e = generate(&t, &Dist::Matrix(d.into()), 0, 0).expect_err("diagonal");
        assert_eq!(
            e.to_string(),
            "matrix:3: row 3 column 3: 5 bytes, but p2 does not send to itself in model \
             \"fat-tree-4-2\": give 0 there"
        );
        let x = t.find_transfer("p2->p5").expect("transfer");
        assert_eq!(b[x.index()], 26);
        let e = generate(&t, &Dist::Matrix(m[..7].to_vec().into()), 0, 0).expect_err("7 rows");
        assert!(e.to_string().contains("must be 8 x 8"), "{e}");
        let mut z = m;
        z[1][3] = 0;
        let e = generate(&t, &Dist::Matrix(z.into()), 0, 0).expect_err("zero");
        assert!(
            e.to_string()
                .contains("row 2 column 4: 0 bytes from p1 to p3"),
            "{e}"
        );
        let parsed = parse_matrix("m.txt", "# m\n1 2,3\n\n4 5 6\n").expect("parses");
        assert_eq!(parsed.lines, vec![2, 4]);
        let rows = parsed.rows;
        assert_eq!(rows, vec![vec![1, 2, 3], vec![4, 5, 6]]);
        // Through a file, as liquid reads it: `read_text` drops the byte order mark.
        let dir = std::env::temp_dir().join(format!("liquid-matrix-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("m.csv");
        std::fs::write(&path, "\u{feff}1,2,3\r\n4,5,6\r\n").expect("write");
        let text = liquid_model::yaml::read_text(&path).expect("reads");
        std::fs::remove_dir_all(&dir).ok();
        let bom = parse_matrix("m.csv", &text).expect("parses").rows;
        assert_eq!(bom, rows);
        let e = parse_matrix("m.txt", "1 2\n3 x\n").expect_err("bad");
        assert_eq!(
            e.to_string(),
            "m.txt:2: column 2: \"x\" is not a whole number of bytes"
        );
        let e = parse_matrix("m.txt", "0 9007199254740993\n").expect_err("above 2^53");
        assert!(
            e.to_string()
                .starts_with("m.txt:1: column 2: 9007199254740993 bytes is more than"),
            "{e}"
        );
    }
}
