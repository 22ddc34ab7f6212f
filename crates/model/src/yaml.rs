//! All YAML input and output of liquid: model files (explicit and network forms),
//! schedule files, and the serialisation of reports.
//!
//! Errors name the file, the line and column, and the field. Syntax and type errors come
//! with serde's own location; semantic errors (duplicate ids, missing links, ...) carry a
//! field path such as `transfers[3].path[1]`, which [`locate`] maps back to a line and
//! column with a second, event-level parse of the same text.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::network::{self, LinkParams, NetLink, Network, Pair, Pattern, Route, Routing};
use crate::schedule::Schedule;
use crate::traffic::{Traffic, TrafficBuilder};

/// An error in a file the user gave: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// The field path inside the file, when known (`transfers[3].path`).
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    fn plain(file: &str, message: impl Into<String>) -> Self {
        LoadError {
            file: file.to_string(),
            line: None,
            column: None,
            field: None,
            message: message.into(),
        }
    }

    /// An error about the field at path `at` of `text`, located by [`locate`].
    pub fn at_field(file: &str, text: &str, at: &str, message: impl Into<String>) -> Self {
        let pos = locate(text, at);
        LoadError {
            file: file.to_string(),
            line: pos.map(|p| p.0),
            column: pos.map(|p| p.1),
            field: (!at.is_empty()).then(|| at.to_string()),
            message: message.into(),
        }
    }

    fn from_serde(file: &str, err: &serde_yaml::Error) -> Self {
        let mut text = err.to_string();
        let (line, column) = match err.location() {
            Some(loc) => {
                let suffix = format!(" at line {} column {}", loc.line(), loc.column());
                if let Some(stripped) = text.strip_suffix(&suffix) {
                    text = stripped.to_string();
                }
                (Some(loc.line()), Some(loc.column()))
            }
            None => (None, None),
        };
        // serde prefixes the field path as "path: message".
        let (field, message) = match text.split_once(": ") {
            Some((path, rest)) if !path.contains(' ') && !path.is_empty() => {
                (Some(path.to_string()), rest.to_string())
            }
            _ => (None, text),
        };
        LoadError {
            file: file.to_string(),
            line,
            column,
            field,
            message,
        }
    }
}

/// Reads a file as UTF-8 text, naming the file in the error.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    let file = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::plain(&file, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        LoadError::plain(
            &file,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn parse<'de, T: Deserialize<'de>>(file: &str, text: &'de str) -> Result<T, LoadError> {
    if text.trim().is_empty() {
        return Err(LoadError::plain(file, "the file is empty"));
    }
    serde_yaml::from_str(text).map_err(|e| LoadError::from_serde(file, &e))
}

