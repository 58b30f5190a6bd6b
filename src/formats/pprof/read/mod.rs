//! The pprof reader: two passes over the top-level fields of the (inflated) `Profile`.
//!
//! Pass 1 ([`super::toplevel`]) decodes everything but the samples (sample types, mappings,
//! locations, functions, the string table and the scalars), since fields may come in any order
//! and Go's runtime writes the string table last. Pass 2 then runs as named steps, one file
//! each: [`functions`], [`mappings`], [`locations`] (one model row per `Line`), the value types
//! and [`meta`], and [`samples`], which decodes the samples one at a time into one reused prost
//! `Sample`, resolving location ids through flat id maps, so no per-sample message is kept.
//! Validation follows `go tool pprof` (`postDecode`, `CheckValid`), with Go's wording where it
//! has one, plus the byte offset and the message index.

mod functions;
mod locations;
mod mappings;
mod meta;
mod room;
mod sample_wire;
mod samples;
mod stepped;
mod twice;

use crate::formats::read_common::finish_parsed;
use std::borrow::Cow;

use super::errors::byte_err;
use super::ids::IdMap;
use super::stacks::NodeTable;
use super::toplevel::{PassOne, TopLevel};
use super::*;
use crate::formats::{Format, Limits, Warnings};
use crate::model::{
    Column, ColumnData, LocationIndex, ProfileBuilder, SourceIndex, StringId, INT_NA,
};
use locations::LocationRows;
use room::StackRoom;
use samples::{LabelColumns, PathStep};
pub(super) use samples::{SamplePosition, Window};
pub use stepped::SteppedRead;
pub use twice::{changed, FirstRead, SecondRead};

/// Reads gzipped or raw pprof.
pub(super) fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(FORMAT, "empty input file"));
    }
    let data: Cow<[u8]> = if gzip::is_gzip(bytes) {
        let cap = options.limits.decompressed_cap(bytes.len());
        Cow::Owned(gzip::gunzip_capped(bytes, cap, FORMAT)?)
    } else {
        Cow::Borrowed(bytes)
    };
    let (top, mut reader) = before_samples(&data, PassOne::default(), options, |s| s)?;
    reader.samples(&data, &mut SamplePosition::default(), usize::MAX)?;
    reader.after_samples(&top)
}

/// Pass 1 (the rest of it, after what `ahead` took as the input arrived) and the steps before
/// the samples, on the raw (inflated) `data`; `own` turns the strings borrowed from `data`
/// into those the reader keeps (the identity, or a copy for a reader that outlives `data`).
pub(super) fn before_samples<'d, 's>(
    data: &'d [u8],
    ahead: PassOne,
    options: &ReadOptions,
    own: impl Fn(Cow<'d, str>) -> Cow<'s, str>,
) -> Result<(TopLevel, Reader<'s>), ReadError> {
    if data.is_empty() {
        return Err(ReadError::whole(
            FORMAT,
            "empty input file (the gzip stream holds no data)",
        ));
    }
    let top = ahead.finish(data)?;
    make_reader_room(&top, data.len());
    let mut warnings = Warnings::default();
    let strings = lossy_strings(data, &top, &mut warnings)
        .into_iter()
        .map(own)
        .collect();
    let reader = Reader::before_samples(&top, strings, warnings, options)?;
    Ok((top, reader))
}

/// Makes the room the reader is planned to take after pass 1 over an input of `input_len`
/// bytes (see [`room::reader_room`]).
fn make_reader_room(top: &TopLevel, input_len: usize) {
    let values = top.sample_types.len();
    let room = room::reader_room(input_len, top.sample_bytes, top.num_samples, values);
    crate::memory::make_room(room);
}

/// The string table as text, invalid UTF-8 replaced (with a warning per string).
fn lossy_strings<'d>(data: &'d [u8], top: &TopLevel, warnings: &mut Warnings) -> Vec<Cow<'d, str>> {
    let text = |(i, range): (usize, &std::ops::Range<usize>)| {
        let raw = data.get(range.clone()).unwrap_or_default();
        String::from_utf8_lossy(raw).tap_invalid(|| {
            warnings.add(FORMAT, "utf8", || {
                format!(
                    "string_table[{i}] is not valid UTF-8; invalid bytes were replaced with U+FFFD"
                )
            })
        })
    };
    top.strings.iter().enumerate().map(text).collect()
}

/// Converts the decoded top level into a profile. `'s`: the lifetime of the string table's
/// text (borrowed from the input, or owned: `'static`).
pub(super) struct Reader<'s> {
    limits: Limits,
    b: ProfileBuilder,
    warnings: Warnings,
    strings: Vec<Cow<'s, str>>,
    /// Model id of each pprof string index, interned on first use (`u32::MAX` = not yet).
    string_ids: Vec<u32>,
    function_rows: IdMap<u32>,
    /// The model rows of each location, by its pprof id.
    location_lines: IdMap<LocationRows>,
    /// Interned stack nodes.
    stack_nodes: NodeTable,
    /// The previous sample's stack from the root, one step per pprof location.
    previous_path: Vec<PathStep>,
    /// The locations of a walk's new nodes past its first (scratch, kept for its room).
    new_run: Vec<LocationIndex>,
    /// When and how much to reserve of the stack table.
    stack_room: StackRoom,
    source: SourceIndex,
    labels: LabelColumns,
}

