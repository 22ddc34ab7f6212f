//! Every command of the README and of the guide (`docs/src/`) runs here, so that a
//! documented command cannot go stale:
//!
//! - ```` ```console ```` blocks are run by trycmd (the tool clap and cargo test their own
//!   documentation with) and their output compared: `[..]` stands for part of a line,
//!   `...` for lines (timings), `? N` for the exit code;
//! - every `liquid …` line of the ```` ```sh ```` blocks, which are too long to run in a
//!   test (benchmarks, streams of millions of transfers), has its arguments parsed by the
//!   real binary (`LIQUID_CHECK_ARGS=1`: clap's parse, then exit 0 without running), so a
//!   renamed or deleted option fails here too.
//!
//! The commands run in a scratch directory holding links to the repository's `models/`,
//! `tests/`, `crates/`, `benchmarks/` and `scripts/`, so what they write (proofs, plans,
//! schedules) lands there, not in the working tree. `TRYCMD=overwrite cargo test --test
//! docs` rewrites the outputs in place after an intended change: review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Markdown files whose commands are tested: README.md and every page of the guide.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A scratch directory with the repository's inputs linked in, made the current directory.
fn scratch() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    for name in ["models", "tests", "crates", "benchmarks", "scripts"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name))
            .expect("a symbolic link");
    }
    dir
}

#[test]
fn console_blocks_run_as_documented() {
    // Each document in a scratch directory of its own, one after the other: trycmd runs
    // the documents of one run in parallel, and two of them writing the same file (the
    // README and the guide both write odd-wheel.proof) would race.
    for doc in documents() {
        let dir = scratch();
        // trycmd runs a Markdown file's commands in the current directory.
        std::env::set_current_dir(dir.path()).expect("the scratch directory");
        let cases = trycmd::TestCases::new();
        cases.register_bin("liquid", Path::new(env!("CARGO_BIN_EXE_liquid")));
        cases.case(doc);
        cases.run();
    }
    // Out of the last scratch directory, which is gone.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("the repository");
}

/// The lines of the ```` ```sh ```` (`bash`, `shell`) blocks of a page, each with its
/// 1-based line number, leading blanks trimmed.
fn sh_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_sh = !in_sh && matches!(info.trim(), "sh" | "bash" | "shell");
        } else if in_sh {
            out.push((i + 1, trimmed));
        }
    }
    out
}

/// The `liquid …` command lines of a document's ```` ```sh ```` blocks, continuation lines
/// joined, comments and what follows a pipe or `;` dropped: (line number, arguments).
fn sh_commands(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (line, trimmed) in sh_lines(text) {
        let (start, mut joined) = match pending.take() {
            Some((n, s)) => (n, s + " " + trimmed),
            None => (line, trimmed.to_string()),
        };
        if let Some(rest) = joined.strip_suffix('\\') {
            pending = Some((start, rest.to_string()));
            continue;
        }
        // A comment starts at a `#` that begins a word.
        if let Some(p) = joined.find(" #") {
            joined.truncate(p);
        }
        for part in joined.split(['|', ';']).map(str::trim) {
            let part = part.strip_prefix("&& ").unwrap_or(part);
            if part.starts_with("liquid ") {
                let args = part
                    .split_whitespace()
                    .skip(1)
                    .map(|a| a.trim_matches(['"', '\'']).to_string())
                    .collect();
                out.push((start, args));
            }
        }
    }
    out
}

