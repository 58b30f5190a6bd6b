//! OTLP/JSON (`docs/specification.md` "JSON Protobuf Encoding", docs/formats/otlp.md): the proto3
//! JSON mapping with lowerCamelCase keys, 64-bit integers as strings or numbers, `traceId`,
//! `spanId` and `profileId` as hex, other bytes as base64, unknown keys ignored. One or more
//! JSON objects (the collector's file exporter writes one per line).
//!
//! Each object is converted to the binary `ProfilesData` in the current layout (JSON names
//! fields, so it has no layout question) and read by the binary reader. Nesting of attribute
//! values is bounded by serde_json's recursion limit (128).

use prost::Message;
use serde::de::{self, Deserializer};
use serde::Deserialize;
use serde_json::Value as Json;

use super::proto::{self, AnyValue, ArrayValue, KeyValue, KeyValueList, Value};
use super::{unhex, NAME};
use crate::formats::{Place, ReadError};

/// An integer written as a JSON number or a decimal string.
#[derive(Clone, Copy, Debug, Default)]
struct Int(i128);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Json::deserialize(d)? {
            Json::Number(n) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .map(Int)
                .ok_or_else(|| de::Error::custom(format!("{n} is not an integer"))),
            Json::String(s) => s
                .parse()
                .map(Int)
                .map_err(|_| de::Error::custom(format!("{s:?} is not an integer"))),
            Json::Null => Ok(Int(0)),
            other => Err(de::Error::custom(format!("{other} is not an integer"))),
        }
    }
}

impl Int {
    fn i32(self) -> i32 {
        i32::try_from(self.0).unwrap_or(i32::MIN)
    }
    fn i64(self) -> i64 {
        i64::try_from(self.0).unwrap_or(i64::MIN)
    }
    fn u64(self) -> u64 {
        u64::try_from(self.0).unwrap_or(0)
    }
    fn u32(self) -> u32 {
        u32::try_from(self.0).unwrap_or(0)
    }
}

