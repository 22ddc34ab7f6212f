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
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::network::{
    self, LinkParams, NetLink, Network, NetworkError, Pair, Pattern, Route, Routing,
};
use crate::schedule::Schedule;
use crate::traffic::{BuildError, Traffic, TrafficBuilder, TransferId};

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
            message: shorten_quoted(&message.into()),
        }
    }

    /// An error at a known 1-based line and column, about no particular field.
    fn at_position(file: &str, (line, column): (usize, usize), message: impl Into<String>) -> Self {
        LoadError {
            line: Some(line),
            column: Some(column),
            ..LoadError::plain(file, message)
        }
    }

    /// An error about the field at path `at` of `text`, located by [`locate`].
    pub fn at_field(file: &str, text: &str, at: &str, message: impl Into<String>) -> Self {
        let pos = locate(text, at);
        LoadError {
            file: file.to_string(),
            line: pos.map(|p| p.0),
            column: pos.map(|p| p.1),
            field: (!at.is_empty()).then(|| shorten(at, MAX_FIELD_CHARS)),
            message: shorten_quoted(&message.into()),
        }
    }

    /// Like [`LoadError::at_field`], for an error that is also about a second place,
    /// `related` (the first definition of a duplicate, say): the message names that field
    /// path last, and gets its line and column added after it.
    fn at_fields(
        file: &str,
        text: &str,
        at: &str,
        related: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        let mut message = message.into();
        if let Some(r) = related.filter(|r| !r.is_empty()) {
            if let (Some(i), Some((line, col))) = (message.rfind(r), locate(text, r)) {
                message.insert_str(i + r.len(), &format!(" (line {line}, column {col})"));
            }
        }
        LoadError::at_field(file, text, at, message)
    }

    fn from_serde(file: &str, text: &str, err: &serde_yaml::Error) -> Self {
        let mut raw = err.to_string();
        let position = err.location().map(|loc| {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            if let Some(stripped) = raw.strip_suffix(&suffix) {
                raw = stripped.to_string();
            }
            (loc.line(), loc.column())
        });
        // serde prefixes the field path as "path: message".
        let (field, message) = match raw.split_once(": ") {
            Some((path, rest)) if !path.contains(' ') && !path.is_empty() => {
                (Some(path.to_string()), rest.to_string())
            }
            _ => (None, raw),
        };
        // A null name in a list: serde places it at the list; the element is more useful.
        let (field, position) = match (&field, message == NULL_NAME) {
            (Some(f), true) => match locate_null(text, f) {
                Some((i, pos)) => (Some(format!("{f}[{i}]")), Some(pos)),
                None => (field, position),
            },
            _ => (field, position),
        };
        // Every error names a line: when serde has none, the field's (or the document's).
        let position = position.or_else(|| locate(text, field.as_deref().unwrap_or("")));
        LoadError {
            file: file.to_string(),
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
            field: field.map(|f| shorten(&f, MAX_FIELD_CHARS)),
            message: shorten_quoted(&message),
        }
    }
}

/// The longest name (id, link, unknown key) an error message quotes in full: longer ones
/// are cut to this many characters and an ellipsis.
pub const MAX_NAME_CHARS: usize = 60;

/// The longest field path an error shows in full.
const MAX_FIELD_CHARS: usize = 200;

/// `s` cut to `max` characters plus an ellipsis, when it is longer.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A message with every quoted name (`"..."` as `{:?}` writes it, or `` `...` `` as serde
/// writes unknown fields) longer than [`MAX_NAME_CHARS`] cut short, so that a hostile
/// name of a megabyte is not echoed in full.
fn shorten_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4096));
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '"' && c != '`' {
            continue;
        }
        // Inside a quoted name: copy up to MAX_NAME_CHARS characters, skip the rest.
        let mut kept = 0;
        let mut cut = false;
        while let Some(d) = chars.next() {
            if d == c {
                if cut {
                    out.push('…');
                }
                out.push(d);
                break;
            }
            let escaped = if d == '\\' && c == '"' {
                chars.next()
            } else {
                None
            };
            if kept < MAX_NAME_CHARS {
                out.push(d);
                out.extend(escaped);
                kept += 1;
            } else {
                cut = true;
            }
        }
    }
    out
}

/// Reads a file as UTF-8 text, naming the file in the error.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    read_text_limited(path, MAX_TEXT_BYTES)
}

/// The largest file [`read_text`] reads: 1 GiB (a model of the largest traffic allowed,
/// [`crate::network::MAX_TRANSFERS`] transfers, with short names takes about 200 MiB).
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

/// Reads a text file of at most `max` bytes, checking as it reads: a NUL byte (which YAML
/// never allows: `/dev/zero`, a binary file), bytes that are not UTF-8, or more than
/// `max` bytes stop the reading at once with the position, so that no input, however
/// large or endless, takes more memory than `max`. A leading UTF-8 byte order mark is
/// dropped.
pub fn read_text_limited(path: &Path, max: u64) -> Result<String, LoadError> {
    use std::io::Read;
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| LoadError::plain(&file, format!("cannot read: {e}"));
    let mut reader = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    // Bytes known to be whole UTF-8 characters without NUL.
    let mut checked = 0usize;
    let bad_utf8 = |bytes: &[u8], valid: usize| {
        let prefix = String::from_utf8_lossy(&bytes[..valid]);
        LoadError::at_position(
            &file,
            position_after(&prefix),
            format!("not UTF-8 text (invalid byte at offset {valid})"),
        )
    };
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot(e)),
        };
        if bytes.len() as u64 + n as u64 > max {
            return Err(LoadError::plain(
                &file,
                format!("larger than {max} bytes: not a file liquid reads"),
            ));
        }
        bytes.extend_from_slice(&chunk[..n]);
        let (ok, bad) = match std::str::from_utf8(&bytes[checked..]) {
            Ok(_) => (bytes.len(), false),
            // An incomplete character at the end: the next read completes it.
            Err(e) => (checked + e.valid_up_to(), e.error_len().is_some()),
        };
        if let Some(i) = bytes[checked..ok].iter().position(|&b| b == 0) {
            let at = checked + i;
            let prefix = String::from_utf8_lossy(&bytes[..at]);
            // What the binary files liquid meets are, where their first bytes say it.
            let what = if bytes.starts_with(b"liquid-frames ") {
                ": a compact schedule (`solve --stream --schedule-out`), which only `verify \
                 MODEL --schedule FILE --stream` reads; the other commands read a YAML \
                 schedule (`solve --stream --schedule-out FILE.yaml`)"
            } else if bytes.first() == Some(&b'a') && path.ends_with("proof.lrat") {
                ": binary LRAT (its additions start with `a`) is not read: write the proof \
                 as textual LRAT"
            } else {
                ": not a text file"
            };
            return Err(LoadError::at_position(
                &file,
                position_after(&prefix),
                format!("NUL byte at offset {at}{what}"),
            ));
        }
        if bad {
            return Err(bad_utf8(&bytes, ok));
        }
        checked = ok;
    }
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        bad_utf8(e.as_bytes(), valid)
    })?;
    // A UTF-8 byte order mark (what some editors and spreadsheets write first) is not
    // text: without this, a schedule file's first key read as "\u{feff}model".
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// The 1-based (line, column) of the character just after `prefix` (columns count
/// characters; a line ends at `\n`, `\r\n` or a lone `\r`, as in YAML).
fn position_after(prefix: &str) -> (usize, usize) {
    let mut line = 1;
    let mut col = 1;
    let mut chars = prefix.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                line += 1;
                col = 1;
            }
            _ => col += 1,
        }
    }
    (line, col)
}

