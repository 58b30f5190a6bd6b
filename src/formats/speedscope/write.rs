//! Writing: one sampled speedscope profile per `sources` row (evented where sample times need
//! it: `write_evented.rs`), frames in order of first use,
//! each stack rendered once per stack node; the JSON text is assembled directly (no tree).

use super::schema::unit_kind;
use super::{LOCATION_COLUMN, META_ACTIVE_PROFILE, META_NAME, NAME, SCHEMA_URL, SOURCE_NAME};
use crate::formats::error::{Warning, Warnings, WriteError};
use crate::formats::write_common::{chosen_value_type, format_number, frames_root_first};
use crate::formats::{WriteOptions, Written};
use crate::hash::HashMap;
use crate::model::{LocationIndex, Profile, SampleIndex, StackIndex, ValueTypeIndex, SAMPLE_TIME};

/// Relative tolerance of durations in time comparisons (overlap, contiguity).
pub(super) const DURATION_TOLERANCE: f64 = 1e-9;
/// Tolerance of time comparisons in units of the last place of the times (absolute times of
/// about 1.7e9 s carry about 0.2 µs of rounding).
const ULPS: f64 = 4.0;

/// True when times `a` and `b` (seconds) are equal within the rounding of times of their size
/// and [`DURATION_TOLERANCE`] of `duration` (seconds).
pub(super) fn same_time(a: f64, b: f64, duration: f64) -> bool {
    let rounding = ULPS * f64::EPSILON * a.abs().max(b.abs());
    (a - b).abs() <= rounding + DURATION_TOLERANCE * duration.abs()
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
pub(super) struct Writer<'p> {
    pub(super) p: &'p Profile,
    pub(super) vt: ValueTypeIndex,
    frame_of: HashMap<LocationIndex, usize>,
    frames: Vec<String>,
    stack_json: HashMap<u32, String>,
    pub(super) warnings: Warnings,
}

impl<'p> Writer<'p> {
    fn new(p: &'p Profile, vt: ValueTypeIndex) -> Self {
        Writer {
            p,
            vt,
            frame_of: HashMap::default(),
            frames: Vec::new(),
            stack_json: HashMap::default(),
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
        let name = self.source_name(source);
        if !times_end_to_end(unit, &times) {
            if let Some(evented) = self.evented_json(&name, samples, unit) {
                return evented;
            }
            self.warnings.add(NAME, "times", || {
                "sample times (.time) were not written: speedscope sampled profiles lay samples end to end"
                    .to_owned()
            });
        }
        format!(
            "{{\"type\":\"sampled\",\"name\":{},\"unit\":{},\"startValue\":0,\"endValue\":{},\"samples\":[{}],\"weights\":[{}]}}",
            json_string(&name),
            json_string(unit),
            format_number(total),
            stacks.join(","),
            weights.join(",")
        )
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

    pub(super) fn frame_index(&mut self, loc: LocationIndex) -> usize {
        if let Some(&i) = self.frame_of.get(&loc) {
            return i;
        }
        let i = self.frames.len();
        self.frames.push(frame_json(self.p, loc));
        self.frame_of.insert(loc, i);
        i
    }
}

/// True when the sample times `(time, offset)` are the weights laid end to end (or absent),
/// as a sampled profile shows them.
fn times_end_to_end(unit: &str, times: &[(f64, f64)]) -> bool {
    if times.is_empty() {
        return true;
    }
    let seconds = unit_kind(unit).seconds;
    seconds.is_some_and(|f| {
        let origin = times.first().map_or(0.0, |&(t, off)| t - off * f);
        times
            .iter()
            .all(|&(t, off)| same_time(t, origin + off * f, off * f))
    })
}

/// `{"name":…,"file":…,"line":…,"col":…}` of a location: the location's line, else the
/// function's start line; the column from `locations..column`.
fn frame_json(p: &Profile, loc: LocationIndex) -> String {
    let name = p.frame_display_name(loc);
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

pub(super) fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}
