//! Reading a JFR recording: chunk by chunk (header, event frames, metadata, constant pools),
//! then one sample per kept event.

mod bytes;
mod chunk;
mod events;
mod metadata;
mod stacks;
mod values;

use std::collections::BTreeMap;

use super::NAME;
use crate::formats::error::{ReadError, Warning, Warnings};
use crate::formats::read_common::finish_parsed;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    FunctionIndex, LocationIndex, ProfileBuilder, SourceIndex, StringId, ValueTypeIndex,
    META_DEFAULT_TYPE,
};

/// How many event types a warning names (the most frequent first).
const WARNING_TYPES_NAMED: usize = 5;

/// Reads a JFR recording.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if !super::detect(bytes) {
        return Err(ReadError::whole(
            NAME,
            "not a JFR recording (no `FLR\\0` magic with major version 1 or 2)",
        ));
    }
    let first = chunk::header(bytes, 0)?;
    let mut r = Reader::new(options, &first);
    let mut base = 0;
    while base < bytes.len() {
        let chunk = chunk::open(bytes, base)?;
        r.chunk(&chunk)?;
        base += chunk.header.size;
    }
    r.finish()
}

/// What the reader accumulates over the chunks.
struct Reader<'o> {
    b: ProfileBuilder,
    options: &'o ReadOptions,
    source: SourceIndex,
    /// Epoch nanoseconds of the first chunk's start: `.time` counts from here.
    t0_nanos: i64,
    value_types: HashMap<String, ValueTypeIndex>,
    /// Every event, by type name (as `jfr summary`).
    counts: BTreeMap<String, usize>,
    /// Events without a stack trace that were not kept, by type name.
    dropped: BTreeMap<String, usize>,
    /// Events of weighed kinds kept with an empty stack, by type name.
    stackless: BTreeMap<String, usize>,
    /// Samples whose stack trace JFR marked truncated.
    truncated: usize,
    chunks: usize,
    duration_nanos: i64,
    version: String,
    /// Locations by (function, line, bytecode index, frame type).
    locations: HashMap<(FunctionIndex, i32, i32, StringId), LocationIndex>,
    warnings: Warnings,
}

impl<'o> Reader<'o> {
    fn new(options: &'o ReadOptions, first: &chunk::Header) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(
            NAME,
            options.source_uri.as_deref(),
            Some(first.start_nanos as f64 / 1e9),
        );
        Reader {
            b,
            options,
            source,
            t0_nanos: first.start_nanos,
            value_types: HashMap::default(),
            counts: BTreeMap::new(),
            dropped: BTreeMap::new(),
            stackless: BTreeMap::new(),
            truncated: 0,
            chunks: 0,
            duration_nanos: 0,
            version: format!("{}.{}", first.major, first.minor),
            locations: HashMap::default(),
            warnings: Warnings::default(),
        }
    }

    /// Reads the events of one chunk.
    fn chunk(&mut self, chunk: &chunk::Chunk) -> Result<(), ReadError> {
        self.chunks += 1;
        self.duration_nanos = self
            .duration_nanos
            .saturating_add(chunk.header.duration_nanos);
        let mut state = stacks::ChunkState::default();
        for frame in &chunk.events {
            self.event(chunk, &mut state, frame)?;
        }
        Ok(())
    }

    /// Meta, warnings and the built profile.
    fn finish(mut self) -> Result<Parsed, ReadError> {
        self.b.set_meta("jfr.version", &self.version);
        self.b.set_meta("jfr.chunks", &self.chunks.to_string());
        self.b
            .set_meta("jfr.duration_ns", &self.duration_nanos.to_string());
        for (name, n) in &self.counts {
            self.b
                .set_meta(&format!("jfr.events.{name}"), &n.to_string());
        }
        let default = events::KINDS
            .iter()
            .map(|k| k.value_type)
            .find(|t| self.value_types.contains_key(*t));
        if let Some(t) = default {
            self.b.set_meta(META_DEFAULT_TYPE, t);
        }
        let mut w = self.warnings;
        if let Some(x) = summary_warning(
            &self.dropped,
            "events without a stack trace were not kept as samples (their counts are in meta \
             jfr.events.*)",
        ) {
            w.push(x);
        }
        if let Some(x) = summary_warning(
            &self.stackless,
            "events without a stack trace were kept with an empty stack",
        ) {
            w.push(x);
        }
        if self.truncated > 0 {
            w.push(Warning::new(
                NAME,
                "stack traces were truncated by JFR (stackdepth); kept as recorded",
                self.truncated,
            ));
        }
        finish_parsed(self.b, Format::Jfr, w)
    }
}

/// One warning counting the events of `by_type`, naming the most frequent types.
fn summary_warning(by_type: &BTreeMap<String, usize>, what: &str) -> Option<Warning> {
    let total: usize = by_type.values().sum();
    if total == 0 {
        return None;
    }
    let mut top: Vec<(&String, &usize)> = by_type.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let named: Vec<String> = top
        .iter()
        .take(WARNING_TYPES_NAMED)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    let more = if top.len() > WARNING_TYPES_NAMED {
        format!(", and {} more types", top.len() - WARNING_TYPES_NAMED)
    } else {
        String::new()
    };
    Some(Warning::new(
        NAME,
        format!("{what}: {}{more}", named.join(", ")),
        total,
    ))
}
