//! First fit: each transfer, in a given order, goes to the lowest timeframe where none of
//! its links is busy yet. Shared by the `random` baseline, the portfolio's first-fit
//! stage and the repair search's fallback.
//!
//! **How.** Every link keeps the frames it is busy in, 64 per word, and how many of its
//! words from the first are full. A transfer's search starts at the word where the
//! fullest of its links stops being full, and ORs the words of its links until one has a
//! free bit. A link with a single user is never busy for another transfer, so it is left
//! out; a link of few users ([`SPARSE`] or fewer) keeps the list of its busy frames
//! rather than a bitset, so that a traffic of many lightly loaded links does not hold a
//! bitset up to the last frame for each.
//!
//! Before, first fit marked the frames of every user of the transfer's links one by one:
//! a link of a million users (one transfer with `count: 1000000`) made that quadratic,
//! 8.5 s for 100,000 copies, and about 14 minutes for a million by extrapolation. With a
//! link's full words skipped, it is linear there.

use liquid_model::Traffic;

/// A link of at most this many users keeps a list of its busy frames, not a bitset.
pub const SPARSE: usize = 64;

/// The busy frames of one link.
#[derive(Debug, Clone)]
enum Busy {
    /// One user (or none): never busy for another transfer.
    Alone,
    /// Few users: the frames they were placed in.
    Sparse(Vec<u32>),
    /// Bit f % 64 of `words[f / 64]` is set when the link is busy in frame f; the first
    /// `full` words are all set.
    Dense { full: usize, words: Vec<u64> },
}

impl Busy {
    /// The first word that may have a free frame.
    fn start(&self) -> usize {
        match self {
            Busy::Dense { full, .. } => *full,
            Busy::Alone | Busy::Sparse(_) => 0,
        }
    }

    /// Frames 64·w to 64·w + 63, a bit set for each busy one.
    fn word(&self, w: usize) -> u64 {
        match self {
            Busy::Alone => 0,
            Busy::Sparse(frames) => frames
                .iter()
                .filter(|&&f| f as usize / 64 == w)
                .fold(0, |bits, &f| bits | 1 << (f % 64)),
            Busy::Dense { words, .. } => words.get(w).copied().unwrap_or(0),
        }
    }

    fn mark(&mut self, f: usize) {
        match self {
            Busy::Alone => {}
            Busy::Sparse(frames) => frames.push(f as u32),
            Busy::Dense { full, words } => {
                let w = f / 64;
                if words.len() <= w {
                    words.resize(w + 1, 0);
                }
                words[w] |= 1 << (f % 64);
                while words.get(*full) == Some(&u64::MAX) {
                    *full += 1;
                }
            }
        }
    }
}

/// The busy frames of every link of a traffic, filled by [`FrameFit::place`].
#[derive(Debug, Clone)]
pub struct FrameFit {
    busy: Vec<Busy>,
}

impl FrameFit {
    /// No frame busy yet; each link's kind is chosen from its load in `traffic`.
    pub fn new(traffic: &Traffic) -> FrameFit {
        let busy = traffic
            .link_ids()
            .map(|l| match traffic.load(l) {
                0 | 1 => Busy::Alone,
                n if n <= SPARSE => Busy::Sparse(Vec::new()),
                _ => Busy::Dense {
                    full: 0,
                    words: Vec::new(),
                },
            })
            .collect();
        FrameFit { busy }
    }

    /// Puts a transfer whose links (indices) are `path` into the lowest frame where none
    /// of them is busy, marks them busy there, and returns that frame. The frame is at
    /// most the number of frames used so far (a new frame is free on every link).
    pub fn place(&mut self, path: &[usize]) -> usize {
        let mut w = path
            .iter()
            .map(|&l| self.busy[l].start())
            .max()
            .unwrap_or(0);
        let f = loop {
            let mut bits = 0u64;
            for &l in path {
                bits |= self.busy[l].word(w);
                if bits == u64::MAX {
                    break;
                }
            }
            if bits != u64::MAX {
                break w * 64 + (!bits).trailing_zeros() as usize;
            }
            w += 1;
        };
        for &l in path {
            self.busy[l].mark(f);
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::arb_traffic;
    use liquid_model::TransferId;
    use proptest::prelude::*;

    /// First fit one frame at a time, from the paths alone: the reference.
    fn naive(traffic: &Traffic, order: &[TransferId]) -> Vec<usize> {
        let mut frames: Vec<Vec<TransferId>> = Vec::new();
        order
            .iter()
            .map(|&t| {
                let path = &traffic.transfer(t).path;
                let free = |frame: &Vec<TransferId>| {
                    frame
                        .iter()
                        .all(|&u| traffic.transfer(u).path.iter().all(|l| !path.contains(l)))
                };
                let f = frames.iter().position(free).unwrap_or(frames.len());
                if f == frames.len() {
                    frames.push(Vec::new());
                }
                frames[f].push(t);
                f
            })
            .collect()
    }

    fn fitted(traffic: &Traffic, order: &[TransferId]) -> Vec<usize> {
        let mut fit = FrameFit::new(traffic);
        order
            .iter()
            .map(|&t| {
                let path: Vec<usize> = traffic.transfer(t).path.iter().map(|l| l.index()).collect();
                fit.place(&path)
            })
            .collect()
    }

    proptest! {
        // Few links for many transfers: loads past SPARSE make dense links, and a full
        // word (64 frames) is skipped.
        #[test]
        fn places_every_transfer_where_one_frame_at_a_time_does(
            t in arb_traffic(300, 5),
            seed in any::<u64>(),
        ) {
            let mut order: Vec<TransferId> = t.transfer_ids().collect();
            let mut rng = liquid_model::rng::SplitMix64(seed);
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            prop_assert_eq!(fitted(&t, &order), naive(&t, &order));
        }

        #[test]
        fn agrees_on_lightly_loaded_traffics(t in arb_traffic(60, 40)) {
            let order: Vec<TransferId> = t.transfer_ids().collect();
            prop_assert_eq!(fitted(&t, &order), naive(&t, &order));
        }
    }

    #[test]
    fn the_copies_of_one_transfer_take_one_frame_each_past_full_words() {
        // 1,000 copies on one link (dense), each with a virtual link (alone).
        let ts: Vec<(String, Vec<String>)> = (0..1000)
            .map(|i| (format!("c{i}"), vec!["a".to_string(), format!("v{i}")]))
            .collect();
        let t = Traffic::from_paths("copies", &ts).expect("valid");
        let order: Vec<TransferId> = t.transfer_ids().collect();
        assert_eq!(fitted(&t, &order), (0..1000).collect::<Vec<_>>());
    }
}
