//! Schedules (partitions of a traffic into timeframes) and their validation.
//!
//! Every schedule any engine returns goes through [`validate`] before it is reported:
//! engines never trust each other, and the validator shares no code with them.

use std::fmt;

use crate::traffic::{LinkId, Traffic, TransferId};

/// A schedule: an ordered list of timeframes, each a list of transfers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Schedule {
    /// The timeframes, in execution order.
    pub frames: Vec<Vec<TransferId>>,
}

impl Schedule {
    /// A schedule from its timeframes.
    pub fn new(frames: Vec<Vec<TransferId>>) -> Self {
        Schedule { frames }
    }

    /// A schedule from the timeframe of every transfer, by transfer id: timeframe `c`
    /// holds the transfers `t` with `timeframe[t] == c`, in id order. Timeframes that no
    /// transfer uses are dropped (the others keep their order); `u32::MAX` places a
    /// transfer in none.
    pub fn from_timeframes(timeframe: &[u32]) -> Self {
        let used = timeframe
            .iter()
            .filter(|&&c| c != u32::MAX)
            .max()
            .map_or(0, |&c| c as usize + 1);
        let mut frames = vec![Vec::new(); used];
        for (t, &c) in timeframe.iter().enumerate() {
            if c != u32::MAX {
                frames[c as usize].push(TransferId(t as u32));
            }
        }
        frames.retain(|f| !f.is_empty());
        Schedule { frames }
    }

    /// The timeframe of each of the first `transfers` transfers, by id: the inverse of
    /// [`Schedule::from_timeframes`] (`u32::MAX` for a transfer in no timeframe).
    pub fn timeframes(&self, transfers: usize) -> Vec<u32> {
        let mut timeframe = vec![u32::MAX; transfers];
        for (c, frame) in self.frames.iter().enumerate() {
            for t in frame {
                timeframe[t.index()] = c as u32;
            }
        }
        timeframe
    }

    /// #(α): the number of timeframes.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the schedule has no timeframe.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The same schedule with every frame sorted by transfer id and the frames in their
    /// original order: a canonical form for stable output.
    pub fn normalized(mut self) -> Self {
        for f in &mut self.frames {
            f.sort_unstable();
        }
        self
    }

    /// The timeframes as lists of user-facing transfer ids.
    pub fn frame_names(&self, traffic: &Traffic) -> Vec<Vec<String>> {
        self.frames
            .iter()
            .map(|f| {
                f.iter()
                    .map(|&t| traffic.transfer_name(t).to_string())
                    .collect()
            })
            .collect()
    }
}

/// Why a schedule is not a valid schedule of a traffic. Timeframe indices are 0-based,
/// and messages name timeframes as a schedule file's fields, `timeframes[i]`, so that
/// they agree with the location `liquid verify` puts before them
/// (`s.yaml:11:3: timeframes[1]: transfer "a" appears in timeframes[0] and timeframes[1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScheduleError {
    /// A transfer id that the traffic does not have.
    UnknownTransfer {
        /// Timeframe index.
        frame: usize,
        /// The id as given.
        id: String,
    },
    /// A transfer of the traffic in no timeframe.
    Missing {
        /// The transfer.
        transfer: String,
    },
    /// A transfer in two places.
    Duplicated {
        /// The transfer.
        transfer: String,
        /// First timeframe it appears in.
        first: usize,
        /// Second timeframe it appears in.
        second: usize,
        /// How many of its copies the second timeframe holds beyond the first occurrence
        /// (1 for a single repeat).
        times: usize,
    },
    /// Two transfers of one timeframe share a link.
    Conflict {
        /// Timeframe index.
        frame: usize,
        /// First transfer.
        a: String,
        /// Second transfer.
        b: String,
        /// The shared link.
        link: String,
    },
    /// A timeframe with no transfer (a partition has no empty part).
    EmptyFrame {
        /// Timeframe index.
        frame: usize,
    },
}

