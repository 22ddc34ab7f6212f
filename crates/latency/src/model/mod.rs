//! Paper 002's analytical model of the mean message latency (its eqs. 1-36).
//!
//! A [`Model`] is built from a [`MultiCluster`] and a [`Timing`]; [`Model::at`] predicts
//! the mean latency at an offered traffic `λ_g` (messages per node per time unit), overall
//! (eq. 36), per cluster (eq. 35), and split into what the paper adds up: the waiting time
//! in the source queue (eqs. 23, 30), the network latency (the first stage's service time,
//! eqs. 3, 18, 26), the time for the tail flit to follow (eqs. 24, 32) and the waiting time
//! at the concentrators/dispatchers (eqs. 33-34). [`Model::saturation`] finds the load at
//! which the first queue's utilisation reaches 1, and names that queue;
//! [`Model::sweep`] evaluates loads from 0 up to a fraction of it.
//!
//! Units are the paper's: times in its abstract time unit, bandwidth in bytes per time
//! unit (so `t_cn`, `t_cs` are per-flit times, eqs. 14-15), `λ_g` in messages per node per
//! time unit.
//!
//! # Readings
//!
//! The model follows the printed equations; where the text is ambiguous or inconsistent,
//! these are the readings taken (none of them was chosen by comparing with a simulation):
//!
//! 1. **Source-queue arrival rate (eqs. 19-23, 30).** Section 3.2 says to use
//!    `λ^(i) = λ_I1^(i)` (eq. 5) in eq. 23, and eq. 30 uses `λ_E1^(i,v)` (eq. 6): the rate
//!    into the whole network, not one node's `λ_g`. Taken literally, as printed. This
//!    makes the source queues saturate at loads `N_i` times lower than a per-node queue
//!    would.
//! 2. **Eq. 7** (`λ_I2`): as printed, the `N`-weighted mean of the two clusters' outgoing
//!    rates `N_i·P_o^(i)·λ_g` and `N_v·P_o^(v)·λ_g`; it is the rate of the pair's
//!    concentrate buffer and of its dispatch buffer (eqs. 33-34) and enters the ICN2
//!    channel rate (eq. 12).
//! 3. **Channel rates (eqs. 10-12)**: the denominators as printed, `4·n_i·N_i` and `4·n_c`
//!    (an m-port n-tree has `2·n·N` unidirectional channels; the printed rates are not
//!    corrected).
//! 4. **`d_avg` of each network.** `d_avg(I1)^(i) = d_avg(E1)^(i)` = eq. 9 for the m-port
//!    `n_i`-tree: the paper treats an external message's two ECN1 parts as "a complete
//!    journey in the ECN1" (section 3.1.1); `d_avg(I2)` = eq. 9 for the m-port
//!    `n_c`-tree.
//! 5. **What "2j-link" means for inter-cluster journeys.** `j` links up in the source
//!    cluster's ECN1 (probability `P_{j,n_i}`), `2h` links in the ICN2 (`P_{h,n_c}`) and
//!    `l` links down in the destination's ECN1 (`P_{l,n_v}`), `j + 2h + l` links in all;
//!    like an intra-cluster journey of `2j` links has `K = 2j - 1` stages, it has
//!    `K = j + 2h + l - 1` (section 3.3). The concentrator/dispatcher is not a stage; its
//!    waiting time is the separate term `W_d` (eq. 34).
//! 6. **Index ranges of eq. 26**: `j ≤ n_i`, `l ≤ n_v`, `h ≤ n_c`, as in eq. 32, rather
//!    than `n_i` for all three as printed: `P_{l,n_v}` and `P_{h,n_c}` are probability
//!    distributions over exactly those ranges (eq. 4 is undefined for `l > n_v`, and with
//!    `n_i` the weights would not sum to 1).
//! 7. **`n_e` in eq. 27** is `n_c`, the height of the ICN2, the only tree that the `2h`
//!    ICN2 links can be counted in (and eq. 32 runs `h` to `n_c`).
//! 8. **Eq. 29**: `η_E1^(i,v)` on the ECN1 stages of both clusters, as printed.
//! 9. **Eq. 21** prints `C_x² = σ²/x̄`; eq. 23, which is what is computed, has the usual
//!    `σ²/x̄²`.
//! 10. **Stages (eq. 18).** `S_{K-1} = M·t_cn`, `S_k = Σ_{s>k} W_s + M·t_cs`; `W_0` never
//!     enters (waiting for the first channel is the source queue's). The blocking
//!     probability `P_B = η_k·S_k` (eq. 17) must stay below 1: it counts as the channel's
//!     utilisation.
//! 11. **ICN2 size.** `P_{h,n_c}` and `d_avg(I2)` are those of the whole m-port `n_c`-tree
//!     (002 has `C = 2·(m/2)^n_c` exactly); with an explicit `NC` leaving ports unused,
//!     the formulas are applied as they are.
//! 12. **One cluster**: `P_o = 0` and the inter-cluster terms (averaged over `C - 1 = 0`
//!     peers in eqs. 31, 34) are absent.
//! 13. **Saturation**: the smallest `λ_g` at which a utilisation reaches 1: a source queue's
//!     `λ·S̄` (eqs. 20, 23, 30), a concentrator's `λ_I2·M·t_cs` (eq. 33), or a channel's
//!     `η_k·S_k` (eq. 17). Beyond it the M/G/1 formulas give negative waiting times, so
//!     [`Model::at`] refuses with [`LatencyError::Saturated`].
//! 14. **Averages over destination clusters (eqs. 31, 34)** are arithmetic means over the
//!     `C - 1` other clusters, as printed, not weighted by their sizes `N_v` (which
//!     uniform destinations would give); and the ICN2 part of a journey follows
//!     `P_{h,n_c}` whatever the pair's positions in the ICN2 (eq. 27).
//!
//! 15. **Which source queue** (an option, [`SourceQueues`]). Reading 1 is the default
//!     ([`SourceQueues::Printed`]). 002's assumption 6 puts the source queue "at the
//!     injection channel in the source node", and assumption 1 has each node generate
//!     `λ_g` messages per time unit, so one node's queue sees `(1 - P_o)·λ_g` intra-cluster
//!     and `P_o·λ_g` inter-cluster messages. [`SourceQueues::PerNode`] uses those rates in
//!     eqs. 23 and 30 and changes nothing else (channel rates, concentrators and the
//!     Draper-Ghosh variance stay as printed). It is offered because the printed rates
//!     contradict the stated assumptions, not because of any simulation's figures; the
//!     study reports both readings against the simulator.
//! 16. **Concentrator service** (an option, [`ConcentratorService`]; issue 28). Eq. 33
//!     serves a concentrate buffer's message in bare `M·t_cs`. In a wormhole network the
//!     buffer is busy until its message's tail has left the channel into the ICN2, so the
//!     blocking its header meets downstream belongs to the service, as it does for a
//!     channel in eq. 18 (`S_k = Σ_{s>k} W_s + M·t_cs`). [`ConcentratorService::Blocking`]
//!     reads eq. 33's service as `x̄ = M·t_cs + Σ_paths P_{(j,l)+h}·Σ_{k=j}^{j+2h-1} W_k`:
//!     the waits `W_k` (eq. 28) of the journey's ICN2 stages (`j ≤ k < j + 2h − 1`, eq. 29)
//!     and of the stage after them, the channel out of the ICN2 into the dispatcher. The
//!     concentrate buffer's wait is then eq. 33 with `x̄` for `M·t_cs` (utilisation
//!     `λ_I2·x̄`); the dispatch buffer keeps eq. 33 as printed, and eq. 34 adds the two
//!     instead of doubling one. Fixed from the equations before any comparison.
//! 17. **Channel count** (an option, [`ChannelCount`]; issue 28). An m-port n-tree of N
//!     nodes has `n·N` cables, `2·n·N` one-way channels; eqs. 10-11 divide a network's
//!     message rate times `d_avg` by `4·n·N`, and eq. 12 by `4·n_c` (the ICN2's total rate
//!     `C·λ_I2` over `4·n_c·C`). [`ChannelCount::OneWay`] divides by `2·n_i·N_i` and
//!     `2·n_c` instead: every channel rate `η` doubles. Fixed from the channel count
//!     before any comparison.
//!
//! Clusters of equal height are identical in the model, so it is evaluated once per
//! height (and per pair of heights); eqs. 31 and 34's averages over peers `v ≠ i` weigh
//! each height by the number of such peers.

