//! Folded stacks read as the bytes arrive: each complete line goes to the reader at once, so
//! a file of any size is never held whole (only the line cut by the end of a chunk is kept).
//! Gives the same profile and warnings as [`super::read`] on the whole text, for UTF-8 input
//! (a BOM is skipped) that is not differential: the caller ([`crate::formats::stream`]) sends
//! UTF-16 and differential input to [`super::read`] instead.

use super::grammar::is_differential;
use super::read::Reader;
use super::NAME;
use crate::formats::error::{ReadError, Warnings};
use crate::formats::{Parsed, ReadOptions};

/// Whether input starting with `head` (its first MiB, or all of it) can be read line by line:
/// folded stacks by their content ([`super::detect`] examines at most 64 KiB of a prefix with
/// a line break), in UTF-8 (no UTF-16 byte order mark), and not differential (a complete
/// line of the head holds a stack with one count: then the whole file is not differential).
pub fn streamable(head: &[u8]) -> bool {
    let Some(end) = memchr::memrchr(b'\n', head) else {
        return false;
    };
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        return false;
    }
    crate::formats::detect(head) == Some(crate::formats::Format::Collapsed)
        && !is_differential(&String::from_utf8_lossy(&head[..end]))
}

/// A collapsed reader fed chunk by chunk: see the module doc.
pub struct LineStream {
    reader: Reader,
    /// The readers' warnings, apart from the one about invalid UTF-8 (that one comes first).
    warnings: Warnings,
    /// Whether invalid UTF-8 had to be replaced somewhere.
    lossy: bool,
    /// The start of the line the last chunk cut (no `\n` yet).
    partial: Vec<u8>,
    /// Lines given to the reader so far.
    lines: usize,
    /// Bytes fed so far.
    fed: u64,
}

impl LineStream {
    /// A stream reading folded stacks with `options`.
    pub fn new(options: &ReadOptions) -> Self {
        LineStream {
            reader: Reader::new(options, false),
            warnings: Warnings::default(),
            lossy: false,
            partial: Vec::new(),
            lines: 0,
            fed: 0,
        }
    }

    /// Reads the complete lines of `chunk` (with the cut line kept from the last chunk);
    /// keeps the line `chunk` ends inside for the next one.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.fed += chunk.len() as u64;
        let Some(last) = memchr::memrchr(b'\n', chunk) else {
            self.partial.extend_from_slice(chunk);
            return Ok(());
        };
        let mut block = &chunk[..last];
        if !self.partial.is_empty() {
            let first = memchr::memchr(b'\n', chunk).unwrap_or(last);
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(&chunk[..first]);
            self.lines_of(&line, true)?;
            block = chunk.get(first + 1..last).unwrap_or_default();
            if first == last {
                self.partial = chunk[last + 1..].to_vec();
                return Ok(());
            }
        }
        self.lines_of(block, true)?;
        self.partial = chunk[last + 1..].to_vec();
        Ok(())
    }

    /// Bytes fed so far.
    pub fn fed(&self) -> u64 {
        self.fed
    }

    /// Reads the last line (one without a final `\n`) and builds the profile.
    pub fn finish(mut self) -> Result<Parsed, ReadError> {
        if self.fed == 0 {
            return Err(ReadError::whole(NAME, "the file is empty"));
        }
        let last = std::mem::take(&mut self.partial);
        if !last.is_empty() {
            self.lines_of(&last, false)?;
        }
        let mut warnings = Warnings::default();
        if self.lossy {
            warnings.add(NAME, "lossy", || {
                "the text is not valid UTF-8 (or UTF-16); invalid sequences were replaced by U+FFFD"
                    .to_owned()
            });
        }
        for w in self.warnings.into_vec() {
            warnings.push(w);
        }
        self.reader.finish(warnings)
    }

    /// Gives the lines of `block` (lines split at `\n`; no final `\n`) to the reader. With
    /// `terminated`, the last line had a `\n` after it, so a `\r` before it goes, as
    /// `str::lines` does.
    fn lines_of(&mut self, block: &[u8], terminated: bool) -> Result<(), ReadError> {
        let text = String::from_utf8_lossy(block);
        self.lossy |= matches!(text, std::borrow::Cow::Owned(_));
        let mut rest = text.split('\n').peekable();
        while let Some(line) = rest.next() {
            let ended = terminated || rest.peek().is_some();
            let line = match ended {
                true => line.strip_suffix('\r').unwrap_or(line),
                false => line,
            };
            // A UTF-8 BOM is skipped (it decodes to U+FEFF at the very start).
            let line = match self.lines {
                0 => line.strip_prefix('\u{feff}').unwrap_or(line),
                _ => line,
            };
            self.lines += 1;
            self.reader.line(self.lines, line, &mut self.warnings)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::collapsed::read;
    use crate::formats::stream::comparable;

    /// The stream fed `text` in pieces of `size` bytes gives what `read` gives on the whole.
    fn same_as_whole(text: &[u8], size: usize) {
        let options = ReadOptions::default();
        let mut s = LineStream::new(&options);
        for piece in text.chunks(size.max(1)) {
            s.feed(piece).unwrap();
        }
        let streamed = s.finish();
        let whole = read(text, &options);
        match (streamed, whole) {
            (Ok(a), Ok(b)) => {
                assert_eq!(
                    comparable(&a.profile),
                    comparable(&b.profile),
                    "size {size}"
                );
                assert_eq!(
                    format!("{:?}", a.warnings),
                    format!("{:?}", b.warnings),
                    "size {size}"
                );
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("streamed {:?} vs whole {:?}", a.is_ok(), b.is_ok()),
        }
    }

    #[test]
    fn chunks_of_any_size_read_as_the_whole() {
        let text =
            "\u{feff}# comment\r\nmain;a;b 3\r\nmain;a 2\n\nbad line\nmain;\u{e9};c 1\nmain 7"
                .as_bytes();
        for size in [1, 2, 3, 5, 8, 13, 64, 4096] {
            same_as_whole(text, size);
        }
    }

    #[test]
    fn invalid_utf8_warns_first_as_the_whole() {
        let text = b"a;b 1\nbad\n\xff\xfe;c 2\nlast\r";
        for size in [1, 4, 7, 100] {
            same_as_whole(text, size);
        }
    }

    #[test]
    fn empty_and_stackless_input_fail_as_the_whole() {
        same_as_whole(b"", 4);
        same_as_whole(b"# only a comment\n", 4);
        same_as_whole(b"a;b x\n", 2);
    }
}
