//! Linear forwarding tables: destination LID → output port, per switch.
//!
//! Three producers, two layouts (read from their sources):
//!
//! - OpenSM's `opensm-lfts.dump` (`--dump_files_dir`, debug flag 0x40; `osm_dump.c`,
//!   `dump_ucast_lfts`): per switch a header `Unicast lids [0-MAX] of switch Lid L guid
//!   0x<guid> ('desc'):`, one line `0x0001 003 # Channel Adapter portguid 0x...: 'desc'`
//!   per LID routed to a port of the switch, and `MAX lids dumped`;
//! - `dump_fts` and `ibroute` (rdma-core's `infiniband-diags`): a header `Unicast lids
//!   [0x0-0xTOP] of switch DR path ... guid 0x<guid> (desc):` (or `switch Lid L guid`),
//!   two column-title lines, one line `0x0001 003 : (Channel Adapter portguid 0x...:
//!   'desc')` per valid entry, and `N valid lids dumped` (`N lids dumped` with `-a`,
//!   which also lists invalid entries as port 255).
//!
//! A LID without a line has no entry (OpenSM left it unrouted). Switches are known by
//! their node GUID in both layouts.
//!
//! `dump_fts` and `ibroute` read the table in blocks of 64 LIDs up to
//! `ALIGN(top, 64) / 64`, exclusive: when the switch's top LID is a multiple of 64 the
//! block holding it is never read and that LID is missing from their output (rdma-core
//! `dump_fts.c`, `dump_unicast_tables`). OpenSM's dump has no such gap: it is the file to
//! collect.

use std::collections::HashMap;

use crate::FabricError;

/// The layout a table came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// OpenSM's `opensm-lfts.dump`.
    OpenSm,
    /// `dump_fts` or `ibroute` output.
    DumpFts,
}

/// No entry for a LID.
pub const NONE: u8 = 255;

/// One switch's table.
#[derive(Debug, Clone)]
pub struct Table {
    /// The switch's node GUID.
    pub guid: u64,
    /// The description the header gives.
    pub desc: String,
    /// The header's line.
    pub line: usize,
    /// The header's LID range, inclusive.
    pub range: (u16, u16),
    /// Output port per LID ([`NONE`]: no entry), indexed by LID.
    pub ports: Vec<u8>,
    /// The line of each LID's entry (0: none).
    pub lines: Vec<u32>,
    /// The destination port GUID each entry names, when it names one.
    pub dests: HashMap<u16, u64>,
    /// The layout.
    pub layout: Layout,
}

impl Table {
    /// The output port for a LID, or `None` when the table has no entry.
    pub fn port(&self, lid: u16) -> Option<u8> {
        match self.ports.get(lid as usize) {
            Some(&p) if p != NONE => Some(p),
            _ => None,
        }
    }

    /// The line of a LID's entry, if it has one.
    pub fn line_of(&self, lid: u16) -> Option<usize> {
        match self.lines.get(lid as usize) {
            Some(&l) if l != 0 => Some(l as usize),
            _ => None,
        }
    }
}

/// Every switch's table from one file.
#[derive(Debug, Clone)]
pub struct Lfts {
    /// The file as the user named it.
    pub file: String,
    /// The tables, in the order of the file.
    pub tables: Vec<Table>,
    /// Table index by switch GUID.
    pub by_guid: HashMap<u64, usize>,
}

fn num(s: &str) -> Option<u32> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

struct Open {
    table: Table,
    entries: usize,
    hex_range: bool,
}

