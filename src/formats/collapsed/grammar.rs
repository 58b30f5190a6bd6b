//! The line grammar of a collapsed file (its text decoded by `read_common::decode_text`):
//! `stack count` or `stack before after` with the counts split off from the right.
//!
//! A count is flamegraph.pl's `DIGITS [ "." DIGITS* ]`; a line is differential only when its
//! stack itself ends in a count, and a file only when every stack line is.

pub(super) fn has_control_chars(line: &str) -> bool {
    line.chars().any(|c| c.is_control() && c != '\t')
}

/// True for `DIGITS [ "." DIGITS* ]` (flamegraph.pl's count grammar).
fn is_count(token: &str) -> bool {
    let (int, frac) = token.split_once('.').unwrap_or((token, ""));
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// Splits a trimmed line into (stack, count text) at the last space or tab.
pub(super) fn split_count(line: &str) -> Option<(&str, &str)> {
    let sep = line.rfind([' ', '\t'])?;
    let (stack, count) = (&line[..sep], &line[sep + 1..]);
    (is_count(count) && !stack.is_empty()).then_some((stack, count))
}

/// What one line is.
pub(super) enum Line<'a> {
    Blank,
    Comment(&'a str),
    Invalid,
    /// `stack count`; `diff` holds the stack and first count when the stack itself ends in a
    /// count (a possible differential line).
    Stack {
        stack: &'a str,
        count: &'a str,
        diff: Option<(&'a str, &'a str)>,
    },
}

pub(super) fn classify(raw: &str) -> Line<'_> {
    let line = raw.trim();
    if line.is_empty() {
        return Line::Blank;
    }
    if let Some(comment) = line.strip_prefix('#') {
        return Line::Comment(comment.trim());
    }
    if raw.starts_with([' ', '\t']) {
        if let Some(line) = root_only(line) {
            return line;
        }
    }
    match split_count(line) {
        Some((stack, count)) if !line.contains('\0') => Line::Stack {
            stack,
            count,
            diff: split_count(stack),
        },
        _ => Line::Invalid,
    }
}

/// True for ` 108`: a blank, then a count alone (a sample of the root; no evidence for or
/// against the format when detecting).
pub(super) fn is_root_only(raw: &str) -> bool {
    raw.starts_with([' ', '\t']) && is_count(raw.trim())
}

/// A line that began with a blank and holds only its count(s), ` 108` (py-spy's samples without
/// Python frames; flamegraph.pl and inferno count them): a sample of the root alone. For
/// ` 3 4` the stack is `3` unless the file is differential (then it is empty, `3` the first
/// count), as for any line whose stack ends in a count.
fn root_only(line: &str) -> Option<Line<'_>> {
    if is_count(line) {
        return Some(Line::Stack {
            stack: "",
            count: line,
            diff: None,
        });
    }
    let (first, count) = split_count(line)?;
    is_count(first).then_some(Line::Stack {
        stack: first,
        count,
        diff: Some(("", first)),
    })
}

/// True when every stack line has two counts.
pub(super) fn is_differential(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        if let Line::Stack { diff, .. } = classify(line) {
            if diff.is_none() {
                return false;
            }
            any = true;
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_grammar() {
        assert!(is_count("12"));
        assert!(is_count("6."));
        assert!(is_count("31.23"));
        assert!(!is_count(".5"));
        assert!(!is_count("-1"));
        assert!(!is_count("12V.43"));
        assert_eq!("6.".parse::<f64>().ok(), Some(6.0));
    }

    #[test]
    fn a_blank_then_a_count_is_the_root_alone() {
        let stack_of = |raw| match classify(raw) {
            Line::Stack { stack, count, diff } => Some((stack, count, diff)),
            _ => None,
        };
        assert_eq!(stack_of(" 108"), Some(("", "108", None)));
        assert_eq!(stack_of("\t7"), Some(("", "7", None)));
        assert_eq!(stack_of(" 3 4"), Some(("3", "4", Some(("", "3")))));
        assert_eq!(stack_of("108"), None);
    }

    #[test]
    fn split_from_the_right() {
        assert_eq!(split_count("a b;c d 3"), Some(("a b;c d", "3")));
        assert_eq!(split_count("a\t3"), Some(("a", "3")));
        assert_eq!(split_count("3"), None);
        assert_eq!(split_count("a;b"), None);
    }
}
