//! The line-by-line reader: a small state machine over the lines of a dump, one goroutine at
//! a time. Invariant: `expect` is `Line` except between a function (or `created by`) line and
//! its file line; `current` is the goroutine whose stack lines are being read.

use crate::hash::HashMap;
use std::borrow::Cow;

use super::grammar::{self, FunctionLine, Header};
use super::{
    FORMAT, LOC_PC_OFFSET, META_EXIT_STATUS, META_PANIC, SAMPLE_CREATED_BY,
    SAMPLE_CREATED_BY_LOCATION, SAMPLE_CREATOR_ID, SAMPLE_GOROUTINE_ID, SAMPLE_LOCKED, SAMPLE_M,
    SAMPLE_STATE, SAMPLE_WAIT_MINUTES,
};
use crate::formats::inline::INLINED;
use crate::formats::read_common::finish_parsed;
use crate::formats::{Format, Limits, Parsed, Place, ReadError, ReadOptions, Warnings};
use crate::model::{
    Cell, ColumnKind, FunctionIndex, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex,
    INT_NA,
};

/// Largest panic text kept in meta, in bytes; the rest is dropped with a warning.
const MAX_PANIC_BYTES: usize = 64 * 1024;

/// An error at 1-based line `line`.
fn err(line: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Line(line), message)
}

/// Reads a dump (see the module documentation of [`super`]).
pub(super) fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let text = String::from_utf8_lossy(bytes);
    let mut r = Reader::new(options);
    if matches!(text, Cow::Owned(_)) {
        r.warnings.add(FORMAT, "utf8", || {
            "the text is not valid UTF-8; invalid bytes were replaced with U+FFFD".to_owned()
        });
    }
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let last = lines.peek().is_none();
        r.line(i + 1, line, last)?;
    }
    r.finish()
}

/// What the next line must be.
enum Expect<'a> {
    /// Any line.
    Line,
    /// The file line of the function line read at `.0`.
    FrameFile(usize, FunctionLine<'a>),
    /// The file line of the `created by` line read at `.0`: creator name and goroutine.
    CreatorFile(usize, &'a str, Option<u64>),
}

/// The goroutine being read.
struct Goroutine<'a> {
    line: usize,
    header: Header<'a>,
    /// Innermost first.
    frames: Vec<LocationIndex>,
    created_by: Option<(&'a str, LocationIndex)>,
    creator_id: Option<u64>,
    /// Inside an `[originating from goroutine N]:` block: frames are not this goroutine's.
    in_ancestor: bool,
}

/// Location identity: function, line, pc offset, inlined.
type LocationKey = (FunctionIndex, i32, Option<u64>, bool);

struct Reader<'a> {
    b: ProfileBuilder,
    warnings: Warnings,
    limits: &'a Limits,
    source: SourceIndex,
    goroutine_type: ValueTypeIndex,
    locations: HashMap<LocationKey, LocationIndex>,
    expect: Expect<'a>,
    current: Option<Goroutine<'a>>,
    seen_goroutine: bool,
    /// Lines of the panic message, from its first line up to the first goroutine.
    panic: Vec<&'a str>,
    panic_bytes: usize,
}

impl<'a> Reader<'a> {
    fn new(options: &'a ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(FORMAT, options.source_uri.as_deref(), None);
        let goroutine_type = b.value_type("goroutine", "count");
        for (column, kind) in [
            (SAMPLE_GOROUTINE_ID, ColumnKind::U64),
            (SAMPLE_STATE, ColumnKind::Chr),
            (SAMPLE_WAIT_MINUTES, ColumnKind::Int),
            (SAMPLE_LOCKED, ColumnKind::Lgl),
            (SAMPLE_M, ColumnKind::Chr),
            (SAMPLE_CREATED_BY, ColumnKind::Chr),
            (SAMPLE_CREATED_BY_LOCATION, ColumnKind::Int),
            (SAMPLE_CREATOR_ID, ColumnKind::U64),
        ] {
            b.declare_sample_column(column, kind);
        }
        let ext = &mut b.locations_mut().ext;
        ext.get_or_create(LOC_PC_OFFSET, ColumnKind::U64);
        ext.get_or_create(INLINED, ColumnKind::Lgl);
        Reader {
            b,
            warnings: Warnings::default(),
            limits: &options.limits,
            source,
            goroutine_type,
            locations: HashMap::default(),
            expect: Expect::Line,
            current: None,
            seen_goroutine: false,
            panic: Vec::new(),
            panic_bytes: 0,
        }
    }