impl fmt::Display for ScheduleError {
    /// Timeframes are named as the schedule file's fields are, `timeframes[i]` (0-based),
    /// so that a message agrees with the `timeframes[i]` location `liquid verify` puts
    /// before it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::UnknownTransfer { frame, id } => write!(
                f,
                "timeframes[{frame}]: transfer {id:?} is not in the traffic"
            ),
            ScheduleError::Missing { transfer } => {
                write!(f, "transfer {transfer:?} is in no timeframe")
            }
            ScheduleError::Duplicated {
                transfer,
                first,
                second,
                times,
            } => {
                if first == second {
                    match times + 1 {
                        2 => write!(
                            f,
                            "transfer {transfer:?} appears twice in timeframes[{first}]"
                        ),
                        k => write!(
                            f,
                            "transfer {transfer:?} appears {k} times in timeframes[{first}]"
                        ),
                    }
                } else {
                    write!(
                        f,
                        "transfer {transfer:?} appears in timeframes[{first}] and timeframes[{second}]"
                    )?;
                    if *times > 1 {
                        write!(f, " ({times} times in timeframes[{second}])")?;
                    }
                    Ok(())
                }
            }
            ScheduleError::Conflict { frame, a, b, link } => write!(
                f,
                "timeframes[{frame}]: transfers {a:?} and {b:?} congest on link {link:?}"
            ),
            ScheduleError::EmptyFrame { frame } => {
                write!(f, "timeframes[{frame}]: the timeframe is empty")
            }
        }
    }
}

impl std::error::Error for ScheduleError {}

/// What a valid schedule is, relative to its traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleReport {
    /// #(α).
    pub length: usize,
    /// Λ(X).
    pub duration: usize,
    /// length == Λ.
    pub liquid: bool,
}

/// Checks that `schedule` partitions `traffic` into simultaneous timeframes.
///
/// Checks, in order: every frame non-empty, no transfer twice (first offending
/// occurrence), no conflict inside a frame (the first pair, in frame order, and the first
/// link they share), no transfer missing (the lowest id). Time and memory are linear in
/// the total path length of the traffic plus the schedule's size.
pub fn validate(traffic: &Traffic, schedule: &Schedule) -> Result<ScheduleReport, ScheduleError> {
    let n = traffic.len();
    let mut frame_of: Vec<Option<usize>> = vec![None; n];
    for (i, frame) in schedule.frames.iter().enumerate() {
        if frame.is_empty() {
            return Err(ScheduleError::EmptyFrame { frame: i });
        }
        for &t in frame {
            if t.index() >= n {
                return Err(ScheduleError::UnknownTransfer {
                    frame: i,
                    id: format!("{t}"),
                });
            }
            if let Some(first) = frame_of[t.index()] {
                let in_frame = frame.iter().filter(|&&u| u == t).count();
                return Err(ScheduleError::Duplicated {
                    transfer: traffic.transfer_name(t).to_string(),
                    first,
                    second: i,
                    times: if first == i { in_frame - 1 } else { in_frame },
                });
            }
            frame_of[t.index()] = Some(i);
        }
    }
    // Per link, the transfer of the current frame that holds it.
    let mut holder: Vec<Option<(usize, TransferId)>> = vec![None; traffic.num_links()];
    for (i, frame) in schedule.frames.iter().enumerate() {
        for &t in frame {
            for &l in &traffic.transfer(t).path {
                if let Some((fi, other)) = holder[l.index()] {
                    if fi == i {
                        return Err(conflict(traffic, i, other, t, l));
                    }
                }
                holder[l.index()] = Some((i, t));
            }
        }
    }
    if let Some(t) = frame_of.iter().position(Option::is_none) {
        return Err(ScheduleError::Missing {
            transfer: traffic.transfer_name(TransferId(t as u32)).to_string(),
        });
    }
    let duration = traffic.duration();
    Ok(ScheduleReport {
        length: schedule.len(),
        duration,
        liquid: schedule.len() == duration,
    })
}

fn conflict(
    traffic: &Traffic,
    frame: usize,
    a: TransferId,
    b: TransferId,
    l: LinkId,
) -> ScheduleError {
    ScheduleError::Conflict {
        frame,
        a: traffic.transfer_name(a).to_string(),
        b: traffic.transfer_name(b).to_string(),
        link: traffic.link_name(l).to_string(),
    }
}

/// At most this many problems of a schedule are listed ([`Problems`]); the rest are
/// counted.
pub const MAX_PROBLEMS: usize = 20;

/// The problems found in a schedule given by a user: the first [`MAX_PROBLEMS`] in full,
/// and how many there are in all. Memory is bounded however bad the schedule is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Problems {
    listed: Vec<String>,
    total: usize,
    /// Timeframes whose every entry was already reported (names the traffic lacks):
    /// not reported again as empty.
    excused: Vec<usize>,
    /// The schedule file and its text, when the schedule was read from one: a problem of
    /// a timeframe then names its file, line and column ([`Problems::in_file`]).
    source: Option<std::sync::Arc<(String, String)>>,
}

