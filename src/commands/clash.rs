//! One check for every command that writes files: an output file given by the user must
//! not be one of the files the command reads (nor another output of the same run), which
//! it would overwrite (`solve a.yaml --schedule-out a.yaml` replaced the model by its
//! schedule).

use std::path::Path;

use crate::InputError;

/// Whether `a` and `b` name the same existing file (the same device and inode on Unix,
/// the same canonical path elsewhere); false when either does not exist.
fn same_existing_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// Where a file that may not exist yet would be: its folder made canonical, then its
/// name (None when the folder does not exist either).
fn would_be(p: &Path) -> Option<std::path::PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
}

/// Refuses (an input error, exit 2) an output file that is one of the inputs, or two
/// outputs that are the same file. `outputs` are (option, file) pairs such as
/// `("--schedule-out", path)`; `inputs` are (what, file) pairs such as
/// `("the model file", path)`; a generated-model spec, which names no file, never
/// clashes. A file rewritten on purpose (`crosscheck --baseline B --update`) is not
/// listed as an output.
pub fn refuse_overwriting_inputs(
    outputs: &[(&str, Option<&Path>)],
    inputs: &[(&str, Option<&Path>)],
) -> Result<(), InputError> {
    let outputs: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|(o, p)| p.map(|p| (*o, p)))
        .collect();
    for (i, (option, out)) in outputs.iter().enumerate() {
        for (what, input) in inputs.iter().filter_map(|(w, p)| p.map(|p| (*w, p))) {
            if same_existing_file(out, input) {
                return Err(InputError(format!(
                    "{option} {}: this is {what} ({}), which liquid reads: writing there \
                     would overwrite it; give another file",
                    out.display(),
                    input.display()
                )));
            }
        }
        for (other, out2) in &outputs[..i] {
            if same_existing_file(out, out2)
                || matches!((would_be(out), would_be(out2)), (Some(x), Some(y)) if x == y)
            {
                return Err(InputError(format!(
                    "{option} {} and {other} {} are the same file: one would overwrite the \
                     other; give two files",
                    out.display(),
                    out2.display()
                )));
            }
        }
    }
    Ok(())
}
