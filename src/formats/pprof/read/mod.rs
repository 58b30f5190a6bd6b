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
mod samples;

use crate::formats::read_common::finish_parsed;
use std::borrow::Cow;

use super::errors::byte_err;
use super::ids::IdMap;
use super::stacks::NodeTable;
use super::toplevel::TopLevel;
use super::*;
use crate::formats::{Format, Warnings};
use crate::model::{
    Column, ColumnData, ProfileBuilder, SourceIndex, StringId, ValueTypeIndex, INT_NA,
};
use locations::LocationRows;
use samples::{LabelColumns, PathStep};

/// Reads gzipped or raw pprof.
pub(super) fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(FORMAT, "empty input file"));
    }
    let inflated;
    let data = if gzip::is_gzip(bytes) {
        inflated =
            gzip::gunzip_capped(bytes, options.limits.decompressed_cap(bytes.len()), FORMAT)?;
        inflated.as_slice()
    } else {
        bytes
    };
    if data.is_empty() {
        return Err(ReadError::whole(
            FORMAT,
            "empty input file (the gzip stream holds no data)",
        ));
    }
    let top = TopLevel::scan(data)?;
    let mut reader = Reader::new(&top, options)?;
    reader.functions()?;
    reader.mappings()?;
    reader.locations()?;
    reader.value_types()?;
    reader.samples(data)?;
    reader.meta()?;
    reader.finish()
}

/// Converts the decoded top level into a profile.
struct Reader<'t, 'a> {
    top: &'t TopLevel<'a>,
    options: &'t ReadOptions,
    b: ProfileBuilder,
    warnings: Warnings,
    strings: Vec<Cow<'a, str>>,
    /// Model id of each pprof string index, interned on first use (`u32::MAX` = not yet).
    string_ids: Vec<u32>,
    function_rows: IdMap,
    location_rows: IdMap,
    location_ranges: Vec<LocationRows>,
    value_types: Vec<ValueTypeIndex>,
    /// Interned stack nodes.
    stack_nodes: NodeTable,
    /// The previous sample's stack from the root, one step per pprof location.
    previous_path: Vec<PathStep>,
    source: SourceIndex,
    labels: LabelColumns,
}

impl<'t, 'a> Reader<'t, 'a> {
    fn new(top: &'t TopLevel<'a>, options: &'t ReadOptions) -> Result<Self, ReadError> {
        let mut warnings = Warnings::default();
        let strings: Vec<Cow<'a, str>> = top
            .strings
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                String::from_utf8_lossy(raw).tap_invalid(|| {
                    warnings.add(FORMAT, "utf8", || {
                        format!(
                            "string_table[{i}] is not valid UTF-8; invalid bytes were replaced \
                             with U+FFFD"
                        )
                    })
                })
            })
            .collect();
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
            top,
            options,
            b,
            warnings,
            strings,
            string_ids,
            function_rows: IdMap::Dense(Vec::new()),
            location_rows: IdMap::Dense(Vec::new()),
            location_ranges: Vec::new(),
            value_types: Vec::new(),
            stack_nodes: NodeTable::default(),
            previous_path: Vec::new(),
            source,
            labels: LabelColumns::default(),
        })
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
