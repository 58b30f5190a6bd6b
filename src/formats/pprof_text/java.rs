//! Java heap and contention profiles (`google/pprof:profile/legacy_java_profile.go`,
//! `parseJavaProfile`): a `--- heapz 1 ---` or `--- contentionz 1 ---` header, `key = value`
//! attributes (`format = java`, `resolution = UNIT`, `sampling period = N`, `ms since
//! reset = N`), records `VALUE COUNT @ 0x… 0x…` (the count second), then location lines
//! `0xID function (File.java:LINE)` naming the ids.
//!
//! Heap values are unsampled at 512 KiB (`javaHeapzSamplingRate`); contention values are
//! multiplied by the sampling period. The ids are not addresses: pprof zeroes them, so no
//! `.address` is kept, and functions are identified by name (the first file named wins).

use crate::hash::HashMap;
use std::iter::Peekable;

use super::collect::{Adjust, Collector};
use super::heap::scale_heap_sample;
use super::lines::{parse_go_int, shorten, Cursor, Line, Lines};
use super::symbols::Frame;
use super::{err, FORMAT, META_ATTRIBUTE};
use crate::formats::ReadError;

/// pprof's `javaHeapzSamplingRate` (512 KiB).
const JAVA_HEAP_SAMPLING_RATE: i64 = 524_288;

/// Which Java profile.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Heap,
    Contention,
}

impl Kind {
    fn record_name(self) -> &'static str {
        match self {
            Kind::Heap => "Java heap record",
            Kind::Contention => "Java contention record",
        }
    }
}

/// Reads a Java profile after its header line.
pub(super) fn read<'a>(
    lines: &mut Peekable<Lines<'a>>,
    header: Line<'a>,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    let kind = if header.text.trim() == "--- heapz 1 ---" {
        Kind::Heap
    } else {
        Kind::Contention
    };
    c.keys_are_identifiers();
    let period = read_attributes(lines, kind, c)?;
    read_samples(lines, kind, period, c)?;
    read_locations(lines, c)
}

/// The `key = value` lines; returns the sampling period (0 when not given).
fn read_attributes<'a>(
    lines: &mut Peekable<Lines<'a>>,
    kind: Kind,
    c: &mut Collector<'a>,
) -> Result<i64, ReadError> {
    let mut period = 0;
    while let Some(&line) = lines.peek() {
        let t = line.text.trim();
        if t.is_empty() {
            lines.next();
            continue;
        }
        let Some((key, value)) = split_attribute(t) else {
            break;
        };
        lines.next();
        let int = || {
            parse_go_int(value).ok_or_else(|| {
                err(
                    line.number,
                    format!("attribute `{key}`: {:?} is not an integer", shorten(value)),
                )
            })
        };
        match (kind, key) {
            (_, "format") if value == "java" => {}
            (_, "format") => {
                return Err(err(
                    line.number,
                    format!(
                        "`format = {}`: a profile with this header must be `format = java` \
                         (pprof's Java heapz/contentionz format)",
                        shorten(value)
                    ),
                ))
            }
            (Kind::Heap, "resolution") => {
                c.sample_types(&[("inuse_objects", "count"), ("inuse_space", value)]);
            }
            (Kind::Contention, "resolution") => {
                c.sample_types(&[("contentions", "count"), ("delay", value)]);
            }
            (Kind::Contention, "sampling period") => {
                period = int()?;
                c.period("contentions", "count", period);
            }
            (Kind::Contention, "ms since reset") => {
                c.duration_nanos(int()?.saturating_mul(1_000_000));
            }
            _ => {
                c.warnings.add(FORMAT, "attribute", || {
                    format!(
                        "line {}: attribute `{key}` is unknown (go tool pprof refuses the \
                         file); kept in meta {META_ATTRIBUTE}",
                        line.number
                    )
                });
                c.b.add_meta(META_ATTRIBUTE, &format!("{key}={value}"));
            }
        }
    }
    Ok(period)
}

