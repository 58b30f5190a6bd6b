//! The OTLP writer: a [`Profile`] → one `ProfilesData` message in the current layout.
//!
//! Every value type becomes its own `Profile` message (one per source and type, sharing the
//! dictionary); consecutive sources with equal resource attributes share a `ResourceProfiles`,
//! and every source has a `ScopeProfiles` of its own (the reader merges per-type profiles back
//! into one source only within a scope). Consecutive
//! timestamped samples with the same stack, labels and link are combined into one `Sample`
//! (as the spec recommends); samples without timestamps are written one each, so a pprof
//! round trip keeps every sample.
//!
//! The steps, one file each: the dictionary's functions and mappings first ([`dictionary`],
//! which also interns locations, stacks and links on demand), the sample labels, then one
//! `ResourceProfiles` / `ScopeProfiles` per source ([`resources`]) holding one `Profile` per
//! value type ([`profiles`]).

mod dictionary;
mod profiles;
mod resources;

use prost::Message;

use super::attrs::{self, AttrValue};
use super::proto::{
    Function, KeyValueAndUnit, Link, Location, Mapping, ProfilesData, ProfilesDictionary, Stack,
};
use super::*;
use crate::formats::{unwritten, Warnings};
use crate::hash::HashMap;
use crate::model::{ext, Cell, StringId, INT_NA, META_DEFAULT_TYPE, SAMPLE_TIME};

/// Nanoseconds per second.
const NANOS_PER_SECOND: f64 = 1e9;

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
    Ok(Written {
        bytes: data.encode_to_vec(),
        warnings: w.warnings.into_vec(),
    })
}

/// The extension items this writer writes; [`crate::formats::loss`] reports the others.
pub(crate) const KNOWN: unwritten::Known<'static> = unwritten::Known {
    locations: &[
        location_cols::ADDRESS,
        location_cols::MAPPING_ID,
        location_cols::COLUMN,
        location_cols::FRAME_TYPE,
        location_cols::IS_FOLDED,
        location_cols::PPROF_LOCATION_ID,
        location_cols::PPROF_LINE_INDEX,
        ext::locations::INLINED,
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
        ext::functions::PPROF_FUNCTION_ID,
        function_cols::EMPTY_NAME,
        function_cols::EMPTY_SYSTEM_NAME,
    ],
    tables: &[MAPPINGS, SAMPLE_LABELS, SOURCE_ATTRIBUTES],
    meta: &[
        "version",
        META_DEFAULT_TYPE,
        crate::formats::pprof::META_PPROF_DEFAULT_TYPE,
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
pub(super) type Identity = (i32, Vec<i32>, i32);

impl<'p> Writer<'p> {
    fn new(p: &'p Profile) -> Self {
        let mut w = Writer {
            p,
            strings: Vec::new(),
            string_ids: HashMap::default(),
            attributes: vec![KeyValueAndUnit::default()],
            attribute_ids: HashMap::default(),
            functions: vec![Function::default()],
            locations: vec![Location::default()],
            location_ids: HashMap::default(),
            stacks: vec![Stack::default()],
            stack_ids: HashMap::default(),
            node_stacks: HashMap::default(),
            mappings: vec![Mapping::default()],
            mapping_index: HashMap::default(),
            links: vec![Link {
                trace_id: vec![0; 16],
                span_id: vec![0; 8],
            }],
            link_ids: HashMap::default(),
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

    pub(super) fn string(&mut self, s: &str) -> i32 {
        if let Some(&i) = self.string_ids.get(s) {
            return i;
        }
        let i = i32::try_from(self.strings.len()).unwrap_or(i32::MAX);
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), i);
        i
    }

    pub(super) fn text(&self, id: StringId) -> &'p str {
        self.p.str(id)
    }

    pub(super) fn attribute(&mut self, key: &str, value: &AttrValue, unit: &str) -> i32 {
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
}

/// A u64 from a u64 or int cell.
pub(super) fn u64_of(cell: Option<Cell>) -> Option<u64> {
    match cell? {
        Cell::U64(v) => v,
        Cell::Int(v) if v != INT_NA => u64::try_from(v).ok(),
        Cell::Dbl(v) if v.is_finite() && v >= 0.0 => Some(v as u64),
        _ => None,
    }
}

/// An attribute value from an extension cell (`None` for NA).
pub(super) fn cell_value(p: &Profile, cell: Option<Cell>) -> Option<AttrValue> {
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
