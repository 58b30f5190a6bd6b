//! Go's count profiles with `debug=1` (`printCountProfile`): `goroutine profile: total N`,
//! `threadcreate profile: total N` (any `NAME profile: total N`), then records `COUNT @ 0x… 0x…`,
//! each with its `#` frame lines and, for goroutines, `# labels: {…}` (`parseGoCount` of
//! `google/pprof:profile/legacy_profile.go`).

use std::iter::Peekable;

use super::collect::{Adjust, Collector};
use super::lines::{parse_go_int, shorten, Line, Lines};
use super::{err, read_records, read_trailer};
use crate::formats::ReadError;

/// True for `NAME profile: total N`.
pub(super) fn is_header(text: &str) -> bool {
    profile_name(text).is_some()
}

/// The NAME of `NAME profile: total N`.
fn profile_name(text: &str) -> Option<&str> {
    let mut words = text.split_whitespace();
    let (name, profile, total, n) = (words.next()?, words.next()?, words.next()?, words.next()?);
    let ok = profile == "profile:"
        && total == "total"
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && words.next().is_none();
    ok.then_some(name)
}

/// Reads a count profile after its header line.
pub(super) fn read<'a>(
    lines: &mut Peekable<Lines<'a>>,
    header: Line<'a>,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    let Some(name) = profile_name(header.text) else {
        return Err(err(header.number, "expected `NAME profile: total N`"));
    };
    c.period(name, "count", 1);
    c.sample_types(&[(name, "count")]);
    let mut raw = Vec::new();
    let end = read_records(lines, c, true, |line, c| {
        record(line, &mut raw, c).map_err(|m| err(line.number, format!("{name} record: {m}")))
    })?;
    read_trailer(lines, c, end)
}

/// `COUNT @ 0x… 0x…` (an empty stack is allowed: Go's threadcreate profile writes `N @`).
fn record(line: Line<'_>, raw: &mut Vec<u64>, c: &mut Collector<'_>) -> Result<(), String> {
    let text = line.text.trim();
    let (count, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    // pprof parses the digits with `strconv.ParseInt(s, 0, 64)`: a leading 0 means octal.
    let n = count
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| parse_go_int(count))
        .flatten()
        .ok_or_else(|| format!("the count {:?} is not an integer", shorten(count)))?;
    let addresses = rest.trim_start().strip_prefix('@').ok_or_else(|| {
        "expected `@` and the stack addresses after the count (records read `COUNT @ 0x… 0x…`)"
            .to_owned()
    })?;
    c.record_addresses(line.number, &[n as f64], addresses, raw, Adjust::All)
}