    /// Reads line `n`; `last` is true for the input's last line.
    fn line(&mut self, n: usize, text: &'a str, last: bool) -> Result<(), ReadError> {
        match std::mem::replace(&mut self.expect, Expect::Line) {
            Expect::FrameFile(at, f) => return self.frame_file(n, text, at, f),
            Expect::CreatorFile(at, name, id) => return self.creator_file(n, text, at, name, id),
            Expect::Line => {}
        }
        if text.trim().is_empty() {
            if !self.panic.is_empty() && !self.seen_goroutine {
                self.panic_line(n, "");
            }
            self.end_goroutine();
            return Ok(());
        }
        if grammar::looks_like_header(text) {
            return self.header(n, text, last);
        }
        if self.current.is_none() {
            self.outside(n, text);
            return Ok(());
        }
        self.stack_line(n, text)
    }

    /// A goroutine header: ends the goroutine before and starts a new one.
    fn header(&mut self, n: usize, text: &'a str, last: bool) -> Result<(), ReadError> {
        self.end_goroutine();
        let header = match grammar::parse_header(text) {
            Ok(h) => h,
            Err(_) if last && !text.ends_with("]:") => {
                self.warnings.add(FORMAT, "truncated", || {
                    format!(
                        "line {n}: the input ends inside a goroutine header ({:?}); ignored",
                        grammar::shorten(text)
                    )
                });
                return Ok(());
            }
            Err(message) => return Err(err(n, message)),
        };
        if header.pointers {
            self.warnings.add(FORMAT, "pointers", || {
                format!("line {n}: the `gp=`/`mp=` pointers of goroutine headers are not kept")
            });
        }
        if self.b.num_samples() >= self.limits.max_samples {
            return Err(err(
                n,
                format!(
                    "more than {} goroutines (the sample limit, Limits::max_samples)",
                    self.limits.max_samples
                ),
            ));
        }
        self.seen_goroutine = true;
        self.current = Some(Goroutine {
            line: n,
            header,
            frames: Vec::new(),
            created_by: None,
            creator_id: None,
            in_ancestor: false,
        });
        Ok(())
    }

    /// A line inside a goroutine's block that is not a file line.
    fn stack_line(&mut self, n: usize, text: &'a str) -> Result<(), ReadError> {
        if let Some(count) = grammar::parse_elided(text) {
            return self.elided(n, count);
        }
        if grammar::is_ancestor_header(text) {
            if let Some(g) = self.current.as_mut() {
                g.in_ancestor = true;
            }
            self.warnings.add(FORMAT, "ancestor", || {
                format!(
                    "line {n}: ancestor tracebacks (`[originating from goroutine N]:`, \
                     GODEBUG=tracebackancestors) are not kept"
                )
            });
            return Ok(());
        }
        if grammar::is_stack_unavailable(text) {
            self.warnings.add(FORMAT, "unavailable", || {
                format!(
                    "line {n}: the stack of a goroutine running on another thread is \
                     unavailable; its sample has no stack"
                )
            });
            return Ok(());
        }
        if let Some((name, id)) = grammar::parse_created_by(text) {
            self.expect = Expect::CreatorFile(n, name, id);
            return Ok(());
        }
        if grammar::parse_file(text).is_some() {
            return Err(err(
                n,
                format!(
                    "the file line {:?} does not follow a function line",
                    grammar::shorten(text.trim())
                ),
            ));
        }
        if !grammar::is_indented(text) {
            if let Some(f) = grammar::parse_function(text) {
                self.expect = Expect::FrameFile(n, f);
                return Ok(());
            }
            // Not part of the stack: the goroutine ended without a blank line.
            self.end_goroutine();
            self.outside(n, text);
            return Ok(());
        }
        Err(err(
            n,
            format!(
                "{:?} is not a line of a goroutine's stack (a function line `name(args)`, \
                 a file line `\\tFILE:LINE +0xOFF`, `created by …` or a blank line)",
                grammar::shorten(text.trim())
            ),
        ))
    }

