//! speedscope's JSON file format (`jlfwong/speedscope:src/lib/file-format-spec.ts`,
//! formats.md §7).
//!
//! Reading:
//! * Every entry of `profiles` becomes one row of `sources` (`source_type = "speedscope"`) with
//!   extension columns `.name` (the profile's name), `.start_value` and `.end_value` (in the
//!   profile's unit); its samples refer to that source.
//! * Value types from the unit: `none` → the weight is `samples`/`count` itself (speedscope's
//!   own exports of folded stacks use `none`); `nanoseconds` … `seconds` → `time`/<unit> plus
//!   `samples`/`count` = 1 per sample; `bytes` → `bytes`/`bytes` plus `samples`/`count`; any
//!   other unit → `weight`/<unit> plus `samples`/`count`. When two profiles use different time
//!   units, later ones are converted to the unit of the first. The default value type (meta
//!   `default_sample_type`) is the weight type of the profile at `activeProfileIndex`.
//! * Sampled profiles: one sample per entry of `samples` (stacks are root first), weighted by
//!   `weights`; zero weights are kept, negative weights are an error (as in speedscope).
//! * Evented profiles: every interval between two consecutive distinct event times during
//!   which at least one frame is open becomes one sample of the innermost open frame's stack,
//!   weighted by the interval's length. Intervals with no open frame (before the first open,
//!   between top-level frames) are idle time and produce no sample. Events must be balanced
//!   and non-decreasing (speedscope's errors).
//! * With a time unit, samples get `.time` (seconds from `startValue`): the interval start for
//!   evented profiles; for sampled profiles the weights laid end to end from `startValue`, as
//!   speedscope's time-order view does.
//! * Frames: `name` → function name and system name (empty → `(anonymous)`), `file` →
//!   filename, `line` → location line, `col` → `locations..column`. `name`, `exporter`,
//!   `activeProfileIndex` and `version` of the file go to meta `speedscope.*`; unknown keys are
//!   reported in a warning.
//!
//! Writing produces one **sampled** profile per row of `sources` (so combined profiles keep
//! their sources), each holding that source's samples of the chosen value type in sample order,
//! one entry per sample (no aggregation), `startValue` 0 and `endValue` the total weight.
//! Frames are the profile's locations in order of first use.

use std::collections::HashMap;

use serde::Deserialize;

use super::error::{Place, ReadError, Warning, Warnings, WriteError};
use super::json_scan::{self, Member};
use super::read_common::{check_sample_limit, finish_parsed};
use super::write_common::{
    chosen_value_type, format_number, frames_root_first, other_types_warning,
};
use super::{Format, Parsed, ReadOptions, WriteOptions, Written};
use crate::model::{
    Cell, ColumnKind, FunctionKey, LocationIndex, Profile, ProfileBuilder, SampleIndex,
    SourceIndex, StackIndex, ValueTypeIndex, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Format name used in errors and warnings.
pub const NAME: &str = "speedscope";
/// The `$schema` value every speedscope file carries.
pub const SCHEMA_URL: &str = "https://www.speedscope.app/file-format-schema.json";
/// Meta key of the file's `name`.
pub const META_NAME: &str = "speedscope.name";
/// Meta key of the file's `exporter`.
pub const META_EXPORTER: &str = "speedscope.exporter";
/// Meta key of the file's `activeProfileIndex`.
pub const META_ACTIVE_PROFILE: &str = "speedscope.active_profile_index";
/// Meta key of the file's (pre-0.6) `version`.
pub const META_VERSION: &str = "speedscope.version";
/// `sources` extension column holding each profile's name.
pub const SOURCE_NAME: &str = ".name";
/// `sources` extension column holding each profile's `startValue`.
pub const SOURCE_START_VALUE: &str = ".start_value";
/// `sources` extension column holding each profile's `endValue`.
pub const SOURCE_END_VALUE: &str = ".end_value";
/// `locations` extension column holding frame columns.
pub const LOCATION_COLUMN: &str = ".column";

const ANONYMOUS: &str = "(anonymous)";
const KNOWN_TOP_KEYS: [&str; 7] = [
    "$schema",
    "shared",
    "profiles",
    "name",
    "activeProfileIndex",
    "exporter",
    "version",
];
const KNOWN_PROFILE_KEYS: [&str; 8] = [
    "type",
    "name",
    "unit",
    "startValue",
    "endValue",
    "samples",
    "weights",
    "events",
];

/// True when the input is a JSON object whose `$schema` is speedscope's file-format schema.
pub fn detect(bytes: &[u8]) -> bool {
    if json_scan::first_significant_byte(bytes) != Some(b'{') {
        return false;
    }
    json_scan::top_level_members(bytes)
        .and_then(|m| json_scan::member_str(bytes, &m, "$schema"))
        .is_some_and(|s| is_schema(&s))
}

fn is_schema(s: &str) -> bool {
    s.trim_end_matches('#')
        .ends_with("speedscope.app/file-format-schema.json")
}

#[derive(Deserialize)]
struct RawFrame {
    name: Option<String>,
    file: Option<String>,
    line: Option<f64>,
    col: Option<f64>,
    #[serde(flatten)]
    other: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct RawEvent {
    #[serde(rename = "type")]
    kind: String,
    at: f64,
    frame: i64,
}

/// What a unit maps to.
#[derive(Clone, Copy)]
struct UnitKind<'a> {
    value_type: &'a str,
    unit: &'a str,
    /// Seconds per unit for time units.
    seconds: Option<f64>,
}

fn unit_kind(unit: &str) -> UnitKind<'_> {
    let time = |seconds| UnitKind {
        value_type: "time",
        unit,
        seconds: Some(seconds),
    };
    match unit {
        "none" => UnitKind {
            value_type: "samples",
            unit: "count",
            seconds: None,
        },
        "nanoseconds" => time(1e-9),
        "microseconds" => time(1e-6),
        "milliseconds" => time(1e-3),
        "seconds" => time(1.0),
        "bytes" => UnitKind {
            value_type: "bytes",
            unit: "bytes",
            seconds: None,
        },
        other => UnitKind {
            value_type: "weight",
            unit: other,
            seconds: None,
        },
    }
}

