//! Paper 002's analytical model against this crate's flit-level simulation (issue 17's
//! study): one latency curve per system and timing.
//!
//! For every offered load `λ_g` of a curve, [`study`] evaluates the model
//! ([`liquid_latency::model::Model`]) under each of [`READINGS`] (all fixed a priori from
//! the paper's equations, none fitted to the simulation): `printed` (reading 1's source
//! queues), `per_node` (reading 15), and on top of `per_node` the two readings of issue
//! 28, `concentrator_blocking` (reading 16: the concentrator's service includes the
//! blocking downstream, like eq. 18) and `one_way_channels` (reading 17: eqs. 10-12 over
//! the `2·n·N` one-way channels). It simulates the system with independent replications
//! and reports the relative error of each reading, `(model − simulation) / simulation`.
//!
//! **Summary** ([`Curve::errors`]): for each reading, each yardstick ([`Against`]) and
//! each fraction `f` of [`FRACTIONS`] (50 %, 70 %, 90 %), the maximum and mean absolute
//! relative error over the loads strictly below `f` times *that reading's* saturation load
//! ([`Model::saturation`]), or `f` times the *simulation's* saturation load (below).
//!
//! 002 itself claims no figure: its model predicts the mean latency "with a good degree
//! of accuracy when the system is in the steady state region", with discrepancies near
//! saturation.
//!
//! **Where the simulation saturates** ([`Curve::sim_saturation`]): the first load of the
//! curve whose simulated mean latency exceeds [`SATURATION_FACTOR`] (10) times the
//! model's zero-load latency (the same for both readings: no queue waits at `λ_g = 0`),
//! or whose run did not complete. A saturated network has no steady state: its mean
//! latency grows with the run's length, and 10× the zero-load latency is far beyond
//! any stable point seen on 002's curves.

use std::fmt::Write as _;

use liquid_latency::model::{ChannelCount, ConcentratorService, Model, SourceQueues};
use liquid_latency::{LatencyError, MultiCluster};
use liquid_plot::{Axis, Chart, Mark, Series};

use crate::{Config, Estimate, FlitError, Forwarding, Progress, Simulator, Timing};

/// The fractions of the model's saturation load below which errors are summarised.
pub const FRACTIONS: [f64; 3] = [0.5, 0.7, 0.9];

/// A simulated latency above this many times the zero-load latency means saturation.
pub const SATURATION_FACTOR: f64 = 10.0;

/// A reading of the model: its source queues (readings 1 and 15), concentrator service
/// (reading 16) and channel count (reading 17).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// The name in reports and CSV columns (`model_<name>`).
    pub name: &'static str,
    /// Source queues.
    pub source_queues: SourceQueues,
    /// Concentrator service.
    pub concentrator: ConcentratorService,
    /// Channel count of eqs. 10-12.
    pub channels: ChannelCount,
}

impl Reading {
    /// The reading's name (`printed`, `per_node`, `concentrator_blocking`,
    /// `one_way_channels`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// `model` under this reading.
    pub fn apply(&self, model: &Model) -> Model {
        model
            .clone()
            .with_source_queues(self.source_queues)
            .with_concentrator(self.concentrator)
            .with_channels(self.channels)
    }
}

/// Number of readings.
pub const R: usize = 4;

/// The readings, in report order: as printed; per-node source queues; and, on top of
/// per-node source queues, the concentrator service with the blocking downstream, and the
/// one-way channel count.
pub const READINGS: [Reading; R] = [
    Reading {
        name: "printed",
        source_queues: SourceQueues::Printed,
        concentrator: ConcentratorService::Printed,
        channels: ChannelCount::Printed,
    },
    Reading {
        name: "per_node",
        source_queues: SourceQueues::PerNode,
        concentrator: ConcentratorService::Printed,
        channels: ChannelCount::Printed,
    },
    Reading {
        name: "concentrator_blocking",
        source_queues: SourceQueues::PerNode,
        concentrator: ConcentratorService::Blocking,
        channels: ChannelCount::Printed,
    },
    Reading {
        name: "one_way_channels",
        source_queues: SourceQueues::PerNode,
        concentrator: ConcentratorService::Printed,
        channels: ChannelCount::OneWay,
    },
];

/// The saturation load an error summary is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The reading's own saturation load.
    Model,
    /// Where the simulation saturates ([`Curve::sim_saturation`]).
    Simulation,
}

