//! The comment lines Go's runtime/pprof writes under a record (`printStackRecord`): one
//! `#\tPC\tfunction+0xOFFSET\tfile:line` line per frame, or `#\tPC` for a frame it cannot
//! name, and `# labels: {"key":"value", …}` in goroutine profiles.
//!
//! The PC of a `#` line is the frame's `runtime.Frame.PC`: the record's return address minus
//! one for a frame inside a function, the address itself for a function entry or a cgo frame.
//! Leading runtime frames are not listed (nor `runtime.goexit`), and several lines with the
//! same PC are one address's inline chain, innermost first.

use crate::hash::HashMap;

use super::lines::parse_address;

/// One frame named by a `#` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Frame<'a> {
    /// The function name, without the `+0x…` offset.
    pub name: &'a str,
    /// The source file (may be empty).
    pub file: &'a str,
    /// The line number (0 when unknown).
    pub line: i32,
}

/// A parsed `#` symbol line: the PC and the frame it names (`None` for a bare `#\tPC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SymbolLine<'a> {
    pub pc: u64,
    pub frame: Option<Frame<'a>>,
}

/// The symbol line in `text` (a whole line starting with `#`), or `None` when the comment is
/// not one (its first word is not a `0x…` number).
pub(super) fn parse_symbol_line(text: &str) -> Option<SymbolLine<'_>> {
    let body = text.trim_start().strip_prefix('#')?;
    let (pc, rest) = next_cell(body);
    let pc = parse_address(pc).ok()?;
    let (name, rest) = next_cell(rest);
    if name.is_empty() {
        return Some(SymbolLine { pc, frame: None });
    }
    let (file, line) = split_file_line(rest.trim());
    Some(SymbolLine {
        pc,
        frame: Some(Frame {
            name: strip_offset(name),
            file,
            line,
        }),
    })
}

/// The next cell of a symbol line and the rest: cells are separated by tabs (runs of them,
/// as Go's tabwriter pads), or by blanks in a line without tabs.
fn next_cell(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = if s.contains('\t') {
        s.find('\t')
    } else {
        s.find(char::is_whitespace)
    };
    match end {
        Some(i) => (s.get(..i).unwrap_or(s).trim_end(), s.get(i..).unwrap_or("")),
        None => (s.trim_end(), ""),
    }
}

/// `function+0x1f` → `function`.
fn strip_offset(name: &str) -> &str {
    match name.rsplit_once("+0x") {
        Some((f, off)) if !f.is_empty() && !off.is_empty() => {
            if off.bytes().all(|b| b.is_ascii_hexdigit()) {
                f
            } else {
                name
            }
        }
        _ => name,
    }
}

/// `file.go:12` → (`file.go`, 12); a cell without a usable line number is all file name.
fn split_file_line(cell: &str) -> (&str, i32) {
    match cell.rsplit_once(':') {
        Some((file, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => {
            match line.parse::<i32>() {
                Ok(n) => (file, n),
                Err(_) => (cell, 0),
            }
        }
        _ => (cell, 0),
    }
}

/// The symbol lines of one record grouped into chains (consecutive lines with one PC).
pub(super) struct Chain<'a> {
    pub pc: u64,
    /// Frames innermost first; empty for a bare `#\tPC`.
    pub frames: Vec<Frame<'a>>,
    /// Line number of the chain's first `#` line.
    pub line: usize,
}

/// Groups a record's symbol lines into chains.
pub(super) fn chains<'a>(lines: &[(usize, SymbolLine<'a>)]) -> Vec<Chain<'a>> {
    let mut out: Vec<Chain<'a>> = Vec::new();
    for &(number, s) in lines {
        match out.last_mut() {
            Some(c) if c.pc == s.pc => c.frames.extend(s.frame),
            _ => out.push(Chain {
                pc: s.pc,
                frames: s.frame.into_iter().collect(),
                line: number,
            }),
        }
    }
    out
}

