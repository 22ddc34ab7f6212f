//! The MPI export of a streamed schedule: per rank, its receives and sends in frame order,
//! written as the frames are made, for the C runtime of `liquid-mpi` (`liquid-mpi-run`).
//!
//! The directory is the one `liquid export mpi MODEL --mode frames` writes in memory
//! (`liquid_mpi::export`): `rank-R.txt` per rank in the per-rank format of
//! `crates/mpi/README.md` (each line made by `liquid_mpi::format`), `ranks.txt`,
//! `hostfile` and `manifest.json`. Rank `r` is host `r` of the model, as the in-memory
//! export numbers them (hosts in order of first use: the all-to-all's first transfers are
//! `h0->h1`, `h0->h2`, … so rank r is the model's host r). Frame `f` is step `f`: every
//! rank posts its receive of the frame, then its send, waits for both (`wait all f`) and
//! enters `MPI_Barrier` (not after the last frame).
//!
//! **Memory and open files.** Nothing grows with the transfers: the lines of the frames
//! made are held per rank in a spool of a fixed size ([`MpiOptions::spool`], 32 MiB by
//! default) and appended to the rank files when it is full, one file open at a time. So
//! 8,192 or 65,536 ranks need no raised `ulimit -n`; the cost is one open and close per
//! rank per spool flush (about 8,192 × 60 for `fat-tree:32,3` with 1 MB messages).
//! Memory: the spool, plus O(hosts + frames) (one step figure per frame for the manifest).
//!
//! **The prediction** in `manifest.json` is not a run of `liquid_sim` (that would hold
//! every message): it is, in closed form, what `liquid_mpi::model::predict` computes by
//! simulating the runtime's plan, for frames whose transfers share no link (the
//! validator checks that of every frame as it is made) and empty barrier messages
//! (`--envelope 0`, the default; another envelope is refused): each message alone on its
//! route takes the overhead, the route's latency and its bytes at the route's bandwidth,
//! once both its sender and its receiver have posted it; a send below `--eager-limit`
//! bytes completes when posted, a larger one on delivery; each rank enters the barrier
//! after its `wait all`; the barrier is SMPI's basic linear one (see `Clock`); each
//! rank's time runs from its own exit of the first barrier, and `total_s` is the largest.
//! The steps' figures are the runtime's too. `plan_s` is the frames' makespan alone
//! (frame `f + 1` starts when frame `f` ends). Both, and every step, equal the in-memory
//! export's to 1e-9 (tested on `fat-tree:4,3` and `fat-tree:8,3`, eager and not, and on
//! multi-cluster schedules whose frames leave ranks idle). Cost: O(pairs) per frame,
//! O(hosts) memory.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use liquid_mpi::format;
use liquid_mpi::program::{Message, Op, Piece, Wait};
use liquid_mpi::report::{Manifest, Prediction, StepFigures};
use serde::Serialize;

use crate::format::FrameSink;
use crate::{StreamError, Structured};

/// The spool's default size, bytes.
pub const DEFAULT_SPOOL: usize = 32 << 20;

/// The mode the streamed export writes (the only one: `async` and `all-at-once` post every
/// receive before the first send, which a rank file written frame by frame cannot do
/// without holding all of them).
pub const MODE: &str = "frames";

/// What the streamed MPI export is asked.
#[derive(Debug, Clone)]
pub struct MpiOptions {
    /// The output directory (created if needed).
    pub dir: PathBuf,
    /// Bytes per transfer (a whole number up to 2^31 − 1, MPI's `int` count).
    pub bytes: u64,
    /// Bandwidth of every link, bytes per second (positive, finite).
    pub bandwidth: f64,
    /// Latency of every link, seconds (finite, not negative).
    pub latency: f64,
    /// Software overhead per message of the prediction, seconds.
    pub overhead: f64,
    /// Sends strictly below this many bytes complete when posted (eager), in the
    /// prediction ([`liquid_mpi::RuntimeModel::eager_limit`]).
    pub eager_limit: u64,
    /// Bytes of rank lines held before they are appended to the rank files.
    pub spool: usize,
    /// Where the schedule comes from, for the manifest.
    pub source: String,
}