/// `key = value` with words and blanks on both sides (pprof's `([\w ]+)=([\w ]+)`).
fn split_attribute(t: &str) -> Option<(&str, &str)> {
    let (key, value) = t.split_once('=')?;
    let wordy = |s: &str| {
        !s.trim().is_empty()
            && s.chars()
                .all(|ch| ch == ' ' || ch == '_' || ch.is_alphanumeric())
    };
    (wordy(key) && wordy(value)).then(|| (key.trim(), value.trim()))
}

/// The records, up to the first line that is not one.
fn read_samples<'a>(
    lines: &mut Peekable<Lines<'a>>,
    kind: Kind,
    period: i64,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    let mut raw = Vec::new();
    while let Some(&line) = lines.peek() {
        let t = line.text.trim();
        if t.is_empty() {
            lines.next();
            continue;
        }
        let starts_with_number = t
            .split_whitespace()
            .next()
            .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()));
        if !starts_with_number {
            break;
        }
        lines.next();
        sample(line, kind, period, &mut raw, c)
            .map_err(|m| err(line.number, format!("{}: {m}", kind.record_name())))?;
    }
    Ok(())
}

/// `VALUE COUNT @ 0x… 0x…`.
fn sample(
    line: Line<'_>,
    kind: Kind,
    period: i64,
    raw: &mut Vec<u64>,
    c: &mut Collector<'_>,
) -> Result<(), String> {
    let mut cur = Cursor::new(line.text.trim());
    let first = java_int(cur.name(), "the first value")?;
    let count = java_int(cur.name(), "the second value (the count)")?;
    cur.expect(
        "@",
        "the second value (records read `VALUE COUNT @ 0x… 0x…`)",
    )?;
    let mut block_size = None;
    let values = match kind {
        Kind::Heap => {
            if count == 0 {
                return Err("the second value (the object count) must be non-zero".to_owned());
            }
            block_size = Some(first.wrapping_div(count));
            scale_heap_sample(count, first, JAVA_HEAP_SAMPLING_RATE)
        }
        Kind::Contention if period != 0 => {
            let overflow = || "a value times the sampling period does not fit in 64 bits";
            [
                count.checked_mul(period).ok_or_else(overflow)? as f64,
                first.checked_mul(period).ok_or_else(overflow)? as f64,
            ]
        }
        Kind::Contention => [count as f64, first as f64],
    };
    if !c.has_sample_types() {
        return Err(
            "no `resolution` attribute before the records, so the value types are unknown \
             (go tool pprof: missing sample type information)"
                .to_owned(),
        );
    }
    c.record_addresses(line.number, &values, cur.rest(), raw, Adjust::None)?;
    if let Some(size) = block_size {
        c.num_label("bytes", size as f64);
    }
    Ok(())
}

/// A record number (digits, read as Go's `strconv.ParseInt(s, 0, 64)`).
fn java_int(word: &str, what: &str) -> Result<i64, String> {
    if word.is_empty() {
        return Err(format!("{what} is missing"));
    }
    word.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| parse_go_int(word))
        .flatten()
        .ok_or_else(|| format!("{what} {:?} is not an integer", shorten(word)))
}

/// The location lines: `0xID description`; other lines are ignored (with a warning).
pub(super) fn read_locations<'a>(
    lines: &mut Peekable<Lines<'a>>,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    // Functions are identified by name: the first file named for a name is kept.
    let mut files: HashMap<&'a str, &'a str> = HashMap::default();
    for line in lines.by_ref() {
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        let Some((id, description)) = split_location(t) else {
            c.warnings.add(FORMAT, "java-line", || {
                format!(
                    "line {}: {:?} is neither a record nor a location line `0xID name`; \
                     ignored, as go tool pprof does",
                    line.number,
                    shorten(t)
                )
            });
            continue;
        };
        let id = u64::from_str_radix(id, 16).map_err(|_| {
            err(
                line.number,
                format!("location id 0x{} does not fit in 64 bits", shorten(id)),
            )
        })?;
        let (name, file, number) = describe(description);
        let number = i32::try_from(number).unwrap_or_else(|_| {
            c.warnings.add(FORMAT, "java-line-number", || {
                format!(
                    "line {}: line number {number} is too large; kept as 0",
                    line.number
                )
            });
            0
        });
        let file = *files.entry(name).or_insert(file);
        c.name_location(
            id,
            line.number,
            Frame {
                name,
                file,
                line: number,
            },
        );
    }
    Ok(())
}