/// Reads a speedscope file.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let members = document_members(bytes)?;
    let mut warnings = Warnings::default();
    let mut r = Reader::new(bytes, options);
    r.file_meta(&members, &mut warnings)?;
    let frames = json_scan::member(&members, "shared")
        .ok_or_else(|| ReadError::whole(NAME, "the file has no `shared` object"))?;
    r.frames(frames.value.clone(), &mut warnings)?;
    let profiles = json_scan::member(&members, "profiles")
        .ok_or_else(|| ReadError::whole(NAME, "the file has no `profiles` array"))?;
    let ranges =
        json_scan::array_elements(bytes, profiles.value.start, usize::MAX).ok_or_else(|| {
            ReadError::new(
                NAME,
                Place::Byte(profiles.value.start as u64),
                "`profiles` is not a well-formed array",
            )
        })?;
    let mut weight_types = Vec::new();
    for (i, range) in ranges.into_iter().enumerate() {
        weight_types.push(r.profile(i, range, &mut warnings)?);
    }
    r.finish(&weight_types, warnings)
}

fn document_members(bytes: &[u8]) -> Result<Vec<Member>, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    json_scan::document_members(NAME, bytes)
}

/// Reader state.
struct Reader<'a> {
    bytes: &'a [u8],
    options: &'a ReadOptions,
    b: ProfileBuilder,
    frames: Vec<LocationIndex>,
    units: HashMap<String, (String, Option<f64>)>,
    samples_vt: Option<ValueTypeIndex>,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], options: &'a ReadOptions) -> Self {
        Reader {
            bytes,
            options,
            b: ProfileBuilder::new(),
            frames: Vec::new(),
            units: HashMap::new(),
            samples_vt: None,
        }
    }

    fn file_meta(&mut self, members: &[Member], warnings: &mut Warnings) -> Result<(), ReadError> {
        for (key, meta) in [
            ("name", META_NAME),
            ("exporter", META_EXPORTER),
            ("version", META_VERSION),
        ] {
            if let Some(m) = json_scan::member(members, key) {
                let value: Option<String> =
                    json_scan::parse_member(NAME, self.bytes, m.value.clone(), key)?;
                if let Some(v) = value {
                    self.b.set_meta(meta, &v);
                }
            }
        }
        if let Some(m) = json_scan::member(members, "activeProfileIndex") {
            let v: Option<f64> =
                json_scan::parse_member(NAME, self.bytes, m.value.clone(), "activeProfileIndex")?;
            if let Some(v) = v {
                self.b.set_meta(META_ACTIVE_PROFILE, &format_number(v));
            }
        }
        json_scan::unknown_top_keys_warning(NAME, members, &KNOWN_TOP_KEYS, warnings);
        Ok(())
    }

    fn frames(
        &mut self,
        shared: std::ops::Range<usize>,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        #[derive(Deserialize)]
        struct Shared {
            frames: Vec<RawFrame>,
        }
        let shared: Shared = json_scan::parse_member(NAME, self.bytes, shared, "shared")?;
        let mut locations: HashMap<(u32, i32, i32), LocationIndex> = HashMap::new();
        for (i, frame) in shared.frames.into_iter().enumerate() {
            let loc = self.frame(i, frame, &mut locations, warnings)?;
            self.frames.push(loc);
        }
        Ok(())
    }

    fn frame(
        &mut self,
        i: usize,
        frame: RawFrame,
        locations: &mut HashMap<(u32, i32, i32), LocationIndex>,
        warnings: &mut Warnings,
    ) -> Result<LocationIndex, ReadError> {
        let name = frame.name.ok_or_else(|| {
            ReadError::new(
                NAME,
                Place::Path(format!("shared.frames[{i}]")),
                "the frame has no `name`",
            )
        })?;
        if name.is_empty() {
            warnings.add(NAME, "empty-name", || {
                format!("frames without a name were named {ANONYMOUS} (first: shared.frames[{i}])")
            });
        }
        if !frame.other.is_empty() {
            let keys: Vec<&str> = frame.other.keys().map(String::as_str).collect();
            let keys = keys.join(", ");
            warnings.add(NAME, "frame-keys", || {
                format!("frame keys not kept: {keys} (first: shared.frames[{i}])")
            });
        }
        let shown = if name.is_empty() { ANONYMOUS } else { &name };
        let name_id = self.b.intern(shown);
        let filename = self
            .b
            .strings()
            .intern_opt(frame.file.as_deref().filter(|f| !f.is_empty()));
        let function = self.b.function(FunctionKey {
            name: name_id,
            system_name: name_id,
            filename,
            start_line: 0,
        });
        let line = whole_number(frame.line).unwrap_or(0);
        let col = whole_number(frame.col);
        let key = (function.0, line, col.unwrap_or(i32::MIN));
        if let Some(&loc) = locations.get(&key) {
            return Ok(loc);
        }
        let loc = self.b.add_location(Some(function), line);
        if let Some(c) = col {
            self.b.set_location_ext(loc, LOCATION_COLUMN, Cell::Int(c));
        }
        locations.insert(key, loc);
        Ok(loc)
    }

    /// Reads `profiles[i]`; returns its weight value type.
    fn profile(
        &mut self,
        i: usize,
        range: std::ops::Range<usize>,
        warnings: &mut Warnings,
    ) -> Result<ValueTypeIndex, ReadError> {
        let path = format!("profiles[{i}]");
        let members = json_scan::object_members(self.bytes, range.start).ok_or_else(|| {
            ReadError::new(
                NAME,
                Place::Path(path.clone()),
                "the profile is not a JSON object",
            )
        })?;
        let field = |key: &str| json_scan::member(&members, key).map(|m| m.value.clone());
        let get_str = |key: &str| -> Result<Option<String>, ReadError> {
            match field(key) {
                Some(r) => json_scan::parse_member(NAME, self.bytes, r, &format!("{path}.{key}")),
                None => Ok(None),
            }
        };
        let get_num = |key: &str| -> Result<Option<f64>, ReadError> {
            match field(key) {
                Some(r) => json_scan::parse_member(NAME, self.bytes, r, &format!("{path}.{key}")),
                None => Ok(None),
            }
        };
        let kind = get_str("type")?.unwrap_or_default();
        let name = get_str("name")?;
        let unit = get_str("unit")?.unwrap_or_else(|| "none".to_owned());
        let start = get_num("startValue")?.unwrap_or(0.0);
        let end = get_num("endValue")?;
        let unknown: Vec<&str> = members
            .iter()
            .map(|m| m.key.as_str())
            .filter(|k| !KNOWN_PROFILE_KEYS.contains(k))
            .collect();
        if !unknown.is_empty() {
            let keys = unknown.join(", ");
            warnings.add(NAME, "profile-keys", || {
                format!("profile keys not kept: {keys} (first: {path})")
            });
        }
        let source = self.source(name.as_deref(), start, end);
        let (vt, scale, seconds) = self.weight_type(&unit);
        let ctx = ProfileCtx {
            source,
            vt,
            scale,
            seconds,
            start,
        };
        match kind.as_str() {
            "sampled" => {
                let samples = field("samples").ok_or_else(|| missing(&path, "samples"))?;
                let weights = field("weights").ok_or_else(|| missing(&path, "weights"))?;
                let samples: Vec<Vec<i64>> =
                    json_scan::parse_member(NAME, self.bytes, samples, &format!("{path}.samples"))?;
                let weights: Vec<f64> =
                    json_scan::parse_member(NAME, self.bytes, weights, &format!("{path}.weights"))?;
                self.sampled(&path, &ctx, &samples, &weights)?;
            }
            "evented" => {
                let events = field("events").ok_or_else(|| missing(&path, "events"))?;
                let events: Vec<RawEvent> =
                    json_scan::parse_member(NAME, self.bytes, events, &format!("{path}.events"))?;
                self.evented(&path, &ctx, &events)?;
            }
            other => {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("{path}.type")),
                    format!("unknown profile type {other:?} (expected \"sampled\" or \"evented\")"),
                ))
            }
        }
        Ok(vt)
    }

    fn source(&mut self, name: Option<&str>, start: f64, end: Option<f64>) -> SourceIndex {
        let uri = self.options.source_uri.clone();
        let source = self.b.add_source(NAME, uri.as_deref(), None);
        let name = self.b.strings().intern_opt(name);
        let ext = &mut self.b.sources_mut().ext;
        let row = source.idx();
        let _ = ext.set(SOURCE_NAME, row, Cell::Chr(name));
        let _ = ext.set(SOURCE_START_VALUE, row, Cell::Dbl(start));
        let _ = ext.set(SOURCE_END_VALUE, row, Cell::Dbl(end.unwrap_or(f64::NAN)));
        source
    }

    /// The value type of a unit, the factor converting the unit to the type's unit (when a
    /// time type was first declared in another unit), and seconds per unit.
    fn weight_type(&mut self, unit: &str) -> (ValueTypeIndex, f64, Option<f64>) {
        let kind = unit_kind(unit);
        let (first_unit, first_seconds) = self
            .units
            .entry(kind.value_type.to_owned())
            .or_insert_with(|| (kind.unit.to_owned(), kind.seconds))
            .clone();
        let scale = match (kind.seconds, first_seconds) {
            (Some(s), Some(f)) if f > 0.0 => s / f,
            _ => 1.0,
        };
        if kind.value_type != "samples" && self.samples_vt.is_none() {
            self.samples_vt = Some(self.b.value_type("samples", "count"));
        }
        let vt = self.b.value_type(kind.value_type, &first_unit);
        (vt, scale, kind.seconds)
    }

    fn sampled(
        &mut self,
        path: &str,
        ctx: &ProfileCtx,
        samples: &[Vec<i64>],
        weights: &[f64],
    ) -> Result<(), ReadError> {
        if samples.len() != weights.len() {
            return Err(ReadError::new(
                NAME,
                Place::Path(path.to_owned()),
                format!(
                    "expected samples.length ({}) to equal weights.length ({})",
                    samples.len(),
                    weights.len()
                ),
            ));
        }
        let mut elapsed = 0.0;
        for (j, (stack, &weight)) in samples.iter().zip(weights).enumerate() {
            if weight < 0.0 {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("{path}.weights[{j}]")),
                    format!("samples must have positive weights (found {weight})"),
                ));
            }
            let node = self.stack(&format!("{path}.samples[{j}]"), stack)?;
            self.sample(ctx, node, weight, elapsed)?;
            elapsed += weight;
        }
        Ok(())
    }

    fn stack(&mut self, path: &str, frames: &[i64]) -> Result<Option<StackIndex>, ReadError> {
        if frames.len() > self.options.limits.max_stack_depth {
            return Err(depth_error(path, self.options.limits.max_stack_depth));
        }
        let mut node = None;
        for (k, &f) in frames.iter().enumerate() {
            let loc = self.frame_location(&format!("{path}[{k}]"), f)?;
            node = Some(self.b.stack_node(node, loc));
        }
        Ok(node)
    }

    fn frame_location(&self, path: &str, f: i64) -> Result<LocationIndex, ReadError> {
        usize::try_from(f)
            .ok()
            .and_then(|i| self.frames.get(i).copied())
            .ok_or_else(|| {
                ReadError::new(
                    NAME,
                    Place::Path(path.to_owned()),
                    format!(
                        "frame index {f} is out of range (shared.frames has {} frames)",
                        self.frames.len()
                    ),
                )
            })
    }

    /// Adds one sample of `weight` whose interval starts `offset` units after `startValue`.
    fn sample(
        &mut self,
        ctx: &ProfileCtx,
        node: Option<StackIndex>,
        weight: f64,
        offset: f64,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Speedscope, self.options.limits.max_samples)?;
        let s = self.b.add_sample(ctx.source, node);
        self.b.set_value(s, ctx.vt, weight * ctx.scale);
        if let Some(count) = self.samples_vt.filter(|&c| c != ctx.vt) {
            self.b.set_value(s, count, 1.0);
        }
        if let Some(seconds) = ctx.seconds {
            self.b
                .set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(offset * seconds));
        }
        Ok(())
    }

    fn evented(
        &mut self,
        path: &str,
        ctx: &ProfileCtx,
        events: &[RawEvent],
    ) -> Result<(), ReadError> {
        let mut open: Vec<(i64, StackIndex)> = Vec::new();
        let mut last_at: Option<f64> = None;
        for (k, ev) in events.iter().enumerate() {
            let place = || Place::Path(format!("{path}.events[{k}]"));
            if let Some(prev) = last_at {
                if ev.at < prev {
                    return Err(ReadError::new(
                        NAME,
                        place(),
                        format!(
                            "events must be in increasing order of `at` ({} after {prev})",
                            ev.at
                        ),
                    ));
                }
                if ev.at > prev {
                    if let Some(&(_, node)) = open.last() {
                        self.sample(ctx, Some(node), ev.at - prev, prev - ctx.start)?;
                    }
                }
            }
            last_at = Some(ev.at);
            match ev.kind.as_str() {
                "O" => {
                    if open.len() >= self.options.limits.max_stack_depth {
                        return Err(depth_error(
                            &format!("{path}.events[{k}]"),
                            self.options.limits.max_stack_depth,
                        ));
                    }
                    let loc =
                        self.frame_location(&format!("{path}.events[{k}].frame"), ev.frame)?;
                    let node = self.b.stack_node(open.last().map(|o| o.1), loc);
                    open.push((ev.frame, node));
                }
                "C" => match open.pop() {
                    Some((f, _)) if f == ev.frame => {}
                    Some((f, _)) => {
                        return Err(ReadError::new(
                            NAME,
                            place(),
                            format!(
                                "tried to leave frame {} while frame {f} was at the top",
                                ev.frame
                            ),
                        ))
                    }
                    None => {
                        return Err(ReadError::new(
                            NAME,
                            place(),
                            format!("tried to leave frame {} when no frame is open", ev.frame),
                        ))
                    }
                },
                other => {
                    return Err(ReadError::new(
                        NAME,
                        place(),
                        format!("unknown event type {other:?} (expected \"O\" or \"C\")"),
                    ))
                }
            }
        }
        if !open.is_empty() {
            return Err(ReadError::new(
                NAME,
                Place::Path(path.to_owned()),
                format!(
                    "the profile ends with {} frames still open (every \"O\" event needs a matching \"C\")",
                    open.len()
                ),
            ));
        }
        Ok(())
    }

    fn finish(
        mut self,
        weight_types: &[ValueTypeIndex],
        warnings: Warnings,
    ) -> Result<Parsed, ReadError> {
        let active = self
            .b
            .profile()
            .meta_value(META_ACTIVE_PROFILE)
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        let default = weight_types.get(active).or(weight_types.first()).copied();
        if let Some(vt) = default {
            let name = self.b.profile().value_type_names(vt).0.to_owned();
            self.b.set_meta(META_DEFAULT_TYPE, &name);
        }
        if self.units.values().any(|(_, seconds)| seconds.is_some()) {
            self.b.declare_sample_column(SAMPLE_TIME, ColumnKind::Dbl);
        }
        finish_parsed(self.b, Format::Speedscope, warnings)
    }
}

