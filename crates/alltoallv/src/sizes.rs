//! Message sizes per transfer, read from a file: a `src,dst,bytes` CSV (header optional;
//! hosts by name or by index in [`hosts`] order) or the YAML mapping `transfer id: bytes`.
//! [`load`] reads both (by extension, else by content) and checks everything: unknown
//! hosts, pairs that are not in the traffic or have several transfers, a pair given twice,
//! sizes that are not positive whole numbers, and pairs of the traffic without a size
//! ([`Missing`] says what happens to them: an error, or a default size).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use liquid_model::yaml::LoadError;
use liquid_model::{Traffic, TransferId};

/// What a pair of the traffic that the file gives no size gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// It is an error (the default of every command: nothing is silently assumed).
    Error,
    /// This many bytes (`--size BYTES`).
    Default(u64),
}

/// The size of every transfer of a traffic, in bytes (each at least 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizes {
    /// Bytes per transfer, indexed by [`TransferId::index`].
    pub bytes: Vec<u64>,
    /// How many transfers took the default size ([`Missing::Default`]).
    pub defaulted: usize,
}

impl Sizes {
    /// The same size for every transfer.
    pub fn uniform(traffic: &Traffic, bytes: u64) -> Sizes {
        Sizes {
            bytes: vec![bytes; traffic.len()],
            defaulted: 0,
        }
    }

    /// Total bytes.
    pub fn total(&self) -> u128 {
        self.bytes.iter().map(|&b| u128::from(b)).sum()
    }
}

/// The traffic's hosts in order of first appearance (senders and receivers of its
/// transfers, in model order): the index of a host in a CSV file is its position here.
pub fn hosts(traffic: &Traffic) -> Vec<&str> {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    let mut out = Vec::new();
    for t in traffic.transfers() {
        for h in [t.from.as_deref(), t.to.as_deref()].into_iter().flatten() {
            if seen.insert(h, ()).is_none() {
                out.push(h);
            }
        }
    }
    out
}

/// The transfers of each (sender, receiver) pair, by host index.
pub(crate) type Pairs = HashMap<(u32, u32), Vec<TransferId>>;

/// The hosts ([`hosts`]) and the transfers of each pair of them.
pub(crate) fn pairs(traffic: &Traffic) -> (Vec<&str>, Pairs) {
    let hosts = hosts(traffic);
    let index: HashMap<&str, u32> = hosts
        .iter()
        .enumerate()
        .map(|(i, &h)| (h, i as u32))
        .collect();
    let mut pairs: Pairs = HashMap::new();
    for t in traffic.transfer_ids() {
        let x = traffic.transfer(t);
        if let (Some(a), Some(b)) = (x.from.as_deref(), x.to.as_deref()) {
            pairs.entry((index[a], index[b])).or_default().push(t);
        }
    }
    (hosts, pairs)
}

/// Reads the sizes of `traffic` from a file: CSV when its name ends in `.csv`, YAML when
/// in `.yaml` or `.yml`, otherwise CSV when its first line that is not empty or a `#`
/// comment has a comma and no `": "`. Every error names the file, the line and the field.
pub fn load(path: &Path, traffic: &Traffic, missing: Missing) -> Result<Sizes, LoadError> {
    let text = liquid_model::yaml::read_text(path)?;
    let file = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let csv = match ext {
        "csv" => true,
        "yaml" | "yml" => false,
        _ => looks_like_csv(&text),
    };
    if csv {
        parse_csv(&file, &text, traffic, missing)
    } else {
        parse_yaml(&file, &text, traffic, missing)
    }
}

fn looks_like_csv(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.contains(',') && !l.contains(": "))
}

fn error(file: &str, line: usize, column: usize, field: &str, message: String) -> LoadError {
    LoadError {
        file: file.to_string(),
        line: Some(line),
        column: Some(column),
        field: Some(field.to_string()),
        message,
    }
}

