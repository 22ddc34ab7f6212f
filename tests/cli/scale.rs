//! Issue 7 (scale): instances beyond an engine's memory are refused up front, exit 2.

use crate::common::liquid;

/// The 128-host fat-tree all-to-all with k = Λ = 127 is beyond the SAT encoding's limit:
/// `encode` and `solve --engine sat` say so before allocating it, with exit code 2.
#[test]
fn sat_encoding_too_large_is_refused_up_front() {
    for args in [
        vec!["encode", "fat-tree:8,3"],
        vec!["solve", "fat-tree:8,3", "--engine", "sat"],
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("beyond the limit"), "{args:?}: {err}");
        assert!(
            err.contains("too large for the SAT engine"),
            "{args:?}: {err}"
        );
    }
}

/// The 250-host fat-tree all-to-all (62,250 transfers, Λ = 249) is beyond the ILP model's
/// limit: `solve --engine ilp` (both modes) and `encode --format lp` refuse it up front,
/// before DSatur even runs, with exit code 2.
#[test]
fn ilp_model_too_large_is_refused_up_front() {
    for args in [
        vec!["solve", "fat-tree:10,3", "--engine", "ilp"],
        vec!["solve", "fat-tree:10,3", "--engine", "ilp", "--decide"],
        vec!["encode", "fat-tree:10,3", "--format", "lp"],
    ] {
        let out = liquid().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("too large for the ILP engine"),
            "{args:?}: {err}"
        );
    }
}