/// Why a study could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The analytical model refused the system or timing.
    #[error(transparent)]
    Model(#[from] LatencyError),
    /// The simulator refused the system or a configuration.
    #[error(transparent)]
    Simulation(#[from] FlitError),
    /// The wiring of the system failed.
    #[error("the system cannot be wired: {0}")]
    Wiring(String),
    /// A bad study parameter (named).
    #[error("{name}: {why}")]
    BadParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// The chart could not be drawn.
    #[error("plot: {0}")]
    Plot(String),
}

/// How the simulation runs at every load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Messages counted per run.
    pub messages: u64,
    /// Messages of warm-up per run.
    pub warmup: u64,
    /// Messages of drain per run.
    pub drain: u64,
    /// Independent replications per load (seeds `seed`, `seed + 1`, ...).
    pub replications: usize,
    /// Seed of the first replication.
    pub seed: u64,
    /// Concentrators/dispatchers.
    pub forwarding: Forwarding,
}

impl Settings {
    /// 002's setting: 100,000 counted messages, 10,000 warm-up, 10,000 drain;
    /// `replications` runs from seed `seed`, cut-through concentrators.
    pub fn paper(replications: usize, seed: u64) -> Settings {
        Settings {
            messages: 100_000,
            warmup: 10_000,
            drain: 10_000,
            replications,
            seed,
            forwarding: Forwarding::CutThrough,
        }
    }
}

/// The model's prediction under one reading at one load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Predicted {
    /// Mean latency (eq. 36).
    Latency(f64),
    /// The load is at or beyond this reading's saturation.
    Saturated,
}

impl Predicted {
    /// The latency, if not saturated.
    pub fn latency(self) -> Option<f64> {
        match self {
            Predicted::Latency(l) => Some(l),
            Predicted::Saturated => None,
        }
    }
}

/// One load of a curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Offered traffic `λ_g`, messages per node per time unit.
    pub rate: f64,
    /// The model under [`READINGS`]`[r]`.
    pub model: [Predicted; R],
    /// The simulated mean latency over the replications, with its 95 % interval.
    pub simulated: Estimate,
    /// Whether every replication completed (all counted messages delivered).
    pub completed: bool,
    /// Flit moves simulated, summed over the replications.
    pub flit_moves: u64,
    /// `(model − simulation) / simulation` under each reading (None if saturated).
    pub error: [Option<f64>; R],
}

/// Relative errors of one reading below one fraction of its saturation load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorSummary {
    /// The reading.
    pub reading: Reading,
    /// Whose saturation load the fraction is of.
    pub against: Against,
    /// The fraction of that saturation load.
    pub below: f64,
    /// Loads of the curve strictly below it.
    pub points: usize,
    /// Largest absolute relative error (None without points).
    pub max: Option<f64>,
    /// Mean absolute relative error (None without points).
    pub mean: Option<f64>,
}

/// A whole curve: model and simulation against offered traffic.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The system.
    pub system: MultiCluster,
    /// Message and channel parameters.
    pub timing: Timing,
    /// The simulation's settings.
    pub settings: Settings,
    /// The model's zero-load latency.
    pub zero_load: f64,
    /// Saturation load of [`READINGS`]`[r]`.
    pub saturation: [f64; R],
    /// The loads, ascending.
    pub points: Vec<Point>,
    /// The first load at which the simulation saturates (see the module docs), if any.
    pub sim_saturation: Option<f64>,
    /// For each reading and yardstick, one summary per fraction of [`FRACTIONS`].
    pub errors: Vec<ErrorSummary>,
}

/// The readings' models of a system.
fn models(system: &MultiCluster, timing: Timing) -> Result<[Model; R], StudyError> {
    let m = Model::new(system, timing)?;
    Ok(READINGS.map(|r| r.apply(&m)))
}

/// The most loads a study simulates per curve ([`loads`]): each is a full simulation
/// (002's curves have about 10).
pub const MAX_LOADS: usize = 1000;

/// `points` evenly spaced loads from `up_to / points` to `up_to`, where `up_to` is
/// `beyond` times the larger of the first two readings' saturation loads (`printed` and
/// `per_node`; the others saturate no later than `per_node`).
pub fn loads(
    system: &MultiCluster,
    timing: Timing,
    points: usize,
    beyond: f64,
) -> Result<Vec<f64>, StudyError> {
    if points == 0 || points > MAX_LOADS {
        return Err(StudyError::BadParameter {
            name: "points",
            why: format!("{points}: give 1 to {MAX_LOADS} loads"),
        });
    }
    if !(beyond.is_finite() && beyond > 0.0) {
        return Err(StudyError::BadParameter {
            name: "beyond",
            why: format!("{beyond} is not a positive number"),
        });
    }
    let m = models(system, timing)?;
    let top = beyond * m[0].saturation().rate.max(m[1].saturation().rate);
    Ok((1..=points)
        .map(|k| top * k as f64 / points as f64)
        .collect())
}

