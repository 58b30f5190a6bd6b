//! Writing OTLP/JSON (`--to otlp-json`, `.otlp.json`): the binary writer's `ProfilesData`
//! rendered with the proto3 JSON mapping as OTLP specifies it ("JSON Protobuf Encoding"):
//! lowerCamelCase keys, 64-bit integers as decimal strings, `traceId`/`spanId`/`profileId` as
//! lowercase hex, other bytes as base64, non-finite doubles as `"NaN"`/`"Infinity"`; fields at
//! their default value are left out. One JSON object and a newline (the collector's file
//! exporter writes one object per line). The nested `Profile` and `Sample` messages are decoded
//! in the current layout the binary writer uses.

use prost::Message;
use serde_json::{Map, Value as Json};

use super::proto::{self, AnyValue, KeyValue, Value};
use super::{hex, NAME};
use crate::formats::{WriteError, WriteOptions, Written};
use crate::model::Profile;

/// Writes `profile` as OTLP/JSON.
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let binary = super::write::write(profile, options)?;
    let data = proto::ProfilesData::decode(binary.bytes.as_slice()).map_err(|e| internal(&e))?;
    let json = profiles_data(&data)?;
    let mut bytes = serde_json::to_vec(&json).map_err(|e| internal(&e))?;
    bytes.push(b'\n');
    Ok(Written {
        bytes,
        warnings: binary.warnings,
    })
}

fn internal(e: &dyn std::fmt::Display) -> WriteError {
    WriteError::new(
        NAME,
        format!("the binary message could not be rendered as JSON: {e}"),
    )
}

/// A JSON object that leaves out fields at their default value.
#[derive(Default)]
struct Obj(Map<String, Json>);

impl Obj {
    fn put(mut self, key: &str, value: Json) -> Self {
        let default = match &value {
            Json::Null => true,
            Json::String(s) => s.is_empty(),
            Json::Array(a) => a.is_empty(),
            Json::Number(n) => n.as_f64() == Some(0.0),
            Json::Bool(b) => !b,
            Json::Object(_) => false,
        };
        if !default {
            self.0.insert(key.to_owned(), value);
        }
        self
    }

    fn done(self) -> Json {
        Json::Object(self.0)
    }
}

/// A 64-bit integer as the proto3 JSON mapping writes it.
fn int64(v: impl ToString) -> Json {
    let s = v.to_string();
    if s == "0" {
        Json::Null
    } else {
        Json::String(s)
    }
}

fn ints<T: Copy + Into<Json>>(v: &[T]) -> Json {
    Json::Array(v.iter().map(|&x| x.into()).collect())
}

fn list<T>(items: &[T], f: impl Fn(&T) -> Json) -> Json {
    Json::Array(items.iter().map(f).collect())
}

fn profiles_data(d: &proto::ProfilesData) -> Result<Json, WriteError> {
    let resources = d
        .resource_profiles
        .iter()
        .map(resource_profiles)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Obj::default()
        .put("resourceProfiles", Json::Array(resources))
        .put(
            "dictionary",
            d.dictionary.as_ref().map_or(Json::Null, dictionary),
        )
        .done())
}

fn resource_profiles(rp: &proto::ResourceProfiles) -> Result<Json, WriteError> {
    let scopes = rp
        .scope_profiles
        .iter()
        .map(scope_profiles)
        .collect::<Result<Vec<_>, _>>()?;
    let resource = rp.resource.as_ref().map_or(Json::Null, |r| {
        Obj::default()
            .put("attributes", list(&r.attributes, key_value))
            .put("droppedAttributesCount", r.dropped_attributes_count.into())
            .done()
    });
    Ok(Obj::default()
        .put("resource", resource)
        .put("scopeProfiles", Json::Array(scopes))
        .put("schemaUrl", rp.schema_url.clone().into())
        .done())
}

fn scope_profiles(sp: &proto::ScopeProfiles) -> Result<Json, WriteError> {
    let profiles = sp
        .profiles
        .iter()
        .map(|bytes| proto::Profile::decode(bytes.as_slice()).map_err(|e| internal(&e)))
        .map(|p| p.and_then(|p| profile(&p)))
        .collect::<Result<Vec<_>, _>>()?;
    let scope = sp.scope.as_ref().map_or(Json::Null, |s| {
        Obj::default()
            .put("name", s.name.clone().into())
            .put("version", s.version.clone().into())
            .put("attributes", list(&s.attributes, key_value))
            .put("droppedAttributesCount", s.dropped_attributes_count.into())
            .done()
    });
    Ok(Obj::default()
        .put("scope", scope)
        .put("profiles", Json::Array(profiles))
        .put("schemaUrl", sp.schema_url.clone().into())
        .done())
}

fn value_type(v: Option<&proto::ValueType>) -> Json {
    v.map_or(Json::Null, |v| {
        Obj::default()
            .put("typeStrindex", v.type_strindex.into())
            .put("unitStrindex", v.unit_strindex.into())
            .done()
    })
}

