//! Byte-level scanning of one Rprof sample line, without allocation.
//!
//! A sample line is `[":" small ":" large ":" nodes ":" dups ":"] { token " " }` where a token
//! is a quoted frame name (`"lapply"`) or a source reference `F#L` (file number `#` line). R
//! writes names raw, so a name may itself contain spaces and quotes (`"x[["a b"]]"`). The rule
//! used here (docs/formats/rprof.md): a name ends at the first `"` that is followed by the end of the
//! line, or by a space and then `"`, a digit or the end of the line.

use memchr::memchr;

/// The four numbers of a memory-profiling prefix, as R writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryFields {
    /// Small-vector heap in use, in 8-byte units (`R_SmallVallocSize`).
    pub small_vcells: u64,
    /// Large-vector heap in use, in 8-byte units (`R_LargeVallocSize`).
    pub large_vcells: u64,
    /// Bytes of cons cells in use (`R_NodesInUse * sizeof(SEXPREC)`).
    pub node_bytes: u64,
    /// Calls to `duplicate()` since the previous sample.
    pub duplications: u64,
}

/// A source reference `F#L`: line `line` of the file declared as `#File F`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrcRef {
    /// File number (1-based, per profiling run).
    pub file: u32,
    /// Line number (1-based).
    pub line: u32,
}

/// One token of a sample line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'a> {
    /// A frame: the name between the quotes, raw bytes.
    Frame(&'a [u8]),
    /// A source reference.
    SrcRef(SrcRef),
}

/// A token cut off at the end of a line (the line was truncated while being written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// A quoted name without its closing quote.
    Name,
    /// A source reference without its line number.
    SrcRef,
}

/// A damaged end of line: the tokens before `column` are complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Damage {
    /// What was cut.
    pub cut: Cut,
    /// 1-based byte column where the cut token starts.
    pub column: usize,
}

/// A structural fault inside a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// 1-based byte column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

fn fault(column: usize, message: impl Into<String>) -> Fault {
    Fault {
        column,
        message: message.into(),
    }
}

/// Splits off the memory prefix. Returns the fields (if the line starts with `:`) and the
/// offset of the rest of the line.
pub fn memory_prefix(line: &[u8]) -> Result<(Option<MemoryFields>, usize), Fault> {
    if line.first() != Some(&b':') {
        return Ok((None, 0));
    }
    let mut pos = 1;
    let mut fields = [0u64; 4];
    for field in &mut fields {
        let (value, end) = unsigned(line, pos).ok_or_else(|| {
            fault(
                pos + 1,
                "memory prefix must be four whole numbers, as in `:1024:2048:4096:0:`",
            )
        })?;
        if line.get(end) != Some(&b':') {
            return Err(fault(
                end + 1,
                "memory prefix must be four whole numbers each followed by `:`",
            ));
        }
        *field = value;
        pos = end + 1;
    }
    let [small_vcells, large_vcells, node_bytes, duplications] = fields;
    Ok((
        Some(MemoryFields {
            small_vcells,
            large_vcells,
            node_bytes,
            duplications,
        }),
        pos,
    ))
}

/// Parses ASCII digits at `pos` into a `u64`; `None` when there are none or they overflow.
/// Returns the value and the index after the last digit.
fn unsigned(bytes: &[u8], pos: usize) -> Option<(u64, usize)> {
    let digits = bytes.get(pos..)?;
    let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    let value = digits.get(..n)?.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })?;
    Some((value, pos + n))
}

/// Scans the tokens of `body` (a line after its memory prefix) into `out`. `column0` is the
/// 1-based column of `body[0]` in the line, for messages. A token cut at the end of the line
/// is reported as [`Damage`] with the tokens before it in `out`; anything else that is not
/// Rprof is a [`Fault`].
pub fn scan<'a>(
    body: &'a [u8],
    column0: usize,
    out: &mut Vec<Token<'a>>,
) -> Result<Option<Damage>, Fault> {
    out.clear();
    let mut pos = 0;
    while let Some(&b) = body.get(pos) {
        let column = column0 + pos;
        let next = match b {
            b'"' => match name_end(body, pos + 1) {
                Some(end) => {
                    let name = body.get(pos + 1..end).unwrap_or_default();
                    if name.is_empty() {
                        return Err(fault(column, "empty function name `\"\"`"));
                    }
                    out.push(Token::Frame(name));
                    end + 1
                }
                // No closing quote up to the end of the line: the line was cut inside a name.
                None => {
                    return Ok(Some(Damage {
                        cut: Cut::Name,
                        column,
                    }))
                }
            },
            b'0'..=b'9' => match srcref(body, pos) {
                Ok((r, end)) => {
                    out.push(Token::SrcRef(r));
                    end
                }
                Err(_) if is_cut_srcref(body.get(pos..).unwrap_or_default()) => {
                    return Ok(Some(Damage {
                        cut: Cut::SrcRef,
                        column,
                    }))
                }
                Err(f) => return Err(fault(column0 + f.column - 1, f.message)),
            },
            other => {
                return Err(fault(
                    column,
                    format!(
                    "expected a quoted function name or a source reference like `1#20`, found {}",
                    describe_byte(other)
                ),
                ))
            }
        };
        pos = match body.get(next) {
            Some(b' ') => next + 1,
            None => next,
            Some(&other) => {
                return Err(fault(
                    column0 + next,
                    format!(
                        "expected a space after a token, found {}",
                        describe_byte(other)
                    ),
                ))
            }
        };
    }
    Ok(None)
}