/// What the simulation measured at one load of a curve (the part of a [`Point`] that
/// costs a simulation; [`curve`] adds the model's predictions and the errors).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Simulated {
    /// Offered traffic `λ_g`.
    pub rate: f64,
    /// The simulated mean latency over the replications, with its 95 % interval.
    pub simulated: Estimate,
    /// Whether every replication completed (all counted messages delivered).
    pub completed: bool,
    /// Flit moves simulated, summed over the replications.
    pub flit_moves: u64,
}

/// Checks a curve's loads: positive, finite and ascending.
fn check_rates(rates: &[f64]) -> Result<(), StudyError> {
    if let Some(r) = rates.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(StudyError::BadParameter {
            name: "rates",
            why: format!("{r} is not a positive load"),
        });
    }
    if rates.windows(2).any(|w| w[1] <= w[0]) {
        return Err(StudyError::BadParameter {
            name: "rates",
            why: "loads must be ascending".into(),
        });
    }
    Ok(())
}

/// Simulates one load of a curve (independent of the curve's other loads: every load
/// runs the replications from `settings.seed`). `progress` gets the replication and the
/// simulator's report; returning `false` stops the run, and the load gives `None`.
pub fn simulate_load(
    sim: &Simulator<'_>,
    timing: Timing,
    rate: f64,
    settings: Settings,
    progress: &mut dyn FnMut(usize, Progress) -> bool,
) -> Result<Option<Simulated>, StudyError> {
    check_rates(&[rate])?;
    let cfg = Config {
        timing,
        rate,
        messages: settings.messages,
        warmup: settings.warmup,
        drain: settings.drain,
        seed: settings.seed,
        forwarding: settings.forwarding,
    };
    let mut stopped = false;
    let summary = sim.replicate(&cfg, settings.replications, &mut |r, p| {
        let go = progress(r, p);
        stopped |= !go;
        go
    })?;
    if stopped {
        return Ok(None);
    }
    Ok(Some(Simulated {
        rate,
        simulated: summary.overall.latency,
        completed: summary.runs.iter().all(|r| r.completed),
        flit_moves: summary.runs.iter().map(|r| r.flit_moves).sum(),
    }))
}

/// Runs the study of one curve: the model under both readings and the simulation at
/// every load of `rates`. `progress` gets the index of the load, the replication and
/// the simulator's report; returning `false` stops the study with what it has (the
/// interrupted load is not reported). The same as [`simulate_load`] at each load, then
/// [`curve`].
pub fn study(
    system: &MultiCluster,
    timing: Timing,
    rates: &[f64],
    settings: Settings,
    progress: &mut dyn FnMut(usize, usize, Progress) -> bool,
) -> Result<Curve, StudyError> {
    check_rates(rates)?;
    // The model refuses a system before anything is simulated.
    models(system, timing)?;
    let wiring = system
        .wiring()
        .map_err(|e| StudyError::Wiring(e.to_string()))?;
    let sim = Simulator::new(&wiring);
    let mut loads = Vec::with_capacity(rates.len());
    for (i, &rate) in rates.iter().enumerate() {
        match simulate_load(&sim, timing, rate, settings, &mut |r, p| progress(i, r, p))? {
            Some(s) => loads.push(s),
            None => break,
        }
    }
    curve(system, timing, settings, &loads)
}

