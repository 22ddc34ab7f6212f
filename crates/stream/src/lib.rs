//! Streamed liquid schedules of structured traffics: the all-to-all of an m-port n-tree
//! (`fat-tree:32,3`, 8,192 hosts and 67 million transfers; `fat-tree:64,3`, 65,536 hosts
//! and 4.3 billion) scheduled, written and validated one frame at a time, in memory
//! O(hosts + links) and never O(transfers).
//!
//! - [`tree`]: the m-port n-tree in closed form (host, switch and link numbers and names,
//!   routes, per-link loads), exactly as `liquid_topology::fat_tree` builds and routes it,
//!   without its network form; and the orbit frames of the structured engine
//!   (`liquid_search::structured`): frame `f` sends host `h` to the digit-wise
//!   translation of `h` by `f + 1`.
//! - [`format`]: the compact schedule format (a text header, then one binary record per
//!   frame; its reader, also in a few lines of Python) and a streaming YAML writer.
//! - [`validate`]: the streaming validator (the model crate's rules, frame by frame;
//!   "each transfer exactly once" by per-source counts and random fingerprints, with the
//!   failure named exactly by a second pass).
//! - [`cluster`], [`dragonfly`], [`rail`] and [`hyperx`]: multi-cluster systems,
//!   dragonflies and Dragonfly+, rail-optimised GPU fat-trees and HyperX without their
//!   network form, with their streamed schedules; [`closed`]: what the last four share.
//! - [`analysis`]: Λ, bottlenecks and liquid throughput from closed forms.
//! - [`solve`] and [`verify_file`]: what `liquid solve MODEL --stream` and
//!   `liquid verify MODEL SCHEDULE --stream` run.
#![forbid(unsafe_code)]

pub mod analysis;
pub mod closed;
pub mod cluster;
pub mod dragonfly;
pub mod format;
pub mod hyperx;
pub mod mpi;
pub mod rail;
pub mod tree;
pub mod validate;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

pub use format::{Frame, FrameReader, FrameSink, FrameWriter, Header, YamlWriter, NO_HOST};
pub use mpi::{MpiOptions, MpiReport, MpiWriter};
pub use tree::Tree;
pub use validate::{
    Findings, FramePlace, Locator, Problem, Rejection, StreamReport, Suspect, Unnamed, Validator,
};

/// Why a streaming command could not run (bad input, or a file that cannot be written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A model parameter out of range.
    #[error("{0}")]
    Parameter(String),
    /// A model argument that is no streamable spec.
    #[error("{spec:?}: {why}")]
    Spec {
        /// The argument.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// A file that cannot be read or written.
    #[error("{file}: {why}")]
    Io {
        /// The file.
        file: String,
        /// The system's reason.
        why: String,
    },
    /// A compact schedule file that is malformed.
    #[error("{file}: {at}: {why}")]
    Format {
        /// The file.
        file: String,
        /// Where: a header line, or a byte offset and frame.
        at: String,
        /// What is wrong.
        why: String,
    },
    /// The frames of a second pass differ from those of the first.
    #[error("{0}")]
    Unstable(String),
}

/// An all-to-all traffic (without self-transfers) over hosts `0..N` whose routes, loads
/// and liquid schedule are given by closed forms.
pub trait Structured {
    /// The traffic's name (as its in-memory form names it).
    fn name(&self) -> String;
    /// The spec that names it.
    fn spec(&self) -> String;
    /// Number of hosts, N.
    fn hosts(&self) -> usize;
    /// Number of links.
    fn links(&self) -> usize;
    /// Host `h`'s name.
    fn host_name(&self, h: usize) -> String;
    /// Link `l`'s name.
    fn link_name(&self, l: usize) -> String;
    /// The route from `s` to `d` (`s != d`) as link numbers, into `out`.
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>);
    /// The load of link `l` (closed form).
    fn load(&self, l: usize) -> u64;
    /// Λ (closed form).
    fn duration(&self) -> u64;
    /// Number of frames of the streamed schedule.
    fn frames(&self) -> usize;
    /// Frame `f` of the streamed schedule: its transfers as (source, destination) host
    /// numbers, into `pairs` (cleared first).
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>);
    /// How the frames are made, in words.
    fn method(&self) -> String;
    /// Whether the model has a streamed schedule, or why not.
    fn streamable(&self) -> Result<(), String> {
        Ok(())
    }
}

