//! The two-cluster study (paper 001, Figs. 4-6): the algorithms of [`crate::two_clusters`]
//! on the network of [`liquid_topology::two_clusters`], over message sizes and node
//! counts. Schedules come from the caller (the engine layer), one call per traffic: the
//! sim crate runs no engine.

use liquid_model::{Schedule, Traffic};
use liquid_topology::two_clusters::TwoClusters;

use crate::engine::{simulate_controlled, Control, Options, Transport};
use crate::mpi_alltoall::Library;
use crate::plan::Plan;
use crate::platform::{MappedTraffic, Platform};
use crate::two_clusters::{
    direct_all_at_once, direct_round_robin, direct_scheduled, frames_of, scheduling_traffic,
    Layout, Lg,
};
use crate::SimError;
use serde::{Deserialize, Serialize};

/// The algorithms compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Algorithm {
    /// Every message posted at once: the basic linear all-to-all, which 001's text says
    /// Open MPI uses; Open MPI 1.1.2 picks it only up to 128 KiB per rank in total (see
    /// [`Algorithm::MpiOmpi112`]).
    DirectAllAtOnce,
    /// Rounds i → i+s with a barrier between rounds.
    DirectRoundRobin,
    /// The direct all-to-all run by a liquid schedule, frame by frame.
    DirectLiquid,
    /// 001's LG as published.
    Lg,
    /// LG with each phase run by a liquid schedule, frame by frame.
    LgLiquid,
    /// LG, the data for the other cluster first: the relay messages by a liquid schedule,
    /// then LG's exchanges while the cluster-internal all-to-all runs by a liquid schedule
    /// ([`Lg::plan_relay_first`]).
    LgRelayFirst,
    /// Open MPI 1.1.2's `MPI_Alltoall` (the baseline 001 measured):
    /// [`Library::OpenMpi112`].
    MpiOmpi112,
    /// Open MPI 4.1's `MPI_Alltoall`: [`Library::OpenMpi41`].
    MpiOmpi41,
    /// MPICH 3.3's `MPI_Alltoall`: [`Library::Mpich33`].
    MpiMpich33,
}

impl Algorithm {
    /// Every algorithm, in report order.
    pub const ALL: [Algorithm; 9] = [
        Algorithm::DirectAllAtOnce,
        Algorithm::DirectRoundRobin,
        Algorithm::DirectLiquid,
        Algorithm::Lg,
        Algorithm::LgLiquid,
        Algorithm::LgRelayFirst,
        Algorithm::MpiOmpi112,
        Algorithm::MpiOmpi41,
        Algorithm::MpiMpich33,
    ];

    /// The MPI library whose all-to-all this is, if it is one.
    pub fn library(self) -> Option<Library> {
        match self {
            Algorithm::MpiOmpi112 => Some(Library::OpenMpi112),
            Algorithm::MpiOmpi41 => Some(Library::OpenMpi41),
            Algorithm::MpiMpich33 => Some(Library::Mpich33),
            _ => None,
        }
    }

    /// The name in reports and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::DirectAllAtOnce => "direct-all-at-once",
            Algorithm::DirectRoundRobin => "direct-round-robin",
            Algorithm::DirectLiquid => "direct-liquid",
            Algorithm::Lg => "lg",
            Algorithm::LgLiquid => "lg-liquid",
            Algorithm::LgRelayFirst => "lg-liquid-relay-first",
            Algorithm::MpiOmpi112 => Library::OpenMpi112.name(),
            Algorithm::MpiOmpi41 => Library::OpenMpi41.name(),
            Algorithm::MpiMpich33 => Library::Mpich33.name(),
        }
    }
}

