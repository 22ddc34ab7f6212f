//! Which hosts a model covers: a Slurm hostlist (`n[001-016,020]`), a host file, or
//! `SLURM_JOB_NODELIST`.

use crate::FabricError;

/// Where the host selection came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every adapter of the fabric.
    All,
    /// Host names, in order, with where they came from (`--hosts`, a file, the
    /// environment variable) and, for a file, the line of each.
    Named {
        /// `--hosts`, `SLURM_JOB_NODELIST` or the host file's name.
        source: String,
        /// The names in order.
        names: Vec<String>,
        /// The line of each name in a host file (empty otherwise).
        lines: Vec<usize>,
    },
}

/// Expands a Slurm hostlist expression (`n[001-016,020]`, `a1,b[1-3]`, `r[1-2]-n[01-04]`)
/// with the `hostlist-parser` crate. `source` names it in errors. As in Slurm, whitespace
/// outside brackets separates hosts like a comma (`n1 n2`, or one name a line as
/// `scontrol show hostnames` prints them); inside brackets it is ignored (`n[1 - 3]`). A
/// host named twice (`n[1-2],n1`) is an error.
pub fn hostlist(source: &str, expr: &str) -> Result<Selection, FabricError> {
    let original = expr.trim();
    if original.is_empty() {
        return Err(FabricError::file(source, "the host list is empty"));
    }
    let separated = whitespace_as_commas(original);
    let expr = separated.as_str();
    if let Some(range) = backward_range(expr) {
        return Err(FabricError::file(
            source,
            format!(
                "the range {range:?} in {original:?} runs backwards: write it from low to high \
                 (as Slurm requires)"
            ),
        ));
    }
    let names = hostlist_parser::parse(expr).map_err(|e| {
        FabricError::file(
            source,
            format!(
                "{original:?} is not a Slurm hostlist (like n[001-016,020]): {}",
                e.to_string().replace('\n', " ").trim()
            ),
        )
    })?;
    if names.is_empty() {
        return Err(FabricError::file(source, "the host list names no host"));
    }
    // A host named twice (`n[1-2],n1`, `n[1-3,2]`) is bad input, as in a host file. The
    // hostlist crate merges repeats silently, so each alternative (one range per bracket)
    // is expanded on its own and the expansions are compared.
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for alt in alternatives(expr) {
        let Ok(part) = hostlist_parser::parse(&alt) else {
            continue;
        };
        for n in part {
            if !seen.insert(n.clone()) {
                return Err(FabricError::file(
                    source,
                    format!("host {n:?} is named twice in {original:?}"),
                ));
            }
        }
    }
    Ok(Selection::Named {
        source: source.to_string(),
        names,
        lines: Vec::new(),
    })
}

/// Reads a host file: one host per line, its first word (`n001`, `n001 slots=4`, as Open
/// MPI's and MPICH's host files have it); blank lines and `#` comments are skipped. A
/// host named twice is an error.
pub fn hostfile(file: &str, text: &str) -> Result<Selection, FabricError> {
    let mut names: Vec<String> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let body = line.split('#').next().unwrap_or("").trim();
        let Some(word) = body.split_whitespace().next() else {
            continue;
        };
        let word = word.split(':').next().unwrap_or(word);
        if let Some(&first) = seen.get(word) {
            return Err(FabricError::at(
                file,
                n,
                format!("host {word:?} is named twice (first at line {first})"),
            ));
        }
        seen.insert(word.to_string(), n);
        names.push(word.to_string());
        lines.push(n);
    }
    if names.is_empty() {
        return Err(FabricError::file(file, "the host file names no host"));
    }
    Ok(Selection::Named {
        source: file.to_string(),
        names,
        lines,
    })
}

/// A hostlist with each run of whitespace outside brackets turned into a comma, as Slurm
/// reads it: `n1 n2` and `n1\nn2` are `n1,n2`; whitespace next to a comma (`n1, n2`) is
/// dropped, and whitespace inside brackets (`n[1 - 3]`) is kept for the parser, which
/// ignores it. `expr` is trimmed.
fn whitespace_as_commas(expr: &str) -> String {
    let mut out = String::with_capacity(expr.len());
    let mut depth = 0usize;
    let mut gap = false;
    for c in expr.chars() {
        if depth == 0 && c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && c != ',' && !out.is_empty() && !out.ends_with(',') {
            out.push(',');
        }
        gap = false;
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The alternatives of a hostlist expression, each with one range per bracket:
/// `a[1-2,5],b` gives `a[1-2]`, `a[5]`, `b`. Commas outside brackets separate terms; within
/// a bracket, ranges. Together they name the same hosts as the expression, each host as
/// often as the expression names it.
fn alternatives(expr: &str) -> Vec<String> {
    // Terms: split at commas outside brackets.
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in expr.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(&expr[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&expr[start..]);
    let mut out = Vec::new();
    for term in terms {
        // Pieces: literal text and bracket contents, each bracket's ranges as choices.
        let mut partial = vec![String::new()];
        let mut rest = term;
        while let Some(open) = rest.find('[') {
            let Some(close) = rest[open..].find(']').map(|c| open + c) else {
                break;
            };
            let literal = &rest[..open];
            let choices: Vec<&str> = rest[open + 1..close].split(',').collect();
            let mut next = Vec::with_capacity(partial.len() * choices.len());
            for p in &partial {
                for c in &choices {
                    next.push(format!("{p}{literal}[{}]", c.trim()));
                }
            }
            partial = next;
            rest = &rest[close + 1..];
        }
        out.extend(partial.into_iter().map(|p| p + rest));
    }
    out
}

/// The first range `hi-lo` with hi > lo inside brackets (`n[004-001]`), which Slurm
/// refuses and the hostlist crate would read as `lo-hi`.
fn backward_range(expr: &str) -> Option<String> {
    let mut rest = expr;
    while let Some(open) = rest.find('[') {
        let close = open + rest[open..].find(']')?;
        for part in rest[open + 1..close].split(',') {
            if let Some((lo, hi)) = part.split_once('-') {
                let (lo, hi) = (lo.trim(), hi.trim());
                if let (Ok(l), Ok(h)) = (lo.parse::<u64>(), hi.parse::<u64>()) {
                    if l > h {
                        return Some(format!("{lo}-{hi}"));
                    }
                }
            }
        }
        rest = &rest[close + 1..];
    }
    None
}
