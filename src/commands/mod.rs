//! One function per subcommand.

mod analyze;
mod expand;
mod generate;
mod solve;
mod teams;
mod testbed;
mod verify;

pub use analyze::analyze;
pub use expand::expand;
pub use generate::{generate, GenerateWhat};
pub use solve::{parse_seconds, solve, EngineName, SolveOptions};
pub use teams::teams;
pub use testbed::{merge as testbed_merge, parse_shard, testbed_t1, Shard};
pub use verify::verify;