pub mod eqs;

use std::fmt;

use crate::{LatencyError, MultiCluster, Timing};

/// Which arrival rate the source queues' M/G/1 formulas (eqs. 23, 30) see: reading 1
/// (as printed) or reading 15 (one node's own messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceQueues {
    /// As printed: the whole network's rate, `λ_I1^(i)` (eq. 5) and `λ_E1^(i,v)` (eq. 6).
    #[default]
    Printed,
    /// One node's queue: `(1 - P_o^(i))·λ_g` for intra-cluster and `P_o^(i)·λ_g` for
    /// inter-cluster messages (002's assumptions 1 and 6).
    PerNode,
}

impl SourceQueues {
    /// The name used on the command line and in reports (`printed`, `per-node`).
    pub fn name(self) -> &'static str {
        match self {
            SourceQueues::Printed => "printed",
            SourceQueues::PerNode => "per-node",
        }
    }
}

/// How the concentrate buffer serves a message (reading 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConcentratorService {
    /// As printed: `M·t_cs` (eq. 33).
    #[default]
    Printed,
    /// `M·t_cs` plus the waits of the ICN2 stages and of the channel into the dispatcher
    /// (eq. 18's way of adding the blocking downstream).
    Blocking,
}

impl ConcentratorService {
    /// The name used in reports (`printed`, `blocking`).
    pub fn name(self) -> &'static str {
        match self {
            ConcentratorService::Printed => "printed",
            ConcentratorService::Blocking => "blocking",
        }
    }
}

