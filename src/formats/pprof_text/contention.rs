//! Contention profiles: Go's mutex (`--- mutex:`) and block (`--- contention:`) profiles with
//! `debug=1` (`writeProfileInternal`) and C++ contentionz (`--- contentionz 1 ---`), as
//! `parseContention`/`parseContentionSample` of `google/pprof:profile/legacy_profile.go` read
//! them: `key = value` attribute lines, then records `CYCLES COUNT @ 0x… 0x…`.
//!
//! Values: `contentions` = COUNT × period, `delay` (nanoseconds) = CYCLES × period /
//! (cycles/second / 1e9), when the sampling period is positive (1 when not given); without
//! `cycles/second` the delay stays in cycles, as in go tool pprof.

use std::iter::Peekable;

use super::collect::{Adjust, Collector};
use super::lines::{parse_go_int, shorten, Cursor, Line, Lines};
use super::{err, java, read_records, read_trailer, FORMAT, META_ATTRIBUTE};
use crate::formats::ReadError;

/// What the attribute lines say.
struct Attributes {
    cycles_per_second: i64,
    period: i64,
}

/// Reads a contention profile after its header line (a Java one is handed to [`java`]).
pub(super) fn read<'a>(
    lines: &mut Peekable<Lines<'a>>,
    header: Line<'a>,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    if header.text.trim() == "--- contentionz 1 ---" && is_java(lines.clone()) {
        return java::read(lines, header, c);
    }
    c.sample_types(&[("contentions", "count"), ("delay", "nanoseconds")]);
    let attributes = read_attributes(lines, c)?;
    c.period("contentions", "count", attributes.period);
    if attributes.cycles_per_second <= 0 {
        c.warnings.add(FORMAT, "no-cycles", || {
            "no positive `cycles/second` attribute: delays are cycles, not nanoseconds (go \
             tool pprof keeps them so too)"
                .to_owned()
        });
    }
    let mut raw = Vec::new();
    let end = read_records(lines, c, true, |line, c| {
        record(line, &attributes, &mut raw, c)
            .map_err(|m| err(line.number, format!("contention record: {m}")))
    })?;
    read_trailer(lines, c, end)
}

/// True when the attribute lines after a `--- contentionz 1 ---` header are Java's
/// (`format = java`, `resolution = …`): pprof's C++ parser refuses those keys.
fn is_java(lines: Peekable<Lines<'_>>) -> bool {
    lines
        .filter(|l| !l.text.trim().is_empty())
        .map_while(|l| l.text.split_once('='))
        .any(|(key, _)| matches!(key.trim(), "format" | "resolution"))
}

/// Reads the `key = value` lines up to the first line without `=` (or a `---` line), which is
/// left for the records.
fn read_attributes<'a>(
    lines: &mut Peekable<Lines<'a>>,
    c: &mut Collector<'a>,
) -> Result<Attributes, ReadError> {
    let mut a = Attributes {
        cycles_per_second: 0,
        period: 1,
    };
    while let Some(&line) = lines.peek() {
        let t = line.text.trim();
        if t.is_empty() || t.starts_with('#') {
            lines.next();
            if t.starts_with('#') {
                c.comment(line);
            }
            continue;
        }
        let Some((key, value)) = t.split_once('=').filter(|_| !t.starts_with("---")) else {
            break;
        };
        lines.next();
        attribute(line, key.trim(), value.trim(), &mut a, c)?;
    }
    Ok(a)
}

fn attribute(
    line: Line<'_>,
    key: &str,
    value: &str,
    a: &mut Attributes,
    c: &mut Collector<'_>,
) -> Result<(), ReadError> {
    let int = || {
        parse_go_int(value).ok_or_else(|| {
            err(
                line.number,
                format!("attribute `{key}`: {:?} is not an integer", shorten(value)),
            )
        })
    };
    match key {
        "cycles/second" => {
            a.cycles_per_second = int()?;
            c.b.add_meta(META_ATTRIBUTE, &format!("{key}={value}"));
        }
        "sampling period" => a.period = int()?,
        "ms since reset" => c.duration_nanos(int()?.saturating_mul(1_000_000)),
        "discarded samples" => c.b.add_meta(META_ATTRIBUTE, &format!("{key}={value}")),
        _ => {
            c.warnings.add(FORMAT, "attribute", || {
                format!(
                    "line {}: attribute `{key}` is unknown (go tool pprof refuses the file); \
                     kept in meta {META_ATTRIBUTE}",
                    line.number
                )
            });
            c.b.add_meta(META_ATTRIBUTE, &format!("{key}={value}"));
        }
    }
    Ok(())
}

/// `CYCLES COUNT @ 0x… 0x…`.
fn record(
    line: Line<'_>,
    a: &Attributes,
    raw: &mut Vec<u64>,
    c: &mut Collector<'_>,
) -> Result<(), String> {
    let mut cur = Cursor::new(line.text.trim());
    let cycles = cur.integer("the cycle count", false)?;
    let count = cur.integer("the event count", false)?;
    cur.expect(
        "@",
        "the event count (records read `CYCLES COUNT @ 0x… 0x…`)",
    )?;
    let (count, delay) = scale(cycles, count, a)
        .ok_or_else(|| "the count times the sampling period does not fit in 64 bits".to_owned())?;
    c.record_addresses(line.number, &[count, delay], cur.rest(), raw, Adjust::All)
}

/// (contentions, delay) as pprof computes them.
fn scale(cycles: i64, count: i64, a: &Attributes) -> Option<(f64, f64)> {
    if a.period <= 0 {
        return Some((count as f64, cycles as f64));
    }
    let delay = if a.cycles_per_second > 0 {
        let cpu_ghz = a.cycles_per_second as f64 / 1e9;
        (cycles as f64 * a.period as f64 / cpu_ghz).trunc()
    } else {
        cycles as f64
    };
    Some((count.checked_mul(a.period)? as f64, delay))
}
