//! Firefox Profiler processed profile JSON (seed 004, formats.md §4).
//!
//! **Reading** accepts every processed version from 0 (no `preprocessedProfileVersion`, threads
//! with `stringArray`) to [`PROCESSED_PROFILE_VERSION`]: per-thread tables (≤ v59) or shared ones
//! (v60+), `prefix` (≤ v65) or `prefixOffset`, per-thread or shared `stringArray`, `fileName`
//! (≤ v57) or `source`, `time` or `timeDeltas`, with or without `weight`. Raw Gecko profiles
//! (what Firefox hands the profiler before processing) are recognised and refused with a message
//! saying so. Newer versions fail with the profiler's own `ProfileVersionError` wording.
//!
//! | Firefox | proftab |
//! | --- | --- |
//! | thread | one `sources` row (`.thread_name`, `.process_name`, `.process_type`, `.pid`, `.tid`, `.is_main_thread`); `source_timestamp` = `meta.startTime` |
//! | sample | one row; `samples..time` = time / 1000 (seconds from `meta.startTime`) |
//! | `weightType: samples` | `samples`/`count` = weight (1 without weights) — the default type |
//! | `weightType: tracing-ms` | `samples`/`count` = 1 and `time`/`nanoseconds` = weight × 10⁶ (default) |
//! | `weightType: bytes` | `samples`/`count` = 1 and `bytes`/`bytes` = weight (default) |
//! | frame | one `locations` row: `line`, `.column`, `.address` (lib-relative, when ≥ 0), `.inlined` (inlineDepth > 0), `.category`/`.subcategory` names, `.frame_type` when the category is a seed-003 value |
//! | func | `functions` row: `name` (= `system_name`), `filename` (`fileName` or `sources.filename`), `start_line` = `lineNumber`; `.is_js`, `.relevant_for_js`, `.resource` |
//!
//! **Writing** produces version [`PROCESSED_PROFILE_VERSION`] with shared tables, one thread
//! per source, and one value type (the default, or [`WriteOptions::value_type`]) as
//! `weight`/`weightType`; categories come from `.category`, else `.frame_type`, else "Other".

mod gecko;

use std::collections::HashMap;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    Format, Parsed, Place, ReadError, ReadOptions, Warnings, WriteError, WriteOptions, Written,
};
use crate::model::{
    Cell, FunctionIndex, FunctionKey, LocationIndex, Profile, ProfileBuilder, SampleIndex,
    StackIndex, StringId, INT_NA, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Format name used in errors and warnings.
pub const NAME: &str = "firefox";
/// The newest processed-profile version read, and the one written.
pub const PROCESSED_PROFILE_VERSION: u32 = 70;
/// Gecko profile version written in `meta.version` (ignored by the profiler for processed files).
const GECKO_PROFILE_VERSION: u32 = 36;
/// Bytes searched by [`detect`] for the top-level keys.
const SNIFF_BYTES: usize = 256 * 1024;
/// Seed-003 frame types; a category with one of these names (any case) sets `.frame_type`.
const FRAME_TYPES: [&str; 12] = [
    "beam", "cpython", "dotnet", "go", "jvm", "kernel", "native", "perl", "php", "ruby", "rust",
    "v8js",
];
/// Category colours the profiler accepts, used in turn for categories without a known colour.
const COLORS: [&str; 11] = [
    "blue",
    "green",
    "orange",
    "purple",
    "yellow",
    "lightblue",
    "brown",
    "magenta",
    "red",
    "lightred",
    "darkgrey",
];
/// Name given to funcs whose name is null or empty (the v2 tables need one).
const UNNAMED_FUNCTION: &str = "(anonymous)";
/// Milliseconds per second.
const MS_PER_SECOND: f64 = 1000.0;
/// Nanoseconds per millisecond.
const NS_PER_MS: f64 = 1e6;

/// Meta keys written by the reader and read by the writer.
pub mod meta_keys {
    /// `meta.product`.
    pub const PRODUCT: &str = "firefox.product";
    /// `meta.interval` (ms).
    pub const INTERVAL_MS: &str = "firefox.interval_ms";
    /// `meta.preprocessedProfileVersion` of a processed profile read.
    pub const PROCESSED_VERSION: &str = "firefox.preprocessed_profile_version";
    /// `meta.version` of a raw Gecko profile read.
    pub const GECKO_VERSION: &str = "firefox.gecko_version";
}

/// `sources` extension columns (one row per thread).
pub mod source_cols {
    /// Thread name.
    pub const THREAD_NAME: &str = ".thread_name";
    /// Process name.
    pub const PROCESS_NAME: &str = ".process_name";
    /// Process type (`default`, `tab`, …).
    pub const PROCESS_TYPE: &str = ".process_type";
    /// Process id (text).
    pub const PID: &str = ".pid";
    /// Thread id (text).
    pub const TID: &str = ".tid";
    /// Main thread flag.
    pub const IS_MAIN_THREAD: &str = ".is_main_thread";
}

/// `locations` extension columns.
pub mod location_cols {
    /// Category name.
    pub const CATEGORY: &str = ".category";
    /// Subcategory name.
    pub const SUBCATEGORY: &str = ".subcategory";
    /// Seed-003 frame type.
    pub const FRAME_TYPE: &str = ".frame_type";
    /// Address (lib-relative in Firefox files).
    pub const ADDRESS: &str = ".address";
    /// Column.
    pub const COLUMN: &str = ".column";
    pub use crate::formats::inline::INLINED;
}

/// `functions` extension columns.
pub mod function_cols {
    /// `isJS`.
    pub const IS_JS: &str = ".is_js";
    /// `relevantForJS`.
    pub const RELEVANT_FOR_JS: &str = ".relevant_for_js";
    /// Resource (library, URL, …) name.
    pub const RESOURCE: &str = ".resource";
}

// ---------------------------------------------------------------------------------------------
// Detection

/// True for a JSON object whose first bytes hold a `"meta"` key and `"threads"` or
/// `"preprocessedProfileVersion"` (processed and Gecko profiles alike).
pub fn detect(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let first = head.iter().find(|b| !b.is_ascii_whitespace());
    first == Some(&b'{')
        && contains(head, b"\"meta\"")
        && (contains(head, b"\"threads\"") || contains(head, b"\"preprocessedProfileVersion\""))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

// ---------------------------------------------------------------------------------------------
// JSON shapes (every field optional so that every version parses; checks happen afterwards)

/// A numeric column: JSON numbers, with null (and missing cells) as NaN — 8 bytes a cell,
/// whatever the input says about lengths.
#[derive(Clone, Debug, Default)]
struct Col(Vec<f64>);

impl Col {
    /// The cell at `i`; `None` for null or past the end.
    fn cell(&self, i: usize) -> Option<f64> {
        self.0.get(i).copied().filter(|v| !v.is_nan())
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    /// Appends a cell (`None` for null).
    fn push(&mut self, v: Option<f64>) {
        self.0.push(v.unwrap_or(f64::NAN));
    }
}

impl From<Vec<Option<f64>>> for Col {
    fn from(v: Vec<Option<f64>>) -> Self {
        Col(v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
    }
}

impl<'de> Deserialize<'de> for Col {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Col;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of numbers or nulls")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Col, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<Option<f64>>()? {
                    out.push(v.unwrap_or(f64::NAN));
                }
                Ok(Col(out))
            }
        }
        d.deserialize_seq(Visit)
    }
}