    fn elided(&mut self, n: usize, count: Option<u64>) -> Result<(), ReadError> {
        let id = self.current.as_ref().map_or(0, |g| g.header.id);
        let how_many = count.map_or_else(|| "some".to_owned(), |c| c.to_string());
        self.warnings.add(FORMAT, "elided", || {
            format!(
                "line {n}: Go left {how_many} frames of goroutine {id} out of the dump \
                 (`...frames elided...`); the stack is kept as printed"
            )
        });
        Ok(())
    }

    /// The file line of a frame: adds the frame to the current goroutine.
    fn frame_file(
        &mut self,
        n: usize,
        text: &'a str,
        at: usize,
        f: FunctionLine<'a>,
    ) -> Result<(), ReadError> {
        let file = grammar::parse_file(text).ok_or_else(|| missing_file_line(n, text, at))?;
        if !f.args.is_empty() && !f.is_inlined() {
            self.warnings.add(FORMAT, "args", || {
                format!(
                    "line {at}: argument values of frames (`{}`) are not kept",
                    grammar::shorten(f.args)
                )
            });
        }
        self.registers(n, file.registers);
        let in_ancestor = self.current.as_ref().is_some_and(|g| g.in_ancestor);
        if in_ancestor {
            return Ok(());
        }
        let depth = self.current.as_ref().map_or(0, |g| g.frames.len());
        if depth >= self.limits.max_stack_depth {
            return Err(err(
                at,
                format!(
                    "the stack has more than {} frames (Limits::max_stack_depth)",
                    self.limits.max_stack_depth
                ),
            ));
        }
        let loc = self.location(f.name, file, f.is_inlined());
        if let Some(g) = self.current.as_mut() {
            g.frames.push(loc);
        }
        Ok(())
    }

    /// The file line of a `created by` line.
    fn creator_file(
        &mut self,
        n: usize,
        text: &'a str,
        at: usize,
        name: &'a str,
        id: Option<u64>,
    ) -> Result<(), ReadError> {
        let file = grammar::parse_file(text).ok_or_else(|| missing_file_line(n, text, at))?;
        self.registers(n, file.registers);
        if self.current.as_ref().is_some_and(|g| g.in_ancestor) {
            return Ok(());
        }
        let loc = self.location(name, file, false);
        if let Some(g) = self.current.as_mut() {
            g.created_by = Some((name, loc));
            g.creator_id = id;
        }
        Ok(())
    }

    fn registers(&mut self, n: usize, seen: bool) {
        if seen {
            self.warnings.add(FORMAT, "registers", || {
                format!("line {n}: the `fp=`/`sp=`/`pc=` values of frames are not kept")
            });
        }
    }

    /// The location of `name` at `file`, added when new.
    fn location(
        &mut self,
        name: &str,
        file: grammar::FileLine<'_>,
        inlined: bool,
    ) -> LocationIndex {
        let function = self.b.function_named(name, Some(file.file));
        let key = (function, file.line, file.pc_offset, inlined);
        if let Some(&loc) = self.locations.get(&key) {
            return loc;
        }
        let loc = self.b.add_location(Some(function), file.line);
        self.b
            .set_location_ext(loc, LOC_PC_OFFSET, Cell::U64(file.pc_offset));
        self.b
            .set_location_ext(loc, INLINED, Cell::Lgl(Some(inlined)));
        self.locations.insert(key, loc);
        loc
    }

