//! Reading processed Firefox profiles (and Gecko profiles, through [`super::gecko`]): the
//! document is parsed into [`super::schema`] shapes, its version checked, then each thread
//! becomes one `sources` row and its samples (`threads`), with stacks, frames and funcs
//! converted once per table set and cached (`frames`). Every index read from the file is
//! range-checked before use; stacks are walked iteratively, never recursively.

mod frames;
mod threads;

use crate::formats::read_common::finish_parsed;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::schema::{
    Category, Col, Doc, FrameTable, FuncTable, Meta, ResourceTable, Samples, Sources, StackTable,
    Tables, Thread, ThreadSlot,
};
use super::{err, gecko, meta_keys, NAME, PROCESSED_PROFILE_VERSION};
use crate::formats::json_scan;
use crate::formats::{Format, Parsed, Place, ReadError, ReadOptions, Warnings};
use crate::hash::HashMap;
use crate::model::{FunctionIndex, LocationIndex, ProfileBuilder, StackIndex};

/// OpenTelemetry frame types (`docs/formats/otlp.md`); a category with one of these names (any
/// case) sets `.frame_type`.
const FRAME_TYPES: [&str; 12] = [
    "beam", "cpython", "dotnet", "go", "jvm", "kernel", "native", "perl", "php", "ruby", "rust",
    "v8js",
];
/// Name given to funcs whose name is null or empty (the v2 tables need one).
const UNNAMED_FUNCTION: &str = "(anonymous)";
/// Nanoseconds per millisecond.
const NS_PER_MS: f64 = 1e6;

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
    let doc: Doc = serde_json::from_slice(bytes).map_err(|e| {
        ReadError::new(
            NAME,
            Place::Line(e.line()),
            format!("invalid JSON: {}", json_scan::json_problem_at(&e)),
        )
    })?;
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
    let mut r = Reader::new(meta, Some(version), options);
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
    let mut r = Reader::new(meta, None, options);
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

impl<'o> Reader<'o> {
    /// A reader with the profile-level meta of `meta` set; `version` is the processed version,
    /// `None` for a Gecko profile.
    fn new(meta: &Meta, version: Option<u32>, options: &'o ReadOptions) -> Self {
        let mut r = Reader {
            b: ProfileBuilder::new(),
            w: Warnings::default(),
            options,
            categories: meta.categories.clone().unwrap_or_else(default_categories),
            default_set: false,
        };
        r.profile_meta(meta, version);
        r
    }

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
        finish_parsed(self.b, Format::Firefox, self.w)
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
