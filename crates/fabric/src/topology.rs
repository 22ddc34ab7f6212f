//! `ibnetdiscover` output: the nodes of a fabric, their ports, LIDs and cables.
//!
//! Two forms are read (rdma-core's `infiniband-diags/ibnetdiscover.c`):
//!
//! - the default form: records of a header line (`Switch 36 "S-<guid>" # "desc" base
//!   port 0 lid 3 lmc 0`, `Ca 2 "H-<guid>" # "desc"`) followed by one line per connected
//!   port (`[3] "S-<guid>"[5] # "desc" lid 1 4xEDR`, for an adapter `[1](<port guid>)
//!   "S-<guid>"[1] # lid 2 lmc 0 "desc" lid 1 4xEDR`), with `vendid=`, `devid=`,
//!   `sysimgguid=`, `switchguid=` and `caguid=` lines before each record;
//! - the ports form (`ibnetdiscover -p`): one line per port, such as
//!   `CA 6 1 0x<port guid> 4x SDR - SW 3 2 0x<guid> ( 'Hca4' - 'Switch2' )`. It names an
//!   adapter by its port GUID only (it prints no node GUID), and gives no LMC (taken as 0).
//!
//! Every cable must be described from both of its ends: a file cut short, or edited, is
//! refused with the line of the end that has no partner.

use std::collections::{BTreeMap, HashMap};

use crate::FabricError;

/// Whether a node forwards (a switch) or is an end node (a channel adapter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeKind {
    /// A switch: has a forwarding table, LID on port 0.
    Switch,
    /// A channel adapter (a host's HCA): one LID per port.
    Adapter,
}

/// Which form of `ibnetdiscover` output a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The default form (records per node).
    Default,
    /// The ports form (`-p`).
    Ports,
}

/// One connected port of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// Port number (1-255).
    pub num: u8,
    /// The port's GUID, when the file gives it (adapters).
    pub guid: Option<u64>,
    /// The port's base LID (adapters; a switch's LID is the node's).
    pub lid: u16,
    /// The port's LMC (adapters).
    pub lmc: u8,
    /// Index of the node at the other end of the cable.
    pub remote: usize,
    /// Port number at the other end.
    pub remote_port: u8,
    /// The link's active width and speed as the file prints them (`4xEDR`, `4x EDR`);
    /// `None` when it prints none or one liquid does not know (`??`).
    pub rate: Option<Rate>,
    /// Line of this port in the file.
    pub line: usize,
}

/// A link's active width (lanes) and speed, as ibnetdiscover prints them
/// (`dump_linkwidth_compat`, `dump_linkspeed(ext)_compat` in rdma-core's
/// `infiniband-diags/ibnetdiscover.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Lanes: 1, 2, 4, 8 or 12.
    pub lanes: u8,
    /// The speed's name: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR.
    pub speed: &'static str,
}

/// Per speed name, one lane's data rate in Gb/s: the signalling rate less the line code
/// (SDR 2.5 GBd at 8b/10b: 2; FDR 14.0625 GBd at 64b/66b: 13.636...; EDR 25.78125 GBd:
/// 25), and the nominal rates of HDR (50), NDR (100), XDR (200).
const SPEEDS: [(&str, f64); 9] = [
    ("SDR", 2.0),
    ("DDR", 4.0),
    ("QDR", 8.0),
    ("FDR10", 10.0),
    ("FDR", 14.0625 * 64.0 / 66.0),
    ("EDR", 25.0),
    ("HDR", 50.0),
    ("NDR", 100.0),
    ("XDR", 200.0),
];

impl Rate {
    /// A width (`4x`) and a speed (`EDR`), as ibnetdiscover prints them.
    pub fn parse(width: &str, speed: &str) -> Option<Rate> {
        let lanes: u8 = width.strip_suffix('x')?.parse().ok()?;
        if ![1, 2, 4, 8, 12].contains(&lanes) {
            return None;
        }
        let &(speed, _) = SPEEDS.iter().find(|(name, _)| *name == speed)?;
        Some(Rate { lanes, speed })
    }