impl Structured for Tree {
    fn name(&self) -> String {
        Tree::name(self)
    }
    fn spec(&self) -> String {
        Tree::spec(self)
    }
    fn hosts(&self) -> usize {
        Tree::hosts(self)
    }
    fn links(&self) -> usize {
        Tree::links(self)
    }
    fn host_name(&self, h: usize) -> String {
        Tree::host_name(self, h)
    }
    fn link_name(&self, l: usize) -> String {
        Tree::link_name(self, l)
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        Tree::route(self, s, d, out)
    }
    fn load(&self, l: usize) -> u64 {
        Tree::load(self, l)
    }
    fn duration(&self) -> u64 {
        Tree::duration(self)
    }
    fn frames(&self) -> usize {
        Tree::frames(self)
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        pairs.extend((0..self.hosts()).map(|h| (h as u32, self.orbit_destination(f, h) as u32)));
    }
    fn method(&self) -> String {
        let r: Vec<String> = self.radices().iter().rev().map(|x| x.to_string()).collect();
        format!(
            "orbit frames: frame f sends host h to the digit-wise translation of h by f+1 \
             (radices {})",
            r.join("x")
        )
    }
}

/// A model with a streamed form: a fat-tree, a multi-cluster system, a dragonfly, a
/// Dragonfly+, a rail-optimised fat-tree or a HyperX.
#[derive(Debug)]
pub enum Model {
    /// `fat-tree:M,N`.
    Tree(Tree),
    /// `multi-cluster:M,LIST[,NC]`.
    Clusters(Box<cluster::Clusters>),
    /// `dragonfly:A,P,H[,G]`.
    Dragonfly(Box<dragonfly::DragonflyStream>),
    /// `dragonfly-plus:L,S,P,H[,G]`.
    DragonflyPlus(Box<dragonfly::DragonflyPlusStream>),
    /// `rail:S,G[,K][,pxn]`.
    Rail(Box<rail::RailStream>),
    /// `hyperx:S1xS2x...,T`.
    HyperX(Box<hyperx::HyperXStream>),
}

macro_rules! both {
    ($self:ident, $m:ident => $e:expr) => {
        match $self {
            Model::Tree($m) => $e,
            Model::Clusters(b) => {
                let $m: &cluster::Clusters = b;
                $e
            }
            Model::Dragonfly(b) => {
                let $m: &dragonfly::DragonflyStream = b;
                $e
            }
            Model::DragonflyPlus(b) => {
                let $m: &dragonfly::DragonflyPlusStream = b;
                $e
            }
            Model::Rail(b) => {
                let $m: &rail::RailStream = b;
                $e
            }
            Model::HyperX(b) => {
                let $m: &hyperx::HyperXStream = b;
                $e
            }
        }
    };
}

impl Structured for Model {
    fn name(&self) -> String {
        both!(self, m => Structured::name(m))
    }
    fn spec(&self) -> String {
        both!(self, m => Structured::spec(m))
    }
    fn hosts(&self) -> usize {
        both!(self, m => Structured::hosts(m))
    }
    fn links(&self) -> usize {
        both!(self, m => Structured::links(m))
    }
    fn host_name(&self, h: usize) -> String {
        both!(self, m => Structured::host_name(m, h))
    }
    fn link_name(&self, l: usize) -> String {
        both!(self, m => Structured::link_name(m, l))
    }
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        both!(self, m => Structured::route(m, s, d, out))
    }
    fn load(&self, l: usize) -> u64 {
        both!(self, m => Structured::load(m, l))
    }
    fn duration(&self) -> u64 {
        both!(self, m => Structured::duration(m))
    }
    fn frames(&self) -> usize {
        both!(self, m => Structured::frames(m))
    }
    fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        both!(self, m => Structured::frame(m, f, pairs))
    }
    fn method(&self) -> String {
        both!(self, m => Structured::method(m))
    }
    fn streamable(&self) -> Result<(), String> {
        both!(self, m => Structured::streamable(m))
    }
}