/// `0xHEX description` → (HEX, description).
fn split_location(t: &str) -> Option<(&str, &str)> {
    let rest = t.strip_prefix("0x")?;
    let end = rest
        .find(|ch: char| !ch.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    let (hex, description) = rest.split_at(end);
    let description = description
        .strip_prefix(|ch: char| ch.is_ascii_whitespace())?
        .trim();
    (!hex.is_empty() && !description.is_empty()).then_some((hex, description))
}

/// A location description as pprof reads it: `function (file:line)`, `function (path)` (the
/// file is the path's last element), a JIT stub (`STUB`), or a name alone (`GC`, `VM`).
fn describe(d: &str) -> (&str, &str, i64) {
    if let Some((function, inner)) = parenthesized(d, |inner| file_line(inner).is_some()) {
        if let Some((file, line)) = file_line(inner) {
            return (function, file, if line > 0 { line } else { 0 });
        }
    }
    if let Some((function, path)) = parenthesized(d, |_| true) {
        return (function, base(path), 0);
    }
    if d.contains("generated stub/JIT") {
        return ("STUB", "", 0);
    }
    (d, "", 0)
}

/// `function (inner)` with a blank before `(`, at the rightmost `(` whose inner part `ok`
/// accepts (pprof's greedy `^(.*)\s+\((…)\)$`): (function, inner). The function keeps all
/// but the last of several blanks, as the regular expression does.
fn parenthesized(d: &str, ok: impl Fn(&str) -> bool) -> Option<(&str, &str)> {
    let body = d.strip_suffix(')')?;
    body.match_indices('(').rev().find_map(|(open, _)| {
        let before = body.get(..open)?;
        let function = before.strip_suffix(|ch: char| ch.is_ascii_whitespace())?;
        let inner = body.get(open + 1..)?;
        ok(inner).then_some((function, inner))
    })
}

/// `file:line` with a non-empty file and an integer line (`(.+):(-?\d+)`).
fn file_line(inner: &str) -> Option<(&str, i64)> {
    let (file, line) = inner.rsplit_once(':')?;
    let digits = line.strip_prefix('-').unwrap_or(line);
    if file.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((file, line.parse().unwrap_or(0)))
}

/// Go's `filepath.Base` on a `/`-separated path.
fn base(path: &str) -> &str {
    if path.is_empty() {
        return ".";
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions() {
        assert_eq!(
            describe("com.example.f (Source003.java:103)"),
            ("com.example.f", "Source003.java", 103)
        );
        assert_eq!(describe("f (x.java:0)"), ("f", "x.java", 0));
        assert_eq!(describe("f (x.java:-3)"), ("f", "x.java", 0));
        assert_eq!(describe("g (/lib/libc.so)"), ("g", "libc.so", 0));
        assert_eq!(describe("a (b) (c.java:1)"), ("a (b)", "c.java", 1));
        assert_eq!(describe("f  (x.java:2)"), ("f ", "x.java", 2));
        assert_eq!(describe("<generated stub/JIT>"), ("STUB", "", 0));
        assert_eq!(describe("GC"), ("GC", "", 0));
        assert_eq!(
            split_location("0x0000003 com.x (a.java:3)"),
            Some(("0000003", "com.x (a.java:3)"))
        );
        assert_eq!(split_location("0x12"), None);
        assert_eq!(base("/a/b/"), "b");
    }
}