fn parse<'de, T: Deserialize<'de>>(file: &str, text: &'de str) -> Result<T, LoadError> {
    prescan(file, text)?;
    serde_yaml::from_str(text).map_err(|e| LoadError::from_serde(file, text, &e))
}

// ---------------------------------------------------------------------------------------
// The pre-scan: limits checked before the YAML library sees the text
// ---------------------------------------------------------------------------------------

/// The deepest nesting of mappings and sequences a file may have. A model nests at most
/// 5 levels (`network.routes[i].path[j]`); the YAML parser that builds the model slows
/// down with the square of the depth, so deeper files are refused before it runs.
pub const MAX_DEPTH: usize = 64;

/// The most that aliases (`*name`) may add to a file, in bytes of scalar text (plus one
/// per node): [`ALIAS_BUDGET_FACTOR`] times the file's size plus this many bytes.
pub const ALIAS_BUDGET_BASE: u64 = 16 << 20;

/// See [`ALIAS_BUDGET_BASE`].
pub const ALIAS_BUDGET_FACTOR: u64 = 8;

/// Whether YAML allows the character in a stream (its printable set, c-printable).
fn yaml_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
}

/// A syntax error the pre-scan found. The YAML library's messages are often the clearer
/// ones ("did not find expected ',' or '}' ... while parsing a flow mapping at line 3"), so
/// it reads the text up to the end of the error's line, and no further (beyond it lies
/// what the pre-scan did not check), and its error is reported if it finds one there;
/// otherwise the pre-scan's own.
fn syntax_error(file: &str, text: &str, e: &yaml_rust2::ScanError) -> LoadError {
    let m = *e.marker();
    let end: usize = text
        .split_inclusive('\n')
        .take(m.line())
        .map(str::len)
        .sum();
    if let Err(serde_err) = serde_yaml::from_str::<serde::de::IgnoredAny>(&text[..end]) {
        if serde_err.location().is_some() {
            return LoadError::from_serde(file, text, &serde_err);
        }
    }
    LoadError::at_position(
        file,
        (m.line(), m.col() + 1),
        format!("YAML syntax error: {}", e.info()),
    )
}

