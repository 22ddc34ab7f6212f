//! Where a model comes from: a file, or a generated-model spec (see
//! [`liquid_study::input`]). Every command that takes a model goes through here.

use std::path::Path;

use liquid_model::Traffic;

/// Loads the traffic a model argument names ([`liquid_study::input::load_traffic`]).
pub fn load_traffic(arg: &Path) -> anyhow::Result<Traffic> {
    Ok(liquid_study::input::load_traffic(arg)?)
}
