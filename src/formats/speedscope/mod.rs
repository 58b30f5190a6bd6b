//! speedscope's JSON file format (`jlfwong/speedscope:src/lib/file-format-spec.ts`,
//! `docs/formats/speedscope.md`).
//!
//! Reading:
//! * Every entry of `profiles` becomes one row of `sources` (`source_type = "speedscope"`) with
//!   extension columns `.name` (the profile's name), `.start_value` and `.end_value` (in the
//!   profile's unit); its samples refer to that source.
//! * Value types from the unit: `none` → the weight is `samples`/`count` itself (speedscope's
//!   own exports of folded stacks use `none`); `nanoseconds` … `seconds` → `time`/`<unit>` plus
//!   `samples`/`count` = 1 per sample; `bytes` → `bytes`/`bytes` plus `samples`/`count`; any
//!   other unit → `weight`/`<unit>` plus `samples`/`count`. When two profiles use different time
//!   units, later ones are converted to the unit of the first. The default value type (meta
//!   `default_sample_type`) is the weight type of the profile at `activeProfileIndex`.
//! * Sampled profiles: one sample per entry of `samples` (stacks are root first), weighted by
//!   `weights`; zero weights are kept, negative weights are an error (as in speedscope).
//! * Evented profiles: every interval between two consecutive distinct event times during
//!   which at least one frame is open becomes one sample of the innermost open frame's stack,
//!   weighted by the interval's length. Intervals with no open frame (before the first open,
//!   between top-level frames) are idle time and produce no sample. Events must be balanced
//!   and non-decreasing (speedscope's errors).
//! * With a time unit, samples get `.time` (seconds from `startValue`): the interval start for
//!   evented profiles; for sampled profiles the weights laid end to end from `startValue`, as
//!   speedscope's time-order view does.
//! * Frames: `name` → function name and system name (empty → `(anonymous)`), `file` →
//!   filename, `line` → location line, `col` → `locations..column`. `name`, `exporter`,
//!   `activeProfileIndex` and `version` of the file go to meta `speedscope.*`; unknown keys are
//!   reported in a warning.
//!
//! Writing produces one **sampled** profile per row of `sources` (so combined profiles keep
//! their sources), each holding that source's samples of the chosen value type in sample order,
//! one entry per sample (no aggregation), `startValue` 0 and `endValue` the total weight.
//! Frames are the profile's locations in order of first use. Where the samples have times
//! (`.time`) that are not the weights laid end to end (gaps, another order), the source is
//! written as an **evented** profile instead, one `O`/`C` interval per sample at its time, when
//! that is exact (time unit; every sample with a time, a stack and a positive weight; no
//! overlaps); otherwise the times are dropped with a warning.

mod read;
mod schema;
mod write;
mod write_evented;

use super::json_scan;
use super::sniff::Sniff;
use crate::model::ext;

pub use read::read;
pub use write::write;

/// Format name used in errors and warnings.
pub const NAME: &str = "speedscope";
/// The `$schema` value every speedscope file carries.
pub const SCHEMA_URL: &str = "https://www.speedscope.app/file-format-schema.json";
/// Meta key of the file's `name`.
pub const META_NAME: &str = "speedscope.name";
/// Meta key of the file's `exporter`.
pub const META_EXPORTER: &str = "speedscope.exporter";
/// Meta key of the file's `activeProfileIndex`.
pub const META_ACTIVE_PROFILE: &str = "speedscope.active_profile_index";
/// Meta key of the file's (pre-0.6) `version`.
pub const META_VERSION: &str = "speedscope.version";
/// `sources` extension column holding each profile's name.
pub const SOURCE_NAME: &str = ext::sources::NAME;
/// `sources` extension column holding each profile's `startValue`.
pub const SOURCE_START_VALUE: &str = ".start_value";
/// `sources` extension column holding each profile's `endValue`.
pub const SOURCE_END_VALUE: &str = ".end_value";
/// `locations` extension column holding frame columns.
pub const LOCATION_COLUMN: &str = ext::locations::COLUMN;

const ANONYMOUS: &str = "(anonymous)";
const KNOWN_TOP_KEYS: [&str; 7] = [
    "$schema",
    "shared",
    "profiles",
    "name",
    "activeProfileIndex",
    "exporter",
    "version",
];
const KNOWN_PROFILE_KEYS: [&str; 8] = [
    "type",
    "name",
    "unit",
    "startValue",
    "endValue",
    "samples",
    "weights",
    "events",
];

/// True when the input is a JSON object whose `$schema` is speedscope's file-format schema.
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// [`detect`], saying why not when the object has another `$schema`.
pub fn sniff(bytes: &[u8]) -> Sniff {
    if json_scan::first_significant_byte(bytes) != Some(b'{') {
        return Sniff::Foreign;
    }
    match json_scan::top_level_members(bytes)
        .and_then(|m| json_scan::member_str(bytes, &m, "$schema"))
    {
        Some(s) if is_schema(&s) => Sniff::Fits,
        Some(s) => Sniff::near(
            1,
            format!("`$schema` is {s:?}, not speedscope's file-format-schema.json"),
        ),
        None => Sniff::Foreign,
    }
}

/// True when `head`, the first bytes of a document, begin as a speedscope file does: an object
/// naming speedscope's file-format schema. [`detect`] needs the top-level members whole: this
/// tells a file cut short, or a prefix of a large one, by its start.
pub(crate) fn begins_as(head: &[u8]) -> bool {
    json_scan::opens_object(head)
        && json_scan::contains(head, b"speedscope.app/file-format-schema.json")
}

fn is_schema(s: &str) -> bool {
    s.trim_end_matches('#')
        .ends_with("speedscope.app/file-format-schema.json")
}