/// Per-profile facts the sample adders need.
struct ProfileCtx {
    source: SourceIndex,
    vt: ValueTypeIndex,
    scale: f64,
    seconds: Option<f64>,
    start: f64,
}

fn missing(path: &str, key: &str) -> ReadError {
    ReadError::new(
        NAME,
        Place::Path(path.to_owned()),
        format!("the profile has no `{key}`"),
    )
}

fn depth_error(path: &str, limit: usize) -> ReadError {
    ReadError::new(
        NAME,
        Place::Path(path.to_owned()),
        format!("the stack is deeper than {limit} frames (the stack depth limit)"),
    )
}

/// A non-negative whole number that fits an `i32`.
fn whole_number(v: Option<f64>) -> Option<i32> {
    let v = v?;
    (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= f64::from(i32::MAX)).then_some(v as i32)
}

/// The speedscope unit for a value unit, and whether it is exact.
fn speedscope_unit(unit: &str) -> (&'static str, bool) {
    match unit {
        "nanoseconds" => ("nanoseconds", true),
        "microseconds" => ("microseconds", true),
        "milliseconds" => ("milliseconds", true),
        "seconds" => ("seconds", true),
        "bytes" => ("bytes", true),
        "count" | "" => ("none", true),
        _ => ("none", false),
    }
}