/// Checks, in one linear pass each, what the YAML library would handle badly or report
/// without a line: characters YAML does not allow, nesting deeper than [`MAX_DEPTH`],
/// aliases that expand beyond the budget of [`ALIAS_BUDGET_BASE`], and a second
/// document. The event pass stops at the first problem, so a hostile file costs time
/// linear in its size; a syntax error is one of those problems.
fn prescan(file: &str, text: &str) -> Result<(), LoadError> {
    if text.trim().is_empty() {
        return Err(LoadError::at_position(file, (1, 1), "the file is empty"));
    }
    if let Some(i) = text.find(|c: char| !yaml_printable(c)) {
        let c = text[i..].chars().next().unwrap_or_default();
        return Err(LoadError::at_position(
            file,
            position_after(&text[..i]),
            format!(
                "control character U+{:04X} is not allowed in YAML (byte offset {i})",
                c as u32
            ),
        ));
    }
    let at = |m: Marker| (m.line(), m.col() + 1);
    let budget =
        ALIAS_BUDGET_BASE.saturating_add(ALIAS_BUDGET_FACTOR.saturating_mul(text.len() as u64));
    let mut parser = Parser::new_from_str(text);
    let mut depth = 0usize;
    let mut documents = 0usize;
    // Bytes of the document as aliases expand it, so far; the size of every anchored node
    // (by anchor id); the anchored nodes still open, with the size when they started.
    let mut expanded = 0u64;
    let mut anchors: std::collections::HashMap<usize, u64> = std::collections::HashMap::new();
    let mut open: Vec<(usize, u64)> = Vec::new();
    let too_deep = |mark: Marker| {
        LoadError::at_position(
            file,
            at(mark),
            format!("nested more than {MAX_DEPTH} levels deep: a model file is never nested this deeply"),
        )
    };
    loop {
        let (event, mark) = match parser.next_token() {
            Ok(next) => next,
            // The scanner reads a flow collection to its end before it emits an event (it
            // might be a key), and stops at its own limit of 255 flow levels.
            Err(e) if e.info().contains("recursion limit") => return Err(too_deep(*e.marker())),
            Err(e) => return Err(syntax_error(file, text, &e)),
        };
        match event {
            Event::StreamEnd => return Ok(()),
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(LoadError::at_position(
                        file,
                        at(mark),
                        "a second YAML document starts here: a file holds one document (one `---` at most)",
                    ));
                }
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(mark));
                }
                expanded += 1;
                open.push((anchor, expanded));
            }
            Event::MappingEnd | Event::SequenceEnd => {
                depth = depth.saturating_sub(1);
                if let Some((anchor, start)) = open.pop() {
                    if anchor != 0 {
                        anchors.insert(anchor, expanded - start + 1);
                    }
                }
            }
            Event::Scalar(value, _, anchor, _) => {
                let size = value.len() as u64 + 1;
                expanded = expanded.saturating_add(size);
                if anchor != 0 {
                    anchors.insert(anchor, size);
                }
            }
            Event::Alias(anchor) => {
                let size = anchors.get(&anchor).copied().unwrap_or(1);
                expanded = expanded.saturating_add(size);
                if expanded > budget {
                    return Err(LoadError::at_position(
                        file,
                        at(mark),
                        format!(
                            "aliases expand the file beyond {budget} bytes ({ALIAS_BUDGET_FACTOR} times its size plus {} MiB): refused to bound memory",
                            ALIAS_BUDGET_BASE >> 20
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// Model files
// ---------------------------------------------------------------------------------------

/// An id or a name (of a transfer, link or node): any string, but not YAML's null (`~`,
/// `null` or nothing), which would otherwise be read as the text `~`.
#[derive(Debug)]
struct Name(String);

/// The message of a null [`Name`].
const NULL_NAME: &str = "null is not a name: ids and link names are non-empty strings";

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(s) => Ok(Name(s)),
            None => Err(serde::de::Error::custom(NULL_NAME)),
        }
    }
}

/// The strings of a list of names.
fn strings(names: &[Name]) -> Vec<String> {
    names.iter().map(|n| n.0.clone()).collect()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a model: a mapping with name and transfers, or name, network and pattern")]
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
#[serde(expecting = "a transfer: a mapping such as {id: t1, path: [l1, l2]}")]
struct TransferEntry {
    id: Name,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    path: Vec<Name>,
    #[serde(default)]
    count: Option<u64>,
    #[serde(default)]
    virtual_links: Option<Vec<Name>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a network: a mapping with hosts, switches, links and routing or routes")]
struct NetworkEntry {
    hosts: Vec<Name>,
    #[serde(default)]
    switches: Vec<Name>,
    links: Vec<LinkEntry>,
    #[serde(default)]
    routing: RoutingEntry,
    #[serde(default)]
    routes: Vec<RouteEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a link: a mapping such as {id: a>s, from: a, to: s}")]
struct LinkEntry {
    id: Name,
    from: Name,
    to: Name,
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
#[serde(expecting = "a route: a mapping such as {from: a, to: b, path: [a>s, s>b]}")]
struct RouteEntry {
    from: Name,
    to: Name,
    path: Vec<Name>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a pattern: a mapping such as {type: all-to-all} or {type: pairs, pairs: [...]}"
)]
struct PatternEntry {
    #[serde(rename = "type")]
    kind: PatternKind,
    #[serde(default)]
    senders: Option<Vec<Name>>,
    #[serde(default)]
    receivers: Option<Vec<Name>>,
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
#[serde(expecting = "a pair: a mapping such as {from: a, to: b}")]
struct PairEntry {
    from: Name,
    to: Name,
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

/// The error of a schedule file (top-level `timeframes:`) read as a model, naming what it
/// is, rather than the model format's first complaint ("unknown field `model`").
fn schedule_not_model(file: &str, text: &str) -> Option<LoadError> {
    let serde_yaml::Value::Mapping(m) = serde_yaml::from_str::<serde_yaml::Value>(text).ok()?
    else {
        return None;
    };
    if !m.contains_key("timeframes") {
        return None;
    }
    let of = match m.get("model") {
        Some(serde_yaml::Value::String(name)) => format!(" of model {name:?}"),
        _ => String::new(),
    };
    Some(LoadError::at_field(
        file,
        text,
        "timeframes",
        format!(
            "this is a schedule file{of} (it has `timeframes:`), not a model: give the model \
             it schedules; a schedule goes with `verify`, `simulate`, `certify` or `export` \
             (--schedule FILE)"
        ),
    ))
}

/// Parses model text with its physical parameters; `file` names it in errors.
pub fn parse_model_full(file: &str, text: &str) -> Result<LoadedModel, LoadError> {
    parse_model_with(file, text, true)
}

/// [`parse_model_full`], with or without [`fast_routes`].
fn parse_model_with(file: &str, text: &str, fast: bool) -> Result<LoadedModel, LoadError> {
    let mut m = parse_model_file(file, text, fast)
        .map_err(|e| schedule_not_model(file, text).unwrap_or(e))?;
    let err = |at: &str, msg: String| LoadError::at_field(file, text, at, msg);
    if m.name.trim().is_empty() {
        // Reports, baselines and proof manifests name the model by it.
        return Err(err("name", "the model's name is empty: give it one".into()));
    }
    check_latency(m.link_latency, "link_latency").map_err(|e| err("link_latency", e))?;
    // The network is built once, for the traffic and for the caller, its routes moved
    // out of the file's entries (a fabric has millions of route elements).
    let built = m.network.as_mut().map(network_of);
    let mut traffic = build_model(file, text, &m, built.as_ref())?;
    let own_bandwidth = m.network.as_ref().is_some_and(|net| {
        net.links
            .iter()
            .any(|l| l.bandwidth.is_some() && l.bandwidth != m.link_throughput)
    });
    if own_bandwidth {
        traffic = traffic.with_mixed_bandwidths();
    }
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
            (built, params)
        }
    };
    Ok(LoadedModel {
        traffic,
        link_latency: m.link_latency,
        network,
        link_params,
    })
}

/// Reads a model file's YAML. The explicit routes of a network-form model, when they are
/// written as `liquid` writes them (one `- {from: A, to: B, path: [L1, L2]}` per line,
/// names that need no quotes, right after `routing:`), are read by [`fast_routes`]
/// instead of the YAML parser, which takes a minute on the million routes of a 1,024-host
/// fabric; the rest of the file goes through the YAML parser as always, with the routes'
/// lines left blank so that every line number stays the same. A file in any other form,
/// or whose remainder does not read back as expected, is read whole by the YAML parser:
/// the result is the same either way (tested), only the time differs.
fn parse_model_file(file: &str, text: &str, fast: bool) -> Result<ModelFile, LoadError> {
    if let Some(fast) = fast.then(|| fast_routes(text)).flatten() {
        if let Ok(mut m) = parse::<ModelFile>(file, &fast.rest) {
            let spliced = m.network.as_mut().filter(|n| {
                n.routes.is_empty()
                    && matches!(n.routing, RoutingEntry::Explicit)
                    && locate(&fast.rest, "network.routes").map(|(line, _)| line)
                        == Some(fast.routes_line)
            });
            if let Some(net) = spliced {
                net.routes = fast.routes;
                return Ok(m);
            }
        }
    }
    parse(file, text)
}

/// The routes read by [`fast_routes`] and the text without them.
struct FastRoutes {
    /// The text with the route lines blank and `  routes: []` on the `routes:` line.
    rest: String,
    /// The 1-based line of `routes:`.
    routes_line: usize,
    /// The routes, in file order.
    routes: Vec<RouteEntry>,
}

/// A name as [`scalar`] writes it unquoted: a letter or `_`, then letters, digits and
/// `_-.>/#~`, not one of YAML's reserved words. Anything else is not read here.
fn plain_name(s: &str) -> Option<Name> {
    const RESERVED: [&str; 12] = [
        "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~", "nan", "inf",
    ];
    let b = s.as_bytes();
    let first = *b.first()?;
    let ok = (first.is_ascii_alphabetic() || first == b'_')
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || b"_-.>/#~".contains(&c))
        && (s.len() > 5 || !RESERVED.contains(&s.to_ascii_lowercase().as_str()));
    ok.then(|| Name(s.to_string()))
}

/// One route line as liquid writes it: `    - {from: A, to: B, path: [L1, L2]}`.
fn route_line(line: &str) -> Option<RouteEntry> {
    let body = line.strip_prefix("    - {from: ")?.strip_suffix("]}")?;
    let (from, body) = body.split_once(", to: ")?;
    let (to, path) = body.split_once(", path: [")?;
    let path = if path.is_empty() {
        Vec::new()
    } else {
        path.split(", ")
            .map(plain_name)
            .collect::<Option<Vec<Name>>>()?
    };
    Some(RouteEntry {
        from: plain_name(from)?,
        to: plain_name(to)?,
        path,
    })
}

/// The explicit routes of a network-form model written as `liquid` writes them (see
/// [`parse_model_file`]), or `None` when the file is in another form.
fn fast_routes(text: &str) -> Option<FastRoutes> {
    // Only worth it for large files; small ones read fast either way.
    const FROM_BYTES: usize = 1 << 20;
    if text.len() < FROM_BYTES {
        return None;
    }
    let start = if text.starts_with("network:\n") {
        0
    } else {
        text.find("\nnetwork:\n")? + 1
    };
    let key = start + text[start..].find("\n  routing: explicit\n  routes:\n")?;
    // Between `network:` and `routes:`, every line is inside the network mapping.
    if text[start + "network:\n".len()..key]
        .split('\n')
        .any(|l| !(l.is_empty() || l.starts_with(' ') || l.starts_with('#')))
    {
        return None;
    }
    let routes_at = key + "\n  routing: explicit\n".len();
    let block = routes_at + "  routes:\n".len();
    let routes_line = text[..routes_at].matches('\n').count() + 1;
    let mut routes = Vec::new();
    let mut end = block;
    for line in text[block..].split_inclusive('\n') {
        if !line.starts_with("    - ") {
            break;
        }
        routes.push(route_line(line.strip_suffix('\n')?)?);
        end += line.len();
    }
    if routes.is_empty() {
        return None;
    }
    let mut rest = String::with_capacity(text.len() - (end - block) + routes.len());
    rest.push_str(&text[..routes_at]);
    rest.push_str("  routes: []\n");
    for _ in 0..routes.len() {
        rest.push('\n');
    }
    rest.push_str(&text[end..]);
    Some(FastRoutes {
        rest,
        routes_line,
        routes,
    })
}

/// The network of a file's entry; the routes are moved out of it (left empty).
fn network_of(net: &mut NetworkEntry) -> Network {
    Network {
        hosts: strings(&net.hosts),
        switches: strings(&net.switches),
        links: net
            .links
            .iter()
            .map(|l| NetLink {
                id: l.id.0.clone(),
                from: l.from.0.clone(),
                to: l.to.0.clone(),
            })
            .collect(),
        routing: match net.routing {
            RoutingEntry::ShortestPath => Routing::ShortestPath,
            RoutingEntry::Explicit => Routing::Explicit,
        },
        routes: std::mem::take(&mut net.routes)
            .into_iter()
            .map(|r| Route {
                from: r.from.0,
                to: r.to.0,
                path: r.path.into_iter().map(|n| n.0).collect(),
            })
            .collect(),
    }
}

fn build_model(
    file: &str,
    text: &str,
    m: &ModelFile,
    network: Option<&Network>,
) -> Result<Traffic, LoadError> {
    let err = |at: &str, msg: String| LoadError::at_field(file, text, at, msg);
    let build_err =
        |e: BuildError| LoadError::at_fields(file, text, e.at(), e.related_at(), e.to_string());
    let network_err = |e: NetworkError| match e {
        NetworkError::Build(e) => build_err(e),
        e => LoadError::at_fields(file, text, e.at(), e.related_at(), e.to_string()),
    };
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
        // The total, counts expanded, before anything is built (a count out of range is
        // reported by `add_with_count`, with its own message).
        let mut total: u64 = 0;
        for (i, t) in transfers.iter().enumerate() {
            total += t.count.unwrap_or(1).clamp(1, network::MAX_COUNT);
            if total > network::MAX_TRANSFERS {
                let at = format!("transfers[{i}]");
                return Err(err(
                    &at,
                    format!(
                        "with this entry the model has more than {} transfers (counts expanded), the most a model may have",
                        network::MAX_TRANSFERS
                    ),
                ));
            }
        }
        let mut b = TrafficBuilder::new(m.name.clone());
        b.description(m.description.clone());
        b.link_throughput(m.link_throughput, "link_throughput")
            .map_err(build_err)?;
        for (i, t) in transfers.iter().enumerate() {
            let path: Vec<&str> = t.path.iter().map(|n| n.0.as_str()).collect();
            let virtual_links = t.virtual_links.as_deref().map(strings);
            network::add_with_count(
                &mut b,
                &t.id.0,
                t.from.clone(),
                t.to.clone(),
                &path,
                t.count.unwrap_or(1),
                virtual_links.as_deref(),
                &format!("transfers[{i}]"),
            )
            .map_err(network_err)?;
        }
        return b.build("transfers").map_err(build_err);
    }
    let Some(network) = network else {
        unreachable!("checked above")
    };
    let Some(p) = &m.pattern else {
        return Err(err(
            "network",
            "the network form needs a `pattern` (all-to-all or pairs)".into(),
        ));
    };
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
                senders: strings(s),
                receivers: strings(r),
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
                        from: q.from.0.clone(),
                        to: q.to.0.clone(),
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
        network,
        &pattern,
    )
    .map_err(network_err)
}

/// Writes a traffic in the explicit form (the interchange format), paths as flow lists.
/// Reading the output back gives the same traffic.
pub fn write_explicit(traffic: &Traffic) -> String {
    write_explicit_with_latency(traffic, None)
}

/// [`write_explicit`] with the model-wide `link_latency` the traffic does not hold (a
/// model's physical parameter, [`LoadedModel::link_latency`]).
pub fn write_explicit_with_latency(traffic: &Traffic, link_latency: Option<f64>) -> String {
    let mut out = String::new();
    out.push_str(&format!("name: {}\n", scalar(traffic.name())));
    if let Some(d) = traffic.description() {
        out.push_str(&format!("description: {}\n", scalar(d)));
    }
    if let Some(t) = traffic.link_throughput() {
        out.push_str(&format!("link_throughput: {t}\n"));
    }
    if let Some(l) = link_latency {
        out.push_str(&format!("link_latency: {l}\n"));
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
#[serde(expecting = "a schedule: a mapping with timeframes (a list of lists of transfer ids)")]
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

/// When schedule text is `liquid solve`'s report (its top-level `verdict` and `engine`),
/// the error that says where the schedule file comes from.
fn report_given(file: &str, text: &str) -> Option<LoadError> {
    #[derive(Deserialize)]
    struct Report {
        #[allow(dead_code)]
        verdict: serde::de::IgnoredAny,
        #[allow(dead_code)]
        engine: serde::de::IgnoredAny,
    }
    serde_yaml::from_str::<Report>(text).ok()?;
    Some(LoadError::at_field(
        file,
        text,
        "engine",
        "this is `liquid solve`'s report, not a schedule file: write the schedule with \
         `liquid solve MODEL --schedule-out FILE`",
    ))
}

/// Parses schedule text against a traffic; `file` names it in errors.
pub fn parse_schedule(file: &str, text: &str, traffic: &Traffic) -> Result<Schedule, LoadError> {
    schedule_frames(file, text, traffic, |e, _| Err(e))
}

/// The timeframes of schedule text, a `model:` field checked against the traffic. A
/// transfer name the traffic lacks goes to `unknown` (with its frame's index), which
/// refuses the file or notes the problem and leaves the name out.
fn schedule_frames(
    file: &str,
    text: &str,
    traffic: &Traffic,
    mut unknown: impl FnMut(LoadError, usize) -> Result<(), LoadError>,
) -> Result<Schedule, LoadError> {
    let s: ScheduleFile = parse(file, text).map_err(|e| report_given(file, text).unwrap_or(e))?;
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
            match traffic.find_transfer(id) {
                Some(t) => frame.push(t),
                None => unknown(
                    LoadError::at_field(
                        file,
                        text,
                        &format!("timeframes[{i}][{j}]"),
                        format!("transfer {id:?} is not in model {:?}", traffic.name()),
                    ),
                    i,
                )?,
            }
        }
        frames.push(frame);
    }
    Ok(Schedule::new(frames))
}

/// Reads a schedule file a user gives to be checked: like [`load_schedule`], but a
/// transfer name the traffic does not have is not an error of reading: it is added to
/// `problems` (with its line, column and field) and left out of the schedule, so that
/// the schedule's other problems ([`crate::validate_all`]) are listed with it. Errors
/// are for a file that cannot be read as a schedule (not YAML, missing or mistyped
/// fields, a `model:` that names another model).
pub fn load_schedule_listing(
    path: &Path,
    traffic: &Traffic,
    problems: &mut crate::Problems,
) -> Result<Schedule, LoadError> {
    let text = read_text(path)?;
    parse_schedule_listing(&path.display().to_string(), &text, traffic, problems)
}

/// [`load_schedule_listing`] of schedule text; `file` names it in errors and problems.
pub fn parse_schedule_listing(
    file: &str,
    text: &str,
    traffic: &Traffic,
    problems: &mut crate::Problems,
) -> Result<Schedule, LoadError> {
    problems.in_file(file, text);
    let mut unknown_in = std::collections::BTreeSet::new();
    let schedule = schedule_frames(file, text, traffic, |e, frame| {
        problems.push_with(|| e.to_string());
        unknown_in.insert(frame);
        Ok(())
    })?;
    for (i, f) in schedule.frames.iter().enumerate() {
        if f.is_empty() && unknown_in.contains(&i) {
            problems.excuse_empty_frame(i);
        }
    }
    Ok(schedule)
}

/// Reads a schedule file that must be a partition of the traffic (every transfer in
/// exactly one timeframe, no empty timeframe; timeframes may congest): what a simulator
/// runs. Errors name the file, the line and column, and the field.
pub fn load_partition(path: &Path, traffic: &Traffic) -> Result<Schedule, LoadError> {
    let text = read_text(path)?;
    parse_partition(&path.display().to_string(), &text, traffic)
}

/// [`load_partition`] of text; `file` names it in errors.
pub fn parse_partition(file: &str, text: &str, traffic: &Traffic) -> Result<Schedule, LoadError> {
    let s = parse_schedule(file, text, traffic)?;
    let mut first: Vec<Option<(usize, usize)>> = vec![None; traffic.len()];
    for (i, f) in s.frames.iter().enumerate() {
        if f.is_empty() {
            return Err(LoadError::at_field(
                file,
                text,
                &format!("timeframes[{i}]"),
                "the timeframe is empty",
            ));
        }
        for (j, &t) in f.iter().enumerate() {
            if let Some((a, b)) = first[t.index()] {
                let earlier = format!("timeframes[{a}][{b}]");
                return Err(LoadError::at_fields(
                    file,
                    text,
                    &format!("timeframes[{i}][{j}]"),
                    Some(&earlier),
                    format!(
                        "transfer {:?} appears twice: first at {earlier}",
                        traffic.transfer_name(t)
                    ),
                ));
            }
            first[t.index()] = Some((i, j));
        }
    }
    if let Some(t) = first.iter().position(Option::is_none) {
        let missing = first.iter().filter(|x| x.is_none()).count();
        return Err(LoadError::at_field(
            file,
            text,
            "timeframes",
            format!(
                "transfer {:?} is in no timeframe ({missing} of the model's {} transfers are missing)",
                traffic.transfers()[t].id,
                traffic.len()
            ),
        ));
    }
    Ok(s)
}

/// The `transfer id: bytes` entries of a sizes file, in file order, each size as written.
struct SizeEntries(Vec<(String, String)>);

/// A size as the file writes it: the text of a scalar (`100`, `1e3`, `100.0`, `-1`), read
/// without YAML's number conversion, which would round `9007199254740993` to a float.
struct SizeText(String);

impl<'de> Deserialize<'de> for SizeText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = SizeText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number of bytes")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SizeText, E> {
                Ok(SizeText(v.to_string()))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for SizeEntries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SizeEntries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping from transfer id to bytes")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<SizeEntries, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, SizeText>()? {
                    out.push((k, v.0));
                }
                Ok(SizeEntries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads a sizes file (a YAML mapping `transfer id: bytes`) against a traffic: the size
/// of each transfer it names, in file order, as the file writes it (the caller reads the
/// number: YAML's own conversion reads `9007199254740993` as a float, rounded). A
/// transfer named twice, or one the traffic does not have, is an error with its line and
/// column.
pub fn load_sizes(path: &Path, traffic: &Traffic) -> Result<Vec<(TransferId, String)>, LoadError> {
    let text = read_text(path)?;
    parse_sizes(&path.display().to_string(), &text, traffic)
}

/// [`load_sizes`] of text; `file` names it in errors.
pub fn parse_sizes(
    file: &str,
    text: &str,
    traffic: &Traffic,
) -> Result<Vec<(TransferId, String)>, LoadError> {
    let entries: SizeEntries = parse(file, text)?;
    let mut seen = vec![false; traffic.len()];
    let mut out = Vec::with_capacity(entries.0.len());
    for (id, bytes) in entries.0 {
        let t = traffic.find_transfer(&id).ok_or_else(|| {
            LoadError::at_field(
                file,
                text,
                &id,
                format!("transfer {id:?} is not in model {:?}", traffic.name()),
            )
        })?;
        if std::mem::replace(&mut seen[t.index()], true) {
            // The second occurrence: the first key of that name is where locate points,
            // so the position is found by scanning the keys.
            let pos = nth_key_position(text, &id, 2);
            return Err(LoadError {
                line: pos.map(|p| p.0),
                column: pos.map(|p| p.1),
                ..LoadError::at_field(
                    file,
                    text,
                    &id,
                    format!(
                        "transfer {id:?} is given twice (a size file names each transfer once)"
                    ),
                )
            });
        }
        out.push((t, bytes));
    }
    Ok(out)
}

/// The (line, column) of the `n`-th (1-based) top-level mapping key equal to `key`.
fn nth_key_position(text: &str, key: &str, n: usize) -> Option<(usize, usize)> {
    struct Keys<'a> {
        key: &'a str,
        depth: usize,
        expect_key: Vec<bool>,
        found: Vec<(usize, usize)>,
    }
    impl MarkedEventReceiver for Keys<'_> {
        fn on_event(&mut self, ev: Event, mark: Marker) {
            let at_key = self.depth == 1 && self.expect_key.last().copied().unwrap_or(false);
            match ev {
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    if let Some(k) = self.expect_key.last_mut() {
                        *k = !*k;
                    }
                    self.depth += 1;
                    self.expect_key.push(true);
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    self.depth -= 1;
                    self.expect_key.pop();
                }
                Event::Scalar(v, ..) => {
                    if at_key && v == self.key {
                        self.found.push((mark.line(), mark.col() + 1));
                    }
                    if let Some(k) = self.expect_key.last_mut() {
                        *k = !*k;
                    }
                }
                Event::Alias(..) => {
                    if let Some(k) = self.expect_key.last_mut() {
                        *k = !*k;
                    }
                }
                _ => {}
            }
        }
    }
    let mut keys = Keys {
        key,
        depth: 0,
        expect_key: Vec::new(),
        found: Vec::new(),
    };
    Parser::new_from_str(text).load(&mut keys, false).ok()?;
    keys.found.get(n - 1).copied()
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
    prescan(&file, &text)?;
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
    write_network_with_params(name, description, link_throughput, net, &[], pattern)
}

