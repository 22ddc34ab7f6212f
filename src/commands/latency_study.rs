//! `liquid latency study`: paper 002's analytical model (both readings of its source
//! queues) against the flit-level simulation (`liquid_flit::study`), curve by curve,
//! with CSV and SVG files and the table of relative errors.

use std::path::PathBuf;
use std::process::ExitCode;

use liquid_flit::study::{self, Settings};
use liquid_flit::Timing;
use liquid_topology::multi_cluster::MultiCluster;

use crate::InputError;

/// `liquid latency study`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct LatencyStudyArgs {
    /// Directory for latency-<system>-<M>.csv and .svg (created if missing).
    #[arg(long, default_value = "latency-study")]
    pub out: PathBuf,
    /// Systems as M,LIST[,NC], separated by `;` or given several times (default: 002's
    /// Table 1, 8,12x1+16x2+4x3 and 4,8x3+3x4+5x5).
    #[arg(long, value_delimiter = ';')]
    pub systems: Vec<String>,
    /// Message sizes as M:L_m (flits : bytes per flit), separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "32:256,64:512")]
    pub sizes: Vec<String>,
    /// Loads per curve, evenly spaced up to --beyond × the larger saturation load of the
    /// model's two readings.
    #[arg(long, default_value_t = 20)]
    pub points: usize,
    /// The last load as a multiple of the larger of the two saturation loads.
    #[arg(long, default_value_t = 1.2, allow_negative_numbers = true)]
    pub beyond: f64,
    #[command(flatten)]
    pub counts: super::latency::MessageCounts,
    /// Independent runs per load (seeds SEED, SEED+1, ...).
    #[arg(long, default_value_t = 3)]
    pub replications: usize,
    /// Seed of the first replication.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the whole study (error table and every curve's points) as Markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
}

fn size(s: &str) -> anyhow::Result<Timing> {
    let bad = || InputError::of(format!("sizes: {s:?} is not M:L_m (e.g. 32:256)"));
    let (m, l) = s.trim().split_once(':').ok_or_else(bad)?;
    let flits: u32 = m.trim().parse().map_err(|_| bad())?;
    let bytes: f64 = l.trim().parse().map_err(|_| bad())?;
    let t = Timing::paper(flits, bytes);
    t.check()
        .map_err(|e| InputError::of(format!("sizes: {s:?}: {e}")))?;
    Ok(t)
}

/// `liquid latency study ...`.
pub fn latency_study(a: &LatencyStudyArgs) -> anyhow::Result<ExitCode> {
    let specs: Vec<String> = if a.systems.is_empty() {
        vec!["8,12x1+16x2+4x3".into(), "4,8x3+3x4+5x5".into()]
    } else {
        a.systems.clone()
    };
    let mut systems = Vec::new();
    for s in &specs {
        let spec = s.trim();
        let spec = spec.strip_prefix("multi-cluster:").unwrap_or(spec);
        systems.push(
            MultiCluster::parse(spec)
                .map_err(|e| InputError::of(format!("systems: {spec:?}: {e}")))?,
        );
    }
    let timings = a
        .sizes
        .iter()
        .map(|s| size(s))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let settings = Settings {
        messages: a.counts.messages,
        warmup: a.counts.warmup,
        drain: a.counts.drain,
        replications: a.replications,
        seed: a.seed,
        forwarding: liquid_flit::Forwarding::CutThrough,
    };
    // Check every curve's loads and the run parameters before the first simulation.
    let mut curves_todo = Vec::new();
    for system in &systems {
        for &timing in &timings {
            let rates = study::loads(system, timing, a.points, a.beyond).map_err(InputError::of)?;
            liquid_flit::Config {
                timing,
                rate: rates[0],
                messages: a.counts.messages,
                warmup: a.counts.warmup,
                drain: a.counts.drain,
                seed: a.seed,
                forwarding: settings.forwarding,
            }
            .check()
            .map_err(InputError::of)?;
            system
                .wiring()
                .map_err(|e| InputError::of(format!("systems: {e}")))?;
            curves_todo.push((system, timing, rates));
        }
    }
    if a.replications == 0 {
        return Err(InputError::of(
            "replications: at least one replication is needed",
        ));
    }
    std::fs::create_dir_all(&a.out)
        .map_err(|e| InputError::of(format!("out: cannot create {}: {e}", a.out.display())))?;
    let mut curves = Vec::new();
    for (system, timing, rates) in curves_todo {
        let n = rates.len();
        eprintln!(
            "{} M = {}: simulating {n} loads up to λ_g = {:.3e}",
            system.spec(),
            timing.flits,
            rates[n - 1]
        );
        let mut announced = None;
        let curve = study::study(system, timing, &rates, settings, &mut |i, _, _| {
            if announced != Some(i) {
                announced = Some(i);
                eprintln!(
                    "{} M = {}: load {}/{n} (λ_g = {:.3e})",
                    system.spec(),
                    timing.flits,
                    i + 1,
                    rates[i]
                );
            }
            true
        })
        .map_err(InputError::of)?;
        let name = curve.name();
        for (ext, text) in [
            ("csv", curve.csv()),
            ("svg", curve.svg().map_err(InputError::of)?),
        ] {
            let path = a.out.join(format!("latency-{name}.{ext}"));
            std::fs::write(&path, text)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        }
        curves.push(curve);
    }
    crate::output::print(&study::error_table(&curves))?;
    if let Some(md) = &a.markdown {
        std::fs::write(md, study::markdown(&curves))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", md.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