/// Writes one sampled speedscope profile per source (see the module documentation).
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let vt = chosen_value_type(NAME, profile, options)?;
    let (_, unit) = profile.value_type_names(vt);
    let (ss_unit, exact) = speedscope_unit(unit);
    let mut w = Writer::new(profile, vt);
    let mut by_source: Vec<Vec<usize>> = vec![Vec::new(); profile.sources.source_type.len()];
    for (s, src) in profile.samples.source.iter().enumerate() {
        if let Some(list) = by_source.get_mut(src.idx()) {
            list.push(s);
        }
    }
    let profiles: Vec<String> = by_source
        .iter()
        .enumerate()
        .map(|(source, samples)| w.profile_json(source, samples, ss_unit))
        .collect();
    let mut out = String::new();
    out.push_str("{\"$schema\":");
    out.push_str(&json_string(SCHEMA_URL));
    out.push_str(",\"exporter\":");
    out.push_str(&json_string(&format!(
        "proftab@{}",
        env!("CARGO_PKG_VERSION")
    )));
    if let Some(name) = profile.meta_value(META_NAME) {
        out.push_str(",\"name\":");
        out.push_str(&json_string(name));
    }
    let active = profile
        .meta_value(META_ACTIVE_PROFILE)
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&i| i < profiles.len())
        .unwrap_or(0);
    out.push_str(&format!(",\"activeProfileIndex\":{active}"));
    out.push_str(",\"shared\":{\"frames\":[");
    out.push_str(&w.frames.join(","));
    out.push_str("]},\"profiles\":[");
    out.push_str(&profiles.join(","));
    out.push_str("]}\n");
    let mut warnings = w.warnings.into_vec();
    warnings.extend(other_types_warning(NAME, profile, vt, &[]));
    if !exact {
        warnings.push(Warning::new(
            NAME,
            format!("unit {unit:?} has no speedscope equivalent; written with unit \"none\""),
            1,
        ));
    }
    Ok(Written {
        bytes: out.into_bytes(),
        warnings,
    })
}