/// The largest message size, and the most bytes one link may carry in all: 2^53 =
/// 9,007,199,254,740,992 bytes (8 PiB). Every whole number up to it is exact as an `f64`,
/// and the computations that turn bytes into time do so in `f64`: a message's time
/// divides its size ([`crate::bound::Platform::message_time`]), the time bound divides
/// each link's total bytes ([`crate::bound::time_bound`], summed exactly in `u128`
/// first). Above it, sizes and link totals would be rounded, and 16 EiB messages summed
/// in `u64` overflowed. A size or a link's total above it is refused.
pub const MAX_BYTES: u64 = 1 << 53;

/// Why `bytes` is more than [`MAX_BYTES`].
pub(crate) fn too_large(bytes: &str) -> String {
    format!(
        "{bytes} bytes is more than {MAX_BYTES} (2^53, 8 PiB), the largest size liquid \
         computes with exactly"
    )
}

/// A positive whole number of bytes, at most [`MAX_BYTES`], or why not.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("no size: give a positive whole number of bytes".into());
    }
    if !s.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "{s:?} is not a positive whole number of bytes (digits only)"
        ));
    }
    match s.parse::<u64>() {
        Ok(0) => Err(
            "0 bytes: every message of the traffic has at least 1 byte (a pair \
                      without data is not part of the all-to-allv; give a model without it)"
                .into(),
        ),
        Ok(v) if v <= MAX_BYTES => Ok(v),
        _ => Err(too_large(s)),
    }
}

/// A byte count as options take it: a whole number with an optional unit `B`, `KiB`,
/// `MiB`, `GiB` (powers of 1024) or `kB`, `MB`, `GB` (powers of 1000): `65536`, `64KiB`,
/// `1MB`. At least 1, at most [`MAX_BYTES`].
pub fn parse_byte_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    // A fraction or an exponent (`1.5`, `1e6`) is not a unit: say what a size is.
    let exponent = unit.strip_prefix(['e', 'E']).is_some_and(|r| {
        !r.is_empty()
            && r.trim_start_matches(['+', '-'])
                .bytes()
                .all(|c| c.is_ascii_digit())
    });
    if num.is_empty() && unit.starts_with(['-', '+']) {
        return Err(format!(
            "{s:?}: a number of bytes is a whole number of at least 1, without a sign"
        ));
    }
    if unit.starts_with(['.', ',']) || exponent {
        return Err(format!(
            "{s:?} is not a whole number of bytes (like 4096 or 64KiB; no fraction of a \
             unit, no exponent)"
        ));
    }
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "kB" | "KB" => 1000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        u => {
            return Err(format!(
                "{s:?}: unknown unit {u:?} (B, KiB, MiB, GiB, kB, MB, GB)"
            ))
        }
    };
    let v: u64 = match num.parse() {
        Ok(v) => v,
        // Digits beyond u64: too large, as any count above 2^53 is.
        Err(_) if !num.is_empty() => return Err(too_large(&format!("{s:?}"))),
        Err(_) => {
            return Err(format!(
                "{s:?} is not a whole number of bytes (like 4096 or 64KiB)"
            ))
        }
    };
    match v.checked_mul(mult) {
        Some(0) => Err(format!("{s:?}: at least 1 byte")),
        Some(b) if b <= MAX_BYTES => Ok(b),
        _ => Err(too_large(&format!("{s:?}"))),
    }
}

