//! Chrome trace event format (`chrome://tracing`, Perfetto's JSON, `node --trace-events-enabled`,
//! Hermes): duration events `B`/`E` and complete events `X`, per thread, become samples of their
//! stack over time, as speedscope imports them. Traces that wrap CPU profiles
//! (`Profile`/`ProfileChunk` events) are `cpuprofile`'s: that detector comes first.
//!
//! Reading:
//! * The JSON array form and the `{"traceEvents": [...]}` form; an array may be cut short (no
//!   closing `]`, a trailing comma, a last event cut in the middle, which is skipped and counted)
//!   as the format's specification allows.
//! * One `sources` row. Per `pid`/`tid`, begin events (`B`, and `X` at `ts`) and end events
//!   (`E`, and `X` at `ts + dur`, else `tdur`) are replayed in time order with speedscope's
//!   rules: at equal times an end that closes the frame on top comes first, unless it is the
//!   end of the frame about to begin (zero duration); an end whose name differs from the frame
//!   on top is ignored, an end on an empty stack is ignored, an end with the right name but
//!   other `args` closes the top frame; frames still open at the end close at the thread's last
//!   change of stack (ignored ends do not move time). Each of these is counted in a warning.
//! * Every interval during which a thread's stack stays the same is one sample: `time`/
//!   `nanoseconds` = its length (`ts` is in µs), `samples`/`count` = 1, `samples..time` = its
//!   start in seconds from the trace's first event, `samples..pid`, `samples..tid` (text, as
//!   written), `samples..thread_name` and `samples..process_name` from `M` metadata events.
//! * Frames: the event `name` (`(unnamed)` when missing) is the function; Hermes events' `args`
//!   `url`/`line`/`column` give filename, line and `locations..column`.
//! * The `{"traceEvents", "samples", "stackFrames"}` form (Hermes, Chrome's sampled traces):
//!   as speedscope, the `samples` are read (each weighs the time to the next sample of its
//!   thread, the last 0) and the duration events are not (warning).

mod read;

use super::json_scan;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "trace-event";
/// `samples` extension column: the process name from `process_name` metadata events.
pub const SAMPLE_PROCESS_NAME: &str = ".process_name";
/// Largest number of events read; past it the trace is refused.
pub const MAX_EVENTS: usize = 50_000_000;
/// Event names of Chrome traces that wrap CPU profiles (read by `cpuprofile`).
const PROFILE_EVENTS: [&[u8]; 2] = [b"\"ProfileChunk\"", b"\"CpuProfile\""];

/// True when `head`, the first bytes of a document, begin as a trace in the JSON Object Format
/// does: an object naming `traceEvents`, without the CPU profile events a `.cpuprofile` trace
/// has. [`detect`] needs the top-level members whole: this tells a file cut short, or a prefix
/// of a large one, by its start. (The JSON Array Format may end anywhere and is read as is.)
pub(crate) fn begins_as(head: &[u8]) -> bool {
    json_scan::opens_object(head)
        && json_scan::contains(head, b"\"traceEvents\"")
        && !PROFILE_EVENTS.iter().any(|p| json_scan::contains(head, p))
}

/// True for a JSON array whose first element is an object with a `ph` member, or an object
/// whose `traceEvents` is such an array, without CPU profile events (those are cpuprofile's).
pub fn detect(bytes: &[u8]) -> bool {
    let events = match json_scan::first_significant_byte(bytes) {
        Some(b'[') => json_scan::skip_bom_and_ws(bytes),
        Some(b'{') => {
            let Some(m) = json_scan::top_level_members(bytes) else {
                return false;
            };
            match json_scan::member(&m, "traceEvents") {
                Some(t) if bytes.get(t.value.start) == Some(&b'[') => t.value.start,
                _ => return false,
            }
        }
        _ => return false,
    };
    let first = read::first_element(bytes, events);
    let is_event = first
        .and_then(|r| json_scan::object_members(bytes, r.start))
        .is_some_and(|m| json_scan::member_starts_with(bytes, &m, "ph", b'"'));
    is_event && !PROFILE_EVENTS.iter().any(|p| json_scan::contains(bytes, p))
}