/// The index of the quote closing a name whose text starts at `from`.
fn name_end(body: &[u8], from: usize) -> Option<usize> {
    let mut from = from;
    loop {
        let q = from + memchr(b'"', body.get(from..)?)?;
        match body.get(q + 1) {
            None => return Some(q),
            Some(b' ') => match body.get(q + 2) {
                None | Some(b'"' | b'0'..=b'9') => return Some(q),
                Some(_) => {}
            },
            Some(_) => {}
        }
        from = q + 1;
    }
}

/// Parses `F#L` at `pos`; returns it and the index after it. The fault's column is relative
/// to `body`.
fn srcref(body: &[u8], pos: usize) -> Result<(SrcRef, usize), Fault> {
    let number = |value: Option<(u64, usize)>, what: &str, at: usize| {
        let (v, end) = value.ok_or_else(|| {
            fault(
                at + 1,
                format!("source reference needs a {what} number, as in `1#20`"),
            )
        })?;
        match u32::try_from(v) {
            Ok(v) if v >= 1 && v <= i32::MAX as u32 => Ok((v, end)),
            _ => Err(fault(
                at + 1,
                format!("source reference {what} number {v} is out of range (1 to 2147483647)"),
            )),
        }
    };
    let (file, hash) = number(unsigned(body, pos), "file", pos)?;
    if body.get(hash) != Some(&b'#') {
        return Err(fault(
            hash + 1,
            "source reference needs `#` between file and line, as in `1#20`",
        ));
    }
    let (line, end) = number(unsigned(body, hash + 1), "line", hash + 1)?;
    Ok((SrcRef { file, line }, end))
}

/// True when `rest` (from a digit to the end of the line) is a source reference cut short:
/// digits, optionally `#` and nothing else.
fn is_cut_srcref(rest: &[u8]) -> bool {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    matches!(rest.get(digits..), Some(b"" | b"#"))
}

/// A byte for messages: printable ASCII as itself, anything else in hex.
pub fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("`{}`", b as char)
    } else if b == b' ' {
        "a space".to_owned()
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(body: &str) -> (Vec<Token<'_>>, Option<Damage>) {
        let mut out = Vec::new();
        let d = scan(body.as_bytes(), 1, &mut out).unwrap();
        (out, d)
    }

    #[test]
    fn names_and_srcrefs() {
        let (t, d) = tokens("1#2 \"test\" 1#1 ");
        assert_eq!(d, None);
        assert_eq!(
            t,
            vec![
                Token::SrcRef(SrcRef { file: 1, line: 2 }),
                Token::Frame(b"test"),
                Token::SrcRef(SrcRef { file: 1, line: 1 }),
            ]
        );
    }

    #[test]
    fn names_with_spaces_and_quotes() {
        let (t, _) = tokens("\"test space\" \"x[[\"a b\"]]\" \":\" \"<GC>\"");
        assert_eq!(
            t,
            vec![
                Token::Frame(b"test space"),
                Token::Frame(b"x[[\"a b\"]]"),
                Token::Frame(b":"),
                Token::Frame(b"<GC>"),
            ]
        );
    }

    #[test]
    fn cut_tokens_are_damage() {
        for (line, cut, column) in [
            ("\"eval\" \"ev", Cut::Name, 8),
            ("\"eval\" \"", Cut::Name, 8),
            ("\"eval\" 5#", Cut::SrcRef, 8),
            ("\"eval\" 5", Cut::SrcRef, 8),
        ] {
            let (t, d) = tokens(line);
            assert_eq!(t, vec![Token::Frame(b"eval")]);
            assert_eq!(d, Some(Damage { cut, column }));
        }
    }

    #[test]
    fn faults_name_the_column() {
        let mut out = Vec::new();
        // After a complete name, junk makes the name absorb it (R writes names raw), but
        // after a source reference it is a fault.
        let f = scan(b"1#2 junk \"b\" ", 1, &mut out).unwrap_err();
        assert_eq!(f.column, 5);
        let f = scan(b"\"a\" 1#2x ", 1, &mut out).unwrap_err();
        assert_eq!(f.column, 8);
        let f = scan(b"\"a\" 1#0 ", 1, &mut out).unwrap_err();
        assert_eq!(f.column, 7);
        let f = scan(b"\"\" ", 1, &mut out).unwrap_err();
        assert_eq!(f.column, 1);
    }

    #[test]
    fn memory_prefix_fields() {
        let (m, off) = memory_prefix(b":1:22:333:4:\"f\" ").unwrap();
        assert_eq!(off, 12);
        assert_eq!(
            m,
            Some(MemoryFields {
                small_vcells: 1,
                large_vcells: 22,
                node_bytes: 333,
                duplications: 4
            })
        );
        assert!(memory_prefix(b":1:2:3:\"f\"").is_err());
        assert_eq!(memory_prefix(b"\"f\"").unwrap(), (None, 0));
    }
}
