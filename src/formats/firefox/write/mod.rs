//! Writing a processed profile of version [`PROCESSED_PROFILE_VERSION`]: one value type as
//! `weight`/`weightType` (the [`WeightPlan`]), one thread per `sources` row, and one set of
//! shared tables ([`shared::Shared`]) that every thread's stacks index into.

mod shared;
mod threads;

use serde_json::{json, Value};

use super::{
    function_cols, location_cols, meta_keys, source_cols, MS_PER_SECOND, NAME,
    PROCESSED_PROFILE_VERSION,
};
use crate::formats::unwritten::Known;
use crate::formats::{Warnings, WriteError, WriteOptions, Written};
use crate::model::{ext, Profile, META_DEFAULT_TYPE, SAMPLE_TIME};
use shared::Shared;

/// Gecko profile version written in `meta.version` (ignored by the profiler for processed files).
const GECKO_PROFILE_VERSION: u32 = 36;
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
        .map(|src| {
            let samples = s.thread_samples(src, &plan, start_ms, &mut w);
            s.thread(src, samples)
        })
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
    let bytes = serde_json::to_vec(&doc).map_err(|e| WriteError::new(NAME, e.to_string()))?;
    Ok(Written {
        bytes,
        warnings: w.into_vec(),
    })
}

/// The extension items this writer writes; [`crate::formats::loss`] reports the others.
pub(crate) const KNOWN: Known<'static> = Known {
    locations: &[
        location_cols::CATEGORY,
        location_cols::SUBCATEGORY,
        location_cols::FRAME_TYPE,
        location_cols::ADDRESS,
        location_cols::COLUMN,
        location_cols::INLINED,
        ext::locations::PPROF_LOCATION_ID,
        ext::locations::PPROF_LINE_INDEX,
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
        ext::functions::PPROF_FUNCTION_ID,
        ext::functions::PPROF_EMPTY_NAME,
        ext::functions::PPROF_EMPTY_SYSTEM_NAME,
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
    let (_, unit) = p.value_type_names(vt);
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
