//! The compact schedule format (`liquid-frames`, version 1) and a YAML writer, both
//! streaming: a frame is written as soon as it is made, and read one at a time.
//!
//! # The compact format
//!
//! A text header of `key value` lines, each ending in `\n`, closed by an empty line:
//!
//! ```text
//! liquid-frames 1
//! model fat-tree-32-3
//! hosts 8192
//! width 2
//!
//! ```
//!
//! - `model`: the name of the traffic the schedule is for (the `model:` of a YAML
//!   schedule), checked by the reader's user against the model.
//! - `hosts`: N; hosts are numbered `0..N` in the model's order (host `i` of a fat-tree is
//!   `p{i}`), and a transfer is a pair (source, destination) of host numbers (`p{s}->p{d}`).
//! - `width`: bytes per host number, the fewest that hold N - 1 (1 to 4); numbers are
//!   little-endian, unsigned.
//!
//! Then one record per timeframe, in order, each starting with a tag byte:
//!
//! - `P` (a permutation frame): N host numbers; number `h` is the host that host `h`
//!   sends to. Every host sends exactly once in such a frame.
//! - `S` (a sparse frame): a 4-byte count `c`, then `c` pairs (source, destination) of
//!   host numbers.
//!
//! The file ends with the tag `E` and the number of frames as 8 bytes: a file without it
//! was cut short, and a reader says so. Nothing may follow.
//!
//! A liquid schedule of the all-to-all of `fat-tree:32,3` is 8,191 `P` records of 8,192
//! two-byte numbers: 134 MB, against 2.6 GB of YAML.
//!
//! # Reading it
//!
//! With this crate: [`FrameReader::open`], then [`FrameReader::next_frame`] until it
//! returns `None`. Without it, in Python:
//!
//! ```python
//! def frames(path):
//!     with open(path, "rb") as f:
//!         header = {}
//!         while (line := f.readline().rstrip(b"\n")):
//!             key, value = line.decode().split(" ", 1)
//!             header[key] = value
//!         n, w = int(header["hosts"]), int(header["width"])
//!         num = lambda b: int.from_bytes(b, "little")
//!         while (tag := f.read(1)) != b"E":
//!             if tag == b"P":
//!                 data = f.read(n * w)
//!                 yield [(h, num(data[h*w:(h+1)*w])) for h in range(n)]
//!             else:  # b"S"
//!                 c = num(f.read(4))
//!                 data = f.read(2 * c * w)
//!                 yield [(num(data[2*i*w:(2*i+1)*w]), num(data[(2*i+1)*w:(2*i+2)*w]))
//!                        for i in range(c)]
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::StreamError;

/// The first header line.
pub const MAGIC: &str = "liquid-frames 1";

/// No host: `dest[h]` for a host that sends nothing in a frame.
pub const NO_HOST: u32 = u32::MAX;

/// Bytes per host number for `hosts` hosts.
pub fn width_for(hosts: usize) -> usize {
    let max = hosts.saturating_sub(1) as u64;
    (1..=4).find(|&w| max < 1u64 << (8 * w)).unwrap_or(4)
}

/// The header of a compact schedule file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The traffic's name.
    pub model: String,
    /// Number of hosts, N.
    pub hosts: usize,
    /// Bytes per host number.
    pub width: usize,
}

/// Where frames go as they are made: the compact format, YAML, or both sides of a test.
pub trait FrameSink {
    /// Takes the next frame: its transfers as (source, destination) host numbers, in
    /// the frame's order (a host may send or receive more than once in a frame when its
    /// transfers use disjoint links, as in a multi-cluster system).
    fn pairs(&mut self, pairs: &[(u32, u32)]) -> Result<(), StreamError>;
    /// Takes the next frame as a destination array: `dest[h]` is the host `h` sends to
    /// ([`NO_HOST`]: none).
    fn frame(&mut self, dest: &[u32]) -> Result<(), StreamError> {
        let pairs: Vec<(u32, u32)> = dest
            .iter()
            .enumerate()
            .filter(|(_, &d)| d != NO_HOST)
            .map(|(s, &d)| (s as u32, d))
            .collect();
        self.pairs(&pairs)
    }
    /// Ends the schedule (writes what closes the file and flushes it).
    fn finish(&mut self) -> Result<(), StreamError>;
    /// Bytes written so far.
    fn bytes(&self) -> u64;
}

fn io_error(path: &Path, e: std::io::Error) -> StreamError {
    StreamError::Io {
        file: path.display().to_string(),
        why: e.to_string(),
    }
}

