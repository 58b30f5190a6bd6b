//! The Rprof reader: one pass over the lines, byte-level, no allocation per line.
//!
//! Identical stack text (the part of a line after its memory prefix) is parsed once per
//! profiling run and looked up in a table keyed by the bytes of the input, so the common case
//! of a repeated stack costs one hash and one comparison.

use std::iter::Peekable;

use memchr::memchr;

use super::fxhash::FxHashMap;
use super::header::{Header, HeaderProblem};
use super::tokens::{self, Cut, Damage, MemoryFields, SrcRef, Token};
use super::*;
use crate::formats::{Format, Limits, Parsed, Place, ReadError, ReadOptions, Warnings};
use crate::model::{
    Cell, ColumnData, ColumnKind, FunctionIndex, FunctionKey, LocationIndex, ProfileBuilder,
    SampleIndex, SourceIndex, StackIndex, StringId, ValueTypeIndex, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Prefix of a file declaration line.
const FILE_LINE_PREFIX: &[u8] = b"#File ";

/// Reads an Rprof file.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(FORMAT, "the file is empty"));
    }
    let mut reader = Reader::new(options);
    let body = match bytes.strip_prefix(BOM) {
        Some(rest) => {
            reader.warnings.add(FORMAT, "bom", || {
                "the file starts with a UTF-8 byte order mark, which R does not write; ignored"
                    .to_owned()
            });
            rest
        }
        None => bytes,
    };
    let mut lines = Lines::new(body).peekable();
    reader.first_line(lines.next())?;
    while let Some(line) = lines.next() {
        let line = join_name_continuations(body, line, &mut lines);
        reader.line(line)?;
    }
    reader.finish()
}

/// R writes names raw, so a name with a line break (a backquoted symbol) spans lines: while
/// `line` ends inside a name and the next line cannot start a line of its own, the two are one
/// sample line (numbered as the first).
fn join_name_continuations<'a>(
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
pub(super) fn is_continuation(text: &[u8]) -> bool {
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
struct Line<'a> {
    /// 1-based line number.
    number: usize,
    /// Offset of the line's first byte in the input (after a byte order mark).
    start: usize,
    /// The text without `\n` and a trailing `\r`.
    text: &'a [u8],
    /// False for a last line without a line end.
    terminated: bool,
}

/// Splits the input into lines at `\n`, stripping a `\r` before it.
struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
    offset: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
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

/// A `#File N: path` declaration of the current run.
struct FileDecl {
    path: StringId,
    line: usize,
    used: bool,
}

/// The value types of memory profiling, created at the first memory prefix.
#[derive(Clone, Copy)]
struct MemoryTypes {
    small: ValueTypeIndex,
    large: ValueTypeIndex,
    nodes: ValueTypeIndex,
    duplications: ValueTypeIndex,
    increase: ValueTypeIndex,
}

/// What a stack text resolves to.
#[derive(Clone, Copy)]
struct Resolved {
    stack: Option<StackIndex>,
    toplevel: Option<(StringId, i32)>,
}