/// Over how many channels eqs. 10-12 spread a network's traffic (reading 17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChannelCount {
    /// As printed: `4·n·N` (eqs. 10-11) and `4·n_c` (eq. 12).
    #[default]
    Printed,
    /// The one-way channels of an m-port n-tree: `2·n·N` and `2·n_c`.
    OneWay,
}

impl ChannelCount {
    /// The name used in reports (`printed`, `one-way`).
    pub fn name(self) -> &'static str {
        match self {
            ChannelCount::Printed => "printed",
            ChannelCount::OneWay => "one-way",
        }
    }
}

/// A queue (or channel) of the model, named by representative clusters: every cluster of
/// the same height behaves the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    /// The source queue of cluster `cluster`'s intra-cluster messages (eq. 23, arrival
    /// rate `λ_I1`).
    IntraSource {
        /// The cluster.
        cluster: usize,
    },
    /// The source queue of messages from `cluster` to `peer` (eq. 30, arrival rate
    /// `λ_E1`).
    InterSource {
        /// The source cluster.
        cluster: usize,
        /// The destination cluster.
        peer: usize,
    },
    /// The concentrate and dispatch buffers between `cluster` and `peer` (eq. 33, arrival
    /// rate `λ_I2`, service time `M·t_cs`).
    Concentrator {
        /// The source cluster.
        cluster: usize,
        /// The destination cluster.
        peer: usize,
    },
    /// A channel of `cluster`'s ICN1 (blocking probability, eq. 17).
    Icn1Channel {
        /// The cluster.
        cluster: usize,
    },
    /// An ECN1 channel on the way from `cluster` to `peer` (eqs. 17, 29).
    Ecn1Channel {
        /// The source cluster.
        cluster: usize,
        /// The destination cluster.
        peer: usize,
    },
    /// An ICN2 channel on the way from `cluster` to `peer` (eqs. 17, 29).
    Icn2Channel {
        /// The source cluster.
        cluster: usize,
        /// The destination cluster.
        peer: usize,
    },
}