/// The streamable model a spec names: `fat-tree:M,N`, `multi-cluster:M,LIST[,NC]`,
/// `dragonfly:A,P,H[,G]`, `dragonfly-plus:L,S,P,H[,G]`, `rail:S,G[,K][,pxn]` or
/// `hyperx:S1xS2x...,T`. `Ok(None)` for any other argument (a file, or a spec with no
/// streamed form).
pub fn parse_model(arg: &str) -> Result<Option<Model>, StreamError> {
    if let Some(rest) = arg.strip_prefix("rail:") {
        return Ok(Some(Model::Rail(Box::new(rail::RailStream::new(rest)?))));
    }
    if let Some(rest) = arg.strip_prefix("hyperx:") {
        return Ok(Some(Model::HyperX(Box::new(hyperx::HyperXStream::new(
            rest,
        )?))));
    }
    if let Some(rest) = arg.strip_prefix("dragonfly-plus:") {
        return Ok(Some(Model::DragonflyPlus(Box::new(
            dragonfly::DragonflyPlusStream::new(rest)?,
        ))));
    }
    if let Some(rest) = arg.strip_prefix("dragonfly:") {
        return Ok(Some(Model::Dragonfly(Box::new(
            dragonfly::DragonflyStream::new(rest)?,
        ))));
    }
    if let Some(rest) = arg.strip_prefix("multi-cluster:") {
        return Ok(Some(Model::Clusters(Box::new(cluster::Clusters::new(
            rest,
        )?))));
    }
    Ok(parse(arg)?.map(Model::Tree))
}

/// The streamable fat-tree a spec names: `fat-tree:M,N`. `Ok(None)` for any other
/// argument (a file, or a spec with no streamed form).
pub fn parse(arg: &str) -> Result<Option<Tree>, StreamError> {
    let Some(rest) = arg.strip_prefix("fat-tree:") else {
        return Ok(None);
    };
    let bad = |why: String| StreamError::Spec {
        spec: arg.to_string(),
        why,
    };
    let parts: Vec<&str> = rest.split(',').collect();
    let [m, n] = parts[..] else {
        return Err(bad("give ports and levels, like fat-tree:32,3".into()));
    };
    let number = |what: &str, s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| bad(format!("{what} {s:?} is not a whole number")))
    };
    Tree::new(number("ports", m)?, number("levels", n)?)
        .map(Some)
        .map_err(|e| bad(e.to_string()))
}

/// The streamable model `arg` names, or an error saying which models stream.
pub fn model(arg: &str) -> Result<Model, StreamError> {
    parse_model(arg)?.ok_or_else(|| StreamError::Spec {
        spec: arg.to_string(),
        why: "--stream takes a generated fat-tree, multi-cluster, dragonfly, Dragonfly+, \
              rail-optimised or HyperX all-to-all, like fat-tree:32,3, multi-cluster:4,64x6, \
              dragonfly:16,8,8, dragonfly-plus:16,16,8,8, rail:2048,8,pxn or \
              hyperx:16x16x16,4 (other models have no streamed form yet)"
            .into(),
    })
}

/// How long a streaming command runs when no `--time-limit` is given.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(3600);

/// The schedule file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileFormat {
    /// The compact format ([`format`]).
    Frames,
    /// YAML (`timeframes:`), readable by `liquid verify` without `--stream`.
    Yaml,
}

impl FileFormat {
    /// YAML for `.yaml` and `.yml` files, the compact format otherwise.
    pub fn of(path: &Path) -> FileFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => FileFormat::Yaml,
            _ => FileFormat::Frames,
        }
    }
}

/// What [`solve`] is asked.
#[derive(Debug, Clone, Copy)]
pub struct SolveOptions<'a> {
    /// The schedule file (compact format, or YAML by its extension), if any.
    pub out: Option<&'a Path>,
    /// Make only the first frames (a prefix, for measurements).
    pub prefix: Option<usize>,
    /// Wall-clock limit ([`DEFAULT_TIME_LIMIT`] when `None`).
    pub time_limit: Option<Duration>,
    /// Also write the MPI export of the frames ([`mpi`]), as they are made.
    pub mpi: Option<&'a MpiOptions>,
}

/// What a streamed solve did.
#[derive(Debug, Clone, Serialize)]
pub struct SolveReport {
    /// The traffic's name.
    pub model: String,
    /// The spec.
    pub spec: String,
    /// `liquid` when all frames were made and validated with Λ frames; `unknown` when a
    /// limit or `--prefix` stopped it.
    pub verdict: &'static str,
    /// How the frames are made.
    pub method: String,
    /// Hosts.
    pub hosts: usize,
    /// Transfers of the traffic, N(N-1).
    pub transfers: u64,
    /// Λ (closed form; the validation counts it too).
    pub duration: u64,
    /// Frames of the whole schedule.
    pub frames: u64,
    /// Frames made, written and validated.
    pub frames_made: u64,
    /// Why fewer frames were made (a prefix, the time limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The schedule file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<FileReport>,
    /// The MPI export written (only when every frame was made and validated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiReport>,
    /// The streaming validation of the frames made.
    pub validation: StreamReport,
    /// Wall-clock seconds.
    pub time_s: f64,
}