/// [`load`] of CSV text; `file` names it in errors.
pub fn parse_csv(
    file: &str,
    text: &str,
    traffic: &Traffic,
    missing: Missing,
) -> Result<Sizes, LoadError> {
    let (hosts, pairs) = pairs(traffic);
    let by_name: HashMap<&str, u32> = hosts
        .iter()
        .enumerate()
        .map(|(i, &h)| (h, i as u32))
        .collect();
    let host = |s: &str| -> Option<u32> {
        by_name.get(s).copied().or_else(|| {
            s.parse::<u32>()
                .ok()
                .filter(|&i| (i as usize) < hosts.len())
        })
    };
    let mut bytes: Vec<Option<u64>> = vec![None; traffic.len()];
    // Per transfer, the line that gave its size.
    let mut given_at: Vec<u32> = vec![0; traffic.len()];
    let mut first = true;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (cols, fields): (Vec<usize>, Vec<Cow<'_, str>>) = split_fields(raw)
            .map_err(|(col, m)| error(file, line, col, "src,dst,bytes", m))?
            .into_iter()
            .unzip();
        let is_header = first
            && fields.len() == 3
            && fields
                .iter()
                .zip(["src", "dst", "bytes"])
                .all(|(f, h)| f.eq_ignore_ascii_case(h));
        first = false;
        if is_header {
            continue;
        }
        if fields.len() != 3 {
            return Err(error(
                file,
                line,
                1,
                "src,dst,bytes",
                format!(
                    "{} fields: a line is src,dst,bytes (host names or indices, whole bytes)",
                    fields.len()
                ),
            ));
        }
        let col = |i: usize| cols[i];
        let mut ends = [0u32; 2];
        for (i, name) in ["src", "dst"].into_iter().enumerate() {
            let h = &*fields[i];
            ends[i] = host(h).ok_or_else(|| {
                error(
                    file,
                    line,
                    col(i),
                    name,
                    match hosts.first() {
                        Some(first) => format!(
                            "no host {h:?} in model {:?} (hosts are named like {first:?}, or \
                             numbered 0 to {})",
                            traffic.name(),
                            hosts.len() - 1
                        ),
                        // An explicit-form model: transfers without end hosts.
                        None => format!(
                            "no host {h:?}: model {:?} names no hosts (its transfers have no \
                             from/to): give the sizes by transfer id in a YAML mapping",
                            traffic.name()
                        ),
                    },
                )
            })?;
        }
        let (a, b) = (hosts[ends[0] as usize], hosts[ends[1] as usize]);
        let t = match pairs.get(&(ends[0], ends[1])).map(Vec::as_slice) {
            Some([t]) => *t,
            Some(ts) => {
                return Err(error(
                    file,
                    line,
                    1,
                    "src,dst",
                    format!(
                        "{a} -> {b} has {} transfers in model {:?}: give their sizes by \
                         transfer id in a YAML mapping",
                        ts.len(),
                        traffic.name()
                    ),
                ))
            }
            None => {
                return Err(error(
                    file,
                    line,
                    1,
                    "src,dst",
                    format!("{a} -> {b} is not a transfer of model {:?}", traffic.name()),
                ))
            }
        };
        let size = parse_bytes(&fields[2]).map_err(|m| error(file, line, col(2), "bytes", m))?;
        if bytes[t.index()].is_some() {
            return Err(error(
                file,
                line,
                1,
                "src,dst",
                format!(
                    "{a} -> {b} is given twice (first on line {}); a size file names each pair once",
                    given_at[t.index()]
                ),
            ));
        }
        bytes[t.index()] = Some(size);
        given_at[t.index()] = line as u32;
    }
    finish(file, traffic, bytes, missing)
}

/// [`load`] of a YAML mapping `transfer id: bytes`; `file` names it in errors.
pub fn parse_yaml(
    file: &str,
    text: &str,
    traffic: &Traffic,
    missing: Missing,
) -> Result<Sizes, LoadError> {
    let mut bytes: Vec<Option<u64>> = vec![None; traffic.len()];
    // Transfer ids and duplicates are checked there; the sizes, read as the CSV's are
    // (digits only, whole bytes, no float rounding), here.
    for (t, b) in liquid_model::yaml::parse_sizes(file, text, traffic)? {
        let id = traffic.transfer_name(t);
        let b = parse_bytes(&b).map_err(|m| LoadError::at_field(file, text, id, m))?;
        bytes[t.index()] = Some(b);
    }
    finish(file, traffic, bytes, missing)
}