impl fmt::Display for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Queue::IntraSource { cluster } => write!(
                f,
                "the source queue of cluster {cluster}'s intra-cluster messages (eq. 23)"
            ),
            Queue::InterSource { cluster, peer } => write!(
                f,
                "the source queue of messages from cluster {cluster} to cluster {peer} (eq. 30)"
            ),
            Queue::Concentrator { cluster, peer } => write!(
                f,
                "the concentrator/dispatcher between cluster {cluster} and cluster {peer} (eq. 33)"
            ),
            Queue::Icn1Channel { cluster } => {
                write!(f, "an ICN1 channel of cluster {cluster} (eq. 17)")
            }
            Queue::Ecn1Channel { cluster, peer } => write!(
                f,
                "an ECN1 channel from cluster {cluster} to cluster {peer} (eqs. 17, 29)"
            ),
            Queue::Icn2Channel { cluster, peer } => write!(
                f,
                "an ICN2 channel from cluster {cluster} to cluster {peer} (eqs. 17, 29)"
            ),
        }
    }
}

/// The parts of a journey's mean latency (eq. 25 for intra-cluster journeys, the terms of
/// eq. 31 for inter-cluster ones).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Journey {
    /// Mean waiting time in the source queue, `W̄` (eqs. 23, 30).
    pub source_wait: f64,
    /// Mean network latency, `S̄`: the service time of the first stage (eqs. 3, 18, 26).
    pub network: f64,
    /// Mean time for the tail flit to reach the destination, `R̄` (eqs. 24, 32).
    pub tail: f64,
}

impl Journey {
    /// `W̄ + S̄ + R̄`.
    pub fn total(&self) -> f64 {
        self.source_wait + self.network + self.tail
    }
}

/// The model's prediction for one cluster (eq. 35).
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPrediction {
    /// The cluster's index, `i`.
    pub cluster: usize,
    /// Its tree height, `n_i`.
    pub height: usize,
    /// Its number of nodes, `N_i` (eq. 1).
    pub nodes: f64,
    /// The probability that a message leaves the cluster, `P_o^(i)` (eq. 13).
    pub outgoing: f64,
    /// Mean latency of its messages, `ℓ^(i)` (eq. 35).
    pub latency: f64,
    /// Its intra-cluster messages (eq. 25, `T_I1^(i)`).
    pub intra: Journey,
    /// Its inter-cluster messages, averaged over the other clusters (eq. 31).
    pub inter: Journey,
    /// Mean waiting time at the concentrators/dispatchers, `W_d^(i)` (eq. 34).
    pub concentrator_wait: f64,
}

/// The model's prediction at one offered traffic.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The offered traffic `λ_g`, messages per node per time unit.
    pub rate: f64,
    /// Mean message latency, `ℓ` (eq. 36).
    pub latency: f64,
    /// The part of `ℓ` spent in source queues: `Σ N_i/N·((1-P_o)·W̄_I1 + P_o·W̄_E1&I2)`.
    pub source_wait: f64,
    /// The part of `ℓ` that is network latency (`S̄` terms).
    pub network: f64,
    /// The part of `ℓ` that is the tail flit's time (`R̄` terms).
    pub tail: f64,
    /// The part of `ℓ` spent at concentrators/dispatchers: `Σ N_i/N·P_o·W_d`.
    pub concentrator_wait: f64,
    /// The busiest queue and its utilisation (below 1).
    pub busiest: (Queue, f64),
    /// Per cluster, in cluster order (eq. 35).
    pub clusters: Vec<ClusterPrediction>,
}

/// Where the model saturates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Saturation {
    /// The offered traffic `λ_g` at which the first utilisation reaches 1 (to about 12
    /// significant digits).
    pub rate: f64,
    /// The queue that saturates there.
    pub queue: Queue,
}

