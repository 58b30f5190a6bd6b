//! Line splitting and the small token grammar the legacy text formats share: integers in
//! Go's notations, `0x…` addresses, and a cursor for `A: B [C: D] @ …`-style records.

/// The lines of a text with their 1-based numbers; `\n` or `\r\n` ends a line (as Go's
/// `bufio.ScanLines` splits them).
#[derive(Clone)]
pub(super) struct Lines<'a> {
    rest: &'a str,
    number: usize,
    done: bool,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lines {
            rest: text,
            number: 0,
            done: text.is_empty(),
        }
    }
}

/// One line: its 1-based number and its text without the line end.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    pub number: usize,
    pub text: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.done {
            return None;
        }
        self.number += 1;
        let (line, rest) = match self.rest.split_once('\n') {
            Some((line, rest)) => (line, rest),
            None => {
                self.done = true;
                (self.rest, "")
            }
        };
        self.rest = rest;
        if self.rest.is_empty() {
            // A final line end does not start another line.
            self.done = true;
        }
        Some(Line {
            number: self.number,
            text: line.strip_suffix('\r').unwrap_or(line),
        })
    }
}

/// True for a line pprof skips as blank or as a comment (`isSpaceOrComment`).
pub(super) fn is_blank_or_comment(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.starts_with('#')
}

/// A decimal integer with an optional `-` (Go's `strconv.ParseInt(s, 10, 64)` on the digits
/// the legacy parsers' regular expressions accept).
pub(super) fn parse_decimal(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// An integer as Go's `strconv.ParseInt(s, 0, 64)` reads it: an optional sign, then `0x`
/// (hexadecimal), `0o` or a leading `0` (octal), `0b` (binary), or decimal digits. Go's digit
/// separators (`_`) are not accepted.
pub(super) fn parse_go_int(s: &str) -> Option<i64> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = body.get(..2).map(str::to_ascii_lowercase);
    let (radix, digits) = match lower.as_deref() {
        Some("0x") => (16, body.get(2..)?),
        Some("0o") => (8, body.get(2..)?),
        Some("0b") => (2, body.get(2..)?),
        _ if body.len() > 1 && body.starts_with('0') => (8, body.get(1..)?),
        _ => (10, body),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = i128::from_str_radix(digits, radix).ok()?;
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// Why a stack address token was refused.
pub(super) fn parse_address(token: &str) -> Result<u64, String> {
    let hex = token
        .strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| {
            format!(
                "address {:?} is not a hexadecimal number starting with 0x",
                shorten(token)
            )
        })?;
    u64::from_str_radix(hex, 16)
        .map_err(|_| format!("address {:?} does not fit in 64 bits", shorten(token)))
}

/// Longest piece of input quoted in a message.
const QUOTE_MAX_CHARS: usize = 60;

/// `s`, cut to [`QUOTE_MAX_CHARS`] characters (with `…`) for quoting in messages.
pub(super) fn shorten(s: &str) -> String {
    match s.char_indices().nth(QUOTE_MAX_CHARS) {
        Some((end, _)) => format!("{}…", s.get(..end).unwrap_or(s)),
        None => s.to_owned(),
    }
}

/// A left-to-right reader of one line's tokens.
pub(super) struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Cursor { rest: text }
    }

    /// Skips blanks.
    pub(super) fn skip_blanks(&mut self) {
        self.rest = self.rest.trim_start();
    }

    /// The text not read yet.
    pub(super) fn rest(&self) -> &'a str {
        self.rest
    }

    /// True when only blanks are left.
    pub(super) fn at_end(&self) -> bool {
        self.rest.trim().is_empty()
    }

    /// Consumes `token` (after blanks), or says what was expected instead.
    pub(super) fn expect(&mut self, token: &str, after: &str) -> Result<(), String> {
        self.skip_blanks();
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                Ok(())
            }
            None => Err(format!(
                "expected `{token}` after {after}, found {}",
                self.found()
            )),
        }
    }

    /// Consumes `token` when it comes next (after blanks).
    pub(super) fn eat(&mut self, token: &str) -> bool {
        let trimmed = self.rest.trim_start();
        match trimmed.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// The next word (after blanks): everything up to a blank, `:`, `[`, `]`, `@` or `/`.
    fn word(&mut self) -> &'a str {
        self.skip_blanks();
        let end = self
            .rest
            .find(|c: char| c.is_whitespace() || matches!(c, ':' | '[' | ']' | '@' | '/'))
            .unwrap_or(self.rest.len());
        let (word, rest) = self.rest.split_at(end);
        self.rest = rest;
        word
    }

    /// The next word as a decimal integer (optional `-` when `signed`); `what` names it.
    pub(super) fn integer(&mut self, what: &str, signed: bool) -> Result<i64, String> {
        let word = self.word();
        let ok = if signed {
            parse_decimal(word)
        } else {
            parse_decimal(word).filter(|_| !word.starts_with('-'))
        };
        ok.ok_or_else(|| {
            if word.is_empty() {
                format!("{what} is missing (found {})", self.found())
            } else {
                format!("{what} {:?} is not an integer", shorten(word))
            }
        })
    }

    /// The next word as is.
    pub(super) fn name(&mut self) -> &'a str {
        self.word()
    }

    /// What comes next, for messages.
    pub(super) fn found(&self) -> String {
        let t = self.rest.trim_start();
        if t.is_empty() {
            "the end of the line".to_owned()
        } else {
            format!("{:?}", shorten(t))
        }
    }
}

/// Parses the stack addresses after `@`: blank-separated `0x…` tokens.
pub(super) fn parse_addresses(text: &str, out: &mut Vec<u64>) -> Result<(), String> {
    for token in text.split_whitespace() {
        out.push(parse_address(token)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_bufio() {
        let v: Vec<_> = Lines::new("a\r\nb\n\nc")
            .map(|l| (l.number, l.text))
            .collect();
        assert_eq!(v, [(1, "a"), (2, "b"), (3, ""), (4, "c")]);
        assert_eq!(Lines::new("a\n").count(), 1);
        assert_eq!(Lines::new("").count(), 0);
    }

    #[test]
    fn go_integers() {
        assert_eq!(parse_go_int("2600000155"), Some(2_600_000_155));
        assert_eq!(parse_go_int("0x10"), Some(16));
        assert_eq!(parse_go_int("010"), Some(8));
        assert_eq!(parse_go_int("0o10"), Some(8));
        assert_eq!(parse_go_int("0b11"), Some(3));
        assert_eq!(parse_go_int("-5"), Some(-5));
        assert_eq!(parse_go_int("0"), Some(0));
        assert_eq!(parse_go_int("08"), None);
        assert_eq!(parse_go_int("1_000"), None);
        assert_eq!(parse_go_int("9223372036854775808"), None);
        assert_eq!(parse_go_int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_go_int(""), None);
        assert_eq!(parse_go_int("0x"), None);
    }

    #[test]
    fn addresses() {
        assert_eq!(parse_address("0x4b6930"), Ok(0x4b_6930));
        assert!(parse_address("4b6930").is_err());
        assert!(parse_address("0x").is_err());
        assert!(parse_address("0x1ffffffffffffffff")
            .unwrap_err()
            .contains("64 bits"));
        assert_eq!(parse_address("0x00000000000000000001"), Ok(1));
    }
}
