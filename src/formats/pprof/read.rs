//! The pprof reader: two passes over the top-level fields of the (inflated) `Profile`.
//!
//! Pass 1 decodes everything but the samples (sample types, mappings, locations, functions,
//! the string table and the scalars), since fields may come in any order and Go's runtime
//! writes the string table last. Pass 2 decodes the samples one at a time into one reused
//! prost `Sample`, resolving location ids through flat id maps, so no per-sample message is
//! kept. Validation follows `go tool pprof` (`postDecode`, `CheckValid`), with Go's wording
//! where it has one, plus the byte offset and the message index.

use std::borrow::Cow;

use prost::Message;

use super::ids::IdMap;
use super::schema::{Location, Mapping, Sample};
use super::stacks::NodeTable;
use super::toplevel::TopLevel;
use crate::formats::protowire::{Fields, Value};
use super::*;
use crate::formats::{Format, Place, Warnings};
use crate::model::{
    Column, ColumnData, FunctionIndex, FunctionKey, LocationIndex, ProfileBuilder, SourceIndex,
    StackIndex, StringId, ValueTypeIndex, INT_NA,
};

/// Integers beyond this magnitude are not exact in an f64 (2^53).
const MAX_EXACT_F64: i64 = 1 << 53;

/// An error at byte `offset` of the (inflated) input.
pub(super) fn byte_err(offset: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Byte(offset as u64), message)
}