/// Parses forwarding tables (any of the layouts); `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Lfts, FabricError> {
    let mut tables: Vec<Table> = Vec::new();
    let mut by_guid: HashMap<u64, usize> = HashMap::new();
    let mut open: Option<Open> = None;
    let mut last_line = 0;
    for (i, raw_line) in text.lines().enumerate() {
        let n = i + 1;
        last_line = n;
        let t = raw_line.trim();
        let bad = |why: String| FabricError::at(file, n, why);
        if t.is_empty() || t.starts_with("ibwarn:") {
            continue;
        }
        if t.starts_with("SubnGet") {
            return Err(bad(format!(
                "the tool that wrote this file failed to read a table: {t:?}"
            )));
        }
        if t.starts_with("dump_ucast_routes:") {
            return Err(bad(
                "this is OpenSM's opensm.fdbs (hop counts); give opensm-lfts.dump, or dump_fts output"
                    .into(),
            ));
        }
        if let Some(rest) = t.strip_prefix("Unicast lids [") {
            if let Some(o) = &open {
                return Err(FabricError::at(
                    file,
                    n,
                    format!(
                        "the table of switch {} (line {}) ends without its \"lids dumped\" line: a truncated file?",
                        crate::guid_str(o.table.guid),
                        o.table.line
                    ),
                ));
            }
            let (range, after) = rest
                .split_once(']')
                .ok_or_else(|| bad("the LID range [A-B] is not closed".into()))?;
            let (a, b) = range
                .split_once('-')
                .ok_or_else(|| bad("the LID range is not A-B".into()))?;
            let hex_range = a.trim().starts_with("0x");
            let (a, b) = match (num(a), num(b)) {
                (Some(a), Some(b)) if a <= b && b < 0xc000 => (a as u16, b as u16),
                _ => return Err(bad(format!("bad LID range [{range}]"))),
            };
            let g = after
                .find(" guid ")
                .ok_or_else(|| bad("the header names no switch GUID (guid 0x...)".into()))?;
            let after_g = &after[g + 6..];
            let guid_word = after_g.split_whitespace().next().unwrap_or("");
            let guid = guid_word
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| bad(format!("{guid_word:?} is not a GUID")))?;
            let desc = after_g[guid_word.len()..]
                .trim()
                .trim_end_matches(':')
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim_matches('\'')
                .to_string();
            if let Some(&j) = by_guid.get(&guid) {
                return Err(bad(format!(
                    "a second table for switch {} (the first at line {})",
                    crate::guid_str(guid),
                    tables[j].line
                )));
            }
            let len = b as usize + 1;
            open = Some(Open {
                table: Table {
                    guid,
                    desc,
                    line: n,
                    range: (a, b),
                    ports: vec![NONE; len],
                    lines: vec![0; len],
                    dests: HashMap::new(),
                    layout: if after.contains(" DR path ") || hex_range {
                        Layout::DumpFts
                    } else {
                        Layout::OpenSm
                    },
                },
                entries: 0,
                hex_range,
            });
            continue;
        }
        let Some(o) = open.as_mut() else {
            return Err(bad(format!(
                "not a forwarding-table line (a table starts with \"Unicast lids [...] of switch ...\"): {:?}",
                short(t)
            )));
        };
        if t.starts_with("Lid ") || t.starts_with("Port ") {
            continue; // dump_fts's column titles
        }
        if t.ends_with("lids dumped") {
            let words: Vec<&str> = t.split_whitespace().collect();
            let count: usize = words
                .first()
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| bad("the \"lids dumped\" line has no count".into()))?;
            let expected = if o.hex_range {
                o.entries
            } else {
                o.table.range.1 as usize
            };
            if count != expected {
                return Err(bad(format!(
                    "the table of switch {} (line {}) says {count} lids dumped but {}: a truncated or edited file?",
                    crate::guid_str(o.table.guid),
                    o.table.line,
                    if o.hex_range {
                        format!("lists {}", o.entries)
                    } else {
                        format!("its range ends at {}", o.table.range.1)
                    }
                )));
            }
            let o = open.take().expect("open");
            by_guid.insert(o.table.guid, tables.len());
            tables.push(o.table);
            continue;
        }
        // An entry: 0x0001 003 # ... / 0x0001 003 : (...)
        let mut words = t.split_whitespace();
        let (Some(lw), Some(pw)) = (words.next(), words.next()) else {
            return Err(bad(format!("not a table entry (LID port): {:?}", short(t))));
        };
        let lid = lw
            .strip_prefix("0x")
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .ok_or_else(|| bad(format!("not a table entry: {lw:?} is not a LID (0x....)")))?;
        let port: u8 = pw
            .parse()
            .map_err(|_| bad(format!("not a table entry: {pw:?} is not a port number")))?;
        let (lo, hi) = o.table.range;
        if lid < lo || lid > hi {
            return Err(bad(format!(
                "LID {lid} is outside the table's range [{lo}-{hi}] (switch {})",
                crate::guid_str(o.table.guid)
            )));
        }
        if o.table.lines[lid as usize] != 0 {
            return Err(bad(format!(
                "a second entry for LID {lid} in the table of switch {} (first at line {})",
                crate::guid_str(o.table.guid),
                o.table.lines[lid as usize]
            )));
        }
        o.entries += 1;
        o.table.lines[lid as usize] = n as u32;
        if t.contains("(illegal port)") {
            continue; // dump_fts -a: no valid entry
        }
        o.table.ports[lid as usize] = port;
        if let Some(at) = t.find("portguid 0x") {
            let h: String = t[at + 11..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .collect();
            if let Ok(g) = u64::from_str_radix(&h, 16) {
                o.table.dests.insert(lid, g);
            }
        }
    }
    if let Some(o) = open {
        return Err(FabricError::at(
            file,
            last_line,
            format!(
                "the file ends inside the table of switch {} (line {}), before its \"lids dumped\" line: a truncated file?",
                crate::guid_str(o.table.guid),
                o.table.line
            ),
        ));
    }
    if tables.is_empty() {
        return Err(FabricError::file(
            file,
            "no forwarding tables: not opensm-lfts.dump, dump_fts or ibroute output",
        ));
    }
    Ok(Lfts {
        file: file.to_string(),
        tables,
        by_guid,
    })
}

fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}