impl MpiOptions {
    /// Checks the figures: a whole number of bytes an MPI count holds, a positive finite
    /// bandwidth, finite non-negative latency and overhead.
    pub fn check(&self) -> Result<(), StreamError> {
        let bad = |why: String| Err(StreamError::Parameter(why));
        if self.bytes > i32::MAX as u64 {
            return bad(format!(
                "--size: {} bytes is more than 2^31-1 (MPI's int count)",
                self.bytes
            ));
        }
        if !(self.bandwidth.is_finite() && self.bandwidth > 0.0) {
            return bad(format!(
                "the link bandwidth must be positive and finite, not {} bytes/s",
                self.bandwidth
            ));
        }
        for (what, v) in [
            ("--link-latency", self.latency),
            ("--overhead", self.overhead),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(format!("{what} must be finite and not negative, not {v}"));
            }
        }
        Ok(())
    }
}

/// What `liquid export mpi MODEL --stream` was given, for [`options_from`].
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// `--out`.
    pub dir: &'a Path,
    /// `--plan schedule` (the default).
    pub plan_is_schedule: bool,
    /// `--mode frames` (the default).
    pub frames_mode: bool,
    /// `--schedule` or `--engine` given.
    pub schedule_or_engine: bool,
    /// `--sizes` given.
    pub sizes_file: bool,
    /// `--size`, bytes per transfer.
    pub size: f64,
    /// `--link-throughput`, MB/s.
    pub link_throughput: Option<f64>,
    /// `--link-latency`, seconds.
    pub link_latency: Option<f64>,
    /// `--overhead`, seconds.
    pub overhead: f64,
    /// `--envelope`, bytes (only 0: see [`options_from`]).
    pub envelope: f64,
    /// `--eager-limit`, bytes.
    pub eager_limit: u64,
}

/// The export's options from what the command was given, refusing what the streamed
/// export cannot honour (each refusal names its option).
pub fn options_from<M: Structured>(
    model: &M,
    asked: &Asked<'_>,
) -> Result<MpiOptions, StreamError> {
    let refuse = |why: &str| Err(StreamError::Parameter(format!("--stream: {why}")));
    if !asked.plan_is_schedule {
        return refuse("the streamed export writes the liquid schedule (--plan schedule)");
    }
    if !asked.frames_mode {
        return refuse(
            "the streamed export writes --mode frames only (async and all-at-once post every \
             receive before the first send, which a file written frame by frame cannot do)",
        );
    }
    if asked.schedule_or_engine {
        return refuse(
            "the streamed schedule is made from closed forms: no --schedule or --engine",
        );
    }
    if asked.sizes_file {
        return refuse("--sizes names transfers one by one; give one --size for all");
    }
    if asked.envelope != 0.0 {
        return refuse(&format!(
            "--envelope {}: the streamed prediction models the barriers in closed form with \
             empty messages; with an envelope the N-1 barrier messages to rank 0 share its \
             link, which takes the simulator (export in memory, or give --envelope 0)",
            asked.envelope
        ));
    }
    let size = asked.size;
    if !(size.is_finite() && size >= 0.0 && size.fract() == 0.0 && size <= i32::MAX as f64) {
        return refuse(&format!(
            "--size {size} is not a whole number of bytes up to 2^31-1 (MPI's int count)"
        ));
    }
    let Some(mb) = asked.link_throughput else {
        return refuse(&format!(
            "the links of {} have no bandwidth: pass --link-throughput (MB/s)",
            model.name()
        ));
    };
    let options = MpiOptions {
        dir: asked.dir.to_path_buf(),
        bytes: size as u64,
        bandwidth: mb * 1e6,
        latency: asked.link_latency.unwrap_or(0.0),
        overhead: asked.overhead,
        eager_limit: asked.eager_limit,
        spool: DEFAULT_SPOOL,
        source: format!("streamed {}", model.method()),
    };
    options.check()?;
    Ok(options)
}

