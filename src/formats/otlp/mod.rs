//! OpenTelemetry OTLP profiles (protobuf): `ProfilesData` / `ExportProfilesServiceRequest`,
//! plain or in the collector file exporter's framing (each message prefixed by its length as
//! 4 big-endian bytes), or OTLP/JSON (read by [`json`], written by [`write_json`]); any of them may be gzipped. Both the current (v1.10+) and the v1.9 `Sample` layout are read
//! ([`layout`] documents how they are told apart); the writer emits the current layout.
//!
//! ## Mapping to the v2 tables
//!
//! | OTLP | proftab |
//! | --- | --- |
//! | `Profile` (one `sample_type` each) | one value type; consecutive `Profile`s of a scope whose samples line up (same stacks, attributes, links, timestamps, in order — what a pprof → OTLP conversion writes) are merged back into one `sources` row whose samples carry all their values |
//! | `Sample` | one row per timestamp (or per value when there are none); timestamps-only samples get value 1; timestamps → `samples..time` (seconds from `time_unix_nano`) |
//! | `Sample.attribute_indices` | [`SAMPLE_LABELS`] rows (`str` or `num` + `num_unit`; other value kinds as text with `value_type`) |
//! | `Sample.link_index` | `samples..trace_id`, `samples..span_id` (hex) |
//! | `Location` (inline chain) | one `locations` row per line, innermost first, consecutive, sharing `.pprof_location_id` with `.pprof_line_index` 0, 1, … (pprof's convention, see [`crate::formats::inline`]); `.address`, `.mapping_id`, `.column`, `.frame_type` (`profile.frame.type`), `.is_folded` (`pprof.location.is_folded`) |
//! | `Mapping` | [`MAPPINGS`] rows (`pprof.mapping.has_*` → `has_*`, `process.executable.build_id.gnu` → `build_id`, other attributes as columns named by their key) |
//! | `Profile` fields | `sources` row (`source_timestamp` = `time_unix_nano`) with `.period_type`, `.period_unit`, `.period`, `.duration_nanos`, `.profile_id`, … |
//! | resource / scope / other profile attributes | [`SOURCE_ATTRIBUTES`] rows |
//! | `pprof.profile.*` attributes, period, duration of the first source | `meta` (`pprof.*` keys) |
//! | `pprof.scope.default_sample_type` / `sample_type_order` | meta `default_sample_type` / value type order |

mod attrs;
mod json;
mod json_write;
pub mod layout;
pub mod proto;
mod read;
pub mod wire;
mod write;

pub(crate) use write::KNOWN as WRITE_KNOWN;

use crate::model::{ext, Profile};

use super::{
    gzip, json_scan, protowire, Parsed, ReadError, ReadOptions, WriteError, WriteOptions, Written,
};

/// Format name used in errors and warnings.
pub const NAME: &str = "otlp";

/// Extension table of mappings (the one the pprof reader writes).
pub const MAPPINGS: &str = ext::tables::MAPPINGS;
/// Extension table of per-sample labels (the one the pprof reader writes).
pub const SAMPLE_LABELS: &str = ext::tables::SAMPLE_LABELS;
/// Extension table of resource, scope and profile attributes per source.
pub const SOURCE_ATTRIBUTES: &str = "source_attributes";

/// Semantic-convention attribute: the kind of a frame (docs/formats/otlp.md).
pub const ATTR_FRAME_TYPE: &str = "profile.frame.type";
/// Semantic-convention attribute: pprof `Location.is_folded`.
pub const ATTR_IS_FOLDED: &str = "pprof.location.is_folded";
/// Prefix of the pprof mapping flags (`pprof.mapping.has_functions`, …).
pub const ATTR_MAPPING_HAS: &str = "pprof.mapping.";
/// The attribute that carries a mapping's GNU build id.
pub const ATTR_BUILD_ID: &str = "process.executable.build_id.gnu";
/// Scope attribute naming pprof's default sample type.
pub const ATTR_DEFAULT_SAMPLE_TYPE: &str = "pprof.scope.default_sample_type";
/// Scope attribute recording the original order of pprof sample types.
pub const ATTR_SAMPLE_TYPE_ORDER: &str = "pprof.scope.sample_type_order";
/// Profile attribute holding pprof's comments (string array).
pub const ATTR_COMMENT: &str = super::pprof::META_COMMENT;
/// Profile attributes that map to pprof fields, kept in `meta` under the same key.
pub const PPROF_PROFILE_ATTRS: [&str; 4] = [
    ATTR_COMMENT,
    super::pprof::META_DROP_FRAMES,
    super::pprof::META_KEEP_FRAMES,
    super::pprof::META_DOC_URL,
];