/// [`write_network`] with each link's own `bandwidth` (MB/s) and `latency` (s):
/// `link_params[i]` belongs to `net.links[i]` (missing entries and `None` fields are not
/// written). [`parse_model_full`] reads them back into [`LoadedModel::link_params`].
pub fn write_network_with_params(
    name: &str,
    description: Option<&str>,
    link_throughput: Option<f64>,
    net: &Network,
    link_params: &[LinkParams],
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
    for (i, l) in net.links.iter().enumerate() {
        out.push_str(&format!(
            "    - {{id: {}, from: {}, to: {}",
            scalar(&l.id),
            scalar(&l.from),
            scalar(&l.to)
        ));
        let p = link_params.get(i).copied().unwrap_or_default();
        if let Some(b) = p.bandwidth {
            out.push_str(&format!(", bandwidth: {b}"));
        }
        if let Some(t) = p.latency {
            out.push_str(&format!(", latency: {t}"));
        }
        out.push_str("}\n");
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

/// Finds the first null element of the sequence at a field path (serde reports an error
/// raised by [`Name`] at the sequence, not at the element).
struct NullFinder<'a> {
    locator: Locator<'a>,
    /// The locator's stack depth of the sequence's direct children, once it has started.
    children: Option<usize>,
    found: Option<(usize, Marker)>,
}

impl MarkedEventReceiver for NullFinder<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.found.is_some() {
            return;
        }
        if let (Some(d), Some(Frame::Seq { index, .. })) =
            (self.children, self.locator.stack.last())
        {
            if self.locator.stack.len() == d {
                if let Event::Scalar(v, TScalarStyle::Plain, _, None) = &ev {
                    if matches!(v.as_str(), "" | "~" | "null" | "Null" | "NULL") {
                        self.found = Some((*index, mark));
                        return;
                    }
                }
            }
        }
        let started = self.locator.found.is_some();
        self.locator.on_event(ev, mark);
        if !started && self.locator.found.is_some() {
            self.children = Some(self.locator.stack.len());
        }
    }
}

