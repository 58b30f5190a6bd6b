//! Reading stackprof JSON: meta, the frame table, then one sample per `raw` entry.

use serde::Deserialize;

use super::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan::{self, Member};
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::write_common::format_number;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    Cell, ProfileBuilder, SourceIndex, ValueTypeIndex, INT_NA, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Top-level keys this reader knows (the others are named in a warning).
const KNOWN_TOP_KEYS: [&str; 12] = [
    "version",
    "mode",
    "interval",
    "samples",
    "gc_samples",
    "missed_samples",
    "metadata",
    "frames",
    "raw",
    "raw_lines",
    "raw_timestamp_deltas",
    "raw_sample_timestamps",
];
/// Scalars kept as meta `stackprof.<key>`: the first six known keys.
const META_KEYS: &[&str] = KNOWN_TOP_KEYS.split_at(6).0;
/// Name of frames without a name.
const UNKNOWN: &str = "(unknown)";

#[derive(Deserialize)]
struct RawFrame {
    name: Option<String>,
    file: Option<String>,
    line: Option<f64>,
}

/// The value types of one file.
struct Types {
    samples: ValueTypeIndex,
    time: Option<ValueTypeIndex>,
    objects: Option<ValueTypeIndex>,
}

/// Reads a stackprof file.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (members, mut warnings) = json_scan::open_object_document(NAME, bytes, &KNOWN_TOP_KEYS)?;
    let get = |key: &str| json_scan::member(&members, key).map(|m| m.value.clone());
    let parse = |key: &str| -> Result<Option<serde_json::Value>, ReadError> {
        get(key)
            .map(|r| json_scan::parse_member(NAME, bytes, r, key))
            .transpose()
    };
    let mut b = ProfileBuilder::new();
    meta(&mut b, &members, bytes)?;
    let mode = json_scan::member_str(bytes, &members, "mode").unwrap_or_default();
    let interval = parse("interval")?.and_then(|v| v.as_f64()).unwrap_or(0.0);
    let frames = frame_table(&mut b, bytes, &members, &mut warnings)?;
    let raw: Vec<u64> = get("raw")
        .map(|r| json_scan::parse_member(NAME, bytes, r, "raw"))
        .transpose()?
        .ok_or_else(|| ReadError::whole(NAME, "the file has no `raw` array"))?;
    let lines: Option<Vec<i64>> = get("raw_lines")
        .map(|r| json_scan::parse_member(NAME, bytes, r, "raw_lines"))
        .transpose()?;
    let deltas: Option<Vec<f64>> = get("raw_timestamp_deltas")
        .map(|r| json_scan::parse_member(NAME, bytes, r, "raw_timestamp_deltas"))
        .transpose()?;
    let stamps: Option<Vec<f64>> = get("raw_sample_timestamps")
        .map(|r| json_scan::parse_member(NAME, bytes, r, "raw_sample_timestamps"))
        .transpose()?;
    let types = value_types(&mut b, &mode);
    let source = b.add_source(NAME, options.source_uri.as_deref(), None);
    let mut entries = Entries {
        b,
        frames,
        source,
        types,
        mode,
        interval,
        lines,
        deltas,
        stamps,
        sample_index: 0,
        options,
    };
    entries.walk(&raw, &mut warnings)?;
    finish_parsed(entries.b, Format::Stackprof, warnings)
}

/// Meta rows from the top-level scalars and the scalars of `metadata`.
fn meta(b: &mut ProfileBuilder, members: &[Member], bytes: &[u8]) -> Result<(), ReadError> {
    for key in META_KEYS {
        if let Some(m) = json_scan::member(members, key) {
            let v: serde_json::Value = json_scan::parse_member(NAME, bytes, m.value.clone(), key)?;
            if let Some(text) = scalar_text(&v) {
                b.set_meta(&format!("stackprof.{key}"), &text);
            }
        }
    }
    if let Some(m) = json_scan::member(members, "metadata") {
        let v: serde_json::Value =
            json_scan::parse_member(NAME, bytes, m.value.clone(), "metadata")?;
        for (k, v) in v.as_object().into_iter().flatten() {
            if let Some(text) = scalar_text(v) {
                b.set_meta(&format!("stackprof.metadata.{k}"), &text);
            }
        }
    }
    Ok(())
}

fn scalar_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.as_f64().map_or(n.to_string(), format_number)),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The functions of `frames`, by frame id.
fn frame_table(
    b: &mut ProfileBuilder,
    bytes: &[u8],
    members: &[Member],
    warnings: &mut Warnings,
) -> Result<HashMap<u64, (crate::model::FunctionIndex, i32)>, ReadError> {
    let m = json_scan::member(members, "frames")
        .ok_or_else(|| ReadError::whole(NAME, "the file has no `frames` object"))?;
    let raw: std::collections::BTreeMap<String, RawFrame> =
        json_scan::parse_member(NAME, bytes, m.value.clone(), "frames")?;
    let mut out = HashMap::default();
    for (id, frame) in raw {
        let key: u64 = id.parse().map_err(|_| {
            ReadError::new(
                NAME,
                Place::Path(format!("frames.{id}")),
                "the frame id is not a number",
            )
        })?;
        let name = frame
            .name
            .as_deref()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| {
                warnings.add(NAME, "unnamed", || {
                    format!("frames without a name were named {UNKNOWN} (first: frame {id})")
                });
                UNKNOWN
            });
        let line = frame
            .line
            .filter(|l| l.fract() == 0.0 && *l >= 0.0 && *l <= f64::from(i32::MAX))
            .map_or(0, |l| l as i32);
        let f = b.function_at(name, frame.file.as_deref(), line);
        out.insert(key, (f, line));
    }
    Ok(out)
}

