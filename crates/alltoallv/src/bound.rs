//! The time lower bound of a traffic with unequal messages: no schedule, preemptive or
//! not, delivers every byte before
//!
//! - max over links l of (bytes on l / throughput of l): a link carries its bytes one
//!   after the other at best; the links reaching the maximum are the bottlenecks, as the
//!   links at Λ are for equal messages;
//! - max over messages of (overhead + route latency + bytes / slowest link of the
//!   route): the longest message's own time, when it is larger.

use liquid_model::{LinkId, Traffic, TransferId};
use serde::Serialize;

/// The physical parameters a schedule's time depends on, per link of a traffic.
#[derive(Debug, Clone, PartialEq)]
pub struct Platform {
    /// Bytes per second of each link (indexed by [`LinkId::index`]); virtual links (the
    /// copies' links of a network-form model) are infinitely fast.
    pub bandwidth: Vec<f64>,
    /// Latency of each link, seconds.
    pub latency: Vec<f64>,
    /// Software overhead per message (per piece, when messages are cut), seconds.
    pub overhead: f64,
}

impl Platform {
    /// Every link at `bytes_per_s`, no latency, no overhead.
    pub fn uniform(traffic: &Traffic, bytes_per_s: f64) -> Platform {
        Platform {
            bandwidth: vec![bytes_per_s; traffic.num_links()],
            latency: vec![0.0; traffic.num_links()],
            overhead: 0.0,
        }
    }

    /// The slowest link of a transfer's route, bytes per second.
    pub fn route_bandwidth(&self, traffic: &Traffic, t: TransferId) -> f64 {
        traffic
            .transfer(t)
            .path
            .iter()
            .map(|l| self.bandwidth[l.index()])
            .fold(f64::INFINITY, f64::min)
    }

    /// The latency of a transfer's route (the sum of its links'), seconds.
    pub fn route_latency(&self, traffic: &Traffic, t: TransferId) -> f64 {
        traffic
            .transfer(t)
            .path
            .iter()
            .map(|l| self.latency[l.index()])
            .sum()
    }

    /// Lanes of every link: how many messages it carries at once, each at the full rate
    /// of its route (its slowest link): ⌊throughput / the fastest route rate among its
    /// users⌋, at least 1 and at most its users. A backbone ten times a node card has 10
    /// lanes; on a network of equal links every link has 1, the model of papers 003/004.
    pub fn lanes(&self, traffic: &Traffic) -> Vec<u32> {
        let rate: Vec<f64> = traffic
            .transfer_ids()
            .map(|t| self.route_bandwidth(traffic, t))
            .collect();
        traffic
            .link_ids()
            .map(|l| {
                let users = traffic.users(l);
                let fastest = users.iter().map(|t| rate[t.index()]).fold(0.0, f64::max);
                let c = (self.bandwidth[l.index()] / fastest * (1.0 + 1e-9)).floor();
                if c.is_finite() && c >= 1.0 {
                    (c as u64).min(users.len().max(1) as u64) as u32
                } else if c.is_infinite() {
                    users.len().max(1) as u32
                } else {
                    1
                }
            })
            .collect()
    }

    /// How long a message of `bytes` takes alone on transfer `t`'s route: overhead, route
    /// latency, then its bytes at the route's slowest link.
    pub fn message_time(&self, traffic: &Traffic, t: TransferId, bytes: u64) -> f64 {
        self.overhead
            + self.route_latency(traffic, t)
            + bytes as f64 / self.route_bandwidth(traffic, t)
    }
}

/// A sum of message times (overhead + route latency + bytes / route rate), added up so
/// that its rounding depends only on how many messages and bytes go at each (rate,
/// latency): bytes are summed in integers per route rate and divided once, as
/// [`time_bound`] divides a link's bytes once. Two sums of the same messages, in any
/// order or split differently into messages of one route, are then the same float, and a
/// schedule that meets a bound is not reported below it by rounding (adding the frames'
/// quotients one by one put seven frames of 149,796 bytes at 100 MB/s at
/// 0.010485719999999999 s, below the bound of 0.01048572 s).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSum {
    messages: u64,
    /// (rate bits, latency bits) -> (bytes, messages): positive f64s order as their bits.
    by_route: std::collections::BTreeMap<(u64, u64), (u128, u64)>,
}