    /// Data rate of one lane, Gb/s, after the line code (8b/10b up to QDR, 64b/66b from
    /// FDR10 on; HDR and up their nominal 50, 100, 200 Gb/s).
    pub fn lane_gbps(&self) -> f64 {
        SPEEDS
            .iter()
            .find(|(name, _)| *name == self.speed)
            .map_or(0.0, |&(_, g)| g)
    }

    /// One word as the default form prints it: `4xEDR`.
    pub fn parse_word(word: &str) -> Option<Rate> {
        let x = word.find('x')?;
        Rate::parse(&word[..=x], &word[x + 1..])
    }

    /// The link's data rate in MB/s (10^6 bytes per second): lanes x lane rate / 8.
    pub fn mb_s(&self) -> f64 {
        f64::from(self.lanes) * self.lane_gbps() * 1000.0 / 8.0
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.lanes, self.speed)
    }
}

/// A node of the fabric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Switch or adapter.
    pub kind: NodeKind,
    /// The GUID the node is known by: its node GUID (default form), or for an adapter of
    /// the ports form its port GUID.
    pub guid: u64,
    /// The node description (`"n001 HCA-1"`, `"MF0;switch-1:MQM8700/U1"`).
    pub desc: String,
    /// Number of ports the node has (the header's count; the largest port seen in the
    /// ports form).
    pub nports: u8,
    /// A switch's LID (its port 0); 0 for adapters.
    pub lid: u16,
    /// A switch's LMC.
    pub lmc: u8,
    /// A switch's port GUID (port 0), when the file gives it.
    pub port_guid: Option<u64>,
    /// Connected ports by number.
    pub ports: BTreeMap<u8, Port>,
    /// Line of the node's header (default form) or first port (ports form).
    pub line: usize,
}

impl Node {
    /// The node's id in a model: `S-<16 hex digits>` for a switch, as ibnetdiscover
    /// names it.
    pub fn switch_id(&self) -> String {
        format!("S-{:016x}", self.guid)
    }

    /// The first word of the description: the host name of an adapter (`"n001 HCA-1"`
    /// gives `n001`).
    pub fn host_name(&self) -> &str {
        self.desc.split_whitespace().next().unwrap_or("")
    }

    /// A short human label: kind, GUID and description.
    pub fn label(&self) -> String {
        let kind = match self.kind {
            NodeKind::Switch => "switch",
            NodeKind::Adapter => "adapter",
        };
        format!("{kind} {} ({:?})", crate::guid_str(self.guid), self.desc)
    }
}

/// What a LID addresses: a node and a port (0 for a switch), and which of the port's
/// 2^LMC LIDs it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LidTarget {
    /// Node index.
    pub node: usize,
    /// Port number (0: the switch itself).
    pub port: u8,
    /// LID minus the port's base LID (0 for the base LID).
    pub offset: u16,
}

/// A fabric as `ibnetdiscover` saw it.
#[derive(Debug, Clone)]
pub struct Topology {
    /// The file as the user named it.
    pub file: String,
    /// Which form the file is.
    pub form: Form,
    /// The nodes, in the order of the file.
    pub nodes: Vec<Node>,
    /// Every assigned LID.
    pub lids: HashMap<u16, LidTarget>,
    /// The largest LMC of any port.
    pub max_lmc: u8,
}

impl Topology {
    /// The node known by a GUID of the given kind.
    pub fn node_by_guid(&self, kind: NodeKind, guid: u64) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.kind == kind && n.guid == guid)
    }

    /// The GUID of what a LID addresses: the switch's GUID, or the adapter port's GUID
    /// (the node's when the port's is not known).
    pub fn lid_guid(&self, t: LidTarget) -> u64 {
        let n = &self.nodes[t.node];
        match n.ports.get(&t.port) {
            Some(p) if t.port != 0 => p.guid.unwrap_or(n.guid),
            _ => n.port_guid.unwrap_or(n.guid),
        }
    }
}

/// A port line's reference to the other end, before node ids are resolved.
struct RawPort {
    num: u8,
    guid: Option<u64>,
    lid: u16,
    lmc: u8,
    remote: String,
    remote_port: u8,
    rate: Option<Rate>,
    line: usize,
}

struct RawNode {
    kind: NodeKind,
    id: String,
    guid: u64,
    desc: String,
    nports: u8,
    lid: u16,
    lmc: u8,
    port_guid: Option<u64>,
    line: usize,
    ports: Vec<RawPort>,
}

