//! Deterministic shards of liquid's sweeps and their checked merge.
//!
//! A sweep (the Swiss-T1 testbed, the latency study, the two-cluster study, `crosscheck`
//! over many models) is a list of independent *items* in a fixed order. `--shard i/n` runs the items whose 0-based index is ≡ i − 1 (mod n) and
//! writes their results to one *shard file*; `liquid merge` reads the n shard files back,
//! checks that they belong together and cover every item exactly once, and hands the
//! results, in item order, to the same code that renders the unsharded run. So the merged
//! output is byte-identical to the unsharded one (timings aside).
//!
//! A shard file is JSON:
//!
//! ```json
//! {"format":"liquid-shard","version":1,"sweep":"latency-study",
//!  "params":{...},"shard":{"index":2,"count":8},"items_total":56,
//!  "items":[{"index":1,"key":"...","result":{...}}, ...]}
//! ```
//!
//! `params` are the sweep's own options (everything but `--shard` and the output paths);
//! shards whose `sweep`, `params`, `count` or `items_total` differ from the first shard's
//! are *foreign*, and the merge names the file and the field.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The `format` field of every shard file.
pub const FORMAT: &str = "liquid-shard";
/// The version of the shard file format this crate writes and reads.
pub const VERSION: u32 = 1;
/// The largest shard file read (1 GiB): a larger file is refused before it is parsed.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// A shard `i/n` of a sweep: 1 ≤ i ≤ n.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, 1-based.
    pub index: usize,
    /// The number of shards.
    pub count: usize,
}

/// Why `--shard` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{text:?} is not a shard: give i/n with 1 <= i <= n <= {max}, like 2/8")]
pub struct ShardParseError {
    /// The text given.
    pub text: String,
    /// The largest shard count accepted.
    pub max: usize,
}

impl Shard {
    /// The largest number of shards: more than any job array a cluster runs.
    pub const MAX_COUNT: usize = 1_000_000;

    /// The whole sweep as one shard.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Whether this shard runs the item with 0-based index `item`.
    pub fn owns(&self, item: usize) -> bool {
        item % self.count == self.index - 1
    }