    /// A line outside any goroutine: the panic message, `exit status N`, or other text.
    fn outside(&mut self, n: usize, text: &'a str) {
        if !self.seen_goroutine {
            if !self.panic.is_empty() || grammar::is_panic_start(text) {
                self.panic_line(n, text);
            } else {
                self.warnings.add(FORMAT, "before", || {
                    format!(
                        "line {n}: lines before the traceback ({:?}) are not read",
                        grammar::shorten(text)
                    )
                });
            }
            return;
        }
        if let Some(status) = grammar::parse_exit_status(text) {
            self.b.set_meta(META_EXIT_STATUS, status);
            return;
        }
        self.warnings.add(FORMAT, "outside", || {
            format!(
                "line {n}: lines outside goroutine stacks ({:?}) are not read",
                grammar::shorten(text)
            )
        });
    }

    fn panic_line(&mut self, n: usize, text: &'a str) {
        self.panic_bytes = self.panic_bytes.saturating_add(text.len() + 1);
        if self.panic_bytes > MAX_PANIC_BYTES {
            self.warnings.add(FORMAT, "panic-long", || {
                format!(
                    "line {n}: the panic message is longer than {MAX_PANIC_BYTES} bytes; the \
                     rest is not kept"
                )
            });
            return;
        }
        self.panic.push(text);
    }

    /// Turns the current goroutine, if any, into a sample.
    fn end_goroutine(&mut self) {
        let Some(g) = self.current.take() else {
            return;
        };
        let stack = self.b.stack_leaf_first(&g.frames);
        let s = self
            .b
            .add_sample_with_values(self.source, stack, &[(self.goroutine_type, 1.0)]);
        let h = &g.header;
        let state = self.b.intern(&h.state);
        let m = self.b.strings().intern_opt(h.m);
        let cells = [
            (SAMPLE_GOROUTINE_ID, Cell::U64(Some(h.id))),
            (SAMPLE_STATE, Cell::Chr(state)),
            (
                SAMPLE_WAIT_MINUTES,
                Cell::Int(h.wait_minutes.unwrap_or(INT_NA)),
            ),
            (SAMPLE_LOCKED, Cell::Lgl(Some(h.locked))),
            (SAMPLE_M, Cell::Chr(m)),
            (SAMPLE_CREATOR_ID, Cell::U64(g.creator_id)),
        ];
        for (column, cell) in cells {
            self.b.set_sample_ext(s, column, cell);
        }
        if let Some((name, loc)) = g.created_by {
            let name = self.b.intern(name);
            let id = i32::try_from(loc.idx() + 1).unwrap_or(INT_NA);
            self.b.set_sample_ext(s, SAMPLE_CREATED_BY, Cell::Chr(name));
            self.b
                .set_sample_ext(s, SAMPLE_CREATED_BY_LOCATION, Cell::Int(id));
        }
    }

    /// Ends the input: an unfinished frame drops its goroutine (the input was cut).
    fn finish(mut self) -> Result<Parsed, ReadError> {
        match std::mem::replace(&mut self.expect, Expect::Line) {
            Expect::Line => self.end_goroutine(),
            Expect::FrameFile(at, _) | Expect::CreatorFile(at, _, _) => {
                if let Some(g) = self.current.take() {
                    self.warnings.add(FORMAT, "truncated", || {
                        format!(
                            "line {at}: the input ends inside the stack of goroutine {} \
                             (line {}); that goroutine is not read",
                            g.header.id, g.line
                        )
                    });
                }
            }
        }
        if self.b.num_samples() == 0 {
            return Err(ReadError::whole(
                FORMAT,
                "no complete goroutine (`goroutine N [status]:` and its stack) in the input",
            ));
        }
        self.keep_panic();
        finish_parsed(self.b, Format::GoroutineDump, self.warnings)
    }

    fn keep_panic(&mut self) {
        while self.panic.last().is_some_and(|l| l.trim().is_empty()) {
            self.panic.pop();
        }
        if !self.panic.is_empty() {
            let text = self.panic.join("\n");
            self.b.set_meta(META_PANIC, &text);
        }
    }
}

fn missing_file_line(n: usize, text: &str, at: usize) -> ReadError {
    err(
        n,
        format!(
            "the function line (line {at}) is not followed by a file line \
             (`\\tFILE:LINE +0xOFF`); found {:?}",
            grammar::shorten(text.trim())
        ),
    )
}