/// Meta keys for the profile-level facts pprof also has (taken from the first source).
pub mod meta_keys {
    use crate::formats::pprof;
    /// `period_type` type.
    pub const PERIOD_TYPE: &str = pprof::META_PERIOD_TYPE;
    /// `period_type` unit.
    pub const PERIOD_UNIT: &str = pprof::META_PERIOD_UNIT;
    /// `period`.
    pub const PERIOD: &str = pprof::META_PERIOD;
    /// `duration_nanos`.
    pub const DURATION_NANOS: &str = pprof::META_DURATION_NANOS;
    /// `time_nanos`.
    pub const TIME_NANOS: &str = pprof::META_TIME_NANOS;
}

/// `sources` extension columns written by the reader and read by the writer.
pub mod source_cols {
    /// `time_unix_nano` exactly (u64; `source_timestamp` in seconds cannot hold nanoseconds).
    pub const TIME_UNIX_NANO: &str = ".time_unix_nano";
    /// Period type.
    pub const PERIOD_TYPE: &str = ".period_type";
    /// Period unit.
    pub const PERIOD_UNIT: &str = ".period_unit";
    /// Period (dbl).
    pub const PERIOD: &str = ".period";
    /// Duration in nanoseconds (dbl).
    pub const DURATION_NANOS: &str = ".duration_nanos";
    /// Profile id (hex).
    pub const PROFILE_ID: &str = ".profile_id";
    /// `Profile.dropped_attributes_count` (int).
    pub const DROPPED_ATTRIBUTES: &str = ".dropped_attributes_count";
    /// `original_payload_format`.
    pub const PAYLOAD_FORMAT: &str = ".original_payload_format";
    /// `original_payload` (hex).
    pub const PAYLOAD: &str = ".original_payload";
    /// Instrumentation scope name.
    pub const SCOPE_NAME: &str = ".scope_name";
    /// Instrumentation scope version.
    pub const SCOPE_VERSION: &str = ".scope_version";
    /// `ScopeProfiles.schema_url`.
    pub const SCOPE_SCHEMA_URL: &str = ".scope_schema_url";
    /// `ResourceProfiles.schema_url`.
    pub const RESOURCE_SCHEMA_URL: &str = ".resource_schema_url";
}

/// `locations` extension columns.
pub mod location_cols {
    use crate::model::ext::locations;
    /// Instruction address (u64).
    pub const ADDRESS: &str = locations::ADDRESS;
    /// `mappings.mapping_id` (u64).
    pub const MAPPING_ID: &str = locations::MAPPING_ID;
    /// Column (int).
    pub const COLUMN: &str = locations::COLUMN;
    pub use crate::formats::inline::{PPROF_LINE_INDEX, PPROF_LOCATION_ID};
    /// `profile.frame.type` (the values of docs/formats/otlp.md).
    pub const FRAME_TYPE: &str = locations::FRAME_TYPE;
    /// pprof `is_folded` (lgl).
    pub const IS_FOLDED: &str = locations::IS_FOLDED;
}

/// `functions` extension columns (the pprof reader's, so that empty names survive both ways).
pub mod function_cols {
    /// TRUE when the function's name was empty (its `name` then reads [`UNKNOWN`]).
    pub const EMPTY_NAME: &str = crate::model::ext::functions::PPROF_EMPTY_NAME;
    /// TRUE when the function's system name was empty (it then reads the name).
    pub const EMPTY_SYSTEM_NAME: &str = crate::model::ext::functions::PPROF_EMPTY_SYSTEM_NAME;
    /// The name shown for a function without one (what `go tool pprof` prints).
    pub const UNKNOWN: &str = crate::formats::pprof::UNKNOWN_FUNCTION;
}

/// `samples` extension columns besides `.time`.
pub mod sample_cols {
    /// Trace id of the sample's link (hex).
    pub const TRACE_ID: &str = ".trace_id";
    /// Span id of the sample's link (hex).
    pub const SPAN_ID: &str = ".span_id";
}

