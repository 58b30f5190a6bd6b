//! Attribute values: OTLP `AnyValue` to proftab cells and back.
//!
//! Strings and integers map to pprof-style label cells (`str`, `num`); every other kind is kept
//! as text with a `value_type` naming the kind: `bool` (`true`/`false`), `double` (shortest
//! round-trip decimal), `bytes` (hex), `array` and `kvlist` (OTLP/JSON of the value). Nesting is
//! bounded by prost's decode recursion limit and by [`MAX_VALUE_DEPTH`] here.

use serde_json::{json, Value as Json};

use super::proto::{AnyValue, ArrayValue, KeyValue, KeyValueList, Value};
use super::{hex, unhex};

/// Deepest array/kvlist nesting converted to text; deeper values become JSON `null`.
pub const MAX_VALUE_DEPTH: usize = 64;

/// A decoded attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// A string (inline or from the string table).
    Str(String),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A double.
    Double(f64),
    /// Bytes, arrays, key-value lists and unset values, as `(kind, text)`.
    Other(&'static str, String),
}

impl AttrValue {
    /// The kind name written to `value_type` columns.
    pub fn kind(&self) -> &'static str {
        match self {
            AttrValue::Str(_) => "string",
            AttrValue::Int(_) => "int",
            AttrValue::Bool(_) => "bool",
            AttrValue::Double(_) => "double",
            AttrValue::Other(k, _) => k,
        }
    }

    /// The value as text.
    pub fn text(&self) -> String {
        match self {
            AttrValue::Str(s) => s.clone(),
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Bool(b) => b.to_string(),
            AttrValue::Double(d) => d.to_string(),
            AttrValue::Other(_, t) => t.clone(),
        }
    }

    /// Parses text written by [`AttrValue::text`] for `kind` (`None` for an unknown kind or bad
    /// text).
    pub fn from_text(kind: &str, text: &str) -> Option<AttrValue> {
        Some(match kind {
            "string" => AttrValue::Str(text.to_owned()),
            "int" => AttrValue::Int(text.parse().ok()?),
            "bool" => AttrValue::Bool(text.parse().ok()?),
            "double" => AttrValue::Double(text.parse().ok()?),
            "bytes" => AttrValue::Other("bytes", text.to_owned()),
            "array" => AttrValue::Other("array", text.to_owned()),
            "kvlist" => AttrValue::Other("kvlist", text.to_owned()),
            "empty" => AttrValue::Other("empty", String::new()),
            _ => return None,
        })
    }
}

/// Decodes `v`, resolving string-table references through `string`.
pub fn decode(v: Option<&AnyValue>, string: &dyn Fn(i32) -> Option<String>) -> AttrValue {
    match v.and_then(|v| v.value.as_ref()) {
        None => AttrValue::Other("empty", String::new()),
        Some(Value::StringValue(s)) => AttrValue::Str(s.clone()),
        Some(Value::StringValueStrindex(i)) => AttrValue::Str(string(*i).unwrap_or_default()),
        Some(Value::IntValue(i)) => AttrValue::Int(*i),
        Some(Value::BoolValue(b)) => AttrValue::Bool(*b),
        Some(Value::DoubleValue(d)) => AttrValue::Double(*d),
        Some(Value::BytesValue(b)) => AttrValue::Other("bytes", hex(b)),
        Some(other @ Value::ArrayValue(_)) => {
            AttrValue::Other("array", to_json(other, string, 0).to_string())
        }
        Some(other @ Value::KvlistValue(_)) => {
            AttrValue::Other("kvlist", to_json(other, string, 0).to_string())
        }
    }
}

/// OTLP/JSON of a value (lowerCamelCase oneof names, 64-bit integers as strings).
fn to_json(v: &Value, string: &dyn Fn(i32) -> Option<String>, depth: usize) -> Json {
    if depth > MAX_VALUE_DEPTH {
        return Json::Null;
    }
    let any = |a: &AnyValue| {
        a.value
            .as_ref()
            .map_or(json!({}), |v| to_json(v, string, depth + 1))
    };
    match v {
        Value::StringValue(s) => json!({ "stringValue": s }),
        Value::StringValueStrindex(i) => json!({ "stringValue": string(*i).unwrap_or_default() }),
        Value::IntValue(i) => json!({ "intValue": i.to_string() }),
        Value::BoolValue(b) => json!({ "boolValue": b }),
        Value::DoubleValue(d) => json!({ "doubleValue": d }),
        Value::BytesValue(b) => json!({ "bytesValue": hex(b) }),
        Value::ArrayValue(a) => {
            json!({ "arrayValue": { "values": a.values.iter().map(any).collect::<Vec<_>>() } })
        }
        Value::KvlistValue(l) => {
            let values: Vec<Json> = l
                .values
                .iter()
                .map(|kv| {
                    let key = if kv.key.is_empty() {
                        string(kv.key_strindex).unwrap_or_default()
                    } else {
                        kv.key.clone()
                    };
                    json!({ "key": key, "value": kv.value.as_ref().map_or(json!({}), any) })
                })
                .collect();
            json!({ "kvlistValue": { "values": values } })
        }
    }
}