/// A schedule file written.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// Its path.
    pub file: String,
    /// Its format.
    pub format: FileFormat,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The outcome of a streamed solve: a report, or a frame the validator rejected (a bug of
/// the closed form: an internal error).
pub type Solved = Result<SolveReport, (Rejection, SolveReport)>;

/// Makes the streamed schedule of `model` frame by frame: each frame is written to the
/// schedule file (when one is given) and validated ([`Validator`]) as it is made; the
/// frames are made again for the validator's second pass if it names a wrong source.
/// `progress` counts the transfers made.
pub fn solve<M: Structured>(
    model: &M,
    options: &SolveOptions<'_>,
    progress: &AtomicU64,
) -> Result<Solved, StreamError> {
    // The clock starts before the model's set-up (a heterogeneous multi-cluster system's
    // rounds of cluster pairs), so that the limit and `time_s` count it; the set-up itself
    // is not interrupted (under 0.1 s at 8,192 nodes, `8,32x2+24x3+8x4`).
    let start = Instant::now();
    model.streamable().map_err(|why| StreamError::Spec {
        spec: model.spec(),
        why,
    })?;
    let deadline = start + options.time_limit.unwrap_or(DEFAULT_TIME_LIMIT);
    let (n, total) = (model.hosts(), model.frames());
    if let Some(path) = options.out {
        let frames = options.prefix.map_or(total, |p| p.min(total));
        check_room(model, path, frames)?;
    }
    let mut sink: Option<Box<dyn FrameSink>> = match options.out {
        None => None,
        Some(path) => Some(match FileFormat::of(path) {
            FileFormat::Frames => Box::new(FrameWriter::create(path, &model.name(), n)?),
            FileFormat::Yaml => Box::new(YamlWriter::create(path, &model.name(), |h| {
                model.host_name(h)
            })?),
        }),
    };
    let mut mpi = match options.mpi {
        Some(o) => {
            check_mpi_room(model, &o.dir)?;
            Some(MpiWriter::create_until(model, o.clone(), Some(deadline))?)
        }
        None => None,
    };
    let mut validator = Validator::new(model);
    let mut pairs = Vec::new();
    let want = options.prefix.map_or(total, |p| p.min(total));
    let mut stopped =
        (want < total).then(|| format!("--prefix {want}: the first {want} of {total} frames"));
    let mut rejection = None;
    for f in 0..want {
        if Instant::now() >= deadline {
            stopped = Some(format!(
                "the time limit stopped it after {f} of {total} frames"
            ));
            break;
        }
        model.frame(f, &mut pairs);
        if let Some(s) = sink.as_mut() {
            s.pairs(&pairs)?;
        }
        if let Some(w) = mpi.as_mut() {
            w.pairs(&pairs)?;
        }
        if let Err(r) = validator.frame(pairs.iter().copied()) {
            rejection = Some(r);
            break;
        }
        progress.fetch_add(pairs.len() as u64, Ordering::Relaxed);
    }
    if let Some(s) = sink.as_mut() {
        s.finish()?;
    }
    let made = validator.frames();
    let whole = stopped.is_none() && rejection.is_none();
    let validation = if whole {
        match validator.finish() {
            Ok(r) => r,
            Err(suspects) => {
                let mut locator = Locator::new(model, &suspects);
                for f in 0..total {
                    model.frame(f, &mut pairs);
                    if let Err(r) = locator.frame(pairs.iter().copied(), None) {
                        rejection = Some(r);
                        break;
                    }
                }
                if rejection.is_none() {
                    let mut found = Findings::default();
                    locator.finish(&mut found)?;
                    rejection = found.first();
                }
                validator.finish_prefix()
            }
        }
    } else {
        validator.finish_prefix()
    };
    let liquid = whole && rejection.is_none() && validation.liquid == Some(true);
    let mpi = match mpi.as_mut() {
        Some(w) if liquid => {
            w.finish()?;
            w.report().cloned()
        }
        _ => None,
    };
    let report = SolveReport {
        model: model.name(),
        spec: model.spec(),
        verdict: if liquid { "liquid" } else { "unknown" },
        method: model.method(),
        hosts: n,
        transfers: (n as u64) * (n as u64 - 1),
        duration: model.duration(),
        frames: total as u64,
        frames_made: made,
        stopped,
        schedule: match (options.out, &sink) {
            (Some(path), Some(s)) => Some(FileReport {
                file: path.display().to_string(),
                format: FileFormat::of(path),
                bytes: s.bytes(),
            }),
            _ => None,
        },
        mpi,
        validation,
        time_s: start.elapsed().as_secs_f64(),
    };
    Ok(match rejection {
        None => Ok(report),
        Some(r) => Err((r, report)),
    })
}

/// What [`verify_file`] is asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct VerifyOptions {
    /// Check only the first frames, as a prefix of a schedule (no exactly-once check).
    pub prefix: Option<u64>,
    /// Wall-clock limit ([`DEFAULT_TIME_LIMIT`] when `None`).
    pub time_limit: Option<Duration>,
}