/// A curve from its simulated loads (ascending): the model under every reading at each
/// load, the relative errors, where the simulation saturates and the error summaries.
pub fn curve(
    system: &MultiCluster,
    timing: Timing,
    settings: Settings,
    loads: &[Simulated],
) -> Result<Curve, StudyError> {
    let rates: Vec<f64> = loads.iter().map(|l| l.rate).collect();
    check_rates(&rates)?;
    let models = models(system, timing)?;
    let saturation = models.each_ref().map(|m| m.saturation().rate);
    let zero_load = models[0].zero_load().latency;
    let points: Vec<Point> = loads
        .iter()
        .map(|l| {
            let model = models.each_ref().map(|m| match m.at(l.rate) {
                Ok(p) => Predicted::Latency(p.latency),
                Err(_) => Predicted::Saturated,
            });
            let simulated = l.simulated;
            let error = model.map(|m| m.latency().map(|x| (x - simulated.mean) / simulated.mean));
            Point {
                rate: l.rate,
                model,
                simulated,
                completed: l.completed,
                flit_moves: l.flit_moves,
                error,
            }
        })
        .collect();
    let sim_saturation = points
        .iter()
        .find(|p| !p.completed || p.simulated.mean > SATURATION_FACTOR * zero_load)
        .map(|p| p.rate);
    let mut errors = Vec::new();
    for against in [Against::Model, Against::Simulation] {
        for (r, &reading) in READINGS.iter().enumerate() {
            let top = match against {
                Against::Model => saturation[r],
                // Beyond the curve: every load is below it.
                Against::Simulation => sim_saturation.unwrap_or(f64::INFINITY),
            };
            for &below in &FRACTIONS {
                let e: Vec<f64> = points
                    .iter()
                    .filter(|p| p.rate < below * top)
                    .filter_map(|p| p.error[r])
                    .map(f64::abs)
                    .collect();
                errors.push(ErrorSummary {
                    reading,
                    against,
                    below,
                    points: e.len(),
                    max: e.iter().copied().reduce(f64::max),
                    mean: (!e.is_empty()).then(|| e.iter().sum::<f64>() / e.len() as f64),
                });
            }
        }
    }
    Ok(Curve {
        system: system.clone(),
        timing,
        settings,
        zero_load,
        saturation,
        points,
        sim_saturation,
        errors,
    })
}

/// The concentrators/dispatchers at one load (issue 28's diagnosis): where the
/// simulated wait goes, and what each reading predicts.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// The load as a fraction of the `per_node` reading's saturation load.
    pub fraction: f64,
    /// Offered traffic `λ_g`.
    pub rate: f64,
    /// The run (one replication, the study's settings and first seed).
    pub run: crate::Run,
    /// The model's mean concentrator/dispatcher wait over all messages under each
    /// reading (`Σ N_i/N·P_o·W_d`; None where the reading is saturated).
    pub model_wait: [Option<f64>; R],
    /// Each reading's mean latency (None where saturated).
    pub model_latency: [Option<f64>; R],
}

/// Simulates `system` at each fraction of the `per_node` reading's saturation load (one
/// run each, `settings`' counts and first seed) and splits the concentrators' and
/// dispatchers' time ([`crate::QueueWaits`]). `progress` as for [`study`].
pub fn diagnose(
    system: &MultiCluster,
    timing: Timing,
    fractions: &[f64],
    settings: Settings,
    progress: &mut dyn FnMut(usize, Progress) -> bool,
) -> Result<Vec<Diagnosis>, StudyError> {
    if let Some(f) = fractions.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
        return Err(StudyError::BadParameter {
            name: "fractions",
            why: format!("{f} is not a positive fraction"),
        });
    }
    let models = models(system, timing)?;
    let top = models[1].saturation().rate;
    let wiring = system
        .wiring()
        .map_err(|e| StudyError::Wiring(e.to_string()))?;
    let sim = Simulator::new(&wiring);
    let mut out = Vec::new();
    for (i, &fraction) in fractions.iter().enumerate() {
        let rate = fraction * top;
        let cfg = Config {
            timing,
            rate,
            messages: settings.messages,
            warmup: settings.warmup,
            drain: settings.drain,
            seed: settings.seed,
            forwarding: settings.forwarding,
        };
        let run = sim.run(&cfg, &mut |p| progress(i, p))?;
        let at = models.each_ref().map(|m| m.at(rate).ok());
        out.push(Diagnosis {
            fraction,
            rate,
            run,
            model_wait: at
                .each_ref()
                .map(|p| p.as_ref().map(|p| p.concentrator_wait)),
            model_latency: at.each_ref().map(|p| p.as_ref().map(|p| p.latency)),
        });
    }
    Ok(out)
}