/// Reads gzipped or raw pprof.
pub(super) fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(FORMAT, "empty input file"));
    }
    let inflated;
    let data = if gzip::is_gzip(bytes) {
        inflated = gzip::gunzip_capped(bytes, options.limits.max_decompressed_bytes, FORMAT)?;
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

/// The model rows a pprof location expanded into: `count` consecutive locations from `first`.
#[derive(Clone, Copy)]
struct LocationRows {
    first: u32,
    count: u32,
}

/// One pprof location of a stack walked from the root: the node its innermost line ends at and
/// the number of frames up to there.
struct PathStep {
    location_id: u64,
    node: StackIndex,
    depth: usize,
}

/// Location extension columns, filled row by row and attached at the end.
#[derive(Default)]
struct LocationExt {
    address: Vec<Option<u64>>,
    mapping_id: Vec<Option<u64>>,
    is_folded: Vec<Option<bool>>,
    pprof_id: Vec<Option<u64>>,
    line_index: Vec<i32>,
    column: Vec<i32>,
}

/// `sample_labels` columns.
#[derive(Default)]
struct LabelColumns {
    sample_id: Vec<i32>,
    key: Vec<StringId>,
    str: Vec<StringId>,
    num: Vec<f64>,
    num_unit: Vec<StringId>,
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
    fn text(&self, idx: i64, offset: usize, what: &dyn Fn() -> String) -> Result<&str, ReadError> {
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
    fn sid(
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

    fn functions(&mut self) -> Result<(), ReadError> {
        let top = self.top;
        self.function_rows =
            IdMap::for_ids(top.functions.iter().map(|(f, _)| f.id), top.functions.len());
        let mut pprof_ids = Vec::with_capacity(top.functions.len());
        let mut empty_names = Vec::with_capacity(top.functions.len());
        let mut empty_system_names = Vec::with_capacity(top.functions.len());
        for (i, (f, off)) in top.functions.iter().enumerate() {
            let off = *off;
            let what = || format!("function[{i}] (id {})", f.id);
            if f.id == 0 {
                return Err(byte_err(
                    off,
                    format!("function[{i}]: found function with reserved ID=0"),
                ));
            }
            let name = self.sid(f.name, off, &what)?;
            let system_name = self.sid(f.system_name, off, &what)?;
            // The model has no empty names: an empty name is shown as pprof shows it, an
            // empty system name takes the name, and flags remember both for the writer.
            let name_empty = name.is_na();
            let name = if name_empty {
                self.unknown_name()
            } else {
                name
            };
            let key = FunctionKey {
                name,
                system_name: if system_name.is_na() {
                    name
                } else {
                    system_name
                },
                filename: self.sid(f.filename, off, &what)?,
                start_line: self.line_number(f.start_line, &what),
            };
            empty_names.push(Some(name_empty));
            empty_system_names.push(Some(system_name.is_na()));
            let row = self.b.add_function(key);
            if !self.function_rows.insert(f.id, row.0) {
                return Err(byte_err(
                    off,
                    format!("multiple functions with same id: {}", f.id),
                ));
            }
            pprof_ids.push(Some(f.id));
        }
        let ext = &mut self.b.functions_mut().ext.columns;
        if !pprof_ids.is_empty() {
            ext.push(column(FUNC_PPROF_ID, ColumnData::U64(pprof_ids)));
        }
        if empty_names.contains(&Some(true)) {
            ext.push(column(FUNC_EMPTY_NAME, ColumnData::Lgl(empty_names)));
        }
        if empty_system_names.contains(&Some(true)) {
            ext.push(column(
                FUNC_EMPTY_SYSTEM_NAME,
                ColumnData::Lgl(empty_system_names),
            ));
        }
        Ok(())
    }

    /// The model string of [`UNKNOWN_FUNCTION`].
    fn unknown_name(&mut self) -> StringId {
        self.b.intern(UNKNOWN_FUNCTION)
    }

    /// A pprof line number as a model `int`: NA (with a warning) when negative or too large.
    fn line_number(&mut self, line: i64, what: &dyn Fn() -> String) -> i32 {
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

    fn mappings(&mut self) -> Result<(), ReadError> {
        let top = self.top;
        if top.mappings.is_empty() {
            return Ok(());
        }
        let mut ids = IdMap::for_ids(top.mappings.iter().map(|(m, _)| m.id), top.mappings.len());
        let n = top.mappings.len();
        let mut cols = MappingColumns::with_capacity(n);
        for (i, (m, off)) in top.mappings.iter().enumerate() {
            let off = *off;
            if m.id == 0 {
                return Err(byte_err(
                    off,
                    format!("mapping[{i}]: found mapping with reserved ID=0"),
                ));
            }
            if !ids.insert(m.id, i as u32) {
                return Err(byte_err(
                    off,
                    format!("multiple mappings with same id: {}", m.id),
                ));
            }
            let what = || format!("mapping[{i}] (id {})", m.id);
            cols.filename.push(self.sid(m.filename, off, &what)?);
            cols.build_id.push(self.sid(m.build_id, off, &what)?);
            cols.push_numbers(m);
        }
        self.b.ext_table(MAPPINGS_TABLE).columns.columns = cols.into_columns();
        Ok(())
    }

    fn locations(&mut self) -> Result<(), ReadError> {
        let top = self.top;
        self.location_rows =
            IdMap::for_ids(top.locations.iter().map(|(l, _)| l.id), top.locations.len());
        self.location_ranges = Vec::with_capacity(top.locations.len());
        let mut ext = LocationExt::default();
        for (i, (loc, off)) in top.locations.iter().enumerate() {
            let off = *off;
            if loc.id == 0 {
                return Err(byte_err(
                    off,
                    format!("location[{i}]: found location with reserved id=0"),
                ));
            }
            if !self.location_rows.insert(loc.id, i as u32) {
                return Err(byte_err(
                    off,
                    format!("multiple locations with same id: {}", loc.id),
                ));
            }
            let rows = self.location_rows_of(loc, off, &mut ext)?;
            self.location_ranges.push(rows);
        }
        self.attach_location_ext(ext);
        Ok(())
    }

    /// Adds the model rows of one pprof location (one per line, or one without a function).
    fn location_rows_of(
        &mut self,
        loc: &Location,
        off: usize,
        ext: &mut LocationExt,
    ) -> Result<LocationRows, ReadError> {
        let first = self.b.profile().locations.line.len() as u32;
        let what = || format!("location id {}", loc.id);
        if loc.line.is_empty() {
            self.b.add_location(None, 0);
            ext.push(loc, 0, INT_NA);
        }
        for (k, line) in loc.line.iter().enumerate() {
            let f = self.function_rows.get(line.function_id).ok_or_else(|| {
                byte_err(
                    off,
                    format!("location id: {} has a line with nil function", loc.id),
                )
            })?;
            let number = self.line_number(line.line, &what);
            let column = self.column_number(line.column, &what);
            self.b.add_location(Some(FunctionIndex(f)), number);
            ext.push(loc, k, column);
        }
        let count = (loc.line.len() as u32).max(1);
        Ok(LocationRows { first, count })
    }

    fn column_number(&mut self, column: i64, what: &dyn Fn() -> String) -> i32 {
        if column == 0 {
            return INT_NA;
        }
        self.line_number(column, what)
    }

    fn attach_location_ext(&mut self, ext: LocationExt) {
        let cols = &mut self.b.locations_mut().ext.columns;
        let mut add = |name: &str, data: ColumnData| {
            cols.push(Column {
                name: name.to_owned(),
                data,
            })
        };
        if ext.address.iter().any(Option::is_some) {
            add(LOC_ADDRESS, ColumnData::U64(ext.address));
        }
        if ext.mapping_id.iter().any(Option::is_some) {
            add(LOC_MAPPING_ID, ColumnData::U64(ext.mapping_id));
        }
        if ext.is_folded.contains(&Some(true)) {
            add(LOC_IS_FOLDED, ColumnData::Lgl(ext.is_folded));
        }
        if !ext.pprof_id.is_empty() {
            add(LOC_PPROF_ID, ColumnData::U64(ext.pprof_id));
            add(LOC_LINE_INDEX, ColumnData::Int(ext.line_index));
        }
        if ext.column.iter().any(|&c| c != INT_NA) {
            add(LOC_COLUMN, ColumnData::Int(ext.column));
        }
    }

    fn value_types(&mut self) -> Result<(), ReadError> {
        let top = self.top;
        if top.sample_types.is_empty() && top.num_samples > 0 {
            return Err(ReadError::whole(FORMAT, "missing sample type information"));
        }
        for (i, (vt, off)) in top.sample_types.iter().enumerate() {
            let what = || format!("sample_type[{i}]");
            let name = self.text(vt.r#type, *off, &what)?.to_owned();
            let unit = self.text(vt.unit, *off, &what)?.to_owned();
            let name = self.unique_type_name(name);
            let before = self.b.profile().values.len();
            let index = self.b.value_type(&name, &unit);
            debug_assert_eq!(index.idx(), before);
            self.value_types.push(index);
        }
        Ok(())
    }

    /// `name`, or `name.2`, `name.3`, … when a sample type of that name exists already.
    fn unique_type_name(&mut self, name: String) -> String {
        let taken = |p: &crate::model::Profile, n: &str| p.value_type_index(n).is_some();
        if !taken(self.b.profile(), &name) {
            return name;
        }
        let mut k = 2usize;
        loop {
            let candidate = format!("{name}.{k}");
            if !taken(self.b.profile(), &candidate) {
                self.warnings.add(FORMAT, "dup-type", || {
                    format!("sample type '{name}' appears more than once; renamed to '{candidate}'")
                });
                return candidate;
            }
            k += 1;
        }
    }

    /// Pass 2: every `Sample`, in file order.
    fn samples(&mut self, data: &'a [u8]) -> Result<(), ReadError> {
        let limits = &self.options.limits;
        if self.top.num_samples > limits.max_samples {
            return Err(ReadError::whole(
                FORMAT,
                format!(
                    "the profile has {} samples, more than the limit of {} (Limits::max_samples)",
                    self.top.num_samples, limits.max_samples
                ),
            ));
        }
        let mut sample = Sample::default();
        let mut index = 0usize;
        for f in Fields::new(data, 0) {
            let Ok(f) = f else { break }; // pass 1 saw every field
            let (super::toplevel::field::SAMPLE, Value::Len(payload, off)) = (f.number, f.value)
            else {
                continue;
            };
            sample.clear();
            sample
                .merge(payload)
                .map_err(|e| byte_err(off, format!("sample[{index}]: cannot decode: {e}")))?;
            self.sample(index, off, &sample)?;
            index += 1;
        }
        Ok(())
    }

    fn sample(&mut self, index: usize, off: usize, sample: &Sample) -> Result<(), ReadError> {
        if sample.value.len() != self.value_types.len() {
            return Err(byte_err(
                off,
                format!(
                    "sample[{index}]: mismatch: sample has {} values vs. {} types",
                    sample.value.len(),
                    self.value_types.len()
                ),
            ));
        }
        let stack = self.stack(index, off, &sample.location_id)?;
        let s = self.b.add_sample(self.source, stack);
        for (&vt, &v) in self.value_types.iter().zip(&sample.value) {
            if v.unsigned_abs() > MAX_EXACT_F64 as u64 {
                self.warnings.add(FORMAT, "inexact-value", || {
                    format!("sample[{index}]: value {v} is not exact as a double")
                });
            }
            self.b.set_value(s, vt, v as f64);
        }
        for label in &sample.label {
            self.label(s.logical_id(), index, off, label)?;
        }
        Ok(())
    }

    /// The stack node of a sample's location ids (leaf first), each location expanded into
    /// its lines.
    fn stack(
        &mut self,
        index: usize,
        off: usize,
        location_ids: &[u64],
    ) -> Result<Option<StackIndex>, ReadError> {
        // Reuse the part shared with the previous sample's stack (from the root): sorted or
        // depth-first ordered files share long prefixes, which then cost no lookups.
        let path = &mut self.previous_path;
        let shared = path
            .iter()
            .zip(location_ids.iter().rev())
            .take_while(|(step, &id)| step.location_id == id)
            .count();
        path.truncate(shared);
        let (mut node, mut depth) = path
            .last()
            .map_or((None, 0), |step| (Some(step.node), step.depth));
        let max_depth = self.options.limits.max_stack_depth;
        for &id in location_ids.iter().rev().skip(shared) {
            let rows = self
                .location_rows
                .get(id)
                .and_then(|r| self.location_ranges.get(r as usize).copied())
                .ok_or_else(|| {
                    byte_err(
                        off,
                        format!(
                            "sample[{index}]: sample has nil location (location id {id} is not \
                             defined)"
                        ),
                    )
                })?;
            depth = depth.saturating_add(rows.count as usize);
            if depth > max_depth {
                return Err(byte_err(
                    off,
                    format!(
                        "sample[{index}]: more than {max_depth} frames \
                         (Limits::max_stack_depth)"
                    ),
                ));
            }
            // The caller's line (the last) is outermost.
            for k in (0..rows.count).rev() {
                let loc = LocationIndex(rows.first + k);
                node = Some(self.stack_nodes.intern(&mut self.b, node, loc));
            }
            if let Some(n) = node {
                self.previous_path.push(PathStep {
                    location_id: id,
                    node: n,
                    depth,
                });
            }
        }
        Ok(node)
    }

    fn label(
        &mut self,
        sample_id: i32,
        index: usize,
        off: usize,
        label: &super::schema::Label,
    ) -> Result<(), ReadError> {
        let what = || format!("sample[{index}] label");
        let key = self.sid(label.key, off, &what)?;
        let str_ = self.sid(label.str, off, &what)?;
        let unit = self.sid(label.num_unit, off, &what)?;
        if label.num.unsigned_abs() > MAX_EXACT_F64 as u64 {
            self.warnings.add(FORMAT, "inexact-label", || {
                format!(
                    "{}: numeric value {} is not exact as a double",
                    what(),
                    label.num
                )
            });
        }
        // A string label carries no number: NA rather than 0, unless the file has one.
        let num = if label.num == 0 && label.str != 0 {
            f64::NAN
        } else {
            label.num as f64
        };
        let l = &mut self.labels;
        l.sample_id.push(sample_id);
        l.key.push(key);
        l.str.push(str_);
        l.num.push(num);
        l.num_unit.push(unit);
        Ok(())
    }

    fn meta(&mut self) -> Result<(), ReadError> {
        let top = self.top;
        for (key, s) in [
            (META_TIME_NANOS, top.time_nanos),
            (META_DURATION_NANOS, top.duration_nanos),
            (META_PERIOD, top.period),
        ] {
            if s.value != 0 {
                self.b.set_meta(key, &s.value.to_string());
            }
        }
        if let Some((pt, off)) = top.period_type {
            let what = || "period_type".to_owned();
            let t = self.text(pt.r#type, off, &what)?.to_owned();
            let u = self.text(pt.unit, off, &what)?.to_owned();
            self.b.set_meta(META_PERIOD_TYPE, &t);
            self.b.set_meta(META_PERIOD_UNIT, &u);
        }
        for (key, s) in [
            (META_DROP_FRAMES, top.drop_frames),
            (META_KEEP_FRAMES, top.keep_frames),
            (META_DOC_URL, top.doc_url),
            (META_PPROF_DEFAULT_TYPE, top.default_sample_type),
        ] {
            if s.value != 0 {
                let text = self.text(s.value, s.offset, &|| key.to_owned())?.to_owned();
                self.b.set_meta(key, &text);
                if key == META_PPROF_DEFAULT_TYPE {
                    self.b.set_meta(META_DEFAULT_TYPE, &text);
                }
            }
        }
        for (i, c) in top.comments.iter().enumerate() {
            let text = self
                .text(c.value, c.offset, &|| format!("comment[{i}]"))?
                .to_owned();
            self.b.add_meta(META_COMMENT, &text);
        }
        Ok(())
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
        let profile = self
            .b
            .build()
            .map_err(|e| ReadError::whole(FORMAT, format!("internal error: {e}")))?;
        Ok(Parsed {
            format: Format::Pprof,
            profile,
            warnings: self.warnings.into_vec(),
        })
    }
}

fn column(name: &str, data: ColumnData) -> Column {
    Column {
        name: name.to_owned(),
        data,
    }
}

impl LocationExt {
    fn push(&mut self, loc: &Location, line_index: usize, column: i32) {
        self.address.push((loc.address != 0).then_some(loc.address));
        self.mapping_id
            .push((loc.mapping_id != 0).then_some(loc.mapping_id));
        self.is_folded.push(Some(loc.is_folded));
        self.pprof_id.push(Some(loc.id));
        self.line_index
            .push(i32::try_from(line_index).unwrap_or(i32::MAX));
        self.column.push(column);
    }
}

/// `mappings` columns.
struct MappingColumns {
    id: Vec<Option<u64>>,
    memory_start: Vec<Option<u64>>,
    memory_limit: Vec<Option<u64>>,
    file_offset: Vec<Option<u64>>,
    filename: Vec<StringId>,
    build_id: Vec<StringId>,
    flags: [Vec<Option<bool>>; 4],
}

/// Column names of the `mappings` extension table, in order.
pub const MAPPING_COLUMNS: [&str; 10] = [
    "mapping_id",
    "memory_start",
    "memory_limit",
    "file_offset",
    "filename",
    "build_id",
    "has_functions",
    "has_filenames",
    "has_line_numbers",
    "has_inline_frames",
];

impl MappingColumns {
    fn with_capacity(n: usize) -> Self {
        MappingColumns {
            id: Vec::with_capacity(n),
            memory_start: Vec::with_capacity(n),
            memory_limit: Vec::with_capacity(n),
            file_offset: Vec::with_capacity(n),
            filename: Vec::with_capacity(n),
            build_id: Vec::with_capacity(n),
            flags: Default::default(),
        }
    }

    fn push_numbers(&mut self, m: &Mapping) {
        self.id.push(Some(m.id));
        self.memory_start.push(Some(m.memory_start));
        self.memory_limit.push(Some(m.memory_limit));
        self.file_offset.push(Some(m.file_offset));
        let flags = [
            m.has_functions,
            m.has_filenames,
            m.has_line_numbers,
            m.has_inline_frames,
        ];
        for (col, flag) in self.flags.iter_mut().zip(flags) {
            col.push(Some(flag));
        }
    }

    fn into_columns(self) -> Vec<Column> {
        let [f0, f1, f2, f3] = self.flags;
        let data = [
            ColumnData::U64(self.id),
            ColumnData::U64(self.memory_start),
            ColumnData::U64(self.memory_limit),
            ColumnData::U64(self.file_offset),
            ColumnData::Chr(self.filename),
            ColumnData::Chr(self.build_id),
            ColumnData::Lgl(f0),
            ColumnData::Lgl(f1),
            ColumnData::Lgl(f2),
            ColumnData::Lgl(f3),
        ];
        MAPPING_COLUMNS
            .iter()
            .zip(data)
            .map(|(name, data)| column(name, data))
            .collect()
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
