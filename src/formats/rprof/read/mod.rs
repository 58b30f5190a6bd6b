//! The Rprof reader: one pass over the lines, byte-level, no allocation per line.
//!
//! Identical stack text (the part of a line after its memory prefix) is parsed once per
//! profiling run and looked up in a table keyed by the bytes of the input, so the common case
//! of a repeated stack costs one hash and one comparison.
//!
//! The steps live one per file: [`lines`] splits and joins lines, [`srcref`] keeps the
//! `#File` declarations, [`samples`] turns a sample line into a stack and a row, [`memory`]
//! reads the memory prefix. This file holds the reader's state and the line dispatch.

mod lines;
mod memory;
mod samples;
mod srcref;

use super::header::{Header, HeaderProblem};
use super::tokens::{self, MemoryFields, Token};
use super::*;
use crate::formats::read_common::finish_parsed;
use crate::formats::{Format, Limits, Parsed, Place, ReadError, ReadOptions, Warnings};
use crate::hash::HashMap;
use crate::model::{
    Cell, ColumnData, ColumnKind, FunctionIndex, LocationIndex, ProfileBuilder, SampleIndex,
    SourceIndex, StackIndex, StringId, ValueTypeIndex, META_DEFAULT_TYPE, SAMPLE_TIME,
};
pub(super) use lines::is_continuation;
use lines::{join_name_continuations, Line, Lines};
use memory::MemoryTypes;
use samples::Resolved;
use srcref::{FileDecl, FILE_LINE_PREFIX};

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
    files: HashMap<u32, FileDecl>,
    functions: HashMap<(&'a [u8], StringId), FunctionIndex>,
    /// (name, file, line) → location.
    locations: HashMap<(&'a [u8], StringId, i32), LocationIndex>,
    /// (prefix node or `u32::MAX`, location) → node: the stack table's index.
    nodes: HashMap<(u32, u32), StackIndex>,
    stacks: HashMap<&'a [u8], Resolved>,
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
            files: HashMap::default(),
            functions: HashMap::default(),
            locations: HashMap::default(),
            nodes: HashMap::default(),
            stacks: HashMap::default(),
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
        finish_parsed(self.b, Format::Rprof, self.warnings)
    }
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
