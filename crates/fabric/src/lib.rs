//! Reading real InfiniBand fabrics: what a cluster's subnet manager actually routes.
//!
//! - [`topology`]: `ibnetdiscover` output, the default form and the ports form (`-p`);
//! - [`lft`]: linear forwarding tables, as OpenSM dumps them (`opensm-lfts.dump`) and as
//!   `dump_fts` and `ibroute` print them;
//! - [`hosts`]: which hosts a model covers (Slurm hostlists, host files);
//! - [`import`]: follows every host pair's route hop by hop through the tables and builds
//!   a network-form model (switches, adapters, one directed link per port and direction,
//!   explicit routes), and checks it against `ibtracert` output;
//! - [`ibsim`]: the other way round, any network-form model as a net file for ibsim, so
//!   that a real OpenSM routes liquid's own networks.
//!
//! Every error names the file and line, and the switch and LID when there is one.
#![forbid(unsafe_code)]

pub mod hosts;
pub mod ibsim;
pub mod import;
pub mod lft;
pub mod topology;

use std::fmt;

/// An error in a fabric file (or a host list): where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FabricError {
    /// The file as the user named it (or `--hosts`, `SLURM_JOB_NODELIST`).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FabricError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl FabricError {
    /// An error at a line of a file.
    pub fn at(file: &str, line: usize, message: impl Into<String>) -> Self {
        FabricError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }

    /// An error about a whole file.
    pub fn file(file: &str, message: impl Into<String>) -> Self {
        FabricError {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }
}

/// Reads a file as text, with the file named in the error.
pub fn read(path: &std::path::Path) -> Result<String, FabricError> {
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| FabricError::file(&name, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        FabricError::at(
            &name,
            line,
            format!("not UTF-8 text (invalid byte at offset {at})"),
        )
    })
}

/// A GUID as InfiniBand tools print it: `0x` and 16 hex digits.
pub fn guid_str(guid: u64) -> String {
    format!("0x{guid:016x}")
}
