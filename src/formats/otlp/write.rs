//! The OTLP writer: a [`Profile`] → one `ProfilesData` message in the current layout.
//!
//! Every value type becomes its own `Profile` message (one per source and type, sharing the
//! dictionary); consecutive sources with equal resource attributes share a `ResourceProfiles`,
//! and every source has a `ScopeProfiles` of its own (the reader merges per-type profiles back
//! into one source only within a scope). Consecutive
//! timestamped samples with the same stack, labels and link are combined into one `Sample`
//! (as the spec recommends); samples without timestamps are written one each, so a pprof
//! round trip keeps every sample.

use std::collections::HashMap;

use prost::Message;

use super::attrs::{self, AttrValue};
use super::proto::{
    self, AnyValue, ArrayValue, Function, InstrumentationScope, KeyValue, KeyValueAndUnit, Line,
    Link, Location, Mapping, ProfilesData, ProfilesDictionary, Resource, ResourceProfiles, Sample,
    ScopeProfiles, Stack, Value, ValueType,
};
use super::*;
use crate::formats::inline::inlined_into;
use crate::formats::{unwritten, Warnings};
use crate::model::{
    decode_opt, Cell, ExtTable, LocationIndex, StackIndex, StringId, INT_NA, META_DEFAULT_TYPE,
    SAMPLE_TIME,
};

/// Nanoseconds per second.
const NANOS_PER_SECOND: f64 = 1e9;

/// Columns of the mappings table that map to `Mapping` fields rather than attributes.
const MAPPING_FIELDS: [&str; 5] = [
    "mapping_id",
    "memory_start",
    "memory_limit",
    "file_offset",
    "filename",
];

pub(super) fn write(p: &Profile, _options: &WriteOptions) -> Result<Written, WriteError> {
    let mut w = Writer::new(p);
    w.mappings_from_table();
    w.functions();
    let labels = w.sample_labels();
    let resource_profiles = w.resource_profiles(&labels);
    let data = ProfilesData {
        resource_profiles,
        dictionary: Some(w.dictionary()),
    };
    let mut warnings = w.warnings;
    if let Some(lost) = unwritten::report(p, NAME, &KNOWN) {
        warnings.push(lost);
    }
    Ok(Written {
        bytes: data.encode_to_vec(),
        warnings: warnings.into_vec(),
    })
}

/// What this writer writes; everything else is reported.
const KNOWN: unwritten::Known<'static> = unwritten::Known {
    locations: &[
        location_cols::ADDRESS,
        location_cols::MAPPING_ID,
        location_cols::COLUMN,
        location_cols::FRAME_TYPE,
        location_cols::IS_FOLDED,
        location_cols::PPROF_LOCATION_ID,
        location_cols::PPROF_LINE_INDEX,
        crate::formats::inline::INLINED,
    ],
    samples: &[SAMPLE_TIME, sample_cols::TRACE_ID, sample_cols::SPAN_ID],
    sources: &[
        source_cols::TIME_UNIX_NANO,
        source_cols::PERIOD_TYPE,
        source_cols::PERIOD_UNIT,
        source_cols::PERIOD,
        source_cols::DURATION_NANOS,
        source_cols::PROFILE_ID,
        source_cols::DROPPED_ATTRIBUTES,
        source_cols::PAYLOAD_FORMAT,
        source_cols::PAYLOAD,
        source_cols::SCOPE_NAME,
        source_cols::SCOPE_VERSION,
        source_cols::SCOPE_SCHEMA_URL,
        source_cols::RESOURCE_SCHEMA_URL,
    ],
    functions: &[
        ".pprof_function_id",
        function_cols::EMPTY_NAME,
        function_cols::EMPTY_SYSTEM_NAME,
    ],
    tables: &[MAPPINGS, SAMPLE_LABELS, SOURCE_ATTRIBUTES],
    meta: &[
        "version",
        META_DEFAULT_TYPE,
        "pprof.default_sample_type",
        meta_keys::PERIOD_TYPE,
        meta_keys::PERIOD_UNIT,
        meta_keys::PERIOD,
        meta_keys::DURATION_NANOS,
        meta_keys::TIME_NANOS,
        "pprof.profile.*",
    ],
};

