//! Chrome / Node `.cpuprofile` (V8's `Profiler.Profile`), the old V8 tree format, and Chrome
//! trace files that wrap CPU profiles in `Profile`/`ProfileChunk` events
//! (`docs/formats/cpuprofile.md`).
//!
//! Reading:
//! * One row of `sources` per CPU profile (a trace may hold several, keyed by event `id`), with
//!   extension columns `.name` (the thread name, for traces), `.start_time` and `.end_time`
//!   (`startTime`/`endTime` in seconds on V8's monotonic clock; `source_timestamp` is NA because
//!   that clock is not the epoch).
//! * One sample per entry of `samples`. Its stack is the path from the tree's root to the sampled
//!   node; the synthetic `(root)` node at the top is left out, every other node is a frame
//!   (`(program)`, `(idle)` and `(garbage collector)` included, so no time is lost).
//! * Value types: `samples`/`count` = 1 per sample, and `time`/`nanoseconds` = the sample's
//!   `timeDeltas` entry (µs × 1000), i.e. the interval that ended with the sample (the first is
//!   measured from `startTime`). Summing `time` per node therefore equals summing `timeDeltas`
//!   per node. `.time` is the sample's time in seconds from `startTime`. Negative deltas are
//!   clamped as speedscope does: time never goes backwards, such samples get 0 (warning).
//!   `time` is the default value type when present.
//! * Profiles without `samples` (only `hitCount`s) give one row per node with a non-zero
//!   `hitCount`, valued `samples` = hitCount, without time. When `samples` exist, `hitCount` is
//!   derived data and is not kept.
//! * Functions: one row per distinct call frame; `functionName` → name and system name
//!   (anonymous functions are named `(anonymous file:line)` as speedscope does), `url` →
//!   filename, `lineNumber + 1` → `start_line`, `columnNumber + 1` →
//!   `functions..start_column`, `scriptId` → `functions..script_id`. Locations have line 0,
//!   except the innermost frame of trace samples that carry `lines`/`columns`, whose line and
//!   `locations..column` come from there. Trace `codeType: "JS"` sets
//!   `locations..frame_type = "v8js"`.
//! * Old format (`head` tree, absolute `timestamps`): when there is one more timestamp than
//!   samples, the first is the start and sample *i* is at `timestamps[i+1]` (this matches the
//!   same recording in the new format exactly); with equal counts, sample *i* is at
//!   `timestamps[i]` and the start is `startTime` (seconds).
//! * Structural faults are errors: duplicate node ids, a node with two parents, parent cycles
//!   (found by an iterative walk, never a hang), and, in a bare profile, references to nodes
//!   that do not exist or `samples`/`timeDeltas` of different lengths. Chrome traces are often
//!   trimmed, so there dangling references are skipped with a warning, as speedscope does.
//! * `positionTicks`, `deoptReason`, `bailoutReason`, unknown keys and trace events other than
//!   CPU profiles are reported in warnings.

mod read;
mod schema;

use super::json_scan;
use crate::model::ext;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "cpuprofile";
/// `sources` extension column: thread name (traces).
pub const SOURCE_NAME: &str = ext::sources::NAME;
/// `sources` extension column: `startTime` in seconds (V8 monotonic clock).
pub const SOURCE_START_TIME: &str = ".start_time";
/// `sources` extension column: `endTime` in seconds (V8 monotonic clock).
pub const SOURCE_END_TIME: &str = ".end_time";
/// `functions` extension column: 1-based column of the function's start.
pub const FUNCTION_START_COLUMN: &str = ".start_column";
/// `functions` extension column: V8's `scriptId`.
pub const FUNCTION_SCRIPT_ID: &str = ".script_id";
/// `locations` extension column: 1-based column of a sampled position.
pub const LOCATION_COLUMN: &str = ext::locations::COLUMN;

const KNOWN_PROFILE_KEYS: [&str; 5] = ["nodes", "startTime", "endTime", "samples", "timeDeltas"];
const KNOWN_OLD_KEYS: [&str; 5] = ["head", "startTime", "endTime", "samples", "timestamps"];
/// Names of trace events that carry CPU profiles.
const PROFILE_EVENTS: [&str; 3] = ["Profile", "ProfileChunk", "CpuProfile"];

/// True when `head`, the first bytes of a document, begin as a `.cpuprofile` does: a first
/// member `nodes` whose nodes have a `callFrame`, or the old format's `head` with a
/// `functionName`. [`detect`] needs the top-level members whole, and `nodes`, the first and
/// largest, holds none of the others: this tells a file cut short, or a prefix of a large
/// one, by its start (`registry::detect_decompressed`, `registry::unclaimed`).
pub(crate) fn begins_as(head: &[u8]) -> bool {
    match json_scan::first_key(head) {
        Some(b"nodes") => json_scan::contains(head, b"\"callFrame\""),
        Some(b"head") => json_scan::contains(head, b"\"functionName\""),
        _ => false,
    }
}

/// True for a `.cpuprofile` (`nodes` plus timing keys), the old V8 format (`head` plus
/// `samples`/`timestamps`), or a Chrome trace (object with `traceEvents`, or a bare event array)
/// holding CPU profile events.
pub fn detect(bytes: &[u8]) -> bool {
    match json_scan::first_significant_byte(bytes) {
        Some(b'{') => {
            let Some(m) = json_scan::top_level_members(bytes) else {
                return false;
            };
            let has = |k: &str| json_scan::member(&m, k).is_some();
            let bare = json_scan::member_starts_with(bytes, &m, "nodes", b'[')
                && (has("samples") || has("timeDeltas") || has("startTime"));
            let old = json_scan::member_starts_with(bytes, &m, "head", b'{')
                && (has("timestamps") || has("samples"))
                && has("startTime");
            let trace = json_scan::member(&m, "traceEvents")
                .filter(|t| bytes.get(t.value.start) == Some(&b'['))
                .is_some_and(|t| {
                    has_profile_events(bytes.get(t.value.clone()).unwrap_or_default())
                });
            bare || old || trace
        }
        Some(b'[') => {
            let start = json_scan::skip_bom_and_ws(bytes);
            let first = json_scan::array_elements(bytes, start, 1).and_then(|e| e.first().cloned());
            let is_event = first
                .and_then(|r| json_scan::object_members(bytes, r.start))
                .is_some_and(|m| {
                    ["pid", "ph"]
                        .iter()
                        .all(|k| json_scan::member(&m, k).is_some())
                });
            is_event && has_profile_events(bytes)
        }
        _ => false,
    }
}

fn has_profile_events(bytes: &[u8]) -> bool {
    json_scan::contains(bytes, b"\"ProfileChunk\"") || json_scan::contains(bytes, b"\"CpuProfile\"")
}
