//! The reader: one pass over the lines, one sample per header line and its frame lines. The
//! frames of the sample being read are held until the sample ends (a blank line, the next
//! header or the end of the input), so that a source line can still give its frame a line.

use super::grammar::{self, Frame, Header};
use super::{FORMAT, META_FIRST_TIME, META_HEADER, SAMPLE_CPU, SAMPLE_EVENT};
use crate::formats::read_common::{check_sample_limit, decode_lossy, finish_parsed};
use crate::formats::{Format, Limits, Parsed, Place, ReadError, ReadOptions, Warnings};
use crate::hash::HashMap;
use crate::model::ext::{locations as loc_cols, samples as sample_cols};
use crate::model::{
    Cell, ColumnKind, FunctionIndex, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex,
    META_DEFAULT_TYPE,
};

/// The value type every sample has: 1 per sample.
const SAMPLES_TYPE: &str = "samples";
/// Frame type of kernel frames (OpenTelemetry `profile.frame.type`).
const FRAME_KERNEL: &str = "kernel";
/// Frame type of the other frames.
const FRAME_NATIVE: &str = "native";

/// An error at 1-based line `line`.
fn err(line: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Line(line), message)
}

/// Reads `perf script` output (see the module documentation of [`super`]).
pub(super) fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let mut r = Reader::new(options);
    let text = decode_lossy(bytes, FORMAT, &mut r.warnings);
    for (i, line) in text.lines().enumerate() {
        r.line(i + 1, line)?;
    }
    r.finish()
}

/// A frame of the sample being read and its source line (0 when not printed).
struct PendingFrame<'a> {
    frame: Frame<'a>,
    line: i32,
}

/// The sample being read.
struct Pending<'a> {
    /// 1-based line of the header.
    line: usize,
    header: Header<'a>,
    frames: Vec<PendingFrame<'a>>,
}

/// Location identity: function, address, line, inlined.
type LocationKey = (FunctionIndex, Option<u64>, i32, bool);

struct Reader<'a> {
    b: ProfileBuilder,
    warnings: Warnings,
    limits: &'a Limits,
    source: SourceIndex,
    samples_type: ValueTypeIndex,
    /// Value type per event type name.
    events: HashMap<String, ValueTypeIndex>,
    locations: HashMap<LocationKey, LocationIndex>,
    current: Option<Pending<'a>>,
    first_time: Option<f64>,
    /// Lines seen before the first sample (the `--header` block).
    in_preamble: bool,
}

impl<'a> Reader<'a> {
    fn new(options: &'a ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(FORMAT, options.source_uri.as_deref(), None);
        let samples_type = b.value_type(SAMPLES_TYPE, "count");
        b.set_meta(META_DEFAULT_TYPE, SAMPLES_TYPE);
        for (column, kind) in [
            (sample_cols::THREAD_NAME, ColumnKind::Chr),
            (SAMPLE_EVENT, ColumnKind::Chr),
        ] {
            b.declare_sample_column(column, kind);
        }
        let ext = &mut b.locations_mut().ext;
        ext.get_or_create(loc_cols::ADDRESS, ColumnKind::U64);
        ext.get_or_create(loc_cols::FRAME_TYPE, ColumnKind::Chr);
        ext.get_or_create(loc_cols::INLINED, ColumnKind::Lgl);
        Reader {
            b,
            warnings: Warnings::default(),
            limits: &options.limits,
            source,
            samples_type,
            events: HashMap::default(),
            locations: HashMap::default(),
            current: None,
            first_time: None,
            in_preamble: true,
        }
    }

    /// Reads line `n`.
    fn line(&mut self, n: usize, text: &'a str) -> Result<(), ReadError> {
        if text.trim().is_empty() {
            return self.end_sample();
        }
        if let Some(comment) = text.strip_prefix('#') {
            self.comment(n, comment);
            return Ok(());
        }
        if text.starts_with(char::is_whitespace) {
            self.stack_line(n, text);
            return Ok(());
        }
        let header = grammar::parse_header(text).ok_or_else(|| {
            err(
                n,
                format!(
                    "{:?} is neither a sample header (`COMM PID TIME: PERIOD EVENT:`) nor an \
                     indented frame line (`ADDR SYMBOL (DSO)`)",
                    grammar::shorten(text)
                ),
            )
        })?;
        self.header(n, header)
    }

