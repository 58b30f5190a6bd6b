//! The pprof writer: any [`Profile`] to a `perftools.profiles.Profile` message.
//!
//! * Sample types are the profile's value types, in order; a sample without a value for a type
//!   gets 0. Samples with the same stack node and the same labels become one `Sample` whose
//!   values are the sums (pprof's `Merge` does the same), in order of first occurrence.
//! * Locations: consecutive `locations` rows that came from one pprof `Location` (same
//!   `.pprof_location_id`, `.pprof_line_index` 0, 1, 2, …) are folded back into one location
//!   with several `Line`s when a stack holds them together, innermost first; every other row
//!   is a location of its own. A row without a function becomes an address-only location.
//! * Ids: the original pprof ids (`.pprof_function_id`, `.pprof_location_id`, `mapping_id`)
//!   are reused when present and unique; everything else gets fresh ids.
//! * Output is deterministic: strings, ids and samples are numbered in order of first use.

use std::collections::{HashMap, HashSet};

use prost::Message;

use super::read::MAPPING_COLUMNS;
use super::schema;
use super::*;
use crate::formats::{Warning, Warnings};
use crate::model::{
    decode_opt, ColumnData, ExtColumns, ExtTable, LocationIndex, Profile, StackIndex, StringId,
    INT_NA, META_VERSION,
};

/// Largest f64 magnitude written as an i64 value.
const I64_LIMIT: f64 = 9.223_372_036_854_775e18;

/// Encodes `p` as an uncompressed pprof protobuf.
pub(super) fn encode(
    p: &Profile,
    _options: &WriteOptions,
) -> Result<(Vec<u8>, Vec<Warning>), WriteError> {
    let mut w = Writer::new(p);
    w.sample_types();
    w.functions();
    w.mappings();
    w.locations();
    w.samples();
    w.meta();
    w.report_unwritten();
    let bytes = w.out.encode_to_vec();
    Ok((bytes, w.warnings.into_vec()))
}

/// The string table under construction.
struct Strings<'p> {
    list: Vec<&'p str>,
    index: HashMap<&'p str, i64>,
}

impl<'p> Strings<'p> {
    fn new() -> Self {
        Strings {
            list: vec![""],
            index: HashMap::from([("", 0)]),
        }
    }

    fn of(&mut self, s: &'p str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as i64;
        self.list.push(s);
        self.index.insert(s, i);
        i
    }
}

/// Hands out ids not used by any preferred (original) id.
struct IdPool {
    used: HashSet<u64>,
    next: u64,
}

impl IdPool {
    fn new() -> Self {
        IdPool {
            used: HashSet::new(),
            next: 1,
        }
    }

    /// `preferred` when it is nonzero and free, else a fresh id.
    fn take(&mut self, preferred: Option<u64>) -> u64 {
        if let Some(id) = preferred.filter(|&id| id != 0) {
            if self.used.insert(id) {
                return id;
            }
        }
        while self.used.contains(&self.next) {
            self.next += 1;
        }
        let id = self.next;
        self.used.insert(id);
        id
    }
}

/// One pprof location folded from consecutive `locations` rows.
#[derive(Clone, Copy)]
struct Group {
    first: u32,
    len: u32,
}

struct Writer<'p> {
    p: &'p Profile,
    out: schema::Profile,
    strings: Strings<'p>,
    warnings: Warnings,
    /// pprof id of each `functions` row.
    function_ids: Vec<u64>,
    /// The group each `locations` row belongs to.
    row_group: Vec<u32>,
    groups: Vec<Group>,
    group_ids: Vec<u64>,
    location_ids: IdPool,
    /// pprof id of a row written on its own although it belongs to a larger group.
    single_ids: HashMap<u32, u64>,
    /// pprof location ids of each stack node's whole stack: `(start, len)` into `stack_ids`.
    node_locations: Vec<Option<(u32, u32)>>,
    stack_ids: Vec<u64>,
}

impl<'p> Writer<'p> {
    fn new(p: &'p Profile) -> Self {
        Writer {
            p,
            out: schema::Profile::default(),
            strings: Strings::new(),
            warnings: Warnings::default(),
            function_ids: Vec::new(),
            row_group: Vec::new(),
            groups: Vec::new(),
            group_ids: Vec::new(),
            location_ids: IdPool::new(),
            single_ids: HashMap::new(),
            node_locations: vec![None; p.stacks.prefix.len()],
            stack_ids: Vec::new(),
        }
    }