impl<'s> Reader<'s> {
    /// The reader after the steps before the samples, from pass 1's `top` and its `strings`.
    fn before_samples(
        top: &TopLevel,
        strings: Vec<Cow<'s, str>>,
        warnings: Warnings,
        options: &ReadOptions,
    ) -> Result<Self, ReadError> {
        let mut reader = Reader::new(top, strings, warnings, options)?;
        reader.functions(top)?;
        reader.mappings(top)?;
        reader.locations(top)?;
        reader.value_types(top)?;
        reader.check_sample_limit(top)?;
        // Pass 1 counted the samples (each at least two bytes of the input).
        reader.b.reserve_samples(top.num_samples);
        Ok(reader)
    }

    fn new(
        top: &TopLevel,
        strings: Vec<Cow<'s, str>>,
        warnings: Warnings,
        options: &ReadOptions,
    ) -> Result<Self, ReadError> {
        match strings.first() {
            Some(s) if s.is_empty() => {}
            Some(_) => return Err(ReadError::whole(FORMAT, "string_table[0] must be ''")),
            None => {
                return Err(ReadError::whole(
                    FORMAT,
                    "malformed profile format: the string table is empty (string_table[0] \
                     must be '')",
                ))
            }
        }
        let mut b = ProfileBuilder::new();
        let time = top.time_nanos.value;
        let timestamp = (time != 0).then(|| time as f64 / 1e9);
        let source = b.add_source(FORMAT, options.source_uri.as_deref(), timestamp);
        let string_ids = vec![u32::MAX; strings.len()];
        Ok(Reader {
            limits: options.limits.clone(),
            b,
            warnings,
            strings,
            string_ids,
            function_rows: IdMap::Dense(Vec::new()),
            location_lines: IdMap::Dense(Vec::new()),
            stack_nodes: NodeTable::default(),
            previous_path: Vec::new(),
            new_run: Vec::new(),
            stack_room: StackRoom::new(top.num_samples),
            source,
            labels: LabelColumns::default(),
        })
    }

    /// The steps after the samples: meta, then the profile.
    pub(super) fn after_samples(mut self, top: &TopLevel) -> Result<Parsed, ReadError> {
        self.meta(top)?;
        self.finish()
    }

    /// The text of string index `idx`; `what` names the referring field for the error.
    pub(super) fn text(
        &self,
        idx: i64,
        offset: usize,
        what: &dyn Fn() -> String,
    ) -> Result<&str, ReadError> {
        usize::try_from(idx)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(|s| s.as_ref())
            .ok_or_else(|| {
                byte_err(
                    offset,
                    format!(
                        "malformed profile format: {}: string index {idx} out of range (the \
                         string table has {} entries)",
                        what(),
                        self.strings.len()
                    ),
                )
            })
    }

    /// The model string of index `idx`, with the empty string as NA.
    pub(super) fn sid(
        &mut self,
        idx: i64,
        offset: usize,
        what: &dyn Fn() -> String,
    ) -> Result<StringId, ReadError> {
        let text = self.text(idx, offset, what)?;
        if text.is_empty() {
            return Ok(StringId::NA);
        }
        let i = idx as usize; // checked in range by `text`
        match self.string_ids.get(i) {
            Some(&id) if id != u32::MAX => Ok(StringId(id)),
            _ => {
                let owned = text.to_owned();
                let id = self.b.intern(&owned);
                if let Some(slot) = self.string_ids.get_mut(i) {
                    *slot = id.0;
                }
                Ok(id)
            }
        }
    }

    /// The model string of [`UNKNOWN_FUNCTION`].
    pub(super) fn unknown_name(&mut self) -> StringId {
        self.b.intern(UNKNOWN_FUNCTION)
    }

    /// A pprof line number as a model `int`: NA (with a warning) when negative or too large.
    pub(super) fn line_number(&mut self, line: i64, what: &dyn Fn() -> String) -> i32 {
        match i32::try_from(line) {
            Ok(l) if l >= 0 => l,
            _ => {
                self.warnings.add(FORMAT, "line-range", || {
                    format!(
                        "{}: line number {line} is negative or too large; kept as NA",
                        what()
                    )
                });
                INT_NA
            }
        }
    }

    fn finish(mut self) -> Result<Parsed, ReadError> {
        let l = std::mem::take(&mut self.labels);
        if !l.sample_id.is_empty() {
            self.b.ext_table(LABELS_TABLE).columns.columns = vec![
                column("sample_id", ColumnData::Int(l.sample_id)),
                column("key", ColumnData::Chr(l.key)),
                column("str", ColumnData::Chr(l.str)),
                column("num", ColumnData::Dbl(l.num)),
                column("num_unit", ColumnData::Chr(l.num_unit)),
            ];
        }
        finish_parsed(self.b, Format::Pprof, self.warnings)
    }
}

/// A named extension column.
fn column(name: &str, data: ColumnData) -> Column {
    Column {
        name: name.to_owned(),
        data,
    }
}

/// Calls a closure when a lossy UTF-8 conversion replaced bytes.
trait TapInvalid {
    fn tap_invalid(self, f: impl FnOnce()) -> Self;
}

impl TapInvalid for Cow<'_, str> {
    fn tap_invalid(self, f: impl FnOnce()) -> Self {
        if matches!(self, Cow::Owned(_)) {
            f();
        }
        self
    }
}
