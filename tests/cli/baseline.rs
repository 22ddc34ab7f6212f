//! Solver-output baselines from the command line: `crosscheck --record`, `--baseline`,
//! `--update`, `--accept-improvements`, over a folder of models; a changed model told
//! from an engine that got worse.

use std::path::Path;

use crate::common::{liquid, root};

/// `liquid crosscheck DIR/models --engines native,dsatur EXTRA...`: exit code, stdout,
/// stderr.
fn crosscheck(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = liquid()
        .arg("crosscheck")
        .arg(dir.join("models"))
        .args(["--engines", "native,dsatur"])
        .args(extra)
        .output()
        .expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder `models` in a temporary directory with copies of these bundled models.
fn folder(models: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let into = dir.path().join("models");
    std::fs::create_dir(&into).expect("dir");
    for m in models {
        std::fs::copy(root().join("models").join(m), into.join(m)).expect("copy");
    }
    dir
}

/// The closing line of a table report.
fn last_line(out: &str) -> &str {
    out.trim_end().lines().last().unwrap_or_default()
}

#[test]
fn record_compare_update_compare() {
    let dir = folder(&["no-team.yaml", "paper-fig1-explicit.yaml"]);
    let base = dir.path().join("baseline.yaml");
    let b = base.to_str().expect("UTF-8");

    // Record: each model's file and digest, the answers of every engine on every model
    // of the folder, no timings.
    let (code, out, err) = crosscheck(dir.path(), &["--record", b]);
    assert_eq!(code, 0, "{out}{err}");
    let recorded = std::fs::read_to_string(&base).expect("baseline written");
    assert!(
        recorded.starts_with("format: liquid-baseline/2\nmodels:\n"),
        "{recorded}"
    );
    assert_eq!(
        recorded.matches("traffic_sha256: ").count(),
        2,
        "{recorded}"
    );
    assert_eq!(recorded.matches("  engine: ").count(), 4, "{recorded}");
    assert!(!recorded.contains("time"), "no timings: {recorded}");
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("0 models changed, 0 regressions, 0 improvements"),
        "{out}"
    );
    assert_eq!(
        last_line(&out),
        "all engines agree, and every answer matches the baseline"
    );

    // Update, then a clean comparison.
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", b, "--update"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("(baseline updated)"), "{out}");
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Issue 42 and issue 45 (11): the bundled folder has two files whose model is named
/// "paper-fig1"; answers are keyed by file, so the recording reads back.
#[test]
fn the_bundled_models_folder_records_and_compares_with_itself() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().join("baseline.yaml");
    let run = |flag: &str| {
        let out = liquid()
            .args(["crosscheck", "models", flag])
            .arg(&base)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, out) = run("--record");
    assert_eq!(code, Some(0), "{out}");
    let recorded = std::fs::read_to_string(&base).expect("written");
    assert!(
        recorded.matches("  name: paper-fig1\n").count() >= 2,
        "two files, one model name: {recorded}"
    );
    assert!(
        recorded.contains("- file: models/paper-fig1.yaml\n"),
        "{recorded}"
    );
    let (code, out) = run("--baseline");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("all engines agree, and every answer matches the baseline"),
        "{out}"
    );
}

