//! Hostile input, round six: a tester's findings (explore4). Each test fails with the
//! binary of main before its fix (`LIQUID_TEST_BIN=/path/to/old/liquid cargo test --test
//! cli hostile6`) and passes after.

use crate::common::{liquid, refused};

/// `--jobs` of the sweeps that take it is 1 to 4096: 0 ran on the default, 100,000 ran
/// for minutes starting threads before any work.
#[test]
fn worker_counts_out_of_range_are_refused() {
    for sweep in [&["testbed", "t1"][..], &["study", "routing", "runs"][..]] {
        for jobs in ["0", "100000"] {
            let out = liquid()
                .args(sweep)
                .args(["--jobs", jobs, "--out", "unused"])
                .output()
                .expect("runs");
            refused(&out, &["--jobs", "is not in 1..=4096"]);
        }
    }
}