/// Writer state: frames by location, rendered stacks by stack node.
struct Writer<'p> {
    p: &'p Profile,
    vt: ValueTypeIndex,
    frame_of: HashMap<LocationIndex, usize>,
    frames: Vec<String>,
    stack_json: HashMap<u32, String>,
    warnings: Warnings,
}

impl<'p> Writer<'p> {
    fn new(p: &'p Profile, vt: ValueTypeIndex) -> Self {
        Writer {
            p,
            vt,
            frame_of: HashMap::new(),
            frames: Vec::new(),
            stack_json: HashMap::new(),
            warnings: Warnings::default(),
        }
    }

    /// One sampled profile holding `samples` (the rows of `source`, in order).
    fn profile_json(&mut self, source: usize, samples: &[usize], unit: &str) -> String {
        let p = self.p;
        let mut stacks = Vec::new();
        let mut weights = Vec::new();
        let mut total = 0.0;
        let mut times: Vec<(f64, f64)> = Vec::new();
        let time_col = p.samples.ext.dbl(SAMPLE_TIME);
        let col = p.value_column(self.vt);
        for &s in samples {
            let Some(v) = col.and_then(|c| c.get(s)) else {
                continue;
            };
            if v < 0.0 || !v.is_finite() {
                self.warnings.add(NAME, "negative", || {
                    "samples with negative values were not written (speedscope weights are positive)"
                        .to_owned()
                });
                continue;
            }
            let stack = SampleIndex::from_usize(s).and_then(|si| p.sample_stack(si));
            stacks.push(self.stack(stack));
            weights.push(format_number(v));
            if let Some(&t) = time_col.and_then(|c| c.get(s)).filter(|t| !t.is_nan()) {
                times.push((t, total));
            }
            total += v;
        }
        self.check_times(unit, &times);
        let name = self.source_name(source);
        format!(
            "{{\"type\":\"sampled\",\"name\":{},\"unit\":{},\"startValue\":0,\"endValue\":{},\"samples\":[{}],\"weights\":[{}]}}",
            json_string(&name),
            json_string(unit),
            format_number(total),
            stacks.join(","),
            weights.join(",")
        )
    }