/// A boolean cell that also accepts 0/1 and null.
#[derive(Clone, Copy, Debug, Default)]
struct Flag(Option<bool>);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Flag;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(Some(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Flag, E> {
                Ok(Flag(Some(v != 0)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Flag, E> {
                Ok(Flag(Some(v != 0)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Flag, E> {
                Ok(Flag(Some(v != 0.0)))
            }
            fn visit_unit<E>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_none<E>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
        }
        d.deserialize_any(Visit)
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Doc {
    meta: Option<Meta>,
    libs: Option<Value>,
    shared: Option<Tables>,
    threads: Option<Vec<ThreadSlot>>,
    counters: Option<Vec<IgnoredAny>>,
    processes: Option<IgnoredAny>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Meta {
    version: Option<Value>,
    preprocessed_profile_version: Option<f64>,
    interval: Option<f64>,
    start_time: Option<f64>,
    product: Option<String>,
    categories: Option<Vec<Category>>,
    proftab_value_type: Option<ValueTypeJ>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ValueTypeJ {
    #[serde(rename = "type")]
    ty: String,
    unit: String,
}

#[derive(Deserialize, Default, Clone)]
#[serde(default)]
struct Category {
    name: Option<String>,
    subcategories: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Tables {
    string_array: Option<Vec<String>>,
    stack_table: Option<StackTable>,
    frame_table: Option<FrameTable>,
    func_table: Option<FuncTable>,
    resource_table: Option<ResourceTable>,
    native_symbols: Option<LengthOnly>,
    sources: Option<Sources>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct StackTable {
    frame: Col,
    prefix: Option<Col>,
    prefix_offset: Option<Col>,
    length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct FrameTable {
    func: Col,
    line: Col,
    column: Col,
    address: Col,
    inline_depth: Col,
    category: Col,
    subcategory: Col,
    length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct FuncTable {
    name: Col,
    #[serde(rename = "isJS")]
    is_js: Vec<Flag>,
    #[serde(rename = "relevantForJS")]
    relevant_for_js: Vec<Flag>,
    resource: Col,
    file_name: Col,
    source: Col,
    line_number: Col,
    length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ResourceTable {
    name: Col,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Sources {
    filename: Col,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LengthOnly {
    length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Samples {
    stack: Col,
    time: Option<Col>,
    time_deltas: Option<Col>,
    weight: Option<Col>,
    weight_type: Option<String>,
    length: Option<f64>,
    #[serde(rename = "threadCPUDelta")]
    thread_cpu_delta: Option<IgnoredAny>,
    event_delay: Option<IgnoredAny>,
    responsiveness: Option<IgnoredAny>,
    argument_values: Option<IgnoredAny>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Thread {
    name: Option<String>,
    process_name: Option<String>,
    process_type: Option<Value>,
    pid: Option<Value>,
    tid: Option<Value>,
    is_main_thread: Option<bool>,
    samples: Option<Samples>,
    markers: Option<LengthOnly>,
    js_allocations: Option<LengthOnly>,
    native_allocations: Option<LengthOnly>,
    js_tracer: Option<IgnoredAny>,
    string_table: Option<IgnoredAny>,
    #[serde(flatten)]
    tables: Tables,
}

/// A `threads` entry: an object, or (old Gecko profiles) a JSON string holding one.
enum ThreadSlot {
    Object(Box<Thread>),
    Text,
}

impl<'de> Deserialize<'de> for ThreadSlot {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = ThreadSlot;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a thread object")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<ThreadSlot, E> {
                Ok(ThreadSlot::Text)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<ThreadSlot, A::Error> {
                Thread::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|t| ThreadSlot::Object(Box::new(t)))
            }
        }
        d.deserialize_any(Visit)
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

fn err(path: impl Into<String>, message: impl Into<String>) -> ReadError {
    ReadError::new(NAME, Place::Path(path.into()), message)
}

/// An index cell: a non-negative integer below `len`.
fn index_cell(
    col: &Col,
    i: usize,
    len: usize,
    path: impl Fn() -> String,
) -> Result<Option<usize>, ReadError> {
    match col.cell(i) {
        None => Ok(None),
        Some(v) if v >= 0.0 && v.fract() == 0.0 && (v as usize) < len => Ok(Some(v as usize)),
        Some(v) => Err(err(
            path(),
            format!("index {v} out of range (table has {len} rows)"),
        )),
    }
}

fn int_cell(col: &Col, i: usize) -> Option<i64> {
    col.cell(i).filter(|v| v.is_finite()).map(|v| v as i64)
}

fn check_length(declared: Option<f64>, actual: usize, path: &str) -> Result<(), ReadError> {
    match declared {
        Some(d) if d != actual as f64 => Err(err(
            path,
            format!("length is {d} but the columns have {actual} rows"),
        )),
        _ => Ok(()),
    }
}

/// Reads a processed profile.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    let doc: Doc = serde_json::from_slice(bytes)
        .map_err(|e| ReadError::new(NAME, Place::Line(e.line()), format!("invalid JSON: {e}")))?;
    let meta = doc
        .meta
        .as_ref()
        .ok_or_else(|| err("meta", "missing (not a Firefox profile)"))?;
    let slots = doc.threads.as_deref().unwrap_or(&[]);
    let threads: Vec<&Thread> = slots
        .iter()
        .filter_map(|t| match t {
            ThreadSlot::Object(t) => Some(&**t),
            ThreadSlot::Text => None,
        })
        .collect();
    let Some(version) = processed_version(meta, &threads, slots.len())? else {
        return read_gecko(bytes, options);
    };
    let mut r = Reader {
        b: ProfileBuilder::new(),
        w: Warnings::default(),
        options,
        categories: meta.categories.clone().unwrap_or_else(default_categories),
        default_set: false,
    };
    r.profile_meta(meta, Some(version));
    r.doc_warnings(&doc);
    let empty = Tables::default();
    let shared = doc.shared.as_ref().unwrap_or(&empty);
    let mut shared_cache = Cache::default();
    for (t, thread) in threads.iter().enumerate() {
        let own = thread.tables.stack_table.is_some();
        let mut own_cache = Cache::default();
        let cache = if own {
            &mut own_cache
        } else {
            &mut shared_cache
        };
        r.thread(meta, thread, t, shared, cache)?;
    }
    r.finish()
}

/// Reads a raw Gecko profile by converting it to the processed shape first.
fn read_gecko(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let converted = gecko::convert(bytes)?;
    let meta = &converted.meta;
    let mut r = Reader {
        b: ProfileBuilder::new(),
        w: Warnings::default(),
        options,
        categories: meta.categories.clone().unwrap_or_else(default_categories),
        default_set: false,
    };
    r.profile_meta(meta, None);
    if converted.markers > 0 {
        let n = converted.markers;
        r.w.add(NAME, "markers", || {
            format!("{n} Gecko markers are not kept")
        });
    }
    let shared = Tables::default();
    for (t, thread) in converted.threads.iter().enumerate() {
        r.thread(meta, thread, t, &shared, &mut Cache::default())?;
    }
    r.finish()
}

/// The processed version; `None` for a raw Gecko profile (no `preprocessedProfileVersion` and
/// no thread `stringArray`, the profiler's own test); an error for versions newer than
/// supported.
fn processed_version(
    meta: &Meta,
    threads: &[&Thread],
    slots: usize,
) -> Result<Option<u32>, ReadError> {
    let processed_v0 = threads.len() == slots
        && threads
            .first()
            .is_some_and(|t| t.tables.string_array.is_some());
    let version = match meta.preprocessed_profile_version {
        Some(v) => v,
        None if processed_v0 => 0.0,
        None => return Ok(None),
    };
    if !(version >= 0.0 && version.fract() == 0.0) {
        return Err(err(
            "meta.preprocessedProfileVersion",
            format!("{version} is not a version number"),
        ));
    }
    if version > f64::from(PROCESSED_PROFILE_VERSION) {
        return Err(err(
            "meta.preprocessedProfileVersion",
            format!(
                "Unable to parse a processed profile of version {version}. The most recent \
                 version understood by this build is version {PROCESSED_PROFILE_VERSION}."
            ),
        ));
    }
    Ok(Some(version as u32))
}

/// The profiler's default categories (`getDefaultCategories`), used when a file has none.
fn default_categories() -> Vec<Category> {
    [
        "Other",
        "Idle",
        "Layout",
        "JavaScript",
        "GC / CC",
        "Network",
        "Graphics",
        "DOM",
    ]
    .into_iter()
    .map(|n| Category {
        name: Some(n.to_owned()),
        subcategories: Some(vec!["Other".to_owned()]),
    })
    .collect()
}

/// Per-table-set lookups (one set per thread up to v59, one shared set from v60).
#[derive(Default)]
struct Cache {
    funcs: HashMap<usize, FunctionIndex>,
    frames: HashMap<usize, LocationIndex>,
    stacks: HashMap<usize, Option<StackIndex>>,
}

struct Reader<'o> {
    b: ProfileBuilder,
    w: Warnings,
    options: &'o ReadOptions,
    categories: Vec<Category>,
    default_set: bool,
}

/// The tables one thread reads: its own (≤ v59) or the shared ones.
struct View<'a> {
    strings: &'a [String],
    stacks: &'a StackTable,
    frames: &'a FrameTable,
    funcs: &'a FuncTable,
    resources: Option<&'a ResourceTable>,
    sources: Option<&'a Sources>,
    prefix: &'a str,
}

impl Reader<'_> {
    /// Profile-level meta; `version` is the processed version, `None` for a Gecko profile.
    fn profile_meta(&mut self, meta: &Meta, version: Option<u32>) {
        if let Some(p) = &meta.product {
            self.b.set_meta(meta_keys::PRODUCT, p);
        }
        if let Some(i) = meta.interval {
            self.b.set_meta(meta_keys::INTERVAL_MS, &i.to_string());
        }
        match (version, &meta.version) {
            (Some(v), _) => self
                .b
                .set_meta(meta_keys::PROCESSED_VERSION, &v.to_string()),
            (None, Some(g)) => self.b.set_meta(meta_keys::GECKO_VERSION, &g.to_string()),
            (None, None) => {}
        }
    }

    fn finish(self) -> Result<Parsed, ReadError> {
        let profile = self
            .b
            .build()
            .map_err(|e| ReadError::whole(NAME, format!("internal error: {e}")))?;
        Ok(Parsed {
            format: Format::Firefox,
            profile,
            warnings: self.w.into_vec(),
        })
    }

    fn doc_warnings(&mut self, doc: &Doc) {
        let count = |v: &Option<Vec<IgnoredAny>>| v.as_ref().map_or(0, Vec::len);
        if count(&doc.counters) > 0 {
            let n = count(&doc.counters);
            self.w.add(NAME, "counters", || {
                format!("{n} counters (memory, CPU, …) are not kept")
            });
        }
        let libs = doc
            .libs
            .as_ref()
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if libs > 0 {
            let n = libs;
            self.w.add(NAME, "libs", || {
                format!("{n} libs: only their resource names are kept (paths, breakpad and code ids are not)")
            });
        }
        if doc.processes.is_some() {
            self.w.add(NAME, "processes", || {
                "sub-process profiles are not read".to_owned()
            });
        }
    }

    fn thread(
        &mut self,
        meta: &Meta,
        thread: &Thread,
        t: usize,
        shared: &Tables,
        cache: &mut Cache,
    ) -> Result<(), ReadError> {
        let prefix = format!("threads[{t}]");
        let own = &thread.tables;
        let strings = shared
            .string_array
            .as_deref()
            .or(own.string_array.as_deref())
            .ok_or_else(|| err(&prefix, "no stringArray (neither shared nor per thread)"))?;
        let (Some(stacks), Some(frames), Some(funcs)) = (
            own.stack_table.as_ref().or(shared.stack_table.as_ref()),
            own.frame_table.as_ref().or(shared.frame_table.as_ref()),
            own.func_table.as_ref().or(shared.func_table.as_ref()),
        ) else {
            return Err(err(&prefix, "missing stackTable, frameTable or funcTable"));
        };
        let on_thread = own.stack_table.is_some();
        let table_prefix = if on_thread {
            prefix.clone()
        } else {
            "shared".to_owned()
        };
        let view = View {
            strings,
            stacks,
            frames,
            funcs,
            resources: own
                .resource_table
                .as_ref()
                .or(shared.resource_table.as_ref()),
            sources: shared.sources.as_ref().or(own.sources.as_ref()),
            prefix: &table_prefix,
        };
        check_tables(&view)?;
        self.thread_warnings(thread, &prefix, if on_thread { own } else { shared });
        let src = self.source(meta, thread)?;
        let Some(samples) = &thread.samples else {
            return Ok(());
        };
        let plan = read_plan(meta, samples, &format!("{prefix}.samples"))?;
        self.samples(
            &view,
            cache,
            samples,
            &plan,
            src,
            &format!("{prefix}.samples"),
        )
    }

    fn thread_warnings(&mut self, thread: &Thread, prefix: &str, tables: &Tables) {
        let len = |l: &Option<LengthOnly>| l.as_ref().and_then(|l| l.length).unwrap_or(0.0);
        if len(&thread.markers) > 0.0 {
            self.w.add(NAME, "markers", || {
                format!("{prefix}: markers are not kept")
            });
        }
        if len(&thread.js_allocations) > 0.0 || len(&thread.native_allocations) > 0.0 {
            self.w.add(NAME, "allocations", || {
                format!("{prefix}: allocation tables are not kept")
            });
        }
        if thread.js_tracer.is_some() {
            self.w.add(NAME, "jstracer", || {
                format!("{prefix}: JS tracer data is not kept")
            });
        }
        if len(&tables.native_symbols) > 0.0 {
            self.w.add(NAME, "native_symbols", || {
                "nativeSymbols are not kept".to_owned()
            });
        }
        if let Some(s) = &thread.samples {
            if s.thread_cpu_delta.is_some()
                || s.event_delay.is_some()
                || s.responsiveness.is_some()
                || s.argument_values.is_some()
            {
                self.w.add(NAME, "sample_columns", || {
                    format!("{prefix}.samples: threadCPUDelta/eventDelay/responsiveness/argumentValues are not kept")
                });
            }
        }
    }

    fn source(
        &mut self,
        meta: &Meta,
        thread: &Thread,
    ) -> Result<crate::model::SourceIndex, ReadError> {
        let ts = meta
            .start_time
            .filter(|t| t.is_finite())
            .map(|t| t / MS_PER_SECOND);
        let src = self
            .b
            .add_source(NAME, self.options.source_uri.as_deref(), ts);
        let row = src.idx();
        let text = |v: &Option<Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let cells = [
            (source_cols::THREAD_NAME, thread.name.clone()),
            (source_cols::PROCESS_NAME, thread.process_name.clone()),
            (source_cols::PROCESS_TYPE, text(&thread.process_type)),
            (source_cols::PID, text(&thread.pid)),
            (source_cols::TID, text(&thread.tid)),
        ];
        for (col, value) in cells {
            if let Some(v) = value {
                let id = self.b.intern(&v);
                let _ = self.b.sources_mut().ext.set(col, row, Cell::Chr(id));
            }
        }
        if let Some(m) = thread.is_main_thread {
            let _ =
                self.b
                    .sources_mut()
                    .ext
                    .set(source_cols::IS_MAIN_THREAD, row, Cell::Lgl(Some(m)));
        }
        Ok(src)
    }

    fn samples(
        &mut self,
        view: &View,
        cache: &mut Cache,
        samples: &Samples,
        plan: &ReadPlan,
        src: crate::model::SourceIndex,
        path: &str,
    ) -> Result<(), ReadError> {
        let n = samples.stack.len();
        check_length(samples.length, n, path)?;
        let times = sample_times(samples, n, path)?;
        if let Some(w) = &samples.weight {
            if w.len() != n {
                return Err(err(
                    format!("{path}.weight"),
                    format!("{} entries for {n} samples", w.len()),
                ));
            }
        }
        let count = self.b.value_type("samples", "count");
        let weight_vt = (plan.ty != "samples").then(|| self.b.value_type(&plan.ty, &plan.unit));
        if !self.default_set {
            self.b.set_meta(META_DEFAULT_TYPE, &plan.ty);
            self.default_set = true;
        }
        for i in 0..n {
            if self.b.num_samples() >= self.options.limits.max_samples {
                return Err(err(
                    path,
                    format!("more than {} samples", self.options.limits.max_samples),
                ));
            }
            let stack = match index_cell(&samples.stack, i, view.stacks.frame.len(), || {
                format!("{path}.stack[{i}]")
            })? {
                Some(s) => self.stack(view, cache, s)?,
                None => None,
            };
            let weight = samples
                .weight
                .as_ref()
                .and_then(|w| w.cell(i))
                .unwrap_or(1.0);
            let row: SampleIndex = self.b.add_sample(src, stack);
            match weight_vt {
                None => self.b.set_value(row, count, weight * plan.scale),
                Some(vt) => {
                    self.b.set_value(row, count, 1.0);
                    self.b.set_value(row, vt, weight * plan.scale);
                }
            }
            if let Some(&t) = times.get(i) {
                self.b
                    .set_sample_ext(row, SAMPLE_TIME, Cell::Dbl(t / MS_PER_SECOND));
            }
        }
        Ok(())
    }

    /// The stack node of Firefox stack `s`, converting uncached ancestors iteratively.
    fn stack(
        &mut self,
        view: &View,
        cache: &mut Cache,
        s: usize,
    ) -> Result<Option<StackIndex>, ReadError> {
        if let Some(&done) = cache.stacks.get(&s) {
            return Ok(done);
        }
        // Walk up to the first converted ancestor; parents precede children, so this ends.
        let mut chain = vec![s];
        let mut top = None;
        let mut cur = s;
        while let Some(p) = parent(view, cur)? {
            if let Some(&done) = cache.stacks.get(&p) {
                top = done;
                break;
            }
            chain.push(p);
            cur = p;
            if chain.len() > self.options.limits.max_stack_depth {
                return Err(err(
                    format!("{}.stackTable", view.prefix),
                    format!(
                        "stack {s} is deeper than {} frames",
                        self.options.limits.max_stack_depth
                    ),
                ));
            }
        }
        let mut node = top;
        for &st in chain.iter().rev() {
            let frame = index_cell(&view.stacks.frame, st, view.frames.func.len(), || {
                format!("{}.stackTable.frame[{st}]", view.prefix)
            })?
            .ok_or_else(|| {
                err(
                    format!("{}.stackTable.frame[{st}]", view.prefix),
                    "null frame",
                )
            })?;
            let loc = self.frame(view, cache, frame)?;
            node = Some(self.b.stack_node(node, loc));
            cache.stacks.insert(st, node);
        }
        Ok(node)
    }

    fn frame(
        &mut self,
        view: &View,
        cache: &mut Cache,
        f: usize,
    ) -> Result<LocationIndex, ReadError> {
        if let Some(&l) = cache.frames.get(&f) {
            return Ok(l);
        }
        let ft = view.frames;
        let fpath = || format!("{}.frameTable.func[{f}]", view.prefix);
        let func = index_cell(&ft.func, f, view.funcs.name.len(), fpath)?
            .ok_or_else(|| err(fpath(), "null func"))?;
        let function = self.func(view, cache, func)?;
        let line = int_cell(&ft.line, f)
            .and_then(|l| i32::try_from(l).ok())
            .unwrap_or(0);
        let loc = self.b.add_location(Some(function), line);
        if let Some(c) = int_cell(&ft.column, f).and_then(|c| i32::try_from(c).ok()) {
            self.b
                .set_location_ext(loc, location_cols::COLUMN, Cell::Int(c));
        }
        if let Some(a) = int_cell(&ft.address, f).and_then(|a| u64::try_from(a).ok()) {
            self.b
                .set_location_ext(loc, location_cols::ADDRESS, Cell::U64(Some(a)));
        }
        if int_cell(&ft.inline_depth, f).is_some_and(|d| d > 0) {
            self.b
                .set_location_ext(loc, location_cols::INLINED, Cell::Lgl(Some(true)));
        }
        self.category(ft, f, loc);
        cache.frames.insert(f, loc);
        Ok(loc)
    }

    fn category(&mut self, ft: &FrameTable, f: usize, loc: LocationIndex) {
        let Some(c) = int_cell(&ft.category, f) else {
            return;
        };
        let Some(cat) = usize::try_from(c)
            .ok()
            .and_then(|c| self.categories.get(c))
            .cloned()
        else {
            self.w.add(NAME, "category", || {
                format!("frameTable.category {c} is not in meta.categories; not kept")
            });
            return;
        };
        let name = cat.name.unwrap_or_default();
        let id = self.b.intern(&name);
        self.b
            .set_location_ext(loc, location_cols::CATEGORY, Cell::Chr(id));
        let lower = name.to_ascii_lowercase();
        if FRAME_TYPES.contains(&lower.as_str()) {
            let id = self.b.intern(&lower);
            self.b
                .set_location_ext(loc, location_cols::FRAME_TYPE, Cell::Chr(id));
        }
        let sub = int_cell(&ft.subcategory, f)
            .and_then(|s| usize::try_from(s).ok())
            .and_then(|s| cat.subcategories.as_ref()?.get(s).cloned());
        if let Some(sub) = sub {
            let id = self.b.intern(&sub);
            self.b
                .set_location_ext(loc, location_cols::SUBCATEGORY, Cell::Chr(id));
        }
    }

    fn func(
        &mut self,
        view: &View,
        cache: &mut Cache,
        i: usize,
    ) -> Result<FunctionIndex, ReadError> {
        if let Some(&f) = cache.funcs.get(&i) {
            return Ok(f);
        }
        let ft = view.funcs;
        let p = |col: &str| format!("{}.funcTable.{col}[{i}]", view.prefix);
        let name = string_at(view, &ft.name, i, || p("name"))?
            .filter(|n| !n.is_empty())
            .unwrap_or(UNNAMED_FUNCTION);
        let filename = match string_at(view, &ft.file_name, i, || p("fileName"))? {
            Some(f) => Some(f),
            None => match (
                view.sources,
                index_cell(&ft.source, i, usize::MAX, || p("source"))?,
            ) {
                (Some(src), Some(s)) => string_at(view, &src.filename, s, || {
                    format!("shared.sources.filename[{s}]")
                })?,
                _ => None,
            },
        };
        let start_line = int_cell(&ft.line_number, i)
            .and_then(|l| i32::try_from(l).ok())
            .unwrap_or(0);
        let name_id = self.b.intern(name);
        let key = FunctionKey {
            name: name_id,
            system_name: name_id,
            filename: self.b.strings().intern_opt(filename),
            start_line,
        };
        let f = self.b.function(key);
        let flag = |v: &Vec<Flag>| v.get(i).and_then(|f| f.0);
        let ext = &mut self.b.functions_mut().ext;
        if let Some(b) = flag(&ft.is_js) {
            let _ = ext.set(function_cols::IS_JS, f.idx(), Cell::Lgl(Some(b)));
        }
        if let Some(b) = flag(&ft.relevant_for_js) {
            let _ = ext.set(function_cols::RELEVANT_FOR_JS, f.idx(), Cell::Lgl(Some(b)));
        }
        if let (Some(res), Some(r)) = (
            view.resources,
            int_cell(&ft.resource, i).and_then(|r| usize::try_from(r).ok()),
        ) {
            if let Some(name) =
                string_at(view, &res.name, r, || format!("resourceTable.name[{r}]"))?
            {
                let id = self.b.intern(name);
                let _ =
                    self.b
                        .functions_mut()
                        .ext
                        .set(function_cols::RESOURCE, f.idx(), Cell::Chr(id));
            }
        }
        cache.funcs.insert(i, f);
        Ok(f)
    }
}

/// The string at index cell `i` of `col` (`None` for null / missing).
fn string_at<'a>(
    view: &View<'a>,
    col: &Col,
    i: usize,
    path: impl Fn() -> String,
) -> Result<Option<&'a str>, ReadError> {
    Ok(index_cell(col, i, view.strings.len(), path)?
        .and_then(|s| view.strings.get(s).map(String::as_str)))
}

/// What the sample weights become: value type `ty`/`unit`, weight × `scale`.
struct ReadPlan {
    ty: String,
    unit: String,
    scale: f64,
}

/// The value type of a thread's weights: the one proftab wrote (`meta.proftabValueType`), else
/// `samples`/`count`, `time`/`nanoseconds` or `bytes`/`bytes` by weight type.
fn read_plan(meta: &Meta, samples: &Samples, path: &str) -> Result<ReadPlan, ReadError> {
    let weight_type = samples.weight_type.as_deref().unwrap_or("samples");
    let (ty, unit) = match weight_type {
        "samples" => ("samples", "count"),
        "tracing-ms" => ("time", "nanoseconds"),
        "bytes" => ("bytes", "bytes"),
        other => {
            return Err(err(
                format!("{path}.weightType"),
                format!("unknown weight type {other:?}"),
            ))
        }
    };
    let (ty, unit) = match &meta.proftab_value_type {
        Some(v) if !v.ty.is_empty() => (v.ty.clone(), v.unit.clone()),
        _ => (ty.to_owned(), unit.to_owned()),
    };
    let scale = match (weight_type, unit.as_str()) {
        ("tracing-ms", "microseconds") => 1e3,
        ("tracing-ms", "milliseconds") => 1.0,
        ("tracing-ms", "seconds") => 1e-3,
        ("tracing-ms", _) => NS_PER_MS,
        _ => 1.0,
    };
    Ok(ReadPlan { ty, unit, scale })
}

/// The parent stack of `s`, checked to come before it.
fn parent(view: &View, s: usize) -> Result<Option<usize>, ReadError> {
    let st = view.stacks;
    let path = || format!("{}.stackTable", view.prefix);
    if let Some(offsets) = &st.prefix_offset {
        return match offsets.cell(s) {
            None => Err(err(format!("{}.prefixOffset[{s}]", path()), "missing")),
            Some(0.0) => Ok(None),
            Some(o) if o > 0.0 && o.fract() == 0.0 && o <= s as f64 => Ok(Some(s - o as usize)),
            Some(o) => Err(err(
                format!("{}.prefixOffset[{s}]", path()),
                format!("{o} does not point to an earlier stack"),
            )),
        };
    }
    let prefix = st
        .prefix
        .as_ref()
        .ok_or_else(|| err(path(), "neither prefix nor prefixOffset"))?;
    match prefix.cell(s) {
        None => Ok(None),
        Some(p) if p >= 0.0 && p.fract() == 0.0 && p < s as f64 => Ok(Some(p as usize)),
        Some(p) => Err(err(
            format!("{}.prefix[{s}]", path()),
            format!("{p} is not an earlier stack"),
        )),
    }
}

/// Checks the declared lengths of the tables a thread uses.
fn check_tables(view: &View) -> Result<(), ReadError> {
    let p = view.prefix;
    check_length(
        view.stacks.length,
        view.stacks.frame.len(),
        &format!("{p}.stackTable"),
    )?;
    let prefix_len = view
        .stacks
        .prefix_offset
        .as_ref()
        .or(view.stacks.prefix.as_ref())
        .map_or(0, Col::len);
    if prefix_len != view.stacks.frame.len() {
        return Err(err(
            format!("{p}.stackTable"),
            format!(
                "{prefix_len} prefixes for {} frames",
                view.stacks.frame.len()
            ),
        ));
    }
    check_length(
        view.frames.length,
        view.frames.func.len(),
        &format!("{p}.frameTable"),
    )?;
    check_length(
        view.funcs.length,
        view.funcs.name.len(),
        &format!("{p}.funcTable"),
    )
}

/// Sample times in ms from `time` or the running sum of `timeDeltas` (empty when neither).
fn sample_times(samples: &Samples, n: usize, path: &str) -> Result<Vec<f64>, ReadError> {
    let col = |name: &str, c: &Col| -> Result<Vec<f64>, ReadError> {
        if c.len() != n {
            return Err(err(
                format!("{path}.{name}"),
                format!("{} entries for {n} samples", c.len()),
            ));
        }
        Ok(c.0.clone())
    };
    if let Some(t) = &samples.time {
        return col("time", t);
    }
    if let Some(d) = &samples.time_deltas {
        let mut acc = 0.0;
        return Ok(col("timeDeltas", d)?
            .into_iter()
            .map(|x| {
                acc += x;
                acc
            })
            .collect());
    }
    Ok(Vec::new())
}

// ---------------------------------------------------------------------------------------------
// Writing

/// How the chosen value type is written.
struct WeightPlan {
    column: usize,
    weight_type: &'static str,
    /// Multiplier from the value's unit to the written weight.
    scale: f64,
}

/// Writes one value type of `profile` as a processed profile of version
/// [`PROCESSED_PROFILE_VERSION`].
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let mut w = Warnings::default();
    let plan = weight_plan(profile, options, &mut w)?;
    let mut s = Shared::new(profile);
    let start_ms = profile
        .sources
        .source_timestamp
        .iter()
        .copied()
        .find(|t| t.is_finite())
        .map_or(0.0, |t| t * MS_PER_SECOND);
    let threads: Vec<Value> = (0..profile.sources.source_type.len())
        .map(|src| s.thread(src, &plan, start_ms, &mut w))
        .collect();
    let (ty, unit) = profile.values.get(plan.column).map_or(("", ""), |c| {
        (profile.str(c.value_type), profile.str(c.unit))
    });
    let interval = profile
        .meta_value(meta_keys::INTERVAL_MS)
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(1.0);
    let meta = json!({
        "interval": interval,
        "startTime": start_ms,
        "processType": 0,
        "product": profile.meta_value(meta_keys::PRODUCT).unwrap_or("proftab"),
        "stackwalk": 0,
        "version": GECKO_PROFILE_VERSION,
        "preprocessedProfileVersion": PROCESSED_PROFILE_VERSION,
        "symbolicated": true,
        "markerSchema": [],
        "categories": s.categories_json(),
        "proftabValueType": {"type": ty, "unit": unit},
    });
    let doc = json!({
        "meta": meta,
        "libs": [],
        "shared": s.shared_json(),
        "threads": threads,
        "pages": [],
        "counters": [],
        "profilerOverhead": [],
    });
    if let Some(lost) = super::unwritten::report(profile, NAME, &KNOWN) {
        w.push(lost);
    }
    let bytes = serde_json::to_vec(&doc).map_err(|e| WriteError::new(NAME, e.to_string()))?;
    Ok(Written {
        bytes,
        warnings: w.into_vec(),
    })
}

/// What this writer writes; everything else is reported.
const KNOWN: super::unwritten::Known<'static> = super::unwritten::Known {
    locations: &[
        location_cols::CATEGORY,
        location_cols::SUBCATEGORY,
        location_cols::FRAME_TYPE,
        location_cols::ADDRESS,
        location_cols::COLUMN,
        location_cols::INLINED,
        super::inline::PPROF_LOCATION_ID,
        super::inline::PPROF_LINE_INDEX,
    ],
    samples: &[SAMPLE_TIME],
    sources: &[
        source_cols::THREAD_NAME,
        source_cols::PROCESS_NAME,
        source_cols::PROCESS_TYPE,
        source_cols::PID,
        source_cols::TID,
        source_cols::IS_MAIN_THREAD,
    ],
    functions: &[
        function_cols::IS_JS,
        function_cols::RELEVANT_FOR_JS,
        function_cols::RESOURCE,
        ".pprof_function_id",
        ".pprof_empty_name",
        ".pprof_empty_system_name",
    ],
    tables: &[],
    meta: &["version", META_DEFAULT_TYPE, "firefox.*"],
};

fn weight_plan(
    p: &Profile,
    options: &WriteOptions,
    w: &mut Warnings,
) -> Result<WeightPlan, WriteError> {
    let vt = match &options.value_type {
        Some(name) => p.value_type_index(name).ok_or_else(|| {
            WriteError::new(NAME, format!("the profile has no value type {name:?}"))
        })?,
        None => p
            .default_value_type()
            .ok_or_else(|| WriteError::new(NAME, "the profile has no value types"))?,
    };
    let (ty, unit) = p.value_type_names(vt);
    let others: Vec<&str> = p
        .values
        .iter()
        .map(|c| p.str(c.value_type))
        .filter(|&t| t != ty)
        .collect();
    if !others.is_empty() {
        let list = others.join(", ");
        w.add(NAME, "types", || {
            format!("holds one value type; wrote {ty}, not {list}")
        });
    }
    let (weight_type, scale) = match unit {
        "nanoseconds" => ("tracing-ms", 1e-6),
        "microseconds" => ("tracing-ms", 1e-3),
        "milliseconds" => ("tracing-ms", 1.0),
        "seconds" => ("tracing-ms", 1e3),
        "bytes" => ("bytes", 1.0),
        "count" | "" => ("samples", 1.0),
        other => {
            let other = other.to_owned();
            w.add(NAME, "unit", || {
                format!("unit {other} has no Firefox weight type; written as sample counts")
            });
            ("samples", 1.0)
        }
    };
    Ok(WeightPlan {
        column: vt.idx(),
        weight_type,
        scale,
    })
}

/// The shared tables under construction.
struct Shared<'p> {
    p: &'p Profile,
    strings: Vec<String>,
    string_ids: HashMap<String, usize>,
    categories: Vec<(String, Vec<String>)>,
    /// Function row → funcTable index (same order).
    func_source: Vec<Option<usize>>,
    source_files: Vec<usize>,
    source_ids: HashMap<usize, usize>,
    resources: Vec<usize>,
    resource_ids: HashMap<usize, usize>,
    func_resource: Vec<i64>,
    frames: Vec<FrameRow>,
    /// Names (string indices) of funcs made up for locations without a function; their
    /// funcTable index is the number of functions plus their position here.
    extra_funcs: Vec<usize>,
    frame_ids: HashMap<(u32, u32), usize>,
    stack_frame: Vec<usize>,
    stack_prefix: Vec<Option<usize>>,
    stack_ids: HashMap<(Option<usize>, usize), usize>,
    node_stacks: HashMap<u32, Option<usize>>,
}

struct FrameRow {
    location: LocationIndex,
    func: usize,
    inline_depth: u32,
    category: usize,
    subcategory: usize,
}

impl<'p> Shared<'p> {
    fn new(p: &'p Profile) -> Self {
        let mut s = Shared {
            p,
            strings: Vec::new(),
            string_ids: HashMap::new(),
            categories: vec![("Other".to_owned(), vec!["Other".to_owned()])],
            func_source: Vec::new(),
            source_files: Vec::new(),
            source_ids: HashMap::new(),
            resources: Vec::new(),
            resource_ids: HashMap::new(),
            func_resource: Vec::new(),
            frames: Vec::new(),
            extra_funcs: Vec::new(),
            frame_ids: HashMap::new(),
            stack_frame: Vec::new(),
            stack_prefix: Vec::new(),
            stack_ids: HashMap::new(),
            node_stacks: HashMap::new(),
        };
        s.functions();
        s
    }

    fn string(&mut self, text: &str) -> usize {
        if let Some(&i) = self.string_ids.get(text) {
            return i;
        }
        let i = self.strings.len();
        self.strings.push(text.to_owned());
        self.string_ids.insert(text.to_owned(), i);
        i
    }

    fn functions(&mut self) {
        let f = &self.p.functions;
        for row in 0..f.name.len() {
            let file = f.filename.get(row).copied().unwrap_or(StringId::NA);
            let source = (!file.is_na()).then(|| {
                let s = self.string(self.p.str(file));
                let next = self.source_files.len();
                *self.source_ids.entry(s).or_insert_with(|| {
                    self.source_files.push(s);
                    next
                })
            });
            self.func_source.push(source);
            let resource = match f.ext.cell(function_cols::RESOURCE, row) {
                Some(Cell::Chr(r)) if !r.is_na() => {
                    let s = self.string(self.p.str(r));
                    let next = self.resources.len();
                    let idx = *self.resource_ids.entry(s).or_insert_with(|| {
                        self.resources.push(s);
                        next
                    });
                    idx as i64
                }
                _ => -1,
            };
            self.func_resource.push(resource);
        }
    }

    fn category(&mut self, loc: LocationIndex) -> (usize, usize) {
        let ext = &self.p.locations.ext;
        let text = |col: &str| match ext.cell(col, loc.idx()) {
            Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s).to_owned()),
            _ => None,
        };
        let Some(name) = text(location_cols::CATEGORY).or_else(|| text(location_cols::FRAME_TYPE))
        else {
            return (0, 0);
        };
        let sub = text(location_cols::SUBCATEGORY);
        let c = match self.categories.iter().position(|(n, _)| *n == name) {
            Some(c) => c,
            None => {
                self.categories.push((name, vec!["Other".to_owned()]));
                self.categories.len() - 1
            }
        };
        let Some(sub) = sub else { return (c, 0) };
        let Some((_, subs)) = self.categories.get_mut(c) else {
            return (c, 0);
        };
        let s = subs.iter().position(|x| *x == sub).unwrap_or_else(|| {
            subs.push(sub);
            subs.len() - 1
        });
        (c, s)
    }

    /// The frame of `loc` at `inline_depth`, added when new.
    fn frame(&mut self, loc: LocationIndex, inline_depth: u32) -> usize {
        if let Some(&f) = self.frame_ids.get(&(loc.0, inline_depth)) {
            return f;
        }
        let (category, subcategory) = self.category(loc);
        let func = self.frame_func(loc);
        let f = self.frames.len();
        self.frames.push(FrameRow {
            location: loc,
            func,
            inline_depth,
            category,
            subcategory,
        });
        self.frame_ids.insert((loc.0, inline_depth), f);
        f
    }

    /// The funcTable row of a location: its function, or a made-up one named by its address.
    fn frame_func(&mut self, loc: LocationIndex) -> usize {
        let nf = self.p.functions.name.len();
        if let Some(f) = self.p.location_function(loc) {
            return f.idx();
        }
        let name = match self.p.locations.ext.cell(location_cols::ADDRESS, loc.idx()) {
            Some(Cell::U64(Some(a))) => format!("0x{a:x}"),
            _ => "(unknown)".to_owned(),
        };
        let s = self.string(&name);
        self.extra_funcs.push(s);
        nf + self.extra_funcs.len() - 1
    }

    /// The Firefox stack of a proftab stack node, built root first.
    fn stack(&mut self, node: Option<StackIndex>) -> Option<usize> {
        let node = node?;
        if let Some(&s) = self.node_stacks.get(&node.0) {
            return s;
        }
        let mut frames: Vec<LocationIndex> = self.p.frames_leaf_first(Some(node)).collect();
        frames.reverse();
        let mut prefix = None;
        let mut depth = 0u32;
        let mut caller: Option<LocationIndex> = None;
        for loc in frames {
            let inlined = caller.is_some_and(|c| super::inline::inlined_into(self.p, loc, c));
            depth = if inlined { depth + 1 } else { 0 };
            caller = Some(loc);
            let frame = self.frame(loc, depth);
            let next = self.stack_frame.len();
            let s = *self.stack_ids.entry((prefix, frame)).or_insert(next);
            if s == next {
                self.stack_frame.push(frame);
                self.stack_prefix.push(prefix);
            }
            prefix = Some(s);
        }
        self.node_stacks.insert(node.0, prefix);
        prefix
    }

    /// One thread; its sample times are shifted from its source's start onto `start_ms`,
    /// the profile's `meta.startTime`.
    fn thread(&mut self, src: usize, plan: &WeightPlan, start_ms: f64, w: &mut Warnings) -> Value {
        let samples = self.thread_samples(src, plan, start_ms, w);
        let p = self.p;
        let chr = |col: &str| match p.sources.ext.cell(col, src) {
            Some(Cell::Chr(s)) if !s.is_na() => Some(p.str(s).to_owned()),
            _ => None,
        };
        let uri = p
            .sources
            .source_uri
            .get(src)
            .map(|&u| p.str(u))
            .filter(|u| !u.is_empty());
        let name = chr(source_cols::THREAD_NAME)
            .or_else(|| uri.map(str::to_owned))
            .unwrap_or_else(|| format!("Thread {}", src + 1));
        let tid: Value = match chr(source_cols::TID) {
            Some(t) => t.parse::<i64>().map_or(Value::String(t), Value::from),
            None => Value::from(src + 1),
        };
        let is_main = match p.sources.ext.cell(source_cols::IS_MAIN_THREAD, src) {
            Some(Cell::Lgl(Some(b))) => b,
            _ => src == 0,
        };
        let mut thread = json!({
            "name": name,
            "isMainThread": is_main,
            "processType": chr(source_cols::PROCESS_TYPE).unwrap_or_else(|| "default".to_owned()),
            "processStartupTime": 0,
            "processShutdownTime": null,
            "registerTime": 0,
            "unregisterTime": null,
            "pausedRanges": [],
            "pid": chr(source_cols::PID).unwrap_or_else(|| (src + 1).to_string()),
            "tid": tid,
            "samples": samples,
            "markers": {"length": 0, "data": [], "name": [], "startTime": [], "endTime": [], "phase": [], "category": []},
        });
        if let (Some(pn), Some(obj)) = (chr(source_cols::PROCESS_NAME), thread.as_object_mut()) {
            obj.insert("processName".to_owned(), Value::String(pn));
        }
        thread
    }

    /// The samples table of source `src`: samples without a value of the written type are
    /// left out (and reported); weights are omitted when every one is a single sample.
    fn thread_samples(
        &mut self,
        src: usize,
        plan: &WeightPlan,
        start_ms: f64,
        w: &mut Warnings,
    ) -> Value {
        let p = self.p;
        let shift = p
            .sources
            .source_timestamp
            .get(src)
            .filter(|t| t.is_finite())
            .map_or(0.0, |t| t * MS_PER_SECOND - start_ms);
        let column = p.values.get(plan.column);
        let times = p.samples.ext.dbl(SAMPLE_TIME);
        let (mut stack, mut time, mut weight) = (Vec::new(), Vec::new(), Vec::new());
        let mut skipped = 0usize;
        for (s, source) in p.samples.source.iter().enumerate() {
            if source.idx() != src {
                continue;
            }
            let Some(v) = column.and_then(|c| c.get(s)) else {
                skipped += 1;
                continue;
            };
            stack.push(self.stack(p.sample_stack(SampleIndex(s as u32))));
            let t = times
                .and_then(|t| t.get(s).copied())
                .filter(|t| t.is_finite());
            time.push(t.map_or(time.len() as f64, |t| t * MS_PER_SECOND + shift));
            weight.push(v * plan.scale);
        }
        if skipped > 0 {
            w.add(NAME, "absent", || {
                format!("{skipped} samples without a value of the written type were left out")
            });
        }
        let unit_weights = plan.weight_type == "samples" && weight.iter().all(|&x| x == 1.0);
        json!({
            "length": stack.len(),
            "stack": stack,
            "time": time,
            "weight": if unit_weights { Value::Null } else { json!(weight) },
            "weightType": plan.weight_type,
        })
    }

    fn categories_json(&self) -> Value {
        let list: Vec<Value> = self
            .categories
            .iter()
            .enumerate()
            .map(|(i, (name, subs))| {
                json!({"name": name, "color": category_color(i, name), "subcategories": subs})
            })
            .collect();
        Value::Array(list)
    }

    fn shared_json(&mut self) -> Value {
        let p = self.p;
        let np = p.functions.name.len();
        let nf = np + self.extra_funcs.len();
        let mut func_name = Vec::with_capacity(nf);
        let mut func_line = Vec::with_capacity(nf);
        let mut is_js = Vec::with_capacity(nf);
        let mut relevant = Vec::with_capacity(nf);
        for row in 0..np {
            let name = p.functions.name.get(row).map_or("", |&n| p.str(n));
            func_name.push(self.string(name));
            let line = p.functions.start_line.get(row).copied().unwrap_or(0);
            func_line.push((line != INT_NA && line != 0).then_some(line));
            let flag =
                |col: &str| matches!(p.functions.ext.cell(col, row), Some(Cell::Lgl(Some(true))));
            is_js.push(flag(function_cols::IS_JS));
            relevant.push(flag(function_cols::RELEVANT_FOR_JS));
        }
        func_name.extend(self.extra_funcs.iter().copied());
        func_line.resize(nf, None);
        is_js.resize(nf, false);
        relevant.resize(nf, false);
        let mut func_resource = self.func_resource.clone();
        func_resource.resize(nf, -1);
        let mut func_source = self.func_source.clone();
        func_source.resize(nf, None);
        let frames = self.frames_json();
        let ns = self.source_files.len();
        let nr = self.resources.len();
        json!({
            "stackTable": {
                "length": self.stack_frame.len(),
                "frame": self.stack_frame,
                "prefixOffset": self.stack_prefix.iter().enumerate().map(|(i, p)| p.map_or(0, |p| i - p)).collect::<Vec<_>>(),
            },
            "frameTable": frames,
            "funcTable": {
                "length": nf,
                "name": func_name,
                "isJS": is_js,
                "relevantForJS": relevant,
                "resource": func_resource,
                "source": func_source,
                "lineNumber": func_line,
                "columnNumber": vec![Value::Null; nf],
                "originalLocation": vec![Value::Null; nf],
            },
            "resourceTable": {"length": nr, "name": self.resources, "host": vec![Value::Null; nr], "type": vec![0; nr]},
            "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": [], "functionSize": []},
            "sources": {
                "length": ns,
                "id": vec![Value::Null; ns],
                "filename": self.source_files,
                "startLine": vec![1; ns],
                "startColumn": vec![1; ns],
                "sourceMapURL": vec![Value::Null; ns],
                "content": vec![Value::Null; ns],
            },
            "sourceLocationTable": {"length": 0, "source": [], "line": [], "column": []},
            "stringArray": self.strings,
        })
    }

    fn frames_json(&self) -> Value {
        let p = self.p;
        let n = self.frames.len();
        let mut func = Vec::with_capacity(n);
        let mut line = Vec::with_capacity(n);
        let mut column = Vec::with_capacity(n);
        let mut address = Vec::with_capacity(n);
        for f in &self.frames {
            let l = f.location.idx();
            func.push(f.func);
            let ln = p.locations.line.get(l).copied().unwrap_or(0);
            line.push((ln != INT_NA && ln != 0).then_some(ln));
            column.push(match p.locations.ext.cell(location_cols::COLUMN, l) {
                Some(Cell::Int(c)) if c != INT_NA => Some(c),
                _ => None,
            });
            address.push(match p.locations.ext.cell(location_cols::ADDRESS, l) {
                Some(Cell::U64(Some(a))) => i64::try_from(a).unwrap_or(-1),
                _ => -1,
            });
        }
        json!({
            "length": n,
            "address": address,
            "lib": vec![-1; n],
            "inlineDepth": self.frames.iter().map(|f| f.inline_depth).collect::<Vec<_>>(),
            "category": self.frames.iter().map(|f| f.category).collect::<Vec<_>>(),
            "subcategory": self.frames.iter().map(|f| f.subcategory).collect::<Vec<_>>(),
            "func": func,
            "nativeSymbol": vec![Value::Null; n],
            "innerWindowID": vec![0; n],
            "line": line,
            "column": column,
            "originalLocation": vec![Value::Null; n],
        })
    }
}

/// A colour for category `i` called `name`: grey for the default, the profiler's own colour
/// for its standard categories, else one of [`COLORS`] in turn.
fn category_color(i: usize, name: &str) -> &'static str {
    match name {
        _ if i == 0 => "grey",
        "Idle" => "transparent",
        "Layout" => "purple",
        "JavaScript" | "v8js" => "yellow",
        "GC / CC" | "kernel" => "orange",
        "Network" => "lightblue",
        "Graphics" => "green",
        "DOM" | "native" => "blue",
        _ => COLORS.get(i % COLORS.len()).copied().unwrap_or("blue"),
    }
}
