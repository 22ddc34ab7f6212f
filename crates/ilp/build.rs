//! Empty on purpose: cargo resolves a package's `[build-dependencies]` only when it has a
//! build script, and liquid-ilp's pin the host features that bindgen (HiGHS's bindings)
//! is built with, so that every cargo selection shares one build of HiGHS (Cargo.toml says
//! why).

fn main() {}