/// Length of the collector file exporter's frame header.
const FRAME_HEADER: usize = 4;

/// True when `bytes` are a binary `ProfilesData`/`ExportProfilesServiceRequest` (only top-level
/// fields 1 and 2), a framed sequence of them, or OTLP/JSON (`"resourceProfiles"` near the
/// start of a JSON object).
pub fn detect(bytes: &[u8]) -> bool {
    if gzip::is_gzip(bytes) {
        // A pprof prefix can hold only fields 1 and 2 (sample types, samples), so pprof's own
        // sniffer decides first, as the registry order does anyway.
        return !super::pprof::detect(bytes)
            && gzip::gunzip_prefix(bytes, GZIP_SNIFF_BYTES).is_some_and(|p| detect_prefix(&p));
    }
    wire::is_profiles_data_shape(bytes) || split_frames(bytes).is_ok() || is_otlp_json(bytes)
}

/// The OTLP reader's error for raw `bytes` (not compressed: `registry::unclaimed`) that [`detect`] does not claim but
/// that begin as an OTLP message or frame does: cut short or damaged further on (binary OTLP
/// has no magic number, so detection must see every top-level field whole). `None` for other
/// bytes, and when the reader takes them after all.
pub(crate) fn damaged(bytes: &[u8], options: &ReadOptions) -> Option<ReadError> {
    detect_prefix(bytes).then(|| read(bytes, options).err())?
}

/// Inflated bytes looked at by [`detect`] in a gzip file.
const GZIP_SNIFF_BYTES: usize = 64 * 1024;

/// [`detect`] for the first bytes of an inflated file: a message, a first frame, or JSON.
fn detect_prefix(prefix: &[u8]) -> bool {
    wire::is_profiles_data_prefix(prefix) || first_frame_begins_well(prefix) || is_otlp_json(prefix)
}

/// True when `bytes` begin with a frame's 4-byte length and then the start of a `ProfilesData`
/// message.
fn first_frame_begins_well(bytes: &[u8]) -> bool {
    let first_frame = || {
        let header: [u8; FRAME_HEADER] = bytes.get(..FRAME_HEADER)?.try_into().ok()?;
        let len = usize::try_from(u32::from_be_bytes(header)).ok()?;
        let rest = bytes.get(FRAME_HEADER..)?;
        Some(wire::is_profiles_data_prefix(
            rest.get(..len).unwrap_or(rest),
        ))
    };
    first_frame() == Some(true)
}

/// Size of the prefix searched for the OTLP/JSON key.
const JSON_SNIFF_BYTES: usize = 4096;

fn is_otlp_json(bytes: &[u8]) -> bool {
    let head = json_scan::prefix(bytes, JSON_SNIFF_BYTES);
    json_scan::opens_object(head) && json_scan::contains(head, b"\"resourceProfiles\"")
}

/// One message of the input and its byte offset.
type Message<'a> = (usize, &'a [u8]);

/// Where (a byte offset) and why the input is not what was expected.
type Broken = (usize, String);

/// The messages of a framed file with their byte offsets, or where and why `bytes` are not a
/// sequence of `[4-byte big-endian length][ProfilesData]` frames covering the whole input.
fn split_frames(bytes: &[u8]) -> Result<Vec<Message<'_>>, Broken> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let rest = bytes.len() - pos;
        let Some(header) = bytes.get(pos..pos + FRAME_HEADER) else {
            return Err((
                pos,
                format!("a frame's 4-byte length is cut short ({rest} bytes remain)"),
            ));
        };
        let len = header.iter().fold(0usize, |n, &b| n << 8 | usize::from(b));
        let start = pos + FRAME_HEADER;
        let Some(msg) = bytes.get(start..).and_then(|m| m.get(..len)) else {
            let have = rest - FRAME_HEADER;
            return Err((
                pos,
                format!("the frame holds {len} bytes but only {have} remain"),
            ));
        };
        if !wire::is_profiles_data_shape(msg) {
            return Err(not_profiles_data(msg, start));
        }
        out.push((start, msg));
        pos = start + len;
    }
    match out.is_empty() {
        true => Err((0, "no frames".to_owned())),
        false => Ok(out),
    }
}

