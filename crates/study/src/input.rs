//! Where a model comes from: a file, or a generated-model spec (`t1:4,4,4,4,0,0,2,1`,
//! `fat-tree:4,3`, `ring:6,2`, `mesh:3x3,1`, `torus:4x4,1`, `paper-fig1:`,
//! `two-clusters:20,40`, `multi-cluster:8,12x1+16x2+4x3`; see
//! [`liquid_topology::spec`]).

use std::path::Path;

use liquid_model::network::NetworkError;
use liquid_model::{BuildError, Traffic};
use liquid_topology::TopologyError;

use crate::StudyError;

/// Loads the traffic a model argument names: a generated-model spec when it starts with
/// one of the spec prefixes, otherwise a model file. A bad spec is an input error, like a
/// bad file.
pub fn load_traffic(arg: &Path) -> Result<Traffic, StudyError> {
    if let Some(s) = arg.to_str() {
        if liquid_topology::spec::is_spec(s) {
            // The traffic straight from the generator (fat-trees and multi-cluster systems
            // without their network form): what `parse(s)?.expand()` gives, in less memory.
            return liquid_topology::spec::traffic(s)
                .map_err(|e| match e {
                    // A spec whose pattern is empty is bad input, not a generator bug.
                    TopologyError::Network(NetworkError::Build(BuildError::Empty { .. })) => {
                        StudyError::Input(format!("generated model {s:?}: {e}"))
                    }
                    TopologyError::Network(e) => {
                        StudyError::Failed(format!("generated model {s:?} does not expand: {e}"))
                    }
                    e => StudyError::Input(e.to_string()),
                })?
                .ok_or_else(|| StudyError::Input(format!("{s:?} is not a generated-model spec")));
        }
    }
    no_misspelt_spec(arg)?;
    Ok(liquid_model::yaml::load_model(arg)?)
}

/// A model argument that is no file but reads as a spec of an unknown generator
/// (`fattree:4,3`) is an input error that says so and names the closest generator, rather
/// than "cannot read: No such file or directory".
pub(crate) fn no_misspelt_spec(arg: &Path) -> Result<(), StudyError> {
    let Some(s) = arg.to_str() else {
        return Ok(());
    };
    if arg.exists() {
        return Ok(());
    }
    match liquid_topology::spec::unknown_generator(s) {
        Some(why) => Err(StudyError::Input(format!("{s}: no such file, and {why}"))),
        None => Ok(()),
    }
}