/// Interning tables of the dictionary under construction.
struct Writer<'p> {
    p: &'p Profile,
    strings: Vec<String>,
    string_ids: HashMap<String, i32>,
    attributes: Vec<KeyValueAndUnit>,
    attribute_ids: HashMap<Vec<u8>, i32>,
    functions: Vec<Function>,
    locations: Vec<Location>,
    location_ids: HashMap<Location, i32>,
    stacks: Vec<Stack>,
    stack_ids: HashMap<Vec<i32>, i32>,
    node_stacks: HashMap<u32, i32>,
    mappings: Vec<Mapping>,
    mapping_index: HashMap<u64, i32>,
    links: Vec<Link>,
    link_ids: HashMap<(String, String), i32>,
    warnings: Warnings,
}

/// Identity of a written sample: stack, labels, link.
type Identity = (i32, Vec<i32>, i32);

impl<'p> Writer<'p> {
    fn new(p: &'p Profile) -> Self {
        let mut w = Writer {
            p,
            strings: Vec::new(),
            string_ids: HashMap::new(),
            attributes: vec![KeyValueAndUnit::default()],
            attribute_ids: HashMap::new(),
            functions: vec![Function::default()],
            locations: vec![Location::default()],
            location_ids: HashMap::new(),
            stacks: vec![Stack::default()],
            stack_ids: HashMap::new(),
            node_stacks: HashMap::new(),
            mappings: vec![Mapping::default()],
            mapping_index: HashMap::new(),
            links: vec![Link {
                trace_id: vec![0; 16],
                span_id: vec![0; 8],
            }],
            link_ids: HashMap::new(),
            warnings: Warnings::default(),
        };
        w.string("");
        w
    }

    fn dictionary(&mut self) -> ProfilesDictionary {
        ProfilesDictionary {
            mapping_table: std::mem::take(&mut self.mappings),
            location_table: std::mem::take(&mut self.locations),
            function_table: std::mem::take(&mut self.functions),
            link_table: std::mem::take(&mut self.links),
            string_table: std::mem::take(&mut self.strings),
            attribute_table: std::mem::take(&mut self.attributes),
            stack_table: std::mem::take(&mut self.stacks),
        }
    }