/// The physical setting (defaults: 001's, see [`liquid_topology::two_clusters`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// Backbone bandwidth, MB/s each way.
    pub backbone_mb_s: f64,
    /// Backbone one-way latency, s.
    pub backbone_latency_s: f64,
    /// Node card bandwidth, MB/s each way.
    pub node_mb_s: f64,
    /// Latency of each node link, s.
    pub node_latency_s: f64,
    /// Software overhead per message, s.
    pub overhead_s: f64,
    /// Backbone lanes of the scheduling model (see [`scheduling_traffic`]); `None`:
    /// backbone bandwidth / node bandwidth, rounded, at least 1.
    pub lanes: Option<usize>,
    /// Each cluster's topology as a spec (`fat-tree:4,2`; see
    /// [`liquid_topology::two_clusters`]), `None` for crossbars. The simulation routes
    /// every message through it; the schedules still come from the crossbar model of
    /// [`scheduling_traffic`] (node cards and backbone lanes).
    pub cluster: Option<String>,
    /// The transport every algorithm runs on (default: none, the bare network model).
    pub transport: Transport,
}

impl Default for Setting {
    fn default() -> Self {
        use liquid_topology::two_clusters as t;
        Setting {
            backbone_mb_s: t::DEFAULT_BACKBONE_MB_S,
            backbone_latency_s: t::DEFAULT_BACKBONE_LATENCY_S,
            node_mb_s: t::DEFAULT_NODE_MB_S,
            node_latency_s: t::DEFAULT_NODE_LATENCY_S,
            overhead_s: 0.0,
            lanes: None,
            cluster: None,
            transport: Transport::default(),
        }
    }
}

impl Setting {
    /// The lanes of the scheduling model.
    pub fn lanes(&self) -> usize {
        self.lanes
            .unwrap_or_else(|| (self.backbone_mb_s / self.node_mb_s).round().max(1.0) as usize)
    }

    /// Checks every parameter: bandwidths positive with bytes per second a normal number
    /// (neither 1e308 MB/s nor 1e-320), latencies and overhead finite and not negative,
    /// 1 to [`MAX_LANES`] lanes (given, or from the bandwidths). The error names the
    /// parameter as the command line does.
    pub fn check(&self) -> Result<(), SimError> {
        for (name, v) in [
            ("--backbone-bandwidth", self.backbone_mb_s),
            ("--node-bandwidth", self.node_mb_s),
        ] {
            if !(v > 0.0 && (v * 1e6).is_normal()) {
                return Err(SimError::BadParameter {
                    name,
                    why: format!(
                        "{v} MB/s: give a positive bandwidth whose bytes per second are a finite number"
                    ),
                });
            }
        }
        for (name, v) in [
            ("--backbone-latency", self.backbone_latency_s),
            ("--node-latency", self.node_latency_s),
            ("--overhead", self.overhead_s),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SimError::BadParameter {
                    name,
                    why: format!("{v} s: give a finite number of seconds, not negative"),
                });
            }
        }
        let t = &self.transport;
        for (name, v) in [
            ("--window", t.window_bytes),
            ("--eager-limit", t.eager_limit_bytes.unwrap_or(0.0)),
            ("--serial-overhead", t.serial_overhead_s),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SimError::BadParameter {
                    name,
                    why: format!("{v}: give a finite number, not negative"),
                });
            }
        }
        let lanes = self.lanes();
        if !(1..=MAX_LANES).contains(&lanes) {
            return Err(SimError::BadParameter {
                name: "--lanes",
                why: match self.lanes {
                    Some(l) => format!("{l}: give 1 to {MAX_LANES} lanes"),
                    None => format!(
                        "the backbone is {lanes} times as fast as a node: give --lanes (1 to {MAX_LANES})"
                    ),
                },
            });
        }
        Ok(())
    }
}

/// The most backbone lanes of the scheduling model (the `two-clusters` generator's limit).
pub const MAX_LANES: usize = 1024;

/// What a schedule request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// The direct all-to-all.
    Direct,
    /// LG's local phase (aggregated per sender and relay).
    LgLocal,
    /// LG's inter-cluster phase.
    LgExchange,
    /// LG's relay messages alone (the local phase's data for the other cluster).
    LgRelay,
    /// The cluster-internal all-to-all of LG's local phase.
    LgInternal,
}