fn i32s(v: &[Int]) -> Vec<i32> {
    v.iter().map(|i| i.i32()).collect()
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Data {
    resource_profiles: Vec<ResourceProfiles>,
    dictionary: Option<Dictionary>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ResourceProfiles {
    resource: Option<Resource>,
    scope_profiles: Vec<ScopeProfiles>,
    schema_url: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Resource {
    attributes: Vec<Json>,
    dropped_attributes_count: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ScopeProfiles {
    scope: Option<Scope>,
    profiles: Vec<Profile>,
    schema_url: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Scope {
    name: String,
    version: String,
    attributes: Vec<Json>,
    dropped_attributes_count: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ValueType {
    type_strindex: Int,
    unit_strindex: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Profile {
    sample_type: Option<ValueType>,
    samples: Vec<Sample>,
    time_unix_nano: Int,
    duration_nano: Int,
    period_type: Option<ValueType>,
    period: Int,
    profile_id: String,
    dropped_attributes_count: Int,
    original_payload_format: String,
    original_payload: String,
    attribute_indices: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Sample {
    stack_index: Int,
    attribute_indices: Vec<Int>,
    link_index: Int,
    values: Vec<Int>,
    timestamps_unix_nano: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Dictionary {
    mapping_table: Vec<Mapping>,
    location_table: Vec<Location>,
    function_table: Vec<Function>,
    link_table: Vec<Link>,
    string_table: Vec<String>,
    attribute_table: Vec<AttributeJ>,
    stack_table: Vec<Stack>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Mapping {
    memory_start: Int,
    memory_limit: Int,
    file_offset: Int,
    filename_strindex: Int,
    attribute_indices: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Location {
    mapping_index: Int,
    address: Int,
    lines: Vec<Line>,
    attribute_indices: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Line {
    function_index: Int,
    line: Int,
    column: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Function {
    name_strindex: Int,
    system_name_strindex: Int,
    filename_strindex: Int,
    start_line: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Link {
    trace_id: String,
    span_id: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AttributeJ {
    key_strindex: Int,
    value: Option<Json>,
    unit_strindex: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Stack {
    location_indices: Vec<Int>,
}

/// Every JSON object of `bytes` as a binary `ProfilesData` message.
pub(super) fn to_binary(bytes: &[u8]) -> Result<Vec<Vec<u8>>, ReadError> {
    let mut out = Vec::new();
    let stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Data>();
    for (i, item) in stream.enumerate() {
        let data = item.map_err(|e| {
            ReadError::new(
                NAME,
                Place::Line(e.line()),
                format!(
                    "invalid OTLP/JSON (object {i}): {}",
                    crate::formats::json_scan::json_problem_at(&e)
                ),
            )
        })?;
        out.push(convert(data, i)?.encode_to_vec());
    }
    Ok(out)
}

fn bad(i: usize, what: &str) -> ReadError {
    ReadError::new(NAME, Place::Path(format!("object {i}")), what.to_owned())
}

fn hex_field(text: &str, i: usize, what: &str) -> Result<Vec<u8>, ReadError> {
    unhex(text).ok_or_else(|| bad(i, &format!("{what} is not hex: {text:?}")))
}

fn convert(d: Data, i: usize) -> Result<proto::ProfilesData, ReadError> {
    let dict = d.dictionary.unwrap_or_default();
    let dictionary = proto::ProfilesDictionary {
        mapping_table: dict
            .mapping_table
            .iter()
            .map(|m| proto::Mapping {
                memory_start: m.memory_start.u64(),
                memory_limit: m.memory_limit.u64(),
                file_offset: m.file_offset.u64(),
                filename_strindex: m.filename_strindex.i32(),
                attribute_indices: i32s(&m.attribute_indices),
            })
            .collect(),
        location_table: dict
            .location_table
            .iter()
            .map(|l| proto::Location {
                mapping_index: l.mapping_index.i32(),
                address: l.address.u64(),
                lines: l
                    .lines
                    .iter()
                    .map(|x| proto::Line {
                        function_index: x.function_index.i32(),
                        line: x.line.i64(),
                        column: x.column.i64(),
                    })
                    .collect(),
                attribute_indices: i32s(&l.attribute_indices),
            })
            .collect(),
        function_table: dict
            .function_table
            .iter()
            .map(|f| proto::Function {
                name_strindex: f.name_strindex.i32(),
                system_name_strindex: f.system_name_strindex.i32(),
                filename_strindex: f.filename_strindex.i32(),
                start_line: f.start_line.i64(),
            })
            .collect(),
        link_table: dict
            .link_table
            .iter()
            .map(|l| {
                Ok(proto::Link {
                    trace_id: hex_field(&l.trace_id, i, "traceId")?,
                    span_id: hex_field(&l.span_id, i, "spanId")?,
                })
            })
            .collect::<Result<_, ReadError>>()?,
        string_table: dict.string_table,
        attribute_table: dict
            .attribute_table
            .iter()
            .map(|a| {
                Ok(proto::KeyValueAndUnit {
                    key_strindex: a.key_strindex.i32(),
                    value: a.value.as_ref().map(|v| any_value(v, i)).transpose()?,
                    unit_strindex: a.unit_strindex.i32(),
                })
            })
            .collect::<Result<_, ReadError>>()?,
        stack_table: dict
            .stack_table
            .iter()
            .map(|s| proto::Stack {
                location_indices: i32s(&s.location_indices),
            })
            .collect(),
    };
    let resource_profiles = d
        .resource_profiles
        .into_iter()
        .map(|rp| resource_profiles(rp, i))
        .collect::<Result<_, _>>()?;
    Ok(proto::ProfilesData {
        resource_profiles,
        dictionary: Some(dictionary),
    })
}

fn resource_profiles(rp: ResourceProfiles, i: usize) -> Result<proto::ResourceProfiles, ReadError> {
    let resource = match rp.resource {
        Some(r) => Some(proto::Resource {
            attributes: key_values(&r.attributes, i)?,
            dropped_attributes_count: r.dropped_attributes_count.u32(),
            entity_refs: Vec::new(),
        }),
        None => None,
    };
    let mut scope_profiles = Vec::new();
    for sp in rp.scope_profiles {
        let scope = match sp.scope {
            Some(s) => Some(proto::InstrumentationScope {
                name: s.name,
                version: s.version,
                attributes: key_values(&s.attributes, i)?,
                dropped_attributes_count: s.dropped_attributes_count.u32(),
            }),
            None => None,
        };
        let profiles = sp
            .profiles
            .iter()
            .map(|p| profile(p, i).map(|p| p.encode_to_vec()))
            .collect::<Result<_, _>>()?;
        scope_profiles.push(proto::ScopeProfiles {
            scope,
            profiles,
            schema_url: sp.schema_url,
        });
    }
    Ok(proto::ResourceProfiles {
        resource,
        scope_profiles,
        schema_url: rp.schema_url,
    })
}

fn value_type(v: &Option<ValueType>) -> Option<proto::ValueType> {
    v.as_ref().map(|v| proto::ValueType {
        type_strindex: v.type_strindex.i32(),
        unit_strindex: v.unit_strindex.i32(),
    })
}

fn profile(p: &Profile, i: usize) -> Result<proto::Profile, ReadError> {
    Ok(proto::Profile {
        sample_type: value_type(&p.sample_type),
        samples: p
            .samples
            .iter()
            .map(|s| {
                proto::Sample {
                    stack_index: s.stack_index.i32(),
                    attribute_indices: i32s(&s.attribute_indices),
                    link_index: s.link_index.i32(),
                    values: s.values.iter().map(|v| v.i64()).collect(),
                    timestamps_unix_nano: s.timestamps_unix_nano.iter().map(|t| t.u64()).collect(),
                }
                .encode_to_vec()
            })
            .collect(),
        time_unix_nano: p.time_unix_nano.u64(),
        duration_nano: p.duration_nano.u64(),
        period_type: value_type(&p.period_type),
        period: p.period.i64(),
        profile_id: hex_field(&p.profile_id, i, "profileId")?,
        dropped_attributes_count: p.dropped_attributes_count.u32(),
        original_payload_format: p.original_payload_format.clone(),
        original_payload: base64(&p.original_payload)
            .ok_or_else(|| bad(i, "originalPayload is not base64"))?,
        attribute_indices: i32s(&p.attribute_indices),
    })
}

fn key_values(kvs: &[Json], i: usize) -> Result<Vec<KeyValue>, ReadError> {
    kvs.iter()
        .map(|kv| {
            Ok(KeyValue {
                key: kv
                    .get("key")
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_owned(),
                value: kv.get("value").map(|v| any_value(v, i)).transpose()?,
                key_strindex: 0,
            })
        })
        .collect()
}

/// An `AnyValue` from its proto3 JSON object.
fn any_value(v: &Json, i: usize) -> Result<AnyValue, ReadError> {
    let Some((key, inner)) = v.as_object().and_then(|o| o.iter().next()) else {
        return Ok(AnyValue { value: None });
    };
    let int = |x: &Json| {
        Int::deserialize(x.clone()).map_err(|e| bad(i, &format!("attribute {key}: {e}")))
    };
    let value = match key.as_str() {
        "stringValue" => Value::StringValue(inner.as_str().unwrap_or("").to_owned()),
        "boolValue" => Value::BoolValue(inner.as_bool().unwrap_or(false)),
        "intValue" => Value::IntValue(int(inner)?.i64()),
        "doubleValue" => Value::DoubleValue(match inner {
            Json::String(s) => s.parse().unwrap_or(f64::NAN),
            other => other.as_f64().unwrap_or(0.0),
        }),
        "bytesValue" => Value::BytesValue(
            base64(inner.as_str().unwrap_or(""))
                .ok_or_else(|| bad(i, "bytesValue is not base64"))?,
        ),
        "arrayValue" => Value::ArrayValue(ArrayValue {
            values: list(inner)
                .iter()
                .map(|x| any_value(x, i))
                .collect::<Result<_, _>>()?,
        }),
        "kvlistValue" => Value::KvlistValue(KeyValueList {
            values: key_values(&list(inner), i)?,
        }),
        "stringValueStrindex" => Value::StringValueStrindex(int(inner)?.i32()),
        _ => return Ok(AnyValue { value: None }),
    };
    Ok(AnyValue { value: Some(value) })
}

fn list(v: &Json) -> Vec<Json> {
    v.get("values")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Decodes standard or URL-safe base64 (padding optional); `None` when malformed.
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_decodes() {
        assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64("").unwrap(), b"");
        assert!(base64("a*b").is_none());
    }
}
