//! The OTLP reader: decoded messages → [`ProfileBuilder`]. See the module docs of
//! [`super`] for the mapping.

use prost::Message;

use super::attrs::{self, AttrValue};
use super::layout::{self, DecodedProfile, Layout, SampleLayout};
use super::proto::{self, KeyValue, ProfilesData, ProfilesDictionary, Sample, SampleV19};
use super::*;
use crate::formats::{Format, Place, Warnings};
use crate::model::{
    Cell, FunctionIndex, FunctionKey, LocationIndex, ProfileBuilder, SampleIndex, SourceIndex,
    StackIndex, ValueTypeIndex, INT_NA, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Nanoseconds per second.
const NANOS_PER_SECOND: f64 = 1e9;

/// Reads every message into one profile.
pub(super) fn read_messages(
    msgs: &[(usize, &[u8])],
    options: &ReadOptions,
) -> Result<Parsed, ReadError> {
    let mut r = Reader {
        b: ProfileBuilder::new(),
        w: Warnings::default(),
        options,
        first_source_done: false,
        default_type_set: false,
        next_location_id: 1,
    };
    let many = msgs.len() > 1;
    for (m, (offset, bytes)) in msgs.iter().enumerate() {
        let data = super::decode_message(*offset, bytes)?;
        let prefix = if many {
            format!("message[{m}].")
        } else {
            String::new()
        };
        r.add_message(&data, &prefix)?;
    }
    if r.b.profile().sources.source_type.is_empty() {
        r.w.add(NAME, "empty", || "the file holds no profiles".to_owned());
    }
    let profile =
        r.b.build()
            .map_err(|e| ReadError::whole(NAME, format!("internal error: {e}")))?;
    Ok(Parsed {
        format: Format::Otlp,
        profile,
        warnings: r.w.into_vec(),
    })
}

struct Reader<'o> {
    b: ProfileBuilder,
    w: Warnings,
    options: &'o ReadOptions,
    first_source_done: bool,
    default_type_set: bool,
    /// Next `.pprof_location_id` (unique across messages).
    next_location_id: u64,
}

/// Per-message lookups from dictionary indices to rows already added to the builder.
struct Dict<'d> {
    d: &'d ProfilesDictionary,
    prefix: &'d str,
    functions: Vec<Option<Option<FunctionIndex>>>,
    /// Per location: range into `flat` of its frames, innermost first.
    locations: Vec<Option<(usize, usize)>>,
    flat: Vec<LocationIndex>,
    stacks: Vec<Option<Option<StackIndex>>>,
    mappings: Vec<Option<u64>>,
}

fn err(place: String, message: impl Into<String>) -> ReadError {
    ReadError::new(NAME, Place::Path(place), message)
}

fn index(i: i32, len: usize, place: impl Fn() -> String, what: &str) -> Result<usize, ReadError> {
    usize::try_from(i).ok().filter(|&u| u < len).ok_or_else(|| {
        err(
            place(),
            format!("{what} index {i} out of range (table has {len})"),
        )
    })
}

impl<'d> Dict<'d> {
    fn new(d: &'d ProfilesDictionary, prefix: &'d str) -> Self {
        Dict {
            d,
            prefix,
            functions: vec![None; d.function_table.len()],
            locations: vec![None; d.location_table.len()],
            flat: Vec::new(),
            stacks: vec![None; d.stack_table.len()],
            mappings: vec![None; d.mapping_table.len()],
        }
    }

    fn string(&self, i: i32, place: impl Fn() -> String) -> Result<&'d str, ReadError> {
        let st = &self.d.string_table;
        let u = index(i, st.len().max(1), place, "string")?;
        Ok(st.get(u).map_or("", String::as_str))
    }

    fn attribute(
        &self,
        i: i32,
        place: impl Fn() -> String + Copy,
    ) -> Result<Option<(&'d str, AttrValue, &'d str)>, ReadError> {
        let u = index(i, self.d.attribute_table.len().max(1), place, "attribute")?;
        let Some(a) = self.d.attribute_table.get(u).filter(|_| u != 0) else {
            return Ok(None);
        };
        let key = self.string(a.key_strindex, place)?;
        let unit = self.string(a.unit_strindex, place)?;
        let strings = &self.d.string_table;
        let lookup = |s: i32| {
            usize::try_from(s)
                .ok()
                .and_then(|s| strings.get(s))
                .cloned()
        };
        Ok(Some((key, attrs::decode(a.value.as_ref(), &lookup), unit)))
    }
}

/// The identity and rows of one decoded sample.
fn sample_rows(s: &Sample) -> usize {
    s.values.len().max(s.timestamps_unix_nano.len())
}

fn same_identity(a: &Sample, b: &Sample) -> bool {
    let sorted = |v: &[i32]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    a.stack_index == b.stack_index
        && a.link_index == b.link_index
        && a.timestamps_unix_nano == b.timestamps_unix_nano
        && sample_rows(a) == sample_rows(b)
        && sorted(&a.attribute_indices) == sorted(&b.attribute_indices)
}