    /// String index of a model string (NA is the empty string).
    fn sid(&mut self, id: StringId) -> i64 {
        let text = self.p.str(id);
        self.strings.of(text)
    }

    fn sample_types(&mut self) {
        let p = self.p;
        for col in &p.values {
            let vt = schema::ValueType {
                r#type: self.sid(col.value_type),
                unit: self.sid(col.unit),
            };
            self.out.sample_type.push(vt);
        }
        if p.values.is_empty() && p.num_samples() > 0 {
            let vt = schema::ValueType {
                r#type: self.strings.of("samples"),
                unit: self.strings.of("count"),
            };
            self.out.sample_type.push(vt);
            self.warnings.add(FORMAT, "no-types", || {
                "the profile has no value types; wrote samples/count = 1 per sample".to_owned()
            });
        }
    }

    fn functions(&mut self) {
        let p = self.p;
        let f = &p.functions;
        let preferred = f.ext.u64(FUNC_PPROF_ID);
        let flag = |name: &str, row: usize| {
            f.ext.lgl(name).and_then(|c| c.get(row).copied().flatten()) == Some(true)
        };
        let mut pool = IdPool::new();
        for row in 0..f.name.len() {
            let id = pool.take(preferred.and_then(|c| c.get(row).copied().flatten()));
            self.function_ids.push(id);
            let name = if flag(FUNC_EMPTY_NAME, row) {
                0
            } else {
                self.sid(f.name[row])
            };
            let system_name = if flag(FUNC_EMPTY_SYSTEM_NAME, row) {
                0
            } else {
                self.sid(f.system_name[row])
            };
            let func = schema::Function {
                id,
                name,
                system_name,
                filename: self.sid(f.filename[row]),
                start_line: int_or_zero(f.start_line[row]),
            };
            self.out.function.push(func);
        }
    }

    fn mappings(&mut self) {
        let Some(table) = self.p.ext_table(MAPPINGS_TABLE) else {
            return;
        };
        let c = &table.columns;
        let u64_at =
            |name: &str, row: usize| c.u64(name).and_then(|v| v.get(row).copied().flatten());
        let str_at = |name: &str, row: usize| c.chr(name).and_then(|v| v.get(row).copied());
        let flag = |name: &str, row: usize| {
            c.lgl(name)
                .and_then(|v| v.get(row).copied().flatten())
                .unwrap_or(false)
        };
        let mut pool = IdPool::new();
        for row in 0..table.len() {
            let filename = str_at("filename", row).map_or(0, |s| self.sid(s));
            let build_id = str_at("build_id", row).map_or(0, |s| self.sid(s));
            self.out.mapping.push(schema::Mapping {
                id: pool.take(u64_at("mapping_id", row)),
                memory_start: u64_at("memory_start", row).unwrap_or(0),
                memory_limit: u64_at("memory_limit", row).unwrap_or(0),
                file_offset: u64_at("file_offset", row).unwrap_or(0),
                filename,
                build_id,
                has_functions: flag("has_functions", row),
                has_filenames: flag("has_filenames", row),
                has_line_numbers: flag("has_line_numbers", row),
                has_inline_frames: flag("has_inline_frames", row),
            });
        }
    }

    /// Groups `locations` rows into pprof locations and writes them all.
    fn locations(&mut self) {
        let p = self.p;
        let n = p.locations.line.len();
        let ext = &p.locations.ext;
        let pprof_id = ext.u64(LOC_PPROF_ID);
        let line_index = ext.int(LOC_LINE_INDEX);
        let id_of = |r: usize| pprof_id.and_then(|c| c.get(r).copied().flatten());
        let index_of = |r: usize| line_index.and_then(|c| c.get(r).copied());
        for r in 0..n {
            let continues = r > 0
                && p.locations.function[r] != crate::model::NO_INDEX
                && p.locations.function[r - 1] != crate::model::NO_INDEX
                && id_of(r).is_some()
                && id_of(r) == id_of(r - 1)
                && matches!((index_of(r - 1), index_of(r)), (Some(a), Some(b)) if a != INT_NA && b == a + 1);
            match self.groups.last_mut() {
                Some(g) if continues => g.len += 1,
                _ => self.groups.push(Group {
                    first: r as u32,
                    len: 1,
                }),
            }
            self.row_group.push((self.groups.len() - 1) as u32);
        }
        for g in 0..self.groups.len() {
            let group = self.groups[g];
            let id = self.location_ids.take(id_of(group.first as usize));
            self.group_ids.push(id);
            let loc = self.location(id, group);
            self.out.location.push(loc);
        }
    }

