//! Helpers shared by the CLI tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (tests run the binary from there, so paths in output are stable).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `liquid` command, run from the repository root.
pub fn liquid() -> Command {
    let mut c = Command::new(insta_cmd::get_cargo_bin("liquid"));
    c.current_dir(root());
    c
}

/// Runs a command that must succeed, showing its stderr when it does not.
pub fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The model files in `models/` (schedule files, `*-schedule.yaml`, excluded), sorted.
pub fn models() -> Vec<String> {
    files_in("models", |name| !name.ends_with("-schedule.yaml"))
}

/// The `.yaml` files of a directory (relative to the root), sorted, filtered by name.
pub fn files_in(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
        .expect("directory exists")
        .map(|e| {
            e.expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".yaml") && keep(n))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    v.sort();
    v
}

/// The file stem, for snapshot names.
pub fn stem(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// `liquid expand MODEL` as (transfer id, links) pairs, in model order, read from the
/// explicit form's one-line flow mappings (quoted scalars unquoted).
pub fn expand(model: &str) -> Vec<(String, Vec<String>)> {
    let out = succeed(liquid().args(["expand", model]));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let unquote = |x: &str| x.trim_matches('"').to_string();
    text.lines()
        .filter_map(|l| l.strip_prefix("  - {id: "))
        .map(|l| {
            let id = unquote(l.split(',').next().expect("id"));
            let path = l
                .split("path: [")
                .nth(1)
                .expect("path")
                .trim_end_matches("]}");
            (id, path.split(", ").map(unquote).collect())
        })
        .collect()
}

/// Insta filters that redact timings (`time_s: 0.0012`, `"time_s": 1e-5`, `12.3 s`).
pub fn timing_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r#"("?time_s"?:\s*)[0-9.eE+-]+"#, "$1[time]"),
        (
            r"\b[0-9]+(\.[0-9]+)?(e-?[0-9]+)? ?(s|ms|µs)\b",
            "[duration]",
        ),
    ]
}

/// Snapshots a command's stdout, stderr and exit code with timings redacted.
#[macro_export]
macro_rules! snap {
    ($name:expr, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        for (re, rep) in $crate::common::timing_filters() {
            settings.add_filter(re, rep);
        }
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| {
            insta_cmd::assert_cmd_snapshot!($name, $cmd);
        });
    }};
}
