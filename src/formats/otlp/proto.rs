//! OTLP profiles protobuf messages, transcribed by hand from
//! `open-telemetry/opentelemetry-proto` (`profiles/v1development/profiles.proto`,
//! `common/v1/common.proto`, `resource/v1/resource.proto`) at v1.10+ (current) — see
//! docs/formats/otlp.md.
//!
//! `ScopeProfiles.profiles` and `Profile.samples` are kept as raw bytes because `Profile`
//! (fields 7–12, v1.8 vs later) and `Sample` (fields 2–4, v1.9 and earlier vs v1.10+) changed
//! their numbers: the reader decodes them once the layout is known (see [`super::layout`]).

/// `ProfilesData` (and the identical `ExportProfilesServiceRequest`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProfilesData {
    /// Field 1.
    #[prost(message, repeated, tag = "1")]
    pub resource_profiles: Vec<ResourceProfiles>,
    /// Field 2.
    #[prost(message, optional, tag = "2")]
    pub dictionary: Option<ProfilesDictionary>,
}

/// `ResourceProfiles`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceProfiles {
    /// Field 1.
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    /// Field 2.
    #[prost(message, repeated, tag = "2")]
    pub scope_profiles: Vec<ScopeProfiles>,
    /// Field 3.
    #[prost(string, tag = "3")]
    pub schema_url: String,
}

/// `ScopeProfiles`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeProfiles {
    /// Field 1.
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    /// Field 2: encoded `Profile` messages (their fields 7–12 differ between v1.8 and later;
    /// see [`super::layout`]).
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub profiles: Vec<Vec<u8>>,
    /// Field 3.
    #[prost(string, tag = "3")]
    pub schema_url: String,
}

/// `ProfilesDictionary`: tables shared by every profile of one message; element 0 of each
/// table is the zero value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProfilesDictionary {
    /// Field 1.
    #[prost(message, repeated, tag = "1")]
    pub mapping_table: Vec<Mapping>,
    /// Field 2.
    #[prost(message, repeated, tag = "2")]
    pub location_table: Vec<Location>,
    /// Field 3.
    #[prost(message, repeated, tag = "3")]
    pub function_table: Vec<Function>,
    /// Field 4.
    #[prost(message, repeated, tag = "4")]
    pub link_table: Vec<Link>,
    /// Field 5.
    #[prost(string, repeated, tag = "5")]
    pub string_table: Vec<String>,
    /// Field 6.
    #[prost(message, repeated, tag = "6")]
    pub attribute_table: Vec<KeyValueAndUnit>,
    /// Field 7.
    #[prost(message, repeated, tag = "7")]
    pub stack_table: Vec<Stack>,
}

/// `Profile` in the v1.9+ layout (what the writer emits; the reader decodes both layouts by
/// hand in [`super::layout::decode_profile`]).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    /// Field 1.
    #[prost(message, optional, tag = "1")]
    pub sample_type: Option<ValueType>,
    /// Field 2: encoded `Sample` messages, decoded once the layout is known.
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub samples: Vec<Vec<u8>>,
    /// Field 3.
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    /// Field 4.
    #[prost(uint64, tag = "4")]
    pub duration_nano: u64,
    /// Field 5.
    #[prost(message, optional, tag = "5")]
    pub period_type: Option<ValueType>,
    /// Field 6.
    #[prost(int64, tag = "6")]
    pub period: i64,
    /// Field 7 (16 bytes; all zero is invalid).
    #[prost(bytes = "vec", tag = "7")]
    pub profile_id: Vec<u8>,
    /// Field 8.
    #[prost(uint32, tag = "8")]
    pub dropped_attributes_count: u32,
    /// Field 9.
    #[prost(string, tag = "9")]
    pub original_payload_format: String,
    /// Field 10.
    #[prost(bytes = "vec", tag = "10")]
    pub original_payload: Vec<u8>,
    /// Field 11.
    #[prost(int32, repeated, tag = "11")]
    pub attribute_indices: Vec<i32>,
}

/// `ValueType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub type_strindex: i32,
    /// Field 2.
    #[prost(int32, tag = "2")]
    pub unit_strindex: i32,
}

/// `Sample` in the current layout (v1.10+).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub stack_index: i32,
    /// Field 2.
    #[prost(int32, repeated, tag = "2")]
    pub attribute_indices: Vec<i32>,
    /// Field 3.
    #[prost(int32, tag = "3")]
    pub link_index: i32,
    /// Field 4.
    #[prost(int64, repeated, tag = "4")]
    pub values: Vec<i64>,
    /// Field 5.
    #[prost(fixed64, repeated, tag = "5")]
    pub timestamps_unix_nano: Vec<u64>,
}

/// `Sample` in the v1.8/v1.9 layout (`values` = 2, `attribute_indices` = 3, `link_index` = 4).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SampleV19 {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub stack_index: i32,
    /// Field 2.
    #[prost(int64, repeated, tag = "2")]
    pub values: Vec<i64>,
    /// Field 3.
    #[prost(int32, repeated, tag = "3")]
    pub attribute_indices: Vec<i32>,
    /// Field 4.
    #[prost(int32, tag = "4")]
    pub link_index: i32,
    /// Field 5.
    #[prost(fixed64, repeated, tag = "5")]
    pub timestamps_unix_nano: Vec<u64>,
}