    /// The pprof location `id` made of the rows of `group`.
    fn location(&mut self, id: u64, group: Group) -> schema::Location {
        let ext = &self.p.locations.ext;
        let first = group.first as usize;
        let cell_u64 = |name: &str| ext.u64(name).and_then(|c| c.get(first).copied().flatten());
        let folded = ext
            .lgl(LOC_IS_FOLDED)
            .and_then(|c| c.get(first).copied().flatten())
            .unwrap_or(false);
        let mut loc = schema::Location {
            id,
            mapping_id: cell_u64(LOC_MAPPING_ID).unwrap_or(0),
            address: cell_u64(LOC_ADDRESS).unwrap_or(0),
            line: Vec::new(),
            is_folded: folded,
        };
        for r in first..first + group.len as usize {
            let Some(f) = self.p.location_function(LocationIndex(r as u32)) else {
                let line = self.p.locations.line[r];
                if line != 0 && line != INT_NA {
                    self.warnings.add(FORMAT, "line-no-function", || {
                        format!("locations row {}: a line without a function cannot be written; dropped", r + 1)
                    });
                }
                continue;
            };
            let column = ext
                .int(LOC_COLUMN)
                .and_then(|c| c.get(r).copied())
                .unwrap_or(INT_NA);
            loc.line.push(schema::Line {
                function_id: self.function_ids[f.idx()],
                line: int_or_zero(self.p.locations.line[r]),
                column: int_or_zero(column),
            });
        }
        loc
    }

    /// The id of a row written on its own (the row's own group when it has one row).
    fn single_location(&mut self, row: u32) -> u64 {
        let g = self.row_group[row as usize] as usize;
        if self.groups[g].len == 1 {
            return self.group_ids[g];
        }
        if let Some(&id) = self.single_ids.get(&row) {
            return id;
        }
        let id = self.location_ids.take(None);
        let loc = self.location(id, Group { first: row, len: 1 });
        self.out.location.push(loc);
        self.single_ids.insert(row, id);
        id
    }

    /// pprof location ids of the whole stack ending at `node`, innermost first (memoized).
    fn stack_locations(&mut self, node: u32, scratch: &mut Vec<LocationIndex>) -> (u32, u32) {
        if let Some(Some(range)) = self.node_locations.get(node as usize) {
            return *range;
        }
        scratch.clear();
        scratch.extend(self.p.frames_leaf_first(Some(StackIndex(node))));
        let start = self.stack_ids.len() as u32;
        let mut i = 0;
        while i < scratch.len() {
            let row = scratch[i].0;
            let g = self.row_group[row as usize] as usize;
            let group = self.groups[g];
            let whole = group.first == row
                && (0..group.len as usize)
                    .all(|k| scratch.get(i + k).is_some_and(|l| l.0 == row + k as u32));
            if whole {
                self.stack_ids.push(self.group_ids[g]);
                i += group.len as usize;
            } else {
                let id = self.single_location(row);
                self.stack_ids.push(id);
                i += 1;
            }
        }
        let range = (start, self.stack_ids.len() as u32 - start);
        if let Some(slot) = self.node_locations.get_mut(node as usize) {
            *slot = Some(range);
        }
        range
    }

    fn samples(&mut self) {
        let p = self.p;
        let label_sets = LabelSets::of(p, &mut self.strings);
        let ntypes = self.out.sample_type.len();
        let mut merged: HashMap<(u32, u32), usize> = HashMap::new();
        let mut scratch = Vec::new();
        let mut rounding = ValueRounding::default();
        for s in 0..p.num_samples() {
            let node = p.samples.stack[s];
            let set = label_sets.of_sample.get(s).copied().unwrap_or(0);
            let out_index = match merged.get(&(node, set)) {
                Some(&i) => i,
                None => {
                    let location_id = match decode_opt(node) {
                        Some(n) => {
                            let (start, len) = self.stack_locations(n, &mut scratch);
                            self.stack_ids[start as usize..(start + len) as usize].to_vec()
                        }
                        None => Vec::new(),
                    };
                    self.out.sample.push(schema::Sample {
                        location_id,
                        value: vec![0; ntypes],
                        label: label_sets.labels(set),
                    });
                    merged.insert((node, set), self.out.sample.len() - 1);
                    self.out.sample.len() - 1
                }
            };
            let values = &mut self.out.sample[out_index].value;
            if p.values.is_empty() {
                if let Some(v) = values.first_mut() {
                    *v = v.saturating_add(1);
                }
            }
            for (slot, col) in values.iter_mut().zip(&p.values) {
                if let Some(v) = col.get(s) {
                    *slot = slot.saturating_add(rounding.convert(v));
                }
            }
        }
        rounding.report(&mut self.warnings);
    }