/// The most points a sweep ([`Model::sweep`]) computes: each holds every cluster's
/// prediction, and a table longer than this shows nothing a shorter one does not.
pub const MAX_POINTS: usize = 100_000;

/// A sweep of loads from 0 up to a fraction of the saturation load.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The model's saturation.
    pub saturation: Saturation,
    /// The predictions, by increasing load.
    pub points: Vec<Prediction>,
}

/// Clusters of one height: identical in the model.
#[derive(Debug, Clone)]
struct Class {
    height: usize,
    members: Vec<usize>,
    nodes: f64,
    outgoing: f64,
    paths: Vec<f64>,
    distance: f64,
}

/// What one evaluation gives per class.
#[derive(Debug, Clone, Copy, Default)]
struct ClassEval {
    intra: Journey,
    inter: Journey,
    concentrator_wait: f64,
}

/// 002's model for one system and one timing.
#[derive(Debug, Clone)]
pub struct Model {
    system: MultiCluster,
    timing: Timing,
    classes: Vec<Class>,
    class_of: Vec<usize>,
    icn2_paths: Vec<f64>,
    icn2_distance: f64,
    total_nodes: f64,
    source_queues: SourceQueues,
    concentrator: ConcentratorService,
    channels: ChannelCount,
}

/// Tracks the largest utilisation seen, the first one on ties.
struct Busiest(Option<(Queue, f64)>);

impl Busiest {
    fn see(&mut self, queue: Queue, utilisation: f64) {
        // A utilisation lost to overflow (inf - inf) is as saturated as it gets.
        let utilisation = if utilisation.is_nan() {
            f64::INFINITY
        } else {
            utilisation
        };
        if self.0.is_none_or(|(_, u)| utilisation > u) {
            self.0 = Some((queue, utilisation));
        }
    }
}

impl Model {
    /// The model of `system` with `timing`; refuses unusable timings and systems too large
    /// for floating point.
    pub fn new(system: &MultiCluster, timing: Timing) -> Result<Model, LatencyError> {
        timing.check()?;
        let m = system.ports;
        let mut classes: Vec<Class> = Vec::new();
        let mut class_of = Vec::with_capacity(system.cluster_count());
        for (i, &n) in system.clusters.iter().enumerate() {
            match classes.iter().position(|c| c.height == n) {
                Some(c) => {
                    classes[c].members.push(i);
                    class_of.push(c);
                }
                None => {
                    class_of.push(classes.len());
                    classes.push(Class {
                        height: n,
                        members: vec![i],
                        nodes: eqs::tree_nodes(m, n),
                        outgoing: 0.0,
                        paths: eqs::path_probabilities(m, n),
                        distance: eqs::mean_distance(m, n),
                    });
                }
            }
        }
        let sizes: Vec<f64> = system
            .clusters
            .iter()
            .map(|&n| eqs::tree_nodes(m, n))
            .collect();
        let total_nodes: f64 = sizes.iter().sum();
        if !total_nodes.is_finite() || total_nodes > 1e15 {
            return Err(LatencyError::BadParameter {
                name: "system".into(),
                why: format!("{} has too many nodes for the model", system.spec()),
            });
        }
        for c in &mut classes {
            c.outgoing = eqs::outgoing_probability(&sizes, c.members[0]);
        }
        Ok(Model {
            system: system.clone(),
            timing,
            classes,
            class_of,
            icn2_paths: eqs::path_probabilities(m, system.icn2_levels),
            icn2_distance: eqs::mean_distance(m, system.icn2_levels),
            total_nodes,
            source_queues: SourceQueues::Printed,
            concentrator: ConcentratorService::Printed,
            channels: ChannelCount::Printed,
        })
    }

    /// The same model with the source queues of `reading` ([`SourceQueues`]; the default
    /// is [`SourceQueues::Printed`]).
    pub fn with_source_queues(mut self, reading: SourceQueues) -> Model {
        self.source_queues = reading;
        self
    }