/// The `AnyValue` of a decoded value (strings inline).
pub fn encode(v: &AttrValue) -> AnyValue {
    let value = match v {
        AttrValue::Str(s) => Some(Value::StringValue(s.clone())),
        AttrValue::Int(i) => Some(Value::IntValue(*i)),
        AttrValue::Bool(b) => Some(Value::BoolValue(*b)),
        AttrValue::Double(d) => Some(Value::DoubleValue(*d)),
        AttrValue::Other("bytes", t) => Some(Value::BytesValue(unhex(t).unwrap_or_default())),
        AttrValue::Other(_, t) => serde_json::from_str::<Json>(t)
            .ok()
            .and_then(|j| from_json(&j, 0)),
    };
    AnyValue { value }
}

fn from_json(j: &Json, depth: usize) -> Option<Value> {
    if depth > MAX_VALUE_DEPTH {
        return None;
    }
    let obj = j.as_object()?;
    let (k, v) = obj.iter().next()?;
    Some(match k.as_str() {
        "stringValue" => Value::StringValue(v.as_str()?.to_owned()),
        "intValue" => Value::IntValue(match v {
            Json::String(s) => s.parse().ok()?,
            other => other.as_i64()?,
        }),
        "boolValue" => Value::BoolValue(v.as_bool()?),
        "doubleValue" => Value::DoubleValue(v.as_f64()?),
        "bytesValue" => Value::BytesValue(unhex(v.as_str()?)?),
        "arrayValue" => Value::ArrayValue(ArrayValue {
            values: json_list(v)
                .iter()
                .map(|e| AnyValue {
                    value: from_json(e, depth + 1),
                })
                .collect(),
        }),
        "kvlistValue" => Value::KvlistValue(KeyValueList {
            values: json_list(v)
                .iter()
                .map(|e| KeyValue {
                    key: e.get("key").and_then(Json::as_str).unwrap_or("").to_owned(),
                    value: e.get("value").map(|x| AnyValue {
                        value: from_json(x, depth + 1),
                    }),
                    key_strindex: 0,
                })
                .collect(),
        }),
        _ => return None,
    })
}

fn json_list(v: &Json) -> Vec<Json> {
    v.get("values")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default()
}

/// A string-array attribute value (pprof's comments).
pub fn string_array(values: &[String]) -> AttrValue {
    let array = AnyValue {
        value: Some(Value::ArrayValue(ArrayValue {
            values: values
                .iter()
                .map(|v| AnyValue {
                    value: Some(Value::StringValue(v.clone())),
                })
                .collect(),
        })),
    };
    decode(Some(&array), &|_| None)
}

/// The strings of an array attribute's text (the others skipped; empty when malformed).
pub fn parse_string_array(text: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_text() {
        let none = |_: i32| None;
        let values = [
            Value::StringValue("a".into()),
            Value::IntValue(-5),
            Value::BoolValue(true),
            Value::DoubleValue(1.25),
            Value::BytesValue(vec![0, 255]),
            Value::ArrayValue(ArrayValue {
                values: vec![AnyValue {
                    value: Some(Value::IntValue(3)),
                }],
            }),
            Value::KvlistValue(KeyValueList {
                values: vec![KeyValue {
                    key: "k".into(),
                    value: Some(AnyValue {
                        value: Some(Value::StringValue("v".into())),
                    }),
                    key_strindex: 0,
                }],
            }),
        ];
        for v in values {
            let any = AnyValue { value: Some(v) };
            let d = decode(Some(&any), &none);
            let back = AttrValue::from_text(d.kind(), &d.text()).unwrap();
            assert_eq!(encode(&back), any, "{d:?}");
        }
    }
}