/// A schedule the caller computed, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheduled {
    /// The schedule of the traffic given.
    pub schedule: Schedule,
    /// Its source (an engine's name and verdict), for reports.
    pub source: String,
}

/// One traffic scheduled for a case: its size, Λ and the schedule's length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleInfo {
    /// Which traffic.
    pub phase: Phase,
    /// Transfers.
    pub transfers: usize,
    /// Λ of the scheduling model.
    pub duration: usize,
    /// Timeframes of the schedule.
    pub length: usize,
    /// Where it came from.
    pub source: String,
}

/// A case (two cluster sizes) ready to simulate at any message size.
#[derive(Debug, Clone)]
pub struct Case {
    /// Nodes of cluster 1.
    pub n1: usize,
    /// Nodes of cluster 2.
    pub n2: usize,
    platform: Platform,
    layout: Layout,
    lg: Lg,
    direct: Vec<Vec<(usize, usize)>>,
    local: Vec<Vec<usize>>,
    exchanges: Vec<Vec<usize>>,
    relay: Vec<Vec<usize>>,
    internal: Vec<Vec<usize>>,
    eager_limit: Option<f64>,
    /// The five schedules' facts.
    pub schedules: Vec<ScheduleInfo>,
}

/// One simulated run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Makespan, s; None (null, an empty CSV cell) when the time limit stopped the
    /// simulation ([`Case::run_within`]).
    pub makespan_s: Option<f64>,
    /// Messages in the plan.
    pub messages: usize,
    /// Messages crossing the backbone, counted from the plan.
    pub backbone_messages: usize,
}

impl Case {
    /// Builds the network of `n1 + n2` nodes (the `two-clusters` generator), its platform,
    /// and the five schedules: `schedule(phase, traffic)` must return a schedule of the
    /// traffic given (a [`scheduling_traffic`] with the setting's lanes).
    pub fn new(
        n1: usize,
        n2: usize,
        setting: &Setting,
        schedule: &mut dyn FnMut(Phase, &Traffic) -> Result<Scheduled, String>,
    ) -> Result<Case, SimError> {
        setting.check()?;
        let topo = TwoClusters {
            backbone_bandwidth: setting.backbone_mb_s,
            backbone_latency: setting.backbone_latency_s,
            node_bandwidth: setting.node_mb_s,
            node_latency: setting.node_latency_s,
            cluster: setting.cluster.clone(),
            ..TwoClusters::new(n1, n2)
        };
        let bad = |e: &dyn std::fmt::Display| SimError::BadParameter {
            name: "two clusters",
            why: e.to_string(),
        };
        let g = topo.generated().map_err(|e| bad(&e))?;
        let traffic = g.expand().map_err(|e| bad(&e))?;
        let params: std::collections::HashMap<&str, (f64, f64)> = g
            .network
            .links
            .iter()
            .zip(&g.link_params)
            .map(|(l, p)| {
                (
                    l.id.as_str(),
                    (
                        p.bandwidth.unwrap_or(f64::NAN) * 1e6,
                        p.latency.unwrap_or(0.0),
                    ),
                )
            })
            .collect();
        let mapped = MappedTraffic::new(&traffic, |name| params.get(name).copied())?;
        let backbone: Vec<u32> = topo
            .backbone_links()
            .iter()
            .filter_map(|name| traffic.find_link(name))
            .filter_map(|l| mapped.link_index[l.index()])
            .collect();
        let nodes: Vec<String> = (0..n1 + n2).map(|k| topo.node(k)).collect();
        let layout = Layout::from_traffic(&traffic, &mapped.routes, n1, &nodes, backbone)?;
        let lg = Lg::new(n1, n2);
        let lanes = setting.lanes();
        let mut schedules = Vec::new();
        let mut run = |phase: Phase, name: &str, pairs: &[(usize, usize)]| {
            if pairs.is_empty() {
                // Nothing to schedule (a one-node cluster has no internal traffic).
                schedules.push(ScheduleInfo {
                    phase,
                    transfers: 0,
                    duration: 0,
                    length: 0,
                    source: "empty".into(),
                });
                return Ok(Vec::new());
            }
            let t = scheduling_traffic(name, n1, pairs, lanes)?;
            let s = schedule(phase, &t)
                .map_err(|why| SimError::Mismatch(format!("no schedule for {name}: {why}")))?;
            if let Err(e) = liquid_model::validate(&t, &s.schedule) {
                return Err(SimError::Mismatch(format!(
                    "the schedule of {name} is not valid: {e}"
                )));
            }
            schedules.push(ScheduleInfo {
                phase,
                transfers: t.len(),
                duration: t.duration(),
                length: s.schedule.frames.len(),
                source: s.source,
            });
            Ok::<_, SimError>(frames_of(&s.schedule))
        };
        let n = n1 + n2;
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .collect();
        let direct = run(Phase::Direct, &format!("direct-{n1}-{n2}"), &pairs)?
            .into_iter()
            .map(|f| f.into_iter().map(|k| pairs[k]).collect())
            .collect();
        let ends = |ps: Vec<crate::two_clusters::Parcel>| -> Vec<(usize, usize)> {
            ps.into_iter().map(|p| (p.from, p.to)).collect()
        };
        let local = run(
            Phase::LgLocal,
            &format!("lg-local-{n1}-{n2}"),
            &ends(lg.local_aggregated()),
        )?;
        let exchanges = run(
            Phase::LgExchange,
            &format!("lg-exchange-{n1}-{n2}"),
            &ends(lg.exchanges()),
        )?;
        let relay = run(
            Phase::LgRelay,
            &format!("lg-relay-{n1}-{n2}"),
            &ends(lg.relay_aggregated()),
        )?;
        let internal = run(
            Phase::LgInternal,
            &format!("lg-internal-{n1}-{n2}"),
            &ends(lg.internal()),
        )?;
        Ok(Case {
            n1,
            n2,
            platform: mapped.platform,
            layout,
            lg,
            direct,
            local,
            exchanges,
            relay,
            internal,
            eager_limit: setting.transport.eager_limit_bytes,
            schedules,
        })
    }