    /// The same model with the concentrator service of `reading` (reading 16).
    pub fn with_concentrator(mut self, reading: ConcentratorService) -> Model {
        self.concentrator = reading;
        self
    }

    /// The same model with the channel count of `reading` (reading 17).
    pub fn with_channels(mut self, reading: ChannelCount) -> Model {
        self.channels = reading;
        self
    }

    /// The concentrator-service reading in use.
    pub fn concentrator(&self) -> ConcentratorService {
        self.concentrator
    }

    /// The channel-count reading in use.
    pub fn channels(&self) -> ChannelCount {
        self.channels
    }

    /// The source-queue reading in use.
    pub fn source_queues(&self) -> SourceQueues {
        self.source_queues
    }

    /// The system modelled.
    pub fn system(&self) -> &MultiCluster {
        &self.system
    }

    /// The timing used.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Total number of nodes, `N`.
    pub fn nodes(&self) -> f64 {
        self.total_nodes
    }

    /// The prediction at offered traffic `rate` (`λ_g`, messages per node per time unit).
    /// Refuses a negative or non-finite rate, and a rate at which a queue's utilisation
    /// is 1 or more ([`LatencyError::Saturated`]).
    pub fn at(&self, rate: f64) -> Result<Prediction, LatencyError> {
        if !(rate.is_finite() && rate >= 0.0) {
            return Err(LatencyError::BadParameter {
                name: "rate".into(),
                why: format!("{rate} is not a number ≥ 0"),
            });
        }
        let (evals, busiest) = self.evaluate(rate);
        if busiest.1 >= 1.0 {
            return Err(LatencyError::Saturated {
                rate,
                queue: busiest.0,
                utilisation: busiest.1,
            });
        }
        let mut p = Prediction {
            rate,
            latency: 0.0,
            source_wait: 0.0,
            network: 0.0,
            tail: 0.0,
            concentrator_wait: 0.0,
            busiest,
            clusters: Vec::with_capacity(self.class_of.len()),
        };
        for (i, &c) in self.class_of.iter().enumerate() {
            let class = &self.classes[c];
            let e = evals[c];
            let po = class.outgoing;
            let latency =
                (1.0 - po) * e.intra.total() + po * (e.inter.total() + e.concentrator_wait);
            let w = class.nodes / self.total_nodes;
            p.latency += w * latency;
            p.source_wait += w * ((1.0 - po) * e.intra.source_wait + po * e.inter.source_wait);
            p.network += w * ((1.0 - po) * e.intra.network + po * e.inter.network);
            p.tail += w * ((1.0 - po) * e.intra.tail + po * e.inter.tail);
            p.concentrator_wait += w * po * e.concentrator_wait;
            p.clusters.push(ClusterPrediction {
                cluster: i,
                height: class.height,
                nodes: class.nodes,
                outgoing: po,
                latency,
                intra: e.intra,
                inter: e.inter,
                concentrator_wait: e.concentrator_wait,
            });
        }
        Ok(p)
    }

    /// The zero-load prediction (`λ_g = 0`): every waiting time is 0, and each message
    /// takes `M·t` on its first stage and one flit time per further stage.
    pub fn zero_load(&self) -> Prediction {
        self.at(0.0)
            .expect("every utilisation is 0 at rate 0, below 1")
    }