// ---------------------------------------------------------------------------------------
// Model files
// ---------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    link_throughput: Option<f64>,
    #[serde(default)]
    link_latency: Option<f64>,
    #[serde(default)]
    transfers: Option<Vec<TransferEntry>>,
    #[serde(default)]
    network: Option<NetworkEntry>,
    #[serde(default)]
    pattern: Option<PatternEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TransferEntry {
    id: String,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    path: Vec<String>,
    #[serde(default)]
    count: Option<u64>,
    #[serde(default)]
    virtual_links: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkEntry {
    hosts: Vec<String>,
    #[serde(default)]
    switches: Vec<String>,
    links: Vec<LinkEntry>,
    #[serde(default)]
    routing: RoutingEntry,
    #[serde(default)]
    routes: Vec<RouteEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkEntry {
    id: String,
    from: String,
    to: String,
    #[serde(default)]
    bandwidth: Option<f64>,
    #[serde(default)]
    latency: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RoutingEntry {
    #[default]
    ShortestPath,
    Explicit,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteEntry {
    from: String,
    to: String,
    path: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternEntry {
    #[serde(rename = "type")]
    kind: PatternKind,
    #[serde(default)]
    senders: Option<Vec<String>>,
    #[serde(default)]
    receivers: Option<Vec<String>>,
    #[serde(default)]
    pairs: Option<Vec<PairEntry>>,
    #[serde(default)]
    self_transfers: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum PatternKind {
    AllToAll,
    Pairs,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PairEntry {
    from: String,
    to: String,
    #[serde(default)]
    count: Option<u64>,
}

/// Reads a model file (explicit or network form) into a traffic.
pub fn load_model(path: &Path) -> Result<Traffic, LoadError> {
    let text = read_text(path)?;
    parse_model(&path.display().to_string(), &text)
}

/// Parses model text; `file` names it in errors.
pub fn parse_model(file: &str, text: &str) -> Result<Traffic, LoadError> {
    parse_model_full(file, text).map(|m| m.traffic)
}

/// A model with what a simulator needs beyond its traffic: the model-wide link latency
/// and, in the network form, the network with each link's own bandwidth and latency.
#[derive(Debug, Clone)]
pub struct LoadedModel {
    /// The traffic (as [`parse_model`] returns it).
    pub traffic: Traffic,
    /// Model-wide one-way latency of every link, in seconds (`link_latency`).
    pub link_latency: Option<f64>,
    /// The network (network form only).
    pub network: Option<Network>,
    /// Per-link parameters, parallel to `network.links` (empty in the explicit form).
    pub link_params: Vec<LinkParams>,
}

/// Reads a model file with its physical parameters (see [`LoadedModel`]).
pub fn load_model_full(path: &Path) -> Result<LoadedModel, LoadError> {
    let text = read_text(path)?;
    parse_model_full(&path.display().to_string(), &text)
}

fn check_latency(value: Option<f64>, at: &str) -> Result<(), String> {
    match value {
        Some(v) if !(v.is_finite() && v >= 0.0) => Err(format!(
            "{} must be a finite, non-negative number of seconds, not {v}",
            at.rsplit('.').next().unwrap_or(at)
        )),
        _ => Ok(()),
    }
}

/// Parses model text with its physical parameters; `file` names it in errors.
pub fn parse_model_full(file: &str, text: &str) -> Result<LoadedModel, LoadError> {
    let m: ModelFile = parse(file, text)?;
    let err = |at: &str, msg: String| LoadError::at_field(file, text, at, msg);
    check_latency(m.link_latency, "link_latency").map_err(|e| err("link_latency", e))?;
    let traffic = build_model(file, text, &m)?;
    let (network, link_params) = match &m.network {
        None => (None, Vec::new()),
        Some(net) => {
            let mut params = Vec::with_capacity(net.links.len());
            for (i, l) in net.links.iter().enumerate() {
                if let Some(b) = l.bandwidth {
                    if !(b.is_finite() && b > 0.0) {
                        return Err(err(
                            &format!("network.links[{i}].bandwidth"),
                            format!("bandwidth must be a positive finite number of MB/s, not {b}"),
                        ));
                    }
                }
                let at = format!("network.links[{i}].latency");
                check_latency(l.latency, &at).map_err(|e| err(&at, e))?;
                params.push(LinkParams {
                    bandwidth: l.bandwidth,
                    latency: l.latency,
                });
            }
            (Some(network_of(net)), params)
        }
    };
    Ok(LoadedModel {
        traffic,
        link_latency: m.link_latency,
        network,
        link_params,
    })
}

fn network_of(net: &NetworkEntry) -> Network {
    Network {
        hosts: net.hosts.clone(),
        switches: net.switches.clone(),
        links: net
            .links
            .iter()
            .map(|l| NetLink {
                id: l.id.clone(),
                from: l.from.clone(),
                to: l.to.clone(),
            })
            .collect(),
        routing: match net.routing {
            RoutingEntry::ShortestPath => Routing::ShortestPath,
            RoutingEntry::Explicit => Routing::Explicit,
        },
        routes: net
            .routes
            .iter()
            .map(|r| Route {
                from: r.from.clone(),
                to: r.to.clone(),
                path: r.path.clone(),
            })
            .collect(),
    }
}

fn build_model(file: &str, text: &str, m: &ModelFile) -> Result<Traffic, LoadError> {
    let err = |at: &str, msg: String| LoadError::at_field(file, text, at, msg);
    match (&m.transfers, &m.network) {
        (Some(_), Some(_)) => {
            return Err(err(
                "network",
                "a model has either `transfers` (explicit form) or `network` and `pattern` (network form), not both".into(),
            ))
        }
        (None, None) => {
            return Err(err(
                "",
                "the model has no `transfers` (explicit form) and no `network` (network form)".into(),
            ))
        }
        _ => {}
    }
    if let Some(transfers) = &m.transfers {
        if m.pattern.is_some() {
            return Err(err(
                "pattern",
                "`pattern` belongs to the network form; this model lists `transfers`".into(),
            ));
        }
        let mut b = TrafficBuilder::new(m.name.clone());
        b.description(m.description.clone());
        b.link_throughput(m.link_throughput, "link_throughput")
            .map_err(|e| err(e.at(), e.to_string()))?;
        for (i, t) in transfers.iter().enumerate() {
            let path: Vec<&str> = t.path.iter().map(String::as_str).collect();
            network::add_with_count(
                &mut b,
                &t.id,
                t.from.clone(),
                t.to.clone(),
                &path,
                t.count.unwrap_or(1),
                t.virtual_links.as_deref(),
                &format!("transfers[{i}]"),
            )
            .map_err(|e| err(e.at(), e.to_string()))?;
        }
        return b.build("transfers").map_err(|e| err(e.at(), e.to_string()));
    }
    let Some(net) = &m.network else {
        unreachable!("checked above")
    };
    let Some(p) = &m.pattern else {
        return Err(err(
            "network",
            "the network form needs a `pattern` (all-to-all or pairs)".into(),
        ));
    };
    let network = network_of(net);
    let pattern = match p.kind {
        PatternKind::AllToAll => {
            if p.pairs.is_some() {
                return Err(err(
                    "pattern.pairs",
                    "an all-to-all pattern takes `senders` and `receivers`, not `pairs`".into(),
                ));
            }
            let (Some(s), Some(r)) = (&p.senders, &p.receivers) else {
                return Err(err(
                    "pattern",
                    "an all-to-all pattern needs `senders` and `receivers`".into(),
                ));
            };
            Pattern::AllToAll {
                senders: s.clone(),
                receivers: r.clone(),
                self_transfers: p.self_transfers.unwrap_or(false),
            }
        }
        PatternKind::Pairs => {
            if p.senders.is_some() || p.receivers.is_some() || p.self_transfers.is_some() {
                return Err(err(
                    "pattern",
                    "a pairs pattern takes `pairs`, not `senders`/`receivers`/`self_transfers`"
                        .into(),
                ));
            }
            let Some(pairs) = &p.pairs else {
                return Err(err("pattern", "a pairs pattern needs `pairs`".into()));
            };
            Pattern::Pairs(
                pairs
                    .iter()
                    .map(|q| Pair {
                        from: q.from.clone(),
                        to: q.to.clone(),
                        count: q.count.unwrap_or(1),
                    })
                    .collect(),
            )
        }
    };
    network::expand(
        &m.name,
        m.description.clone(),
        m.link_throughput,
        &network,
        &pattern,
    )
    .map_err(|e| err(e.at(), e.to_string()))
}

/// Writes a traffic in the explicit form (the interchange format), paths as flow lists.
/// Reading the output back gives the same traffic.
pub fn write_explicit(traffic: &Traffic) -> String {
    let mut out = String::new();
    out.push_str(&format!("name: {}\n", scalar(traffic.name())));
    if let Some(d) = traffic.description() {
        out.push_str(&format!("description: {}\n", scalar(d)));
    }
    if let Some(t) = traffic.link_throughput() {
        out.push_str(&format!("link_throughput: {t}\n"));
    }
    out.push_str("transfers:\n");
    for t in traffic.transfers() {
        out.push_str(&format!("  - {{id: {}", scalar(&t.id)));
        if let Some(f) = &t.from {
            out.push_str(&format!(", from: {}", scalar(f)));
        }
        if let Some(to) = &t.to {
            out.push_str(&format!(", to: {}", scalar(to)));
        }
        let path: Vec<String> = t
            .path
            .iter()
            .map(|&l| scalar(traffic.link_name(l)))
            .collect();
        out.push_str(&format!(", path: [{}]}}\n", path.join(", ")));
    }
    out
}

/// A string as a YAML scalar that is safe in flow context: plain when it is a simple
/// identifier that YAML would not read as anything else, double-quoted otherwise.
pub fn scalar(s: &str) -> String {
    const RESERVED: [&str; 12] = [
        "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~", "nan", "inf",
    ];
    let simple = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.>/#~".contains(c))
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str());
    if simple {
        return s.to_string();
    }
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

// ---------------------------------------------------------------------------------------
// Schedule files
// ---------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScheduleFile {
    #[serde(default)]
    model: Option<String>,
    timeframes: Vec<Vec<String>>,
}

/// Reads a schedule file against a traffic: every id must name a transfer of it, and a
/// `model:` field, when present, must name the same model.
pub fn load_schedule(path: &Path, traffic: &Traffic) -> Result<Schedule, LoadError> {
    let text = read_text(path)?;
    parse_schedule(&path.display().to_string(), &text, traffic)
}

/// Parses schedule text against a traffic; `file` names it in errors.
pub fn parse_schedule(file: &str, text: &str, traffic: &Traffic) -> Result<Schedule, LoadError> {
    let s: ScheduleFile = parse(file, text)?;
    if let Some(m) = &s.model {
        if m != traffic.name() {
            return Err(LoadError::at_field(
                file,
                text,
                "model",
                format!(
                    "this schedule is for model {m:?}, not for {:?}",
                    traffic.name()
                ),
            ));
        }
    }
    let mut frames = Vec::with_capacity(s.timeframes.len());
    for (i, f) in s.timeframes.iter().enumerate() {
        let mut frame = Vec::with_capacity(f.len());
        for (j, id) in f.iter().enumerate() {
            let t = traffic.find_transfer(id).ok_or_else(|| {
                LoadError::at_field(
                    file,
                    text,
                    &format!("timeframes[{i}][{j}]"),
                    format!("transfer {id:?} is not in model {:?}", traffic.name()),
                )
            })?;
            frame.push(t);
        }
        frames.push(frame);
    }
    Ok(Schedule::new(frames))
}

/// A file that is either a model or a schedule, told apart by a top-level `timeframes` key.
#[derive(Debug)]
pub enum Document {
    /// A model file.
    Model(Traffic),
    /// A schedule file, not yet resolved against a traffic.
    Schedule {
        /// The file as named by the user.
        file: String,
        /// Its text.
        text: String,
        /// Its `model:` field, if any.
        model: Option<String>,
    },
}

/// Reads a file that may be a model or a schedule (`timeframes:` at the top level).
pub fn load_document(path: &Path) -> Result<Document, LoadError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let is_schedule = matches!(
        serde_yaml::from_str::<serde_yaml::Value>(&text),
        Ok(serde_yaml::Value::Mapping(m)) if m.contains_key("timeframes")
    );
    if is_schedule {
        let s: ScheduleFile = parse(&file, &text)?;
        return Ok(Document::Schedule {
            file,
            model: s.model,
            text,
        });
    }
    parse_model(&file, &text).map(Document::Model)
}

/// Writes a schedule file (one flow list per timeframe), readable by [`load_schedule`].
pub fn write_schedule(traffic: &Traffic, schedule: &Schedule) -> String {
    let mut out = format!("model: {}\ntimeframes:\n", scalar(traffic.name()));
    for f in &schedule.frames {
        let ids: Vec<String> = f
            .iter()
            .map(|&t| scalar(traffic.transfer_name(t)))
            .collect();
        out.push_str(&format!("  - [{}]\n", ids.join(", ")));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Proof manifests
// ---------------------------------------------------------------------------------------

/// The manifest of a proof directory (`manifest.yaml` beside `formula.cnf` and
/// `proof.lrat`): what the proof claims and how the formula was built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofManifest {
    /// Manifest format (`liquid-proof/1`).
    pub format: String,
    /// The claim in words.
    pub claim: String,
    /// The model's name.
    pub model: String,
    /// SHA-256 (hex) of the traffic's explicit form, as `liquid expand` prints it.
    pub traffic_sha256: String,
    /// Number of transfers.
    pub transfers: usize,
    /// Λ, the traffic's duration.
    pub duration: usize,
    /// k: the formula says "a schedule of at most k timeframes exists".
    pub colours: usize,
    /// Encoding version (`liquid-sat/1`).
    pub encoding: String,
    /// Encoding options.
    pub options: ManifestOptions,
    /// Clause families in file order.
    pub families: Vec<ManifestFamily>,
    /// The formula file.
    pub formula: ManifestFile,
    /// The proof file.
    pub proof: ManifestFile,
}

/// Encoding options recorded in a [`ProofManifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestOptions {
    /// At-most-one encoding (`auto`, `pairwise`, `sequential`).
    pub amo: String,
    /// Transfer at-most-one clauses present.
    pub transfer_amo: bool,
    /// Team clauses present.
    pub team: bool,
    /// Symmetry-breaking units present.
    pub symmetry: bool,
}

/// One clause family of a [`ProofManifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFamily {
    /// The family's name.
    pub name: String,
    /// Its number of clauses.
    pub clauses: usize,
}

/// A file of a proof directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// File name inside the directory.
    pub file: String,
    /// Format (`dimacs`, `lrat`).
    pub format: String,
    /// Size in bytes.
    pub bytes: usize,
    /// Lines (clauses or proof steps plus headers).
    pub lines: usize,
    /// SHA-256 (hex) of the file.
    pub sha256: String,
}

/// Writes a proof manifest.
pub fn write_manifest(m: &ProofManifest) -> Result<String, serde_yaml::Error> {
    serde_yaml::to_string(m)
}

/// Reads a proof manifest; errors name the file, line and field.
pub fn load_manifest(path: &Path) -> Result<ProofManifest, LoadError> {
    let text = read_text(path)?;
    parse(&path.display().to_string(), &text)
}

// ---------------------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------------------

/// Serialises a report as YAML.
pub fn to_string<T: Serialize>(value: &T) -> Result<String, serde_yaml::Error> {
    serde_yaml::to_string(value)
}

/// Parses YAML data that is not a model or schedule file (for example a testbed
/// description embedded in a crate) into any deserialisable type; `file` names it in errors.
pub fn from_str<T: for<'de> Deserialize<'de>>(file: &str, text: &str) -> Result<T, LoadError> {
    parse(file, text)
}

// ---------------------------------------------------------------------------------------
// Network form output
// ---------------------------------------------------------------------------------------

/// Writes a model in the network form (network and pattern). Reading the output back with
/// [`parse_model`] expands to the same traffic as [`network::expand`] on the same input.
pub fn write_network(
    name: &str,
    description: Option<&str>,
    link_throughput: Option<f64>,
    net: &Network,
    pattern: &Pattern,
) -> String {
    let list = |items: &[String]| {
        items
            .iter()
            .map(|s| scalar(s))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::new();
    out.push_str(&format!("name: {}\n", scalar(name)));
    if let Some(d) = description {
        out.push_str(&format!("description: {}\n", scalar(d)));
    }
    if let Some(t) = link_throughput {
        out.push_str(&format!("link_throughput: {t}\n"));
    }
    out.push_str("network:\n");
    out.push_str(&format!("  hosts: [{}]\n", list(&net.hosts)));
    out.push_str(&format!("  switches: [{}]\n", list(&net.switches)));
    out.push_str("  links:\n");
    for l in &net.links {
        out.push_str(&format!(
            "    - {{id: {}, from: {}, to: {}}}\n",
            scalar(&l.id),
            scalar(&l.from),
            scalar(&l.to)
        ));
    }
    out.push_str(match net.routing {
        Routing::ShortestPath => "  routing: shortest-path\n",
        Routing::Explicit => "  routing: explicit\n",
    });
    if !net.routes.is_empty() {
        out.push_str("  routes:\n");
        for r in &net.routes {
            out.push_str(&format!(
                "    - {{from: {}, to: {}, path: [{}]}}\n",
                scalar(&r.from),
                scalar(&r.to),
                list(&r.path)
            ));
        }
    }
    out.push_str("pattern:\n");
    match pattern {
        Pattern::AllToAll {
            senders,
            receivers,
            self_transfers,
        } => {
            out.push_str("  type: all-to-all\n");
            out.push_str(&format!("  senders: [{}]\n", list(senders)));
            out.push_str(&format!("  receivers: [{}]\n", list(receivers)));
            if *self_transfers {
                out.push_str("  self_transfers: true\n");
            }
        }
        Pattern::Pairs(pairs) => {
            out.push_str("  type: pairs\n");
            out.push_str("  pairs:\n");
            for p in pairs {
                out.push_str(&format!(
                    "    - {{from: {}, to: {}",
                    scalar(&p.from),
                    scalar(&p.to)
                ));
                if p.count != 1 {
                    out.push_str(&format!(", count: {}", p.count));
                }
                out.push_str("}\n");
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Locating field paths
// ---------------------------------------------------------------------------------------

enum Frame {
    Map { path: String, key: Option<String> },
    Seq { path: String, index: usize },
}

struct Locator<'a> {
    target: &'a str,
    stack: Vec<Frame>,
    found: Option<Marker>,
}

impl Locator<'_> {
    /// The path of the node that starts now, or None when it is a mapping key.
    fn node_path(&mut self) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Map { key: k @ None, .. }) => {
                *k = Some(String::new()); // placeholder until the key scalar is read
                None
            }
            Some(Frame::Map { path, key: Some(k) }) => Some(if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            }),
            Some(Frame::Seq { path, index }) => Some(format!("{path}[{index}]")),
        }
    }

    fn value_done(&mut self) {
        match self.stack.last_mut() {
            Some(Frame::Map { key, .. }) => *key = None,
            Some(Frame::Seq { index, .. }) => *index += 1,
            None => {}
        }
    }
}

impl MarkedEventReceiver for Locator<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::Scalar(value, ..) => match self.node_path() {
                None => {
                    if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
                        *key = Some(value);
                    }
                }
                Some(p) => {
                    if p == self.target && self.found.is_none() {
                        self.found = Some(mark);
                    }
                    self.value_done();
                }
            },
            Event::Alias(_) => {
                if let Some(p) = self.node_path() {
                    if p == self.target && self.found.is_none() {
                        self.found = Some(mark);
                    }
                    self.value_done();
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let is_map = matches!(ev, Event::MappingStart(..));
                let path = self.node_path().unwrap_or_default();
                if path == self.target && self.found.is_none() {
                    self.found = Some(mark);
                }
                self.stack.push(if is_map {
                    Frame::Map { path, key: None }
                } else {
                    Frame::Seq { path, index: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
                self.value_done();
            }
            _ => {}
        }
    }
}

/// The 1-based (line, column) of the node at a field path such as `transfers[3].path[1]`
/// (the empty path is the document). When the path is not in the text, its nearest
/// enclosing node is used.
pub fn locate(text: &str, at: &str) -> Option<(usize, usize)> {
    let mut target = at.to_string();
    loop {
        let mut loc = Locator {
            target: &target,
            stack: Vec::new(),
            found: None,
        };
        let _ = Parser::new_from_str(text).load(&mut loc, false);
        if let Some(m) = loc.found {
            return Some((m.line(), m.col() + 1)); // yaml-rust2 columns are 0-based
        }
        if target.is_empty() {
            return None;
        }
        let cut = target.rfind(['.', '[']).unwrap_or(0);
        target.truncate(cut);
    }
}