fn same_header(a: &proto::Profile, b: &proto::Profile) -> bool {
    a.time_unix_nano == b.time_unix_nano
        && a.duration_nano == b.duration_nano
        && a.period_type == b.period_type
        && a.period == b.period
        && a.profile_id == b.profile_id
        && a.dropped_attributes_count == b.dropped_attributes_count
        && a.original_payload_format == b.original_payload_format
        && a.original_payload == b.original_payload
        && a.attribute_indices == b.attribute_indices
}

/// One scope's context for building sources.
struct ScopeCtx<'a> {
    resource: Option<&'a proto::ResourceProfiles>,
    scope: &'a proto::ScopeProfiles,
    /// The scope's profiles, decoded.
    profiles: Vec<DecodedProfile<'a>>,
    /// Resource and scope attributes as `(level, key, value, unit)`.
    attributes: Vec<(&'static str, String, AttrValue, String)>,
}

impl Reader<'_> {
    fn add_message(&mut self, data: &ProfilesData, prefix: &str) -> Result<(), ReadError> {
        let empty = ProfilesDictionary::default();
        let d = data.dictionary.as_ref().unwrap_or(&empty);
        if d.string_table.first().is_some_and(|s| !s.is_empty()) {
            self.w.add(NAME, "string0", || {
                format!("{prefix}dictionary.string_table[0] is not empty")
            });
        }
        let layout = layout::of_message(data).map_err(|e| err(format!("{prefix}samples"), e))?;
        let mut dict = Dict::new(d, prefix);
        load_tables(self, &mut dict)?;
        for (ri, rp) in data.resource_profiles.iter().enumerate() {
            let attributes =
                self.resource_attributes(rp, &dict, &format!("{prefix}resource_profiles[{ri}]"))?;
            for (si, sp) in rp.scope_profiles.iter().enumerate() {
                let path = format!("{prefix}resource_profiles[{ri}].scope_profiles[{si}]");
                let profiles = sp
                    .profiles
                    .iter()
                    .enumerate()
                    .map(|(j, bytes)| {
                        layout::decode_profile(bytes, layout.header).map_err(|e| {
                            err(
                                format!("{path}.profiles[{j}]"),
                                format!("{e} ({} layout)", layout.name()),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let mut ctx = ScopeCtx {
                    resource: Some(rp),
                    scope: sp,
                    profiles,
                    attributes: attributes.clone(),
                };
                self.add_scope(&mut ctx, &mut dict, layout, &path)?;
            }
        }
        Ok(())
    }

    fn resource_attributes(
        &mut self,
        rp: &proto::ResourceProfiles,
        dict: &Dict,
        path: &str,
    ) -> Result<Vec<(&'static str, String, AttrValue, String)>, ReadError> {
        let Some(res) = &rp.resource else {
            return Ok(Vec::new());
        };
        if !res.entity_refs.is_empty() {
            self.w.add(NAME, "entity_refs", || {
                format!("{path}.resource.entity_refs: resource entity references are not kept")
            });
        }
        if res.dropped_attributes_count != 0 {
            self.w.add(NAME, "resource_dropped", || {
                format!(
                    "{path}.resource reports {} dropped attributes (count not kept)",
                    res.dropped_attributes_count
                )
            });
        }
        key_values(
            &res.attributes,
            dict,
            &format!("{path}.resource.attributes"),
        )
        .map(|v| {
            v.into_iter()
                .map(|(k, v)| ("resource", k, v, String::new()))
                .collect()
        })
    }

    fn add_scope(
        &mut self,
        ctx: &mut ScopeCtx,
        dict: &mut Dict,
        layout: Layout,
        path: &str,
    ) -> Result<(), ReadError> {
        let mut order: Option<Vec<i64>> = None;
        if let Some(scope) = &ctx.scope.scope {
            if scope.dropped_attributes_count != 0 {
                self.w.add(NAME, "scope_dropped", || {
                    format!("{path}.scope reports dropped attributes (count not kept)")
                });
            }
            for (key, value) in
                key_values(&scope.attributes, dict, &format!("{path}.scope.attributes"))?
            {
                match (key.as_str(), &value) {
                    (ATTR_DEFAULT_SAMPLE_TYPE, AttrValue::Str(s)) => {
                        if !self.default_type_set {
                            self.b.set_meta(META_DEFAULT_TYPE, s);
                            self.default_type_set = true;
                        }
                    }
                    (ATTR_SAMPLE_TYPE_ORDER, AttrValue::Other("array", text)) => {
                        order = parse_int_array(text);
                    }
                    _ => ctx.attributes.push(("scope", key, value, String::new())),
                }
            }
        }
        self.declare_value_types(&ctx.profiles, dict, order.as_deref(), path)?;
        let samples = Samples {
            profiles: &ctx.profiles,
            layout,
            path,
        };
        let mut start = 0;
        while start < ctx.profiles.len() {
            let end = group_end(&samples, start);
            self.add_group(ctx, dict, start..end, &samples)?;
            start = end;
        }
        Ok(())
    }

    /// Creates the scope's value types, in pprof's original order when the scope records it.
    fn declare_value_types(
        &mut self,
        profiles: &[DecodedProfile],
        dict: &Dict,
        order: Option<&[i64]>,
        path: &str,
    ) -> Result<(), ReadError> {
        let n = profiles.len();
        let mut positions: Vec<usize> = (0..n).collect();
        if let Some(order) = order.filter(|o| o.len() == n) {
            let mut sorted = order.to_vec();
            sorted.sort_unstable();
            if sorted.iter().enumerate().all(|(i, &v)| v == i as i64) {
                positions.sort_by_key(|&j| order.get(j).copied().unwrap_or(0));
            }
        }
        for j in positions {
            if let Some(p) = profiles.get(j) {
                self.value_type(
                    &p.profile,
                    dict,
                    &format!("{path}.profiles[{j}].sample_type"),
                )?;
            }
        }
        Ok(())
    }

    fn value_type(
        &mut self,
        p: &proto::Profile,
        dict: &Dict,
        place: &str,
    ) -> Result<ValueTypeIndex, ReadError> {
        let st = p.sample_type.clone().unwrap_or_default();
        let ty = dict.string(st.type_strindex, || place.to_owned())?;
        let unit = dict.string(st.unit_strindex, || place.to_owned())?;
        let vt = self.b.value_type(ty, unit);
        let (_, known_unit) = self.b.profile().value_type_names(vt);
        if known_unit != unit {
            let known = known_unit.to_owned();
            self.w.add(NAME, "unit_clash", || {
                format!("{place}: sample type {ty} has unit {unit} here but {known} earlier; the first unit is kept")
            });
        }
        Ok(vt)
    }

    /// Adds one source for the profiles `range` of a scope (a merge group) and their samples.
    fn add_group(
        &mut self,
        ctx: &ScopeCtx,
        dict: &mut Dict,
        range: std::ops::Range<usize>,
        samples: &Samples,
    ) -> Result<(), ReadError> {
        let path = samples.path;
        let first_index = range.start;
        let Some(first) = ctx.profiles.get(first_index) else {
            return Ok(());
        };
        let ppath = format!("{path}.profiles[{first_index}]");
        let mut types = Vec::new();
        for j in range.clone() {
            if let Some(p) = ctx.profiles.get(j) {
                let place = format!("{path}.profiles[{j}].sample_type");
                types.push(self.value_type(&p.profile, dict, &place)?);
            }
        }
        let base = first.profile.time_unix_nano;
        let src = self.add_source(ctx, first, dict, base, &ppath)?;
        for k in 0..first.samples.len() {
            let spath = || format!("{ppath}.samples[{k}]");
            let group = range
                .clone()
                .map(|j| samples.sample(j, k))
                .collect::<Result<Vec<Sample>, ReadError>>()?;
            let Some(s) = group.first() else { continue };
            check_pairing(&group, |g| {
                format!("{path}.profiles[{}].samples[{k}]", first_index + g)
            })?;
            let rows = sample_rows(s);
            if rows == 0 {
                self.w.add(NAME, "empty_sample", || {
                    format!("{}: sample without values or timestamps skipped", spath())
                });
                continue;
            }
            let stack = dict_stack(self, dict, s.stack_index, &spath)?;
            let extras = SampleExtras {
                labels: self.sample_labels(dict, s, &spath)?,
                link: link_ids(dict, s.link_index, &spath)?,
                base,
            };
            for r in 0..rows {
                if self.b.num_samples() >= self.options.limits.max_samples {
                    let max = self.options.limits.max_samples;
                    return Err(err(spath(), format!("more than {max} samples")));
                }
                let row = self.b.add_sample(src, stack);
                for (x, &vt) in group.iter().zip(&types) {
                    self.b.set_value(row, vt, row_value(x, r));
                }
                self.set_sample_extras(row, s.timestamps_unix_nano.get(r).copied(), &extras);
            }
        }
        Ok(())
    }

    /// Sets the time, labels and link of one sample row.
    fn set_sample_extras(&mut self, row: SampleIndex, ts: Option<u64>, extras: &SampleExtras) {
        if let Some(ts) = ts {
            let secs = (i128::from(ts) - i128::from(extras.base)) as f64 / NANOS_PER_SECOND;
            self.b.set_sample_ext(row, SAMPLE_TIME, Cell::Dbl(secs));
        }
        self.write_labels(row, &extras.labels);
        if let Some((trace, span)) = &extras.link {
            let t = self.b.intern(trace);
            let sp = self.b.intern(span);
            self.b
                .set_sample_ext(row, sample_cols::TRACE_ID, Cell::Chr(t));
            self.b
                .set_sample_ext(row, sample_cols::SPAN_ID, Cell::Chr(sp));
        }
    }

    /// Adds the `sources` row of a profile (and, for the first source, the pprof meta).
    fn add_source(
        &mut self,
        ctx: &ScopeCtx,
        decoded: &DecodedProfile,
        dict: &Dict,
        base: u64,
        path: &str,
    ) -> Result<SourceIndex, ReadError> {
        let p = &decoded.profile;
        let ts = (base != 0).then(|| base as f64 / NANOS_PER_SECOND);
        let src = self
            .b
            .add_source(NAME, self.options.source_uri.as_deref(), ts);
        let pt = p.period_type.clone().unwrap_or_default();
        let period_type = dict.string(pt.type_strindex, || format!("{path}.period_type"))?;
        let period_unit = dict.string(pt.unit_strindex, || format!("{path}.period_type"))?;
        self.source_text_columns(ctx, p, src.idx(), period_type, period_unit);
        self.source_number_columns(p, src.idx(), base);
        let first = !self.first_source_done;
        if first {
            self.first_source_done = true;
            self.pprof_meta(p, period_type, period_unit);
        }
        let mut attributes = ctx.attributes.clone();
        self.comments(decoded, dict, first, &mut attributes, path)?;
        for (a, &ai) in p.attribute_indices.iter().enumerate() {
            let place = || format!("{path}.attribute_indices[{a}]");
            let Some((key, value, unit)) = dict.attribute(ai, place)? else {
                continue;
            };
            if first && PPROF_PROFILE_ATTRS.contains(&key) {
                self.profile_attr_to_meta(key, &value);
            } else {
                attributes.push(("profile", key.to_owned(), value, unit.to_owned()));
            }
        }
        self.source_attributes(src, &attributes);
        Ok(src)
    }

    fn source_text_columns(
        &mut self,
        ctx: &ScopeCtx,
        p: &proto::Profile,
        row: usize,
        period_type: &str,
        period_unit: &str,
    ) {
        let scope = ctx.scope.scope.as_ref();
        let cells = [
            (source_cols::PERIOD_TYPE, period_type.to_owned()),
            (source_cols::PERIOD_UNIT, period_unit.to_owned()),
            (source_cols::PROFILE_ID, hex(&p.profile_id)),
            (
                source_cols::PAYLOAD_FORMAT,
                p.original_payload_format.clone(),
            ),
            (source_cols::PAYLOAD, hex(&p.original_payload)),
            (
                source_cols::SCOPE_NAME,
                scope.map(|s| s.name.clone()).unwrap_or_default(),
            ),
            (
                source_cols::SCOPE_VERSION,
                scope.map(|s| s.version.clone()).unwrap_or_default(),
            ),
            (source_cols::SCOPE_SCHEMA_URL, ctx.scope.schema_url.clone()),
            (
                source_cols::RESOURCE_SCHEMA_URL,
                ctx.resource
                    .map(|r| r.schema_url.clone())
                    .unwrap_or_default(),
            ),
        ];
        for (col, text) in cells {
            if !text.is_empty() {
                let id = self.b.intern(&text);
                let _ = self.b.sources_mut().ext.set(col, row, Cell::Chr(id));
            }
        }
    }

    fn source_number_columns(&mut self, p: &proto::Profile, row: usize, base: u64) {
        let ext = &mut self.b.sources_mut().ext;
        if base != 0 {
            let _ = ext.set(source_cols::TIME_UNIX_NANO, row, Cell::U64(Some(base)));
        }
        if p.period != 0 {
            let _ = ext.set(source_cols::PERIOD, row, Cell::Dbl(p.period as f64));
        }
        if p.duration_nano != 0 {
            let duration = Cell::Dbl(p.duration_nano as f64);
            let _ = ext.set(source_cols::DURATION_NANOS, row, duration);
        }
        if p.dropped_attributes_count != 0 {
            let n = i32::try_from(p.dropped_attributes_count).unwrap_or(i32::MAX);
            let _ = ext.set(source_cols::DROPPED_ATTRIBUTES, row, Cell::Int(n));
        }
    }

    /// v1.8 `comment_strindices`: meta rows for the first source, else a profile attribute.
    fn comments(
        &mut self,
        decoded: &DecodedProfile,
        dict: &Dict,
        first: bool,
        attributes: &mut Vec<(&'static str, String, AttrValue, String)>,
        path: &str,
    ) -> Result<(), ReadError> {
        if decoded.comment_strindices.is_empty() {
            return Ok(());
        }
        let comments = decoded
            .comment_strindices
            .iter()
            .enumerate()
            .map(|(c, &si)| {
                let place = || format!("{path}.comment_strindices[{c}]");
                Ok(dict.string(si, place)?.to_owned())
            })
            .collect::<Result<Vec<String>, ReadError>>()?;
        if first {
            comments
                .iter()
                .for_each(|c| self.b.add_meta(ATTR_COMMENT, c));
        } else {
            let value = string_array(&comments);
            attributes.push(("profile", ATTR_COMMENT.to_owned(), value, String::new()));
        }
        Ok(())
    }

    fn pprof_meta(&mut self, p: &proto::Profile, period_type: &str, period_unit: &str) {
        if !period_type.is_empty() || !period_unit.is_empty() {
            self.b.set_meta(meta_keys::PERIOD_TYPE, period_type);
            self.b.set_meta(meta_keys::PERIOD_UNIT, period_unit);
        }
        if p.period != 0 {
            self.b.set_meta(meta_keys::PERIOD, &p.period.to_string());
        }
        if p.duration_nano != 0 {
            self.b
                .set_meta(meta_keys::DURATION_NANOS, &p.duration_nano.to_string());
        }
        if p.time_unix_nano != 0 {
            self.b
                .set_meta(meta_keys::TIME_NANOS, &p.time_unix_nano.to_string());
        }
    }

    fn profile_attr_to_meta(&mut self, key: &str, value: &AttrValue) {
        match value {
            AttrValue::Other("array", text) => {
                for s in parse_string_array(text) {
                    self.b.add_meta(key, &s);
                }
            }
            other => self.b.add_meta(key, &other.text()),
        }
    }

    fn source_attributes(
        &mut self,
        src: SourceIndex,
        attributes: &[(&str, String, AttrValue, String)],
    ) {
        for (level, key, value, unit) in attributes {
            let level = self.b.intern(level);
            let key = self.b.intern(key);
            let text = self.b.intern(&value.text());
            let kind = self.b.intern(value.kind());
            let unit = self
                .b
                .strings()
                .intern_opt((!unit.is_empty()).then_some(unit.as_str()));
            let _ = self.b.ext_table(SOURCE_ATTRIBUTES).push_row(&[
                ("source_id", Cell::Int(src.logical_id())),
                ("level", Cell::Chr(level)),
                ("key", Cell::Chr(key)),
                ("value", Cell::Chr(text)),
                ("value_type", Cell::Chr(kind)),
                ("unit", Cell::Chr(unit)),
            ]);
        }
    }

    fn sample_labels(
        &mut self,
        dict: &Dict,
        s: &Sample,
        spath: &dyn Fn() -> String,
    ) -> Result<Vec<(String, AttrValue, String)>, ReadError> {
        let mut out = Vec::new();
        for (a, &ai) in s.attribute_indices.iter().enumerate() {
            let place = || format!("{}.attribute_indices[{a}]", spath());
            if let Some((key, value, unit)) = dict.attribute(ai, place)? {
                out.push((key.to_owned(), value, unit.to_owned()));
            }
        }
        Ok(out)
    }

    fn write_labels(&mut self, row: SampleIndex, labels: &[(String, AttrValue, String)]) {
        for (key, value, unit) in labels {
            let key = self.b.intern(key);
            let unit = self
                .b
                .strings()
                .intern_opt((!unit.is_empty()).then_some(unit.as_str()));
            let mut cells = vec![
                ("sample_id", Cell::Int(row.logical_id())),
                ("key", Cell::Chr(key)),
            ];
            match value {
                AttrValue::Str(s) => {
                    let s = self.b.intern(s);
                    cells.push(("str", Cell::Chr(s)));
                }
                AttrValue::Int(i) => {
                    cells.push(("num", Cell::Dbl(*i as f64)));
                    if !unit.is_na() {
                        cells.push(("num_unit", Cell::Chr(unit)));
                    }
                }
                other => {
                    let t = self.b.intern(&other.text());
                    let k = self.b.intern(other.kind());
                    cells.push(("str", Cell::Chr(t)));
                    cells.push(("value_type", Cell::Chr(k)));
                }
            }
            let _ = self.b.ext_table(SAMPLE_LABELS).push_row(&cells);
        }
    }
}

/// Labels, link and time origin shared by the rows of one OTLP sample.
struct SampleExtras {
    labels: Vec<(String, AttrValue, String)>,
    link: Option<(String, String)>,
    base: u64,
}

/// The value of row `r` of a sample: its `r`-th value, or 1 for timestamps-only samples.
fn row_value(s: &Sample, r: usize) -> f64 {
    if s.values.is_empty() {
        1.0
    } else {
        s.values.get(r).copied().unwrap_or(0) as f64
    }
}

/// Checks that sample `k` of every profile of a group pairs its values with its timestamps.
fn check_pairing(group: &[Sample], place: impl Fn(usize) -> String) -> Result<(), ReadError> {
    for (g, x) in group.iter().enumerate() {
        let (nv, nt) = (x.values.len(), x.timestamps_unix_nano.len());
        if nv != 0 && nt != 0 && nv != nt {
            return Err(err(
                place(g),
                format!("{nv} values but {nt} timestamps (they must pair up)"),
            ));
        }
    }
    Ok(())
}

/// The encoded samples of a scope's profiles, decoded one at a time on demand.
struct Samples<'s, 'a> {
    profiles: &'s [DecodedProfile<'a>],
    layout: Layout,
    path: &'s str,
}

impl Samples<'_, '_> {
    /// Sample `k` of profile `j`.
    fn sample(&self, j: usize, k: usize) -> Result<Sample, ReadError> {
        let place = || format!("{}.profiles[{j}].samples[{k}]", self.path);
        let bytes = self
            .profiles
            .get(j)
            .and_then(|p| p.samples.get(k))
            .ok_or_else(|| err(place(), "missing"))?;
        let decoded = match self.layout.sample {
            SampleLayout::Current => Sample::decode(*bytes),
            SampleLayout::Old => SampleV19::decode(*bytes).map(Sample::from),
        };
        decoded.map_err(|e| {
            err(
                place(),
                format!("malformed Sample ({} layout): {e}", self.layout.name()),
            )
        })
    }

    fn count(&self, j: usize) -> usize {
        self.profiles.get(j).map_or(0, |p| p.samples.len())
    }
}

/// The exclusive end of the group of profiles starting at `start`: following profiles join
/// while their headers and sample identities match the first and their sample types are new.
/// Samples are decoded pairwise; a sample that does not decode ends the group (and is reported
/// when its own group is read).
fn group_end(samples: &Samples, start: usize) -> usize {
    let profiles = samples.profiles;
    let Some(first) = profiles.get(start) else {
        return start + 1;
    };
    let type_name = |p: &proto::Profile| p.sample_type.as_ref().map_or(0, |t| t.type_strindex);
    let mut types = vec![type_name(&first.profile)];
    let mut end = start + 1;
    while let Some(p) = profiles.get(end) {
        let n = samples.count(start);
        let fits = same_header(&first.profile, &p.profile)
            && !types.contains(&type_name(&p.profile))
            && n == samples.count(end)
            && (0..n).all(
                |k| match (samples.sample(start, k), samples.sample(end, k)) {
                    (Ok(a), Ok(b)) => same_identity(&a, &b),
                    _ => false,
                },
            );
        if !fits {
            break;
        }
        types.push(type_name(&p.profile));
        end += 1;
    }
    end
}

fn key_values(
    kvs: &[KeyValue],
    dict: &Dict,
    path: &str,
) -> Result<Vec<(String, AttrValue)>, ReadError> {
    let strings = &dict.d.string_table;
    let lookup = |s: i32| {
        usize::try_from(s)
            .ok()
            .and_then(|s| strings.get(s))
            .cloned()
    };
    kvs.iter()
        .enumerate()
        .map(|(i, kv)| {
            let key = if kv.key.is_empty() && kv.key_strindex != 0 {
                dict.string(kv.key_strindex, || format!("{path}[{i}].key_strindex"))?
                    .to_owned()
            } else {
                kv.key.clone()
            };
            Ok((key, attrs::decode(kv.value.as_ref(), &lookup)))
        })
        .collect()
}

fn parse_int_array(text: &str) -> Option<Vec<i64>> {
    let j: serde_json::Value = serde_json::from_str(text).ok()?;
    let values = j.get("arrayValue")?.get("values")?.as_array()?;
    values
        .iter()
        .map(|v| {
            let iv = v.get("intValue")?;
            iv.as_str()
                .and_then(|s| s.parse().ok())
                .or_else(|| iv.as_i64())
        })
        .collect()
}

fn parse_string_array(text: &str) -> Vec<String> {
    let Ok(j) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    j.get("arrayValue")
        .and_then(|a| a.get("values"))
        .and_then(serde_json::Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| v.get("stringValue").and_then(serde_json::Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn link_ids(
    dict: &Dict,
    link: i32,
    spath: &dyn Fn() -> String,
) -> Result<Option<(String, String)>, ReadError> {
    if link == 0 {
        return Ok(None);
    }
    let table = &dict.d.link_table;
    let u = index(
        link,
        table.len(),
        || format!("{}.link_index", spath()),
        "link",
    )?;
    Ok(table.get(u).map(|l| (hex(&l.trace_id), hex(&l.span_id))))
}

/// Adds every function, mapping and location of the dictionary in table order, so that
/// entries no sample uses are kept too and a written file reads back in the same order.
fn load_tables(r: &mut Reader, dict: &mut Dict) -> Result<(), ReadError> {
    let prefix = dict.prefix;
    for i in 1..dict.d.function_table.len() {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        dict_function(r, dict, i, &|| {
            format!("{prefix}dictionary.function_table[{i}]")
        })?;
    }
    for i in 1..dict.d.mapping_table.len() {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        dict_mapping(
            r,
            dict,
            i,
            &format!("{prefix}dictionary.mapping_table[{i}]"),
        )?;
    }
    for i in 1..dict.d.location_table.len() {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        dict_location(r, dict, i, &|| {
            format!("{prefix}dictionary.location_table[{i}]")
        })?;
    }
    Ok(())
}

/// The stack node of a dictionary stack, cached.
fn dict_stack(
    r: &mut Reader,
    dict: &mut Dict,
    i: i32,
    spath: &dyn Fn() -> String,
) -> Result<Option<StackIndex>, ReadError> {
    let place = || format!("{}.stack_index", spath());
    let u = index(i, dict.d.stack_table.len().max(1), place, "stack")?;
    if let Some(Some(cached)) = dict.stacks.get(u) {
        return Ok(*cached);
    }
    let d = dict.d;
    let prefix = dict.prefix;
    let Some(stack) = d.stack_table.get(u) else {
        return Ok(None);
    };
    let mut frames = r.b.take_scratch();
    for (n, &li) in stack.location_indices.iter().enumerate() {
        let lplace = || format!("{prefix}dictionary.stack_table[{u}].location_indices[{n}]");
        let (start, len) = dict_location(r, dict, li, &lplace)?;
        frames.extend(dict.flat.get(start..start + len).unwrap_or(&[]));
        if frames.len() > r.options.limits.max_stack_depth {
            return Err(err(
                lplace(),
                format!(
                    "stack deeper than {} frames",
                    r.options.limits.max_stack_depth
                ),
            ));
        }
    }
    let node = r.b.stack_leaf_first(&frames);
    r.b.return_scratch(frames);
    if let Some(slot) = dict.stacks.get_mut(u) {
        *slot = Some(node);
    }
    Ok(node)
}

/// The frames of a dictionary location (one per line, innermost first), added when new.
fn dict_location(
    r: &mut Reader,
    dict: &mut Dict,
    i: i32,
    place: &dyn Fn() -> String,
) -> Result<(usize, usize), ReadError> {
    let u = index(i, dict.d.location_table.len().max(1), place, "location")?;
    if let Some(Some(range)) = dict.locations.get(u) {
        return Ok(*range);
    }
    let d = dict.d;
    let default = proto::Location::default();
    let loc = d.location_table.get(u).unwrap_or(&default);
    let lpath = format!("{}dictionary.location_table[{u}]", dict.prefix);
    let mapping_id = if loc.mapping_index == 0 {
        None
    } else {
        Some(dict_mapping(r, dict, loc.mapping_index, &lpath)?)
    };
    let mut frame_type = None;
    let mut is_folded = None;
    for (a, &ai) in loc.attribute_indices.iter().enumerate() {
        let apath = || format!("{lpath}.attribute_indices[{a}]");
        match dict.attribute(ai, apath)? {
            Some((ATTR_FRAME_TYPE, AttrValue::Str(s), _)) => frame_type = Some(s),
            Some((ATTR_IS_FOLDED, AttrValue::Bool(b), _)) => is_folded = Some(b),
            Some((key, _, _)) => r.w.add(NAME, "location_attr", || {
                format!("{}: location attribute {key} is not kept", apath())
            }),
            None => {}
        }
    }
    let start = dict.flat.len();
    let n_lines = loc.lines.len().max(1);
    let location_id = r.next_location_id;
    r.next_location_id += 1;
    for k in 0..n_lines {
        let line = loc.lines.get(k);
        let function = match line {
            Some(l) if l.function_index != 0 => dict_function(r, dict, l.function_index, &|| {
                format!("{lpath}.lines[{k}].function_index")
            })?,
            _ => None,
        };
        let line_no = line.map_or(0, |l| clamp_line(r, l.line, &lpath));
        let li = r.b.add_location(function, line_no);
        if loc.address != 0 {
            r.b.set_location_ext(li, location_cols::ADDRESS, Cell::U64(Some(loc.address)));
        }
        if let Some(m) = mapping_id {
            r.b.set_location_ext(li, location_cols::MAPPING_ID, Cell::U64(Some(m)));
        }
        if let Some(c) = line.map(|l| l.column).filter(|&c| c != 0) {
            let c = i32::try_from(c).unwrap_or(INT_NA);
            r.b.set_location_ext(li, location_cols::COLUMN, Cell::Int(c));
        }
        if n_lines > 1 {
            let k = i32::try_from(k).unwrap_or(i32::MAX);
            r.b.set_location_ext(
                li,
                location_cols::PPROF_LOCATION_ID,
                Cell::U64(Some(location_id)),
            );
            r.b.set_location_ext(li, location_cols::PPROF_LINE_INDEX, Cell::Int(k));
        }
        if let Some(ft) = &frame_type {
            let id = r.b.intern(ft);
            r.b.set_location_ext(li, location_cols::FRAME_TYPE, Cell::Chr(id));
        }
        if let Some(f) = is_folded {
            r.b.set_location_ext(li, location_cols::IS_FOLDED, Cell::Lgl(Some(f)));
        }
        dict.flat.push(li);
    }
    let range = (start, n_lines);
    if let Some(slot) = dict.locations.get_mut(u) {
        *slot = Some(range);
    }
    Ok(range)
}

fn clamp_line(r: &mut Reader, line: i64, lpath: &str) -> i32 {
    i32::try_from(line).unwrap_or_else(|_| {
        r.w.add(NAME, "line_range", || {
            format!("{lpath}: line {line} does not fit 32 bits; kept as NA")
        });
        INT_NA
    })
}

fn dict_function(
    r: &mut Reader,
    dict: &mut Dict,
    i: i32,
    place: &dyn Fn() -> String,
) -> Result<Option<FunctionIndex>, ReadError> {
    let u = index(i, dict.d.function_table.len(), place, "function")?;
    if let Some(Some(f)) = dict.functions.get(u) {
        return Ok(*f);
    }
    let d = dict.d;
    let Some(f) = d.function_table.get(u) else {
        return Ok(None);
    };
    let fpath = format!("{}dictionary.function_table[{u}]", dict.prefix);
    let name = dict.string(f.name_strindex, || format!("{fpath}.name_strindex"))?;
    let system_name = dict.string(f.system_name_strindex, || {
        format!("{fpath}.system_name_strindex")
    })?;
    let filename = dict.string(f.filename_strindex, || format!("{fpath}.filename_strindex"))?;
    let start_line = clamp_line(r, f.start_line, &fpath);
    // The v2 tables have no empty names: as the pprof reader does, an empty name is shown as
    // `<unknown>` and an empty system name takes the name; flags remember both for writers.
    let (empty_name, empty_system_name) = (name.is_empty(), system_name.is_empty());
    let name = if empty_name {
        function_cols::UNKNOWN
    } else {
        name
    };
    let system_name = if empty_system_name { name } else { system_name };
    let filename =
        r.b.strings()
            .intern_opt((!filename.is_empty()).then_some(filename));
    let key = FunctionKey {
        name: r.b.intern(name),
        system_name: r.b.intern(system_name),
        filename,
        start_line,
    };
    let row = r.b.add_function(key);
    for (flag, column) in [
        (empty_name, function_cols::EMPTY_NAME),
        (empty_system_name, function_cols::EMPTY_SYSTEM_NAME),
    ] {
        if flag {
            let _ =
                r.b.functions_mut()
                    .ext
                    .set(column, row.idx(), Cell::Lgl(Some(true)));
        }
    }
    let fi = Some(row);
    if let Some(slot) = dict.functions.get_mut(u) {
        *slot = Some(fi);
    }
    Ok(fi)
}

/// The `mappings.mapping_id` of a dictionary mapping, adding its row when new.
fn dict_mapping(r: &mut Reader, dict: &mut Dict, i: i32, lpath: &str) -> Result<u64, ReadError> {
    let place = || format!("{lpath}.mapping_index");
    let u = index(i, dict.d.mapping_table.len(), place, "mapping")?;
    if let Some(Some(id)) = dict.mappings.get(u) {
        return Ok(*id);
    }
    let d = dict.d;
    let default = proto::Mapping::default();
    let m = d.mapping_table.get(u).unwrap_or(&default);
    let mpath = format!("{}dictionary.mapping_table[{u}]", dict.prefix);
    let filename = dict.string(m.filename_strindex, || format!("{mpath}.filename_strindex"))?;
    let filename =
        r.b.strings()
            .intern_opt((!filename.is_empty()).then_some(filename));
    let id = r.b.profile().ext_table(MAPPINGS).map_or(0, |t| t.len()) as u64 + 1;
    let mut extra: Vec<(String, Cell)> = Vec::new();
    for (a, &ai) in m.attribute_indices.iter().enumerate() {
        let apath = || format!("{mpath}.attribute_indices[{a}]");
        let Some((key, value, _unit)) = dict.attribute(ai, apath)? else {
            continue;
        };
        let column = if key == ATTR_BUILD_ID {
            "build_id".to_owned()
        } else if let Some(flag) = key.strip_prefix(ATTR_MAPPING_HAS) {
            flag.to_owned()
        } else {
            key.to_owned()
        };
        let cell = match value {
            AttrValue::Str(s) => Cell::Chr(r.b.intern(&s)),
            AttrValue::Int(v) => Cell::Dbl(v as f64),
            AttrValue::Double(v) => Cell::Dbl(v),
            AttrValue::Bool(v) => Cell::Lgl(Some(v)),
            AttrValue::Other(kind, _) => {
                r.w.add(NAME, "mapping_attr", || {
                    format!(
                        "{}: mapping attribute {key} of kind {kind} is not kept",
                        apath()
                    )
                });
                continue;
            }
        };
        extra.push((column, cell));
    }
    let mut cells: Vec<(&str, Cell)> = vec![
        ("mapping_id", Cell::U64(Some(id))),
        ("memory_start", Cell::U64(Some(m.memory_start))),
        ("memory_limit", Cell::U64(Some(m.memory_limit))),
        ("file_offset", Cell::U64(Some(m.file_offset))),
        ("filename", Cell::Chr(filename)),
    ];
    cells.extend(extra.iter().map(|(k, c)| (k.as_str(), *c)));
    if let Err(kind) = r.b.ext_table(MAPPINGS).push_row(&cells) {
        r.w.add(NAME, "mapping_kind", || {
            format!("{mpath}: a mapping attribute clashes with an earlier {} column; row kept partially", kind.name())
        });
    }
    if let Some(slot) = dict.mappings.get_mut(u) {
        *slot = Some(id);
    }
    Ok(id)
}

/// A string-array attribute value.
fn string_array(values: &[String]) -> AttrValue {
    let array = proto::AnyValue {
        value: Some(proto::Value::ArrayValue(proto::ArrayValue {
            values: values
                .iter()
                .map(|v| proto::AnyValue {
                    value: Some(proto::Value::StringValue(v.clone())),
                })
                .collect(),
        })),
    };
    attrs::decode(Some(&array), &|_| None)
}
