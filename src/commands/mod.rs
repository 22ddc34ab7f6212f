//! One function per subcommand.

mod analyze;
mod encode;
mod expand;
mod solve;
mod verify;

pub use analyze::analyze;
pub use encode::{encode, EncodeFormat};
pub use expand::expand;
pub use solve::{parse_seconds, solve, EngineName, SolveOptions};
pub use verify::verify;
