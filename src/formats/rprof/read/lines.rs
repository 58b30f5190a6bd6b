//! Splitting the input into lines: `\n` ends a line, a `\r` before it is dropped, and a name
//! with a line break (R writes names raw) is joined back into the sample line it began.
//!
//! Line numbers are 1-based and count physical lines, so a joined line carries the number of
//! its first part; offsets are into the input after a byte order mark.

use std::iter::Peekable;

use memchr::memchr;

use super::super::header::Header;
use super::super::tokens::{self, Cut, Damage};

/// R writes names raw, so a name with a line break (a backquoted symbol) spans lines: while
/// `line` ends inside a name and the next line cannot start a line of its own, the two are one
/// sample line (numbered as the first).
pub(super) fn join_name_continuations<'a>(
    body: &'a [u8],
    mut line: Line<'a>,
    lines: &mut Peekable<Lines<'a>>,
) -> Line<'a> {
    while line.terminated
        && lines.peek().is_some_and(|next| is_continuation(next.text))
        && ends_inside_name(line.text)
    {
        let Some(next) = lines.next() else { break };
        let end = next.start + next.text.len();
        line.text = body.get(line.start..end).unwrap_or(line.text);
        line.terminated = next.terminated;
    }
    line
}

/// True when `text` cannot begin a line of its own: not a sample (`"`, a digit, `:`), not a
/// `#` line, not a header, not empty. Such a line continues a name broken by a line break.
pub(in crate::formats::rprof) fn is_continuation(text: &[u8]) -> bool {
    !matches!(text.first(), None | Some(b'"' | b'0'..=b'9' | b':' | b'#'))
        && Header::parse(text).is_err()
}

/// True when the sample line `text` ends inside a quoted name.
fn ends_inside_name(text: &[u8]) -> bool {
    let Ok((_, offset)) = tokens::memory_prefix(text) else {
        return false;
    };
    let mut toks = Vec::new();
    matches!(
        tokens::scan(
            text.get(offset..).unwrap_or_default(),
            offset + 1,
            &mut toks
        ),
        Ok(Some(Damage { cut: Cut::Name, .. }))
    )
}

/// One line of the input.
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
    /// 1-based line number.
    pub(super) number: usize,
    /// Offset of the line's first byte in the input (after a byte order mark).
    pub(super) start: usize,
    /// The text without `\n` and a trailing `\r`.
    pub(super) text: &'a [u8],
    /// False for a last line without a line end.
    pub(super) terminated: bool,
}

/// Splits the input into lines at `\n`, stripping a `\r` before it.
pub(super) struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
    offset: usize,
}

impl<'a> Lines<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Lines {
            rest: bytes,
            number: 0,
            offset: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        self.number += 1;
        let start = self.offset;
        let (text, rest, terminated) = match memchr(b'\n', self.rest) {
            Some(end) => (
                self.rest.get(..end).unwrap_or_default(),
                self.rest.get(end + 1..).unwrap_or_default(),
                true,
            ),
            None => (self.rest, &[][..], false),
        };
        self.offset += self.rest.len() - rest.len();
        self.rest = rest;
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        Some(Line {
            number: self.number,
            start,
            text,
            terminated,
        })
    }
}