/// The verdict of [`verify_file`].
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// The traffic's name.
    pub model: String,
    /// The schedule file.
    pub schedule: String,
    /// Whether the schedule (or the prefix read) is valid: `None` when the time limit
    /// stopped the check before the end of what it was to read and it had found no
    /// problem so far (undecided, not valid: the rest was not read).
    pub valid: Option<bool>,
    /// Every problem found when it is not, as the in-memory `liquid verify` lists them
    /// ([`Findings::lines`]: the first 20, then how many more).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Why the check stopped before the end of the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// What the validator established (for a valid schedule or prefix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<StreamReport>,
    /// Wall-clock seconds.
    pub time_s: f64,
}

/// Refuses, before a byte is written, a schedule file of `frames` frames that would not
/// fit in the space free where `path` goes: `fat-tree:256,3` (2^22 hosts) makes 12.6 MB
/// per frame and 53 TB in all, and a run had begun to fill the disk. The size is the
/// frames' entries (one per host, [`format::width_for`] bytes each in the compact form,
/// about two host names in YAML); a device or a pipe (`/dev/null`) is not checked.
fn check_room<M: Structured>(model: &M, path: &Path, frames: usize) -> Result<(), StreamError> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Ok(());
    }
    let n = model.hosts();
    let per_entry = match FileFormat::of(path) {
        FileFormat::Frames => format::width_for(n),
        FileFormat::Yaml => 2 * model.host_name(n.saturating_sub(1)).len() + 10,
    };
    let per_frame = n as u128 * per_entry as u128;
    let size = format!("{frames} frames of {per_frame} bytes");
    room(path, frames as u128 * per_frame, &size, |free| {
        format!(
            "write its first frames with --prefix K (K up to {} fit), or write it elsewhere",
            free / per_frame.max(1)
        )
    })
}

/// Least bytes of an MPI plan's rank files per transfer: its `expect` line in the
/// receiver's file and its `send` and `recv` lines, each at least 10 bytes.
const MPI_BYTES_PER_TRANSFER: u128 = 30;

/// Refuses, before a byte is written, an MPI plan whose rank files would not fit in the
/// space free where `dir` goes, at [`MPI_BYTES_PER_TRANSFER`] at least per transfer:
/// `export mpi --stream fat-tree:256,3` wrote 1.7 GB of `expect` lines in 8 s, its
/// 2^22 rank files would hold 530 TB.
fn check_mpi_room<M: Structured>(model: &M, dir: &Path) -> Result<(), StreamError> {
    let n = model.hosts() as u128;
    let size = format!("{n} rank files, {} transfers", n * n.saturating_sub(1));
    room(
        dir,
        n * n.saturating_sub(1) * MPI_BYTES_PER_TRANSFER,
        &size,
        |_| "export a smaller machine, or write it elsewhere".into(),
    )
}

/// `bytes` (of `what`) to be written at `path`: an error when they exceed the space free in
/// the nearest folder that exists among `path` and its ancestors (`.` for a bare name),
/// with `advice(free)`; none when there is no such folder or its free space cannot be
/// read.
fn room(
    path: &Path,
    bytes: u128,
    what: &str,
    advice: impl Fn(u128) -> String,
) -> Result<(), StreamError> {
    let folder = path
        .ancestors()
        .map(|a| match a.as_os_str().is_empty() {
            true => Path::new("."),
            false => a,
        })
        .find(|a| a.is_dir());
    let Some(dir) = folder else {
        return Ok(());
    };
    let Ok(fs) = rustix::fs::statvfs(dir) else {
        return Ok(());
    };
    let free = fs.f_bavail as u128 * fs.f_frsize as u128;
    if bytes <= free {
        return Ok(());
    }
    let gb = |b: u128| b as f64 / 1e9;
    Err(StreamError::Io {
        file: path.display().to_string(),
        why: format!(
            "it would take about {:.1} GB ({what}), more than the {:.1} GB free in {}: {}",
            gb(bytes),
            gb(free),
            dir.display(),
            advice(free)
        ),
    })
}

