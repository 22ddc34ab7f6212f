//! Output directories (`--out DIR` of `export mpi`, `export simgrid` and the studies):
//! a run writes into a new or empty directory, or into one that liquid wrote before. In
//! the latter it first removes what the earlier run wrote, and only that, so no stale
//! file of an earlier run (the `rank-9.txt` of a larger plan) survives beside the new
//! ones, and no file of the user's is ever removed.
//!
//! What a run wrote is listed in the directory's [`LIST`] file, one name a line under a
//! `liquid-output 1` header. A directory holding anything not listed there is refused,
//! naming the file. While a run writes, the list says `unfinished` (everything then in
//! the directory is the run's own: it was empty or cleared when the run began), so a run
//! that was stopped half-way is cleared by the next one too.
//!
//! Proof directories follow their own rule (`liquid_proof`: only their three files), and
//! shard folders theirs (several shards of one run write into one folder, each its own
//! file).

use std::path::{Path, PathBuf};

use crate::StudyError;

/// The file that lists what liquid wrote into an output directory.
pub const LIST: &str = ".liquid-output";

const HEADER: &str = "liquid-output 1";
const UNFINISHED: &str = "unfinished";

/// `out/name` for a file a shard names by `field` (the Markdown report's): shards are not
/// trusted, so `name` must be a bare file name, never a path that would write outside
/// `out` (an absolute path, `..`, a folder).
pub(crate) fn shard_file_in(out: &Path, field: &str, name: &str) -> Result<PathBuf, StudyError> {
    let mut parts = Path::new(name).components();
    match (parts.next(), parts.next()) {
        (Some(std::path::Component::Normal(n)), None) if n == name => Ok(out.join(name)),
        _ => Err(StudyError::Input(format!(
            "params.{field}: {name:?} is not a file name (a shard names the file it writes \
             into the merge's --out, without a folder)"
        ))),
    }
}

/// Refuses a Markdown report (`--markdown`) that would overwrite a file the run itself
/// wrote (`latency-…csv`, `two-clusters.csv`): the report is written last, over the data.
pub(crate) fn not_a_written_file(markdown: &Path, written: &[PathBuf]) -> Result<(), StudyError> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let md = abs(markdown);
    match written.iter().find(|w| abs(w) == md) {
        Some(w) => Err(StudyError::Input(format!(
            "--markdown {}: a file of the study's own output ({}), which the report would \
             overwrite: give the report another name",
            markdown.display(),
            w.display()
        ))),
        None => Ok(()),
    }
}

/// An output directory prepared by [`prepare`]: empty but for its list, which says
/// `unfinished` until [`OutputDir::finish`].
#[derive(Debug)]
pub struct OutputDir {
    path: PathBuf,
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> StudyError + 'a {
    move |source| StudyError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// What the list in `dir` allows to be removed: `None` without a list; all entries
/// (`Some(None)`) for an unfinished run's; else the names listed.
fn listed(dir: &Path) -> Result<Option<Option<Vec<String>>>, StudyError> {
    let path = dir.join(LIST);
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("read", &path)(e)),
    };
    let text = String::from_utf8(text).map_err(|_| {
        StudyError::Input(format!(
            "{}: not a list of liquid's output (not text)",
            path.display()
        ))
    })?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(StudyError::Input(format!(
            "{}: not a list of liquid's output (its first line is not {HEADER:?})",
            path.display()
        )));
    }
    let names: Vec<String> = lines.map(str::to_string).collect();
    if names.first().map(String::as_str) == Some(UNFINISHED) {
        return Ok(Some(None));
    }
    Ok(Some(Some(names)))
}

