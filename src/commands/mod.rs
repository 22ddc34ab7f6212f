//! One function per subcommand.

mod analyze;
mod broken;
mod certify;
mod crosscheck;
mod encode;
mod expand;
mod generate;
mod portfolio;
mod proof;
mod solve;
mod teams;
mod verify;

pub use analyze::analyze;
pub use certify::certify;
pub use crosscheck::{crosscheck, CrossFormat, DEFAULT_ENGINES};
pub use encode::{encode, EncodeFormat};
pub use expand::expand;
pub use generate::{generate, GenerateWhat};
pub use proof::{check_proof, prove};
pub use solve::{parse_seconds, solve, EngineName, SolveOptions};
pub use teams::teams;
pub use verify::verify;