    /// The smallest load at which a queue's (or channel's) utilisation reaches 1, found
    /// by bisection on the model's own utilisations, which grow with the load.
    pub fn saturation(&self) -> Saturation {
        let util = |rate: f64| self.evaluate(rate).1;
        // Bracket: utilisation below 1 at lo, at least 1 at hi.
        let (mut lo, mut hi) = (0.0, 1.0);
        while util(hi).1 < 1.0 {
            lo = hi;
            hi *= 2.0;
        }
        while lo == 0.0 && util(hi / 2.0).1 >= 1.0 && hi > f64::MIN_POSITIVE {
            hi /= 2.0;
        }
        if lo == 0.0 {
            lo = hi / 2.0;
        }
        for _ in 0..200 {
            if hi - lo <= 1e-13 * hi {
                break;
            }
            let mid = 0.5 * (lo + hi);
            if util(mid).1 >= 1.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Saturation {
            rate: 0.5 * (lo + hi),
            queue: util(hi).0,
        }
    }

    /// `points` loads evenly spaced from 0 to `up_to` × the saturation load (`up_to` in
    /// (0, 1), `points` ≥ 2), with the prediction at each.
    pub fn sweep(&self, up_to: f64, points: usize) -> Result<Sweep, LatencyError> {
        if !(up_to > 0.0 && up_to < 1.0) {
            return Err(LatencyError::BadParameter {
                name: "up to".into(),
                why: format!("{up_to} is not a fraction of saturation strictly between 0 and 1"),
            });
        }
        if !(2..=MAX_POINTS).contains(&points) {
            return Err(LatencyError::BadParameter {
                name: "points".into(),
                why: format!(
                    "{points}: a sweep has at least 2 points (0 and the last load) and at most {MAX_POINTS}"
                ),
            });
        }
        let saturation = self.saturation();
        let top = up_to * saturation.rate;
        let points = (0..points)
            .map(|p| self.at(top * p as f64 / (points - 1) as f64))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Sweep { saturation, points })
    }