impl TimeSum {
    /// Adds one message of `bytes` on a route of `latency` seconds and `rate` bytes/s.
    pub fn add(&mut self, latency: f64, rate: f64, bytes: u64) {
        self.messages += 1;
        let e = self
            .by_route
            .entry((rate.to_bits(), latency.to_bits()))
            .or_insert((0, 0));
        e.0 += u128::from(bytes);
        e.1 += 1;
    }

    /// The sum, seconds, with `overhead` once per message added.
    pub fn seconds(&self, overhead: f64) -> f64 {
        let mut total = overhead * self.messages as f64;
        for (&(rate, latency), &(bytes, messages)) in &self.by_route {
            total +=
                f64::from_bits(latency) * messages as f64 + bytes as f64 / f64::from_bits(rate);
        }
        total
    }
}

/// A link at the bound, with what it carries.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LinkTime {
    /// The link.
    pub link: String,
    /// Bytes of all the messages that cross it.
    pub bytes: u128,
    /// How many messages cross it.
    pub messages: usize,
    /// bytes / its throughput, seconds.
    pub seconds: f64,
}

/// The longest message alone.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MessageTime {
    /// Its transfer id.
    pub transfer: String,
    /// Its bytes.
    pub bytes: u64,
    /// Overhead + route latency + bytes / slowest link of its route, seconds.
    pub seconds: f64,
}

/// The time lower bound with its evidence.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimeBound {
    /// The bound, seconds: the larger of `link_seconds` and the longest message's time.
    pub seconds: f64,
    /// What gives it: `bottleneck links` or `longest message`.
    pub by: &'static str,
    /// max over links of bytes / throughput, seconds.
    pub link_seconds: f64,
    /// The links at `link_seconds` (within a relative 1e-12), in link order; at most
    /// [`SHOWN`] listed, `bottleneck_count` says how many there are.
    pub bottlenecks: Vec<LinkTime>,
    /// How many links are at `link_seconds`.
    pub bottleneck_count: usize,
    /// The longest message alone.
    pub longest_message: MessageTime,
    /// Total bytes of the traffic.
    pub total_bytes: u128,
}

/// At most this many bottleneck links are listed.
pub const SHOWN: usize = 32;

/// Bytes on every link.
pub fn link_bytes(traffic: &Traffic, bytes: &[u64]) -> Vec<u128> {
    let mut on = vec![0u128; traffic.num_links()];
    for (x, &b) in traffic.transfers().iter().zip(bytes) {
        for l in &x.path {
            on[l.index()] += u128::from(b);
        }
    }
    on
}

/// The links at the maximum of `values` (within a relative 1e-12), and the maximum.
pub(crate) fn argmax_links(values: &[f64]) -> (f64, Vec<LinkId>) {
    let max = values.iter().copied().fold(0.0, f64::max);
    let at = values
        .iter()
        .enumerate()
        .filter(|&(_, &v)| v > 0.0 && v >= max * (1.0 - 1e-12))
        .map(|(l, _)| LinkId(l as u32))
        .collect();
    (max, at)
}