/// The diagnosis as Markdown: per load, the concentrate and dispatch queues' split
/// (queueing, waiting for the first channel, service mean ± standard deviation, the part
/// of the service lost downstream), the simulated and modelled mean waits, and `M·t_cs`.
pub fn diagnosis_table(timing: Timing, rows: &[Diagnosis]) -> String {
    let bare = timing.flits as f64 * timing.t_cs();
    let mut s = format!(
        "`M·t_cs` = {bare:.2} (eq. 33's service). Times per message at that kind of queue; \
         the mean wait is over all messages (intra-cluster ones wait 0), as eq. 36 weighs it.\n\n\
         | load (per_node sat.) | λ_g | messages | queue | queueing | first channel | service (mean ± sd) | lost downstream |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for d in rows {
        for (name, q) in [
            ("concentrate", d.run.concentrators),
            ("dispatch", d.run.dispatchers),
        ] {
            writeln!(
                s,
                "| {:.2} | {:.3e} | {} | {name} | {:.2} | {:.2} | {:.2} ± {:.2} | {:.2} |",
                d.fraction,
                d.rate,
                q.messages,
                q.queueing,
                q.first_channel,
                q.service,
                q.service_sd,
                q.downstream
            )
            .expect("string");
        }
    }
    s.push_str("\n| load (per_node sat.) | simulated wait |");
    for r in &READINGS {
        write!(s, " {} |", r.name).expect("string");
    }
    s.push_str(" simulated latency |");
    for r in &READINGS {
        write!(s, " latency, {} |", r.name).expect("string");
    }
    s.push_str("\n|");
    for _ in 0..2 * R + 3 {
        s.push_str(" --- |");
    }
    s.push('\n');
    for d in rows {
        write!(
            s,
            "| {:.2} | {:.2} |",
            d.fraction, d.run.overall.concentrator_wait
        )
        .expect("string");
        for w in d.model_wait {
            write!(
                s,
                " {} |",
                w.map_or("saturated".into(), |w| format!("{w:.2}"))
            )
            .expect("string");
        }
        write!(s, " {:.2} |", d.run.overall.latency).expect("string");
        for l in d.model_latency {
            write!(
                s,
                " {} |",
                l.map_or("saturated".into(), |l| format!("{l:.2}"))
            )
            .expect("string");
        }
        s.push('\n');
    }
    s
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or(String::new(), |v| format!("{v:.digits$}"))
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.1} %", 100.0 * v))
}

/// The file name of the curve of `system` with `timing` ([`Curve::name`]): two curves of
/// one name would write the same files.
pub fn curve_name(system: &MultiCluster, timing: Timing) -> String {
    format!(
        "{}-{}",
        system.spec().replace([',', '+'], "-"),
        timing.flits
    )
}

impl Curve {
    /// A short name for files: the system's spec with `,`/`+` as `-`, then `M`
    /// (e.g. `8-12x1-16x2-4x3-2-32`).
    pub fn name(&self) -> String {
        curve_name(&self.system, self.timing)
    }