/// The messages of the input: one unframed message, or every frame.
fn messages(bytes: &[u8]) -> Result<Vec<Message<'_>>, ReadError> {
    if wire::is_profiles_data_shape(bytes) {
        return Ok(vec![(0, bytes)]);
    }
    split_frames(bytes).map_err(|framed| {
        // Said of one message when the input begins as one, else of the frames when it begins
        // as framed messages (a frame's length starts with zero bytes, a message's key never).
        let framed_start = !wire::is_profiles_data_prefix(bytes) && first_frame_begins_well(bytes);
        let (at, why) = match framed_start {
            true => framed,
            false => not_profiles_data(bytes, 0),
        };
        ReadError::new(
            NAME,
            super::Place::Byte(at as u64),
            format!(
                "not an OTLP ProfilesData message (top-level fields 1 and 2 only) nor a \
                 sequence of 4-byte-length-framed ones: {why}"
            ),
        )
    })
}

/// Where and why `msg` (at byte `base` of the input) is not a `ProfilesData` message: the first
/// top-level field that breaks it (cut short, a bad varint or length) or that it does not have.
fn not_profiles_data(msg: &[u8], base: usize) -> Broken {
    for field in protowire::Fields::new(msg, base) {
        match field {
            Err(e) => return (e.field_offset, e.message),
            Ok(f) if !matches!((f.number, f.value), (1 | 2, protowire::Value::Len(..))) => {
                let why = format!(
                    "field {} of wire type {} is not one of its fields",
                    f.number,
                    f.value.wire_type()
                );
                return (f.offset, why);
            }
            Ok(_) => {}
        }
    }
    (base, "it has no fields".to_owned())
}

/// The wire layout of every message of an OTLP file (`"v1.8"`, `"v1.9"`, `"current (v1.10+)"`),
/// as the reader decides it (rules in [`layout`]).
pub fn message_layouts(bytes: &[u8]) -> Result<Vec<&'static str>, ReadError> {
    if is_otlp_json(bytes) {
        let n = json::to_binary(bytes)?.len();
        return Ok(vec!["OTLP/JSON"; n]);
    }
    messages(bytes)?
        .into_iter()
        .map(|(offset, msg)| {
            let data = decode_message(offset, msg)?;
            layout::of_message(&data)
                .map(layout::Layout::name)
                .map_err(|e| ReadError::new(NAME, super::Place::Byte(offset as u64), e))
        })
        .collect()
}

/// Decodes one `ProfilesData` message found at `offset`.
fn decode_message(offset: usize, msg: &[u8]) -> Result<proto::ProfilesData, ReadError> {
    <proto::ProfilesData as prost::Message>::decode(msg).map_err(|e| {
        ReadError::new(
            NAME,
            super::Place::Byte(offset as u64),
            format!("malformed ProfilesData message: {e}"),
        )
    })
}

/// Reads OTLP profiles.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    if gzip::is_gzip(bytes) {
        let inflated = gzip::gunzip_capped(bytes, options.limits.max_decompressed_bytes, NAME)?;
        if gzip::is_gzip(&inflated) {
            return Err(ReadError::whole(NAME, "gzip inside gzip"));
        }
        return read(&inflated, options);
    }
    if is_otlp_json(bytes) {
        let owned = json::to_binary(bytes)?;
        let msgs: Vec<(usize, &[u8])> = owned.iter().map(|m| (0, m.as_slice())).collect();
        return read::read_messages(&msgs, options);
    }
    let msgs = messages(bytes)?;
    read::read_messages(&msgs, options)
}

/// Writes every value type of `profile` as OTLP profiles (one unframed `ProfilesData`, current
/// layout).
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    write::write(profile, options)
}

/// Writes every value type of `profile` as OTLP/JSON: the message [`write`] gives, in the
/// proto3 JSON mapping OTLP specifies (one object and a newline).
pub fn write_json(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    json_write::write(profile, options)
}

/// Lowercase hex of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Bytes of lowercase or uppercase hex; `None` when malformed.
pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    s.as_bytes()
        .chunks(2)
        .map(|p| {
            let txt = std::str::from_utf8(p).ok()?;
            u8::from_str_radix(txt, 16).ok()
        })
        .collect()
}