    /// A `#` line: the `--header` block before the first sample goes to meta.
    fn comment(&mut self, n: usize, comment: &str) {
        let body = comment.trim();
        if self.in_preamble {
            if !body.is_empty() && !body.bytes().all(|b| b == b'=') {
                self.b.add_meta(META_HEADER, body);
            }
            return;
        }
        self.warnings.add(FORMAT, "comment", || {
            format!("line {n}: `#` lines after the first sample are not kept")
        });
    }

    /// A sample header: ends the sample before and starts a new one.
    fn header(&mut self, n: usize, header: Header<'a>) -> Result<(), ReadError> {
        self.end_sample()?;
        self.in_preamble = false;
        let mut frames = Vec::new();
        if !header.rest.is_empty() {
            match grammar::parse_frame(header.rest) {
                Some(frame) => frames.push(PendingFrame { frame, line: 0 }),
                None => self.warnings.add(FORMAT, "trailing", || {
                    format!(
                        "line {n}: fields after the event ({:?}: tracepoint fields, raw data, \
                         …) are not kept",
                        grammar::shorten(header.rest)
                    )
                }),
            }
        }
        self.current = Some(Pending {
            line: n,
            header,
            frames,
        });
        Ok(())
    }

    /// An indented line: a frame, or the source line of the frame before.
    fn stack_line(&mut self, n: usize, text: &'a str) {
        let Some(pending) = self.current.as_mut() else {
            self.warnings.add(FORMAT, "outside", || {
                format!(
                    "line {n}: indented lines outside a sample ({:?}) are not read",
                    grammar::shorten(text.trim())
                )
            });
            return;
        };
        if let Some(frame) = grammar::parse_frame(text) {
            pending.frames.push(PendingFrame { frame, line: 0 });
            return;
        }
        if let (Some((_, line)), Some(last)) =
            (grammar::parse_srcline(text), pending.frames.last_mut())
        {
            last.line = line;
            self.warnings.add(FORMAT, "srcline", || {
                format!(
                    "line {n}: source lines (`-F +srcline`) give locations their line; their \
                     file names are not kept (a function's file is its DSO)"
                )
            });
            return;
        }
        self.warnings.add(FORMAT, "unknown-stack-line", || {
            format!(
                "line {n}: {:?} is not a frame (`ADDR SYMBOL (DSO)`) nor a source line; \
                 such lines are not read",
                grammar::shorten(text.trim())
            )
        });
    }

    /// Turns the sample being read, if any, into a sample of the profile.
    fn end_sample(&mut self) -> Result<(), ReadError> {
        let Some(mut p) = self.current.take() else {
            return Ok(());
        };
        check_sample_limit(&self.b, Format::PerfScript, self.limits.max_samples)?;
        if p.frames.len() > self.limits.max_stack_depth {
            return Err(err(
                p.line,
                format!(
                    "the stack has more than {} frames (Limits::max_stack_depth)",
                    self.limits.max_stack_depth
                ),
            ));
        }
        let mut locs = self.b.take_scratch();
        // An inlined frame is printed without DSO: it has the DSO of the function it is
        // inlined into, the next frame at the same address (perf prints a chain innermost
        // first, every frame at the chain's address). A frame marked inlined with no such
        // frame is the chain's function itself, which perf marks so when the debug info names
        // it otherwise than the symbol table (`__libc_start_main_impl` for
        // `__libc_start_main`): it is kept as not inlined, its DSO unknown.
        let mut host: Option<(Option<&str>, Option<u64>)> = None;
        for f in p.frames.iter_mut().rev() {
            let dso = match (f.frame.inlined, host) {
                (true, Some((dso, address))) if address == f.frame.address => dso,
                (inlined, _) => {
                    if inlined {
                        f.frame.inlined = false;
                        self.warnings.add(FORMAT, "hostless-inlined", || {
                            format!(
                                "frames marked inlined without a frame at their address to be \
                                 inlined into (first in the sample at line {}; perf marks a \
                                 function so when its debug-info name differs from its symbol) \
                                 were kept as functions of their own, without DSO",
                                p.line
                            )
                        });
                    }
                    host = Some((f.frame.dso, f.frame.address));
                    f.frame.dso
                }
            };
            locs.push(self.location(f, dso));
        }
        locs.reverse();
        let stack = self.b.stack_leaf_first(&locs);
        self.b.return_scratch(locs);
        let mut values = vec![(self.samples_type, 1.0)];
        if let Some(event) = p.header.event {
            let vt = self.event_type(event);
            values.push((vt, p.header.period.map_or(1.0, |v| v as f64)));
        }
        let s = self.b.add_sample_with_values(self.source, stack, &values);
        self.sample_columns(s, &p.header);
        Ok(())
    }

