//! Memory maps after a legacy profile's records (`--- Memory map: ---` or
//! `MAPPED_LIBRARIES:`), and how pprof attaches mappings to locations
//! (`ParseMemoryMapFromScanner`, `parseMappingEntry`, `massageMappings`, `remapMappingIDs` of
//! `google/pprof:profile`): `/proc/self/maps` lines or brief `start-end: file` lines, with
//! `name=value` lines defining `$name` substitutions; non-executable entries are skipped,
//! adjacent pieces of one file merged, the main binary moved first; each location goes to the
//! mapping holding its address, else to a catch-all mapping `[0, 2^64)` (pprof's "fake"
//! mapping, which Go's legacy profiles, having no memory map, always get).

use std::iter::Peekable;
use std::sync::LazyLock;

use regex_lite::Regex;

use super::lines::Lines;
use super::FORMAT;
use crate::formats::Warnings;
use crate::hash::HashMap;

/// One mapping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Mapping {
    pub start: u64,
    pub limit: u64,
    pub offset: u64,
    pub file: String,
    pub build_id: String,
}

// pprof's regular expressions, piece by piece (`legacy_profile.go`).
const C_HEX: &str = r"(?:0x)?([[:xdigit:]]+)";
const SPACE_DIGITS: &str = r"\s+[[:digit:]]+";
const HEX_PAIR: &str = r"\s+[[:xdigit:]]+:[[:xdigit:]]+";
const C_PERM: &str = r"(?:\s+([-rwxp]+))?";
const C_SPACE_STRING: &str = r"(?:\s+(\S+))?";
const C_SPACE_HEX: &str = r"(?:\s+([[:xdigit:]]+))?";
const C_SPACE_AT_OFFSET: &str = r"(?:\s+\(@([[:xdigit:]]+)\))?";

fn hex_range() -> String {
    format!(r"\s*{C_HEX}[\s-]?\s*{C_HEX}:?")
}

/// `/proc/self/maps`: start-end perms offset dev inode file.
static PROC_MAPS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        "^{}{C_PERM}{C_SPACE_HEX}{HEX_PAIR}{SPACE_DIGITS}{C_SPACE_STRING}",
        hex_range()
    ))
    .ok()
});
/// Brief: start-end [perms] [file] [(@offset)] [build id].
static BRIEF_MAPS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        "^{}{C_PERM}{C_SPACE_STRING}{C_SPACE_AT_OFFSET}{C_SPACE_HEX}",
        hex_range()
    ))
    .ok()
});
/// A glog prefix (`… file:line] `), removed before matching.
static LOG_INFO: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[^\[\]]+:[0-9]+]\s").ok());

/// Library file names, never the main binary.
static LIBRARY: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"([.]so$|[.]so[._][0-9]+)").ok());

/// Reads the memory map lines up to the end of the input: its mappings, in pprof's order.
pub(super) fn read(lines: &mut Peekable<Lines<'_>>, warnings: &mut Warnings) -> Vec<Mapping> {
    let mut mappings = Vec::new();
    let mut substitutions = Substitutions::default();
    let mut ignored: Option<(usize, usize)> = None;
    for line in lines.by_ref() {
        let text = substitutions.apply(remove_logging_info(line.text));
        match parse_entry(&text) {
            Entry::Mapping(m) => mappings.push(m),
            Entry::NotExecutable => {}
            Entry::Unrecognized => {
                if let Some((key, value)) = text.split_once('=') {
                    substitutions.define(&format!("${}", key.trim()), value.trim());
                } else if !text.trim().is_empty() {
                    let (first, n) = ignored.unwrap_or((line.number, 0));
                    ignored = Some((first, n + 1));
                }
            }
        }
    }
    if let Some((first, n)) = ignored {
        warnings.add(FORMAT, "map-lines", || {
            format!(
                "line {first}: {n} lines of the memory map are not mapping entries; ignored, as \
                 go tool pprof does"
            )
        });
    }
    massage(mappings)
}

/// True when `line` may match [`PROC_MAPS`] or [`BRIEF_MAPS`]: both start with `\s*` and a hex
/// digit (`\s` is ASCII in regex-lite: tab, newline, vertical tab, form feed, carriage return,
/// space). regex-lite's PikeVM costs about a microsecond a byte, so the memory map of a file
/// that ends in kilobytes of other bytes (a truncated or damaged profile) is not matched line
/// by line against the expressions.
fn may_be_entry(line: &str) -> bool {
    line.bytes()
        .find(|b| !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' '))
        .is_some_and(|b| b.is_ascii_hexdigit())
}

fn remove_logging_info(line: &str) -> &str {
    // The prefix ends in `:DIGITS] ` (see [`LOG_INFO`]).
    if !line.contains(']') {
        return line;
    }
    match LOG_INFO.as_ref().and_then(|r| r.find(line)) {
        Some(m) => line.get(m.end()..).unwrap_or(line),
        None => line,
    }
}