    /// The 0-based indices, among `total` items, that this shard runs.
    pub fn items(&self, total: usize) -> impl Iterator<Item = usize> + '_ {
        (self.index - 1..total).step_by(self.count)
    }

    /// How many of `total` items this shard runs (the length of [`Shard::items`]).
    pub fn item_count(&self, total: usize) -> usize {
        if total < self.index {
            0
        } else {
            (total - self.index) / self.count + 1
        }
    }

    /// The shard file's name for a sweep: `SWEEP-shard-I-of-N.json`.
    pub fn file_name(&self, sweep: &str) -> String {
        format!("{sweep}-shard-{}-of-{}.json", self.index, self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardParseError;

    fn from_str(s: &str) -> Result<Shard, ShardParseError> {
        let bad = || ShardParseError {
            text: s.to_string(),
            max: Shard::MAX_COUNT,
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count || count > Shard::MAX_COUNT {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// One item's result in a shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item<T> {
    /// The item's 0-based index in the sweep.
    pub index: usize,
    /// The item's name (a model, a class, a curve and load), checked on merge: the same
    /// index must name the same item in every shard.
    pub key: String,
    /// What the sweep computed for it.
    pub result: T,
}

/// A shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardFile<T> {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The sweep's name (`t1-testbed`, `latency-study`, ...).
    pub sweep: String,
    /// The sweep's own options, which every shard of one run shares.
    pub params: serde_json::Value,
    /// Which shard this is.
    pub shard: Shard,
    /// The number of items in the whole sweep.
    pub items_total: usize,
    /// This shard's items, in index order.
    pub items: Vec<Item<T>>,
}

impl<T> ShardFile<T> {
    /// A shard file for `shard` of a sweep of `items_total` items.
    pub fn new(
        sweep: &str,
        params: serde_json::Value,
        shard: Shard,
        items_total: usize,
        items: Vec<Item<T>>,
    ) -> ShardFile<T> {
        ShardFile {
            format: FORMAT.to_string(),
            version: VERSION,
            sweep: sweep.to_string(),
            params,
            shard,
            items_total,
            items,
        }
    }
}

/// Why shards could not be written or merged. Every variant names the file.
#[derive(Debug, Error)]
pub enum ShardError {
    /// A file or folder could not be read or written.
    #[error("{path}: {why}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        why: String,
    },
    /// A file that is not a shard file of this sweep.
    #[error("{path}: not a liquid shard file: {why}")]
    NotAShard {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A shard of another run: its sweep, options, shard count or item count differ.
    #[error("{path}: foreign shard: its {field} differs from {first}'s")]
    Foreign {
        /// The foreign file.
        path: PathBuf,
        /// The field that differs (`params.engines`: the first option that differs).
        field: String,
        /// The first shard file read, which the others are compared with.
        first: PathBuf,
    },
    /// The same shard given twice.
    #[error("{path}: shard {shard} is given twice (also {other})")]
    Duplicate {
        /// The second file.
        path: PathBuf,
        /// The shard.
        shard: Shard,
        /// The first file with that shard.
        other: PathBuf,
    },
    /// Shards missing from the run.
    #[error("shard{} {} of {count} {} missing (given: {given})", if .missing.len() == 1 { "" } else { "s" }, list(.missing), if .missing.len() == 1 { "is" } else { "are" })]
    Missing {
        /// The missing shards' indices (1-based).
        missing: Vec<usize>,
        /// The number of shards.
        count: usize,
        /// The files given.
        given: String,
    },
    /// A shard whose items are not the ones its index owns.
    #[error("{path}: item {index}{} {why}", key.as_ref().map(|k| format!(" ({k:?})")).unwrap_or_default())]
    BadItem {
        /// The file.
        path: PathBuf,
        /// The item's index.
        index: usize,
        /// The item's key, when the file holds the item.
        key: Option<String>,
        /// What is wrong.
        why: String,
    },
    /// No shard file was given.
    #[error("no shard files found in {0}")]
    Empty(String),
}

fn list(v: &[usize]) -> String {
    let shown: Vec<String> = v.iter().take(10).map(|i| i.to_string()).collect();
    if v.len() > 10 {
        format!("{}, ... ({} in all)", shown.join(", "), v.len())
    } else {
        shown.join(", ")
    }
}

/// Writes a shard file into `dir` (created if missing) as `SWEEP-shard-I-of-N.json`,
/// through a temporary file renamed into place, and returns its path.
pub fn write<T: Serialize>(dir: &Path, file: &ShardFile<T>) -> Result<PathBuf, ShardError> {
    let io = |path: &Path, e: std::io::Error| ShardError::Io {
        path: path.to_path_buf(),
        why: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let path = dir.join(file.shard.file_name(&file.sweep));
    let tmp = dir.join(format!(".{}.tmp", file.shard.file_name(&file.sweep)));
    let mut text = serde_json::to_string(file).map_err(|e| ShardError::Io {
        path: path.clone(),
        why: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io(&path, e))?;
    Ok(path)
}

/// The shard files among `paths`: a file is taken as given; a folder contributes its
/// `*-shard-*-of-*.json` files, in name order.
pub fn shard_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ShardError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p).map_err(|e| ShardError::Io {
                path: p.clone(),
                why: e.to_string(),
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.contains("-shard-") && n.ends_with(".json"))
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    if files.is_empty() {
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(ShardError::Empty(given.join(", ")));
    }
    Ok(files)
}

/// The header of a shard file: everything but its items.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Header {
    /// The sweep's name.
    pub sweep: String,
    /// The sweep's options.
    pub params: serde_json::Value,
    /// Which shard.
    pub shard: Shard,
    /// The number of items in the whole sweep.
    pub items_total: usize,
}

fn read_text(path: &Path) -> Result<String, ShardError> {
    use std::io::Read;
    let io = |e: std::io::Error| ShardError::Io {
        path: path.to_path_buf(),
        why: e.to_string(),
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(ShardError::NotAShard {
            path: path.to_path_buf(),
            why: format!("larger than {MAX_FILE_BYTES} bytes"),
        });
    }
    Ok(text)
}

/// The checks every shard file passes before its contents are compared with others': this
/// format and version, and a shard i/n with 1 <= i <= n.
fn check_head(path: &Path, format: &str, version: u32, shard: Shard) -> Result<(), ShardError> {
    let why = if format != FORMAT || version != VERSION {
        format!("format {format:?} version {version} (expected {FORMAT:?} version {VERSION})")
    } else if shard.index == 0 || shard.index > shard.count {
        format!("shard {shard} is not i/n with 1 <= i <= n")
    } else {
        return Ok(());
    };
    Err(ShardError::NotAShard {
        path: path.to_path_buf(),
        why,
    })
}

/// Reads the header of a shard file (to learn which sweep it belongs to).
pub fn header(path: &Path) -> Result<Header, ShardError> {
    #[derive(Deserialize)]
    struct Head {
        format: String,
        version: u32,
        sweep: String,
        params: serde_json::Value,
        shard: Shard,
        items_total: usize,
    }
    let text = read_text(path)?;
    let h: Head = serde_json::from_str(&text).map_err(|e| ShardError::NotAShard {
        path: path.to_path_buf(),
        why: e.to_string(),
    })?;
    check_head(path, &h.format, h.version, h.shard)?;
    Ok(Header {
        sweep: h.sweep,
        params: h.params,
        shard: h.shard,
        items_total: h.items_total,
    })
}

/// A checked merge: the run's header and every item's key and result, in index order.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged<T> {
    /// The sweep's name.
    pub sweep: String,
    /// The sweep's options.
    pub params: serde_json::Value,
    /// The number of shards.
    pub count: usize,
    /// Every item, in index order.
    pub items: Vec<Item<T>>,
}

/// The first option (`params.KEY`, keys in order) in which two shards' params differ.
fn params_field(a: &serde_json::Value, b: &serde_json::Value) -> String {
    match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter()
                .find(|k| x.get(*k) != y.get(*k))
                .map_or_else(|| "params".to_string(), |k| format!("params.{k}"))
        }
        _ => "params".to_string(),
    }
}