/// Parses `ibnetdiscover` output (either form); `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Topology, FabricError> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    let Some(first) = first else {
        return Err(FabricError::file(
            file,
            "no nodes: the file is empty, not the output of ibnetdiscover",
        ));
    };
    let ports_form = ["SW ", "CA ", "RT "]
        .iter()
        .any(|p| first.starts_with(p) || first.starts_with(&p.replace(' ', "\t")));
    let (form, raw) = if ports_form {
        (Form::Ports, parse_ports_form(file, text)?)
    } else {
        (Form::Default, parse_default_form(file, text)?)
    };
    resolve(file, form, raw)
}

fn hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// The value after `key` (a whitespace-separated word) in `s`, as a number.
fn word_after<T: std::str::FromStr>(s: &str, key: &str) -> Option<T> {
    let mut words = s.split_whitespace();
    while let Some(w) = words.next() {
        if w == key {
            return words.next()?.parse().ok();
        }
    }
    None
}

/// A quoted string at the start of `s` (after blanks): its content and the rest.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    let s = s.strip_prefix('"')?;
    let end = s.find('"')?;
    Some((&s[..end], &s[end + 1..]))
}

/// `[n]` at the start of `s`: n and the rest.
fn bracket_num(s: &str) -> Option<(u32, &str)> {
    let s = s.strip_prefix('[')?;
    let end = s.find(']')?;
    let n = s[..end].trim().parse().ok()?;
    Some((n, &s[end + 1..]))
}

/// Skips `[ext N]` (ibnetdiscover -g) at the start of `s`.
fn skip_ext(s: &str) -> &str {
    if let Some(rest) = s.strip_prefix("[ext ") {
        if let Some(end) = rest.find(']') {
            return &rest[end + 1..];
        }
    }
    s
}

/// `(hex)` at the start of `s` (after blanks): the number and the rest.
fn paren_hex(s: &str) -> Option<(u64, &str)> {
    let t = s.trim_start();
    let t = t.strip_prefix('(')?;
    let end = t.find(')')?;
    let v = hex(&t[..end])?;
    Some((v, &t[end + 1..]))
}

fn port_number(file: &str, line: usize, n: u32, what: &str) -> Result<u8, FabricError> {
    if (1..=255).contains(&n) {
        Ok(n as u8)
    } else {
        Err(FabricError::at(
            file,
            line,
            format!("{what} {n} is not a port number (1-255)"),
        ))
    }
}

fn guid_of_id(id: &str) -> Option<u64> {
    let (_, h) = id.split_once('-')?;
    if h.len() == 16 {
        hex(h)
    } else {
        None
    }
}

