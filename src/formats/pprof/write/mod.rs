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
//!
//! The steps, in order: sample types, functions and mappings (here), [`locations`], [`samples`],
//! the scalars (here), then [`unwritten`] reports what pprof has no place for.

mod locations;
mod numbering;
mod samples;
mod unwritten;

use prost::Message;

use super::schema;
use super::*;
use crate::formats::{Warning, Warnings};
use crate::hash::HashMap;
use crate::model::{Profile, StringId, INT_NA};
use locations::Group;
use numbering::{IdPool, Strings};

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
            single_ids: HashMap::default(),
            node_locations: vec![None; p.stacks.prefix.len()],
            stack_ids: Vec::new(),
        }
    }

    /// String index of a model string (NA is the empty string).
    pub(super) fn sid(&mut self, id: StringId) -> i64 {
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
}

/// An int cell as a pprof int64 (NA is 0).
fn int_or_zero(v: i32) -> i64 {
    if v == INT_NA {
        0
    } else {
        i64::from(v)
    }
}