    fn meta(&mut self) {
        let p = self.p;
        let int_meta = |key: &str| p.meta_value(key).and_then(|v| v.trim().parse::<i64>().ok());
        self.out.time_nanos = int_meta(META_TIME_NANOS)
            .or_else(|| {
                let t = *p.sources.source_timestamp.first()?;
                t.is_finite().then(|| (t * 1e9).round() as i64)
            })
            .unwrap_or(0);
        self.out.duration_nanos = int_meta(META_DURATION_NANOS).unwrap_or(0);
        self.out.period = int_meta(META_PERIOD).unwrap_or(0);
        if p.meta_value(META_PERIOD_TYPE).is_some() || p.meta_value(META_PERIOD_UNIT).is_some() {
            self.out.period_type = Some(schema::ValueType {
                r#type: self
                    .strings
                    .of(p.meta_value(META_PERIOD_TYPE).unwrap_or("")),
                unit: self
                    .strings
                    .of(p.meta_value(META_PERIOD_UNIT).unwrap_or("")),
            });
        }
        for c in p.meta_values(META_COMMENT) {
            let i = self.strings.of(c);
            self.out.comment.push(i);
        }
        let mut text = |key: &str| p.meta_value(key).map_or(0, |v| self.strings.of(v));
        self.out.drop_frames = text(META_DROP_FRAMES);
        self.out.keep_frames = text(META_KEEP_FRAMES);
        self.out.doc_url = text(META_DOC_URL);
        // The model's default when it names a type; else the file's own value, kept as it was
        // even when it names no type (pprof then uses the last type, as proftab does).
        let default = p
            .meta_value(META_DEFAULT_TYPE)
            .filter(|name| p.value_type_index(name).is_some())
            .or_else(|| p.meta_value(META_PPROF_DEFAULT_TYPE));
        self.out.default_sample_type = default.map_or(0, |name| self.strings.of(name));
        self.out.string_table = self
            .strings
            .list
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
    }

    /// Warns about what the profile holds that pprof has no place for.
    fn report_unwritten(&mut self) {
        let p = self.p;
        let mut lost: Vec<String> = Vec::new();
        let mut meta_keys: Vec<&str> = p
            .meta
            .key
            .iter()
            .map(|&k| p.str(k))
            .filter(|k| !is_written_meta(k))
            .collect();
        meta_keys.dedup();
        lost.extend(meta_keys.iter().map(|k| format!("meta {k}")));
        let written_loc = [
            LOC_ADDRESS,
            LOC_MAPPING_ID,
            LOC_IS_FOLDED,
            LOC_PPROF_ID,
            LOC_LINE_INDEX,
            LOC_COLUMN,
        ];
        lost.extend(unwritten_columns(
            "locations",
            &p.locations.ext,
            &written_loc,
        ));
        lost.extend(unwritten_columns(
            "functions",
            &p.functions.ext,
            &[FUNC_PPROF_ID],
        ));
        lost.extend(unwritten_columns("samples", &p.samples.ext, &[]));
        lost.extend(unwritten_columns("sources", &p.sources.ext, &[]));
        for t in &p.ext_tables {
            match t.name.as_str() {
                MAPPINGS_TABLE => lost.extend(unwritten_table_columns(t, &MAPPING_COLUMNS)),
                LABELS_TABLE => lost.extend(unwritten_table_columns(t, &LABEL_COLUMNS)),
                other => lost.push(format!("table {other}")),
            }
        }
        if p.sources.source_type.len() > 1 {
            lost.push(format!(
                "sources rows 2..{} (pprof has one source; samples were merged)",
                p.sources.source_type.len()
            ));
        }
        if !lost.is_empty() {
            self.warnings.push(Warning::new(
                FORMAT,
                format!("pprof cannot hold these; not written: {}", lost.join(", ")),
                lost.len(),
            ));
        }
    }
}

fn is_written_meta(key: &str) -> bool {
    matches!(
        key,
        META_VERSION
            | META_DEFAULT_TYPE
            | META_TIME_NANOS
            | META_DURATION_NANOS
            | META_PERIOD
            | META_PERIOD_TYPE
            | META_PERIOD_UNIT
            | META_COMMENT
            | META_DROP_FRAMES
            | META_KEEP_FRAMES
            | META_DOC_URL
            | META_PPROF_DEFAULT_TYPE
    )
}