fn parse_default_form(file: &str, text: &str) -> Result<Vec<RawNode>, FabricError> {
    let mut nodes: Vec<RawNode> = Vec::new();
    let mut pending_guid: Option<u64> = None;
    let mut pending_port_guid: Option<u64> = None;
    let mut in_record = false;
    for (i, raw_line) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw_line.trim_end();
        let bad = |why: &str| FabricError::at(file, n, why.to_string());
        if line.trim().is_empty() {
            in_record = false;
            continue;
        }
        let t = line.trim_start();
        if t.starts_with('#') {
            continue;
        }
        if t.starts_with('[') {
            if !in_record {
                return Err(bad(
                    "a port line outside a node record (a record starts with a Switch or Ca line)",
                ));
            }
            let node = nodes.last_mut().expect("in a record");
            node.ports.push(parse_port_line(file, n, t, node.kind)?);
            continue;
        }
        in_record = false;
        if let Some(v) = t.strip_prefix("switchguid=") {
            let g = v.split(['(', ' ', '\t']).next().unwrap_or("");
            pending_guid = Some(hex(g).ok_or_else(|| bad("switchguid= is not a GUID"))?);
            pending_port_guid = v
                .split_once('(')
                .and_then(|(_, r)| r.split_once(')'))
                .and_then(|(h, _)| hex(h));
            continue;
        }
        if let Some(v) = t.strip_prefix("caguid=") {
            let g = v.split_whitespace().next().unwrap_or("");
            pending_guid = Some(hex(g).ok_or_else(|| bad("caguid= is not a GUID"))?);
            continue;
        }
        if t.starts_with("rtguid=") || t.starts_with("Rt\t") || t.starts_with("Rt ") {
            return Err(bad(
                "an InfiniBand router: liquid reads one subnet (switches and channel adapters); routers are not supported",
            ));
        }
        if [
            "vendid=",
            "devid=",
            "sysimgguid=",
            "Chassis ",
            "Hostname:",
            "Non-Chassis Nodes",
        ]
        .iter()
        .any(|p| t.starts_with(p))
        {
            continue;
        }
        let kind = if t.starts_with("Switch") {
            NodeKind::Switch
        } else if t.starts_with("Ca") {
            NodeKind::Adapter
        } else {
            return Err(bad(&format!(
                "not a line of ibnetdiscover output: {:?}",
                shorten(t)
            )));
        };
        let word_len = if kind == NodeKind::Switch { 6 } else { 2 };
        let rest = &t[word_len..];
        let count_str = rest.split_whitespace().next().unwrap_or("");
        let nports: u32 = count_str
            .parse()
            .map_err(|_| bad("the node's port count is missing"))?;
        if !(1..=255).contains(&nports) {
            return Err(bad(&format!("{nports} ports: a node has 1 to 255")));
        }
        let after_count = &rest[rest.find(count_str).unwrap_or(0) + count_str.len()..];
        let (id, after_id) = quoted(after_count)
            .ok_or_else(|| bad("the node's quoted id (\"S-...\" or \"H-...\") is missing"))?;
        let comment = after_id
            .split_once('#')
            .map(|(_, c)| c.trim())
            .ok_or_else(|| bad("the node's description (after #) is missing"))?;
        let guid = pending_guid
            .take()
            .or_else(|| guid_of_id(id))
            .ok_or_else(|| {
                bad(&format!(
                    "no GUID for node {id:?} (no switchguid=/caguid= line before it)"
                ))
            })?;
        let (desc, lid, lmc) = match kind {
            NodeKind::Switch => {
                // "desc" base port 0 lid 3 lmc 0 (the description may hold quotes).
                let body = comment
                    .strip_prefix('"')
                    .ok_or_else(|| bad("the switch's description is not quoted"))?;
                let end = body
                    .rfind("\" base port 0")
                    .or_else(|| body.rfind("\" enhanced port 0"))
                    .ok_or_else(|| {
                        bad("the switch line lacks \"base port 0 lid N\" (truncated?)")
                    })?;
                let tail = &body[end + 1..];
                let lid_word = word_after::<String>(tail, "lid")
                    .ok_or_else(|| bad("the switch line lacks its LID (lid N)"))?;
                let lid = unicast_lid(file, n, &lid_word)?;
                let lmc: u8 = word_after(tail, "lmc")
                    .ok_or_else(|| bad("the switch line lacks its LMC (lmc N)"))?;
                (body[..end].to_string(), lid, lmc)
            }
            NodeKind::Adapter => {
                let body = comment
                    .strip_prefix('"')
                    .ok_or_else(|| bad("the adapter's description is not quoted"))?;
                let end = body.rfind('"').ok_or_else(|| {
                    bad("the adapter's description has no closing quote (truncated?)")
                })?;
                (body[..end].to_string(), 0, 0)
            }
        };
        nodes.push(RawNode {
            kind,
            id: id.to_string(),
            guid,
            desc,
            nports: nports as u8,
            lid,
            lmc,
            port_guid: if kind == NodeKind::Switch {
                pending_port_guid.take()
            } else {
                None
            },
            line: n,
            ports: Vec::new(),
        });
        in_record = true;
    }
    Ok(nodes)
}

/// The largest unicast LID (0xBFFF); 0xC000 up are multicast, 0xFFFF the permissive LID.
const MAX_UNICAST_LID: u64 = 0xbfff;

