//! `#File N: path` declarations and the `F#L` source references that name them.
//!
//! File numbers are scoped to a run (they restart with each header): a reference must name a
//! file declared earlier in the same run, and a declaration no sample uses is reported when
//! the run ends. Declaring a number again is allowed only with the same path.

use super::super::tokens::SrcRef;
use super::super::FORMAT;
use super::{quote_start, Line, Reader};
use crate::formats::ReadError;
use crate::model::StringId;

/// Prefix of a file declaration line.
pub(super) const FILE_LINE_PREFIX: &[u8] = b"#File ";

/// A `#File N: path` declaration of the current run.
pub(super) struct FileDecl {
    path: StringId,
    line: usize,
    used: bool,
}

impl<'a> Reader<'a> {
    /// Closes the current run: file numbers and the stack table are scoped to it.
    pub(super) fn end_run(&mut self) {
        let mut unused: Vec<(usize, String)> = self
            .files
            .iter()
            .filter(|(_, d)| !d.used)
            .map(|(n, d)| (d.line, format!("#File {n}")))
            .collect();
        unused.sort();
        for (line, what) in unused {
            self.warnings.add(FORMAT, "unused-file", || {
                format!(
                    "line {line}: {what} is declared but no sample refers to it; its path is \
                     not kept"
                )
            });
        }
        self.files.clear();
        self.stacks.clear();
    }

    pub(super) fn file_line(&mut self, line: Line<'a>) -> Result<(), ReadError> {
        let (number, path) = parse_file_line(line.text).map_err(|m| Self::error(line.number, m))?;
        let path = self.text_to_string(path, line.number, "file path");
        let path = self.b.intern(&path);
        if let Some(previous) = self.files.get(&number) {
            if previous.path != path {
                return Err(Self::error(
                    line.number,
                    format!(
                        "#File {number} is declared again with another path (first declared on \
                         line {})",
                        previous.line
                    ),
                ));
            }
            return Ok(());
        }
        self.files.insert(
            number,
            FileDecl {
                path,
                line: line.number,
                used: false,
            },
        );
        Ok(())
    }

    pub(super) fn resolve_file(&mut self, r: SrcRef, n: usize) -> Result<StringId, ReadError> {
        match self.files.get_mut(&r.file) {
            Some(decl) => {
                decl.used = true;
                Ok(decl.path)
            }
            None => Err(Self::error(
                n,
                format!(
                    "source reference {}#{} names file {}, but no `#File {}: path` line \
                     declares it before this line",
                    r.file, r.line, r.file, r.file
                ),
            )),
        }
    }
}

/// Parses `#File N: path` into the number and the path bytes.
fn parse_file_line(text: &[u8]) -> Result<(u32, &[u8]), String> {
    let bad = || {
        format!(
            "malformed file line {}: expected `#File N: path` with N a number from 1",
            quote_start(text)
        )
    };
    let rest = text.strip_prefix(FILE_LINE_PREFIX).ok_or_else(bad)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let number = std::str::from_utf8(rest.get(..digits).unwrap_or_default())
        .ok()
        .and_then(|d| d.parse::<u32>().ok())
        .filter(|&n| n >= 1 && n <= i32::MAX as u32)
        .ok_or_else(bad)?;
    let after = rest.get(digits..).unwrap_or_default();
    let path = match after {
        b":" => &[][..],
        _ => after.strip_prefix(b": ").ok_or_else(bad)?,
    };
    Ok((number, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_lines() {
        assert_eq!(
            parse_file_line(b"#File 2: a b: c").unwrap(),
            (2, &b"a b: c"[..])
        );
        assert_eq!(parse_file_line(b"#File 3: ").unwrap(), (3, &b""[..]));
        assert!(parse_file_line(b"#File 0: x").is_err());
        assert!(parse_file_line(b"#File x: y").is_err());
        assert!(parse_file_line(b"#File 1 y").is_err());
    }
}
