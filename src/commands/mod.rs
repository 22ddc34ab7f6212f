//! One function per subcommand.

mod analyze;
mod expand;
mod generate;
mod solve;
mod teams;
mod verify;

pub use analyze::analyze;
pub use expand::expand;
pub use generate::{generate, GenerateWhat};
pub use solve::{parse_seconds, solve, EngineName, SolveOptions};
pub use teams::teams;
pub use verify::verify;