/// Writes the compact format, frame by frame.
#[derive(Debug)]
pub struct FrameWriter {
    out: BufWriter<File>,
    path: PathBuf,
    hosts: usize,
    width: usize,
    frames: u64,
    bytes: u64,
    buffer: Vec<u8>,
}

impl FrameWriter {
    /// Creates `path` and writes the header.
    pub fn create(path: &Path, model: &str, hosts: usize) -> Result<FrameWriter, StreamError> {
        let file = File::create(path).map_err(|e| io_error(path, e))?;
        let width = width_for(hosts);
        let mut w = FrameWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            hosts,
            width,
            frames: 0,
            bytes: 0,
            buffer: Vec::new(),
        };
        let header = format!("{MAGIC}\nmodel {model}\nhosts {hosts}\nwidth {width}\n\n");
        w.write(header.into_bytes())?;
        Ok(w)
    }

    fn write(&mut self, bytes: Vec<u8>) -> Result<(), StreamError> {
        self.out
            .write_all(&bytes)
            .map_err(|e| io_error(&self.path, e))?;
        self.bytes += bytes.len() as u64;
        self.buffer = bytes;
        Ok(())
    }

    fn number(buffer: &mut Vec<u8>, x: u32, width: usize) {
        buffer.extend_from_slice(&x.to_le_bytes()[..width]);
    }
}