    fn string(&mut self, s: &str) -> i32 {
        if let Some(&i) = self.string_ids.get(s) {
            return i;
        }
        let i = i32::try_from(self.strings.len()).unwrap_or(i32::MAX);
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), i);
        i
    }

    fn text(&self, id: StringId) -> &'p str {
        self.p.str(id)
    }

    fn attribute(&mut self, key: &str, value: &AttrValue, unit: &str) -> i32 {
        let kv = KeyValueAndUnit {
            key_strindex: self.string(key),
            value: Some(attrs::encode(value)),
            unit_strindex: self.string(unit),
        };
        let bytes = kv.encode_to_vec();
        if let Some(&i) = self.attribute_ids.get(&bytes) {
            return i;
        }
        let i = i32::try_from(self.attributes.len()).unwrap_or(i32::MAX);
        self.attributes.push(kv);
        self.attribute_ids.insert(bytes, i);
        i
    }

    fn functions(&mut self) {
        let f = &self.p.functions;
        for row in 0..f.name.len() {
            let cell = |v: &Vec<StringId>| v.get(row).copied().unwrap_or(StringId::NA);
            let start = f.start_line.get(row).copied().unwrap_or(0);
            let flagged = |col: &str| matches!(f.ext.cell(col, row), Some(Cell::Lgl(Some(true))));
            let name = if flagged(function_cols::EMPTY_NAME) {
                ""
            } else {
                self.text(cell(&f.name))
            };
            let system_name = if flagged(function_cols::EMPTY_SYSTEM_NAME) {
                ""
            } else {
                self.text(cell(&f.system_name))
            };
            let function = Function {
                name_strindex: self.string(name),
                system_name_strindex: self.string(system_name),
                filename_strindex: self.string(self.text(cell(&f.filename))),
                start_line: if start == INT_NA { 0 } else { i64::from(start) },
            };
            self.functions.push(function);
        }
    }

    fn mappings_from_table(&mut self) {
        let Some(table) = self.p.ext_table(MAPPINGS) else {
            return;
        };
        for row in 0..table.len() {
            let mapping = self.mapping_row(table, row);
            let index = i32::try_from(self.mappings.len()).unwrap_or(i32::MAX);
            if let Some(id) = u64_of(table.columns.cell("mapping_id", row)) {
                self.mapping_index.insert(id, index);
            }
            self.mappings.push(mapping);
        }
    }

    fn mapping_row(&mut self, table: &ExtTable, row: usize) -> Mapping {
        let u64_cell = |name: &str| match table.columns.cell(name, row) {
            Some(Cell::U64(Some(v))) => v,
            Some(Cell::Dbl(v)) if v.is_finite() && v >= 0.0 => v as u64,
            _ => 0,
        };
        let filename = match table.columns.cell("filename", row) {
            Some(Cell::Chr(s)) => self.text(s),
            _ => "",
        };
        let mut attribute_indices = Vec::new();
        for column in &table.columns.columns {
            if MAPPING_FIELDS.contains(&column.name.as_str()) {
                continue;
            }
            let key = match column.name.as_str() {
                "build_id" => ATTR_BUILD_ID.to_owned(),
                flag if flag.starts_with("has_") => format!("{ATTR_MAPPING_HAS}{flag}"),
                other => other.to_owned(),
            };
            if let Some(value) = cell_value(self.p, column.data.cell(row)) {
                attribute_indices.push(self.attribute(&key, &value, ""));
            }
        }
        Mapping {
            memory_start: u64_cell("memory_start"),
            memory_limit: u64_cell("memory_limit"),
            file_offset: u64_cell("file_offset"),
            filename_strindex: self.string(filename),
            attribute_indices,
        }
    }

    /// Attribute indices of every sample, from the `sample_labels` table.
    fn sample_labels(&mut self) -> Vec<Vec<i32>> {
        let n = self.p.num_samples();
        let mut out = vec![Vec::new(); n];
        let Some(table) = self.p.ext_table(SAMPLE_LABELS) else {
            return out;
        };
        for row in 0..table.len() {
            let Some(Cell::Int(id)) = table.columns.cell("sample_id", row) else {
                continue;
            };
            let Some(slot) = usize::try_from(id)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| out.get_mut(i))
            else {
                self.warnings.add(NAME, "label_sample", || {
                    format!(
                        "sample_labels row {}: sample_id {id} does not exist; label not written",
                        row + 1
                    )
                });
                continue;
            };
            let chr = |name: &str| match table.columns.cell(name, row) {
                Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s)),
                _ => None,
            };
            let Some(key) = chr("key") else { continue };
            let unit = chr("num_unit").unwrap_or("");
            let value = match (
                chr("value_type"),
                chr("str"),
                table.columns.cell("num", row),
            ) {
                (Some(kind), Some(text), _) => AttrValue::from_text(kind, text),
                (None, Some(text), _) => Some(AttrValue::Str(text.to_owned())),
                (_, None, Some(Cell::Dbl(v))) if v.is_finite() => {
                    Some(AttrValue::Int(v.round() as i64))
                }
                (_, None, Some(Cell::Int(v))) if v != INT_NA => Some(AttrValue::Int(i64::from(v))),
                _ => None,
            };
            if let Some(value) = value {
                let a = self.attribute(key, &value, unit);
                slot.push(a);
            }
        }
        out
    }

    /// The dictionary stack of a proftab stack node (0 for a sample without frames).
    fn stack(&mut self, node: Option<StackIndex>) -> i32 {
        let Some(node) = node else { return 0 };
        if let Some(&s) = self.node_stacks.get(&node.0) {
            return s;
        }
        let frames: Vec<LocationIndex> = self.p.frames_leaf_first(Some(node)).collect();
        let mut indices = Vec::new();
        let mut start = 0;
        while start < frames.len() {
            let mut end = start + 1;
            while end < frames.len() && inlined_into(self.p, frames[end - 1], frames[end]) {
                end += 1;
            }
            indices.push(self.location(&frames[start..end]));
            start = end;
        }
        let s = match self.stack_ids.get(&indices) {
            Some(&s) => s,
            None => {
                let s = i32::try_from(self.stacks.len()).unwrap_or(i32::MAX);
                self.stacks.push(Stack {
                    location_indices: indices.clone(),
                });
                self.stack_ids.insert(indices, s);
                s
            }
        };
        self.node_stacks.insert(node.0, s);
        s
    }

    /// The dictionary location of one inline chain (innermost first).
    fn location(&mut self, chain: &[LocationIndex]) -> i32 {
        let ext = &self.p.locations.ext;
        let Some(&outer) = chain.first() else {
            return 0;
        };
        let address = match ext.cell(location_cols::ADDRESS, outer.idx()) {
            Some(Cell::U64(Some(a))) => a,
            _ => 0,
        };
        let mapping_index = u64_of(ext.cell(location_cols::MAPPING_ID, outer.idx()))
            .and_then(|id| self.mapping_index.get(&id).copied())
            .unwrap_or(0);
        let mut attribute_indices = Vec::new();
        if let Some(Cell::Chr(ft)) = ext.cell(location_cols::FRAME_TYPE, outer.idx()) {
            if !ft.is_na() {
                let value = AttrValue::Str(self.text(ft).to_owned());
                attribute_indices.push(self.attribute(ATTR_FRAME_TYPE, &value, ""));
            }
        }
        if let Some(Cell::Lgl(Some(f))) = ext.cell(location_cols::IS_FOLDED, outer.idx()) {
            attribute_indices.push(self.attribute(ATTR_IS_FOLDED, &AttrValue::Bool(f), ""));
        }
        let lines: Vec<Line> = chain.iter().map(|&l| self.line(l)).collect();
        let bare = lines.len() == 1 && lines.first().is_some_and(|l| *l == Line::default());
        let location = Location {
            mapping_index,
            address,
            lines: if bare { Vec::new() } else { lines },
            attribute_indices,
        };
        if let Some(&i) = self.location_ids.get(&location) {
            return i;
        }
        let i = i32::try_from(self.locations.len()).unwrap_or(i32::MAX);
        self.locations.push(location.clone());
        self.location_ids.insert(location, i);
        i
    }

    fn line(&self, loc: LocationIndex) -> Line {
        let l = &self.p.locations;
        let function_index = l
            .function
            .get(loc.idx())
            .and_then(|&f| decode_opt(f))
            .map_or(0, |f| i32::try_from(f + 1).unwrap_or(0));
        let line = l.line.get(loc.idx()).copied().unwrap_or(0);
        let column = match l.ext.cell(location_cols::COLUMN, loc.idx()) {
            Some(Cell::Int(c)) if c != INT_NA => i64::from(c),
            _ => 0,
        };
        Line {
            function_index,
            line: if line == INT_NA { 0 } else { i64::from(line) },
            column,
        }
    }

    fn link(&mut self, sample: usize) -> i32 {
        let ext = &self.p.samples.ext;
        let get = |name: &str| match ext.cell(name, sample) {
            Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s).to_owned()),
            _ => None,
        };
        let (Some(trace), Some(span)) = (get(sample_cols::TRACE_ID), get(sample_cols::SPAN_ID))
        else {
            return 0;
        };
        let key = (trace, span);
        if let Some(&i) = self.link_ids.get(&key) {
            return i;
        }
        let i = i32::try_from(self.links.len()).unwrap_or(i32::MAX);
        self.links.push(Link {
            trace_id: unhex(&key.0).unwrap_or_default(),
            span_id: unhex(&key.1).unwrap_or_default(),
        });
        self.link_ids.insert(key, i);
        i
    }

    fn resource_profiles(&mut self, labels: &[Vec<i32>]) -> Vec<ResourceProfiles> {
        let n_sources = self.p.sources.source_type.len();
        let mut rows_of_source: Vec<Vec<usize>> = vec![Vec::new(); n_sources];
        for (s, src) in self.p.samples.source.iter().enumerate() {
            if let Some(v) = rows_of_source.get_mut(src.idx()) {
                v.push(s);
            }
        }
        let source_attrs = self.source_attribute_rows();
        let mut out: Vec<ResourceProfiles> = Vec::new();
        let mut last_resource: Option<Vec<u8>> = None;
        for (src, rows) in rows_of_source.iter().enumerate() {
            let attrs = source_attrs.get(src).map_or(&[][..], Vec::as_slice);
            let (resource, resource_key) = self.resource(src, attrs);
            if last_resource.as_ref() != Some(&resource_key) || out.is_empty() {
                out.push(resource);
                last_resource = Some(resource_key);
            }
            // One scope per source: the reader merges profiles only within a scope, so
            // profiles of different sources are never merged into one on reading.
            let mut scope = self.scope(src, attrs);
            let profiles = self.source_profiles(src, rows, labels, attrs);
            if profiles.len() > 1 {
                if let Some(s) = scope.scope.as_mut() {
                    s.attributes.push(KeyValue {
                        key: ATTR_SAMPLE_TYPE_ORDER.to_owned(),
                        value: Some(sample_type_order(profiles.len())),
                        key_strindex: 0,
                    });
                }
            }
            scope.profiles = profiles.iter().map(Message::encode_to_vec).collect();
            if let Some(rp) = out.last_mut() {
                rp.scope_profiles.push(scope);
            }
        }
        out
    }

    /// `source_attributes` rows per source: `(level, key, value, unit)`.
    fn source_attribute_rows(&mut self) -> Vec<Vec<(String, String, AttrValue, String)>> {
        let n = self.p.sources.source_type.len();
        let mut out = vec![Vec::new(); n];
        let Some(table) = self.p.ext_table(SOURCE_ATTRIBUTES) else {
            return out;
        };
        for row in 0..table.len() {
            let chr = |name: &str| match table.columns.cell(name, row) {
                Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s).to_owned()),
                _ => None,
            };
            let Some(Cell::Int(id)) = table.columns.cell("source_id", row) else {
                continue;
            };
            let slot = usize::try_from(id)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| out.get_mut(i));
            let (Some(slot), Some(level), Some(key)) = (slot, chr("level"), chr("key")) else {
                continue;
            };
            let kind = chr("value_type").unwrap_or_else(|| "string".to_owned());
            let text = chr("value").unwrap_or_default();
            let Some(value) = AttrValue::from_text(&kind, &text) else {
                self.warnings.add(NAME, "source_attr", || {
                    format!("source_attributes row {}: value {text:?} is not a valid {kind}; not written", row + 1)
                });
                continue;
            };
            slot.push((level, key, value, chr("unit").unwrap_or_default()));
        }
        out
    }

    fn resource(
        &mut self,
        src: usize,
        attrs: &[(String, String, AttrValue, String)],
    ) -> (ResourceProfiles, Vec<u8>) {
        let attributes = key_values(attrs, "resource");
        let rp = ResourceProfiles {
            resource: (!attributes.is_empty()).then(|| Resource {
                attributes,
                dropped_attributes_count: 0,
                entity_refs: Vec::new(),
            }),
            scope_profiles: Vec::new(),
            schema_url: self.source_chr(src, source_cols::RESOURCE_SCHEMA_URL),
        };
        let key = rp.encode_to_vec();
        (rp, key)
    }

    fn scope(
        &mut self,
        src: usize,
        attrs: &[(String, String, AttrValue, String)],
    ) -> ScopeProfiles {
        let mut attributes = key_values(attrs, "scope");
        if let Some(default) = self.p.meta_value(META_DEFAULT_TYPE) {
            attributes.push(KeyValue {
                key: ATTR_DEFAULT_SAMPLE_TYPE.to_owned(),
                value: Some(AnyValue {
                    value: Some(Value::StringValue(default.to_owned())),
                }),
                key_strindex: 0,
            });
        }
        let name = self.source_chr(src, source_cols::SCOPE_NAME);
        let version = self.source_chr(src, source_cols::SCOPE_VERSION);
        ScopeProfiles {
            scope: Some(InstrumentationScope {
                name,
                version,
                attributes,
                dropped_attributes_count: 0,
            }),
            profiles: Vec::new(),
            schema_url: self.source_chr(src, source_cols::SCOPE_SCHEMA_URL),
        }
    }

    fn source_chr(&self, src: usize, col: &str) -> String {
        match self.p.sources.ext.cell(col, src) {
            Some(Cell::Chr(s)) => self.p.str(s).to_owned(),
            _ => String::new(),
        }
    }

    fn source_num(&self, src: usize, col: &str, meta_key: &str) -> Option<f64> {
        match self.p.sources.ext.cell(col, src) {
            Some(Cell::Dbl(v)) if v.is_finite() => Some(v),
            Some(Cell::Int(v)) if v != INT_NA => Some(f64::from(v)),
            _ => self.p.meta_value(meta_key).and_then(|v| v.parse().ok()),
        }
    }

    /// One `Profile` per value type that has a value in this source.
    fn source_profiles(
        &mut self,
        src: usize,
        rows: &[usize],
        labels: &[Vec<i32>],
        attrs: &[(String, String, AttrValue, String)],
    ) -> Vec<proto::Profile> {
        let header = self.profile_header(src, attrs);
        let base_ns = header.time_unix_nano;
        let identities: Vec<Identity> = rows
            .iter()
            .map(|&s| {
                let stack = self.stack(self.p.sample_stack(crate::model::SampleIndex(s as u32)));
                let link = self.link(s);
                (stack, labels.get(s).cloned().unwrap_or_default(), link)
            })
            .collect();
        let times: Vec<Option<u64>> = rows.iter().map(|&s| self.timestamp(s, base_ns)).collect();
        let mut out = Vec::new();
        for column in &self.p.values {
            let present: Vec<usize> = (0..rows.len())
                .filter(|&i| rows.get(i).is_some_and(|&s| column.get(s).is_some()))
                .collect();
            if present.is_empty() {
                continue;
            }
            let mut samples: Vec<Sample> = Vec::new();
            let mut last: Option<&Identity> = None;
            for &i in &present {
                let (Some(&s), Some(identity), Some(&time)) =
                    (rows.get(i), identities.get(i), times.get(i))
                else {
                    continue;
                };
                let value = self.integer_value(column.get(s).unwrap_or(0.0), column.value_type);
                let joins = time.is_some()
                    && last == Some(identity)
                    && samples
                        .last()
                        .is_some_and(|x| !x.timestamps_unix_nano.is_empty());
                match (joins, samples.last_mut(), time) {
                    (true, Some(prev), Some(t)) => {
                        prev.timestamps_unix_nano.push(t);
                        prev.values.push(value);
                    }
                    _ => samples.push(Sample {
                        stack_index: identity.0,
                        attribute_indices: identity.1.clone(),
                        link_index: identity.2,
                        values: vec![value],
                        timestamps_unix_nano: time.into_iter().collect(),
                    }),
                }
                last = Some(identity);
            }
            let timestamps_only = samples
                .iter()
                .all(|s| !s.timestamps_unix_nano.is_empty() && s.values.iter().all(|&v| v == 1));
            if timestamps_only {
                samples.iter_mut().for_each(|s| s.values.clear());
            }
            let mut profile = header.clone();
            profile.sample_type = Some(ValueType {
                type_strindex: self.string(self.text(column.value_type)),
                unit_strindex: self.string(self.text(column.unit)),
            });
            profile.samples = samples.iter().map(Message::encode_to_vec).collect();
            out.push(profile);
        }
        if out.is_empty() {
            // A source without samples still gets a Profile, so that it survives.
            let mut profile = header;
            if let Some(column) = self
                .p
                .default_value_type()
                .and_then(|vt| self.p.value_column(vt))
            {
                profile.sample_type = Some(ValueType {
                    type_strindex: self.string(self.text(column.value_type)),
                    unit_strindex: self.string(self.text(column.unit)),
                });
            }
            out.push(profile);
        }
        out
    }

    fn integer_value(&mut self, v: f64, vt: StringId) -> i64 {
        if !v.is_finite() {
            let name = self.text(vt);
            self.warnings.add(NAME, "nonfinite", || {
                format!("non-finite {name} values written as 0")
            });
            return 0;
        }
        if v.fract() != 0.0 {
            let name = self.text(vt);
            self.warnings.add(NAME, "fraction", || {
                format!("fractional {name} values rounded to integers (first: {v})")
            });
        }
        v.round() as i64
    }

    fn timestamp(&mut self, sample: usize, base_ns: u64) -> Option<u64> {
        let t = self.p.samples.ext.dbl(SAMPLE_TIME)?.get(sample).copied()?;
        if !t.is_finite() {
            return None;
        }
        let offset = (t * NANOS_PER_SECOND).round() as i64;
        let ns = i128::from(base_ns) + i128::from(offset);
        u64::try_from(ns).ok().or_else(|| {
            self.warnings.add(NAME, "negative_time", || {
                "sample times before the Unix epoch written as 0".to_owned()
            });
            Some(0)
        })
    }

    /// The fields every `Profile` of a source shares.
    fn profile_header(
        &mut self,
        src: usize,
        attrs: &[(String, String, AttrValue, String)],
    ) -> proto::Profile {
        let ts = self
            .p
            .sources
            .source_timestamp
            .get(src)
            .copied()
            .unwrap_or(f64::NAN);
        let meta_time = (src == 0)
            .then(|| {
                self.p
                    .meta_value(meta_keys::TIME_NANOS)?
                    .parse::<u64>()
                    .ok()
            })
            .flatten();
        let time_unix_nano = match self.p.sources.ext.cell(source_cols::TIME_UNIX_NANO, src) {
            Some(Cell::U64(Some(exact))) => exact,
            _ if meta_time.is_some() => meta_time.unwrap_or(0),
            _ if ts.is_finite() && ts > 0.0 => (ts * NANOS_PER_SECOND).round() as u64,
            _ => 0,
        };
        let period_type = self.period_type(src);
        let period = self
            .source_num(src, source_cols::PERIOD, meta_keys::PERIOD)
            .map_or(0, |v| v as i64);
        let duration = self
            .source_num(src, source_cols::DURATION_NANOS, meta_keys::DURATION_NANOS)
            .map_or(0, |v| v as u64);
        let mut attribute_indices = Vec::new();
        if src == 0 {
            attribute_indices.extend(self.pprof_profile_attributes());
        }
        for (level, key, value, unit) in attrs {
            if level == "profile" {
                attribute_indices.push(self.attribute(key, value, unit));
            }
        }
        let dropped = match self
            .p
            .sources
            .ext
            .cell(source_cols::DROPPED_ATTRIBUTES, src)
        {
            Some(Cell::Int(v)) if v != INT_NA => u32::try_from(v).unwrap_or(0),
            _ => 0,
        };
        proto::Profile {
            sample_type: None,
            samples: Vec::new(),
            time_unix_nano,
            duration_nano: duration,
            period_type,
            period,
            profile_id: unhex(&self.source_chr(src, source_cols::PROFILE_ID)).unwrap_or_default(),
            dropped_attributes_count: dropped,
            original_payload_format: self.source_chr(src, source_cols::PAYLOAD_FORMAT),
            original_payload: unhex(&self.source_chr(src, source_cols::PAYLOAD))
                .unwrap_or_default(),
            attribute_indices,
        }
    }

    fn period_type(&mut self, src: usize) -> Option<ValueType> {
        let mut ty = self.source_chr(src, source_cols::PERIOD_TYPE);
        let mut unit = self.source_chr(src, source_cols::PERIOD_UNIT);
        if ty.is_empty() && unit.is_empty() {
            ty = self
                .p
                .meta_value(meta_keys::PERIOD_TYPE)
                .unwrap_or("")
                .to_owned();
            unit = self
                .p
                .meta_value(meta_keys::PERIOD_UNIT)
                .unwrap_or("")
                .to_owned();
        }
        (!ty.is_empty() || !unit.is_empty()).then(|| ValueType {
            type_strindex: self.string(&ty),
            unit_strindex: self.string(&unit),
        })
    }

    /// `pprof.profile.*` attributes from meta (written on the first source's profiles).
    fn pprof_profile_attributes(&mut self) -> Vec<i32> {
        let mut out = Vec::new();
        for key in PPROF_PROFILE_ATTRS {
            let values: Vec<String> = self.p.meta_values(key).map(str::to_owned).collect();
            if values.is_empty() {
                continue;
            }
            let value = if key == ATTR_COMMENT {
                let array = AnyValue {
                    value: Some(Value::ArrayValue(ArrayValue {
                        values: values
                            .iter()
                            .map(|v| AnyValue {
                                value: Some(Value::StringValue(v.clone())),
                            })
                            .collect(),
                    })),
                };
                let text = attrs::decode(Some(&array), &|_| None).text();
                AttrValue::Other("array", text)
            } else {
                AttrValue::Str(values.join("\n"))
            };
            out.push(self.attribute(key, &value, ""));
        }
        out
    }
}

