//! One function per subcommand.

mod analyze;
mod expand;
mod verify;

pub use analyze::analyze;
pub use expand::expand;
pub use verify::verify;