struct Reader<'a> {
    limits: Limits,
    b: ProfileBuilder,
    warnings: Warnings,
    source: SourceIndex,
    vt_samples: ValueTypeIndex,
    vt_time: ValueTypeIndex,
    memory_types: Option<MemoryTypes>,
    /// Header of the current run.
    header: Header,
    /// Number of headers seen.
    runs: usize,
    files: FxHashMap<u32, FileDecl>,
    functions: FxHashMap<(&'a [u8], StringId), FunctionIndex>,
    /// (name, file, line) → location.
    locations: FxHashMap<(&'a [u8], StringId, i32), LocationIndex>,
    /// (prefix node or `u32::MAX`, location) → node: the stack table's index.
    nodes: FxHashMap<(u32, u32), StackIndex>,
    stacks: FxHashMap<&'a [u8], Resolved>,
    tokens: Vec<Token<'a>>,
    frames: Vec<LocationIndex>,
    times: Vec<f64>,
    run_of_sample: Vec<i32>,
    toplevel: Vec<(SampleIndex, StringId, i32)>,
    elapsed_us: f64,
    previous_memory: Option<MemoryFields>,
}

impl<'a> Reader<'a> {
    fn new(options: &ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(FORMAT, options.source_uri.as_deref(), None);
        let vt_samples = b.value_type(TYPE_SAMPLES.0, TYPE_SAMPLES.1);
        let vt_time = b.value_type(TYPE_TIME.0, TYPE_TIME.1);
        b.set_meta(META_DEFAULT_TYPE, TYPE_TIME.0);
        Reader {
            limits: options.limits.clone(),
            b,
            warnings: Warnings::default(),
            source,
            vt_samples,
            vt_time,
            memory_types: None,
            header: Header {
                memory: false,
                gc: false,
                line: false,
                interval_us: 1,
            },
            runs: 0,
            files: FxHashMap::default(),
            functions: FxHashMap::default(),
            locations: FxHashMap::default(),
            nodes: FxHashMap::default(),
            stacks: FxHashMap::default(),
            tokens: Vec::new(),
            frames: Vec::new(),
            times: Vec::new(),
            run_of_sample: Vec::new(),
            toplevel: Vec::new(),
            elapsed_us: 0.0,
            previous_memory: None,
        }
    }

    fn error(line: usize, message: impl Into<String>) -> ReadError {
        ReadError::new(FORMAT, Place::Line(line), message)
    }

    fn first_line(&mut self, line: Option<Line<'a>>) -> Result<(), ReadError> {
        let line = line.ok_or_else(|| ReadError::whole(FORMAT, "the file is empty"))?;
        match Header::parse(line.text) {
            Ok(h) => {
                self.start_run(h, line.text);
                Ok(())
            }
            Err(HeaderProblem::BadInterval(msg)) => Err(Self::error(1, msg)),
            Err(HeaderProblem::NotAHeader) => Err(Self::error(
                1,
                format!(
                    "expected an Rprof header such as `sample.interval=20000` or \
                     `memory profiling: line profiling: sample.interval=20000`, found {}",
                    quote_start(line.text)
                ),
            )),
        }
    }

    fn line(&mut self, line: Line<'a>) -> Result<(), ReadError> {
        let text = line.text;
        if text.starts_with(FILE_LINE_PREFIX) {
            return self.file_line(line);
        }
        if text.first() == Some(&b'#') {
            return Err(Self::error(
                line.number,
                format!(
                    "unexpected line {}: the only `#` lines of Rprof are `#File N: path`",
                    quote_start(text)
                ),
            ));
        }
        if matches!(text.first(), Some(b'm' | b'G' | b'l' | b's')) {
            return match Header::parse(text) {
                Ok(h) => {
                    self.end_run();
                    self.start_run(h, text);
                    Ok(())
                }
                Err(HeaderProblem::BadInterval(msg)) => Err(Self::error(line.number, msg)),
                Err(HeaderProblem::NotAHeader) => Err(Self::error(
                    line.number,
                    format!(
                        "expected a sample line (quoted names and `F#L` source references), \
                         found {}",
                        quote_start(text)
                    ),
                )),
            };
        }
        if text.is_empty() {
            self.warnings.add(FORMAT, "empty", || {
                format!(
                    "line {}: empty line skipped (R never writes one)",
                    line.number
                )
            });
            return Ok(());
        }
        if !line.terminated {
            self.warnings.add(FORMAT, "truncated", || {
                format!(
                    "line {}: the last line has no line end, so the file was cut while being \
                     written; the incomplete sample was dropped",
                    line.number
                )
            });
            return Ok(());
        }
        self.sample_line(line)
    }

    fn start_run(&mut self, header: Header, text: &[u8]) {
        self.header = header;
        self.runs += 1;
        self.previous_memory = None;
        let text = String::from_utf8_lossy(text);
        self.b.add_meta(META_HEADER, &text);
    }

    /// Closes the current run: file numbers and the stack table are scoped to it.
    fn end_run(&mut self) {
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

    fn file_line(&mut self, line: Line<'a>) -> Result<(), ReadError> {
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

    fn sample_line(&mut self, line: Line<'a>) -> Result<(), ReadError> {
        let n = line.number;
        let (memory, offset) = tokens::memory_prefix(line.text).map_err(|f| column_error(n, f))?;
        let body = line.text.get(offset..).unwrap_or_default();
        self.check_memory_announced(memory.is_some(), n);
        let resolved = match self.stacks.get(body) {
            Some(r) => *r,
            None => match self.parse_stack(body, offset + 1, n)? {
                Some(r) => r,
                None => return Ok(()),
            },
        };
        self.push_sample(resolved, memory, n)
    }

    fn check_memory_announced(&mut self, has_prefix: bool, n: usize) {
        if has_prefix && !self.header.memory {
            self.warnings.add(FORMAT, "unannounced-memory", || {
                format!(
                    "line {n}: memory prefix although the header does not announce memory \
                     profiling; the values are kept"
                )
            });
        } else if !has_prefix && self.header.memory {
            self.warnings.add(FORMAT, "missing-memory", || {
                format!(
                    "line {n}: no memory prefix although the header announces memory \
                     profiling; the sample has no memory values"
                )
            });
        }
    }

    /// Parses a stack text. `None` when the line is dropped (cut before its first frame).
    fn parse_stack(
        &mut self,
        body: &'a [u8],
        column0: usize,
        n: usize,
    ) -> Result<Option<Resolved>, ReadError> {
        let mut toks = std::mem::take(&mut self.tokens);
        let damage = tokens::scan(body, column0, &mut toks).map_err(|f| column_error(n, f))?;
        let result = self.resolve_tokens(&toks, damage.is_some(), n);
        self.tokens = toks;
        let resolved = result?;
        match damage {
            None => {
                self.stacks.insert(body, resolved);
                Ok(Some(resolved))
            }
            Some(d) => Ok(self.damaged(d, resolved, n)),
        }
    }

    fn damaged(&mut self, d: Damage, resolved: Resolved, n: usize) -> Option<Resolved> {
        let (what, kind) = match d.cut {
            Cut::Name => ("a function name without its closing quote", "cut-name"),
            Cut::SrcRef => ("a source reference without its line number", "cut-srcref"),
        };
        if resolved.stack.is_none() {
            self.warnings.add(FORMAT, &format!("{kind}-empty"), || {
                format!(
                    "line {n}: the line ends in {what} at column {} and has no complete frame \
                     before it; line dropped",
                    d.column
                )
            });
            return None;
        }
        self.warnings.add(FORMAT, kind, || {
            format!(
                "line {n}: the line ends in {what} at column {} (cut while being written?); \
                 the sample keeps the complete frames before it",
                d.column
            )
        });
        Some(resolved)
    }

    /// Turns tokens into a stack: a source reference belongs to the frame after it; one after
    /// the last frame is the top-level line. With `cut`, a source reference before the cut
    /// belonged to the lost frame and is dropped.
    fn resolve_tokens(
        &mut self,
        toks: &[Token<'a>],
        cut: bool,
        n: usize,
    ) -> Result<Resolved, ReadError> {
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        let mut pending: Option<SrcRef> = None;
        for tok in toks {
            match *tok {
                Token::SrcRef(r) => {
                    if let Some(first) = pending.replace(r) {
                        self.frames = frames;
                        return Err(Self::error(
                            n,
                            format!(
                                "two source references in a row ({}#{} {}#{}): each belongs to \
                                 the frame after it",
                                first.file, first.line, r.file, r.line
                            ),
                        ));
                    }
                }
                Token::Frame(name) => {
                    let loc = match self.frame_location(name, pending.take(), n) {
                        Ok(loc) => loc,
                        Err(e) => {
                            self.frames = frames;
                            return Err(e);
                        }
                    };
                    frames.push(loc);
                }
            }
        }
        if frames.len() > self.limits.max_stack_depth {
            self.frames = frames;
            return Err(Self::error(
                n,
                format!(
                    "the sample has more than {} frames (limit max_stack_depth)",
                    self.limits.max_stack_depth
                ),
            ));
        }
        let toplevel = match pending.filter(|_| !cut) {
            Some(r) => {
                let file = self.resolve_file(r, n)?;
                Some((file, line_i32(r.line)))
            }
            None => None,
        };
        let stack = self.stack(&frames);
        self.frames = frames;
        Ok(Resolved { stack, toplevel })
    }

    fn resolve_file(&mut self, r: SrcRef, n: usize) -> Result<StringId, ReadError> {
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

    fn frame_location(
        &mut self,
        name: &'a [u8],
        srcref: Option<SrcRef>,
        n: usize,
    ) -> Result<LocationIndex, ReadError> {
        let (filename, line) = match srcref {
            Some(r) => (self.resolve_file(r, n)?, line_i32(r.line)),
            None => (StringId::NA, 0),
        };
        if let Some(&loc) = self.locations.get(&(name, filename, line)) {
            return Ok(loc);
        }
        let f = self.function(name, filename, n);
        if let Some(start) = self.b.functions_mut().start_line.get_mut(f.idx()) {
            if line > 0 && (*start == 0 || line < *start) {
                *start = line;
            }
        }
        let loc = self.b.location(Some(f), line);
        self.locations.insert((name, filename, line), loc);
        Ok(loc)
    }

    /// The stack node of `frames` (innermost first). Rprof stacks are interned here, with a
    /// fast hash, and appended to the builder's table without its own lookup (this reader is
    /// the only one adding nodes to its builder, so `nodes` knows every node). Whole repeated
    /// stacks never get here: the line table caches them.
    fn stack(&mut self, frames: &[LocationIndex]) -> Option<StackIndex> {
        let mut prefix: Option<StackIndex> = None;
        for &loc in frames.iter().rev() {
            let key = (prefix.map_or(u32::MAX, |p| p.0), loc.0);
            let node = match self.nodes.get(&key) {
                Some(&node) => node,
                None => {
                    let node = self.b.push_stack_node(prefix, loc);
                    self.nodes.insert(key, node);
                    node
                }
            };
            prefix = Some(node);
        }
        prefix
    }

    fn function(&mut self, name: &'a [u8], filename: StringId, n: usize) -> FunctionIndex {
        if let Some(&f) = self.functions.get(&(name, filename)) {
            return f;
        }
        let text = self.text_to_string(name, n, "function name");
        let id = self.b.intern(&text);
        let f = self.b.add_function(FunctionKey {
            name: id,
            system_name: id,
            filename,
            start_line: 0,
        });
        self.functions.insert((name, filename), f);
        f
    }

    /// Decodes text R wrote in its native encoding; invalid UTF-8 is replaced, with a warning.
    fn text_to_string(&mut self, bytes: &[u8], n: usize, what: &str) -> String {
        match std::str::from_utf8(bytes) {
            Ok(s) => s.to_owned(),
            Err(_) => {
                self.warnings.add(FORMAT, "utf8", || {
                    format!(
                        "line {n}: a {what} is not valid UTF-8 (R writes names in the native \
                         encoding); invalid bytes were replaced by U+FFFD"
                    )
                });
                String::from_utf8_lossy(bytes).into_owned()
            }
        }
    }

    fn push_sample(
        &mut self,
        resolved: Resolved,
        memory: Option<MemoryFields>,
        n: usize,
    ) -> Result<(), ReadError> {
        if self.b.num_samples() >= self.limits.max_samples {
            return Err(Self::error(
                n,
                format!(
                    "more than {} samples (limit max_samples)",
                    self.limits.max_samples
                ),
            ));
        }
        let interval = self.header.interval_us as f64;
        let s = self.b.add_sample(self.source, resolved.stack);
        self.b.set_value(s, self.vt_samples, 1.0);
        self.b.set_value(s, self.vt_time, interval * 1000.0);
        if let Some(m) = memory {
            self.set_memory(s, m);
        }
        if let Some((file, line)) = resolved.toplevel {
            self.toplevel.push((s, file, line));
        }
        // The timer fires at the end of each interval: sample k is taken at k × interval, as
        // R's own `summaryRprof(memory = "tseries")` labels it.
        self.elapsed_us += interval;
        self.times.push(self.elapsed_us / 1e6);
        self.run_of_sample
            .push(i32::try_from(self.runs).unwrap_or(i32::MAX));
        Ok(())
    }

    fn set_memory(&mut self, s: SampleIndex, m: MemoryFields) {
        let t = match self.memory_types {
            Some(t) => t,
            None => {
                let mut vt = |(t, u): (&str, &str)| self.b.value_type(t, u);
                let t = MemoryTypes {
                    small: vt(TYPE_VSIZE_SMALL),
                    large: vt(TYPE_VSIZE_LARGE),
                    nodes: vt(TYPE_NODES),
                    duplications: vt(TYPE_DUPLICATIONS),
                    increase: vt(TYPE_MEMORY_INCREASE),
                };
                self.memory_types = Some(t);
                t
            }
        };
        let bytes = memory_bytes(&m);
        let increase = match self.previous_memory {
            Some(p) => {
                let before = memory_bytes(&p);
                bytes
                    .iter()
                    .zip(before)
                    .map(|(now, then)| (now - then).max(0.0))
                    .sum::<f64>()
            }
            None => 0.0,
        };
        self.previous_memory = Some(m);
        let [small, large, nodes] = bytes;
        self.b.set_value(s, t.small, small);
        self.b.set_value(s, t.large, large);
        self.b.set_value(s, t.nodes, nodes);
        self.b.set_value(s, t.duplications, m.duplications as f64);
        self.b.set_value(s, t.increase, increase);
    }

    fn finish(mut self) -> Result<Parsed, ReadError> {
        self.end_run();
        if self.b.num_samples() == 0 {
            self.warnings.add(FORMAT, "no-samples", || {
                "the file has a header but no samples".to_owned()
            });
        }
        let times = std::mem::take(&mut self.times);
        *self
            .b
            .samples_mut()
            .ext
            .get_or_create(SAMPLE_TIME, ColumnKind::Dbl) = ColumnData::Dbl(times);
        if self.runs > 1 {
            let runs = std::mem::take(&mut self.run_of_sample);
            *self
                .b
                .samples_mut()
                .ext
                .get_or_create(COL_RUN, ColumnKind::Int) = ColumnData::Int(runs);
        }
        for (s, file, line) in std::mem::take(&mut self.toplevel) {
            self.b.set_sample_ext(s, COL_TOPLEVEL_FILE, Cell::Chr(file));
            self.b.set_sample_ext(s, COL_TOPLEVEL_LINE, Cell::Int(line));
        }
        let profile = self
            .b
            .build()
            .map_err(|e| ReadError::whole(FORMAT, format!("internal error: {e}")))?;
        Ok(Parsed {
            format: Format::Rprof,
            profile,
            warnings: self.warnings.into_vec(),
        })
    }
}

/// The three memory totals in bytes: small and large vector heaps (8-byte cells) and nodes.
fn memory_bytes(m: &MemoryFields) -> [f64; 3] {
    [
        m.small_vcells as f64 * 8.0,
        m.large_vcells as f64 * 8.0,
        m.node_bytes as f64,
    ]
}

fn line_i32(line: u32) -> i32 {
    i32::try_from(line).unwrap_or(i32::MAX)
}

fn column_error(n: usize, f: tokens::Fault) -> ReadError {
    ReadError::new(
        FORMAT,
        Place::Line(n),
        format!("column {}: {}", f.column, f.message),
    )
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

/// The first characters of a line, quoted for a message; binary data as hex bytes.
fn quote_start(text: &[u8]) -> String {
    const SHOWN: usize = 60;
    const SHOWN_BYTES: usize = 8;
    let binary = std::str::from_utf8(text).is_err() || text.iter().any(|&b| b < 0x20 && b != b'\t');
    if binary {
        let hex: Vec<String> = text
            .iter()
            .take(SHOWN_BYTES)
            .map(|b| format!("{b:02x}"))
            .collect();
        return format!("binary data (bytes {})", hex.join(" "));
    }
    let shown = String::from_utf8_lossy(text.get(..text.len().min(SHOWN)).unwrap_or(text));
    let more = if text.len() > SHOWN { "…" } else { "" };
    format!("{shown:?}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str) -> Result<Parsed, ReadError> {
        read(s.as_bytes(), &ReadOptions::default())
    }

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

    #[test]
    fn srcref_belongs_to_next_frame() {
        let p = read_str(
            "line profiling: sample.interval=10000\n#File 1: a.R\n\"g\" 1#5 \"f\" 1#2 \"eval\" 1#9 \n",
        )
        .unwrap()
        .profile;
        let frames: Vec<_> = p
            .frames_leaf_first(p.sample_stack(SampleIndex(0)))
            .map(|l| {
                let f = p.location_function(l).unwrap();
                (
                    p.str(p.functions.name[f.idx()]).to_owned(),
                    p.str(p.functions.filename[f.idx()]).to_owned(),
                    p.locations.line[l.idx()],
                )
            })
            .collect();
        assert_eq!(
            frames,
            vec![
                ("g".to_owned(), String::new(), 0),
                ("f".to_owned(), "a.R".to_owned(), 5),
                ("eval".to_owned(), "a.R".to_owned(), 2),
            ]
        );
        assert_eq!(
            p.samples.ext.int(COL_TOPLEVEL_LINE).unwrap().first(),
            Some(&9)
        );
    }

    #[test]
    fn truncated_last_line_is_dropped_with_warning() {
        let parsed = read_str("sample.interval=10000\n\"a\" \n\"b\" ").unwrap();
        assert_eq!(parsed.profile.num_samples(), 1);
        assert_eq!(parsed.warnings.len(), 1);
        assert!(parsed.warnings[0]
            .message
            .starts_with("line 3: the last line"));
    }

    #[test]
    fn errors_carry_line_numbers() {
        let e = read_str("sample.interval=10000\n\"a\" \n1#2 \"b\" \n").unwrap_err();
        assert_eq!(e.place, Place::Line(3));
        let e = read_str("not a header\n").unwrap_err();
        assert_eq!(e.place, Place::Line(1));
    }
}