/// The position in `addresses` (a record's raw return addresses, leaf first) each chain
/// names, in order: the first position at or after the previous match whose address minus one
/// is the chain's PC, else whose address is the PC. `None` for a chain that matches none.
pub(super) fn match_chains(addresses: &[u64], chains: &[Chain<'_>]) -> Vec<Option<usize>> {
    if chains.is_empty() {
        return Vec::new();
    }
    let mut call_sites: HashMap<u64, Vec<usize>> = HashMap::default();
    let mut exact: HashMap<u64, Vec<usize>> = HashMap::default();
    for (i, &a) in addresses.iter().enumerate() {
        call_sites.entry(a.wrapping_sub(1)).or_default().push(i);
        exact.entry(a).or_default().push(i);
    }
    let first_from = |map: &HashMap<u64, Vec<usize>>, pc: u64, from: usize| {
        let positions = map.get(&pc)?;
        let k = positions.partition_point(|&p| p < from);
        positions.get(k).copied()
    };
    let mut from = 0;
    chains
        .iter()
        .map(|c| {
            let found =
                first_from(&call_sites, c.pc, from).or_else(|| first_from(&exact, c.pc, from));
            if let Some(p) = found {
                from = p + 1;
            }
            found
        })
        .collect()
}

/// The pairs of a `# labels: {"k":"v", …}` line (Go's `labelMap.String`, `%q`-quoted), or
/// `None` when `text` is not such a line or cannot be read.
pub(super) fn parse_labels(text: &str) -> Option<Vec<(String, String)>> {
    let body = text.trim().strip_prefix('#')?.trim_start();
    let map = body.strip_prefix("labels:")?.trim();
    let mut rest = map.strip_prefix('{')?.strip_suffix('}')?.trim();
    let mut pairs = Vec::new();
    while !rest.is_empty() {
        let (key, after) = unquote(rest)?;
        let after = after.trim_start().strip_prefix(':')?.trim_start();
        let (value, after) = unquote(after)?;
        pairs.push((key, value));
        rest = after.trim_start();
        if let Some(next) = rest.strip_prefix(',') {
            rest = next.trim_start();
            if rest.is_empty() {
                return None;
            }
        } else if !rest.is_empty() {
            return None;
        }
    }
    Some(pairs)
}

/// A Go `%q` string at the start of `s` and the text after it.
fn unquote(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut bytes: Vec<u8> = Vec::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                return Some((text, body.get(i + 1..)?));
            }
            '\\' => {
                let (_, e) = chars.next()?;
                let simple = match e {
                    'a' => Some(7u8),
                    'b' => Some(8),
                    'f' => Some(12),
                    'n' => Some(b'\n'),
                    'r' => Some(b'\r'),
                    't' => Some(b'\t'),
                    'v' => Some(11),
                    '\\' => Some(b'\\'),
                    '"' => Some(b'"'),
                    '\'' => Some(b'\''),
                    _ => None,
                };
                if let Some(b) = simple {
                    bytes.push(b);
                    continue;
                }
                let digits = match e {
                    'x' => 2,
                    'u' => 4,
                    'U' => 8,
                    _ => return None,
                };
                let mut value = 0u32;
                for _ in 0..digits {
                    let (_, h) = chars.next()?;
                    value = value * 16 + h.to_digit(16)?;
                }
                if e == 'x' {
                    bytes.push(u8::try_from(value).ok()?);
                } else {
                    let mut buf = [0u8; 4];
                    bytes
                        .extend_from_slice(char::from_u32(value)?.encode_utf8(&mut buf).as_bytes());
                }
            }
            _ => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_lines() {
        let s = parse_symbol_line(
            "#\t0x4b692f\tsync.(*Mutex).Unlock+0x6f\t/usr/lib/go/src/sync/mutex.go:223",
        )
        .unwrap();
        assert_eq!(s.pc, 0x4b_692f);
        assert_eq!(
            s.frame,
            Some(Frame {
                name: "sync.(*Mutex).Unlock",
                file: "/usr/lib/go/src/sync/mutex.go",
                line: 223
            })
        );
        let bare = parse_symbol_line("#\t0x0").unwrap();
        assert_eq!((bare.pc, bare.frame), (0, None));
        let padded = parse_symbol_line("#\t0x45ce24\tmain.f+0x24\t\t\t/a b/c.go:846").unwrap();
        assert_eq!(padded.frame.unwrap().file, "/a b/c.go");
        let spaces = parse_symbol_line("# 0x10 main.g+0x3 /x/y.go:7").unwrap();
        assert_eq!(spaces.frame.unwrap().name, "main.g");
        assert_eq!(spaces.frame.unwrap().line, 7);
        assert!(parse_symbol_line("# runtime.MemStats").is_none());
        assert!(parse_symbol_line("# Alloc = 5").is_none());
    }

    #[test]
    fn chains_match_return_addresses() {
        let lines: Vec<(usize, SymbolLine)> = [(0x4b6ea4u64, "inner"), (0x4b6ea5, "outer")]
            .iter()
            .enumerate()
            .map(|(i, &(pc, name))| {
                let frame = Frame {
                    name,
                    file: "",
                    line: 0,
                };
                (
                    i,
                    SymbolLine {
                        pc,
                        frame: Some(frame),
                    },
                )
            })
            .collect();
        let c = chains(&lines);
        assert_eq!(c.len(), 2);
        // A hidden runtime frame first, then the two inline-expanded return addresses.
        let m = match_chains(&[0x1000, 0x4b6ea5, 0x4b6ea6, 0x2000], &c);
        assert_eq!(m, [Some(1), Some(2)]);
        // A PC that no address has.
        let lost = chains(&[(0, SymbolLine { pc: 7, frame: None })]);
        assert_eq!(match_chains(&[0x10], &lost), [None]);
    }

    #[test]
    fn labels() {
        assert_eq!(
            parse_labels("# labels: {\"worker\":\"b\", \"k\\\"x\":\"\\u00e9\\n\"}").unwrap(),
            [
                ("worker".to_owned(), "b".to_owned()),
                ("k\"x".to_owned(), "é\n".to_owned())
            ]
        );
        assert_eq!(parse_labels("# labels: {}").unwrap(), []);
        assert!(parse_labels("# labels: {\"a\":}").is_none());
        assert!(parse_labels("# labels: {\"a\":\"b\",}").is_none());
        assert!(parse_labels("# other").is_none());
    }
}
