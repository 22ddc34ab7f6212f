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
/// with the `hostlist-parser` crate. `source` names it in errors.
pub fn hostlist(source: &str, expr: &str) -> Result<Selection, FabricError> {
    let expr = expr.trim();
    if expr.is_empty() {
        return Err(FabricError::file(source, "the host list is empty"));
    }
    let names = hostlist_parser::parse(expr).map_err(|e| {
        FabricError::file(
            source,
            format!(
                "{expr:?} is not a Slurm hostlist (like n[001-016,020]): {}",
                e.to_string().replace('\n', " ").trim()
            ),
        )
    })?;
    if names.is_empty() {
        return Err(FabricError::file(source, "the host list names no host"));
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