/// The `$name` substitutions of a memory map (its `name=value` lines), applied as Go's
/// `strings.NewReplacer(old1, new1, …).Replace` applies them: at each position the name defined
/// first among those that start there is replaced. The names are kept in a byte trie, so a line
/// costs at most its length times the longest name, not its length times the number of names.
#[derive(Default)]
struct Substitutions {
    /// The trie; node 0 is the root (once a name is defined).
    nodes: Vec<TrieNode>,
}

/// A node of [`Substitutions`]: its children by byte and, when a name ends here, the order of
/// its first definition and its value.
#[derive(Default)]
struct TrieNode {
    children: HashMap<u8, usize>,
    value: Option<(usize, String)>,
}

impl Substitutions {
    /// Defines `name` as `value`; a name defined before keeps its first value (Go's priority).
    fn define(&mut self, name: &str, value: &str) {
        if self.nodes.is_empty() {
            self.nodes.push(TrieNode::default());
        }
        let order = self.nodes.len();
        let mut node = 0;
        for &b in name.as_bytes() {
            node = match self.nodes[node].children.get(&b) {
                Some(&child) => child,
                None => {
                    self.nodes.push(TrieNode::default());
                    let child = self.nodes.len() - 1;
                    self.nodes[node].children.insert(b, child);
                    child
                }
            };
        }
        self.nodes[node]
            .value
            .get_or_insert_with(|| (order, value.to_owned()));
    }

    /// The first-defined name that starts `text`: its length and value.
    fn lookup<'s>(&'s self, text: &str) -> Option<(usize, &'s str)> {
        let mut best: Option<(usize, usize, &str)> = None;
        let mut node = 0;
        for (i, b) in text.bytes().enumerate() {
            let Some(&child) = self.nodes.get(node).and_then(|n| n.children.get(&b)) else {
                break;
            };
            node = child;
            if let Some((order, value)) = &self.nodes[node].value {
                if best.is_none_or(|(o, _, _)| *order < o) {
                    best = Some((*order, i + 1, value));
                }
            }
        }
        best.map(|(_, len, value)| (len, value))
    }

    /// `line` with every substitution made.
    fn apply(&self, line: &str) -> String {
        if self.nodes.is_empty() || !line.contains('$') {
            return line.to_owned();
        }
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(ch) = rest.chars().next() {
            // A name matched byte by byte at a character boundary ends at one (both are UTF-8).
            if let Some((len, value)) = self.lookup(rest) {
                out.push_str(value);
                rest = rest.get(len..).unwrap_or("");
                continue;
            }
            out.push(ch);
            rest = rest.get(ch.len_utf8()..).unwrap_or("");
        }
        out
    }
}

/// What a memory map line is.
enum Entry {
    Mapping(Mapping),
    NotExecutable,
    Unrecognized,
}

fn parse_entry(line: &str) -> Entry {
    let group = |caps: &regex_lite::Captures<'_>, i: usize| {
        caps.get(i).map_or(String::new(), |m| m.as_str().to_owned())
    };
    if !may_be_entry(line) {
        return Entry::Unrecognized;
    }
    let (start, end, perm, offset, file, build_id) =
        if let Some(caps) = PROC_MAPS.as_ref().and_then(|r| r.captures(line)) {
            let g = |i| group(&caps, i);
            (g(1), g(2), g(3), g(4), g(5), String::new())
        } else if let Some(caps) = BRIEF_MAPS.as_ref().and_then(|r| r.captures(line)) {
            let g = |i| group(&caps, i);
            (g(1), g(2), g(3), g(5), g(4), g(6))
        } else {
            return Entry::Unrecognized;
        };
    if !perm.is_empty() && !perm.contains('x') {
        return Entry::NotExecutable;
    }
    let hex = |s: &str| u64::from_str_radix(s, 16).ok();
    let offset = if offset.is_empty() {
        Some(0)
    } else {
        hex(&offset)
    };
    match (hex(&start), hex(&end), offset) {
        (Some(start), Some(limit), Some(offset)) => Entry::Mapping(Mapping {
            start,
            limit,
            offset,
            file,
            build_id,
        }),
        _ => Entry::Unrecognized,
    }
}

/// `massageMappings`: merges adjacent pieces of one mapping and moves the main binary first.
fn massage(mappings: Vec<Mapping>) -> Vec<Mapping> {
    let mut merged: Vec<Mapping> = Vec::with_capacity(mappings.len());
    for m in mappings {
        match merged.last_mut() {
            Some(last) if adjacent(last, &m) => {
                last.limit = m.limit;
                if !m.file.is_empty() {
                    last.file = m.file;
                }
                if !m.build_id.is_empty() {
                    last.build_id = m.build_id;
                }
            }
            _ => merged.push(m),
        }
    }
    let main = merged.iter().position(|m| {
        let file = m.file.replace("(deleted)", "");
        let file = file.trim();
        !file.is_empty()
            && !LIBRARY.as_ref().is_some_and(|r| r.is_match(file))
            && !file.starts_with('[')
    });
    if let Some(i) = main {
        merged.swap(0, i);
    }
    merged
}