/// A LID as written at `file:n`, which must be a unicast LID (1-49151) or 0. A port's 0
/// means no subnet manager had assigned it a LID when the topology was collected (a node
/// coming up): the import refuses it for a selected host, at the port's line, and lets
/// it through for an adapter the selection leaves out (`--hosts`), which no route
/// needs; a switch's table is found by GUID, and a route to its LID is refused where it
/// is needed.
fn unicast_lid(file: &str, n: usize, word: &str) -> Result<u16, FabricError> {
    let bad = |why: String| FabricError::at(file, n, why);
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!("the LID {:?} is not a number", shorten(word))));
    }
    let lid: u64 = word.parse().unwrap_or(u64::MAX); // only digits: too large if it fails
    if lid > MAX_UNICAST_LID {
        return Err(bad(format!(
            "LID {} is not a unicast LID (1-{MAX_UNICAST_LID})",
            shorten(word)
        )));
    }
    Ok(lid as u16)
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

fn parse_port_line(file: &str, n: usize, t: &str, kind: NodeKind) -> Result<RawPort, FabricError> {
    let bad = |why: &str| FabricError::at(file, n, why.to_string());
    let (num, rest) = bracket_num(t).ok_or_else(|| bad("a port line starts with [port number]"))?;
    let num = port_number(file, n, num, "port")?;
    let rest = skip_ext(rest);
    let (guid, rest) = match paren_hex(rest) {
        Some((g, r)) => (Some(g), r),
        None => (None, rest),
    };
    let (remote, rest) =
        quoted(rest).ok_or_else(|| bad("the remote node's quoted id is missing (truncated?)"))?;
    let (rport, rest) = bracket_num(rest.trim_start())
        .ok_or_else(|| bad("the remote port [N] is missing (truncated?)"))?;
    let remote_port = port_number(file, n, rport, "remote port")?;
    let comment = rest.split_once('#').map(|(_, c)| c.trim()).unwrap_or("");
    let (lid, lmc) = match kind {
        NodeKind::Switch => (0, 0),
        NodeKind::Adapter => {
            // # lid 2 lmc 0 "remote desc" lid 1 4xSDR
            let lid_word = comment
                .strip_prefix("lid ")
                .and_then(|r| r.split_whitespace().next())
                .ok_or_else(|| {
                    bad("the adapter port lacks its LID (# lid N lmc M ...; truncated?)")
                })?;
            let lid = unicast_lid(file, n, lid_word)?;
            let lmc: u8 = word_after(comment.split('"').next().unwrap_or(""), "lmc")
                .ok_or_else(|| bad("the adapter port lacks its LMC (lmc M)"))?;
            (lid, lmc)
        }
    };
    // The rate is the first word after the remote description that reads as one
    // (`lid 1 4xEDR`, then maybe ` s=4 w=2 v=3` with -f).
    let after_desc = comment.rsplit('"').next().unwrap_or(comment);
    let rate = after_desc.split_whitespace().find_map(Rate::parse_word);
    Ok(RawPort {
        num,
        guid,
        lid,
        lmc,
        remote: remote.to_string(),
        remote_port,
        rate,
        line: n,
    })
}