impl FrameSink for FrameWriter {
    /// A `P` record when host h sends the h-th transfer, for every host; an `S` record
    /// otherwise.
    fn pairs(&mut self, pairs: &[(u32, u32)]) -> Result<(), StreamError> {
        let mut b = std::mem::take(&mut self.buffer);
        b.clear();
        let permutation =
            pairs.len() == self.hosts && pairs.iter().enumerate().all(|(h, p)| p.0 as usize == h);
        if permutation {
            b.push(b'P');
            for &(_, d) in pairs {
                Self::number(&mut b, d, self.width);
            }
        } else {
            b.push(b'S');
            b.extend_from_slice(&(pairs.len() as u32).to_le_bytes());
            for &(s, d) in pairs {
                Self::number(&mut b, s, self.width);
                Self::number(&mut b, d, self.width);
            }
        }
        self.write(b)?;
        self.frames += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), StreamError> {
        let mut b = vec![b'E'];
        b.extend_from_slice(&self.frames.to_le_bytes());
        self.write(b)?;
        self.out.flush().map_err(|e| io_error(&self.path, e))
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Writes a YAML schedule file (`model:` and `timeframes:`, one flow list per frame, the
/// form `liquid verify` reads without `--stream`), frame by frame. Transfer ids are
/// `{host}->{host}` with the names `host_name` gives.
pub struct YamlWriter<F: Fn(usize) -> String> {
    out: BufWriter<File>,
    path: PathBuf,
    host_name: F,
    bytes: u64,
    line: String,
}

impl<F: Fn(usize) -> String> YamlWriter<F> {
    /// Creates `path` and writes the `model:` line.
    pub fn create(path: &Path, model: &str, host_name: F) -> Result<Self, StreamError> {
        let file = File::create(path).map_err(|e| io_error(path, e))?;
        let mut w = YamlWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            host_name,
            bytes: 0,
            line: String::new(),
        };
        // Model names of generated models are plain scalars (letters, digits, dashes).
        let head = format!("model: {model}\ntimeframes:\n");
        w.put(head)?;
        Ok(w)
    }

    fn put(&mut self, s: String) -> Result<(), StreamError> {
        self.out
            .write_all(s.as_bytes())
            .map_err(|e| io_error(&self.path, e))?;
        self.bytes += s.len() as u64;
        self.line = s;
        Ok(())
    }
}

impl<F: Fn(usize) -> String> FrameSink for YamlWriter<F> {
    fn pairs(&mut self, pairs: &[(u32, u32)]) -> Result<(), StreamError> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        line.push_str("  - [");
        for (i, &(s, d)) in pairs.iter().enumerate() {
            if i > 0 {
                line.push_str(", ");
            }
            line.push_str(&(self.host_name)(s as usize));
            line.push_str("->");
            line.push_str(&(self.host_name)(d as usize));
        }
        line.push_str("]\n");
        self.put(line)
    }

    fn finish(&mut self) -> Result<(), StreamError> {
        self.out.flush().map_err(|e| io_error(&self.path, e))
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// One frame as read: its transfers as (source, destination) host numbers.
#[derive(Debug, Clone, Copy)]
pub enum Frame<'a> {
    /// A `P` record: host `h` sends to `dest[h]`.
    Permutation(&'a [u32]),
    /// An `S` record: the pairs, flattened (`[s0, d0, s1, d1, …]`).
    Sparse(&'a [u32]),
}

impl Frame<'_> {
    /// The transfers of the frame, in file order.
    pub fn pairs(&self) -> Box<dyn Iterator<Item = (u32, u32)> + '_> {
        match *self {
            Frame::Permutation(d) => Box::new(d.iter().enumerate().map(|(s, &d)| (s as u32, d))),
            Frame::Sparse(p) => Box::new(p.chunks_exact(2).map(|c| (c[0], c[1]))),
        }
    }

    /// Number of transfers.
    pub fn len(&self) -> usize {
        match *self {
            Frame::Permutation(d) => d.len(),
            Frame::Sparse(p) => p.len() / 2,
        }
    }

    /// Whether the frame has no transfer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads the compact format one frame at a time, in O(hosts) memory.
#[derive(Debug)]
pub struct FrameReader {
    input: BufReader<File>,
    file: String,
    header: Header,
    offset: u64,
    frames: u64,
    ended: bool,
    raw: Vec<u8>,
    numbers: Vec<u32>,
    place: crate::validate::FramePlace,
}

impl FrameReader {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<FrameReader, StreamError> {
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let name = path.display().to_string();
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut offset = 0u64;
        let bad = |line: usize, why: String| StreamError::Format {
            file: name.clone(),
            at: format!("line {line}"),
            why,
        };
        let mut lines = Vec::new();
        loop {
            let mut raw = Vec::new();
            let n = input
                .by_ref()
                .take(4096)
                .read_until(b'\n', &mut raw)
                .map_err(|e| io_error(path, e))?;
            offset += n as u64;
            if n == 0 || raw.last() != Some(&b'\n') {
                return Err(bad(
                    lines.len() + 1,
                    "the header ends without its empty line (or a line is too long)".into(),
                ));
            }
            raw.pop();
            let line = String::from_utf8(raw)
                .map_err(|_| bad(lines.len() + 1, "the header is not UTF-8 text".into()))?;
            if line.is_empty() {
                break;
            }
            if lines.is_empty() && line != MAGIC {
                let yaml = line.starts_with("model:") || line.starts_with("timeframes:");
                return Err(bad(
                    1,
                    format!(
                        "not a compact schedule file: the first line is not {MAGIC:?}{}",
                        if yaml {
                            " (a YAML schedule: verify it without --stream)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            lines.push(line);
        }
        if lines.first().map(String::as_str) != Some(MAGIC) {
            return Err(bad(
                1,
                format!("not a compact schedule file: the first line is not {MAGIC:?}"),
            ));
        }
        let (mut model, mut hosts, mut width) = (None, None, None);
        for (i, line) in lines.iter().enumerate().skip(1) {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let number = |what: &str| {
                value
                    .parse::<usize>()
                    .map_err(|_| bad(i + 1, format!("{what} {value:?} is not a whole number")))
            };
            let seen = match key {
                "model" => model.replace(value.to_string()).is_some(),
                "hosts" => hosts.replace(number("hosts")?).is_some(),
                "width" => width.replace(number("width")?).is_some(),
                _ => return Err(bad(i + 1, format!("unknown header field {key:?}"))),
            };
            if seen {
                return Err(bad(
                    i + 1,
                    format!("the header gives {key} twice (a field is given once)"),
                ));
            }
        }
        let missing = |f: &str| bad(lines.len() + 1, format!("the header has no {f} line"));
        let header = Header {
            model: model.ok_or_else(|| missing("model"))?,
            hosts: hosts.ok_or_else(|| missing("hosts"))?,
            width: width.ok_or_else(|| missing("width"))?,
        };
        if !(1..=4).contains(&header.width) {
            return Err(bad(0, format!("width {} is not 1 to 4", header.width)));
        }
        if header.hosts == 0 || (header.hosts - 1) as u64 >= 1u64 << (8 * header.width) {
            return Err(bad(
                0,
                format!(
                    "{} hosts do not fit numbers of width {}",
                    header.hosts, header.width
                ),
            ));
        }
        Ok(FrameReader {
            input,
            file: name,
            header,
            offset,
            frames: 0,
            ended: false,
            raw: Vec::new(),
            numbers: Vec::new(),
            place: crate::validate::FramePlace {
                record: 0,
                first: 0,
                stride: 0,
            },
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Frames read so far.
    pub fn frames_read(&self) -> u64 {
        self.frames
    }

    fn bad(&self, why: String) -> StreamError {
        StreamError::Format {
            file: self.file.clone(),
            at: format!("byte {} (frame {})", self.offset, self.frames + 1),
            why,
        }
    }

    fn read_exact(&mut self, n: usize, what: &str) -> Result<(), StreamError> {
        self.raw.resize(n, 0);
        match self.input.read_exact(&mut self.raw) {
            Ok(()) => {
                self.offset += n as u64;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(self.bad(format!("the file ends inside {what}: it was cut short")))
            }
            Err(e) => Err(self.bad(e.to_string())),
        }
    }

    /// Reads `n` bytes into `raw`, growing it only as the bytes arrive: a count that
    /// promises more than the file holds costs no more memory than the file.
    fn read_at_most(&mut self, n: u64, what: &str) -> Result<(), StreamError> {
        self.raw.clear();
        let got = (&mut self.input)
            .take(n)
            .read_to_end(&mut self.raw)
            .map_err(|e| self.bad(e.to_string()))?;
        self.offset += got as u64;
        if (got as u64) < n {
            return Err(self.bad(format!("the file ends inside {what}: it was cut short")));
        }
        Ok(())
    }

    fn decode(&mut self, count: usize) -> Result<(), StreamError> {
        let w = self.header.width;
        self.numbers.clear();
        self.numbers.extend(self.raw.chunks_exact(w).map(|c| {
            let mut b = [0u8; 4];
            b[..w].copy_from_slice(c);
            u32::from_le_bytes(b)
        }));
        debug_assert_eq!(self.numbers.len(), count);
        Ok(())
    }

    /// The next frame, or `None` after the end record (whose count is checked).
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, StreamError> {
        Ok(self.read_record()?.map(|sparse| self.frame(sparse)))
    }

    /// [`FrameReader::next_frame`] with where the frame is in the file.
    pub fn next_frame_placed(
        &mut self,
    ) -> Result<Option<(crate::validate::FramePlace, Frame<'_>)>, StreamError> {
        Ok(self
            .read_record()?
            .map(|sparse| (self.place, self.frame(sparse))))
    }

    fn frame(&self, sparse: bool) -> Frame<'_> {
        if sparse {
            Frame::Sparse(&self.numbers)
        } else {
            Frame::Permutation(&self.numbers)
        }
    }

    /// Reads the next record: `Some(true)` for a sparse frame, `Some(false)` for a
    /// permutation, `None` after the end record.
    fn read_record(&mut self) -> Result<Option<bool>, StreamError> {
        if self.ended {
            return Ok(None);
        }
        let record = self.offset;
        let mut tag = [0u8; 1];
        match self.input.read(&mut tag) {
            Ok(1) => self.offset += 1,
            Ok(_) => {
                return Err(
                    self.bad("the file ends without its end record (E): it was cut short".into())
                )
            }
            Err(e) => return Err(self.bad(e.to_string())),
        }
        let w = self.header.width;
        match tag[0] {
            b'P' => {
                let n = self.header.hosts;
                self.read_exact(n * w, "a permutation frame")?;
                self.decode(n)?;
                self.frames += 1;
                self.place = crate::validate::FramePlace {
                    record,
                    first: record + 1,
                    stride: w as u64,
                };
                Ok(Some(false))
            }
            b'S' => {
                self.read_exact(4, "a frame's count")?;
                let c = u32::from_le_bytes([self.raw[0], self.raw[1], self.raw[2], self.raw[3]]);
                let c = c as u64;
                // A frame holds distinct transfers: at most hosts × hosts pairs.
                let hosts = self.header.hosts as u64;
                if c > hosts.saturating_mul(hosts) {
                    return Err(self.bad(format!(
                        "a sparse frame of {c} pairs: more than the {hosts} × {hosts} pairs of \
                         hosts"
                    )));
                }
                // The count is read, not trusted: the bytes are read as they come (memory
                // bounded by the file), and a file that ends first says so.
                self.read_at_most(2 * c * w as u64, "a sparse frame")?;
                self.decode(2 * c as usize)?;
                self.frames += 1;
                self.place = crate::validate::FramePlace {
                    record,
                    first: record + 5,
                    stride: 2 * w as u64,
                };
                Ok(Some(true))
            }
            b'E' => {
                self.read_exact(8, "the end record")?;
                let mut b = [0u8; 8];
                b.copy_from_slice(&self.raw);
                let count = u64::from_le_bytes(b);
                if count != self.frames {
                    return Err(self.bad(format!(
                        "the end record counts {count} frames, the file holds {}",
                        self.frames
                    )));
                }
                let mut rest = [0u8; 1];
                if self
                    .input
                    .read(&mut rest)
                    .map_err(|e| self.bad(e.to_string()))?
                    != 0
                {
                    return Err(self.bad("bytes after the end record".into()));
                }
                self.ended = true;
                Ok(None)
            }
            t => Err(self.bad(format!(
                "unknown record tag {:?} (expected P, S or E)",
                char::from(t)
            ))),
        }
    }
}