/// The value types of `mode`, with the default set.
fn value_types(b: &mut ProfileBuilder, mode: &str) -> Types {
    let samples = b.value_type("samples", "count");
    let time = matches!(mode, "cpu" | "wall").then(|| b.value_type("time", "nanoseconds"));
    let objects = (mode == "object").then(|| b.value_type("objects", "count"));
    let default = if time.is_some() {
        "time"
    } else if objects.is_some() {
        "objects"
    } else {
        "samples"
    };
    b.set_meta(META_DEFAULT_TYPE, default);
    Types {
        samples,
        time,
        objects,
    }
}

/// The walk over `raw`.
struct Entries<'a> {
    b: ProfileBuilder,
    frames: HashMap<u64, (crate::model::FunctionIndex, i32)>,
    source: SourceIndex,
    types: Types,
    mode: String,
    interval: f64,
    lines: Option<Vec<i64>>,
    deltas: Option<Vec<f64>>,
    stamps: Option<Vec<f64>>,
    /// Index of the next expanded sample in `raw_timestamp_deltas` / `raw_sample_timestamps`.
    sample_index: usize,
    options: &'a ReadOptions,
}

impl Entries<'_> {
    fn walk(&mut self, raw: &[u64], warnings: &mut Warnings) -> Result<(), ReadError> {
        let mut i = 0;
        while i < raw.len() {
            let at = |i: usize| Place::Path(format!("raw[{i}]"));
            let height = usize::try_from(raw[i]).unwrap_or(usize::MAX);
            if height > self.options.limits.max_stack_depth {
                let max = self.options.limits.max_stack_depth;
                return Err(ReadError::new(
                    NAME,
                    at(i),
                    format!("the stack is deeper than {max} frames (the stack depth limit)"),
                ));
            }
            let Some(&count) = raw.get(i + 1 + height) else {
                return Err(ReadError::new(
                    NAME,
                    at(i),
                    "the entry runs past the end of `raw`",
                ));
            };
            check_sample_limit(&self.b, Format::Stackprof, self.options.limits.max_samples)?;
            let mut node = None;
            for (j, id) in raw.iter().enumerate().skip(i + 1).take(height) {
                let (f, start) = *self.frames.get(id).ok_or_else(|| {
                    ReadError::new(NAME, at(j), format!("frame id {id} is not in `frames`"))
                })?;
                let line = match &self.lines {
                    Some(lines) => lines.get(j).copied().map_or(INT_NA, clamp_line),
                    None => start,
                };
                let loc = self.b.location(Some(f), line);
                node = Some(self.b.stack_node(node, loc));
            }
            self.sample(node, count as f64, warnings);
            i += height + 2;
        }
        Ok(())
    }

    /// One sample for an entry of `count` stackprof samples.
    fn sample(
        &mut self,
        node: Option<crate::model::StackIndex>,
        count: f64,
        warnings: &mut Warnings,
    ) {
        let s = self.b.add_sample(self.source, node);
        self.b.set_value(s, self.types.samples, count);
        let first = self.sample_index;
        let n = count as usize;
        self.sample_index = self.sample_index.saturating_add(n);
        if let Some(vt) = self.types.objects {
            self.b.set_value(s, vt, count * self.interval);
        }
        if let Some(vt) = self.types.time {
            let deltas = self.deltas.as_ref().filter(|_| self.mode == "wall");
            let micros = match deltas.and_then(|d| d.get(first..first.saturating_add(n))) {
                Some(d) => d.iter().sum(),
                None => {
                    if self.mode == "wall" {
                        warnings.add(NAME, "deltas", || {
                            "wall-mode samples without `raw_timestamp_deltas` were weighed by \
                             the interval"
                                .to_owned()
                        });
                    }
                    count * self.interval
                }
            };
            self.b.set_value(s, vt, micros * 1000.0);
        }
        if let Some(stamps) = &self.stamps {
            if let (Some(t0), Some(t)) = (stamps.first(), stamps.get(first)) {
                self.b
                    .set_sample_ext(s, SAMPLE_TIME, Cell::Dbl((t - t0) / 1e6));
            }
        }
    }
}

fn clamp_line(l: i64) -> i32 {
    i32::try_from(l).ok().filter(|l| *l >= 0).unwrap_or(INT_NA)
}