/// What the streamed MPI export wrote (the fields of `liquid export mpi`'s report, and
/// the bytes written).
#[derive(Debug, Clone, Serialize)]
pub struct MpiReport {
    /// The directory.
    pub dir: String,
    /// The plan's mode (`frames`).
    pub mode: String,
    /// Ranks (`mpirun -np`).
    pub ranks: usize,
    /// Steps (frames).
    pub steps: usize,
    /// Messages (transfers).
    pub messages: u64,
    /// Bytes of all messages.
    pub bytes: u64,
    /// The closed-form prediction of the run's time as the runtime reports it (barriers
    /// included, the manifest's `total_s`), seconds.
    pub predicted_s: f64,
    /// Bytes written to the directory (rank files, ranks.txt, hostfile, manifest).
    pub output_bytes: u64,
    /// How often the spool was appended to the rank files.
    pub spool_flushes: u64,
    /// The command that runs it here (Open MPI), every rank on this machine.
    pub run: String,
    /// The command that runs it on the machines of `DIR/hostfile` (rank i on its line i).
    pub run_on_hosts: String,
}

/// Writes the per-rank files of the frames it is given ([`FrameSink`]), then `ranks.txt`,
/// `hostfile` and `manifest.json` at [`FrameSink::finish`].
pub struct MpiWriter<'m, M: Structured> {
    model: &'m M,
    options: MpiOptions,
    frames: usize,
    made: usize,
    pending: Vec<Vec<u8>>,
    held: usize,
    flushes: u64,
    written: u64,
    messages: u64,
    route: Vec<u32>,
    /// The frames' makespan so far, frame after frame (the plan alone: `plan_s`).
    now: f64,
    /// The runtime's clock (module docs).
    clock: Clock,
    steps: Vec<StepFigures>,
    message: Message,
    finished: Option<MpiReport>,
}

impl<'m, M: Structured> MpiWriter<'m, M> {
    /// Creates the directory and every rank file with its header and `expect` lines (the
    /// all-to-all: `bytes` from every other rank), one file open at a time.
    pub fn create(model: &'m M, options: MpiOptions) -> Result<Self, StreamError> {
        Self::create_until(model, options, None)
    }

    /// [`MpiWriter::create`], looking at the clock between rank files: past `deadline`,
    /// an error that says how far it got (the `expect` lines alone are hosts² lines: at
    /// 2^22 hosts they ran on past a 2 s limit).
    pub fn create_until(
        model: &'m M,
        options: MpiOptions,
        deadline: Option<std::time::Instant>,
    ) -> Result<Self, StreamError> {
        options.check()?;
        let dir = &options.dir;
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
        let n = model.hosts();
        let mut written = 0;
        for r in 0..n {
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Err(StreamError::Parameter(format!(
                    "{}: the time limit stopped the plan's rank files after {r} of {n} (their \
                     headers and expect lines, before any frame); raise --time-limit",
                    dir.display()
                )));
            }
            let path = rank_file(dir, r);
            let file = File::create(&path).map_err(|e| io_error(&path, e))?;
            let mut w = BufWriter::with_capacity(1 << 16, file);
            let mut put = |s: &str| -> Result<(), StreamError> {
                written += s.len() as u64;
                w.write_all(s.as_bytes()).map_err(|e| io_error(&path, e))
            };
            put(&format::header(r as u32, n as u32, MODE))?;
            for s in (0..n).filter(|&s| s != r) {
                put(&format::expect(s as u32, options.bytes))?;
            }
            w.flush().map_err(|e| io_error(&path, e))?;
        }
        Ok(MpiWriter {
            model,
            frames: model.frames(),
            made: 0,
            pending: vec![Vec::new(); n],
            held: 0,
            flushes: 0,
            written,
            messages: 0,
            route: Vec::new(),
            now: 0.0,
            clock: Clock::new(model, &options),
            steps: Vec::new(),
            message: Message {
                step: 0,
                from: 0,
                to: 0,
                pieces: vec![Piece {
                    src: 0,
                    dst: 0,
                    offset: 0,
                    len: options.bytes,
                }],
            },
            options,
            finished: None,
        })
    }

    /// What was written, once [`FrameSink::finish`] ran.
    pub fn report(&self) -> Option<&MpiReport> {
        self.finished.as_ref()
    }

    fn push(&mut self, rank: usize, line: &str) {
        self.pending[rank].extend_from_slice(line.as_bytes());
        self.held += line.len();
    }

    fn line(&mut self, kind: &str, from: usize, to: usize, step: u32) {
        let m = &mut self.message;
        m.step = step;
        m.from = from as u32;
        m.to = to as u32;
        m.pieces[0].src = from as u32;
        m.pieces[0].dst = to as u32;
        let text = format::message_line(kind, m);
        self.push(if kind == "recv" { to } else { from }, &text);
    }

    /// Appends every rank's held lines to its file, one file open at a time.
    fn flush(&mut self) -> Result<(), StreamError> {
        for (r, lines) in self.pending.iter_mut().enumerate() {
            if lines.is_empty() {
                continue;
            }
            let path = rank_file(&self.options.dir, r);
            let mut file = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|e| io_error(&path, e))?;
            file.write_all(lines).map_err(|e| io_error(&path, e))?;
            self.written += lines.len() as u64;
            lines.clear();
        }
        self.held = 0;
        self.flushes += 1;
        Ok(())
    }

    /// The time a message of `bytes` from `s` to `d` takes alone on its route: the
    /// overhead, the route's latency, the bytes at the route's bandwidth (the fluid model
    /// for messages that share no link).
    fn alone(&mut self, s: usize, d: usize, bytes: u64) -> f64 {
        message_time(self.model, &self.options, &mut self.route, s, d, bytes)
    }

    fn write_text(&mut self, name: &str, text: &str) -> Result<(), StreamError> {
        let path = self.options.dir.join(name);
        std::fs::write(&path, text).map_err(|e| io_error(&path, e))?;
        self.written += text.len() as u64;
        Ok(())
    }
}

