use std::path::PathBuf;
use std::process::ExitCode;

use liquid_model::analysis::{Analysis, AnalysisOptions};

use crate::output::{emitted, Format};
use crate::InputError;

// `liquid analyze`'s arguments.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Model file (explicit or network form), or a generated-model spec such as
    /// `t1:4,4,4,4,0,0,2,1`, `fat-tree:4,3`, `ring:6,2`, `torus:4x4,1`, `paper-fig1:`,
    /// `two-clusters:20,40`, `multi-cluster:8,12x1+16x2+4x3`, `dragonfly:4,2,2[,G]`,
    /// `dragonfly-plus:4,4,4,4[,G]`, `rail:32,8[,K][,pxn]`, `hyperx:16x16,4` (the
    /// generators of `liquid generate --help`, with their host and switch counts).
    model: PathBuf,
    /// Count the conflict edges even when that takes long (by default they are
    /// counted when it takes at most about 2^31 steps, and `conflict_edges_note` says
    /// why they were not).
    #[arg(long)]
    count_conflicts: bool,
    /// List every bottleneck link and the users of every one (by default at most 32
    /// bottlenecks are listed and the users of the first 4; `bottleneck_count` says how
    /// many there are and `bottlenecks_note` what was left out).
    #[arg(long, conflicts_with = "stream")]
    all_bottlenecks: bool,
    /// Closed forms only, for traffics too large to hold (`fat-tree:32,3`: 8,192
    /// hosts; `fat-tree:64,3`: 65,536; `dragonfly:16,8,8` and `dragonfly-plus:16,16,8,8`:
    /// 16,512; `rail:2048,8,pxn` and `hyperx:16x16x16,4`: 16,384): loads per class of links, Λ, bottlenecks and liquid throughput, derived without the transfers (see crates/stream/README.md).
    #[arg(long, conflicts_with = "count_conflicts")]
    stream: bool,
    /// With --stream: the link throughput in MB/s for the liquid throughput; with
    /// --sizes: for the links without their own (over the model's link_throughput).
    #[arg(long, value_name = "MB/s")]
    link_throughput: Option<f64>,
    #[command(flatten)]
    sizes: super::SizesCli,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    format: Format,
}

impl AnalyzeArgs {
    /// What the report counts and lists.
    fn options(&self) -> AnalysisOptions {
        AnalysisOptions {
            count_conflicts: self.count_conflicts,
            all_bottlenecks: self.all_bottlenecks,
        }
    }
}

/// `liquid analyze MODEL [--count-conflicts] [--all-bottlenecks]` (the report is
/// `liquid_model::analysis::Analysis`; with `--stream`, [`super::analyze_stream`]).
pub fn analyze(a: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    if a.stream {
        if a.sizes.sizes.is_some() {
            return Err(InputError("--stream takes no --sizes".into()).into());
        }
        return super::analyze_stream(&a.model, a.link_throughput, a.format);
    }
    if let Some(args) = a.sizes.args(a.link_throughput)? {
        let report = liquid_study::alltoallv::analyze(&a.model, &args, a.options())?;
        return crate::output::emitted_figures(&report, a.format, &[]);
    }
    if a.link_throughput.is_some() {
        return Err(InputError("--link-throughput goes with --stream or --sizes".into()).into());
    }
    let traffic = liquid_study::input::load_traffic(&a.model)?;
    emitted(&Analysis::new(&traffic, a.options()), a.format)
}