/// The `KeyValue`s of one level.
fn key_values(attrs: &[(String, String, AttrValue, String)], level: &str) -> Vec<KeyValue> {
    attrs
        .iter()
        .filter(|(l, ..)| l == level)
        .map(|(_, key, value, _)| KeyValue {
            key: key.clone(),
            value: Some(attrs::encode(value)),
            key_strindex: 0,
        })
        .collect()
}

fn sample_type_order(n: usize) -> AnyValue {
    AnyValue {
        value: Some(Value::ArrayValue(ArrayValue {
            values: (0..n)
                .map(|i| AnyValue {
                    value: Some(Value::IntValue(i as i64)),
                })
                .collect(),
        })),
    }
}

/// A u64 from a u64 or int cell.
fn u64_of(cell: Option<Cell>) -> Option<u64> {
    match cell? {
        Cell::U64(v) => v,
        Cell::Int(v) if v != INT_NA => u64::try_from(v).ok(),
        Cell::Dbl(v) if v.is_finite() && v >= 0.0 => Some(v as u64),
        _ => None,
    }
}

/// An attribute value from an extension cell (`None` for NA).
fn cell_value(p: &Profile, cell: Option<Cell>) -> Option<AttrValue> {
    Some(match cell? {
        Cell::Chr(s) if !s.is_na() => AttrValue::Str(p.str(s).to_owned()),
        Cell::Int(v) if v != INT_NA => AttrValue::Int(i64::from(v)),
        Cell::Dbl(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e18 => {
            AttrValue::Int(v as i64)
        }
        Cell::Dbl(v) if !v.is_nan() => AttrValue::Double(v),
        Cell::Lgl(Some(b)) => AttrValue::Bool(b),
        Cell::U64(Some(v)) => AttrValue::Int(i64::try_from(v).ok()?),
        _ => return None,
    })
}