fn unwritten_columns<'a>(
    table: &'a str,
    ext: &'a ExtColumns,
    written: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    ext.columns
        .iter()
        .filter(move |c| !written.contains(&c.name.as_str()))
        .map(move |c| format!("{table}.{}", c.name))
}

fn unwritten_table_columns<'a>(
    t: &'a ExtTable,
    written: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    unwritten_columns(&t.name, &t.columns, written)
}

/// An int cell as a pprof int64 (NA is 0).
fn int_or_zero(v: i32) -> i64 {
    if v == INT_NA {
        0
    } else {
        i64::from(v)
    }
}

/// Converts values to pprof's int64, counting what had to be rounded or clamped.
#[derive(Default)]
struct ValueRounding {
    rounded: usize,
    clamped: usize,
    first: Option<f64>,
}

impl ValueRounding {
    fn convert(&mut self, v: f64) -> i64 {
        if v.is_nan() {
            return 0;
        }
        let r = v.round();
        if r != v {
            self.rounded += 1;
            self.first.get_or_insert(v);
        }
        if r.abs() >= I64_LIMIT {
            self.clamped += 1;
            self.first.get_or_insert(v);
        }
        // `as` saturates at the i64 range, which is the clamping wanted.
        r as i64
    }

    fn report(&self, warnings: &mut Warnings) {
        if self.rounded + self.clamped > 0 {
            warnings.push(Warning::new(
                FORMAT,
                format!(
                    "pprof values are integers: {} values rounded, {} clamped (first: {})",
                    self.rounded,
                    self.clamped,
                    self.first.unwrap_or(0.0)
                ),
                self.rounded + self.clamped,
            ));
        }
    }
}

/// Column names of the `sample_labels` extension table.
const LABEL_COLUMNS: [&str; 5] = ["sample_id", "key", "str", "num", "num_unit"];

/// The distinct label lists of the samples: set 0 is "no labels".
struct LabelSets {
    sets: Vec<Vec<schema::Label>>,
    of_sample: Vec<u32>,
}

impl LabelSets {
    fn of<'p>(p: &'p Profile, strings: &mut Strings<'p>) -> Self {
        let mut out = LabelSets {
            sets: vec![Vec::new()],
            of_sample: vec![0; p.num_samples()],
        };
        let Some(t) = p.ext_table(LABELS_TABLE) else {
            return out;
        };
        let c = &t.columns;
        let (Some(ColumnData::Int(sample_id)), Some(key)) = (c.get("sample_id"), c.chr("key"))
        else {
            return out;
        };
        let str_col = c.chr("str");
        let num_col = c.dbl("num");
        let unit_col = c.chr("num_unit");
        let mut rows: Vec<usize> = (0..sample_id.len()).collect();
        rows.sort_by_key(|&r| sample_id[r]);
        let mut per_sample: Vec<(usize, Vec<schema::Label>)> = Vec::new();
        for r in rows {
            let Some(s) = usize::try_from(sample_id[r])
                .ok()
                .and_then(|id| id.checked_sub(1))
            else {
                continue;
            };
            if s >= out.of_sample.len() {
                continue;
            }
            let text = |col: Option<&[StringId]>, strings: &mut Strings<'p>| {
                col.and_then(|v| v.get(r))
                    .map_or(0, |&id| strings.of_owned(p, id))
            };
            let num = num_col.and_then(|v| v.get(r)).copied().unwrap_or(f64::NAN);
            let label = schema::Label {
                key: key.get(r).map_or(0, |&id| strings.of_owned(p, id)),
                str: text(str_col, strings),
                num: if num.is_nan() { 0 } else { num.round() as i64 },
                num_unit: text(unit_col, strings),
            };
            match per_sample.last_mut() {
                Some((last, labels)) if *last == s => labels.push(label),
                _ => per_sample.push((s, vec![label])),
            }
        }
        let mut index: HashMap<Vec<schema::Label>, u32> = HashMap::new();
        for (s, labels) in per_sample {
            let next = out.sets.len() as u32;
            let set = *index.entry(labels.clone()).or_insert_with(|| {
                out.sets.push(labels);
                next
            });
            out.of_sample[s] = set;
        }
        out
    }

    fn labels(&self, set: u32) -> Vec<schema::Label> {
        self.sets.get(set as usize).cloned().unwrap_or_default()
    }
}

impl<'p> Strings<'p> {
    /// String index of a model string id of `p`.
    fn of_owned(&mut self, p: &'p Profile, id: StringId) -> i64 {
        self.of(p.str(id))
    }
}