impl<M: Structured> FrameSink for MpiWriter<'_, M> {
    fn pairs(&mut self, pairs: &[(u32, u32)]) -> Result<(), StreamError> {
        let f = self.made;
        let step = f as u32;
        let mut busy = vec![false; self.pending.len()];
        let count = pairs.len() as u64;
        for &(s, d) in pairs {
            self.line("recv", s as usize, d as usize, step);
            busy[d as usize] = true;
        }
        for &(s, d) in pairs {
            self.line("send", s as usize, d as usize, step);
            busy[s as usize] = true;
        }
        let wait = format::op_line(&Op::Wait(Wait::All, Some(step)), &[]);
        let barrier = format::op_line(&Op::Barrier, &[]);
        let last = f + 1 >= self.frames;
        for (r, &b) in busy.iter().enumerate() {
            if b {
                self.push(r, &wait);
            }
            if !last {
                self.push(r, &barrier);
            }
        }
        let (end, figures) = self.runtime_frame(pairs, last);
        self.steps.push(StepFigures {
            step: f,
            label: format!("frame {}", f + 1),
            start_s: figures.map(|x| x.0),
            end_s: figures.map(|x| x.1),
            time_s: figures.map(|x| x.1 - x.0),
            bytes: (count * self.options.bytes) as f64,
            messages: count as usize,
        });
        self.now = end;
        self.messages += count;
        self.made += 1;
        if self.held >= self.options.spool {
            self.flush()?;
        }
        Ok(())
    }

    /// Ends every rank file (`end`), then writes `ranks.txt`, `hostfile` and the manifest.
    fn finish(&mut self) -> Result<(), StreamError> {
        if self.made != self.frames {
            return Err(StreamError::Parameter(format!(
                "the MPI export needs every frame: {} of {} were made, so {} is incomplete",
                self.made,
                self.frames,
                self.options.dir.display()
            )));
        }
        let n = self.model.hosts();
        for r in 0..n {
            self.push(r, format::END);
        }
        self.flush()?;
        let mut ranks = String::from("# rank host\n");
        let mut hostfile = String::new();
        let names: Vec<String> = (0..n).map(|h| self.model.host_name(h)).collect();
        for (r, h) in names.iter().enumerate() {
            ranks.push_str(&format!("{r} {h}\n"));
            hostfile.push_str(&format!("{h}\n"));
        }
        self.write_text("ranks.txt", &ranks)?;
        self.write_text("hostfile", &hostfile)?;
        let o = &self.options;
        let bytes = self.messages * o.bytes;
        let manifest = Manifest {
            format: "liquid-mpi-export/1".into(),
            model: self.model.name(),
            mode: MODE.into(),
            source: o.source.clone(),
            ranks: names,
            steps: self.steps.len(),
            messages: self.messages as usize,
            bytes,
            overhead_s: o.overhead,
            prediction: Prediction {
                total_s: Some(self.clock.total),
                plan_s: Some(self.now),
                stopped: None,
                library: Some(format!(
                    "0 bytes of envelope per message; sends below {} bytes eager; MPI_Barrier \
                     basic linear (SMPI's default)",
                    o.eager_limit
                )),
                steps: std::mem::take(&mut self.steps),
            },
        };
        let json = serde_json::to_string_pretty(&manifest)
            .map_err(|e| StreamError::Parameter(format!("manifest: {e}")))?;
        self.write_text("manifest.json", &(json + "\n"))?;
        let dir = self.options.dir.display().to_string();
        self.finished = Some(MpiReport {
            run: liquid_mpi::export::run_here(n, &dir),
            run_on_hosts: liquid_mpi::export::run_on_hosts(n, &dir),
            dir,
            mode: MODE.into(),
            ranks: n,
            steps: manifest.steps,
            messages: self.messages,
            bytes,
            predicted_s: self.clock.total,
            output_bytes: self.written,
            spool_flushes: self.flushes,
        });
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.written
    }
}