#[test]
fn sh_blocks_parse() {
    let bin = env!("CARGO_BIN_EXE_liquid");
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a readable document");
        for (line, args) in sh_commands(&text) {
            checked += 1;
            let out = Command::new(bin)
                .args(&args)
                .env("LIQUID_CHECK_ARGS", "1")
                .output()
                .expect("liquid runs");
            if !out.status.success() {
                failures.push(format!(
                    "{}:{line}: liquid {}\n{}",
                    doc.display(),
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(checked > 20, "only {checked} documented commands found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A sizes file names the hosts of the model it was generated for, so a documented
/// command that reads a sizes file a page generated (`liquid generate sizes SPEC ... --out
/// FILE`) must name that model: alltoallv.md once made `sizes.csv` for `fat-tree:4,3` and
/// gave it to `fat-tree:8,3` and `fat-tree:4,2`, which refuse it.
#[test]
fn documented_sizes_files_go_with_their_model() {
    // The model a command names: its first argument after the (sub)command words.
    fn model(args: &[String]) -> Option<&str> {
        let skip = match args.first().map(String::as_str) {
            Some("export" | "generate" | "import" | "study") => 2,
            _ => 1,
        };
        args.get(skip)
            .map(String::as_str)
            .filter(|a| !a.starts_with('-'))
    }
    fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
        let at = args.iter().position(|a| a == name)?;
        args.get(at + 1).map(String::as_str)
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a readable document");
        let mut made: std::collections::HashMap<String, String> = Default::default();
        for (line, args) in sh_commands(&text) {
            if args.len() > 1 && args[0] == "generate" && args[1] == "sizes" {
                if let (Some(m), Some(out)) = (model(&args), option(&args, "--out")) {
                    made.insert(out.to_string(), m.to_string());
                }
                continue;
            }
            let Some(file) = option(&args, "--sizes") else {
                continue;
            };
            let Some(for_model) = made.get(file) else {
                continue;
            };
            checked += 1;
            if model(&args) != Some(for_model.as_str()) {
                failures.push(format!(
                    "{}:{line}: liquid {}: {file} was generated for {for_model}",
                    doc.display(),
                    args.join(" ")
                ));
            }
        }
    }
    assert!(
        checked > 5,
        "only {checked} commands with a generated sizes file"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A model a documented command reads by a bare file name (`liquid solve fabric.yaml`) is
/// one the page has the reader write first (`--out fabric.yaml`, `>fabric.yaml`) in a
/// ```` ```sh ```` block: hard-liquid.md once ran `liquid solve queen12_12.yaml`, which
/// nothing made. Paths (`models/...`) name files of the repository, which the commands'
/// own tests read.
#[test]
fn documented_model_files_are_made_first() {
    fn bare_yaml(word: &str) -> bool {
        word.ends_with(".yaml")
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a readable document");
        // The files the sh blocks write, with the line that writes each.
        let mut written: Vec<(usize, String)> = Vec::new();
        for (line, trimmed) in sh_lines(&text) {
            let words: Vec<&str> = trimmed.split_whitespace().collect();
            for (k, w) in words.iter().enumerate() {
                let file = match *w {
                    "--out" | "--schedule-out" | ">" => words.get(k + 1).copied(),
                    _ => w.strip_prefix('>'),
                };
                if let Some(f) = file.filter(|f| bare_yaml(f)) {
                    written.push((line, f.to_string()));
                }
            }
        }
        for (line, args) in sh_commands(&text) {
            let Some(file) = args.get(1).filter(|a| bare_yaml(a)) else {
                continue;
            };
            checked += 1;
            if !written.iter().any(|(at, f)| *at < line && f == file) {
                failures.push(format!(
                    "{}:{line}: liquid {}: no block before it writes {file}",
                    doc.display(),
                    args.join(" ")
                ));
            }
        }
    }
    assert!(
        checked > 3,
        "only {checked} commands reading a written model"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn summary_lists_every_page() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    let linked: Vec<String> = summary
        .split("](")
        .skip(1)
        .filter_map(|s| s.split(')').next())
        .map(str::to_string)
        .collect();
    for page in &linked {
        assert!(
            src.join(page).is_file(),
            "SUMMARY.md links {page}, which is missing"
        );
    }
    for doc in documents().iter().filter(|d| d.starts_with(&src)) {
        let rel = doc.strip_prefix(&src).expect("under docs/src");
        let rel = rel.to_string_lossy();
        if rel != "SUMMARY.md" {
            assert!(
                linked.iter().any(|l| *l == rel),
                "docs/src/{rel} is not in SUMMARY.md"
            );
        }
    }
}

#[test]
fn relative_links_resolve() {
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a readable document");
        let base = doc.parent().expect("a folder");
        for piece in text.split("](").skip(1) {
            let Some(target) = piece.split(')').next() else {
                continue;
            };
            let target = target.split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.contains(' ') {
                continue;
            }
            if !base.join(target).exists() {
                broken.push(format!("{}: {target}", doc.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The guide and the README teach `verify MODEL --schedule FILE`, not the hidden
/// positional spelling `verify MODEL SCHEDULE` kept for one release (it would break when
/// that spelling is removed, and the parse check above accepts it).
#[test]
fn documented_verify_commands_use_the_schedule_option() {
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("a readable document");
        for (n, line) in text.lines().enumerate() {
            let Some(at) = line.find("liquid verify ") else {
                continue;
            };
            let mut words = line[at + "liquid verify ".len()..].split_whitespace();
            let _model = words.next();
            if let Some(second) = words.next() {
                assert!(
                    second.starts_with('-') || second.starts_with('`') || second == "|",
                    "{}:{}: `liquid verify MODEL {second}`: write --schedule {second}",
                    doc.display(),
                    n + 1
                );
            }
        }
    }
}