    /// The points as CSV: `rate`, `load_<reading>` for each reading (the load as a
    /// fraction of the reading's saturation load), `model_<reading>`, `sim_mean`,
    /// `sim_half_width`, `sim_completed`, `error_<reading>` (empty model and error cells
    /// where the reading is saturated); readings in [`READINGS`] order.
    pub fn csv(&self) -> String {
        let cols = |prefix: &str| -> String {
            READINGS
                .iter()
                .map(|r| format!("{prefix}_{}", r.name))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut s = format!(
            "rate,{},{},sim_mean,sim_half_width,sim_completed,{}\n",
            cols("load"),
            cols("model"),
            cols("error")
        );
        for p in &self.points {
            let loads: Vec<String> = (0..R)
                .map(|r| format!("{:.4}", p.rate / self.saturation[r]))
                .collect();
            let models: Vec<String> = (0..R).map(|r| opt(p.model[r].latency(), 4)).collect();
            let errors: Vec<String> = (0..R).map(|r| opt(p.error[r], 5)).collect();
            writeln!(
                s,
                "{:e},{},{},{:.4},{},{},{}",
                p.rate,
                loads.join(","),
                models.join(","),
                p.simulated.mean,
                opt(p.simulated.half_width, 4),
                p.completed,
                errors.join(","),
            )
            .expect("string");
        }
        s
    }

    /// The points as a Markdown table.
    pub fn points_table(&self) -> String {
        let mut s = String::from("| λ_g | load (per_node) |");
        for r in &READINGS {
            write!(s, " model, {} |", r.name).expect("string");
        }
        s.push_str(" simulation (95 % CI) |");
        for r in &READINGS {
            write!(s, " error, {} |", r.name).expect("string");
        }
        s.push_str("\n|");
        for _ in 0..2 * R + 3 {
            s.push_str(" --- |");
        }
        s.push('\n');
        for p in &self.points {
            let m = |r: usize| opt(p.model[r].latency(), 2);
            let m: [String; R] =
                std::array::from_fn(m).map(|x| if x.is_empty() { "saturated".into() } else { x });
            let sim = match p.simulated.half_width {
                Some(h) => format!("{:.2} ± {h:.2}", p.simulated.mean),
                None => format!("{:.2}", p.simulated.mean),
            };
            let sim = if p.completed {
                sim
            } else {
                format!("{sim} (incomplete)")
            };
            write!(
                s,
                "| {:.3e} | {:.2} | {} | {sim} |",
                p.rate,
                p.rate / self.saturation[1],
                m.join(" | "),
            )
            .expect("string");
            for r in 0..R {
                write!(s, " {} |", pct(p.error[r])).expect("string");
            }
            s.push('\n');
        }
        s
    }

    /// One Markdown row per reading for [`error_table`]: system, M, reading, saturation
    /// load, max/mean error below each fraction, where the simulation saturates.
    fn error_rows(&self) -> String {
        let mut s = String::new();
        for (r, reading) in READINGS.iter().enumerate() {
            write!(
                s,
                "| `{}` | {} | {} | {:.3e} |",
                self.system.spec(),
                self.timing.flits,
                reading.name(),
                self.saturation[r]
            )
            .expect("string");
            for against in [Against::Model, Against::Simulation] {
                for e in self
                    .errors
                    .iter()
                    .filter(|e| e.reading == *reading && e.against == against)
                {
                    write!(s, " {} / {} ({}) |", pct(e.max), pct(e.mean), e.points)
                        .expect("string");
                }
            }
            let sat = self.sim_saturation.map_or("beyond the curve".into(), |x| {
                format!("{x:.3e} ({:.2})", x / self.saturation[r])
            });
            writeln!(s, " {sat} |").expect("string");
        }
        s
    }

    /// The curve as an SVG chart like 002's Figs. 3-4: simulated means (dots, with
    /// their 95 % interval bounds as small marks) and both readings' model lines
    /// against offered traffic, the y axis capped at 5× the zero-load latency (points
    /// above it are left out).
    pub fn svg(&self) -> Result<String, StudyError> {
        let cap = 5.0 * self.zero_load;
        let keep = |pts: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
            pts.into_iter().filter(|p| p.1 <= cap).collect()
        };
        let mut series = Vec::new();
        let names = [
            "model, printed source queues",
            "model, per-node source queues",
            "model, per-node, concentrator blocking",
            "model, per-node, one-way channels",
        ];
        let colours = ["#e15759", "#4e79a7", "#59a14f", "#f28e2b"];
        let models = models(&self.system, self.timing)?;
        for r in 0..R {
            // The model line, densely up to its saturation.
            let top = self.saturation[r];
            let pts = (0..=200)
                .map(|k| top * k as f64 / 200.0)
                .filter_map(|x| models[r].at(x).ok().map(|p| (x, p.latency)))
                .collect();
            series.push(Series {
                name: names[r].into(),
                colour: colours[r].into(),
                mark: Mark::Line,
                dashed: r == 0,
                points: keep(pts),
            });
        }
        let hw: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter_map(|p| {
                p.simulated
                    .half_width
                    .map(|h| (p.rate, p.simulated.mean, h))
            })
            .flat_map(|(x, m, h)| [(x, m - h), (x, m + h)])
            .collect();
        if !hw.is_empty() {
            series.push(Series {
                name: "simulation, 95 % interval bounds".into(),
                colour: "#bab0ac".into(),
                mark: Mark::Dots,
                dashed: false,
                points: keep(hw),
            });
        }
        series.push(Series {
            name: "simulation (mean)".into(),
            colour: "#000000".into(),
            mark: Mark::LineDots,
            dashed: false,
            points: keep(
                self.points
                    .iter()
                    .map(|p| (p.rate, p.simulated.mean))
                    .collect(),
            ),
        });
        let chart = Chart {
            title: format!(
                "{} (N = {}), M = {}, L_m = {}",
                self.system.spec(),
                self.system.nodes(),
                self.timing.flits,
                self.timing.flit_bytes
            ),
            x: Axis {
                label: "offered traffic λ_g (messages per node per time unit)".into(),
                ticks: ticks(self.points.last().map_or(self.saturation[1], |p| p.rate)),
                ..Axis::default()
            },
            y: Axis {
                label: format!("mean latency (capped at 5× zero load = {cap:.0})"),
                ..Axis::default()
            },
            series,
            size: (800, 520),
        };
        chart.to_svg().map_err(|e| StudyError::Plot(e.to_string()))
    }
}