impl<M: Structured> MpiWriter<'_, M> {
    /// Runs frame `pairs` on the runtime's clock (module docs): when each message is
    /// posted, delivered and its send complete, each busy rank's wait, then the barrier
    /// (none after the `last` frame). Returns the frame's end in the plan alone (frame
    /// after frame: its longest message after the last frame's end), and its start and
    /// end as the runtime reports a step (each rank's times from its own exit of the
    /// first barrier), `None` for a frame without messages. O(pairs) time, O(hosts)
    /// memory.
    fn runtime_frame(&mut self, pairs: &[(u32, u32)], last: bool) -> (f64, Option<(f64, f64)>) {
        let mut plan_end = self.now;
        let bytes = self.options.bytes;
        let eager = bytes < self.options.eager_limit;
        let mut figures: Option<(f64, f64)> = None;
        for &(s, d) in pairs {
            let (s, d) = (s as usize, d as usize);
            let (post_s, post_d) = (self.clock.now(s), self.clock.now(d));
            let alone = self.alone(s, d, bytes);
            plan_end = plan_end.max(self.now + alone);
            let delivered = post_s.max(post_d) + alone;
            let sent = if eager { post_s } else { delivered };
            self.clock.busy(s, sent);
            self.clock.busy(d, delivered);
            let start = (post_s - self.clock.t0(s)).min(post_d - self.clock.t0(d));
            let end = (sent - self.clock.t0(s)).max(delivered - self.clock.t0(d));
            figures = Some(figures.map_or((start, end), |(a, b)| (a.min(start), b.max(end))));
        }
        self.clock.end_frame(last);
        (plan_end, figures)
    }
}

/// The time a message of `bytes` from `s` to `d` takes alone on its route, `route` a
/// buffer: the overhead, the route's latency (the sum of its links'), then the bytes at
/// the route's bandwidth (every link's), as `liquid_sim` runs a message that shares no
/// link.
fn message_time<M: Structured>(
    model: &M,
    o: &MpiOptions,
    route: &mut Vec<u32>,
    s: usize,
    d: usize,
    bytes: u64,
) -> f64 {
    model.route(s, d, route);
    let mut t = 0.0;
    if o.overhead > 0.0 {
        t += o.overhead;
    }
    let latency: f64 = route.iter().map(|_| o.latency).sum();
    if latency > 0.0 {
        t += latency;
    }
    if bytes > 0 {
        t += bytes as f64 / o.bandwidth;
    }
    t
}