/// Makes `dir` ready for a run's output: creates it if needed; refuses it when it holds
/// a file that no earlier liquid run wrote there (see the module documentation), naming
/// the file; otherwise removes the earlier run's files and marks the directory as being
/// written.
pub fn prepare(dir: &Path) -> Result<OutputDir, StudyError> {
    if dir.exists() && !dir.is_dir() {
        return Err(StudyError::Input(format!(
            "{}: not a directory (an output directory is a new or empty directory, or one \
             liquid wrote)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let mut entries: Vec<(String, bool)> = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io("read", dir))? {
        let e = e.map_err(io("read", dir))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name != LIST {
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            entries.push((name, is_dir));
        }
    }
    entries.sort();
    let allowed = listed(dir)?;
    for (name, _) in &entries {
        let ours = match &allowed {
            None => false,
            Some(None) => true,
            Some(Some(names)) => names.iter().any(|n| n == name),
        };
        if !ours {
            return Err(StudyError::Input(format!(
                "{}: the directory holds {name:?}, which liquid did not write there: an output \
                 goes into a new or empty directory, or one liquid wrote (whose files, listed \
                 in its {LIST}, are replaced); move {name:?} away or choose another directory",
                dir.display()
            )));
        }
    }
    for (name, is_dir) in &entries {
        let path = dir.join(name);
        if *is_dir {
            std::fs::remove_dir_all(&path).map_err(io("remove", &path))?;
        } else {
            std::fs::remove_file(&path).map_err(io("remove", &path))?;
        }
    }
    let list = dir.join(LIST);
    std::fs::write(&list, format!("{HEADER}\n{UNFINISHED}\n")).map_err(io("write", &list))?;
    Ok(OutputDir {
        path: dir.to_path_buf(),
    })
}

/// The output directory of a sweep's run: with `shard`, a shard folder, which several
/// shards of one run share, each writing its own file (`None`: only created); otherwise,
/// for a whole run or a merge, `dir` made ready by [`prepare`], to be
/// [finished](OutputDir::finish) once everything is written.
pub(crate) fn for_sweep(dir: &Path, shard: bool) -> Result<Option<OutputDir>, StudyError> {
    if shard {
        crate::create_dir(dir)?;
        Ok(None)
    } else {
        prepare(dir).map(Some)
    }
}

impl OutputDir {
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lists what the run wrote (everything now in the directory: it was empty when the
    /// run began) in the directory's [`LIST`].
    pub fn finish(self) -> Result<(), StudyError> {
        let dir = &self.path;
        let mut names: Vec<String> = Vec::new();
        for e in std::fs::read_dir(dir).map_err(io("read", dir))? {
            let e = e.map_err(io("read", dir))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name != LIST {
                names.push(name);
            }
        }
        names.sort();
        let mut text = format!("{HEADER}\n");
        for n in names {
            text.push_str(&n);
            text.push('\n');
        }
        let list = dir.join(LIST);
        std::fs::write(&list, text).map_err(io("write", &list))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_replaces_the_first_run_s_files_and_keeps_nothing_stale() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("out");
        let o = prepare(&dir).expect("new");
        for r in 0..10 {
            std::fs::write(dir.join(format!("rank-{r}.txt")), "x").expect("write");
        }
        o.finish().expect("finish");
        let o = prepare(&dir).expect("liquid's own");
        std::fs::write(dir.join("rank-0.txt"), "y").expect("write");
        o.finish().expect("finish");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("read")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [LIST, "rank-0.txt"]);
    }

    #[test]
    fn a_foreign_file_is_refused_and_kept() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("out");
        prepare(&dir).expect("new").finish().expect("finish");
        std::fs::write(dir.join("keep.txt"), "mine").expect("write");
        let e = prepare(&dir).expect_err("foreign");
        assert!(e.to_string().contains("\"keep.txt\""), "{e}");
        assert!(dir.join("keep.txt").exists());
        // A directory liquid never wrote, with a file in it.
        let other = tmp.path().join("other");
        std::fs::create_dir(&other).expect("mkdir");
        std::fs::write(other.join("notes"), "mine").expect("write");
        assert!(prepare(&other).is_err());
        assert!(other.join("notes").exists());
    }

    #[test]
    fn an_unfinished_run_is_cleared_by_the_next() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("out");
        let _stopped = prepare(&dir).expect("new");
        std::fs::write(dir.join("half.txt"), "x").expect("write");
        prepare(&dir).expect("the stopped run's files are liquid's");
        assert!(!dir.join("half.txt").exists());
    }
}