    /// Evaluates every class at `rate`: the parts of its journeys and the busiest queue.
    /// Waiting times are meaningless when the busiest utilisation is 1 or more.
    fn evaluate(&self, rate: f64) -> (Vec<ClassEval>, (Queue, f64)) {
        let t = &self.timing;
        let flits = t.flits as f64;
        let (t_cn, t_cs) = (t.t_cn(), t.t_cs());
        let nc = self.system.icn2_levels;
        let peers = self.class_of.len() as f64 - 1.0;
        let mut busiest = Busiest(None);
        let mut evals = vec![ClassEval::default(); self.classes.len()];
        // Eqs. 10-12's denominators: 4 as printed, 2 over the one-way channels.
        let per = match self.channels {
            ChannelCount::Printed => 4.0,
            ChannelCount::OneWay => 2.0,
        };
        // M/G/1 waiting time with the Draper-Ghosh variance (eqs. 19-23, 30).
        let source_wait = |lambda: f64, s: f64| {
            let var = (s - flits * t_cn).powi(2);
            lambda * s * s * (1.0 + var / (s * s)) / (2.0 * (1.0 - lambda * s))
        };
        for (a, ca) in self.classes.iter().enumerate() {
            let (na, size, po) = (ca.height, ca.nodes, ca.outgoing);
            let i = ca.members[0];
            // Intra-cluster messages (eqs. 3-5, 10, 16-18, 23-25).
            let lambda_i1 = size * (1.0 - po) * rate;
            let eta_i1 = lambda_i1 * ca.distance / (per * na as f64 * size);
            let mut intra = Journey::default();
            for (j, &p) in (1..=na).zip(&ca.paths) {
                let stages = 2 * j - 1;
                let s = eqs::stage_service_times(
                    stages,
                    flits,
                    t_cn,
                    t_cs,
                    |_| eta_i1,
                    |_, b| busiest.see(Queue::Icn1Channel { cluster: i }, b),
                );
                intra.network += p * s;
                intra.tail += p * eqs::tail_time(stages, t_cn, t_cs);
            }
            let intra_queue = match self.source_queues {
                SourceQueues::Printed => lambda_i1,
                SourceQueues::PerNode => (1.0 - po) * rate,
            };
            busiest.see(
                Queue::IntraSource { cluster: i },
                intra_queue * intra.network,
            );
            intra.source_wait = source_wait(intra_queue, intra.network);
            evals[a].intra = intra;
            // Inter-cluster messages, averaged over the peers (eqs. 6-7, 11-12, 26-34).
            if peers < 1.0 {
                continue;
            }
            let mut inter = Journey::default();
            let mut concentrator = 0.0;
            for (b, cb) in self.classes.iter().enumerate() {
                let same = usize::from(a == b);
                let count = cb.members.len() - same;
                if count == 0 {
                    continue;
                }
                let v = cb.members[same];
                let (nb, size_b, po_b) = (cb.height, cb.nodes, cb.outgoing);
                let lambda_e1 = (size * po + size_b * po_b) * rate;
                let lambda_i2 =
                    (size * po * size + size_b * po_b * size_b) * rate / (size + size_b);
                let eta_e1 = lambda_e1 * ca.distance / (per * na as f64 * size);
                let eta_i2 = lambda_i2 * self.icn2_distance / (per * nc as f64);
                let mut pair = Journey::default();
                let (mut e1_blocking, mut i2_blocking) = (0.0f64, 0.0f64);
                // Reading 16: the waits downstream of the concentrator, by path weight.
                let mut downstream = 0.0;
                for (j, &pj) in (1..=na).zip(&ca.paths) {
                    for (l, &pl) in (1..=nb).zip(&cb.paths) {
                        for (h, &ph) in (1..=nc).zip(&self.icn2_paths) {
                            let p = pj * pl * ph;
                            let stages = j + 2 * h + l - 1;
                            let in_icn2 = |k: usize| j <= k && k < j + 2 * h - 1;
                            let eta = |k: usize| if in_icn2(k) { eta_i2 } else { eta_e1 };
                            // The largest blocking of each kind of channel is that
                            // kind's utilisation.
                            let mut waits = 0.0;
                            let s =
                                eqs::stage_service_times(stages, flits, t_cn, t_cs, eta, |k, b| {
                                    if in_icn2(k) {
                                        i2_blocking = i2_blocking.max(b);
                                    } else {
                                        e1_blocking = e1_blocking.max(b);
                                    }
                                    // W_k = η_k·S_k²/2 = P_B²/(2·η_k) (eqs. 16-17).
                                    let e = eta(k);
                                    if (j..j + 2 * h).contains(&k) && e > 0.0 {
                                        waits += b * b / (2.0 * e);
                                    }
                                });
                            downstream += p * waits;
                            pair.network += p * s;
                            pair.tail += p * eqs::tail_time(stages, t_cn, t_cs);
                        }
                    }
                }
                busiest.see(
                    Queue::Ecn1Channel {
                        cluster: i,
                        peer: v,
                    },
                    e1_blocking,
                );
                busiest.see(
                    Queue::Icn2Channel {
                        cluster: i,
                        peer: v,
                    },
                    i2_blocking,
                );
                let inter_queue = match self.source_queues {
                    SourceQueues::Printed => lambda_e1,
                    SourceQueues::PerNode => po * rate,
                };
                busiest.see(
                    Queue::InterSource {
                        cluster: i,
                        peer: v,
                    },
                    inter_queue * pair.network,
                );
                pair.source_wait = source_wait(inter_queue, pair.network);
                let service = flits * t_cs;
                let concentrate = match self.concentrator {
                    ConcentratorService::Printed => service,
                    ConcentratorService::Blocking => service + downstream,
                };
                busiest.see(
                    Queue::Concentrator {
                        cluster: i,
                        peer: v,
                    },
                    lambda_i2 * concentrate,
                );
                // Eq. 33 for the concentrate and the dispatch buffer (eq. 34 adds them).
                let eq33 = |x: f64| lambda_i2 * x * x / (2.0 * (1.0 - lambda_i2 * x));
                let w_s = 0.5 * (eq33(concentrate) + eq33(service));
                let weight = count as f64 / peers;
                inter.source_wait += weight * pair.source_wait;
                inter.network += weight * pair.network;
                inter.tail += weight * pair.tail;
                concentrator += weight * 2.0 * w_s;
            }
            evals[a].inter = inter;
            evals[a].concentrator_wait = concentrator;
        }
        let busiest = busiest
            .0
            .expect("every cluster has an intra-cluster source queue");
        (evals, busiest)
    }
}

#[cfg(test)]
mod tests;