/// Validates the compact schedule file `path` against `model` frame by frame, in memory
/// O(hosts + links), and lists every problem found, as the in-memory check does, up to
/// its bound ([`Findings`]): the first pass finds the pairs that are no transfer, the
/// empty frames, the transfers given twice in one frame and the congesting pairs; when
/// the exactly-once check finds sources whose transfers are wrong, a second pass over
/// the file names the repeated and missing transfers of the first 20 of them.
/// `progress` counts the transfers read.
pub fn verify_file<M: Structured>(
    model: &M,
    path: &Path,
    options: &VerifyOptions,
    progress: &AtomicU64,
) -> Result<VerifyReport, StreamError> {
    let start = Instant::now();
    let deadline = start + options.time_limit.unwrap_or(DEFAULT_TIME_LIMIT);
    let mut reader = open_for(model, path)?;
    let mut validator = Validator::new(model);
    let file = path.display().to_string();
    let mut report = VerifyReport {
        model: model.name(),
        schedule: file.clone(),
        valid: Some(false),
        problems: Vec::new(),
        stopped: None,
        report: None,
        time_s: 0.0,
    };
    let stop = |what: &str, frames: u64| {
        format!("the time limit stopped the {what} after {frames} frames")
    };
    loop {
        if options.prefix.is_some_and(|p| validator.frames() >= p) {
            break;
        }
        if Instant::now() >= deadline {
            report.stopped = Some(stop("check", validator.frames()));
            break;
        }
        let Some((place, frame)) = reader.next_frame_placed()? else {
            break;
        };
        progress.fetch_add(frame.len() as u64, Ordering::Relaxed);
        // Every problem is kept in the validator's findings.
        let _ = validator.frame_at(frame.pairs(), Some(place));
    }
    let mut whole = None;
    if options.prefix.is_none() && report.stopped.is_none() {
        match validator.finish() {
            Ok(r) => whole = Some(r),
            Err(suspects) => {
                let mut locator = Locator::new(model, &suspects);
                let mut again = open_for(model, path)?;
                let mut frames = 0u64;
                loop {
                    if Instant::now() >= deadline {
                        report.stopped = Some(stop(
                            "second pass (naming repeated and missing transfers)",
                            frames,
                        ));
                        break;
                    }
                    let Some((place, frame)) = again.next_frame_placed()? else {
                        break;
                    };
                    frames += 1;
                    let _ = locator.frame(frame.pairs(), Some(place));
                }
                let findings = validator.findings().clone();
                let mut findings = findings;
                if report.stopped.is_none() {
                    locator.finish(&mut findings)?;
                }
                report.problems = findings.lines(Some(&file));
                if report.stopped.is_some() {
                    report.problems.push(format!(
                        "the transfers of {} source{} (from {}) are sent a wrong number of \
                         times or to wrong destinations, not named: the time limit stopped \
                         the second pass",
                        suspects.len(),
                        if suspects.len() == 1 { "" } else { "s" },
                        model.host_name(suspects[0].source)
                    ));
                }
                report.time_s = start.elapsed().as_secs_f64();
                return Ok(report);
            }
        }
    }
    let findings = validator.findings();
    if findings.is_empty() {
        report.valid = report.stopped.is_none().then_some(true);
        report.report = Some(whole.unwrap_or_else(|| validator.finish_prefix()));
    } else {
        report.problems = findings.lines(Some(&file));
    }
    report.time_s = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Opens a compact schedule file and checks its header against the model.
fn open_for<M: Structured>(model: &M, path: &Path) -> Result<FrameReader, StreamError> {
    let reader = FrameReader::open(path)?;
    let h = reader.header();
    let bad = |field: &str, why: String| StreamError::Format {
        file: path.display().to_string(),
        at: format!("header field {field}"),
        why,
    };
    if h.model != model.name() {
        return Err(bad(
            "model",
            format!(
                "this schedule is for model {:?}, not for {:?}",
                h.model,
                model.name()
            ),
        ));
    }
    if h.hosts != model.hosts() {
        return Err(bad(
            "hosts",
            format!("{} hosts, but the model has {}", h.hosts, model.hosts()),
        ));
    }
    Ok(reader)
}