    /// The plan of an algorithm with messages of `bytes` per piece of data.
    pub fn plan(&self, algorithm: Algorithm, bytes: f64) -> Result<Plan, SimError> {
        Ok(match algorithm {
            Algorithm::DirectAllAtOnce => direct_all_at_once(&self.layout, bytes),
            Algorithm::DirectRoundRobin => direct_round_robin(&self.layout, bytes),
            Algorithm::DirectLiquid => direct_scheduled(&self.layout, bytes, &self.direct)?,
            Algorithm::Lg => self.lg.plan(&self.layout, bytes)?,
            Algorithm::LgLiquid => {
                self.lg
                    .plan_scheduled(&self.layout, bytes, &self.local, &self.exchanges)?
            }
            Algorithm::LgRelayFirst => {
                self.lg
                    .plan_relay_first(&self.layout, bytes, &self.relay, &self.internal)?
            }
            Algorithm::MpiOmpi112 | Algorithm::MpiOmpi41 | Algorithm::MpiMpich33 => {
                let library = algorithm.library().ok_or_else(|| {
                    SimError::Mismatch(format!("{} is no MPI library", algorithm.name()))
                })?;
                let route = |i: usize, j: usize| self.layout.route(i, j).to_vec();
                library.plan(self.n1 + self.n2, bytes, self.eager_limit, &route)?
            }
        })
    }

    /// The plan of one MPI all-to-all algorithm (not a library's choice) with `bytes` per
    /// pair, on this case's ranks 0 … n1+n2-1, sends of `eager_limit` bytes or more
    /// completing at delivery, with ob1's handshake or (`handshake` false) without (for
    /// checks against SMPI; see [`crate::mpi_alltoall::Algorithm::plan_with`]).
    pub fn mpi_plan(
        &self,
        algorithm: crate::mpi_alltoall::Algorithm,
        bytes: f64,
        eager_limit: Option<f64>,
        handshake: bool,
    ) -> Result<Plan, SimError> {
        let route = |i: usize, j: usize| self.layout.route(i, j).to_vec();
        algorithm.plan_with(self.n1 + self.n2, bytes, eager_limit, handshake, &route)
    }