/// pprof's `adjacent`: one mapping split in two.
fn adjacent(a: &Mapping, b: &Mapping) -> bool {
    if !a.file.is_empty() && !b.file.is_empty() && a.file != b.file {
        return false;
    }
    if !a.build_id.is_empty() && !b.build_id.is_empty() && a.build_id != b.build_id {
        return false;
    }
    if a.limit != b.start {
        return false;
    }
    if a.offset != 0 && b.offset != 0 {
        let offset = a.offset.wrapping_add(a.limit.wrapping_sub(a.start));
        if offset != b.offset {
            return false;
        }
    }
    true
}

/// `remapMappingIDs`: the mapping of each address (in order of first use), fixing up the
/// mappings as pprof does, and adding the catch-all mapping when an address has none.
/// Address 0 has no mapping.
pub(super) fn assign(
    mut mappings: Vec<Mapping>,
    addresses: &[u64],
) -> (Vec<Mapping>, Vec<Option<usize>>) {
    if mappings.len() > 1 {
        let drop_first = match (mappings.first(), mappings.get(1)) {
            (Some(m0), Some(m1)) => m0.file.starts_with("/anon_hugepage") && m0.limit == m1.start,
            _ => false,
        };
        if drop_first {
            mappings.remove(0);
        }
    }
    const EXPECTED_START: u64 = 0x40_0000;
    if let Some(m) = mappings.first_mut() {
        if m.start.wrapping_sub(m.offset) == EXPECTED_START {
            m.start = EXPECTED_START;
            m.offset = 0;
        }
    }
    let mut fake: Option<usize> = None;
    let mut of = Vec::with_capacity(addresses.len());
    for &a in addresses {
        if a == 0 {
            of.push(None);
            continue;
        }
        if let Some(i) = mappings.iter().position(|m| m.start <= a && a < m.limit) {
            of.push(Some(i));
            continue;
        }
        let split = mappings
            .iter()
            .position(|m| m.offset != 0 && m.start.wrapping_sub(m.offset) <= a && a < m.start);
        if let Some(i) = split {
            if let Some(m) = mappings.get_mut(i) {
                m.start = m.start.wrapping_sub(m.offset);
                m.offset = 0;
            }
            of.push(Some(i));
            continue;
        }
        let i = *fake.get_or_insert_with(|| {
            mappings.push(Mapping {
                limit: u64::MAX,
                ..Mapping::default()
            });
            mappings.len() - 1
        });
        of.push(Some(i));
    }
    (mappings, of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(line: &str) -> Option<Mapping> {
        match parse_entry(line) {
            Entry::Mapping(m) => Some(m),
            _ => None,
        }
    }

    #[test]
    fn entries() {
        let m = entry("  00400000-00fcb000: cppbench_server_main").unwrap();
        assert_eq!(
            (m.start, m.limit, m.file.as_str()),
            (0x40_0000, 0xfc_b000, "cppbench_server_main")
        );
        let p = entry("7f5e5435e000-7f5e5455e000 r-xp 00001000 08:01 1234 /lib/libc.so.6").unwrap();
        assert_eq!((p.offset, p.file.as_str()), (0x1000, "/lib/libc.so.6"));
        assert!(matches!(
            parse_entry("7f5e5435e000-7f5e5455e000 rw-p 00000000 00:00 0"),
            Entry::NotExecutable
        ));
        assert!(matches!(parse_entry("hello"), Entry::Unrecognized));
        assert!(matches!(
            parse_entry("xy 1000-2000: a"),
            Entry::Unrecognized
        ));
        let m = entry("\u{b}\t 0x1000-0x2000: a").unwrap();
        assert_eq!((m.start, m.limit), (0x1000, 0x2000));
        assert_eq!(remove_logging_info("a.cc:12] 1-2: b"), "1-2: b");
        let mut subs = Substitutions::default();
        subs.define("$a", "1");
        subs.define("$b", "2");
        assert_eq!(subs.apply("$a-$b: $a"), "1-2: 1");
        // Go's priority: the name defined first wins, longer or not; a redefinition is ignored.
        subs.define("$ab", "3");
        subs.define("$a", "4");
        assert_eq!(subs.apply("$ab $a"), "1b 1");
        let mut subs = Substitutions::default();
        subs.define("$ab", "3");
        subs.define("$a", "1");
        assert_eq!(subs.apply("$ab$a$é"), "31$é");
    }

    #[test]
    fn assignment() {
        let maps = massage(vec![
            Mapping {
                start: 0x7000,
                limit: 0x8000,
                file: "/lib/libc.so.6".into(),
                ..Mapping::default()
            },
            Mapping {
                start: 0x40_0000,
                limit: 0x50_0000,
                file: "main".into(),
                ..Mapping::default()
            },
        ]);
        assert_eq!(maps[0].file, "main");
        let (maps, of) = assign(maps, &[0x40_0010, 0x7001, 0x1, 0]);
        assert_eq!(of, [Some(0), Some(1), Some(2), None]);
        assert_eq!(maps[2].limit, u64::MAX);
    }
}