    /// The value type of an event, added when new: nanoseconds for the software clocks
    /// (their period is in ns), a count otherwise.
    fn event_type(&mut self, event: &str) -> ValueTypeIndex {
        let name = grammar::event_value_type(event);
        if let Some(&vt) = self.events.get(name) {
            return vt;
        }
        let unit = if name.ends_with("-clock") {
            "nanoseconds"
        } else {
            "count"
        };
        let vt = self.b.value_type(name, unit);
        self.events.insert(name.to_owned(), vt);
        vt
    }

    fn sample_columns(&mut self, s: crate::model::SampleIndex, h: &Header<'_>) {
        let comm = self.b.intern(h.comm);
        self.b
            .set_sample_ext(s, sample_cols::THREAD_NAME, Cell::Chr(comm));
        let event = self.b.strings().intern_opt(h.event);
        self.b.set_sample_ext(s, SAMPLE_EVENT, Cell::Chr(event));
        for (column, value) in [
            (sample_cols::PID, h.pid),
            (sample_cols::TID, h.tid),
            (SAMPLE_CPU, h.cpu),
        ] {
            if let Some(v) = value {
                self.b.declare_sample_column(column, ColumnKind::Int);
                self.b.set_sample_ext(s, column, Cell::Int(v));
            }
        }
        if let Some(t) = h.time {
            let first = match self.first_time {
                Some(first) => first,
                None => {
                    self.b.set_meta(META_FIRST_TIME, &format!("{t}"));
                    *self.first_time.insert(t)
                }
            };
            self.b
                .declare_sample_column(sample_cols::TIME, ColumnKind::Dbl);
            self.b
                .set_sample_ext(s, sample_cols::TIME, Cell::Dbl(t - first));
        }
    }

    /// The location of a frame whose DSO is `dso`, added when new.
    fn location(&mut self, f: &PendingFrame<'_>, dso: Option<&str>) -> LocationIndex {
        let frame = &f.frame;
        let kernel = dso.is_some_and(grammar::is_kernel_dso);
        let dso = dso.filter(|d| *d != "[unknown]");
        let function = self.b.function_named(frame.symbol, dso);
        let key = (function, frame.address, f.line, frame.inlined);
        if let Some(&loc) = self.locations.get(&key) {
            return loc;
        }
        let loc = self.b.add_location(Some(function), f.line);
        let frame_type = self
            .b
            .intern(if kernel { FRAME_KERNEL } else { FRAME_NATIVE });
        self.b
            .set_location_ext(loc, loc_cols::ADDRESS, Cell::U64(frame.address));
        self.b
            .set_location_ext(loc, loc_cols::FRAME_TYPE, Cell::Chr(frame_type));
        self.b
            .set_location_ext(loc, loc_cols::INLINED, Cell::Lgl(Some(frame.inlined)));
        self.locations.insert(key, loc);
        loc
    }

    fn finish(mut self) -> Result<Parsed, ReadError> {
        self.end_sample()?;
        if self.b.num_samples() == 0 {
            return Err(ReadError::whole(
                FORMAT,
                "no sample (a header line `COMM PID TIME: PERIOD EVENT:`) in the input",
            ));
        }
        finish_parsed(self.b, Format::PerfScript, self.warnings)
    }
}