impl From<SampleV19> for Sample {
    fn from(s: SampleV19) -> Self {
        Sample {
            stack_index: s.stack_index,
            attribute_indices: s.attribute_indices,
            link_index: s.link_index,
            values: s.values,
            timestamps_unix_nano: s.timestamps_unix_nano,
        }
    }
}

impl From<Sample> for SampleV19 {
    fn from(s: Sample) -> Self {
        SampleV19 {
            stack_index: s.stack_index,
            values: s.values,
            attribute_indices: s.attribute_indices,
            link_index: s.link_index,
            timestamps_unix_nano: s.timestamps_unix_nano,
        }
    }
}

/// `Stack`: location indices, innermost first.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Stack {
    /// Field 1.
    #[prost(int32, repeated, tag = "1")]
    pub location_indices: Vec<i32>,
}

/// `Location`.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Location {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub mapping_index: i32,
    /// Field 2.
    #[prost(uint64, tag = "2")]
    pub address: u64,
    /// Field 3: inline chain, innermost first; the last line is the caller.
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<Line>,
    /// Field 4.
    #[prost(int32, repeated, tag = "4")]
    pub attribute_indices: Vec<i32>,
}

/// `Line`.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Line {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub function_index: i32,
    /// Field 2 (1-based, 0 = unset).
    #[prost(int64, tag = "2")]
    pub line: i64,
    /// Field 3 (1-based, 0 = unset).
    #[prost(int64, tag = "3")]
    pub column: i64,
}

/// `Function`.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Function {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub name_strindex: i32,
    /// Field 2.
    #[prost(int32, tag = "2")]
    pub system_name_strindex: i32,
    /// Field 3.
    #[prost(int32, tag = "3")]
    pub filename_strindex: i32,
    /// Field 4.
    #[prost(int64, tag = "4")]
    pub start_line: i64,
}

/// `Mapping`.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Mapping {
    /// Field 1.
    #[prost(uint64, tag = "1")]
    pub memory_start: u64,
    /// Field 2.
    #[prost(uint64, tag = "2")]
    pub memory_limit: u64,
    /// Field 3.
    #[prost(uint64, tag = "3")]
    pub file_offset: u64,
    /// Field 4.
    #[prost(int32, tag = "4")]
    pub filename_strindex: i32,
    /// Field 5.
    #[prost(int32, repeated, tag = "5")]
    pub attribute_indices: Vec<i32>,
}

/// `Link`: trace and span ids.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Link {
    /// Field 1 (16 bytes).
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
    /// Field 2 (8 bytes).
    #[prost(bytes = "vec", tag = "2")]
    pub span_id: Vec<u8>,
}

/// `KeyValueAndUnit`: an entry of the attribute table.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValueAndUnit {
    /// Field 1.
    #[prost(int32, tag = "1")]
    pub key_strindex: i32,
    /// Field 2.
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
    /// Field 3 (0 = none).
    #[prost(int32, tag = "3")]
    pub unit_strindex: i32,
}

/// `common.v1.AnyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    /// The oneof `value`.
    #[prost(oneof = "Value", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    pub value: Option<Value>,
}

/// The oneof of [`AnyValue`].
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    /// Field 1.
    #[prost(string, tag = "1")]
    StringValue(String),
    /// Field 2.
    #[prost(bool, tag = "2")]
    BoolValue(bool),
    /// Field 3.
    #[prost(int64, tag = "3")]
    IntValue(i64),
    /// Field 4.
    #[prost(double, tag = "4")]
    DoubleValue(f64),
    /// Field 5.
    #[prost(message, tag = "5")]
    ArrayValue(ArrayValue),
    /// Field 6.
    #[prost(message, tag = "6")]
    KvlistValue(KeyValueList),
    /// Field 7.
    #[prost(bytes = "vec", tag = "7")]
    BytesValue(Vec<u8>),
    /// Field 8 (profiles only): index into the dictionary's string table.
    #[prost(int32, tag = "8")]
    StringValueStrindex(i32),
}

/// `common.v1.ArrayValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayValue {
    /// Field 1.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<AnyValue>,
}

/// `common.v1.KeyValueList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValueList {
    /// Field 1.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<KeyValue>,
}

/// `common.v1.KeyValue` (`key` XOR `key_strindex`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    /// Field 1.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Field 2.
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
    /// Field 3 (profiles only).
    #[prost(int32, tag = "3")]
    pub key_strindex: i32,
}

/// `common.v1.InstrumentationScope`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentationScope {
    /// Field 1.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Field 2.
    #[prost(string, tag = "2")]
    pub version: String,
    /// Field 3.
    #[prost(message, repeated, tag = "3")]
    pub attributes: Vec<KeyValue>,
    /// Field 4.
    #[prost(uint32, tag = "4")]
    pub dropped_attributes_count: u32,
}

/// `resource.v1.Resource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    /// Field 1.
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
    /// Field 2.
    #[prost(uint32, tag = "2")]
    pub dropped_attributes_count: u32,
    /// Field 3: `EntityRef` messages, kept encoded (proftab reports them as dropped).
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub entity_refs: Vec<Vec<u8>>,
}