    /// Simulates a plan on this case's platform in a setting.
    pub fn simulate(&self, plan: &Plan, setting: &Setting) -> Result<crate::Run, SimError> {
        self.simulate_over(plan, setting, &setting.transport, None)
    }

    /// Simulates an MPI all-to-all's plan ([`Case::mpi_plan`], or [`Case::plan`] of a
    /// library), which carries its rendezvous handshakes as messages: the transport's
    /// eager limit is off for it, so that the engine adds no second handshake.
    pub fn simulate_mpi(&self, plan: &Plan, setting: &Setting) -> Result<crate::Run, SimError> {
        self.simulate_over(plan, setting, &Self::mpi_transport(setting), None)
    }

    /// The transport of an MPI library's plan: the setting's, its eager limit off.
    fn mpi_transport(setting: &Setting) -> Transport {
        Transport {
            eager_limit_bytes: None,
            ..setting.transport
        }
    }

    /// Simulates a plan on this case's platform with the setting's overhead over
    /// `transport`, stopped with [`SimError::TimeLimit`] at `deadline`.
    fn simulate_over(
        &self,
        plan: &Plan,
        setting: &Setting,
        transport: &Transport,
        deadline: Option<std::time::Instant>,
    ) -> Result<crate::Run, SimError> {
        let opts = Options {
            overhead: setting.overhead_s,
            trace: false,
        };
        let control = Control {
            deadline,
            ..Control::default()
        };
        simulate_controlled(&self.platform, plan, &opts, transport, &control)
    }

    /// The messages of an algorithm's plan that cross the backbone (counted from the plan).
    pub fn backbone_messages(&self, algorithm: Algorithm) -> Result<usize, SimError> {
        Ok(self.layout.backbone_messages(&self.plan(algorithm, 1.0)?))
    }

    /// The messages of `plan` (one of this case's) that cross the backbone.
    pub fn plan_backbone_messages(&self, plan: &Plan) -> usize {
        self.layout.backbone_messages(plan)
    }

    /// Simulates every algorithm with messages of `bytes`.
    pub fn run(&self, bytes: f64, setting: &Setting) -> Result<Vec<Point>, SimError> {
        self.run_within(bytes, setting, None)
    }

    /// [`Case::run`], each simulation within `limit` of wall-clock time: a simulation
    /// the limit stops has no makespan (`makespan_s` None).
    pub fn run_within(
        &self,
        bytes: f64,
        setting: &Setting,
        limit: Option<std::time::Duration>,
    ) -> Result<Vec<Point>, SimError> {
        Algorithm::ALL
            .iter()
            .map(|&a| {
                let plan = self.plan(a, bytes)?;
                // An MPI library's plan carries its own handshakes.
                let transport = match a.library() {
                    Some(_) => Self::mpi_transport(setting),
                    None => setting.transport,
                };
                let deadline = limit.and_then(|t| std::time::Instant::now().checked_add(t));
                let makespan_s = match self.simulate_over(&plan, setting, &transport, deadline) {
                    Ok(run) => Some(run.makespan),
                    Err(SimError::TimeLimit(_)) => None,
                    Err(e) => return Err(e),
                };
                Ok(Point {
                    algorithm: a,
                    makespan_s,
                    messages: plan.messages(),
                    backbone_messages: self.layout.backbone_messages(&plan),
                })
            })
            .collect()
    }
}

/// One row of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `sizes` or `nodes`.
    pub sweep: &'static str,
    /// Nodes of cluster 1.
    pub n1: usize,
    /// Nodes of cluster 2.
    pub n2: usize,
    /// Bytes per message of the all-to-all.
    pub bytes: f64,
    /// The run.
    pub point: Point,
}