/// Largest schedule file whose timeframes' problems are located (each is found by
/// parsing the text again, for at most [`MAX_PROBLEMS`] problems).
const LOCATE_MAX_BYTES: usize = 8 << 20;

impl Problems {
    /// No problem yet.
    pub fn new() -> Problems {
        Problems::default()
    }

    /// One more problem; its message is made only when it is listed.
    pub fn push_with(&mut self, message: impl FnOnce() -> String) {
        self.total += 1;
        if self.listed.len() < MAX_PROBLEMS {
            self.listed.push(message());
        }
    }

    /// The problems of a schedule read from `file`, whose text is `text`: a problem of a
    /// timeframe then starts with `file:line:column: timeframes[i]: ` (files up to
    /// 8 MiB; larger ones as without a file).
    pub fn in_file(&mut self, file: &str, text: &str) {
        if text.len() <= LOCATE_MAX_BYTES {
            self.source = Some(std::sync::Arc::new((file.to_string(), text.to_string())));
        }
    }

    /// One more problem of timeframe `frame` (0-based), located in the file when there
    /// is one ([`Problems::in_file`]).
    fn push_in_frame(&mut self, frame: usize, message: impl FnOnce() -> String) {
        let source = self.source.clone();
        self.push_with(|| {
            let message = message();
            let Some(source) = source else {
                return message;
            };
            let (file, text) = &*source;
            let field = format!("timeframes[{frame}]");
            // The field names the timeframe: not twice before the message.
            let message = match message.strip_prefix(&format!("{field}: ")) {
                Some(rest) => rest.to_string(),
                None => message,
            };
            match crate::yaml::locate(text, &field) {
                Some((line, column)) => format!("{file}:{line}:{column}: {field}: {message}"),
                None => format!("{file}: {field}: {message}"),
            }
        });
    }

    /// Says that timeframe `frame` (0-based) had entries, all of them reported already
    /// (names the traffic lacks, left out of the schedule): [`validate_all`] does not
    /// report it again as empty.
    pub fn excuse_empty_frame(&mut self, frame: usize) {
        self.excused.push(frame);
    }

    /// Whether no problem was found.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many problems were found, listed or not.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The problems listed, then `and N more` when some were only counted.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = self.listed.clone();
        if self.total > self.listed.len() {
            lines.push(format!("and {} more", self.total - self.listed.len()));
        }
        lines
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines().join("; "))
    }
}

/// Like [`validate`], but finds every problem rather than the first: each empty
/// timeframe, transfer not in the traffic, repeated transfer (once per timeframe it is
/// repeated in, with the count), pair of
/// transfers congesting in a timeframe (each later transfer with the first one holding
/// the link, once per pair), and missing transfer, in that order, added to `problems`.
/// `Some` when the schedule is valid (exactly when [`validate`] is `Ok`). Time and
/// memory as [`validate`]'s.
pub fn validate_all(
    traffic: &Traffic,
    schedule: &Schedule,
    problems: &mut Problems,
) -> Option<ScheduleReport> {
    let n = traffic.len();
    let before = problems.total();
    let mut frame_of: Vec<Option<usize>> = vec![None; n];
    for (i, frame) in schedule.frames.iter().enumerate() {
        if frame.is_empty() && !problems.excused.contains(&i) {
            problems.push_in_frame(i, || ScheduleError::EmptyFrame { frame: i }.to_string());
        }
        // A repeated transfer is one problem per frame, at its first repeat, with the
        // count of its repeats there: the copies of each transfer in the rest of the
        // frame, counted once at the frame's first repeat (no map for a frame without).
        let mut rest: Option<std::collections::HashMap<TransferId, usize>> = None;
        for (j, &t) in frame.iter().enumerate() {
            if t.index() >= n {
                problems.push_with(|| {
                    let id = format!("transfer#{}", t.0);
                    ScheduleError::UnknownTransfer { frame: i, id }.to_string()
                });
            } else if let Some(first) = frame_of[t.index()] {
                let counts = rest.get_or_insert_with(|| {
                    let mut m = std::collections::HashMap::new();
                    for &u in &frame[j..] {
                        *m.entry(u).or_insert(0) += 1;
                    }
                    m
                });
                if let Some(times) = counts.remove(&t) {
                    problems.push_in_frame(i, || {
                        let transfer = traffic.transfer_name(t).to_string();
                        ScheduleError::Duplicated {
                            transfer,
                            first,
                            second: i,
                            times,
                        }
                        .to_string()
                    });
                }
            } else {
                frame_of[t.index()] = Some(i);
                // Its first copy is no repeat.
                if let Some(c) = rest.as_mut().and_then(|m| m.get_mut(&t)) {
                    *c -= 1;
                }
            }
        }
    }
    // Per link, the first transfer of the current frame that holds it; each transfer's
    // first occurrence only.
    let mut holder: Vec<Option<(usize, TransferId)>> = vec![None; traffic.num_links()];
    let mut seen = vec![false; n];
    let mut reported: Vec<TransferId> = Vec::new();
    for (i, frame) in schedule.frames.iter().enumerate() {
        for &t in frame {
            if t.index() >= n || frame_of[t.index()] != Some(i) || seen[t.index()] {
                continue;
            }
            seen[t.index()] = true;
            reported.clear();
            for &l in &traffic.transfer(t).path {
                match holder[l.index()] {
                    Some((fi, other)) if fi == i => {
                        if !reported.contains(&other) {
                            reported.push(other);
                            problems
                                .push_in_frame(i, || conflict(traffic, i, other, t, l).to_string());
                        }
                    }
                    _ => holder[l.index()] = Some((i, t)),
                }
            }
        }
    }
    for (t, f) in frame_of.iter().enumerate() {
        if f.is_none() {
            problems.push_with(|| {
                let transfer = traffic.transfer_name(TransferId(t as u32)).to_string();
                ScheduleError::Missing { transfer }.to_string()
            });
        }
    }
    if problems.total() > before {
        return None;
    }
    let duration = traffic.duration();
    Some(ScheduleReport {
        length: schedule.len(),
        duration,
        liquid: schedule.len() == duration,
    })
}