/// A model edited between record and compare is a model change, with its file, and not
/// an engine regression or improvement; it fails the comparison (exit 1) whether
/// improvements are accepted or not, until the baseline is updated.
#[test]
fn a_model_changed_on_disk_is_reported_as_such() {
    let dir = folder(&["no-team.yaml", "paper-fig1-explicit.yaml"]);
    let base = dir.path().join("baseline.yaml");
    let b = base.to_str().expect("UTF-8");
    let (code, out, err) = crosscheck(dir.path(), &["--record", b]);
    assert_eq!(code, 0, "{out}{err}");

    // A comment and a re-formatting are no change of the traffic.
    let file = dir.path().join("models/no-team.yaml");
    let original = std::fs::read_to_string(&file).expect("model");
    std::fs::write(&file, format!("# a comment\n{original}\n\n")).expect("write");
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0, "{out}{err}");

    // x now uses all three links: Λ = 3, one transfer per frame, liquid.
    let changed = original.replacen("path: [a, b]", "path: [a, b, c]", 1);
    assert_ne!(changed, original, "the model has x on [a, b]");
    std::fs::write(&file, &changed).expect("write");
    for extra in [&[][..], &["--accept-improvements"][..]] {
        let args = [&["--baseline", b][..], extra].concat();
        let (code, out, err) = crosscheck(dir.path(), &args);
        assert_eq!(code, 1, "{out}{err}");
        assert!(
            out.contains("1 models changed, 0 regressions, 0 improvements"),
            "{out}"
        );
        let shown = format!("model changed: {}", file.display());
        assert!(out.contains(&shown), "{shown}: {out}");
        assert!(out.contains("model-changed: no-team ("), "{out}");
        assert!(!out.contains("regression:"), "{out}");
        assert!(!out.contains("all engines agree"), "{out}");
        assert_eq!(
            last_line(&out),
            format!(
                "no contradiction between engines, but 1 model changed since baseline {b} \
                 (record it again with --update)"
            )
        );
        assert!(
            err.contains("crosscheck: model changed (exit 1)"),
            "the kind on stderr: {err}"
        );
    }
    // The YAML report names the file and both digests.
    let (code, out, _) = crosscheck(dir.path(), &["--baseline", b, "--format", "yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("models_changed: 1"), "{out}");
    assert!(out.contains("recorded_sha256: "), "{out}");
    assert!(out.contains("change: model-changed"), "{out}");

    let (code, out, err) = crosscheck(dir.path(), &["--baseline", b, "--update"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0, "{out}{err}");
}

/// With the models unchanged, answers that got worse are regressions and better ones
/// improvements: here an engine run stopped at once (`--time-limit 0`) against a full
/// one, both ways.
#[test]
fn engine_regressions_and_improvements_on_unchanged_models() {
    let dir = folder(&["no-team.yaml"]);
    let full = dir.path().join("full.yaml");
    let stopped = dir.path().join("stopped.yaml");
    let (f, s) = (
        full.to_str().expect("UTF-8"),
        stopped.to_str().expect("UTF-8"),
    );
    let (code, out, err) = crosscheck(dir.path(), &["--record", f]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = crosscheck(dir.path(), &["--record", s, "--time-limit", "0"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_ne!(
        std::fs::read_to_string(&full).expect("full"),
        std::fs::read_to_string(&stopped).expect("stopped"),
        "a run stopped at once answers less"
    );

    // Worse than recorded: a regression (exit 1), and never "all engines agree".
    let (code, out, err) = crosscheck(
        dir.path(),
        &[
            "--baseline",
            f,
            "--time-limit",
            "0",
            "--accept-improvements",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("regression: no-team ("), "{out}");
    assert!(out.contains("0 models changed"), "{out}");
    assert!(!out.contains("all engines agree"), "{out}");
    assert!(
        last_line(&out).starts_with("no contradiction between engines, but ")
            && last_line(&out).contains("regressed against baseline"),
        "{out}"
    );
    assert!(err.contains("crosscheck: regression (exit 1)"), "{err}");

    // Better than recorded: improvements, exit 1 unless accepted.
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", s]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("improvement: no-team ("), "{out}");
    assert!(!out.contains("all engines agree"), "{out}");
    assert!(err.contains("crosscheck: improvement (exit 1)"), "{err}");
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", s, "--accept-improvements"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(last_line(&out).contains("accepted"), "{out}");

    // An engine recorded but not run now: a regression that says so.
    let out = liquid()
        .arg("crosscheck")
        .arg(dir.path().join("models"))
        .args(["--engines", "native", "--baseline", f])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("regression: no-team (")
            && text.contains("/ dsatur\n  - ")
            && text.contains("  + (not run: the model or the engine was not given)"),
        "{text}"
    );
}

#[test]
fn baseline_misuse_is_bad_input() {
    let out = liquid()
        .args(["crosscheck", "tests", "--update"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
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

    // One file given twice cannot be recorded (answers are keyed by file).
    let base = dir.path().join("b.yaml");
    let out = liquid()
        .args(["crosscheck", "models/no-team.yaml", "./models/no-team.yaml"])
        .args(["--engines", "dsatur", "--record"])
        .arg(&base)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("models/no-team.yaml is given twice"), "{err}");
    assert!(!base.exists(), "nothing recorded");
}

/// A baseline of the first format (answers keyed by model name, no digests) is refused
/// with what it lacks and the command that records it again.
#[test]
fn a_first_format_baseline_is_refused_with_how_to_record_it_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let old = dir.path().join("old.yaml");
    std::fs::write(
        &old,
        "format: liquid-baseline/1\nanswers:\n- model: no-team\n  engine: dsatur\n  \
         verdict: feasible\n  length: 3\n  lower_bound: 2\n  evidence: bottleneck\n  \
         strength: checked\n",
    )
    .expect("write");
    let out = liquid()
        .args(["crosscheck", "models/no-team.yaml", "--engines", "dsatur"])
        .arg("--baseline")
        .arg(&old)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("old.yaml:1:9: format: liquid-baseline/1"),
        "{err}"
    );
    assert!(err.contains("--record"), "{err}");
}

/// `--record` onto a model file inside a folder given is refused (exit 2) before anything
/// runs, and the model is left as it was; a new file in the folder is recorded. A model
/// given by its own path was refused, one inside a folder was overwritten by the baseline.
#[test]
fn record_refuses_a_model_file_inside_a_folder_given() {
    let dir = folder(&["no-team.yaml", "paper-fig1-explicit.yaml"]);
    let model = dir.path().join("models").join("no-team.yaml");
    let before = std::fs::read(&model).expect("model");
    let m = model.to_str().expect("UTF-8");
    let (code, out, err) = crosscheck(dir.path(), &["--record", m]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!(
            "--record {m}: this is a model file of the folder {}",
            dir.path().join("models").display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(&model).expect("model"), before);
    // A file of the folder that is no model yet: recorded (and skipped as a baseline by
    // the next run over the folder).
    let fresh = dir.path().join("models").join("baseline.yaml");
    let f = fresh.to_str().expect("UTF-8");
    let (code, out, err) = crosscheck(dir.path(), &["--record", f]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = crosscheck(dir.path(), &["--baseline", f]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("a baseline file, not a model: skipped"),
        "{err}"
    );
}