/// Labelled ticks from 0 to `top`: four to eight, at a step of 1, 2 or 5 times a power of
/// ten, written in short scientific notation (`1.5e-4`).
fn ticks(top: f64) -> Vec<(f64, String)> {
    if !(top.is_finite() && top > 0.0) {
        return Vec::new();
    }
    let raw = top / 8.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|k| k * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let label = |v: f64| {
        if v == 0.0 {
            return "0".to_string();
        }
        let s = format!("{v:.2e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        format!("{m}e{e}")
    };
    (0..)
        .map(|k| k as f64 * step)
        .take_while(|v| *v <= top * 1.0001)
        .map(|v| (v, label(v)))
        .collect()
}

/// The summary of several curves as one Markdown table: per curve and reading, the
/// reading's saturation load, `max / mean (points)` absolute relative error below 50 %,
/// 70 % and 90 % of it, then below 50 %, 70 % and 90 % of the simulation's saturation
/// load, and where the simulation saturates (with the fraction of the reading's
/// saturation load).
pub fn error_table(curves: &[Curve]) -> String {
    let mut s = String::from(
        "| system | M | reading | model saturation λ_g | error < 50 % model sat. | < 70 % model | < 90 % model | error < 50 % sim. sat. | < 70 % sim. | < 90 % sim. | simulation saturates at (fraction) |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for c in curves {
        s.push_str(&c.error_rows());
    }
    s
}

/// The study of several curves as Markdown: how it was made, the error table
/// ([`error_table`]) and every curve's points ([`Curve::points_table`]).
pub fn markdown(curves: &[Curve]) -> String {
    let mut s = String::new();
    if let Some(c) = curves.first() {
        let st = c.settings;
        writeln!(
            s,
            "Per load: {} replication(s) of {} counted messages ({} warm-up, {} drain), \
             seeds {} to {}, {} concentrators. Relative error = (model − simulation) / \
             simulation; the error columns give `max / mean (loads)` of its absolute value \
             over the loads below that fraction of the reading's own saturation load \
             (model sat.) or of the simulation's (sim. sat.). The \
             simulation saturates at the first load whose mean latency exceeds {} × the \
             model's zero-load latency or whose run did not complete.\n",
            st.replications,
            st.messages,
            st.warmup,
            st.drain,
            st.seed,
            st.seed + st.replications as u64 - 1,
            match st.forwarding {
                Forwarding::CutThrough => "cut-through",
                Forwarding::StoreAndForward => "store-and-forward",
            },
            SATURATION_FACTOR,
        )
        .expect("string");
    }
    s.push_str(&error_table(curves));
    for c in curves {
        write!(
            s,
            "\n### `{}` (N = {}), M = {}, L_m = {}\n\nZero-load latency (model) {:.2}; \
             saturation λ_g: {}; simulation {}.\n\n{}",
            c.system.spec(),
            c.system.nodes(),
            c.timing.flits,
            c.timing.flit_bytes,
            c.zero_load,
            READINGS
                .iter()
                .zip(c.saturation)
                .map(|(r, x)| format!("{} {x:.3e}", r.name))
                .collect::<Vec<_>>()
                .join(", "),
            c.sim_saturation
                .map_or("not within the curve".into(), |x| format!("{x:.3e}")),
            c.points_table(),
        )
        .expect("string");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> (MultiCluster, Timing) {
        (
            MultiCluster::parse("4,1+2").expect("spec"),
            Timing::paper(4, 256.0),
        )
    }

    #[test]
    fn a_small_curve_has_every_load_and_summaries() {
        let (system, timing) = tiny();
        let rates = loads(&system, timing, 6, 1.2).expect("loads");
        assert_eq!(rates.len(), 6);
        let settings = Settings {
            messages: 2000,
            warmup: 200,
            drain: 200,
            replications: 2,
            seed: 3,
            forwarding: Forwarding::CutThrough,
        };
        let curve = study(&system, timing, &rates, settings, &mut |_, _, _| true).expect("study");
        assert_eq!(curve.points.len(), 6);
        // Beyond the larger saturation load both readings refuse.
        let last = curve.points.last().expect("points");
        assert_eq!(last.model, [Predicted::Saturated; R]);
        assert_eq!(last.error, [None; R]);
        // The first load is below both saturations: errors are relative to the mean.
        let first = &curve.points[0];
        for r in 0..R {
            let m = first.model[r].latency().expect("below saturation");
            let e = first.error[r].expect("an error");
            assert!((e - (m - first.simulated.mean) / first.simulated.mean).abs() < 1e-12);
        }
        assert_eq!(curve.errors.len(), 2 * R * FRACTIONS.len());
        for e in &curve.errors {
            let r = READINGS
                .iter()
                .position(|x| *x == e.reading)
                .expect("reading");
            let top = match e.against {
                Against::Model => curve.saturation[r],
                Against::Simulation => curve.sim_saturation.unwrap_or(f64::INFINITY),
            };
            let n = curve
                .points
                .iter()
                .filter(|p| p.rate < e.below * top && p.error[r].is_some())
                .count();
            assert_eq!(e.points, n);
            assert_eq!(e.max.is_some(), n > 0);
        }
        let csv = curve.csv();
        assert_eq!(csv.lines().count(), 7);
        assert!(csv.starts_with("rate,load_printed,"));
        assert!(csv.lines().next().expect("header").contains(
            "model_printed,model_per_node,model_concentrator_blocking,model_one_way_channels"
        ));
        let svg = curve.svg().expect("svg");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(error_table(&[curve]).lines().count(), 2 + R);
    }

    #[test]
    fn loads_simulated_apart_make_the_same_curve() {
        // What a sharded study relies on: each load alone, in any order, then `curve`,
        // gives the curve `study` gives.
        let (system, timing) = tiny();
        let rates = loads(&system, timing, 4, 1.2).expect("loads");
        let settings = Settings {
            messages: 1000,
            warmup: 100,
            drain: 100,
            replications: 2,
            seed: 5,
            forwarding: Forwarding::CutThrough,
        };
        let whole = study(&system, timing, &rates, settings, &mut |_, _, _| true).expect("study");
        let wiring = system.wiring().expect("wired");
        let sim = Simulator::new(&wiring);
        let mut apart: Vec<Simulated> = rates
            .iter()
            .rev()
            .map(|&r| {
                simulate_load(&sim, timing, r, settings, &mut |_, _| true)
                    .expect("runs")
                    .expect("not stopped")
            })
            .collect();
        apart.reverse();
        assert_eq!(
            curve(&system, timing, settings, &apart).expect("curve"),
            whole
        );
        assert_eq!(whole.points.len(), 4);
        // Loads out of order are refused.
        apart.swap(0, 1);
        assert!(matches!(
            curve(&system, timing, settings, &apart),
            Err(StudyError::BadParameter { name: "rates", .. })
        ));
    }

    #[test]
    fn the_simulation_saturates_where_latency_explodes() {
        let (system, timing) = tiny();
        let zero = Model::new(&system, timing)
            .expect("model")
            .zero_load()
            .latency;
        let rates = loads(&system, timing, 4, 3.0).expect("loads");
        let settings = Settings {
            messages: 3000,
            warmup: 300,
            drain: 300,
            replications: 1,
            seed: 1,
            forwarding: Forwarding::CutThrough,
        };
        let curve = study(&system, timing, &rates, settings, &mut |_, _, _| true).expect("study");
        let first = curve
            .points
            .iter()
            .find(|p| p.simulated.mean > SATURATION_FACTOR * zero)
            .map(|p| p.rate);
        assert_eq!(curve.sim_saturation, first);
        assert!(curve.points[0].simulated.half_width.is_none());
    }

    #[test]
    fn the_diagnosis_splits_the_concentrator_waits() {
        let (system, timing) = tiny();
        let settings = Settings {
            messages: 2000,
            warmup: 200,
            drain: 200,
            replications: 1,
            seed: 1,
            forwarding: Forwarding::CutThrough,
        };
        let rows =
            diagnose(&system, timing, &[0.3, 0.5], settings, &mut |_, _| true).expect("diagnosis");
        assert_eq!(rows.len(), 2);
        for d in &rows {
            assert!(d.run.completed);
            assert!(d.run.concentrators.messages > 0);
            assert!(d.model_latency[1].is_some());
        }
        let md = diagnosis_table(timing, &rows);
        assert_eq!(md.matches("| concentrate |").count(), 2);
        assert!(diagnose(&system, timing, &[0.0], settings, &mut |_, _| true).is_err());
    }

    #[test]
    fn ticks_are_round_and_distinct() {
        let t = ticks(6.331e-4);
        let labels: Vec<&str> = t.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(
            labels,
            ["0", "1e-4", "2e-4", "3e-4", "4e-4", "5e-4", "6e-4"]
        );
        let t = ticks(1.598e-4);
        assert_eq!(t[1].1, "2e-5");
        assert_eq!(t.last().map(|x| x.1.as_str()), Some("1.4e-4"));
        assert!(ticks(0.0).is_empty());
    }

    #[test]
    fn bad_loads_are_refused_by_name() {
        let (system, timing) = tiny();
        let s = Settings::paper(1, 1);
        for rates in [vec![0.0], vec![2e-4, 1e-4], vec![f64::NAN]] {
            match study(&system, timing, &rates, s, &mut |_, _, _| true) {
                Err(StudyError::BadParameter { name: "rates", .. }) => {}
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(
            loads(&system, timing, 0, 1.2),
            Err(StudyError::BadParameter { name: "points", .. })
        ));
    }
}