fn finish(
    file: &str,
    traffic: &Traffic,
    bytes: Vec<Option<u64>>,
    missing: Missing,
) -> Result<Sizes, LoadError> {
    let sizes = finish_missing(file, traffic, bytes, missing)?;
    // Each size is at most MAX_BYTES (parse_bytes, parse_byte_count); a link's total too.
    let on = crate::bound::link_bytes(traffic, &sizes.bytes);
    if let Some((l, &total)) = on
        .iter()
        .enumerate()
        .find(|(_, &b)| b > u128::from(MAX_BYTES))
    {
        return Err(LoadError {
            file: file.to_string(),
            line: None,
            column: None,
            field: None,
            message: format!(
                "link {:?} carries {total} bytes in all, more than {MAX_BYTES} (2^53, 8 PiB), \
                 the most liquid computes with exactly (a link's total becomes a time as a \
                 float)",
                traffic.link_name(liquid_model::LinkId(l as u32))
            ),
        });
    }
    Ok(sizes)
}

/// The sizes, with `missing`'s rule for the transfers the file leaves out.
fn finish_missing(
    file: &str,
    traffic: &Traffic,
    bytes: Vec<Option<u64>>,
    missing: Missing,
) -> Result<Sizes, LoadError> {
    let absent = bytes.iter().filter(|b| b.is_none()).count();
    match missing {
        Missing::Error if absent > 0 => {
            let first = bytes.iter().position(Option::is_none).unwrap_or(0);
            Err(LoadError {
                file: file.to_string(),
                line: None,
                column: None,
                field: None,
                message: format!(
                    "{absent} of the {} transfers of model {:?} have no size, the first {:?}: \
                     give every pair a size, or --size BYTES for the pairs the file leaves out",
                    traffic.len(),
                    traffic.name(),
                    traffic.transfers()[first].id
                ),
            })
        }
        Missing::Error => Ok(Sizes {
            bytes: bytes.into_iter().map(|b| b.unwrap_or(0)).collect(),
            defaulted: 0,
        }),
        Missing::Default(d) => Ok(Sizes {
            bytes: bytes.into_iter().map(|b| b.unwrap_or(d)).collect(),
            defaulted: absent,
        }),
    }
}

/// A line's fields, each with its 1-based column ([`split_fields`]).
type Fields<'a> = Vec<(usize, Cow<'a, str>)>;

/// The fields of one CSV line (RFC 4180 without line breaks inside a field), each with
/// its 1-based column: split at the commas outside double quotes, spaces around a field
/// dropped; a field in double quotes is its text between them, `""` standing for one
/// quote. An unterminated quote or text after a closing quote is an error at its column.
fn split_fields(raw: &str) -> Result<Fields<'_>, (usize, String)> {
    let mut fields = Vec::new();
    let mut chars = raw.char_indices().peekable();
    loop {
        while chars.next_if(|&(_, c)| c == ' ' || c == '\t').is_some() {}
        let start = chars.peek().map_or(raw.len(), |&(i, _)| i);
        let col = raw[..start].chars().count() + 1;
        let value = if chars.next_if(|&(_, c)| c == '"').is_some() {
            let mut value = String::new();
            loop {
                match chars.next() {
                    Some((_, '"')) if chars.next_if(|&(_, c)| c == '"').is_some() => {
                        value.push('"')
                    }
                    Some((_, '"')) => break,
                    Some((_, c)) => value.push(c),
                    None => {
                        return Err((
                            col,
                            "a quoted field has no closing quote on its line".into(),
                        ))
                    }
                }
            }
            while chars
                .next_if(|&(_, c)| c == ' ' || c == '\t' || c == '\r')
                .is_some()
            {}
            if let Some(&(i, c)) = chars.peek().filter(|&&(_, c)| c != ',') {
                return Err((
                    raw[..i].chars().count() + 1,
                    format!("{c:?} after a closing quote: a quoted field ends at a comma"),
                ));
            }
            Cow::Owned(value)
        } else {
            while chars.next_if(|&(_, c)| c != ',').is_some() {}
            let end = chars.peek().map_or(raw.len(), |&(i, _)| i);
            Cow::Borrowed(raw[start..end].trim_end())
        };
        fields.push((col, value));
        if chars.next().is_none() {
            return Ok(fields);
        }
    }
}

