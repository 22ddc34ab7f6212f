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