/// Reads shard files (see [`shard_files`]) of the sweep `sweep` and checks that they
/// belong to one run (same sweep, options, shard count and item count as the first file),
/// that no shard is given twice or missing, that each file holds exactly the items its
/// shard owns, and that every item appears once.
pub fn merge<T: DeserializeOwned>(paths: &[PathBuf], sweep: &str) -> Result<Merged<T>, ShardError> {
    merge_checked(paths, Some(sweep))
}

/// [`merge`] for shards of any sweep (the first file's; the others must be of the same):
/// each file is read once, its items' results left as JSON for the sweep to read with
/// [`Merged::typed`].
pub fn merge_any(paths: &[PathBuf]) -> Result<Merged<serde_json::Value>, ShardError> {
    merge_checked(paths, None)
}

impl Merged<serde_json::Value> {
    /// The items' results as the sweep's own type; an item that does not read as one is
    /// named.
    pub fn typed<T: DeserializeOwned>(self) -> Result<Merged<T>, ShardError> {
        let sweep = self.sweep;
        let items = self
            .items
            .into_iter()
            .map(|i| {
                let result = serde_json::from_value(i.result).map_err(|e| ShardError::BadItem {
                    path: PathBuf::from(format!("the shards of {sweep}")),
                    index: i.index,
                    key: Some(i.key.clone()),
                    why: format!("is not a result of {sweep}: {e}"),
                })?;
                Ok(Item {
                    index: i.index,
                    key: i.key,
                    result,
                })
            })
            .collect::<Result<Vec<_>, ShardError>>()?;
        Ok(Merged {
            sweep,
            params: self.params,
            count: self.count,
            items,
        })
    }
}