/// A number for a CSV cell in its shortest exact form: the fewest digits that read back
/// as the same `f64`, positional (`0.25`, `1500`) or with an exponent (`1e308`,
/// `1.0000152587890625e305`) whichever is shorter. Rust's `{}` alone writes 1e308 as 309
/// digits.
pub fn csv_float(x: f64) -> String {
    let plain = format!("{x}");
    let exp = format!("{x:e}");
    if exp.len() < plain.len() {
        exp
    } else {
        plain
    }
}

/// The CSV header of [`Row::to_csv`].
pub const CSV_HEADER: &str = "sweep,n1,n2,bytes,algorithm,makespan_s,messages,backbone_messages";

impl Row {
    /// The row as CSV (no newline).
    pub fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{}",
            self.sweep,
            self.n1,
            self.n2,
            csv_float(self.bytes),
            self.point.algorithm.name(),
            self.point.makespan_s.map_or(String::new(), csv_float),
            self.point.messages,
            self.point.backbone_messages
        )
    }
}

/// Where LG starts to win and by how much, for one case over sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossover {
    /// The smallest size from which `a` is faster than `b` at every larger size of the
    /// sweep (`None`: not at the largest size).
    pub wins_from_bytes: Option<f64>,
    /// The largest speed-up (time of `b` / time of `a`) and its size.
    pub best_speedup: (f64, f64),
    /// The smallest speed-up and its size.
    pub worst_speedup: (f64, f64),
}

