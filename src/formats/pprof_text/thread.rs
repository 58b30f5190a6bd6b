//! C++ thread profiles (`parseThread`, `parseThreadSample` of
//! `google/pprof:profile/legacy_profile.go`): an optional `--- threadz N ---` header, then one
//! `--- Thread ID (name: NAME/TID) stack: ---` block per thread whose lines hold the stack's
//! addresses (every `0x…` number on them, the `PC:` leaf and the `creator:` stack alike), or
//! `[same as previous thread]` (the previous sample counts one more thread). Each block is a
//! sample with value 1 of type `thread`/count. Addresses but the leaf are return addresses
//! (minus one); a leaf repeated as the second address is dropped (`cleanupDuplicateLocations`).

use std::iter::Peekable;

use super::collect::{Adjust, Collector};
use super::lines::{shorten, Line, Lines};
use super::{err, is_memory_map_sentinel, read_trailer, End, FORMAT};
use crate::formats::ReadError;

/// True for `--- threadz N ---` or a `--- Thread … stack: ---` line.
pub(super) fn is_header(text: &str) -> bool {
    is_threadz(text) || is_thread_start(text)
}

fn is_threadz(text: &str) -> bool {
    text.trim()
        .strip_prefix("--- threadz ")
        .and_then(|r| r.strip_suffix(" ---"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `--- Thread HEX (name: NAME/TID) stack: ---`.
fn is_thread_start(text: &str) -> bool {
    let Some(rest) = text.trim().strip_prefix("--- Thread ") else {
        return false;
    };
    let Some((id, rest)) = rest.split_once(' ') else {
        return false;
    };
    let Some(inner) = rest
        .strip_prefix("(name: ")
        .and_then(|r| r.strip_suffix(") stack: ---"))
    else {
        return false;
    };
    let tid_ok = inner
        .rsplit_once('/')
        .is_some_and(|(_, tid)| !tid.is_empty() && tid.bytes().all(|b| b.is_ascii_digit()));
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()) && tid_ok
}

/// Reads a thread profile from its header line.
pub(super) fn read<'a>(
    lines: &mut Peekable<Lines<'a>>,
    header: Line<'a>,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    c.period("thread", "count", 1);
    c.sample_types(&[("thread", "count")]);
    let mut current = Some(header);
    if is_threadz(header.text) {
        // Up to the first thread (a line starting with `-`) or a memory map.
        current = lines
            .by_ref()
            .find(|l| is_memory_map_sentinel(l.text) || l.text.starts_with('-'));
    }
    let mut raw = Vec::new();
    let mut seen = 0usize;
    while let Some(line) = current {
        if is_memory_map_sentinel(line.text) {
            warn_names(c, seen);
            return read_trailer(lines, c, End::MemoryMap);
        }
        if line.text.starts_with("---- no stack trace for") {
            warn_names(c, seen);
            return read_trailer(lines, c, End::Section(line));
        }
        if !is_thread_start(line.text) {
            return Err(err(
                line.number,
                format!(
                    "expected `--- Thread ID (name: NAME/TID) stack: ---`, found {:?}",
                    shorten(line.text.trim())
                ),
            ));
        }
        seen += 1;
        let (next, same_as_previous) = read_stack(lines, &mut raw)?;
        current = next;
        if same_as_previous || raw.is_empty() {
            c.bump_last_record();
            continue;
        }
        if raw.len() > 1 && raw.first() == raw.get(1) {
            raw.remove(1);
        }
        c.record(line.number, &[1.0], &raw, Adjust::AllButLeaf)?;
    }
    warn_names(c, seen);
    Ok(())
}

fn warn_names(c: &mut Collector<'_>, threads: usize) {
    if threads > 0 {
        c.warnings.add(FORMAT, "thread-names", || {
            "thread ids and names (`--- Thread ID (name: …)`) are not kept, as go tool pprof \
             does not keep them"
                .to_owned()
        });
    }
}

/// The addresses of one thread's block, up to the next `---` line (returned) or the end.
/// True when the block says `same as previous thread`.
fn read_stack<'a>(
    lines: &mut Peekable<Lines<'a>>,
    raw: &mut Vec<u64>,
) -> Result<(Option<Line<'a>>, bool), ReadError> {
    raw.clear();
    let mut same = false;
    for line in lines.by_ref() {
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("---") {
            return Ok((Some(line), same));
        }
        if t.contains("same as previous thread") {
            same = true;
            continue;
        }
        hex_numbers(t, raw).map_err(|m| err(line.number, format!("thread stack: {m}")))?;
    }
    Ok((None, same))
}

/// Every `0x` + lowercase hex digits in `text` (pprof's `0x[0-9a-f]+`, found anywhere).
fn hex_numbers(text: &str, out: &mut Vec<u64>) -> Result<(), String> {
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        let after = rest.get(at + 2..).unwrap_or("");
        let len = after
            .find(|ch: char| !matches!(ch, '0'..='9' | 'a'..='f'))
            .unwrap_or(after.len());
        let digits = after.get(..len).unwrap_or("");
        if !digits.is_empty() {
            let v = u64::from_str_radix(digits, 16)
                .map_err(|_| format!("address 0x{} does not fit in 64 bits", shorten(digits)))?;
            out.push(v);
        }
        rest = after.get(len..).unwrap_or("");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_numbers() {
        assert!(is_header("--- threadz 1 ---"));
        assert!(is_header(
            "--- Thread 7f794ab90940 (name: main/14748) stack: ---"
        ));
        assert!(!is_header("--- Thread x (name: main) stack: ---"));
        let mut v = Vec::new();
        hex_numbers(
            "PC:  0x00bc8f1c: helper(arg *) creator: 0xa45b96 0xA1",
            &mut v,
        )
        .unwrap();
        assert_eq!(v, [0xbc_8f1c, 0xa4_5b96]);
    }
}