fn profile(p: &proto::Profile) -> Result<Json, WriteError> {
    let samples = p
        .samples
        .iter()
        .map(|bytes| {
            let s = proto::Sample::decode(bytes.as_slice()).map_err(|e| internal(&e))?;
            Ok(Obj::default()
                .put("stackIndex", s.stack_index.into())
                .put("attributeIndices", ints(&s.attribute_indices))
                .put("linkIndex", s.link_index.into())
                .put("values", list(&s.values, |v| v.to_string().into()))
                .put(
                    "timestampsUnixNano",
                    list(&s.timestamps_unix_nano, |t| t.to_string().into()),
                )
                .done())
        })
        .collect::<Result<Vec<_>, WriteError>>()?;
    Ok(Obj::default()
        .put("sampleType", value_type(p.sample_type.as_ref()))
        .put("samples", Json::Array(samples))
        .put("timeUnixNano", int64(p.time_unix_nano))
        .put("durationNano", int64(p.duration_nano))
        .put("periodType", value_type(p.period_type.as_ref()))
        .put("period", int64(p.period))
        .put("profileId", hex(&p.profile_id).into())
        .put("droppedAttributesCount", p.dropped_attributes_count.into())
        .put(
            "originalPayloadFormat",
            p.original_payload_format.clone().into(),
        )
        .put("originalPayload", base64(&p.original_payload).into())
        .put("attributeIndices", ints(&p.attribute_indices))
        .done())
}

fn dictionary(d: &proto::ProfilesDictionary) -> Json {
    Obj::default()
        .put("mappingTable", list(&d.mapping_table, mapping))
        .put("locationTable", list(&d.location_table, location))
        .put("functionTable", list(&d.function_table, function))
        .put(
            "linkTable",
            list(&d.link_table, |l| {
                Obj::default()
                    .put("traceId", hex(&l.trace_id).into())
                    .put("spanId", hex(&l.span_id).into())
                    .done()
            }),
        )
        .put("stringTable", list(&d.string_table, |s| s.clone().into()))
        .put(
            "attributeTable",
            list(&d.attribute_table, |a| {
                Obj::default()
                    .put("keyStrindex", a.key_strindex.into())
                    .put("value", a.value.as_ref().map_or(Json::Null, any_value))
                    .put("unitStrindex", a.unit_strindex.into())
                    .done()
            }),
        )
        .put(
            "stackTable",
            list(&d.stack_table, |s| {
                Obj::default()
                    .put("locationIndices", ints(&s.location_indices))
                    .done()
            }),
        )
        .done()
}

fn mapping(m: &proto::Mapping) -> Json {
    Obj::default()
        .put("memoryStart", int64(m.memory_start))
        .put("memoryLimit", int64(m.memory_limit))
        .put("fileOffset", int64(m.file_offset))
        .put("filenameStrindex", m.filename_strindex.into())
        .put("attributeIndices", ints(&m.attribute_indices))
        .done()
}

fn location(l: &proto::Location) -> Json {
    Obj::default()
        .put("mappingIndex", l.mapping_index.into())
        .put("address", int64(l.address))
        .put(
            "lines",
            list(&l.lines, |x| {
                Obj::default()
                    .put("functionIndex", x.function_index.into())
                    .put("line", int64(x.line))
                    .put("column", int64(x.column))
                    .done()
            }),
        )
        .put("attributeIndices", ints(&l.attribute_indices))
        .done()
}

fn function(f: &proto::Function) -> Json {
    Obj::default()
        .put("nameStrindex", f.name_strindex.into())
        .put("systemNameStrindex", f.system_name_strindex.into())
        .put("filenameStrindex", f.filename_strindex.into())
        .put("startLine", int64(f.start_line))
        .done()
}

fn key_value(kv: &KeyValue) -> Json {
    let mut o = Map::new();
    o.insert("key".to_owned(), kv.key.clone().into());
    if let Some(v) = &kv.value {
        o.insert("value".to_owned(), any_value(v));
    }
    Json::Object(o)
}

/// An `AnyValue`: one key naming the kind (`{}` when it has none).
fn any_value(v: &AnyValue) -> Json {
    let (key, value) = match &v.value {
        None => return Json::Object(Map::new()),
        Some(Value::StringValue(s)) => ("stringValue", s.clone().into()),
        Some(Value::BoolValue(b)) => ("boolValue", (*b).into()),
        Some(Value::IntValue(i)) => ("intValue", i.to_string().into()),
        Some(Value::DoubleValue(d)) => ("doubleValue", double(*d)),
        Some(Value::ArrayValue(a)) => (
            "arrayValue",
            Obj::default()
                .put("values", list(&a.values, any_value))
                .done(),
        ),
        Some(Value::KvlistValue(l)) => (
            "kvlistValue",
            Obj::default()
                .put("values", list(&l.values, key_value))
                .done(),
        ),
        Some(Value::BytesValue(b)) => ("bytesValue", base64(b).into()),
        Some(Value::StringValueStrindex(i)) => ("stringValueStrindex", (*i).into()),
    };
    let mut o = Map::new();
    o.insert(key.to_owned(), value);
    Json::Object(o)
}

/// A double: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
fn double(d: f64) -> Json {
    match serde_json::Number::from_f64(d) {
        Some(n) => Json::Number(n),
        None if d.is_nan() => "NaN".into(),
        None if d > 0.0 => "Infinity".into(),
        None => "-Infinity".into(),
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_encodes() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hell"), "aGVsbA==");
        assert_eq!(base64(b"hel"), "aGVs");
        assert_eq!(base64(b""), "");
    }
}
