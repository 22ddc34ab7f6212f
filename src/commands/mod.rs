//! One function per subcommand.

mod analyze;
mod broken;
mod crosscheck;
mod expand;
mod portfolio;
mod solve;
mod teams;
mod verify;

pub use analyze::analyze;
pub use crosscheck::{crosscheck, CrossFormat, DEFAULT_ENGINES};
pub use expand::expand;
pub use solve::{parse_seconds, solve, EngineName, SolveOptions};
pub use teams::teams;
pub use verify::verify;