    /// Warns when sample times are not the weights laid end to end (gaps, reordering), which
    /// a sampled speedscope profile cannot express.
    fn check_times(&mut self, unit: &str, times: &[(f64, f64)]) {
        if times.is_empty() {
            return;
        }
        let seconds = unit_kind(unit).seconds;
        let consistent = seconds.is_some_and(|f| {
            let origin = times.first().map_or(0.0, |&(t, off)| t - off * f);
            times
                .iter()
                .all(|&(t, off)| (t - (origin + off * f)).abs() <= 1e-9 * t.abs().max(1.0))
        });
        if !consistent {
            self.warnings.add(NAME, "times", || {
                "sample times (.time) were not written: speedscope sampled profiles lay samples end to end"
                    .to_owned()
            });
        }
    }

    fn source_name(&self, source: usize) -> String {
        let p = self.p;
        let named = p
            .sources
            .ext
            .chr(SOURCE_NAME)
            .and_then(|c| c.get(source))
            .and_then(|&id| p.strings.get(id));
        let uri = p
            .sources
            .source_uri
            .get(source)
            .and_then(|&id| p.strings.get(id));
        named
            .or(uri)
            .map_or_else(|| format!("profile {}", source + 1), str::to_owned)
    }

    fn stack(&mut self, stack: Option<StackIndex>) -> String {
        let Some(node) = stack else {
            return "[]".to_owned();
        };
        if let Some(s) = self.stack_json.get(&node.0) {
            return s.clone();
        }
        let indices: Vec<String> = frames_root_first(self.p, stack)
            .into_iter()
            .map(|loc| self.frame_index(loc).to_string())
            .collect();
        let text = format!("[{}]", indices.join(","));
        self.stack_json.insert(node.0, text.clone());
        text
    }

