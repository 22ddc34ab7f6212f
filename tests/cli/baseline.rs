//! Solver-output baselines from the command line: `crosscheck --record`, `--baseline`,
//! `--update`, `--accept-improvements`, over a folder of models.

use std::path::Path;

use crate::common::{liquid, root};

fn crosscheck(dir: &Path, extra: &[&str]) -> (i32, String) {
    let out = liquid()
        .arg("crosscheck")
        .arg(dir.join("models"))
        .args(["--engines", "native,dsatur"])
        .args(extra)
        .output()
        .expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn record_change_compare_update_compare() {
    let dir = tempfile::tempdir().expect("temp dir");
    let models = dir.path().join("models");
    std::fs::create_dir(&models).expect("dir");
    for m in ["no-team.yaml", "paper-fig1-explicit.yaml"] {
        std::fs::copy(root().join("models").join(m), models.join(m)).expect("copy");
    }
    let base = dir.path().join("baseline.yaml");
    let b = base.to_str().expect("UTF-8");

    // Record: the answers of every engine on every model of the folder, no timings.
    let (code, out) = crosscheck(dir.path(), &["--record", b]);
    assert_eq!(code, 0, "{out}");
    let recorded = std::fs::read_to_string(&base).expect("baseline written");
    assert!(
        recorded.starts_with("format: liquid-baseline/1\n"),
        "{recorded}"
    );
    assert_eq!(recorded.matches("- model:").count(), 4, "{recorded}");
    assert!(!recorded.contains("time"), "no timings: {recorded}");
    let (code, out) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 regressions, 0 improvements"), "{out}");

    // A change that makes no-team liquid (x now uses all three links: Λ = 3, one per
    // frame) improves both engines' answers: exit 6, or 0 when improvements are accepted.
    let file = models.join("no-team.yaml");
    let original = std::fs::read_to_string(&file).expect("model");
    let changed = original.replacen("path: [a, b]", "path: [a, b, c]", 1);
    assert_ne!(changed, original, "the model has x on [a, b]");
    std::fs::write(&file, &changed).expect("write");
    let (code, out) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 6, "{out}");
    assert!(out.contains("0 regressions, 2 improvements"), "{out}");
    assert!(out.contains("improvement: no-team / native"), "{out}");
    assert!(
        out.contains("- non-liquid, length -, bound 3 (clique, checked)"),
        "{out}"
    );
    assert!(out.contains("+ liquid, length 3, bound 3"), "{out}");
    let (code, out) = crosscheck(dir.path(), &["--baseline", b, "--accept-improvements"]);
    assert_eq!(code, 0, "{out}");

    // Update, then a clean comparison.
    let (code, out) = crosscheck(dir.path(), &["--baseline", b, "--update"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(baseline updated)"), "{out}");
    let (code, out) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0, "{out}");

    // Going back is a regression for the native engine (no schedule any more): exit 5.
    std::fs::write(&file, &original).expect("write");
    let (code, out) = crosscheck(dir.path(), &["--baseline", b, "--accept-improvements"]);
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("regression: no-team / native"), "{out}");
}

#[test]
fn baseline_misuse_is_bad_input() {
    let (code, out) = crosscheck(Path::new("tests"), &["--update"]);
    assert_eq!(code, 2, "{out}");
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "format: something-else\nanswers: []\n").expect("write");
    let out = liquid()
        .args(["crosscheck", "models/no-team.yaml", "--baseline"])
        .arg(&bad)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.yaml:1:9: format"), "{err}");
}