/// The time lower bound of `traffic` with `bytes[t]` bytes per transfer on `platform`.
pub fn time_bound(traffic: &Traffic, bytes: &[u64], platform: &Platform) -> TimeBound {
    let on = link_bytes(traffic, bytes);
    let secs: Vec<f64> = on
        .iter()
        .zip(&platform.bandwidth)
        .map(|(&b, &bw)| b as f64 / bw)
        .collect();
    let (link_seconds, at) = argmax_links(&secs);
    let bottlenecks = at
        .iter()
        .take(SHOWN)
        .map(|&l| LinkTime {
            link: traffic.link_name(l).to_string(),
            bytes: on[l.index()],
            messages: traffic.load(l),
            seconds: secs[l.index()],
        })
        .collect();
    let mut longest = (TransferId(0), f64::NEG_INFINITY);
    for t in traffic.transfer_ids() {
        let s = platform.message_time(traffic, t, bytes[t.index()]);
        if s > longest.1 {
            longest = (t, s);
        }
    }
    let longest_message = MessageTime {
        transfer: traffic.transfer_name(longest.0).to_string(),
        bytes: bytes[longest.0.index()],
        seconds: longest.1,
    };
    let (seconds, by) = if longest.1 > link_seconds {
        (longest.1, "longest message")
    } else {
        (link_seconds, "bottleneck links")
    };
    TimeBound {
        seconds,
        by,
        link_seconds,
        bottlenecks,
        bottleneck_count: at.len(),
        longest_message,
        total_bytes: bytes.iter().map(|&b| u128::from(b)).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traffic() -> Traffic {
        // Three transfers: a and b share link x; c alone on z.
        Traffic::from_paths(
            "t",
            &[("a", vec!["x", "y"]), ("b", vec!["x"]), ("c", vec!["z"])],
        )
        .expect("builds")
    }

    #[test]
    fn the_bottleneck_link_by_hand() {
        let t = traffic();
        // x: 300 + 500 = 800 B at 100 B/s = 8 s; y: 3 s; z: 700 B = 7 s.
        let p = Platform::uniform(&t, 100.0);
        let b = time_bound(&t, &[300, 500, 700], &p);
        assert_eq!(b.seconds, 8.0);
        assert_eq!(b.by, "bottleneck links");
        assert_eq!(b.bottleneck_count, 1);
        assert_eq!(
            b.bottlenecks,
            vec![LinkTime {
                link: "x".into(),
                bytes: 800,
                messages: 2,
                seconds: 8.0
            }]
        );
        assert_eq!(b.longest_message.transfer, "c");
        assert_eq!(b.total_bytes, 1500);
    }

    #[test]
    fn a_slow_link_and_the_longest_message() {
        let t = traffic();
        // y at 10 B/s: a alone takes 1 + 300/10 = 31 s > x's 8 s.
        let mut p = Platform::uniform(&t, 100.0);
        p.bandwidth[1] = 10.0;
        p.overhead = 1.0;
        let b = time_bound(&t, &[300, 500, 700], &p);
        assert_eq!(b.link_seconds, 30.0);
        assert_eq!(b.bottlenecks[0].link, "y");
        assert_eq!(b.seconds, 31.0);
        assert_eq!(b.by, "longest message");
        assert_eq!(b.longest_message.transfer, "a");
        // Latency counts in a message's own time, not in a link's bytes.
        p.latency[0] = 0.5;
        assert_eq!(time_bound(&t, &[300, 500, 700], &p).seconds, 31.5);
    }

    #[test]
    fn lanes_of_a_fast_link() {
        // a and b cross x (10 B/s) from their own cards (1 B/s and 2 B/s): x carries 5
        // messages at the faster card's rate; the cards one each.
        let t = Traffic::from_paths("t", &[("a", vec!["ca", "x"]), ("b", vec!["cb", "x"])])
            .expect("builds");
        let mut p = Platform::uniform(&t, 1.0);
        p.bandwidth[t.find_link("x").expect("x").index()] = 10.0;
        p.bandwidth[t.find_link("cb").expect("cb").index()] = 2.0;
        let lanes = p.lanes(&t);
        // x: at most its users (2), though 10 / 2 = 5.
        assert_eq!(lanes, vec![1, 2, 1]);
        assert_eq!(Platform::uniform(&t, 1.0).lanes(&t), vec![1, 1, 1]);
    }

    #[test]
    fn ties_are_all_bottlenecks() {
        let t = traffic();
        let p = Platform::uniform(&t, 1.0);
        let b = time_bound(&t, &[4, 4, 8], &p);
        assert_eq!(b.seconds, 8.0);
        let names: Vec<&str> = b.bottlenecks.iter().map(|l| l.link.as_str()).collect();
        assert_eq!(names, ["x", "z"]);
    }
}
