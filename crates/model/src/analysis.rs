//! `liquid analyze`'s report: loads, duration, bottlenecks and their users, liquid
//! throughput and the conflict graph's size, in the fields (and their order) that the
//! YAML and JSON outputs show.

use serde::Serialize;

use crate::display::{round2, round4};
use crate::Traffic;

/// A bottleneck link, its load and the transfers on it.
#[derive(Debug, Serialize)]
struct BottleneckUsers {
    link: String,
    load: usize,
    users: Vec<String>,
}

/// What `liquid analyze` reports of a traffic.
#[derive(Debug, Serialize)]
pub struct Analysis {
    model: String,
    transfers: usize,
    links: usize,
    total_path_length: usize,
    duration: usize,
    /// The bottleneck links in link order: at most [`SHOWN`] unless
    /// [`AnalysisOptions::all_bottlenecks`].
    bottlenecks: Vec<String>,
    /// How many links are bottlenecks.
    bottleneck_count: usize,
    /// The users of the first listed bottlenecks: at most [`USERS_SHOWN`] unless
    /// [`AnalysisOptions::all_bottlenecks`].
    bottleneck_users: Vec<BottleneckUsers>,
    /// What the two lists leave out, when they leave something out.
    #[serde(skip_serializing_if = "Option::is_none")]
    bottlenecks_note: Option<String>,
    /// #X / Λ, in units of one link's throughput.
    liquid_ratio: f64,
    link_throughput: Option<f64>,
    /// MB/s, when the model gives a link throughput.
    liquid_throughput: Option<f64>,
    conflict_vertices: u64,
    /// `None` when not counted (see [`COUNT_WORK`]).
    conflict_edges: Option<u64>,
    max_conflict_degree: Option<u64>,
    /// Why the conflict edges were not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    conflict_edges_note: Option<String>,
}

/// Conflict edges are counted by default when counting takes at most this many steps
/// ([`Traffic::conflict_work`]; about a second on two cores), and always with
/// `count_conflicts`.
pub const COUNT_WORK: u64 = 1 << 31;

/// At most this many bottleneck links are listed by default (a 1,024-host fat-tree has
/// 2,048, and its full listing with their users is 31 MB of YAML).
pub const SHOWN: usize = 32;

/// The users of at most this many bottleneck links are listed by default.
pub const USERS_SHOWN: usize = 4;

/// What [`Analysis::new`] counts and lists.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnalysisOptions {
    /// Count the conflict edges whatever it takes (else only up to [`COUNT_WORK`]).
    pub count_conflicts: bool,
    /// List every bottleneck link and the users of every one (else [`SHOWN`] and
    /// [`USERS_SHOWN`]).
    pub all_bottlenecks: bool,
}

impl Analysis {
    /// Analyses `traffic`; the conflict edges are counted when `count_conflicts` or when
    /// counting takes at most [`COUNT_WORK`] steps; the bottlenecks and their users are
    /// listed up to [`SHOWN`] and [`USERS_SHOWN`] unless `all_bottlenecks`.
    pub fn new(traffic: &Traffic, options: AnalysisOptions) -> Analysis {
        let bottlenecks = traffic.bottlenecks();
        let n = bottlenecks.len();
        let (shown, users_shown) = if options.all_bottlenecks {
            (n, n)
        } else {
            (SHOWN.min(n), USERS_SHOWN.min(n))
        };
        let bottlenecks_note = (users_shown < n).then(|| {
            let listed = if shown < n {
                format!("{shown} of the {n} bottlenecks listed")
            } else {
                format!("all {n} bottlenecks listed")
            };
            format!(
                "{listed}, the users of the first {users_shown}; \
                 --all-bottlenecks lists every one with its users"
            )
        });
        let work = traffic.conflict_work();
        let stats =
            (options.count_conflicts || work <= COUNT_WORK).then(|| traffic.conflict_stats());
        let note = stats.is_none().then(|| {
            format!(
                "not counted: counting takes about {work:.1e} steps (more than {COUNT_WORK}); \
                 --count-conflicts counts them",
                work = work as f64
            )
        });
        Analysis {
            model: traffic.name().to_string(),
            transfers: traffic.len(),
            links: traffic.num_links(),
            total_path_length: traffic.total_path_length(),
            duration: traffic.duration(),
            bottlenecks: bottlenecks[..shown]
                .iter()
                .map(|&l| traffic.link_name(l).to_string())
                .collect(),
            bottleneck_count: n,
            bottleneck_users: bottlenecks[..users_shown]
                .iter()
                .map(|&l| BottleneckUsers {
                    link: traffic.link_name(l).to_string(),
                    load: traffic.load(l),
                    users: traffic
                        .users(l)
                        .iter()
                        .map(|&t| traffic.transfer_name(t).to_string())
                        .collect(),
                })
                .collect(),
            bottlenecks_note,
            liquid_ratio: round4(traffic.liquid_ratio()),
            link_throughput: traffic.link_throughput(),
            liquid_throughput: traffic.liquid_throughput().map(round2),
            conflict_vertices: traffic.len() as u64,
            conflict_edges: stats.map(|s| s.edges),
            max_conflict_degree: stats.map(|s| s.max_degree),
            conflict_edges_note: note,
        }
    }

    /// The report with every link at `mb_s` MB/s (a platform given apart from the
    /// model, such as `--link-throughput` with `--sizes`): `link_throughput` and the
    /// liquid throughput of `traffic` (the traffic the report is of) at that rate.
    pub fn at_link_throughput(mut self, traffic: &Traffic, mb_s: f64) -> Analysis {
        self.link_throughput = Some(mb_s);
        self.liquid_throughput = Some(round2(mb_s * traffic.liquid_ratio()));
        self
    }

    /// The report with the links that have no bandwidth of their own at `mb_s` MB/s,
    /// other links keeping theirs: `link_throughput` is `mb_s`, and there is no one
    /// liquid throughput.
    pub fn with_default_link_throughput(mut self, mb_s: f64) -> Analysis {
        self.link_throughput = Some(mb_s);
        self.liquid_throughput = None;
        self
    }
}