/// Whether a set of transfers is simultaneous (no two share a link).
pub fn is_simultaneous(traffic: &Traffic, set: &[TransferId]) -> bool {
    let mut used = vec![false; traffic.num_links()];
    for &t in set {
        for &l in &traffic.transfer(t).path {
            if std::mem::replace(&mut used[l.index()], true) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeframes_and_back_drop_the_unused_timeframes_only() {
        // Timeframe 1 unused, transfer 3 in none.
        let s = Schedule::from_timeframes(&[2, 0, 2, u32::MAX, 0]);
        let ids = |v: &[u32]| v.iter().map(|&t| TransferId(t)).collect::<Vec<_>>();
        assert_eq!(s.frames, vec![ids(&[1, 4]), ids(&[0, 2])]);
        assert_eq!(s.timeframes(5), vec![1, 0, 1, u32::MAX, 0]);
        assert_eq!(Schedule::from_timeframes(&s.timeframes(5)), s);
        assert!(Schedule::from_timeframes(&[]).is_empty());
    }

    #[test]
    fn validate_all_lists_every_problem_and_agrees_with_validate() {
        // a and b share link x; c is alone.
        let t = Traffic::from_paths(
            "m",
            &[
                ("a", vec!["x", "y"]),
                ("b", vec!["x", "y"]),
                ("c", vec!["z"]),
                ("d", vec!["w"]),
            ],
        )
        .expect("traffic");
        let id = |s: &str| t.find_transfer(s).expect("id");
        // a and b congest (once, though they share two links), c twice, d missing, an
        // empty frame.
        let bad = Schedule::new(vec![vec![id("a"), id("b"), id("c")], vec![], vec![id("c")]]);
        let mut p = Problems::new();
        assert_eq!(validate_all(&t, &bad, &mut p), None);
        assert!(validate(&t, &bad).is_err());
        assert_eq!(p.total(), 4, "{p}");
        let text = p.to_string();
        for part in [
            "timeframes[1]: the timeframe is empty",
            "\"c\" appears in timeframes[0] and timeframes[2]",
            "\"a\" and \"b\" congest on link \"x\"",
            "\"d\" is in no timeframe",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        let good = Schedule::new(vec![vec![id("a"), id("c"), id("d")], vec![id("b")]]);
        let mut p = Problems::new();
        assert_eq!(validate_all(&t, &good, &mut p), validate(&t, &good).ok());
        assert!(p.is_empty());
    }

    #[test]
    fn problems_past_the_bound_are_counted_not_listed() {
        let mut p = Problems::new();
        for i in 0..25 {
            p.push_with(|| format!("problem {i}"));
        }
        let lines = p.lines();
        assert_eq!(lines.len(), MAX_PROBLEMS + 1);
        assert_eq!(lines.last().map(String::as_str), Some("and 5 more"));
        assert_eq!(p.total(), 25);
    }
}