fn merge_checked<T: DeserializeOwned>(
    paths: &[PathBuf],
    sweep: Option<&str>,
) -> Result<Merged<T>, ShardError> {
    let files = shard_files(paths)?;
    let mut first: Option<(PathBuf, Header)> = None;
    let mut seen: BTreeMap<usize, PathBuf> = BTreeMap::new();
    // Items by index, as read: memory follows the files, not the counts they claim.
    let mut items: BTreeMap<usize, Item<T>> = BTreeMap::new();
    for path in &files {
        let text = read_text(path)?;
        let file: ShardFile<T> =
            serde_json::from_str(&text).map_err(|e| ShardError::NotAShard {
                path: path.clone(),
                why: e.to_string(),
            })?;
        check_head(path, &file.format, file.version, file.shard)?;
        let head = Header {
            sweep: file.sweep.clone(),
            params: file.params.clone(),
            shard: file.shard,
            items_total: file.items_total,
        };
        match &first {
            None => {
                if let Some(sweep) = sweep.filter(|&w| w != head.sweep) {
                    return Err(ShardError::Foreign {
                        path: path.clone(),
                        field: "sweep".into(),
                        first: PathBuf::from(format!("the {sweep} sweep")),
                    });
                }
                first = Some((path.clone(), head.clone()));
            }
            Some((fpath, f)) => {
                let field = if head.sweep != f.sweep {
                    Some("sweep".to_string())
                } else if head.params != f.params {
                    Some(params_field(&head.params, &f.params))
                } else if head.shard.count != f.shard.count {
                    Some("shard count".to_string())
                } else if head.items_total != f.items_total {
                    Some("items_total".to_string())
                } else {
                    None
                };
                if let Some(field) = field {
                    return Err(ShardError::Foreign {
                        path: path.clone(),
                        field,
                        first: fpath.clone(),
                    });
                }
            }
        }
        if let Some(other) = seen.insert(head.shard.index, path.clone()) {
            return Err(ShardError::Duplicate {
                path: path.clone(),
                shard: head.shard,
                other,
            });
        }
        // The items the shard owns, compared one by one with the file's (never collected:
        // `items_total` is a number in the file, not a size to allocate).
        let expected = head.shard.item_count(head.items_total);
        let first_difference = head
            .shard
            .items(head.items_total)
            .zip(file.items.iter().map(|i| i.index))
            .position(|(e, g)| e != g);
        if first_difference.is_some() || file.items.len() != expected {
            let counts = format!("({} items, expected {expected})", file.items.len());
            let (index, key, why) = match file
                .items
                .iter()
                .find(|i| !head.shard.owns(i.index) || i.index >= head.items_total)
            {
                Some(i) => (
                    i.index,
                    Some(i.key.clone()),
                    format!("does not belong to shard {}", head.shard),
                ),
                None => {
                    // The first position where the file's item is not the one expected:
                    // an item given twice, one out of its place, or one missing.
                    // (Every index there belongs to the shard: an item beyond the
                    // expected count is one given twice.)
                    let at = first_difference.unwrap_or(file.items.len().min(expected));
                    let want = head.shard.items(head.items_total).nth(at);
                    let given = |w: usize| file.items.iter().any(|i| i.index == w);
                    match (file.items.get(at), want) {
                        (Some(i), _) if file.items[..at].iter().any(|e| e.index == i.index) => (
                            i.index,
                            Some(i.key.clone()),
                            format!("is given twice in shard {} {counts}", head.shard),
                        ),
                        (_, Some(w)) if !given(w) => (
                            w,
                            None,
                            format!("is missing from shard {} {counts}", head.shard),
                        ),
                        (Some(i), _) => (
                            i.index,
                            Some(i.key.clone()),
                            format!("is out of order in shard {} {counts}", head.shard),
                        ),
                        (None, want) => (
                            want.unwrap_or(0),
                            None,
                            format!("is missing from shard {} {counts}", head.shard),
                        ),
                    }
                }
            };
            return Err(ShardError::BadItem {
                path: path.clone(),
                index,
                key,
                why,
            });
        }
        for item in file.items {
            items.insert(item.index, item);
        }
    }
    let Some((_, head)) = first else {
        return Err(ShardError::Empty(String::new()));
    };
    let missing: Vec<usize> = (1..=head.shard.count)
        .filter(|i| !seen.contains_key(i))
        .collect();
    if !missing.is_empty() {
        let given: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        return Err(ShardError::Missing {
            missing,
            count: head.shard.count,
            given: given.join(", "),
        });
    }
    let items: Vec<Item<T>> = items.into_values().collect();
    debug_assert_eq!(items.len(), head.items_total);
    Ok(Merged {
        sweep: head.sweep,
        params: head.params,
        count: head.shard.count,
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, count: usize, total: usize, params: serde_json::Value) -> Vec<PathBuf> {
        (1..=count)
            .map(|i| {
                let shard = Shard { index: i, count };
                let items = shard
                    .items(total)
                    .map(|k| Item {
                        index: k,
                        key: format!("item {k}"),
                        result: k * k,
                    })
                    .collect();
                write(
                    dir,
                    &ShardFile::new("squares", params.clone(), shard, total, items),
                )
                .expect("write")
            })
            .collect()
    }

    #[test]
    fn parses_and_partitions() {
        assert_eq!("2/8".parse(), Ok(Shard { index: 2, count: 8 }));
        for bad in ["0/8", "9/8", "x", "1/0", "1/1000001", "-1/2", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let total = 23;
        let mut seen = vec![0; total];
        for i in 1..=5 {
            let s = Shard { index: i, count: 5 };
            for k in s.items(total) {
                assert!(s.owns(k));
                seen[k] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
    }

    #[test]
    fn merges_in_order_whatever_the_file_order() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut files = run(dir.path(), 4, 10, serde_json::json!({"n": 10}));
        files.reverse();
        let m: Merged<usize> = merge(&files, "squares").expect("merge");
        assert_eq!(m.count, 4);
        let got: Vec<usize> = m.items.iter().map(|i| i.result).collect();
        assert_eq!(got, (0..10).map(|k| k * k).collect::<Vec<_>>());
        // A folder gives the same.
        let m2: Merged<usize> = merge(&[dir.path().to_path_buf()], "squares").expect("merge");
        assert_eq!(m, m2);
    }

    #[test]
    fn any_sweep_merges_then_reads_as_its_own_type() {
        let dir = tempfile::tempdir().expect("tmp");
        let files = run(dir.path(), 3, 7, serde_json::json!({"n": 7}));
        let any = merge_any(&files).expect("merge");
        assert_eq!(any.sweep, "squares");
        let typed: Merged<usize> = any.clone().typed().expect("usizes");
        assert_eq!(typed, merge::<usize>(&files, "squares").expect("merge"));
        let e = any.typed::<String>().expect_err("not strings");
        assert!(matches!(&e, ShardError::BadItem { index: 0, .. }), "{e}");
    }

    #[test]
    fn more_shards_than_items() {
        let dir = tempfile::tempdir().expect("tmp");
        run(dir.path(), 8, 3, serde_json::json!({}));
        let m: Merged<usize> = merge(&[dir.path().to_path_buf()], "squares").expect("merge");
        assert_eq!(m.items.len(), 3);
    }

    #[test]
    fn a_missing_shard_is_named() {
        let dir = tempfile::tempdir().expect("tmp");
        let files = run(dir.path(), 4, 10, serde_json::json!({}));
        let e = merge::<usize>(
            &[files[0].clone(), files[1].clone(), files[3].clone()],
            "squares",
        )
        .expect_err("missing");
        assert!(
            matches!(&e, ShardError::Missing { missing, .. } if missing == &[3]),
            "{e}"
        );
        assert!(e.to_string().starts_with("shard 3 of 4 is missing"), "{e}");
    }

    #[test]
    fn a_duplicated_shard_is_named() {
        let dir = tempfile::tempdir().expect("tmp");
        let files = run(dir.path(), 2, 10, serde_json::json!({}));
        let copy = dir.path().join("copy.json");
        std::fs::copy(&files[1], &copy).expect("copy");
        let e = merge::<usize>(
            &[files[0].clone(), files[1].clone(), copy.clone()],
            "squares",
        )
        .expect_err("dup");
        assert!(
            matches!(&e, ShardError::Duplicate { path, .. } if path == &copy),
            "{e}"
        );
    }

    #[test]
    fn a_foreign_shard_is_named() {
        let a = tempfile::tempdir().expect("tmp");
        let b = tempfile::tempdir().expect("tmp");
        let fa = run(a.path(), 2, 10, serde_json::json!({"seed": 1}));
        let fb = run(b.path(), 2, 10, serde_json::json!({"seed": 2}));
        let e = merge::<usize>(&[fa[0].clone(), fb[1].clone()], "squares").expect_err("foreign");
        assert!(
            matches!(&e, ShardError::Foreign { path, field, .. } if path == &fb[1] && field == "params.seed"),
            "{e}"
        );
        let fc = run(b.path(), 3, 10, serde_json::json!({"seed": 1}));
        let e = merge::<usize>(&[fa[0].clone(), fc[1].clone()], "squares").expect_err("foreign");
        assert!(
            matches!(
                &e,
                ShardError::Foreign { field, .. } if field == "shard count"
            ),
            "{e}"
        );
        let e = merge::<usize>(&fa, "cubes").expect_err("other sweep");
        assert!(
            matches!(&e, ShardError::Foreign { field, .. } if field == "sweep"),
            "{e}"
        );
    }

    #[test]
    fn tampered_items_are_refused() {
        let dir = tempfile::tempdir().expect("tmp");
        let files = run(dir.path(), 2, 10, serde_json::json!({}));
        let text = std::fs::read_to_string(&files[0]).expect("read");
        // Item 2 (shard 1's) relabelled as item 3 (shard 2's).
        let bad = text.replacen("\"index\":2,", "\"index\":3,", 1);
        assert_ne!(bad, text);
        std::fs::write(&files[0], bad).expect("write");
        let e = merge::<usize>(&files, "squares").expect_err("tampered");
        assert!(matches!(&e, ShardError::BadItem { index: 3, .. }), "{e}");
        std::fs::write(&files[0], "{\"format\":\"other\"}").expect("write");
        let e = merge::<usize>(&files, "squares").expect_err("not a shard");
        assert!(matches!(&e, ShardError::NotAShard { .. }), "{e}");
    }

    #[test]
    fn an_item_twice_missing_or_out_of_order_is_named_so() {
        let dir = tempfile::tempdir().expect("tmp");
        let files = run(dir.path(), 2, 10, serde_json::json!({}));
        let text = std::fs::read_to_string(&files[0]).expect("read");
        let good: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let edit = |f: &dyn Fn(&mut Vec<serde_json::Value>)| {
            let mut v = good.clone();
            f(v["items"].as_array_mut().expect("items"));
            std::fs::write(&files[0], v.to_string()).expect("write");
            merge::<usize>(&files, "squares")
                .expect_err("tampered")
                .to_string()
        };
        // Shard 1 of 2 owns items 0, 2, 4, 6, 8.
        let twice = edit(&|items| items.push(items[0].clone()));
        assert!(
            twice
                .ends_with("item 0 (\"item 0\") is given twice in shard 1/2 (6 items, expected 5)"),
            "{twice}"
        );
        let missing = edit(&|items| {
            items.remove(1);
        });
        assert!(
            missing.ends_with("item 2 is missing from shard 1/2 (4 items, expected 5)"),
            "{missing}"
        );
        let order = edit(&|items| items.swap(1, 2));
        assert!(
            order.ends_with(
                "item 4 (\"item 4\") is out of order in shard 1/2 (5 items, expected 5)"
            ),
            "{order}"
        );
    }

    #[test]
    fn a_huge_item_count_is_checked_before_anything_is_allocated() {
        let dir = tempfile::tempdir().expect("tmp");
        let files = run(dir.path(), 1, 3, serde_json::json!({}));
        let text = std::fs::read_to_string(&files[0]).expect("read");
        let bad = text.replacen("\"items_total\":3", "\"items_total\":1000000000000", 1);
        assert_ne!(bad, text);
        std::fs::write(&files[0], bad).expect("write");
        let e = merge::<usize>(&files, "squares").expect_err("count");
        assert!(
            matches!(&e, ShardError::BadItem { index: 3, why, .. } if why.contains("expected 1000000000000")),
            "{e}"
        );
    }

    #[test]
    fn item_counts_match_the_items() {
        for count in 1..6 {
            for index in 1..=count {
                let s = Shard { index, count };
                for total in 0..20 {
                    assert_eq!(s.item_count(total), s.items(total).count());
                }
            }
        }
    }
}