fn parse_ports_form(file: &str, text: &str) -> Result<Vec<RawNode>, FabricError> {
    let mut nodes: Vec<RawNode> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, raw_line) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw_line.trim();
        let bad = |why: &str| FabricError::at(file, n, why.to_string());
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        if words.len() < 4 {
            return Err(bad(&format!(
                "not a line of ibnetdiscover -p output: {:?} (truncated?)",
                shorten(t)
            )));
        }
        let kind = match words[0] {
            "SW" => NodeKind::Switch,
            "CA" => NodeKind::Adapter,
            "RT" => {
                return Err(bad(
                    "an InfiniBand router: liquid reads one subnet (switches and channel adapters); routers are not supported",
                ))
            }
            _ => {
                return Err(bad(&format!(
                    "not a line of ibnetdiscover -p output: {:?}",
                    shorten(t)
                )))
            }
        };
        let num: u32 = words[2]
            .parse()
            .map_err(|_| bad("the port is not a number"))?;
        let num = port_number(file, n, num, "port")?;
        let guid = hex(words[3]).ok_or_else(|| bad("the GUID is not 0x and hex digits"))?;
        // The rest: "4x SDR - SW 3 2 0x... ( 'a' - 'b' )" or "4x SDR    'a'".
        let after_guid = &t[t.find(words[3]).unwrap_or(0) + words[3].len()..];
        let link = find_link(after_guid);
        // A connected adapter port's LID 0 is refused by the import for a selected host.
        let lid = unicast_lid(file, n, words[1])?;
        let id = match kind {
            NodeKind::Switch => format!("S-{guid:016x}"),
            NodeKind::Adapter => format!("H-{guid:016x}"),
        };
        let (desc, port) = match link {
            None => {
                let s = after_guid
                    .find('\'')
                    .ok_or_else(|| bad("the node description ('...') is missing (truncated?)"))?;
                let e = after_guid.rfind('\'').unwrap_or(s);
                if e <= s {
                    return Err(bad(
                        "the node description has no closing quote (truncated?)",
                    ));
                }
                (after_guid[s + 1..e].to_string(), None)
            }
            Some(at) => {
                let remote = &after_guid[at..];
                let rw: Vec<&str> = remote.split_whitespace().collect();
                if rw.len() < 4 {
                    return Err(bad("the remote end is cut short (truncated?)"));
                }
                let rkind = match rw[0] {
                    "SW" => "S",
                    "CA" => "H",
                    _ => return Err(bad("a link to a router: routers are not supported")),
                };
                let rport: u32 = rw[2]
                    .parse()
                    .map_err(|_| bad("the remote port is not a number"))?;
                let rport = port_number(file, n, rport, "remote port")?;
                let rguid =
                    hex(rw[3]).ok_or_else(|| bad("the remote GUID is not 0x and hex digits"))?;
                let tail = &remote[remote.find(rw[3]).unwrap_or(0) + rw[3].len()..];
                let tail = tail.trim();
                let inner = tail
                    .strip_prefix("( '")
                    .and_then(|s| s.strip_suffix("' )"))
                    .ok_or_else(|| {
                        bad("the descriptions ( 'local' - 'remote' ) are missing (truncated?)")
                    })?;
                let local = inner.split("' - '").next().unwrap_or(inner);
                (
                    local.to_string(),
                    Some(RawPort {
                        num,
                        guid: (kind == NodeKind::Adapter).then_some(guid),
                        lid: if kind == NodeKind::Adapter { lid } else { 0 },
                        lmc: 0,
                        remote: format!("{rkind}-{rguid:016x}"),
                        remote_port: rport,
                        rate: words
                            .get(4)
                            .zip(words.get(5))
                            .and_then(|(w, s)| Rate::parse(w, s)),
                        line: n,
                    }),
                )
            }
        };
        let k = match index.get(&id) {
            Some(&k) => k,
            None => {
                index.insert(id.clone(), nodes.len());
                nodes.push(RawNode {
                    kind,
                    id,
                    guid,
                    desc: desc.clone(),
                    nports: 0,
                    lid: if kind == NodeKind::Switch { lid } else { 0 },
                    lmc: 0,
                    port_guid: (kind == NodeKind::Switch).then_some(guid),
                    line: n,
                    ports: Vec::new(),
                });
                nodes.len() - 1
            }
        };
        let node = &mut nodes[k];
        if node.desc != desc {
            return Err(bad(&format!(
                "GUID {} is described as {:?} here but as {:?} at line {}",
                crate::guid_str(guid),
                desc,
                node.desc,
                node.line
            )));
        }
        if kind == NodeKind::Switch && node.lid != lid {
            return Err(bad(&format!(
                "switch {} has LID {lid} here but {} at line {}",
                crate::guid_str(guid),
                node.lid,
                node.line
            )));
        }
        node.nports = node.nports.max(num);
        if let Some(p) = port {
            node.ports.push(p);
        }
    }
    Ok(nodes)
}

/// Where the remote end starts in the rest of a ports-form line: after " - " followed by
/// a node type.
fn find_link(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find(" - ") {
        let at = from + i + 3;
        let rest = s[at..].trim_start();
        if ["SW ", "CA ", "RT ", "SW\t", "CA\t", "RT\t"]
            .iter()
            .any(|p| rest.starts_with(p))
        {
            return Some(at + (s[at..].len() - rest.len()));
        }
        from = at;
    }
    None
}

