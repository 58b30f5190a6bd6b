//! Reading a Safari timeline recording: meta, then one sample per `sampleStackTraces` entry.

use serde::Deserialize;

use super::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan;
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::write_common::format_number;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::builder::FunctionKey;
use crate::model::{
    ext, Cell, FunctionIndex, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex,
    META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Top-level keys of an export (others are named in a warning).
const KNOWN_TOP_KEYS: [&str; 3] = ["version", "recording", "overview"];
/// The version this reader knows.
const KNOWN_VERSION: f64 = 1.0;
/// Name of frames without a name (speedscope's).
const ANONYMOUS: &str = "(anonymous)";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recording {
    display_name: Option<String>,
    start_time: Option<f64>,
    end_time: Option<f64>,
    #[serde(default)]
    records: Vec<serde::de::IgnoredAny>,
    #[serde(default)]
    markers: Vec<serde::de::IgnoredAny>,
    sample_stack_traces: Vec<Sample>,
    sample_durations: Vec<Option<f64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sample {
    timestamp: Option<f64>,
    #[serde(default)]
    stack_frames: Vec<Frame>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frame {
    #[serde(default)]
    name: String,
    #[serde(default)]
    url: String,
    line: Option<f64>,
    column: Option<f64>,
    expression_location: Option<Position>,
}

#[derive(Deserialize)]
struct Position {
    line: Option<f64>,
    column: Option<f64>,
}

/// Reads a Safari timeline recording.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (members, mut warnings) = json_scan::open_object_document(NAME, bytes, &KNOWN_TOP_KEYS)?;
    let member = |key: &str| {
        json_scan::member(&members, key)
            .map(|m| m.value.clone())
            .ok_or_else(|| ReadError::whole(NAME, format!("the file has no `{key}`")))
    };
    let version: Option<f64> = match json_scan::member(&members, "version") {
        Some(m) => json_scan::parse_member(NAME, bytes, m.value.clone(), "version")?,
        None => None,
    };
    let recording: Recording =
        json_scan::parse_member(NAME, bytes, member("recording")?, "recording")?;
    check_lengths(&recording)?;
    let mut b = ProfileBuilder::new();
    meta(&mut b, version, &recording, &mut warnings);
    let source = b.add_source(NAME, options.source_uri.as_deref(), None);
    let mut samples = Samples {
        time: b.value_type("time", "nanoseconds"),
        count: b.value_type("samples", "count"),
        b,
        source,
        functions: HashMap::default(),
        locations: HashMap::default(),
        origin: recording.start_time,
        options,
    };
    samples.b.set_meta(META_DEFAULT_TYPE, "time");
    for (i, (sample, duration)) in recording
        .sample_stack_traces
        .iter()
        .zip(&recording.sample_durations)
        .enumerate()
    {
        samples.add(i, sample, *duration)?;
    }
    finish_parsed(samples.b, Format::Safari, warnings)
}

/// `sampleDurations` must give every sample its weight.
fn check_lengths(r: &Recording) -> Result<(), ReadError> {
    let (n, m) = (r.sample_stack_traces.len(), r.sample_durations.len());
    if n != m {
        return Err(ReadError::new(
            NAME,
            Place::Path("recording.sampleDurations".to_owned()),
            format!("{m} durations for {n} samples in `sampleStackTraces`"),
        ));
    }
    Ok(())
}

/// Meta rows, and the warnings about what is not read.
fn meta(b: &mut ProfileBuilder, version: Option<f64>, r: &Recording, warnings: &mut Warnings) {
    if let Some(v) = version {
        b.set_meta("safari.version", &format_number(v));
    }
    if version != Some(KNOWN_VERSION) {
        let shown = version.map_or("none".to_owned(), format_number);
        warnings.add(NAME, "version", || {
            format!("the export's version is {shown}, not 1: read as version 1")
        });
    }
    if let Some(name) = &r.display_name {
        b.set_meta("safari.display_name", name);
    }
    for (key, t) in [("start_time", r.start_time), ("end_time", r.end_time)] {
        if let Some(t) = t {
            b.set_meta(&format!("safari.{key}"), &format_number(t));
        }
    }
    let (records, markers) = (r.records.len(), r.markers.len());
    if records + markers > 0 {
        warnings.push(crate::formats::Warning::new(
            NAME,
            format!(
                "timeline records ({records}) and markers ({markers}) are not samples and were \
                 not kept"
            ),
            1,
        ));
    }
}

/// Function identity: speedscope's frame key (name, url, line, column).
type FunctionId = (String, String, i32, i32);

/// The samples being built.
struct Samples<'a> {
    b: ProfileBuilder,
    source: SourceIndex,
    time: ValueTypeIndex,
    count: ValueTypeIndex,
    functions: HashMap<FunctionId, FunctionIndex>,
    locations: HashMap<(FunctionIndex, i32, i32), LocationIndex>,
    origin: Option<f64>,
    options: &'a ReadOptions,
}

impl Samples<'_> {
    /// The sample `i`, weighed by its duration (seconds).
    fn add(&mut self, i: usize, sample: &Sample, duration: Option<f64>) -> Result<(), ReadError> {
        let at = |what: &str| Place::Path(format!("recording.{what}[{i}]"));
        let seconds = duration
            .filter(|d| d.is_finite() && *d >= 0.0)
            .ok_or_else(|| {
                ReadError::new(
                    NAME,
                    at("sampleDurations"),
                    "the duration must be a number of seconds, at least 0",
                )
            })?;
        let max = self.options.limits.max_stack_depth;
        if sample.stack_frames.len() > max {
            return Err(ReadError::new(
                NAME,
                at("sampleStackTraces"),
                format!("the stack is deeper than {max} frames (the stack depth limit)"),
            ));
        }
        check_sample_limit(&self.b, Format::Safari, self.options.limits.max_samples)?;
        let mut node = None;
        for frame in sample.stack_frames.iter().rev() {
            let loc = self.location(frame);
            node = Some(self.b.stack_node(node, loc));
        }
        let s = self.b.add_sample(self.source, node);
        self.b.set_value(s, self.time, (seconds * 1e9).round());
        self.b.set_value(s, self.count, 1.0);
        if let (Some(t0), Some(t)) = (self.origin, sample.timestamp) {
            self.b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(t - t0));
        }
        Ok(())
    }

    /// The location of a frame: its function at the executing line and column.
    fn location(&mut self, frame: &Frame) -> LocationIndex {
        let (line, column) = (whole(frame.line), whole(frame.column));
        let name = match frame.name.as_str() {
            "" => ANONYMOUS,
            n => n,
        };
        let id = (name.to_owned(), frame.url.clone(), line, column);
        let f = match self.functions.get(&id) {
            Some(&f) => f,
            None => self.add_function(id),
        };
        let here = frame.expression_location.as_ref();
        let (at_line, at_column) =
            here.map_or((line, column), |p| (whole(p.line), whole(p.column)));
        if let Some(&l) = self.locations.get(&(f, at_line, at_column)) {
            return l;
        }
        let l = self.b.add_location(Some(f), at_line);
        self.b
            .set_location_ext(l, ext::locations::COLUMN, Cell::Int(at_column));
        self.locations.insert((f, at_line, at_column), l);
        l
    }

    fn add_function(&mut self, id: FunctionId) -> FunctionIndex {
        let name = self.b.intern(&id.0);
        let filename = self
            .b
            .strings()
            .intern_opt(Some(id.1.as_str()).filter(|u| !u.is_empty()));
        let f = self.b.add_function(FunctionKey {
            name,
            system_name: name,
            filename,
            start_line: id.2,
        });
        let _ =
            self.b
                .functions_mut()
                .ext
                .set(ext::functions::START_COLUMN, f.idx(), Cell::Int(id.3));
        self.functions.insert(id, f);
        f
    }
}

/// A line or column as printed (whole, from 0), 0 when missing or out of range.
fn whole(v: Option<f64>) -> i32 {
    v.filter(|v| v.fract() == 0.0 && *v >= 0.0 && *v <= f64::from(i32::MAX))
        .map_or(0, |v| v as i32)
}