/// `name` as one CSV field: in double quotes (each quote doubled) when it has a comma, a
/// quote or spaces at an end, so that [`parse_csv`] reads it back unchanged.
fn csv_field(name: &str) -> Cow<'_, str> {
    if name.contains([',', '"']) || name.trim() != name {
        format!("\"{}\"", name.replace('"', "\"\"")).into()
    } else {
        name.into()
    }
}

/// The sizes as CSV (`src,dst,bytes`, a header, then one line per transfer in model
/// order), which [`parse_csv`] reads back. Transfers without both end hosts cannot be
/// written as pairs: `None` then.
pub fn to_csv(traffic: &Traffic, bytes: &[u64]) -> Option<String> {
    let mut out = String::with_capacity(traffic.len() * 16 + 16);
    out.push_str("src,dst,bytes\n");
    for (t, &b) in traffic.transfers().iter().zip(bytes) {
        let (Some(a), Some(c)) = (t.from.as_deref(), t.to.as_deref()) else {
            return None;
        };
        out.push_str(&format!("{},{},{b}\n", csv_field(a), csv_field(c)));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Traffic {
        liquid_topology::spec::traffic("two-clusters:2,2")
            .expect("spec")
            .expect("a spec")
    }

    fn csv(text: &str, missing: Missing) -> Result<Sizes, String> {
        parse_csv("s.csv", text, &model(), missing).map_err(|e| e.to_string())
    }

    #[test]
    fn csv_with_and_without_header_names_and_indices() {
        let m = model();
        let all: String = m
            .transfers()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format!(
                    "{},{},{}\n",
                    t.from.as_deref().expect("from"),
                    t.to.as_deref().expect("to"),
                    i + 1
                )
            })
            .collect();
        let a = csv(&all, Missing::Error).expect("reads");
        let b = csv(&format!("src,dst,bytes\n{all}"), Missing::Error).expect("reads");
        assert_eq!(a, b);
        assert_eq!(a.bytes, (1..=12).collect::<Vec<u64>>());
        // Indices: hosts a0, a1, b0, b1 in order of appearance.
        assert_eq!(hosts(&m), ["a0", "a1", "b0", "b1"]);
        let s = csv("0,2,7\n", Missing::Default(5)).expect("reads");
        let t = m.find_transfer("a0->b0").expect("transfer");
        assert_eq!(s.bytes[t.index()], 7);
        assert_eq!(s.defaulted, 11);
        assert_eq!(
            to_csv(&m, &a.bytes).map(|c| csv(&c, Missing::Error)),
            Some(Ok(a))
        );
    }

    #[test]
    fn csv_errors_name_line_and_field() {
        let cases = [
            ("a0,b0,1\nzz,b0,2\n", "s.csv:2:1: src: no host \"zz\""),
            ("a0,b0,1\na0,b9,2\n", "s.csv:2:4: dst: no host \"b9\""),
            (
                "a0,a0,1\n",
                "s.csv:1:1: src,dst: a0 -> a0 is not a transfer",
            ),
            (
                "a0,b0,1\n\na0,b0,2\n",
                "s.csv:3:1: src,dst: a0 -> b0 is given twice (first on line 1)",
            ),
            ("a0,b0,0\n", "s.csv:1:7: bytes: 0 bytes"),
            (
                "a0,b0,-3\n",
                "s.csv:1:7: bytes: \"-3\" is not a positive whole number",
            ),
            (
                "a0,b0,1.5\n",
                "s.csv:1:7: bytes: \"1.5\" is not a positive whole number",
            ),
            ("a0,b0\n", "s.csv:1:1: src,dst,bytes: 2 fields"),
            (
                "a0,b0,99999999999999999999\n",
                "s.csv:1:7: bytes: 99999999999999999999 bytes is more than",
            ),
            (
                "a0,b0,18446744073709551615\n",
                "s.csv:1:7: bytes: 18446744073709551615 bytes is more than 9007199254740992 (2^53",
            ),
            (
                "a0,b0,9007199254740993\n",
                "s.csv:1:7: bytes: 9007199254740993 bytes is more than",
            ),
        ];
        for (text, want) in cases {
            let got = csv(text, Missing::Default(1)).expect_err(text);
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
        // Each size at most 2^53, and each link's total too.
        let got = csv("a0,b0,1\n", Missing::Default(MAX_BYTES)).expect_err("link total");
        assert!(
            got.starts_with("s.csv: link ")
                && got.contains("bytes in all, more than 9007199254740992"),
            "{got}"
        );
        let got = csv("a0,b0,3\n", Missing::Error).expect_err("missing");
        assert!(
            got.starts_with("s.csv: 11 of the 12 transfers of model \"two-clusters-2-2\" have no size, the first \"a0->a1\""),
            "{got}"
        );
    }

    /// What spreadsheets and pandas write: a byte order mark, CRLF line ends, quoted
    /// fields (a quote doubled inside), spaces around fields; and the errors of a bad quote.
    #[test]
    fn csv_as_spreadsheets_write_it() {
        let m = model();
        let t = m.find_transfer("a0->b0").expect("transfer").index();
        let u = m.find_transfer("b1->a1").expect("transfer").index();
        for text in [
            "\u{feff}src,dst,bytes\r\na0,b0,7\r\nb1,a1,9\r\n",
            "\"src\",\"dst\",\"bytes\"\n\"a0\",\"b0\",\"7\"\n \"b1\" , a1 ,9\n",
            "\u{feff}a0,b0,7\nb1,\"a1\",9",
        ] {
            // Through a file, as liquid reads it: `read_text` drops the byte order mark.
            let dir = std::env::temp_dir().join(format!("liquid-sizes-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let path = dir.join("s.csv");
            std::fs::write(&path, text).expect("write");
            let got = load(&path, &m, Missing::Default(1)).expect(text);
            std::fs::remove_dir_all(&dir).ok();
            assert_eq!(
                (got.bytes[t], got.bytes[u], got.defaulted),
                (7, 9, 10),
                "{text:?}"
            );
        }
        assert_eq!(
            split_fields(r#"x, "a ""b"", c" ,3"#),
            Ok(vec![
                (1, "x".into()),
                (4, r#"a "b", c"#.into()),
                (18, "3".into())
            ])
        );
        for (text, want) in [
            (
                "a0,\"b0,7\n",
                "s.csv:1:4: src,dst,bytes: a quoted field has no closing quote",
            ),
            (
                "\"a0\"x,b0,7\n",
                "s.csv:1:5: src,dst,bytes: 'x' after a closing quote",
            ),
            ("a0,\"b9\",7\n", "s.csv:1:4: dst: no host \"b9\""),
        ] {
            let got = csv(text, Missing::Default(1)).expect_err(text);
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
        for name in ["a,b", "say \"hi\"", " x", "plain"] {
            let f = csv_field(name);
            assert_eq!(split_fields(&format!("{f},1")).expect("splits")[0].1, name);
        }
    }

    #[test]
    fn yaml_sizes_must_be_positive_whole_bytes() {
        let m = model();
        let ok = parse_yaml("s.yaml", "a0->b0: 10\n", &m, Missing::Default(1)).expect("reads");
        assert_eq!(ok.bytes.iter().sum::<u64>(), 21);
        for (text, want) in [
            (
                "a0->b0: 1.5\n",
                "s.yaml:1:9: a0->b0: \"1.5\" is not a positive whole number of bytes (digits only)",
            ),
            (
                "a0->b0: 1e3\n",
                "s.yaml:1:9: a0->b0: \"1e3\" is not a positive whole number of bytes (digits only)",
            ),
            (
                "a0->b0: 100.0\n",
                "s.yaml:1:9: a0->b0: \"100.0\" is not a positive whole",
            ),
            (
                "a0->b0: -1\n",
                "s.yaml:1:9: a0->b0: \"-1\" is not a positive whole",
            ),
            ("a0->b0: 0\n", "s.yaml:1:9: a0->b0: 0 bytes: every message"),
            (
                "a0->b0: [1]\n",
                "s.yaml:1:9: a0->b0: invalid type: sequence, expected a whole number of bytes",
            ),
            (
                "a0->b0: 1\nzz: 2\n",
                "s.yaml:2:5: zz: transfer \"zz\" is not in model",
            ),
        ] {
            let got = parse_yaml("s.yaml", text, &m, Missing::Default(1))
                .expect_err(text)
                .to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
        // Whole numbers are read exactly, up to MAX_BYTES = 2^53 (the other transfers of
        // the message's links at 0 here, so that no link's total is above it); above it,
        // refused with the number as written (not rounded to a float's).
        let max = parse_yaml(
            "s.yaml",
            "a0->b0: 9007199254740992\n",
            &m,
            Missing::Default(0),
        )
        .expect("reads");
        assert_eq!(max.bytes.iter().max(), Some(&MAX_BYTES));
        let got = parse_yaml(
            "s.yaml",
            "a0->b0: 9007199254740993\n",
            &m,
            Missing::Default(1),
        )
        .expect_err("above 2^53")
        .to_string();
        assert!(
            got.starts_with(
                "s.yaml:1:9: a0->b0: 9007199254740993 bytes is more than 9007199254740992 (2^53"
            ),
            "{got}"
        );
        let got = parse_yaml("s.yaml", "a0->b0: 1\n", &m, Missing::Error)
            .expect_err("missing")
            .to_string();
        assert!(got.contains("11 of the 12 transfers"), "{got}");
    }

    #[test]
    fn byte_counts_with_units() {
        assert_eq!(parse_byte_count("4096"), Ok(4096));
        assert_eq!(parse_byte_count("64KiB"), Ok(65536));
        assert_eq!(parse_byte_count("64MiB"), Ok(64 << 20));
        assert_eq!(parse_byte_count("1MB"), Ok(1_000_000));
        assert!(parse_byte_count("0").is_err());
        assert!(parse_byte_count("1.5KiB").is_err());
        for s in ["1.5", "1e6", "1E+3", "1,5"] {
            let e = parse_byte_count(s).expect_err(s);
            assert!(
                e.ends_with(
                    "is not a whole number of bytes (like 4096 or 64KiB; no fraction of a \
                     unit, no exponent)"
                ),
                "{e}"
            );
        }
        assert!(parse_byte_count("3 parsecs").is_err());
        assert!(parse_byte_count("99999999999GiB").is_err());
        assert_eq!(parse_byte_count("8388608GiB"), Ok(MAX_BYTES));
        // A sign, a fraction of a unit, and digits past u64 say what they are.
        let e = parse_byte_count("-1").expect_err("negative");
        assert!(e.contains("without a sign"), "{e}");
        let e = parse_byte_count("1.5KB").expect_err("a fraction");
        assert!(e.contains("no fraction of a unit"), "{e}");
        let e = parse_byte_count("18446744073709551616").expect_err("past u64");
        assert!(e.contains("is more than 9007199254740992"), "{e}");
        assert!(parse_byte_count("8388609GiB").is_err());
        assert!(parse_byte_count("9007199254740993").is_err());
    }

    #[test]
    fn the_format_is_found_by_content() {
        assert!(looks_like_csv("# sizes\n\nsrc,dst,bytes\n"));
        assert!(!looks_like_csv("a->b: 1\n"));
        assert!(!looks_like_csv("{a: 1, b: 2}\n"));
    }
}