/// The index and 1-based (line, column) of the first null element of the sequence at
/// field path `at`, if it has one.
fn locate_null(text: &str, at: &str) -> Option<(usize, (usize, usize))> {
    let mut finder = NullFinder {
        locator: Locator {
            target: at,
            stack: Vec::new(),
            found: None,
        },
        children: None,
        found: None,
    };
    let _ = Parser::new_from_str(text).load(&mut finder, false);
    finder.found.map(|(i, m)| (i, (m.line(), m.col() + 1)))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> LoadError {
        parse_model("m.yaml", text).expect_err("an input error")
    }

    fn position(e: &LoadError) -> (Option<usize>, Option<usize>) {
        (e.line, e.column)
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused_with_its_position() {
        let ok = format!("name: x\nnotes: {}{}\n", "[".repeat(62), "]".repeat(62));
        // 63 levels (the root mapping and 62 sequences): within the limit, so the error is
        // the unknown field, not the depth.
        assert!(
            error(&ok).message.contains("unknown field"),
            "{}",
            error(&ok)
        );
        let deep = format!("name: x\nnotes: {}{}\n", "[".repeat(64), "]".repeat(64));
        let e = error(&deep);
        assert!(e.message.contains("nested more than 64 levels"), "{e}");
        assert_eq!(position(&e), (Some(2), Some(8 + 63)));
    }

    /// A schedule file given as a model says so, not "unknown field `model`"; a model
    /// that merely has an unknown field still gets the format's complaint.
    #[test]
    fn a_schedule_file_given_as_a_model_is_named_so() {
        let e = error("model: fig1\ntimeframes:\n  - [a, b]\n");
        assert_eq!(
            e.message,
            "this is a schedule file of model \"fig1\" (it has `timeframes:`), not a model: \
             give the model it schedules; a schedule goes with `verify`, `simulate`, \
             `certify` or `export` (--schedule FILE)"
        );
        assert_eq!(e.line, Some(3));
        let e = error("name: x\nmodel: y\ntransfers: []\n");
        assert!(e.message.contains("unknown field `model`"), "{e}");
    }

    /// `liquid solve`'s report given where a schedule file goes says where the schedule
    /// file comes from, not "unknown field `engine`".
    #[test]
    fn a_solve_report_given_as_a_schedule_is_named_so() {
        let t = Traffic::from_paths("m", &[("x", vec!["a"])]).expect("traffic");
        let report = "model: m\nengine: portfolio\nverdict: liquid\nschedule:\n  - [x]\n";
        let e = parse_schedule("r.yaml", report, &t).expect_err("a report");
        assert_eq!(e.line, Some(2));
        assert!(
            e.message
                .starts_with("this is `liquid solve`'s report, not a schedule file")
                && e.message.contains("--schedule-out"),
            "{e}"
        );
        // Another unknown field keeps the library's message.
        let e = parse_schedule("s.yaml", "model: m\nframes: []\n", &t).expect_err("bad");
        assert!(e.message.contains("unknown field `frames`"), "{e}");
    }

    /// A schedule read from a file names the file, line and column of each timeframe
    /// with a problem (empty, a repeated transfer, congesting transfers); a missing
    /// transfer is of no timeframe.
    #[test]
    fn the_problems_of_a_schedule_file_are_located() {
        let t = Traffic::from_paths(
            "m",
            &[
                ("x", vec!["a"]),
                ("y", vec!["a"]),
                ("z", vec!["b"]),
                ("w", vec!["c"]),
            ],
        )
        .expect("traffic");
        let text = "model: m\ntimeframes:\n  - [x, y]\n  - []\n  - [z, x]\n";
        let mut problems = crate::Problems::new();
        let s = parse_schedule_listing("s.yaml", text, &t, &mut problems).expect("parsed");
        assert!(crate::validate_all(&t, &s, &mut problems).is_none());
        assert_eq!(
            problems.lines(),
            [
                "s.yaml:4:5: timeframes[1]: the timeframe is empty",
                "s.yaml:5:5: timeframes[2]: transfer \"x\" appears in timeframes[0] and timeframes[2]",
                "s.yaml:3:5: timeframes[0]: transfers \"x\" and \"y\" congest on link \"a\"",
                "transfer \"w\" is in no timeframe",
            ]
        );
    }

    #[test]
    fn an_empty_model_name_is_refused_where_it_is() {
        for name in ["\"\"", "\"  \""] {
            let e = error(&format!(
                "name: {name}\ntransfers: [{{id: x, path: [l]}}]\n"
            ));
            assert!(e.message.contains("the model's name is empty"), "{e}");
            assert_eq!(position(&e), (Some(1), Some(7)), "{e}");
        }
    }

    #[test]
    fn a_second_document_is_refused_where_it_starts() {
        let e = error("name: a\ntransfers: [{id: x, path: [l]}]\n---\nname: b\n");
        assert_eq!(position(&e), (Some(3), Some(1)), "{e}");
        assert!(e.message.contains("second YAML document"), "{e}");
        // One explicit `---` is one document.
        parse_model("m.yaml", "---\nname: a\ntransfers: [{id: x, path: [l]}]\n")
            .expect("one document");
    }

    #[test]
    fn control_characters_are_located() {
        let e = error("name: a\ntransfers: [{id: x, path: [l\u{7}]}]\n");
        assert_eq!(position(&e), (Some(2), Some(29)), "{e}");
        assert!(e.message.contains("U+0007"), "{e}");
    }

    #[test]
    fn not_utf8_is_located() {
        let dir = std::env::temp_dir().join(format!("liquid-yaml-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("bad.yaml");
        std::fs::write(&path, b"name: a\ntransfers: [\xff]\n").expect("write");
        let e = load_model(&path).expect_err("not UTF-8");
        assert_eq!(position(&e), (Some(2), Some(13)), "{e}");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn aliases_expand_within_a_budget() {
        // A short anchored path used a few times is fine.
        let t = parse_model(
            "m.yaml",
            "name: a\ntransfers:\n  - {id: x, path: &p [l1, l2]}\n  - {id: y, path: *p, count: 2}\n",
        )
        .expect("aliases of a path");
        assert_eq!(t.len(), 3);
        // Nested anchors that multiply: refused at the alias that crosses the budget.
        let mut text = String::from("name: a\nl0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            text.push_str(&format!("l{i}: &a{i} [{}]\n", vec![prev; 8].join(", ")));
        }
        let e = error(&text);
        assert!(e.message.contains("aliases expand the file beyond"), "{e}");
        assert!(e.line.is_some_and(|l| l <= 11), "{e}");
    }

    #[test]
    fn null_is_not_a_name() {
        for (text, field, column) in [
            (
                "name: a\ntransfers: [{id: x, path: [~]}]\n",
                "transfers[0].path[0]",
                28,
            ),
            (
                "name: a\ntransfers: [{id: x, path: [a, null]}]\n",
                "transfers[0].path[1]",
                31,
            ),
            (
                "name: a\ntransfers: [{id: x, path: [a], count: 2, virtual_links: [v, ~]}]\n",
                "transfers[0].virtual_links[1]",
                61,
            ),
        ] {
            let e = error(text);
            assert_eq!(e.message, NULL_NAME, "{text}: {e}");
            assert_eq!(e.field.as_deref(), Some(field), "{e}");
            assert_eq!(position(&e), (Some(2), Some(column)), "{e}");
        }
        let e = error("name: a\ntransfers: [{id: ~, path: [a]}]\n");
        assert_eq!(e.message, NULL_NAME, "{e}");
        assert_eq!(e.line, Some(2), "{e}");
        // Quoted, `~` is a name like any other.
        let t = parse_model("m.yaml", "name: a\ntransfers: [{id: x, path: [\"~\"]}]\n")
            .expect("a quoted ~ is a string");
        assert_eq!(t.link_name(crate::LinkId(0)), "~");
    }

    #[test]
    fn long_quoted_names_are_shortened() {
        let long = "n".repeat(100);
        let m = shorten_quoted(&format!(
            "unknown field `{long}`, expected `id` and {long:?} \"a\\\"b\""
        ));
        assert_eq!(
            m,
            format!(
                "unknown field `{0}…`, expected `id` and \"{0}…\" \"a\\\"b\"",
                "n".repeat(MAX_NAME_CHARS)
            )
        );
    }

    #[test]
    fn endless_and_binary_files_are_refused_while_reading() {
        // /dev/zero never ends: the first NUL byte stops the reading.
        let e = read_text(Path::new("/dev/zero")).expect_err("/dev/zero is no text");
        assert!(e.message.contains("NUL byte at offset 0"), "{e}");
        assert_eq!((e.line, e.column), (Some(1), Some(1)), "{e}");
        let dir = std::env::temp_dir().join(format!("liquid-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let f = dir.join("big.yaml");
        std::fs::write(&f, "a".repeat(5000)).expect("write");
        let e = read_text_limited(&f, 4096).expect_err("over the limit");
        assert!(e.message.contains("larger than 4096 bytes"), "{e}");
        assert_eq!(
            read_text_limited(&f, 5000).expect("at the limit").len(),
            5000
        );
        std::fs::write(&f, "name: a\n\u{e9}x\0").expect("write");
        let e = read_text(&f).expect_err("a NUL");
        assert_eq!((e.line, e.column), (Some(2), Some(3)), "{e}");
        assert!(e.message.ends_with("not a text file"), "{e}");
        // The binary files liquid meets are named: a compact schedule, binary LRAT.
        std::fs::write(&f, "liquid-frames 1\nmodel m\n\0\x01").expect("write");
        let e = read_text(&f).expect_err("compact");
        assert!(e.message.contains("a compact schedule"), "{e}");
        assert!(e.message.contains("--stream"), "{e}");
        let lrat = dir.join("proof.lrat");
        std::fs::write(&lrat, b"a\x02\x00").expect("write");
        let e = read_text(&lrat).expect_err("binary LRAT");
        assert!(e.message.contains("binary LRAT"), "{e}");
        std::fs::write(&f, b"name: a\n\xff").expect("write");
        let e = read_text(&f).expect_err("not UTF-8");
        assert!(e.message.contains("not UTF-8"), "{e}");
        // A byte order mark is dropped; one later in the text is kept.
        std::fs::write(&f, "\u{feff}name: a\n# \u{feff}\n").expect("write");
        assert_eq!(read_text(&f).expect("reads"), "name: a\n# \u{feff}\n");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_total_of_the_counts_is_capped_before_anything_is_built() {
        let mut text = String::from("name: a\ntransfers:\n");
        for i in 0..5 {
            text.push_str(&format!("  - {{id: t{i}, path: [l{i}], count: 1000000}}\n"));
        }
        let started = std::time::Instant::now();
        let e = parse_model("m.yaml", &text).expect_err("5 million transfers");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "refused at once"
        );
        assert_eq!(e.field.as_deref(), Some("transfers[4]"), "{e}");
        assert_eq!(e.line, Some(7), "{e}");
        assert!(e.message.contains("4194304"), "{e}");
    }

    #[test]
    fn a_partition_error_names_its_line_and_column() {
        let t = parse_model(
            "m.yaml",
            "name: m\ntransfers:\n  - {id: x, path: [a]}\n  - {id: y, path: [b]}\n",
        )
        .expect("model");
        let e =
            parse_partition("s.yaml", "timeframes:\n  - [x, y]\n  - [x]\n", &t).expect_err("twice");
        assert_eq!((e.line, e.column), (Some(3), Some(6)), "{e}");
        assert!(
            e.message.contains("appears twice") && e.message.contains("line 2"),
            "{e}"
        );
        let e = parse_partition("s.yaml", "timeframes:\n  - [x]\n", &t).expect_err("missing");
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("\"y\" is in no timeframe"), "{e}");
        let e =
            parse_partition("s.yaml", "timeframes:\n  - [x, y]\n  - []\n", &t).expect_err("empty");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(parse_partition("s.yaml", "timeframes: [[x], [y]]\n", &t).is_ok());
    }

    #[test]
    fn a_sizes_file_names_each_transfer_once_and_errors_have_positions() {
        let t = parse_model(
            "m.yaml",
            "name: m\ntransfers:\n  - {id: x, path: [a]}\n  - {id: y, path: [b]}\n",
        )
        .expect("model");
        // Each size as written: the caller reads the number (liquid-alltoallv refuses 1e3).
        let ok = parse_sizes("s.yaml", "y: 5\nx: 1e3\n", &t).expect("sizes");
        let texts: Vec<&str> = ok.iter().map(|(_, b)| b.as_str()).collect();
        assert_eq!(texts, ["5", "1e3"]);
        let big = parse_sizes("s.yaml", "x: 9007199254740993\n", &t).expect("sizes");
        assert_eq!(big[0].1, "9007199254740993");
        let e = parse_sizes("s.yaml", "x: 1\ny: 2\nx: 3\n", &t).expect_err("twice");
        assert_eq!((e.line, e.column), (Some(3), Some(1)), "{e}");
        assert!(e.message.contains("given twice"), "{e}");
        let e = parse_sizes("s.yaml", "x: 1\ny: [2]\n", &t).expect_err("not a scalar");
        assert_eq!(e.line, Some(2), "{e}");
        assert!(
            e.message.contains("expected a whole number of bytes"),
            "{e}"
        );
        let e = parse_sizes("s.yaml", "x: 1\nz: 2\n", &t).expect_err("unknown");
        assert_eq!(e.line, Some(2), "{e}");
    }

    /// A network-form model of `hosts` hosts on one switch, large enough for the fast
    /// route reader, with awkward but unquoted names among them.
    fn big_network(hosts: usize) -> String {
        let names: Vec<String> = (0..hosts)
            .map(|i| match i {
                0 => "a#b".to_string(),
                1 => "x~y.z".to_string(),
                2 => "_under>".to_string(),
                3 => "NULLs".to_string(),
                i => format!("h{i}"),
            })
            .collect();
        let mut links = Vec::new();
        for h in &names {
            links.push(NetLink {
                id: format!("{h}/up"),
                from: h.clone(),
                to: "sw".into(),
            });
            links.push(NetLink {
                id: format!("sw/{h}"),
                from: "sw".into(),
                to: h.clone(),
            });
        }
        let mut routes = Vec::new();
        for a in &names {
            for b in &names {
                if a != b {
                    routes.push(Route {
                        from: a.clone(),
                        to: b.clone(),
                        path: vec![format!("{a}/up"), format!("sw/{b}")],
                    });
                }
            }
        }
        let net = Network {
            hosts: names.clone(),
            switches: vec!["sw".into()],
            links,
            routing: Routing::Explicit,
            routes,
        };
        let pattern = Pattern::AllToAll {
            senders: names.clone(),
            receivers: names,
            self_transfers: false,
        };
        write_network("big", Some("fast routes"), None, &net, &pattern)
    }

    fn same(fast: &LoadedModel, slow: &LoadedModel) {
        assert_eq!(fast.traffic.sha256(), slow.traffic.sha256());
        assert_eq!(fast.traffic.len(), slow.traffic.len());
        let (f, s) = (fast.network.as_ref(), slow.network.as_ref());
        assert_eq!(f.map(|n| &n.routes), s.map(|n| &n.routes));
        assert_eq!(f.map(|n| &n.links), s.map(|n| &n.links));
    }

    #[test]
    fn the_fast_route_reader_gives_what_the_yaml_parser_gives() {
        let text = big_network(240);
        assert!(text.len() > 1 << 20, "{} bytes", text.len());
        let fast = fast_routes(&text).expect("the fast form");
        assert_eq!(fast.routes.len(), 240 * 239);
        assert_eq!(fast.rest.lines().count(), text.lines().count());
        let a = parse_model_with("m.yaml", &text, true).expect("reads");
        let b = parse_model_with("m.yaml", &text, false).expect("reads");
        same(&a, &b);
        // A line in another form (quoted name, extra space): the whole file goes through
        // the YAML parser, with the same result.
        for (from, to) in [
            ("    - {from: h5, to: h6,", "    - {from: \"h5\", to: h6,"),
            ("    - {from: h5, to: h6,", "    - {from: h5,  to: h6,"),
        ] {
            let other = text.replacen(from, to, 1);
            assert!(fast_routes(&other).is_none());
            same(
                &parse_model_with("m.yaml", &other, true).expect("reads"),
                &b,
            );
        }
    }

    #[test]
    fn errors_read_the_same_with_the_fast_route_reader() {
        let text = big_network(240);
        // A route through a link the network lacks, deep in the list; a pattern naming
        // a host the network lacks, after the routes; a routes entry with an unknown key.
        for (from, to) in [
            ("path: [h100/up, sw/h101]", "path: [h100/up, sw/h999]"),
            ("  senders: [", "  senders: [nobody, "),
            (
                "    - {from: h7, to: h8, path: [h7/up, sw/h8]}",
                "    - {from: h7, to: h8, path: [h7/up, sw/h8], x: 1}",
            ),
            (
                "    - {from: h7, to: h8, path: [h7/up, sw/h8]}",
                "    - {from: h7, to: h7, path: [h7/up, sw/h8]}",
            ),
        ] {
            let bad = text.replacen(from, to, 1);
            assert_ne!(bad, text);
            let f = parse_model_with("m.yaml", &bad, true).expect_err("refused");
            let s = parse_model_with("m.yaml", &bad, false).expect_err("refused");
            assert_eq!(f.to_string(), s.to_string());
            assert!(f.line.is_some(), "{f}");
        }
    }
}
