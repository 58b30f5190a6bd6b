//! The builder side: one source, value types `samples`/`count` and `time`/`nanoseconds`, the
//! per-sample columns, frames as functions, and [`ThreadSink`] that turns a replayed thread's
//! intervals into samples.

use super::events::Event;
use super::replay::Sink;
use crate::formats::error::{ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::trace_event::SAMPLE_PROCESS_NAME;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, ColumnKind, FunctionKey, LocationIndex, ProfileBuilder, SourceIndex, StackIndex,
    StringId, ValueTypeIndex, META_DEFAULT_TYPE,
};

/// The columns every sample of one thread shares.
#[derive(Clone, Copy)]
pub(super) struct ThreadCells {
    pub(super) pid: StringId,
    pub(super) tid: StringId,
    pub(super) thread: StringId,
    pub(super) process: StringId,
}

/// Fills the builder.
pub(super) struct Converter<'o> {
    options: &'o ReadOptions,
    pub(super) b: ProfileBuilder,
    source: SourceIndex,
    count: ValueTypeIndex,
    time: ValueTypeIndex,
    /// Time origin (µs): the trace's first timestamp.
    pub(super) origin: f64,
    frames: HashMap<(String, String, i32, i32), LocationIndex>,
    /// The first error met inside a sink (the sample limit), reported after the replay.
    pub(super) error: Option<ReadError>,
}

impl<'o> Converter<'o> {
    pub(super) fn new(options: &'o ReadOptions, origin: f64) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(
            crate::formats::trace_event::NAME,
            options.source_uri.as_deref(),
            None,
        );
        let count = b.value_type("samples", "count");
        let time = b.value_type("time", "nanoseconds");
        b.declare_sample_column(ext::samples::TIME, ColumnKind::Dbl);
        for c in [
            ext::samples::PID,
            ext::samples::TID,
            ext::samples::THREAD_NAME,
            SAMPLE_PROCESS_NAME,
        ] {
            b.declare_sample_column(c, ColumnKind::Chr);
        }
        Converter {
            options,
            b,
            source,
            count,
            time,
            origin,
            frames: HashMap::default(),
            error: None,
        }
    }

    /// The location of a frame named `name`, with Hermes' `url`/`line`/`column` when given.
    pub(super) fn frame(&mut self, name: &str, args: Option<&serde_json::Value>) -> LocationIndex {
        let arg = |k: &str| args.and_then(|a| a.get(k));
        let url = arg("url").and_then(|u| u.as_str()).unwrap_or("").to_owned();
        let int = |k: &str| {
            arg(k)
                .and_then(|v| v.as_f64())
                .filter(|x| *x >= 0.0 && *x < f64::from(i32::MAX))
                .map_or(0, |x| x as i32)
        };
        let (line, col) = if url.is_empty() {
            (0, 0)
        } else {
            (int("line"), int("column"))
        };
        let key = (name.to_owned(), url, line, col);
        if let Some(&loc) = self.frames.get(&key) {
            return loc;
        }
        let n = self.b.intern(name);
        let filename = self
            .b
            .strings()
            .intern_opt(Some(key.1.as_str()).filter(|u| !u.is_empty()));
        let f = self.b.function(FunctionKey {
            name: n,
            system_name: n,
            filename,
            start_line: 0,
        });
        let loc = self.b.add_location(Some(f), line);
        if col > 0 {
            self.b
                .set_location_ext(loc, ext::locations::COLUMN, Cell::Int(col));
        }
        self.frames.insert(key, loc);
        loc
    }

    /// One sample: `stack` lasted `length` µs from `start` µs.
    pub(super) fn sample(
        &mut self,
        stack: Option<StackIndex>,
        start: f64,
        length: f64,
        cells: ThreadCells,
    ) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) =
            check_sample_limit(&self.b, Format::TraceEvent, self.options.limits.max_samples)
        {
            self.error = Some(e);
            return;
        }
        let s = self.b.add_sample(self.source, stack);
        self.b.set_value(s, self.count, 1.0);
        self.b.set_value(s, self.time, length * 1000.0);
        self.b.set_sample_ext(
            s,
            ext::samples::TIME,
            Cell::Dbl((start - self.origin) / 1e6),
        );
        self.b
            .set_sample_ext(s, ext::samples::PID, Cell::Chr(cells.pid));
        self.b
            .set_sample_ext(s, ext::samples::TID, Cell::Chr(cells.tid));
        self.b
            .set_sample_ext(s, ext::samples::THREAD_NAME, Cell::Chr(cells.thread));
        self.b
            .set_sample_ext(s, SAMPLE_PROCESS_NAME, Cell::Chr(cells.process));
    }

    pub(super) fn max_depth(&self) -> usize {
        self.options.limits.max_stack_depth
    }

    pub(super) fn finish(mut self, warnings: Warnings) -> Result<Parsed, ReadError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.b.set_meta(META_DEFAULT_TYPE, "time");
        finish_parsed(self.b, Format::TraceEvent, warnings)
    }
}

/// A replayed thread into samples: the open frames as stack nodes.
pub(super) struct ThreadSink<'c, 'o> {
    pub(super) c: &'c mut Converter<'o>,
    pub(super) cells: ThreadCells,
    pub(super) stack: Vec<Option<StackIndex>>,
    /// Frames entered past the stack depth limit (kept off the stack, counted).
    pub(super) too_deep: usize,
}

impl Sink for ThreadSink<'_, '_> {
    fn enter(&mut self, event: &Event) {
        if self.stack.len() >= self.c.max_depth() {
            self.too_deep += 1;
            let top = self.stack.last().copied().flatten();
            self.stack.push(top);
            return;
        }
        let name = event.name.as_deref().unwrap_or("(unnamed)");
        let loc = self.c.frame(name, event.args.as_ref());
        let prefix = self.stack.last().copied().flatten();
        let node = self.c.b.stack_node(prefix, loc);
        self.stack.push(Some(node));
    }

    fn leave(&mut self) {
        self.stack.pop();
    }

    fn interval(&mut self, start: f64, length: f64) {
        let top = self.stack.last().copied().flatten();
        self.c.sample(top, start, length, self.cells);
    }
}
