//! The one integration-test binary: runs the real `liquid` binary on `models/` and on the
//! fixtures under `tests/fixtures/`, with insta snapshots (timings redacted).

mod common;
mod foundation;
mod ilp;
