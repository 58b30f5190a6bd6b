//! Reading: the top-level members are scanned ([`json_scan`]), file meta and the shared frames
//! read first, then each entry of `profiles` (`samples`: sampled and evented profiles) with its
//! unit mapped to a value type.

mod samples;

use std::ops::Range;

use serde::Deserialize;

use super::schema::{unit_kind, RawFrame};
use super::{
    ANONYMOUS, KNOWN_TOP_KEYS, LOCATION_COLUMN, META_ACTIVE_PROFILE, META_EXPORTER, META_NAME,
    META_VERSION, NAME, SOURCE_END_VALUE, SOURCE_NAME, SOURCE_START_VALUE,
};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan::{self, Member};
use crate::formats::read_common::finish_parsed;
use crate::formats::write_common::format_number;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    Cell, ColumnKind, FunctionKey, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex,
    META_DEFAULT_TYPE, SAMPLE_TIME,
};

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
    let ranges = json_scan::member_array(NAME, bytes, profiles, "profiles")?;
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
            units: HashMap::default(),
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

    fn frames(&mut self, shared: Range<usize>, warnings: &mut Warnings) -> Result<(), ReadError> {
        #[derive(Deserialize)]
        struct Shared {
            frames: Vec<RawFrame>,
        }
        let shared: Shared = json_scan::parse_member(NAME, self.bytes, shared, "shared")?;
        let mut locations: HashMap<(u32, i32, i32), LocationIndex> = HashMap::default();
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