/// Compares algorithm `a` with `b` over the rows of one case (any sweep of sizes).
pub fn crossover(rows: &[Row], a: Algorithm, b: Algorithm) -> Option<Crossover> {
    let mut pairs: Vec<(f64, f64, f64)> = Vec::new(); // bytes, time a, time b
    for r in rows.iter().filter(|r| r.point.algorithm == a) {
        if let Some(o) = rows
            .iter()
            .find(|o| o.point.algorithm == b && o.bytes == r.bytes && (o.n1, o.n2) == (r.n1, r.n2))
        {
            // A run the time limit stopped is compared with nothing.
            if let (Some(ta), Some(tb)) = (r.point.makespan_s, o.point.makespan_s) {
                pairs.push((r.bytes, ta, tb));
            }
        }
    }
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
    if pairs.is_empty() {
        return None;
    }
    let mut wins_from = None;
    for &(bytes, ta, tb) in pairs.iter().rev() {
        if ta < tb {
            wins_from = Some(bytes);
        } else {
            break;
        }
    }
    let speed = |&(bytes, ta, tb): &(f64, f64, f64)| (if ta > 0.0 { tb / ta } else { 1.0 }, bytes);
    let best =
        pairs.iter().map(speed).fold(
            (f64::NEG_INFINITY, 0.0),
            |m, x| if x.0 > m.0 { x } else { m },
        );
    let worst = pairs
        .iter()
        .map(speed)
        .fold((f64::INFINITY, 0.0), |m, x| if x.0 < m.0 { x } else { m });
    Some(Crossover {
        wins_from_bytes: wins_from,
        best_speedup: best,
        worst_speedup: worst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_numbers_are_short_and_exact() {
        for (x, text) in [
            (0.25, "0.25"),
            (1500.0, "1500"),
            (1e308, "1e308"),
            (1.0000152587890625e305, "1.0000152587890625e305"),
            (0.001234567891234, "0.001234567891234"),
            (1e-7, "1e-7"),
        ] {
            assert_eq!(csv_float(x), text);
            assert_eq!(csv_float(x).parse::<f64>(), Ok(x));
        }
    }

    /// A scheduler for tests: first fit in traffic order (valid, not liquid in general).
    fn first_fit(_: Phase, t: &Traffic) -> Result<Scheduled, String> {
        let mut frames: Vec<Vec<liquid_model::TransferId>> = Vec::new();
        for x in t.transfer_ids() {
            match frames
                .iter_mut()
                .find(|f| f.iter().all(|&y| !t.congest(x, y)))
            {
                Some(f) => f.push(x),
                None => frames.push(vec![x]),
            }
        }
        Ok(Scheduled {
            schedule: Schedule::new(frames),
            source: "first fit".into(),
        })
    }

    #[test]
    fn extreme_settings_are_refused_with_the_option_named() {
        let base = Setting::default();
        for (setting, name) in [
            (
                Setting {
                    backbone_mb_s: 1e308,
                    ..base.clone()
                },
                "--backbone-bandwidth",
            ),
            (
                Setting {
                    node_mb_s: 1e308,
                    ..base.clone()
                },
                "--node-bandwidth",
            ),
            (
                Setting {
                    node_mb_s: 1e-320,
                    ..base.clone()
                },
                "--node-bandwidth",
            ),
            (
                Setting {
                    overhead_s: f64::INFINITY,
                    ..base.clone()
                },
                "--overhead",
            ),
            (
                Setting {
                    lanes: Some(0),
                    ..base.clone()
                },
                "--lanes",
            ),
            (
                Setting {
                    transport: Transport {
                        window_bytes: -1.0,
                        ..Transport::default()
                    },
                    ..base.clone()
                },
                "--window",
            ),
            (
                Setting {
                    transport: Transport {
                        eager_limit_bytes: Some(f64::NAN),
                        ..Transport::default()
                    },
                    ..base.clone()
                },
                "--eager-limit",
            ),
            (
                Setting {
                    transport: Transport {
                        serial_overhead_s: f64::INFINITY,
                        ..Transport::default()
                    },
                    ..base.clone()
                },
                "--serial-overhead",
            ),
            (
                Setting {
                    lanes: Some(1025),
                    ..base.clone()
                },
                "--lanes",
            ),
            (
                Setting {
                    backbone_mb_s: 1e300,
                    ..base.clone()
                },
                "--lanes",
            ),
        ] {
            match Case::new(1, 1, &setting, &mut first_fit) {
                Err(SimError::BadParameter { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {:?}", other.map(|c| c.n1)),
            }
        }
    }

    #[test]
    fn a_case_runs_every_algorithm() {
        let setting = Setting::default();
        let case = Case::new(3, 7, &setting, &mut first_fit).expect("case");
        assert_eq!(case.schedules.len(), 5);
        let points = case.run(65536.0, &setting).expect("runs");
        assert_eq!(points.len(), Algorithm::ALL.len());
        let get = |a| points.iter().find(|p| p.algorithm == a).expect("point");
        assert_eq!(get(Algorithm::Lg).backbone_messages, 14);
        assert_eq!(get(Algorithm::LgLiquid).backbone_messages, 14);
        assert_eq!(get(Algorithm::LgRelayFirst).backbone_messages, 14);
        assert_eq!(get(Algorithm::DirectAllAtOnce).backbone_messages, 42);
        assert_eq!(get(Algorithm::DirectLiquid).backbone_messages, 42);
        // 10 ranks of 64 kB: Open MPI 1.1.2 runs pairwise, 9 rounds of 10 messages.
        assert_eq!(get(Algorithm::MpiOmpi112).backbone_messages, 42);
        assert_eq!(get(Algorithm::MpiOmpi112).messages, 90);
        // Eager sends (no eager limit): each round waits for its receives only, so no
        // longer than round-robin's barriers, and at least two backbone latencies.
        let time = |a: Algorithm| get(a).makespan_s.expect("no time limit");
        let pairwise = time(Algorithm::MpiOmpi112);
        assert!(pairwise <= time(Algorithm::DirectRoundRobin));
        assert!(pairwise > 2.0 * 0.005, "{pairwise}");
        // Round-robin pays the backbone latency in every round; LG in 3 steps.
        assert!(time(Algorithm::DirectRoundRobin) > 9.0 * 0.005);
        for p in &points {
            assert!(p.makespan_s > Some(0.005), "{p:?}");
        }
    }

    #[test]
    fn fat_tree_clusters_run_every_algorithm() {
        let setting = Setting {
            cluster: Some("fat-tree:4,2".into()),
            ..Setting::default()
        };
        let case = Case::new(8, 8, &setting, &mut first_fit).expect("case");
        let points = case.run(65536.0, &setting).expect("runs");
        assert_eq!(points.len(), Algorithm::ALL.len());
        let crossbar = Case::new(8, 8, &Setting::default(), &mut first_fit).expect("case");
        let flat = crossbar.run(65536.0, &Setting::default()).expect("runs");
        for (p, q) in points.iter().zip(&flat) {
            assert_eq!(p.algorithm, q.algorithm);
            let want = if matches!(
                p.algorithm,
                Algorithm::Lg | Algorithm::LgLiquid | Algorithm::LgRelayFirst
            ) {
                16
            } else {
                128
            };
            assert_eq!(p.backbone_messages, want, "{p:?}");
            assert_eq!(p.messages, q.messages, "{p:?}");
            // The tree's extra hops and its shared root links never make it faster.
            let (tp, tq) = (p.makespan_s.expect("run"), q.makespan_s.expect("run"));
            assert!(tp >= tq * (1.0 - 1e-9), "{p:?} {q:?}");
        }
        // The cluster sizes must be the tree's.
        let e = Case::new(4, 8, &setting, &mut first_fit).expect_err("4 is not 8");
        assert!(e.to_string().contains("n1: 4 nodes"), "{e}");
    }

    #[test]
    fn a_time_limit_leaves_the_stopped_runs_without_a_makespan() {
        let setting = Setting::default();
        let case = Case::new(2, 3, &setting, &mut first_fit).expect("case");
        let full = case.run(1000.0, &setting).expect("runs");
        let none = case
            .run_within(1000.0, &setting, Some(std::time::Duration::ZERO))
            .expect("runs");
        assert_eq!(full.len(), none.len());
        for (f, n) in full.iter().zip(&none) {
            assert!(f.makespan_s.is_some(), "{f:?}");
            assert_eq!(n.makespan_s, None, "{n:?}");
            assert_eq!(
                (n.messages, n.backbone_messages),
                (f.messages, f.backbone_messages)
            );
        }
        let generous = case
            .run_within(1000.0, &setting, Some(std::time::Duration::from_secs(3600)))
            .expect("runs");
        assert_eq!(generous, full);
    }

    #[test]
    fn one_node_clusters_have_empty_phases() {
        let setting = Setting::default();
        for (n1, n2) in [(1, 1), (1, 2), (3, 1)] {
            let case = Case::new(n1, n2, &setting, &mut first_fit).expect("case");
            let points = case.run(1000.0, &setting).expect("runs");
            assert!(
                points.iter().all(|p| p.makespan_s > Some(0.005)),
                "{points:?}"
            );
        }
    }

    #[test]
    fn crossover_finds_the_last_run_of_wins() {
        let row = |bytes: f64, a: Algorithm, t: f64| Row {
            sweep: "sizes",
            n1: 1,
            n2: 1,
            bytes,
            point: Point {
                algorithm: a,
                makespan_s: Some(t),
                messages: 0,
                backbone_messages: 0,
            },
        };
        let (lg, d) = (Algorithm::Lg, Algorithm::DirectAllAtOnce);
        let rows = vec![
            row(1.0, lg, 1.0),
            row(1.0, d, 2.0),
            row(2.0, lg, 3.0),
            row(2.0, d, 2.0),
            row(4.0, lg, 1.0),
            row(4.0, d, 4.0),
            row(8.0, lg, 1.0),
            row(8.0, d, 2.0),
        ];
        let c = crossover(&rows, lg, d).expect("pairs");
        assert_eq!(c.wins_from_bytes, Some(4.0));
        assert_eq!(c.best_speedup, (4.0, 4.0));
        assert_eq!(c.worst_speedup, (2.0 / 3.0, 2.0));
    }
}