    fn frame_index(&mut self, loc: LocationIndex) -> usize {
        if let Some(&i) = self.frame_of.get(&loc) {
            return i;
        }
        let i = self.frames.len();
        self.frames.push(frame_json(self.p, loc));
        self.frame_of.insert(loc, i);
        i
    }
}

/// `{"name":…,"file":…,"line":…,"col":…}` of a location: the location's line, else the
/// function's start line; the column from `locations..column`.
fn frame_json(p: &Profile, loc: LocationIndex) -> String {
    let name = super::write_common::location_name(p, loc);
    let mut out = format!("{{\"name\":{}", json_string(&name));
    let function = p.location_function(loc);
    if let Some(file) = function
        .and_then(|f| p.functions.filename.get(f.idx()))
        .and_then(|&id| p.strings.get(id))
    {
        out.push_str(&format!(",\"file\":{}", json_string(file)));
    }
    let line = p.locations.line.get(loc.idx()).copied().filter(|&l| l > 0);
    let start = function
        .and_then(|f| p.functions.start_line.get(f.idx()))
        .copied()
        .filter(|&l| l > 0);
    if let Some(l) = line.or(start) {
        out.push_str(&format!(",\"line\":{l}"));
    }
    if let Some(c) = p
        .locations
        .ext
        .int(LOCATION_COLUMN)
        .and_then(|c| c.get(loc.idx()))
        .filter(|&&c| c != crate::model::INT_NA)
    {
        out.push_str(&format!(",\"col\":{c}"));
    }
    out.push('}');
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}
