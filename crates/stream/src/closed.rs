//! What the machines of `liquid_topology::fabric` streamed from closed forms share
//! (dragonflies and Dragonfly+ in [`crate::dragonfly`], rail-optimised fat-trees in
//! [`crate::rail`], HyperX in [`crate::hyperx`]): their size checks, their closed-form
//! schedule made frame by frame when the machine has one ([`ClosedSchedule`]), and what
//! their closed-form analysis needs ([`ClosedForm`], read by
//! [`crate::analysis::analyze_closed_form`]).

use liquid_topology::fabric::FrameRounds;

use crate::tree::{LoadClass, MAX_TREE_HOSTS};
use crate::{StreamError, Structured};

/// A machine streamed from closed forms: what its analysis needs beyond [`Structured`].
pub trait ClosedForm: Structured {
    /// The machine's family, as the analysis names its rounds (`"dragonfly"`).
    fn family(&self) -> &'static str;
    /// Number of switches (routers, NVSwitches and NICs counted as the generator counts
    /// them).
    fn switches(&self) -> u64;
    /// The loads of the all-to-all by class of links, from the closed forms.
    fn load_classes(&self) -> Vec<LoadClass>;
    /// Why there is no streamed schedule, or `None`.
    fn not_streamed(&self) -> Option<String>;
    /// Transfers, `N(N − 1)`.
    fn transfers(&self) -> u64 {
        let n = self.hosts() as u64;
        n * (n - 1)
    }
}

/// A machine's closed-form schedule made one frame at a time, when it has one, and the
/// condition it needs otherwise.
#[derive(Debug, Clone)]
pub struct ClosedSchedule<R> {
    rounds: Option<R>,
    needs: &'static str,
}

impl<R: FrameRounds> ClosedSchedule<R> {
    /// The schedule `rounds`, or none (`needs`: the condition, in words, for the reason
    /// given when there is none).
    pub fn new(rounds: Option<R>, needs: &'static str) -> ClosedSchedule<R> {
        ClosedSchedule { rounds, needs }
    }

    /// Number of frames (0 without a schedule).
    pub fn frames(&self) -> usize {
        self.rounds.as_ref().map_or(0, R::frames)
    }

    /// Frame `f` into `pairs` (cleared first; empty without a schedule).
    pub fn frame(&self, f: usize, pairs: &mut Vec<(u32, u32)>) {
        match &self.rounds {
            Some(r) => r.frame(f, pairs),
            None => pairs.clear(),
        }
    }

    /// Why there is no streamed schedule, or `None`.
    pub fn not_streamed(&self) -> Option<String> {
        self.rounds.is_none().then(|| self.needs.to_string())
    }

    /// [`Structured::streamable`]: `Ok` with a schedule, else the reason.
    pub fn streamable(&self) -> Result<(), String> {
        match self.not_streamed() {
            None => Ok(()),
            Some(why) => Err(format!("no streamed schedule: {why}")),
        }
    }
}

/// Checks a streamed machine's size: at most [`MAX_TREE_HOSTS`] hosts (`hosts`, `None`
/// when the count overflows) and link numbers that fit `u32` (`links`); returns the
/// number of hosts. `bad` makes the error naming the spec.
pub(crate) fn sized(
    hosts: Option<u64>,
    links: impl FnOnce(u64) -> Option<u64>,
    bad: impl Fn(String) -> StreamError,
) -> Result<usize, StreamError> {
    let n = hosts
        .filter(|&x| x <= MAX_TREE_HOSTS)
        .ok_or_else(|| bad(format!("more than {MAX_TREE_HOSTS} hosts")))?;
    if links(n).is_none_or(|l| l > u32::MAX as u64) {
        return Err(bad("more than 2^32 links".into()));
    }
    Ok(n as usize)
}

/// The host links' class: up and down for each of `n` hosts, each carrying `N − 1`.
pub(crate) fn host_links(n: usize) -> LoadClass {
    LoadClass {
        links: "host links (up and down)".into(),
        count: 2 * n as u64,
        load: n as u64 - 1,
        formula: "N - 1".into(),
    }
}

/// The runs of equal values of a sorted list, as (value, count).
pub(crate) fn runs(sorted: &[u64]) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = Vec::new();
    for &x in sorted {
        match v.last_mut() {
            Some((y, c)) if *y == x => *c += 1,
            _ => v.push((x, 1)),
        }
    }
    v
}
