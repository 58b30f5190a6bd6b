//! The OTLP reader: decoded messages → [`ProfileBuilder`]. See the module docs of
//! [`super`] for the mapping.
//!
//! One message is read as a sequence of named steps: its layout is decided ([`layout`]), every
//! dictionary entry is added in table order ([`dictionary`]), then each resource's and scope's
//! attributes are collected (here), and each scope's profiles are grouped, one source per group
//! ([`sources`]), and their samples added ([`samples`]).

mod dictionary;
mod samples;
mod sources;

use super::attrs::{self, AttrValue};
use super::layout::{self, DecodedProfile, Layout};
use super::proto::{self, KeyValue, ProfilesData, ProfilesDictionary};
use super::*;
use crate::formats::read_common::finish_parsed;
use crate::formats::{Format, Place, Warnings};
use crate::model::{ProfileBuilder, ValueTypeIndex, META_DEFAULT_TYPE};
use dictionary::{load_tables, Dict};
use samples::{group_end, Samples};

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
    finish_parsed(r.b, Format::Otlp, r.w)
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

/// An error at a path of the message (`resource_profiles[0].scope_profiles[1]…`).
fn err(place: String, message: impl Into<String>) -> ReadError {
    ReadError::new(NAME, Place::Path(place), message)
}

/// Checks a dictionary reference `i` against its table's `len`.
fn index(i: i32, len: usize, place: impl Fn() -> String, what: &str) -> Result<usize, ReadError> {
    usize::try_from(i).ok().filter(|&u| u < len).ok_or_else(|| {
        err(
            place(),
            format!("{what} index {i} out of range (table has {len})"),
        )
    })
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

    pub(super) fn value_type(
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
}

/// Resource or scope attributes (inline keys, or v1.8+ `key_strindex`).
fn key_values(
    kvs: &[KeyValue],
    dict: &Dict,
    path: &str,
) -> Result<Vec<(String, AttrValue)>, ReadError> {
    let lookup = |s: i32| dict.string_at(s);
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

/// The integers of an array attribute's text (`None` when it holds anything else).
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