/// The runtime's clock in closed form (`liquid_mpi::model`'s plan of a frames-mode
/// program, for link-disjoint frames and empty barrier messages):
///
/// - the barrier is SMPI's basic linear one: rank i > 0 sends rank 0 an empty message once
///   both have entered (`max(e_i, e_0) + z_i`, `z_i` the overhead and the route latency
///   from i to 0), rank 0 leaves at `R = max(e_0, max_i max(e_i, e_0) + z_i)` and rank i at
///   `R + y_i` (`y_i` from 0 to i). After a barrier every rank's clock is `R + y_i`
///   (`y_0 = 0`): one number, R, holds all of them;
/// - in a frame, a rank that sends or receives enters the barrier at the end of its
///   `wait all`: when its receive is delivered and its send complete (eager sends when
///   posted); the others when they left the last one. Messages of a frame share no link
///   and frames are separated by barriers, so each runs alone on its route.
///   The ranks that take no part in the frame contribute `max(R + B, e_0 + A)` to the
///   gather, with `A = max z_i` and `B = max (y_i + z_i)`: O(pairs) per frame, not
///   O(hosts);
/// - the run's time is each rank's last completion less its exit of the first barrier,
///   the largest over the ranks.
#[derive(Debug, Clone)]
struct Clock {
    /// z_i, the empty message from i to 0 (z_0 = 0).
    to_root: Vec<f64>,
    /// y_i, the empty message from 0 to i (y_0 = 0).
    from_root: Vec<f64>,
    a: f64,
    b: f64,
    /// The last barrier's release, R.
    release: f64,
    /// The first barrier's release, R_0.
    first: f64,
    /// Per rank, the end of its wait in the current frame (NaN: idle so far).
    wait: Vec<f64>,
    touched: Vec<u32>,
    /// The run's time so far (set by the last frame).
    total: f64,
}

impl Clock {
    fn new<M: Structured>(model: &M, options: &MpiOptions) -> Clock {
        let n = model.hosts();
        let mut route = Vec::new();
        let mut empty = |s: usize, d: usize| {
            if s == d {
                0.0
            } else {
                message_time(model, options, &mut route, s, d, 0)
            }
        };
        let to_root: Vec<f64> = (0..n).map(|i| empty(i, 0)).collect();
        let from_root: Vec<f64> = (0..n).map(|i| empty(0, i)).collect();
        let a = to_root[1..].iter().copied().fold(0.0, f64::max);
        let b = (1..n)
            .map(|i| from_root[i] + to_root[i])
            .fold(0.0, f64::max);
        // The first barrier, entered by every rank at 0.
        let first = a;
        Clock {
            to_root,
            from_root,
            a,
            b,
            release: first,
            first,
            wait: vec![f64::NAN; n],
            touched: Vec::new(),
            total: 0.0,
        }
    }

    /// Rank r's clock since the last barrier.
    fn now(&self, r: usize) -> f64 {
        self.release + self.from_root[r]
    }

    /// Rank r's exit of the first barrier.
    fn t0(&self, r: usize) -> f64 {
        self.first + self.from_root[r]
    }

    /// Rank r's wait in this frame ends at `at` or later.
    fn busy(&mut self, r: usize, at: f64) {
        let w = &mut self.wait[r];
        if w.is_nan() {
            *w = self.release + self.from_root[r];
            self.touched.push(r as u32);
        }
        *w = w.max(at);
    }

    /// Ends the frame: the barrier after it, or the run's time after the last one.
    fn end_frame(&mut self, last: bool) {
        let idle = self.release - self.first;
        if last {
            let mut total = idle;
            for &r in &self.touched {
                let r = r as usize;
                total = total.max(self.wait[r] - self.t0(r));
            }
            self.total = total;
        } else {
            let e0 = if self.wait[0].is_nan() {
                self.release
            } else {
                self.wait[0]
            };
            let mut release = e0.max(self.release + self.b).max(e0 + self.a);
            for &r in self.touched.iter().filter(|&&r| r != 0) {
                let r = r as usize;
                release = release.max(self.wait[r].max(e0) + self.to_root[r]);
            }
            self.release = release;
        }
        for &r in &self.touched {
            self.wait[r as usize] = f64::NAN;
        }
        self.touched.clear();
    }
}

fn rank_file(dir: &Path, r: usize) -> PathBuf {
    dir.join(format!("rank-{r}.txt"))
}

fn io_error(path: &Path, e: std::io::Error) -> StreamError {
    StreamError::Io {
        file: path.display().to_string(),
        why: e.to_string(),
    }
}