fn resolve(file: &str, form: Form, raw: Vec<RawNode>) -> Result<Topology, FabricError> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, n) in raw.iter().enumerate() {
        if let Some(&j) = index.get(n.id.as_str()) {
            return Err(FabricError::at(
                file,
                n.line,
                format!(
                    "node {:?} is described twice (first at line {})",
                    n.id, raw[j].line
                ),
            ));
        }
        index.insert(&n.id, i);
    }
    let mut nodes: Vec<Node> = Vec::with_capacity(raw.len());
    for n in &raw {
        let mut ports = BTreeMap::new();
        for p in &n.ports {
            let Some(&r) = index.get(p.remote.as_str()) else {
                return Err(FabricError::at(
                    file,
                    p.line,
                    format!(
                        "port {} of {:?} connects to {:?}, which the file never describes: a truncated or incomplete file?",
                        p.num, n.id, p.remote
                    ),
                ));
            };
            if p.num > n.nports {
                return Err(FabricError::at(
                    file,
                    p.line,
                    format!("port {} of {:?}, which has {} ports", p.num, n.id, n.nports),
                ));
            }
            let port = Port {
                num: p.num,
                guid: p.guid,
                lid: p.lid,
                lmc: p.lmc,
                remote: r,
                remote_port: p.remote_port,
                rate: p.rate,
                line: p.line,
            };
            if let Some(old) = ports.insert(p.num, port) {
                return Err(FabricError::at(
                    file,
                    p.line,
                    format!(
                        "port {} of {:?} is listed twice (first at line {})",
                        p.num, n.id, old.line
                    ),
                ));
            }
        }
        nodes.push(Node {
            kind: n.kind,
            guid: n.guid,
            desc: n.desc.clone(),
            nports: n.nports,
            lid: n.lid,
            lmc: n.lmc,
            port_guid: n.port_guid,
            ports,
            line: n.line,
        });
    }
    // Both ends of every cable.
    for (i, n) in nodes.iter().enumerate() {
        for p in n.ports.values() {
            let other = &nodes[p.remote];
            let back = other.ports.get(&p.remote_port);
            if back.map(|b| (b.remote, b.remote_port)) != Some((i, p.num)) {
                let what = match back {
                    None => format!(
                        "the file does not list that port of {:?} (its record at line {}): a truncated or edited file?",
                        raw[p.remote].id, other.line
                    ),
                    Some(b) => format!(
                        "that port's own line ({}) connects it to {:?} port {}",
                        b.line, raw[b.remote].id, b.remote_port
                    ),
                };
                return Err(FabricError::at(
                    file,
                    p.line,
                    format!(
                        "port {} of {:?} connects to port {} of {:?}, but {what}",
                        p.num, raw[i].id, p.remote_port, raw[p.remote].id
                    ),
                ));
            }
        }
    }
    // LIDs.
    let mut lids: HashMap<u16, LidTarget> = HashMap::new();
    let mut lines: HashMap<u16, usize> = HashMap::new();
    let mut max_lmc = 0;
    for (i, n) in nodes.iter().enumerate() {
        let mut assigned: Vec<(u16, u8, u8, usize)> = Vec::new();
        match n.kind {
            NodeKind::Switch => assigned.push((n.lid, n.lmc, 0, n.line)),
            NodeKind::Adapter => {
                for p in n.ports.values() {
                    assigned.push((p.lid, p.lmc, p.num, p.line));
                }
            }
        }
        for (lid, lmc, port, line) in assigned {
            if lid == 0 {
                continue; // no LID yet (no subnet manager); refused where a route needs it
            }
            if lmc > 7 {
                return Err(FabricError::at(file, line, format!("LMC {lmc}: at most 7")));
            }
            max_lmc = max_lmc.max(lmc);
            for offset in 0..(1u16 << lmc) {
                let l = lid
                    .checked_add(offset)
                    .filter(|&l| l < 0xc000)
                    .ok_or_else(|| {
                        FabricError::at(
                            file,
                            line,
                            format!("LID {lid} with LMC {lmc} leaves the unicast LIDs"),
                        )
                    })?;
                if let Some(&first) = lines.get(&l) {
                    return Err(FabricError::at(
                        file,
                        line,
                        format!("LID {l} is also assigned at line {first}: two ports with one LID"),
                    ));
                }
                lines.insert(l, line);
                lids.insert(
                    l,
                    LidTarget {
                        node: i,
                        port,
                        offset,
                    },
                );
            }
        }
    }
    Ok(Topology {
        file: file.to_string(),
        form,
        nodes,
        lids,
        max_lmc,
    })
}
