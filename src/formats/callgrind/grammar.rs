//! The line grammar of callgrind files (valgrind's "Callgrind Format Specification"): header
//! lines `key: value`, assignments `key=value` (with name compression `(id) name` / `(id)`),
//! and cost lines `position… cost…` whose positions may use subposition compression (`+N`,
//! `-N`, `*`) and whose numbers may be decimal or `0x` hexadecimal.

/// What one line is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line<'a> {
    /// Blank or a `#` comment.
    Skip,
    /// `key: value` (`events:`, `positions:`, `cmd:`, …).
    Header(&'a str, &'a str),
    /// `key=value` (`fn=`, `cfn=`, `calls=`, …).
    Assign(&'a str, &'a str),
    /// A cost line (positions then costs), trimmed.
    Cost(&'a str),
}

/// Classifies a line; `None` when it fits none of the forms.
pub(super) fn classify(raw: &str) -> Option<Line<'_>> {
    let line = raw.trim();
    if line.is_empty() || line.starts_with('#') {
        return Some(Line::Skip);
    }
    let first = line.as_bytes()[0];
    if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
        return line
            .split_ascii_whitespace()
            .all(is_number_token)
            .then_some(Line::Cost(line));
    }
    let key_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let (key, rest) = line.split_at(key_end);
    if key.is_empty() || !key.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    if let Some(value) = rest.strip_prefix('=') {
        return Some(Line::Assign(key, value.trim()));
    }
    let value = rest.strip_prefix(':')?;
    (value.is_empty() || value.starts_with([' ', '\t'])).then(|| Line::Header(key, value.trim()))
}

/// True for a position or cost token: `*`, `[+-]NUMBER`, `NUMBER` (decimal or `0x` hex).
fn is_number_token(token: &str) -> bool {
    token == "*" || parse_signed(token).is_some()
}

/// `[+-]NUMBER` as (negative, magnitude); NUMBER is decimal or `0x` hexadecimal.
pub(super) fn parse_signed(token: &str) -> Option<(bool, u64)> {
    let (negative, digits) = match token.as_bytes().first()? {
        b'+' => (false, &token[1..]),
        b'-' => (true, &token[1..]),
        _ => (false, token),
    };
    Some((negative, parse_unsigned(digits)?))
}

/// A decimal or `0x` hexadecimal number.
pub(super) fn parse_unsigned(digits: &str) -> Option<u64> {
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return u64::from_str_radix(hex, 16)
            .ok()
            .filter(|_| !hex.is_empty());
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// One position column after a cost line's subposition compression: `*` is the previous
/// value, `+N` / `-N` are relative to it, anything else is absolute. `None` when the token is
/// not a number or the result leaves the `i64` range.
pub(super) fn position(token: &str, previous: i64) -> Option<i64> {
    if token == "*" {
        return Some(previous);
    }
    let (negative, magnitude) = parse_signed(token)?;
    let magnitude = i64::try_from(magnitude).ok()?;
    match token.as_bytes().first() {
        Some(b'+') => previous.checked_add(magnitude),
        Some(b'-') => previous.checked_sub(magnitude),
        _ if negative => None,
        _ => Some(magnitude),
    }
}

/// A cost: a possibly signed integer (valgrind writes unsigned ones; other writers and
/// hand-written files sometimes sign them). `None` when it does not fit an `i64`.
pub(super) fn cost(token: &str) -> Option<i64> {
    let (negative, magnitude) = parse_signed(token)?;
    let magnitude = i64::try_from(magnitude).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// A compressed name: `(id) name` defines `id`, `(id)` refers back to it, a plain name is
/// itself.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Name<'a> {
    Plain(&'a str),
    Define(u64, &'a str),
    Refer(u64),
}

/// Parses a name value: `(digits)` starts a compressed one, anything else (`(below main)`)
/// is a plain name.
pub(super) fn name(value: &str) -> Name<'_> {
    let compressed = value.strip_prefix('(').and_then(|rest| {
        let (id, after) = rest.split_once(')')?;
        let id = parse_unsigned(id).filter(|_| id.bytes().all(|b| b.is_ascii_digit()))?;
        Some((id, after.trim()))
    });
    match compressed {
        Some((id, "")) => Name::Refer(id),
        Some((id, after)) => Name::Define(id, after),
        None => Name::Plain(value),
    }
}

/// A cost column of a cost line: an absolute cost, or one relative to the previous cost line
/// (`*`, `+N`, `-N`: subposition compression applied to costs, which the specification does
/// not define but some writers and speedscope's reader use). `None` for a bad token.
pub(super) fn cost_column(token: &str, previous: i64) -> Option<(i64, bool)> {
    match token.as_bytes().first()? {
        b'*' | b'+' | b'-' => position(token, previous).map(|c| (c, true)),
        _ => cost(token).map(|c| (c, false)),
    }
}

/// The function name without a recursion-level suffix `'N` (callgrind's `--separate-recs`
/// writes `fact'2` for the second level of `fact`): all levels are one function.
pub(super) fn strip_recursion_level(name: &str) -> &str {
    match name.rsplit_once('\'') {
        Some((base, level))
            if !base.is_empty()
                && !level.is_empty()
                && level.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert_eq!(classify("# callgrind format"), Some(Line::Skip));
        assert_eq!(
            classify("events: Ir Dr"),
            Some(Line::Header("events", "Ir Dr"))
        );
        assert_eq!(
            classify("fn=(3) main"),
            Some(Line::Assign("fn", "(3) main"))
        );
        assert_eq!(classify("cfl="), Some(Line::Assign("cfl", "")));
        assert_eq!(classify("+3 * 12"), Some(Line::Cost("+3 * 12")));
        assert_eq!(classify("0x1139 -17 4"), Some(Line::Cost("0x1139 -17 4")));
        assert_eq!(classify("main;foo 12"), None);
        assert_eq!(classify("a:b"), None);
    }

    #[test]
    fn positions_and_names() {
        assert_eq!(position("+5", 10), Some(15));
        assert_eq!(position("-5", 10), Some(5));
        assert_eq!(position("*", 10), Some(10));
        assert_eq!(position("0x10", 10), Some(16));
        assert_eq!(cost("-300"), Some(-300));
        assert_eq!(name("(12) main"), Name::Define(12, "main"));
        assert_eq!(name("(12)"), Name::Refer(12));
        assert_eq!(name("main"), Name::Plain("main"));
        assert_eq!(name("(below main)"), Name::Plain("(below main)"));
        assert_eq!(cost_column("-300", 400), Some((100, true)));
        assert_eq!(cost_column("12", 400), Some((12, false)));
        assert_eq!(strip_recursion_level("fact'2"), "fact");
        assert_eq!(strip_recursion_level("it's"), "it's");
    }
}
